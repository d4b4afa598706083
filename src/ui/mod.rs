//! Leptos components of the browser app: thin views over engine state. They read signals and dispatch
//! commands; business rules live in `engine`.

mod app;
mod pages;
pub mod route;

pub use app::App;
