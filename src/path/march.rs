//! A group marching in formation: an anchor walks one route at the group's pace and every
//! member keeps its slot round it, where the slot is open and in sight of the anchor; where it
//! is not (a chokepoint, a bridge), the member files along the route behind the group (as
//! many abreast as the way is wide there, up to the formation's width), and takes its slot
//! again once it is open ([`March`]).

use bevy::math::Vec2;

/// Where a member was sent this frame (see [`March::targets`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Place {
    /// Its slot round the anchor.
    InFormation(Vec2),
    /// A point on the route behind the group: its place in the file.
    InFile(Vec2),
}

impl Place {
    /// The point itself.
    pub fn point(self) -> Vec2 {
        match self {
            Place::InFormation(p) | Place::InFile(p) => p,
        }
    }
}

/// A group on the march: its route (world points, from where it forms up to its goal), each
/// member's slot (an offset from the anchor, world units, the formation's fixed orientation)
/// and how far the anchor has come. Plain data: the plugin moves the members
/// ([`GroupOrder::marching`](crate::plugin::GroupOrder)), a game may use it for its own.
///
/// ```
/// use bevy::math::Vec2;
/// use bevy_tilemap_nav::path::{March, Place};
///
/// // Two members side by side walking east along y = 0; a wall at y = 1 beyond x = 4.
/// let route = vec![Vec2::ZERO, Vec2::new(10.0, 0.0)];
/// let slots = vec![Vec2::ZERO, Vec2::new(0.0, 1.0)];
/// let mut march = March::new(route, slots, 1.0).unwrap();
/// let clear = |_: Vec2, to: Vec2| !(to.y > 0.5 && to.x > 4.0);
/// march.advance(2.0);
/// assert_eq!(march.targets(clear)[1], Place::InFormation(Vec2::new(2.0, 1.0)));
/// march.advance(4.0);
/// // Past x = 4 the second cannot keep its slot: it files behind the first.
/// assert_eq!(march.targets(clear)[1], Place::InFile(Vec2::new(5.0, 0.0)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct March {
    route: Vec<Vec2>,
    /// Distance along the route to each of its points.
    along: Vec<f32>,
    slots: Vec<Vec2>,
    /// Each member's place in the file when it files (0 first): by how far ahead its slot is.
    rank: Vec<usize>,
    /// How far behind the anchor the file begins: the depth of the formation behind it.
    back: f32,
    /// The most members abreast in one row of the file: the formation's width in gaps.
    across: usize,
    /// Distance between members in file.
    gap: f32,
    travelled: f32,
}

