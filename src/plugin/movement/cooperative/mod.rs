//! Cooperative moves for grid-locked agents ([`Cooperative`]): when one of a map's cooperative
//! agents gets a new path, the plugin plans all of them that are walking on that map together
//! in space and time ([`PlanTogether`], over frames within the search budget, the agents
//! standing meanwhile), writes each plan into its agent's `NavPath`, and
//! keeps the order in which they take each cell ([`CellTurns`]) for the grid-locked walk to
//! ask before it steps ([`CooperativePlans::may_enter`]). Below `gridlock`, over `walkers`.

use std::collections::{HashMap, HashSet};

use bevy::prelude::*;

use super::walkers::{GridLocked, Yielding};
use crate::grid::{Cell, GridPos, NavGrid};
use crate::plugin::AgentKind;
use crate::plugin::agent::{NavPath, PathFollower, PathRequest, Replanning};
use crate::plugin::map::{NavMap, NavMaps};
use crate::search::{CellTurns, CooperativeError, PlanTogether, footprint};

use paths::{free_goal, write_path};

mod paths;

/// Put on a [`GridLocked`] agent (it brings one) to have it plan its moves together with the
/// map's other cooperative agents: when any of them gets a new path, every cooperative agent
/// walking on that map (a plain, one-tile agent with a path on the map it stands on, no links)
/// is planned again, cell by cell in time, so that none waits on another for ever. Two meeting
/// in a one-wide corridor pass where there is a pocket, agents swapping places or converging
/// on one room file past each other, and they never share a cell (the grid-locked walk still
/// checks that).
///
/// What the plan does, and what it leaves:
/// - Each agent walks its own plan at its own speed: one may be faster, another held up; it
///   steps into a cell only when its turn there has come (everyone planned there before it has
///   left), so the plans are kept whatever the speeds.
/// - Grid-locked agents standing (no path and no request, or a speed of 0 or not a number)
///   are cells to plan round. Agents walking outside the plan (waiting for an answer, without `Cooperative`, of
///   another kind: a profile or a size above one) are not: they move on, the grid-locked walk
///   keeps everyone apart, and a planned agent they hold up for long plans again.
/// - Two agents sent to one cell: the later (by entity; one stepping aside to let another by
///   after every other) is given the nearest free cell instead
///   (its [`Arrived`](crate::plugin::Arrived) says it did not reach its goal). An agent the
///   plan cannot take (no way to its goal round the others, or someone standing on its goal)
///   walks its own path plainly, waiting as a grid-locked agent does.
/// - The plan covers up to [`MAX_COOPERATIVE`] agents a map, planned one after another; a plan
///   of `n` agents costs about `n` searches of cells x time on the map: a tactics-sized map
///   with hundreds of units, not a big world with thousands.
/// - A plan is made over as many frames as it needs within the frame's search budget
///   ([`WorkShares::searches`](crate::plugin::WorkShares::searches), shared with the path
///   searches; a frame does at least one agent's search). Meanwhile its agents stand: each
///   finishes the step it is in, then waits on that cell. One that leaves meanwhile
///   (despawned, stopped, sent to another goal) is left out of the plan; one given a path
///   meanwhile walks plainly until the plan is made, and the map is then planned again.
/// - With [`NavSettings::cooperative_window`](crate::plugin::NavSettings::cooperative_window)
///   set, a map's agents are planned a window of steps at a time: they set off once the first
///   window is made and walk while the next ones are. One that comes to the end of what it has
///   been given waits there for the rest (it has not arrived); one re-targeted meanwhile has the
///   map planned again from where its agents stand.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component)]
#[require(GridLocked)]
pub struct Cooperative;

/// The most agents of one map planned together; the rest walk plainly.
pub const MAX_COOPERATIVE: usize = 512;

/// The cooperative plans in play, a map each (kept in the `PathIndexes` resource).
#[derive(Default)]
pub(crate) struct CooperativePlans {
    maps: HashMap<Entity, MapPlan>,
    /// Maps to plan again, and the frames each has waited for its agents' answers.
    due: HashMap<Entity, u32>,
    /// Maps being planned, a slice a frame: their agents in the plan stand meanwhile.
    planning: HashMap<Entity, Planning>,
}

