//! Fuzzes the word-problem template language: no panic on any catalogue text; a template that parses samples
//! draws whose values lie in their declared domains and whose answer is what the answer expression says, and
//! binding a chained value puts it inside the bound variable's bounds.
#![no_main]

use arbigraph_studio::engine::rng::InstanceRng;
use arbigraph_studio::engine::tasks::gsm::expr::as_integer;
use arbigraph_studio::engine::tasks::gsm::template::{parse_catalog, Assignment, Choice, Domain, Template};
use arbigraph_studio::engine::tasks::gsm::{bind, snap};
use libfuzzer_sys::fuzz_target;
use num_bigint::BigInt;

/// `bound` is the slot that took a chained value: the spec clamps that value into `[lo, hi - 1]` after snapping
/// it to the step grid, so it may sit off the grid.
fn check_draw(template: &Template, draw: &Assignment, bound: Option<usize>) {
    assert_eq!(draw.choices.len(), template.vars.len());
    for decl in &template.decls {
        for &slot in &decl.slots {
            match (&decl.domain, &draw.choices[slot]) {
                (Domain::Range { lo, hi, step }, Choice::Int(v)) => {
                    assert!(lo <= v && v < hi && (Some(slot) == bound || (v - lo) % step == 0), "{v} outside range({lo}, {hi}, {step})");
                }
                (Domain::Within { lo, hi }, Choice::Int(v)) => assert!(lo <= v && v <= hi, "{v} outside {lo}..={hi}"),
                (Domain::Pick { items, .. }, Choice::Item(i)) => assert!(*i < items.len()),
                (Domain::Let(_), Choice::Derived(_)) => {}
                (domain, choice) => panic!("slot {slot} took {choice:?} from {domain:?}"),
            }
        }
    }
    let answer = template.answer.eval(&draw.env).ok().as_ref().and_then(as_integer);
    assert_eq!(answer, Some(BigInt::from(draw.answer)), "the answer is the answer expression's value");
    let _ = template.render_text(draw);
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(catalog) = parse_catalog(&[("fuzz.txt", text)]) else { return };
    let mut rng = InstanceRng::from_seed(data.len() as u64);
    for template in catalog.templates.iter().take(3) {
        for _ in 0..8 {
            if let Some(draw) = template.attempt(&mut rng, None) {
                check_draw(template, &draw, None);
                break;
            }
        }
        for slot in template.candidates().into_iter().take(4) {
            if let Some(domain) = template.domain_of(slot) {
                for c in [0, 37, 99] {
                    let v = snap(c, domain);
                    match *domain {
                        Domain::Range { lo, hi, .. } => assert!(lo <= v && v < hi, "{c} snapped to {v} outside {domain:?}"),
                        Domain::Within { lo, hi } => assert!(lo <= v && v <= hi, "{c} snapped to {v} outside {domain:?}"),
                        _ => {}
                    }
                }
            }
        }
        if let Ok(bound) = bind(template, 42, &mut rng) {
            check_draw(template, &bound.assignment, Some(bound.slot));
            assert_eq!(bound.value - 42, bound.add);
        }
    }
});
