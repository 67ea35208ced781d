//! Theta* (any-angle): plain neighbours (square or hex), and a successor may hang from the
//! expanded cell's parent when it sees it (the line-of-sight shortcut is in the A* loop).

use super::expansion::Expansion;
use super::options::Heuristic;
use crate::grid::GridPos;

/// Theta*: the plain expansion `E`, with line-of-sight shortcuts through the parent.
pub(super) struct AnyAngle<E>(pub(super) E);

impl<E: Expansion> Expansion for AnyAngle<E> {
    fn any_angle(&self) -> bool {
        true
    }

    #[inline]
    fn distance(&self, heuristic: Heuristic, x: isize, y: isize, goal: GridPos) -> f64 {
        self.0.distance(heuristic, x, y, goal)
    }

    #[inline]
    fn closeness(&self, x: isize, y: isize, goal: GridPos) -> f64 {
        self.0.closeness(x, y, goal)
    }

    #[inline]
    fn successors(
        &self,
        i: usize,
        x: isize,
        y: isize,
        parent: usize,
        visit: impl FnMut(usize, isize, isize, f64),
    ) {
        self.0.successors(i, x, y, parent, visit);
    }
}
