//! Side-view plans against an independent model of the moves (written from the rules in the
//! `side_view` module's docs, tile by tile rather than column by column), arcs sampled
//! finely, local regeneration against a fresh build, and bad input.

use bevy_tilemap_nav::grid::GridPos;
use bevy_tilemap_nav::side_view::{
    JumpProfile, LegKind, SideTile, SideViewAim, SideViewError, SideViewMap, SideViewMoves,
    SideViewPath, SideViewPlanner,
};

use crate::support::Rng;

const EPS: f64 = 1e-6;

/// The rules, written out a tile at a time.
struct Model {
    tiles: Vec<Vec<char>>,
    width: i64,
    height: i64,
    w: i64,
    h: i64,
    run: f64,
    climb: f64,
    gravity: f64,
    heights: Vec<f64>,
    steps: bool,
}

impl Model {
    fn new(rows: &[String], p: &JumpProfile) -> Self {
        let tiles: Vec<Vec<char>> = rows.iter().rev().map(|r| r.chars().collect()).collect();
        let top = f64::from(p.jump_height);
        let mut heights: Vec<f64> = (1..=top.floor() as i64).map(|i| i as f64).collect();
        if heights.last().is_none_or(|&x| x < top) {
            heights.push(top);
        }
        Model {
            width: tiles[0].len() as i64,
            height: tiles.len() as i64,
            tiles,
            w: i64::from(p.body_width),
            h: i64::from(p.body_height),
            run: f64::from(p.run_speed),
            climb: f64::from(p.climb_speed),
            gravity: f64::from(p.gravity),
            heights,
            steps: p.steps,
        }
    }

    fn tile(&self, x: i64, y: i64) -> char {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            '#'
        } else {
            self.tiles[y as usize][x as usize]
        }
    }

    /// Level `k` of column `x` holds a body up.
    fn holds(&self, x: i64, k: i64) -> bool {
        k == 0
            || matches!(self.tile(x, k - 1), '#' | '-')
            || (self.tile(x, k - 1) == 'H' && self.tile(x, k) != 'H')
    }

    fn clear(&self, x: i64, y: i64) -> bool {
        let mut ok = true;
        for c in x..x + self.w {
            for r in y..y + self.h {
                ok &= self.tile(c, r) != '#';
            }
        }
        ok
    }

    fn stands(&self, x: i64, y: i64) -> bool {
        self.clear(x, y) && (x..x + self.w).any(|c| self.holds(c, y))
    }

    fn ladder(&self, x: i64, y: i64) -> bool {
        self.clear(x, y) && (x..x + self.w).any(|c| self.tile(c, y) == 'H')
    }

    fn rests(&self, x: i64, y: i64) -> bool {
        self.stands(x, y) || self.ladder(x, y)
    }

    fn droppable(&self, x: i64, y: i64) -> bool {
        self.stands(x, y)
            && y > 0
            && (x..x + self.w).all(|c| !self.holds(c, y) || self.tile(c, y - 1) != '#')
    }

    /// The flight from `(x0, y0)` up at `vy` to the corner `(tx, ty)`, if the rules allow it:
    /// its duration and sideways speed.
    fn flight(
        &self,
        (x0, y0): (i64, i64),
        vy: f64,
        (tx, ty): (i64, i64),
        pass: Option<i64>,
    ) -> Option<f64> {
        let g = self.gravity;
        let disc = vy * vy - 2.0 * g * (ty - y0) as f64;
        if disc < -EPS {
            return None;
        }
        let t = (vy + disc.max(0.0).sqrt()) / g;
        if t <= EPS {
            return None;
        }
        let vx = (tx - x0) as f64 / t;
        if vx.abs() > self.run * (1.0 + EPS) {
            return None;
        }
        let x = |s: f64| x0 as f64 + vx * s;
        let y = |s: f64| y0 as f64 + vy * s - 0.5 * g * s * s;
        let apex = vy / g;
        // Times the body is over column c: c - w < x(s) < c + 1.
        let over = |c: i64| -> Option<(f64, f64)> {
            if vx.abs() < EPS {
                return (c >= x0 && c < x0 + self.w).then_some((0.0, t));
            }
            let s1 = (c as f64 - self.w as f64 - x0 as f64) / vx;
            let s2 = (c as f64 + 1.0 - x0 as f64) / vx;
            let (a, b) = (s1.min(s2).max(0.0), s1.max(s2).min(t));
            ((b - a) * vx.abs() > EPS).then_some((a, b))
        };
        // Out of the map: the body's box leaves [0, width] x [0, height].
        let (ylo, yhi) = {
            let mut lo = y(0.0).min(y(t));
            let mut hi = y(0.0).max(y(t));
            if apex > 0.0 && apex < t {
                lo = lo.min(y(apex));
                hi = hi.max(y(apex));
            }
            (lo, hi)
        };
        if x0.min(tx) < 0 || x0.max(tx) + self.w > self.width {
            return None;
        }
        if ylo < -EPS || yhi + self.h as f64 > self.height as f64 + EPS {
            return None;
        }
        for c in 0..self.width {
            let Some((a, b)) = over(c) else { continue };
            for r in 0..self.height {
                if self.tile(c, r) == '#' {
                    let mut lo = y(a).min(y(b));
                    let mut hi = y(a).max(y(b));
                    if apex > a && apex < b {
                        lo = lo.min(y(apex));
                        hi = hi.max(y(apex));
                    }
                    if hi > (r - self.h) as f64 + EPS && lo < (r + 1) as f64 - EPS {
                        return None;
                    }
                }
            }
            for k in 0..=self.height {
                if !self.holds(c, k) || Some(k) == pass {
                    continue;
                }
                // When the feet come down through level k, if they do.
                let d = vy * vy - 2.0 * g * (k - y0) as f64;
                if d < 0.0 {
                    continue;
                }
                let s = (vy + d.sqrt()) / g;
                let at_landing = (s - t).abs() < 1e-9 || s > t;
                if !at_landing && s + 1e-12 >= a && s < b - 1e-12 {
                    let xs = x(s);
                    if xs > (c - self.w) as f64 - EPS && xs < (c + 1) as f64 + EPS {
                        return None;
                    }
                }
            }
        }
        Some(t)
    }

    /// Every move from the resting place `(x, y)`: landing and seconds.
    fn moves(&self, x: i64, y: i64) -> Vec<((i64, i64), f64)> {
        let mut out = Vec::new();
        let walk = 1.0 / self.run;
        for dir in [-1, 1] {
            let q = (x + dir, y);
            if self.clear(q.0, q.1) {
                if self.rests(q.0, q.1) {
                    out.push((q, walk));
                } else {
                    for tx in 0..self.width {
                        if (tx - q.0) * dir < 0 {
                            continue;
                        }
                        for ty in 0..y {
                            if self.stands(tx, ty)
                                && let Some(t) = self.flight(q, 0.0, (tx, ty), None)
                            {
                                out.push(((tx, ty), walk + t));
                            }
                        }
                    }
                }
            }
            if self.steps && self.stands(x, y) {
                if self.stands(x + dir, y + 1) && self.clear(x, y + 1) {
                    out.push(((x + dir, y + 1), walk));
                }
                if self.stands(x + dir, y - 1) && self.clear(x + dir, y) {
                    out.push(((x + dir, y - 1), walk));
                }
            }
        }
        if self.ladder(x, y) && self.rests(x, y + 1) {
            out.push(((x, y + 1), 1.0 / self.climb));
        }
        if self.ladder(x, y - 1) {
            out.push(((x, y - 1), 1.0 / self.climb));
        }
        for tx in 0..self.width {
            for ty in 0..self.height {
                if !self.stands(tx, ty) || (tx, ty) == (x, y) {
                    continue;
                }
                if self.stands(x, y) {
                    for &j in &self.heights {
                        let vy = (2.0 * self.gravity * j).sqrt();
                        if let Some(t) = self.flight((x, y), vy, (tx, ty), None) {
                            out.push(((tx, ty), t));
                        }
                    }
                }
                if self.droppable(x, y)
                    && ty < y
                    && let Some(t) = self.flight((x, y), 0.0, (tx, ty), Some(y))
                {
                    out.push(((tx, ty), t));
                }
            }
        }
        out
    }

    fn fastest(&self, start: (i64, i64), goal: (i64, i64)) -> Option<f64> {
        self.times_from(start, Some(goal))[(goal.1 * self.width + goal.0) as usize]
    }

    /// The fastest time from `start` to every place (`None`: not reached), Dijkstra over
    /// the model's moves; stopping once `goal` is settled.
    fn times_from(&self, start: (i64, i64), goal: Option<(i64, i64)>) -> Vec<Option<f64>> {
        let n = (self.width * self.height) as usize;
        let index = |(x, y): (i64, i64)| (y * self.width + x) as usize;
        let mut best = vec![f64::INFINITY; n];
        let mut done = vec![false; n];
        best[index(start)] = 0.0;
        loop {
            let (mut at, mut low) = (usize::MAX, f64::INFINITY);
            for i in 0..n {
                if !done[i] && best[i] < low {
                    (at, low) = (i, best[i]);
                }
            }
            if at == usize::MAX {
                break;
            }
            done[at] = true;
            let p = ((at as i64) % self.width, (at as i64) / self.width);
            if Some(p) == goal {
                break;
            }
            for (q, t) in self.moves(p.0, p.1) {
                let i = index(q);
                best[i] = best[i].min(low + t);
            }
        }
        (0..n).map(|i| done[i].then_some(best[i])).collect()
    }
}

