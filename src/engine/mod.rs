//! Everything that runs without a browser: values, adapters, tasks, task graphs, generation, prompts, the
//! agent loop, grading and the file formats.
//!
//! The pipeline, in reading order: a topology or a custom `graph` is validated, `generate` instantiates its
//! `tasks` with seeded randomness into instances (prompt + ground truths), `dataset` writes and reads them in
//! the reference's JSON, the sans-IO `agent` loop turns an instance into a transcript, and `grade` scores it.
//! Nothing here does IO, reads a clock, or imports a web crate (`tests/it/architecture.rs` enforces this), so the
//! same code runs natively under `cargo test` and in the browser.

pub mod adapter;
pub mod agent;
pub mod calculator;
pub mod dataset;
pub mod filter;
pub mod generate;
pub mod grade;
pub mod graph;
pub mod literal;
pub mod prompt;
pub mod python;
pub mod render;
pub mod results;
pub mod run;
pub mod rng;
pub mod sort;
pub mod tasks;
pub mod value;
