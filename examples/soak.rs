//! The long soak, headless: 500 agents walk to random goals on a 128 x 128 tilemap while walls
//! appear and vanish at random every frame, with every frame checked (legal steps, arrivals
//! within a bound, flat memory; see `tests/support/soak.rs`). Prints progress every 1000 frames
//! and a report at the end; exits with a panic message at the first broken rule.
//!
//! ```sh
//! cargo run --release --example soak            # 10,000 frames
//! cargo run --release --example soak -- 100000  # longer
//! SOAK_AVOIDANCE=1 cargo run --release --example soak   # agents steer round each other
//! ```

#[path = "../tests/support/soak.rs"]
mod soak;
#[path = "../tests/support/mod.rs"]
mod support;

fn main() {
    let frames = std::env::args().nth(1).and_then(|f| f.parse().ok()).unwrap_or(10_000);
    let config = if std::env::var_os("SOAK_AVOIDANCE").is_some() {
        soak::SoakConfig::with_avoidance(frames)
    } else {
        soak::SoakConfig::standard(frames)
    };
    println!(
        "soak: {} agents, {} x {} tiles, {} walls toggled a frame, {frames} frames, avoidance {:?}",
        config.agents, config.size, config.size, config.toggles_per_frame, config.avoidance
    );
    let report = soak::run(&config, |frame, bytes| {
        println!("frame {frame:>7}: {:>7.1} MiB live", bytes as f64 / (1 << 20) as f64);
    });
    println!("{report:#?}");
    println!("soak passed");
}