/// A random side-view level: ground with gaps, floating platforms of solid or one-way tiles,
/// ladders, and blocks.
fn random_level(rng: &mut Rng, width: usize, height: usize) -> Vec<String> {
    let mut t = vec![vec!['.'; width]; height];
    for tile in &mut t[0] {
        if !rng.chance(20) {
            *tile = '#';
        }
    }
    for _ in 0..(width * height / 14) {
        let (x, y) = (rng.below(width as u32) as usize, 1 + rng.below(height as u32 - 2) as usize);
        let len = 1 + rng.below(4) as usize;
        let kind = match rng.below(10) {
            0..=4 => '#',
            5..=7 => '-',
            _ => 'H',
        };
        for i in 0..len {
            if kind == 'H' {
                if y + i < height {
                    t[y + i][x] = 'H';
                }
            } else if x + i < width {
                t[y][x + i] = kind;
            }
        }
    }
    t.into_iter().rev().map(|r| r.into_iter().collect()).collect()
}

fn random_profile(rng: &mut Rng) -> JumpProfile {
    let run = [3.0, 5.0, 8.0][rng.below(3) as usize];
    let jump = [1.0, 2.0, 2.5, 3.0][rng.below(4) as usize];
    let gravity = [20.0, 45.0][rng.below(2) as usize];
    let tall = rng.chance(30);
    JumpProfile::new(run, jump, gravity)
        .with_body(1, if tall { 2 } else { 1 })
        .with_steps(rng.chance(50))
        .with_climb_speed([2.0, 4.0][rng.below(2) as usize])
}

fn map_of(rows: &[String]) -> SideViewMap {
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    SideViewMap::from_rows(&rows).unwrap()
}

fn rest_places(model: &Model) -> Vec<(i64, i64)> {
    let mut places = Vec::new();
    for y in 0..model.height {
        for x in 0..model.width {
            if model.rests(x, y) {
                places.push((x, y));
            }
        }
    }
    places
}

/// The body's box at `[x, y]` overlaps a solid tile (or leaves the map) by more than `slack`.
fn inside_solid(map: &SideViewMap, p: &JumpProfile, [x, y]: [f32; 2], slack: f32) -> bool {
    let (w, h) = (p.body_width as f32, p.body_height as f32);
    if x < -slack
        || y < -slack
        || x + w > map.width() as f32 + slack
        || y + h > map.height() as f32 + slack
    {
        return true;
    }
    let (c0, c1) = ((x + slack).floor() as i64, (x + w - slack).ceil() as i64 - 1);
    let (r0, r1) = ((y + slack).floor() as i64, (y + h - slack).ceil() as i64 - 1);
    (c0..=c1).any(|c| {
        (r0..=r1).any(|r| {
            c >= 0 && r >= 0 && map.tile(GridPos::new(c as u32, r as u32)) == SideTile::Solid
        })
    })
}

