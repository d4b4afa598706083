//! Charts of the Results dashboard as SVG text (the mean tokens and turns per topology × family too, as in the
//! paper's Figures 4 and 5), built here from the engine's metrics so they are tested
//! natively and exported as they are shown: accuracy by topology × family with Wilson 95% whiskers, bars
//! grouped by topology and coloured by family (the layout of the paper's Figure 3). Colours come from classes
//! (`style/results.css`), so both themes apply; every label is escaped. Also the context curves of compared runs:
//! mean prompt tokens per turn, one line per run; and the first-break histogram: how often each graded output
//! was where a sample's chain first broke.

use crate::engine::grade::metrics::Accuracy;
use crate::engine::render::escape_svg_text as escape;
use std::collections::BTreeMap;
use std::fmt::Write;
use crate::engine::sort;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 48.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 28.0;
const BOTTOM: f64 = 44.0;

/// A horizontal grid line across the plot at height `y`, labelled on the left.
fn grid_line(svg: &mut String, y: f64, label: &str) {
    let _ = write!(
        svg,
        r#"<line class="chart-grid" x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}"/><text class="chart-tick" x="{:.1}" y="{:.1}" text-anchor="end">{label}</text>"#,
        WIDTH - RIGHT,
        LEFT - 6.0,
        y + 4.0,
    );
}

/// Where the bars of a chart grouped by topology go: one group per topology (in first-seen order), one bar per
/// family present in it (families sorted, each keeping its colour index across groups).
struct Grouped<'a> {
    topologies: Vec<&'a str>,
    families: Vec<&'a str>,
    /// (topology index, family index, bar's left x, bar width) of each (topology, family) present.
    bars: Vec<(usize, usize, f64, f64)>,
}

impl<'a> Grouped<'a> {
    fn of<V>(by_group: &'a BTreeMap<(String, String), V>) -> Grouped<'a> {
        let mut topologies: Vec<&str> = Vec::new();
        for (t, _) in by_group.keys() {
            if !topologies.contains(&t.as_str()) {
                topologies.push(t);
            }
        }
        let mut families: Vec<&str> = by_group.keys().map(|(_, f)| f.as_str()).collect();
        sort::natural(&mut families);
        families.dedup();
        let group_w = (WIDTH - LEFT - RIGHT) / topologies.len().max(1) as f64;
        let bar_w = (group_w * 0.8 / families.len().max(1) as f64).min(48.0);
        let mut bars = Vec::new();
        for (ti, topology) in topologies.iter().enumerate() {
            let present: Vec<usize> = (0..families.len()).filter(|&fi| by_group.contains_key(&(topology.to_string(), families[fi].to_string()))).collect();
            let start = LEFT + group_w * ti as f64 + (group_w - bar_w * present.len() as f64) / 2.0;
            bars.extend(present.iter().enumerate().map(|(slot, &fi)| (ti, fi, start + bar_w * slot as f64, bar_w)));
        }
        Grouped { topologies, families, bars }
    }

    /// The topology labels under the groups and the family legend above the plot.
    fn labels(&self, svg: &mut String) {
        let group_w = (WIDTH - LEFT - RIGHT) / self.topologies.len().max(1) as f64;
        for (ti, topology) in self.topologies.iter().enumerate() {
            let _ = write!(
                svg,
                r#"<text class="chart-label" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                LEFT + group_w * (ti as f64 + 0.5),
                HEIGHT - BOTTOM + 18.0,
                escape(topology)
            );
        }
        for (fi, family) in self.families.iter().enumerate() {
            let x = LEFT + 110.0 * fi as f64;
            let _ = write!(
                svg,
                r#"<g class="chart-legend chart-family-{fi}"><rect class="bar" x="{x:.1}" y="6" width="12" height="12"/><text class="chart-label" x="{:.1}" y="16">{}</text></g>"#,
                x + 16.0,
                escape(family)
            );
        }
    }
}

/// The accuracy chart of `by_group` ((topology, family) → accuracy): one group of bars per topology, one bar
/// per family present, each with its Wilson 95% interval as a whisker and a tooltip with the counts.
pub fn accuracy_chart(by_group: &BTreeMap<(String, String), Accuracy>) -> String {
    let grouped = Grouped::of(by_group);
    let plot_h = HEIGHT - TOP - BOTTOM;
    let y = |rate: f64| TOP + plot_h * (1.0 - rate.clamp(0.0, 1.0));
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" data-testid="accuracy-chart" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="Accuracy by topology and family with Wilson 95% intervals">"#
    );
    for tick in 0..=4 {
        grid_line(&mut svg, y(tick as f64 / 4.0), &format!("{}%", tick * 25));
    }
    for &(ti, fi, x, bar_w) in &grouped.bars {
        let (topology, family) = (grouped.topologies[ti], grouped.families[fi]);
        let Some(acc) = by_group.get(&(topology.to_string(), family.to_string())) else { continue };
        let (lo, hi) = acc.interval();
        let mid = x + bar_w / 2.0;
        let _ = write!(
            svg,
            r#"<g class="chart-bar chart-family-{fi}"><title>{} × {}: {:.1}% [{:.1}, {:.1}] {}/{}</title><rect class="bar" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/><line class="whisker" x1="{mid:.1}" x2="{mid:.1}" y1="{:.1}" y2="{:.1}"/><line class="whisker" x1="{:.1}" x2="{:.1}" y1="{:.1}" y2="{:.1}"/><line class="whisker" x1="{:.1}" x2="{:.1}" y1="{:.1}" y2="{:.1}"/></g>"#,
            escape(topology),
            escape(family),
            acc.rate() * 100.0,
            lo * 100.0,
            hi * 100.0,
            acc.correct,
            acc.total,
            x + 1.0,
            y(acc.rate()),
            (bar_w - 2.0).max(1.0),
            (y(0.0) - y(acc.rate())).max(0.0),
            y(hi),
            y(lo),
            mid - bar_w / 4.0,
            mid + bar_w / 4.0,
            y(hi),
            y(hi),
            mid - bar_w / 4.0,
            mid + bar_w / 4.0,
            y(lo),
            y(lo),
        );
    }
    grouped.labels(&mut svg);
    svg.push_str("</svg>");
    svg
}

