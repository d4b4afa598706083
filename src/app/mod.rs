//! The app's logic without a browser: plain Rust that the components (`ui`) and the browser adapters (`web`)
//! drive, compiled natively and tested with `cargo test`. By page:
//! - Design: `editor` (the canvas editor: model, gestures, keyboard, presets, outline).
//! - Generate and Browse: `jobs` (long work in the Web Worker, or in slices on the main thread) over the samples
//!   of `store`; `catalog` (rows, filters, sorting, search), `list_window` (the virtualised list), `instance`
//!   and `roles` (what the instance view shows), `drawing` (its graph, with levels of detail), `link` (deep
//!   links) and `browse_url` (the page's address: dataset, filters, open instance).
//! - Evaluate: `eval_source` (where the samples come from), `run_settings` (endpoint presets, temperature,
//!   limits, headers), `endpoint_check` (what the check found, with fixes), `estimate` (tokens and cost before a
//!   run, and the budget that stops it), `strategy_form` (the strategy and its parameters), `lab` (several
//!   strategies on the same samples), `run_board` (a run's rows, its queue, "retry failed", the run list),
//!   `live` (a running run's progress line), `stored_run` (what the run store keeps to resume a run) and
//!   `partial_run` (an unfinished run's results file and its note).
//! - Results: `results_data` (a file opened and graded a slice at a time), `transcript` (the list, its search,
//!   each sample's transcript and where its chain broke), `charts` (the dashboard's SVG charts) and `compare`
//!   (runs side by side).
//! - Every page: `hash` (the page's address).
//!
//! The generator's settings and what one Generate click makes are generation logic, in
//! `engine::generate::{form, plan}`.

pub mod browse_url;
pub mod catalog;
pub mod charts;
pub mod compare;
pub mod demo;
pub mod drawing;
pub mod editor;
pub mod endpoint_check;
pub mod estimate;
pub mod eval_source;
pub mod hash;
pub mod instance;
pub mod jobs;
pub mod lab;
pub mod link;
pub mod list_window;
pub mod live;
pub mod partial_run;
pub mod roles;
pub mod run_board;
pub mod results_data;
pub mod run_settings;
pub mod split;
pub mod store;
pub mod stored_run;
pub mod strategy_form;
pub mod transcript;