/// Every leg starts where the one before ended, sampled finely no leg puts the body in a
/// solid tile, every stop is a resting place, and the last leg ends at the goal.
fn check_path(map: &SideViewMap, moves: &SideViewMoves, path: &SideViewPath, goal: GridPos) {
    let p = moves.profile();
    let mut at = [path.stops[0].x as f32, path.stops[0].y as f32];
    let mut clock = 0.0f32;
    for leg in &path.legs {
        assert!((leg.from[0] - at[0]).abs() < 1e-3 && (leg.from[1] - at[1]).abs() < 1e-3);
        assert!((leg.start - clock).abs() < 1e-3, "{leg:?} starts at {clock}");
        for i in 0..=400 {
            let q = leg.position_at(leg.duration * i as f32 / 400.0);
            assert!(!inside_solid(map, p, q, 2e-3), "{leg:?} at {q:?} is in a solid tile\n{map:?}");
        }
        let end = leg.position_at(leg.duration);
        assert!((end[0] - leg.to[0]).abs() < 1e-3 && (end[1] - leg.to[1]).abs() < 1e-3, "{leg:?}");
        if leg.arc.is_some() {
            let landing = GridPos::new(leg.to[0].round() as u32, leg.to[1].round() as u32);
            assert!(moves.stands(landing), "{leg:?} lands where nothing holds the body");
        }
        at = leg.to;
        clock = leg.start + leg.duration;
    }
    assert_eq!(path.stops.last(), Some(&goal));
    assert!((at[0] - goal.x as f32).abs() < 1e-3 && (at[1] - goal.y as f32).abs() < 1e-3);
    assert!((clock - path.duration).abs() < 1e-3);
    assert!(path.stops.iter().all(|&s| moves.rests(s)));
}

#[test]
fn side_view_plans_are_the_fastest_the_rules_allow() {
    let mut rng = Rng(0x51DE_0001);
    let mut planner = SideViewPlanner::default();
    let (mut compared, mut reached, mut kinds) = (0, 0, std::collections::HashSet::new());
    for round in 0..40 {
        let (width, height) = (8 + rng.below(9) as usize, 6 + rng.below(6) as usize);
        let rows = random_level(&mut rng, width, height);
        let profile = random_profile(&mut rng);
        let map = map_of(&rows);
        let moves = SideViewMoves::new(&map, profile).unwrap();
        let model = Model::new(&rows, &profile);
        let places = rest_places(&model);
        if places.len() < 2 {
            continue;
        }
        for _ in 0..6 {
            let a = places[rng.below(places.len() as u32) as usize];
            let b = places[rng.below(places.len() as u32) as usize];
            let (start, goal) =
                (GridPos::new(a.0 as u32, a.1 as u32), GridPos::new(b.0 as u32, b.1 as u32));
            let expected = model.fastest(a, b);
            let got = planner.plan(&moves, &map, start, goal);
            compared += 1;
            match (expected, &got) {
                (Some(t), Ok(path)) => {
                    assert!(
                        (f64::from(path.duration) - t).abs() < 1e-3 * t.max(1.0),
                        "round {round}: {a:?} -> {b:?}: planned {} s, the model's fastest {t} s\n{profile:?}\n{}",
                        path.duration,
                        rows.join("\n")
                    );
                    check_path(&map, &moves, path, goal);
                    kinds.extend(path.legs.iter().map(|l| l.kind));
                    reached += 1;
                }
                (None, Err(SideViewError::Unreachable { .. })) => {}
                _ => panic!(
                    "round {round}: {a:?} -> {b:?}: model {expected:?}, planner {got:?}\n{profile:?}\n{}",
                    rows.join("\n")
                ),
            }
        }
    }
    // The maps exercise the rules: most pairs compared, many reached, every kind of leg used.
    assert!(compared > 150 && reached > 60, "{compared} compared, {reached} reached");
    for kind in
        [LegKind::Walk, LegKind::Step, LegKind::Climb, LegKind::Jump, LegKind::Fall, LegKind::Drop]
    {
        assert!(kinds.contains(&kind), "no {kind:?} leg in any plan: {kinds:?}");
    }
}

