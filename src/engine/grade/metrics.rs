//! Run metrics: accuracy with Wilson 95% intervals per topology × family and per target task, means of tokens,
//! turns and tool calls, status and repair breakdowns, per-node accuracy, the paired comparison of two runs
//! on the same instances (accuracy difference with an exact McNemar test), and the comparison table of several
//! runs (one row per run: accuracy, node accuracy, McNemar against a baseline, prompt tokens, total tokens with
//! auxiliary calls, calls per sample), which the CLI prints and the dashboard renders.

use super::NodeStatus;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use crate::engine::sort;

/// What the metrics need from one graded sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// `baseline`, `forgetting`, `chain`, `multichain` or `custom`.
    pub topology: String,
    /// `math`, `python`, `gsm` or `mixed`.
    pub family: String,
    /// The target task's name (`task_name`).
    pub task: String,
    /// Reference-compatible verdict.
    pub correct: bool,
    /// Lenient verdict, when computed.
    pub lenient: Option<bool>,
    /// Generated tokens.
    pub token_length: Option<f64>,
    /// Agent turns.
    pub turns: Option<f64>,
    /// Executed tool calls.
    pub tool_calls: Option<f64>,
    /// Agent status (`success`, `timeout`, …).
    pub status: String,
    /// Repairs used, by kind.
    pub repairs: Vec<(String, u64)>,
    /// Per-node statuses.
    pub nodes: Vec<(String, NodeStatus)>,
    /// First-break nodes.
    pub first_breaks: Vec<String>,
    /// Tokens and calls, when the sample records them.
    pub cost: Option<SampleCost>,
}

/// What one sample cost, from its per-request record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SampleCost {
    /// Prompt tokens of each turn's request, in order (reported where the endpoint reported them, else the
    /// harness's estimate); empty when the sample records only totals.
    pub turn_prompt_tokens: Vec<u64>,
    /// Requests sent: turns and auxiliary calls.
    pub calls: u64,
    /// Auxiliary calls among them (summaries).
    pub auxiliary_calls: u64,
    /// Prompt plus completion tokens of every request, auxiliary calls included.
    pub total_tokens: u64,
    /// The prompt part of `total_tokens` (priced as input).
    pub prompt_tokens: u64,
    /// The completion part of `total_tokens` (priced as output; reasoning tokens are part of it).
    pub completion_tokens: u64,
    /// Of the prompt tokens, those the provider read from its cache (priced at its cached-input price).
    pub cached_prompt_tokens: u64,
}

/// Wilson score interval for `k` successes out of `n` at 95% (z = 1.96); `(0, 1)` when `n` is 0.
pub fn wilson_interval(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Two-sided exact McNemar p-value for `b` and `c` discordant pairs (binomial test with p = 1/2).
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // P(X <= k) for X ~ Bin(n, 1/2), in log space to stay finite for large n.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_choose = 0.0f64; // ln C(n, 0)
    let mut tail = 0.0f64;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

/// Accuracy of one group.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Accuracy {
    /// Correct samples.
    pub correct: usize,
    /// All samples.
    pub total: usize,
}

impl Accuracy {
    fn add(&mut self, ok: bool) {
        self.total += 1;
        self.correct += ok as usize;
    }

    /// Fraction correct (0 when empty).
    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.correct as f64 / self.total as f64
        }
    }

    /// Wilson 95% interval.
    pub fn interval(&self) -> (f64, f64) {
        wilson_interval(self.correct, self.total)
    }
}

/// Aggregates of a whole run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// All samples.
    pub overall: Accuracy,
    /// Lenient accuracy, when any sample has a lenient verdict.
    pub lenient: Option<Accuracy>,
    /// Per `(topology, family)`.
    pub by_group: BTreeMap<(String, String), Accuracy>,
    /// Per `(topology, family, task)`.
    pub by_task: BTreeMap<(String, String, String), Accuracy>,
    /// Mean tokens / turns / tool calls over samples that record them.
    pub mean_tokens: Option<f64>,
    /// Mean turns.
    pub mean_turns: Option<f64>,
    /// Mean tool calls.
    pub mean_tool_calls: Option<f64>,
    /// Fraction of samples with at least one tool call.
    pub tool_use_rate: f64,
    /// Count per status.
    pub statuses: BTreeMap<String, usize>,
    /// Total repairs per kind, and samples that used at least one.
    pub repairs: BTreeMap<String, (u64, usize)>,
    /// Fraction of samples whose status is `context_length_exceeded`.
    pub context_exceeded_rate: f64,
    /// Per node name: correct / graded.
    pub nodes: BTreeMap<String, Accuracy>,
    /// Per node name: how often it was the first break.
    pub first_breaks: BTreeMap<String, usize>,
    /// Per `(topology, family)`: mean generated tokens and mean turns (the paper's Figures 4 and 5).
    pub costs: BTreeMap<(String, String), GroupCost>,
}

