//! The calculator tool's evaluator: Python arithmetic over exact big integers and floats, with caps
//! on exponent and result size so that no expression can hang or exhaust memory.
//!
//! Supported: int and float literals (`1_000`, `0x1F`, `1e3`, `.5`), unary `+ -`, binary `+ - * / // % **`
//! with Python semantics (true division gives a float, floor division and modulo round toward −∞, `**` is
//! right-associative and binds tighter than a unary minus on its left), parentheses. Anything else is an error.

use crate::engine::literal::{parse_number, Literal};
use crate::engine::value::{float_divmod, python_float_repr};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// Results larger than this many decimal digits are refused.
pub const MAX_RESULT_DIGITS: u64 = 10_000;
const MAX_RESULT_BITS: u64 = MAX_RESULT_DIGITS * 3322 / 1000 + 1;
const MAX_DEPTH: usize = 100;
const MAX_EXPRESSION_BYTES: usize = 20_000;

/// A calculator value.
#[derive(Clone, Debug, PartialEq)]
pub enum Num {
    /// Exact integer.
    Int(BigInt),
    /// Python float.
    Float(f64),
}

impl Num {
    /// Python `str()` of the value.
    pub fn to_python_str(&self) -> String {
        match self {
            Num::Int(i) => i.to_string(),
            Num::Float(x) => python_float_repr(*x),
        }
    }
}

/// Why an expression could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CalcError {
    #[error("unsupported syntax: {what}")]
    Unsupported { what: String },
    #[error("invalid syntax at position {at}: {message}")]
    Syntax { at: usize, message: String },
    #[error("division by zero")]
    DivisionByZero,
    #[error("0 cannot be raised to a negative power")]
    ZeroNegativePower,
    #[error("result would exceed {MAX_RESULT_DIGITS} digits")]
    TooLarge,
    #[error("float result out of range")]
    FloatOverflow,
    #[error("integer too large to convert to float")]
    IntTooLargeForFloat,
    #[error("negative number raised to a fractional power (complex results are not supported)")]
    Complex,
    #[error("expression nested deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("expression longer than {MAX_EXPRESSION_BYTES} characters")]
    TooLong,
}

/// Evaluates one expression and formats the result as Python's `str()`, or `Error: <reason>`.
pub fn evaluate_to_string(expression: &str) -> String {
    match evaluate(expression) {
        Ok(value) => value.to_python_str(),
        Err(e) => format!("Error: {e}"),
    }
}