/// Plans that may stop short (within a distance, partial paths, caps on time and work,
/// weighted) against the model: each ends where the model's fastest way allows.
#[test]
fn aimed_side_view_plans_settle_for_what_they_allow() {
    let mut rng = Rng(0x51DE_0005);
    let mut planner = SideViewPlanner::default();
    let (mut within, mut partial, mut capped) = (0, 0, 0);
    for round in 0..30 {
        let (width, height) = (8 + rng.below(9) as usize, 6 + rng.below(6) as usize);
        let rows = random_level(&mut rng, width, height);
        let profile = random_profile(&mut rng);
        let (map, model) = (map_of(&rows), Model::new(&rows, &profile));
        let moves = SideViewMoves::new(&map, profile).unwrap();
        let places = rest_places(&model);
        if places.is_empty() {
            continue;
        }
        let context =
            |what: &str| format!("round {round}: {what}\n{profile:?}\n{}", rows.join("\n"));
        for _ in 0..6 {
            let a = places[rng.below(places.len() as u32) as usize];
            // Any tile of the map as the goal: a plan that stops short needs no footing there.
            let b = (rng.below(width as u32) as i64, rng.below(height as u32) as i64);
            let (start, goal) =
                (GridPos::new(a.0 as u32, a.1 as u32), GridPos::new(b.0 as u32, b.1 as u32));
            let times = model.times_from(a, None);
            let at = |i: usize| ((i as i64) % model.width, (i as i64) / model.width);
            let d2 = |p: (i64, i64)| (p.0 - b.0).pow(2) + (p.1 - b.1).pow(2);
            let reached = || times.iter().enumerate().filter_map(|(i, t)| Some((at(i), (*t)?)));
            // Within a distance: the fastest place within it.
            let w = [1.0f32, 2.5][rng.below(2) as usize];
            let aim = SideViewAim { within: w, ..Default::default() };
            let best = reached()
                .filter(|&(p, _)| d2(p) as f32 <= w * w)
                .map(|(_, t)| t)
                .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.min(t))));
            match (best, planner.plan_aimed(&moves, &map, start, goal, &aim)) {
                (Some(t), Ok(path)) => {
                    let end = *path.stops.last().unwrap();
                    let end = (i64::from(end.x), i64::from(end.y));
                    assert!(
                        (f64::from(path.duration) - t).abs() < 1e-3 * t.max(1.0),
                        "{}",
                        context(&format!(
                            "{a:?} within {w} of {b:?}: {} s, model {t} s",
                            path.duration
                        ))
                    );
                    assert!(d2(end) as f32 <= w * w && path.complete);
                    within += 1;
                }
                (None, Err(SideViewError::Unreachable { .. })) => {}
                (best, got) => panic!(
                    "{}",
                    context(&format!("{a:?} within {w} of {b:?}: model {best:?}, planner {got:?}"))
                ),
            }
            // Partial: the reachable place nearest the goal, the fastest of those.
            let aim = SideViewAim { partial: true, ..Default::default() };
            let path = planner.plan_aimed(&moves, &map, start, goal, &aim).unwrap();
            let nearest = reached().map(|(p, _)| d2(p)).min().unwrap();
            let fastest = reached()
                .filter(|&(p, _)| d2(p) == nearest)
                .map(|(_, t)| t)
                .fold(f64::INFINITY, f64::min);
            let end = *path.stops.last().unwrap();
            assert_eq!(d2((i64::from(end.x), i64::from(end.y))), nearest, "{}", context("partial"));
            assert!(
                (f64::from(path.duration) - fastest).abs() < 1e-3 * fastest.max(1.0),
                "{}",
                context("partial time")
            );
            assert_eq!(path.complete, nearest == 0);
            partial += usize::from(!path.complete);
            // Caps: on time, and on the work (a partial path then still comes back).
            if let Some(t) = times[(b.1 * model.width + b.0) as usize].filter(|&t| t > 0.2) {
                let aim = SideViewAim { max_seconds: Some(t * 0.9), ..Default::default() };
                let got = planner.plan_aimed(&moves, &map, start, goal, &aim);
                assert!(
                    matches!(got, Err(SideViewError::Unreachable { .. })),
                    "{}",
                    context(&format!("{got:?}"))
                );
                let aim = SideViewAim { max_seconds: Some(t * 1.001), ..Default::default() };
                assert!(planner.plan_aimed(&moves, &map, start, goal, &aim).is_ok());
                let aim = SideViewAim { max_expansions: Some(1), ..Default::default() };
                let got = planner.plan_aimed(&moves, &map, start, goal, &aim);
                assert_eq!(
                    got,
                    Err(SideViewError::LimitReached { expanded: 1 }),
                    "{}",
                    context("cap")
                );
                let aim =
                    SideViewAim { max_expansions: Some(1), partial: true, ..Default::default() };
                let got = planner.plan_aimed(&moves, &map, start, goal, &aim).unwrap();
                assert!(!got.complete && got.expanded == 1);
                // Weighted: never more than the weight times the fastest.
                let aim = SideViewAim { weight: 2.0, ..Default::default() };
                let got = planner.plan_aimed(&moves, &map, start, goal, &aim).unwrap();
                assert!(f64::from(got.duration) <= 2.0 * t + 1e-3, "{}", context("weighted"));
                capped += 1;
            }
        }
    }
    assert!(
        within > 40 && partial > 20 && capped > 20,
        "{within} within, {partial} partial, {capped} capped"
    );
    // Aims out of range are refused.
    let map = SideViewMap::from_rows(&["....", "####"]).unwrap();
    let moves = SideViewMoves::new(&map, JumpProfile::new(5.0, 1.0, 30.0)).unwrap();
    let (a, b) = (GridPos::new(0, 1), GridPos::new(3, 1));
    for aim in [
        SideViewAim { within: f32::NAN, ..Default::default() },
        SideViewAim { within: -1.0, ..Default::default() },
        SideViewAim { weight: 0.5, ..Default::default() },
        SideViewAim { weight: f64::NAN, ..Default::default() },
        SideViewAim { max_seconds: Some(f64::NAN), ..Default::default() },
    ] {
        let got = planner.plan_aimed(&moves, &map, a, b, &aim);
        assert!(matches!(got, Err(SideViewError::InvalidAim { .. })), "{aim:?}: {got:?}");
    }
}

#[test]
fn a_lower_jumper_takes_the_long_way_round() {
    let mut map = SideViewMap::from_rows(&[
        "............",
        "............",
        "......H.....",
        "......H#....",
        "......H#....",
        "......H#....",
        "......H#....",
        "############",
    ])
    .unwrap();
    let (start, goal) = (GridPos::new(0, 1), GridPos::new(10, 1));
    let high = SideViewMoves::new(&map, JumpProfile::new(6.0, 6.0, 40.0)).unwrap();
    let mut low = SideViewMoves::new(&map, JumpProfile::new(6.0, 1.0, 40.0)).unwrap();
    let over = high.plan(&map, start, goal).unwrap();
    let round = low.plan(&map, start, goal).unwrap();
    // The high jumper clears the wall; the low one climbs the ladder beside it.
    assert!(!over.legs.iter().any(|l| l.kind == LegKind::Climb), "{over:?}");
    assert!(over.legs.iter().any(|l| l.kind == LegKind::Jump), "{over:?}");
    assert!(round.legs.iter().any(|l| l.kind == LegKind::Climb), "{round:?}");
    assert!(round.duration > over.duration);
    check_path(&map, &high, &over, goal);
    check_path(&map, &low, &round, goal);
    // Without the ladder the low jumper cannot get over: no path, said so.
    let ladder: Vec<GridPos> = (1..=5).map(|y| GridPos::new(6, y)).collect();
    for &pos in &ladder {
        map.set(pos, SideTile::Empty).unwrap();
    }
    low.retile(&map, &ladder).unwrap();
    assert_eq!(low.plan(&map, start, goal), Err(SideViewError::Unreachable { start, goal }));
}

