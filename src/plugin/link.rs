//! Links between cells of the navigation maps (stairs, doors between levels, teleporters,
//! ladders, drops), as entities a game spawns and despawns, and the message sent when an agent
//! is carried across one.

use std::collections::HashMap;
use std::sync::Arc;

use bevy::prelude::*;

use super::agent::obstacles::{NavTeam, TeamSet};
use super::map::NavMaps;
use super::profiles::ProfileId;
use super::settings::WorldSearch;
use crate::grid::GridPos;
use crate::search::{Link, Placement};

/// One end of a [`NavLink`]: a cell of a map (named by its entity, [`NavMap::entity`](super::NavMap::entity)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
pub struct LinkEnd {
    /// The map.
    pub map: Entity,
    /// The cell on it.
    pub cell: GridPos,
}

impl LinkEnd {
    /// The cell `cell` of map `map`.
    pub fn new(map: Entity, cell: GridPos) -> Self {
        Self { map, cell }
    }
}

/// A link between two cells, on one map or on two: spawn an entity with it, despawn it (or
/// remove it) to take it away. Paths go through it when that is cheaper; an agent walks to
/// `from`, is carried to `to` (a [`LinkCrossed`] message says so, for an animation or a fade;
/// its `Transform` moves there) and walks on. While either cell is blocked, or a map is
/// missing, the link is not taken.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_tilemap_nav::prelude::*;
/// fn stairs(mut commands: Commands, ground: Entity, upstairs: Entity) {
///     commands.spawn(NavLink::two_way(
///         LinkEnd::new(ground, GridPos::new(14, 3)),
///         LinkEnd::new(upstairs, GridPos::new(1, 3)),
///         2.0,
///     ));
/// }
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct NavLink {
    /// One end (where a one-way link is entered).
    pub from: LinkEnd,
    /// The other end.
    pub to: LinkEnd,
    /// What taking it costs, in cell-cost units (it stands in for entering `to`); a cost that
    /// is NaN, infinite or negative makes the link unusable.
    pub cost: f64,
    /// Whether it can be taken from `to` to `from` as well.
    pub two_way: bool,
}

impl NavLink {
    /// A link that can be taken both ways (stairs, a door).
    pub fn two_way(from: LinkEnd, to: LinkEnd, cost: f64) -> Self {
        Self { from, to, cost, two_way: true }
    }

    /// A link that can be taken from `from` to `to` only (a drop, a one-way teleporter).
    pub fn one_way(from: LinkEnd, to: LinkEnd, cost: f64) -> Self {
        Self { from, to, cost, two_way: false }
    }
}

/// How agents cross a link: put it on the link's entity beside its [`NavLink`]. Without it, a
/// link is crossed at once ([`LinkCrossing::AtOnce`]).
///
/// A time or speed that is not a number, negative (or a speed of 0), or infinite makes the link
/// unusable, as a bad cost does: it is not taken, and an agent whose path takes it plans
/// again. A crossing never takes longer than [`MAX_CROSSING_SECONDS`] (a longer time is cut to
/// that).
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_tilemap_nav::prelude::*;
/// # use bevy_tilemap_nav::plugin::LinkCrossing;
/// fn ladder(mut commands: Commands, cellar: Entity, hall: Entity) {
///     commands.spawn((
///         NavLink::two_way(
///             LinkEnd::new(cellar, GridPos::new(7, 7)),
///             LinkEnd::new(hall, GridPos::new(1, 7)),
///             6.0, // what the search pays for it: say what the climb is worth
///         ),
///         LinkCrossing::Takes { seconds: 1.5 }, // the walker climbs for a second and a half
///     ));
/// }
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub enum LinkCrossing {
    /// The agent is put at the far end at once (stairs a game fades over, a teleporter).
    #[default]
    AtOnce,
    /// The agent moves in a straight line from one end to the other over this many seconds
    /// (a ladder, a lift); [`LinkReached`] says so as it sets off, [`LinkCrossed`] when it is
    /// across.
    Takes {
        /// How long the crossing takes.
        seconds: f32,
    },
    /// As [`Takes`](Self::Takes), at this speed (world units a second) over the straight line
    /// between the ends' centres.
    AtSpeed {
        /// World units a second.
        speed: f32,
    },
    /// The game carries the agent (a door that opens with an animation, a boat that must come):
    /// the agent stops at the link's entrance, [`LinkReached`] says so, and it waits there
    /// until the game writes a [`CarryAcross`] message: across, it is put at the far end and
    /// walks on; given up, it plans again without this link ([`AvoidLinks`]). A carry never
    /// finished leaves it waiting at the entrance, where a new request takes it elsewhere.
    Carried,
}

