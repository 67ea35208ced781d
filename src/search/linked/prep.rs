//! What a search through links works out from the grids and links alone, whatever the query:
//! the ways that can be taken (sorted, indexed by entrance), which area of which grid each
//! joins, the seams of placed grids, and the link entrances and seam cells where jump point
//! search stops on each grid. A [`Pathfinder`](super::super::Pathfinder) keeps the last one and uses it again
//! while the grids (their stamps), the links, the places and the kind of search are the same:
//! a thousand links are then sorted once, not once a query.

use super::super::jump_point::bits::JumpBits;
use super::super::jump_point::{jps_applies, jumps_pay};
use super::super::options::Algorithm;
use super::super::options::Heuristic;
use super::super::result::PathError;
use super::bounds::{EXACT_EXITS, ExitBound, ExitsByBlock};
use super::lattice::Lattice;
use super::maps::{Link, MapPos, Placement};
use super::mix::{MixMap, MixSet};
use crate::grid::{CellIndex, GridPos, GridStamp, NavGrid};

/// The cells of `cells` on grid `map`.
pub(super) fn on_map(cells: &[MapPos], map: usize) -> Vec<GridPos> {
    cells.iter().filter(|p| p.map == map).map(|p| p.cell).collect()
}

/// The jump point bits a search through links runs with on one grid.
#[derive(Debug)]
pub(super) enum JumpGrid {
    /// The grid's own: no link or seam leaves it.
    Own,
    /// A copy where runs also stop on every entrance of a way out and every border cell a seam
    /// step leaves from ([`JumpBits::with_stops`]).
    Stops(Box<JumpBits>),
}

/// Per grid of `maps`, the jump point bits a search through links runs with there, where it
/// does: where jump point search is optimal, its bits are built, and it is wanted (`jump`: only
/// where it pays, or wherever it is optimal; `None`: nowhere). Runs stop on each of
/// `entrances`, and on a grid joined to others at seams, on each border cell a step leaves it
/// from (see [`seam_stops`]).
fn jump_grids(
    maps: &[&NavGrid],
    jump: Option<bool>,
    seams: Option<&Lattice>,
    entrances: &[MapPos],
) -> Vec<Option<JumpGrid>> {
    maps.iter()
        .enumerate()
        .map(|(map, &grid)| {
            let runs = jump
                .is_some_and(|only_where_it_pays| !only_where_it_pays || jumps_pay(grid))
                && jps_applies(grid);
            let bits = grid.prepared_index(JumpBits::build).filter(|_| runs)?;
            let mut stops: Vec<usize> =
                on_map(entrances, map).into_iter().map(|cell| grid.index(cell)).collect();
            if let Some(seams) = seams.filter(|s| s.is_joined(map)) {
                stops.extend(seam_stops(maps, seams, map).map(|cell| grid.index(cell)));
            }
            Some(match stops.is_empty() {
                true => JumpGrid::Own,
                false => JumpGrid::Stops(Box::new(bits.with_stops(grid.padded_costs(), &stops))),
            })
        })
        .collect()
}

/// The border cells of grid `map` that a step across a seam leaves from. A grid's jump point
/// bits read the cells beyond its border as walls: right for a path that stays on the grid,
/// wrong only for one that crosses there. Each piece of a cheapest path on one grid runs from
/// where it came onto the grid (expanded in every direction, as a link's exit is) to the
/// goal or to the cell it leaves from; with those cells stops, jump point search on the grid
/// alone finds each piece, and the search through the seams stays optimal.
fn seam_stops<'a>(
    maps: &'a [&NavGrid],
    seams: &'a Lattice,
    map: usize,
) -> impl Iterator<Item = GridPos> + 'a {
    let (w, h) = (maps[map].width(), maps[map].height());
    // The first and last rows, then the first and last columns between them (a grid one cell
    // wide or high names a cell twice: `JumpBits::with_stops` takes a stop once).
    let rows = [0, h - 1].into_iter().flat_map(move |y| (0..w).map(move |x| GridPos::new(x, y)));
    let cols =
        [0, w - 1].into_iter().flat_map(move |x| (1..h - 1).map(move |y| GridPos::new(x, y)));
    rows.chain(cols).filter(move |&cell| {
        let mut leaves = false;
        seams.steps_out(maps, MapPos::new(map, cell), true, |_, _, _| leaves = true);
        leaves
    })
}

/// A connected area of one grid: (grid, component label).
type Area = (usize, Option<u32>);

/// A way that can be taken now: (entrance, exit, cost, link).
pub(super) type Way = (MapPos, MapPos, f64, usize);

