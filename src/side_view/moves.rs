//! The moves a character can make on a side-view map, generated from the tiles for one
//! [`JumpProfile`], and kept in step with tile changes.

use crate::grid::GridPos;

use super::arc::{Clearance, Columns, EPS, Flight, ceil, floor};
use super::error::SideViewError;
use super::map::{Footprint, SideViewMap};
use super::profile::JumpProfile;

/// What a leg of a side-view path does: the animation a game plays for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "bevy", derive(bevy::prelude::Reflect))]
pub enum LegKind {
    /// Along the ground (or sideways off a ladder), one tile.
    Walk,
    /// Up or down a single-tile step (profiles with `steps`): a rise and a run, or a run and
    /// a drop, each half the leg.
    Step,
    /// Up or down a ladder, one tile.
    Climb,
    /// Off the ground on an arc, landing where the leg ends.
    Jump,
    /// Off an edge: the arc after walking off it.
    Fall,
    /// Down through the one-way platform (or ladder top) stood on.
    Drop,
}

/// One move in the graph: from the node that holds it to `to`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Move {
    /// Cell index of the landing node.
    pub to: u32,
    /// Seconds, all of the move (a fall's walk off the edge included).
    pub time: f32,
    pub kind: MoveKind,
    /// -1 left, 1 right, 0 straight up or down.
    pub dir: i8,
    /// The flight's launch velocity (jumps, falls, drops).
    pub vx: f32,
    pub vy: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MoveKind {
    Walk,
    StepUp,
    StepDown,
    Climb,
    Jump,
    Fall,
    Drop,
}

impl MoveKind {
    pub fn leg(self) -> LegKind {
        match self {
            Self::Walk => LegKind::Walk,
            Self::StepUp | Self::StepDown => LegKind::Step,
            Self::Climb => LegKind::Climb,
            Self::Jump => LegKind::Jump,
            Self::Fall => LegKind::Fall,
            Self::Drop => LegKind::Drop,
        }
    }
}

/// A move as a game (or a debug view) sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideMove {
    /// Where it lands (the body's lower left tile).
    pub to: GridPos,
    /// What it is.
    pub kind: LegKind,
    /// How long it takes, seconds.
    pub time: f32,
}

const CLEAR: u8 = 1;
const STANDS: u8 = 2;
const LADDER: u8 = 4;
const DROPS: u8 = 8;

/// Every move one [`JumpProfile`] can make on a [`SideViewMap`]: walks, steps, climbs, and
/// jumps, falls and drops on arcs that keep the body clear of solid tiles and land on the
/// first thing that holds it up. Plans are made over these moves
/// ([`SideViewPlanner`](super::SideViewPlanner)).
///
/// ```
/// use bevy_tilemap_nav::grid::GridPos;
/// use bevy_tilemap_nav::side_view::{JumpProfile, LegKind, SideViewMap, SideViewMoves};
///
/// let map = SideViewMap::from_rows(&[
///     "......",
///     "......",
///     "......",
///     "##..##",
/// ])
/// .unwrap();
/// let moves = SideViewMoves::new(&map, JumpProfile::new(6.0, 2.0, 40.0)).unwrap();
/// // From the left ledge: a walk, and a jump over the gap among others.
/// let from_edge: Vec<_> = moves.moves_from(GridPos::new(1, 1)).collect();
/// assert!(from_edge.iter().any(|m| m.kind == LegKind::Jump && m.to == GridPos::new(4, 1)));
/// ```
pub struct SideViewMoves {
    profile: JumpProfile,
    width: u32,
    height: u32,
    revision: u64,
    columns: Columns,
    /// Per position of the body's lower left tile: `CLEAR | STANDS | LADDER | DROPS`.
    places: Vec<u8>,
    /// Per column, the rows where the body stands, lowest first.
    standing_rows: Vec<Vec<u32>>,
    moves: Vec<Vec<Move>>,
    /// The most columns a move spans from its start column.
    reach: i64,
    /// The highest a move rises, in rows (a jump's top, rounded up).
    rise: i64,
    heights: Vec<f64>,
}

