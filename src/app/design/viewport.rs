//! The canvas viewport: which part of the world the screen shows and how large, with conversions both ways,
//! zooming that keeps the point under the pointer fixed, fitting to bounds, and a clamped zoom.

use super::geometry::{Point, Rect};

/// The smallest zoom (a 10,000-node graph still fits a screen at this scale).
pub const MIN_ZOOM: f64 = 0.02;
/// The largest zoom.
pub const MAX_ZOOM: f64 = 4.0;

/// What the screen shows: `screen = (world - origin) * zoom`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// The world point at the screen's top-left corner.
    pub origin: Point,
    /// Screen pixels per world unit, within [`MIN_ZOOM`, `MAX_ZOOM`].
    pub zoom: f64,
    /// The screen's size in pixels.
    pub width: f64,
    pub height: f64,
}

impl Default for Viewport {
    fn default() -> Viewport {
        Viewport { origin: Point::new(-40.0, -40.0), zoom: 1.0, width: 960.0, height: 600.0 }
    }
}

impl Viewport {
    /// The world point under a screen point.
    pub fn to_world(&self, screen: Point) -> Point {
        Point::new(self.origin.x + screen.x / self.zoom, self.origin.y + screen.y / self.zoom)
    }

    /// The screen point of a world point.
    pub fn to_screen(&self, world: Point) -> Point {
        Point::new((world.x - self.origin.x) * self.zoom, (world.y - self.origin.y) * self.zoom)
    }

    /// The part of the world on screen.
    pub fn visible(&self) -> Rect {
        Rect { x: self.origin.x, y: self.origin.y, width: self.width / self.zoom, height: self.height / self.zoom }
    }

    /// Sets the screen size, keeping the top-left world point.
    pub fn resize(&mut self, width: f64, height: f64) {
        self.width = width.max(1.0);
        self.height = height.max(1.0);
    }

    /// Moves the view by a screen distance (content follows the pointer).
    pub fn pan_by(&mut self, dx: f64, dy: f64) {
        self.origin.x -= dx / self.zoom;
        self.origin.y -= dy / self.zoom;
    }

    /// Multiplies the zoom by `factor` (clamped), keeping the world point under `screen` where it is.
    pub fn zoom_at(&mut self, screen: Point, factor: f64) {
        let anchor = self.to_world(screen);
        self.zoom = clamp_zoom(self.zoom * factor);
        self.origin = Point::new(anchor.x - screen.x / self.zoom, anchor.y - screen.y / self.zoom);
    }

    /// Shows all of `bounds` with `margin` screen pixels around it, centred, never zooming in past 1 nor out
    /// past `floor` (the zoom below which labels would be unreadable). When the bounds do not fit at `floor`,
    /// the view shows their start instead — along each axis that overflows, the left or top edge sits at the
    /// margin — so the reader begins where the graph begins and scrolls on from there.
    pub fn fit(&mut self, bounds: &Rect, margin: f64, floor: f64) {
        let usable_w = (self.width - 2.0 * margin).max(1.0);
        let usable_h = (self.height - 2.0 * margin).max(1.0);
        let zoom = (usable_w / bounds.width.max(1.0)).min(usable_h / bounds.height.max(1.0));
        self.zoom = clamp_zoom(zoom.min(1.0).max(floor.min(1.0)));
        self.center_on(bounds.center());
        let shown = self.visible();
        if bounds.width > shown.width {
            self.origin.x = bounds.x - margin / self.zoom;
        }
        if bounds.height > shown.height {
            self.origin.y = bounds.y - margin / self.zoom;
        }
    }

    /// Puts `world` at the centre of the screen, keeping the zoom.
    pub fn center_on(&mut self, world: Point) {
        self.origin = Point::new(world.x - self.width / 2.0 / self.zoom, world.y - self.height / 2.0 / self.zoom);
    }

    /// The SVG transform that draws world coordinates on this screen.
    pub fn transform(&self) -> String {
        format!("translate({:.2} {:.2}) scale({:.5})", -self.origin.x * self.zoom, -self.origin.y * self.zoom, self.zoom)
    }
}

