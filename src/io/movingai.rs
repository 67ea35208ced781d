//! The MovingAI grid benchmark formats: `.map` files and `.scen` scenario files
//! (N. Sturtevant, "Benchmarks for Grid-Based Pathfinding", 2012).

use std::fmt;
use std::path::Path;

use crate::grid::{Cell, CornerRule, GridError, GridPos, NavGrid, Neighborhood};

/// What went wrong reading a MovingAI file.
#[derive(Debug)]
pub enum MovingAiError {
    /// The file could not be read.
    Io {
        /// The file.
        path: String,
        /// What the system said.
        error: std::io::Error,
    },
    /// The text is not a valid map or scenario file. `line` is 1-based.
    Parse {
        /// The line at fault, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The header describes a grid that cannot be built.
    Grid(GridError),
}

impl fmt::Display for MovingAiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MovingAiError::Io { path, error } => write!(f, "cannot read {path}: {error}"),
            MovingAiError::Parse { line, reason } => write!(f, "line {line}: {reason}"),
            MovingAiError::Grid(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for MovingAiError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MovingAiError::Io { error, .. } => Some(error),
            MovingAiError::Grid(error) => Some(error),
            MovingAiError::Parse { .. } => None,
        }
    }
}

fn parse_error(line: usize, reason: impl Into<String>) -> MovingAiError {
    MovingAiError::Parse { line, reason: reason.into() }
}

/// Parses a `.map` file: `type octile`, `height H`, `width W`, `map`, then H rows of W
/// characters. `.`, `G` and `S` are passable ground; every other character is blocked. The grid
/// is 8-way without corner cutting, the benchmark's rule.
///
/// ```
/// use bevy_tilemap_nav::io::movingai::parse_map;
/// use bevy_tilemap_nav::grid::GridPos;
///
/// let grid = parse_map("type octile\nheight 2\nwidth 3\nmap\n..@\n.T.\n").unwrap();
/// assert!(!grid.is_passable(GridPos::new(2, 0)));
/// assert!(grid.is_passable(GridPos::new(2, 1)));
/// ```
pub fn parse_map(text: &str) -> Result<NavGrid, MovingAiError> {
    let mut lines = text.lines().enumerate().map(|(n, l)| (n + 1, l.trim_end_matches('\r')));
    let (mut height, mut width) = (None, None);
    let mut last_line = 0;
    loop {
        let Some((n, line)) = lines.next() else {
            return Err(parse_error(last_line + 1, "missing `map` line before the grid rows"));
        };
        last_line = n;
        let mut words = line.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (None, ..) => continue,
            (Some("map"), None, _) => break,
            (Some("type"), Some(kind), None) => {
                if kind != "octile" {
                    return Err(parse_error(n, format!("unsupported map type `{kind}`")));
                }
            }
            (Some(key @ ("height" | "width")), Some(value), None) => {
                let value: u32 = value.parse().map_err(|_| {
                    parse_error(n, format!("{key} must be a whole number, got `{value}`"))
                })?;
                if key == "height" {
                    height = Some(value);
                } else {
                    width = Some(value);
                }
            }
            _ => return Err(parse_error(n, format!("unexpected header line `{line}`"))),
        }
    }
    let height = height.ok_or_else(|| parse_error(last_line, "header has no `height`"))?;
    let width = width.ok_or_else(|| parse_error(last_line, "header has no `width`"))?;
    // Every cell takes at least one byte of the text: a header that promises more cells than the
    // text holds is refused before the grid is allocated for it. (Sizes over the grid's limit
    // are left to `NavGrid::new`, which says so with `GridError::TooLarge`.)
    let cells = u64::from(width) * u64::from(height);
    if cells <= crate::grid::MAX_CELLS && cells > text.len() as u64 {
        return Err(parse_error(
            last_line,
            format!(
                "header declares {width} x {height} cells but the file is {} bytes",
                text.len()
            ),
        ));
    }
    let mut grid = NavGrid::new(width, height)
        .map_err(MovingAiError::Grid)?
        .with_neighborhood(Neighborhood::Eight)
        .with_corner_rule(CornerRule::NoCornerCutting);
    let mut walls = Vec::new();
    for y in 0..height {
        let Some((n, row)) = lines.next() else {
            return Err(parse_error(
                last_line + 1,
                format!("expected {height} grid rows, found {y}"),
            ));
        };
        last_line = n;
        let len = row.chars().count();
        if len != width as usize {
            return Err(parse_error(n, format!("row has {len} cells, expected {width}")));
        }
        for (x, c) in row.chars().enumerate() {
            if !matches!(c, '.' | 'G' | 'S') {
                walls.push((GridPos::new(x as u32, y), Cell::Blocked));
            }
        }
    }
    if let Some((n, _)) = lines.find(|(_, l)| !l.trim().is_empty()) {
        return Err(parse_error(n, format!("more than {height} grid rows")));
    }
    grid.set_all(walls).map_err(MovingAiError::Grid)?;
    Ok(grid)
}