impl SideViewMoves {
    /// Generates every move of `profile` on `map`. Errors: a profile number out of range
    /// ([`JumpProfile::check`]), a body larger than the map.
    pub fn new(map: &SideViewMap, profile: JumpProfile) -> Result<Self, SideViewError> {
        profile.check()?;
        if profile.body_width > map.width() || profile.body_height > map.height() {
            return Err(SideViewError::BodyTooLarge {
                body: (profile.body_width, profile.body_height),
                map: (map.width(), map.height()),
            });
        }
        let (g, run) = (f64::from(profile.gravity), f64::from(profile.run_speed));
        let v0 = (2.0 * g * f64::from(profile.jump_height)).sqrt();
        let longest = (v0 + (v0 * v0 + 2.0 * g * f64::from(map.height())).sqrt()) / g;
        let reach = ceil(run * longest + EPS).clamp(1, i64::from(map.width()));
        let cells = map.width() as usize * map.height() as usize;
        let mut moves = Self {
            profile,
            width: map.width(),
            height: map.height(),
            revision: map.revision(),
            columns: Columns::new(map),
            places: vec![0; cells],
            standing_rows: vec![Vec::new(); map.width() as usize],
            moves: vec![Vec::new(); cells],
            reach,
            rise: ceil(f64::from(profile.jump_height).min(f64::from(map.height())) + EPS),
            heights: profile.jump_heights(f64::from(map.height() - profile.body_height)),
        };
        moves.find_places(map, 0, i64::from(map.width()) - 1, 0, i64::from(map.height()) - 1);
        let mut scratch = Vec::new();
        for index in 0..cells {
            moves.regenerate(index, &mut scratch);
        }
        Ok(moves)
    }

    /// Brings the moves in step with `map` after the tiles at `changed` were set: only the
    /// moves that could pass over, start or land near a changed tile are made again (a band of
    /// columns a move's reach wide, from a jump's height below the tile to the top). Errors:
    /// a map of another size, or a changed tile off the map.
    pub fn retile(&mut self, map: &SideViewMap, changed: &[GridPos]) -> Result<(), SideViewError> {
        if (map.width(), map.height()) != (self.width, self.height) {
            return Err(SideViewError::OtherMap {
                moves: (self.width, self.height),
                map: (map.width(), map.height()),
            });
        }
        if let Some(&pos) = changed.iter().find(|p| p.x >= self.width || p.y >= self.height) {
            return Err(SideViewError::OutOfBounds { pos, width: self.width, height: self.height });
        }
        let (w, h) = self.body();
        let (top, right) = (i64::from(self.height) - 1, i64::from(self.width) - 1);
        for pos in changed {
            let (cx, cy) = (i64::from(pos.x), i64::from(pos.y));
            self.columns.recount(map, cx);
            self.find_places(map, cx - w + 1, cx, cy - h + 1, cy + 1);
        }
        let mut dirty = vec![false; self.places.len()];
        for pos in changed {
            let (cx, cy) = (i64::from(pos.x), i64::from(pos.y));
            let margin = self.reach + w + 2;
            let lowest = (cy - self.rise - h - 2).max(0);
            for x in (cx - margin).max(0)..=(cx + margin).min(right) {
                for y in lowest..=top {
                    dirty[self.index(x, y)] = true;
                }
            }
        }
        let mut scratch = Vec::new();
        for (index, _) in dirty.iter().enumerate().filter(|(_, d)| **d) {
            self.regenerate(index, &mut scratch);
        }
        self.revision = map.revision();
        Ok(())
    }

    /// The profile the moves were made for.
    pub fn profile(&self) -> &JumpProfile {
        &self.profile
    }

    /// The map revision the moves are in step with ([`SideViewMap::revision`]).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Whether the body stands at `pos` (its lower left tile): clear of solid tiles, with
    /// something under one of its columns.
    pub fn stands(&self, pos: GridPos) -> bool {
        self.place(i64::from(pos.x), i64::from(pos.y)) & STANDS != 0
    }

