//! URLs as they may be written to a file: without userinfo (`user:password@`), query string or fragment, where
//! people put keys (`?key=…`, `?api-key=…`). Everything the results module writes goes through here.

/// `url` without credentials: `https://u:p@host/v1?key=x#f` becomes `https://host/v1`.
pub fn redact_url(url: &str) -> String {
    let url = url.trim();
    let cut = url.find(['?', '#']).unwrap_or(url.len());
    let query = url[cut..].strip_prefix('?').unwrap_or_default();
    let query = query.split('#').next().unwrap_or_default();
    // Only parameters known to carry no secret survive (Azure's `api-version`); keys, tokens and signatures never.
    let kept: Vec<&str> = query.split('&').filter(|pair| KEPT_QUERY.contains(&pair.split('=').next().unwrap_or_default())).collect();
    let query = if kept.is_empty() { String::new() } else { format!("?{}", kept.join("&")) };
    let url = &url[..cut];
    let (scheme, rest) = match url.find("://") {
        Some(i) => (&url[..i + 3], &url[i + 3..]),
        None => ("", url),
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host = match authority.rfind('@') {
        Some(at) => &authority[at + 1..],
        None => authority,
    };
    format!("{scheme}{host}{path}{query}")
}

/// Query parameters a redacted URL keeps.
const KEPT_QUERY: &[&str] = &["api-version"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_queries_and_fragments_are_removed() {
        for (given, written) in [
            ("https://user:secret@api.example.com/v1", "https://api.example.com/v1"),
            ("https://api.example.com/v1?key=sk-1&x=2", "https://api.example.com/v1"),
            ("http://127.0.0.1:8099/v1#token", "http://127.0.0.1:8099/v1"),
            ("https://a@b@host:1/v1/chat/completions?k", "https://host:1/v1/chat/completions"),
            ("  http://host/v1  ", "http://host/v1"),
            ("host/v1?key=1", "host/v1"),
            ("http://plain/v1", "http://plain/v1"),
            ("https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21&api-key=sk-1", "https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21"),
            ("https://r.openai.azure.com/openai/deployments/d?key=sk-1&api-version=2024-10-21#x", "https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21"),
            ("http://host/a@b/v1", "http://host/a@b/v1"),
        ] {
            assert_eq!(redact_url(given), written, "{given}");
        }
    }
}
