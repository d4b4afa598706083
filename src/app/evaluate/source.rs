//! Where an evaluation takes its samples: a dataset file loaded on Evaluate, the dataset shown on Browse (all
//! of it, or the samples its filters keep), the graph on Design (generated in the worker with Evaluate's seed),
//! or a built-in topology. The choice's names (the `eval-source` select's values), and which samples of a
//! Browse dataset a run takes, or why none. Plain Rust, tested natively.

/// The sources of an evaluation's samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SampleSource {
    /// A dataset file loaded on Evaluate.
    File,
    /// The dataset shown on Browse.
    Browse,
    /// The designer's graph, generated with Evaluate's seed.
    Design,
    /// A built-in topology, generated with the settings beside it.
    #[default]
    Topology,
}

impl SampleSource {
    /// Every source, in menu order.
    pub const ALL: [SampleSource; 4] = [SampleSource::Topology, SampleSource::File, SampleSource::Browse, SampleSource::Design];

    /// The value in the select (and in tests).
    pub fn as_str(self) -> &'static str {
        match self {
            SampleSource::File => "file",
            SampleSource::Browse => "browse",
            SampleSource::Design => "design",
            SampleSource::Topology => "topology",
        }
    }

    /// What the menu calls it.
    pub fn label(self) -> &'static str {
        match self {
            SampleSource::File => "a dataset file",
            SampleSource::Browse => "the dataset on Browse",
            SampleSource::Design => "the graph on Design",
            SampleSource::Topology => "a built-in topology",
        }
    }

    /// The source named `name` (`None` for anything else).
    pub fn parse(name: &str) -> Option<SampleSource> {
        SampleSource::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// What a Browse dataset looks like to Evaluate: its name, size, samples received, and the positions its
/// filters keep (`None`: no filter).
#[derive(Clone, Debug, PartialEq)]
pub struct BrowseShown {
    pub name: String,
    pub total: usize,
    pub loaded: usize,
    pub kept: Option<Vec<usize>>,
}

/// The positions of the Browse dataset a run takes (`None`: every sample), or why it cannot take any.
/// `filtered` asks for the samples the filters keep, in the list's order.
pub fn browse_positions(shown: Option<&BrowseShown>, filtered: bool) -> Result<Option<Vec<usize>>, String> {
    let Some(shown) = shown else { return Err("Browse shows no dataset: choose one on Browse (generate, open a file or pick a site dataset), then come back".into()) };
    if shown.total == 0 {
        return Err(format!("the dataset on Browse ({}) has no samples", shown.name));
    }
    match (&shown.kept, filtered) {
        (Some(kept), true) if kept.is_empty() => Err(format!("the filters on Browse keep none of {}'s {} samples: loosen them, or take all samples", shown.name, shown.total)),
        (Some(kept), true) => Ok(Some(kept.clone())),
        _ if shown.loaded < shown.total => Err(format!("{} has {} of its {} samples here so far: wait until they are all loaded, or use its filters", shown.name, shown.loaded, shown.total)),
        _ => Ok(None),
    }
}

/// What a Browse run will take, for the line beside the source.
pub fn browse_note(shown: Option<&BrowseShown>, filtered: bool) -> String {
    let Some(shown) = shown else { return "Browse shows no dataset yet".into() };
    match (&shown.kept, filtered) {
        (Some(kept), true) => format!("{}: the {} samples its filters keep (of {}), in the list's order", shown.name, kept.len(), shown.total),
        (None, true) => format!("{}: no filter is set, so all {} samples", shown.name, shown.total),
        (_, false) => format!("{}: all {} samples, filters ignored", shown.name, shown.total),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(kept: Option<Vec<usize>>, loaded: usize) -> BrowseShown {
        BrowseShown { name: "math_chain".into(), total: 10, loaded, kept }
    }

    #[test]
    fn names_round_trip() {
        for s in SampleSource::ALL {
            assert_eq!(SampleSource::parse(s.as_str()), Some(s));
        }
        assert_eq!(SampleSource::parse("nowhere"), None);
        assert_eq!(SampleSource::default(), SampleSource::Topology, "with nothing chosen, the built-in topology as before");
    }

    #[test]
    fn browse_takes_all_or_the_filtered_samples() {
        assert_eq!(browse_positions(Some(&shown(None, 10)), false), Ok(None));
        assert_eq!(browse_positions(Some(&shown(None, 10)), true), Ok(None), "no filter: every sample");
        assert_eq!(browse_positions(Some(&shown(Some(vec![7, 2]), 10)), true), Ok(Some(vec![7, 2])), "the list's order");
        assert_eq!(browse_positions(Some(&shown(Some(vec![7, 2]), 10)), false), Ok(None));
        assert!(browse_note(Some(&shown(Some(vec![7, 2]), 10)), true).contains("the 2 samples its filters keep (of 10)"));
        assert!(browse_note(Some(&shown(Some(vec![7, 2]), 10)), false).contains("all 10 samples, filters ignored"));
    }

    #[test]
    fn empty_or_missing_sources_say_what_to_do() {
        assert!(browse_positions(None, false).unwrap_err().starts_with("Browse shows no dataset"));
        assert!(browse_positions(Some(&BrowseShown { total: 0, ..shown(None, 0) }), false).unwrap_err().contains("has no samples"));
        assert!(browse_positions(Some(&shown(Some(vec![]), 10)), true).unwrap_err().contains("keep none of math_chain's 10 samples"));
        assert!(browse_positions(Some(&shown(None, 4)), false).unwrap_err().contains("4 of its 10 samples"));
        assert_eq!(browse_positions(Some(&shown(Some(vec![1]), 4)), true), Ok(Some(vec![1])), "the filtered samples are here even while others load");
    }
}
