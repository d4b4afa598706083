//! The gsm task family: our own grade-school word-problem templates, with the chained input bound to one
//! numeric variable of the template (fully seeded).
//!
//! The templates live in `templates/*.txt` (embedded at compile time, parsed once); `template.rs` reads and
//! samples them, `expr.rs` evaluates their conditions and answers exactly. This file binds the chained value,
//! writes the prompt block and exposes one `Task` per template.

pub mod expr;
pub mod rational;
pub mod template;

use std::rc::Rc;
use std::sync::OnceLock;

use self::template::{Assignment, Catalog, Domain, Template};
use super::{Family, Task, TaskContext, TaskError, TaskInfo, TaskInstance};
use crate::engine::adapter::{AdaptError, ScalarAdapter};
use crate::engine::prompt::{Prompt, Role};
use crate::engine::rng::InstanceRng;
use crate::engine::value::{Kind, Number, Value};

/// Attempts per candidate variable before moving to the next one (the reference's budget).
pub const ATTEMPTS_PER_CANDIDATE: u32 = 200;

/// A list input contributes its element at this index (or its last element when shorter).
pub const LIST_ELEMENT_INDEX: usize = 7;

/// The catalogue files, in the order their templates get `task_id`s. Tables may sit in any file.
const SOURCES: &[(&str, &str)] = &[
    ("tables.txt", include_str!("templates/tables.txt")),
    ("shopping.txt", include_str!("templates/shopping.txt")),
    ("kitchen.txt", include_str!("templates/kitchen.txt")),
    ("travel.txt", include_str!("templates/travel.txt")),
    ("money.txt", include_str!("templates/money.txt")),
    ("outdoors.txt", include_str!("templates/outdoors.txt")),
    ("school.txt", include_str!("templates/school.txt")),
    ("workshop.txt", include_str!("templates/workshop.txt")),
];

/// The embedded catalogue, parsed on first use.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        // The catalogue is compiled in, not user input; `tests::the_catalogue_has_enough_well_formed_templates` parses it.
        template::parse_catalog(SOURCES).unwrap_or_else(|e| panic!("embedded gsm catalogue is malformed: {e}"))
    })
}

/// Every task of the family, in `task_id` order (catalogue order).
pub fn all() -> Vec<Rc<dyn Task>> {
    catalog().templates.iter().enumerate().map(|(i, template)| Rc::new(GsmTask::new(i as u32, template)) as Rc<dyn Task>).collect()
}

/// One word-problem template as a task.
pub struct GsmTask {
    info: TaskInfo,
    template: &'static Template,
}

impl GsmTask {
    /// Wraps template number `task_id` of the catalogue.
    pub fn new(task_id: u32, template: &'static Template) -> GsmTask {
        let info = TaskInfo {
            key: format!("gsm.{}", template.slug),
            family: Family::Gsm,
            task_id,
            name: format!("gsm_{}", template.slug),
            input_kinds: vec![Kind::Scalar, Kind::List],
            output_kind: Kind::Scalar,
            description: format!(
                "Word problem ({}): the chained value fills one quantity, the answer is a whole number",
                template.situation
            ),
        };
        GsmTask { info, template }
    }

    /// The template behind the task.
    pub fn template(&self) -> &'static Template {
        self.template
    }
}

impl Task for GsmTask {
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
        let bound = bind(self.template, c, rng)?;
        let n = ctx.number;
        let local = format!("val_{n}");
        let adapter = ScalarAdapter::round_abs_mod_add(bound.add);
        let mut body = Prompt::new();
        body.push(Role::Instruction, &format!("Task {n}:\n"));
        match element {
            None => adapter.describe(&mut body, &local, ctx.input_name),
            Some(index) => {
                body.push(
                    Role::Adapter,
                    &format!("Let {local} be the element at index {index} (counting from 0) of the list {}.\n", ctx.input_name),
                );
                adapter.describe_sentence(&mut body);
            }
        }
        self.template.render(&bound.assignment, Some(bound.slot), &local, &mut body);
        body.push(Role::Instruction, "\nStore the final numerical answer in ");
        body.push(Role::OutputName, &format!("task_{n}_out"));
        body.push(Role::Instruction, ".\n");
        Ok(TaskInstance { body, output: Value::int(bound.assignment.answer), statics: Vec::new(), template_index: Some(self.info.task_id), picture: None })
    }
}

