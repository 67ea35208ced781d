//! The integration tests, built as one binary (each test file used to be a binary of its own
//! that linked all of Bevy). One module a subject; `support` holds what they share: the seeded
//! random numbers, the independent oracle of the movement rules, tilemaps drawn as text and
//! headless apps.
//!
//! `cargo test --test suite MODULE::` runs one subject, e.g. `cargo test --test suite seams::`.

#[path = "../support/mod.rs"]
mod support;
#[path = "../support/tilemap.rs"]
mod tilemap;

mod agents_oracle;
mod baked;
mod behaviours;
mod benchmark_maps;
mod big_bodies;
mod crowds;
mod determinism;
mod edges_oracle;
mod edges_plugin;
mod fields;
mod first_moves;
mod flee_wander;
mod grid_maps;
mod gridlock_soak;
mod ground_speed;
mod groups;
mod hand_made_bakes;
mod hordes;
mod landmarks;
mod link_control;
mod links_oracle;
mod map_types;
mod maps_and_links;
mod path_table;
mod per_agent;
mod plugin;
mod plugin_session;
mod query;
mod real_games;
mod seams;
mod search_errors;
mod search_oracle;
mod side_view;
mod sliced_builds;
mod smooth;
mod terrain_oracle;
mod topology_oracle;
mod views;