#[test]
fn moves_made_again_near_changed_tiles_equal_a_fresh_build() {
    let mut rng = Rng(0x51DE_0002);
    for _ in 0..12 {
        let (width, height) = (20 + rng.below(20) as usize, 10 + rng.below(10) as usize);
        let rows = random_level(&mut rng, width, height);
        let profile = random_profile(&mut rng);
        let mut map = map_of(&rows);
        let mut moves = SideViewMoves::new(&map, profile).unwrap();
        for _ in 0..6 {
            let changed: Vec<GridPos> = (0..1 + rng.below(3))
                .map(|_| GridPos::new(rng.below(width as u32), rng.below(height as u32)))
                .collect();
            for &pos in &changed {
                let tile = [SideTile::Empty, SideTile::Solid, SideTile::Ladder, SideTile::OneWay]
                    [rng.below(4) as usize];
                map.set(pos, tile).unwrap();
            }
            assert!(
                matches!(
                    moves.plan(&map, GridPos::new(0, 0), GridPos::new(0, 0)),
                    Err(SideViewError::MovesOutOfDate { .. }) | Err(SideViewError::InSolid { .. })
                ) || map.revision() == moves.revision()
            );
            moves.retile(&map, &changed).unwrap();
            let fresh = SideViewMoves::new(&map, profile).unwrap();
            for y in 0..height as u32 {
                for x in 0..width as u32 {
                    let pos = GridPos::new(x, y);
                    let (a, b): (Vec<_>, Vec<_>) =
                        (moves.moves_from(pos).collect(), fresh.moves_from(pos).collect());
                    assert_eq!(a, b, "moves from {pos:?} after {changed:?}\n{map:?}");
                    assert_eq!(moves.rests(pos), fresh.rests(pos));
                }
            }
        }
    }
}

#[test]
fn side_view_bad_input_is_refused_with_a_reason() {
    let map = SideViewMap::from_rows(&["....", "....", "..#.", "####"]).unwrap();
    let bad_numbers = [
        JumpProfile::new(6.0, 0.0, 40.0),
        JumpProfile::new(6.0, -1.0, 40.0),
        JumpProfile::new(6.0, f32::NAN, 40.0),
        JumpProfile::new(6.0, 1e9, 40.0),
        JumpProfile::new(6.0, f32::INFINITY, 40.0),
        JumpProfile::new(6.0, 2.0, 0.0),
        JumpProfile::new(6.0, 2.0, f32::NAN),
        JumpProfile::new(f32::NAN, 2.0, 40.0),
        JumpProfile::new(0.0, 2.0, 40.0),
        JumpProfile::new(6.0, 2.0, 40.0).with_climb_speed(-1.0),
        JumpProfile::new(6.0, 2.0, 40.0).with_body(0, 1),
        JumpProfile::from_jump_speed(6.0, f32::NAN, 40.0),
    ];
    for profile in bad_numbers {
        let error = SideViewMoves::new(&map, profile).unwrap_err();
        assert!(matches!(error, SideViewError::InvalidProfile { .. }), "{profile:?}: {error:?}");
        assert!(!error.to_string().is_empty());
    }
    let giant = JumpProfile::new(6.0, 2.0, 40.0).with_body(5, 1);
    assert_eq!(
        SideViewMoves::new(&map, giant).unwrap_err(),
        SideViewError::BodyTooLarge { body: (5, 1), map: (4, 4) }
    );
    let moves = SideViewMoves::new(&map, JumpProfile::new(6.0, 2.0, 40.0)).unwrap();
    let (floor, wall, air, off) =
        (GridPos::new(0, 1), GridPos::new(2, 1), GridPos::new(1, 2), GridPos::new(9, 0));
    let refused = [
        (off, floor, SideViewError::OffMap { pos: off, is_start: true }),
        (floor, off, SideViewError::OffMap { pos: off, is_start: false }),
        (wall, floor, SideViewError::InSolid { pos: wall, is_start: true }),
        (floor, air, SideViewError::NoFooting { pos: air, is_start: false }),
    ];
    for (start, goal, error) in refused {
        assert_eq!(moves.plan(&map, start, goal), Err(error));
    }
    assert!(moves.plan(&map, floor, GridPos::new(3, 1)).is_ok());
    // The map changed and the moves were not told: refused, and fine once retiled.
    let mut changed = map.clone();
    changed.set(GridPos::new(2, 1), SideTile::Empty).unwrap();
    assert!(matches!(
        moves.plan(&changed, floor, GridPos::new(3, 1)),
        Err(SideViewError::MovesOutOfDate { .. })
    ));
    let mut moves = moves;
    moves.retile(&changed, &[GridPos::new(2, 1)]).unwrap();
    assert!(moves.plan(&changed, floor, GridPos::new(2, 1)).is_ok());
    assert!(matches!(moves.retile(&changed, &[off]), Err(SideViewError::OutOfBounds { .. })));
    let other = SideViewMap::new(5, 4).unwrap();
    assert!(matches!(moves.plan(&other, floor, floor), Err(SideViewError::OtherMap { .. })));
    // Malformed maps.
    assert_eq!(
        SideViewMap::from_rows(&[]).unwrap_err(),
        SideViewError::BadSize { width: 0, height: 0 }
    );
    assert_eq!(
        SideViewMap::from_rows(&["..", "..."]).unwrap_err(),
        SideViewError::BadRow { line: 1 }
    );
    assert_eq!(
        SideViewMap::from_rows(&["..", ".x"]).unwrap_err(),
        SideViewError::BadChar { line: 1, column: 1, c: 'x' }
    );
    assert!(matches!(SideViewMap::new(100_000, 100_000), Err(SideViewError::BadSize { .. })));
    // A huge jump on a small map is planned (jumps are capped by the map), without panicking.
    let flea = SideViewMoves::new(&map, JumpProfile::new(1000.0, 256.0, 10000.0)).unwrap();
    assert!(flea.plan(&map, floor, GridPos::new(3, 1)).is_ok());
}

mod in_an_app {
    use bevy::prelude::*;
    use bevy_tilemap_nav::grid::GridPos;
    use bevy_tilemap_nav::plugin::{
        Arrived, PathFailed, PathRequest, SideViewAgent, SideViewLevel, SideViewRoute,
    };
    use bevy_tilemap_nav::side_view::{JumpProfile, SideTile, SideViewMap, SideViewMoves};

    use super::{map_of, random_level, random_profile};
    use crate::support::Rng;
    use crate::tilemap::{DT, WALL, messages, nav_app};

    const TILE: f32 = 16.0;

    fn spawn(app: &mut App, rows: &[String]) -> Entity {
        let level = SideViewLevel::new(map_of(rows), Vec2::splat(TILE));
        app.world_mut().spawn((level, Transform::default())).id()
    }

    fn corner(app: &App, level: Entity, agent: Entity) -> Vec2 {
        let profile = app.world().get::<SideViewAgent>(agent).unwrap().profile;
        let body = UVec2::new(profile.body_width, profile.body_height);
        let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
        app.world().get::<SideViewLevel>(level).unwrap().world_to_corner(Vec2::ZERO, at, body)
    }