/// A chart of a mean per (topology, family), grouped like the accuracy chart (the layout of the paper's Figures
/// 4 and 5: tokens and turns per topology): `testid` names it, `what` is the quantity ("tokens", "turns").
/// `None` when no group has a value.
pub fn mean_chart(by_group: &BTreeMap<(String, String), f64>, testid: &str, what: &str) -> Option<String> {
    if by_group.is_empty() {
        return None;
    }
    let grouped = Grouped::of(by_group);
    let top = nice_top(by_group.values().copied().fold(0.0, f64::max));
    let plot_h = HEIGHT - TOP - BOTTOM;
    let y = |v: f64| TOP + plot_h * (1.0 - (v / top).clamp(0.0, 1.0));
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" data-testid="{}" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="Mean {} per sample by topology and family">"#,
        escape(testid),
        escape(what)
    );
    let steps = round_steps(top);
    for tick in 0..=steps {
        let v = top * tick as f64 / steps as f64;
        grid_line(&mut svg, y(v), &compact(v));
    }
    for &(ti, fi, x, bar_w) in &grouped.bars {
        let (topology, family) = (grouped.topologies[ti], grouped.families[fi]);
        let Some(&value) = by_group.get(&(topology.to_string(), family.to_string())) else { continue };
        let _ = write!(
            svg,
            r#"<g class="chart-bar chart-family-{fi}"><title>{} × {}: {value:.1} {} per sample</title><rect class="bar" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/></g>"#,
            escape(topology),
            escape(family),
            escape(what),
            x + 1.0,
            y(value),
            (bar_w - 2.0).max(1.0),
            (y(0.0) - y(value)).max(0.0),
        );
    }
    grouped.labels(&mut svg);
    svg.push_str("</svg>");
    Some(svg)
}

