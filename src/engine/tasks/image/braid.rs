//! Drawing a braided picture: a random braid schedule (which neighbouring paths swap places between which
//! columns), jittered node positions, and the validation that accepts a picture only if it is legible.
//!
//! Paths are kept in start order (path 0 starts at the top). Between two columns a path either keeps its row
//! or swaps with a neighbouring path; a swap is drawn as two crossing edges. Node positions are whole pixels,
//! so every figure below is computed from integers with `+ - * /` and `sqrt` only, and is the same on every
//! platform.

use super::params::{ImageParams, LINE_WIDTH, MARGIN, NODE_RADIUS};
use crate::engine::rng::InstanceRng;

/// Pictures drawn before giving up (each with a fresh braid and fresh positions).
pub const MAX_ATTEMPTS: u32 = 5000;
/// After this many failed attempts the jitter shrinks by [`JITTER_SHRINK`], and again after each further run of
/// as many: crowded pictures end up drawable, while the defaults (accepted within a few dozen attempts) never shrink.
pub const ATTEMPTS_PER_SHRINK: u32 = 250;
/// Factor applied to the jitter after every [`ATTEMPTS_PER_SHRINK`] failed attempts.
pub const JITTER_SHRINK: f64 = 0.85;
/// Smallest distance between two node centres.
pub const MIN_NODE_DISTANCE: f64 = 2.0 * NODE_RADIUS + 18.0;
/// Smallest distance between a node centre and an edge of another path.
pub const MIN_NODE_CLEARANCE: f64 = NODE_RADIUS + 16.0;
/// Smallest distance between a crossing point and a node centre, so no crossing seems to touch a node.
pub const MIN_CROSSING_NODE_DISTANCE: f64 = 2.0 * NODE_RADIUS + 14.0;
/// Smallest sine of the angle between two crossing edges (about 25 degrees), so crossings never look like overlaps.
pub const MIN_CROSSING_SINE: f64 = 0.42;
/// Smallest distance between two crossing points, so no three edges seem to meet in one place.
pub const MIN_CROSSING_SEPARATION: f64 = 30.0;
/// Smallest distance between a node centre and the canvas edge.
pub const EDGE_CLEARANCE: f64 = NODE_RADIUS + LINE_WIDTH + 4.0;

/// Braid schedules tried per attempt before the attempt is abandoned.
const SCHEDULE_TRIES: u32 = 40;
/// Re-draws of one column's jitter before the attempt is abandoned.
const COLUMN_TRIES: u32 = 60;
/// Horizontal jitter is capped at this share of the column gap, so x always increases along a path.
const X_JITTER_SHARE: f64 = 0.3;
/// Vertical jitter is capped at this share of the row gap, so crowded pictures stay drawable (no effect at the
/// defaults: 145 px against a 174 px gap).
const Y_JITTER_SHARE: f64 = 0.85;

/// A node position in pixels (y grows downwards).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// A planned crossing: paths `a < b` (start indices) swap rows between column `gap` and `gap + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BraidCrossing {
    pub gap: usize,
    pub a: usize,
    pub b: usize,
}

/// A crossing found in the drawing: edge `edge_a` of path `a` crosses edge `edge_b` of path `b` (`a < b`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    pub a: usize,
    pub edge_a: usize,
    pub b: usize,
    pub edge_b: usize,
    pub x: f64,
    pub y: f64,
    /// Sine of the angle between the two edges.
    pub sine: f64,
}

/// What validation measured on an accepted picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    pub min_node_distance: f64,
    pub min_node_clearance: f64,
    /// Smallest distance between two edges of different paths that do not cross (infinite with one path).
    pub min_edge_distance: f64,
    /// Smallest crossing sine (1 when nothing crosses).
    pub min_crossing_sine: f64,
    /// Smallest distance between two crossing points (infinite with fewer than two crossings).
    pub min_crossing_separation: f64,
    /// Smallest distance between a crossing point and a node centre (infinite without crossings).
    pub min_crossing_node_distance: f64,
    pub crossings: Vec<Crossing>,
}

