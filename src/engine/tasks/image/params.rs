//! The difficulty parameters of image tasks: names, defaults, ranges and help in one table, and the checks that
//! a combination can be drawn at all.

use std::fmt;

/// How node numbers are assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Numbering {
    /// The reference's rule: 1, 2, 3, … path after path (paths taken in a random order), so the numbers on
    /// one path are consecutive.
    Sequential,
    /// Every number 1..=paths×nodes on a random node, so each number must be read off the picture.
    Shuffled,
}

impl Numbering {
    /// Stable lowercase name (`sequential`, `shuffled`), as in files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Numbering::Sequential => "sequential",
            Numbering::Shuffled => "shuffled",
        }
    }

    /// Parses [`Numbering::as_str`].
    pub fn parse(text: &str) -> Option<Numbering> {
        match text.trim() {
            "sequential" => Some(Numbering::Sequential),
            "shuffled" => Some(Numbering::Shuffled),
            _ => None,
        }
    }
}

/// The parameters of one picture family. `Default` gives the reference's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageParams {
    /// Number of paths.
    pub num_paths: u32,
    /// Nodes on every path (columns of the picture).
    pub nodes_per_path: u32,
    /// Every path crosses at least this many distinct other paths.
    pub crossing_partners: u32,
    /// Crossing partners are at most this far apart in start order.
    pub max_crossing_index_distance: u32,
    /// Largest random displacement of a node from its grid position, in pixels (vertically; horizontally it is
    /// also capped at 30% of the column gap so paths never turn back).
    pub perturbation: u32,
    /// Canvas width in pixels.
    pub width: u32,
    /// Canvas height in pixels.
    pub height: u32,
    /// How node numbers are assigned.
    pub numbering: Numbering,
}

impl Default for ImageParams {
    fn default() -> ImageParams {
        ImageParams {
            num_paths: 8,
            nodes_per_path: 6,
            crossing_partners: 2,
            max_crossing_index_distance: 5,
            perturbation: 145,
            width: 2000,
            height: 1400,
            numbering: Numbering::Sequential,
        }
    }
}

/// One numeric parameter: its stable name (as in files, the command line and the designer), default, range and help.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: u32,
    pub min: u32,
    pub max: u32,
    pub help: &'static str,
}

/// Every numeric parameter, in the order forms should show them.
pub const PARAM_SPECS: [ParamSpec; 7] = [
    ParamSpec { name: "num_paths", default: 8, min: 2, max: 16, help: "paths in the picture" },
    ParamSpec { name: "nodes_per_path", default: 6, min: 2, max: 16, help: "numbered nodes on each path" },
    ParamSpec { name: "crossing_partners", default: 2, min: 0, max: 4, help: "distinct paths each path must cross" },
    ParamSpec { name: "max_crossing_index_distance", default: 5, min: 1, max: 15, help: "largest start-order distance between crossing paths" },
    ParamSpec { name: "perturbation", default: 145, min: 0, max: 400, help: "largest random node displacement in pixels" },
    ParamSpec { name: "width", default: 2000, min: 400, max: 4000, help: "canvas width in pixels" },
    ParamSpec { name: "height", default: 1400, min: 300, max: 4000, help: "canvas height in pixels" },
];

/// Margin between the canvas edge and the grid of nodes, in pixels.
pub const MARGIN: u32 = 90;
/// Node circle radius, in pixels.
pub const NODE_RADIUS: f64 = 17.0;
/// Width of edges and circle outlines, in pixels.
pub const LINE_WIDTH: f64 = 4.0;

/// Smallest vertical gap between grid rows, so nodes of neighbouring paths can keep apart.
const MIN_ROW_GAP: f64 = 60.0;
/// Smallest horizontal gap between grid columns.
const MIN_COLUMN_GAP: f64 = 80.0;
/// Smallest sine of the angle at which two neighbouring paths swapping rows cross before any jitter (30 degrees).
const MIN_SWAP_SINE: f64 = 0.5;

