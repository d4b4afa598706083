//! The Browse page's address: `#/browse?…` names the dataset shown, the filters and sort order, and the open
//! instance, so a reload, back and forward, or a copied address bring the same view back. The dataset part is a
//! `Link` (a dataset by key or name with the open position as `index`, or a regenerating link); a generated
//! run also carries its settings (`dataset=generated&topology=…`) so a fresh tab can make it again. The filters
//! use keys of their own (`f.topology`, `f.family`, `f.target`, `f.stages`, `f.text`, `sort`, `desc`), apart
//! from the generator's. Parsing is lenient: unknown keys are ignored, a bad value is left out and reported
//! with its place in the address. Plain Rust, tested natively.

use crate::app::browse::catalog::{Query, SortKey};
use crate::engine::generate::form::{query_pairs, GenerateForm};
use crate::app::browse::link::{encode, Link, MAX_LINKED_GRAPH};

/// The key of the generated run's dataset.
pub const GENERATED: &str = "generated";

/// What a `#/browse` address asks the page to show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BrowseAddress {
    /// The dataset and the open instance (`Link::None`: the address names no dataset).
    pub link: Link,
    /// The settings that make the generated run again (only with `dataset=generated`), and its custom graph.
    pub rerun: Option<(GenerateForm, Option<String>)>,
    /// The filters and sort order.
    pub query: Query,
}

/// A value the address holds that cannot be read: where it is and why.
#[derive(Clone, Debug, PartialEq)]
pub struct AddressProblem {
    /// The parameter's position in the query, from 1.
    pub position: usize,
    pub key: String,
    pub value: String,
    pub message: String,
}

impl std::fmt::Display for AddressProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the address's parameter {} (`{}={}`) {}", self.position, self.key, self.value, self.message)
    }
}

impl BrowseAddress {
    /// The dataset key or name the address shows, if any (`link` for a regenerating link).
    pub fn dataset(&self) -> Option<&str> {
        match &self.link {
            Link::Dataset { name, .. } => Some(name),
            Link::Regenerate { .. } => Some("link"),
            Link::None => None,
        }
    }

    /// The open instance's position.
    pub fn open(&self) -> Option<usize> {
        match &self.link {
            Link::Dataset { index, .. } => *index,
            Link::Regenerate { .. } => Some(0),
            Link::None => None,
        }
    }

    /// Reads a hash query; values that cannot be read are left out and reported, unknown keys are ignored.
    pub fn parse(query: &str) -> (BrowseAddress, Vec<AddressProblem>) {
        let pairs = query_pairs(query);
        let mut problems = Vec::new();
        let mut q = Query::default();
        let mut graph = None;
        for (i, (key, value)) in pairs.iter().enumerate() {
            let mut problem = |message: &str| problems.push(AddressProblem { position: i + 1, key: key.clone(), value: value.clone(), message: message.to_string() });
            match key.as_str() {
                "f.topology" => q.topology = value.clone(),
                "f.family" => q.family = value.clone(),
                "f.target" => q.target = value.clone(),
                "f.text" => q.text = value.clone(),
                "f.stages" => match value.parse() {
                    Ok(n) => q.stages = Some(n),
                    Err(_) => problem("is not a whole number of stages"),
                },
                "sort" => match SortKey::ALL.into_iter().find(|k| k.as_str() == value) {
                    Some(k) => q.sort = k,
                    None => problem("is not a sort order (index, target, stages, prompt_length, answer)"),
                },
                "desc" => match value.as_str() {
                    "1" | "true" => q.descending = true,
                    "0" | "false" => q.descending = false,
                    _ => problem("is not 1 or 0"),
                },
                "index" if value.parse::<usize>().is_err() => problem("is not a sample position (a whole number from 0)"),
                "graph" if !value.is_empty() => graph = Some(value.clone()),
                _ => {}
            }
        }
        let link = Link::parse(query);
        let rerun = match &link {
            Link::Dataset { name, .. } if name == GENERATED && pairs.iter().any(|(k, _)| k == "topology") => Some((GenerateForm::from_query(query), graph)),
            _ => None,
        };
        (BrowseAddress { link, rerun, query: q }, problems)
    }

    /// The address as a hash (`#/browse?…`). A regenerating link or a custom graph too long for a URL leaves
    /// out what cannot be carried (the dataset part, or the settings).
    pub fn to_hash(&self) -> String {
        let mut hash = match self.link.to_hash() {
            Some(h) => h,
            None => "#/browse".to_string(),
        };
        let mut params: Vec<String> = Vec::new();
        if let (Link::Dataset { .. }, Some((form, graph))) = (&self.link, &self.rerun) {
            params.push(form.to_query());
            if let Some(graph) = graph.as_deref().map(compact_json).filter(|g| g.len() <= MAX_LINKED_GRAPH) {
                params.push(format!("graph={}", encode(&graph)));
            }
        }
        let q = &self.query;
        for (key, value) in [("f.topology", &q.topology), ("f.family", &q.family), ("f.target", &q.target)] {
            if !value.is_empty() {
                params.push(format!("{key}={}", encode(value)));
            }
        }
        if let Some(n) = q.stages {
            params.push(format!("f.stages={n}"));
        }
        if !q.text.is_empty() {
            params.push(format!("f.text={}", encode(&q.text)));
        }
        if q.sort != SortKey::Index {
            params.push(format!("sort={}", q.sort.as_str()));
        }
        if q.descending {
            params.push("desc=1".into());
        }
        for p in params {
            hash.push(if hash.contains('?') { '&' } else { '?' });
            hash.push_str(&p);
        }
        hash
    }
}