/// The longest a crossing takes, in seconds (an hour): a longer [`LinkCrossing`] time is cut to
/// this, so that a typo in a level file does not hold an agent for ever.
pub const MAX_CROSSING_SECONDS: f32 = 3600.0;

impl LinkCrossing {
    /// Whether its numbers can be used (see [`LinkCrossing`]).
    pub fn is_valid(self) -> bool {
        match self {
            LinkCrossing::AtOnce | LinkCrossing::Carried => true,
            LinkCrossing::Takes { seconds } => seconds.is_finite() && seconds >= 0.0,
            LinkCrossing::AtSpeed { speed } => speed.is_finite() && speed > 0.0,
        }
    }

    /// How many seconds a crossing of `length` world units takes (0 at once, or carried by the
    /// game; up to [`MAX_CROSSING_SECONDS`]); `None` when its numbers cannot be used.
    pub fn seconds(self, length: f32) -> Option<f32> {
        let seconds = match self {
            _ if !self.is_valid() => return None,
            LinkCrossing::AtOnce | LinkCrossing::Carried => 0.0,
            LinkCrossing::Takes { seconds } => seconds,
            LinkCrossing::AtSpeed { speed } => length / speed,
        };
        Some(if seconds.is_nan() {
            MAX_CROSSING_SECONDS
        } else {
            seconds.min(MAX_CROSSING_SECONDS)
        })
    }
}

/// Who may take a link: put it on the link's entity beside its [`NavLink`]. Without it, a link
/// is open to every agent; with it, only to agents of one of its `teams` ([`NavTeam`] on the
/// agent) or walking with one of its `profiles` ([`AgentKind::profile`]). Paths of the others
/// go round it; one whose path takes it when it closes to it plans again.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_tilemap_nav::prelude::*;
/// # use bevy_tilemap_nav::plugin::{LinkOpenTo, NavTeam};
/// const GUARDS: NavTeam = NavTeam(1);
/// fn guards_gate(mut commands: Commands, yard: Entity) {
///     commands.spawn((
///         NavLink::two_way(
///             LinkEnd::new(yard, GridPos::new(4, 2)),
///             LinkEnd::new(yard, GridPos::new(4, 4)),
///             2.0,
///         ),
///         LinkOpenTo::teams(&[GUARDS]),
///     ));
/// }
/// ```
///
/// [`AgentKind::profile`]: super::AgentKind::profile
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub struct LinkOpenTo {
    /// The teams whose agents may take it.
    pub teams: TeamSet,
    /// The profiles whose agents may take it.
    pub profiles: Vec<ProfileId>,
}

impl LinkOpenTo {
    /// Open to the agents of these teams.
    pub fn teams(teams: &[NavTeam]) -> Self {
        Self { teams: TeamSet::of(teams), profiles: Vec::new() }
    }

    /// Open to the agents walking with these profiles.
    pub fn profiles(profiles: &[ProfileId]) -> Self {
        Self { teams: TeamSet::default(), profiles: profiles.to_vec() }
    }

    /// Open to the agents of these teams as well.
    pub fn and_teams(mut self, teams: &[NavTeam]) -> Self {
        self.teams.0 |= TeamSet::of(teams).0;
        self
    }

    /// Open to the agents walking with these profiles as well.
    pub fn and_profiles(mut self, profiles: &[ProfileId]) -> Self {
        self.profiles.extend_from_slice(profiles);
        self
    }

    /// Whether an agent of `team` (if it has one) walking with `profile` may take the link.
    pub fn admits(&self, team: Option<NavTeam>, profile: Option<ProfileId>) -> bool {
        team.is_some_and(|t| self.teams.contains(t))
            || profile.is_some_and(|p| self.profiles.contains(&p))
    }
}