    /// Whether the body may be at rest at `pos`: standing, or on a ladder.
    pub fn rests(&self, pos: GridPos) -> bool {
        self.place(i64::from(pos.x), i64::from(pos.y)) & (STANDS | LADDER) != 0
    }

    /// Whether the body fits at `pos` (no solid tile in it, all of it on the map).
    pub fn fits(&self, pos: GridPos) -> bool {
        self.place(i64::from(pos.x), i64::from(pos.y)) & CLEAR != 0
    }

    /// Where a body put at `pos` comes to rest: the first place at or above `pos` in its
    /// column where it fits (a tile set on top of it pushes it up), then straight down to the
    /// first place it stands or holds a ladder. `None` when nothing in the column will do.
    pub fn landing_below(&self, pos: GridPos) -> Option<GridPos> {
        let x = i64::from(pos.x.min(self.width - 1));
        let mut y = i64::from(pos.y.min(self.height - 1));
        while self.place(x, y) & CLEAR == 0 {
            y += 1;
            if y >= i64::from(self.height) {
                return None;
            }
        }
        while self.place(x, y) & (STANDS | LADDER) == 0 {
            y -= 1;
            if y < 0 || self.place(x, y) & CLEAR == 0 {
                return None;
            }
        }
        Some(GridPos::new(x as u32, y as u32))
    }

    /// Where a body caught at `pos` by a tile set on it goes: [`landing_below`](Self::landing_below)
    /// if its column has room above it, else the nearest place (by rings of tiles round
    /// `pos`) where it fits, and the ground under that. The place it fits and the landing;
    /// `None` when the body fits nowhere on the map.
    pub fn way_out(&self, pos: GridPos) -> Option<(GridPos, GridPos)> {
        let (x0, y0) = (i64::from(pos.x), i64::from(pos.y));
        let (width, height) = (i64::from(self.width), i64::from(self.height));
        let ring = width.max(height);
        for d in 0..=ring {
            for y in [y0 + d, y0 - d].into_iter().chain((y0 - d + 1)..(y0 + d)) {
                let xs: Vec<i64> = if y == y0 + d || y == y0 - d {
                    ((x0 - d)..=(x0 + d)).collect()
                } else {
                    vec![x0 - d, x0 + d]
                };
                for x in xs {
                    if self.place(x, y) & CLEAR != 0 {
                        let fit = GridPos::new(x as u32, y as u32);
                        if let Some(landing) = self.landing_below(fit) {
                            return Some((fit, landing));
                        }
                    }
                }
                if d == 0 {
                    break;
                }
            }
        }
        None
    }

