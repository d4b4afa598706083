//! GSM-Symbolic templates as a pack: Apple's `ml-gsm-symbolic` JSON format, one template per file, read into word
//! problems whose variables are drawn with our seeded random stream and whose conditions and answer, written in
//! Python syntax, run in our interpreter under its limits.
//!
//! A template's `question_annotated` is the question with placeholders `{name, shown value}` (or `{name}`), then the
//! sections `#init:` (one `- name = domain` line per variable, `$` before the name marking a numeric one),
//! `#conditions:` (one Python expression per line, all of which must hold) and `#answer:` (a Python expression):
//!
//! ```text
//! {who, Ana} packs {n, 12} boxes of {k, 6} pears ...
//! #init:
//! - who = sample(names)
//! - $n = range(2, 40)
//! - $k = range(2, 12)
//! #conditions:
//! - divides(n * k, 4)
//! #answer: n * k // 4
//! ```
//!
//! Domains: `range(lo, hi[, step])`, `numbers_within(lo, hi)`, `frange(lo, hi, step)` (also written
//! `fix_floats(np.arange(lo, hi, step))`), `sample(table)` or `sample(table_a + table_b)` with an optional count of
//! distinct items, `sample(["a", "b"])`, `sample_sequential(table, count)` and a plain number. The tables are ours
//! (`tables.rs`); their words and numbers stand for what the names say (`multi_times`: "twice" is 2). `divides(a, b)`
//! and `is_int(x)` are defined as Python functions before the template's expressions.
//!
//! Chaining, as the paper describes: the chained value becomes an integer `c` in 0..=99 (a list gives its element
//! at index 7, or its last), and the first `$` variable drawn from `range` or `numbers_within` that admits an
//! accepted draw within 200 attempts takes `c` moved into its domain; the prompt says what to add to `c`. A
//! template is chainable when its candidates bind at least `MIN_BINDING` of the trial values 0, 11, …, 99;
//! the others are refused with why. The id is the file's stem: `0042.json` is `gsm.symbolic.0042`.

mod tables;

use std::collections::HashMap;
use std::rc::Rc;

use super::{PackEntry, PackError, Refusal};
use crate::engine::adapter::{AdaptError, ScalarAdapter};
use crate::engine::prompt::{Prompt, Role};
use crate::engine::python::{self, Limits, Module, PyValue};
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::gsm::template::Domain;
use crate::engine::tasks::gsm::{chained_integer, snap, ATTEMPTS_PER_CANDIDATE, LIST_ELEMENT_INDEX};
use crate::engine::tasks::{Family, Task, TaskContext, TaskError, TaskInfo, TaskInstance};
use crate::engine::value::{Kind, Number, Value};

/// Trial values of `c` a template must bind at least `MIN_BINDING` of to be chainable.
pub const TRIAL_VALUES: [i64; 10] = [0, 11, 22, 33, 44, 55, 66, 77, 88, 99];

/// How many trial values must bind: one, so only templates that never bind are refused (the others are noted).
pub const MIN_BINDING: usize = 1;

/// What rebuilds a pack's tasks: the parsed templates (plain data).
#[derive(Clone, Debug)]
pub struct TemplatesContent {
    templates: Vec<SymbolicTemplate>,
}

impl TemplatesContent {
    pub(super) fn tasks(&self, entries: &[PackEntry]) -> Vec<Rc<dyn Task>> {
        entries
            .iter()
            .filter_map(|entry| {
                let template = self.templates.get(entry.task_id as usize)?;
                SymbolicTask::new(entry.key.clone(), entry.task_id, template.clone()).ok().map(|t| Rc::new(t) as Rc<dyn Task>)
            })
            .collect()
    }
}

/// A table item: its text and, for numeric tables, the number it stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Text(String),
    Number { text: String, value: Num },
}

impl Item {
    fn text(&self) -> &str {
        match self {
            Item::Text(t) | Item::Number { text: t, .. } => t,
        }
    }
}

/// A number as Python sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
}

/// Where a declaration's values come from.
#[derive(Clone, Debug, PartialEq)]
enum Draw {
    Range { lo: i64, hi: i64, step: i64 },
    Within { lo: i64, hi: i64 },
    Floats(Vec<f64>),
    /// `count` distinct items (one when `count` is 1).
    Pick { items: Vec<Item>, count: usize },
    /// `count` consecutive items.
    Sequential { items: Vec<Item>, count: usize },
    Fixed(Num),
}

/// One `#init:` line.
#[derive(Clone, Debug, PartialEq)]
struct Decl {
    names: Vec<String>,
    /// Marked `$`: a candidate for the chained value when drawn from `range` or `numbers_within`.
    numeric: bool,
    draw: Draw,
}

/// A piece of the question.
#[derive(Clone, Debug, PartialEq)]
enum Segment {
    Text(String),
    /// A placeholder: the variable and the value the template shows for it.
    Var { name: String, shown: String },
}

/// One template, parsed (plain data).
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolicTemplate {
    /// The file's stem (`0042`).
    pub id: String,
    /// The file as named.
    pub file: String,
    question: Vec<Segment>,
    decls: Vec<Decl>,
    conditions: Vec<String>,
    answer: String,
    /// The final answer the template's own worked answer states (`#### 10`), when it has one.
    stated: Option<String>,
}