/// Whether `open_to` (a link's [`LinkOpenTo`], if it has one) lets this agent by.
pub(crate) fn admitted(
    open_to: Option<&LinkOpenTo>,
    team: Option<NavTeam>,
    profile: Option<ProfileId>,
) -> bool {
    open_to.is_none_or(|o| o.admits(team, profile))
}

/// Message: an agent reached a link that it does not cross at once ([`LinkCrossing`]): it sets
/// off across it now (`seconds` long), or, carried, waits at the entrance for the game's
/// [`CarryAcross`].
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct LinkReached {
    /// The agent.
    pub entity: Entity,
    /// The link's entity.
    pub link: Entity,
    /// The end it is at.
    pub from: LinkEnd,
    /// The end it goes to.
    pub to: LinkEnd,
    /// How it crosses.
    pub crossing: LinkCrossing,
    /// How long the crossing takes (0 for a carried one: as long as the game takes).
    pub seconds: f32,
}

/// Message the game writes when it is done with an agent waiting at a [`LinkCrossing::Carried`]
/// link: carry it across, or give up (it plans again without that link). A message for an
/// agent that is not waiting at such a link is ignored.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarryAcross {
    /// The agent.
    pub entity: Entity,
    /// Across, or given up.
    pub outcome: CarryOutcome,
}

/// What became of a carry ([`CarryAcross`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CarryOutcome {
    /// The agent is put at the far end and walks on ([`LinkCrossed`] says so).
    Across,
    /// The agent plans again from the entrance without this link (it is added to its
    /// [`AvoidLinks`]).
    GiveUp,
}

impl CarryAcross {
    /// Carry `entity` across.
    pub fn across(entity: Entity) -> Self {
        Self { entity, outcome: CarryOutcome::Across }
    }

    /// `entity` gives up on the link.
    pub fn give_up(entity: Entity) -> Self {
        Self { entity, outcome: CarryOutcome::GiveUp }
    }
}

/// Links an agent does not take: the plugin adds one the game gave up carrying it across
/// ([`CarryOutcome::GiveUp`]); a game may put its own. The plugin takes the component away
/// when the agent arrives or its path fails.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct AvoidLinks(pub Vec<Entity>);

/// An agent crossing a link over time ([`LinkCrossing::Takes`], [`LinkCrossing::AtSpeed`]):
/// the plugin moves it in a straight line from `from_point` to `to_point`, then takes the
/// component away and sends [`LinkCrossed`]. Its [`NavPath`](super::NavPath) is already
/// the walk after the link, and its [`OnNavMap`](super::OnNavMap) the far end's map. A
/// request made meanwhile is planned from the far end, and walked once it is across. For the
/// game to read (an animation's progress: [`CrossingLink::progress`]).
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct CrossingLink {
    /// The link's entity.
    pub link: Entity,
    /// Where it set off.
    pub from: LinkEnd,
    /// Where it goes.
    pub to: LinkEnd,
    /// The world point it set off from.
    pub from_point: Vec2,
    /// The world point it arrives at (its body's place on the far end's cell).
    pub to_point: Vec2,
    /// How long the crossing takes.
    pub seconds: f32,
    /// How long it has been on the way.
    pub elapsed: f32,
}

impl CrossingLink {
    /// How far across it is, from 0 to 1.
    pub fn progress(&self) -> f32 {
        if self.seconds > 0.0 { (self.elapsed / self.seconds).clamp(0.0, 1.0) } else { 1.0 }
    }

    /// Whether it is across.
    pub fn is_over(&self) -> bool {
        self.progress() >= 1.0
    }

    /// Where it is now.
    pub fn position(&self) -> Vec2 {
        self.from_point.lerp(self.to_point, self.progress())
    }
}

/// An agent standing at the entrance of a [`LinkCrossing::Carried`] link, waiting for the game
/// to carry it across or give up ([`CarryAcross`]). The plugin takes it away when the agent is
/// carried, gives up, or walks elsewhere (a new path, the link gone).
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct WaitingAtLink {
    /// The link's entity.
    pub link: Entity,
    /// The end it waits at.
    pub from: LinkEnd,
    /// The end it is to be carried to.
    pub to: LinkEnd,
    /// What the game said, not acted on yet.
    #[reflect(ignore)]
    pub(crate) answer: Option<CarryOutcome>,
}