/// Sums behind a group's mean tokens and turns, over the samples that record each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupCost {
    tokens: (f64, usize),
    turns: (f64, usize),
}

impl GroupCost {
    fn add(&mut self, tokens: Option<f64>, turns: Option<f64>) {
        for (sum, value) in [(&mut self.tokens, tokens), (&mut self.turns, turns)] {
            if let Some(v) = value {
                sum.0 += v;
                sum.1 += 1;
            }
        }
    }

    /// Mean generated tokens per sample, if any sample records them.
    pub fn mean_tokens(&self) -> Option<f64> {
        (self.tokens.1 > 0).then(|| self.tokens.0 / self.tokens.1 as f64)
    }

    /// Mean turns per sample, if any sample records them.
    pub fn mean_turns(&self) -> Option<f64> {
        (self.turns.1 > 0).then(|| self.turns.0 / self.turns.1 as f64)
    }
}

/// `(topology, family)` → `pick` of each group's cost, for the groups that have it.
pub fn group_means(costs: &BTreeMap<(String, String), GroupCost>, pick: fn(&GroupCost) -> Option<f64>) -> BTreeMap<(String, String), f64> {
    costs.iter().filter_map(|(k, c)| Some((k.clone(), pick(c)?))).collect()
}

fn mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let (sum, n) = values.flatten().fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// Computes the metrics of a run.
pub fn summarise<'a, I>(outcomes: I) -> Metrics
where
    I: IntoIterator<Item = &'a Outcome>,
    I::IntoIter: Clone,
{
    let outcomes = outcomes.into_iter();
    let mut m = Metrics::default();
    for o in outcomes.clone() {
        m.overall.add(o.correct);
        if let Some(l) = o.lenient {
            m.lenient.get_or_insert_with(Accuracy::default).add(l);
        }
        m.by_group.entry((o.topology.clone(), o.family.clone())).or_default().add(o.correct);
        m.by_task.entry((o.topology.clone(), o.family.clone(), o.task.clone())).or_default().add(o.correct);
        m.costs.entry((o.topology.clone(), o.family.clone())).or_default().add(o.token_length, o.turns);
        *m.statuses.entry(o.status.clone()).or_default() += 1;
        for (kind, count) in &o.repairs {
            let entry = m.repairs.entry(kind.clone()).or_default();
            entry.0 += count;
            entry.1 += (*count > 0) as usize;
        }
        for (name, status) in &o.nodes {
            m.nodes.entry(name.clone()).or_default().add(*status == NodeStatus::Correct);
        }
        for name in &o.first_breaks {
            *m.first_breaks.entry(name.clone()).or_default() += 1;
        }
    }
    m.mean_tokens = mean(outcomes.clone().map(|o| o.token_length));
    m.mean_turns = mean(outcomes.clone().map(|o| o.turns));
    m.mean_tool_calls = mean(outcomes.clone().map(|o| o.tool_calls));
    let n = outcomes.clone().count().max(1) as f64;
    m.tool_use_rate = outcomes.clone().filter(|o| o.tool_calls.unwrap_or(0.0) >= 1.0).count() as f64 / n;
    m.context_exceeded_rate = outcomes.filter(|o| o.status == "context_length_exceeded").count() as f64 / n;
    m
}

fn pct(a: &Accuracy) -> String {
    let (lo, hi) = a.interval();
    format!("{:6.1}%  [{:5.1}, {:5.1}]  {}/{}", 100.0 * a.rate(), 100.0 * lo, 100.0 * hi, a.correct, a.total)
}

fn opt(x: Option<f64>) -> String {
    x.map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into())
}

