//! How a grid's searches come by what they derive from its cells (component labels, jump point
//! search's bits): built by the first search that needs them, or only a slice at a time by a
//! [`GridWarmup`](crate::search::GridWarmup).

use super::{CellIndex, CellView, GridPos, LabelsBuild, NavGrid, Preparation};

impl NavGrid {
    /// How searches come by the labels and jump point bits (see [`Preparation`]).
    pub fn preparation(&self) -> Preparation {
        self.preparation
    }

    /// Sets how searches come by the labels and jump point bits (see [`Preparation`]). Whatever
    /// is built stays built.
    pub fn set_preparation(&mut self, preparation: Preparation) {
        self.preparation = preparation;
    }

    /// Builder form of [`set_preparation`](Self::set_preparation).
    pub fn with_preparation(mut self, preparation: Preparation) -> Self {
        self.preparation = preparation;
        self
    }

    /// [`connected`](Self::connected) as a search asks it: `true` when the labels are not
    /// built and the grid is [`Preparation::InSlices`] (the search then finds out).
    pub(crate) fn may_connect(&self, a: GridPos, b: GridPos) -> bool {
        if self.preparation == Preparation::InSlices && self.components.get().is_none() {
            return self.is_passable(a) && self.is_passable(b);
        }
        self.connected(a, b)
    }

    /// True when a search may ask for the component labels: built, or built when asked.
    pub(crate) fn knows_components(&self) -> bool {
        self.preparation == Preparation::OnFirstSearch || self.has_labels()
    }

    /// True once the component labels are built (and kept in step).
    pub(crate) fn has_labels(&self) -> bool {
        self.components.get().is_some()
    }

    /// Steps a build of the labels with at most `*work` units of work (taking what it spends
    /// from it); true once the labels are built, which it then keeps. The build must have been
    /// begun on this grid as it is now (no change since).
    pub(crate) fn build_labels(&self, build: &mut LabelsBuild, work: &mut u64) -> bool {
        if self.has_labels() {
            return true;
        }
        if !build.step(self.cells(), work) {
            return false;
        }
        let built = std::mem::replace(build, LabelsBuild::new(0));
        let _ = self.components.set(built.finish());
        true
    }

    /// A build of the labels, to step with [`build_labels`](Self::build_labels).
    pub(crate) fn labels_build(&self) -> LabelsBuild {
        LabelsBuild::new(self.costs.len())
    }

    /// The search's index of this grid if built, or (a grid built [`Preparation::OnFirstSearch`])
    /// built now by `build`. `None` if not built, or of another kind.
    pub(crate) fn prepared_index<T: CellIndex + 'static>(
        &self,
        build: impl FnOnce(CellView) -> T,
    ) -> Option<&T> {
        match self.preparation {
            Preparation::OnFirstSearch => self.cell_index(build),
            Preparation::InSlices => self.index.get()?.as_any().downcast_ref::<T>(),
        }
    }

    /// True once an index is built (and kept in step).
    pub(crate) fn has_index(&self) -> bool {
        self.index.get().is_some()
    }

    /// Keeps `index`, built from the cells as they are now, unless one is already kept.
    pub(crate) fn keep_index(&self, index: Box<dyn CellIndex>) {
        let _ = self.index.set(index);
    }
}
