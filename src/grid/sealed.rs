//! The sealed binary form every baked format shares (grids, and the search's precomputed
//! structures): a magic, a version, the body, and a checksum; a reader of the body; and what
//! ties precomputed data to the grid it was made for (the grid's rules in two bytes, and a
//! fingerprint of its cells). Here, at the bottom, so that every layer above can use it.

use std::fmt;

use super::{CornerRule, GridPos, HexCoords, NavGrid, Neighborhood};

/// Why baked data could not be read.
#[derive(Clone, Debug, PartialEq)]
pub enum BakeError {
    /// Written by a newer version of the format than this crate knows.
    FutureVersion {
        /// The data's format version.
        found: u32,
        /// The newest this crate reads.
        supported: u32,
    },
    /// Not a baked navigation file (wrong magic bytes).
    NotBaked,
    /// The data ends early.
    Truncated,
    /// The checksum does not match: the data was changed or damaged.
    Corrupt,
    /// The data is readable but describes no valid grid.
    Invalid(String),
    /// The RON text does not parse.
    Ron(String),
    /// The grid's size differs from what it is meant for (the tilemap's).
    SizeMismatch {
        /// Width and height of the map it is meant for.
        expected: (u32, u32),
        /// Width and height of the baked grid.
        found: (u32, u32),
    },
    /// The grid's cells have another shape than the map's: a hex bake on a square map, a
    /// square one on a hex map, or hexes numbered another way.
    TopologyMismatch {
        /// The map's cell shape and moves.
        expected: Neighborhood,
        /// The baked grid's.
        found: Neighborhood,
    },
    /// The file could not be read or written.
    Io {
        /// The file.
        path: String,
        /// What the system said.
        error: String,
    },
    /// The data claims a grid of more cells than a load may make (see
    /// [`MAX_LOADED_CELLS`](crate::io::baked::MAX_LOADED_CELLS) and
    /// [`from_binary_with_limit`](crate::io::baked::from_binary_with_limit)): refused before anything is
    /// allocated, since a few bytes of run-length data can claim billions of cells.
    TooLarge {
        /// Cells claimed (width x height).
        cells: u64,
        /// The most the load allowed.
        limit: u64,
    },
    /// Precomputed data (a [`PathTable`](crate::search::PathTable), a
    /// [`FirstMoveTable`](crate::search::FirstMoveTable) or
    /// [`Landmarks`](crate::search::Landmarks)) made for another grid, or for this grid before
    /// its cells changed.
    OtherGrid,
}

impl fmt::Display for BakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BakeError::FutureVersion { found, supported } => write!(
                f,
                "baked navigation data is format version {found}; this crate reads up to {supported}"
            ),
            BakeError::NotBaked => write!(f, "not baked navigation data"),
            BakeError::Truncated => write!(f, "baked navigation data ends early"),
            BakeError::Corrupt => write!(f, "baked navigation data is damaged (checksum mismatch)"),
            BakeError::Invalid(why) => write!(f, "baked navigation data is invalid: {why}"),
            BakeError::Ron(why) => write!(f, "baked navigation RON does not parse: {why}"),
            BakeError::Io { path, error } => write!(f, "{path}: {error}"),
            BakeError::TooLarge { cells, limit } => write!(
                f,
                "baked navigation data claims {cells} cells, more than the {limit} a load may make"
            ),
            BakeError::OtherGrid => {
                write!(f, "the precomputed paths were made for another grid (or its cells changed)")
            }
            BakeError::SizeMismatch { expected, found } => write!(
                f,
                "baked grid is {} x {} but the tilemap is {} x {}",
                found.0, found.1, expected.0, expected.1
            ),
            BakeError::TopologyMismatch { expected, found } => {
                write!(f, "baked grid has {found:?} cells but the tilemap has {expected:?} cells")
            }
        }
    }
}

impl std::error::Error for BakeError {}

/// FNV-1a, 64-bit: a checksum over the binary form.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// The grid's rules in two bytes: its moves (4, 8, or 60 + the hex coordinate system's place
/// in `HexCoords::ALL`), then its corner rule (0 no corner cutting, 1 cut corners).
pub(crate) fn rules_bytes(grid: &NavGrid) -> [u8; 2] {
    let moves = match grid.neighborhood() {
        Neighborhood::Four => 4,
        Neighborhood::Eight => 8,
        Neighborhood::Hex(coords) => {
            60 + HexCoords::ALL.iter().position(|&c| c == coords).unwrap_or(0) as u8
        }
    };
    let corners = match grid.corner_rule() {
        CornerRule::NoCornerCutting => 0,
        CornerRule::CutCorners => 1,
    };
    [moves, corners]
}

/// A hash of the grid's size and cells' costs: precomputed data is checked against it.
pub(crate) fn cells_fingerprint(grid: &NavGrid) -> u64 {
    let mut hash = CellsHash::new(grid);
    for y in 0..grid.height() {
        hash.row(grid, y);
    }
    hash.0
}

