//! The Evaluate page's strategy settings as plain data: the page keeps a parsed [`Strategy`]; these list the
//! strategies it offers (from `strategy::all()`), give the chosen one's parameters with their values, and change
//! one parameter or the strategy through the registry's own checks.

use crate::engine::agent::strategy::{all, ParamInfo, Strategy};

/// Every parameter of `strategy` with its current value, in registry order.
pub fn params_of(strategy: &Strategy) -> Vec<(ParamInfo, u64)> {
    strategy.info().params.iter().copied().zip(strategy.params().into_iter().map(|(_, value)| value)).collect()
}

/// `strategy` with parameter `key` set to `text`; the registry's own checks refuse an unknown parameter, a value
/// that is not a whole number or one outside its range, with a message that names the parameter.
pub fn with_param(strategy: &Strategy, key: &str, text: &str) -> Result<Strategy, String> {
    strategy.with_param(key, text).map_err(|e| e.to_string())
}

/// The strategy the picker's option `name` stands for, every parameter at its default.
pub fn choose(name: &str) -> Result<Strategy, String> {
    Strategy::from_parts(name.trim(), &[]).map_err(|e| e.to_string())
}

/// The names the page offers, with their one-line descriptions, in the order of `strategy::all()`.
pub fn choices() -> Vec<(&'static str, &'static str)> {
    all().iter().map(|s| (s.info().name, s.info().description)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Strategy {
        Strategy::parse(text).expect("a registered strategy")
    }

    #[test]
    fn a_strategy_gives_its_name_and_every_parameter_with_defaults_filled_in() {
        assert_eq!(parse("mask:keep=3").name(), "mask");
        assert_eq!(choose("full"), Ok(Strategy::default()));
        let params = params_of(&parse("summary:keep_exchanges=2"));
        let shown: Vec<(&str, u64)> = params.iter().map(|(p, v)| (p.key, *v)).collect();
        assert_eq!(shown, [("trigger_tokens", 8_000), ("keep_exchanges", 2), ("summary_tokens", 1_024)]);
        assert!(params_of(&parse("full")).is_empty());
        assert!(choose("nope").is_err_and(|e| e.contains("unknown context strategy `nope`")));
    }

    #[test]
    fn changing_a_parameter_keeps_the_others_and_parses_back() {
        let strategy = with_param(&parse("summary:keep_exchanges=2"), "trigger_tokens", "500").expect("in range");
        assert_eq!(strategy.to_string(), "summary:trigger_tokens=500,keep_exchanges=2,summary_tokens=1024");
        assert_eq!(Strategy::parse(&strategy.to_string()), Ok(strategy.clone()));
        assert_eq!(with_param(&parse("mask"), "keep", " 3 ").map(|s| s.to_string()), Ok("mask:keep=3".into()));
    }

    #[test]
    fn out_of_range_or_non_numbers_are_refused_by_name() {
        assert_eq!(with_param(&parse("window"), "exchanges", "0"), Err("parameter `exchanges` of `window` must be between 1 and 1000000, got 0".into()));
        assert!(with_param(&parse("mask"), "keep", "three").is_err_and(|e| e.contains("`keep`") && e.contains("three")));
        assert!(with_param(&parse("full"), "keep", "3").is_err_and(|e| e.contains("`keep`")));
        assert!(choices().iter().any(|(name, _)| *name == "graph"));
    }

    #[test]
    fn the_picker_offers_every_listed_strategy_including_the_test_only_example() {
        let names: Vec<&str> = choices().iter().map(|(name, _)| *name).collect();
        let listed: Vec<&str> = all().iter().map(|s| s.info().name).collect();
        assert_eq!(names, listed);
        assert!(names.contains(&"recent-answers"), "one line in `all()` reaches the page: {names:?}");
        assert_eq!(choose("recent-answers").map(|s| s.to_string()), Ok("recent-answers:keep=3".into()));
    }
}
