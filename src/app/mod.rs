//! The app's logic without a browser: plain Rust that the components (`ui`) and the browser adapters (`web`)
//! drive, compiled natively and tested with `cargo test`. One folder per page, like `ui::pages`, and beside
//! them what several pages share:
//! - `design`: the canvas editor (model, gestures, keyboard, presets, outline).
//! - `browse`: the instance list and its filters, deep links, the page's address, the demo datasets.
//! - `evaluate`: where the samples come from, run settings, the endpoint check, the estimate and budget, the
//!   strategy form and the lab, a run's board, progress line and stored form.
//! - `results`: a results file opened and graded in slices, transcripts and where a chain broke, the charts,
//!   runs compared.
//! - Shared: `jobs` (long work in the Web Worker, or in slices on the main thread: generation, opening files,
//!   queries), `store` (the samples a runner holds), `instance` (one sample as Browse and Results show it),
//!   `list_window` (the virtualised lists of Browse and Results) and `hash` (the page's address).
//!
//! No two folders import each other (the tidy test finds import circles); a page in `ui` may read another
//! page's folder for plain data (Evaluate's run list grades files with `results::data`; Results marks an
//! unfinished run with `evaluate::partial_run`). Generation logic itself is the engine's
//! (`engine::generate::{form, plan}`).

pub mod browse;
pub mod design;
pub mod evaluate;
pub mod hash;
pub mod instance;
pub mod jobs;
pub mod list_window;
pub mod results;
pub mod store;
