//! The multichain structure language: `m,m,[m,m],[m,m],m,m` (also the reference's Python-list form
//! `['math', 'math', ['math', 'math'], …]`). Consecutive branch lists form a branch block.

use crate::engine::tasks::Family;

/// One item: a flat task or a branch (a list of tasks).
#[derive(Clone, Debug, PartialEq)]
pub enum StructureItem {
    Flat(Family),
    Branch(Vec<Family>),
}

/// A parsed, checked structure.
#[derive(Clone, Debug, PartialEq)]
pub struct Structure {
    pub items: Vec<StructureItem>,
}

/// A structure that breaks a rule, with the position it was found at.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StructureError {
    #[error("at character {at}: {message}")]
    Syntax { at: usize, message: String },
    #[error("{0}")]
    Rule(String),
}

impl Structure {
    /// The family of the final (target) task.
    pub fn last_family(&self) -> Family {
        match self.items.last() {
            Some(StructureItem::Flat(f)) => *f,
            _ => Family::Math,
        }
    }

    /// The reference's summary form: `["math", ["math", "math"], …]`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Array(
            self.items
                .iter()
                .map(|item| match item {
                    StructureItem::Flat(f) => serde_json::json!(f.as_str()),
                    StructureItem::Branch(fs) => serde_json::json!(fs.iter().map(|f| f.as_str()).collect::<Vec<_>>()),
                })
                .collect(),
        )
    }

    /// Total number of tasks.
    pub fn task_count(&self) -> usize {
        self.items.iter().map(|i| match i {
            StructureItem::Flat(_) => 1,
            StructureItem::Branch(b) => b.len(),
        }).sum()
    }
}

/// Parses and checks a structure.
pub fn parse_structure(text: &str) -> Result<Structure, StructureError> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    let skip = |i: &mut usize| {
        while *i < chars.len() && (chars[*i].1.is_whitespace() || chars[*i].1 == ',') {
            *i += 1;
        }
    };
    let at = |i: usize| chars.get(i).map(|c| c.0).unwrap_or(text.len());
    let word = |i: &mut usize| -> Result<Family, StructureError> {
        let start = *i;
        while *i < chars.len() && (chars[*i].1.is_alphanumeric() || chars[*i].1 == '_' || chars[*i].1 == '\'' || chars[*i].1 == '"') {
            *i += 1;
        }
        let raw: String = chars[start..*i].iter().map(|c| c.1).collect();
        let name = raw.trim_matches(|c| c == '\'' || c == '"');
        Family::parse(name).ok_or(StructureError::Syntax { at: at(start), message: format!("unknown family `{raw}` (use m/math, g/gsm, p/py/python, i/image)") })
    };
    // An optional outer pair of brackets (the Python-list form).
    let mut inner_end = chars.len();
    skip(&mut i);
    let outer = i < chars.len() && chars[i].1 == '[' && {
        let mut depth = 0;
        let mut closes_at_end = false;
        for (k, c) in chars.iter().enumerate().skip(i) {
            match c.1 {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        closes_at_end = chars[k + 1..].iter().all(|c| c.1.is_whitespace());
                        break;
                    }
                }
                _ => {}
            }
        }
        closes_at_end && chars[i + 1..].iter().any(|c| c.1 == '[')
    };
    if outer {
        i += 1;
        inner_end = chars.iter().rposition(|c| c.1 == ']').unwrap_or(chars.len());
    }
    let mut items = Vec::new();
    loop {
        skip(&mut i);
        if i >= inner_end {
            break;
        }
        if chars[i].1 == '[' {
            i += 1;
            let mut branch = Vec::new();
            loop {
                skip(&mut i);
                if i >= inner_end {
                    return Err(StructureError::Syntax { at: at(i), message: "unclosed `[`".into() });
                }
                match chars[i].1 {
                    ']' => {
                        i += 1;
                        break;
                    }
                    '[' => return Err(StructureError::Syntax { at: at(i), message: "branches cannot be nested".into() }),
                    _ => branch.push(word(&mut i)?),
                }
            }
            items.push(StructureItem::Branch(branch));
        } else if chars[i].1 == ']' {
            return Err(StructureError::Syntax { at: at(i), message: "unexpected `]`".into() });
        } else {
            items.push(StructureItem::Flat(word(&mut i)?));
        }
    }
    check(Structure { items })
}

fn check(structure: Structure) -> Result<Structure, StructureError> {
    let items = &structure.items;
    let rule = |m: &str| Err(StructureError::Rule(m.to_string()));
    if !items.iter().any(|i| matches!(i, StructureItem::Branch(_))) {
        return rule("a multichain needs at least one branch block, e.g. m,m,[m,m],[m,m],m,m");
    }
    if matches!(items.first(), Some(StructureItem::Branch(_))) || matches!(items.last(), Some(StructureItem::Branch(_))) {
        return rule("every branch block must be preceded and followed by at least one flat task");
    }
    let mut k = 0;
    while k < items.len() {
        if let StructureItem::Branch(_) = items[k] {
            let start = k;
            while k < items.len() && matches!(items[k], StructureItem::Branch(_)) {
                if let StructureItem::Branch(b) = &items[k] {
                    if b.is_empty() {
                        return rule("a branch cannot be empty");
                    }
                }
                k += 1;
            }
            let n = k - start;
            if !(2..=10).contains(&n) {
                return Err(StructureError::Rule(format!("a branch block needs 2 to 10 branches, found {n}")));
            }
        } else {
            k += 1;
        }
    }
    Ok(structure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_short_and_python_list_forms() {
        let short = parse_structure("m,m,[m,m],[m,m],m,m").expect("valid");
        let long = parse_structure("['math', 'math', ['math', 'math'], ['math', 'math'], 'math', 'math']").expect("valid");
        assert_eq!(short, long);
        assert_eq!(short.task_count(), 8);
        assert_eq!(parse_structure("p,[p,g],[m],m").expect("valid").items.len(), 4);
    }

    #[test]
    fn rejects_rule_breaks_with_reasons() {
        for (text, needle) in [
            ("m,m,m", "at least one branch"),
            ("[m],[m],m", "preceded"),
            ("m,[m],m", "2 to 10"),
            ("m,[m,[m]],[m],m", "nested"),
            ("m,[x],[m],m", "unknown family"),
            ("m,[m,m", "unclosed"),
        ] {
            let err = parse_structure(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }
}
