//! A tiny Python-flavoured expression language for template conditions and answers, evaluated exactly.
//!
//! Grammar (loosest binding first): `or`, `and`, `not`, comparisons (chains such as `a < b <= c` mean
//! `a < b and b <= c`), `+ -`, `* / // %`, unary `+ -`, `**` (right-associative, binds tighter than a unary
//! minus on its left), then numbers, `True`/`False`, variables, calls and parentheses.
//! Numbers are exact rationals, so `/` never rounds and `is_int(7 / 2)` is false; `//` and `%` follow Python
//! (floor toward negative infinity, remainder with the divisor's sign). Calls: `divides(a, b)` (b is non-zero
//! and `a % b == 0`), `is_int`, `round` (ties to even, optional digit count), `int` (toward zero), `abs`,
//! `min`, `max`. Variables are resolved to slots when parsing, so an unknown name is a parse error.

use num_bigint::BigInt;

use super::rational::Rational;

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A constant number.
    Num(Rational),
    /// `True` or `False`.
    Bool(bool),
    /// A variable, by slot.
    Var(usize),
    /// Unary minus.
    Neg(Box<Expr>),
    /// `not x`.
    Not(Box<Expr>),
    /// An arithmetic operation.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `a and b` (Python: the first falsy operand, else the last).
    And(Box<Expr>, Box<Expr>),
    /// `a or b` (Python: the first truthy operand, else the last).
    Or(Box<Expr>, Box<Expr>),
    /// A comparison chain: `first op1 e1 op2 e2 …`.
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    /// A helper call.
    Call(Func, Vec<Expr>),
}

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (exact)
    Div,
    /// `//` (floor)
    FloorDiv,
    /// `%` (divisor's sign)
    Mod,
    /// `**` (integer exponent)
    Pow,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

/// The helper functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `divides(a, b)`: `b != 0 and a % b == 0`.
    Divides,
    /// `is_int(x)`: `x` is a whole number.
    IsInt,
    /// `round(x[, digits])`: ties to even.
    Round,
    /// `int(x)`: toward zero.
    Int,
    /// `abs(x)`.
    Abs,
    /// `min(a, b, ...)`.
    Min,
    /// `max(a, b, ...)`.
    Max,
}

impl Func {
    fn parse(name: &str) -> Option<Func> {
        Some(match name {
            "divides" => Func::Divides,
            "is_int" => Func::IsInt,
            "round" => Func::Round,
            "int" => Func::Int,
            "abs" => Func::Abs,
            "min" => Func::Min,
            "max" => Func::Max,
            _ => return None,
        })
    }

    /// Accepted argument counts, inclusive.
    fn arity(self) -> (usize, usize) {
        match self {
            Func::Divides => (2, 2),
            Func::IsInt | Func::Int | Func::Abs => (1, 1),
            Func::Round => (1, 2),
            Func::Min | Func::Max => (2, usize::MAX),
        }
    }
}

/// A value during evaluation: a number or a boolean (booleans count as 0 and 1 in arithmetic, as in Python).
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// An exact number.
    Num(Rational),
    /// A comparison or `not` result.
    Bool(bool),
}

impl Val {
    /// The number, with `True`/`False` as 1/0.
    pub fn to_rational(&self) -> Rational {
        match self {
            Val::Num(q) => q.clone(),
            Val::Bool(b) => Rational::int(i64::from(*b)),
        }
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Val::Num(q) => !q.is_zero(),
            Val::Bool(b) => *b,
        }
    }
}

/// Why an expression could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("unexpected character `{ch}` at offset {at}")]
    BadChar { ch: char, at: usize },
    #[error("bad number `{text}` at offset {at}")]
    BadNumber { text: String, at: usize },
    #[error("number at offset {at} is too long (over {MAX_BITS} bits)")]
    NumberTooLong { at: usize },
    #[error("expected {expected} at offset {at}")]
    Expected { expected: &'static str, at: usize },
    #[error("unknown variable `{0}`")]
    UnknownVariable(String),
    #[error("unknown function `{0}`")]
    UnknownFunction(String),
    #[error("`{name}` takes {min} to {max} arguments, got {got}")]
    Arity { name: String, min: usize, max: usize, got: usize },
    #[error("expression nested deeper than {0} levels")]
    TooDeep(usize),
    #[error("expression longer than {0} tokens")]
    TooLong(usize),
}

