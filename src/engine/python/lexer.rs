//! Tokenizer for the Python subset: names, numbers, strings, operators, and the NEWLINE / INDENT / DEDENT
//! tokens that Python's indentation rules produce (brackets join lines; blank and comment lines are skipped).

use num_bigint::BigInt;
use num_traits::Num;

use super::error::{ParseError, Pos};
use super::value::PyValue;

/// A token kind.
#[derive(Clone, Debug)]
pub enum Tok {
    /// An identifier or keyword.
    Name(String),
    /// An integer literal (an `Int` or a big int).
    Int(PyValue),
    Float(f64),
    Str(String),
    /// An operator or delimiter.
    Op(&'static str),
    Newline,
    Indent,
    Dedent,
    End,
}

/// A token with the position of its first character.
#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub pos: Pos,
}

const OPERATORS: &[&str] = &[
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "+=", "-=", "*=", "/=", "%=", "&=",
    "|=", "^=", "@=", "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=",
];

/// Splits source text into tokens.
pub fn tokenize(src: &str) -> Result<Vec<Token>, ParseError> {
    Lexer { chars: src.chars().collect(), i: 0, line: 1, col: 1, tokens: Vec::new(), indents: vec![0], depth: 0 }.run()
}

struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: u32,
    col: u32,
    tokens: Vec<Token>,
    indents: Vec<u32>,
    depth: u32,
}

impl Lexer {
    fn peek(&self, k: usize) -> char {
        self.chars.get(self.i + k).copied().unwrap_or('\0')
    }

    fn at_end(&self) -> bool {
        self.i >= self.chars.len()
    }

    fn bump(&mut self) -> char {
        let c = self.peek(0);
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        c
    }

    fn pos(&self) -> Pos {
        Pos::new(self.line, self.col)
    }

    fn push(&mut self, tok: Tok, pos: Pos) {
        self.tokens.push(Token { tok, pos });
    }

    fn run(mut self) -> Result<Vec<Token>, ParseError> {
        let mut at_line_start = true;
        loop {
            if at_line_start && self.depth == 0 {
                // Measure indentation; skip blank and comment-only lines.
                let mut width = 0u32;
                loop {
                    match self.peek(0) {
                        ' ' => width += 1,
                        '\t' => width = (width / 8 + 1) * 8,
                        '\x0c' => width = 0,
                        _ => break,
                    }
                    self.bump();
                }
                let c = self.peek(0);
                if c == '#' {
                    while !self.at_end() && self.peek(0) != '\n' {
                        self.bump();
                    }
                }
                if self.at_end() {
                    break;
                }
                let c = self.peek(0);
                if c == '\n' || c == '\r' {
                    self.bump();
                    continue;
                }
                if c == '\\' && (self.peek(1) == '\n' || (self.peek(1) == '\r' && self.peek(2) == '\n')) {
                    return Err(ParseError::syntax(self.pos(), "unexpected line continuation at the start of a line"));
                }
                let pos = self.pos();
                let current = self.indents.last().copied().unwrap_or(0);
                if width > current {
                    self.indents.push(width);
                    self.push(Tok::Indent, pos);
                } else {
                    while width < self.indents.last().copied().unwrap_or(0) {
                        self.indents.pop();
                        self.push(Tok::Dedent, pos);
                    }
                    if width != self.indents.last().copied().unwrap_or(0) {
                        return Err(ParseError::syntax(pos, "unindent does not match any outer indentation level"));
                    }
                }
                at_line_start = false;
            }
            if self.at_end() {
                break;
            }
            let c = self.peek(0);
            let pos = self.pos();
            match c {
                ' ' | '\t' | '\x0c' | '\r' => {
                    self.bump();
                }
                '#' => {
                    while !self.at_end() && self.peek(0) != '\n' {
                        self.bump();
                    }
                }
                '\n' => {
                    self.bump();
                    if self.depth == 0 {
                        self.push(Tok::Newline, pos);
                        at_line_start = true;
                    }
                }
                '\\' => {
                    self.bump();
                    if self.peek(0) == '\r' {
                        self.bump();
                    }
                    if self.peek(0) != '\n' {
                        return Err(ParseError::syntax(pos, "unexpected character after line continuation character"));
                    }
                    self.bump();
                    if self.at_end() {
                        return Err(ParseError::syntax(pos, "unexpected end of file after line continuation"));
                    }
                }
                c if c.is_ascii_digit() || (c == '.' && self.peek(1).is_ascii_digit()) => self.number()?,
                c if c == '_' || c.is_alphabetic() => {
                    let start = self.i;
                    while self.peek(0) == '_' || self.peek(0).is_alphanumeric() {
                        self.bump();
                    }
                    let word: String = self.chars[start..self.i].iter().collect();
                    if (self.peek(0) == '\'' || self.peek(0) == '"') && word.len() <= 2 {
                        let lower = word.to_ascii_lowercase();
                        match lower.as_str() {
                            "r" | "u" => {
                                self.string(pos, lower == "r")?;
                                continue;
                            }
                            "f" | "rf" | "fr" => return Err(ParseError::unsupported(pos, "f-strings")),
                            "b" | "rb" | "br" => return Err(ParseError::unsupported(pos, "bytes literals")),
                            _ => {}
                        }
                    }
                    self.push(Tok::Name(word), pos);
                }
                '\'' | '"' => self.string(pos, false)?,
                _ => {
                    let op = OPERATORS.iter().find(|op| op.chars().enumerate().all(|(k, oc)| self.peek(k) == oc));
                    let Some(op) = op else {
                        return Err(ParseError::syntax(pos, format!("invalid character {c:?}")));
                    };
                    for _ in 0..op.chars().count() {
                        self.bump();
                    }
                    match *op {
                        "(" | "[" | "{" => self.depth += 1,
                        ")" | "]" | "}" => {
                            if self.depth == 0 {
                                return Err(ParseError::syntax(pos, format!("unmatched '{op}'")));
                            }
                            self.depth -= 1;
                        }
                        _ => {}
                    }
                    self.push(Tok::Op(op), pos);
                }
            }
        }
        let pos = self.pos();
        if self.depth > 0 {
            return Err(ParseError::syntax(pos, "unexpected end of file inside brackets"));
        }
        if !matches!(self.tokens.last().map(|t| &t.tok), None | Some(Tok::Newline) | Some(Tok::Dedent)) {
            self.push(Tok::Newline, pos);
        }
        while self.indents.len() > 1 {
            self.indents.pop();
            self.push(Tok::Dedent, pos);
        }
        self.push(Tok::End, pos);
        Ok(self.tokens)
    }