/// One map's plan: its units, the cells each walks, and whose turn it is in each cell.
#[derive(Default)]
struct MapPlan {
    turns: CellTurns,
    units: HashMap<Entity, Unit>,
    /// Windowed: more of the plan is on its way (a unit at the end of what it has waits for
    /// it there, and has not arrived).
    to_come: bool,
}

/// One agent's part of a plan.
struct Unit {
    /// Its index in the turns.
    index: usize,
    /// The cells it walks, one step each (its start first): its `NavPath`'s.
    cells: Vec<GridPos>,
    /// The cell the plan takes it to (a windowed plan's cells may end short of it).
    goal: GridPos,
}

impl CooperativePlans {
    /// Each map's reserved cells: the cells its plan has turns still to come in, and how many
    /// ([`CellTurns::reserved`](crate::search::CellTurns::reserved)).
    pub(crate) fn reserved(&self) -> impl Iterator<Item = (Entity, GridPos, usize)> + '_ {
        self.maps
            .iter()
            .flat_map(|(&map, plan)| plan.turns.reserved().map(move |(c, n)| (map, c, n)))
    }

    fn unit(&self, map: Entity, entity: Entity) -> Option<(&MapPlan, &Unit)> {
        let plan = self.maps.get(&map)?;
        Some((plan, plan.units.get(&entity)?))
    }

    /// Whether `entity` walks a plan on `map`.
    pub(crate) fn planned(&self, map: Entity, entity: Entity) -> bool {
        self.unit(map, entity).is_some()
    }

    /// Whether `entity` may step into `cell` of `map`: it walks no plan there, or its turn in
    /// that cell has come.
    pub(crate) fn may_enter(&self, map: Entity, entity: Entity, cell: GridPos) -> bool {
        self.unit(map, entity).is_none_or(|(plan, unit)| plan.turns.may_enter(unit.index, cell))
    }

    /// Whether `entity` stands on `map` while a plan it is in is made (it finishes the step it
    /// is in, and then waits).
    pub(crate) fn being_planned(&self, map: Entity, entity: Entity) -> bool {
        self.planning.get(&map).is_some_and(|p| p.standing.contains(&entity))
    }

    /// Whether `entity`, at the end of its path on `map`, waits there for more of a windowed
    /// plan (the next window of the one it walks, or of one being made again that it stands
    /// for) rather than arrive.
    pub(crate) fn holds_back(&self, map: Entity, entity: Entity) -> bool {
        self.unit(map, entity).is_some_and(|(plan, _)| plan.to_come)
            || self
                .planning
                .get(&map)
                .is_some_and(|p| p.window.is_some() && p.standing.contains(&entity))
    }

    /// `entity` stepped out of `from` (wholly into the next cell): the next unit's turn there.
    pub(crate) fn left(&mut self, map: Entity, entity: Entity, from: GridPos) {
        if let Some(plan) = self.maps.get_mut(&map)
            && let Some(unit) = plan.units.get(&entity)
        {
            plan.turns.left(unit.index, from);
        }
    }

    /// Has `map` planned again (once its agents' answers are in).
    pub(crate) fn plan_again(&mut self, map: Entity) {
        self.due.entry(map).or_insert(0);
    }

    /// Takes `entity` out of its map's plan: its turns go, those after it move up.
    fn forget(&mut self, map: Entity, entity: Entity) {
        if let Some(plan) = self.maps.get_mut(&map)
            && let Some(unit) = plan.units.remove(&entity)
        {
            plan.turns.forget(unit.index);
        }
    }
}

/// What the planner reads of a cooperative agent.
type CooperativeAgent<'a> = (
    Entity,
    &'a GridLocked,
    Option<Mut<'a, NavPath>>,
    Option<Mut<'a, PathFollower>>,
    bool,
    bool,
    bool,
);

