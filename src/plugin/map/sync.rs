//! The tile sync system: tilemaps (and [`NavGridMap`]s) to navigation maps
//! each frame, cell by cell where tiles changed.

use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::{TilePos, TileTextureIndex};

use super::components::*;
use super::errors::*;
use super::grids::*;
use super::layers::*;
use super::model::*;
use crate::plugin::diagnostics::{NavDiagnostics, Stopwatch};
use crate::plugin::settings::NavSettings;
use crate::plugin::work::WorkMeter;

/// The maps with a topology of their own.
type Topologies<'w, 's> = Query<'w, 's, (Entity, &'static NavTopology)>;

/// The grid sync system: keeps [`NavMaps`] in step with the marked tilemaps, a map per group of
/// layers. Unchanged cells cost nothing; a map's changed cells are written and reported in one
/// [`NavGridChanged`] message.
///
/// Its stages: the layers' tiles read where they changed ([`refresh_layers`], [`touch_tiles`]),
/// layers grouped into maps ([`group_layers`]), each map's grid kept in step or built
/// ([`tilemap_map`], [`grid_source_map`]), maps served or held while they load ([`serve`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn sync_nav_grid(
    mut layers: ResMut<NavLayers>,
    mut maps: ResMut<NavMaps>,
    settings: Res<NavSettings>,
    rules: Res<TileRules>,
    baked: Option<Res<BakedNavGrid>>,
    tilemaps: TilemapQuery,
    tiles: TileQuery,
    changed_tiles: Query<(Ref<TileTextureIndex>, &TilePos, &TilemapId)>,
    (mut changed_scratch, mut diagnostics, mut work): (
        Local<ChangedTiles>,
        ResMut<NavDiagnostics>,
        ResMut<WorkMeter>,
    ),
    mut inserted_overrides: ResMut<InsertedOverrides>,
    (mut removed_overrides, mut removed_terrain, mut removed_edges): (
        RemovedComponents<TileNav>,
        RemovedComponents<TileTerrain>,
        RemovedComponents<TileEdges>,
    ),
    all_tiles: Query<(&TilePos, &TilemapId)>,
    mut changed: MessageWriter<NavGridChanged>,
    mut warnings: MessageWriter<TilemapNavWarning>,
    (loading, mut ready, grid_maps, topologies): (
        Query<Entity, With<NavMapLoading>>,
        MessageWriter<NavMapReady>,
        GridMaps,
        Topologies,
    ),
) {
    // The first of the plugin's systems: it begins the frame's diagnostics.
    *diagnostics = NavDiagnostics::default();
    work.begin_frame();
    let _clock = Stopwatch::start(&mut diagnostics.sync_time);
    let mut told = Told::default();

    // What changed: layers taken in, read again or left out; then single tiles.
    let rules_changed = layers.rules_seen.as_ref() != Some(&*rules);
    if rules_changed {
        layers.rules_seen = Some(rules.clone());
    }
    let mut found =
        refresh_layers(&mut layers, &tilemaps, &tiles, &rules, rules_changed, &mut told);
    let touched = &mut changed_scratch.0;
    touched.clear();
    // (Every tile of a new layer counts as changed; it was just read, so is skipped. After a
    // change of rules every layer was read again.)
    if !rules_changed {
        // Finding the changed textures reads a change tick per tile of every layer, each
        // frame: on a large map, most of this system's time. One thread does it (why:
        // BENCHMARKS.md, "Measurements behind the code").
        changed_textures(&changed_tiles, touched);
        touched.retain(|(_, map)| !found.new_layers.contains(&map.0));
    }
    // Tiles whose override was added or removed.
    let removed =
        removed_overrides.read().chain(removed_terrain.read()).chain(removed_edges.read());
    for entity in inserted_overrides.0.drain(..).chain(removed) {
        if let Ok((pos, map)) = all_tiles.get(entity) {
            touched.push((*pos, *map));
        }
    }
    touch_tiles(&mut layers, touched, &tiles, &rules, &mut found.dirty);

    // Layers into maps; each map kept in step or built; maps whose group is gone are dropped.
    let groups = group_layers(&layers, &tilemaps, &found.new_layers, &mut told);
    let served_before: Vec<Entity> = maps.maps.iter().map(|m| m.entity).collect();
    let held_before: Vec<Entity> = maps.held.iter().map(|m| m.entity).collect();
    let mut old_maps = std::mem::take(&mut maps.maps);
    old_maps.append(&mut maps.held);
    let topologies = topologies.iter().map(|(e, t)| (e, *t)).collect();
    let mut building =
        Building { settings: &settings, found: &found, old_maps, told: &mut told, topologies };
    for (g, group) in groups.iter().enumerate() {
        // The first map starts from baked data if it fits.
        let baked = baked.as_deref().filter(|_| g == 0);
        maps.maps.extend(tilemap_map(group, baked, &layers, &tilemaps, &mut building));
    }
    for (entity, source, transform) in &grid_maps {
        maps.maps.extend(grid_source_map(entity, &source, transform.as_ref(), &mut building));
    }
    serve(&mut maps, loading.iter(), &served_before, &held_before, &mut told);
    changed.write_batch(told.changed);
    warnings.write_batch(told.warnings);
    ready.write_batch(told.ready);
}
