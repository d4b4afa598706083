//! graph (being written).