/// The query-free part of a search through links (see the module).
#[derive(Debug)]
pub(crate) struct LinkedPrep {
    /// What it was made from.
    links: Vec<Link>,
    places: Vec<Option<Placement>>,
    /// The grids' stamps when it was made (a search through them checks they still hold).
    pub(super) stamps: Vec<GridStamp>,
    algorithm: Algorithm,
    /// The ways that can be taken now (both ends open), sorted by entrance.
    pub(super) ways: Vec<Way>,
    /// Where each entrance's ways are in `ways`: (first, how many).
    pub(super) way_index: MixMap<MapPos, (u32, u32)>,
    /// The ways as steps between areas, sorted; `None` when a grid's areas are not known.
    areas: Option<Vec<(Area, Area)>>,
    /// Where placed grids touch, when two or more share a world.
    pub(super) seams: Option<Lattice>,
    /// Per grid: where jump point search stops on it (every entrance, every cell a seam step
    /// leaves from), when it runs there.
    pub(super) jumps: Vec<Option<JumpGrid>>,
    /// Each grid's estimate: its heuristic and the cost of its cheapest cell.
    pub(super) heuristics: Vec<(Heuristic, f64)>,
    /// With more than [`EXACT_EXITS`] ways: per grid, the cheapest way out of it, and the
    /// bound on leaving it through a way when every exit counts the cheapest way out of its
    /// grid for the rest (a query adds the ways whose exits lie nearer its goal than that).
    pub(super) cheapest_out: Vec<f64>,
    pub(super) exit_bounds: Vec<ExitBound>,
    /// With more than [`EXACT_EXITS`] ways: the exits by blocks of cells.
    pub(super) exit_blocks: ExitsByBlock,
    /// With up to [`EXACT_EXITS`] ways: the least cost from each way's exit to taking each
    /// way ([`way_hops`]).
    pub(super) way_hops: Vec<f64>,
}

/// Each grid's estimate for a search with `algorithm`: its heuristic and the cost of its
/// cheapest cell.
fn heuristics_for(maps: &[&NavGrid], algorithm: Algorithm) -> Vec<(Heuristic, f64)> {
    maps.iter()
        .map(|grid| {
            let heuristic = match algorithm {
                // Any-angle walks are shorter than grid ones: only the straight line bounds
                // them.
                Algorithm::ThetaStar => Heuristic::Euclidean,
                _ => Heuristic::default_for(grid.neighborhood()),
            };
            (heuristic, f64::from(grid.min_cost().unwrap_or(1)))
        })
        .collect()
}

/// With many ways: each grid's cheapest way out, and its bound on leaving through a way when
/// every exit counts the cheapest way out of its grid for the rest (see [`LinkedPrep`]).
fn many_exits(
    maps: &[&NavGrid],
    ways: &[Way],
    heuristics: &[(Heuristic, f64)],
) -> (Vec<f64>, Vec<ExitBound>) {
    if ways.len() <= EXACT_EXITS {
        return (Vec::new(), Vec::new());
    }
    let mut cheapest_out = vec![f64::INFINITY; maps.len()];
    for &(e, _, cost, _) in ways {
        cheapest_out[e.map] = cheapest_out[e.map].min(cost);
    }
    let mut entrances: Vec<Vec<(GridPos, f64)>> = vec![Vec::new(); maps.len()];
    for &(e, x, cost, _) in ways {
        if cheapest_out[x.map].is_finite() {
            entrances[e.map].push((e.cell, cost + cheapest_out[x.map]));
        }
    }
    (cheapest_out, ExitBound::per_grid(maps, entrances, heuristics))
}

/// With few ways (up to [`EXACT_EXITS`]): row `w`, column `v`, the
/// least cost of walking from way `w`'s exit to way `v`'s entrance (by the estimate of the
/// exit's grid) and taking way `v`; infinite when they lie on different grids. It does not
/// depend on the query, so it is kept with the ways (each query worked it out before, a few
/// thousand estimates with ten links). Empty with more ways.
fn way_hops(maps: &[&NavGrid], ways: &[Way], heuristics: &[(Heuristic, f64)]) -> Vec<f64> {
    if ways.len() > EXACT_EXITS {
        return Vec::new();
    }
    let walk = |a: MapPos, b: MapPos| {
        let (heuristic, scale) = heuristics[a.map];
        heuristic.estimate(maps[a.map].neighborhood(), a.cell, b.cell) * scale
    };
    let hop = |x: MapPos, &(e, _, cost, _): &Way| match e.map == x.map {
        true => walk(x, e) + cost,
        false => f64::INFINITY,
    };
    ways.iter().flat_map(|&(_, x, ..)| ways.iter().map(move |v| hop(x, v))).collect()
}

/// Where a search with `algorithm` takes jump point search: nowhere (`None`), where it is
/// optimal and pays (`Some(true)`), or wherever it is optimal (`Some(false)`).
pub(super) fn wants_jumps(algorithm: Algorithm) -> Option<bool> {
    match algorithm {
        Algorithm::Auto => Some(true),
        Algorithm::JumpPoint => Some(false),
        Algorithm::AStar | Algorithm::ThetaStar => None,
    }
}

