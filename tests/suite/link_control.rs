//! Links the game controls (`LinkCrossing`, `LinkOpenTo`, `CarryAcross`), in a headless `App`
//! with real tilemaps: a ladder that takes time (the walker moves along it over that time, a
//! request made meanwhile waits for the far end), a door the game carries agents through (they
//! wait for it, are carried, or give up and go another way; a carry never finished leaves them
//! waiting where a new request takes them), a gate open to one team or one profile only, and
//! bad numbers.

use std::time::Duration;

use crate::tilemap::{FLOOR, WALL, app, centre_on, messages, position, spawn_text_tilemap};
use bevy::prelude::*;
use bevy_tilemap_nav::plugin::{
    AvoidLinks, CarryAcross, CrossingLink, LinkCrossing, LinkOpenTo, LinkReached,
    MAX_CROSSING_SECONDS, NavTeam, WaitingAtLink,
};
use bevy_tilemap_nav::prelude::*;

/// Two levels side by side, 40 units apart: A (8 x 5) and B (8 x 5), both open.
const LEVEL: [&str; 5] = ["........", "........", "........", "........", "........"];
const TILE: f32 = 16.0;

fn spawn_level(app: &mut App, rows: &[&str], at: Vec2) -> Entity {
    let texture = |c| match c {
        '#' => Some(WALL),
        '.' => Some(FLOOR),
        _ => None,
    };
    spawn_text_tilemap(app, rows, TILE, at, texture)
}

/// Two levels, a at the origin, b to its right; updated once so that their maps are served.
fn two_levels(app: &mut App) -> (Entity, Entity) {
    let a = spawn_level(app, &LEVEL, Vec2::ZERO);
    let b = spawn_level(app, &LEVEL, Vec2::new(8.0 * TILE + 40.0, 0.0));
    app.update();
    (a, b)
}

fn link(app: &mut App, from: (Entity, u32, u32), to: (Entity, u32, u32), cost: f64) -> Entity {
    let end = |(map, x, y): (Entity, u32, u32)| LinkEnd::new(map, GridPos::new(x, y));
    app.world_mut().spawn(NavLink::one_way(end(from), end(to), cost)).id()
}

fn walker(app: &mut App, map: Entity, at: GridPos, goal: PathGoal) -> Entity {
    let position = centre_on(app, map, at);
    let agent = (PathFollower::new(64.0), PathRequest::to(goal));
    app.world_mut().spawn((Transform::from_translation(position.extend(1.0)), agent)).id()
}

/// Cell (x, y) of `map`.
fn on_b(map: Entity, x: u32, y: u32) -> PathGoal {
    PathGoal::OnMap { map, cell: GridPos::new(x, y) }
}

fn arrived(app: &App, entity: Entity) -> Option<Arrived> {
    messages::<Arrived>(app).into_iter().find(|a| a.entity == entity)
}

/// The distance from `p` to the segment from `a` to `b`.
fn off_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
    p.distance(a + (b - a) * t)
}

/// What a walk over a timed link was seen to do, frame by frame.
#[derive(Default)]
struct Ride {
    reached: Option<(usize, LinkReached)>,
    crossed: Option<usize>,
    arrived: Option<usize>,
    /// Frames with the agent on the link, and how far along it was each time.
    along: Vec<f32>,
}

/// Walks `agent` for up to `frames`, asking `each_frame` of it every frame (a request re-sent,
/// say), checking that while it crosses it stands on the link's straight line, further along
/// each frame.
fn watch_ride(
    app: &mut App,
    agent: Entity,
    frames: usize,
    mut each_frame: impl FnMut(&mut App, usize),
) -> Ride {
    let mut ride = Ride::default();
    for frame in 0..frames {
        each_frame(app, frame);
        app.update();
        if let Some(r) = messages::<LinkReached>(app).into_iter().find(|r| r.entity == agent) {
            assert!(ride.reached.is_none(), "frame {frame}: told twice that it reached the link");
            ride.reached = Some((frame, r));
        }
        if messages::<LinkCrossed>(app).iter().any(|c| c.entity == agent) {
            assert!(ride.crossed.is_none(), "frame {frame}: crossed twice");
            ride.crossed = Some(frame);
        }
        if let Some(crossing) = app.world().get::<CrossingLink>(agent) {
            let at = position(app, agent);
            let off = off_segment(at, crossing.from_point, crossing.to_point);
            assert!(off < 1e-3, "frame {frame}: {off} off the link's line");
            let along = at.distance(crossing.from_point);
            assert!(
                ride.along.last().is_none_or(|&l| along >= l - 1e-4),
                "frame {frame}: went back"
            );
            ride.along.push(along);
        }
        if arrived(app, agent).is_some() {
            ride.arrived = Some(frame);
            break;
        }
    }
    ride
}

