//! One invariant test over every registered task: deterministic for 50 seeds, output kind as declared, the
//! block starts with `Task N:` and names the input and `task_N_out`, the output survives JSON, roles cover the text.

use arbigraph_studio::engine::rng::InstanceRng;
use arbigraph_studio::engine::tasks::registry::builtin;
use arbigraph_studio::engine::tasks::{Family, TaskContext};
use arbigraph_studio::engine::value::{Kind, Number, Value};

fn input_for(kind: Kind, rng: &mut InstanceRng) -> Value {
    match kind {
        Kind::Scalar => Value::int(rng.int_in(-100, 100)),
        Kind::List => Value::List((0..10).map(|_| Number::Int(rng.int_in(-100, 100))).collect()),
    }
}

#[test]
fn every_registered_task_satisfies_the_invariants() {
    let registry = builtin();
    assert!(registry.family(Family::Math).len() == 40, "the 40 math operators are registered");
    assert!(registry.family(Family::Gsm).len() >= 40, "at least 40 word-problem templates");
    let mut checked = 0;
    for task in registry.iter() {
        let info = task.info();
        assert!(!info.input_kinds.is_empty(), "{}: no input kinds", info.key);
        let mut successes = 0;
        for seed in 0..50u64 {
            for &kind in &info.input_kinds {
                let mut draw = InstanceRng::from_seed(seed);
                let input = input_for(kind, &mut draw);
                let number = 1 + (seed as usize % 7);
                let input_name = format!("task_{number}_input");
                let ctx = TaskContext { number, input_name: &input_name, input: &input, output_kind: None };
                let first = task.instantiate(&ctx, &mut InstanceRng::from_seed(seed));
                let second = task.instantiate(&ctx, &mut InstanceRng::from_seed(seed));
                assert_eq!(first, second, "{}: not deterministic for seed {seed}", info.key);
                let Ok(instance) = first else { continue };
                successes += 1;
                assert_eq!(instance.output.kind(), info.output_kind, "{}: output kind", info.key);
                let text = instance.body.text();
                assert!(text.starts_with(&format!("Task {number}:")), "{}: block must start with `Task {number}:`", info.key);
                assert!(text.contains(&format!("task_{number}_out")), "{}: block must name task_{number}_out", info.key);
                assert!(text.contains(&input_name), "{}: block must name its input", info.key);
                let covered: usize = instance.body.spans().iter().map(|(r, _)| r.len()).sum();
                assert_eq!(covered, text.len(), "{}: roles must cover the whole block", info.key);
                assert_eq!(Value::from_json(&instance.output.to_json()).as_ref(), Ok(&instance.output), "{}: JSON round trip", info.key);
            }
        }
        assert!(successes > 0, "{}: never instantiated in 50 seeds", info.key);
        checked += 1;
    }
    assert_eq!(checked, registry.len());
}

#[test]
fn registry_keys_are_unique_and_ids_dense_per_family() {
    let registry = builtin();
    for family in Family::ALL {
        let ids: Vec<u32> = registry.family(family).iter().map(|t| t.info().task_id).collect();
        assert_eq!(ids, (0..ids.len() as u32).collect::<Vec<_>>(), "{family}: task ids are 0..n in order");
    }
    let mut again = arbigraph_studio::engine::tasks::registry::Registry::default();
    let first = registry.iter().next().expect("non-empty registry").clone();
    again.add(first.clone()).expect("first add");
    assert!(again.add(first).is_err(), "a duplicate key is rejected");
}