/// The cooperative agents.
pub(crate) type CooperativeAgents<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static GridLocked,
        Option<&'static mut NavPath>,
        Option<&'static mut PathFollower>,
        Has<PathRequest>,
        Has<Replanning>,
        Has<Yielding>,
    ),
    With<Cooperative>,
>;

/// The cells a grid-locked agent holds, as the planner sees them: its map and the lowest corner
/// of its body, the corner it steps into, and its size.
type Held = (Option<(Entity, GridPos)>, Option<GridPos>, u32);

/// The grid-locked agents without [`Cooperative`] standing with no path nor request.
pub(crate) type OthersStanding<'w, 's> = Query<
    'w,
    's,
    &'static GridLocked,
    (Without<Cooperative>, Without<NavPath>, Without<PathRequest>),
>;

/// One agent as the planner sees it this frame.
#[derive(Clone, Debug)]
struct Seen {
    entity: Entity,
    /// The map and cell it holds, and the one it is entering (the lowest corners of its body,
    /// `size` across).
    holds: Option<(Entity, GridPos)>,
    entering: Option<GridPos>,
    size: u32,
    /// Its path's last cell (the goal it asked for), whether the path is new this frame (or
    /// changed by someone other than the planner), and whether it is the plan it was given.
    path: Option<SeenPath>,
    /// It walks a path it may be planned on: plain, on the map it holds, no links, a speed.
    fit: bool,
    /// A request for it waits to be answered (or it waits for a plan of its own).
    pending: bool,
    /// It stands: no path and no request, or no speed to walk one.
    stopped: bool,
    /// It steps aside to let another by (its goal is any free cell off the way).
    yielding: bool,
}

/// What the planner reads of a cooperative agent's path.
#[derive(Clone, Copy, Debug)]
struct SeenPath {
    last: GridPos,
    /// The goal it was asked for (its last cell may be short of it; a path standing for a
    /// re-plan keeps it).
    goal: GridPos,
    changed: bool,
    /// It is the plan the agent walks (false: not planned, or given another path).
    on_plan: bool,
}

impl Seen {
    /// Reads an agent; `plans` says whether its path is the plan it was given (its cells are
    /// compared only when the path changed since last frame).
    fn read(item: &CooperativeAgent, plans: &CooperativePlans) -> Self {
        let (entity, lock, path, follower, requested, replanning, yielding) = item;
        let holds = lock.holds;
        let moving = follower.as_ref().is_some_and(|f| f.speed.is_finite() && f.speed > 0.0);
        let fit = path.as_ref().is_some_and(|path| {
            path.agent == AgentKind::PLAIN
                && path.legs.is_empty()
                && path.goal_map == path.map
                && holds.is_some_and(|(m, _)| m == path.map)
        }) && moving;
        let pending = *requested || *replanning;
        let stopped = (path.is_none() && !pending) || !moving;
        let path = path.as_ref().and_then(|p| {
            let planned = holds.and_then(|(map, _)| plans.unit(map, *entity)).map(|(_, u)| u);
            let changed = p.is_changed();
            let on_plan = planned.is_some_and(|u| !changed || u.cells == p.cells);
            // Walking a plan: the cell it takes it to, wherever its cells end.
            let last =
                planned.filter(|_| on_plan).map_or(p.cells.last().copied(), |u| Some(u.goal));
            Some(SeenPath { last: last?, goal: p.goal, changed, on_plan })
        });
        let yielding = *yielding;
        Self {
            entity: *entity,
            holds,
            entering: lock.entering,
            size: lock.size,
            path,
            fit,
            pending,
            stopped,
            yielding,
        }
    }

    /// It may be planned now: it walks a path it may be planned on, and waits for no answer.
    fn walker(&self) -> Option<SeenPath> {
        self.path.filter(|_| self.fit && !self.pending)
    }

    /// The map it holds a cell of.
    fn map(&self) -> Option<Entity> {
        self.holds.map(|(m, _)| m)
    }

