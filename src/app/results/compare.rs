//! Runs side by side on the Results page: several results files graded and paired against the first (accuracy
//! with Wilson intervals, the paired McNemar test, prompt and total tokens, calls), the same table as
//! `arbigraph grade --compare`, the runs' context curves (mean prompt tokens per turn), and the samples whose
//! verdict flipped between the baseline and another run.

use serde_json::Value;

use crate::app::results::charts::{context_curves, mean_per_turn};
use crate::engine::run::spend::{money, Spend, Tokens};
use crate::app::results::transcript::grouped;
use crate::engine::grade::metrics::comparison_cells;
use crate::engine::agent::strategy::short_label;
use crate::engine::results::{compare_many, compare_runs, grade_results_file, strategy_of, GradeOptions, GradedFile, Run};
use crate::engine::dataset::SampleRecord;
use crate::engine::sort;

/// The comparison as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareTable {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Files with unfinished or unreadable samples, which the table leaves out.
    pub notes: Vec<String>,
    /// The context curves as SVG, when the runs recorded per-turn prompt sizes.
    pub curves: Option<String>,
    /// Every paired sample whose verdict differs between the baseline and another run.
    pub flips: Vec<Flip>,
    /// Accuracy per topology: a header (`topology`, then each run) and one row per topology, each cell the run's
    /// accuracy and, after the baseline, its difference from the baseline in points. Empty for one topology.
    pub by_topology: (Vec<String>, Vec<Vec<String>>),
    /// What each run spent, in file order (the baseline first); `spend_table` prices it.
    pub spend: Vec<RunSpend>,
}

/// The tokens a run spent, over its graded samples that record them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSpend {
    pub label: String,
    /// Graded samples that record their tokens.
    pub samples: usize,
    /// Their prompt tokens (input), auxiliary calls included.
    pub prompt_tokens: u64,
    /// Their completion tokens (output), auxiliary calls included.
    pub completion_tokens: u64,
    /// Of the prompt tokens, those read from the provider's cache.
    pub cached_prompt_tokens: u64,
}

impl RunSpend {
    fn of(label: &str, graded: &GradedFile) -> RunSpend {
        let costs: Vec<_> = graded.samples.iter().filter_map(|s| s.outcome.cost.as_ref()).collect();
        RunSpend {
            label: label.to_string(),
            samples: costs.len(),
            prompt_tokens: costs.iter().map(|c| c.prompt_tokens).sum(),
            completion_tokens: costs.iter().map(|c| c.completion_tokens).sum(),
            cached_prompt_tokens: costs.iter().map(|c| c.cached_prompt_tokens).sum(),
        }
    }

    /// Mean tokens and mean cost (at `spend`'s prices, when it has some) per sample; `None` without samples.
    fn per_sample(&self, spend: &Spend) -> Option<(f64, Option<f64>)> {
        let n = self.samples as f64;
        (self.samples > 0).then(|| {
            let tokens = (self.prompt_tokens + self.completion_tokens) as f64 / n;
            let billed = Tokens { input: self.prompt_tokens, cached_input: self.cached_prompt_tokens, output: self.completion_tokens };
            (tokens, spend.priced().then(|| spend.billed(&billed) / n))
        })
    }
}

/// Tokens and cost per run at `spend`'s prices, each after the baseline (the first) with its difference per
/// sample from the baseline's: a header and one row per run. Cost cells are `–` until prices are given.
pub fn spend_table(runs: &[RunSpend], spend: &Spend) -> (Vec<String>, Vec<Vec<String>>) {
    let header = ["run", "samples with tokens", "input tokens", "output tokens", "tokens/sample", "vs baseline", "cost", "cost/sample", "vs baseline"];
    let base = runs.first().and_then(|r| r.per_sample(spend));
    let change = |now: f64, was: f64, show: &dyn Fn(f64) -> String| {
        let sign = if now >= was { "+" } else { "-" };
        let percent = if was > 0.0 { format!(" ({:+.1}%)", (now - was) / was * 100.0) } else { String::new() };
        format!("{sign}{}{percent}", show((now - was).abs()))
    };
    let rows = runs
        .iter()
        .enumerate()
        .map(|(k, run)| {
            let mine = run.per_sample(spend);
            let dash = || "–".to_string();
            let tokens = mine.map_or_else(dash, |(t, _)| grouped(t.round() as u64));
            let cost = mine.and_then(|(_, c)| c);
            let vs = |pick: &dyn Fn((f64, Option<f64>)) -> Option<f64>, show: &dyn Fn(f64) -> String| match (mine.and_then(pick), base.and_then(pick)) {
                _ if k == 0 => "baseline".to_string(),
                (Some(now), Some(was)) => change(now, was, show),
                _ => dash(),
            };
            vec![
                run.label.clone(),
                run.samples.to_string(),
                grouped(run.prompt_tokens),
                grouped(run.completion_tokens),
                tokens,
                vs(&|(t, _)| Some(t), &|d| grouped(d.round() as u64)),
                cost.map_or_else(dash, |c| money(c * run.samples as f64)),
                cost.map_or_else(dash, money),
                if spend.priced() { vs(&|(_, c)| c, &money) } else { dash() },
            ]
        })
        .collect();
    (header.map(str::to_string).to_vec(), rows)
}

