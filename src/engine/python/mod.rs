//! python (being written).