/// Reads and parses a `.map` file.
pub fn load_map(path: impl AsRef<Path>) -> Result<NavGrid, MovingAiError> {
    parse_map(&read(path.as_ref())?)
}

/// One benchmark query.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The scenario's bucket: MovingAI groups queries by optimal length (the length / 4,
    /// rounded down).
    pub bucket: u32,
    /// The map file it is for, as the file names it.
    pub map: String,
    /// That map's width.
    pub map_width: u32,
    /// That map's height.
    pub map_height: u32,
    /// Where the query starts.
    pub start: GridPos,
    /// Where it ends.
    pub goal: GridPos,
    /// The published optimal path length (8-way, no corner cutting, costs 1 and sqrt(2)).
    pub optimal_length: f64,
}

/// Parses a `.scen` file: a `version 1` (tab-separated) or `version 1.0` (space-separated)
/// line, then one scenario per line.
pub fn parse_scenarios(text: &str) -> Result<Vec<Scenario>, MovingAiError> {
    let mut lines = text.lines().enumerate().map(|(n, l)| (n + 1, l.trim_end_matches('\r')));
    let tabs = match lines.find(|(_, l)| !l.trim().is_empty()) {
        Some((_, l)) if l.split_whitespace().eq(["version", "1"]) => true,
        Some((_, l)) if l.split_whitespace().eq(["version", "1.0"]) => false,
        Some((n, l)) => {
            return Err(parse_error(
                n,
                format!("expected `version 1` or `version 1.0`, got `{l}`"),
            ));
        }
        None => return Err(parse_error(1, "empty scenario file")),
    };
    let mut scenarios = Vec::new();
    for (n, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = if tabs {
            line.split('\t').map(str::trim).collect()
        } else {
            line.split_whitespace().collect()
        };
        if fields.len() != 9 {
            return Err(parse_error(n, format!("expected 9 fields, found {}", fields.len())));
        }
        let int = |k: usize, what: &str| -> Result<u32, MovingAiError> {
            fields[k].parse().map_err(|_| {
                parse_error(n, format!("{what} must be a whole number, got `{}`", fields[k]))
            })
        };
        let optimal_length: f64 = fields[8].parse().map_err(|_| {
            parse_error(n, format!("optimal length must be a number, got `{}`", fields[8]))
        })?;
        if !optimal_length.is_finite() || optimal_length < 0.0 {
            return Err(parse_error(n, format!("optimal length {optimal_length} is not valid")));
        }
        scenarios.push(Scenario {
            bucket: int(0, "bucket")?,
            map: fields[1].to_string(),
            map_width: int(2, "map width")?,
            map_height: int(3, "map height")?,
            start: GridPos::new(int(4, "start x")?, int(5, "start y")?),
            goal: GridPos::new(int(6, "goal x")?, int(7, "goal y")?),
            optimal_length,
        });
    }
    Ok(scenarios)
}

/// Reads and parses a `.scen` file.
pub fn load_scenarios(path: impl AsRef<Path>) -> Result<Vec<Scenario>, MovingAiError> {
    parse_scenarios(&read(path.as_ref())?)
}

/// The weighted version of a benchmark map, for measuring searches on terrain: rectangles of
/// cost 2 to 8 painted over open ground (walls stay walls, start and goal cells stay open) until
/// about a quarter of the open cells cost more than 1. The same `seed` paints the same map.
/// Rectangle sides run from 2 to a twelfth of the map's shorter side (at least 3): patches of
/// mud, rubble and shallow water, as a level designer paints them.
///
/// ```
/// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
/// use bevy_tilemap_nav::io::movingai::paint_terrain;
///
/// let grid = NavGrid::new(96, 64).unwrap();
/// let painted = paint_terrain(&grid, 7);
/// let dear = painted.positions().filter(|&p| painted.cost(p) > Some(1)).count();
/// assert!(dear * 4 >= 96 * 64 && dear * 4 < 96 * 64 * 11 / 10);
/// assert_eq!(painted.max_cost(), Some(8));
/// assert!(painted == paint_terrain(&grid, 7));
/// ```
pub fn paint_terrain(grid: &NavGrid, seed: u64) -> NavGrid {
    let mut painted = grid.clone();
    let (width, height) = (grid.width(), grid.height());
    let target = grid.passable_count().div_ceil(4);
    let longest = (width.min(height) / 12).max(3);
    // SplitMix64: a few lines, and the same numbers on every machine.
    let mut state = seed;
    let mut next = |below: u32| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % u64::from(below)) as u32
    };
    let mut dear = 0;
    // Enough rectangles for any map with open ground; a map of walls paints nothing.
    for _ in 0..1_000_000 {
        if dear >= target {
            break;
        }
        let (x0, y0) = (next(width), next(height));
        let (w, h) = (2 + next(longest - 1), 2 + next(longest - 1));
        let cost = 2 + next(7);
        for y in y0..(y0 + h).min(height) {
            for x in x0..(x0 + w).min(width) {
                let pos = GridPos::new(x, y);
                if dear < target && painted.cost(pos) == Some(1) {
                    let _ = painted.set(pos, Cell::Passable { cost });
                    dear += 1;
                }
            }
        }
    }
    painted
}

