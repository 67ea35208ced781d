//! Plans fastest in time over a map's moves, and the legs a character plays.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::grid::GridPos;

use super::error::SideViewError;
use super::map::{SideTile, SideViewMap};
use super::moves::{LegKind, Move, MoveKind, SideViewMoves};

/// A flight under gravity: the body's lower left corner leaves the leg's `from` at (`vx`,
/// `vy`) tiles a second and falls at `gravity` tiles a second squared.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy", derive(bevy::prelude::Reflect))]
pub struct Arc {
    /// Across, tiles a second (negative: to the left).
    pub vx: f32,
    /// Up at launch, tiles a second (0 for falls and drops).
    pub vy: f32,
    /// Tiles a second squared, downwards.
    pub gravity: f32,
}

/// One leg of a side-view path: what it is, where the body's lower left corner goes (in
/// tiles), when, and on what curve.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy", derive(bevy::prelude::Reflect))]
pub struct Leg {
    /// The animation it calls for.
    pub kind: LegKind,
    /// Where it starts: the body's lower left corner, in tiles.
    pub from: [f32; 2],
    /// Where it ends.
    pub to: [f32; 2],
    /// Seconds from the start of the path to the start of the leg.
    pub start: f32,
    /// Seconds it takes.
    pub duration: f32,
    /// The flight, for jumps, falls and drops; the others go in a straight line.
    pub arc: Option<Arc>,
}

impl Leg {
    /// Where the body's lower left corner is `t` seconds into the leg (clamped to the leg).
    pub fn position_at(&self, t: f32) -> [f32; 2] {
        let t = t.clamp(0.0, self.duration);
        match self.arc {
            Some(arc) => {
                [self.from[0] + arc.vx * t, self.from[1] + arc.vy * t - 0.5 * arc.gravity * t * t]
            }
            None => {
                let s = if self.duration > 0.0 { t / self.duration } else { 1.0 };
                [
                    self.from[0] + (self.to[0] - self.from[0]) * s,
                    self.from[1] + (self.to[1] - self.from[1]) * s,
                ]
            }
        }
    }
}

/// A plan: legs from the start to the goal, fastest in time over the profile's moves.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "bevy", derive(bevy::prelude::Reflect))]
pub struct SideViewPath {
    /// In order; each starts where the one before ends.
    pub legs: Vec<Leg>,
    /// The places it rests at between moves, start and goal included (the body's lower
    /// left tile).
    pub stops: Vec<GridPos>,
    /// Seconds from the start to each of `stops` (0 for the start).
    pub arrivals: Vec<f32>,
    /// Seconds from start to goal.
    pub duration: f32,
    /// Places expanded by the search.
    pub expanded: u32,
    /// False when the goal could not be reached and the path ends at the reachable place
    /// nearest it instead ([`SideViewAim::partial`]).
    pub complete: bool,
}

impl SideViewPath {
    /// Where the body's lower left corner is `t` seconds after the start (the goal after
    /// the end).
    pub fn position_at(&self, t: f32) -> [f32; 2] {
        match self.leg_at(t) {
            Some((i, local)) => self.legs[i].position_at(local),
            None => self.legs.last().map_or_else(
                || self.stops.first().map_or([0.0; 2], |p| [p.x as f32, p.y as f32]),
                |leg| leg.to,
            ),
        }
    }

    /// As the planner makes them: at least one stop, a time for each, every time and leg
    /// finite (a path changed by hand may not be).
    pub fn is_well_formed(&self) -> bool {
        let finite = |p: [f32; 2]| p[0].is_finite() && p[1].is_finite();
        !self.stops.is_empty()
            && self.arrivals.len() == self.stops.len()
            && self.duration.is_finite()
            && self.arrivals.iter().all(|a| a.is_finite())
            && self.legs.iter().all(|l| {
                finite(l.from)
                    && finite(l.to)
                    && l.start.is_finite()
                    && l.duration.is_finite()
                    && l.duration >= 0.0
                    && l.arc.is_none_or(|a| {
                        a.vx.is_finite() && a.vy.is_finite() && a.gravity.is_finite()
                    })
            })
    }