/// A variable's value in one draw.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Num(Num),
    Item(Item),
    Items(Vec<Item>),
}

impl Val {
    fn to_py(&self) -> PyValue {
        match self {
            Val::Num(n) => num_py(*n),
            Val::Item(Item::Number { value, .. }) => num_py(*value),
            Val::Item(Item::Text(t)) => PyValue::str(t),
            Val::Items(items) => PyValue::list(items.iter().map(|i| Val::Item(i.clone()).to_py()).collect()),
        }
    }

    fn shown(&self) -> String {
        match self {
            Val::Num(Num::Int(i)) => i.to_string(),
            Val::Num(Num::Float(f)) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
            Val::Num(Num::Float(f)) => PyValue::Float(*f).repr(),
            Val::Item(item) => item.text().to_string(),
            Val::Items(items) => items.iter().map(Item::text).collect::<Vec<_>>().join(", "),
        }
    }
}

fn num_py(n: Num) -> PyValue {
    match n {
        Num::Int(i) => PyValue::Int(i),
        Num::Float(f) => PyValue::Float(f),
    }
}

/// The fields of a template file we read (the others, `question`, `id_orig`, … are left alone).
#[derive(serde::Deserialize)]
struct TemplateFile {
    question_annotated: Option<String>,
    /// The worked answer, ending in `#### <final answer>`.
    answer: Option<String>,
}

/// Reads every file: the content, the chainable templates as entries and the others as refusals.
pub(super) fn read(files: &[(String, String)]) -> Result<(TemplatesContent, Vec<PackEntry>, Vec<Refusal>), PackError> {
    let mut templates = Vec::new();
    let mut entries = Vec::new();
    let mut refused = Vec::new();
    for (file, text) in files {
        let json: TemplateFile = serde_json::from_str(text)
            .map_err(|e| PackError { file: file.clone(), line: Some(e.line()), message: format!("not a JSON template: {e}") })?;
        let annotated = json.question_annotated.as_deref().ok_or_else(|| PackError {
            file: file.clone(),
            line: None,
            message: "no `question_annotated` text: a GSM-Symbolic template is a JSON object with the annotated question and its #init, #conditions and #answer sections".into(),
        })?;
        let id = stem(file);
        let stated = json.answer.as_deref().and_then(|a| a.rsplit_once("####")).map(|(_, n)| n.trim().replace(',', ""));
        let location = format!("{id}.json");
        let parsed = parse(&id, file, annotated, stated).and_then(|template| {
            let task = SymbolicTask::new(String::new(), 0, template.clone())?;
            let notes = task.check()?;
            Ok((template, notes))
        });
        match parsed {
            Ok((template, notes)) => {
                entries.push(PackEntry {
                    key: format!("{}.{id}", super::PackKind::GsmSymbolic.prefix()),
                    name: format!("GSM_{id}.json"),
                    task_id: templates.len() as u32,
                    input_kinds: vec![Kind::Scalar, Kind::List],
                    output_kind: Kind::Scalar,
                    location,
                    notes,
                });
                templates.push(template);
            }
            Err(reason) => refused.push(Refusal { name: id, location, reason }),
        }
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(entry) = entries.iter().find(|e| !seen.insert(e.key.clone())) {
        return Err(PackError { file: entry.location.clone(), line: None, message: format!("two templates have the id `{}`", entry.key) });
    }
    Ok((TemplatesContent { templates }, entries, refused))
}

/// A file's stem (`templates/0042.json` → `0042`).
fn stem(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    base.strip_suffix(".json").unwrap_or(base).to_string()
}

/// Parses an annotated question; `Err` says what is wrong, with the section's line.
fn parse(id: &str, file: &str, annotated: &str, stated: Option<String>) -> Result<SymbolicTemplate, String> {
    let init_at = annotated.find("#init:").ok_or("no `#init:` section")?;
    let answer_at = annotated.find("#answer:").ok_or("no `#answer:` section")?;
    let conditions_at = annotated.find("#conditions:");
    let init_end = conditions_at.unwrap_or(answer_at);
    if init_end < init_at || answer_at < init_at || conditions_at.is_some_and(|c| c > answer_at) {
        return Err("the sections are out of order (#init:, then #conditions:, then #answer:)".into());
    }
    let question = placeholders(annotated[..init_at].trim())?;
    let lines = |text: &str| -> Vec<String> { text.lines().map(|l| l.trim().trim_start_matches('-').trim().to_string()).filter(|l| !l.is_empty()).collect() };
    let mut decls = Vec::new();
    for (i, line) in lines(&annotated[init_at + "#init:".len()..init_end]).iter().enumerate() {
        decls.push(declaration(line).map_err(|e| format!("#init: line {}: `{line}`: {e}", i + 1))?);
    }
    let conditions = conditions_at.map(|c| lines(&annotated[c + "#conditions:".len()..answer_at])).unwrap_or_default();
    let answer = lines(&annotated[answer_at + "#answer:".len()..]).join(" ");
    if answer.is_empty() {
        return Err("the #answer: section is empty".into());
    }
    let names: Vec<&String> = decls.iter().flat_map(|d| &d.names).collect();
    for segment in &question {
        if let Segment::Var { name, .. } = segment {
            if !names.contains(&name) {
                return Err(format!("the question shows `{{{name}}}`, which #init: never defines"));
            }
        }
    }
    Ok(SymbolicTemplate { id: id.to_string(), file: file.to_string(), question, decls, conditions, answer, stated })
}

/// The question's text and placeholders (`{name, shown}` or `{name}`).
fn placeholders(text: &str) -> Result<Vec<Segment>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').map(|c| open + c).ok_or_else(|| format!("a `{{` with no `}}` in the question: `{}`", &rest[open..].chars().take(30).collect::<String>()))?;
        let inner = &rest[open + 1..close];
        let (name, shown) = inner.split_once(',').map_or((inner.trim(), ""), |(n, s)| (n.trim(), s.trim()));
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(format!("`{{{inner}}}` is not a placeholder `{{name, value}}`"));
        }
        out.push(Segment::Text(rest[..open].to_string()));
        out.push(Segment::Var { name: name.to_string(), shown: shown.to_string() });
        rest = &rest[close + 1..];
    }
    out.push(Segment::Text(rest.to_string()));
    out.retain(|s| !matches!(s, Segment::Text(t) if t.is_empty()));
    Ok(out)
}