/// A parameter set that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImageParamError {
    #[error("unknown image parameter `{0}`")]
    Unknown(String),
    #[error("{name} must be between {min} and {max}, got {value}")]
    OutOfRange { name: &'static str, value: i64, min: u32, max: u32 },
    #[error("unknown numbering `{0}` (sequential or shuffled)")]
    Numbering(String),
    #[error("{0}")]
    Infeasible(String),
    #[error("{0} must be a whole number")]
    NotANumber(String),
    #[error("expected an object of image parameters")]
    NotAnObject,
}

impl ImageParams {
    /// The value of a numeric parameter by its [`ParamSpec`] name.
    pub fn get(&self, name: &str) -> Option<u32> {
        Some(match name {
            "num_paths" => self.num_paths,
            "nodes_per_path" => self.nodes_per_path,
            "crossing_partners" => self.crossing_partners,
            "max_crossing_index_distance" => self.max_crossing_index_distance,
            "perturbation" => self.perturbation,
            "width" => self.width,
            "height" => self.height,
            _ => return None,
        })
    }

    /// Sets a numeric parameter by name, checking its range (not yet the combination: see [`ImageParams::check`]).
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), ImageParamError> {
        let spec = PARAM_SPECS.iter().find(|s| s.name == name).ok_or_else(|| ImageParamError::Unknown(name.to_string()))?;
        if value < i64::from(spec.min) || value > i64::from(spec.max) {
            return Err(ImageParamError::OutOfRange { name: spec.name, value, min: spec.min, max: spec.max });
        }
        let value = value as u32;
        match spec.name {
            "num_paths" => self.num_paths = value,
            "nodes_per_path" => self.nodes_per_path = value,
            "crossing_partners" => self.crossing_partners = value,
            "max_crossing_index_distance" => self.max_crossing_index_distance = value,
            "perturbation" => self.perturbation = value,
            "width" => self.width = value,
            _ => self.height = value,
        }
        Ok(())
    }

    /// Checks every range and that the combination can be drawn: enough columns and neighbours for the required
    /// crossings, and room on the canvas for the nodes.
    pub fn check(&self) -> Result<(), ImageParamError> {
        for spec in PARAM_SPECS {
            let value = self.get(spec.name).unwrap_or(spec.default);
            if value < spec.min || value > spec.max {
                return Err(ImageParamError::OutOfRange { name: spec.name, value: i64::from(value), min: spec.min, max: spec.max });
            }
        }
        let infeasible = |m: String| Err(ImageParamError::Infeasible(m));
        if self.crossing_partners > self.nodes_per_path - 1 {
            return infeasible(format!(
                "{} crossing partners need at least {} nodes per path (one crossing per gap between nodes)",
                self.crossing_partners,
                self.crossing_partners + 1
            ));
        }
        let reachable = (self.num_paths - 1).min(2 * self.max_crossing_index_distance);
        if self.crossing_partners > reachable {
            return infeasible(format!(
                "{} crossing partners are impossible with {} paths at most {} apart",
                self.crossing_partners, self.num_paths, self.max_crossing_index_distance
            ));
        }
        if self.row_gap() < MIN_ROW_GAP {
            return infeasible(format!("{} paths do not fit in a height of {} pixels", self.num_paths, self.height));
        }
        if self.column_gap() < MIN_COLUMN_GAP {
            return infeasible(format!("{} nodes per path do not fit in a width of {} pixels", self.nodes_per_path, self.width));
        }
        // Two neighbouring paths swapping rows cross at twice the angle of a row gap over a column gap; too flat
        // a crossing looks like an overlap. Sine of twice the angle t: 2·tan t / (1 + tan² t).
        let slope = self.row_gap() / self.column_gap();
        if self.num_paths > 1 && self.crossing_partners > 0 && 2.0 * slope / (1.0 + slope * slope) < MIN_SWAP_SINE {
            return infeasible(format!(
                "paths {:.0} px apart and nodes {:.0} px apart would cross too flatly: raise the height or the nodes per path, or lower the paths",
                self.row_gap(),
                self.column_gap()
            ));
        }
        Ok(())
    }

    /// Vertical distance between grid rows (one row per path).
    pub fn row_gap(&self) -> f64 {
        f64::from(self.height - 2 * MARGIN) / f64::from(self.num_paths - 1)
    }

    /// Horizontal distance between grid columns (one column per node of a path).
    pub fn column_gap(&self) -> f64 {
        f64::from(self.width - 2 * MARGIN) / f64::from(self.nodes_per_path - 1)
    }

    /// The parameters as a JSON object (every [`ParamSpec`] name, plus `numbering`).
    /// Reads [`ImageParams::to_json`]: keys left out keep their defaults; ranges are checked, the combination
    /// is not (see [`ImageParams::check`]).
    pub fn from_json(value: &serde_json::Value) -> Result<ImageParams, ImageParamError> {
        let object = value.as_object().ok_or(ImageParamError::NotAnObject)?;
        let mut params = ImageParams::default();
        for (key, value) in object {
            if key == "numbering" {
                let text = value.as_str().unwrap_or_default();
                params.numbering = Numbering::parse(text).ok_or_else(|| ImageParamError::Numbering(value.to_string()))?;
                continue;
            }
            if !PARAM_SPECS.iter().any(|s| s.name == key) {
                return Err(ImageParamError::Unknown(key.clone()));
            }
            let number = value.as_i64().ok_or_else(|| ImageParamError::NotANumber(key.clone()))?;
            params.set(key, number)?;
        }
        Ok(params)
    }

    pub fn to_json(&self) -> serde_json::Value {
        let mut obj = serde_json::Map::new();
        for spec in PARAM_SPECS {
            obj.insert(spec.name.into(), serde_json::json!(self.get(spec.name)));
        }
        obj.insert("numbering".into(), serde_json::json!(self.numbering.as_str()));
        serde_json::Value::Object(obj)
    }
}