    /// The cell its plan starts from: the one it is stepping into, else the one it holds.
    fn start(&self) -> Option<GridPos> {
        self.holds.map(|(_, cell)| self.entering.unwrap_or(cell))
    }
}

/// How many frames a map due to be planned waits for the answers to its cooperative agents'
/// requests still in the queue (a group's requests answered over a few frames are planned
/// once, together).
const MAX_BATCH_FRAMES: u32 = 8;

/// Plans the cooperative agents of each map together when one of them has a new path: gathers
/// them, keeps the plans in play up to date ([`keep_plans`]), begins a plan of the maps that
/// need it ([`Planning::begin`]) once their agents' requests are answered, goes on with the
/// plans under way for about `cells` cells (or until `out_of_time`; at least a unit's search
/// each), and writes the plans made into the agents' paths. Returns the cells looked at.
pub(crate) fn plan_together_in_play(
    maps: &NavMaps,
    plans: &mut CooperativePlans,
    (agents, others): (&mut CooperativeAgents, &OthersStanding),
    (cells, window): (u64, Option<u32>),
    out_of_time: &dyn Fn() -> bool,
) -> u64 {
    let seen: Vec<Seen> = agents.iter_mut().map(|item| Seen::read(&item, plans)).collect();
    if seen.is_empty() && plans.maps.is_empty() && plans.planning.is_empty() {
        return 0;
    }
    let by_entity: HashMap<Entity, &Seen> = seen.iter().map(|s| (s.entity, s)).collect();
    for map in keep_plans(plans, &seen, &by_entity) {
        plans.due.entry(map).or_insert(0);
    }
    for planning in plans.planning.values_mut() {
        planning.let_go(&by_entity);
    }
    let mut ready: Vec<Entity> = Vec::new();
    for (&map, waited) in plans.due.iter_mut() {
        let pending = seen.iter().any(|s| s.pending && s.map() == Some(map));
        *waited += 1;
        // A map being planned is planned again once that plan is made (a windowed one whose
        // units walk already: at once, from where they are).
        let busy = plans.planning.get(&map).is_some_and(|p| p.kept == 0);
        if (!pending || *waited > MAX_BATCH_FRAMES) && !busy {
            ready.push(map);
        }
    }
    for map_entity in ready {
        plans.due.remove(&map_entity);
        // Its plan in play goes: those in the new one stand until it is made, the rest walk
        // plainly.
        plans.maps.remove(&map_entity);
        if let Some(map) = maps.get(map_entity) {
            let standing = others.iter().map(|l| (l.holds, l.entering, l.size));
            let planning = Planning::begin(map, &seen, standing, window);
            plans.planning.insert(map_entity, planning);
        }
    }
    let mut under_way: Vec<Entity> = plans.planning.keys().copied().collect();
    under_way.sort_unstable();
    let mut looked = 0;
    for map_entity in under_way {
        let Some(map) = maps.get(map_entity) else {
            plans.planning.remove(&map_entity);
            continue;
        };
        let Some(planning) = plans.planning.get_mut(&map_entity) else { continue };
        let before = planning.work();
        let made = planning.step(cells.saturating_sub(looked), out_of_time);
        looked += planning.work() - before;
        let Some(release) = made else { continue };
        if release.from > 0 {
            // A later window of a plan its units walk already (or given up once they walk).
            let (from, kept, last) = (release.from, release.kept, release.last);
            // (Checked before the plan in play takes it, from where it goes on: the ways walked
            // already may cross a wall built since.)
            let crossed = release.plans.as_ref().is_some_and(|w| {
                let new_part = w.iter().map(|p| &p[(from as usize).min(p.len() - 1)..]);
                planning.crosses_a_change(map, new_part)
            });
            planning.kept = kept;
            let windows = release.plans.as_deref().filter(|_| !crossed);
            let written = windows.and_then(|w| next_window(plans, map_entity, (w, from), last));
            match written {
                Some(written) => {
                    write_paths(map, agents, written, false);
                    if last {
                        plans.planning.remove(&map_entity);
                    }
                }
                // Given up, the units all gone, or the grid changed under it: planned again
                // from where they are (they wait at the ends of their paths meanwhile).
                _ => {
                    plans.planning.remove(&map_entity);
                    plans.due.entry(map_entity).or_insert(0);
                }
            }
            continue;
        }
        let Some((mut plan, written)) = release.plans.map(|p| planning.made(p)) else {
            plans.planning.remove(&map_entity);
            continue;
        };
        // The grid changed under it, and a path of it crosses a new wall: begun again on the
        // grid as it is now (a few times at most: a door that opens and shuts for ever does
        // not keep the agents standing; past that, the walk plans round a wall it meets).
        let crosses = planning.crosses_a_change(map, written.iter().map(|(_, c)| c.as_slice()));
        if planning.restarts < MAX_RESTARTS && crosses {
            let standing = others.iter().map(|l| (l.holds, l.entering, l.size));
            let again = planning.again(map, (&seen, &by_entity), standing);
            *planning = again;
            continue;
        }
        plan.to_come = !release.last;
        if release.last {
            plans.planning.remove(&map_entity);
        } else {
            // Its units walk the first window while the next is made.
            planning.kept = release.kept;
            planning.standing.clear();
        }
        write_paths(map, agents, written, true);
        plans.maps.insert(map_entity, plan);
    }
    looked
}