    /// The moves that start at `pos`.
    pub fn moves_from(&self, pos: GridPos) -> impl Iterator<Item = SideMove> + '_ {
        let list = match pos.x < self.width && pos.y < self.height {
            true => &self.moves[self.index(i64::from(pos.x), i64::from(pos.y))][..],
            false => &[],
        };
        list.iter().map(|m| SideMove { to: self.pos(m.to), kind: m.kind.leg(), time: m.time })
    }

    /// How many moves there are in all.
    pub fn len(&self) -> usize {
        self.moves.iter().map(Vec::len).sum()
    }

    /// No moves at all (no place to stand).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    pub(crate) fn list(&self, index: usize) -> &[Move] {
        &self.moves[index]
    }

    pub(crate) fn index(&self, x: i64, y: i64) -> usize {
        (y * i64::from(self.width) + x) as usize
    }

    pub(crate) fn pos(&self, index: u32) -> GridPos {
        GridPos::new(index % self.width, index / self.width)
    }

    fn body(&self) -> (i64, i64) {
        (i64::from(self.profile.body_width), i64::from(self.profile.body_height))
    }

    fn place(&self, x: i64, y: i64) -> u8 {
        let on_map = x >= 0 && y >= 0 && x < i64::from(self.width) && y < i64::from(self.height);
        if on_map { self.places[self.index(x, y)] } else { 0 }
    }

    fn find_places(&mut self, map: &SideViewMap, x0: i64, x1: i64, y0: i64, y1: i64) {
        let (w, h) = self.body();
        let footprint = Footprint { map, width: w, height: h };
        let (x0, x1) = (x0.max(0), x1.min(i64::from(self.width) - 1));
        let (y0, y1) = (y0.max(0), y1.min(i64::from(self.height) - 1));
        for x in x0..=x1 {
            for y in y0..=y1 {
                let mut place = 0;
                if footprint.clear(x, y) {
                    place |= CLEAR;
                    if footprint.standable(x, y) {
                        place |= STANDS;
                        if footprint.may_drop(x, y) {
                            place |= DROPS;
                        }
                    }
                    if footprint.on_ladder(x, y) {
                        place |= LADDER;
                    }
                }
                let index = self.index(x, y);
                self.places[index] = place;
            }
            self.standing_rows[x as usize] = (0..self.height)
                .filter(|&y| self.places[self.index(x, i64::from(y))] & STANDS != 0)
                .collect();
        }
    }

    fn regenerate(&mut self, index: usize, scratch: &mut Vec<Move>) {
        scratch.clear();
        let (x, y) = ((index % self.width as usize) as i64, (index / self.width as usize) as i64);
        if self.place(x, y) & (STANDS | LADDER) != 0 {
            self.generate(x, y, scratch);
            scratch.sort_by(|a, b| a.to.cmp(&b.to).then(a.time.total_cmp(&b.time)));
            scratch.dedup_by_key(|m| m.to);
        }
        let list = &mut self.moves[index];
        list.clear();
        list.extend_from_slice(scratch);
        list.shrink_to_fit();
    }

    /// Every move from the resting place `(x, y)`, with repeats (the fastest to each
    /// landing is kept by the caller).
    fn generate(&self, x: i64, y: i64, out: &mut Vec<Move>) {
        let p = &self.profile;
        let walk = 1.0 / p.run_speed;
        let here = self.place(x, y);
        let push = |out: &mut Vec<Move>, tx: i64, ty: i64, time: f32, kind, dir| {
            out.push(Move { to: self.index(tx, ty) as u32, time, kind, dir, vx: 0.0, vy: 0.0 })
        };
        for dir in [-1i8, 1] {
            let qx = x + i64::from(dir);
            if self.place(qx, y) & CLEAR != 0 {
                if self.place(qx, y) & (STANDS | LADDER) != 0 {
                    push(out, qx, y, walk, MoveKind::Walk, dir);
                } else {
                    self.flights(qx, y, 0.0, dir, None, out, MoveKind::Fall, walk);
                }
            }
            if p.steps && here & STANDS != 0 {
                if self.place(qx, y + 1) & STANDS != 0 && self.place(x, y + 1) & CLEAR != 0 {
                    push(out, qx, y + 1, walk, MoveKind::StepUp, dir);
                }
                if self.place(qx, y - 1) & STANDS != 0 && self.place(qx, y) & CLEAR != 0 {
                    push(out, qx, y - 1, walk, MoveKind::StepDown, dir);
                }
            }
        }
        let climb = 1.0 / p.climb_speed;
        if here & LADDER != 0 && self.place(x, y + 1) & (STANDS | LADDER) != 0 {
            push(out, x, y + 1, climb, MoveKind::Climb, 0);
        }
        if self.place(x, y - 1) & LADDER != 0 {
            push(out, x, y - 1, climb, MoveKind::Climb, 0);
        }
        if here & STANDS != 0 {
            let g = f64::from(p.gravity);
            for &j in &self.heights {
                let vy = (2.0 * g * j).sqrt();
                for dir in [-1i8, 1] {
                    self.flights(x, y, vy, dir, None, out, MoveKind::Jump, 0.0);
                }
            }
        }
        if here & DROPS != 0 {
            for dir in [-1i8, 1] {
                self.flights(x, y, 0.0, dir, Some(y), out, MoveKind::Drop, 0.0);
            }
        }
    }

    /// Flights launched from `(x0, y0)` at `vy` up and any speed up to the run speed towards
    /// `dir`, to every standing place they reach clear; `before` seconds are added to each (a
    /// walk off an edge). Straight up or down is flown with `dir` 1, and with -1 too after a
    /// walk off to the left (`before` > 0).
    #[allow(clippy::too_many_arguments)]
    fn flights(
        &self,
        x0: i64,
        y0: i64,
        vy: f64,
        dir: i8,
        pass_level: Option<i64>,
        out: &mut Vec<Move>,
        kind: MoveKind,
        before: f32,
    ) {
        let (w, h) = self.body();
        let g = f64::from(self.profile.gravity);
        let run = f64::from(self.profile.run_speed);
        let apex = vy / g;
        let rise = |t: f64| vy * t - 0.5 * g * t * t;
        let highest = vy * vy / (2.0 * g);
        let first = if dir == 1 || before > 0.0 { 0 } else { 1 };
        // The first thing under the column the body leaves first: a flight still over that
        // column when its feet come down past it lands there, and so does every flight to a
        // lower landing in the same column (slower across, lower when it leaves).
        let behind = if dir == 1 { x0 } else { x0 + w - 1 };
        let ground = self.columns.highest_support(behind, y0, pass_level);
        for dx in first..=self.reach {
            let tx = x0 + i64::from(dir) * dx;
            if tx < 0 || tx + w > i64::from(self.width) {
                break;
            }
            // A landing must come no sooner than the run speed allows across `dx` columns.
            let soonest = dx as f64 / run;
            let top = if soonest <= apex { highest } else { rise(soonest) };
            if y0 as f64 + top < -EPS {
                break;
            }
            let top_row = y0 + floor(top + EPS);
            // The column the body comes into last, for the final 1 / dx of the flight.
            let last = if dir == 1 { tx + w - 1 } else { tx };
            let most_air = self.columns.most_air(last);
            let rows = &self.standing_rows[tx as usize];
            let upto = rows.partition_point(|&r| i64::from(r) <= top_row);
            for &ty in rows[..upto].iter().rev() {
                let dy = f64::from(ty) - y0 as f64;
                if dx == 0 && ty as i64 == y0 {
                    continue;
                }
                let disc = vy * vy - 2.0 * g * dy;
                if disc < -EPS {
                    continue;
                }
                let t = (vy + disc.max(0.0).sqrt()) / g;
                if t <= EPS {
                    continue;
                }
                // A quick look at that last column first: coming down into the landing, the
                // feet must not pass the next thing above it that would hold them.
                // Lower landings come down further there (the drop grows with the flight's
                // length), so past the column's most air between two such things, none is
                // reached.
                if dx > 0 && pass_level.is_none() {
                    let comes_in = t * (1.0 - 1.0 / dx as f64);
                    let drop = rise(comes_in) - dy;
                    if comes_in >= apex && drop > self.columns.air_above(last, i64::from(ty)) + EPS
                    {
                        if drop > most_air + EPS {
                            break;
                        }
                        continue;
                    }
                }
                let leaves = if dx == 0 { t } else { t / dx as f64 };
                if ground
                    .is_some_and(|k| leaves >= apex && y0 as f64 + rise(leaves) < k as f64 - EPS)
                {
                    break;
                }
                let vx = f64::from(dir) * dx as f64 / t;
                if vx.abs() > run * (1.0 + EPS) {
                    continue;
                }
                let flight =
                    Flight { x0: x0 as f64, y0: y0 as f64, vx, vy, gravity: g, duration: t };
                match flight.clearance(&self.columns, w, h, pass_level) {
                    Clearance::Clear => out.push(Move {
                        to: self.index(tx, i64::from(ty)) as u32,
                        time: before + t as f32,
                        kind,
                        dir,
                        vx: vx as f32,
                        vy: vy as f32,
                    }),
                    Clearance::Blocked => {}
                    Clearance::BlockedLower => break,
                }
            }
        }
    }
}

impl std::fmt::Debug for SideViewMoves {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SideViewMoves")
            .field("profile", &self.profile)
            .field("size", &(self.width, self.height))
            .field("moves", &self.len())
            .finish()
    }
}
