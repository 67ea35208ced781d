//! For the map-editor integrations' tests: a headless app with Bevy's renderer (the tilemap
//! plugin the loaders add needs its render app; in CI it runs on Mesa's software adapter), and
//! an agent walked across a map.

#![allow(dead_code)]

use bevy::prelude::*;
use bevy_tilemap_nav::prelude::*;

pub const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets");

/// Bevy with no window, assets read from the repository's `assets/`, and the navigation plugin.
/// Add the loader's plugins, then call [`ready`].
pub fn headless_app() -> App {
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(AssetPlugin { file_path: ASSETS.into(), ..default() })
            .set(WindowPlugin { primary_window: None, ..default() })
            .disable::<bevy::winit::WinitPlugin>()
            .disable::<bevy::log::LogPlugin>()
            .disable::<bevy::render::pipelined_rendering::PipelinedRenderingPlugin>(),
    )
    .add_plugins(TilemapNavPlugin::default());
    app
}

/// What `App::run` does before the first frame: the plugins' finishing steps (the renderer).
pub fn ready(mut app: App) -> App {
    app.finish();
    app.cleanup();
    app
}

/// Sends an agent from cell `from` to cell `to` of `map` and steps frames until it arrives,
/// checking every frame that it stands on an open cell and has not failed. True if it arrived.
pub fn walk_across(app: &mut App, map: Entity, from: GridPos, to: GridPos, frames: usize) -> bool {
    let nav = app.world().resource::<NavMaps>().get(map).expect("the map navigates");
    let start = nav.geometry.cell_to_world(from);
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(start.extend(5.0)),
            PathFollower::new(200.0),
            PathRequest::to(to),
        ))
        .id();
    for _ in 0..frames {
        app.update();
        let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
        let nav = app.world().resource::<NavMaps>().get(map).unwrap();
        let cell = nav.geometry.world_to_cell(at).unwrap();
        assert!(nav.grid.is_passable(cell), "walked into {cell}");
        assert!(app.world().get::<PathFailed>(agent).is_none());
        let arrivals = app.world().resource::<Messages<Arrived>>();
        if arrivals.iter_current_update_messages().any(|a| a.entity == agent && a.reached_goal) {
            app.world_mut().entity_mut(agent).despawn();
            return true;
        }
    }
    false
}
