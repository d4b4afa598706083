//! What the run store keeps of a browser run so that a reload can resume it: the samples and every setting
//! needed to rebuild the agent configuration, the endpoint's base URL and model, and never the API key.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::agent::strategy::Strategy;
use crate::app::evaluate::settings::RunSettings;
use crate::engine::agent::{AgentConfig, Endpoint, RequestShape, Wire};
use crate::engine::results::RunHeader;

/// A run as stored under its id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// `run-<milliseconds since the epoch>`: later runs sort later.
    pub id: String,
    /// The user's name for the run (empty: the run list names it after what it ran).
    #[serde(default)]
    pub name: String,
    /// True once every sample has a result.
    pub finished: bool,
    /// The dataset samples the run covers, in order.
    pub samples: Vec<Value>,
    /// The topology the configuration's defaults come from.
    pub topology: String,
    /// The context strategy as `name:key=value,…`.
    pub strategy: String,
    /// Completion limit of a normal turn.
    pub max_tokens: u32,
    /// Where the requests went (the key is not kept: it is typed again to resume).
    pub base_url: String,
    /// The model asked for.
    pub model: String,
    /// Temperature and limits beyond the basics (absent in runs stored before them: the defaults).
    #[serde(default)]
    pub settings: RunSettings,
    /// The provider's profile name (empty: inferred from the base URL, as in runs stored before it).
    #[serde(default)]
    pub provider: String,
    /// The wire spoken (`chat`, `messages`; empty: the provider's).
    #[serde(default)]
    pub wire: String,
    /// What the run changed in its requests to suit the endpoint (`provider::RequestShape::notes_json`), so a
    /// resumed run starts from what it learnt.
    #[serde(default)]
    pub adaptations: Value,
}

impl RunSpec {
    /// The results file's header for this run (the endpoint without its key: the header never holds one).
    pub fn header(&self, started_at: String) -> Result<RunHeader, String> {
        let endpoint = self.endpoint();
        let mut header = RunHeader::new(&self.config()?, &endpoint, &format!("generated in the browser ({})", self.topology), &serde_json::json!({}), started_at);
        header.adaptations = self.shape().notes_json();
        Ok(header)
    }

    /// The endpoint the run went to, without key or headers (typed again to resume: never stored).
    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            provider: self.provider.clone(),
            wire: Wire::parse(&self.wire).ok(),
            ..Endpoint::default()
        }
    }

    /// What the run's requests carry: its provider's rules and the adaptations it kept.
    pub fn shape(&self) -> RequestShape {
        let endpoint = self.endpoint();
        RequestShape::resumed(endpoint.profile(), endpoint.wire(), &self.model, Some(&self.adaptations))
    }

    /// The agent configuration of every sample: the topology's defaults with the run's limits and strategy.
    pub fn config(&self) -> Result<AgentConfig, String> {
        let mut config = AgentConfig::for_topology(&self.topology);
        config.max_tokens = self.max_tokens;
        config.repair_max_tokens = self.max_tokens.saturating_mul(2);
        config.max_turns = config.max_turns.min(60);
        config.strategy = Strategy::parse(&self.strategy).map_err(|e| e.to_string())?;
        self.settings.apply(&mut config);
        Ok(config)
    }
}

/// The latest unfinished run among stored ones, if any.
pub fn latest_unfinished(runs: Vec<RunSpec>) -> Option<RunSpec> {
    // Ids are `run-<ms>` or, for a strategy lab's runs, `run-<ms>-lab<k>`: ordered by the stamp, then the place.
    let key = |id: &str| -> (u64, u64) {
        let rest = id.strip_prefix("run-").unwrap_or(id);
        let (stamp, at) = rest.split_once("-lab").unwrap_or((rest, ""));
        (stamp.parse().unwrap_or(0), at.parse().unwrap_or(0))
    };
    runs.into_iter().filter(|r| !r.finished).max_by_key(|r| key(&r.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(id: &str, finished: bool) -> RunSpec {
        RunSpec {
            id: id.into(),
            name: String::new(),
            finished,
            samples: vec![json!({"prompt": "p"})],
            topology: "chain".into(),
            strategy: "mask:keep=3".into(),
            max_tokens: 512,
            base_url: "http://127.0.0.1:1/v1".into(),
            model: "m".into(),
            settings: RunSettings::default(),
            provider: String::new(),
            wire: String::new(),
            adaptations: Value::Null,
        }
    }

    #[test]
    fn a_stored_spec_rebuilds_the_configuration_and_round_trips() {
        let s = spec("run-1", false);
        let config = s.config().unwrap();
        assert_eq!((config.max_tokens, config.repair_max_tokens), (512, 1024));
        assert_eq!(config.strategy.name(), "mask");
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<RunSpec>(&text).unwrap(), s);
        assert!(!text.contains("key"), "no field for a key: {text}");
        assert!(RunSpec { strategy: "nope".into(), ..s }.config().is_err());
    }

    #[test]
    fn the_latest_unfinished_run_is_offered_for_resuming() {
        let runs = vec![spec("run-900", false), spec("run-1000", false), spec("run-2000", true)];
        assert_eq!(latest_unfinished(runs).map(|r| r.id), Some("run-1000".into()));
        assert_eq!(latest_unfinished(vec![spec("run-1", true)]), None);
        let lab = vec![spec("run-2000", false), spec("run-1500-lab1", false), spec("run-1500-lab0", false)];
        assert_eq!(latest_unfinished(lab).map(|r| r.id), Some("run-2000".into()), "a lab's longer id is not a later run");
        let lab = vec![spec("run-1000", false), spec("run-1500-lab1", false), spec("run-1500-lab0", false)];
        assert_eq!(latest_unfinished(lab).map(|r| r.id), Some("run-1500-lab1".into()));
    }

    #[test]
    fn a_stored_run_keeps_its_provider_and_what_it_learnt_but_never_a_key() {
        use crate::engine::agent::provider::{compatible, RequestShape, Wire};
        let refusal = r#"{"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "param": "max_tokens", "code": "unsupported_parameter"}}"#;
        let mut shape = RequestShape::new(compatible(), Wire::ChatCompletions, "gpt-5-mini");
        shape.adapt(400, refusal).expect("adapted");
        let stored = RunSpec { model: "gpt-5-mini".into(), adaptations: shape.notes_json(), ..spec("run-5", false) };
        let back: RunSpec = serde_json::from_value(serde_json::to_value(&stored).unwrap()).unwrap();
        assert_eq!(back.shape(), shape, "a resumed run sends what the stopped one had learnt");
        let header = back.header("t".into()).unwrap();
        assert_eq!(header.adaptations, shape.notes_json());
        let anthropic = RunSpec { provider: "anthropic".into(), wire: "chat".into(), base_url: "https://api.anthropic.com/v1".into(), ..spec("run-6", false) };
        assert_eq!(anthropic.endpoint().chat_url(), "https://api.anthropic.com/v1/chat/completions");
        assert_eq!(anthropic.header("t".into()).unwrap().generation_params["provider"], "anthropic");
        let old: RunSpec = serde_json::from_value(json!({"id": "run-1", "finished": false, "samples": [], "topology": "chain", "strategy": "full",
            "max_tokens": 5, "base_url": "http://127.0.0.1:11434/v1", "model": "m"})).unwrap();
        assert_eq!(old.endpoint().profile().key, "ollama", "runs stored before providers infer theirs from the URL");
    }
}
