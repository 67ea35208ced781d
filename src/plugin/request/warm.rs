//! Each map's grids made and warmed a slice at a time, within the warm-up's share of the frame's
//! work ([`WorkShares::warm_up`](crate::plugin::WorkShares::warm_up)), so that no first search on a
//! large map stalls a frame: first the grids of new kinds of agents
//! ([`AgentGridBuild`](crate::search::AgentGridBuild)), then what the searches derive from each
//! grid's cells (component labels, jump point search's bits).

use std::collections::{HashMap, HashSet};

use bevy::prelude::*;

use crate::grid::NavGrid;
use crate::plugin::clock::Moment;
use crate::plugin::map::{NavMap, NavMaps};
use crate::plugin::profiles::AgentKind;
use crate::plugin::work::{FrameWork, WorkKind};
use crate::search::GridWarmup;

/// A grid of the plugin's: a map's own (for plain agents) or one kind of agent's on it.
type GridKey = (Entity, AgentKind);

/// Steps the builds of the maps' grids for kinds of agents, then the warm-ups of their grids
/// that are not warm, within the frame's work.
pub(crate) fn warm_grids(
    mut maps: ResMut<NavMaps>,
    mut warmups: Local<HashMap<GridKey, GridWarmup>>,
    mut work: FrameWork,
) {
    let began = Moment::now();
    let budget = work.clockless(WorkKind::WarmUp);
    let mut left = budget;
    if maps.iter().any(NavMap::builds_agent_grids) {
        for map in maps.maps_mut() {
            left = left.saturating_sub(map.build_agent_grids(left));
        }
    }
    let grids =
        maps.iter().flat_map(|map| map.grids().map(move |(kind, grid)| ((map.entity, kind), grid)));
    let done = budget - left + warm(&mut warmups, grids, left);
    if done > 0 {
        let took = began.elapsed();
        work.spend(WorkKind::WarmUp, done, took);
        work.diagnostics.warm_time += took;
    }
}

/// Steps the warm-ups of `grids` that are not warm, in turn, with `work` units in all; forgets
/// those of grids warm or gone. Returns the work done.
fn warm<'a>(
    warmups: &mut HashMap<GridKey, GridWarmup>,
    grids: impl Iterator<Item = (GridKey, &'a NavGrid)>,
    work: u64,
) -> u64 {
    let mut left = work;
    let mut cold = HashSet::new();
    for (key, grid) in grids {
        if GridWarmup::is_warm(grid) {
            continue;
        }
        cold.insert(key);
        if left == 0 {
            continue;
        }
        let warmup = warmups.entry(key).or_default();
        let before = warmup.work();
        warmup.step(grid, left);
        left = left.saturating_sub(warmup.work() - before);
    }
    warmups.retain(|key, _| cold.contains(key));
    work - left
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Cell, GridPos, Preparation};

    /// Cold grids share the frame's work in turn until each is warm; a grid warm or gone is
    /// forgotten.
    #[test]
    fn cold_grids_share_the_work_until_warm() {
        let cold = |n| NavGrid::new(n, n).unwrap().with_preparation(Preparation::InSlices);
        let (a, b) = (cold(100), cold(50));
        let (ka, kb) = (
            (Entity::from_raw_u32(1).unwrap(), AgentKind::PLAIN),
            (Entity::from_raw_u32(2).unwrap(), AgentKind::PLAIN),
        );
        let mut warmups = HashMap::new();
        let mut frames = 0;
        while !(GridWarmup::is_warm(&a) && GridWarmup::is_warm(&b)) {
            warm(&mut warmups, [(ka, &a), (kb, &b)].into_iter(), 5_000);
            frames += 1;
            assert!(frames < 1000);
        }
        // About (102² + 52²) cells twice over (labels, then bits) at 5,000 a frame.
        assert!(frames >= 2 * (102 * 102 + 52 * 52) / 5_000, "{frames} frames");
        warm(&mut warmups, [(ka, &a)].into_iter(), 5_000);
        assert!(warmups.is_empty());
        // A grid changed while it warms begins again, and still gets warm.
        let mut c = cold(200);
        let kc = (Entity::from_raw_u32(3).unwrap(), AgentKind::PLAIN);
        warm(&mut warmups, [(kc, &c)].into_iter(), 5_000);
        c.set(GridPos::new(5, 5), Cell::Blocked).unwrap();
        while !GridWarmup::is_warm(&c) {
            warm(&mut warmups, [(kc, &c)].into_iter(), 5_000);
        }
        assert!(!c.connected(GridPos::new(0, 0), GridPos::new(5, 5)));
    }
}
