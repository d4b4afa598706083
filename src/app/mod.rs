//! The app's logic without a browser: plain Rust that the components (`ui`) and the browser adapters (`web`)
//! drive, compiled natively and tested with `cargo test`. `form` is the generator's settings as the URL carries
//! them; `jobs` is the long work done in the Web Worker (or in slices on the main thread); `editor` is the
//! designer's canvas editor.

pub mod editor;
pub mod form;
pub mod jobs;
