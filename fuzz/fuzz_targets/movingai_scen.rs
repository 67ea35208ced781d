//! The MovingAI `.scen` parser on arbitrary text: never a panic; every scenario it accepts has a
//! finite, non-negative optimal length.

#![no_main]

use bevy_tilemap_nav::io::movingai;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(scenarios) = movingai::parse_scenarios(&text) {
        for s in &scenarios {
            assert!(s.optimal_length.is_finite() && s.optimal_length >= 0.0, "{s:?}");
        }
    }
});