/// Accuracy per topology and run, with each run's difference from the baseline; empty when the runs hold one
/// topology (the main table says it all then).
fn by_topology(files: &[(String, Value)], graded: &[GradedFile]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut topologies: Vec<String> = graded.iter().flat_map(|g| g.samples.iter().map(|s| s.outcome.topology.clone())).collect();
    sort::natural(&mut topologies);
    topologies.dedup();
    if topologies.len() < 2 {
        return (Vec::new(), Vec::new());
    }
    let rate = |g: &GradedFile, topology: &str| {
        let (correct, total) = g.samples.iter().filter(|s| s.outcome.topology == topology).fold((0, 0), |(c, t), s| (c + usize::from(s.grade.correct), t + 1));
        (total > 0).then(|| (correct, total, correct as f64 / total as f64))
    };
    let header = std::iter::once("topology".to_string()).chain(files.iter().map(|(name, _)| name.clone())).collect();
    let rows = topologies
        .iter()
        .map(|topology| {
            let base = rate(&graded[0], topology);
            let mut row = vec![topology.clone()];
            for (k, g) in graded.iter().enumerate() {
                row.push(match (rate(g, topology), base) {
                    (None, _) => "–".into(),
                    (Some((c, t, r)), Some((_, _, b))) if k > 0 => format!("{:.1}% ({c}/{t}) {:+.1} pts", r * 100.0, (r - b) * 100.0),
                    (Some((c, t, r)), _) => format!("{:.1}% ({c}/{t})", r * 100.0),
                });
            }
            row
        })
        .collect();
    (header, rows)
}

/// A sample right in one run and wrong in the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flip {
    /// The other run's position among the files (the baseline is 0).
    pub run: usize,
    /// The sample's index in the baseline's file.
    pub baseline_index: usize,
    /// Its index in the other run's file.
    pub index: usize,
    /// Its target task and its index, to tell samples apart.
    pub label: String,
    /// True when the other run got it right (a fix), false when it broke it.
    pub fixed: bool,
}

/// The flips of every run against the baseline (`graded[0]`), run by run, in the baseline's order.
fn flips_of(files: &[(String, Value)], graded: &[GradedFile]) -> Vec<Flip> {
    let Some(base) = graded.first() else { return Vec::new() };
    let correct = |g: &GradedFile, index: usize| g.samples.iter().find(|s| s.index == index).map(|s| s.grade.correct);
    let mut flips = Vec::new();
    for (run, other) in graded.iter().enumerate().skip(1) {
        for (a, b) in compare_runs(base, other).pairs {
            let (Some(was), Some(now)) = (correct(base, a), correct(other, b)) else { continue };
            if was != now {
                let task = files[0].1.get("samples").and_then(|s| s.get(a)).and_then(|s| SampleRecord::parse(s).task_name).unwrap_or_else(|| "sample".into());
                flips.push(Flip { run, baseline_index: a, index: b, label: format!("{task} #{a}"), fixed: now });
            }
        }
    }
    flips
}

