//! The strategy lab of the Evaluate page as plain data: the strategies to compare (the first is the baseline),
//! each added from the strategy picker with its parameters; the ids of a lab's runs, which share their start so
//! the run list can find a lab's runs again; and where a lab stands while it runs. Running is the page's (one
//! `engine::run` after another over the same samples); the comparison is `app::results::compare`'s.

use crate::engine::agent::Strategy;
use crate::engine::sort;

/// Most strategies one lab runs.
pub const LAB_LIMIT: usize = 8;

/// The strategies of a lab, in the order they run and are compared.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lab {
    strategies: Vec<Strategy>,
}

impl Lab {
    /// The strategies, the baseline first.
    pub fn strategies(&self) -> &[Strategy] {
        &self.strategies
    }

    /// Adds `strategy` at the end; the same strategy twice (parameters compared after defaults are filled in)
    /// and a lab already at [`LAB_LIMIT`] are refused, saying why.
    pub fn add(&mut self, strategy: Strategy) -> Result<(), String> {
        if let Some(at) = self.strategies.iter().position(|s| *s == strategy) {
            return Err(format!("{} is already in the lab (#{}): change a parameter to compare another setting", label(&strategy), at + 1));
        }
        if self.strategies.len() >= LAB_LIMIT {
            return Err(format!("a lab runs at most {LAB_LIMIT} strategies: remove one first"));
        }
        self.strategies.push(strategy);
        Ok(())
    }

    /// Removes the strategy at `at` (nothing when there is none).
    pub fn remove(&mut self, at: usize) {
        if at < self.strategies.len() {
            self.strategies.remove(at);
        }
    }

    /// The strategies to run, or why the lab cannot run yet.
    pub fn ready(&self) -> Result<&[Strategy], String> {
        match self.strategies.len() {
            0 => Err("the lab is empty: choose a strategy above and add it, then another, to compare them".into()),
            1 => Err(format!("the lab has only {}: add another strategy to compare it with", label(&self.strategies[0]))),
            _ => Ok(&self.strategies),
        }
    }
}

/// `strategy` as the lab names it: its name and only the parameters that differ from their defaults
/// (`acg:clusters=0`, `window:exchanges=4`, `acg`), which parses back to the same strategy.
pub fn label(strategy: &Strategy) -> String {
    strategy.label()
}

/// The id of run `at` of the lab started at `stamp_ms`: `run-<stamp>-lab<at>`.
pub fn run_id(stamp_ms: u64, at: usize) -> String {
    format!("run-{stamp_ms}-lab{at}")
}

/// The lab a run id belongs to (its start stamp) and its place in it, for ids made by [`run_id`].
pub fn lab_of(id: &str) -> Option<(u64, usize)> {
    let (stamp, at) = id.strip_prefix("run-")?.split_once("-lab")?;
    Some((stamp.parse().ok()?, at.parse().ok()?))
}

/// The ids of the runs of the lab `id` belongs to among `ids`, in lab order (the baseline first); empty when
/// `id` is no lab's run.
pub fn lab_runs<'a>(id: &str, ids: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let Some((stamp, _)) = lab_of(id) else { return Vec::new() };
    let mut runs: Vec<(usize, String)> = ids.into_iter().filter_map(|other| lab_of(other).filter(|(s, _)| *s == stamp).map(|(_, at)| (at, other.to_string()))).collect();
    sort::natural(&mut runs);
    runs.dedup();
    runs.into_iter().map(|(_, id)| id).collect()
}

/// Where a running lab stands: which strategy runs now, of how many.
#[derive(Clone, Debug, PartialEq)]
pub struct LabProgress {
    /// The strategy running now (0-based).
    pub at: usize,
    /// Every strategy of the lab, as text.
    pub strategies: Vec<String>,
}

