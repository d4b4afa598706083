//! The members of a dataset object, described once and handed to one of three sinks: a serde_json tree
//! (`to_json`), the reference's pretty text written as it goes (`write_json`), or compact text (a sample the
//! browser stores). All walk the same description, so no writer can drift from the tree: only how a member is
//! stored differs.

use serde_json::{Map, Value as Json};

use super::pretty::PrettyWriter;
use crate::engine::graph::{write_json_escaped, write_json_string};
use crate::engine::generate::GenerateError;

/// Takes one item of a list, or refuses it with the writer's error.
pub(crate) type Take<'a, T> = dyn FnMut(T) -> Result<(), GenerateError> + 'a;

/// Takes one piece of text (a piece of a string, or a whole string item), or refuses it with the writer's error.
pub(crate) type Pieces<'a> = dyn FnMut(&str) -> Result<(), GenerateError> + 'a;

/// Where the members of an object go, in file order.
pub(crate) trait Members {
    /// A member whose value is small: a scalar, a flat list or a small object.
    fn value(&mut self, key: &str, value: Json) -> Result<(), GenerateError>;
    /// A string member that `write` gives in pieces (a prompt).
    fn text(&mut self, key: &str, write: &mut dyn FnMut(&mut Pieces<'_>) -> Result<(), GenerateError>) -> Result<(), GenerateError>;
    /// An object member whose members `fill` gives.
    fn object(&mut self, key: &str, fill: &mut dyn FnMut(&mut dyn Members) -> Result<(), GenerateError>) -> Result<(), GenerateError>;
    /// A list member whose items (objects or lists, never scalars) `fill` gives one at a time.
    fn list(&mut self, key: &str, fill: &mut dyn FnMut(&mut Take<'_, Json>) -> Result<(), GenerateError>) -> Result<(), GenerateError>;
    /// A list of strings that `fill` gives one at a time (a custom graph's million node ids).
    fn strings(&mut self, key: &str, fill: &mut dyn FnMut(&mut Pieces<'_>) -> Result<(), GenerateError>) -> Result<(), GenerateError>;
}

/// Members gathered into a serde_json object.
#[derive(Default)]
pub(crate) struct Tree(Map<String, Json>);

impl Tree {
    /// The object built so far.
    pub(crate) fn into_json(self) -> Json {
        Json::Object(self.0)
    }

    /// The object `fill` makes; a tree takes every member, so only `fill`'s own errors can stop it.
    pub(crate) fn of(fill: impl FnOnce(&mut Tree) -> Result<(), GenerateError>) -> Result<Json, GenerateError> {
        let mut tree = Tree::default();
        fill(&mut tree)?;
        Ok(tree.into_json())
    }
}

impl Members for Tree {
    fn value(&mut self, key: &str, value: Json) -> Result<(), GenerateError> {
        self.0.insert(key.into(), value);
        Ok(())
    }

    fn text(&mut self, key: &str, write: &mut dyn FnMut(&mut Pieces<'_>) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        let mut text = String::new();
        write(&mut |piece| {
            text.push_str(piece);
            Ok(())
        })?;
        self.value(key, Json::String(text))
    }

    fn object(&mut self, key: &str, fill: &mut dyn FnMut(&mut dyn Members) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        let object = Tree::of(|tree| fill(tree))?;
        self.value(key, object)
    }

    fn list(&mut self, key: &str, fill: &mut dyn FnMut(&mut Take<'_, Json>) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        let items = gather(|push| fill(push))?;
        self.value(key, Json::Array(items))
    }

    fn strings(&mut self, key: &str, fill: &mut dyn FnMut(&mut Pieces<'_>) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        self.list(key, &mut |push| fill(&mut |item| push(Json::String(item.into()))))
    }
}

/// Members written as compact JSON text, byte for byte what `serde_json` writes for the tree `Tree` would build
/// (a stored sample's record): no tree is built, and one top-level string member (`aside`, the prompt) is kept
/// apart instead of written.
pub(crate) struct Compact {
    text: String,
    /// Whether the open object or list has no member yet.
    first: bool,
    /// Depth of the open object: 0 is the record itself.
    depth: usize,
    aside_key: &'static str,
    aside: String,
}

impl Compact {
    /// An open record whose top-level text member `aside_key` is kept apart.
    pub(crate) fn without(aside_key: &'static str) -> Compact {
        Compact { text: String::from("{"), first: true, depth: 0, aside_key, aside: String::new() }
    }

    /// The record's text, closed, and the member kept apart (empty when there was none).
    pub(crate) fn finish(mut self) -> (String, String) {
        self.text.push('}');
        (self.text, self.aside)
    }

    fn key(&mut self, key: &str) {
        if !std::mem::replace(&mut self.first, false) {
            self.text.push(',');
        }
        write_json_string(&mut self.text, key).expect("a string takes every piece");
        self.text.push(':');
    }

    fn json(&mut self, value: &Json) {
        use std::fmt::Write;
        write!(self.text, "{value}").expect("a string takes every piece");
    }
}

impl Members for Compact {
    fn value(&mut self, key: &str, value: Json) -> Result<(), GenerateError> {
        self.key(key);
        self.json(&value);
        Ok(())
    }

    fn text(&mut self, key: &str, write: &mut dyn FnMut(&mut Pieces<'_>) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        if self.depth == 0 && key == self.aside_key {
            let mut aside = std::mem::take(&mut self.aside);
            write(&mut |piece| {
                aside.push_str(piece);
                Ok(())
            })?;
            self.aside = aside;
            return Ok(());
        }
        self.key(key);
        self.text.push('"');
        write(&mut |piece| {
            write_json_escaped(&mut self.text, piece).expect("a string takes every piece");
            Ok(())
        })?;
        self.text.push('"');
        Ok(())
    }

    fn object(&mut self, key: &str, fill: &mut dyn FnMut(&mut dyn Members) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        self.key(key);
        self.text.push('{');
        self.first = true;
        self.depth += 1;
        fill(self)?;
        self.depth -= 1;
        self.first = false;
        self.text.push('}');
        Ok(())
    }

    fn list(&mut self, key: &str, fill: &mut dyn FnMut(&mut Take<'_, Json>) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        self.key(key);
        self.text.push('[');
        let mut first = true;
        fill(&mut |item| {
            if !std::mem::replace(&mut first, false) {
                self.text.push(',');
            }
            self.json(&item);
            Ok(())
        })?;
        self.text.push(']');
        Ok(())
    }

    /// As the tree does: a record holds no long list of strings (only a custom graph's summary does).
    fn strings(&mut self, key: &str, fill: &mut dyn FnMut(&mut Pieces<'_>) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        self.list(key, &mut |push| fill(&mut |item| push(Json::String(item.into()))))
    }
}

/// Members written as text into the object the writer has open.
impl Members for PrettyWriter<'_> {
    fn value(&mut self, key: &str, value: Json) -> Result<(), GenerateError> {
        self.key(key);
        self.json(&value);
        self.spill()
    }

    fn text(&mut self, key: &str, write: &mut dyn FnMut(&mut Pieces<'_>) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        self.key(key);
        self.push("\"");
        write(&mut |piece| {
            self.push_escaped(piece);
            self.spill()
        })?;
        self.push("\"");
        self.spill()
    }

    fn object(&mut self, key: &str, fill: &mut dyn FnMut(&mut dyn Members) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        self.key(key);
        self.begin('{');
        fill(self)?;
        self.end('}');
        self.spill()
    }

    fn list(&mut self, key: &str, fill: &mut dyn FnMut(&mut Take<'_, Json>) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        self.key(key);
        self.begin('[');
        fill(&mut |item| {
            self.item();
            self.json(&item);
            self.spill()
        })?;
        self.end(']');
        self.spill()
    }

    /// On one line, as the tree's flat lists are.
    fn strings(&mut self, key: &str, fill: &mut dyn FnMut(&mut Pieces<'_>) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        self.key(key);
        self.push("[");
        let mut first = true;
        fill(&mut |item| {
            if !first {
                self.push(", ");
            }
            first = false;
            self.push_string(item);
            self.spill()
        })?;
        self.push("]");
        self.spill()
    }
}

/// Everything `fill` gives, in order.
fn gather<T>(fill: impl FnOnce(&mut Take<'_, T>) -> Result<(), GenerateError>) -> Result<Vec<T>, GenerateError> {
    let mut items = Vec::new();
    fill(&mut |item| {
        items.push(item);
        Ok(())
    })?;
    Ok(items)
}
