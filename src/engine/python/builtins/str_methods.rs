//! The methods of strings: `join`, `split`, `strip` (and `lstrip`/`rstrip`), `isdigit`, `isalpha`, `upper`,
//! `lower`, `startswith`/`endswith`, `count`, `find`/`index` and `replace`, with CPython's argument checks.

use std::rc::Rc;

use super::{arity, Qual};
use crate::engine::python::error::ExcClass;
use crate::engine::python::eval::{exc, Interp, Res};
use crate::engine::python::value::PyValue;

/// `str.<name>(...)`.
pub(super) fn str_method(interp: &mut Interp<'_>, s: &Rc<str>, name: &str, qual: Qual<'_>, args: Vec<PyValue>) -> Res<PyValue> {
    let want_str = |v: &PyValue| -> Res<Rc<str>> {
        match v {
            PyValue::Str(x) => Ok(x.clone()),
            other => Err(exc(ExcClass::TypeError, format!("must be str, not {}", other.type_name()))),
        }
    };
    match name {
        "join" => {
            arity(qual, &args, 1, 1)?;
            let items = interp.collect(&args[0])?;
            let mut out = String::new();
            for (i, item) in items.iter().enumerate() {
                let PyValue::Str(part) = item else {
                    return Err(exc(
                        ExcClass::TypeError,
                        format!("sequence item {i}: expected str instance, {} found", item.type_name()),
                    ));
                };
                if i > 0 {
                    out.push_str(s);
                }
                out.push_str(part);
            }
            interp.charge(out.len() as u64 / 8)?;
            Ok(PyValue::str(&out))
        }
        "split" => {
            arity(qual, &args, 0, 1)?;
            let parts: Vec<PyValue> = match args.first().filter(|a| !matches!(a, PyValue::None)) {
                None => s.split_whitespace().map(PyValue::str).collect(),
                Some(sep) => {
                    let sep = want_str(sep)?;
                    if sep.is_empty() {
                        return Err(exc(ExcClass::ValueError, "empty separator"));
                    }
                    s.split(sep.as_ref()).map(PyValue::str).collect()
                }
            };
            interp.charge(parts.len() as u64)?;
            Ok(PyValue::list(parts))
        }
        "strip" | "lstrip" | "rstrip" => {
            arity(qual, &args, 0, 0)?;
            Ok(PyValue::str(match name {
                "strip" => s.trim(),
                "lstrip" => s.trim_start(),
                _ => s.trim_end(),
            }))
        }
        "isdigit" => Ok(PyValue::Bool(!s.is_empty() && s.chars().all(|c| c.is_ascii_digit()))),
        "isalpha" => Ok(PyValue::Bool(!s.is_empty() && s.chars().all(char::is_alphabetic))),
        "upper" => Ok(PyValue::str(&s.to_uppercase())),
        "lower" => Ok(PyValue::str(&s.to_lowercase())),
        "startswith" | "endswith" => {
            arity(qual, &args, 1, 1)?;
            let p = want_str(&args[0])?;
            Ok(PyValue::Bool(if name == "startswith" { s.starts_with(p.as_ref()) } else { s.ends_with(p.as_ref()) }))
        }
        "count" => {
            arity(qual, &args, 1, 1)?;
            let p = want_str(&args[0])?;
            let n = if p.is_empty() { s.chars().count() + 1 } else { s.matches(p.as_ref()).count() };
            Ok(PyValue::Int(n as i64))
        }
        "find" | "index" => {
            arity(qual, &args, 1, 1)?;
            let p = want_str(&args[0])?;
            match s.find(p.as_ref()) {
                Some(byte) => Ok(PyValue::Int(s[..byte].chars().count() as i64)),
                None if name == "find" => Ok(PyValue::Int(-1)),
                None => Err(exc(ExcClass::ValueError, "substring not found")),
            }
        }
        _ => {
            arity(qual, &args, 2, 2)?;
            let (from, to) = (want_str(&args[0])?, want_str(&args[1])?);
            let out = s.replace(from.as_ref(), &to);
            interp.charge(out.len() as u64 / 8)?;
            Ok(PyValue::str(&out))
        }
    }
}
