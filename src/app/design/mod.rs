//! The designer's editor without a browser: the model (graph, selection, history, viewport, gesture and
//! notices) and one file per concept it is built from. The Leptos canvas only draws what `draw` makes of
//! the model and forwards pointer, wheel and key events to it; everything here is tested natively.
//!
//! - `model`: `EditorModel`, the one entry point of the page's events and commands;
//! - `gesture`: the pointer state machine (press, pan, move, connect, box-select, place, pinch);
//! - `hit`: what lies under a point; `geometry`: boxes, ports and edge curves; `viewport`: screen and world;
//! - `history`: undo and redo with coalescing; `clipboard`: copy and paste as node-link JSON;
//! - `tidy`: layered placement; `presets`: graphs to start from; `share`: graphs in links;
//! - `import`: opening files; `lod`: what to draw of a big graph; `draw`: the SVG markup of the canvas;
//! - `access`: keyboard alternatives to drags (focus geometry, the connect list, announced sentences);
//! - `keys`: shortcuts; `catalog`: the registry's tasks as the inspector lists them; `recent`: saved graphs;
//! - `pictures`: the picture parameters of the graph's image tasks, as the inspector edits them.

pub mod access;
pub mod catalog;
pub mod clipboard;
pub mod draw;
pub mod geometry;
pub mod gesture;
pub mod history;
pub mod hit;
pub mod import;
pub mod keys;
pub mod lod;
pub mod model;
pub mod outline;
pub mod pictures;
pub mod presets;
pub mod recent;
pub mod share;
pub mod tidy;
pub mod viewport;

pub use model::{Changes, ConnectMenu, EditorModel, KeyOutcome, Notice, NoticeLevel};
