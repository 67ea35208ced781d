//! What an agent carries and what it is told: the request for a path, the path, the walker
//! that follows it, obstacles, and the messages and errors about them. Shared by the request
//! and movement systems, which both import it from here.

mod components;
mod ground;
pub(crate) mod obstacles;
mod start;
mod targets;
mod tell;

pub use components::{
    Arrival, Arrived, GroupPace, NavError, NavPath, OnNavMap, PathFailed, PathFollower, PathGoal,
    PathLeg, PathRequest, Replanning, TraceSearch, TracedSearch, WAIT_RETRY_SECONDS,
    WhenUnreachable,
};
pub(crate) use components::{PlannedOn, agent_map};
pub(crate) use ground::slowness;
pub use ground::{GroundSpeed, PathTimes};
pub use obstacles::{Blocks, NavObstacle, NavTeam, TeamSet};
pub(crate) use obstacles::{ObstacleCells, PlanAround, blocks_agent, collect_obstacles};
pub(crate) use start::{
    agent_grid, agent_start, body_point, corner_indices, join_index, join_within, rederive_points,
    request_start, stand_in, waits_for_map, walk_corners, walks_out,
};
pub(crate) use targets::{
    CHASE_REACH, Targets, arrival_holds, chase_cell, cut_at_arrival, open_near, target_cell,
    target_place, threats_of,
};
pub(crate) use tell::{Tell, stands_on};