impl fmt::Display for ImageParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = PARAM_SPECS.iter().map(|s| format!("{}={}", s.name, self.get(s.name).unwrap_or(s.default))).collect();
        write!(f, "{} numbering={}", parts.join(" "), self.numbering.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_spec_table_and_pass_the_check() {
        let params = ImageParams::default();
        for spec in PARAM_SPECS {
            assert_eq!(params.get(spec.name), Some(spec.default), "{}", spec.name);
        }
        assert_eq!(params.check(), Ok(()));
    }

    #[test]
    fn set_rejects_out_of_range_and_unknown_names() {
        let mut params = ImageParams::default();
        assert_eq!(params.set("num_paths", 12), Ok(()));
        assert_eq!(params.num_paths, 12);
        assert!(matches!(params.set("num_paths", 1), Err(ImageParamError::OutOfRange { name: "num_paths", .. })));
        assert!(matches!(params.set("colour", 1), Err(ImageParamError::Unknown(_))));
    }

    #[test]
    fn infeasible_combinations_say_why() {
        let too_few_columns = ImageParams { nodes_per_path: 2, crossing_partners: 2, ..ImageParams::default() };
        assert!(too_few_columns.check().unwrap_err().to_string().contains("nodes per path"));
        let crowded = ImageParams { num_paths: 16, height: 400, ..ImageParams::default() };
        assert!(crowded.check().unwrap_err().to_string().contains("height"));
        let far = ImageParams { crossing_partners: 3, max_crossing_index_distance: 1, ..ImageParams::default() };
        assert!(far.check().unwrap_err().to_string().contains("at most 1 apart"));
        let flat = ImageParams { num_paths: 16, ..ImageParams::default() };
        assert!(flat.check().unwrap_err().to_string().contains("too flatly"));
    }
}
