//! Baked navigation data: exact round trips in both forms, and a typed error (never a panic,
//! never a half-loaded grid) for every kind of bad file.

use crate::support::Rng;
use bevy_tilemap_nav::grid::{CornerRule, HexCoords, Neighborhood};
use bevy_tilemap_nav::io::baked::{self, BakeError, FORMAT_VERSION};
use bevy_tilemap_nav::prelude::*;

fn random_grid(rng: &mut Rng) -> NavGrid {
    let (width, height) = (1 + rng.below(40), 1 + rng.below(40));
    let mut grid = NavGrid::new(width, height)
        .unwrap()
        .with_neighborhood(match rng.below(3) {
            0 => Neighborhood::Four,
            1 => Neighborhood::Eight,
            _ => Neighborhood::Hex(HexCoords::ALL[rng.below(6) as usize]),
        })
        .with_corner_rule(if rng.chance(50) {
            CornerRule::CutCorners
        } else {
            CornerRule::NoCornerCutting
        });
    let walls = rng.below(60);
    for pos in grid.positions().collect::<Vec<_>>() {
        let cell = if rng.chance(walls) {
            Cell::Blocked
        } else if rng.chance(20) {
            Cell::Passable { cost: 1 + rng.below(1000) }
        } else {
            Cell::GROUND
        };
        grid.set(pos, cell).unwrap();
    }
    if rng.chance(50) {
        for pos in grid.positions().collect::<Vec<_>>() {
            grid.set_terrain(pos, Terrain(rng.below(4) as u8)).unwrap();
        }
    }
    grid
}

fn checksum(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// Files of format version 1 (no terrain classes) still load.
#[test]
fn version_one_files_still_load() {
    let mut rng = Rng(11);
    for _ in 0..50 {
        let mut grid = random_grid(&mut rng);
        let plain: Vec<GridPos> = grid.positions().collect();
        grid.set_all_terrain(plain.into_iter().map(|p| (p, Terrain::DEFAULT))).unwrap();
        // Bytes of this version without the terrain and barred sections (two counts of 0)
        // are version 1's.
        let now = baked::to_binary(&grid);
        let mut v1 = now[..now.len() - 16].to_vec();
        v1[4..8].copy_from_slice(&1u32.to_le_bytes());
        let sum = checksum(&v1);
        v1.extend_from_slice(&sum.to_le_bytes());
        assert_eq!(baked::from_binary(&v1).unwrap(), grid);
        let ron = baked::to_ron(&grid).replace(&format!("version: {FORMAT_VERSION}"), "version: 1");
        assert!(!ron.contains("terrain: [0"));
        assert_eq!(baked::from_ron(&ron).unwrap(), grid);
    }
}

#[test]
fn round_trips_are_exact_in_both_forms() {
    let mut rng = Rng(5);
    for round in 0..500 {
        let grid = random_grid(&mut rng);
        let from_binary = baked::from_binary(&baked::to_binary(&grid)).unwrap();
        assert_eq!(from_binary, grid, "round {round}: binary");
        let from_ron = baked::from_ron(&baked::to_ron(&grid)).unwrap();
        assert_eq!(from_ron, grid, "round {round}: RON");
        // The loaded grid searches like the original.
        let (a, b) = (GridPos::new(0, 0), GridPos::new(grid.width() - 1, grid.height() - 1));
        let o = SearchOptions::default();
        let mut p = Pathfinder::new();
        assert_eq!(
            p.find(&grid, &PathQuery::new(a, b).with_options(o)).map(|r| r.cost),
            p.find(&from_binary, &PathQuery::new(a, b).with_options(o)).map(|r| r.cost)
        );
    }
}

#[test]
fn every_truncation_and_every_flipped_byte_is_an_error() {
    let mut rng = Rng(6);
    let grid = random_grid(&mut rng);
    let bytes = baked::to_binary(&grid);
    for len in 0..bytes.len() {
        let err = baked::from_binary(&bytes[..len]).unwrap_err();
        assert!(
            matches!(err, BakeError::Truncated | BakeError::Corrupt | BakeError::Invalid(_)),
            "cut at {len}: {err:?}"
        );
    }
    for i in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[i] ^= 0x40;
        assert!(baked::from_binary(&damaged).is_err(), "byte {i} flipped was accepted");
    }
}

