//! Kinds of agents: the [`NavProfiles`] a game defines (by name) and the [`NavAgent`] an agent
//! carries to say which one it follows and how big it is.

use bevy::prelude::*;

use crate::grid::{MAX_AGENT_SIZE, NavProfile};

/// A profile's handle in [`NavProfiles`], given by [`NavProfiles::insert`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Reflect)]
pub struct ProfileId(pub(crate) u16);

/// The game's [`NavProfile`]s, by name. Replace one at run time (a character learns to swim:
/// insert the new profile under the same name) and every agent following it plans again.
///
/// ```
/// use bevy_tilemap_nav::prelude::*;
///
/// const WATER: Terrain = Terrain(1);
/// let mut profiles = NavProfiles::default();
/// let boat = profiles
///     .insert("boat", NavProfile::new().with(WATER, TerrainRule::Cost(1)).otherwise(TerrainRule::Blocked));
/// assert_eq!(profiles.id("boat"), Some(boat));
/// let agent = NavAgent::with_profile(boat).with_size(2);
/// assert_eq!(agent.size, 2);
/// ```
#[derive(Resource, Clone, Debug, Default)]
pub struct NavProfiles {
    names: Vec<String>,
    profiles: Vec<NavProfile>,
}

impl NavProfiles {
    /// Adds a profile under `name`, or replaces the one of that name (keeping its id).
    pub fn insert(&mut self, name: &str, profile: NavProfile) -> ProfileId {
        match self.id(name) {
            Some(id) => {
                self.profiles[usize::from(id.0)] = profile;
                id
            }
            None => {
                self.names.push(name.to_owned());
                self.profiles.push(profile);
                ProfileId((self.profiles.len() - 1) as u16)
            }
        }
    }

    /// The id of the profile named `name`.
    pub fn id(&self, name: &str) -> Option<ProfileId> {
        self.names.iter().position(|n| n == name).map(|k| ProfileId(k as u16))
    }

    /// The profile with this id.
    pub fn get(&self, id: ProfileId) -> Option<&NavProfile> {
        self.profiles.get(usize::from(id.0))
    }

    /// The name the profile with this id was added under.
    pub fn name(&self, id: ProfileId) -> Option<&str> {
        self.names.get(usize::from(id.0)).map(String::as_str)
    }

    /// Every profile with its id.
    pub fn iter(&self) -> impl Iterator<Item = (ProfileId, &NavProfile)> {
        self.profiles.iter().enumerate().map(|(k, p)| (ProfileId(k as u16), p))
    }
}

/// What kind of agent this is: the [`NavProfile`] it follows (none: the grid as it is) and its
/// size in tiles along a side (1 to [`MAX_AGENT_SIZE`]; larger than 1 on square and isometric
/// maps only). Its paths are the cheapest for that kind; a larger agent's `Transform` is the
/// centre of its body, which covers `size` x `size` tiles and never overlaps a wall. Change it
/// at run time and the agent plans again.
///
/// A request can name a kind of its own ([`PathRequest::agent`](super::PathRequest::agent)).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
#[reflect(Component)]
pub struct NavAgent {
    /// The profile it follows; `None`: the grid as it is.
    pub profile: Option<ProfileId>,
    /// Its size in tiles along a side.
    pub size: u32,
}

impl Default for NavAgent {
    fn default() -> Self {
        Self::PLAIN
    }
}

impl NavAgent {
    /// No profile, one tile: the agent every other is measured against.
    pub const PLAIN: NavAgent = NavAgent { profile: None, size: 1 };

    /// A one-tile agent following `profile`.
    pub fn with_profile(profile: ProfileId) -> Self {
        Self { profile: Some(profile), size: 1 }
    }

    /// A `size` x `size` agent with no profile.
    pub fn sized(size: u32) -> Self {
        Self { profile: None, size }
    }

    /// This kind with another size.
    pub fn with_size(self, size: u32) -> Self {
        Self { size, ..self }
    }

    /// True for the plain agent, which searches the map's own grid.
    pub fn is_plain(self) -> bool {
        self == Self::PLAIN
    }

    /// True when `profiles` has its profile (if any) and its size is one a grid can serve
    /// (hex maps take size 1 only: the map says).
    pub(crate) fn is_known(self, profiles: &NavProfiles) -> bool {
        (1..=MAX_AGENT_SIZE).contains(&self.size)
            && self.profile.is_none_or(|id| profiles.get(id).is_some())
    }
}
