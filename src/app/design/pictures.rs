//! The picture parameters of a graph's image tasks as the inspector edits them: three difficulty levels to
//! start from, one field per parameter with its range (a value out of range is refused beside its field), and
//! the numbering rule. A combination that cannot be drawn is kept, so the user can get to a drawable one in
//! several steps; validation reports it in the problem list until then.

use crate::engine::tasks::image::{ImageParams, Numbering, ParamSpec, PARAM_SPECS};

/// A named set of picture parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Difficulty {
    pub key: &'static str,
    pub label: &'static str,
    pub params: ImageParams,
}

/// The difficulty levels, easiest first; `reference` is the reference's own parameters.
pub const DIFFICULTIES: [Difficulty; 3] = [
    Difficulty {
        key: "easy",
        label: "easy: 4 paths of 4 nodes, one crossing each",
        params: ImageParams { num_paths: 4, nodes_per_path: 4, crossing_partners: 1, max_crossing_index_distance: 3, perturbation: 60, width: 2000, height: 1400, numbering: Numbering::Sequential },
    },
    Difficulty {
        key: "reference",
        label: "reference: 8 paths of 6 nodes, two crossings each",
        params: ImageParams { num_paths: 8, nodes_per_path: 6, crossing_partners: 2, max_crossing_index_distance: 5, perturbation: 145, width: 2000, height: 1400, numbering: Numbering::Sequential },
    },
    Difficulty {
        key: "hard",
        label: "hard: 12 paths of 8 nodes, three crossings each, shuffled numbers",
        params: ImageParams { num_paths: 12, nodes_per_path: 8, crossing_partners: 3, max_crossing_index_distance: 5, perturbation: 160, width: 2400, height: 1800, numbering: Numbering::Shuffled },
    },
];

/// The key of the difficulty `params` are exactly, or `custom`.
pub fn difficulty_of(params: &ImageParams) -> &'static str {
    DIFFICULTIES.iter().find(|d| d.params == *params).map_or("custom", |d| d.key)
}

/// The difficulty with `key`.
pub fn difficulty(key: &str) -> Option<ImageParams> {
    DIFFICULTIES.iter().find(|d| d.key == key).map(|d| d.params)
}

/// The numeric fields, in the order the inspector shows them.
pub fn fields() -> &'static [ParamSpec] {
    &PARAM_SPECS
}

/// The label a person reads for field `name`.
pub fn label(name: &str) -> &str {
    match name {
        "num_paths" => "paths",
        "nodes_per_path" => "nodes per path",
        "crossing_partners" => "crossings per path",
        "max_crossing_index_distance" => "crossing reach",
        "perturbation" => "jitter (px)",
        "width" => "width (px)",
        "height" => "height (px)",
        other => other,
    }
}

/// `params` with field `name` set from the text typed into it, or why not (said beside the field).
pub fn with_field(params: ImageParams, name: &str, text: &str) -> Result<ImageParams, String> {
    let value: i64 = text.trim().parse().map_err(|_| format!("{name} must be a whole number"))?;
    let mut next = params;
    next.set(name, value).map_err(|e| e.to_string())?;
    Ok(next)
}

/// `params` with the numbering rule named `text`.
pub fn with_numbering(params: ImageParams, text: &str) -> Result<ImageParams, String> {
    let numbering = Numbering::parse(text).ok_or_else(|| format!("unknown numbering `{text}` (sequential or shuffled)"))?;
    Ok(ImageParams { numbering, ..params })
}

/// Why `params` cannot be drawn, if they cannot.
pub fn infeasible(params: &ImageParams) -> Option<String> {
    params.check().err().map(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_difficulty_can_be_drawn_and_they_get_harder() {
        for d in DIFFICULTIES {
            assert_eq!(infeasible(&d.params), None, "{}", d.key);
            assert_eq!(difficulty_of(&d.params), d.key);
        }
        assert_eq!(difficulty("reference"), Some(ImageParams::default()));
        let sizes: Vec<u32> = DIFFICULTIES.iter().map(|d| d.params.num_paths * d.params.nodes_per_path).collect();
        assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{sizes:?}");
        assert_eq!(difficulty_of(&ImageParams { perturbation: 1, ..ImageParams::default() }), "custom");
        assert_eq!(difficulty("impossible"), None);
    }

    #[test]
    fn fields_are_checked_one_by_one_and_combinations_are_reported_not_refused() {
        let params = ImageParams::default();
        assert_eq!(with_field(params, "num_paths", " 5 ").map(|p| p.num_paths), Ok(5));
        assert_eq!(with_field(params, "num_paths", "99"), Err("num_paths must be between 2 and 16, got 99".into()));
        assert_eq!(with_field(params, "width", "wide"), Err("width must be a whole number".into()));
        assert!(with_field(params, "colour", "3").unwrap_err().contains("unknown image parameter"));
        let cramped = with_field(params, "height", "300").expect("in range");
        assert_eq!(infeasible(&cramped).as_deref(), Some("8 paths do not fit in a height of 300 pixels"));
        assert_eq!(with_numbering(params, "shuffled").map(|p| p.numbering), Ok(Numbering::Shuffled));
        assert!(with_numbering(params, "random").is_err());
        assert_eq!(fields().len(), 7);
        assert!(fields().iter().all(|f| label(f.name) != f.name), "every field has a label");
    }
}
