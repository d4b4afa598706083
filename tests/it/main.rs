//! The fast integration suite, one binary: the engine end to end (tasks, generation, the agent loop, grading,
//! the interpreter against CPython), the command line, and the tidy checks on the source tree. The slow
//! stages (a real local model, fault injection) are separate targets under `tests/stages/`.

#[path = "../support/mod.rs"]
mod support;

mod agent_fuzz;
mod agent_grade_cli;
mod agent_loop;
mod agent_replay;
mod architecture;
mod cli;
mod cli_scale;
mod export_cli;
mod contrast;
mod demo_site;
mod generation;
mod grading_at_scale;
mod image;
mod image_eval;
mod inspect_import_cli;
mod math_reference;
mod packs;
mod providers_cli;
mod python_conformance;
mod python_semantics;
mod shard_cli;
mod site;
mod strategies_cli;
mod strategies_probe;
mod tasks;