    fn place(app: &mut App, level: Entity, profile: JumpProfile, at: GridPos) -> Entity {
        let body = UVec2::new(profile.body_width, profile.body_height);
        let world = app.world().get::<SideViewLevel>(level).unwrap().corner_to_world(
            Vec2::ZERO,
            [at.x as f32, at.y as f32],
            body,
        );
        app.world_mut()
            .spawn((SideViewAgent::new(profile), Transform::from_translation(world.extend(1.0))))
            .id()
    }

    /// Sets `pos` to `tile` on the level and on the test's copy of its tiles; true when it was
    /// another tile.
    fn set_both(
        app: &mut App,
        level: Entity,
        tiles: &mut SideViewMap,
        pos: GridPos,
        tile: SideTile,
    ) -> bool {
        let changed = tiles.tile(pos) != tile;
        tiles.set(pos, tile).unwrap();
        app.world_mut().get_mut::<SideViewLevel>(level).unwrap().set(pos, tile).unwrap();
        changed
    }

    fn inside_solid(app: &App, level: Entity, agent: Entity) -> bool {
        let profile = app.world().get::<SideViewAgent>(agent).unwrap().profile;
        let c = corner(app, level, agent);
        let map = app.world().get::<SideViewLevel>(level).unwrap().map();
        map.overlaps_solid([c.x, c.y], (profile.body_width, profile.body_height))
    }

    /// Random levels and characters: goals sent one after another (each reachable one is
    /// arrived at, exactly), then a long session of goals re-sent at any moment (mid-jump
    /// too), some every frame, and tiles set and cleared under and around the characters.
    /// Every frame, no character is inside a solid tile; at the end, with the tiles still, a
    /// last goal is reached.
    #[test]
    fn side_view_characters_arrive_and_never_enter_a_solid_tile() {
        let mut rng = Rng(0x51DE_0003);
        let (mut arrivals, mut failures, mut recoveries, mut cuts) = (0, 0, 0, 0);
        for _ in 0..5 {
            let mut app = nav_app(DT, WALL);
            let rows = random_level(&mut rng, 22, 12);
            let level = spawn(&mut app, &rows);
            let profile = random_profile(&mut rng);
            let map = map_of(&rows);
            let moves = SideViewMoves::new(&map, profile).unwrap();
            let rests: Vec<GridPos> = (0..12)
                .flat_map(|y| (0..22).map(move |x| GridPos::new(x, y)))
                .filter(|&p| moves.rests(p))
                .collect();
            let start = rests[rng.below(rests.len() as u32) as usize];
            let agent = place(&mut app, level, profile, start);
            app.update();
            let mut at = start;
            // Goals one after another.
            for _ in 0..6 {
                let goal = rests[rng.below(rests.len() as u32) as usize];
                let reachable = moves.plan(&map, at, goal).is_ok();
                app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
                let mut told = None;
                for _ in 0..2000 {
                    app.update();
                    assert!(!inside_solid(&app, level, agent));
                    if messages::<Arrived>(&app).iter().any(|a| a.entity == agent) {
                        told = Some(true);
                        break;
                    }
                    if messages::<PathFailed>(&app).iter().any(|f| f.entity == agent) {
                        told = Some(false);
                        break;
                    }
                }
                assert_eq!(told, Some(reachable), "{at:?} -> {goal:?}\n{}", rows.join("\n"));
                if reachable {
                    let c = corner(&app, level, agent);
                    assert!(
                        (c - Vec2::new(goal.x as f32, goal.y as f32)).length() < 1e-3,
                        "{c:?} {goal:?}"
                    );
                    at = goal;
                    arrivals += 1;
                } else {
                    failures += 1;
                }
            }
            // Goals at any moment, tiles changing.
            let mut tiles = app.world().get::<SideViewLevel>(level).unwrap().map().clone();
            for frame in 0..1500 {
                if rng.chance(3) || (frame % 300 < 40) {
                    let goal = rests[rng.below(rests.len() as u32) as usize];
                    app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
                }
                // A tile set right in the way of the move under way, now and then.
                let route = app.world().get::<SideViewRoute>(agent).filter(|_| rng.chance(2));
                let ahead = route.and_then(|r| {
                    let (leg, t) = r.leg_now()?;
                    Some(leg.position_at(t + 0.1f32.min((leg.duration - t) * 0.7)))
                });
                let ahead = ahead.map(|p| {
                    GridPos::new(
                        (p[0].round().max(0.0) as u32).min(21),
                        (p[1].round().max(1.0) as u32).min(11),
                    )
                });
                // And now and then on the character itself (standing or not): it is pushed out.
                if rng.chance(1) {
                    let c = corner(&app, level, agent).round();
                    let pos =
                        GridPos::new((c.x.max(0.0) as u32).min(21), (c.y.max(1.0) as u32).min(11));
                    recoveries +=
                        usize::from(set_both(&mut app, level, &mut tiles, pos, SideTile::Solid));
                }
                if let Some(pos) = ahead {
                    cuts +=
                        usize::from(set_both(&mut app, level, &mut tiles, pos, SideTile::Solid));
                }
                if rng.chance(2) {
                    let pos = GridPos::new(rng.below(22), 1 + rng.below(11));
                    let tile = if tiles.tile(pos) == SideTile::Solid {
                        SideTile::Empty
                    } else {
                        SideTile::Solid
                    };
                    set_both(&mut app, level, &mut tiles, pos, tile);
                }
                app.update();
                if inside_solid(&app, level, agent) {
                    let route = app.world().get::<SideViewRoute>(agent);
                    panic!(
                        "frame {frame}: inside a solid tile at {:?}, leg {:?}\n{:?}\n{:?}",
                        corner(&app, level, agent),
                        route.and_then(|r| r.leg_now()),
                        route.map(|r| (&r.path.stops, r.clock)),
                        app.world().get::<SideViewLevel>(level).unwrap().map()
                    );
                }
                let c = corner(&app, level, agent);
                assert!(c.x.is_finite() && c.y.is_finite());
            }
            // Still tiles: one more goal it can reach from where it ends up.
            for _ in 0..200 {
                app.update();
            }
            let moves = SideViewMoves::new(&tiles, profile).unwrap();
            let c = corner(&app, level, agent).round();
            let here = GridPos::new(c.x as u32, c.y as u32);
            if app.world().get::<SideViewRoute>(agent).is_none() && moves.rests(here) {
                let goal = rests
                    .iter()
                    .copied()
                    .find(|&g| g != here && moves.plan(&tiles, here, g).is_ok());
                if let Some(goal) = goal {
                    app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
                    let arrived = (0..2000).any(|_| {
                        app.update();
                        messages::<Arrived>(&app).iter().any(|a| a.entity == agent)
                    });
                    assert!(arrived, "{here:?} -> {goal:?}");
                }
            }
        }
        assert!(
            arrivals >= 10 && recoveries >= 3 && cuts >= 20,
            "{arrivals} arrivals, {failures} failures, {recoveries} tiles set on a character, {cuts} moves cut"
        );
    }