/// An axis label: whole numbers, thousands as `k`.
fn compact(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.0}k", v / 1000.0)
    } else if v >= 1000.0 {
        format!("{:.1}k", v / 1000.0)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The number in an output name (`task_12_out` → 12), for ordering outputs along the graph.
fn task_number(name: &str) -> Option<u64> {
    name.split(|c: char| !c.is_ascii_digit()).find(|part| !part.is_empty())?.parse().ok()
}

/// The first-break histogram: one bar per output that was a first break at least once, in task order, its
/// height the number of samples whose chain first broke there; `None` when no sample broke.
pub fn first_break_chart(first_breaks: &BTreeMap<String, usize>) -> Option<String> {
    let mut bars: Vec<(&str, usize)> = first_breaks.iter().filter(|(_, n)| **n > 0).map(|(k, n)| (k.as_str(), *n)).collect();
    if bars.is_empty() {
        return None;
    }
    sort::by_key(&mut bars, |(name, _)| (task_number(name).unwrap_or(u64::MAX), name.to_string()));
    let top = nice_top(bars.iter().map(|(_, n)| *n).max().unwrap_or(1) as f64);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let y = |count: f64| TOP + plot_h * (1.0 - count / top);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" data-testid="first-break-chart" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="Where chains first broke: samples per output">"#
    );
    // Counts are whole: a small axis is ticked at every whole number.
    let steps = if top <= 4.0 { top as usize } else { 4 };
    for tick in 0..=steps {
        let value = top * tick as f64 / steps as f64;
        grid_line(&mut svg, y(value), &format!("{}", (value * 10.0).round() / 10.0));
    }
    let slot = plot_w / bars.len() as f64;
    let bar_w = (slot * 0.8).clamp(1.0, 48.0);
    // At most about 24 labels fit under the axis; the rest are in the tooltips.
    let every = bars.len().div_ceil(24);
    for (i, (name, count)) in bars.iter().enumerate() {
        let x = LEFT + slot * i as f64;
        let _ = write!(
            svg,
            r#"<g class="chart-bar chart-family-0" data-output="{}"><title>{}: the first break in {count} sample(s)</title><rect class="bar" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/></g>"#,
            escape(name),
            escape(name),
            x + (slot - bar_w) / 2.0,
            y(*count as f64),
            bar_w,
            (y(0.0) - y(*count as f64)).max(0.0),
        );
        if i % every == 0 {
            let label = task_number(name).map(|n| n.to_string()).unwrap_or_else(|| name.to_string());
            let _ = write!(svg, r#"<text class="chart-tick" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#, x + slot / 2.0, HEIGHT - BOTTOM + 16.0, escape(&label));
        }
    }
    let _ = write!(svg, r#"<text class="chart-label" x="{:.1}" y="{:.1}" text-anchor="middle">task</text>"#, LEFT + plot_w / 2.0, HEIGHT - 8.0);
    svg.push_str("</svg>");
    Some(svg)
}

/// Mean prompt tokens at each turn over the samples that reached it (turn 1 first).
pub fn mean_per_turn(samples: &[Vec<u64>]) -> Vec<f64> {
    let turns = samples.iter().map(Vec::len).max().unwrap_or(0);
    (0..turns)
        .map(|t| {
            let at: Vec<u64> = samples.iter().filter_map(|s| s.get(t).copied()).collect();
            at.iter().sum::<u64>() as f64 / at.len().max(1) as f64
        })
        .collect()
}

/// A round axis top at or above `max` (1, 2 or 5 times a power of ten).
fn nice_top(max: f64) -> f64 {
    if max <= 0.0 {
        return 1.0;
    }
    let power = 10f64.powf(max.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|&top| top >= max).unwrap_or(10.0 * power)
}

/// Grid steps that put round numbers on an axis topped by `nice_top`: fifths of 1 and 5 (0.2, 1, 10 …),
/// quarters of 2 (0.5, 5 …).
fn round_steps(top: f64) -> usize {
    let mantissa = top / 10f64.powf(top.log10().floor());
    if (mantissa - 2.0).abs() < 1e-9 {
        4
    } else {
        5
    }
}

/// The context curves of `runs` (label, mean prompt tokens per turn): one line per run with a dot per turn and
/// a tooltip; `None` when no run recorded per-turn prompt sizes.
pub fn context_curves(runs: &[(String, Vec<f64>)]) -> Option<String> {
    let turns = runs.iter().map(|(_, c)| c.len()).max().filter(|&t| t > 0)?;
    let top = nice_top(runs.iter().flat_map(|(_, c)| c.iter().copied()).fold(0.0, f64::max));
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x = |t: usize| LEFT + if turns == 1 { plot_w / 2.0 } else { plot_w * t as f64 / (turns - 1) as f64 };
    let y = |v: f64| TOP + plot_h * (1.0 - (v / top).clamp(0.0, 1.0));
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" data-testid="context-curves" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="Mean prompt tokens per turn, one line per run">"#
    );
    let steps = round_steps(top);
    for tick in 0..=steps {
        let v = top * tick as f64 / steps as f64;
        grid_line(&mut svg, y(v), &compact(v));
    }
    let step = turns.div_ceil(12).max(1);
    for t in (0..turns).step_by(step) {
        let _ = write!(svg, r#"<text class="chart-tick" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#, x(t), HEIGHT - BOTTOM + 16.0, t + 1);
    }
    let _ = write!(svg, r#"<text class="chart-label" x="{:.1}" y="{:.1}" text-anchor="middle">turn</text>"#, LEFT + plot_w / 2.0, HEIGHT - 6.0);
    for (i, (label, curve)) in runs.iter().enumerate() {
        let points: Vec<String> = curve.iter().enumerate().map(|(t, &v)| format!("{:.1},{:.1}", x(t), y(v))).collect();
        let _ = write!(svg, r#"<g class="chart-curve chart-family-{}" data-run="{}"><polyline points="{}"/>"#, i % 4, escape(label), points.join(" "));
        for (t, &v) in curve.iter().enumerate() {
            let _ = write!(svg, r#"<circle cx="{:.1}" cy="{:.1}" r="3"><title>{}, turn {}: {v:.0} prompt tokens</title></circle>"#, x(t), y(v), escape(label), t + 1);
        }
        svg.push_str("</g>");
        let lx = LEFT + 170.0 * i as f64;
        let _ = write!(
            svg,
            r#"<g class="chart-legend chart-family-{}"><rect class="bar" x="{lx:.1}" y="6" width="12" height="12"/><text class="chart-label" x="{:.1}" y="16">{}</text></g>"#,
            i % 4,
            lx + 16.0,
            escape(label)
        );
    }
    svg.push_str("</svg>");
    Some(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curves_average_each_turn_over_the_samples_that_reached_it() {
        assert_eq!(mean_per_turn(&[vec![100, 300], vec![200]]), vec![150.0, 300.0]);
        assert!(mean_per_turn(&[]).is_empty());
        assert_eq!((nice_top(0.0), nice_top(730.0), nice_top(2000.0), nice_top(2001.0)), (1.0, 1000.0, 2000.0, 5000.0));
    }

    #[test]
    fn context_curves_draw_a_line_per_run_on_a_shared_scale() {
        let svg = context_curves(&[("full <a>".into(), vec![100.0, 400.0, 900.0]), ("window".into(), vec![100.0, 200.0])]).expect("curves");
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 5);
        assert!(svg.contains("full &lt;a&gt;") && !svg.contains("full <a>"), "labels are escaped");
        // The plot spans y 28 (1000 tokens, the axis top) to 256 (0): 100 tokens at 28 + 228 * 0.9 = 233.2, 200 at
        // 210.4, 900 at 50.8; three turns put x at 48, 378 and 708.
        assert!(svg.contains(r#"data-run="window"><polyline points="48.0,233.2 378.0,210.4""#), "{svg}");
        assert!(svg.contains(r#"<polyline points="48.0,233.2 378.0,164.8 708.0,50.8""#), "{svg}");
        assert!(context_curves(&[("a".into(), vec![])]).is_none(), "no per-turn sizes, no chart");
    }

    fn acc(correct: usize, total: usize) -> Accuracy {
        Accuracy { correct, total }
    }

    #[test]
    fn one_bar_with_a_whisker_per_topology_and_family() {
        let mut groups = BTreeMap::new();
        groups.insert(("chain".to_string(), "math".to_string()), acc(2, 3));
        groups.insert(("chain".to_string(), "gsm".to_string()), acc(0, 4));
        groups.insert(("multichain".to_string(), "math".to_string()), acc(5, 5));
        let svg = accuracy_chart(&groups);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>") && svg.contains(r#"data-testid="accuracy-chart""#));
        assert_eq!(svg.matches(r#"<rect class="bar""#).count(), 3 + 2, "three bars and two legend keys");
        assert_eq!(svg.matches(r#"class="whisker""#).count(), 9);
        assert!(svg.contains("chain × math: 66.7% [20.8, 93.9] 2/3"), "{svg}");
        assert!(svg.contains(">multichain</text>") && svg.contains(">100%</text>"));
    }

    #[test]
    fn mean_charts_scale_to_a_round_top_and_skip_empty_runs() {
        let mut groups = BTreeMap::new();
        groups.insert(("chain".to_string(), "math".to_string()), 1234.0);
        groups.insert(("chain".to_string(), "gsm".to_string()), 600.0);
        groups.insert(("baseline".to_string(), "math".to_string()), 300.0);
        let svg = mean_chart(&groups, "tokens-chart", "tokens").expect("a chart");
        assert!(svg.contains(r#"data-testid="tokens-chart""#));
        assert_eq!(svg.matches(r#"<rect class="bar""#).count(), 3 + 2, "three bars and two legend keys");
        assert!(svg.contains(">2.0k</text>") && svg.contains(">500</text>"), "the axis tops at 2000 in steps of 500: {svg}");
        let mut small = BTreeMap::new();
        small.insert(("chain".to_string(), "math".to_string()), 24.0);
        let ticks: Vec<String> = ["0", "10", "20", "30", "40", "50"].iter().map(|t| format!(">{t}</text>")).collect();
        let low = mean_chart(&small, "tokens-chart", "tokens").unwrap();
        assert!(ticks.iter().all(|t| low.contains(t.as_str())), "round ticks up to 50: {low}");
        assert!(svg.contains("chain × math: 1234.0 tokens per sample"));
        // The bar of 1234 on a 2000 axis is 61.7% of the plot's height.
        let plot_h = HEIGHT - TOP - BOTTOM;
        assert!(svg.contains(&format!(r#"height="{:.1}""#, plot_h * 1234.0 / 2000.0)), "{svg}");
        assert_eq!(mean_chart(&BTreeMap::new(), "turns-chart", "turns"), None);
    }

    #[test]
    fn labels_are_escaped() {
        let mut groups = BTreeMap::new();
        groups.insert(("<b>".to_string(), "a&b".to_string()), acc(1, 2));
        let svg = accuracy_chart(&groups);
        assert!(!svg.contains("<b>") && svg.contains("&lt;b&gt;") && svg.contains("a&amp;b"));
    }

    #[test]
    fn first_breaks_are_counted_per_output_in_task_order() {
        let mut breaks = BTreeMap::new();
        breaks.insert("task_10_out".to_string(), 1);
        breaks.insert("task_2_out".to_string(), 4);
        breaks.insert("task_3_out".to_string(), 0);
        breaks.insert("<x>".to_string(), 2);
        let svg = first_break_chart(&breaks).expect("a chart");
        assert!(svg.contains(r#"data-testid="first-break-chart""#));
        let order: Vec<&str> = svg.match_indices("data-output=\"").map(|(at, _)| svg[at + 13..].split('"').next().unwrap()).collect();
        assert_eq!(order, ["task_2_out", "task_10_out", "&lt;x&gt;"], "task order, never-broken outputs left out, names escaped");
        assert!(svg.contains("task_2_out: the first break in 4 sample(s)"));
        // The axis tops at 5 (the nice value over 4): 4 samples reach y = 28 + 228 * (1 - 4/5) = 73.6.
        assert!(svg.contains(r#"y="73.6""#), "{svg}");
        assert_eq!(svg.matches(r#"class="chart-grid""#).count(), 5, "ticks 0 to 5");
        let one: BTreeMap<String, usize> = [("task_1_out".to_string(), 2)].into_iter().collect();
        let single = first_break_chart(&one).expect("a chart");
        assert_eq!(single.matches(r#"class="chart-grid""#).count(), 3, "whole-number ticks 0, 1, 2");
        assert!(single.contains(r#"width="48.0""#), "a lone bar stays bar-sized: {single}");
        assert!(first_break_chart(&BTreeMap::new()).is_none());
        assert!(first_break_chart(&[("task_1_out".to_string(), 0)].into_iter().collect()).is_none());
    }
}