    fn digits(&mut self, radix: u32, out: &mut String) -> Result<(), ParseError> {
        loop {
            let c = self.peek(0);
            if c.is_digit(radix) {
                out.push(c);
                self.bump();
            } else if c == '_' && self.peek(1).is_digit(radix) && !out.is_empty() {
                self.bump();
            } else if c == '_' {
                return Err(ParseError::syntax(self.pos(), "invalid underscore in number literal"));
            } else {
                return Ok(());
            }
        }
    }

    fn number(&mut self) -> Result<(), ParseError> {
        let pos = self.pos();
        let c0 = self.peek(0);
        let c1 = self.peek(1).to_ascii_lowercase();
        if c0 == '0' && (c1 == 'x' || c1 == 'o' || c1 == 'b') {
            self.bump();
            self.bump();
            let radix = match c1 {
                'x' => 16,
                'o' => 8,
                _ => 2,
            };
            if self.peek(0) == '_' {
                self.bump();
            }
            let mut text = String::new();
            self.digits(radix, &mut text)?;
            if text.is_empty() || self.peek(0).is_alphanumeric() {
                return Err(ParseError::syntax(pos, "invalid number literal"));
            }
            let value = BigInt::from_str_radix(&text, radix).map_err(|_| ParseError::syntax(pos, "invalid number literal"))?;
            self.push(Tok::Int(PyValue::from_bigint(value)), pos);
            return Ok(());
        }
        let mut text = String::new();
        self.digits(10, &mut text)?;
        let mut is_float = false;
        if self.peek(0) == '.' {
            is_float = true;
            text.push('.');
            self.bump();
            if self.peek(0).is_ascii_digit() {
                self.digits(10, &mut text)?;
            }
        }
        if self.peek(0).eq_ignore_ascii_case(&'e')
            && (self.peek(1).is_ascii_digit() || ((self.peek(1) == '+' || self.peek(1) == '-') && self.peek(2).is_ascii_digit()))
        {
            is_float = true;
            text.push('e');
            self.bump();
            if self.peek(0) == '+' || self.peek(0) == '-' {
                text.push(self.bump());
            }
            self.digits(10, &mut text)?;
        }
        if self.peek(0).eq_ignore_ascii_case(&'j') {
            return Err(ParseError::unsupported(pos, "complex numbers"));
        }
        if self.peek(0) == '_' || self.peek(0).is_alphanumeric() {
            return Err(ParseError::syntax(pos, "invalid number literal"));
        }
        if is_float {
            let value: f64 = text.parse().map_err(|_| ParseError::syntax(pos, "invalid float literal"))?;
            self.push(Tok::Float(value), pos);
        } else {
            if text.len() > 1 && text.starts_with('0') && text.chars().any(|c| c != '0') {
                return Err(ParseError::syntax(pos, "leading zeros in decimal integer literals are not permitted"));
            }
            if text.len() > 4300 {
                return Err(ParseError::syntax(pos, "integer literal too long"));
            }
            let value = BigInt::from_str_radix(&text, 10).map_err(|_| ParseError::syntax(pos, "invalid number literal"))?;
            self.push(Tok::Int(PyValue::from_bigint(value)), pos);
        }
        Ok(())
    }

