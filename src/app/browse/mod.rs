//! The Browse page's logic: `catalog` (rows, filters, sorting, search over the samples held), `url` (the
//! page's address: dataset, filters, open instance), `link` (deep links to one sample) and `demo` (the
//! datasets a page opens with when no site index is beside it).

pub mod catalog;
pub mod demo;
pub mod link;
pub mod url;
