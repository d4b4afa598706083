//! Python literal syntax (the part of `ast.literal_eval` the grader depends on): numbers, lists, tuples, booleans.
//!
//! Only numbers and sequences of numbers can ever equal a ground truth, so strings, dicts, sets and complex
//! numbers are recognised just far enough to be parsed and reported as [`Literal::Other`]. Everything that
//! `literal_eval` rejects (names, calls, arithmetic such as `2**5` or `1/3`, LaTeX) is a [`LiteralError`].

use num_bigint::BigInt;
use num_traits::{Num, ToPrimitive};

/// A parsed Python literal, or a ground truth read from JSON.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// An exact integer.
    Int(BigInt),
    /// A float (Python `float`).
    Float(f64),
    /// `True` / `False`.
    Bool(bool),
    /// `None` / JSON `null`.
    None,
    /// A string literal.
    Str(String),
    /// A `[...]` list.
    List(Vec<Literal>),
    /// A tuple, with or without parentheses.
    Tuple(Vec<Literal>),
    /// A literal that never equals a numeric truth (dict, set, complex, bytes, JSON object).
    Other,
}

/// Why a text is not a Python literal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LiteralError {
    #[error("unexpected {found:?} at byte {at}")]
    Unexpected { at: usize, found: String },
    #[error("unexpected end of literal")]
    End,
    #[error("malformed number {text:?} at byte {at}")]
    BadNumber { at: usize, text: String },
    #[error("literal nested deeper than {limit} levels")]
    TooDeep { limit: usize },
}

const MAX_DEPTH: usize = 200;

impl Literal {
    /// Reads a ground truth (or any JSON value) as a literal: integers stay exact, arrays become lists.
    pub fn from_json(json: &serde_json::Value) -> Literal {
        use serde_json::Value as J;
        match json {
            J::Null => Literal::None,
            J::Bool(b) => Literal::Bool(*b),
            J::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Literal::Int(BigInt::from(i))
                } else if let Some(u) = n.as_u64() {
                    Literal::Int(BigInt::from(u))
                } else {
                    Literal::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            J::String(s) => Literal::Str(s.clone()),
            J::Array(items) => Literal::List(items.iter().map(Literal::from_json).collect()),
            J::Object(_) => Literal::Other,
        }
    }

    /// The value as a Python `float(x)` would give it, for numbers and booleans; `None` otherwise or on overflow.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Literal::Int(i) => i.to_f64().filter(|x| x.is_finite()),
            Literal::Float(x) => Some(*x),
            Literal::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            _ => None,
        }
    }
}

