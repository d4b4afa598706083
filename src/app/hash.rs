//! The page's address: the query of its hash (`#/results?file=run&sample=3`) and one parameter of it.

use crate::engine::generate::form::query_pairs;

/// The query part of a hash (`#/generate?seed=3&i=2` → `seed=3&i=2`).
pub fn hash_query(hash: &str) -> &str {
    hash.split_once('?').map(|(_, q)| q).unwrap_or("")
}

/// The value of `key` in a hash's query (`#/results?file=run&sample=3`, key `file` → `run`), decoded.
pub fn hash_param(hash: &str, key: &str) -> Option<String> {
    query_pairs(hash_query(hash)).into_iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_parameter_is_found_by_key_and_decoded() {
        assert_eq!(hash_param("#/results?file=my%20run&sample=3", "file").as_deref(), Some("my run"));
        assert_eq!(hash_param("#/results?file=a&sample=3", "sample").as_deref(), Some("3"));
        assert_eq!(hash_param("#/results?file=a", "sample"), None);
        assert_eq!(hash_param("#/results", "file"), None);
        assert_eq!(hash_query("#/generate?seed=3&i=2"), "seed=3&i=2");
    }
}