/// Reads one `#init:` line.
fn declaration(line: &str) -> Result<Decl, String> {
    let (numeric, line) = line.strip_prefix('$').map_or((false, line), |l| (true, l.trim_start()));
    let (lhs, rhs) = line.split_once('=').ok_or("expected `name = domain`")?;
    let names: Vec<String> = lhs.split(',').map(|n| n.trim().trim_start_matches('$').to_string()).collect();
    if names.iter().any(|n| n.is_empty() || !n.chars().all(|c| c.is_alphanumeric() || c == '_')) {
        return Err(format!("`{}` is not a variable name or a list of them", lhs.trim()));
    }
    let rhs = rhs.trim();
    let rhs = rhs.strip_prefix("fix_floats(").and_then(|r| r.strip_suffix(')')).unwrap_or(rhs).trim();
    let draw = match call(rhs) {
        None => match number(rhs) {
            Some(n) => Draw::Fixed(n),
            None => return Err("not a domain we read (range, numbers_within, frange, sample, sample_sequential or a number)".into()),
        },
        Some((func, args)) => {
            let ints = |count: std::ops::RangeInclusive<usize>| -> Result<Vec<i64>, String> {
                let values: Option<Vec<i64>> = args.iter().map(|a| a.parse().ok()).collect();
                match values {
                    Some(v) if count.contains(&v.len()) => Ok(v),
                    _ => Err(format!("`{func}` takes {} whole numbers", if count.start() == count.end() { count.start().to_string() } else { format!("{} to {}", count.start(), count.end()) })),
                }
            };
            match func {
                "range" => {
                    let v = ints(1..=3)?;
                    let (lo, hi, step) = match v.as_slice() {
                        [hi] => (0, *hi, 1),
                        [lo, hi] => (*lo, *hi, 1),
                        [lo, hi, step] => (*lo, *hi, *step),
                        _ => unreachable!("checked above"),
                    };
                    if step <= 0 || lo >= hi {
                        return Err(format!("range({lo}, {hi}, {step}) is empty"));
                    }
                    Draw::Range { lo, hi, step }
                }
                "numbers_within" => {
                    let v = ints(2..=2)?;
                    if v[0] > v[1] {
                        return Err(format!("numbers_within({}, {}) is empty", v[0], v[1]));
                    }
                    Draw::Within { lo: v[0], hi: v[1] }
                }
                "frange" | "np.arange" => {
                    let v: Option<Vec<f64>> = args.iter().map(|a| a.parse().ok()).collect();
                    let Some([lo, hi, step]) = v.as_deref().and_then(|v| <[f64; 3]>::try_from(v).ok()) else { return Err(format!("`{func}` takes three numbers")) };
                    if !(step > 0.0) || !(lo < hi) || (hi - lo) / step > 100_000.0 {
                        return Err(format!("{func}({lo}, {hi}, {step}) is empty or too long"));
                    }
                    let values: Vec<f64> = (0..).map(|i| lo + i as f64 * step).take_while(|v| *v < hi).map(|v| (v * 1e6).round() / 1e6).collect();
                    Draw::Floats(values)
                }
                "sample" | "sample_sequential" => {
                    let (source, count) = match args.as_slice() {
                        [source] => (source.as_str(), 1),
                        [source, count] => (source.as_str(), count.parse::<usize>().map_err(|_| format!("`{count}` is not a count"))?),
                        _ => return Err(format!("`{func}` takes a table or a list, and a count")),
                    };
                    let items = items_of(source)?;
                    let count = if count == 1 && names.len() > 1 { names.len() } else { count };
                    if count == 0 || count > items.len() {
                        return Err(format!("{count} items asked of {} available", items.len()));
                    }
                    if func == "sample" { Draw::Pick { items, count } } else { Draw::Sequential { items, count } }
                }
                other => return Err(format!("`{other}` is not a domain we read (range, numbers_within, frange, sample, sample_sequential)")),
            }
        }
    };
    Ok(Decl { names, numeric, draw })
}