#[test]
fn future_versions_and_foreign_files_are_refused() {
    let grid = NavGrid::new(3, 2).unwrap();
    let mut bytes = baked::to_binary(&grid);
    bytes[4..8].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert_eq!(
        baked::from_binary(&bytes),
        Err(BakeError::FutureVersion { found: FORMAT_VERSION + 1, supported: FORMAT_VERSION })
    );
    assert_eq!(
        baked::from_binary(b"PNG\x89 not a nav file at all......"),
        Err(BakeError::NotBaked)
    );

    let text = baked::to_ron(&grid).replace(&format!("version: {FORMAT_VERSION}"), "version: 7");
    assert_eq!(
        baked::from_ron(&text),
        Err(BakeError::FutureVersion { found: 7, supported: FORMAT_VERSION })
    );
    assert!(matches!(baked::from_ron("(version: 1, width: 2"), Err(BakeError::Ron(_))));
    // Readable but wrong: too few cells, a zero-size grid.
    let short = baked::to_ron(&grid).replacen("0,", "", 1).replacen("1,", "", 1);
    assert!(baked::from_ron(&short).is_err());
    let empty = "(version: 1, width: 0, height: 0, neighborhood: Eight, corner_rule: NoCornerCutting, costs: [])";
    assert!(matches!(baked::from_ron(empty), Err(BakeError::Invalid(_))));
}

#[test]
fn size_check_against_the_tilemap() {
    let grid = NavGrid::new(3, 2).unwrap();
    assert_eq!(baked::expect_size(&grid, 3, 2), Ok(()));
    assert_eq!(
        baked::expect_size(&grid, 4, 2),
        Err(BakeError::SizeMismatch { expected: (4, 2), found: (3, 2) })
    );
}

#[test]
fn files_round_trip_in_both_forms() {
    let mut rng = Rng(9);
    let grid = random_grid(&mut rng);
    let dir = std::env::temp_dir().join(format!("tilemap_nav_baked_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["level.ron", "level.nav"] {
        let path = dir.join(name);
        baked::save(&grid, &path).unwrap();
        assert_eq!(baked::load(&path).unwrap(), grid, "{name}");
    }
    // The RON file is text a person can read.
    let text = std::fs::read_to_string(dir.join("level.ron")).unwrap();
    assert!(text.contains(&format!("version: {FORMAT_VERSION}")) && text.contains("costs:"));
    // A damaged file on disk is an error too, and a missing one says which path.
    let mut bytes = std::fs::read(dir.join("level.nav")).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(dir.join("cut.nav"), &bytes).unwrap();
    assert!(baked::load(dir.join("cut.nav")).is_err());
    assert!(matches!(baked::load(dir.join("missing.nav")), Err(BakeError::Io { .. })));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A few bytes must not make the loader allocate a huge grid: sizes that the data does not
/// fill are refused before allocation, sizes over the grid limit with an error, never an abort.
#[test]
fn huge_declared_sizes_are_refused_not_allocated() {
    // RON: a few cells for a 4-billion-squared grid.
    let ron = "(version: 1, width: 4000000000, height: 4000000000, neighborhood: Eight, \
               corner_rule: NoCornerCutting, costs: [1, 1])";
    assert!(matches!(baked::from_ron(ron), Err(BakeError::Invalid(_))));
    let ron = "(version: 1, width: 30000, height: 30000, neighborhood: Eight, \
               corner_rule: NoCornerCutting, costs: [1, 1])";
    assert!(matches!(baked::from_ron(ron), Err(BakeError::Invalid(_))));

    // Binary, with a valid checksum: run lengths that do add up to a grid over the size limit
    // (u32::MAX x 4 cells, four runs of u32::MAX).
    let mut body = Vec::new();
    body.extend_from_slice(b"TNAV");
    body.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    body.extend_from_slice(&u32::MAX.to_le_bytes());
    body.extend_from_slice(&4u32.to_le_bytes());
    body.extend_from_slice(&[8, 0]);
    body.extend_from_slice(&4u32.to_le_bytes());
    for _ in 0..4 {
        body.extend_from_slice(&u32::MAX.to_le_bytes());
        body.extend_from_slice(&1u32.to_le_bytes());
    }
    body.extend_from_slice(&0u32.to_le_bytes()); // no terrain runs
    body.extend_from_slice(&0u32.to_le_bytes()); // no barred crossings
    let sum = checksum(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    let cells = u64::from(u32::MAX) * 4;
    let limit = baked::MAX_LOADED_CELLS;
    assert_eq!(baked::from_binary(&body), Err(BakeError::TooLarge { cells, limit }));
    // Past the load limit, the grid's own limit still refuses it.
    match baked::from_binary_with_limit(&body, u64::MAX) {
        Err(BakeError::Invalid(why)) => assert!(why.contains("too large"), "{why}"),
        other => panic!("expected a size error, got {other:?}"),
    }
}