    /// Whether every move from stop `from` on is still one the profile can make: the same
    /// landing in the same time, after the moves were retiled.
    pub fn still_walkable(&self, moves: &SideViewMoves, from: usize) -> bool {
        (from..self.stops.len().saturating_sub(1)).all(|i| {
            let (a, b) = (self.stops[i], self.stops[i + 1]);
            let time = self.arrivals[i + 1] - self.arrivals[i];
            moves.moves_from(a).any(|m| m.to == b && (m.time - time).abs() <= 1e-4 * time.max(1.0))
        })
    }

    /// The first stop reached at or after `t` seconds (the last when `t` is past the end).
    pub fn next_stop(&self, t: f32) -> usize {
        self.arrivals.partition_point(|&a| a < t).min(self.stops.len().saturating_sub(1))
    }

    /// The path as far as stop `n`.
    pub fn until(&self, n: usize) -> SideViewPath {
        let n = n.min(self.stops.len().saturating_sub(1));
        let end = self.arrivals.get(n).copied().unwrap_or(0.0);
        SideViewPath {
            legs: self.legs.iter().filter(|l| l.start < end - 1e-6).copied().collect(),
            stops: self.stops[..=n.min(self.stops.len().saturating_sub(1))].to_vec(),
            arrivals: self.arrivals[..=n.min(self.arrivals.len().saturating_sub(1))].to_vec(),
            duration: end,
            expanded: self.expanded,
            complete: self.complete,
        }
    }

    /// The path from stop `k` on, its times counted from there.
    pub fn after(&self, k: usize) -> SideViewPath {
        let k = k.min(self.stops.len().saturating_sub(1));
        let begin = self.arrivals.get(k).copied().unwrap_or(0.0);
        SideViewPath {
            legs: self
                .legs
                .iter()
                .filter(|l| l.start >= begin - 1e-6)
                .map(|l| Leg { start: (l.start - begin).max(0.0), ..*l })
                .collect(),
            stops: self.stops[k..].to_vec(),
            arrivals: self.arrivals[k..].iter().map(|a| a - begin).collect(),
            duration: (self.duration - begin).max(0.0),
            expanded: self.expanded,
            complete: self.complete,
        }
    }

    /// This path, then `rest` (which starts where this one ends).
    pub fn then(mut self, rest: SideViewPath) -> SideViewPath {
        let offset = self.duration;
        self.legs.extend(rest.legs.into_iter().map(|mut leg| {
            leg.start += offset;
            leg
        }));
        self.stops.extend(rest.stops.into_iter().skip(1));
        self.arrivals.extend(rest.arrivals.into_iter().skip(1).map(|a| a + offset));
        self.duration += rest.duration;
        self.expanded += rest.expanded;
        self.complete = rest.complete;
        self
    }

    /// The leg played `t` seconds after the start and the seconds into it; `None` before the
    /// start or after the end.
    pub fn leg_at(&self, t: f32) -> Option<(usize, f32)> {
        if t.is_nan() || t < 0.0 || t > self.duration {
            return None;
        }
        let i = self.legs.partition_point(|leg| leg.start + leg.duration < t);
        let i = i.min(self.legs.len().checked_sub(1)?);
        Some((i, t - self.legs[i].start))
    }
}

/// What a plan settles for besides its goal, and the caps on its search
/// ([`SideViewPlanner::plan_aimed`]). The default: the goal itself, no caps, optimal.
///
/// ```
/// use bevy_tilemap_nav::grid::GridPos;
/// use bevy_tilemap_nav::side_view::{JumpProfile, SideViewAim, SideViewMap, SideViewMoves, SideViewPlanner};
///
/// let map = SideViewMap::from_rows(&["..........", "##########"]).unwrap();
/// let moves = SideViewMoves::new(&map, JumpProfile::new(5.0, 2.0, 40.0)).unwrap();
/// let mut planner = SideViewPlanner::default();
/// let aim = SideViewAim { within: 3.0, ..Default::default() };
/// let path = planner.plan_aimed(&moves, &map, GridPos::new(0, 1), GridPos::new(9, 1), &aim).unwrap();
/// // Stops three tiles short of the goal.
/// assert_eq!(path.stops.last(), Some(&GridPos::new(6, 1)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideViewAim {
    /// Stop at the first place (fastest reached) whose lower left tile is at most this many
    /// tiles from the goal's (straight line, tile to tile). 0: at the goal.
    pub within: f32,
    /// And from which no solid tile lies on the straight line to the goal (tile centres).
    pub in_sight: bool,
    /// Expand at most this many places.
    pub max_expansions: Option<u32>,
    /// Leave out every way slower than this (seconds).
    pub max_seconds: Option<f64>,
    /// When the goal cannot be reached (or a cap is hit): the path to the reachable place
    /// nearest the goal, instead of an error.
    pub partial: bool,
    /// Weighted search: the estimate times this (at least 1): paths at most this many times
    /// the fastest, after fewer expansions. 1: the fastest.
    pub weight: f64,
}