/// `f(a, b)` as the function's name and its top-level arguments (brackets and quotes respected).
fn call(text: &str) -> Option<(&str, Vec<String>)> {
    let open = text.find('(')?;
    let func = text[..open].trim();
    if func.is_empty() || !func.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') || !text.ends_with(')') {
        return None;
    }
    let inner = &text[open + 1..text.len() - 1];
    let mut args = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    for (i, c) in inner.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth -= 1,
            (None, ',') if depth == 0 => {
                args.push(inner[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = inner[start..].trim();
    if !last.is_empty() {
        args.push(last.to_string());
    }
    Some((func, args))
}

fn number(text: &str) -> Option<Num> {
    let text = text.trim();
    text.parse::<i64>().map(Num::Int).ok().or_else(|| text.parse::<f64>().ok().filter(|f| f.is_finite()).map(Num::Float))
}

/// The items a `sample` argument names: tables joined by `+` (each possibly sliced, `fractions[:4]`), an inline
/// list of quoted texts, numbers and `("text", number)` pairs (possibly repeated, `[…] * 3`), or the numbers of a
/// `range(…)`, `list(range(…))` or `numbers_within(…)`.
fn items_of(source: &str) -> Result<Vec<Item>, String> {
    let source = source.trim();
    if let Some((list, times)) = source.rsplit_once('*').filter(|(l, t)| l.trim_end().ends_with(']') && t.trim().parse::<usize>().is_ok()) {
        let items = items_of(list)?;
        let times: usize = times.trim().parse().unwrap_or(1);
        return Ok((0..times.min(100)).flat_map(|_| items.clone()).collect());
    }
    if let Some(inner) = source.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        let (_, parts) = call(&format!("l({inner})")).ok_or("an unreadable list")?;
        return parts.iter().map(|p| element(p)).collect();
    }
    let source = source.strip_prefix("list(").and_then(|s| s.strip_suffix(')')).unwrap_or(source);
    if let Some((func @ ("range" | "numbers_within"), _)) = call(source) {
        let values: Vec<i64> = match declaration(&format!("x = {source}"))?.draw {
            Draw::Range { lo, hi, step } => (0..).map(|i| lo + i * step).take_while(|v| *v < hi).take(100_000).collect(),
            Draw::Within { lo, hi } => (lo..=hi).take(100_000).collect(),
            _ => return Err(format!("`{func}` did not give numbers")),
        };
        return Ok(values.into_iter().map(|v| Item::Number { text: v.to_string(), value: Num::Int(v) }).collect());
    }
    let mut items = Vec::new();
    for part in source.split('+').map(str::trim) {
        let (name, slice) = match part.split_once('[') {
            Some((name, rest)) => (name.trim(), Some(rest.strip_suffix(']').ok_or_else(|| format!("`{part}` is not a slice `table[a:b]`"))?)),
            None => (part, None),
        };
        let table = tables::table(name).ok_or_else(|| format!("unknown table `{name}` (we have {})", tables::NAMES.join(", ")))?;
        let table = match slice {
            None => table,
            Some(slice) => {
                let (a, b) = slice.split_once(':').ok_or_else(|| format!("`{part}` is not a slice `table[a:b]`"))?;
                let bound = |t: &str, default: usize| -> Result<usize, String> {
                    if t.trim().is_empty() { Ok(default) } else { t.trim().parse::<usize>().map(|v| v.min(table.len())).map_err(|_| format!("`{part}`: `{t}` is not a position")) }
                };
                let (a, b) = (bound(a, 0)?, bound(b, table.len())?);
                table.get(a..b.max(a)).unwrap_or_default().to_vec()
            }
        };
        items.extend(table);
    }
    Ok(items)
}

/// One element of an inline list: quoted text, a number, or a `("text", number)` pair.
fn element(text: &str) -> Result<Item, String> {
    let unquote = |p: &str| p.strip_prefix('"').and_then(|q| q.strip_suffix('"')).or_else(|| p.strip_prefix('\'').and_then(|q| q.strip_suffix('\''))).map(str::to_string);
    if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        if let Some((_, parts)) = call(&format!("t({inner})")) {
            if let [shown, value] = parts.as_slice() {
                if let Some(value) = number(value) {
                    let shown = unquote(shown).unwrap_or_else(|| shown.clone());
                    return Ok(Item::Number { text: shown, value });
                }
            }
        }
        return Err(format!("`{text}` in the list is not a (\"text\", number) pair"));
    }
    match (unquote(text), number(text)) {
        (Some(shown), _) => Ok(Item::Text(shown)),
        (None, Some(value)) => Ok(Item::Number { text: text.to_string(), value }),
        (None, None) => Err(format!("`{text}` in the list is neither quoted text nor a number")),
    }
}

