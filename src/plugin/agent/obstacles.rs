//! Characters that others plan around ([`NavObstacle`]) and the teams that decide who
//! (`NavTeam`, `TeamSet`); the cells they hold, gathered once a frame.

use bevy::prelude::*;

use super::super::map::NavMaps;
use super::{OnNavMap, agent_map};
use crate::grid::GridPos;

/// Marks a character that others walk around: requests from the agents it blocks treat the
/// cell it stands on as blocked, and such an agent about to step into that cell plans again.
/// `NavObstacle::default()` blocks every agent; [`blocking`](Self::blocking) and
/// [`ally_of`](Self::ally_of) only some teams ([`NavTeam`]), so that allies walk through each
/// other while enemies plan around.
///
/// Teams decide planning only. Bodies with [`Avoidance`](super::super::Avoidance) still steer round
/// each other whatever their teams, and a [`GridLocked`](super::super::GridLocked) agent still holds
/// its cell against everyone (two bodies never share a cell).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct NavObstacle {
    /// Whom it blocks.
    pub blocks: Blocks,
}

impl NavObstacle {
    /// An obstacle for the agents of `teams` only (agents with no [`NavTeam`] pass).
    pub fn blocking(teams: TeamSet) -> Self {
        Self { blocks: Blocks::Teams(teams) }
    }

    /// An obstacle for every agent but those of `team` (its own): its allies pass.
    pub fn ally_of(team: NavTeam) -> Self {
        Self { blocks: Blocks::AllBut(TeamSet::of(&[team])) }
    }

    /// True when an agent of `team` (`None`: of no team) plans around this obstacle.
    pub fn blocks(&self, team: Option<NavTeam>) -> bool {
        match (self.blocks, team) {
            (Blocks::All, _) => true,
            (Blocks::Teams(set), Some(team)) => set.contains(team),
            (Blocks::Teams(_), None) => false,
            (Blocks::AllBut(set), Some(team)) => !set.contains(team),
            (Blocks::AllBut(_), None) => true,
        }
    }
}

/// Which agents a [`NavObstacle`] blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
pub enum Blocks {
    /// Every agent.
    #[default]
    All,
    /// The agents of these teams.
    Teams(TeamSet),
    /// Every agent but those of these teams (agents of no team included).
    AllBut(TeamSet),
}

/// The team of an agent (0 to 63), for [`NavObstacle`]s that block only some teams. An agent
/// without one is of no team.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Component)]
pub struct NavTeam(pub u8);

/// A set of [`NavTeam`]s (teams 0 to 63; higher numbers are read modulo 64).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
pub struct TeamSet(pub u64);

impl TeamSet {
    /// The set of these teams.
    pub fn of(teams: &[NavTeam]) -> Self {
        Self(teams.iter().fold(0, |bits, team| bits | 1 << (team.0 % 64)))
    }

    /// True when `team` is in the set.
    pub fn contains(self, team: NavTeam) -> bool {
        self.0 & 1 << (team.0 % 64) != 0
    }
}

/// Cells of its own map that an agent's next search treats as walls (other characters in its
/// way, found by the avoidance), removed once the request is answered.
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub(crate) struct PlanAround(pub(crate) Vec<GridPos>);

/// A cell a [`NavObstacle`] stands on this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ObstacleCell {
    pub(crate) obstacle: Entity,
    pub(crate) map: Entity,
    pub(crate) cell: GridPos,
    pub(crate) rule: NavObstacle,
}

/// The cells that [`NavObstacle`]s stand on this frame.
#[derive(Resource, Default, Debug)]
pub(crate) struct ObstacleCells(pub Vec<ObstacleCell>);

/// The obstacles an agent plans around: not itself, and only those that block its team.
pub(crate) fn blocks_agent(
    entity: Entity,
    team: Option<NavTeam>,
) -> impl Fn(&&ObstacleCell) -> bool {
    move |o| o.obstacle != entity && o.rule.blocks(team)
}

impl ObstacleCells {
    /// Cells of `map` to avoid for the planning of `entity`, of `team`.
    pub(crate) fn for_agent(
        &self,
        entity: Entity,
        team: Option<NavTeam>,
        map: Entity,
    ) -> Vec<GridPos> {
        let blocks = blocks_agent(entity, team);
        self.0.iter().filter(|o| blocks(o) && o.map == map).map(|o| o.cell).collect()
    }

    /// Cells of every map to avoid for the planning of `entity`, of `team`.
    pub(crate) fn for_agent_anywhere(
        &self,
        entity: Entity,
        team: Option<NavTeam>,
    ) -> impl Iterator<Item = (Entity, GridPos)> + '_ {
        self.0.iter().filter(blocks_agent(entity, team)).map(|o| (o.map, o.cell))
    }
}

/// Notes the cells that [`NavObstacle`]s stand on this frame.
pub(crate) fn collect_obstacles(
    maps: &NavMaps,
    obstacles: &Query<(Entity, &Transform, Option<&OnNavMap>, &NavObstacle)>,
    cells: &mut ObstacleCells,
) {
    cells.0.clear();
    for (entity, transform, on, rule) in obstacles {
        let position = transform.translation.truncate();
        if let Some(map) = agent_map(maps, on, position)
            && let Ok(cell) = map.geometry.world_to_cell(position)
        {
            cells.0.push(ObstacleCell { obstacle: entity, map: map.entity, cell, rule: *rule });
        }
    }
}
