//! How a character moves in a side view: speeds, jump, gravity and body.

use super::error::SideViewError;

/// A side-view character's movement: run and climb speeds in tiles a second, how high it
/// jumps in tiles, gravity in tiles a second squared, and its body in tiles.
///
/// Jumps are planned at every whole number of tiles up to `jump_height`, and at
/// `jump_height` itself (so a low ceiling is passed under by a lower jump); above 16 tiles,
/// at 16 more heights spread evenly up to it.
///
/// ```
/// use bevy_tilemap_nav::side_view::JumpProfile;
///
/// let hero = JumpProfile::new(6.0, 3.0, 40.0).with_body(1, 2).with_steps(true);
/// assert!(hero.check().is_ok());
/// assert!(JumpProfile::new(6.0, f32::NAN, 40.0).check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy", derive(bevy::prelude::Reflect))]
pub struct JumpProfile {
    /// Tiles a second on the ground and across in the air (the fastest it ever moves sideways).
    pub run_speed: f32,
    /// Tiles a second up and down ladders.
    pub climb_speed: f32,
    /// The highest jump, in tiles (feet above where they left the ground).
    pub jump_height: f32,
    /// Tiles a second squared, downwards.
    pub gravity: f32,
    /// Body width in tiles (its position is its lower left tile).
    pub body_width: u32,
    /// Body height in tiles.
    pub body_height: u32,
    /// Walks up and down single-tile steps without jumping or falling.
    pub steps: bool,
}

/// The largest body side, in tiles.
pub const MAX_BODY: u32 = 16;
/// The highest jump a profile may have, in tiles.
pub const MAX_JUMP_HEIGHT: f32 = 256.0;
/// Jumps are planned at every whole tile up to this height.
const WHOLE_JUMPS: f64 = 16.0;

impl JumpProfile {
    /// A 1 x 1 character; climbs at half its run speed; no steps.
    pub fn new(run_speed: f32, jump_height: f32, gravity: f32) -> Self {
        Self {
            run_speed,
            climb_speed: run_speed * 0.5,
            jump_height,
            gravity,
            body_width: 1,
            body_height: 1,
            steps: false,
        }
    }

    /// A character given by the speed its jumps leave the ground at (tiles a second) rather
    /// than their height: the height is `jump_speed² / (2 gravity)`.
    pub fn from_jump_speed(run_speed: f32, jump_speed: f32, gravity: f32) -> Self {
        Self::new(run_speed, jump_speed * jump_speed / (2.0 * gravity), gravity)
    }

    /// The body, in tiles.
    pub fn with_body(mut self, width: u32, height: u32) -> Self {
        self.body_width = width;
        self.body_height = height;
        self
    }

    /// Climb speed, tiles a second.
    pub fn with_climb_speed(mut self, climb_speed: f32) -> Self {
        self.climb_speed = climb_speed;
        self
    }

    /// Whether it walks single-tile steps up and down.
    pub fn with_steps(mut self, steps: bool) -> Self {
        self.steps = steps;
        self
    }

    /// Every number in range: speeds in (0, 1000], jump height in (0, 256], gravity in
    /// (0, 10000], body sides 1 to 16. Errors name the first one that is not.
    pub fn check(&self) -> Result<(), SideViewError> {
        let numbers = [
            ("run speed", self.run_speed, 1000.0, "(0, 1000] tiles/s"),
            ("climb speed", self.climb_speed, 1000.0, "(0, 1000] tiles/s"),
            ("jump height", self.jump_height, MAX_JUMP_HEIGHT, "(0, 256] tiles"),
            ("gravity", self.gravity, 10000.0, "(0, 10000] tiles/s²"),
        ];
        for (what, value, most, range) in numbers {
            if !(value > 0.0 && value <= most) {
                return Err(SideViewError::InvalidProfile { what, value: f64::from(value), range });
            }
        }
        for (what, side) in [("body width", self.body_width), ("body height", self.body_height)] {
            if side == 0 || side > MAX_BODY {
                return Err(SideViewError::InvalidProfile {
                    what,
                    value: f64::from(side),
                    range: "1 to 16 tiles",
                });
            }
        }
        Ok(())
    }

    /// The jump heights planned with, lowest first, on a map whose ceiling lets the feet rise
    /// `room` tiles at most: whole tiles up to 16, then 16 more spread evenly up to the
    /// highest, and the highest itself. A jump higher than `room` is planned as `room`.
    pub fn jump_heights(&self, room: f64) -> Vec<f64> {
        let top = f64::from(self.jump_height).min(room);
        if top <= 0.0 {
            return Vec::new();
        }
        let whole = top.floor().min(WHOLE_JUMPS);
        let mut heights: Vec<f64> = (1..=whole as usize).map(|i| i as f64).collect();
        if top > WHOLE_JUMPS {
            heights
                .extend((1..=16).map(|i| WHOLE_JUMPS + (top - WHOLE_JUMPS) * f64::from(i) / 16.0));
        }
        if heights.last().is_none_or(|&h| h < top) {
            heights.push(top);
        }
        heights
    }
}
