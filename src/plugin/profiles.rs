//! Kinds of agents: the [`NavProfiles`] a game defines (by name) and the [`AgentKind`] an agent
//! carries to say which one it follows and how big it is.

use std::collections::HashMap;

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
///     .insert("boat", NavProfile::new().with(WATER, TerrainRule::Cost(1)).otherwise(TerrainRule::Blocked))
///     .expect("one profile of the 65,536 it holds");
/// assert_eq!(profiles.id("boat"), Some(boat));
/// let agent = AgentKind::with_profile(boat).with_size(2);
/// assert_eq!(agent.size, 2);
/// ```
#[derive(Resource, Clone, Debug, Default)]
pub struct NavProfiles {
    names: Vec<String>,
    profiles: Vec<NavProfile>,
    /// Each name's id.
    ids: HashMap<String, ProfileId>,
}

/// [`NavProfiles::insert`] of a new name when all [`NavProfiles::MAX`] ids are taken: nothing
/// was added (replacing a profile under a name it has still works).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProfilesFull;

impl std::fmt::Display for ProfilesFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NavProfiles holds at most {} profiles", NavProfiles::MAX)
    }
}

impl std::error::Error for ProfilesFull {}

impl NavProfiles {
    /// The most profiles it holds (ids are 16-bit): 65,536.
    pub const MAX: usize = 1 << 16;

    /// Adds a profile under `name`, or replaces the one of that name (keeping its id); an
    /// error, with nothing added, for a new name once it holds [`MAX`](Self::MAX) profiles.
    pub fn insert(&mut self, name: &str, profile: NavProfile) -> Result<ProfileId, ProfilesFull> {
        if let Some(id) = self.id(name) {
            self.profiles[usize::from(id.0)] = profile;
            return Ok(id);
        }
        let id = ProfileId(u16::try_from(self.profiles.len()).map_err(|_| ProfilesFull)?);
        self.names.push(name.to_owned());
        self.profiles.push(profile);
        self.ids.insert(name.to_owned(), id);
        Ok(id)
    }

    /// The id of the profile named `name`.
    pub fn id(&self, name: &str) -> Option<ProfileId> {
        self.ids.get(name).copied()
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
pub struct AgentKind {
    /// The profile it follows; `None`: the grid as it is.
    pub profile: Option<ProfileId>,
    /// Its size in tiles along a side.
    pub size: u32,
}

impl Default for AgentKind {
    fn default() -> Self {
        Self::PLAIN
    }
}

impl AgentKind {
    /// No profile, one tile: the agent every other is measured against.
    pub const PLAIN: AgentKind = AgentKind { profile: None, size: 1 };

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

    /// The kinds other than plain among `kinds`, each once, in the order first seen. (Many
    /// agents, few kinds: no sort of them all.)
    pub(crate) fn distinct_others(kinds: impl IntoIterator<Item = Self>) -> Vec<Self> {
        let mut seen: Vec<Self> = Vec::new();
        for kind in kinds {
            if !kind.is_plain() && seen.last() != Some(&kind) && !seen.contains(&kind) {
                seen.push(kind);
            }
        }
        seen
    }

    /// True when `profiles` has its profile (if any) and its size is one a grid can serve
    /// (hex maps take size 1 only: the map says).
    pub(crate) fn is_known(self, profiles: &NavProfiles) -> bool {
        (1..=MAX_AGENT_SIZE).contains(&self.size)
            && self.profile.is_none_or(|id| profiles.get(id).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::TerrainRule;

    #[test]
    fn ids_never_wrap_a_new_name_past_the_last_id_is_refused() {
        let mut profiles = NavProfiles::default();
        let first = profiles.insert("0", NavProfile::new()).unwrap();
        for k in 1..NavProfiles::MAX {
            profiles.insert(&k.to_string(), NavProfile::new()).unwrap();
        }
        assert_eq!(profiles.id(&(NavProfiles::MAX - 1).to_string()), Some(ProfileId(u16::MAX)));
        // The 65,537th name: an error, and nothing added or changed.
        assert_eq!(profiles.insert("one more", NavProfile::new()), Err(ProfilesFull));
        assert_eq!(profiles.id("one more"), None);
        assert_eq!(profiles.iter().count(), NavProfiles::MAX);
        assert_eq!(profiles.get(first), Some(&NavProfile::new()));
        // Every id its own, each name's.
        let ids: std::collections::HashSet<ProfileId> = profiles.iter().map(|(id, _)| id).collect();
        assert_eq!(ids.len(), NavProfiles::MAX);
        assert_eq!(profiles.name(ProfileId(70)), Some("70"));
        // A name it has is still replaced in place, keeping its id.
        let walled = NavProfile::new().otherwise(TerrainRule::Blocked);
        assert_eq!(profiles.insert("0", walled.clone()), Ok(first));
        assert_eq!(profiles.get(first), Some(&walled));
    }
}