/// Writes each agent's cells into its path (`from_start`: it walks it from its first cell;
/// else it goes on where it is: a later window lengthens the path it walks).
fn write_paths(
    map: &NavMap,
    agents: &mut CooperativeAgents,
    written: Vec<(Entity, Vec<GridPos>)>,
    from_start: bool,
) {
    for (entity, cells) in written {
        if let Ok((_, _, Some(mut path), Some(mut follower), ..)) = agents.get_mut(entity) {
            write_path(map, &mut path, &cells);
            if from_start {
                follower.next = 0;
            }
        }
    }
}

/// A later window of `map`'s plan (each unit's cell at every tick from the plan's start; the
/// ticks up to `from` given before) goes into the plan in play: the new turns, and the path
/// cells of each agent still in it (`None`: nobody is).
fn next_window(
    plans: &mut CooperativePlans,
    map: Entity,
    (windows, from): (&[Vec<GridPos>], u32),
    last: bool,
) -> Option<Vec<(Entity, Vec<GridPos>)>> {
    let plan = plans.maps.get_mut(&map)?;
    // (The units that left the plan have no turns, and get none.)
    let still: HashSet<usize> = plan.units.values().map(|u| u.index).collect();
    plan.turns.extend_for(windows, from as usize, |i| still.contains(&i));
    plan.to_come = !last;
    let mut written = Vec::new();
    for (&entity, unit) in plan.units.iter_mut() {
        unit.cells = path_cells(windows.get(unit.index)?);
        written.push((entity, unit.cells.clone()));
    }
    Some(written)
}

/// Brings the plans in play up to date with what the agents are doing: a planned agent gone,
/// stopped, slowed to a standstill, or given another path leaves its plan. (A request asked
/// again for the same goal, as a game may every frame, is answered by the path being walked:
/// the plan goes on.) Returns the maps to plan again: where a cooperative agent walks a path
/// the plan has not seen.
fn keep_plans(
    plans: &mut CooperativePlans,
    seen: &[Seen],
    by_entity: &HashMap<Entity, &Seen>,
) -> Vec<Entity> {
    let mut gone = Vec::new();
    for (&map, plan) in plans.maps.iter() {
        for &entity in plan.units.keys() {
            let agent = by_entity.get(&entity).filter(|a| a.fit && a.map() == Some(map));
            // Still walking its plan (an answer on its way or not)?
            if !agent.and_then(|a| a.path).is_some_and(|p| p.on_plan) {
                gone.push((map, entity));
            }
        }
    }
    for (map, entity) in gone {
        plans.forget(map, entity);
    }
    plans.maps.retain(|_, plan| !plan.units.is_empty());
    let planning = |m: Entity, e: Entity| plans.being_planned(m, e);
    seen.iter()
        .filter(|s| s.walker().is_some_and(|p| p.changed))
        .filter_map(|s| s.map().filter(|&m| !plans.planned(m, s.entity) && !planning(m, s.entity)))
        .collect()
}

