//! The word-problem template language: parsing the embedded catalogue text and sampling instances from it.
//!
//! A catalogue file holds shared tables and templates (see `docs/GSM_TEMPLATES.md` for the full grammar):
//!
//! ```text
//! table names: Ava, Ben, Chloe
//! == bakery_boxes
//! situation: cooking
//! question: {name} bakes {trays} trays of {per_tray} rolls …
//! vars:
//!   name = pick(names)
//!   trays = range(2, 10)
//!   per_tray = numbers_within(6, 12)
//! when:
//!   divides(trays * per_tray, 4)
//! answer: trays * per_tray // 4
//! ```
//!
//! Variables are drawn in declaration order; `let` variables are computed from earlier ones. An attempt is
//! accepted when every `when:` condition holds and the answer is an integer that fits 64 bits.

use std::collections::HashMap;

use super::expr::{self, Expr, ParseError};
use super::rational::Rational;
use crate::engine::prompt::{Prompt, Role};
use crate::engine::rng::InstanceRng;

/// One table entry: the text shown in the question and, for numeric tables, the number it stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// What the question shows.
    pub text: String,
    /// What expressions see (`None` for plain text items).
    pub value: Option<Rational>,
}

/// Where a variable's value comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Domain {
    /// Python's `range(lo, hi, step)`: `lo, lo + step, …` below `hi`.
    Range { lo: i64, hi: i64, step: i64 },
    /// A uniform integer in `lo..=hi`.
    Within { lo: i64, hi: i64 },
    /// One item of a table (a multi-name declaration takes that many distinct items).
    Pick { items: Vec<Item>, distinct: bool },
    /// Computed from earlier variables.
    Let(Expr),
}

/// A declaration line: one or more variable slots filled from one domain.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// The declared variables, by slot.
    pub slots: Vec<usize>,
    /// Where their values come from.
    pub domain: Domain,
}

/// A named variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    /// The name used in placeholders and expressions.
    pub name: String,
    /// True when expressions may read it (ranges, numeric tables, `let`).
    pub numeric: bool,
}

/// A piece of the question text.
#[derive(Clone, Debug, PartialEq)]
pub enum Segment {
    /// Prose.
    Text(String),
    /// A placeholder, by slot.
    Var(usize),
}

/// One parsed template.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    /// Stable identifier (`bakery_boxes`); part of the task key, never renamed.
    pub slug: String,
    /// The everyday situation, in a word or two (`cooking`).
    pub situation: String,
    /// The question with placeholders resolved to slots.
    pub question: Vec<Segment>,
    /// Every variable; a variable's slot is its index here.
    pub vars: Vec<Var>,
    /// The declarations, in drawing order.
    pub decls: Vec<Decl>,
    /// The `when:` lines; all must hold.
    pub conditions: Vec<Expr>,
    /// The ground-truth expression.
    pub answer: Expr,
    /// The answer expression as written (for docs and diagnostics).
    pub answer_text: String,
}

/// The value a slot took in one attempt.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    /// An integer from a range.
    Int(i64),
    /// A table item (index into the declaration's items).
    Item(usize),
    /// A computed value.
    Derived(Rational),
}

/// One accepted draw: every slot's choice and numeric value, and the integer answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// What each slot took.
    pub choices: Vec<Choice>,
    /// Each slot's numeric value (`None` for plain text items), as expressions see it.
    pub env: Vec<Option<Rational>>,
    /// The ground truth.
    pub answer: i64,
}

/// A catalogue line that could not be understood.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct TemplateError {
    /// The catalogue file.
    pub file: String,
    /// The 1-based line (the `==` line for problems of the whole template).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// All templates and tables of the embedded catalogue.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    /// Shared tables by name.
    pub tables: HashMap<String, Vec<Item>>,
    /// Templates in `task_id` order.
    pub templates: Vec<Template>,
}

