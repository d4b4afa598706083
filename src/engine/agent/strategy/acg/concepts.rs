//! Source-grounded concept anchors (section 3.2): the names of the requested outputs (`task_7_out`) and the values
//! they carried are concepts, and every unit that names a concept or carries one of its values is linked to it.
//! Each link records its source (the unit and the transcript message it came from) and how it was made, so
//! navigation can cross events without replacing evidence by a summary: a task's instruction span names
//! `task_7_out`, and the concept leads to the box that set it, whichever event that was.

/// How a unit is linked to a concept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// The unit's text names the concept (`task_7_out`).
    Name,
    /// The unit's text carries a value the concept was answered with.
    Value,
}

impl LinkKind {
    /// The spelling in the exported record.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::Name => "name",
            LinkKind::Value => "value",
        }
    }
}

/// One link between a concept and a unit, with its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConceptLink {
    /// The concept: an expected output name.
    pub concept: String,
    /// The unit linked.
    pub unit: usize,
    /// The transcript message the unit came from (the link's source).
    pub message_index: usize,
    /// How it was made.
    pub kind: LinkKind,
}

/// Shortest value, in characters, that links units by value: shorter ones (`7`, `-1`) occur everywhere.
pub const MIN_VALUE_CHARS: usize = 3;

/// The expected names `text` mentions as whole words, in `names` order.
pub fn names_in(text: &str, names: &[String]) -> Vec<String> {
    let words: Vec<&str> = text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
    names.iter().filter(|n| words.contains(&n.as_str())).cloned().collect()
}

/// True when `text` holds `value` not glued to a longer number or word on either side.
pub fn carries(text: &str, value: &str) -> bool {
    let value = value.trim();
    if value.chars().count() < MIN_VALUE_CHARS {
        return false;
    }
    let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
    text.match_indices(value).any(|(at, _)| !glued(text[..at].chars().next_back()) && !glued(text[at + value.len()..].chars().next()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_whole_words_and_values_are_whole_numbers() {
        let names = vec!["task_1_out".to_string(), "task_11_out".to_string()];
        assert_eq!(names_in("Inputs: task_11_out = 5; xtask_1_out", &names), vec!["task_11_out".to_string()]);
        assert!(carries("{\"results\": [\"-1082\"]}", "-1082"));
        assert!(!carries("10823", "1082"), "glued to a longer number");
        assert!(!carries("1082.5", "1082"));
        assert!(!carries("x = 7", "7"), "too short to link");
        assert!(carries("task_3_out = [1, 2, 3]", "[1, 2, 3]"));
    }
}
