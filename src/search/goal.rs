//! Where a search may end ([`Goal`]): one cell ([`OneGoal`]), or the nearest of several
//! ([`AnyGoal`]: the closest exit, the nearest well). The A* loop is generic over it, so the
//! one-goal search compiles to the loop it always was.

use super::expansion::Expansion;
use super::options::Heuristic;
use super::precomputed::landmarks::{Landmarks, MAX_LANDMARKS};
use crate::grid::{GridPos, NavGrid};

/// Up to this many goals the search is guided by the least estimate over them; past it the
/// estimate would cost more than it saves, and the search runs as Dijkstra's.
pub(super) const GUIDED_GOALS: usize = 32;

/// Where the search loop may stop, and its estimate of the cost of getting there.
pub(super) trait Goal {
    /// The one goal, when there is one (the loop then looks for a clear direct path to it).
    fn one(&self) -> Option<GridPos>;
    /// Whether padded cell `i` is a goal.
    fn is_goal(&self, i: usize) -> bool;
    /// The unscaled `heuristic` estimate from padded (`x`, `y`) (0 where the goals are too many
    /// to weigh).
    fn distance<E: Expansion>(
        &self,
        expansion: &E,
        heuristic: Heuristic,
        x: isize,
        y: isize,
    ) -> f64;
    /// For partial paths: how far padded (`x`, `y`) is from the goal (the nearest one).
    fn closeness<E: Expansion>(&self, expansion: &E, x: isize, y: isize) -> f64;
    /// The landmarks' lower bound from padded cell `j` (their units).
    fn landmark_bound(&self, landmarks: &Landmarks, j: usize) -> u32;
    /// The goal named in an error.
    fn named(&self) -> GridPos;
}

/// A single goal cell.
pub(super) struct OneGoal {
    pos: GridPos,
    index: usize,
    /// The landmarks' numbers at the goal.
    numbers: [u32; 2 * MAX_LANDMARKS],
}

impl OneGoal {
    pub(super) fn new(grid: &NavGrid, pos: GridPos, landmarks: Option<&Landmarks>) -> Self {
        let index = grid.index(pos);
        let mut numbers = [0u32; 2 * MAX_LANDMARKS];
        if let Some(landmarks) = landmarks {
            let here = landmarks.at(index);
            numbers[..here.len()].copy_from_slice(here);
        }
        Self { pos, index, numbers }
    }
}

impl Goal for OneGoal {
    #[inline]
    fn one(&self) -> Option<GridPos> {
        Some(self.pos)
    }

    #[inline]
    fn is_goal(&self, i: usize) -> bool {
        i == self.index
    }

    #[inline]
    fn distance<E: Expansion>(&self, e: &E, heuristic: Heuristic, x: isize, y: isize) -> f64 {
        e.distance(heuristic, x, y, self.pos)
    }

    #[inline]
    fn closeness<E: Expansion>(&self, expansion: &E, x: isize, y: isize) -> f64 {
        expansion.closeness(x, y, self.pos)
    }

    #[inline]
    fn landmark_bound(&self, landmarks: &Landmarks, j: usize) -> u32 {
        landmarks.bound(j, &self.numbers)
    }

    fn named(&self) -> GridPos {
        self.pos
    }
}

/// The goals of a nearest-goal query, kept by the pathfinder between queries (and while one
/// is paused) so that a query allocates nothing once they have grown.
#[derive(Clone, Debug, Default)]
pub(super) struct GoalCells {
    /// Padded indices of the open goals, sorted, without repeats.
    cells: Vec<usize>,
    /// The open goals.
    all: Vec<GridPos>,
    /// The goals the estimate weighs (empty past [`GUIDED_GOALS`]).
    guide: Vec<GridPos>,
    /// The landmarks' numbers at each guide goal, one after another.
    numbers: Vec<u32>,
    /// The goal named in errors.
    named: GridPos,
}

impl GoalCells {
    /// Takes `open`, the open goals (at least one), for a search on `grid`.
    pub(super) fn set(&mut self, grid: &NavGrid, open: impl Iterator<Item = GridPos> + Clone) {
        self.cells.clear();
        self.cells.extend(open.clone().map(|g| grid.index(g)));
        self.cells.sort_unstable();
        self.cells.dedup();
        self.all.clear();
        self.all.extend(open.clone());
        self.guide.clear();
        if self.cells.len() <= GUIDED_GOALS {
            self.guide.extend(open.clone());
        }
        self.named = open.clone().next().unwrap_or_default();
    }

    /// Whether padded cell `i` is one of the goals.
    pub(super) fn contains(&self, i: usize) -> bool {
        self.cells.binary_search(&i).is_ok()
    }

    /// The goals as the search loop reads them, with the landmarks' numbers at the guide goals
    /// read again (the landmarks may differ from one call to the next).
    pub(super) fn goal(&mut self, grid: &NavGrid, landmarks: Option<&Landmarks>) -> AnyGoal<'_> {
        self.numbers.clear();
        let mut slots = 0;
        if let Some(landmarks) = landmarks {
            for &g in &self.guide {
                let here = landmarks.at(grid.index(g));
                slots = here.len();
                self.numbers.extend_from_slice(here);
            }
        }
        AnyGoal { goals: self, slots }
    }
}

/// The nearest of several goals: the estimate is the least over them (while they are few; 0
/// past that), and so is the landmarks' bound.
pub(super) struct AnyGoal<'a> {
    goals: &'a GoalCells,
    /// Landmark numbers per goal (0 without landmarks).
    slots: usize,
}

impl Goal for AnyGoal<'_> {
    fn one(&self) -> Option<GridPos> {
        None
    }

    #[inline]
    fn is_goal(&self, i: usize) -> bool {
        self.goals.contains(i)
    }

    #[inline]
    fn distance<E: Expansion>(&self, e: &E, heuristic: Heuristic, x: isize, y: isize) -> f64 {
        let guide = &self.goals.guide;
        if guide.is_empty() {
            return 0.0;
        }
        guide.iter().map(|&g| e.distance(heuristic, x, y, g)).fold(f64::INFINITY, f64::min)
    }

    fn closeness<E: Expansion>(&self, expansion: &E, x: isize, y: isize) -> f64 {
        // Every goal (partial paths only: the search is bounded by its limits anyway).
        self.goals.all.iter().map(|&g| expansion.closeness(x, y, g)).fold(f64::INFINITY, f64::min)
    }

    #[inline]
    fn landmark_bound(&self, landmarks: &Landmarks, j: usize) -> u32 {
        if self.slots == 0 {
            return 0;
        }
        self.goals
            .numbers
            .chunks_exact(self.slots)
            .map(|numbers| landmarks.bound(j, numbers))
            .min()
            .unwrap_or(0)
    }

    fn named(&self) -> GridPos {
        self.goals.named
    }
}