/// The chained value as an integer in `0..=99`: round half away from zero, then `|v| mod 100`.
pub fn chained_integer(raw: Number) -> Result<i64, TaskError> {
    match ScalarAdapter::round_abs_mod_add(0).apply(raw)? {
        Number::Int(c) => Ok(c),
        // `to_int` always yields an integer; a float here would mean the adapter changed.
        Number::Float(_) => Err(TaskError::Compute("the chained value did not round to an integer".into())),
    }
}

/// Moves `c` into a numeric domain: onto the step grid (ties to even), then into the bounds.
pub fn snap(c: i64, domain: &Domain) -> i64 {
    match *domain {
        Domain::Range { lo, hi, step } => {
            let offset = c - lo;
            let mut v = c;
            if step > 1 && offset.rem_euclid(step) != 0 {
                let q = offset.div_euclid(step);
                let r2 = 2 * offset.rem_euclid(step);
                let k = if r2 > step || (r2 == step && q % 2 != 0) { q + 1 } else { q };
                v = lo + k * step;
            }
            v.clamp(lo, hi - 1)
        }
        Domain::Within { lo, hi } => c.clamp(lo, hi),
        Domain::Pick { .. } | Domain::Let(_) => c,
    }
}

/// The outcome of binding: which slot took the chained value, the value it took and the offset shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    /// The variable that took the chained value.
    pub slot: usize,
    /// The value it took (`c` moved into its domain).
    pub value: i64,
    /// `value - c`, the constant the prompt tells the model to add.
    pub add: i64,
    /// The accepted draw.
    pub assignment: Assignment,
}