/// Why an expression could not be evaluated (a condition that fails this way counts as false).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error("division by zero")]
    DivisionByZero,
    #[error("exponent {0} is not a small integer")]
    BadExponent(String),
    #[error("result too large")]
    TooLarge,
    #[error("variable slot {0} has no numeric value")]
    Unset(usize),
    #[error("round takes an integer digit count, got {0}")]
    BadDigits(String),
}

const MAX_DEPTH: usize = 64;
/// Left-associative chains are not nested by the parser, so this bounds the depth of the evaluated tree.
const MAX_TOKENS: usize = 1000;
const MAX_EXPONENT: i64 = 256;
const MAX_BITS: u64 = 4096;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(Rational),
    Name(String),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
    End,
}

fn lex(text: &str) -> Result<Vec<(Tok, usize)>, ParseError> {
    const OPS: [&str; 15] = ["**", "//", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "<", ">", "(", ")"];
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.' || bytes[i] == b'_') {
                i += 1;
            }
            let raw: String = text[start..i].chars().filter(|&c| c != '_').collect();
            let q = Rational::parse_decimal(&raw).ok_or(ParseError::BadNumber { text: raw.clone(), at: start })?;
            // Every value the evaluator makes stays within MAX_BITS; a literal is held to the same bound.
            if q.bits() > MAX_BITS {
                return Err(ParseError::NumberTooLong { at: start });
            }
            out.push((Tok::Num(q), start));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Name(text[start..i].to_string()), start));
        } else if c == b',' {
            out.push((Tok::Comma, i));
            i += 1;
        } else if let Some(op) = OPS.iter().find(|op| text[i..].starts_with(**op)) {
            let tok = match *op {
                "(" => Tok::LParen,
                ")" => Tok::RParen,
                op => Tok::Op(op),
            };
            out.push((tok, i));
            i += op.len();
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(ParseError::BadChar { ch, at: i });
        }
    }
    out.push((Tok::End, text.len()));
    Ok(out)
}

/// Parses `text`, resolving each variable name to a slot with `resolve` (`None` = unknown variable).
pub fn parse(text: &str, resolve: &dyn Fn(&str) -> Option<usize>) -> Result<Expr, ParseError> {
    let toks = lex(text)?;
    if toks.len() > MAX_TOKENS {
        return Err(ParseError::TooLong(MAX_TOKENS));
    }
    let mut parser = Parser { toks, pos: 0, resolve, depth: 0 };
    let expr = parser.or_expr()?;
    match parser.peek() {
        Tok::End => Ok(expr),
        _ => Err(ParseError::Expected { expected: "end of expression", at: parser.at() }),
    }
}

