//! Scripted runs of the examples, for CI: with `CI_TESTING_CONFIG` naming a script, the example
//! runs a fixed time per frame, sends the script's input on the frames it names, takes
//! screenshots (`screenshot-FRAME.png` in the working directory) and exits.
//!
//! The script format is the one of Bevy's `bevy_ci_testing` (`ci/*.ron`), for the events the
//! examples use: `Screenshot`, `ScreenshotAndExit`, `AppExit` and `Custom("...")` (what
//! `ci_clicks` turns into clicks and keys). This small player replaces Bevy's dev tools, which
//! bring Bevy's 3D renderer (and, on Bevy 0.20, its audio) into every example's build.

use bevy::app::AppExit;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::time::TimeUpdateStrategy;
use serde::Deserialize;
use std::time::Duration;

/// A script: how long each frame is, and what happens on which frame (frames count from 0, the
/// first `Update`).
#[derive(Deserialize, Default, Debug, Clone, PartialEq)]
pub struct Script {
    #[serde(default)]
    pub setup: Setup,
    pub events: Vec<(u32, ScriptEvent)>,
}

#[derive(Deserialize, Default, Debug, Clone, PartialEq)]
pub struct Setup {
    /// Seconds of game time per frame, whatever the wall clock says.
    pub fixed_frame_time: Option<f32>,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
pub enum ScriptEvent {
    AppExit,
    Screenshot,
    ScreenshotAndExit,
    Custom(String),
}

/// A `Custom` event's text, sent as a message on its frame (read by `ci_clicks`).
#[derive(Message, Debug, Clone)]
pub struct ScriptInput(pub String);

impl Script {
    /// The script the environment names, if any. A script that is named and cannot be read is
    /// an error: CI must not pass by playing nothing.
    pub fn from_env() -> Result<Option<Self>, String> {
        let Ok(file) = std::env::var("CI_TESTING_CONFIG") else { return Ok(None) };
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
        ron::from_str(&text).map(Some).map_err(|e| format!("{file}: {e}"))
    }

    /// Takes the events of one frame out of the script, in their order.
    pub fn take(&mut self, frame: u32) -> Vec<ScriptEvent> {
        let (now, later) = std::mem::take(&mut self.events).into_iter().partition(|e| e.0 == frame);
        self.events = later;
        now.into_iter().map(|(_, event)| event).collect::<Vec<_>>()
    }
}

/// Plays the script named by `CI_TESTING_CONFIG`; does nothing without one.
pub struct ScriptPlugin;

#[derive(Resource)]
struct Playing(Script);

impl Plugin for ScriptPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<ScriptInput>();
        let script = match Script::from_env() {
            Ok(Some(script)) => script,
            Ok(None) => return,
            Err(error) => panic!("the example's script cannot be read: {error}"),
        };
        if let Some(seconds) = script.setup.fixed_frame_time {
            let step = Duration::from_secs_f32(seconds);
            app.insert_resource(TimeUpdateStrategy::ManualDuration(step));
        }
        app.insert_resource(Playing(script)).add_systems(First, play);
    }
}

fn play(mut commands: Commands, mut script: ResMut<Playing>, mut frame: Local<u32>) {
    for event in script.0.take(*frame) {
        let name = format!("screenshot-{}.png", *frame);
        match event {
            ScriptEvent::Custom(text) => {
                commands.write_message(ScriptInput(text));
            }
            ScriptEvent::AppExit => {
                commands.write_message(AppExit::Success);
            }
            ScriptEvent::Screenshot => {
                commands.spawn(Screenshot::primary_window()).observe(save_to_disk(name));
            }
            ScriptEvent::ScreenshotAndExit => {
                let mut save = save_to_disk(name);
                commands.spawn(Screenshot::primary_window()).observe(
                    move |captured: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                        save(captured);
                        exit.write(AppExit::Success);
                    },
                );
            }
        }
    }
    *frame += 1;
}