/// Parses `text` as `ast.literal_eval` would (leading spaces and tabs allowed, surrounding whitespace ignored).
pub fn parse_literal(text: &str) -> Result<Literal, LiteralError> {
    let mut parser = Parser { src: text.as_bytes(), pos: 0, depth: 0 };
    let value = parser.top()?;
    parser.skip_ws();
    if parser.pos < parser.src.len() {
        return Err(parser.unexpected());
    }
    Ok(value)
}

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')) {
            self.pos += 1;
        }
    }

    fn unexpected(&self) -> LiteralError {
        match self.src.get(self.pos..) {
            Some(rest) if !rest.is_empty() => {
                let found: String = String::from_utf8_lossy(rest).chars().take(10).collect();
                LiteralError::Unexpected { at: self.pos, found }
            }
            _ => LiteralError::End,
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// A top-level expression: a single value or a bare tuple `1, 2`.
    fn top(&mut self) -> Result<Literal, LiteralError> {
        let first = self.value()?;
        self.skip_ws();
        if self.peek() != Some(b',') {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(b',') {
            self.skip_ws();
            if self.peek().is_none() {
                break;
            }
            items.push(self.value()?);
        }
        Ok(Literal::Tuple(items))
    }

    fn value(&mut self) -> Result<Literal, LiteralError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(LiteralError::TooDeep { limit: MAX_DEPTH });
        }
        let result = self.value_inner();
        self.depth -= 1;
        let value = result?;
        // `1+2j` is the only binary operation literal_eval accepts.
        self.skip_ws();
        if matches!(self.peek(), Some(b'+' | b'-')) && matches!(value, Literal::Int(_) | Literal::Float(_)) {
            let save = self.pos;
            self.pos += 1;
            self.skip_ws();
            if let Ok(Literal::Other) = self.number() {
                return Ok(Literal::Other);
            }
            self.pos = save;
        }
        Ok(value)
    }

    fn value_inner(&mut self) -> Result<Literal, LiteralError> {
        self.skip_ws();
        match self.peek() {
            None => Err(LiteralError::End),
            Some(b'[') => {
                self.pos += 1;
                Ok(Literal::List(self.sequence(b']')?.0))
            }
            Some(b'(') => {
                self.pos += 1;
                let (items, trailing_comma) = self.sequence(b')')?;
                if items.len() == 1 && !trailing_comma {
                    Ok(items.into_iter().next().unwrap_or(Literal::None))
                } else {
                    Ok(Literal::Tuple(items))
                }
            }
            Some(b'{') => {
                self.pos += 1;
                self.braces()?;
                Ok(Literal::Other)
            }
            Some(b'+' | b'-') => {
                let negative = self.peek() == Some(b'-');
                self.pos += 1;
                self.skip_ws();
                // The operand must be a number constant, possibly parenthesised (`-(5)` is the same AST as `-5`).
                let mut parens = 0;
                while self.peek() == Some(b'(') {
                    self.pos += 1;
                    parens += 1;
                    self.skip_ws();
                }
                let number = self.number()?;
                for _ in 0..parens {
                    if !self.eat(b')') {
                        return Err(self.unexpected());
                    }
                }
                Ok(match number {
                    Literal::Int(i) if negative => Literal::Int(-i),
                    Literal::Float(x) if negative => Literal::Float(-x),
                    other => other,
                })
            }
            Some(b'0'..=b'9' | b'.') => self.number(),
            Some(b'\'' | b'"') => self.string(),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.pos;
                while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_') {
                    self.pos += 1;
                }
                let word = &self.src[start..self.pos];
                match word {
                    b"True" => Ok(Literal::Bool(true)),
                    b"False" => Ok(Literal::Bool(false)),
                    b"None" => Ok(Literal::None),
                    _ if self.peek().is_some_and(|c| c == b'\'' || c == b'"') && is_string_prefix(word) => self.string(),
                    _ => {
                        self.pos = start;
                        Err(self.unexpected())
                    }
                }
            }
            Some(_) => Err(self.unexpected()),
        }
    }

    /// Items up to `close`, comma-separated, trailing comma allowed; returns whether a trailing comma was seen.
    fn sequence(&mut self, close: u8) -> Result<(Vec<Literal>, bool), LiteralError> {
        let mut items = Vec::new();
        let mut trailing = false;
        loop {
            if self.eat(close) {
                return Ok((items, trailing));
            }
            items.push(self.value()?);
            trailing = false;
            if self.eat(b',') {
                trailing = true;
                continue;
            }
            if self.eat(close) {
                return Ok((items, trailing));
            }
            return Err(self.unexpected());
        }
    }

    /// A dict or set body; only its well-formedness matters.
    fn braces(&mut self) -> Result<(), LiteralError> {
        loop {
            if self.eat(b'}') {
                return Ok(());
            }
            self.value()?;
            if self.eat(b':') {
                self.value()?;
            }
            if self.eat(b',') {
                continue;
            }
            if self.eat(b'}') {
                return Ok(());
            }
            return Err(self.unexpected());
        }
    }

    fn string(&mut self) -> Result<Literal, LiteralError> {
        let Some(quote) = self.peek() else { return Err(LiteralError::End) };
        let triple = self.src.get(self.pos..self.pos + 3) == Some(&[quote, quote, quote][..]);
        let width = if triple { 3 } else { 1 };
        let start = self.pos + width;
        let mut i = start;
        while i < self.src.len() {
            let c = self.src[i];
            if c == b'\\' {
                i += 2;
                continue;
            }
            if !triple && c == b'\n' {
                break;
            }
            if c == quote && (!triple || self.src.get(i..i + 3) == Some(&[quote, quote, quote][..])) {
                let body = String::from_utf8_lossy(&self.src[start..i]).into_owned();
                self.pos = i + width;
                return Ok(Literal::Str(body));
            }
            i += 1;
        }
        Err(LiteralError::End)
    }

    /// A number token (no sign): decimal/hex/octal/binary ints, floats, imaginary numbers.
    fn number(&mut self) -> Result<Literal, LiteralError> {
        let start = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'.') {
            // A sign directly after an exponent marker belongs to the number.
            self.pos += 1;
            if matches!(self.src.get(self.pos - 1), Some(b'e' | b'E'))
                && matches!(self.peek(), Some(b'+' | b'-'))
                && !is_radix_prefixed(&self.src[start..self.pos])
            {
                self.pos += 1;
            }
        }
        let token = std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("");
        parse_number(token).ok_or_else(|| LiteralError::BadNumber { at: start, text: token.to_string() })
    }
}

fn is_string_prefix(word: &[u8]) -> bool {
    let lower = word.to_ascii_lowercase();
    matches!(lower.as_slice(), b"r" | b"u" | b"b" | b"br" | b"rb")
}

fn is_radix_prefixed(token: &[u8]) -> bool {
    token.len() >= 2 && token[0] == b'0' && matches!(token[1], b'x' | b'X' | b'o' | b'O' | b'b' | b'B')
}

/// Digits with single underscores between them (`1_000`), checked by `valid`.
fn digit_part(text: &str, valid: impl Fn(char) -> bool) -> Option<String> {
    if text.is_empty() || text.starts_with('_') || text.ends_with('_') || text.contains("__") {
        return None;
    }
    let digits: String = text.chars().filter(|&c| c != '_').collect();
    digits.chars().all(valid).then_some(digits)
}