#[test]
fn a_link_that_takes_time_is_crossed_over_that_time_in_a_straight_line() {
    for crossing in [LinkCrossing::Takes { seconds: 1.0 }, LinkCrossing::AtSpeed { speed: 50.0 }] {
        let mut app = app();
        let (a, b) = two_levels(&mut app);
        let ladder = link(&mut app, (a, 7, 2), (b, 0, 2), 4.0);
        app.world_mut().entity_mut(ladder).insert(crossing);
        let agent = walker(&mut app, a, GridPos::new(1, 2), on_b(b, 5, 2));
        let ride = watch_ride(&mut app, agent, 600, |_, _| {});
        let (reached_at, reached) = ride.reached.expect("told it set off across the ladder");
        let crossed_at = ride.crossed.expect("told it got across");
        assert!(ride.arrived.is_some(), "{crossing:?}: arrived at its goal");
        let length =
            centre_on(&app, a, GridPos::new(7, 2)).distance(centre_on(&app, b, GridPos::new(0, 2)));
        let expected = match crossing {
            LinkCrossing::AtSpeed { speed } => length / speed,
            _ => 1.0,
        };
        assert!((reached.seconds - expected).abs() < 1e-4, "{crossing:?}: {} s", reached.seconds);
        assert_eq!((reached.link, reached.crossing), (ladder, crossing));
        // Frames of 16 ms: the crossing takes its time, to a frame.
        let took = (crossed_at - reached_at) as f32 * 0.016;
        assert!((took - expected).abs() <= 0.017, "{crossing:?}: took {took} s, not {expected}");
        assert!(
            ride.along.len() >= 10,
            "{crossing:?}: seen on the way {} frames",
            ride.along.len()
        );
        assert!(app.world().get::<CrossingLink>(agent).is_none());
    }
}

#[test]
fn a_request_made_on_a_ladder_is_walked_from_its_far_end() {
    let mut app = app();
    let (a, b) = two_levels(&mut app);
    let ladder = link(&mut app, (a, 7, 2), (b, 0, 2), 4.0);
    app.world_mut().entity_mut(ladder).insert(LinkCrossing::Takes { seconds: 2.0 });
    let agent = walker(&mut app, a, GridPos::new(4, 2), on_b(b, 5, 2));
    // Sent somewhere else on B every frame, from the moment it is on the ladder.
    let ride = watch_ride(&mut app, agent, 900, |app, _| {
        if app.world().get::<CrossingLink>(agent).is_some() {
            app.world_mut().entity_mut(agent).insert(PathRequest::to(on_b(b, 3, 4)));
        }
    });
    assert!(ride.reached.is_some() && ride.crossed.is_some());
    let arrived_at = ride.arrived.expect("arrived");
    assert!(arrived_at > ride.crossed.unwrap(), "walked on after the ladder");
    let last = arrived(&app, agent).unwrap();
    assert_eq!(last.cell, GridPos::new(3, 4), "at the goal it was sent to on the ladder");
    assert!(ride.along.len() > 100, "the ladder took its two seconds: {}", ride.along.len());
}

#[test]
fn a_ladder_whose_link_or_agent_goes_mid_crossing_is_finished_or_dropped() {
    let mut app = app();
    let (a, b) = two_levels(&mut app);
    let ladder = link(&mut app, (a, 7, 2), (b, 0, 2), 4.0);
    app.world_mut().entity_mut(ladder).insert(LinkCrossing::Takes { seconds: 0.5 });
    let agent = walker(&mut app, a, GridPos::new(5, 2), on_b(b, 5, 2));
    let other = walker(&mut app, a, GridPos::new(5, 1), on_b(b, 5, 1));
    let mut despawned = (false, false);
    let ride = watch_ride(&mut app, agent, 600, |app, _| {
        // The link taken away under the first, the second despawned on it.
        if app.world().get::<CrossingLink>(agent).is_some() && !despawned.0 {
            app.world_mut().despawn(ladder);
            despawned.0 = true;
        }
        if !despawned.1 && app.world().get_entity(other).is_ok_and(|e| e.contains::<CrossingLink>())
        {
            app.world_mut().despawn(other);
            despawned.1 = true;
        }
    });
    assert!(despawned.0);
    assert!(ride.arrived.is_some(), "the ladder went under it: it still got across and arrived");
    assert_eq!(arrived(&app, agent).unwrap().cell, GridPos::new(5, 2));
}