/// The metrics as a plain-text table.
/// The accuracy figures as CSV, one row per scope: the whole run, each topology × family, each target task and
/// each graded node, with correct and total counts, the rate and its Wilson 95% interval. Fields that a
/// spreadsheet would read as a formula (`=`, `+`, `-`, `@` first) are quoted and prefixed with `'`.
pub fn metrics_csv(m: &Metrics) -> String {
    let mut out = String::from("scope,topology,family,task,correct,total,accuracy,ci_low,ci_high\n");
    let mut row = |scope: &str, topology: &str, family: &str, task: &str, a: &Accuracy| {
        let (low, high) = a.interval();
        let fields = [scope, topology, family, task].map(csv_field);
        let _ = writeln!(out, "{},{},{},{},{},{},{:.4},{:.4},{:.4}", fields[0], fields[1], fields[2], fields[3], a.correct, a.total, a.rate(), low, high);
    };
    row("overall", "", "", "", &m.overall);
    for ((topology, family), a) in &m.by_group {
        row("topology x family", topology, family, "", a);
    }
    for ((topology, family, task), a) in &m.by_task {
        row("target task", topology, family, task, a);
    }
    for (name, a) in &m.nodes {
        row("node", "", "", name, a);
    }
    out
}

/// One CSV field: quoted when it holds a comma, a quote or a line break, and made inert when a spreadsheet
/// would start a formula with it.
fn csv_field(text: &str) -> String {
    let formula = text.starts_with(['=', '+', '-', '@']);
    let text = if formula { format!("'{text}") } else { text.to_string() };
    if formula || text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

pub fn render_table(m: &Metrics) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "accuracy (Wilson 95% CI)");
    let _ = writeln!(out, "  {:<34} {}", "overall", pct(&m.overall));
    if let Some(l) = &m.lenient {
        let _ = writeln!(out, "  {:<34} {}", "overall, lenient (not comparable)", pct(l));
    }
    for ((topology, family), a) in &m.by_group {
        let _ = writeln!(out, "  {:<34} {}", format!("{topology} × {family}"), pct(a));
    }
    if m.by_task.len() > 1 {
        let _ = writeln!(out, "per target task");
        for ((topology, family, task), a) in &m.by_task {
            let _ = writeln!(out, "  {:<34} {}", format!("{topology}/{family}/{task}"), pct(a));
        }
    }
    let _ = writeln!(
        out,
        "means: tokens {}  turns {}  tool calls {}  tool use rate {:.3}",
        opt(m.mean_tokens),
        opt(m.mean_turns),
        opt(m.mean_tool_calls),
        m.tool_use_rate
    );
    let _ = writeln!(out, "statuses");
    for (status, count) in &m.statuses {
        let _ = writeln!(out, "  {status:<34} {count}");
    }
    let _ = writeln!(out, "context-exceeded rate {:.3}", m.context_exceeded_rate);
    if !m.repairs.is_empty() {
        let _ = writeln!(out, "repairs (total, samples using any)");
        for (kind, (total, samples)) in &m.repairs {
            let _ = writeln!(out, "  {kind:<34} {total} {samples}");
        }
    }
    if !m.nodes.is_empty() {
        let _ = writeln!(out, "per-node accuracy (first breaks)");
        let mut names: Vec<&String> = m.nodes.keys().collect();
        sort::by_key(&mut names, |n| (n.trim_start_matches("task_").trim_end_matches("_out").parse::<u64>().unwrap_or(u64::MAX), n.to_string()));
        for name in names {
            let a = &m.nodes[name];
            let _ = writeln!(out, "  {:<34} {}  ({})", name, pct(a), m.first_breaks.get(name).copied().unwrap_or(0));
        }
    }
    out
}

/// The paired comparison of two runs on the same samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    /// Matched samples.
    pub n: usize,
    /// Correct in both.
    pub both: usize,
    /// Correct only in run A.
    pub only_a: usize,
    /// Correct only in run B.
    pub only_b: usize,
    /// Accuracy of A minus accuracy of B on the matched samples.
    pub difference: f64,
    /// Exact McNemar p-value.
    pub p_value: f64,
}

