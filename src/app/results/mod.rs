//! The Results page's logic: `data` (a results file opened and graded a slice at a time), `transcript` (the
//! list, its search, each sample's transcript and where its chain broke), `charts` (the dashboard's SVG charts),
//! `metrics_tables` (its metrics as tables) and `compare` (runs side by side).

pub mod charts;
pub mod compare;
pub mod data;
pub mod metrics_tables;
pub mod transcript;
