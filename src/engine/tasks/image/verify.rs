//! An independent checker for stored pictures: from a picture's metadata JSON alone (as written in datasets) it
//! recomputes the selector, the start order and the ground truth, and re-measures every geometric rule.
//!
//! It deliberately shares no code with the generator (`layout`, `picture`): it reads JSON, uses its own
//! geometry (parametric segment intersection rather than orientation tests) and its own rounding, so a bug in
//! the generator is not repeated here. Tests run it on generated pictures; `arbigraph bench --image` on 1,000.

use serde_json::Value as Json;
use crate::engine::sort;

/// What the checker recomputed for a picture that passed.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub answer: Vec<i64>,
    pub start_node_index: usize,
    pub crossing_count: usize,
    pub min_node_distance: f64,
    pub min_node_clearance: f64,
}

/// Checks a picture's metadata against the ground truth a dataset claims for it; every problem found is listed.
pub fn verify(metadata: &Json, ground_truth: &[i64]) -> Result<Report, Vec<String>> {
    let mut problems = Vec::new();
    let Some(picture) = read(metadata) else { return Err(vec!["the metadata is missing fields or has malformed ones".into()]) };

    // The selector: round half away from zero, absolute value, modulo the number of paths.
    let rounded = if picture.input >= 0.0 { (picture.input + 0.5).floor() } else { (picture.input - 0.5).ceil() };
    let expected_index = (rounded.abs() % picture.num_paths as f64) as usize;
    if expected_index != picture.start_node_index {
        problems.push(format!("selector: input {} gives index {expected_index}, metadata says {}", picture.input, picture.start_node_index));
    }

    // Start order by the leftmost node's y, then x; numbers read left to right.
    let mut paths: Vec<Vec<(f64, f64, i64)>> = picture.paths.clone();
    for path in &mut paths {
        sort::by(path, |u, v| u.0.total_cmp(&v.0));
    }
    sort::by(&mut paths, |p, q| (p[0].1, p[0].0).partial_cmp(&(q[0].1, q[0].0)).unwrap_or(std::cmp::Ordering::Equal));
    let answer: Vec<i64> = paths.get(expected_index).map(|p| p.iter().map(|n| n.2).collect()).unwrap_or_default();
    if answer != ground_truth {
        problems.push(format!("ground truth {ground_truth:?} differs from the recomputed {answer:?}"));
    }
    if answer != picture.selected_numbers {
        problems.push("selected_path.numbers differs from the recomputed answer".into());
    }

    // Shape: counts, unique numbers, strictly increasing x in stored order, inside the canvas.
    let n = picture.nodes_per_path;
    if picture.paths.len() != picture.num_paths || picture.paths.iter().any(|p| p.len() != n) {
        problems.push("path or node counts differ from the parameters".into());
    }
    let mut numbers: Vec<i64> = picture.paths.iter().flatten().map(|node| node.2).collect();
    sort::natural(&mut numbers);
    if numbers != (1..=numbers.len() as i64).collect::<Vec<_>>() {
        problems.push("node numbers are not 1..=paths*nodes, each once".into());
    }
    for (k, path) in picture.paths.iter().enumerate() {
        if path.windows(2).any(|w| w[1].0 <= w[0].0) {
            problems.push(format!("path {k} changes direction (x does not strictly increase)"));
        }
    }
    let margin = picture.edge_clearance;
    if picture.paths.iter().flatten().any(|&(x, y, _)| x < margin || y < margin || x > picture.width - margin || y > picture.height - margin) {
        problems.push("a node is too close to the canvas edge".into());
    }

    // Distances between nodes, and from nodes to edges of other paths (start-order indices from here on).
    let nodes: Vec<(usize, f64, f64)> = paths.iter().enumerate().flat_map(|(k, p)| p.iter().map(move |&(x, y, _)| (k, x, y))).collect();
    let mut min_node_distance = f64::INFINITY;
    for i in 0..nodes.len() {
        for j in i + 1..nodes.len() {
            min_node_distance = min_node_distance.min(((nodes[i].1 - nodes[j].1).powi(2) + (nodes[i].2 - nodes[j].2).powi(2)).sqrt());
        }
    }
    if min_node_distance < picture.min_node_distance {
        problems.push(format!("two nodes are only {min_node_distance:.2} px apart"));
    }
    let edges: Vec<(usize, [f64; 4])> = paths.iter().enumerate().flat_map(|(k, p)| p.windows(2).map(move |w| (k, [w[0].0, w[0].1, w[1].0, w[1].1]))).collect();
    let mut min_node_clearance = f64::INFINITY;
    for &(k, x, y) in &nodes {
        for &(owner, e) in &edges {
            if owner != k {
                min_node_clearance = min_node_clearance.min(distance_to_segment(x, y, e));
            }
        }
    }
    if min_node_clearance < picture.min_node_clearance {
        problems.push(format!("a node is only {min_node_clearance:.2} px from another path's edge"));
    }

    // Crossings: angles, spacing, partners per path and their start-order distance.
    let mut points: Vec<(f64, f64)> = Vec::new();
    let mut partners: Vec<Vec<usize>> = vec![Vec::new(); paths.len()];
    for i in 0..edges.len() {
        for j in i + 1..edges.len() {
            let ((a, e), (b, f)) = (edges[i], edges[j]);
            if a == b {
                continue;
            }
            let Some((x, y, sine)) = cross(e, f) else { continue };
            if sine < picture.min_crossing_sine {
                problems.push(format!("paths {a} and {b} cross at too flat an angle (sine {sine:.3})"));
            }
            points.push((x, y));
            if !partners[a].contains(&b) {
                partners[a].push(b);
                partners[b].push(a);
            }
        }
    }
    for i in 0..points.len() {
        for j in i + 1..points.len() {
            let d = ((points[i].0 - points[j].0).powi(2) + (points[i].1 - points[j].1).powi(2)).sqrt();
            if d < picture.min_crossing_separation {
                problems.push(format!("two crossings are only {d:.2} px apart"));
            }
        }
    }
    for &(x, y) in &points {
        if let Some(&(k, _, _)) = nodes.iter().find(|&&(_, nx, ny)| ((nx - x).powi(2) + (ny - y).powi(2)).sqrt() < picture.min_crossing_node_distance) {
            problems.push(format!("a crossing at ({x:.1}, {y:.1}) is too close to a node of path {k}"));
        }
    }
    if points.len() != picture.crossing_count {
        problems.push(format!("{} crossings found, metadata says {}", points.len(), picture.crossing_count));
    }
    for (k, list) in partners.iter().enumerate() {
        if list.len() < picture.crossing_partners {
            problems.push(format!("path {k} crosses {} paths, {} required", list.len(), picture.crossing_partners));
        }
        if let Some(far) = list.iter().find(|&&q| q.abs_diff(k) > picture.max_distance) {
            problems.push(format!("paths {k} and {far} cross but are more than {} apart in start order", picture.max_distance));
        }
    }

    if problems.is_empty() {
        Ok(Report { answer, start_node_index: expected_index, crossing_count: points.len(), min_node_distance, min_node_clearance })
    } else {
        Err(problems)
    }
}

