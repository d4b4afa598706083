//! The browser app's views: thin Leptos components over engine state. They read signals and dispatch
//! commands; business rules live in `engine`. Pure pieces (routes, form mapping) compile and are tested
//! natively; the components compile only for wasm32.

pub mod form;
pub mod model;
pub mod route;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod common;
#[cfg(target_arch = "wasm32")]
mod pages;
#[cfg(target_arch = "wasm32")]
pub mod state;

#[cfg(target_arch = "wasm32")]
pub use app::App;
