//! The app's logic without a browser: plain Rust the components drive and `cargo test` checks natively.
//! `jobs` is the long work done in the Web Worker (or in slices on the main thread).

pub mod jobs;