/// `name[0]` or `name[1]` of a variable drawn from numbers with words becomes `name`: such a draw is one number
/// in expressions, whichever part of its (text, number) pair a template indexes.
fn unindex(expression: &str, names: &[String]) -> String {
    let mut out = expression.to_string();
    for name in names {
        for index in ["[0]", "[1]"] {
            let pattern = format!("{name}{index}");
            let mut result = String::new();
            let mut rest = out.as_str();
            while let Some(at) = rest.find(&pattern) {
                let before_ok = rest[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                result.push_str(&rest[..at]);
                result.push_str(if before_ok { name } else { &pattern });
                rest = &rest[at + pattern.len()..];
            }
            result.push_str(rest);
            out = result;
        }
    }
    out
}

// ---------------------------------------------------------------------- the task

/// One template as a task.
pub struct SymbolicTask {
    info: TaskInfo,
    template: SymbolicTemplate,
    module: Module,
    /// Every variable name, in declaration order: the parameters of `accept` and `answer`.
    params: Vec<String>,
    /// The declarations whose single `$` variable may take the chained value, in order.
    candidates: Vec<usize>,
}

/// Python helpers the templates call. `Fraction(a, b)` is the float `a / b` (the interpreter has no exact
/// fractions); a template whose answer needs more exactness than a float gives shows it in `packs --check`.
const PRELUDE: &str = "def divides(a, b):\n    return b != 0 and a % b == 0\n\ndef is_int(x):\n    return x == int(x)\n\ndef Fraction(numerator, denominator=1):\n    return numerator / denominator\n\n";

impl SymbolicTask {
    fn new(key: String, task_id: u32, mut template: SymbolicTemplate) -> Result<SymbolicTask, String> {
        let params: Vec<String> = template.decls.iter().flat_map(|d| d.names.clone()).collect();
        let worded: Vec<String> = template
            .decls
            .iter()
            .filter(|d| matches!(&d.draw, Draw::Pick { items, .. } | Draw::Sequential { items, .. } if items.iter().any(|i| matches!(i, Item::Number { .. }))))
            .flat_map(|d| d.names.clone())
            .collect();
        template.conditions = template.conditions.iter().map(|c| unindex(c, &worded)).collect();
        template.answer = unindex(&template.answer, &worded);
        let list = params.join(", ");
        // Each expression is parsed alone first, so a problem names its condition.
        for (i, condition) in template.conditions.iter().enumerate() {
            python::parse_module(&format!("def c({list}):\n    return ({condition})\n")).map_err(|e| format!("#conditions: line {}: `{condition}`: {}", i + 1, message(&e)))?;
        }
        let answer = &template.answer;
        python::parse_module(&format!("def a({list}):\n    return ({answer})\n")).map_err(|e| format!("#answer: `{answer}`: {}", message(&e)))?;
        let accept = if template.conditions.is_empty() { "True".to_string() } else { template.conditions.iter().map(|c| format!("({c})")).collect::<Vec<_>>().join(" and ") };
        let source = format!("{PRELUDE}def accept({list}):\n    return {accept}\n\ndef answer({list}):\n    return ({answer})\n");
        let module = python::parse_module(&source).map_err(|e| message(&e))?;
        let candidates: Vec<usize> =
            template.decls.iter().enumerate().filter(|(_, d)| d.numeric && d.names.len() == 1 && matches!(d.draw, Draw::Range { .. } | Draw::Within { .. })).map(|(i, _)| i).collect();
        let info = TaskInfo {
            key,
            family: Family::Gsm,
            task_id,
            name: format!("GSM_{}.json", template.id),
            input_kinds: vec![Kind::Scalar, Kind::List],
            output_kind: Kind::Scalar,
            description: format!("GSM-Symbolic template {}: the chained value fills one quantity", template.id),
        };
        Ok(SymbolicTask { info, template, module, params, candidates })
    }

    /// Whether the template can be chained, with notes: its trial values bind, and its formula gives its own
    /// stated answer on its own numbers.
    fn check(&self) -> Result<Vec<String>, String> {
        if self.candidates.is_empty() {
            return Err("not chainable: no `$` variable drawn from range(…) or numbers_within(…) can take the chained value".into());
        }
        let mut rng = InstanceRng::from_seed(0x6773_6d00); // "gsm"
        let mut failed = Vec::new();
        let mut errors: Vec<(String, usize)> = Vec::new();
        for c in TRIAL_VALUES {
            match self.bind(c, &mut rng) {
                Ok(_) => {}
                Err(error) => {
                    failed.push(c);
                    if let Some(e) = error {
                        match errors.iter_mut().find(|(m, _)| *m == e) {
                            Some((_, n)) => *n += 1,
                            None => errors.push((e, 1)),
                        }
                    }
                }
            }
        }
        let why = || {
            let most = errors.iter().fold(None::<&(String, usize)>, |best, e| if best.is_none_or(|b| e.1 > b.1) { Some(e) } else { best });
            most.map(|(e, _)| format!("the formulas fail: {e}")).unwrap_or_else(|| "its conditions never held".into())
        };
        let bound = TRIAL_VALUES.len() - failed.len();
        if bound < MIN_BINDING {
            let values: Vec<String> = TRIAL_VALUES.iter().map(|c| c.to_string()).collect();
            return Err(format!("not chainable: {bound} of the trial values {} bind; {}", values.join(", "), why()));
        }
        let mut notes = Vec::new();
        if !failed.is_empty() {
            let values: Vec<String> = failed.iter().map(|c| c.to_string()).collect();
            let (them, verb) = if failed.len() == 1 { ("value", "does") } else { ("values", "do") };
            notes.push(format!("the trial {them} {} {verb} not bind ({}); generation resamples such inputs", values.join(", "), why()));
        }
        if let (Some(stated), Some(own)) = (&self.template.stated, self.own_answer()) {
            let agrees = match (stated.parse::<f64>(), &own) {
                (Ok(s), Ok(Value::Scalar(x))) => (s - x.as_f64()).abs() <= 1e-6,
                _ => false,
            };
            if !agrees {
                let own = own.map_or_else(|e| format!("an error ({e})"), |v| v.to_string());
                notes.push(format!("on the numbers the question shows, the #answer formula gives {own} where the worked answer says {stated}"));
            }
        }
        Ok(notes)
    }

    /// The answer formula on the values the question shows (`None` when one cannot be read).
    fn own_answer(&self) -> Option<Result<Value, String>> {
        let mut shown: HashMap<&str, &str> = HashMap::new();
        for segment in &self.template.question {
            if let Segment::Var { name, shown: value } = segment {
                shown.entry(name.as_str()).or_insert(value.as_str());
            }
        }
        let mut values = Vec::new();
        for decl in &self.template.decls {
            for name in &decl.names {
                let text = shown.get(name.as_str())?;
                values.push(read_value(&decl.draw, text)?);
            }
        }
        Some(self.answer(&values))
    }

    /// One draw with `fixed` (declaration, value) set; the values (by parameter) when the conditions hold.
    fn draw(&self, rng: &mut InstanceRng, fixed: Option<(usize, i64)>) -> Vec<Val> {
        let mut values = Vec::with_capacity(self.params.len());
        for (d, decl) in self.template.decls.iter().enumerate() {
            let one = match (&decl.draw, fixed) {
                (_, Some((f, v))) if f == d => vec![Val::Num(Num::Int(v))],
                (Draw::Range { lo, hi, step }, _) => vec![Val::Num(Num::Int(lo + rng.int_in(0, (hi - lo - 1) / step) * step))],
                (Draw::Within { lo, hi }, _) => vec![Val::Num(Num::Int(rng.int_in(*lo, *hi)))],
                (Draw::Floats(values), _) => vec![Val::Num(Num::Float(values[rng.index(values.len())]))],
                (Draw::Fixed(n), _) => vec![Val::Num(*n)],
                (Draw::Pick { items, count }, _) => {
                    let picks: Vec<Item> = rng.sample_indices(items.len(), *count).into_iter().map(|i| items[i].clone()).collect();
                    spread(picks, decl.names.len())
                }
                (Draw::Sequential { items, count }, _) => {
                    let start = rng.index(items.len() - count + 1);
                    spread(items[start..start + count].to_vec(), decl.names.len())
                }
            };
            values.extend(one);
        }
        values
    }

    fn kwargs(&self, values: &[Val]) -> Vec<(String, PyValue)> {
        self.params.iter().zip(values).map(|(n, v)| (n.clone(), v.to_py())).collect()
    }

    /// Runs the conditions: `Ok(true)` when all hold; an error is a failed draw (as the reference counts it).
    fn accepts(&self, values: &[Val]) -> Result<bool, String> {
        python::call(&self.module, "accept", &[], &self.kwargs(values), &Limits::default()).map(|v| v.truthy()).map_err(|e| e.to_string())
    }

    /// Runs the answer formula: an int, or a float (whole floats become ints).
    fn answer(&self, values: &[Val]) -> Result<Value, String> {
        let result = python::call(&self.module, "answer", &[], &self.kwargs(values), &Limits::default()).map_err(|e| e.to_string())?;
        match result {
            PyValue::Int(i) => Ok(Value::int(i)),
            PyValue::Bool(b) => Ok(Value::int(i64::from(b))),
            PyValue::Float(f) if !f.is_finite() => Err(format!("the answer is {}", PyValue::Float(f).repr())),
            PyValue::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Value::int(f as i64)),
            PyValue::Float(f) => Ok(Value::Scalar(Number::Float(f))),
            other => Err(format!("the answer is a {}, not a number that fits 64 bits", other.type_name())),
        }
    }

    /// Binds `c` to the first candidate that admits an accepted draw: (declaration, value, draw, answer), or the
    /// last evaluation error when none does.
    fn bind(&self, c: i64, rng: &mut InstanceRng) -> Result<(usize, i64, Vec<Val>, Value), Option<String>> {
        let mut error = None;
        for &d in &self.candidates {
            let domain = match self.template.decls[d].draw {
                Draw::Range { lo, hi, step } => Domain::Range { lo, hi, step },
                Draw::Within { lo, hi } => Domain::Within { lo, hi },
                _ => continue,
            };
            let value = snap(c, &domain);
            for _ in 0..ATTEMPTS_PER_CANDIDATE {
                let values = self.draw(rng, Some((d, value)));
                match self.accepts(&values).and_then(|ok| if ok { self.answer(&values).map(Some) } else { Ok(None) }) {
                    Ok(Some(answer)) => return Ok((d, value, values, answer)),
                    Ok(None) => {}
                    Err(e) => error = Some(e),
                }
            }
        }
        Err(error)
    }
}

