//! The baked-navigation-data loaders on arbitrary bytes: never a panic, and whatever they accept
//! round-trips through both forms unchanged.
//!
//! The first byte picks the form: raw bytes to the binary loader (nearly always stopped by the
//! checksum), the bytes with a valid checksum appended (so the fuzzer reaches the header, rule
//! and run-length checks behind it), or the bytes as RON text.

#![no_main]

use bevy_tilemap_nav::io::baked;
use libfuzzer_sys::fuzz_target;

/// FNV-1a, 64-bit, as the binary format defines its checksum (written out again here, so that
/// the target also checks the format's definition).
fn checksum(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// Grids larger than this are skipped when the checksum is supplied: a few bytes of run-length
/// code legitimately describe a grid of a billion cells, whose allocation (gigabytes, refused
/// only when the system refuses it) is not what this target looks for and would trip
/// libFuzzer's memory limit.
const MAX_FUZZ_CELLS: u64 = 1 << 22;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, body)) = data.split_first() else { return };
    let result = match mode % 3 {
        0 => baked::from_binary(body),
        1 => {
            if body.len() >= 16 {
                let word = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap());
                if u64::from(word(8)) * u64::from(word(12)) > MAX_FUZZ_CELLS {
                    return;
                }
            }
            let mut bytes = body.to_vec();
            bytes.extend_from_slice(&checksum(body).to_le_bytes());
            baked::from_binary(&bytes)
        }
        _ => baked::from_ron(&String::from_utf8_lossy(body)),
    };
    if let Ok(grid) = result {
        let binary = baked::from_binary(&baked::to_binary(&grid)).expect("own binary reads back");
        assert_eq!(binary, grid);
        let ron = baked::from_ron(&baked::to_ron(&grid)).expect("own RON reads back");
        assert_eq!(ron, grid);
    }
});