impl Template {
    /// Slots that may carry the chained input: single-name `range`/`numbers_within` variables, in order.
    pub fn candidates(&self) -> Vec<usize> {
        self.decls
            .iter()
            .filter(|d| d.slots.len() == 1 && matches!(d.domain, Domain::Range { .. } | Domain::Within { .. }))
            .map(|d| d.slots[0])
            .collect()
    }

    /// The domain of a slot.
    pub fn domain_of(&self, slot: usize) -> Option<&Domain> {
        self.decls.iter().find(|d| d.slots.contains(&slot)).map(|d| &d.domain)
    }

    /// The slot of a variable name.
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|v| v.name == name)
    }

    /// One attempt: draws every variable (except `fixed`, which takes the given value), then checks the
    /// conditions and the answer. `None` when the draw is rejected.
    pub fn attempt(&self, rng: &mut InstanceRng, fixed: Option<(usize, i64)>) -> Option<Assignment> {
        let n = self.vars.len();
        let mut choices: Vec<Choice> = vec![Choice::Int(0); n];
        let mut env: Vec<Option<Rational>> = vec![None; n];
        for decl in &self.decls {
            match &decl.domain {
                Domain::Range { lo, hi, step } => {
                    let slot = decl.slots[0];
                    let v = match fixed {
                        Some((s, v)) if s == slot => v,
                        _ => lo + rng.int_in(0, (hi - lo - 1) / step) * step,
                    };
                    choices[slot] = Choice::Int(v);
                    env[slot] = Some(Rational::int(v));
                }
                Domain::Within { lo, hi } => {
                    let slot = decl.slots[0];
                    let v = match fixed {
                        Some((s, v)) if s == slot => v,
                        _ => rng.int_in(*lo, *hi),
                    };
                    choices[slot] = Choice::Int(v);
                    env[slot] = Some(Rational::int(v));
                }
                Domain::Pick { items, distinct } => {
                    let picks = if *distinct {
                        rng.sample_indices(items.len(), decl.slots.len())
                    } else {
                        vec![rng.index(items.len()); decl.slots.len()]
                    };
                    for (&slot, &i) in decl.slots.iter().zip(&picks) {
                        choices[slot] = Choice::Item(i);
                        env[slot] = items[i].value.clone();
                    }
                }
                Domain::Let(expr) => {
                    let value = expr.eval(&env).ok()?.to_rational();
                    let slot = decl.slots[0];
                    env[slot] = Some(value.clone());
                    choices[slot] = Choice::Derived(value);
                }
            }
        }
        if !self.conditions.iter().all(|c| c.holds(&env)) {
            return None;
        }
        let answer = expr::as_integer(&self.answer.eval(&env).ok()?)?;
        let answer = i64::try_from(answer).ok()?;
        // A computed value shown in the question must be a whole number.
        let shown_ok = self.question.iter().all(|seg| match seg {
            Segment::Var(slot) => !matches!(&choices[*slot], Choice::Derived(q) if !q.is_integer()),
            Segment::Text(_) => true,
        });
        shown_ok.then_some(Assignment { choices, env, answer })
    }

    /// The text a slot shows in the question.
    pub fn display(&self, slot: usize, assignment: &Assignment) -> String {
        match &assignment.choices[slot] {
            Choice::Int(v) => v.to_string(),
            Choice::Derived(q) => q.to_string(),
            Choice::Item(i) => match self.domain_of(slot) {
                Some(Domain::Pick { items, .. }) => items.get(*i).map(|it| it.text.clone()).unwrap_or_default(),
                _ => String::new(),
            },
        }
    }

    /// Writes the question: prose as computation, values as input values, and `bound` (if any) as `local`.
    pub fn render(&self, assignment: &Assignment, bound: Option<usize>, local: &str, prompt: &mut Prompt) {
        for seg in &self.question {
            match seg {
                Segment::Text(text) => {
                    prompt.push(Role::Computation, text);
                }
                Segment::Var(slot) if Some(*slot) == bound => {
                    prompt.push(Role::Adapter, local);
                }
                Segment::Var(slot) => {
                    prompt.push(Role::InputValue, &self.display(*slot, assignment));
                }
            }
        }
    }

    /// The question with every placeholder filled (tests and docs).
    pub fn render_text(&self, assignment: &Assignment) -> String {
        let mut prompt = Prompt::new();
        self.render(assignment, None, "", &mut prompt);
        prompt.into_text()
    }
}