/// An accepted layout: positions in start order, the braid it realises and its figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// `paths[k][j]`: node `j` (left to right) of the path whose start node is `k`-th from the top.
    pub paths: Vec<Vec<Point>>,
    pub braid: Vec<BraidCrossing>,
    pub figures: Figures,
    /// Pictures drawn until this one was accepted (1 = the first).
    pub attempts: u32,
    /// The vertical jitter bound actually used, in pixels (the perturbation, capped and possibly shrunk).
    pub jitter_y: u32,
    /// The horizontal jitter bound actually used, in pixels.
    pub jitter_x: u32,
}

/// Why a picture could not be drawn.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LayoutError {
    #[error("no legible picture after {0} attempts")]
    Exhausted(u32),
}

/// Draws a legible braided picture, redrawing up to [`MAX_ATTEMPTS`] times. `params` must pass `check`.
pub fn draw(params: &ImageParams, rng: &mut InstanceRng) -> Result<Layout, LayoutError> {
    let mut shrink = 1.0;
    for attempt in 1..=MAX_ATTEMPTS {
        if attempt > 1 && (attempt - 1) % ATTEMPTS_PER_SHRINK == 0 {
            shrink *= JITTER_SHRINK;
        }
        let (jitter_x, jitter_y) = jitter_bounds(params, shrink);
        let Some(braid) = sample_braid(params, rng) else { continue };
        let Some(paths) = place(params, &braid, jitter_x, jitter_y, rng) else { continue };
        if let Ok(figures) = validate(params, &paths, &braid) {
            return Ok(Layout { paths, braid, figures, attempts: attempt, jitter_x: jitter_x as u32, jitter_y: jitter_y as u32 });
        }
    }
    Err(LayoutError::Exhausted(MAX_ATTEMPTS))
}

/// A random braid: per gap, disjoint swaps of neighbouring rows whose paths are at most
/// `max_crossing_index_distance` apart in start order, until every path has `crossing_partners` partners.
pub fn sample_braid(params: &ImageParams, rng: &mut InstanceRng) -> Option<Vec<BraidCrossing>> {
    let p = params.num_paths as usize;
    let gaps = params.nodes_per_path as usize - 1;
    let need = params.crossing_partners as usize;
    let reach = params.max_crossing_index_distance as usize;
    for _ in 0..SCHEDULE_TRIES {
        let mut row_path: Vec<usize> = (0..p).collect();
        let mut partners: Vec<Vec<usize>> = vec![Vec::new(); p];
        let mut braid = Vec::new();
        for gap in 0..gaps {
            let mut rows: Vec<usize> = (0..p - 1).collect();
            rng.shuffle(&mut rows);
            let mut taken = vec![false; p];
            for row in rows {
                if taken[row] || taken[row + 1] {
                    continue;
                }
                let (a, b) = (row_path[row].min(row_path[row + 1]), row_path[row].max(row_path[row + 1]));
                if b - a > reach {
                    continue;
                }
                let fresh = !partners[a].contains(&b);
                let useful = fresh && (partners[a].len() < need || partners[b].len() < need);
                let chance = if useful { 0.8 } else { 0.12 };
                if rng.unit() < chance {
                    taken[row] = true;
                    taken[row + 1] = true;
                    row_path.swap(row, row + 1);
                    if fresh {
                        partners[a].push(b);
                        partners[b].push(a);
                    }
                    braid.push(BraidCrossing { gap, a, b });
                }
            }
        }
        if partners.iter().all(|ps| ps.len() >= need) {
            braid.sort();
            return Some(braid);
        }
    }
    None
}