/// Items spread over the names of a multi-name declaration (one name takes them all when it is alone and there are several).
fn spread(items: Vec<Item>, names: usize) -> Vec<Val> {
    if names == 1 && items.len() == 1 {
        return vec![Val::Item(items[0].clone())];
    }
    if names == 1 {
        return vec![Val::Items(items)];
    }
    items.into_iter().map(Val::Item).collect()
}

/// A value as a question shows it, read for `draw` (`None` when it cannot be read).
fn read_value(draw: &Draw, text: &str) -> Option<Val> {
    match draw {
        Draw::Range { .. } | Draw::Within { .. } | Draw::Floats(_) | Draw::Fixed(_) => number(&text.replace(',', "")).map(Val::Num),
        Draw::Pick { items, .. } | Draw::Sequential { items, .. } => {
            let found = items.iter().find(|i| i.text().eq_ignore_ascii_case(text.trim()));
            match found {
                Some(item) => Some(Val::Item(item.clone())),
                None if items.iter().all(|i| matches!(i, Item::Text(_))) => Some(Val::Item(Item::Text(text.trim().to_string()))),
                None => None,
            }
        }
    }
}

fn message(e: &python::ParseError) -> String {
    e.to_string()
}

impl Task for SymbolicTask {
    fn info(&self) -> &TaskInfo {
        &self.info
    }