/// Parses catalogue files given as `(file name, text)`: tables first (from every file), then templates in order.
pub fn parse_catalog(files: &[(&str, &str)]) -> Result<Catalog, TemplateError> {
    let mut catalog = Catalog::default();
    for (file, text) in files {
        for (i, line) in text.lines().enumerate() {
            if let Some(rest) = line.trim().strip_prefix("table ") {
                let err = |message: String| TemplateError { file: file.to_string(), line: i + 1, message };
                let (name, items) = rest.split_once(':').ok_or_else(|| err("a table line reads `table NAME: items`".into()))?;
                let name = name.trim().to_string();
                let items = parse_items(items).map_err(err)?;
                if catalog.tables.insert(name.clone(), items).is_some() {
                    return Err(err(format!("table `{name}` is defined twice")));
                }
            }
        }
    }
    for (file, text) in files {
        let mut block: Vec<(usize, &str)> = Vec::new();
        let mut slug: Option<(usize, String)> = None;
        let lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).chain(std::iter::once((0, "== ")));
        for (no, line) in lines {
            if let Some(next) = line.strip_prefix("== ") {
                if let Some((at, name)) = slug.take() {
                    let template = parse_template(&catalog.tables, &name, &block).map_err(|(line, message)| TemplateError {
                        file: file.to_string(),
                        line: if line == 0 { at } else { line },
                        message,
                    })?;
                    catalog.templates.push(template);
                }
                block.clear();
                if no != 0 {
                    slug = Some((no, next.trim().to_string()));
                }
            } else if slug.is_some() {
                block.push((no, line));
            }
        }
    }
    Ok(catalog)
}

/// Splits `a, "b, c" = 2, d` at top-level commas and reads each `text [= number]`.
fn parse_items(text: &str) -> Result<Vec<Item>, String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for ch in text.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                current.push(ch);
            }
            ',' if !quoted => parts.push(std::mem::take(&mut current)),
            _ => current.push(ch),
        }
    }
    if quoted {
        return Err("unclosed quote in an item list".into());
    }
    parts.push(current);
    let mut items = Vec::new();
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            return Err("empty item in a list".into());
        }
        let (text, rest): (String, String) = if let Some(stripped) = part.strip_prefix('"') {
            let end = stripped.find('"').ok_or("unclosed quote")?;
            (stripped[..end].to_string(), stripped[end + 1..].trim().to_string())
        } else {
            match part.split_once('=') {
                Some((t, v)) => (t.trim().to_string(), format!("= {v}")),
                None => (part.to_string(), String::new()),
            }
        };
        let value = match rest.strip_prefix('=') {
            Some(number) => {
                let e = expr::parse(number, &|_| None).map_err(|e| format!("item `{text}`: {e}"))?;
                Some(e.eval(&[]).map_err(|e| format!("item `{text}`: {e}"))?.to_rational())
            }
            None if rest.is_empty() => None,
            None => return Err(format!("unexpected `{rest}` after item `{text}`")),
        };
        if text.contains(['{', '}']) {
            return Err(format!("item `{text}` contains a brace"));
        }
        items.push(Item { text, value });
    }
    let numeric = items.iter().filter(|i| i.value.is_some()).count();
    if numeric != 0 && numeric != items.len() {
        return Err("a table mixes numeric and plain items".into());
    }
    Ok(items)
}

type LineResult<T> = Result<T, (usize, String)>;

#[derive(PartialEq)]
enum Section {
    None,
    Question,
    Vars,
    When,
    Answer,
}