/// The row of every path in every column, from the braid: `rows[j][k]` is path `k`'s row in column `j`.
pub fn rows_by_column(params: &ImageParams, braid: &[BraidCrossing]) -> Vec<Vec<usize>> {
    let p = params.num_paths as usize;
    let mut row_of: Vec<usize> = (0..p).collect();
    let mut out = vec![row_of.clone()];
    for gap in 0..params.nodes_per_path as usize - 1 {
        for c in braid.iter().filter(|c| c.gap == gap) {
            row_of.swap(c.a, c.b);
        }
        out.push(row_of.clone());
    }
    out
}

/// The horizontal and vertical jitter bounds in whole pixels: the perturbation, capped by the column and row
/// gaps, times `shrink`.
fn jitter_bounds(params: &ImageParams, shrink: f64) -> (i64, i64) {
    let p = f64::from(params.perturbation);
    let x = p.min(params.column_gap() * X_JITTER_SHARE) * shrink;
    let y = p.min(params.row_gap() * Y_JITTER_SHARE) * shrink;
    (x.floor() as i64, y.floor() as i64)
}

/// Jittered positions column by column; a column is redrawn until its nodes keep their rows' order and apart,
/// and the edges into it are legible. `None` when a column keeps failing.
fn place(params: &ImageParams, braid: &[BraidCrossing], jitter_x: i64, jitter_y: i64, rng: &mut InstanceRng) -> Option<Vec<Vec<Point>>> {
    let p = params.num_paths as usize;
    let n = params.nodes_per_path as usize;
    let rows = rows_by_column(params, braid);
    let row_gap = params.row_gap();
    let column_gap = params.column_gap();
    let mut paths: Vec<Vec<Point>> = vec![Vec::with_capacity(n); p];
    for column in 0..n {
        let grid_x = f64::from(MARGIN) + column as f64 * column_gap;
        let mut placed = false;
        for _ in 0..COLUMN_TRIES {
            let mut by_row: Vec<Point> = vec![Point { x: 0, y: 0 }; p];
            for &row in &rows[column] {
                let grid_y = f64::from(MARGIN) + row as f64 * row_gap;
                by_row[row] = Point {
                    x: (grid_x.round() as i64 + rng.int_in(-jitter_x, jitter_x)) as i32,
                    y: (grid_y.round() as i64 + rng.int_in(-jitter_y, jitter_y)) as i32,
                };
            }
            if !column_ok(params, &by_row) {
                continue;
            }
            for (k, path) in paths.iter_mut().enumerate() {
                path.push(by_row[rows[column][k]]);
            }
            if column == 0 || edges_ok(&paths, column - 1, braid) {
                placed = true;
                break;
            }
            for path in paths.iter_mut() {
                path.pop();
            }
        }
        if !placed {
            return None;
        }
    }
    Some(paths)
}

/// A column's nodes (by row) are inside the canvas, in row order top to bottom, and far enough apart.
fn column_ok(params: &ImageParams, by_row: &[Point]) -> bool {
    let inside = |pt: &Point| {
        let (x, y) = (f64::from(pt.x), f64::from(pt.y));
        x >= EDGE_CLEARANCE && y >= EDGE_CLEARANCE && x <= f64::from(params.width) - EDGE_CLEARANCE && y <= f64::from(params.height) - EDGE_CLEARANCE
    };
    by_row.iter().all(inside) && by_row.windows(2).all(|w| w[0].y < w[1].y && distance(w[0], w[1]) >= MIN_NODE_DISTANCE)
}

