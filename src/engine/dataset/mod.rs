//! dataset (being written).