/// Evaluates one expression.
pub fn evaluate(expression: &str) -> Result<Num, CalcError> {
    if expression.len() > MAX_EXPRESSION_BYTES {
        return Err(CalcError::TooLong);
    }
    let tokens = tokenize(expression)?;
    let mut parser = Parser { tokens, pos: 0, depth: 0 };
    let value = parser.expr()?;
    match parser.tokens.get(parser.pos) {
        None => Ok(value),
        Some((at, token)) => Err(CalcError::Syntax { at: *at, message: format!("unexpected {}", token.describe()) }),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(Num),
    Op(&'static str),
    Open,
    Close,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Number(n) => format!("number {}", n.to_python_str()),
            Token::Op(op) => format!("`{op}`"),
            Token::Open => "`(`".into(),
            Token::Close => "`)`".into(),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<(usize, Token)>, CalcError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'(' => {
                tokens.push((start, Token::Open));
                i += 1;
            }
            b')' => {
                tokens.push((start, Token::Close));
                i += 1;
            }
            b'*' | b'/' => {
                let double = bytes.get(i + 1) == Some(&c);
                let op = match (c, double) {
                    (b'*', true) => "**",
                    (b'*', false) => "*",
                    (_, true) => "//",
                    _ => "/",
                };
                i += if double { 2 } else { 1 };
                if bytes.get(i) == Some(&b'=') {
                    return Err(CalcError::Unsupported { what: format!("assignment operator `{op}=`") });
                }
                tokens.push((start, Token::Op(op)));
            }
            b'+' | b'-' | b'%' => {
                tokens.push((start, Token::Op(match c {
                    b'+' => "+",
                    b'-' => "-",
                    _ => "%",
                })));
                i += 1;
            }
            b'0'..=b'9' | b'.' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.') {
                    i += 1;
                    let radix = i - start >= 2 && bytes[start] == b'0' && matches!(bytes[start + 1], b'x' | b'X' | b'o' | b'O' | b'b' | b'B');
                    if !radix && matches!(bytes[i - 1], b'e' | b'E') && matches!(bytes.get(i), Some(b'+' | b'-')) {
                        i += 1;
                    }
                }
                let token = &text[start..i];
                match parse_number(token) {
                    Some(Literal::Int(n)) => tokens.push((start, Token::Number(Num::Int(n)))),
                    Some(Literal::Float(x)) => tokens.push((start, Token::Number(Num::Float(x)))),
                    Some(_) => return Err(CalcError::Unsupported { what: format!("complex number `{token}`") }),
                    None => return Err(CalcError::Syntax { at: start, message: format!("malformed number `{token}`") }),
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80) {
                    i += 1;
                }
                let name = &text[start..i];
                let rest = text[i..].trim_start();
                let what = if rest.starts_with('(') { format!("function call `{name}(…)`") } else { format!("name `{name}`") };
                return Err(CalcError::Unsupported { what });
            }
            _ => {
                let ch = text[start..].chars().next().unwrap_or('?');
                let what = match ch {
                    '<' | '>' | '=' | '!' => format!("comparison or assignment `{ch}`"),
                    '&' | '|' | '^' | '~' => format!("bitwise operator `{ch}`"),
                    '[' | ']' | '{' | '}' | ',' => format!("collection syntax `{ch}`"),
                    '\'' | '"' => "string literal".to_string(),
                    _ => format!("character `{ch}`"),
                };
                return Err(CalcError::Unsupported { what });
            }
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<(usize, Token)>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek_op(&self) -> Option<&'static str> {
        match self.tokens.get(self.pos) {
            Some((_, Token::Op(op))) => Some(op),
            _ => None,
        }
    }

    fn end_position(&self) -> usize {
        self.tokens.last().map(|(at, _)| at + 1).unwrap_or(0)
    }

    fn enter(&mut self) -> Result<(), CalcError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(CalcError::TooDeep)
        } else {
            Ok(())
        }
    }

    fn expr(&mut self) -> Result<Num, CalcError> {
        self.enter()?;
        let mut left = self.term()?;
        while let Some(op @ ("+" | "-")) = self.peek_op() {
            self.pos += 1;
            let right = self.term()?;
            left = binary(op, left, right)?;
        }
        self.depth -= 1;
        Ok(left)
    }

    fn term(&mut self) -> Result<Num, CalcError> {
        let mut left = self.factor()?;
        while let Some(op @ ("*" | "/" | "//" | "%")) = self.peek_op() {
            self.pos += 1;
            let right = self.factor()?;
            left = binary(op, left, right)?;
        }
        Ok(left)
    }

    fn factor(&mut self) -> Result<Num, CalcError> {
        if let Some(op @ ("+" | "-")) = self.peek_op() {
            self.pos += 1;
            self.enter()?;
            let value = self.factor()?;
            self.depth -= 1;
            return Ok(if op == "-" { negate(value) } else { value });
        }
        self.power()
    }

    fn power(&mut self) -> Result<Num, CalcError> {
        let base = self.atom()?;
        if self.peek_op() == Some("**") {
            self.pos += 1;
            self.enter()?;
            let exponent = self.factor()?;
            self.depth -= 1;
            return pow(base, exponent);
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Num, CalcError> {
        let Some((at, token)) = self.tokens.get(self.pos).cloned() else {
            return Err(CalcError::Syntax { at: self.end_position(), message: "unexpected end of expression".into() });
        };
        self.pos += 1;
        match token {
            Token::Number(n) => Ok(n),
            Token::Open => {
                let value = self.expr()?;
                match self.tokens.get(self.pos) {
                    Some((_, Token::Close)) => {
                        self.pos += 1;
                        Ok(value)
                    }
                    Some((at, t)) => Err(CalcError::Syntax { at: *at, message: format!("expected `)`, found {}", t.describe()) }),
                    None => Err(CalcError::Syntax { at: self.end_position(), message: "`(` was never closed".into() }),
                }
            }
            other => Err(CalcError::Syntax { at, message: format!("unexpected {}", other.describe()) }),
        }
    }
}

fn negate(value: Num) -> Num {
    match value {
        Num::Int(i) => Num::Int(-i),
        Num::Float(x) => Num::Float(-x),
    }
}

fn check_int(i: BigInt) -> Result<Num, CalcError> {
    if i.bits() > MAX_RESULT_BITS {
        Err(CalcError::TooLarge)
    } else {
        Ok(Num::Int(i))
    }
}

fn to_float(value: &Num) -> Result<f64, CalcError> {
    match value {
        Num::Float(x) => Ok(*x),
        Num::Int(i) => i.to_f64().filter(|x| x.is_finite()).ok_or(CalcError::IntTooLargeForFloat),
    }
}

fn check_float(x: f64) -> Result<Num, CalcError> {
    if x.is_infinite() {
        Err(CalcError::FloatOverflow)
    } else {
        Ok(Num::Float(x))
    }
}

fn binary(op: &str, left: Num, right: Num) -> Result<Num, CalcError> {
    if let (Num::Int(a), Num::Int(b)) = (&left, &right) {
        return match op {
            "+" => check_int(a + b),
            "-" => check_int(a - b),
            "*" => {
                if a.bits() + b.bits() > MAX_RESULT_BITS + 1 {
                    return Err(CalcError::TooLarge);
                }
                check_int(a * b)
            }
            "//" if b.is_zero() => Err(CalcError::DivisionByZero),
            "//" => Ok(Num::Int(a.div_floor(b))),
            "%" if b.is_zero() => Err(CalcError::DivisionByZero),
            "%" => Ok(Num::Int(a.mod_floor(b))),
            _ if b.is_zero() => Err(CalcError::DivisionByZero),
            _ => int_true_division(a, b),
        };
    }
    let (a, b) = (to_float(&left)?, to_float(&right)?);
    match op {
        "+" => check_float(a + b),
        "-" => check_float(a - b),
        "*" => check_float(a * b),
        "/" if b == 0.0 => Err(CalcError::DivisionByZero),
        "/" => check_float(a / b),
        "//" | "%" if b == 0.0 => Err(CalcError::DivisionByZero),
        "//" => Ok(Num::Float(float_divmod(a, b).0)),
        _ => Ok(Num::Float(float_divmod(a, b).1)),
    }
}

/// Python's `int / int`: a float, computed exactly enough for big operands.
fn int_true_division(a: &BigInt, b: &BigInt) -> Result<Num, CalcError> {
    if let (Some(x), Some(y)) = (a.to_i64(), b.to_i64()) {
        if x.unsigned_abs() < (1 << 53) && y.unsigned_abs() < (1 << 53) {
            return Ok(Num::Float(x as f64 / y as f64));
        }
    }
    // Scale so that the integer quotient carries about 80 significant bits, then divide by the scale.
    let shift = 80i64 - (a.bits() as i64 - b.bits() as i64);
    let quotient = if shift >= 0 { (a << shift as usize) / b } else { a / (b << (-shift) as usize) };
    let q = quotient.to_f64().ok_or(CalcError::FloatOverflow)?;
    let value = if shift >= 0 { q / 2f64.powi(shift.min(1000) as i32) } else { q * 2f64.powi((-shift).min(1100) as i32) };
    check_float(value)
}

fn pow(base: Num, exponent: Num) -> Result<Num, CalcError> {
    match (&base, &exponent) {
        (Num::Int(b), Num::Int(e)) if !e.is_negative() => {
            if b.is_zero() || b.is_one() {
                return Ok(Num::Int(if e.is_zero() { BigInt::one() } else { b.clone() }));
            }
            if *b == BigInt::from(-1) {
                return Ok(Num::Int(if e.is_even() { BigInt::one() } else { b.clone() }));
            }
            let e = e.to_u64().filter(|e| *e <= MAX_RESULT_BITS).ok_or(CalcError::TooLarge)?;
            if (b.bits() - 1).saturating_mul(e) > MAX_RESULT_BITS {
                return Err(CalcError::TooLarge);
            }
            check_int(num_traits::pow(b.clone(), e as usize))
        }
        (Num::Int(b), Num::Int(_)) if b.is_zero() => Err(CalcError::ZeroNegativePower),
        _ => {
            let (b, e) = (to_float(&base)?, to_float(&exponent)?);
            if b == 0.0 && e < 0.0 {
                return Err(CalcError::ZeroNegativePower);
            }
            if b < 0.0 && e.fract() != 0.0 && e.is_finite() {
                return Err(CalcError::Complex);
            }
            check_float(b.powf(e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(expression: &str, expected: &str) {
        assert_eq!(evaluate_to_string(expression), expected, "{expression:?}");
    }

    #[test]
    fn integer_arithmetic_is_exact_and_pythonic() {
        check("17 * 43 + 5", "736");
        check("100 // 7", "14");
        check("-7 // 2", "-4");
        check("-7 % 3", "2");
        check("7 % -3", "-2");
        check("2 ** 100", "1267650600228229401496703205376");
        check("2 ** 3 ** 2", "512");
        check("-2 ** 2", "-4");
        check("2 ** -1", "0.5");
        check("(1 + 2) * 3", "9");
        check("1_000 + 0x10", "1016");
        check("--5", "5");
    }

    #[test]
    fn division_and_floats_print_like_python() {
        check("100 / 2", "50.0");
        check("1 / 10", "0.1");
        check("1e16", "1e+16");
        check("0.1 + 0.2", "0.30000000000000004");
        check("7.5 // 2", "3.0");
        check("-7.5 % 2", "0.5");
        check("10**30 / 10**29", "10.0");
        check("2.0 ** 0.5", "1.4142135623730951");
    }

    #[test]
    fn unsupported_syntax_is_named_in_the_error() {
        check("abs(-3)", "Error: unsupported syntax: function call `abs(…)`");
        check("x + 1", "Error: unsupported syntax: name `x`");
        check("1 < 2", "Error: unsupported syntax: comparison or assignment `<`");
        check("5 ^ 3", "Error: unsupported syntax: bitwise operator `^`");
        check("[1, 2]", "Error: unsupported syntax: collection syntax `[`");
        check("2j", "Error: unsupported syntax: complex number `2j`");
    }

    #[test]
    fn arithmetic_errors_become_error_strings() {
        check("1 / 0", "Error: division by zero");
        check("5 // 0.0", "Error: division by zero");
        check("0 ** -1", "Error: 0 cannot be raised to a negative power");
        check("(-8) ** 0.5", "Error: negative number raised to a fractional power (complex results are not supported)");
        check("(1 + 2", "Error: invalid syntax at position 6: `(` was never closed");
        check("1 +", "Error: invalid syntax at position 3: unexpected end of expression");
        check("", "Error: invalid syntax at position 0: unexpected end of expression");
        check("01", "Error: invalid syntax at position 0: malformed number `01`");
    }

    #[test]
    fn huge_results_are_refused_quickly_instead_of_hanging() {
        check("9 ** 9 ** 9", "Error: result would exceed 10000 digits");
        check("10 ** 20000", "Error: result would exceed 10000 digits");
        check("2 ** 10 ** 100", "Error: result would exceed 10000 digits");
        check("(10 ** 9000) * (10 ** 9000)", "Error: result would exceed 10000 digits");
        check("1.5 ** 10000", "Error: float result out of range");
        check("1 ** 10 ** 100", "1");
        assert_eq!(evaluate("10 ** 9999").map(|n| n.to_python_str().len()), Ok(10_000));
        let deep = format!("{}1{}", "(".repeat(500), ")".repeat(500));
        check(&deep, "Error: expression nested deeper than 100 levels");
    }
}