impl LabProgress {
    /// One line for the page: `lab: strategy 2 of 3 (window:exchanges=2) running; full done`.
    pub fn line(&self) -> String {
        let done = &self.strategies[..self.at.min(self.strategies.len())];
        let now = self.strategies.get(self.at).map_or(String::new(), |s| format!(" ({s})"));
        let mut line = format!("lab: strategy {} of {}{now} running", (self.at + 1).min(self.strategies.len()), self.strategies.len());
        if !done.is_empty() {
            line.push_str(&format!("; done: {}", done.join(", ")));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Strategy {
        Strategy::parse(text).expect("a registered strategy")
    }

    #[test]
    fn a_lab_keeps_its_order_and_refuses_a_strategy_twice() {
        let mut lab = Lab::default();
        assert!(lab.ready().is_err_and(|e| e.contains("the lab is empty")));
        lab.add(parse("full")).unwrap();
        assert_eq!(lab.ready(), Err("the lab has only full: add another strategy to compare it with".into()));
        lab.add(parse("window:exchanges=2")).unwrap();
        lab.add(parse("acg")).unwrap();
        let err = lab.add(parse("acg:clusters=1")).unwrap_err();
        assert!(err.contains("is already in the lab (#3)"), "defaults count as given: {err}");
        lab.add(parse("acg:clusters=0")).unwrap();
        let names: Vec<String> = lab.ready().unwrap().iter().map(ToString::to_string).collect();
        assert_eq!(names[0], "full");
        assert_eq!(names[1], "window:exchanges=2");
        assert!(names[3].contains("clusters=0"));
        assert_eq!(lab.strategies().iter().map(label).collect::<Vec<_>>(), ["full", "window:exchanges=2", "acg", "acg:clusters=0"]);
        lab.remove(1);
        lab.remove(9);
        assert_eq!(lab.strategies().len(), 3);
        assert_eq!(lab.strategies()[1].name(), "acg");
    }

    #[test]
    fn a_strategy_is_labelled_by_what_differs_from_its_defaults_and_parses_back() {
        for (text, shown) in [("acg", "acg"), ("acg:clusters=0,budget_tokens=5000", "acg:clusters=0"), ("window:exchanges=4", "window:exchanges=4"), ("full", "full"), ("mask:keep=10", "mask")] {
            let strategy = parse(text);
            assert_eq!(label(&strategy), shown);
            assert_eq!(parse(shown), strategy);
        }
    }

    #[test]
    fn a_lab_runs_at_most_its_limit() {
        let mut lab = Lab::default();
        for keep in 1..=LAB_LIMIT {
            lab.add(parse(&format!("mask:keep={keep}"))).unwrap();
        }
        assert_eq!(lab.add(parse("full")), Err(format!("a lab runs at most {LAB_LIMIT} strategies: remove one first")));
    }

    #[test]
    fn a_labs_runs_are_found_again_by_their_ids_in_lab_order() {
        assert_eq!(run_id(1_700_000_000_000, 2), "run-1700000000000-lab2");
        assert_eq!(lab_of("run-1700000000000-lab2"), Some((1_700_000_000_000, 2)));
        assert_eq!(lab_of("run-1700000000000"), None);
        assert_eq!(lab_of("run-x-lab1"), None);
        let ids = ["run-5-lab2", "run-9", "run-5-lab0", "run-6-lab0", "run-5-lab1", "run-5-lab10"];
        assert_eq!(lab_runs("run-5-lab1", ids), ["run-5-lab0", "run-5-lab1", "run-5-lab2", "run-5-lab10"]);
        assert!(lab_runs("run-9", ids).is_empty());
    }

    #[test]
    fn the_progress_line_names_the_running_strategy_and_those_done() {
        let progress = LabProgress { at: 1, strategies: vec!["full".into(), "window:exchanges=2".into(), "acg".into()] };
        assert_eq!(progress.line(), "lab: strategy 2 of 3 (window:exchanges=2) running; done: full");
        assert_eq!(LabProgress { at: 0, ..progress }.line(), "lab: strategy 1 of 3 (full) running");
    }
}