fn parse_template(tables: &HashMap<String, Vec<Item>>, slug: &str, block: &[(usize, &str)]) -> LineResult<Template> {
    if slug.is_empty() || !slug.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
        return Err((0, format!("slug `{slug}` must be lowercase letters, digits and underscores")));
    }
    let mut situation = String::new();
    let mut question: Vec<(usize, String)> = Vec::new();
    let mut var_lines: Vec<(usize, String)> = Vec::new();
    let mut when_lines: Vec<(usize, String)> = Vec::new();
    let mut answer_lines: Vec<(usize, String)> = Vec::new();
    let mut section = Section::None;
    for &(no, raw) in block {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (keyword, rest) = match line.split_once(':') {
            Some((k, r)) if ["situation", "question", "vars", "when", "answer"].contains(&k) => (Some(k), r.trim()),
            _ => (None, line),
        };
        if let Some(k) = keyword {
            section = match k {
                "situation" => {
                    situation = rest.to_string();
                    Section::None
                }
                "question" => Section::Question,
                "vars" => Section::Vars,
                "when" => Section::When,
                _ => Section::Answer,
            };
            if rest.is_empty() || k == "situation" {
                continue;
            }
        }
        let target = match section {
            Section::Question => &mut question,
            Section::Vars => &mut var_lines,
            Section::When => &mut when_lines,
            Section::Answer => &mut answer_lines,
            Section::None => return Err((no, format!("`{line}` is outside any section"))),
        };
        target.push((no, rest.to_string()));
    }
    if situation.is_empty() {
        return Err((0, "missing `situation:`".into()));
    }
    let mut vars: Vec<Var> = Vec::new();
    let mut decls: Vec<Decl> = Vec::new();
    for (no, line) in &var_lines {
        parse_decl(tables, line, &mut vars, &mut decls).map_err(|m| (*no, m))?;
    }
    let question_at = question.first().map(|(no, _)| *no).unwrap_or(0);
    let text = question.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>().join(" ");
    let question = parse_question(&text, &vars).map_err(|m| (question_at, m))?;
    if question.is_empty() {
        return Err((0, "missing `question:`".into()));
    }
    let resolve = |name: &str| vars.iter().position(|v| v.name == name && v.numeric);
    let mut conditions = Vec::new();
    for (no, line) in &when_lines {
        conditions.push(expr::parse(line, &resolve).map_err(|e| (*no, e.to_string()))?);
    }
    let answer_at = answer_lines.first().map(|(no, _)| *no).unwrap_or(0);
    let answer_text = answer_lines.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>().join(" ");
    if answer_text.is_empty() {
        return Err((0, "missing `answer:`".into()));
    }
    let answer = expr::parse(&answer_text, &resolve).map_err(|e: ParseError| (answer_at, e.to_string()))?;
    Ok(Template { slug: slug.to_string(), situation, question, vars, decls, conditions, answer, answer_text })
}

fn parse_question(text: &str, vars: &[Var]) -> Result<Vec<Segment>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').ok_or("unclosed `{` in the question")? + open;
        if open > 0 {
            out.push(Segment::Text(rest[..open].to_string()));
        }
        let name = rest[open + 1..close].trim();
        let slot = vars.iter().position(|v| v.name == name).ok_or_else(|| format!("placeholder `{{{name}}}` names no variable"))?;
        out.push(Segment::Var(slot));
        rest = &rest[close + 1..];
    }
    if rest.contains('}') {
        return Err("stray `}` in the question".into());
    }
    if !rest.is_empty() {
        out.push(Segment::Text(rest.to_string()));
    }
    Ok(out)
}

