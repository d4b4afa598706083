//! The app's logic without a browser: plain Rust that the components (`ui`) and the browser adapters (`web`)
//! drive, compiled natively and tested with `cargo test`. `form` is the generator's settings as the URL carries
//! them; `jobs` is the long work done in the Web Worker (or in slices on the main thread); `partial_run` is an
//! unfinished run's results file and the note that says so; `stored_run` is what the run store keeps to resume a run; `endpoint_check`
//! explains what the endpoint check found, with fixes; `charts` draws the dashboard's charts as SVG; `live` is
//! a running run's progress line.

pub mod charts;
pub mod endpoint_check;
pub mod form;
pub mod jobs;
pub mod live;
pub mod partial_run;
pub mod stored_run;
