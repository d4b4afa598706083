//! One component per route.

mod about;
mod design;
mod evaluate;
mod generate;
mod results;

pub use about::AboutPage;
pub use design::DesignPage;
pub use evaluate::EvaluatePage;
pub use generate::GeneratePage;
pub use results::ResultsPage;