/// The edges of `gap` (between columns `gap` and `gap + 1`) are legible, cross exactly as planned, and their
/// nodes keep apart from the previous column's nodes.
fn edges_ok(paths: &[Vec<Point>], gap: usize, braid: &[BraidCrossing]) -> bool {
    let p = paths.len();
    let seg = |k: usize| (paths[k][gap], paths[k][gap + 1]);
    let mut points: Vec<(f64, f64)> = Vec::new();
    for a in 0..p {
        let (a0, a1) = seg(a);
        if a1.x <= a0.x {
            return false;
        }
        for b in 0..p {
            if a == b {
                continue;
            }
            let (b0, b1) = seg(b);
            if distance(a1, b0) < MIN_NODE_DISTANCE
                || point_segment_distance(b0, a0, a1) < MIN_NODE_CLEARANCE
                || point_segment_distance(b1, a0, a1) < MIN_NODE_CLEARANCE
            {
                return false;
            }
            if b < a {
                continue;
            }
            let planned = braid.iter().any(|c| c.gap == gap && c.a == a && c.b == b);
            match intersection(a0, a1, b0, b1) {
                Some((x, y, sine)) => {
                    if !planned || sine < MIN_CROSSING_SINE {
                        return false;
                    }
                    let near_node = paths.iter().flat_map(|path| &path[gap..gap + 2]).any(|pt| {
                        let (dx, dy) = (f64::from(pt.x) - x, f64::from(pt.y) - y);
                        (dx * dx + dy * dy).sqrt() < MIN_CROSSING_NODE_DISTANCE
                    });
                    if near_node {
                        return false;
                    }
                    points.push((x, y));
                }
                None if planned => return false,
                None => {}
            }
        }
    }
    pairwise_min(&points) >= MIN_CROSSING_SEPARATION
}