#[test]
fn bad_crossing_numbers_close_the_link_and_huge_ones_are_cut_to_an_hour() {
    for bad in [
        LinkCrossing::Takes { seconds: f32::NAN },
        LinkCrossing::Takes { seconds: -1.0 },
        LinkCrossing::Takes { seconds: f32::INFINITY },
        LinkCrossing::AtSpeed { speed: 0.0 },
        LinkCrossing::AtSpeed { speed: f32::NAN },
        LinkCrossing::AtSpeed { speed: -3.0 },
    ] {
        assert!(!bad.is_valid());
        let mut app = app();
        let (a, b) = two_levels(&mut app);
        let broken = link(&mut app, (a, 7, 2), (b, 0, 2), 1.0);
        app.world_mut().entity_mut(broken).insert(bad);
        // The only other way costs more: the broken link would have been taken.
        let other = link(&mut app, (a, 7, 0), (b, 0, 0), 20.0);
        let agent = walker(&mut app, a, GridPos::new(5, 2), on_b(b, 3, 2));
        let mut crossed = Vec::new();
        for _ in 0..600 {
            app.update();
            crossed.extend(messages::<LinkCrossed>(&app).into_iter().filter(|c| c.entity == agent));
            if arrived(&app, agent).is_some() {
                break;
            }
        }
        assert!(arrived(&app, agent).is_some(), "{bad:?}: arrived the other way");
        assert_eq!(crossed.iter().map(|c| c.link).collect::<Vec<_>>(), vec![other], "{bad:?}");
    }
    // A typo of a time: the crossing takes an hour, no more.
    let huge = LinkCrossing::Takes { seconds: 1e30 };
    assert_eq!(huge.seconds(10.0), Some(MAX_CROSSING_SECONDS));
    let mut app = app();
    let (a, b) = two_levels(&mut app);
    let lift = link(&mut app, (a, 7, 2), (b, 0, 2), 1.0);
    app.world_mut().entity_mut(lift).insert(huge);
    let agent = walker(&mut app, a, GridPos::new(6, 2), on_b(b, 1, 2));
    // Frames of a minute (the clock let run that fast).
    app.world_mut().resource_mut::<Time<Virtual>>().set_max_delta(Duration::from_secs(120));
    app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(Duration::from_secs(60)));
    let ride = watch_ride(&mut app, agent, 200, |_, _| {});
    let (reached, told) = ride.reached.expect("set off");
    assert_eq!(told.seconds, MAX_CROSSING_SECONDS);
    let minutes = ride.crossed.expect("across within the hour") - reached;
    assert!((59..=61).contains(&minutes), "{minutes} minutes");
    assert!(ride.arrived.is_some());
}

/// Frames until `agent` waits at a carried link; the messages it was told meanwhile.
fn until_waiting(app: &mut App, agent: Entity, frames: usize) -> Vec<LinkReached> {
    let mut told = Vec::new();
    for _ in 0..frames {
        app.update();
        told.extend(messages::<LinkReached>(app).into_iter().filter(|r| r.entity == agent));
        if app.world().get::<WaitingAtLink>(agent).is_some() {
            return told;
        }
    }
    panic!("never waited at the link");
}

#[test]
fn a_carried_link_holds_the_agent_until_the_game_carries_it() {
    let mut app = app();
    let (a, b) = two_levels(&mut app);
    let door = link(&mut app, (a, 7, 2), (b, 0, 2), 2.0);
    app.world_mut().entity_mut(door).insert(LinkCrossing::Carried);
    let agent = walker(&mut app, a, GridPos::new(3, 2), on_b(b, 5, 2));
    let told = until_waiting(&mut app, agent, 300);
    assert_eq!(told.len(), 1);
    assert_eq!((told[0].link, told[0].crossing), (door, LinkCrossing::Carried));
    let entrance = centre_on(&app, a, GridPos::new(7, 2));
    // The game plays its animation for two seconds; the agent's request is re-sent every frame
    // for one of them. It stands at the door, told once.
    for frame in 0..125 {
        if frame < 60 {
            app.world_mut().entity_mut(agent).insert(PathRequest::to(on_b(b, 5, 2)));
        }
        app.update();
        assert!(position(&app, agent).distance(entrance) < 1e-3, "frame {frame}: left the door");
        assert!(messages::<LinkReached>(&app).is_empty(), "frame {frame}: told again");
        assert!(messages::<LinkCrossed>(&app).is_empty(), "frame {frame}: crossed alone");
        assert!(app.world().get::<WaitingAtLink>(agent).is_some());
    }
    app.world_mut().write_message(CarryAcross::across(agent));
    app.update();
    let crossed = messages::<LinkCrossed>(&app);
    assert_eq!(crossed.iter().map(|c| (c.entity, c.link)).collect::<Vec<_>>(), vec![(agent, door)]);
    assert!(app.world().get::<WaitingAtLink>(agent).is_none());
    let far = centre_on(&app, b, GridPos::new(0, 2));
    assert!(position(&app, agent).distance(far) < TILE, "put at the far end");
    for _ in 0..300 {
        app.update();
        if let Some(arrived) = arrived(&app, agent) {
            assert_eq!(arrived.cell, GridPos::new(5, 2));
            return;
        }
    }
    panic!("did not arrive after the carry");
}