impl Default for SideViewAim {
    fn default() -> Self {
        Self {
            within: 0.0,
            in_sight: false,
            max_expansions: None,
            max_seconds: None,
            partial: false,
            weight: 1.0,
        }
    }
}

impl SideViewAim {
    /// Numbers out of range: `within` NaN or negative, `weight` NaN or below 1, `max_seconds`
    /// NaN.
    fn check(&self) -> Result<(), SideViewError> {
        let bad = |what, value: f64, range| Err(SideViewError::InvalidAim { what, value, range });
        if self.within.is_nan() || self.within < 0.0 {
            return bad("within", f64::from(self.within), "0 or more tiles");
        }
        if self.weight.is_nan() || self.weight < 1.0 || self.weight.is_infinite() {
            return bad("weight", self.weight, "1 or more, finite");
        }
        if self.max_seconds.is_some_and(f64::is_nan) {
            return bad("max_seconds", f64::NAN, "a number of seconds");
        }
        Ok(())
    }

    /// Whether the plan may end short of its goal.
    fn stops_short(&self) -> bool {
        self.within > 0.0 || self.partial
    }

    /// Whether a plan may end at `pos` for `goal`.
    fn reaches(&self, map: &SideViewMap, pos: GridPos, goal: GridPos) -> bool {
        if pos == goal {
            return true;
        }
        let (dx, dy) = (pos.x.abs_diff(goal.x) as f32, pos.y.abs_diff(goal.y) as f32);
        dx * dx + dy * dy <= self.within * self.within && (!self.in_sight || sight(map, pos, goal))
    }
}

/// No solid tile on the straight line between the centres of tiles `a` and `b` (sampled a
/// quarter of a tile apart; the ends are not looked at).
fn sight(map: &SideViewMap, a: GridPos, b: GridPos) -> bool {
    let (ax, ay, bx, by) = (a.x as f32, a.y as f32, b.x as f32, b.y as f32);
    let steps = ((bx - ax).abs().max((by - ay).abs()) * 4.0).ceil().max(1.0) as u32;
    (1..steps).all(|i| {
        let t = i as f32 / steps as f32;
        let (x, y) = ((ax + (bx - ax) * t).round(), (ay + (by - ay) * t).round());
        map.tile(GridPos::new(x as u32, y as u32)) != SideTile::Solid
    })
}

/// Plans on [`SideViewMoves`], keeping its memory from one plan to the next.
///
/// ```
/// use bevy_tilemap_nav::grid::GridPos;
/// use bevy_tilemap_nav::side_view::{JumpProfile, LegKind, SideViewMap, SideViewMoves, SideViewPlanner};
///
/// let map = SideViewMap::from_rows(&[
///     "........",
///     "......H.",
///     "--....H.",
///     "......H.",
///     "###..###",
/// ])
/// .unwrap();
/// let moves = SideViewMoves::new(&map, JumpProfile::new(6.0, 2.0, 40.0)).unwrap();
/// let mut planner = SideViewPlanner::default();
/// // Over the gap, up the ladder to the tile above its top.
/// let path = planner.plan(&moves, &map, GridPos::new(0, 1), GridPos::new(6, 4)).unwrap();
/// assert!(path.legs.iter().any(|leg| leg.kind == LegKind::Jump));
/// assert!(path.legs.iter().any(|leg| leg.kind == LegKind::Climb));
/// assert_eq!(path.stops.last(), Some(&GridPos::new(6, 4)));
/// ```
#[derive(Default)]
pub struct SideViewPlanner {
    best: Vec<f64>,
    came_from: Vec<(u32, u32)>,
    seen: Vec<u32>,
    round: u32,
    open: BinaryHeap<Reverse<(u64, u32)>>,
}

