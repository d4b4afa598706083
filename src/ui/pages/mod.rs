//! One component per route.

mod about;
mod browse;
mod design;
mod evaluate;
mod generate;
mod results;

pub use about::AboutPage;
pub use browse::BrowsePage;
pub use design::DesignPage;
pub use evaluate::EvaluatePage;
pub use generate::GeneratePage;
pub use results::ResultsPage;