/// One Python number token; `None` when Python's tokenizer would reject it.
pub(crate) fn parse_number(token: &str) -> Option<Literal> {
    if token.is_empty() {
        return None;
    }
    if let Some(body) = token.strip_suffix(['j', 'J']) {
        return parse_number(body).filter(|n| matches!(n, Literal::Int(_) | Literal::Float(_))).map(|_| Literal::Other);
    }
    let lower = token.to_ascii_lowercase();
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            let rest = rest.strip_prefix('_').unwrap_or(rest);
            let digits = digit_part(rest, |c| c.is_digit(radix))?;
            return BigInt::from_str_radix(&digits, radix).ok().map(Literal::Int);
        }
    }
    if lower.contains(['.', 'e']) {
        let (mantissa, exponent) = match lower.split_once('e') {
            Some((m, e)) => (m, Some(e)),
            None => (lower.as_str(), None),
        };
        let (int_part, frac_part) = match mantissa.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (mantissa, None),
        };
        let int_digits = if int_part.is_empty() { String::new() } else { digit_part(int_part, |c| c.is_ascii_digit())? };
        let frac_digits = match frac_part {
            Some("") | None => String::new(),
            Some(f) => digit_part(f, |c| c.is_ascii_digit())?,
        };
        if int_digits.is_empty() && frac_digits.is_empty() {
            return None;
        }
        let mut clean = format!("{}.{}", if int_digits.is_empty() { "0" } else { &int_digits }, if frac_digits.is_empty() { "0" } else { &frac_digits });
        if let Some(exp) = exponent {
            let (sign, digits) = match exp.strip_prefix(['+', '-']) {
                Some(d) => (&exp[..1], d),
                None => ("", exp),
            };
            let digits = digit_part(digits, |c| c.is_ascii_digit())?;
            clean = format!("{clean}e{sign}{digits}");
        }
        return clean.parse::<f64>().ok().map(Literal::Float);
    }
    let digits = digit_part(&lower, |c| c.is_ascii_digit())?;
    if digits.len() > 1 && digits.starts_with('0') && digits.chars().any(|c| c != '0') {
        return None; // `01` is a syntax error in Python 3; `00` is fine.
    }
    digits.parse::<BigInt>().ok().map(Literal::Int)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(i: i64) -> Literal {
        Literal::Int(BigInt::from(i))
    }

    fn check(text: &str, expected: Option<Literal>) {
        assert_eq!(parse_literal(text).ok(), expected, "{text:?}");
    }

    #[test]
    fn python_number_spellings_parse_like_literal_eval() {
        check("42", Some(int(42)));
        check("  +7", Some(int(7)));
        check("-7", Some(int(-7)));
        check("-(7)", Some(int(-7)));
        check("0x2A", Some(int(42)));
        check("0b101", Some(int(5)));
        check("0o17", Some(int(15)));
        check("1_000", Some(int(1000)));
        check("00", Some(int(0)));
        check("42.", Some(Literal::Float(42.0)));
        check(".5", Some(Literal::Float(0.5)));
        check("4.2e1", Some(Literal::Float(42.0)));
        check("1e-3", Some(Literal::Float(0.001)));
        check("1E+3", Some(Literal::Float(1000.0)));
        check("2j", Some(Literal::Other));
        check("1+2j", Some(Literal::Other));
        check("123456789012345678901234567890", Some(Literal::Int("123456789012345678901234567890".parse().unwrap())));
    }

    #[test]
    fn non_literals_are_rejected() {
        for text in ["01", "1__0", "1_", "2**5", "1/3", "1+2", "--5", "2^{5}", "\\frac{64}{2}", "$42$", "x", "abs(3)", "1,", "", "[1, 2", "\\[1, 2\\]"] {
            if text == "1," {
                check(text, Some(Literal::Tuple(vec![int(1)])));
            } else {
                check(text, None);
            }
        }
    }

    #[test]
    fn sequences_distinguish_lists_tuples_and_parentheses() {
        check("[1, 2.0, -3]", Some(Literal::List(vec![int(1), Literal::Float(2.0), int(-3)])));
        check("[1, 2,]", Some(Literal::List(vec![int(1), int(2)])));
        check("(1, 2)", Some(Literal::Tuple(vec![int(1), int(2)])));
        check("1, 2", Some(Literal::Tuple(vec![int(1), int(2)])));
        check("(5)", Some(int(5)));
        check("[[1, 2], [3]]", Some(Literal::List(vec![Literal::List(vec![int(1), int(2)]), Literal::List(vec![int(3)])])));
        check("[]", Some(Literal::List(vec![])));
        check("{1: 2}", Some(Literal::Other));
    }

    #[test]
    fn constants_and_strings_are_recognised() {
        check("True", Some(Literal::Bool(true)));
        check("None", Some(Literal::None));
        check("'abc'", Some(Literal::Str("abc".into())));
        check("r\"a\"", Some(Literal::Str("a".into())));
        check("true", None);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = "[".repeat(10_000);
        assert!(parse_literal(&text).is_err());
    }
}