    /// Frames until `agent` is told something (arrived or failed), at most `frames`.
    fn until_told(app: &mut App, agent: Entity, frames: usize) -> (Vec<Arrived>, Vec<PathFailed>) {
        let (mut arrived, mut failed) = (Vec::new(), Vec::new());
        for _ in 0..frames {
            app.update();
            arrived.extend(messages::<Arrived>(app).into_iter().filter(|a| a.entity == agent));
            failed.extend(messages::<PathFailed>(app).into_iter().filter(|f| f.entity == agent));
            if !arrived.is_empty() || !failed.is_empty() {
                break;
            }
        }
        (arrived, failed)
    }

    /// A request's arrival, search options and waiting work on a side-view level as on
    /// others: stopping within a distance or in sight, a partial path to the nearest place,
    /// failing, and waiting (told once) behind a wall until it opens; the plugin's own re-plan
    /// waits too when a wall shuts mid-walk.
    #[test]
    fn side_view_requests_read_arrival_options_and_waiting() {
        use bevy_tilemap_nav::plugin::{Arrival, NavError};
        use bevy_tilemap_nav::search::SearchOptions;
        use bevy_tilemap_nav::side_view::SideViewError;
        let rows: Vec<String> = [
            "..............",
            "..............",
            ".......#......",
            ".......#......",
            ".......#......",
            ".......#......",
            "##############",
        ]
        .map(String::from)
        .into();
        let mut app = nav_app(DT, WALL);
        let level = spawn(&mut app, &rows);
        let profile = JumpProfile::new(6.0, 2.0, 40.0);
        let agent = place(&mut app, level, profile, GridPos::new(1, 1));
        let tile_at = |app: &App| {
            let c = corner(app, level, agent).round();
            GridPos::new(c.x as u32, c.y as u32)
        };
        // Within two tiles of (6, 1): stops at (4, 1).
        let near = PathRequest::to(GridPos::new(6, 1)).with_arrival(Arrival::Within(2.0 * TILE));
        app.world_mut().entity_mut(agent).insert(near);
        let (arrived, _) = until_told(&mut app, agent, 300);
        assert_eq!(arrived.len(), 1);
        assert_eq!((arrived[0].cell, arrived[0].reached_goal), (GridPos::new(4, 1), true));
        assert_eq!(arrived[0].by, Arrival::Within(2.0 * TILE));
        assert_eq!(tile_at(&app), GridPos::new(4, 1));
        // In sight of (10, 1), within 5 tiles: the places this side that near it have the wall
        // across their line, and the far side is out of reach: it fails.
        let sight = PathRequest::to(GridPos::new(10, 1))
            .with_arrival(Arrival::InSight { distance: 5.0 * TILE });
        app.world_mut().entity_mut(agent).insert(sight);
        let (arrived, failed) = until_told(&mut app, agent, 300);
        assert!(arrived.is_empty());
        assert!(
            matches!(failed[0].error, NavError::SideView(SideViewError::Unreachable { .. })),
            "{failed:?}"
        );
        assert!(app.world().get::<PathRequest>(agent).is_none());
        // Partial: to the place nearest the goal behind the wall, (6, 1).
        let options = SearchOptions { partial: true, ..Default::default() };
        let partial =
            PathRequest { options: Some(options), ..PathRequest::to(GridPos::new(12, 1)) };
        app.world_mut().entity_mut(agent).insert(partial);
        let (arrived, _) = until_told(&mut app, agent, 300);
        assert_eq!((arrived[0].cell, arrived[0].reached_goal), (GridPos::new(6, 1), false));
        // Waiting for a way: told once, the request kept; the wall opens and it goes.
        app.world_mut()
            .entity_mut(agent)
            .insert(PathRequest::to(GridPos::new(12, 1)).waiting_for_a_way());
        let mut told = 0;
        for _ in 0..120 {
            app.update();
            told += messages::<PathFailed>(&app).iter().filter(|f| f.entity == agent).count();
        }
        assert_eq!(told, 1);
        assert!(app.world().get::<PathRequest>(agent).is_some());
        assert!(app.world().get::<PathFailed>(agent).is_some());
        let mut tiles = map_of(&rows);
        for y in 1..=4 {
            set_both(&mut app, level, &mut tiles, GridPos::new(7, y), SideTile::Empty);
        }
        let (arrived, failed) = until_told(&mut app, agent, 600);
        assert!(failed.is_empty(), "{failed:?}");
        assert_eq!(arrived[0].cell, GridPos::new(12, 1));
        assert!(app.world().get::<PathFailed>(agent).is_none());
        assert!(app.world().get::<PathRequest>(agent).is_none());
        // Back the other way; the wall shuts before it gets there: it stops, told, and waits;
        // the wall opens again and it walks on to the goal.
        app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(1, 1)));
        for _ in 0..10 {
            app.update();
        }
        assert!(tile_at(&app).x > 8, "{:?}", tile_at(&app));
        for y in 1..=4 {
            set_both(&mut app, level, &mut tiles, GridPos::new(7, y), SideTile::Solid);
        }
        let (arrived, failed) = until_told(&mut app, agent, 300);
        assert!(arrived.is_empty() && failed.len() == 1, "{arrived:?} {failed:?}");
        for _ in 0..60 {
            app.update();
            assert!(
                messages::<PathFailed>(&app).is_empty() && messages::<Arrived>(&app).is_empty()
            );
        }
        assert!(tile_at(&app).x >= 8);
        for y in 1..=4 {
            set_both(&mut app, level, &mut tiles, GridPos::new(7, y), SideTile::Empty);
        }
        let (arrived, failed) = until_told(&mut app, agent, 600);
        assert!(failed.is_empty(), "{failed:?}");
        assert_eq!(arrived[0].cell, GridPos::new(1, 1));
    }
}