/// A plan of one map's cooperative walkers under way, made a slice a frame. They stand on
/// their starts meanwhile; one that leaves (despawned, stopped, moved, sent elsewhere) is left
/// out of the plan when it is made.
struct Planning {
    /// The grid planned on: the map's, with everyone the plan goes round blocked.
    grid: NavGrid,
    /// The units in the plan: each agent, its start, the goal it asked for and the goal it
    /// is given (the nearest free cell when another has the one it asked for).
    units: Vec<PlannedUnit>,
    /// The agents in the plan that still stand for it.
    standing: HashSet<Entity>,
    /// The plan being made (`None`: given up: the agents walk plainly).
    planner: Option<PlanTogether>,
    /// Units dropped so far (each one the plan could not take), and the cells looked at by the
    /// planners before this one.
    dropped: usize,
    work: u64,
    /// The map's grid's revision when the plan began, and how many times it was begun again
    /// because the grid changed under it.
    revision: u64,
    restarts: u32,
    /// Windowed: how many ticks each unit's search looks ahead, and the ticks of the plan
    /// given to the agents so far (0: none yet, they stand).
    window: Option<u32>,
    kept: u32,
}

/// What a plan under way gives: each unit's cell at every tick from the plan's start up to
/// tick `kept` (`None`: the plan was given up, and its agents walk plainly), of which those
/// up to `from` were given before; `last`: it is the whole plan.
struct Release {
    plans: Option<Vec<Vec<GridPos>>>,
    from: u32,
    kept: u32,
    last: bool,
}

/// How many times a plan is begun again because the grid changed under it while it was made.
const MAX_RESTARTS: u32 = 3;

/// A map's plan once made, and the path cells it gives each of its agents.
type Made = (MapPlan, Vec<(Entity, Vec<GridPos>)>);

/// One agent in a plan under way.
#[derive(Clone, Copy, Debug)]
struct PlannedUnit {
    entity: Entity,
    start: GridPos,
    asked: Asked,
    goal: GridPos,
}

/// What an agent in a plan asked for: the last cell of the path it was given (the cell the
/// plan takes it to, or the nearest free one), and the goal it was asked for (a path asked
/// again for it keeps the agent in the plan).
#[derive(Clone, Copy, Debug)]
struct Asked {
    cell: GridPos,
    goal: GridPos,
}

impl Planning {
    /// A plan of `map`'s cooperative walkers together round the agents standing (those `seen`
    /// with no path or no speed, and the grid-locked `standing` without `Cooperative`; not
    /// those about to be given a path). Agents walking without a plan (an answer on its way,
    /// or not cooperative) are not planned round: they move on, and the grid-locked walk keeps
    /// them apart.
    fn begin(
        map: &NavMap,
        seen: &[Seen],
        standing: impl Iterator<Item = Held>,
        window: Option<u32>,
    ) -> Self {
        let walkers = seen
            .iter()
            .filter_map(|s| Some((s, s.walker()?)))
            .map(|(s, p)| (s, Asked { cell: p.last, goal: p.goal }));
        Self::of(map, walkers.collect(), seen, standing, window)
    }

    /// This plan begun again on `map`'s grid as it is now, of its agents that still stand for
    /// it, each for the cell it was planned for (an answer on its way, as when the change cut
    /// its path, keeps one in: its goal is the same).
    fn again(
        &self,
        map: &NavMap,
        (seen, by_entity): (&[Seen], &HashMap<Entity, &Seen>),
        standing: impl Iterator<Item = Held>,
    ) -> Self {
        let still = self.units.iter().filter(|u| self.standing.contains(&u.entity));
        let walkers = still.filter_map(|u| Some((*by_entity.get(&u.entity)?, u.asked)));
        let mut again = Self::of(map, walkers.collect(), seen, standing, self.window);
        again.restarts = self.restarts + 1;
        again
    }