fn read(path: &Path) -> Result<String, MovingAiError> {
    std::fs::read_to_string(path)
        .map_err(|error| MovingAiError::Io { path: path.display().to_string(), error })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(text: &str) -> usize {
        match parse_map(text) {
            Err(MovingAiError::Parse { line, .. }) => line,
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn map_errors_name_the_line() {
        assert_eq!(parse_line("type octile\nheight 2\nwidth x\nmap\n..\n..\n"), 3);
        assert_eq!(parse_line("type hex\nheight 2\nwidth 2\nmap\n..\n..\n"), 1);
        assert_eq!(parse_line("type octile\nheight 2\nwidth 2\nmap\n..\n...\n"), 6);
        assert_eq!(parse_line("type octile\nheight 3\nwidth 2\nmap\n..\n..\n"), 7);
        assert_eq!(parse_line("type octile\nheight 1\nwidth 2\nmap\n..\n..\n"), 6);
        assert_eq!(parse_line("type octile\nheight 1\nwidth 2\n"), 4);
        assert_eq!(parse_line("type octile\nwidth 2\nmap\n..\n"), 3);
        assert_eq!(parse_line("bogus\n"), 1);
        assert!(matches!(
            parse_map("type octile\nheight 0\nwidth 2\nmap\n"),
            Err(MovingAiError::Grid(GridError::Empty { .. }))
        ));
        assert!(matches!(
            parse_map("type octile\nheight 4000000000\nwidth 4000000000\nmap\n"),
            Err(MovingAiError::Grid(GridError::TooLarge { .. }))
        ));
        // Within the size limit but far more cells than the text holds: refused before the
        // grid is allocated (found by the `movingai_map` fuzz target).
        assert_eq!(parse_line("type octile\nheight 30000\nwidth 30000\nmap\n..\n"), 4);
    }

    #[test]
    fn map_reads_cells() {
        let grid =
            parse_map("type octile\r\nheight 2\r\nwidth 4\r\nmap\r\n.GS@\r\nTOW.\r\n").unwrap();
        let passable: Vec<bool> = grid.positions().map(|p| grid.is_passable(p)).collect();
        assert_eq!(passable, [true, true, true, false, false, false, false, true]);
    }

    #[test]
    fn scenarios_in_both_versions() {
        let v1 = "version 1\n0\tmaps/a.map\t4\t2\t0\t0\t3\t1\t3.41421\n";
        let v10 = "version 1.0\n0 a.map 4 2 0 0 3 1 3.41421\n\n";
        for text in [v1, v10] {
            let s = parse_scenarios(text).unwrap();
            assert_eq!(s.len(), 1);
            assert_eq!(s[0].start, GridPos::new(0, 0));
            assert_eq!(s[0].goal, GridPos::new(3, 1));
            assert!((s[0].optimal_length - 3.41421).abs() < 1e-9);
        }
    }

    #[test]
    fn scenario_errors_name_the_line() {
        let line_of = |text: &str| match parse_scenarios(text) {
            Err(MovingAiError::Parse { line, .. }) => line,
            other => panic!("expected a parse error, got {other:?}"),
        };
        assert_eq!(line_of("version 2\n"), 1);
        assert_eq!(line_of(""), 1);
        assert_eq!(line_of("version 1.0\n0 a.map 4 2 0 0 3 1\n"), 2);
        assert_eq!(line_of("version 1.0\n0 a.map 4 2 0 0 3 1 3\n0 a.map 4 2 0 -1 3 1 3\n"), 3);
        assert_eq!(line_of("version 1.0\n0 a.map 4 2 0 0 3 1 NaN\n"), 2);
        assert_eq!(line_of("version 1.0\n0 a.map 4 2 0 0 3 1 far\n"), 2);
    }

    #[test]
    fn missing_file_is_an_io_error() {
        assert!(matches!(load_map("/nonexistent/x.map"), Err(MovingAiError::Io { .. })));
    }
}