/// The fields the checker needs, read from JSON.
struct Stored {
    width: f64,
    height: f64,
    num_paths: usize,
    nodes_per_path: usize,
    crossing_partners: usize,
    max_distance: usize,
    input: f64,
    start_node_index: usize,
    selected_numbers: Vec<i64>,
    /// Nodes as stored: (x, y, number).
    paths: Vec<Vec<(f64, f64, i64)>>,
    crossing_count: usize,
    min_node_distance: f64,
    min_node_clearance: f64,
    min_crossing_sine: f64,
    min_crossing_separation: f64,
    min_crossing_node_distance: f64,
    edge_clearance: f64,
}

fn read(m: &Json) -> Option<Stored> {
    let num = |v: &Json| v.as_f64();
    let int = |v: &Json| v.as_u64().map(|x| x as usize);
    let params = &m["params"];
    let thresholds = &m["validation"]["thresholds"];
    let paths = m["paths"]
        .as_array()?
        .iter()
        .map(|p| p["nodes"].as_array()?.iter().map(|n| Some((num(&n["x"])?, num(&n["y"])?, n["number"].as_i64()?))).collect::<Option<Vec<_>>>())
        .collect::<Option<Vec<_>>>()?;
    if paths.iter().any(Vec::is_empty) {
        return None;
    }
    Some(Stored {
        width: num(&m["width"])?,
        height: num(&m["height"])?,
        num_paths: int(&params["num_paths"]).filter(|&p| p > 0)?,
        nodes_per_path: int(&params["nodes_per_path"])?,
        crossing_partners: int(&params["crossing_partners"])?,
        max_distance: int(&params["max_crossing_index_distance"])?,
        input: num(&m["selector"]["input"])?,
        start_node_index: int(&m["selector"]["start_node_index"])?,
        selected_numbers: m["selected_path"]["numbers"].as_array()?.iter().map(Json::as_i64).collect::<Option<Vec<_>>>()?,
        paths,
        crossing_count: int(&m["validation"]["crossing_count"])?,
        min_node_distance: num(&thresholds["min_node_distance"])?,
        min_node_clearance: num(&thresholds["min_node_clearance"])?,
        min_crossing_sine: num(&thresholds["min_crossing_sine"])?,
        min_crossing_separation: num(&thresholds["min_crossing_separation"])?,
        min_crossing_node_distance: num(&thresholds["min_crossing_node_distance"])?,
        edge_clearance: num(&thresholds["edge_clearance"])?,
    })
}

/// Distance from (x, y) to the segment `e` = [x0, y0, x1, y1].
fn distance_to_segment(x: f64, y: f64, e: [f64; 4]) -> f64 {
    let [x0, y0, x1, y1] = e;
    let (dx, dy) = (x1 - x0, y1 - y0);
    let t = (((x - x0) * dx + (y - y0) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
    ((x - x0 - t * dx).powi(2) + (y - y0 - t * dy).powi(2)).sqrt()
}

/// Where two segments cross in their interiors (parameters strictly between 0 and 1), with the sine of their angle.
fn cross(e: [f64; 4], f: [f64; 4]) -> Option<(f64, f64, f64)> {
    let (r, s) = ((e[2] - e[0], e[3] - e[1]), (f[2] - f[0], f[3] - f[1]));
    let denom = r.0 * s.1 - r.1 * s.0;
    if denom == 0.0 {
        return None;
    }
    let (qx, qy) = (f[0] - e[0], f[1] - e[1]);
    let t = (qx * s.1 - qy * s.0) / denom;
    let u = (qx * r.1 - qy * r.0) / denom;
    if t <= 0.0 || t >= 1.0 || u <= 0.0 || u >= 1.0 {
        return None;
    }
    let sine = denom.abs() / ((r.0 * r.0 + r.1 * r.1).sqrt() * (s.0 * s.0 + s.1 * s.1).sqrt());
    Some((e[0] + t * r.0, e[1] + t * r.1, sine))
}
