//! How a grid's searches come by what they derive from its cells (the methods are in
//! `prepare`).

/// How a grid's searches come by what they derive from its cells: its component labels (which
/// answer "unreachable" without a search) and jump point search's bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Preparation {
    /// The first search that needs them builds them whole: that search takes time linear in
    /// the grid's size (a large map's first search is a long frame). The default.
    #[default]
    OnFirstSearch,
    /// Only a [`GridWarmup`](crate::search::GridWarmup) builds them, a slice at a time (the
    /// plugin does so for its maps, within each frame's budget). Until it has, searches go
    /// without: plain A* in place of jump point search, and an unreachable goal found by
    /// searching. The same path costs, found with more work.
    InSlices,
}
