//! The Evaluate page's strategy settings as plain data: the chosen strategy is one `name:key=value,…` spec (what
//! `Strategy::parse` reads and a run stores); these read its name and parameter values and change one parameter
//! through the registry's own checks.

use crate::engine::agent::strategy::{info, registry, ParamInfo, Strategy};

/// The strategy name of `spec` (the part before `:`).
pub fn name_of(spec: &str) -> &str {
    spec.split_once(':').map_or(spec, |(name, _)| name).trim()
}

/// Every parameter of `spec`'s strategy with its current value (defaults where `spec` does not parse).
pub fn params_of(spec: &str) -> Vec<(ParamInfo, u64)> {
    let Some(strategy_info) = info(name_of(spec)) else { return Vec::new() };
    let parsed = Strategy::parse(spec).ok();
    strategy_info
        .params
        .iter()
        .map(|p| {
            let value = parsed.as_ref().and_then(|s| s.params().into_iter().find(|(k, _)| *k == p.key).map(|(_, v)| v)).unwrap_or(p.default);
            (*p, value)
        })
        .collect()
}

/// `spec` with parameter `key` set to `text`; the registry's own checks refuse an unknown parameter, a value that
/// is not a whole number or one outside its range, with a message that names the parameter.
pub fn with_param(spec: &str, key: &str, text: &str) -> Result<String, String> {
    let mut parts: Vec<(String, String)> = params_of(spec).iter().map(|(p, v)| (p.key.to_string(), v.to_string())).collect();
    match parts.iter_mut().find(|(k, _)| k == key) {
        Some(part) => part.1 = text.trim().to_string(),
        None => parts.push((key.to_string(), text.trim().to_string())),
    }
    Strategy::from_parts(name_of(spec), &parts).map(|s| s.to_string()).map_err(|e| e.to_string())
}

/// The names the page offers, with their one-line descriptions.
pub fn choices() -> Vec<(&'static str, &'static str)> {
    registry().iter().map(|s| (s.name, s.description)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_gives_its_name_and_every_parameter_with_defaults_filled_in() {
        assert_eq!(name_of("mask:keep=3"), "mask");
        assert_eq!(name_of("full"), "full");
        let params = params_of("summary:keep_exchanges=2");
        let shown: Vec<(&str, u64)> = params.iter().map(|(p, v)| (p.key, *v)).collect();
        assert_eq!(shown, [("trigger_tokens", 8_000), ("keep_exchanges", 2), ("summary_tokens", 1_024)]);
        assert!(params_of("full").is_empty());
        assert!(params_of("nope").is_empty());
    }

    #[test]
    fn changing_a_parameter_keeps_the_others_and_parses_back() {
        let spec = with_param("summary:keep_exchanges=2", "trigger_tokens", "500").expect("in range");
        assert_eq!(spec, "summary:trigger_tokens=500,keep_exchanges=2,summary_tokens=1024");
        assert_eq!(Strategy::parse(&spec).map(|s| s.to_string()), Ok(spec.clone()));
        assert_eq!(with_param("mask", "keep", " 3 "), Ok("mask:keep=3".into()));
    }

    #[test]
    fn out_of_range_or_non_numbers_are_refused_by_name() {
        assert_eq!(with_param("window", "exchanges", "0"), Err("parameter `exchanges` of `window` must be between 1 and 1000000, got 0".into()));
        assert!(with_param("mask", "keep", "three").is_err_and(|e| e.contains("`keep`") && e.contains("three")), "{:?}", with_param("mask", "keep", "three"));
        assert!(with_param("full", "keep", "3").is_err_and(|e| e.contains("`keep`")), "{:?}", with_param("full", "keep", "3"));
        assert!(choices().iter().any(|(name, _)| *name == "graph"));
    }
}