    fn instantiate(&self, ctx: &TaskContext<'_>, rng: &mut InstanceRng) -> Result<TaskInstance, TaskError> {
        let (raw, element) = match ctx.input {
            Value::Scalar(x) => (*x, None),
            Value::List(items) => {
                let index = LIST_ELEMENT_INDEX.min(items.len().checked_sub(1).ok_or(AdaptError::EmptyList)?);
                (items[index], Some(index))
            }
        };
        let c = chained_integer(raw)?;
        let (bound, value, values, answer) =
            self.bind(c, rng).map_err(|_| TaskError::Exhausted { attempts: ATTEMPTS_PER_CANDIDATE * self.candidates.len() as u32 })?;
        let n = ctx.number;
        let local = format!("val_{n}");
        let adapter = ScalarAdapter::round_abs_mod_add(value - c);
        let mut body = Prompt::new();
        body.push(Role::Instruction, &format!("Task {n}:\n"));
        match element {
            None => adapter.describe(&mut body, &local, ctx.input_name),
            Some(index) => {
                body.push(Role::Adapter, &format!("Let {local} be the element at index {index} (counting from 0) of the list {}.\n", ctx.input_name));
                adapter.describe_sentence(&mut body);
            }
        }
        let bound_name = &self.template.decls[bound].names[0];
        for segment in &self.template.question {
            match segment {
                Segment::Text(text) => {
                    body.push(Role::Computation, text);
                }
                Segment::Var { name, .. } if name == bound_name => {
                    body.push(Role::Adapter, &local);
                }
                Segment::Var { name, .. } => {
                    let at = self.params.iter().position(|p| p == name).unwrap_or(0);
                    body.push(Role::InputValue, &values[at].shown());
                }
            }
        }
        body.push(Role::Instruction, "\nStore the final numerical answer in ");
        body.push(Role::OutputName, &format!("task_{n}_out"));
        body.push(Role::Instruction, ".\n");
        Ok(TaskInstance { body, output: answer, statics: Vec::new(), template_index: Some(self.info.task_id), picture: None })
    }
}

