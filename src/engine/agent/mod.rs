//! agent (being written).
