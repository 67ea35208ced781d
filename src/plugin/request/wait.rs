//! Requests that wait for a way to open
//! ([`WhenUnreachable::Wait`](super::super::agent::WhenUnreachable::Wait)): asked again when the
//! grids they were planned on change, at most once every [`WAIT_RETRY_SECONDS`].

use bevy::prelude::*;

use super::super::agent::{PathRequest, WAIT_RETRY_SECONDS};
use super::super::fields::FollowField;
use super::super::map::NavMaps;
use crate::grid::GridStamp;

/// On an agent whose request found no way and waits for one: the request, the grids (start and
/// goal map) as they were when it last failed, and the seconds since it was last asked.
#[derive(Component, Clone, Debug, PartialEq)]
pub(crate) struct WaitingForWay {
    pub(super) request: PathRequest,
    seen: Vec<(Entity, GridStamp)>,
    since: f32,
}

impl WaitingForWay {
    /// Waiting with `request`, which failed on the grids of `maps` (its start and goal maps) as
    /// they are now.
    pub(super) fn new(request: PathRequest, maps: &NavMaps, on: [Entity; 2]) -> Self {
        Self { request, seen: stamps(maps, on.into_iter()), since: 0.0 }
    }
}

/// The grid stamps of `on` (each map once; a map gone is left out).
fn stamps(maps: &NavMaps, on: impl Iterator<Item = Entity>) -> Vec<(Entity, GridStamp)> {
    let mut seen: Vec<(Entity, GridStamp)> = Vec::new();
    for map in on {
        if let Some(m) = maps.get(map).filter(|_| seen.iter().all(|s| s.0 != map)) {
            seen.push((map, m.grid.stamp()));
        }
    }
    seen
}

/// What a waiting request does this frame: ask again (a grid it was planned on changed, and
/// the last try was long enough ago), or go on waiting. A map gone: it stops waiting (asked
/// again, the request says why).
fn should_retry(waiting: &mut WaitingForWay, maps: &NavMaps, dt: f32) -> bool {
    waiting.since += dt.max(0.0);
    let changed = waiting
        .seen
        .iter()
        .any(|&(map, stamp)| maps.get(map).is_none_or(|m| m.grid.stamp() != stamp));
    if !changed || waiting.since < WAIT_RETRY_SECONDS {
        return false;
    }
    waiting.since = 0.0;
    let maps_now = waiting.seen.iter().map(|s| s.0).collect::<Vec<_>>();
    waiting.seen = stamps(maps, maps_now.into_iter());
    true
}

/// Asks each waiting request again when a grid on its way changed (see [`should_retry`]).
/// An agent the game gave another request meanwhile is left to it; one it sent to follow a
/// field waits no more.
pub(crate) fn retry_unreachable(
    mut commands: Commands,
    time: Res<Time>,
    maps: Res<NavMaps>,
    mut waiting: Query<(Entity, &mut WaitingForWay, Has<FollowField>), Without<PathRequest>>,
) {
    let dt = time.delta_secs();
    for (entity, mut wait, following) in &mut waiting {
        if following {
            commands.entity(entity).remove::<WaitingForWay>();
            continue;
        }
        // (Read before writing: a request that waits is not marked changed every frame.)
        if should_retry(wait.bypass_change_detection(), &maps, dt) {
            commands.entity(entity).insert(wait.request.clone());
        }
    }
}
