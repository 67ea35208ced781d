//! The soak test (ignored by default: run it with `cargo test --test soak -- --ignored`;
//! `SOAK_FRAMES` sets the frame count, 10,000 by default). See `support/soak.rs` for what it
//! asserts at every frame.

#[path = "support/soak.rs"]
mod soak;
#[path = "support/mod.rs"]
mod support;

/// The soaks run one at a time: their live-heap check counts the whole process (glibc's
/// count), so two side by side would each see the other's heap.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
#[ignore = "long: 500 agents for 10,000 frames (about 30 s); .ci/run runs it"]
fn five_hundred_agents_under_changing_walls() {
    let _one_at_a_time = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let frames = std::env::var("SOAK_FRAMES").ok().and_then(|f| f.parse().ok()).unwrap_or(10_000);
    let config = soak::SoakConfig::standard(frames);
    let report = soak::run(&config, |frame, bytes| {
        eprintln!("frame {frame}: {:.1} MiB live", bytes as f64 / (1 << 20) as f64)
    });
    eprintln!("{report:#?}");
    // The run did what it is for: many trips held to the bound, many steps checked.
    assert!(report.checked_trips >= config.agents * frames / 2000, "{report:?}");
    assert!(report.steps_checked >= config.agents * frames / 10, "{report:?}");
}

#[test]
#[ignore = "long: 500 avoiding agents for 10,000 frames (about 50 s); .ci/run runs it"]
fn five_hundred_avoiding_agents_under_changing_walls() {
    let _one_at_a_time = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let frames = std::env::var("SOAK_FRAMES").ok().and_then(|f| f.parse().ok()).unwrap_or(10_000);
    let config = soak::SoakConfig::with_avoidance(frames);
    let report = soak::run(&config, |frame, bytes| {
        eprintln!("frame {frame}: {:.1} MiB live", bytes as f64 / (1 << 20) as f64)
    });
    eprintln!("{report:#?}");
    assert!(report.checked_trips >= config.agents * frames / 4000, "{report:?}");
    assert!(report.steps_checked >= config.agents * frames / 20, "{report:?}");
}
