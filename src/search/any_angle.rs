//! Theta* (any-angle): plain neighbours, and a successor may hang from the expanded cell's
//! parent when it sees it (the line-of-sight shortcut is in the A* loop).

use super::astar::Expansion;
use super::neighbors::Neighbors;

/// Theta*: plain neighbors, with line-of-sight shortcuts through the parent.
pub(super) struct AnyAngle<'a>(pub(super) Neighbors<'a>);

impl Expansion for AnyAngle<'_> {
    fn any_angle(&self) -> bool {
        true
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
