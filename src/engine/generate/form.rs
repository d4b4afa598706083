//! The generator settings a user picks, as plain strings that round-trip through a URL's query (the page's
//! address, a site's links), and their mapping to a `GenerateConfig`.

use super::{GenerateConfig, Topology, TopologyParams};
use crate::engine::tasks::Family;

/// The generator settings a user picks, as plain strings (they round-trip through the URL hash).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GenerateForm {
    pub topology: String,
    pub family: String,
    pub samples_per_target: u32,
    pub seed: u64,
    pub length: usize,
    pub distractors: usize,
    pub structure: String,
}

impl Default for GenerateForm {
    fn default() -> GenerateForm {
        GenerateForm {
            topology: "baseline".into(),
            family: "math".into(),
            samples_per_target: 2,
            seed: 0,
            length: 4,
            distractors: 3,
            structure: String::new(),
        }
    }
}

impl GenerateForm {
    /// Reads settings from a hash query (`topology=chain&family=math&seed=3`); unknown keys are ignored.
    pub fn from_query(query: &str) -> GenerateForm {
        let mut form = GenerateForm::default();
        for (key, value) in query_pairs(query) {
            match key.as_str() {
                "topology" => form.topology = value,
                "family" => form.family = value,
                "spt" => form.samples_per_target = value.parse().unwrap_or(form.samples_per_target),
                "seed" => form.seed = value.parse().unwrap_or(form.seed),
                "length" => form.length = value.parse().unwrap_or(form.length),
                "distractors" => form.distractors = value.parse().unwrap_or(form.distractors),
                "structure" => form.structure = value,
                _ => {}
            }
        }
        form
    }

    /// The settings as a hash query.
    pub fn to_query(&self) -> String {
        let mut q = format!(
            "topology={}&family={}&spt={}&seed={}",
            self.topology, self.family, self.samples_per_target, self.seed
        );
        match self.topology.as_str() {
            "chain" => q.push_str(&format!("&length={}", self.length)),
            "forgetting" => q.push_str(&format!("&distractors={}", self.distractors)),
            "multichain" if !self.structure.is_empty() => q.push_str(&format!("&structure={}", encode(&self.structure))),
            _ => {}
        }
        q
    }

    /// The engine configuration, or a message saying what is wrong.
    pub fn to_config(&self) -> Result<GenerateConfig, String> {
        let families = families_of(&self.family)?;
        let params = TopologyParams { distractors: self.distractors, length: self.length, structure: Some(&self.structure) };
        let topology = Topology::parse(&self.topology, &params, families[0])?;
        if self.samples_per_target == 0 || self.samples_per_target > 64 {
            return Err("samples per target must be between 1 and 64 in the browser (use the CLI for more)".into());
        }
        if self.length == 0 || self.length > 2000 {
            return Err("chain length must be between 1 and 2000 in the browser".into());
        }
        let mut config = GenerateConfig::new(topology, families);
        config.samples_per_target = self.samples_per_target;
        config.seed = self.seed;
        Ok(config)
    }
}

/// The families a form's `family` names: one family, `mixed`, or a comma-separated list whose items may name a
/// source (`python.ref`, `gsm.ours`); which source a run draws from is the registry's choice
/// (`registry::FamilyChoice`), so only the family part counts here.
fn families_of(text: &str) -> Result<Vec<Family>, String> {
    let mut families = Vec::new();
    for item in text.split(',').map(str::trim) {
        let family = item.split_once('.').map_or(item, |(family, _)| family);
        let named = match family {
            "mixed" if family == item => Family::ALL.to_vec(),
            other => vec![Family::parse(other).ok_or_else(|| format!("unknown family `{item}`"))?],
        };
        for family in named {
            if !families.contains(&family) {
                families.push(family);
            }
        }
    }
    Ok(families)
}

/// `key=value` pairs of a query string, percent-decoded.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b',' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_round_trips_through_the_hash_query() {
        let form = GenerateForm { topology: "multichain".into(), structure: "m,[m,m],[m,m],m".into(), seed: 9, ..GenerateForm::default() };
        assert_eq!(GenerateForm::from_query(&form.to_query()), form);
        let chain = GenerateForm { topology: "chain".into(), length: 7, family: "gsm".into(), ..GenerateForm::default() };
        assert_eq!(GenerateForm::from_query(&chain.to_query()), chain);
    }

    #[test]
    fn bad_settings_give_messages_not_panics() {
        let bad = GenerateForm { family: "poetry".into(), ..GenerateForm::default() };
        assert!(bad.to_config().unwrap_err().contains("poetry"));
        let bad = GenerateForm { topology: "multichain".into(), structure: "m,[m".into(), ..GenerateForm::default() };
        assert!(bad.to_config().unwrap_err().starts_with("structure \"m,[m\":"));
        let bad = GenerateForm { samples_per_target: 1000, ..GenerateForm::default() };
        assert!(bad.to_config().is_err());
        assert_eq!(query_pairs("a=1&b=x%20y&&c"), vec![("a".into(), "1".into()), ("b".into(), "x y".into()), ("c".into(), "".into())]);
    }

    #[test]
    fn a_family_may_name_sources_and_lists_of_them() {
        let families = |text: &str| GenerateForm { family: text.into(), ..GenerateForm::default() }.to_config().map(|c| c.families);
        assert_eq!(families("python.ref"), Ok(vec![Family::Python]));
        assert_eq!(families("python.ours, python.ref"), Ok(vec![Family::Python]));
        assert_eq!(families("gsm.symbolic,math"), Ok(vec![Family::Gsm, Family::Math]));
        assert_eq!(families("mixed"), Ok(Family::ALL.to_vec()));
        assert_eq!(families("mixed.ref"), Err("unknown family `mixed.ref`".to_string()));
        let round = GenerateForm { family: "python.ours,python.ref".into(), ..GenerateForm::default() };
        assert_eq!(GenerateForm::from_query(&round.to_query()), round);
    }
}