    /// A plan of `walkers` (those on `map` that walk a path it may plan), each for the cell it
    /// asks for, round the agents standing (see [`begin`](Self::begin)).
    fn of(
        map: &NavMap,
        mut walkers: Vec<(&Seen, Asked)>,
        seen: &[Seen],
        standing: impl Iterator<Item = Held>,
        window: Option<u32>,
    ) -> Self {
        let on_map = |holds: Option<(Entity, GridPos)>| holds.filter(|(m, _)| *m == map.entity);
        walkers.retain(|(s, _)| on_map(s.holds).is_some() && s.fit);
        // Goals are claimed in this order (one stepping aside after the others: its goal is
        // any free cell), and the plan takes them in it.
        walkers.sort_by_key(|(s, _)| (s.yielding, s.entity));
        walkers.truncate(MAX_COOPERATIVE);
        // Everyone else on the map is a cell to plan around.
        let mut grid = map.grid.clone();
        let others = seen.iter().filter(|s| s.stopped);
        let others = others.map(|s| (s.holds, s.entering, s.size)).chain(standing);
        for (holds, entering, size) in others {
            if let Some((_, cell)) = on_map(holds) {
                for corner in std::iter::once(cell).chain(entering) {
                    for c in footprint(corner, size) {
                        let _ = grid.set(c, Cell::Blocked);
                    }
                }
            }
        }
        let mut units: Vec<PlannedUnit> = Vec::new();
        let mut goals: HashSet<GridPos> = HashSet::new();
        for (walker, asked) in walkers {
            let Some(start) = walker.start() else {
                continue;
            };
            // Its cell became a wall, or someone stands on its goal (and may leave: a unit
            // stepping aside waits there a moment): it walks plainly, waiting as grid-locked
            // agents do.
            if !grid.is_passable(start) || !grid.is_passable(asked.cell) {
                continue;
            }
            if let Some(goal) = free_goal(&grid, asked.cell, &goals) {
                goals.insert(goal);
                units.push(PlannedUnit { entity: walker.entity, start, asked, goal });
            }
        }
        let standing = units.iter().map(|u| u.entity).collect();
        let revision = map.grid.revision();
        let mut planning = Self {
            grid,
            units,
            standing,
            planner: None,
            dropped: 0,
            work: 0,
            revision,
            restarts: 0,
            window,
            kept: 0,
        };
        planning.planner = planning.new_planner();
        planning
    }