/// Full validation of a finished picture; returns its figures or the first broken rule.
pub fn validate(params: &ImageParams, paths: &[Vec<Point>], braid: &[BraidCrossing]) -> Result<Figures, String> {
    let n = params.nodes_per_path as usize;
    if paths.len() != params.num_paths as usize || paths.iter().any(|path| path.len() != n) {
        return Err("wrong number of paths or nodes".into());
    }
    for (k, path) in paths.iter().enumerate() {
        if path.windows(2).any(|w| w[1].x <= w[0].x) {
            return Err(format!("path {k} does not run strictly left to right"));
        }
    }
    if paths.windows(2).any(|w| (w[0][0].y, w[0][0].x) >= (w[1][0].y, w[1][0].x)) {
        return Err("paths are not in start order".into());
    }
    let nodes: Vec<(usize, Point)> = paths.iter().enumerate().flat_map(|(k, path)| path.iter().map(move |&pt| (k, pt))).collect();
    let mut min_node_distance = f64::INFINITY;
    for (i, &(_, u)) in nodes.iter().enumerate() {
        for &(_, v) in &nodes[i + 1..] {
            min_node_distance = min_node_distance.min(distance(u, v));
        }
    }
    let edges: Vec<(usize, usize, Point, Point)> =
        paths.iter().enumerate().flat_map(|(k, path)| path.windows(2).enumerate().map(move |(e, w)| (k, e, w[0], w[1]))).collect();
    let mut min_node_clearance = f64::INFINITY;
    for &(k, pt) in &nodes {
        for &(owner, _, e0, e1) in &edges {
            if owner != k {
                min_node_clearance = min_node_clearance.min(point_segment_distance(pt, e0, e1));
            }
        }
    }
    let mut crossings = Vec::new();
    let mut min_edge_distance = f64::INFINITY;
    for (i, &(a, ea, a0, a1)) in edges.iter().enumerate() {
        for &(b, eb, b0, b1) in &edges[i + 1..] {
            if a == b {
                continue;
            }
            match intersection(a0, a1, b0, b1) {
                Some((x, y, sine)) => {
                    let ((a, edge_a), (b, edge_b)) = if a < b { ((a, ea), (b, eb)) } else { ((b, eb), (a, ea)) };
                    crossings.push(Crossing { a, edge_a, b, edge_b, x, y, sine });
                }
                None => min_edge_distance = min_edge_distance.min(segment_distance(a0, a1, b0, b1)),
            }
        }
    }
    let min_crossing_sine = crossings.iter().map(|c| c.sine).fold(1.0, f64::min);
    let min_crossing_separation = pairwise_min(&crossings.iter().map(|c| (c.x, c.y)).collect::<Vec<_>>());
    let mut min_crossing_node_distance = f64::INFINITY;
    for c in &crossings {
        for &(_, pt) in &nodes {
            let (dx, dy) = (f64::from(pt.x) - c.x, f64::from(pt.y) - c.y);
            min_crossing_node_distance = min_crossing_node_distance.min((dx * dx + dy * dy).sqrt());
        }
    }
    let figures =
        Figures { min_node_distance, min_node_clearance, min_edge_distance, min_crossing_sine, min_crossing_separation, min_crossing_node_distance, crossings };

    let inside = nodes.iter().all(|&(_, pt)| {
        let (x, y) = (f64::from(pt.x), f64::from(pt.y));
        x >= EDGE_CLEARANCE && y >= EDGE_CLEARANCE && x <= f64::from(params.width) - EDGE_CLEARANCE && y <= f64::from(params.height) - EDGE_CLEARANCE
    });
    if !inside {
        return Err("a node is too close to the canvas edge".into());
    }
    if figures.min_node_distance < MIN_NODE_DISTANCE {
        return Err(format!("two nodes are {:.1} px apart", figures.min_node_distance));
    }
    if figures.min_node_clearance < MIN_NODE_CLEARANCE {
        return Err(format!("a node is {:.1} px from another path's edge", figures.min_node_clearance));
    }
    if figures.min_crossing_sine < MIN_CROSSING_SINE {
        return Err("two edges cross at too flat an angle".into());
    }
    if figures.min_crossing_separation < MIN_CROSSING_SEPARATION {
        return Err("two crossings are too close together".into());
    }
    if figures.min_crossing_node_distance < MIN_CROSSING_NODE_DISTANCE {
        return Err("a crossing is too close to a node".into());
    }
    let mut found: Vec<BraidCrossing> = figures
        .crossings
        .iter()
        .filter(|c| c.edge_a == c.edge_b)
        .map(|c| BraidCrossing { gap: c.edge_a, a: c.a, b: c.b })
        .collect();
    found.sort();
    let mut planned = braid.to_vec();
    planned.sort();
    if found.len() != figures.crossings.len() || found != planned {
        return Err("the crossings differ from the braid".into());
    }
    let need = params.crossing_partners as usize;
    let reach = params.max_crossing_index_distance as usize;
    for k in 0..paths.len() {
        let mut partners: Vec<usize> = planned.iter().filter_map(|c| if c.a == k { Some(c.b) } else if c.b == k { Some(c.a) } else { None }).collect();
        partners.sort_unstable();
        partners.dedup();
        if partners.len() < need {
            return Err(format!("path {k} crosses {} paths, {need} needed", partners.len()));
        }
        if partners.iter().any(|&q| q.abs_diff(k) > reach) {
            return Err(format!("path {k} crosses a path more than {reach} apart in start order"));
        }
    }
    Ok(figures)
}

fn distance(u: Point, v: Point) -> f64 {
    let (dx, dy) = (f64::from(u.x - v.x), f64::from(u.y - v.y));
    (dx * dx + dy * dy).sqrt()
}

/// Distance from `pt` to the segment `s0`–`s1`.
fn point_segment_distance(pt: Point, s0: Point, s1: Point) -> f64 {
    let (px, py) = (f64::from(pt.x - s0.x), f64::from(pt.y - s0.y));
    let (dx, dy) = (f64::from(s1.x - s0.x), f64::from(s1.y - s0.y));
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 { 0.0 } else { ((px * dx + py * dy) / len2).clamp(0.0, 1.0) };
    let (ex, ey) = (px - t * dx, py - t * dy);
    (ex * ex + ey * ey).sqrt()
}

