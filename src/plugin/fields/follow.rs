//! Field followers that steer or move tile by tile: a path read off the field.

use bevy::prelude::*;

use super::super::agent::{
    NavError, NavPath, PathFailed, PathFollower, PathRequest, Tell, body_point, join_index,
    stands_on, walk_corners,
};
use super::super::clock::Moment;
use super::super::diagnostics::NavDiagnostics;
use super::super::map::NavMaps;
use super::super::movement::{Avoidance, GridLocked};
use super::super::profiles::AgentKind;
use super::field::{
    FieldsToExtend, FollowField, NavField, ReadFrom, beyond, no_field, tell_no_field,
};
use super::walk::Footing;
use crate::search::PathError;

/// Gives each [`FollowField`] agent that steers or moves tile by tile the way down its field
/// from where it stands, as a [`NavPath`], when it has none or the field changed since.
#[allow(clippy::type_complexity)]
pub(crate) fn follow_fields(
    mut commands: Commands,
    maps: Res<NavMaps>,
    fields: Query<&NavField>,
    mut agents: Query<
        (
            Entity,
            &FollowField,
            &Transform,
            Option<&NavPath>,
            &PathFollower,
            Option<&ReadFrom>,
            Option<&AgentKind>,
            Option<&PathFailed>,
        ),
        (Without<PathRequest>, Or<(With<Avoidance>, With<GridLocked>)>),
    >,
    mut tell: Tell,
    mut diagnostics: ResMut<NavDiagnostics>,
    mut extend: ResMut<FieldsToExtend>,
) {
    let began = Moment::now();
    for (entity, follow, transform, path, follower, read, kind, failed) in &mut agents {
        let agent = kind.copied().unwrap_or_default();
        // (A kind whose field is not made yet waits for it.)
        let Some((nav, layer)) =
            fields.get(follow.0).ok().and_then(|nav| Some((nav, nav.layer(agent)?)))
        else {
            continue;
        };
        if let Some(telling) = no_field(layer, follow.0, read, failed) {
            // No field (no goal it can use, or its map gone): it stops, told why once.
            commands.entity(entity).remove::<NavPath>();
            tell_no_field(&mut commands, &mut tell, entity, telling);
            continue;
        }
        let footing = maps.get(nav.map).and_then(|map| Footing::of(map, agent));
        let (Some(field), Some(on)) = (layer.field, footing) else {
            continue;
        };
        let map = on.map;
        let fresh = read.is_some_and(|r| (r.0, r.1) == (follow.0, layer.revision));
        let told_before = read.is_some_and(|r| r.2);
        let told = fresh && told_before;
        // Walking a way read from the field as it is: on it goes.
        if fresh && path.is_some() {
            continue;
        }
        let position = transform.translation.truncate();
        let read = |told| ReadFrom(follow.0, layer.revision, told);
        let cell = match on.cell(position) {
            Ok(cell) => cell,
            // Off the field's map: it cannot follow the field (told once).
            Err(_) if told => continue,
            Err(error) => {
                commands.entity(entity).remove::<NavPath>();
                let telling = (read(true), Some(NavError::Start(error)));
                tell_no_field(&mut commands, &mut tell, entity, telling);
                continue;
            }
        };
        // (One told since that it had no way is given its goal as new: it arrives again.)
        let at_goal = field.is_end(cell) && path.is_none() && !told_before;
        if at_goal || told {
            continue; // arrived, or no way and already told
        }
        if beyond(field, on.grid, cell) {
            // Beyond a field built only as far as its followers needed: it waits for more.
            extend.ask(follow.0);
            continue;
        }
        let Some(cells) = field.path_from(cell) else {
            commands.entity(entity).insert(read(true));
            let goal = field.goals().first().copied().unwrap_or(cell);
            let error = NavError::Search(PathError::Unreachable { start: cell, goal });
            tell.failed(&mut commands.entity(entity), error);
            continue;
        };
        let points = cells.iter().map(|&c| body_point(&map.geometry, agent, c)).collect();
        let corners = walk_corners(follower.smooth, agent, Some(on.grid), &cells);
        let cost = field.cost(cell).unwrap_or(0.0);
        let way = NavPath { corners, ..NavPath::walk(map.entity, cells, points, cost, agent) };
        let next = join_index(&way, position, &map.geometry, on.grid);
        let mut walker = commands.entity(entity);
        stands_on(&mut walker, map.entity);
        walker.remove::<PathFailed>().insert((
            read(false),
            way,
            PathFollower { next, ..follower.clone() },
        ));
    }
    diagnostics.field_time += began.elapsed();
}
