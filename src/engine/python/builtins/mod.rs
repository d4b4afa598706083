//! Builtin functions (`len`, `range`, `max`, `sorted`, ...) and the methods of lists, dicts, sets, strings and
//! tuples, with CPython's argument rules and exception classes.
//!
//! This file dispatches and holds the argument rules they all share: a builtin goes to its function in
//! `functions` or, for the conversions (`int`, `float`, `str`, `list`, `set`, `dict`, ...), in `convert`; a
//! method goes to its receiver type's function in `methods` (strings: `str_methods`). The names alone live in
//! `python::builtin_names`, so the syntax tree and the values can name a builtin without reaching this code.

mod convert;
mod functions;
mod methods;
mod str_methods;

use std::rc::Rc;

pub use methods::has_method;
pub use super::builtin_names::Builtin;

use super::error::ExcClass;
use super::eval::{exc, Interp, Res};
use super::value::PyValue;

impl Interp<'_> {
    /// Calls a builtin function.
    #[inline(never)]
    pub(crate) fn call_builtin(&mut self, b: Builtin, args: Vec<PyValue>, kwargs: Vec<(String, PyValue)>) -> Res<PyValue> {
        if !takes_keywords(b) {
            no_kwargs(b.name(), &kwargs)?;
        }
        match b {
            Builtin::Len => functions::len(&args),
            Builtin::Range => functions::range(&args),
            Builtin::Max => functions::min_max(self, "max", args, kwargs, true),
            Builtin::Min => functions::min_max(self, "min", args, kwargs, false),
            Builtin::Sum => functions::sum(self, args, kwargs),
            Builtin::Sorted => functions::sorted(self, &args, kwargs),
            Builtin::Enumerate => functions::enumerate(self, args, kwargs),
            Builtin::Zip => functions::zip(self, &args),
            Builtin::Abs => functions::abs(&args),
            Builtin::Any | Builtin::All => functions::any_all(self, b, &args),
            Builtin::Reversed => functions::reversed(self, &args),
            Builtin::Divmod => functions::divmod(self, &args),
            Builtin::Pow => functions::pow(self, &args),
            Builtin::Map => functions::map(self, args),
            Builtin::Filter => functions::filter(self, &args),
            Builtin::Iter => functions::iter(self, &args),
            Builtin::Next => functions::next(self, &args),
            Builtin::Print => Ok(PyValue::None),
            Builtin::Round => functions::round(&args),
            Builtin::Chr => functions::chr(&args),
            Builtin::Ord => functions::ord(&args),
            Builtin::Bin | Builtin::Hex => functions::bin_hex(b, &args),
            Builtin::Int => convert::to_int(&args, kwargs),
            Builtin::Float => convert::to_float(&args),
            Builtin::Str => convert::to_str(self, &args),
            Builtin::Bool => convert::to_bool(&args),
            Builtin::List | Builtin::Tuple => convert::to_list_or_tuple(self, b, &args),
            Builtin::Set => convert::to_set(self, &args),
            Builtin::Dict => convert::to_dict(self, &args, kwargs),
        }
    }

    /// Calls `obj.name(*args, **kwargs)`.
    #[inline(never)]
    pub(crate) fn call_method(&mut self, obj: &PyValue, name: &str, args: Vec<PyValue>, kwargs: Vec<(String, PyValue)>) -> Res<PyValue> {
        if !has_method(obj, name) {
            return Err(no_attribute(obj, name));
        }
        let qual = Qual(obj.type_name(), name);
        if !(matches!(obj, PyValue::List(_)) && name == "sort") {
            no_kwargs(qual, &kwargs)?;
        }
        match obj {
            PyValue::List(l) => methods::list_method(self, l, name, qual, args, kwargs),
            PyValue::Dict(d) => methods::dict_method(self, d, name, qual, args),
            PyValue::Set(s) => methods::set_method(self, s, name, qual, args),
            PyValue::Str(s) => str_methods::str_method(self, s, name, qual, args),
            PyValue::Tuple(t) => methods::tuple_method(t, name, qual, &args),
            _ => Err(no_attribute(obj, name)),
        }
    }

    /// `obj.name` used as a value: the method bound to its receiver (`a.append`), or AttributeError.
    pub(crate) fn attribute(&self, obj: PyValue, name: &str) -> Res<PyValue> {
        if !has_method(&obj, name) {
            return Err(no_attribute(&obj, name));
        }
        Ok(PyValue::Method(Rc::new((obj, name.to_string()))))
    }
}

/// True for the builtins that read keyword arguments themselves (`sorted(key=...)`, `int(base=...)`, `dict(a=1)`,
/// `print(end='')`, ...); every other builtin refuses any keyword.
fn takes_keywords(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::Max | Builtin::Min | Builtin::Sorted | Builtin::Sum | Builtin::Enumerate | Builtin::Print | Builtin::Dict | Builtin::Int
    )
}

fn no_attribute(obj: &PyValue, name: &str) -> super::error::RunError {
    exc(ExcClass::AttributeError, format!("'{}' object has no attribute '{name}'", obj.type_name()))
}

fn arity(name: impl std::fmt::Display, args: &[PyValue], min: usize, max: usize) -> Res<()> {
    if args.len() < min || args.len() > max {
        let expected = if min == max {
            format!("exactly {min}")
        } else if args.len() < min {
            format!("at least {min}")
        } else {
            format!("at most {max}")
        };
        return Err(exc(
            ExcClass::TypeError,
            format!("{name}() takes {expected} argument{} ({} given)", if max == 1 { "" } else { "s" }, args.len()),
        ));
    }
    Ok(())
}

/// `type.method`, formatted only when an error message needs it.
#[derive(Clone, Copy)]
struct Qual<'a>(&'static str, &'a str);

impl std::fmt::Display for Qual<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

fn take_kw(kwargs: &mut Vec<(String, PyValue)>, name: &str) -> Option<PyValue> {
    let i = kwargs.iter().position(|(k, _)| k == name)?;
    Some(kwargs.remove(i).1)
}

fn no_kwargs(fname: impl std::fmt::Display, kwargs: &[(String, PyValue)]) -> Res<()> {
    match kwargs.first() {
        Some((k, _)) => Err(exc(ExcClass::TypeError, format!("'{k}' is an invalid keyword argument for {fname}()"))),
        None => Ok(()),
    }
}

fn to_index(v: &PyValue) -> Res<i64> {
    match v {
        PyValue::Big(_) => Err(exc(ExcClass::OverflowError, "Python int too large to convert to C ssize_t")),
        other => other
            .as_i64()
            .ok_or_else(|| exc(ExcClass::TypeError, format!("'{}' object cannot be interpreted as an integer", other.type_name()))),
    }
}