#[test]
fn an_agent_the_game_gives_up_on_goes_another_way_and_may_use_the_link_later() {
    let mut app = app();
    let (a, b) = two_levels(&mut app);
    let (from, to) = (LinkEnd::new(a, GridPos::new(7, 2)), LinkEnd::new(b, GridPos::new(0, 2)));
    let door = app.world_mut().spawn((NavLink::two_way(from, to, 2.0), LinkCrossing::Carried)).id();
    let stairs = link(&mut app, (a, 7, 4), (b, 0, 4), 12.0);
    let agent = walker(&mut app, a, GridPos::new(4, 2), on_b(b, 5, 2));
    until_waiting(&mut app, agent, 300);
    // Locked: the game gives up.
    app.world_mut().write_message(CarryAcross::give_up(agent));
    let mut crossed = Vec::new();
    let mut shunned = false;
    for _ in 0..600 {
        app.update();
        shunned |= app.world().get::<AvoidLinks>(agent).is_some_and(|a| a.0 == vec![door]);
        crossed.extend(messages::<LinkCrossed>(&app).into_iter().filter(|c| c.entity == agent));
        if arrived(&app, agent).is_some() {
            break;
        }
    }
    assert!(shunned, "the door was avoided");
    assert_eq!(crossed.iter().map(|c| c.link).collect::<Vec<_>>(), vec![stairs]);
    assert_eq!(arrived(&app, agent).unwrap().cell, GridPos::new(5, 2));
    assert!(app.world().get::<AvoidLinks>(agent).is_none(), "forgotten on arrival");
    // Sent back (the stairs go one way): it waits at the door again.
    app.world_mut().entity_mut(agent).insert(PathRequest::to(on_b(a, 4, 2)));
    let told = until_waiting(&mut app, agent, 300);
    assert_eq!(told[0].link, door);
}

#[test]
fn a_carry_never_finished_leaves_the_agent_waiting_where_a_new_request_takes_it() {
    let mut app = app();
    let (a, b) = two_levels(&mut app);
    let door = link(&mut app, (a, 7, 2), (b, 0, 2), 2.0);
    app.world_mut().entity_mut(door).insert(LinkCrossing::Carried);
    let agent = walker(&mut app, a, GridPos::new(5, 2), on_b(b, 5, 2));
    until_waiting(&mut app, agent, 300);
    // An answer for an agent that does not wait, and for one that is gone: nothing happens.
    let bystander = walker(&mut app, a, GridPos::new(1, 1), PathGoal::Tile(GridPos::new(1, 1)));
    let gone = app.world_mut().spawn_empty().id();
    app.world_mut().despawn(gone);
    app.world_mut().write_message(CarryAcross::across(bystander));
    app.world_mut().write_message(CarryAcross::give_up(gone));
    for _ in 0..200 {
        app.update();
        assert!(app.world().get::<WaitingAtLink>(agent).is_some(), "still waiting");
    }
    app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(1, 4)));
    for _ in 0..300 {
        app.update();
        assert!(messages::<LinkCrossed>(&app).is_empty());
        if let Some(arrived) = arrived(&app, agent) {
            assert_eq!(arrived.cell, GridPos::new(1, 4));
            assert!(app.world().get::<WaitingAtLink>(agent).is_none());
            return;
        }
    }
    panic!("the new request did not take it away from the door");
}

/// A yard cut in two by a wall, with a gap at its top: the gate across the wall's middle is
/// the short way.
const YARD: [&str; 7] =
    [".........", "....#....", "....#....", "....#....", "....#....", "....#....", "....#...."];

