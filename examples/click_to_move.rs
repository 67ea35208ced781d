//! Click to move: an RPG room-and-corridor level; the player walks where you click, around
//! walls, along the cheapest path (mud costs more, so it goes round unless the detour is long).
//!
//! ```text
//! cargo run --example click_to_move
//! ```
//!
//! Left click: walk there. Right click: build or remove a wall, open or close a door; a
//! walking character plans again at once. D: show the navigation grid's blocked cells.
//! S: switch between smoothed paths (straight lines across open floor) and cell-by-cell ones.

mod common;

use bevy::prelude::*;
use bevy_tilemap_nav::plugin::{Replanning, TraceSearch, TracedSearch};
use bevy_tilemap_nav::prelude::*;
use common::*;

fn main() {
    game_app("bevy_tilemap_nav: click to move")
        .init_resource::<Status>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, player_clicks.pipe(handle_input))
                    .chain()
                    .before(NavSet::Pathfind),
                (report, draw_paths, show_status).chain().after(NavSet::Move),
            ),
        )
        .run();
}

#[derive(Component)]
struct StatusText;

#[derive(Resource, Default)]
struct Status {
    message: String,
    last_path: String,
    smooth: bool,
    /// The search view: step shown, of how many expansions.
    watch: Option<(usize, usize)>,
}

const START: (u32, u32) = (2, 15);

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    spawn_camera(&mut commands);
    spawn_level(&mut commands, &mut images, &LEVEL);
    spawn_player(&mut commands, START.0, START.1);
    commands.spawn((StatusText, help_text(15.0)));
}

#[allow(clippy::type_complexity)]
fn handle_input(
    In(walked): In<bool>,
    keys: Res<ButtonInput<KeyCode>>,
    mut settings: ResMut<NavSettings>,
    mut status: ResMut<Status>,
    mut follower: Single<&mut PathFollower, With<Player>>,
    player: Single<(Entity, Option<&mut TraceSearch>, Option<&TracedSearch>), With<Player>>,
    mut commands: Commands,
) {
    // W: watch the player's searches; N: one expansion further; M: ten further.
    let (entity, watch, watched) = player.into_inner();
    if keys.just_pressed(KeyCode::KeyW) {
        if watch.is_some() {
            commands.entity(entity).remove::<(TraceSearch, TracedSearch)>();
            status.watch = None;
        } else {
            commands.entity(entity).insert(TraceSearch::default());
        }
    }
    if let (Some(mut watch), Some(TracedSearch(trace))) = (watch, watched) {
        let total = trace.expanded.len();
        if keys.just_pressed(KeyCode::KeyN) {
            watch.step = (watch.step + 1).min(total);
        }
        if keys.just_pressed(KeyCode::KeyM) {
            watch.step = (watch.step + 10).min(total);
        }
        if status.watch != Some((watch.step, total)) {
            status.watch = Some((watch.step, total));
        }
    }
    if keys.just_pressed(KeyCode::KeyD) {
        settings.debug = !settings.debug;
    }
    if keys.just_pressed(KeyCode::KeyS) {
        follower.smooth = !follower.smooth;
        status.set_changed();
    }
    if status.smooth != follower.smooth {
        status.smooth = follower.smooth;
    }
    if walked {
        status.message.clear();
    }
}

#[allow(clippy::type_complexity)]
fn report(
    mut failures: MessageReader<PathFailed>,
    answered: Query<&NavPath, (With<Player>, Changed<NavPath>, Without<Replanning>)>,
    mut status: ResMut<Status>,
) {
    for failure in failures.read() {
        status.message =
            format!("{} Click ignored: the player goes on as before.", explain(&failure.error));
    }
    for path in &answered {
        if !path.complete {
            status.message = format!(
                "Can't reach {}: walking to the closest reachable cell, {}.",
                path.goal,
                path.cells.last().copied().unwrap_or(path.goal)
            );
        }
        status.last_path = format!(
            "Last path: {} cells, cost {:.2}, {} cells searched in {:.0} us",
            path.cells.len(),
            path.cost,
            path.expanded,
            path.micros
        );
    }
}

fn show_status(status: Res<Status>, mut text: Single<&mut Text, With<StatusText>>) {
    if !status.is_changed() {
        return;
    }
    let smooth =
        if status.smooth { "smoothed (S: cell by cell)" } else { "cell by cell (S: smoothed)" };
    let watch = match status.watch {
        Some((step, total)) => {
            format!("Search: {step}/{total} expanded (blue closed, green open; N +1, M +10, W off)")
        }
        None => "W: watch the next search step by step".to_string(),
    };
    text.0 = format!(
        "Left click: walk there   Right click: wall / door   D: show blocked cells\nFloor costs {FLOOR_COST}, road 1, mud {MUD_COST}. {watch}\nWalking {smooth}. {}\n{}",
        status.last_path, status.message
    );
}
