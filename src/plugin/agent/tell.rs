//! What becomes of an agent, said one way by every walker: path followers, field followers and
//! the request system all tell a failure, an arrival and the map an agent stands on through
//! [`Tell`] and [`stands_on`], so that a game reads the same components and messages whichever
//! way its agents move.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::components::{Arrival, Arrived, NavError, OnNavMap, PathFailed};
use crate::grid::GridPos;
use crate::plugin::link::AvoidLinks;

/// The messages an agent's outcome is told by ([`Arrived`], [`PathFailed`]).
#[derive(SystemParam)]
pub(crate) struct Tell<'w> {
    arrived: MessageWriter<'w, Arrived>,
    failed: MessageWriter<'w, PathFailed>,
}

impl Tell<'_> {
    /// `agent` cannot go where it was sent, for `error`: a [`PathFailed`] is put on it (kept
    /// until it is sent elsewhere or finds a way) and sent as a message.
    pub(crate) fn failed(&mut self, agent: &mut EntityCommands, error: NavError) {
        let failed = PathFailed { entity: agent.id(), error };
        // (The links it avoided are open to it again: see `AvoidLinks`.)
        agent.insert(failed.clone()).remove::<AvoidLinks>();
        self.failed.write(failed);
    }

    /// `agent` stopped on `cell`: at its goal (or where its [`Arrival`] `by` held) when
    /// `reached_goal`, else at the end of a partial way.
    pub(crate) fn arrived(
        &mut self,
        agent: Entity,
        cell: GridPos,
        reached_goal: bool,
        by: Arrival,
    ) {
        self.arrived.write(Arrived { entity: agent, cell, reached_goal, by });
    }
}

/// `agent` stands on `map` now ([`OnNavMap`]): given a path there, carried there across a link,
/// or walked onto it following a field.
pub(crate) fn stands_on(agent: &mut EntityCommands, map: Entity) {
    agent.insert(OnNavMap(map));
}