    /// Whether the map's grid changed since the plan began and a path of `written` (cells, or
    /// a plan's cell at each tick) now crosses a wall (or a step the grid no longer allows).
    fn crosses_a_change<'a>(
        &self,
        map: &NavMap,
        mut written: impl Iterator<Item = &'a [GridPos]>,
    ) -> bool {
        let grid = &map.grid;
        let step = |w: &[GridPos]| w[0] == w[1] || grid.step_cost(w[0], w[1]).is_some();
        grid.revision() != self.revision
            && written.any(|cells| {
                cells.first().is_some_and(|&c| !grid.is_passable(c)) || !cells.windows(2).all(step)
            })
    }

    /// A planner of the units (those it cannot take at once dropped, up to [`MAX_DROPPED`]).
    fn new_planner(&mut self) -> Option<PlanTogether> {
        loop {
            let pairs: Vec<(GridPos, GridPos)> =
                self.units.iter().map(|u| (u.start, u.goal)).collect();
            let horizon = horizon(&self.grid, pairs.len());
            let grid = self.grid.clone();
            let made = match self.window {
                Some(window) => PlanTogether::windowed(grid, &pairs, horizon, window),
                None => PlanTogether::new(grid, &pairs, horizon),
            };
            match made {
                Ok(planner) => return Some(planner),
                Err(CooperativeError::BadCell { unit, .. }) if self.dropped < MAX_DROPPED => {
                    self.drop_unit(unit);
                }
                Err(_) => return None,
            }
        }
    }

    /// Unit `unit` walks plainly: it stands for the plan no more.
    fn drop_unit(&mut self, unit: usize) {
        let gone = self.units.remove(unit);
        self.standing.remove(&gone.entity);
        self.dropped += 1;
    }

    /// Cells looked at so far.
    fn work(&self) -> u64 {
        self.work + self.planner.as_ref().map_or(0, PlanTogether::work)
    }

    /// Agents that left lately stand for the plan no more: gone, stopped, on another path
    /// (one to another goal: a path asked again for the same goal keeps it in), or not on
    /// their start.
    fn let_go(&mut self, by_entity: &HashMap<Entity, &Seen>) {
        for unit in &self.units {
            let stays = by_entity.get(&unit.entity).is_some_and(|s| {
                s.fit
                    && s.start() == Some(unit.start)
                    && s.path.is_some_and(|p| p.goal == unit.asked.goal)
            });
            if !stays {
                self.standing.remove(&unit.entity);
            }
        }
    }

    /// Goes on with the plan for about `cells` cells (or until `out_of_time`); returns what
    /// it has made once it is made, or (windowed) each time a window more is kept.
    fn step(&mut self, cells: u64, out_of_time: &dyn Fn() -> bool) -> Option<Release> {
        let began = self.work();
        let from = self.kept;
        let given_up = Release { plans: None, from, kept: 0, last: true };
        loop {
            let left = cells.saturating_sub(self.work() - began);
            let Some(planner) = self.planner.as_mut() else {
                return Some(given_up);
            };
            let Some(result) = planner.step(left, out_of_time) else {
                let kept = planner.kept_ticks();
                let window = (kept > from).then(|| planner.kept_plans());
                return window.map(|w| Release { plans: Some(w), from, kept, last: false });
            };
            let unit = match result {
                Ok(plans) => {
                    return Some(Release { plans: Some(plans), from, kept: 0, last: true });
                }
                // Once its agents walk the plan, it is not begun again without one.
                Err(_) if from > 0 => return Some(given_up),
                Err(
                    CooperativeError::BadCell { unit, .. }
                    | CooperativeError::Unreachable { unit }
                    | CooperativeError::NoPlan { unit },
                ) if self.dropped < MAX_DROPPED => unit,
                Err(_) => return Some(given_up),
            };
            // A unit the plan cannot take walks plainly; the rest are planned again without
            // it.
            self.work += planner.work();
            self.drop_unit(unit);
            self.planner = self.new_planner();
            if out_of_time() {
                return None;
            }
        }
    }

    /// The map's plan from the planner's `plans`, and the path cells of each agent that
    /// still stands for it (those that left have no turns).
    fn made(&self, plans: Vec<Vec<GridPos>>) -> Made {
        let stands = |index: usize| self.standing.contains(&self.units[index].entity);
        let turns = CellTurns::new_for(&plans, stands);
        let mut plan = MapPlan { turns, units: HashMap::new(), to_come: false };
        let mut written = Vec::new();
        for (index, (unit, steps)) in self.units.iter().zip(&plans).enumerate() {
            if stands(index) {
                let cells = path_cells(steps);
                written.push((unit.entity, cells.clone()));
                plan.units.insert(unit.entity, Unit { index, cells, goal: unit.goal });
            }
        }
        (plan, written)
    }
}

/// An agent's path cells from its unit's plan (a cell at every tick): each cell once where it
/// waits.
fn path_cells(steps: &[GridPos]) -> Vec<GridPos> {
    let mut cells = steps.to_vec();
    cells.dedup();
    cells
}

/// How many units a map's plan drops (each one the plan could not take) before it gives up.
const MAX_DROPPED: usize = 4;

/// The most ticks a plan may take: enough to cross the map twice, and to wait for every unit.
fn horizon(grid: &NavGrid, units: usize) -> u32 {
    let across = 2 * (grid.width() + grid.height());
    (across + 2 * units as u32).min(4096)
}
