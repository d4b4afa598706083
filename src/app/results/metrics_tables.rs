//! Results' own metrics as tables: accuracy with Wilson 95% intervals (the run and each topology × family),
//! accuracy per target task, the means per sample, the agents' statuses, the harness's repairs and the accuracy
//! of each graded node with its first breaks. Each table has a caption, column headers and, as the first cell of
//! every row, the row's header; the page only draws them (`ui::pages::results::metrics`). The figures are those
//! of `engine::grade::metrics::render_table`, which the CLI prints.

use crate::engine::grade::metrics::{Accuracy, Metrics};
use crate::engine::sort;

/// One table of the metrics.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricsTable {
    /// Its `data-testid` (`metrics-accuracy`, `metrics-statuses`, …), stable for tests.
    pub testid: &'static str,
    /// What the table shows, as its `<caption>`.
    pub caption: String,
    /// The column headers; the first names the rows' headers.
    pub header: Vec<&'static str>,
    /// One row per line; the first cell is the row's header.
    pub rows: Vec<Vec<String>>,
}

/// Columns of an accuracy after the row's header.
const ACCURACY_COLUMNS: [&str; 4] = ["Accuracy", "95% interval", "Correct", "Total"];

/// The cells of an accuracy: the rate, its Wilson 95% interval, correct and total.
fn accuracy_cells(a: &Accuracy) -> [String; 4] {
    let (low, high) = a.interval();
    [format!("{:.1}%", 100.0 * a.rate()), format!("{:.1}–{:.1}%", 100.0 * low, 100.0 * high), a.correct.to_string(), a.total.to_string()]
}

fn with_header(header: String, cells: impl IntoIterator<Item = String>) -> Vec<String> {
    std::iter::once(header).chain(cells).collect()
}

/// A mean, or `–` when no sample records it.
fn mean_cell(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_string(), |x| format!("{x:.2}"))
}

/// A share of `n` out of `total` as a percentage with one decimal.
fn share(n: usize, total: usize) -> String {
    if total == 0 {
        "–".to_string()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / total as f64)
    }
}

/// A node's output name in graph order: `task_2_out` before `task_10_out`, names without a number last.
fn node_order(name: &str) -> (u64, String) {
    (name.trim_start_matches("task_").trim_end_matches("_out").parse::<u64>().unwrap_or(u64::MAX), name.to_string())
}