/// Grades `files` (name, parsed JSON) and compares them, the first being the baseline. A file that is not a
/// results file is refused by name.
pub fn compare_files(files: &[(String, Value)]) -> Result<CompareTable, String> {
    if files.len() < 2 {
        return Err("pick two or more results files to compare (the first is the baseline)".into());
    }
    let graded: Vec<GradedFile> =
        files.iter().map(|(name, json)| grade_results_file(json, GradeOptions::default()).map_err(|e| format!("{name}: {e}"))).collect::<Result<_, _>>()?;
    let runs: Vec<Run<'_>> = files
        .iter()
        .zip(&graded)
        // Named by what differs from the defaults (`mask`, not `mask:keep=10`), so the column stays narrow.
        .map(|((name, json), g)| Run { label: name.clone(), strategy: strategy_of(json).map_or_else(|| "?".into(), |spec| short_label(&spec)), graded: g })
        .collect();
    let (header, rows) = comparison_cells(&compare_many(&runs, 0));
    let notes = files
        .iter()
        .zip(&graded)
        .filter(|(_, g)| g.unfinished > 0 || !g.unreadable.is_empty())
        .map(|((name, _), g)| format!("{name}: {} unfinished and {} unreadable samples are not graded", g.unfinished, g.unreadable.len()))
        .collect();
    let curves = context_curves(
        &files
            .iter()
            .zip(&graded)
            .map(|((name, _), g)| {
                let per_sample: Vec<Vec<u64>> = g.outcomes().into_iter().filter_map(|o| o.cost.map(|c| c.turn_prompt_tokens)).collect();
                (name.clone(), mean_per_turn(&per_sample))
            })
            .collect::<Vec<_>>(),
    );
    let flips = flips_of(files, &graded);
    let by_topology = by_topology(files, &graded);
    let spend = files.iter().zip(&graded).map(|((name, _), g)| RunSpend::of(name, g)).collect();
    Ok(CompareTable { header: header.into_iter().map(str::to_string).collect(), rows, notes, curves, flips, by_topology, spend })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A results file of `strategy` with samples answered correctly where `correct` says.
    fn results(strategy: &str, correct: &[bool]) -> Value {
        let samples: Vec<Value> = correct
            .iter()
            .enumerate()
            .map(|(i, &ok)| {
                let answer = if ok { "5" } else { "4" };
                json!({"prompt": "Compute task_1_out.", "ground_truth": 5, "task_id": 0, "task_name": "AddTask", "sample_idx": i,
                    "agent_status": "success", "strategy": strategy, "task_answers": {"task_1_out": {"answer": answer, "turn": 0}},
                    "turn_outputs": {"0": format!("\\boxed{{task_1_out = {answer}}}")}})
            })
            .collect();
        json!({"summary": {}, "samples": samples})
    }

    #[test]
    fn runs_are_paired_against_the_first_with_their_strategies() {
        let files = vec![
            ("full.json".to_string(), results("full", &[true, true, true, false])),
            ("window.json".to_string(), results("window", &[true, false, false, false])),
        ];
        let table = compare_files(&files).expect("two results files compare");
        assert_eq!(table.rows.len(), 2);
        assert_eq!(table.header[0], "run");
        assert_eq!((table.rows[0][0].as_str(), table.rows[0][1].as_str(), table.rows[0][4].as_str()), ("full.json", "full", "baseline"));
        assert!(table.rows[0][2].contains("3/4"), "{:?}", table.rows[0]);
        assert!(table.rows[1][2].contains("1/4") && table.rows[1][4].starts_with("-50.0 pts"), "{:?}", table.rows[1]);
        assert!(table.notes.is_empty());
        assert_eq!(table.curves, None, "these files record no per-turn prompt sizes");
        let flips: Vec<(usize, usize, bool)> = table.flips.iter().map(|f| (f.baseline_index, f.index, f.fixed)).collect();
        assert_eq!(flips, vec![(1, 1, false), (2, 2, false)], "samples 1 and 2 broke; 0 and 3 agree");
        assert_eq!(table.flips[0].label, "AddTask #1");
        let fixed = compare_files(&[files[1].clone(), files[0].clone()]).unwrap();
        assert!(fixed.flips.iter().all(|f| f.fixed && f.run == 1), "the other way round both are fixes");
    }

    #[test]
    fn the_strategy_column_names_only_parameters_off_their_defaults() {
        let with_params = |keep: u64| {
            let mut file = results("mask", &[true]);
            file["samples"][0]["strategy_params"] = json!({"keep": keep});
            file
        };
        let table = compare_files(&[("a.json".into(), with_params(10)), ("b.json".into(), with_params(3))]).unwrap();
        assert_eq!(table.header[1], "strategy");
        assert_eq!((table.rows[0][1].as_str(), table.rows[1][1].as_str()), ("mask", "mask:keep=3"), "keep=10 is mask's default");
    }

    #[test]
    fn runs_over_several_topologies_get_a_row_each_with_the_difference_from_the_baseline() {
        let mut full = results("full", &[true, true, false, true]);
        let mut window = results("window", &[true, false, false, false]);
        for file in [&mut full, &mut window] {
            for (i, sample) in file["samples"].as_array_mut().unwrap().iter_mut().enumerate() {
                if i >= 2 {
                    sample["chain"] = json!({"distractors": [], "target": {"task_number": 1, "task_name": "AddTask", "ground_truth": 5}});
                }
            }
        }
        let table = compare_files(&[("full.json".into(), full), ("window.json".into(), window)]).unwrap();
        let (header, rows) = table.by_topology;
        assert_eq!(header, vec!["topology", "full.json", "window.json"]);
        assert_eq!(rows, vec![
            vec!["baseline".to_string(), "100.0% (2/2)".into(), "50.0% (1/2) -50.0 pts".into()],
            vec!["chain".to_string(), "50.0% (1/2)".into(), "0.0% (0/2) -50.0 pts".into()],
        ]);
        let one = compare_files(&[("a.json".into(), results("full", &[true])), ("b.json".into(), results("full", &[false]))]).unwrap();
        assert!(one.by_topology.1.is_empty(), "one topology: no table");
    }

    #[test]
    fn tokens_and_cost_per_run_with_the_difference_from_the_baseline() {
        let mut full = results("full", &[true, true]);
        let mut window = results("window", &[true, false]);
        // full: 1,000 in and 100 out per sample; window: 400 in and 100 out, and its second sample records none.
        for sample in full["samples"].as_array_mut().unwrap() {
            sample["usage"] = json!({"prompt_tokens": 1000, "completion_tokens": 100});
        }
        window["samples"][0]["usage"] = json!({"prompt_tokens": 400, "completion_tokens": 100});
        let table = compare_files(&[("full.json".into(), full), ("window.json".into(), window)]).unwrap();
        assert_eq!(table.spend, vec![
            RunSpend { label: "full.json".into(), samples: 2, prompt_tokens: 2000, completion_tokens: 200, cached_prompt_tokens: 0 },
            RunSpend { label: "window.json".into(), samples: 1, prompt_tokens: 400, completion_tokens: 100, cached_prompt_tokens: 0 },
        ]);
        let unpriced = spend_table(&table.spend, &Spend::default());
        assert_eq!(unpriced.0.len(), unpriced.1[0].len());
        assert_eq!(unpriced.1[0][1..6], ["2", "2,000", "200", "1,100", "baseline"]);
        assert_eq!(unpriced.1[1][4..], ["500", "-600 (-54.5%)", "–", "–", "–"]);
        // $3 per million in, $15 out: full costs $0.0045 a sample, window $0.0027.
        let priced = spend_table(&table.spend, &Spend { price_in: 3.0, price_out: 15.0, ..Spend::default() });
        assert_eq!(priced.1[0][6..], ["$0.0090", "$0.0045", "baseline"]);
        assert_eq!(priced.1[1][6..], ["$0.0027", "$0.0027", "-$0.0018 (-40.0%)"]);
        let none = RunSpend { label: "none.json".into(), samples: 0, prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0 };
        let without = spend_table(&[none, table.spend[0].clone()], &Spend { price_in: 3.0, ..Spend::default() });
        assert_eq!(without.1[1][5], "–", "no baseline figures: no difference");
        // A cached-input price: 1,500 of full's 2,000 input tokens read from the cache at $0.30 per million.
        let cached = RunSpend { cached_prompt_tokens: 1_500, ..table.spend[0].clone() };
        let with_cache = spend_table(&[cached], &Spend { price_in: 3.0, price_out: 15.0, price_cached_in: Some(0.3), ..Spend::default() });
        // (500 × $3 + 1,500 × $0.30 + 200 × $15) / 1e6 = $0.00495 for both samples.
        assert_eq!(with_cache.1[0][6..8], ["$0.0050", "$0.0025"]);
    }

    #[test]
    fn one_file_or_a_dataset_is_refused_by_name() {
        assert!(compare_files(&[("a.json".into(), results("full", &[true]))]).is_err_and(|e| e.contains("two or more")));
        let dataset = json!({"summary": {"topology": "baseline"}, "samples": [{"prompt": "p", "ground_truth": 1}]});
        let refused = compare_files(&[("a.json".into(), results("full", &[true])), ("instances.json".into(), dataset)]);
        assert!(refused.is_err_and(|e| e.starts_with("instances.json: ")));
    }
}