/// Compares paired verdicts `(a, b)`.
pub fn paired(pairs: &[(bool, bool)]) -> Paired {
    let both = pairs.iter().filter(|(a, b)| *a && *b).count();
    let only_a = pairs.iter().filter(|(a, b)| *a && !*b).count();
    let only_b = pairs.iter().filter(|(a, b)| !*a && *b).count();
    let n = pairs.len();
    let difference = if n == 0 { 0.0 } else { (only_a as f64 - only_b as f64) / n as f64 };
    Paired { n, both, only_a, only_b, difference, p_value: mcnemar_exact(only_a, only_b) }
}

/// One run in a comparison table.
#[derive(Clone, Debug, PartialEq)]
pub struct ComparisonRow {
    /// How the run is called (its file name).
    pub label: String,
    /// Its strategy with parameters (`mask:keep=10`).
    pub strategy: String,
    /// Graded samples.
    pub accuracy: Accuracy,
    /// Every graded node of every sample (the retention score on probe runs).
    pub nodes: Accuracy,
    /// Paired against the baseline run (`only_a` counts this run); `None` on the baseline's own row.
    pub paired: Option<Paired>,
    /// Mean prompt tokens per turn request.
    pub mean_prompt_tokens: Option<f64>,
    /// Largest prompt of any turn request.
    pub peak_prompt_tokens: Option<u64>,
    /// Mean tokens per sample, prompt and completion, auxiliary calls included.
    pub mean_total_tokens: Option<f64>,
    /// Mean requests per sample, auxiliary calls included.
    pub calls_per_sample: Option<f64>,
    /// Mean auxiliary calls per sample.
    pub auxiliary_per_sample: Option<f64>,
    /// Samples that ended with `context_length_exceeded`.
    pub context_exceeded: usize,
}

/// Several runs side by side, paired against one of them.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Index of the baseline row.
    pub baseline: usize,
    /// One row per run, in the order given.
    pub rows: Vec<ComparisonRow>,
}

/// The row of one run: its outcomes, and its pairing against the baseline (`None` for the baseline itself).
pub fn comparison_row(label: &str, strategy: &str, outcomes: &[Outcome], paired: Option<Paired>) -> ComparisonRow {
    let mut accuracy = Accuracy::default();
    let mut nodes = Accuracy::default();
    for o in outcomes {
        accuracy.add(o.correct);
        for (_, status) in &o.nodes {
            nodes.add(*status == NodeStatus::Correct);
        }
    }
    let costs: Vec<&SampleCost> = outcomes.iter().filter_map(|o| o.cost.as_ref()).collect();
    let prompts: Vec<u64> = costs.iter().flat_map(|c| c.turn_prompt_tokens.iter().copied()).collect();
    let per_sample = |f: &dyn Fn(&SampleCost) -> f64| (!costs.is_empty()).then(|| costs.iter().map(|c| f(c)).sum::<f64>() / costs.len() as f64);
    ComparisonRow {
        label: label.to_string(),
        strategy: strategy.to_string(),
        accuracy,
        nodes,
        paired,
        mean_prompt_tokens: (!prompts.is_empty()).then(|| prompts.iter().sum::<u64>() as f64 / prompts.len() as f64),
        peak_prompt_tokens: prompts.iter().copied().max(),
        mean_total_tokens: per_sample(&|c| c.total_tokens as f64),
        calls_per_sample: per_sample(&|c| c.calls as f64),
        auxiliary_per_sample: per_sample(&|c| c.auxiliary_calls as f64),
        context_exceeded: outcomes.iter().filter(|o| o.status == "context_length_exceeded").count(),
    }
}