/// The metrics of a run as tables, in the order the page shows them. Tables with nothing to show are left out:
/// per target task with a single target, repairs when no sample needed one, per node when no sample graded a node.
pub fn metrics_tables(m: &Metrics) -> Vec<MetricsTable> {
    let mut tables = Vec::new();
    let mut accuracy = vec![with_header("Overall".to_string(), accuracy_cells(&m.overall))];
    if let Some(lenient) = &m.lenient {
        accuracy.push(with_header("Overall, lenient (not comparable)".to_string(), accuracy_cells(lenient)));
    }
    accuracy.extend(m.by_group.iter().map(|((topology, family), a)| with_header(format!("{topology} × {family}"), accuracy_cells(a))));
    tables.push(MetricsTable {
        testid: "metrics-accuracy",
        caption: "Accuracy, with Wilson 95% intervals: the run, and each topology × family".to_string(),
        header: [&["Scope"][..], &ACCURACY_COLUMNS].concat(),
        rows: accuracy,
    });
    if m.by_task.len() > 1 {
        tables.push(MetricsTable {
            testid: "metrics-targets",
            caption: "Accuracy per target task".to_string(),
            header: [&["Target task", "Topology", "Family"][..], &ACCURACY_COLUMNS].concat(),
            rows: m
                .by_task
                .iter()
                .map(|((topology, family, task), a)| with_header(task.clone(), [topology.clone(), family.clone()].into_iter().chain(accuracy_cells(a))))
                .collect(),
        });
    }
    tables.push(MetricsTable {
        testid: "metrics-means",
        caption: "Means per sample, over the samples that record each".to_string(),
        header: vec!["Measure", "Value"],
        rows: vec![
            vec!["Generated tokens".to_string(), mean_cell(m.mean_tokens)],
            vec!["Agent turns".to_string(), mean_cell(m.mean_turns)],
            vec!["Tool calls".to_string(), mean_cell(m.mean_tool_calls)],
            vec!["Samples with a tool call".to_string(), format!("{:.1}%", 100.0 * m.tool_use_rate)],
            vec!["Samples over the context length".to_string(), format!("{:.1}%", 100.0 * m.context_exceeded_rate)],
        ],
    });
    let samples: usize = m.statuses.values().sum();
    tables.push(MetricsTable {
        testid: "metrics-statuses",
        caption: "How each sample's agent ended".to_string(),
        header: vec!["Status", "Samples", "Share"],
        rows: m.statuses.iter().map(|(status, n)| vec![status.clone(), n.to_string(), share(*n, samples)]).collect(),
    });
    if !m.repairs.is_empty() {
        tables.push(MetricsTable {
            testid: "metrics-repairs",
            caption: "Repairs by the harness: how many in all, and how many samples needed any".to_string(),
            header: vec!["Repair", "Total", "Samples using any"],
            rows: m.repairs.iter().map(|(kind, (total, samples))| vec![kind.clone(), total.to_string(), samples.to_string()]).collect(),
        });
    }
    if !m.nodes.is_empty() {
        let mut names: Vec<&String> = m.nodes.keys().collect();
        sort::by_key(&mut names, |name| node_order(name));
        tables.push(MetricsTable {
            testid: "metrics-nodes",
            caption: "Accuracy of each node's output over the samples that graded it, and how often the chain first broke there".to_string(),
            header: vec!["Node output", "Accuracy", "95% interval", "Correct", "Graded", "First breaks"],
            rows: names
                .into_iter()
                .map(|name| {
                    let breaks = m.first_breaks.get(name).copied().unwrap_or(0).to_string();
                    with_header(name.clone(), accuracy_cells(&m.nodes[name]).into_iter().chain([breaks]))
                })
                .collect(),
        });
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::grade::metrics::{summarise, Outcome};
    use crate::engine::grade::NodeStatus;

    /// A graded sample of `topology` × `family` with target `task`.
    fn outcome(topology: &str, family: &str, task: &str, correct: bool, status: &str) -> Outcome {
        Outcome { topology: topology.into(), family: family.into(), task: task.into(), correct, status: status.into(), ..Outcome::default() }
    }

    fn table<'a>(tables: &'a [MetricsTable], testid: &str) -> &'a MetricsTable {
        tables.iter().find(|t| t.testid == testid).unwrap_or_else(|| panic!("no table {testid}"))
    }

    #[test]
    fn accuracy_rows_give_the_rate_the_wilson_interval_and_the_counts() {
        // 8 of 10 correct: Wilson's 95% interval is 0.490 to 0.943 (z = 1.96).
        let mut outcomes: Vec<Outcome> = (0..10).map(|i| outcome("chain", "math", "AddTask", i < 8, "success")).collect();
        outcomes.push(outcome("baseline", "gsm", "AddTask", false, "timeout"));
        let tables = metrics_tables(&summarise(&outcomes));
        let accuracy = table(&tables, "metrics-accuracy");
        assert_eq!(accuracy.header, ["Scope", "Accuracy", "95% interval", "Correct", "Total"]);
        assert_eq!(accuracy.rows[0], ["Overall", "72.7%", "43.4–90.3%", "8", "11"]);
        // Groups in name order, after the run.
        assert_eq!(accuracy.rows[1][0], "baseline × gsm");
        assert_eq!(accuracy.rows[2], ["chain × math", "80.0%", "49.0–94.3%", "8", "10"]);
        assert_eq!(accuracy.rows.len(), 3);
        assert!(accuracy.rows.iter().all(|row| row.len() == accuracy.header.len()));
    }

    #[test]
    fn statuses_count_and_share_every_sample_and_the_means_say_when_nothing_recorded_them() {
        let outcomes = [
            outcome("chain", "math", "AddTask", true, "success"),
            outcome("chain", "math", "AddTask", false, "success"),
            outcome("chain", "math", "AddTask", false, "success"),
            outcome("chain", "math", "AddTask", false, "context_length_exceeded"),
        ];
        let tables = metrics_tables(&summarise(&outcomes));
        let statuses = table(&tables, "metrics-statuses");
        assert_eq!(statuses.rows, [["context_length_exceeded", "1", "25.0%"], ["success", "3", "75.0%"]]);
        let means = table(&tables, "metrics-means");
        assert_eq!(means.rows[0], ["Generated tokens", "–"]);
        assert_eq!(means.rows[4], ["Samples over the context length", "25.0%"]);
        // One target, no repairs, no graded nodes: those tables are left out.
        let ids: Vec<&str> = tables.iter().map(|t| t.testid).collect();
        assert_eq!(ids, ["metrics-accuracy", "metrics-means", "metrics-statuses"]);
    }

    #[test]
    fn means_repairs_targets_and_nodes_in_graph_order_with_their_first_breaks() {
        let mut a = outcome("chain", "math", "AddTask", true, "success");
        a.token_length = Some(100.0);
        a.turns = Some(3.0);
        a.tool_calls = Some(2.0);
        a.lenient = Some(true);
        a.repairs = vec![("format".into(), 2)];
        a.nodes = vec![("task_10_out".into(), NodeStatus::Correct), ("task_2_out".into(), NodeStatus::Correct)];
        let mut b = outcome("chain", "math", "MulTask", false, "success");
        b.token_length = Some(50.0);
        b.lenient = Some(true);
        b.repairs = vec![("format".into(), 1), ("no_answer".into(), 0)];
        b.nodes = vec![("task_2_out".into(), NodeStatus::Wrong), ("task_10_out".into(), NodeStatus::Missing)];
        b.first_breaks = vec!["task_2_out".into()];
        let tables = metrics_tables(&summarise(&[a, b]));
        assert_eq!(table(&tables, "metrics-accuracy").rows[1][..4], ["Overall, lenient (not comparable)", "100.0%", "34.2–100.0%", "2"]);
        let means = table(&tables, "metrics-means");
        assert_eq!(means.rows[0], ["Generated tokens", "75.00"]);
        // Only one sample records its turns; tool calls are counted as none where missing for the rate.
        assert_eq!(means.rows[1], ["Agent turns", "3.00"]);
        assert_eq!(means.rows[3], ["Samples with a tool call", "50.0%"]);
        let targets = table(&tables, "metrics-targets");
        assert_eq!(targets.header[..3], ["Target task", "Topology", "Family"]);
        assert_eq!(targets.rows.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(), ["AddTask", "MulTask"]);
        assert_eq!(targets.rows[1][1..], ["chain", "math", "0.0%", "0.0–79.3%", "0", "1"]);
        let repairs = table(&tables, "metrics-repairs");
        assert_eq!(repairs.rows, [["format", "3", "2"], ["no_answer", "0", "0"]]);
        let nodes = table(&tables, "metrics-nodes");
        assert_eq!(nodes.rows[0][0], "task_2_out", "task_2 before task_10");
        assert_eq!(nodes.rows[0][1..], ["50.0%", "9.5–90.5%", "1", "2", "1"]);
        assert_eq!(nodes.rows[1][1..], ["50.0%", "9.5–90.5%", "1", "2", "0"]);
    }
}