impl SideViewPlanner {
    /// The fastest path from `start` to `goal` (the body's lower left tile at each). Errors:
    /// moves out of step with `map`, start or goal off the map, in a solid tile, or with
    /// nothing to stand on or hold; no moves lead there.
    pub fn plan(
        &mut self,
        moves: &SideViewMoves,
        map: &SideViewMap,
        start: GridPos,
        goal: GridPos,
    ) -> Result<SideViewPath, SideViewError> {
        self.plan_aimed(moves, map, start, goal, &SideViewAim::default())
    }

    /// The fastest path from `start` to a place `aim` settles for near `goal` (the goal
    /// itself with the default aim), within its caps. Errors: as [`plan`](Self::plan) (a
    /// goal that may be stopped short of need only be on the map), an aim whose numbers are
    /// out of range ([`SideViewError::InvalidAim`]), a cap reached
    /// ([`SideViewError::LimitReached`]); with [`partial`](SideViewAim::partial) an
    /// unreachable goal or a cap reached gives the path to the reachable place nearest the
    /// goal instead ([`SideViewPath::complete`] false).
    pub fn plan_aimed(
        &mut self,
        moves: &SideViewMoves,
        map: &SideViewMap,
        start: GridPos,
        goal: GridPos,
        aim: &SideViewAim,
    ) -> Result<SideViewPath, SideViewError> {
        aim.check()?;
        check_ends(moves, map, start, goal, aim.stops_short())?;
        let (width, height) = moves.size();
        self.new_round(width as usize * height as usize);
        let to_index = |p: GridPos| moves.index(i64::from(p.x), i64::from(p.y));
        let from = to_index(start);
        let run = f64::from(moves.profile().run_speed);
        let within = f64::from(aim.within);
        let estimate = |index: usize| {
            let dx = f64::from((index as u32 % width).abs_diff(goal.x));
            (dx - within).max(0.0) / run * aim.weight
        };
        let pos = |index: usize| moves.pos(index as u32);
        let reaches = |index: usize| aim.reaches(map, pos(index), goal);
        self.best[from] = 0.0;
        self.seen[from] = self.round;
        self.came_from[from] = (u32::MAX, 0);
        self.open.push(Reverse((estimate(from).to_bits(), from as u32)));
        let mut expanded = 0;
        // The expanded place nearest the goal (squared tiles, then seconds), for a partial path.
        let mut nearest = (u64::MAX, 0, from);
        let mut capped = false;
        while let Some(Reverse((key, node))) = self.open.pop() {
            let node = node as usize;
            let g = self.best[node];
            if f64::from_bits(key) > g + estimate(node) + 1e-9 {
                continue;
            }
            if aim.max_expansions.is_some_and(|cap| expanded >= cap) {
                capped = true;
                break;
            }
            expanded += 1;
            if reaches(node) {
                return Ok(self.path(moves, from, node, expanded));
            }
            let p = pos(node);
            let (dx, dy) = (u64::from(p.x.abs_diff(goal.x)), u64::from(p.y.abs_diff(goal.y)));
            nearest = nearest.min((dx * dx + dy * dy, g.to_bits(), node));
            for (i, m) in moves.list(node).iter().enumerate() {
                let next = m.to as usize;
                let cost = g + f64::from(m.time);
                if aim.max_seconds.is_some_and(|most| cost > most) {
                    continue;
                }
                if self.seen[next] != self.round || cost < self.best[next] {
                    self.seen[next] = self.round;
                    self.best[next] = cost;
                    self.came_from[next] = (node as u32, i as u32);
                    let f = cost + estimate(next);
                    self.open.push(Reverse((f.to_bits(), next as u32)));
                }
            }
        }
        if aim.partial {
            let mut path = self.path(moves, from, nearest.2, expanded);
            path.complete = false;
            return Ok(path);
        }
        Err(match capped {
            true => SideViewError::LimitReached { expanded },
            false => SideViewError::Unreachable { start, goal },
        })
    }