    fn string(&mut self, pos: Pos, raw: bool) -> Result<(), ParseError> {
        let quote = self.bump();
        let triple = self.peek(0) == quote && self.peek(1) == quote;
        if triple {
            self.bump();
            self.bump();
        }
        let mut out = String::new();
        loop {
            if self.at_end() {
                return Err(ParseError::syntax(pos, "unterminated string literal"));
            }
            let c = self.peek(0);
            if c == quote {
                if !triple {
                    self.bump();
                    break;
                }
                if self.peek(1) == quote && self.peek(2) == quote {
                    self.bump();
                    self.bump();
                    self.bump();
                    break;
                }
            }
            if c == '\n' && !triple {
                return Err(ParseError::syntax(pos, "unterminated string literal"));
            }
            self.bump();
            if c != '\\' {
                out.push(c);
                continue;
            }
            if self.at_end() {
                return Err(ParseError::syntax(pos, "unterminated string literal"));
            }
            let e = self.bump();
            if raw {
                out.push('\\');
                out.push(e);
                continue;
            }
            match e {
                '\n' => {}
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' if !self.peek(0).is_digit(8) => out.push('\0'),
                'a' => out.push('\x07'),
                'b' => out.push('\x08'),
                'f' => out.push('\x0c'),
                'v' => out.push('\x0b'),
                '\\' | '\'' | '"' => out.push(e),
                'x' | 'u' | 'U' => {
                    let n = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = (0..n).map(|_| self.bump()).collect();
                    let code = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                    match code {
                        Some(ch) => out.push(ch),
                        None => return Err(ParseError::syntax(pos, format!("invalid \\{e} escape in string literal"))),
                    }
                }
                '0'..='7' => {
                    let mut code = e.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        if let Some(d) = self.peek(0).to_digit(8) {
                            code = code * 8 + d;
                            self.bump();
                        }
                    }
                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                }
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
        // Adjacent string literals are concatenated by the parser.
        self.push(Tok::Str(out), pos);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<String> {
        tokenize(src)
            .map(|ts| {
                ts.into_iter()
                    .map(|t| match t.tok {
                        Tok::Name(n) => n,
                        Tok::Int(v) => v.repr(),
                        Tok::Float(f) => format!("{f}f"),
                        Tok::Str(s) => format!("{s:?}"),
                        Tok::Op(o) => o.to_string(),
                        Tok::Newline => "NL".into(),
                        Tok::Indent => "IN".into(),
                        Tok::Dedent => "DE".into(),
                        Tok::End => "END".into(),
                    })
                    .collect()
            })
            .unwrap_or_else(|e| vec![e.to_string()])
    }

    #[test]
    fn indentation_produces_indent_and_dedent_tokens() {
        assert_eq!(kinds("if x:\n    y = 1\n\n  # c\nz\n").join(" "), "if x : NL IN y = 1 NL DE z NL END");
    }

    #[test]
    fn brackets_join_lines_and_numbers_parse_with_underscores() {
        assert_eq!(kinds("a = [1,\n  2_000, 0x1f, 1e3]").join(" "), "a = [ 1 , 2000 , 31 , 1000f ] NL END");
    }

    #[test]
    fn bad_dedent_and_fstrings_are_located_errors() {
        assert_eq!(
            kinds("if x:\n    y\n  z\n")[0],
            "syntax error at line 3, column 3: unindent does not match any outer indentation level"
        );
        assert_eq!(kinds("x = f'{y}'")[0], "unsupported feature at line 1, column 5: f-strings");
    }

    #[test]
    fn strings_decode_escapes() {
        assert_eq!(kinds(r#"'a\n' "it's""#).join(" "), r#""a\n" "it's" NL END"#);
    }
}