impl March {
    /// A march along `route` (at least one point) with one slot a member, `gap` apart in file.
    /// `None` when the route is empty or any number given is not finite, or `gap` is not above 0.
    pub fn new(route: Vec<Vec2>, slots: Vec<Vec2>, gap: f32) -> Option<Self> {
        let finite = route.iter().chain(&slots).all(|p| p.is_finite());
        if route.is_empty() || !finite || !(gap.is_finite() && gap > 0.0) {
            return None;
        }
        let mut along = Vec::with_capacity(route.len());
        let mut sum = 0.0;
        for (i, p) in route.iter().enumerate() {
            if i > 0 {
                sum += p.distance(route[i - 1]);
            }
            along.push(sum);
        }
        let way = (route[route.len() - 1] - route[0]).normalize_or_zero();
        let ahead = |s: &Vec2| s.dot(way);
        let mut order: Vec<usize> = (0..slots.len()).collect();
        // Ahead first; across the way (left to right) where level.
        order.sort_by(|&a, &b| {
            let key = |i: usize| (-ahead(&slots[i]), slots[i].perp_dot(way));
            key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal)
        });
        let mut rank = vec![0; slots.len()];
        for (place, &i) in order.iter().enumerate() {
            rank[i] = place;
        }
        let back = slots.iter().map(|s| -ahead(s)).fold(0.0f32, f32::max);
        let side = |s: &Vec2| s.dot(way.perp());
        let (left, right) =
            slots.iter().map(side).fold((0.0f32, 0.0f32), |(l, r), x| (l.max(x), r.min(x)));
        // Slots a gap apart across the way: (left - right) / gap + 1 of them abreast.
        let across = (((left - right) / gap).round() as usize).saturating_add(1).min(slots.len());
        Some(Self { route, along, slots, rank, back, across: across.max(1), gap, travelled: 0.0 })
    }

    /// The route's length.
    pub fn length(&self) -> f32 {
        self.along.last().copied().unwrap_or(0.0)
    }

    /// How far along the route the anchor is.
    pub fn travelled(&self) -> f32 {
        self.travelled
    }

    /// True once the anchor is at the route's end.
    pub fn is_done(&self) -> bool {
        self.travelled >= self.length()
    }

    /// The members in the order they file (the first first).
    pub fn file_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.slots.len()).collect();
        order.sort_by_key(|&i| self.rank[i]);
        order
    }

    /// How far back from the anchor the last of the file may stand.
    pub fn file_length(&self) -> f32 {
        self.back + self.gap * (self.slots.len() as f32 + 1.0)
    }

    /// How deep the formation reaches behind its anchor (along the way from the route's start
    /// to its end).
    pub fn depth(&self) -> f32 {
        self.back
    }

    /// How far the anchor has yet to go.
    pub fn remaining(&self) -> f32 {
        (self.length() - self.travelled).max(0.0)
    }

    /// The members' slots (offsets from the anchor).
    pub fn slots(&self) -> &[Vec2] {
        &self.slots
    }

    /// The point `distance` along the route (clamped to its ends).
    pub fn point_at(&self, distance: f32) -> Vec2 {
        let d = distance.clamp(0.0, self.length());
        let i = self.along.partition_point(|&a| a <= d).clamp(1, self.route.len());
        if i >= self.route.len() {
            return self.route[self.route.len() - 1];
        }
        let (a, b) = (self.route[i - 1], self.route[i]);
        let span = self.along[i] - self.along[i - 1];
        if span <= 0.0 { b } else { a.lerp(b, (d - self.along[i - 1]) / span) }
    }

    /// The anchor: the point the formation forms round.
    pub fn anchor(&self) -> Vec2 {
        self.point_at(self.travelled)
    }

    /// Moves the anchor `distance` on (a distance not above 0, or not a number, stays).
    pub fn advance(&mut self, distance: f32) {
        if distance.is_finite() && distance > 0.0 {
            self.travelled = (self.travelled + distance).min(self.length());
        }
    }

    /// The way the route heads `distance` along it (a unit vector; zero for a route of one
    /// point).
    fn heading_at(&self, distance: f32) -> Vec2 {
        let d = distance.clamp(0.0, self.length());
        let legs = self.route.len().saturating_sub(1);
        // The leg it is on (leg `on - 1` ends at point `on`), else the last with a length
        // before it, else the first after it.
        let on = self.along.partition_point(|&a| a <= d).clamp(1, legs.max(1)).min(legs);
        let way = |leg: usize| (self.route[leg + 1] - self.route[leg]).normalize_or_zero();
        (0..on).rev().chain(on..legs).map(way).find(|&w| w != Vec2::ZERO).unwrap_or(Vec2::ZERO)
    }

    /// The offsets across the way (left of it positive) of the places in the row of the file
    /// `distance` along the route: a gap apart, as many as fit where `clear` says the way
    /// across is open (with room for a body to either side), up to the formation's width and
    /// `wanted`; centred on the route where they fit so, else shifted to where the way is
    /// open. At least the route itself. Returns the row's point on the route and the way
    /// across (left), with the offsets.
    fn row(
        &self,
        distance: f32,
        wanted: usize,
        clear: &impl Fn(Vec2, Vec2) -> bool,
    ) -> (Vec2, Vec2, Vec<f32>) {
        let at = self.point_at(distance);
        let side = self.heading_at(distance).perp();
        let most_abreast = self.across.min(wanted).max(1);
        let most = 2 * (most_abreast as i32 - 1);
        if side == Vec2::ZERO || most == 0 {
            return (at, side, vec![0.0]);
        }
        // Half a gap at a time out to either side, while a body there would be on open ground.
        let half = self.gap * 0.5;
        let open = |k: i32| {
            let o = k as f32 * half;
            clear(at, at + side * (o + o.signum() * self.gap * 0.45))
        };
        let left = (1..=most).take_while(|&k| open(k)).last().unwrap_or(0);
        let right = -(1..=most).take_while(|&k| open(-k)).last().unwrap_or(0);
        let abreast = (((left - right) / 2 + 1) as usize).min(most_abreast);
        let span = 2 * (abreast as i32 - 1);
        let first = (-(abreast as i32 - 1)).clamp(right, left - span);
        let offsets = (0..abreast as i32).rev().map(|c| (first + 2 * c) as f32 * half).collect();
        (at, side, offsets)
    }

    /// Where each member goes this frame: its slot round the anchor when `clear(anchor, slot)`
    /// (the game's test that the straight way between two points is open), else its place in
    /// the file: behind the formation along the route, the members filing in order of how far
    /// ahead their slots are, in rows `gap` apart, each row as many abreast as the way is wide
    /// there (up to the formation's width; in a row, those whose slots are further left stand
    /// further left). One whose place in the file would be behind the route's start waits at
    /// its slot round the start, or at the start.
    pub fn targets(&self, clear: impl Fn(Vec2, Vec2) -> bool) -> Vec<Place> {
        let anchor = self.anchor();
        let keeps: Vec<bool> = self.slots.iter().map(|&s| clear(anchor, anchor + s)).collect();
        // A filing member's place among those filing (they close up on those in formation).
        let mut filing: Vec<usize> = (0..self.slots.len()).filter(|&i| !keeps[i]).collect();
        filing.sort_by_key(|&i| self.rank[i]);
        let mut places: Vec<Place> =
            self.slots.iter().map(|&s| Place::InFormation(anchor + s)).collect();
        let start = self.route[0];
        let mut rows = 0.0;
        let mut rest = filing.as_mut_slice();
        while !rest.is_empty() {
            rows += 1.0;
            let behind = self.travelled - self.back - self.gap * rows;
            if behind < 0.0 {
                // Places in the file behind the route's start: they wait at their slots round
                // the start (or at the start) until the file reaches them.
                for &mut i in rest {
                    let waits = start + self.slots[i];
                    places[i] = Place::InFile(if clear(start, waits) { waits } else { start });
                }
                break;
            }
            let (point, side, offsets) = self.row(behind, rest.len(), &clear);
            let (row, after) = rest.split_at_mut(offsets.len());
            // Left to right, as their slots stand across the way.
            row.sort_by(|&a, &b| side.dot(self.slots[b]).total_cmp(&side.dot(self.slots[a])));
            for (&i, offset) in row.iter().zip(offsets) {
                places[i] = Place::InFile(point + side * offset);
            }
            rest = after;
        }
        places
    }
}

