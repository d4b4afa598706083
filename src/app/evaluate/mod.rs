//! The Evaluate page's logic: `source` (where the samples come from), `settings` (endpoint presets,
//! temperature, limits, headers), `check` (what the endpoint check found, with fixes), `estimate` (tokens and
//! cost before a run, and the budget that stops it), `strategy_form` (the strategy and its parameters), `lab`
//! (several strategies on the same samples), `board` (a run's rows, its queue, "retry failed", the run list),
//! `live` (a running run's progress line), `stored_run` (what the run store keeps to resume a run) and
//! `partial_run` (an unfinished run's results file and its note). The run itself is the engine's
//! (`engine::run`).

pub mod board;
pub mod check;
pub mod estimate;
pub mod lab;
pub mod live;
pub mod partial_run;
pub mod settings;
pub mod source;
pub mod stored_run;
pub mod strategy_form;