#[test]
fn a_gate_open_to_one_team_or_profile_lets_only_those_through() {
    let mut app = app();
    let yard = spawn_level(&mut app, &YARD, Vec2::ZERO);
    app.update();
    let gate = link(&mut app, (yard, 3, 1), (yard, 5, 1), 2.0);
    const GUARDS: NavTeam = NavTeam(1);
    let mut profiles = NavProfiles::default();
    let soldier = profiles.insert("soldier", NavProfile::new()).unwrap();
    app.insert_resource(profiles);
    app.world_mut().entity_mut(gate).insert(LinkOpenTo::teams(&[GUARDS]).and_profiles(&[soldier]));
    let goal = || PathGoal::Tile(GridPos::new(6, 1));
    let guard = walker(&mut app, yard, GridPos::new(1, 1), goal());
    app.world_mut().entity_mut(guard).insert(GUARDS);
    let villager = walker(&mut app, yard, GridPos::new(1, 1), goal());
    let rival = walker(&mut app, yard, GridPos::new(1, 1), goal());
    app.world_mut().entity_mut(rival).insert(NavTeam(2));
    let trooper = walker(&mut app, yard, GridPos::new(1, 1), goal());
    app.world_mut().entity_mut(trooper).insert(AgentKind::with_profile(soldier));
    let mut through = Vec::new();
    let mut arrivals = Vec::new();
    for _ in 0..900 {
        app.update();
        through.extend(messages::<LinkCrossed>(&app).into_iter().map(|c| c.entity));
        arrivals.extend(messages::<Arrived>(&app).into_iter().map(|a| a.entity));
        if arrivals.len() == 4 {
            break;
        }
    }
    through.sort();
    let mut expected = vec![guard, trooper];
    expected.sort();
    assert_eq!(through, expected, "only the guard and the soldier take the gate");
    assert_eq!(arrivals.len(), 4, "the others went round by the gap");
    assert!(arrivals.contains(&villager) && arrivals.contains(&rival));
}

#[test]
fn a_gate_closed_to_a_walker_on_its_way_sends_it_round() {
    let mut app = app();
    let yard = spawn_level(&mut app, &YARD, Vec2::ZERO);
    app.update();
    let gate = link(&mut app, (yard, 3, 1), (yard, 5, 1), 2.0);
    app.world_mut().entity_mut(gate).insert(LinkOpenTo::teams(&[NavTeam(1)]));
    let guard = walker(&mut app, yard, GridPos::new(0, 1), PathGoal::Tile(GridPos::new(6, 1)));
    app.world_mut().entity_mut(guard).insert(NavTeam(1));
    for _ in 0..5 {
        app.update();
    }
    assert!(app.world().get::<NavPath>(guard).is_some_and(|p| p.legs.len() == 1), "by the gate");
    // The gate is shut to guards too.
    app.world_mut().entity_mut(gate).insert(LinkOpenTo::default());
    for _ in 0..900 {
        app.update();
        assert!(messages::<LinkCrossed>(&app).is_empty(), "took the gate shut to it");
        if arrived(&app, guard).is_some() {
            return;
        }
    }
    panic!("the guard did not go round");
}

#[test]
fn a_grid_locked_agent_climbs_once_the_far_cell_is_free_and_holds_it_meanwhile() {
    let mut app = app();
    let (a, b) = two_levels(&mut app);
    let ladder = link(&mut app, (a, 7, 2), (b, 0, 2), 4.0);
    app.world_mut().entity_mut(ladder).insert(LinkCrossing::Takes { seconds: 0.5 });
    // Someone stands on the ladder's top for a second, then walks off.
    let sitter = walker(&mut app, b, GridPos::new(0, 2), on_b(b, 0, 2));
    app.world_mut().entity_mut(sitter).insert(GridLocked::default());
    let climber = walker(&mut app, a, GridPos::new(5, 2), on_b(b, 0, 3));
    app.world_mut().entity_mut(climber).insert(GridLocked::default());
    let mut set_off = None;
    for frame in 0..600 {
        if frame == 60 {
            app.world_mut().entity_mut(sitter).insert(PathRequest::to(on_b(b, 4, 0)));
        }
        app.update();
        if messages::<LinkReached>(&app).iter().any(|r| r.entity == climber) {
            set_off = Some(frame);
        }
        let sitter_cell = app.world().get::<GridLocked>(sitter).and_then(|l| l.holds);
        if app.world().get::<CrossingLink>(climber).is_some() {
            // While it climbs it holds the top, and nobody else stands there.
            let holds = app.world().get::<GridLocked>(climber).and_then(|l| l.holds);
            assert_eq!(holds, Some((b, GridPos::new(0, 2))), "frame {frame}");
            assert_ne!(sitter_cell, holds, "frame {frame}: both on the ladder's top");
        }
        if arrived(&app, climber).is_some() {
            let set_off = set_off.expect("climbed");
            assert!(set_off >= 60, "set off at frame {set_off}, before the top was free");
            return;
        }
    }
    panic!("the grid-locked climber did not arrive");
}