struct Parser<'a> {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    resolve: &'a dyn Fn(&str) -> Option<usize>,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        // The token list always ends with `End`, and `pos` never moves past it.
        &self.toks[self.pos.min(self.toks.len() - 1)].0
    }

    fn at(&self) -> usize {
        self.toks[self.pos.min(self.toks.len() - 1)].1
    }

    fn bump(&mut self) -> Tok {
        let tok = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        tok
    }

    fn is_name(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Name(n) if n == word)
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::TooDeep(MAX_DEPTH));
        }
        Ok(())
    }

    fn or_expr(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let mut left = self.and_expr()?;
        while self.is_name("or") {
            self.bump();
            left = Expr::Or(Box::new(left), Box::new(self.and_expr()?));
        }
        self.depth -= 1;
        Ok(left)
    }

    fn and_expr(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.not_expr()?;
        while self.is_name("and") {
            self.bump();
            left = Expr::And(Box::new(left), Box::new(self.not_expr()?));
        }
        Ok(left)
    }

    fn not_expr(&mut self) -> Result<Expr, ParseError> {
        if self.is_name("not") {
            self.bump();
            self.enter()?;
            let inner = self.not_expr()?;
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(inner)));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, ParseError> {
        let first = self.arith()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek() {
                Tok::Op("<") => CmpOp::Lt,
                Tok::Op("<=") => CmpOp::Le,
                Tok::Op(">") => CmpOp::Gt,
                Tok::Op(">=") => CmpOp::Ge,
                Tok::Op("==") => CmpOp::Eq,
                Tok::Op("!=") => CmpOp::Ne,
                _ => break,
            };
            self.bump();
            rest.push((op, self.arith()?));
        }
        Ok(if rest.is_empty() { first } else { Expr::Compare(Box::new(first), rest) })
    }

    fn arith(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.term()?;
        loop {
            let op = match self.peek() {
                Tok::Op("+") => BinOp::Add,
                Tok::Op("-") => BinOp::Sub,
                _ => break,
            };
            self.bump();
            left = Expr::Bin(op, Box::new(left), Box::new(self.term()?));
        }
        Ok(left)
    }

    fn term(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.factor()?;
        loop {
            let op = match self.peek() {
                Tok::Op("*") => BinOp::Mul,
                Tok::Op("/") => BinOp::Div,
                Tok::Op("//") => BinOp::FloorDiv,
                Tok::Op("%") => BinOp::Mod,
                _ => break,
            };
            self.bump();
            left = Expr::Bin(op, Box::new(left), Box::new(self.factor()?));
        }
        Ok(left)
    }

    fn factor(&mut self) -> Result<Expr, ParseError> {
        if self.is_op("-") || self.is_op("+") {
            let negate = self.is_op("-");
            self.bump();
            self.enter()?;
            let inner = self.factor()?;
            self.depth -= 1;
            return Ok(if negate { Expr::Neg(Box::new(inner)) } else { inner });
        }
        self.power()
    }

    fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.atom()?;
        if self.is_op("**") {
            self.bump();
            self.enter()?;
            let exp = self.factor()?;
            self.depth -= 1;
            return Ok(Expr::Bin(BinOp::Pow, Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr, ParseError> {
        let at = self.at();
        match self.bump() {
            Tok::Num(q) => Ok(Expr::Num(q)),
            Tok::LParen => {
                let inner = self.or_expr()?;
                match self.bump() {
                    Tok::RParen => Ok(inner),
                    _ => Err(ParseError::Expected { expected: "`)`", at: self.at() }),
                }
            }
            Tok::Name(name) => match name.as_str() {
                "True" => Ok(Expr::Bool(true)),
                "False" => Ok(Expr::Bool(false)),
                "and" | "or" | "not" => Err(ParseError::Expected { expected: "a value", at }),
                _ if *self.peek() == Tok::LParen => self.call(name),
                _ => (self.resolve)(&name).map(Expr::Var).ok_or(ParseError::UnknownVariable(name)),
            },
            _ => Err(ParseError::Expected { expected: "a value", at }),
        }
    }

    fn call(&mut self, name: String) -> Result<Expr, ParseError> {
        let func = Func::parse(&name).ok_or_else(|| ParseError::UnknownFunction(name.clone()))?;
        self.bump(); // `(`
        let mut args = Vec::new();
        if *self.peek() != Tok::RParen {
            loop {
                args.push(self.or_expr()?);
                match self.peek() {
                    Tok::Comma => {
                        self.bump();
                    }
                    _ => break,
                }
            }
        }
        match self.bump() {
            Tok::RParen => {}
            _ => return Err(ParseError::Expected { expected: "`)` after arguments", at: self.at() }),
        }
        let (min, max) = func.arity();
        if args.len() < min || args.len() > max {
            return Err(ParseError::Arity { name, min, max, got: args.len() });
        }
        Ok(Expr::Call(func, args))
    }
}

impl Expr {
    /// Evaluates with `env[slot]` as each variable's value (`None` = not numeric, an error if read).
    pub fn eval(&self, env: &[Option<Rational>]) -> Result<Val, EvalError> {
        Ok(match self {
            Expr::Num(q) => Val::Num(q.clone()),
            Expr::Bool(b) => Val::Bool(*b),
            Expr::Var(slot) => Val::Num(env.get(*slot).cloned().flatten().ok_or(EvalError::Unset(*slot))?),
            Expr::Neg(inner) => Val::Num(inner.eval(env)?.to_rational().neg()),
            Expr::Not(inner) => Val::Bool(!inner.eval(env)?.truthy()),
            Expr::And(a, b) => {
                let left = a.eval(env)?;
                if left.truthy() {
                    b.eval(env)?
                } else {
                    left
                }
            }
            Expr::Or(a, b) => {
                let left = a.eval(env)?;
                if left.truthy() {
                    left
                } else {
                    b.eval(env)?
                }
            }
            Expr::Compare(first, rest) => {
                let mut left = first.eval(env)?.to_rational();
                for (op, expr) in rest {
                    let right = expr.eval(env)?.to_rational();
                    let holds = match op {
                        CmpOp::Lt => left < right,
                        CmpOp::Le => left <= right,
                        CmpOp::Gt => left > right,
                        CmpOp::Ge => left >= right,
                        CmpOp::Eq => left == right,
                        CmpOp::Ne => left != right,
                    };
                    if !holds {
                        return Ok(Val::Bool(false));
                    }
                    left = right;
                }
                Val::Bool(true)
            }
            Expr::Bin(op, a, b) => {
                let x = a.eval(env)?.to_rational();
                let y = b.eval(env)?.to_rational();
                Val::Num(binary(*op, &x, &y)?)
            }
            Expr::Call(func, args) => call(*func, args, env)?,
        })
    }

    /// Evaluates and reports Python truthiness; evaluation errors count as false (as the reference does).
    pub fn holds(&self, env: &[Option<Rational>]) -> bool {
        self.eval(env).is_ok_and(|v| v.truthy())
    }
}

/// One arithmetic step with Python's integer semantics carried over to exact rationals.
pub fn binary(op: BinOp, x: &Rational, y: &Rational) -> Result<Rational, EvalError> {
    let out = match op {
        BinOp::Add => x.add(y),
        BinOp::Sub => x.sub(y),
        BinOp::Mul => x.mul(y),
        BinOp::Div => x.div(y).ok_or(EvalError::DivisionByZero)?,
        BinOp::FloorDiv => Rational::from_bigint(x.div(y).ok_or(EvalError::DivisionByZero)?.floor()),
        BinOp::Mod => python_mod(x, y)?,
        BinOp::Pow => {
            let exp = y.to_i64().filter(|e| e.unsigned_abs() <= MAX_EXPONENT.unsigned_abs()).ok_or_else(|| EvalError::BadExponent(y.to_string()))?;
            if x.bits().saturating_mul(exp.unsigned_abs()) > MAX_BITS {
                return Err(EvalError::TooLarge);
            }
            // |exp| <= 256 fits an i32.
            x.pow(exp as i32).ok_or(EvalError::DivisionByZero)?
        }
    };
    if out.bits() > MAX_BITS {
        return Err(EvalError::TooLarge);
    }
    Ok(out)
}

/// `x % y` with the divisor's sign (Python): `x - y * floor(x / y)`.
fn python_mod(x: &Rational, y: &Rational) -> Result<Rational, EvalError> {
    let q = x.div(y).ok_or(EvalError::DivisionByZero)?.floor();
    Ok(x.sub(&y.mul(&Rational::from_bigint(q))))
}

fn call(func: Func, args: &[Expr], env: &[Option<Rational>]) -> Result<Val, EvalError> {
    let vals = args.iter().map(|a| a.eval(env)).collect::<Result<Vec<_>, _>>()?;
    let num = |i: usize| vals[i].to_rational();
    Ok(match func {
        Func::Divides => {
            let divisor = num(1);
            Val::Bool(!divisor.is_zero() && python_mod(&num(0), &divisor)?.is_zero())
        }
        Func::IsInt => Val::Bool(num(0).is_integer()),
        Func::Int => Val::Num(Rational::from_bigint(num(0).trunc())),
        Func::Abs => Val::Num(num(0).abs()),
        Func::Round => {
            if vals.len() == 1 {
                Val::Num(Rational::from_bigint(num(0).round_half_even()))
            } else {
                let digits = num(1).to_i64().filter(|d| d.unsigned_abs() <= 18).ok_or_else(|| EvalError::BadDigits(num(1).to_string()))?;
                let scale = Rational::int(10).pow(digits as i32).ok_or(EvalError::DivisionByZero)?;
                let scaled = Rational::from_bigint(num(0).mul(&scale).round_half_even());
                Val::Num(scaled.div(&scale).ok_or(EvalError::DivisionByZero)?)
            }
        }
        Func::Min | Func::Max => {
            let mut best = vals[0].clone();
            for v in &vals[1..] {
                let better = if func == Func::Min { v.to_rational() < best.to_rational() } else { v.to_rational() > best.to_rational() };
                if better {
                    best = v.clone();
                }
            }
            best
        }
    })
}

/// The integer value of an answer, when it is one.
pub fn as_integer(val: &Val) -> Option<BigInt> {
    let q = val.to_rational();
    if q.is_integer() {
        Some(q.numer().clone())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 3] = ["a", "b", "c"];

    fn resolve(name: &str) -> Option<usize> {
        NAMES.iter().position(|n| *n == name)
    }

    fn eval_with(text: &str, env: &[i64]) -> Result<Val, String> {
        let expr = parse(text, &resolve).map_err(|e| e.to_string())?;
        let env: Vec<Option<Rational>> = env.iter().map(|&x| Some(Rational::int(x))).collect();
        expr.eval(&env).map_err(|e| e.to_string())
    }

    fn q(n: i64, d: i64) -> Val {
        Val::Num(Rational::new(BigInt::from(n), BigInt::from(d)).unwrap())
    }

    fn check(cases: &[(&str, Val)]) {
        for (text, expected) in cases {
            assert_eq!(eval_with(text, &[6, 4, -3]).as_ref(), Ok(expected), "{text}");
        }
    }

    #[test]
    fn floor_division_rounds_toward_negative_infinity() {
        check(&[("7 // 2", q(3, 1)), ("-7 // 2", q(-4, 1)), ("7 // -2", q(-4, 1)), ("c // 2", q(-2, 1)), ("7.5 // 2", q(3, 1))]);
    }

    #[test]
    fn modulo_takes_the_sign_of_the_divisor() {
        check(&[("7 % 3", q(1, 1)), ("-7 % 3", q(2, 1)), ("7 % -3", q(-2, 1)), ("c % a", q(3, 1)), ("2.5 % 1", q(1, 2))]);
    }

    #[test]
    fn true_division_is_exact() {
        check(&[
            ("a / b", q(3, 2)),
            ("1 / 3 + 1 / 6", q(1, 2)),
            ("0.1 + 0.2 == 0.3", Val::Bool(true)),
            ("is_int(a / b)", Val::Bool(false)),
        ]);
        check(&[("is_int(a / 3)", Val::Bool(true)), ("int(a / b)", q(1, 1)), ("int(c / 2)", q(-1, 1))]);
    }

    #[test]
    fn powers_are_right_associative_and_bind_tighter_than_unary_minus() {
        check(&[("2 ** 3 ** 2", q(512, 1)), ("-2 ** 2", q(-4, 1)), ("2 ** -1", q(1, 2)), ("(-2) ** 2", q(4, 1)), ("a ** 0", q(1, 1))]);
    }

    #[test]
    fn the_most_negative_exponent_is_refused_rather_than_wrapped_to_zero() {
        // `i64::MIN.abs()` overflows (a panic in debug builds, `2 ** a == 1` in release ones); found by fuzzing.
        let result = eval_with("2 ** a", &[i64::MIN]);
        assert!(result.as_ref().is_err_and(|e| e.starts_with("exponent")), "{result:?}");
        // The same overflow in `round`'s digits; found by fuzzing too.
        let rounded = eval_with("round(1, a)", &[i64::MIN]);
        assert!(rounded.is_err(), "the most negative digit count is refused: {rounded:?}");
    }

    #[test]
    fn precedence_follows_python() {
        check(&[("1 + 2 * 3", q(7, 1)), ("(1 + 2) * 3", q(9, 1)), ("a - b - 1", q(1, 1)), ("a / b * 2", q(3, 1)), ("- - 3", q(3, 1))]);
    }

    #[test]
    fn comparison_chains_mean_pairwise_and() {
        check(&[
            ("b < a <= 6", Val::Bool(true)),
            ("b < a < 6", Val::Bool(false)),
            ("1 < 2 > 0", Val::Bool(true)),
            ("c < 0 < b != a", Val::Bool(true)),
            ("a == 6 == 6.0", Val::Bool(true)),
        ]);
    }

    #[test]
    fn boolean_operators_return_operands_like_python() {
        check(&[
            ("0 or 5", q(5, 1)),
            ("2 and 3", q(3, 1)),
            ("0 and 1 / 0", q(0, 1)),
            ("not a", Val::Bool(false)),
            ("not 0 and b", q(4, 1)),
            ("True + True", q(2, 1)),
        ]);
    }

    #[test]
    fn helpers_behave_like_the_reference() {
        check(&[
            ("divides(a, 3)", Val::Bool(true)),
            ("divides(a, b)", Val::Bool(false)),
            ("divides(a, 0)", Val::Bool(false)),
            ("round(5 / 2)", q(2, 1)),
            ("round(7 / 2)", q(4, 1)),
            ("round(2.675, 2)", q(268, 100)),
            ("round(2.665, 2)", q(266, 100)),
            ("abs(c)", q(3, 1)),
            ("min(a, b, c)", q(-3, 1)),
            ("max(a, b / 2, 9)", q(9, 1)),
        ]);
    }

    #[test]
    fn evaluation_errors_are_values_not_panics() {
        assert_eq!(eval_with("1 / 0", &[]), Err("division by zero".into()));
        assert_eq!(eval_with("5 % 0", &[]), Err("division by zero".into()));
        assert_eq!(eval_with("2 ** 0.5", &[]), Err("exponent 1/2 is not a small integer".into()));
        assert_eq!(eval_with("10 ** 100000", &[]), Err("exponent 100000 is not a small integer".into()));
        assert_eq!(eval_with("99999 ** 256 ** 1", &[]), Err("result too large".into()));
        assert_eq!(eval_with("0 ** -1", &[]), Err("division by zero".into()));
        let expr = parse("a + 1", &resolve).unwrap();
        assert_eq!(expr.eval(&[None]), Err(EvalError::Unset(0)));
        assert!(!expr.holds(&[None]));
    }

    #[test]
    fn parse_errors_name_the_problem() {
        let cases = [
            ("a +", "expected a value at offset 3"),
            ("zz + 1", "unknown variable `zz`"),
            ("sqrt(4)", "unknown function `sqrt`"),
            ("divides(1)", "`divides` takes 2 to 2 arguments, got 1"),
            ("(1 + 2", "expected `)` at offset 6"),
            ("1 $ 2", "unexpected character `$` at offset 2"),
            ("1 2", "expected end of expression at offset 2"),
            ("1.2.3", "bad number `1.2.3` at offset 0"),
        ];
        for (text, message) in cases {
            assert_eq!(eval_with(text, &[1]), Err(message.to_string()), "{text}");
        }
        let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
        assert_eq!(eval_with(&deep, &[]), Err("expression nested deeper than 64 levels".into()));
        let negs = format!("{}1", "-".repeat(200));
        assert!(eval_with(&negs, &[]).is_err());
        let long = vec!["1"; 5000].join(" + ");
        assert_eq!(eval_with(&long, &[]), Err("expression longer than 1000 tokens".into()));
        // Found by the fuzz smoke stage: a decimal literal of 1,600 digits made a value past the evaluator's bound.
        let digits = format!("1 + .{}", "3".repeat(1300));
        assert_eq!(eval_with(&digits, &[]), Err("number at offset 4 is too long (over 4096 bits)".into()));
        assert!(eval_with(&format!("1 + .{}", "3".repeat(600)), &[]).is_ok(), "a long literal within the bound still reads");
    }
}