/// JSON text without insignificant whitespace (the text itself when it does not parse).
fn compact_json(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text).map(|v| v.to_string()).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn query_of(hash: &str) -> &str {
        hash.split_once('?').map(|(_, q)| q).unwrap_or("")
    }

    #[test]
    fn a_site_dataset_with_filters_and_an_open_instance() {
        let address = BrowseAddress {
            link: Link::Dataset { name: "math_chain".into(), index: Some(7) },
            rerun: None,
            query: Query { target: "Convolution Task".into(), stages: Some(4), text: "a&b=c".into(), sort: SortKey::PromptLength, descending: true, ..Query::default() },
        };
        let hash = address.to_hash();
        assert_eq!(hash, "#/browse?dataset=math_chain&index=7&f.target=Convolution%20Task&f.stages=4&f.text=a%26b%3Dc&sort=prompt_length&desc=1");
        assert_eq!(BrowseAddress::parse(query_of(&hash)), (address, vec![]));
    }

    #[test]
    fn older_links_still_read() {
        let (address, problems) = BrowseAddress::parse("dataset=math_chain&index=3");
        assert_eq!((address.dataset(), address.open(), &address.query, problems), (Some("math_chain"), Some(3), &Query::default(), vec![]));
        let (address, _) = BrowseAddress::parse("topology=chain&family=math&spt=2&seed=4&length=4&target=3&sample=1");
        assert!(matches!(address.link, Link::Regenerate { target: 3, sample: 1, .. }), "{address:?}");
        assert_eq!((address.dataset(), address.open(), &address.rerun), (Some("link"), Some(0), &None));
        assert_eq!(BrowseAddress::parse(""), (BrowseAddress::default(), vec![]));
    }

    #[test]
    fn a_regenerating_link_keeps_its_filters_apart_from_its_settings() {
        let form = GenerateForm { topology: "chain".into(), family: "math".into(), seed: 4, ..GenerateForm::default() };
        let address = BrowseAddress { link: Link::Regenerate { form, graph: None, target: 3, sample: 1 }, rerun: None, query: Query { topology: "baseline".into(), ..Query::default() } };
        let hash = address.to_hash();
        assert!(hash.starts_with("#/browse?topology=chain&") && hash.ends_with("&f.topology=baseline"), "{hash}");
        assert_eq!(BrowseAddress::parse(query_of(&hash)).0, address);
    }

    #[test]
    fn a_generated_run_carries_its_settings() {
        let form = GenerateForm { topology: "forgetting".into(), family: "gsm".into(), samples_per_target: 3, seed: 9, distractors: 5, ..GenerateForm::default() };
        let address = BrowseAddress { link: Link::Dataset { name: GENERATED.into(), index: None }, rerun: Some((form, Some(r#"{"nodes":[]}"#.into()))), query: Query::default() };
        let hash = address.to_hash();
        assert_eq!(hash, "#/browse?dataset=generated&topology=forgetting&family=gsm&spt=3&seed=9&distractors=5&graph=%7B%22nodes%22%3A%5B%5D%7D");
        assert_eq!(BrowseAddress::parse(query_of(&hash)).0, address);
        let (plain, _) = BrowseAddress::parse("dataset=generated&index=2");
        assert_eq!(plain.rerun, None, "no settings, nothing to make again");
        let huge = format!("[{}]", vec!["1"; MAX_LINKED_GRAPH].join(","));
        let long = BrowseAddress { rerun: Some((GenerateForm::default(), Some(huge))), ..address };
        assert!(!long.to_hash().contains("graph="), "a graph too long for a URL stays out");
    }

    #[test]
    fn bad_values_are_located_and_left_out_unknown_keys_ignored() {
        let (address, problems) = BrowseAddress::parse("dataset=x&f.stages=four&whatever=1&sort=size&desc=maybe&index=-1&f.family=gsm");
        assert_eq!(address.query, Query { family: "gsm".into(), ..Query::default() });
        assert_eq!(address.open(), None);
        let located: Vec<(usize, &str)> = problems.iter().map(|p| (p.position, p.key.as_str())).collect();
        assert_eq!(located, vec![(2, "f.stages"), (4, "sort"), (5, "desc"), (6, "index")]);
        assert_eq!(problems[0].to_string(), "the address's parameter 2 (`f.stages=four`) is not a whole number of stages");
    }

    fn any_query() -> impl Strategy<Value = Query> {
        let text = "[ -~é→]{0,12}";
        (text, text, text, proptest::option::of(0usize..5000), text, 0usize..5, any::<bool>()).prop_map(|(topology, family, target, stages, text, sort, descending)| Query {
            topology,
            family,
            target,
            stages,
            text,
            sort: SortKey::ALL[sort],
            descending,
        })
    }

    proptest! {
        #[test]
        fn every_address_round_trips(query in any_query(), name in "[ -~é]{1,16}", index in proptest::option::of(0usize..100_000)) {
            let address = BrowseAddress { link: Link::Dataset { name, index }, rerun: None, query };
            let hash = address.to_hash();
            let (back, problems) = BrowseAddress::parse(query_of(&hash));
            prop_assert_eq!(problems, vec![]);
            prop_assert_eq!(back, address);
        }
    }
}