impl LinkedPrep {
    /// Works it out; a link with a bad end or cost is an error.
    pub(crate) fn new(
        (maps, links, places): (&[&NavGrid], &[Link], &[Option<Placement>]),
        algorithm: Algorithm,
    ) -> Result<Self, PathError> {
        for (index, link) in links.iter().enumerate() {
            let on_grid = |at: MapPos| maps.get(at.map).is_some_and(|grid| grid.in_bounds(at.cell));
            if !(link.cost.is_finite()
                && link.cost >= 0.0
                && on_grid(link.from)
                && on_grid(link.to))
            {
                return Err(PathError::InvalidLink { link: index });
            }
        }
        let open_cell = |at: MapPos| maps[at.map].is_passable(at.cell);
        let mut ways: Vec<Way> = Vec::new();
        for (k, link) in links.iter().enumerate() {
            for (entrance, exit) in link.ways() {
                if open_cell(entrance) && open_cell(exit) {
                    ways.push((entrance, exit, link.cost, k));
                }
            }
        }
        ways.sort_unstable_by_key(|w| (w.0.map, w.0.cell.y, w.0.cell.x, w.3));
        let mut way_index: MixMap<MapPos, (u32, u32)> = MixMap::default();
        for (i, &(entrance, ..)) in ways.iter().enumerate() {
            way_index.entry(entrance).or_insert((i as u32, 0)).1 += 1;
        }
        let areas = maps.iter().all(|grid| grid.knows_components()).then(|| {
            let area = |at: MapPos| -> Area { (at.map, maps[at.map].component(at.cell)) };
            let mut out: Vec<(Area, Area)> =
                ways.iter().map(|&(entrance, exit, ..)| (area(entrance), area(exit))).collect();
            out.sort_unstable();
            out
        });
        let seams = Some(Lattice::new(maps, places)).filter(Lattice::joins_any);
        let entrances: Vec<MapPos> = ways.iter().map(|w| w.0).collect();
        let jumps = jump_grids(maps, wants_jumps(algorithm), seams.as_ref(), &entrances);
        let heuristics = heuristics_for(maps, algorithm);
        let (cheapest_out, exit_bounds) = many_exits(maps, &ways, &heuristics);
        let exit_blocks = match ways.len() > EXACT_EXITS {
            true => ExitsByBlock::new(maps, &ways.iter().map(|w| w.1).collect::<Vec<_>>()),
            false => ExitsByBlock::default(),
        };
        Ok(Self {
            links: links.to_vec(),
            places: places.to_vec(),
            stamps: maps.iter().map(|grid| grid.stamp()).collect(),
            algorithm,
            way_hops: way_hops(maps, &ways, &heuristics),
            heuristics,
            cheapest_out,
            exit_bounds,
            exit_blocks,
            ways,
            way_index,
            areas,
            seams,
            jumps,
        })
    }

    /// True when a search expands jump points on grid `map`.
    pub(super) fn jumps_on(&self, map: usize) -> bool {
        self.jumps.get(map).is_some_and(Option::is_some)
    }

    /// Bytes held (the copies of jump point bits most of them).
    pub(crate) fn bytes(&self) -> usize {
        let bits: usize = self
            .jumps
            .iter()
            .map(|grid| match grid {
                Some(JumpGrid::Stops(bits)) => bits.memory_bytes(),
                _ => 0,
            })
            .sum();
        let ways = self.ways.capacity() * std::mem::size_of::<Way>();
        let areas =
            self.areas.as_ref().map_or(0, |a| a.capacity() * std::mem::size_of::<(Area, Area)>());
        let index = self.way_index.capacity() * std::mem::size_of::<(MapPos, (u32, u32))>();
        bits + ways + areas + index + self.links.capacity() * std::mem::size_of::<Link>()
    }

    /// True when it was made from these grids (as they are now), links and places, for a
    /// search with `algorithm`.
    pub(crate) fn serves(
        &self,
        (maps, links, places): (&[&NavGrid], &[Link], &[Option<Placement>]),
        algorithm: Algorithm,
    ) -> bool {
        self.algorithm == algorithm
            && self.stamps.len() == maps.len()
            && maps.iter().zip(&self.stamps).all(|(grid, stamp)| grid.stamp() == *stamp)
            && self.links == links
            && self.places == places
    }

    /// Whether a goal's area can be reached from the start's through the ways: a search over
    /// areas, as many as the ways at most, without touching a cell. True when not known (a
    /// grid prepared in slices and not yet labelled: the search finds out).
    pub(super) fn reachable(&self, maps: &[&NavGrid], start: MapPos, goals: &[MapPos]) -> bool {
        let Some(out) = &self.areas else { return true };
        let area = |at: MapPos| -> Area { (at.map, maps[at.map].component(at.cell)) };
        let targets: MixSet<Area> = goals.iter().map(|&g| area(g)).collect();
        let mut seen: MixSet<Area> = MixSet::default();
        seen.insert(area(start));
        let mut frontier = vec![area(start)];
        while let Some(here) = frontier.pop() {
            if targets.contains(&here) {
                return true;
            }
            let first = out.partition_point(|&(from, _)| from < here);
            for &(_, next) in out[first..].iter().take_while(|&&(from, _)| from == here) {
                if seen.insert(next) {
                    frontier.push(next);
                }
            }
        }
        false
    }
}