/// A route edited by hand into one that cannot be walked, and tiles set off the level: told,
/// nothing panics.
#[test]
fn hand_made_side_view_routes_and_tiles_off_the_level_are_refused() {
    use bevy::prelude::*;
    use bevy_tilemap_nav::plugin::{
        NavError, PathFailed, PathGoal, PathRequest, SideViewAgent, SideViewLevel, SideViewRoute,
    };

    use crate::tilemap::{DT, WALL, messages, nav_app};

    let mut app = nav_app(DT, WALL);
    let map = SideViewMap::from_rows(&["........", "........", "########"]).unwrap();
    let level = app
        .world_mut()
        .spawn((SideViewLevel::new(map, Vec2::splat(16.0)), Transform::default()))
        .id();
    let agent = app
        .world_mut()
        .spawn((
            SideViewAgent::new(JumpProfile::new(6.0, 1.0, 40.0)),
            Transform::from_xyz(0.0, 16.0, 1.0),
            PathRequest::to(GridPos::new(7, 1)),
        ))
        .id();
    for _ in 0..5 {
        app.update();
    }
    for edit in 0..3 {
        let failed = app.world().get::<PathFailed>(agent).cloned();
        let mut route = app
            .world_mut()
            .get_mut::<SideViewRoute>(agent)
            .unwrap_or_else(|| panic!("walking at edit {edit}: {failed:?}"));
        match edit {
            0 => route.path.arrivals.clear(),
            1 => route.path.stops.clear(),
            _ => route.path.legs[0].duration = f32::NAN,
        }
        app.update();
        let told = messages::<PathFailed>(&app);
        assert!(
            told.iter().any(|f| f.entity == agent && f.error == NavError::MalformedPath),
            "{told:?}"
        );
        assert!(app.world().get::<SideViewRoute>(agent).is_none());
        app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(7, 1)));
        app.update();
    }
    // A character at NaN, one sent to NaN, one with no Transform: told why, no panic.
    let lost = [
        (Some(Vec3::NAN), PathRequest::to(GridPos::new(7, 1))),
        (Some(Vec3::new(0.0, 16.0, 1.0)), PathRequest::to(PathGoal::World(Vec2::NAN))),
        (None, PathRequest::to(GridPos::new(7, 1))),
    ];
    for (at, request) in lost {
        let mut spawned =
            app.world_mut().spawn((SideViewAgent::new(JumpProfile::new(6.0, 1.0, 40.0)), request));
        if let Some(at) = at {
            spawned.insert(Transform::from_translation(at));
        }
        let entity = spawned.id();
        app.update();
        let told = messages::<PathFailed>(&app);
        assert!(told.iter().any(|f| f.entity == entity), "{at:?}: {told:?}");
    }
    let mut level = app.world_mut().get_mut::<SideViewLevel>(level).unwrap();
    assert!(matches!(
        level.set(GridPos::new(8, 0), SideTile::Solid),
        Err(SideViewError::OutOfBounds { .. })
    ));
}

mod on_a_tilemap {
    use bevy::prelude::*;
    use bevy_ecs_tilemap::prelude::*;
    use bevy_tilemap_nav::grid::GridPos;
    use bevy_tilemap_nav::plugin::{
        Arrived, NavTilemap, PathRequest, SideViewAgent, SideViewLevel, SideViewRules,
        SideViewTilemap,
    };
    use bevy_tilemap_nav::side_view::{JumpProfile, SideTile};

    use crate::tilemap::{DT, WALL, messages, nav_app, spawn_text_tilemap};

    const LADDER: u32 = 7;

    /// A tilemap marked `SideViewTilemap` becomes a level with its textures' tiles (where it
    /// lies, anchor and all), follows a texture change, and a character walks it.
    #[test]
    fn a_side_view_tilemap_is_a_level_that_follows_its_textures() {
        let mut app = nav_app(DT, WALL);
        app.insert_resource(
            SideViewRules::default().with(WALL, SideTile::Solid).with(LADDER, SideTile::Ladder),
        );
        let rows = ["........", "......H.", "..#...H.", "########"];
        let texture = |c| match c {
            '#' => Some(WALL),
            'H' => Some(LADDER),
            _ => None,
        };
        let at = Vec2::new(100.0, -50.0);
        let tilemap = spawn_text_tilemap(&mut app, &rows, 16.0, at, texture);
        app.world_mut().entity_mut(tilemap).remove::<NavTilemap>().insert(SideViewTilemap);
        app.update();
        let level = app.world().get::<SideViewLevel>(tilemap).expect("a level on the tilemap");
        assert_eq!(level.map().tile(GridPos::new(2, 1)), SideTile::Solid);
        assert_eq!(level.map().tile(GridPos::new(6, 2)), SideTile::Ladder);
        assert_eq!(level.map().tile(GridPos::new(3, 1)), SideTile::Empty);
        // Tile (0, 0)'s centre is where bevy_ecs_tilemap draws it.
        let centre = level.corner_to_world(at, [0.0, 0.0], UVec2::ONE);
        assert!((centre - at).length() < 1e-3, "{centre:?}");
        // A texture change: the block at (2, 1) goes.
        let block =
            app.world().get::<TileStorage>(tilemap).unwrap().get(&TilePos { x: 2, y: 1 }).unwrap();
        app.world_mut().entity_mut(block).insert(TileTextureIndex(0));
        app.update();
        let level = app.world().get::<SideViewLevel>(tilemap).unwrap();
        assert_eq!(level.map().tile(GridPos::new(2, 1)), SideTile::Empty);
        // A character walks to the top of the ladder.
        let world = level.corner_to_world(at, [0.0, 1.0], UVec2::ONE);
        let agent = app
            .world_mut()
            .spawn((
                SideViewAgent::new(JumpProfile::new(6.0, 1.0, 40.0)),
                Transform::from_translation(world.extend(1.0)),
                PathRequest::to(GridPos::new(6, 3)),
            ))
            .id();
        let arrived = (0..600).any(|_| {
            app.update();
            messages::<Arrived>(&app)
                .iter()
                .any(|a| a.entity == agent && a.cell == GridPos::new(6, 3))
        });
        assert!(arrived);
    }
}
