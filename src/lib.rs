//! ArbiGraph Studio: verifiable task-graph benchmarks for the context management of LLM agents.
//!
//! Reading order: `engine` (everything that runs without a browser: tasks, graphs, generation,
//! the agent loop and the grader), `app` (the app's own logic without a browser: jobs, editor and list models),
//! then `web` (browser adapters) and `ui` (thin Leptos components). `web` and the components of `ui` exist only
//! on wasm32; the engine and `app` compile unchanged for both targets.

pub mod engine;

pub mod app;

#[cfg(target_arch = "wasm32")]
pub mod web;

pub mod ui;