/// A zoom within [`MIN_ZOOM`, `MAX_ZOOM`] (a non-finite zoom becomes 1).
pub fn clamp_zoom(zoom: f64) -> f64 {
    if zoom.is_finite() {
        zoom.clamp(MIN_ZOOM, MAX_ZOOM)
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Point, b: Point) -> bool {
        a.distance(b) < 1e-9
    }

    #[test]
    fn screen_and_world_convert_both_ways() {
        let view = Viewport { origin: Point::new(100.0, -50.0), zoom: 2.0, width: 800.0, height: 600.0 };
        for p in [Point::new(0.0, 0.0), Point::new(13.5, 700.0), Point::new(-40.0, 2.0)] {
            assert!(close(view.to_screen(view.to_world(p)), p));
        }
        assert_eq!(view.to_world(Point::new(0.0, 0.0)), Point::new(100.0, -50.0));
        assert_eq!(view.to_world(Point::new(800.0, 600.0)), Point::new(500.0, 250.0));
        assert_eq!(view.visible(), Rect { x: 100.0, y: -50.0, width: 400.0, height: 300.0 });
    }

    #[test]
    fn zooming_keeps_the_point_under_the_pointer() {
        let mut view = Viewport::default();
        for (at, factor) in [(Point::new(300.0, 200.0), 1.5), (Point::new(0.0, 590.0), 0.5), (Point::new(959.0, 1.0), 3.0)] {
            let before = view.to_world(at);
            view.zoom_at(at, factor);
            assert!(close(view.to_world(at), before), "zoom {factor} at {at:?}");
        }
    }

    #[test]
    fn zoom_is_clamped_even_when_asked_for_absurd_factors() {
        let mut view = Viewport::default();
        view.zoom_at(Point::new(10.0, 10.0), 1e9);
        assert_eq!(view.zoom, MAX_ZOOM);
        view.zoom_at(Point::new(10.0, 10.0), 1e-9);
        assert_eq!(view.zoom, MIN_ZOOM);
        assert_eq!(clamp_zoom(f64::NAN), 1.0);
    }

    #[test]
    fn fitting_shows_the_whole_bounds_centred_and_never_magnifies() {
        let mut view = Viewport { width: 1000.0, height: 500.0, ..Viewport::default() };
        let wide = Rect { x: -2000.0, y: 0.0, width: 4000.0, height: 100.0 };
        view.fit(&wide, 20.0, MIN_ZOOM);
        assert!((view.zoom - 960.0 / 4000.0).abs() < 1e-12);
        assert!(view.visible().encloses(&wide));
        assert!(close(view.to_screen(wide.center()), Point::new(500.0, 250.0)));
        let small = Rect { x: 0.0, y: 0.0, width: 10.0, height: 10.0 };
        view.fit(&small, 20.0, MIN_ZOOM);
        assert_eq!(view.zoom, 1.0);
        view.fit(&small, 20.0, 3.0);
        assert_eq!(view.zoom, 1.0, "a floor above 1 never magnifies either");
    }

    #[test]
    fn fitting_stops_at_the_floor_and_then_shows_where_the_graph_starts() {
        let mut view = Viewport { width: 1000.0, height: 500.0, ..Viewport::default() };
        let wide = Rect { x: -2000.0, y: 0.0, width: 4000.0, height: 100.0 };
        view.fit(&wide, 20.0, 0.88);
        assert_eq!(view.zoom, 0.88);
        assert!(!view.visible().encloses(&wide), "the rest is scrolled to");
        assert!(close(view.to_screen(Point::new(-2000.0, 0.0)), Point::new(20.0, view.to_screen(Point::new(0.0, 0.0)).y)), "the left edge at the margin");
        assert!((view.to_screen(wide.center()).y - 250.0).abs() < 1e-9, "still centred along the axis that fits");
        let tall = Rect { x: 0.0, y: 0.0, width: 300.0, height: 3000.0 };
        view.fit(&tall, 20.0, 0.88);
        assert!((view.to_screen(Point::new(0.0, 0.0)).y - 20.0).abs() < 1e-9, "the top edge at the margin");
        assert!((view.to_screen(tall.center()).x - 500.0).abs() < 1e-9);
    }

    #[test]
    fn panning_moves_content_with_the_pointer() {
        let mut view = Viewport { zoom: 2.0, ..Viewport::default() };
        let world = Point::new(30.0, 40.0);
        let before = view.to_screen(world);
        view.pan_by(25.0, -10.0);
        assert!(close(view.to_screen(world), Point::new(before.x + 25.0, before.y - 10.0)));
        assert!(view.transform().starts_with("translate("));
    }
}
