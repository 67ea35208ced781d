//! The MovingAI `.map` parser on arbitrary text: never a panic, and whatever it accepts is a
//! grid of the size its header gives that survives a baked round trip unchanged.

#![no_main]

use bevy_tilemap_nav::io::{baked, movingai};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(grid) = movingai::parse_map(&text) {
        assert!(grid.width() > 0 && grid.height() > 0);
        // The parser refuses a header bigger than its text, so a grid never outgrows its file.
        assert!(grid.len() <= text.len(), "{} cells from {} bytes", grid.len(), text.len());
        let back = baked::from_binary(&baked::to_binary(&grid)).expect("own binary reads back");
        assert_eq!(back, grid);
    }
});
