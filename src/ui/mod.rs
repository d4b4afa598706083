//! The browser app's views: thin Leptos components over the state in `state`. They read signals and dispatch
//! commands; rules live in `engine` and `crate::app`. Routes compile and are tested natively; the components
//! compile only for wasm32.

pub mod route;

#[cfg(target_arch = "wasm32")]
mod common;
#[cfg(target_arch = "wasm32")]
pub mod pages;
#[cfg(target_arch = "wasm32")]
pub mod shell;
#[cfg(target_arch = "wasm32")]
pub mod state;

#[cfg(target_arch = "wasm32")]
pub use shell::App;