/// The comparison's header and rows as text cells (the CLI's tables and the Results page show the same).
pub fn comparison_cells(c: &Comparison) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let header = vec![
        "run", "strategy", "accuracy [95% CI]", "nodes correct", "vs baseline (McNemar p)", "mean prompt", "peak prompt", "tokens/sample", "calls/sample",
        "aux/sample", "ctx exceeded",
    ];
    let int = |x: Option<f64>| x.map(|x| format!("{x:.0}")).unwrap_or_else(|| "-".into());
    let rows = c
        .rows
        .iter()
        .map(|r| {
            let (lo, hi) = r.accuracy.interval();
            let vs = match &r.paired {
                None => "baseline".to_string(),
                Some(p) => format!("{:+.1} pts (p {})", 100.0 * p.difference, p_text(p.p_value)),
            };
            vec![
                r.label.clone(),
                r.strategy.clone(),
                format!("{:.1}% [{:.1}, {:.1}] {}/{}", 100.0 * r.accuracy.rate(), 100.0 * lo, 100.0 * hi, r.accuracy.correct, r.accuracy.total),
                if r.nodes.total == 0 { "-".into() } else { format!("{:.1}% {}/{}", 100.0 * r.nodes.rate(), r.nodes.correct, r.nodes.total) },
                vs,
                int(r.mean_prompt_tokens),
                r.peak_prompt_tokens.map(|p| p.to_string()).unwrap_or_else(|| "-".into()),
                int(r.mean_total_tokens),
                r.calls_per_sample.map(|x| format!("{x:.1}")).unwrap_or_else(|| "-".into()),
                r.auxiliary_per_sample.map(|x| format!("{x:.1}")).unwrap_or_else(|| "-".into()),
                r.context_exceeded.to_string(),
            ]
        })
        .collect();
    (header, rows)
}

fn p_text(p: f64) -> String {
    if p < 0.0001 {
        "<0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

/// The comparison as an aligned plain-text table.
pub fn render_comparison(c: &Comparison) -> String {
    let (header, rows) = comparison_cells(c);
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count()))).collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut out = line(header.iter().map(|h| h.to_string()).collect());
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

