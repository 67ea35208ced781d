//! The map-editor integrations through their real loaders (bevy_ecs_tiled, bevy_ecs_ldtk):
//! `cargo test --features tiled,ldtk --test editors`.

#[path = "../support/editor.rs"]
mod editor;

mod ldtk_world;
mod side_views;
mod tiled_maps;