/// Message: an agent was carried across a link.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct LinkCrossed {
    /// The agent carried.
    pub entity: Entity,
    /// The link's entity.
    pub link: Entity,
    /// Where it left.
    pub from: LinkEnd,
    /// Where it arrived.
    pub to: LinkEnd,
}

/// The frame's links in the maps' terms: core [`Link`]s naming maps by their index in
/// [`NavMaps`], and beside each its entity, and where the maps of a world lie. Seams
/// ([`NavSeam`](super::NavSeam)) are not among them: the searches step across them from the
/// maps' places. Links to a missing map, a cell off its map, or with a bad cost are left out
/// (they can never be taken).
///
/// The lists of links are shared: the links of a search that may take them all are the frame's
/// own, not a copy per search.
#[derive(Default)]
pub(crate) struct FrameLinks {
    pub(crate) links: Arc<[Link]>,
    pub(crate) entities: Arc<[Entity]>,
    /// Who may take each link (`None`: anyone).
    open_to: Arc<[Option<LinkOpenTo>]>,
    /// Where each map (by its index) lies on the lattice of a world of maps that touch.
    pub(crate) places: Vec<Option<Placement>>,
    /// How many maps each map's world has (by its index; 0 for a map in none).
    world_sizes: Vec<u32>,
    /// What the links were gathered from.
    gathered_from: GatheredFrom,
    /// How searches that start or end in a world are searched.
    pub(crate) world_search: WorldSearch,
}

/// What a [`FrameLinks`] was gathered from: each map's entity and size, the maps' places, and
/// how many link entities there were.
type GatheredFrom = (Vec<(Entity, u32, u32)>, Vec<(Entity, Placement)>, usize);