/// The comparison as a Markdown table.
pub fn render_comparison_markdown(c: &Comparison) -> String {
    let (header, rows) = comparison_cells(c);
    let mut out = format!("| {} |\n|{}|\n", header.join(" | "), header.iter().enumerate().map(|(i, _)| if i < 2 { "---" } else { "---:" }).collect::<Vec<_>>().join("|"));
    for row in rows {
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn wilson_interval_matches_known_values() {
        let (lo, hi) = wilson_interval(8, 10);
        assert!(close(lo, 0.4902) && close(hi, 0.9433), "{lo} {hi}");
        let (lo, hi) = wilson_interval(0, 20);
        assert!(close(lo, 0.0) && close(hi, 0.1611), "{lo} {hi}");
        assert_eq!(wilson_interval(0, 0), (0.0, 1.0));
    }

    #[test]
    fn mcnemar_exact_matches_the_binomial_tail() {
        // b=1, c=9: 2 * P(X<=1 | n=10) = 2 * 11/1024.
        assert!(close(mcnemar_exact(1, 9), 22.0 / 1024.0));
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(5, 5), 1.0);
        assert!(mcnemar_exact(0, 2000) < 1e-100);
    }

    #[test]
    fn summaries_group_by_topology_family_and_node() {
        let outcome = |correct, status: &str, node| Outcome {
            topology: "chain".into(),
            family: "math".into(),
            task: "T".into(),
            correct,
            status: status.into(),
            tool_calls: Some(1.0),
            nodes: vec![("task_1_out".into(), node)],
            ..Outcome::default()
        };
        let m = summarise(&[outcome(true, "success", NodeStatus::Correct), outcome(false, "context_length_exceeded", NodeStatus::Missing)]);
        assert_eq!(m.overall, Accuracy { correct: 1, total: 2 });
        assert_eq!(m.by_group[&("chain".to_string(), "math".to_string())].total, 2);
        assert_eq!(m.nodes["task_1_out"], Accuracy { correct: 1, total: 2 });
        assert_eq!(m.context_exceeded_rate, 0.5);
        assert_eq!(m.tool_use_rate, 1.0);
        assert!(render_table(&m).contains("chain × math"));
    }

    #[test]
    fn mean_tokens_and_turns_are_per_topology_and_family_over_the_samples_that_record_them() {
        let outcome = |topology: &str, tokens, turns| Outcome { topology: topology.into(), family: "math".into(), token_length: tokens, turns, ..Outcome::default() };
        let m = summarise(&[outcome("chain", Some(100.0), Some(4.0)), outcome("chain", Some(300.0), None), outcome("baseline", None, None)]);
        let chain = &m.costs[&("chain".to_string(), "math".to_string())];
        assert_eq!((chain.mean_tokens(), chain.mean_turns()), (Some(200.0), Some(4.0)));
        let tokens = group_means(&m.costs, GroupCost::mean_tokens);
        assert_eq!(tokens.len(), 1, "baseline records no tokens: no bar rather than a zero");
        assert_eq!(group_means(&m.costs, GroupCost::mean_turns)[&("chain".to_string(), "math".to_string())], 4.0);
    }

    #[test]
    fn comparison_rows_count_nodes_tokens_and_calls_per_run() {
        let outcome = |correct, prompts: Vec<u64>, aux| Outcome {
            correct,
            status: "success".into(),
            nodes: vec![("task_1_out".into(), NodeStatus::Correct), ("task_2_out".into(), if correct { NodeStatus::Correct } else { NodeStatus::Wrong })],
            cost: Some(SampleCost { calls: prompts.len() as u64 + aux, auxiliary_calls: aux, total_tokens: prompts.iter().sum::<u64>() + 100 * aux, prompt_tokens: prompts.iter().sum::<u64>() + 100 * aux, completion_tokens: 0, cached_prompt_tokens: 0, turn_prompt_tokens: prompts }),
            ..Outcome::default()
        };
        let baseline = [outcome(true, vec![100, 300], 0), outcome(true, vec![100, 500], 0)];
        let other = [outcome(true, vec![100, 200], 1), outcome(false, vec![100, 100], 1)];
        let paired_other = paired(&[(true, true), (false, true)]);
        let c = Comparison {
            baseline: 0,
            rows: vec![comparison_row("a.json", "full", &baseline, None), comparison_row("b.json", "summary", &other, Some(paired_other))],
        };
        let b = &c.rows[1];
        assert_eq!((b.accuracy.correct, b.nodes.correct, b.nodes.total), (1, 3, 4));
        assert_eq!(b.mean_prompt_tokens, Some(125.0));
        assert_eq!(c.rows[0].peak_prompt_tokens, Some(500));
        assert_eq!(b.calls_per_sample, Some(3.0));
        assert_eq!(b.auxiliary_per_sample, Some(1.0));
        assert_eq!(b.mean_total_tokens, Some(350.0));
        let text = render_comparison(&c);
        assert!(text.lines().nth(1).is_some_and(|l| l.contains("baseline")), "{text}");
        assert!(text.contains("-50.0 pts (p 1.0000)"), "{text}");
        let md = render_comparison_markdown(&c);
        assert_eq!(md.lines().count(), 4);
        assert!(md.starts_with("| run | strategy |"));
        let empty = comparison_row("c.json", "full", &[], None);
        assert_eq!((empty.mean_prompt_tokens, empty.calls_per_sample), (None, None));
    }

    #[test]
    fn paired_comparison_counts_discordant_pairs() {
        let p = paired(&[(true, true), (true, false), (true, false), (false, true)]);
        assert_eq!((p.both, p.only_a, p.only_b), (1, 2, 1));
        assert!(close(p.difference, 0.25));
        assert_eq!(p.p_value, 1.0);
    }

    #[test]
    fn the_csv_has_one_row_per_scope_and_keeps_spreadsheets_from_running_text() {
        let mut m = Metrics::default();
        m.overall = Accuracy { correct: 3, total: 4 };
        m.by_group.insert(("chain".into(), "math".into()), Accuracy { correct: 1, total: 2 });
        m.by_task.insert(("chain".into(), "math".into(), "=HYPERLINK(\"x\")".into()), Accuracy { correct: 1, total: 2 });
        m.by_task.insert(("baseline".into(), "gsm".into(), "a, b".into()), Accuracy { correct: 2, total: 2 });
        m.nodes.insert("task_1_out".into(), Accuracy { correct: 0, total: 1 });
        let csv = metrics_csv(&m);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "scope,topology,family,task,correct,total,accuracy,ci_low,ci_high");
        let (low, high) = wilson_interval(3, 4);
        assert_eq!(lines[1], format!("overall,,,,3,4,0.7500,{low:.4},{high:.4}"));
        assert!(lines[2].starts_with("topology x family,chain,math,,1,2,0.5000,"));
        assert!(lines[3].starts_with("target task,baseline,gsm,\"a, b\",2,2,1.0000,"), "{}", lines[3]);
        assert!(lines[4].starts_with("target task,chain,math,\"'=HYPERLINK(\"\"x\"\")\",1,2,"), "{}", lines[4]);
        assert!(lines[5].starts_with("node,,,task_1_out,0,1,0.0000,"));
        assert_eq!(lines.len(), 6);
    }
}