/// Distance between two segments that do not cross (attained at an endpoint of one of them).
fn segment_distance(a0: Point, a1: Point, b0: Point, b1: Point) -> f64 {
    point_segment_distance(a0, b0, b1).min(point_segment_distance(a1, b0, b1)).min(point_segment_distance(b0, a0, a1)).min(point_segment_distance(b1, a0, a1))
}

/// The crossing point of two segments and the sine of their angle, if their interiors meet (touching
/// endpoints do not count; they are ruled out by node clearance anyway).
fn intersection(a0: Point, a1: Point, b0: Point, b1: Point) -> Option<(f64, f64, f64)> {
    let orient = |p: Point, q: Point, r: Point| i64::from(q.x - p.x) * i64::from(r.y - p.y) - i64::from(q.y - p.y) * i64::from(r.x - p.x);
    let (d1, d2) = (orient(b0, b1, a0), orient(b0, b1, a1));
    let (d3, d4) = (orient(a0, a1, b0), orient(a0, a1, b1));
    if !(d1.signum() * d2.signum() < 0 && d3.signum() * d4.signum() < 0) {
        return None;
    }
    let (ax, ay) = (f64::from(a1.x - a0.x), f64::from(a1.y - a0.y));
    let (bx, by) = (f64::from(b1.x - b0.x), f64::from(b1.y - b0.y));
    let cross = ax * by - ay * bx;
    let t = (f64::from(b0.x - a0.x) * by - f64::from(b0.y - a0.y) * bx) / cross;
    let sine = cross.abs() / ((ax * ax + ay * ay).sqrt() * (bx * bx + by * by).sqrt());
    Some((f64::from(a0.x) + t * ax, f64::from(a0.y) + t * ay, sine))
}

fn pairwise_min(points: &[(f64, f64)]) -> f64 {
    let mut best = f64::INFINITY;
    for (i, &(x0, y0)) in points.iter().enumerate() {
        for &(x1, y1) in &points[i + 1..] {
            best = best.min(((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).sqrt());
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_pictures_are_drawn_and_pass_validation() {
        let params = ImageParams::default();
        let mut attempts = Vec::new();
        for seed in 0..20 {
            let layout = draw(&params, &mut InstanceRng::from_seed(seed)).expect("a default picture can be drawn");
            assert_eq!(validate(&params, &layout.paths, &layout.braid).as_ref(), Ok(&layout.figures));
            assert!(layout.braid.len() >= 8, "8 paths with 2 partners each need at least 8 crossings");
            attempts.push(layout.attempts);
        }
        assert!(attempts.iter().all(|&a| a < MAX_ATTEMPTS));
    }

    #[test]
    fn braids_give_every_path_its_partners_within_reach() {
        let params = ImageParams::default();
        let mut rng = InstanceRng::from_seed(3);
        for _ in 0..50 {
            let braid = sample_braid(&params, &mut rng).expect("default braids exist");
            for k in 0..8 {
                let mut partners: Vec<usize> = braid.iter().filter(|c| c.a == k || c.b == k).map(|c| c.a + c.b - k).collect();
                partners.sort_unstable();
                partners.dedup();
                assert!(partners.len() >= 2 && partners.iter().all(|&q| q.abs_diff(k) <= 5), "{braid:?}");
            }
        }
    }

    #[test]
    fn validation_rejects_a_missing_planned_crossing() {
        let params = ImageParams { num_paths: 2, nodes_per_path: 2, crossing_partners: 0, ..ImageParams::default() };
        let paths = vec![vec![Point { x: 100, y: 100 }, Point { x: 1900, y: 100 }], vec![Point { x: 100, y: 1300 }, Point { x: 1900, y: 1300 }]];
        assert!(validate(&params, &paths, &[]).is_ok());
        let planned = [BraidCrossing { gap: 0, a: 0, b: 1 }];
        assert_eq!(validate(&params, &paths, &planned), Err("the crossings differ from the braid".into()));
    }
}
