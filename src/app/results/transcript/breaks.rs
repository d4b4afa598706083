//! Where a sample's chain broke: every graded output's status, the first broken ones, and the instance graph
//! drawn with them.

use super::*;
use crate::engine::dataset::instance_graph::graph_of;
use crate::engine::dataset::record::Topology;
use crate::engine::dataset::SampleRecord;
use crate::engine::grade::metrics::Accuracy;
use crate::engine::results::is_finished;

/// Where the chain broke: every graded node's status, the first broken nodes, and the drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct Breaks {
    /// Every graded output in task order: its name, the graph node it belongs to (if found) and its status.
    pub nodes: Vec<NodeLine>,
    /// Outputs wrong or missing whose inputs were all correct.
    pub first_breaks: Vec<String>,
    /// True when the file records no statuses and they were graded here from the stored answers.
    pub graded_here: bool,
    pub drawing: BreakDrawing,
    /// The graph as text: each node with its inputs, task name, ground truth and status.
    pub outline: Vec<crate::app::design::outline::OutlineItem>,
}

/// One graded output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeLine {
    /// `task_3_out`.
    pub output: String,
    /// The node id in the drawing.
    pub node: Option<String>,
    /// `correct`, `wrong` or `missing`.
    pub status: &'static str,
    pub first_break: bool,
}

/// The graph with the statuses, or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub enum BreakDrawing {
    /// Our SVG (from escaped text) with `correct`/`wrong`/`missing`/`first-break` classes on the node groups.
    Svg(String),
    /// Over `DETAIL_NODES` nodes: the list of nodes is shown instead.
    TooLarge { nodes: usize },
    Unavailable { reason: String },
}

/// The graph node of a graded output: the stage that has it (a custom graph's stages name their node), else,
/// outside custom graphs, `task_N` for `task_N_out`.
fn node_for(output: &str, record: &SampleRecord) -> Option<String> {
    if let Some(stage) = record.stages.iter().find(|s| s.output_name().as_deref() == Some(output)) {
        return Some(stage.id.clone());
    }
    if record.topology == Topology::Custom {
        return None;
    }
    let number = output.strip_prefix("task_")?.strip_suffix("_out")?;
    number.parse::<u64>().ok().map(|n| format!("task_{n}"))
}

/// Where the chain broke: the record's `node_status` and `first_breaks`, or (when it has none) the grade of its
/// stored answers; and the graph drawn with them.
pub fn breaks_of(sample: &Json, index: usize) -> Breaks {
    breaks_in(&ResultRecord::parse(sample), index)
}

/// [`breaks_of`] a record already read.
pub fn breaks_in(record: &ResultRecord, index: usize) -> Breaks {
    let (statuses, first_breaks, graded_here) = match &record.node_status {
        Some(statuses) => (statuses.clone(), record.first_breaks.clone(), false),
        None if record.is_finished() => match grade_record(&record, index, GradeOptions::default()) {
            Ok((grade, _)) => (grade.nodes, grade.first_breaks, true),
            Err(_) => (Vec::new(), Vec::new(), true),
        },
        None => (Vec::new(), Vec::new(), true),
    };
    let nodes: Vec<NodeLine> = statuses
        .iter()
        .map(|(output, status)| NodeLine { output: output.clone(), node: node_for(output, &record.sample), status: status.as_str(), first_break: first_breaks.contains(output) })
        .collect();
    let instance = graph_of(&record.sample);
    let outline = instance
        .as_ref()
        .map(|instance| {
            let mut notes = instance.notes.clone();
            for line in &nodes {
                if let Some(node) = &line.node {
                    let status = if line.first_break { format!("{}: {}, the first break", line.output, line.status) } else { format!("{}: {}", line.output, line.status) };
                    notes.entry(node.clone()).or_default().push(status);
                }
            }
            crate::app::design::outline::annotated(&instance.graph, &notes)
        })
        .unwrap_or_default();
    let drawing = match instance {
        None => BreakDrawing::Unavailable { reason: "the record names no task stage".into() },
        Some(instance) if instance.graph.nodes().len() > DETAIL_NODES => BreakDrawing::TooLarge { nodes: instance.graph.nodes().len() },
        Some(instance) => {
            let mut options = RenderOptions { layout: LayoutOptions { node_notes: instance.notes.clone(), ..LayoutOptions::default() }, ..RenderOptions::default() };
            for line in &nodes {
                if let Some(node) = &line.node {
                    let class = if line.first_break { format!("{} first-break", line.status) } else { line.status.to_string() };
                    options.node_classes.insert(node.clone(), class);
                }
            }
            match render::to_svg(&instance.graph, &options) {
                Ok(svg) => BreakDrawing::Svg(svg),
                Err(e) => BreakDrawing::Unavailable { reason: e.to_string() },
            }
        }
    };
    Breaks { nodes, first_breaks, graded_here, drawing, outline }
}

/// Finished samples whose graphs the heat map compares to pick the one it draws.
const HEAT_CANDIDATES: usize = 64;

/// The per-node heat map of a results file: the graph of the largest of its first finished instances, each node coloured by
/// the accuracy of its output over every sample that graded it (`nodes`, output name → accuracy, from the
/// metrics) in tenths (`heat-0` … `heat-10`, the scale in the SVG's own style), with the figure in the node's note. `None` when no instance can
/// be drawn or none of its nodes was graded.
pub fn heat_map(samples: &[Json], nodes: &BTreeMap<String, Accuracy>) -> Option<String> {
    // The largest among the first finished samples: a run's instances share their shape, so a few suffice.
    let (record, instance) = samples
        .iter()
        .filter(|s| is_finished(s))
        .take(HEAT_CANDIDATES)
        .map(SampleRecord::parse)
        .filter_map(|r| {
            let instance = graph_of(&r)?;
            Some((r, instance))
        })
        .filter(|(_, i)| i.graph.nodes().len() <= DETAIL_NODES)
        .max_by_key(|(_, i)| i.graph.nodes().len())?;
    let mut options = RenderOptions { layout: LayoutOptions { node_notes: instance.notes.clone(), ..LayoutOptions::default() }, ..RenderOptions::default() };
    let mut coloured = 0;
    for (output, accuracy) in nodes {
        let Some(node) = node_for(output, &record).filter(|n| instance.graph.nodes().iter().any(|g| &g.id.0 == n)) else { continue };
        options.node_classes.insert(node.clone(), format!("heat-{}", (accuracy.rate() * 10.0).round() as u32));
        let note = format!("{:.0}% ({}/{})", accuracy.rate() * 100.0, accuracy.correct, accuracy.total);
        options.layout.node_notes.entry(node).or_default().push(note);
        coloured += 1;
    }
    if coloured == 0 {
        return None;
    }
    let svg = render::to_svg(&instance.graph, &options).ok()?;
    // The scale travels inside the SVG, so an exported heat map keeps its colours: red (0%) through amber to
    // green (100%), light enough for the node labels.
    let mut style = String::from("<style>");
    for tenth in 0..=10 {
        style.push_str(&format!(".heat-{tenth} > rect:first-of-type {{ fill: hsl({} 65% 80%); }}", tenth * 13));
    }
    style.push_str("</style>");
    let at = svg.find('>')? + 1;
    Some(format!("{}{style}{}", &svg[..at], &svg[at..]))
}