    /// Memory for a map of `cells` places, every place unseen.
    fn new_round(&mut self, cells: usize) {
        if self.best.len() != cells {
            self.best = vec![0.0; cells];
            self.came_from = vec![(0, 0); cells];
            self.seen = vec![0; cells];
            self.round = 0;
        }
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.seen.fill(0);
            self.round = 1;
        }
        self.open.clear();
    }

    fn path(&self, moves: &SideViewMoves, from: usize, to: usize, expanded: u32) -> SideViewPath {
        let mut chain = Vec::new();
        let mut at = to;
        while at != from {
            let (parent, i) = self.came_from[at];
            chain.push((parent as usize, moves.list(parent as usize)[i as usize]));
            at = parent as usize;
        }
        chain.reverse();
        let mut path = SideViewPath {
            legs: Vec::with_capacity(chain.len() + 1),
            stops: vec![moves.pos(from as u32)],
            arrivals: vec![0.0],
            duration: 0.0,
            expanded,
            complete: true,
        };
        let gravity = moves.profile().gravity;
        let walk = 1.0 / moves.profile().run_speed;
        for (parent, m) in chain {
            let a = moves.pos(parent as u32);
            let b = moves.pos(m.to);
            push_legs(&mut path, a, b, &m, gravity, walk);
            path.stops.push(b);
            path.arrivals.push(path.legs.last().map_or(0.0, |l| l.start + l.duration));
        }
        path.duration = path.legs.last().map_or(0.0, |l| l.start + l.duration);
        path
    }
}

impl SideViewMoves {
    /// The fastest path from `start` to `goal`, with a planner made for this one plan
    /// ([`SideViewPlanner::plan`] keeps its memory between plans).
    pub fn plan(
        &self,
        map: &SideViewMap,
        start: GridPos,
        goal: GridPos,
    ) -> Result<SideViewPath, SideViewError> {
        SideViewPlanner::default().plan(self, map, start, goal)
    }
}

/// The start must be a place the body rests at; so must the goal, unless `goal_near` (a plan
/// that may stop short of it: then it need only be on the map).
fn check_ends(
    moves: &SideViewMoves,
    map: &SideViewMap,
    start: GridPos,
    goal: GridPos,
    goal_near: bool,
) -> Result<(), SideViewError> {
    let (width, height) = moves.size();
    if (map.width(), map.height()) != (width, height) {
        return Err(SideViewError::OtherMap {
            moves: (width, height),
            map: (map.width(), map.height()),
        });
    }
    if map.revision() != moves.revision() {
        return Err(SideViewError::MovesOutOfDate { moves: moves.revision(), map: map.revision() });
    }
    for (pos, is_start) in [(start, true), (goal, false)] {
        let error = if pos.x >= width || pos.y >= height {
            SideViewError::OffMap { pos, is_start }
        } else if goal_near && !is_start {
            continue;
        } else if !moves.fits(pos) {
            SideViewError::InSolid { pos, is_start }
        } else if !moves.rests(pos) {
            SideViewError::NoFooting { pos, is_start }
        } else {
            continue;
        };
        return Err(error);
    }
    Ok(())
}

fn push_legs(path: &mut SideViewPath, a: GridPos, b: GridPos, m: &Move, gravity: f32, walk: f32) {
    let corner = |x: u32, y: u32| [x as f32, y as f32];
    let line = |path: &mut SideViewPath, kind, from, to, duration| {
        let start = path.legs.last().map_or(0.0, |l: &Leg| l.start + l.duration);
        path.legs.push(Leg { kind, from, to, start, duration, arc: None });
    };
    let (from, to) = (corner(a.x, a.y), corner(b.x, b.y));
    match m.kind {
        MoveKind::Walk => line(path, LegKind::Walk, from, to, walk),
        MoveKind::Climb => line(path, LegKind::Climb, from, to, m.time),
        MoveKind::StepUp => {
            let mid = corner(a.x, b.y);
            line(path, LegKind::Step, from, mid, walk * 0.5);
            line(path, LegKind::Step, mid, to, walk * 0.5);
        }
        MoveKind::StepDown => {
            let mid = corner(b.x, a.y);
            line(path, LegKind::Step, from, mid, walk * 0.5);
            line(path, LegKind::Step, mid, to, walk * 0.5);
        }
        MoveKind::Jump | MoveKind::Drop | MoveKind::Fall => {
            let launch = if m.kind == MoveKind::Fall {
                let edge = [from[0] + f32::from(m.dir), from[1]];
                line(path, LegKind::Walk, from, edge, walk);
                edge
            } else {
                from
            };
            let start = path.legs.last().map_or(0.0, |l| l.start + l.duration);
            let flight = if m.kind == MoveKind::Fall { m.time - walk } else { m.time };
            path.legs.push(Leg {
                kind: m.kind.leg(),
                from: launch,
                to,
                start,
                duration: flight,
                arc: Some(Arc { vx: m.vx, vy: m.vy, gravity }),
            });
        }
    }
}