fn parse_decl(tables: &HashMap<String, Vec<Item>>, line: &str, vars: &mut Vec<Var>, decls: &mut Vec<Decl>) -> Result<(), String> {
    let (lhs, rhs) = line.split_once('=').ok_or("a variable line reads `name = domain`")?;
    let (is_let, lhs) = match lhs.trim().strip_prefix("let ") {
        Some(rest) => (true, rest),
        None => (false, lhs),
    };
    let names: Vec<String> = lhs.split(',').map(|n| n.trim().to_string()).collect();
    for name in &names {
        let ok =
            name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok || ["and", "or", "not", "True", "False"].contains(&name.as_str()) {
            return Err(format!("`{name}` is not a valid variable name"));
        }
        if vars.iter().any(|v| &v.name == name) {
            return Err(format!("variable `{name}` is declared twice"));
        }
    }
    let rhs = rhs.trim();
    let domain = if is_let {
        if names.len() != 1 {
            return Err("`let` defines one variable".into());
        }
        let resolve = |name: &str| vars.iter().position(|v| v.name == name && v.numeric);
        Domain::Let(expr::parse(rhs, &resolve).map_err(|e| e.to_string())?)
    } else {
        let (func, args) = rhs.strip_suffix(')').and_then(|r| r.split_once('(')).ok_or_else(|| format!("unknown domain `{rhs}`"))?;
        match func.trim() {
            "range" | "numbers_within" => {
                if names.len() != 1 {
                    return Err("a numeric domain defines one variable".into());
                }
                let nums = args
                    .split(',')
                    .map(|a| a.trim().parse::<i64>())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| format!("bad bounds in `{rhs}`"))?;
                let bound = 1_000_000_000;
                if nums.iter().any(|n| n.abs() > bound) {
                    return Err(format!("bounds in `{rhs}` exceed {bound}"));
                }
                match (func.trim(), nums.as_slice()) {
                    ("range", [lo, hi]) if lo < hi => Domain::Range { lo: *lo, hi: *hi, step: 1 },
                    ("range", [lo, hi, step]) if lo < hi && *step > 0 => Domain::Range { lo: *lo, hi: *hi, step: *step },
                    ("numbers_within", [lo, hi]) if lo <= hi => Domain::Within { lo: *lo, hi: *hi },
                    _ => return Err(format!("`{rhs}` is not a non-empty ascending domain")),
                }
            }
            "pick" | "distinct" => {
                let args = args.trim();
                let items = if args.starts_with('"') {
                    parse_items(args)?
                } else {
                    tables.get(args).cloned().ok_or_else(|| format!("unknown table `{args}`"))?
                };
                if items.is_empty() {
                    return Err("an empty table".into());
                }
                let distinct = func.trim() == "distinct";
                if distinct && names.len() > items.len() {
                    return Err(format!("cannot draw {} distinct items from {}", names.len(), items.len()));
                }
                if !distinct && names.len() != 1 {
                    return Err("`pick` defines one variable; use `distinct` for several".into());
                }
                Domain::Pick { items, distinct }
            }
            other => return Err(format!("unknown domain `{other}`")),
        }
    };
    let numeric = match &domain {
        Domain::Pick { items, .. } => items[0].value.is_some(),
        _ => true,
    };
    let first = vars.len();
    for name in names {
        vars.push(Var { name, numeric });
    }
    decls.push(Decl { slots: (first..vars.len()).collect(), domain });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
table names: Ava, Ben, \"Chloe, Jr.\"
table twice: \"twice\" = 2, \"three times\" = 3

== crates
situation: farming
question: {name} packs {crates} crates of {size} apples and gives away {factor} as many as {other} does, who gives {gift}.
  How many apples are left?
vars:
  name, other = distinct(names)
  crates = range(2, 11)
  size = range(10, 51, 5)
  factor = pick(twice)
  gift = numbers_within(1, 5)
  let total = crates * size
when:
  factor * gift < total