/// The game's links (seams left out) with how they are crossed and who may take them.
pub(crate) type LinkRows<'w, 's> = Query<
    'w,
    's,
    (Entity, &'static NavLink, Option<&'static LinkCrossing>, Option<&'static LinkOpenTo>),
    Without<super::NavSeam>,
>;

/// A link's [`NavLink`], [`LinkCrossing`] or [`LinkOpenTo`] came or changed.
pub(crate) type LinkChanged = Or<(Changed<NavLink>, Changed<LinkCrossing>, Changed<LinkOpenTo>)>;

/// Whether a link came, changed or went (its [`LinkCrossing`] or [`LinkOpenTo`] as well), seams
/// left out, since the system that holds it last ran.
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct LinksMoved<'w, 's> {
    changed: Query<'w, 's, (), (LinkChanged, Without<super::NavSeam>)>,
    removed: RemovedComponents<'w, 's, NavLink>,
    removed_crossing: RemovedComponents<'w, 's, LinkCrossing>,
    removed_open: RemovedComponents<'w, 's, LinkOpenTo>,
}

impl LinksMoved<'_, '_> {
    /// True when a link came, changed or went (the removals are read).
    pub(crate) fn read(&mut self) -> bool {
        let removed = self.removed.read().count()
            + self.removed_crossing.read().count()
            + self.removed_open.read().count();
        !self.changed.is_empty() || removed > 0
    }
}

impl FrameLinks {
    /// Gathers the links again when `links_moved` (a link came, changed or went), fewer or more
    /// links are there, or the maps or their places changed since they were last gathered;
    /// else keeps them. (The count catches a link removed while the system did not run, in a
    /// fixed-step schedule, whose removal it was not told of.)
    pub(crate) fn gather(
        &mut self,
        maps: &NavMaps,
        links: &LinkRows,
        places: &[(Entity, Placement)],
        links_moved: bool,
    ) {
        let shape = || maps.iter().map(|m| (m.entity, m.grid.width(), m.grid.height()));
        let (seen_maps, seen_places, seen_links) = &mut self.gathered_from;
        let count = links.count();
        if !links_moved
            && count == *seen_links
            && shape().eq(seen_maps.iter().copied())
            && places == seen_places.as_slice()
        {
            return;
        }
        *seen_links = count;
        seen_maps.clear();
        seen_maps.extend(shape());
        seen_places.clear();
        seen_places.extend_from_slice(places);
        self.places.clear();
        let placed = |map: Entity| places.iter().find(|(m, _)| *m == map).map(|(_, p)| *p);
        self.places.extend(maps.iter().map(|m| placed(m.entity)));
        let mut members: HashMap<u32, u32> = HashMap::new();
        for p in self.places.iter().flatten() {
            *members.entry(p.world).or_default() += 1;
        }
        let size = |p: &Option<Placement>| p.and_then(|p| members.get(&p.world).copied());
        self.world_sizes.clear();
        self.world_sizes.extend(self.places.iter().map(|p| size(p).unwrap_or(0)));
        let end = |e: LinkEnd| {
            let at = maps.map_pos(e.map, e.cell)?;
            maps.get(e.map)?.grid.in_bounds(e.cell).then_some(at)
        };
        let (mut kept, mut entities, mut open) = (Vec::new(), Vec::new(), Vec::new());
        for (entity, link, crossing, open_to) in links {
            if let (Some(from), Some(to)) = (end(link.from), end(link.to))
                && link.cost.is_finite()
                && link.cost >= 0.0
                && crossing.is_none_or(|c| c.is_valid())
            {
                kept.push(Link { from, to, cost: link.cost, two_way: link.two_way });
                entities.push(entity);
                open.push(open_to.cloned());
            }
        }
        (self.links, self.entities, self.open_to) = (kept.into(), entities.into(), open.into());
    }

    /// These links with only those `keep` keeps (given each link, its entity and who may take
    /// it), the maps' places as they are.
    pub(crate) fn only(
        &self,
        keep: impl Fn(&Link, Entity, Option<&LinkOpenTo>) -> bool,
    ) -> FrameLinks {
        let rows = self.links.iter().zip(self.entities.iter()).zip(self.open_to.iter());
        let kept: Vec<bool> = rows.map(|((l, &e), o)| keep(l, e, o.as_ref())).collect();
        let mut only = FrameLinks {
            places: self.places.clone(),
            world_sizes: self.world_sizes.clone(),
            ..FrameLinks::default()
        };
        if kept.iter().all(|&k| k) {
            // All of them: the same lists.
            only.links = Arc::clone(&self.links);
            only.entities = Arc::clone(&self.entities);
            only.open_to = Arc::clone(&self.open_to);
        } else {
            let pick = |i: &usize| kept[*i];
            let indexes = || (0..kept.len()).filter(pick);
            only.links = indexes().map(|i| self.links[i]).collect();
            only.entities = indexes().map(|i| self.entities[i]).collect();
            only.open_to = indexes().map(|i| self.open_to[i].clone()).collect();
        }
        only
    }

    /// Whether the map at `index` in [`NavMaps`] joins others of its world at seams.
    pub(crate) fn joined(&self, index: usize) -> bool {
        self.world_sizes.get(index).is_some_and(|&n| n > 1)
    }

    /// Whether a search between the maps at `ends` goes over the world's graph, as
    /// [`FrameLinks::world_search`] says (with [`WorldSearch::Auto`], when either lies in a
    /// world of [`WorldSearch::AUTO_MAPS`] maps or more).
    pub(crate) fn over_graph(&self, ends: [usize; 2]) -> bool {
        let big = |m: usize| self.world_sizes.get(m).is_some_and(|&n| n >= WorldSearch::AUTO_MAPS);
        match self.world_search {
            WorldSearch::Exact => false,
            WorldSearch::Hierarchical => true,
            WorldSearch::Auto => ends.into_iter().any(big),
        }
    }

    /// Whether any world has [`WorldSearch::AUTO_MAPS`] maps or more.
    pub(crate) fn has_big_world(&self) -> bool {
        self.world_sizes.iter().any(|&n| n >= WorldSearch::AUTO_MAPS)
    }
}

/// True when `link` can be taken from `from` now: it exists, goes that way, both of its cells
/// are open and the numbers of its crossing (if it has a [`LinkCrossing`]) can be used.
pub(crate) fn usable(
    maps: &NavMaps,
    (link, crossing): (&NavLink, Option<&LinkCrossing>),
    from: LinkEnd,
    to: LinkEnd,
) -> bool {
    let forward = link.from == from && link.to == to;
    let back = link.two_way && link.to == from && link.from == to;
    let open = |e: LinkEnd| maps.get(e.map).is_some_and(|m| m.grid.is_passable(e.cell));
    let crossable = crossing.is_none_or(|c| c.is_valid());
    let priced = link.cost.is_finite() && link.cost >= 0.0;
    (forward || back) && priced && crossable && open(from) && open(to)
}