/// One member's step of at most `reach` from `at` towards `target`, never onto a point
/// `open` says no to: straight, else along one axis (sliding along a wall), else it stays.
pub fn step_towards(at: Vec2, target: Vec2, reach: f32, open: impl Fn(Vec2) -> bool) -> Vec2 {
    let to = target - at;
    let length = to.length();
    if !(reach.is_finite() && reach > 0.0 && length.is_finite()) || length == 0.0 {
        return at;
    }
    let step = if length <= reach { to } else { to * (reach / length) };
    [step, Vec2::new(step.x, 0.0), Vec2::new(0.0, step.y)]
        .into_iter()
        .map(|s| at + s)
        .find(|&p| p != at && open(p))
        .unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line() -> March {
        let route = vec![Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)];
        let slots = vec![Vec2::ZERO, Vec2::new(0.0, -1.0), Vec2::new(-1.0, 0.0)];
        March::new(route, slots, 1.0).unwrap()
    }

    #[test]
    fn the_anchor_walks_the_route_and_stops_at_its_end() {
        let mut march = line();
        assert_eq!(march.length(), 20.0);
        march.advance(12.5);
        assert_eq!(march.anchor(), Vec2::new(10.0, 2.5));
        march.advance(f32::NAN);
        march.advance(-3.0);
        assert_eq!(march.travelled(), 12.5);
        march.advance(1e30);
        assert!(march.is_done());
        assert_eq!(march.anchor(), Vec2::new(10.0, 10.0));
        assert_eq!(march.point_at(-5.0), Vec2::ZERO);
    }

    #[test]
    fn open_ground_keeps_every_slot() {
        let mut march = line();
        march.advance(4.0);
        let at = march.targets(|_, _| true);
        let expected = [Vec2::new(4.0, 0.0), Vec2::new(4.0, -1.0), Vec2::new(3.0, 0.0)];
        assert_eq!(at, expected.map(Place::InFormation).to_vec());
    }

    #[test]
    fn those_shut_out_file_behind_in_order_of_their_slots() {
        // East along y = 0: the anchor's slot, one a cell behind it, one level on its left.
        let route = vec![Vec2::ZERO, Vec2::new(10.0, 0.0)];
        let slots = vec![Vec2::ZERO, Vec2::new(-1.0, 0.0), Vec2::new(0.0, 1.0)];
        let mut march = March::new(route, slots, 1.0).unwrap();
        march.advance(6.0);
        // Only the anchor's own slot is open: the others file behind the formation's depth
        // (1), a gap apart, the one whose slot is level with the anchor first.
        let at = march.targets(|a, b| a == b);
        assert_eq!(at[0], Place::InFormation(Vec2::new(6.0, 0.0)));
        assert_eq!(at[2], Place::InFile(Vec2::new(4.0, 0.0)));
        assert_eq!(at[1], Place::InFile(Vec2::new(3.0, 0.0)));
        // Near the start the file waits at the route's first point.
        let mut early = march.clone();
        early.travelled = 1.0;
        assert_eq!(early.targets(|a, b| a == b)[1], Place::InFile(Vec2::ZERO));
        // Where its slot round the start is open, it waits there.
        let open_at_start = |a: Vec2, b: Vec2| a == b || a == Vec2::ZERO;
        assert_eq!(early.targets(open_at_start)[1], Place::InFile(Vec2::new(-1.0, 0.0)));
    }

    /// Four abreast, two deep, marching east into a passage two wide (y = 0 and y = 1, from
    /// x = 10): the two middle columns keep their slots, the outer two file behind, two
    /// abreast where the passage holds two (shifted off the route, which runs along its
    /// south side), the left-hand slots on the left, the front rank first.
    #[test]
    fn the_file_is_as_wide_as_the_way() {
        let route = vec![Vec2::ZERO, Vec2::new(20.0, 0.0)];
        let slots: Vec<Vec2> =
            (0..8).map(|i| Vec2::new(-((i / 4) as f32), (i % 4) as f32 - 1.0)).collect();
        let mut march = March::new(route, slots, 1.0).unwrap();
        let open = |p: Vec2| p.x < 9.5 || (-0.5..1.5).contains(&p.y);
        let clear = |a: Vec2, b: Vec2| (0..=40).all(|i| open(a.lerp(b, i as f32 / 40.0)));
        march.advance(15.0);
        let at = march.targets(clear);
        for (i, place) in at.iter().enumerate() {
            let kept = matches!(place, Place::InFormation(_));
            assert_eq!(kept, i % 4 == 1 || i % 4 == 2, "member {i}: {place:?}");
        }
        // Slot y = 2 is left of slot y = -1 (facing east): it files on the passage's north side.
        assert_eq!(at[3], Place::InFile(Vec2::new(13.0, 1.0)));
        assert_eq!(at[0], Place::InFile(Vec2::new(13.0, 0.0)));
        assert_eq!(at[7], Place::InFile(Vec2::new(12.0, 1.0)));
        assert_eq!(at[4], Place::InFile(Vec2::new(12.0, 0.0)));
        // Where the passage is one wide, so is the file.
        let narrow = |p: Vec2| p.x < 9.5 || (-0.5..0.5).contains(&p.y);
        let clear = |a: Vec2, b: Vec2| (0..=40).all(|i| narrow(a.lerp(b, i as f32 / 40.0)));
        let at = march.targets(clear);
        // The front rank files first, north to south: 3, 2, 0, then the back rank.
        assert_eq!(at[3], Place::InFile(Vec2::new(13.0, 0.0)));
        assert_eq!(at[2], Place::InFile(Vec2::new(12.0, 0.0)));
        assert_eq!(at[0], Place::InFile(Vec2::new(11.0, 0.0)));
        assert_eq!(at[7], Place::InFile(Vec2::new(10.0, 0.0)));
        // Out of the passage, two abreast again.
        assert_eq!(at[6], Place::InFile(Vec2::new(9.0, 0.5)));
        assert_eq!(at[4], Place::InFile(Vec2::new(9.0, -0.5)));
        // On open ground the rows are the formation's width, centred on the route.
        // Every slot but the anchor's shut: seven file, four abreast then three.
        let at = march.targets(|a, b| a == b || b.x < 13.5);
        let row = |x: f32| {
            let mut ys: Vec<f32> =
                at.iter().map(|p| p.point()).filter(|p| p.x == x).map(|p| p.y).collect();
            ys.sort_by(f32::total_cmp);
            ys
        };
        assert_eq!(row(13.0), vec![-1.5, -0.5, 0.5, 1.5]);
        assert_eq!(row(12.0), vec![-1.0, 0.0, 1.0]);
    }

    /// The file's rows lie across the leg of the route they are on; a leg of no length (a
    /// point given twice) takes the heading of the leg before it, or after it at the start.
    #[test]
    fn rows_lie_across_the_leg_they_are_on() {
        let march = line();
        assert_eq!(march.heading_at(5.0), Vec2::X);
        assert_eq!(march.heading_at(15.0), Vec2::Y);
        assert_eq!(march.heading_at(-3.0), Vec2::X);
        assert_eq!(march.heading_at(1e30), Vec2::Y);
        let twice = vec![Vec2::ZERO, Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(4.0, 0.0)];
        let march = March::new(twice, vec![Vec2::ZERO], 1.0).unwrap();
        assert_eq!(march.heading_at(0.0), Vec2::X);
        assert_eq!(march.heading_at(4.0), Vec2::X);
        let point = March::new(vec![Vec2::ONE], vec![Vec2::ZERO, Vec2::Y], 1.0).unwrap();
        assert_eq!(point.heading_at(0.0), Vec2::ZERO);
        assert_eq!(point.targets(|a, b| a == b)[1], Place::InFile(Vec2::ONE));
    }

    #[test]
    fn bad_numbers_make_no_march() {
        assert!(March::new(Vec::new(), vec![Vec2::ZERO], 1.0).is_none());
        assert!(March::new(vec![Vec2::NAN], vec![Vec2::ZERO], 1.0).is_none());
        assert!(March::new(vec![Vec2::ZERO], vec![Vec2::INFINITY], 1.0).is_none());
        assert!(March::new(vec![Vec2::ZERO], vec![Vec2::ZERO], 0.0).is_none());
        // One point: a route of length 0, done at once.
        assert!(March::new(vec![Vec2::ONE], vec![], 1.0).unwrap().is_done());
    }

    #[test]
    fn a_step_slides_along_a_wall_and_never_enters_it() {
        let open = |p: Vec2| p.y < 1.0;
        let at = step_towards(Vec2::new(0.0, 0.5), Vec2::new(3.0, 3.0), 1.0, open);
        assert!(open(at) && at.x > 0.0, "slides east: {at}");
        assert_eq!(step_towards(Vec2::ZERO, Vec2::new(0.5, 0.0), 1.0, open), Vec2::new(0.5, 0.0));
        assert_eq!(step_towards(Vec2::ZERO, Vec2::new(0.0, 5.0), 2.0, |p| p.y < 0.5), Vec2::ZERO);
        assert_eq!(step_towards(Vec2::ZERO, Vec2::NAN, 2.0, open), Vec2::ZERO);
        assert_eq!(step_towards(Vec2::ZERO, Vec2::X, f32::NAN, open), Vec2::ZERO);
    }
}