answer: total - factor * gift
";

    fn catalog() -> Catalog {
        parse_catalog(&[("sample.txt", SAMPLE)]).unwrap()
    }

    #[test]
    fn a_template_parses_into_variables_domains_and_segments() {
        let cat = catalog();
        assert_eq!(cat.tables["names"][2].text, "Chloe, Jr.");
        assert_eq!(cat.tables["twice"][1].value, Some(Rational::int(3)));
        let t = &cat.templates[0];
        assert_eq!(t.slug, "crates");
        let names: Vec<_> = t.vars.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["name", "other", "crates", "size", "factor", "gift", "total"]);
        assert_eq!(t.candidates(), vec![2, 3, 5]);
        assert_eq!(t.domain_of(3), Some(&Domain::Range { lo: 10, hi: 51, step: 5 }));
        assert!(matches!(t.question[0], Segment::Var(0)));
        assert!(t.vars[4].numeric && !t.vars[0].numeric);
    }

    #[test]
    fn attempts_respect_domains_conditions_and_distinctness() {
        let cat = catalog();
        let t = &cat.templates[0];
        let mut rng = InstanceRng::from_seed(5);
        let mut accepted = 0;
        for _ in 0..300 {
            let Some(a) = t.attempt(&mut rng, None) else { continue };
            accepted += 1;
            let int = |slot: usize| a.env[slot].as_ref().and_then(|q| q.to_i64()).unwrap();
            assert!((2..11).contains(&int(2)));
            assert!((10..=50).contains(&int(3)) && int(3) % 5 == 0);
            assert_ne!(a.choices[0], a.choices[1]);
            assert_eq!(a.answer, int(2) * int(3) - int(4) * int(5));
            assert!(a.answer > 0);
            let text = t.render_text(&a);
            assert!(!text.contains('{') && text.ends_with("How many apples are left?"), "{text}");
        }
        assert!(accepted > 250, "{accepted}");
    }

    #[test]
    fn a_fixed_slot_keeps_its_value() {
        let cat = catalog();
        let t = &cat.templates[0];
        let mut rng = InstanceRng::from_seed(9);
        for _ in 0..50 {
            if let Some(a) = t.attempt(&mut rng, Some((3, 35))) {
                assert_eq!(a.choices[3], Choice::Int(35));
            }
        }
    }

    #[test]
    fn the_bound_slot_renders_as_its_local_name() {
        let cat = catalog();
        let t = &cat.templates[0];
        let a = t.attempt(&mut InstanceRng::from_seed(1), Some((2, 4))).unwrap();
        let mut prompt = Prompt::new();
        t.render(&a, Some(2), "val_3", &mut prompt);
        assert!(prompt.text().contains(" packs val_3 crates of "));
        assert!(prompt.pieces().any(|(role, text)| role == Role::Adapter && text == "val_3"));
        assert!(prompt.pieces().any(|(role, text)| role == Role::InputValue && text == t.display(3, &a)));
    }

    fn error_of(text: &str) -> String {
        parse_catalog(&[("bad.txt", text)]).unwrap_err().to_string()
    }

    #[test]
    fn malformed_templates_are_reported_with_their_line() {
        let head = "== t\nsituation: x\nquestion: {a} and {b}?\nvars:\n  a = range(1, 5)\n";
        let cases = [
            (format!("{head}answer: a + b\n"), "bad.txt:3: placeholder `{b}` names no variable"),
            (format!("{head}  b = range(5, 1)\nanswer: a\n"), "bad.txt:6: `range(5, 1)` is not a non-empty ascending domain"),
            (format!("{head}  b = pick(nope)\nanswer: a\n"), "bad.txt:6: unknown table `nope`"),
            (format!("{head}  b = range(1, 3)\nwhen:\n  a < c\nanswer: a\n"), "bad.txt:8: unknown variable `c`"),
            (format!("{head}  b = range(1, 3)\n"), "bad.txt:1: missing `answer:`"),
            (format!("{head}  a = range(1, 3)\nanswer: a\n"), "bad.txt:6: variable `a` is declared twice"),
            (format!("{head}  b = pick(\"x\", \"y\")\nanswer: a + b\n"), "bad.txt:7: unknown variable `b`"),
            ("table t: \"a\" = 1, b\n".to_string(), "bad.txt:1: a table mixes numeric and plain items"),
        ];
        for (text, expected) in cases {
            assert_eq!(error_of(&text), expected, "{text}");
        }
    }
}
