//! Task-graph rendering to DOT and SVG (being written).