/// Reads a reference GSM question back against the template `task_name` names (`GSM_0042.json`) and computes
/// our answer from the values read: `Err` when the question cannot be read back, else our answer or why it fails.
pub fn answer_of_prompt(pack: &super::Pack, task_name: &str, prompt: &str, chained: Option<&Value>) -> Result<Result<Value, String>, String> {
    let super::Content::Gsm(content) = &pack.content else { return Err("not a GSM pack".into()) };
    let id = task_name.strip_prefix("GSM_").and_then(|n| n.strip_suffix(".json")).unwrap_or(task_name);
    let template = content.templates.iter().find(|t| t.id == id).ok_or_else(|| format!("the pack has no usable template {id}"))?;
    let task = SymbolicTask::new(String::new(), 0, template.clone())?;
    // The question sits between the preprocessing sentence and the closing instruction.
    let lines: Vec<&str> = prompt.lines().collect();
    let start = lines.iter().position(|l| l.starts_with("Let val_1 ")).ok_or("no `Let val_1` sentence")? + 1;
    let end = lines.iter().rposition(|l| l.contains("task_1_out")).ok_or("no closing instruction")?;
    let start = if lines.get(start).is_some_and(|l| l.starts_with("Round it") || l.starts_with("If it is")) { start + 1 } else { start };
    let question = lines.get(start..end).ok_or("an empty question")?.join("\n");
    let preprocessing = lines[start.saturating_sub(2)..start].join(" ");
    let add: i64 = preprocessing.split("add ").nth(1).and_then(|rest| rest.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or(0);
    let raw = match chained.ok_or("no task_1_input")? {
        Value::Scalar(x) => *x,
        Value::List(items) => *items.get(LIST_ELEMENT_INDEX.min(items.len().saturating_sub(1))).ok_or("an empty input list")?,
    };
    let c = chained_integer(raw).map_err(|e| e.to_string())?;
    let known: HashMap<&str, Vec<&str>> = template
        .decls
        .iter()
        .filter_map(|d| match &d.draw {
            Draw::Pick { items, .. } | Draw::Sequential { items, .. } => Some(d.names.iter().map(move |n| (n.as_str(), items.iter().map(Item::text).collect()))),
            _ => None,
        })
        .flatten()
        .collect();
    let read = match_question(&template.question, question.trim(), &known).ok_or("the question does not match the template's text")?;
    let mut values = Vec::new();
    for decl in &template.decls {
        for name in &decl.names {
            let text_only = !decl.numeric && matches!(&decl.draw, Draw::Pick { items, .. } | Draw::Sequential { items, .. } if items.iter().all(|i| matches!(i, Item::Text(_))));
            let Some(text) = read.get(name.as_str()) else {
                // A word the question never shows cannot change a number.
                if text_only {
                    values.push(Val::Item(Item::Text(String::new())));
                    continue;
                }
                return Err(format!("`{name}` is not shown in the question"));
            };
            let value = if text == "val_1" { Some(Val::Num(Num::Int(c + add))) } else { read_value(&decl.draw, text) };
            values.push(value.ok_or_else(|| format!("`{name}` = `{text}` cannot be read back"))?);
        }
    }
    Ok(task.answer(&values))
}

/// Matches a question against the template's segments: each placeholder's text (the first reading of each name).
/// A placeholder whose draw has known texts reads the longest of them that fits before the next text.
fn match_question<'a>(segments: &'a [Segment], text: &'a str, known: &HashMap<&str, Vec<&str>>) -> Option<HashMap<&'a str, String>> {
    let mut out = HashMap::new();
    let mut rest = text;
    for (i, segment) in segments.iter().enumerate() {
        match segment {
            Segment::Text(t) => rest = rest.strip_prefix(t.as_str())?,
            Segment::Var { name, .. } => {
                let fits = |item: &&str| match segments.get(i + 1) {
                    Some(Segment::Text(next)) => rest.strip_prefix(*item).is_some_and(|r| r.starts_with(next.as_str())),
                    _ => rest.starts_with(*item),
                };
                let item = known.get(name.as_str()).and_then(|items| items.iter().filter(|i| !i.is_empty() && fits(i)).max_by_key(|i| i.len()));
                let value = match segments.get(i + 1) {
                    _ if item.is_some() => &rest[..item.map_or(0, |i| i.len())],
                    Some(Segment::Text(next)) => {
                        let at = rest.find(next.as_str())?;
                        &rest[..at]
                    }
                    // Two placeholders side by side (`{currency,$}{price,2}`): the first is the text before the number.
                    Some(Segment::Var { .. }) => {
                        let at = rest.char_indices().find(|&(i, c)| c.is_ascii_digit() || c == '-' || c == '.' || c.is_whitespace() || rest[i..].starts_with("val_"))?.0;
                        &rest[..at]
                    }
                    None => rest,
                };
                out.entry(name.as_str()).or_insert_with(|| value.to_string());
                rest = &rest[value.len()..];
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_decl(line: &str, expected: Result<Draw, &str>) {
        assert_eq!(declaration(line).map(|d| d.draw), expected.map_err(str::to_string), "{line}");
    }

    fn words(pairs: &[(&str, i64)]) -> Vec<Item> {
        pairs.iter().map(|(t, v)| Item::Number { text: (*t).to_string(), value: Num::Int(*v) }).collect()
    }

    #[test]
    fn init_lines_read_every_domain_and_name_what_they_cannot_read() {
        check_decl("$x = range(10, 500, 10)", Ok(Draw::Range { lo: 10, hi: 500, step: 10 }));
        check_decl("$x = numbers_within(3, 8)", Ok(Draw::Within { lo: 3, hi: 8 }));
        check_decl("$p = fix_floats(np.arange(1.5, 2.5, 0.5))", Ok(Draw::Floats(vec![1.5, 2.0])));
        check_decl("$s = sample([(\"d4\", 4), (\"d6\", 6)] * 2)", Ok(Draw::Pick { items: words(&[("d4", 4), ("d6", 6), ("d4", 4), ("d6", 6)]), count: 1 }));
        check_decl("a, b = sample(list(range(3, 5)))", Ok(Draw::Pick { items: words(&[("3", 3), ("4", 4)]), count: 2 }));
        check_decl("$m = sample(multiple_ice[:2])", Ok(Draw::Pick { items: words(&[("double", 2), ("triple", 3)]), count: 1 }));
        check_decl("$k = 7", Ok(Draw::Fixed(Num::Int(7))));
        check_decl("$x = range(5, 5)", Err("range(5, 5, 1) is empty"));
        check_decl("$x = shuffle(names)", Err("`shuffle` is not a domain we read (range, numbers_within, frange, sample, sample_sequential)"));
        check_decl("x, y = sample([\"a\"], 2)", Err("2 items asked of 1 available"));
        check_decl("two words = range(2, 4)", Err("`two words` is not a variable name or a list of them"));
    }

    #[test]
    fn indexing_a_worded_number_reads_the_number_and_leaves_other_names_alone() {
        let names = vec!["mult".to_string()];
        assert_eq!(unindex("n * mult[1] + remult[1] + mult[0]", &names), "n * mult + remult[1] + mult");
    }

    #[test]
    fn questions_read_back_placeholders_between_the_template_texts() {
        let segments = placeholders("{who,Ana} paid {cur,$}{price,5} for {item,tea} twice").expect("placeholders");
        let known: HashMap<&str, Vec<&str>> = [("item", vec!["green tea", "tea"])].into_iter().collect();
        let read = match_question(&segments, "Bo Li paid €val_1 for green tea twice", &known).expect("matches");
        let get = |n: &str| read.get(n).map(String::as_str);
        assert_eq!((get("who"), get("cur"), get("price"), get("item")), (Some("Bo Li"), Some("€"), Some("val_1"), Some("green tea")));
        assert_eq!(match_question(&segments, "Somebody else entirely", &known), None);
        assert_eq!(placeholders("a {b c} d"), Err("`{b c}` is not a placeholder `{name, value}`".to_string()));
    }
}
