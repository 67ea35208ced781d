//! Navigation profiles: how one kind of agent sees each terrain class (a boat sails water and
//! cannot walk land; a ghost drifts through walls; a cart is kept off mud).

use serde::{Deserialize, Serialize};

use super::cell::{Cell, Terrain};

/// The largest agent (in tiles along a side) a grid can serve, and the cap of the clearance
/// values kept for agent sizes.
pub const MAX_AGENT_SIZE: u32 = 8;

/// What a [`NavProfile`] makes of the cells of one terrain class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub enum TerrainRule {
    /// As the grid says: its wall or its cost.
    #[default]
    AsGrid,
    /// Never entered, whatever the grid says.
    Blocked,
    /// Entered at this cost, even where the grid has a wall (a ghost in a wall). A cost of 0
    /// is read as 1.
    Cost(u32),
}

/// Per-agent rules by terrain class: which classes an agent may enter and at what cost. With
/// no rule for a class, [`otherwise`](Self::otherwise) applies (by default: as the grid says),
/// so `NavProfile::default()` changes nothing.
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, NavProfile, Terrain, TerrainRule};
///
/// const WATER: Terrain = Terrain(1);
/// // A boat: water at cost 1, anything else out of bounds.
/// let boat = NavProfile::new().with(WATER, TerrainRule::Cost(1)).otherwise(TerrainRule::Blocked);
/// assert_eq!(boat.cell(Cell::Blocked, WATER), Cell::GROUND);
/// assert_eq!(boat.cell(Cell::GROUND, Terrain::DEFAULT), Cell::Blocked);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub struct NavProfile {
    /// One rule per listed class, sorted by class.
    rules: Vec<(Terrain, TerrainRule)>,
    otherwise: TerrainRule,
}

impl NavProfile {
    /// A profile that sees the grid as it is, until rules are added.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the rule for one terrain class.
    pub fn with(mut self, terrain: Terrain, rule: TerrainRule) -> Self {
        match self.rules.binary_search_by_key(&terrain, |&(t, _)| t) {
            Ok(k) => self.rules[k].1 = rule,
            Err(k) => self.rules.insert(k, (terrain, rule)),
        }
        self
    }

    /// The rule for every class without one of its own.
    pub fn otherwise(mut self, rule: TerrainRule) -> Self {
        self.otherwise = rule;
        self
    }

    /// The rule this profile applies to `terrain`.
    pub fn rule(&self, terrain: Terrain) -> TerrainRule {
        match self.rules.binary_search_by_key(&terrain, |&(t, _)| t) {
            Ok(k) => self.rules[k].1,
            Err(_) => self.otherwise,
        }
    }

    /// The cell as an agent with this profile sees it, for a grid cell `cell` of class
    /// `terrain`.
    pub fn cell(&self, cell: Cell, terrain: Terrain) -> Cell {
        apply(self.rule(terrain), cell)
    }

    /// True when the profile changes no cell of any grid.
    pub fn is_identity(&self) -> bool {
        self.otherwise == TerrainRule::AsGrid
            && self.rules.iter().all(|&(_, rule)| rule == TerrainRule::AsGrid)
    }

    /// The rule of every class, for lookups in a loop.
    pub(crate) fn table(&self) -> [TerrainRule; 256] {
        let mut table = [self.otherwise; 256];
        for &(terrain, rule) in &self.rules {
            table[usize::from(terrain.0)] = rule;
        }
        table
    }
}

/// A cell's cost (0 = blocked) under `rule`.
#[inline]
pub(crate) fn apply_cost(rule: TerrainRule, cost: u32) -> u32 {
    match rule {
        TerrainRule::AsGrid => cost,
        TerrainRule::Blocked => 0,
        TerrainRule::Cost(cost) => cost.max(1),
    }
}

fn apply(rule: TerrainRule, cell: Cell) -> Cell {
    let cost = match cell {
        Cell::Blocked => 0,
        Cell::Passable { cost } => cost,
    };
    match apply_cost(rule, cost) {
        0 => Cell::Blocked,
        cost => Cell::Passable { cost },
    }
}