/// Binds `c` to the first candidate variable that admits an accepted draw within the attempt budget.
pub fn bind(template: &Template, c: i64, rng: &mut InstanceRng) -> Result<Bound, TaskError> {
    let mut attempts = 0;
    for slot in template.candidates() {
        let Some(domain) = template.domain_of(slot) else { continue };
        let value = snap(c, domain);
        for _ in 0..ATTEMPTS_PER_CANDIDATE {
            attempts += 1;
            if let Some(assignment) = template.attempt(rng, Some((slot, value))) {
                return Ok(Bound { slot, value, add: value - c, assignment });
            }
        }
    }
    Err(TaskError::Exhausted { attempts })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::filter::Filter;
    use std::collections::HashSet;

    fn task(slug: &str) -> Rc<dyn Task> {
        all().into_iter().find(|t| t.info().name == format!("gsm_{slug}")).unwrap()
    }

    fn run(task: &dyn Task, number: usize, input: &Value, seed: u64) -> Result<TaskInstance, TaskError> {
        let ctx = TaskContext { number, input_name: "task_1_input", input, output_kind: None };
        task.instantiate(&ctx, &mut InstanceRng::from_seed(seed))
    }

    fn random_input(rng: &mut InstanceRng) -> Value {
        if rng.index(3) == 0 {
            Value::List((0..rng.int_in(1, 10)).map(|_| Number::Int(rng.int_in(-100, 100))).collect())
        } else if rng.index(2) == 0 {
            Value::Scalar(Number::Float(rng.int_in(-20000, 20000) as f64 / 100.0))
        } else {
            Value::int(rng.int_in(-100, 100))
        }
    }

    #[test]
    fn the_catalogue_has_enough_well_formed_templates() {
        let cat = catalog();
        assert!(cat.templates.len() >= 42, "{}", cat.templates.len());
        let slugs: HashSet<_> = cat.templates.iter().map(|t| t.slug.as_str()).collect();
        assert_eq!(slugs.len(), cat.templates.len(), "slugs are unique");
        for t in &cat.templates {
            assert!(!t.candidates().is_empty(), "{}: nothing to bind", t.slug);
            for decl in &t.decls {
                if let Domain::Range { lo, hi, step } = decl.domain {
                    assert_eq!((hi - 1 - lo) % step, 0, "{}: clamping to hi - 1 would leave the grid", t.slug);
                }
                if !matches!(decl.domain, Domain::Let(_)) {
                    for &slot in &decl.slots {
                        assert!(t.question.contains(&template::Segment::Var(slot)), "{}: `{}` never shown", t.slug, t.vars[slot].name);
                    }
                }
            }
        }
    }

    #[test]
    fn every_template_instantiates_for_200_seeds_with_an_integer_answer_of_at_least_2() {
        let mut inputs = InstanceRng::from_seed(42);
        for task in all() {
            for seed in 0..200 {
                let input = random_input(&mut inputs);
                let inst = run(task.as_ref(), 3, &input, seed).unwrap_or_else(|e| panic!("{} seed {seed}: {e}", task.info().key));
                match inst.output {
                    Value::Scalar(Number::Int(answer)) => assert!(answer >= 2, "{}: {answer}", task.info().key),
                    ref other => panic!("{}: {other:?}", task.info().key),
                }
                let text = inst.body.text();
                assert!(text.starts_with("Task 3:\n") && text.ends_with("task_3_out.\n"), "{text}");
                assert!(text.contains("val_3") && !text.contains(['{', '}']), "{text}");
            }
        }
    }

    #[test]
    fn every_chained_value_from_0_to_99_binds_in_every_template() {
        for t in &catalog().templates {
            for c in 0..100 {
                let bound = bind(t, c, &mut InstanceRng::from_seed(c as u64)).unwrap_or_else(|e| panic!("{} c={c}: {e}", t.slug));
                assert_eq!(bound.value - bound.add, c);
                assert!(bound.assignment.answer >= 2, "{} c={c}: {}", t.slug, bound.assignment.answer);
                assert_eq!(bound.assignment.choices[bound.slot], template::Choice::Int(bound.value));
            }
        }
    }

    #[test]
    fn instances_are_deterministic_per_seed_and_vary_across_seeds() {
        for task in all() {
            let mut answers = HashSet::new();
            for seed in 0..50 {
                let input = Value::int(seed as i64 * 7 - 100);
                let a = run(task.as_ref(), 2, &input, seed).unwrap();
                let b = run(task.as_ref(), 2, &input, seed).unwrap();
                assert_eq!(a, b, "{}", task.info().key);
                assert_eq!(a.template_index, Some(task.info().task_id));
                assert!(a.statics.is_empty());
                assert_eq!(Value::from_json(&a.output.to_json()).as_ref(), Ok(&a.output));
                answers.insert(format!("{:?}", a.output));
            }
            assert!(answers.len() >= 4, "{}: only {} distinct answers", task.info().key, answers.len());
        }
    }

    /// Re-derives answers by hand from the shown values for a few templates (independent of the catalogue's expression).
    /// `v` reads an integer variable; `per` reads the `n` of a unit-fraction word ("a third" gives 3).
    #[test]
    fn answers_match_an_independent_recomputation() {
        type Recompute = fn(&dyn Fn(&str) -> i64, &dyn Fn(&str) -> i64) -> i64;
        let cases: [(&str, Recompute); 12] = [
            ("market_change", |v, _| v("cash") - v("bags") * v("bag_price") - v("bread") + v("discount")),
            ("pizza_party", |v, _| {
                let slices = v("guests") * v("slices");
                let pizzas = slices / v("cut") + i64::from(slices % v("cut") != 0);
                pizzas * v("price")
            }),
            ("cycling_tour", |v, _| (0..v("days")).map(|d| v("first") + d * v("more")).sum()),
            ("league_points", |v, _| 3 * v("wins") + (v("games") - v("wins") - v("losses"))),
            ("test_average", |v, _| 4 * v("avg") - v("s1") - v("s2") - v("s3")),
            ("bolt_machine", |v, _| v("rate") * (60 - v("pause")) * v("hours") * v("days")),
            ("fence_posts", |v, _| (2 * v("length") / v("gap") + 2 * v("width") / v("gap")) * v("price")),
            ("bike_savings", |v, _| {
                let (mut have, mut weeks) = (v("saved"), 0);
                while have < v("bike") {
                    have += v("weekly") - v("spend");
                    weeks += 1;
                }
                weeks
            }),
            ("bookstore_percent_off", |v, _| {
                let cost = v("books") * v("price") * (100 - v("pct")) / 100;
                let mut paid = 0;
                while paid < cost {
                    paid += 20;
                }
                paid - cost
            }),
            ("muffin_leftovers", |v, per| {
                let left = v("trays") * v("per_tray") - 12 * v("dozens");
                left - left / per("frac")
            }),
            ("hotel_rooms", |v, _| {
                let people = v("adults") + v("kids");
                let rooms = (1..).find(|r| r * v("beds") >= people).unwrap_or(0);
                rooms * v("rate") * v("nights") + v("adults") * v("breakfast") * v("nights")
            }),
            ("bus_timetable", |v, _| (0..).map(|k| k * v("gap")).find(|&t| t >= v("late")).unwrap_or(0) + v("ride")),
        ];
        for (slug, recompute) in cases {
            let t = catalog().templates.iter().find(|t| t.slug == slug).unwrap();
            let mut rng = InstanceRng::from_seed(11);
            for c in 0..50 {
                let bound = bind(t, c * 2, &mut rng).unwrap();
                let value = |name: &str| match &bound.assignment.choices[t.slot(name).unwrap()] {
                    template::Choice::Int(v) => *v,
                    other => panic!("{slug}.{name}: {other:?}"),
                };
                let per = |name: &str| {
                    let q = bound.assignment.env[t.slot(name).unwrap()].clone().unwrap();
                    assert_eq!(q.numer(), &num_bigint::BigInt::from(1), "{slug}.{name} is a unit fraction");
                    q.denom().try_into().unwrap()
                };
                assert_eq!(bound.assignment.answer, recompute(&value, &per), "{slug} c={}", c * 2);
            }
        }
    }

    #[test]
    fn snapping_moves_onto_the_grid_with_ties_to_even_then_clamps() {
        let range = |lo, hi, step| Domain::Range { lo, hi, step };
        let cases = [
            (14, range(10, 500, 10), 10),
            (15, range(10, 500, 10), 10),
            (25, range(10, 500, 10), 30),
            (35, range(10, 500, 10), 30),
            (36, range(10, 500, 10), 40),
            (0, range(10, 500, 10), 10),
            (99, range(10, 51, 20), 50),
            (99, range(2, 10, 1), 9),
            (1, range(2, 10, 1), 2),
            (7, range(2, 10, 1), 7),
            (5, range(0, 100, 4), 4),
            (6, range(0, 100, 4), 8),
            (10, range(0, 100, 4), 8),
            (0, Domain::Within { lo: 3, hi: 8 }, 3),
            (50, Domain::Within { lo: 3, hi: 8 }, 8),
            (5, Domain::Within { lo: 3, hi: 8 }, 5),
        ];
        for (c, domain, expected) in cases {
            assert_eq!(snap(c, &domain), expected, "{c} into {domain:?}");
        }
    }

    const HAND_MADE: &str = "\
== hand
situation: test
question: {odd} then {any} then {small}.
vars:
  odd = range(1, 100)
  any = numbers_within(1, 200)
  small = range(0, 10)
when:
  odd % 2 == 1
  odd > 10
  any < 100
answer: odd + any + small
";

    #[test]
    fn binding_falls_through_to_the_next_candidate_and_records_the_offset() {
        let cat = template::parse_catalog(&[("hand.txt", HAND_MADE)]).unwrap();
        let t = &cat.templates[0];
        let mut rng = InstanceRng::from_seed(3);
        // 37 is odd: the first candidate takes it unchanged.
        let b = bind(t, 37, &mut rng).unwrap();
        assert_eq!((b.slot, b.value, b.add), (0, 37, 0));
        // 40 is even: `odd` can never hold it, so `any` takes it.
        let b = bind(t, 40, &mut rng).unwrap();
        assert_eq!((b.slot, b.value, b.add), (1, 40, 0));
        // 0 snaps to `odd = 1`, which is too small, and `any` clamps it up to 1 (add 1).
        let b = bind(t, 0, &mut rng).unwrap();
        assert_eq!((b.slot, b.value, b.add), (1, 1, 1));
        let sum: i64 = b
            .assignment
            .choices
            .iter()
            .map(|c| match c {
                template::Choice::Int(v) => *v,
                _ => 0,
            })
            .sum();
        assert_eq!(b.assignment.answer, sum);
    }

    #[test]
    fn binding_reports_exhaustion_when_no_candidate_works() {
        let text = HAND_MADE.replace("  any < 100\n", "  any < 0\n");
        let cat = template::parse_catalog(&[("hand.txt", text.as_str())]).unwrap();
        let err = bind(&cat.templates[0], 12, &mut InstanceRng::from_seed(0)).unwrap_err();
        assert_eq!(err, TaskError::Exhausted { attempts: 3 * ATTEMPTS_PER_CANDIDATE });
    }

    #[test]
    fn scalar_prompt_spells_out_rounding_modulo_and_offset() {
        // The spec's example: raw -14 into a variable on the grid 10, 20, ... gives 14, snapped to 10, "add -4".
        let cat = template::parse_catalog(&[(
            "t.txt",
            "== t\nsituation: s\nquestion: {x} and {y}?\nvars:\n  x = range(10, 491, 10)\n  y = range(2, 5)\nanswer: x + y\n",
        )])
        .unwrap();
        let b = bind(&cat.templates[0], chained_integer(Number::Int(-14)).unwrap(), &mut InstanceRng::from_seed(0)).unwrap();
        assert_eq!((b.value, b.add), (10, -4));
        let inst = run(task("market_change").as_ref(), 4, &Value::Scalar(Number::Float(-12.5)), 1).unwrap();
        let text = inst.body.text();
        assert!(text.starts_with("Task 4:\nLet val_4 be task_1_input preprocessed as follows: round it"), "{text}");
        // -12.5 rounds to -13, |-13| mod 100 = 13, and `cash` lives in 20..=100, so the offset is +7.
        assert!(text.contains("; then add 7 to it.\n"), "{text}");
        assert!(text.contains("takes val_4 dollars"), "{text}");
        assert!(text.ends_with("\nStore the final numerical answer in task_4_out.\n"), "{text}");
    }

    #[test]
    fn list_inputs_use_the_eighth_element_or_the_last() {
        let long = Value::ints(&[1, 2, 3, 4, 5, 6, 7, 55, 9, 10]);
        let inst = run(task("cycling_tour").as_ref(), 2, &long, 5).unwrap();
        let text = inst.body.text();
        assert!(text.contains("Let val_2 be the element at index 7 (counting from 0) of the list task_1_input.\nRound it"), "{text}");
        assert!(!text.contains("add "), "55 lies in the domain of `first`, so no offset: {text}");
        let short = Value::ints(&[3, -105]);
        let text = run(task("cycling_tour").as_ref(), 2, &short, 5).unwrap().body.text().to_string();
        assert!(text.contains("at index 1 (counting from 0)") && text.contains("; then add 5 to it.\n"), "{text}");
        assert_eq!(run(task("cycling_tour").as_ref(), 2, &Value::ints(&[]), 5), Err(TaskError::Adapt(AdaptError::EmptyList)));
        let nan = Value::Scalar(Number::Float(f64::NAN));
        assert_eq!(run(task("cycling_tour").as_ref(), 2, &nan, 5), Err(TaskError::Adapt(AdaptError::NotFinite)));
    }

    #[test]
    fn prompt_roles_mark_the_bound_name_values_and_output() {
        let inst = run(task("concert_tickets").as_ref(), 1, &Value::int(40), 9).unwrap();
        let pieces: Vec<_> = inst.body.pieces().collect();
        assert_eq!(pieces[0], (Role::Instruction, "Task 1:\n"));
        assert!(pieces.iter().any(|&(r, t)| r == Role::Adapter && t == "val_1"));
        assert!(pieces.iter().any(|&(r, t)| r == Role::OutputName && t == "task_1_out"));
        assert!(pieces.iter().filter(|(r, _)| *r == Role::InputValue).all(|(_, t)| t.parse::<i64>().is_ok()));
        assert!(pieces.iter().any(|&(r, t)| r == Role::Computation && t.contains("outdoor concert")));
    }

    #[test]
    fn task_metadata_follows_the_family_conventions() {
        let tasks = all();
        for (i, task) in tasks.iter().enumerate() {
            let info = task.info();
            assert_eq!(info.task_id, i as u32);
            assert_eq!(info.key, format!("gsm.{}", &info.name["gsm_".len()..]));
            assert_eq!(info.input_kinds, vec![Kind::Scalar, Kind::List]);
            assert_eq!((info.family, info.output_kind), (Family::Gsm, Kind::Scalar));
        }
        let mut registry = crate::engine::tasks::registry::Registry::default();
        for task in tasks {
            registry.add(task).unwrap();
        }
    }

    #[test]
    fn the_template_list_in_the_docs_matches_the_catalogue() {
        let docs = include_str!("../../../../docs/GSM_TEMPLATES.md");
        for (i, t) in catalog().templates.iter().enumerate() {
            let bindable: Vec<String> = t.candidates().iter().map(|&s| format!("`{}`", t.vars[s].name)).collect();
            let row = format!("| {i} | `{}` | {} | {} |", t.slug, t.situation, bindable.join(", "));
            assert!(docs.lines().any(|line| line == row), "docs/GSM_TEMPLATES.md lacks the row {row}");
        }
    }

    #[test]
    fn most_instances_pass_the_gsm_chain_filter() {
        let mut rejected = 0;
        for task in all() {
            for seed in 0..20 {
                let input = Value::int(seed);
                let inst = run(task.as_ref(), 2, &input, seed as u64).unwrap();
                rejected += usize::from(!Filter::Gsm.accepts(&inst.output, &input));
            }
        }
        assert!(rejected * 20 < all().len() * 20, "{rejected} rejected");
    }
}
