//! generate (being written).
