//! Links that take time or that the game carries agents across ([`LinkCrossing`]): the system
//! that moves agents along links over time ([`CrossingLink`]) and takes in the game's
//! [`CarryAcross`] answers to agents waiting at links ([`WaitingAtLink`]). The movement
//! system sets agents off (`take_link` in the parent) and walks them on once across.

use bevy::prelude::*;

#[cfg(test)]
use crate::plugin::link::LinkEnd;
use crate::plugin::link::{
    CarryAcross, CrossingLink, LinkCrossed, LinkCrossing, LinkReached, NavLink, WaitingAtLink,
};

/// What the movement system reads and writes of agents on links.
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct OnLinks<'w, 's> {
    pub(super) rides: Query<'w, 's, &'static CrossingLink>,
    pub(super) waiting: Query<'w, 's, &'static WaitingAtLink>,
    pub(super) reached: MessageWriter<'w, LinkReached>,
    pub(super) crossed: MessageWriter<'w, LinkCrossed>,
}

impl OnLinks<'_, '_> {
    /// Whether `entity` got across a link over time this frame (its ride is taken away);
    /// `None` while it is still on the way (the movement system leaves it be).
    pub(super) fn landed(&self, commands: &mut Commands, entity: Entity) -> Option<bool> {
        match self.rides.get(entity) {
            Ok(ride) if !ride.is_over() => None,
            Ok(_) => {
                commands.entity(entity).remove::<CrossingLink>();
                Some(true)
            }
            Err(_) => Some(false),
        }
    }
}

/// How `link` is crossed (at once, if it has no [`LinkCrossing`]).
pub(super) fn crossing_of(link: Option<(&NavLink, Option<&LinkCrossing>)>) -> LinkCrossing {
    link.and_then(|(_, crossing)| crossing.copied()).unwrap_or_default()
}

/// Moves the agents crossing links over time along them (one that gets across is told with
/// [`LinkCrossed`], and walks on in the movement system), and takes the game's [`CarryAcross`]
/// answers to agents waiting at carried links (acted on by the movement system; an answer for
/// an agent that does not wait is ignored).
pub(crate) fn move_on_links(
    mut commands: Commands,
    time: Res<Time>,
    mut riders: Query<(Entity, &mut Transform, &mut CrossingLink)>,
    mut waiting: Query<&mut WaitingAtLink>,
    mut carries: MessageReader<CarryAcross>,
    mut crossed: MessageWriter<LinkCrossed>,
) {
    for carry in carries.read() {
        if let Ok(mut wait) = waiting.get_mut(carry.entity) {
            wait.answer = Some(carry.outcome);
        }
    }
    let dt = time.delta_secs();
    for (entity, mut transform, mut ride) in &mut riders {
        if ride.is_over() {
            // Got across last frame, and the movement system did not see it (its path was
            // taken away meanwhile): it stands there.
            commands.entity(entity).remove::<CrossingLink>();
            continue;
        }
        ride.elapsed += dt;
        let at = ride.position();
        transform.translation.x = at.x;
        transform.translation.y = at.y;
        if ride.is_over() {
            // Across: the movement system walks it on this frame, and takes the ride away.
            let (link, from, to) = (ride.link, ride.from, ride.to);
            crossed.write(LinkCrossed { entity, link, from, to });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ride(seconds: f32, elapsed: f32) -> CrossingLink {
        let end = LinkEnd::new(Entity::PLACEHOLDER, crate::grid::GridPos::new(0, 0));
        CrossingLink {
            link: Entity::PLACEHOLDER,
            from: end,
            to: end,
            from_point: Vec2::ZERO,
            to_point: Vec2::new(10.0, 0.0),
            seconds,
            elapsed,
        }
    }

    #[test]
    fn a_ride_moves_evenly_from_end_to_end_and_is_over_at_its_time() {
        assert_eq!(ride(2.0, 0.0).position(), Vec2::ZERO);
        assert_eq!(ride(2.0, 0.5).position(), Vec2::new(2.5, 0.0));
        assert!(!ride(2.0, 1.99).is_over());
        assert!(ride(2.0, 2.0).is_over());
        assert_eq!(ride(2.0, 5.0).position(), Vec2::new(10.0, 0.0));
        // No time at all: across at once.
        assert!(ride(0.0, 0.0).is_over());
    }
}
