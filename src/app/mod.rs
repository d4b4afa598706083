//! The app's logic without a browser: plain Rust that the components (`ui`) and the browser adapters (`web`)
//! drive, compiled natively and tested with `cargo test`. `form` is the generator's settings as the URL carries
//! them and `plan` what one Generate click makes; `jobs` is the long work done in the Web Worker (or in slices
//! on the main thread) over the samples of `store`; `catalog` (rows, filters, sorting, search), `list_window`
//! (the virtualised list), `instance` and `roles` (what the instance view shows), `drawing` (its graph, with
//! levels of detail) and `link` (deep links) and `browse_url` (the page's address: dataset, filters, open instance) are the instance browser's rules. For Evaluate and Results:
//! `partial_run` (an unfinished run's results file and the note that says so), `stored_run` (what the run store
//! keeps to resume a run), `endpoint_check` (what the endpoint check found, with fixes), `charts` (the
//! dashboard's charts as SVG), `compare` (runs side by side), `live` (a running run's progress line), `run_board` (a run's rows, its
//! queue of samples for concurrent lanes, "retry failed" and the run list),
//! `run_settings` (endpoint presets, temperature, limits and extra headers), `estimate` (a run's tokens and
//! cost before it starts, and the budget that stops it), `strategy_form` (the strategy and
//! its parameters) and `transcript` (a results file sample by sample: the list, its filters and search, each
//! sample's transcript and where its chain broke). `editor` is the
//! designer's canvas editor.

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
pub mod form;
pub mod instance;
pub mod jobs;
pub mod link;
pub mod list_window;
pub mod live;
pub mod partial_run;
pub mod plan;
pub mod roles;
pub mod run_board;
pub mod results_data;
pub mod run_settings;
pub mod split;
pub mod store;
pub mod stored_run;
pub mod strategy_form;
pub mod transcript;