/// [`cells_fingerprint`] a row at a time: [`new`](Self::new), then [`row`](Self::row) for
/// every row in order; the hash is the field.
pub(crate) struct CellsHash(pub(crate) u64);

impl CellsHash {
    pub(crate) fn new(grid: &NavGrid) -> Self {
        let mut hash = Self(0xcbf2_9ce4_8422_2325);
        hash.eat(grid.width());
        hash.eat(grid.height());
        hash
    }

    pub(crate) fn row(&mut self, grid: &NavGrid, y: u32) {
        for x in 0..grid.width() {
            self.eat(grid.cost(GridPos::new(x, y)).unwrap_or(0));
        }
        // Walls between cells and one-way edges: only grids that have them hash them, so the
        // fingerprint of a grid without is what it always was.
        if grid.has_edges() {
            let start = grid.index(GridPos::new(0, y));
            for &exits in &grid.padded_exits()[start..start + grid.width() as usize] {
                self.eat(u32::from(exits));
            }
        }
    }

    fn eat(&mut self, v: u32) {
        for b in v.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

/// Ends the binary form of precomputed data (`magic`, version, body) with its checksum.
pub(crate) fn seal(out: &mut Vec<u8>) {
    let sum = checksum(out);
    out.extend_from_slice(&sum.to_le_bytes());
}

/// Opens the binary form of precomputed data written with `magic` (see [`seal`]): checks the
/// magic, that the version is at most `supported`, and the checksum; a reader over the body.
pub(crate) fn open_sealed<'a>(
    bytes: &'a [u8],
    magic: &[u8; 4],
    supported: u32,
) -> Result<Reader<'a>, BakeError> {
    if bytes.len() >= 4 && &bytes[..4] != magic {
        return Err(BakeError::NotBaked);
    }
    if bytes.len() < 8 {
        return Err(BakeError::Truncated);
    }
    let version = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes"));
    if version > supported {
        return Err(BakeError::FutureVersion { found: version, supported });
    }
    if bytes.len() < 16 {
        return Err(BakeError::Truncated);
    }
    let body = bytes.len() - 8;
    let stored = u64::from_le_bytes(bytes[body..].try_into().expect("8 bytes"));
    if checksum(&bytes[..body]) != stored {
        return Err(BakeError::Corrupt);
    }
    Ok(Reader { bytes: &bytes[..body], at: 8 })
}

/// Reads little-endian numbers off the body of baked bytes; running out is
/// [`BakeError::Truncated`].
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], BakeError> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len());
        let end = end.ok_or(BakeError::Truncated)?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, BakeError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, BakeError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    pub(crate) fn u32s(&mut self, n: usize) -> Result<Vec<u32>, BakeError> {
        let bytes = self.take(n.checked_mul(4).ok_or(BakeError::Truncated)?)?;
        Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4"))).collect())
    }

    pub(crate) fn u16s(&mut self, n: usize) -> Result<Vec<u16>, BakeError> {
        let bytes = self.take(n.checked_mul(2).ok_or(BakeError::Truncated)?)?;
        Ok(bytes.chunks_exact(2).map(|c| u16::from_le_bytes(c.try_into().expect("2"))).collect())
    }

    /// Every byte of the body was read.
    pub(crate) fn at_end(&self) -> bool {
        self.at == self.bytes.len()
    }
}

/// Begins the bytes of precomputed data for a grid: `magic`, `version`, and what ties them to
/// the grid (its `size`, one `word` of rules, its cells' `fingerprint`), as [`open_tied`] reads.
pub(crate) fn write_tie(
    out: &mut Vec<u8>,
    (magic, version): (&[u8; 4], u32),
    size: (u32, u32),
    word: u32,
    fingerprint: u64,
) {
    out.extend_from_slice(magic);
    for v in [version, size.0, size.1, word] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&fingerprint.to_le_bytes());
}

/// Opens bytes begun by [`write_tie`] for `grid`, whose rules are `word`: checks the seal
/// ([`open_sealed`]), the size ([`BakeError::SizeMismatch`]), then the word and the cells'
/// fingerprint ([`BakeError::OtherGrid`]); a reader over what follows, and the fingerprint
/// (the grid's, worked out here once).
pub(crate) fn open_tied<'a>(
    bytes: &'a [u8],
    (magic, version): (&[u8; 4], u32),
    grid: &NavGrid,
    word: u32,
) -> Result<(Reader<'a>, u64), BakeError> {
    let mut reader = open_sealed(bytes, magic, version)?;
    let (width, height, found) = (reader.u32()?, reader.u32()?, reader.u32()?);
    let fingerprint = reader.u64()?;
    if (width, height) != (grid.width(), grid.height()) {
        return Err(BakeError::SizeMismatch {
            expected: (grid.width(), grid.height()),
            found: (width, height),
        });
    }
    if (found, fingerprint) != (word, cells_fingerprint(grid)) {
        return Err(BakeError::OtherGrid);
    }
    Ok((reader, fingerprint))
}
