//! The app's state, in one place: the designer's graph, the generator's form and samples, the evaluation's
//! endpoint settings and the latest results. `App` provides one `AppState`; pages read and change it through
//! the methods here, so navigating between routes keeps everything (pages are rebuilt, their state is not).
//! No business rules: graph edits go through `TaskGraph::apply`, generation through `engine::generate`.

use leptos::prelude::*;

use crate::engine::agent::{Endpoint, Secret};
use crate::engine::generate::{self, Sample};
use crate::engine::graph::{self, EditError, GraphEdit, TaskGraph};
use crate::engine::tasks::registry::{builtin, Registry};
use crate::ui::form::GenerateForm;

thread_local! {
    static REGISTRY: Registry = builtin();
}

/// Runs `f` with the built-in registry (built once per page load).
pub fn with_registry<R>(f: impl FnOnce(&Registry) -> R) -> R {
    REGISTRY.with(f)
}

/// The example graph the designer opens with.
pub const FIRST_GRAPH: &str = include_str!("../../public/examples/diamond.json");

/// The designer's graph. It changes only through [`DesignState::apply`] (one `GraphEdit` at a time, refused edits
/// leave it untouched) or [`DesignState::replace`] (an import that already parsed).
#[derive(Clone, Copy)]
pub struct DesignState {
    graph: RwSignal<TaskGraph>,
    /// The node-link JSON the text editor shows; kept in step with the graph.
    pub text: RwSignal<String>,
}

impl DesignState {
    fn new() -> DesignState {
        let graph = graph::from_json_str(FIRST_GRAPH).unwrap_or_default();
        DesignState { graph: RwSignal::new(graph), text: RwSignal::new(FIRST_GRAPH.to_string()) }
    }

    /// The graph, read-only.
    pub fn graph(&self) -> Signal<TaskGraph> {
        self.graph.into()
    }

    /// Applies one edit; a refused edit changes nothing and says why.
    pub fn apply(&self, edit: GraphEdit) -> Result<(), EditError> {
        let mut result = Ok(());
        self.graph.update(|g| result = g.apply(edit));
        if result.is_ok() {
            self.text.set(graph::to_json(&self.graph.get_untracked()).to_string());
        }
        result
    }

    /// Replaces the graph with one parsed elsewhere (an import, a preset, the text editor).
    pub fn replace(&self, graph: TaskGraph, text: String) {
        self.graph.set(graph);
        self.text.set(text);
    }
}

/// The generator's form, its samples and what the last run said.
#[derive(Clone, Copy)]
pub struct GenerationState {
    /// The settings (they round-trip through the URL).
    pub form: RwSignal<GenerateForm>,
    /// The samples of the last successful run (or of a deep link).
    pub samples: RwSignal<Vec<Sample>>,
    /// The selected sample's position in `samples`.
    pub selected: RwSignal<Option<usize>>,
    /// What the last run did; cleared when a run starts, so it never describes an older run.
    pub status: RwSignal<String>,
    /// Why the last run failed; cleared when a run starts.
    pub error: RwSignal<String>,
}

impl GenerationState {
    fn new() -> GenerationState {
        GenerationState {
            form: RwSignal::new(GenerateForm::default()),
            samples: RwSignal::new(Vec::new()),
            selected: RwSignal::new(None),
            status: RwSignal::new(String::new()),
            error: RwSignal::new(String::new()),
        }
    }

    /// Generates every sample of the form's settings: the one entry point of the pages. A failure leaves the
    /// previous samples in place but clears the status line, so nothing stale describes them as new.
    pub fn generate(&self) {
        self.status.set(String::new());
        self.error.set(String::new());
        let config = match self.form.get_untracked().to_config() {
            Ok(c) => c,
            Err(e) => return self.error.set(e),
        };
        match with_registry(|r| generate::generate(&config, r, &mut |_, _| {})) {
            Ok(made) => {
                self.status.set(format!("{} samples generated", made.len()));
                self.samples.set(made);
                self.selected.set(Some(0));
            }
            Err(e) => self.error.set(e.to_string()),
        }
    }

    /// Regenerates one sample alone (a deep link), replacing the list with it.
    pub fn generate_one(&self, target: usize, sample: u32) {
        self.status.set(String::new());
        self.error.set(String::new());
        let config = match self.form.get_untracked().to_config() {
            Ok(c) => c,
            Err(e) => return self.error.set(e),
        };
        match with_registry(|r| generate::generate_sample(&config, r, target, sample)) {
            Ok(one) => {
                self.status.set(format!("sample {sample} of target {target}, regenerated alone from the link"));
                self.samples.set(vec![one]);
                self.selected.set(Some(0));
            }
            Err(e) => self.error.set(e.to_string()),
        }
    }
}

/// Where evaluations go. The key is a `Secret`: it stays in memory and is never serialised.
#[derive(Clone, Copy)]
pub struct EvaluationState {
    /// Base URL, model, key and extra headers.
    pub endpoint: RwSignal<Endpoint>,
    /// `full` or `acg`.
    pub strategy: RwSignal<String>,
    /// How many samples a run takes from the dataset.
    pub sample_limit: RwSignal<usize>,
    /// Completion limit of a normal turn.
    pub max_tokens: RwSignal<u32>,
}

impl EvaluationState {
    fn new() -> EvaluationState {
        EvaluationState {
            endpoint: RwSignal::new(Endpoint {
                base_url: "http://127.0.0.1:8099/v1".into(),
                model: "local".into(),
                api_key: Secret::default(),
                headers: Vec::new(),
            }),
            strategy: RwSignal::new("full".into()),
            sample_limit: RwSignal::new(3),
            max_tokens: RwSignal::new(2048),
        }
    }
}

/// Everything the pages share, provided once by `App`.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The designer.
    pub design: DesignState,
    /// Generate & browse.
    pub generation: GenerationState,
    /// Evaluate.
    pub evaluation: EvaluationState,
    /// The latest results file made or loaded in this tab (reference layout), if any.
    pub results: RwSignal<Option<serde_json::Value>>,
}

impl AppState {
    /// Fresh state.
    pub fn new() -> AppState {
        AppState { design: DesignState::new(), generation: GenerationState::new(), evaluation: EvaluationState::new(), results: RwSignal::new(None) }
    }
}

impl Default for AppState {
    fn default() -> AppState {
        AppState::new()
    }
}
