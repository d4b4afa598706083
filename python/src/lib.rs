//! `arbigraph._engine`: the engine's public API for Python, and nothing more. Every value crosses as JSON text
//! (the package's Python layer decodes it), every engine error becomes an `ArbiGraphError` subclass carrying the
//! engine's located message, and the GIL is released while the engine works.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::{json, Value as Json};

use arbigraph_studio::engine::agent::{openai_wire, toolcalls, AgentConfig, AgentInput, AgentSession, Step, Strategy};
use arbigraph_studio::engine::calculator;
use arbigraph_studio::engine::dataset::{self, FileFormat, ImageStorage, RunInfo};
use arbigraph_studio::engine::generate::{self, GenerateConfig, Topology, TopologyParams};
use arbigraph_studio::engine::grade::{self, SampleSpec};
use arbigraph_studio::engine::graph::{self, GraphIssue, Severity, ValidGraph};
use arbigraph_studio::engine::results;
use arbigraph_studio::engine::tasks::registry::builtin_with;
use arbigraph_studio::engine::tasks::Family;

create_exception!(_engine, ArbiGraphError, PyValueError, "An input the engine refused; the message says what and where.");
create_exception!(_engine, GraphError, ArbiGraphError, "A graph that cannot be read or has errors; `problems` lists them, each located.");
create_exception!(_engine, GenerateError, ArbiGraphError, "Settings the generator refuses, or a sample it cannot make.");
create_exception!(_engine, DatasetError, ArbiGraphError, "A dataset or results file that cannot be read; the message locates the problem.");
create_exception!(_engine, GradeError, ArbiGraphError, "A sample that cannot be graded (no prompt or no ground truth).");
create_exception!(_engine, CalculatorError, ArbiGraphError, "An expression the calculator refuses.");

fn parse_json(text: &str, what: &str) -> PyResult<Json> {
    serde_json::from_str(text).map_err(|e| ArbiGraphError::new_err(format!("{what}: malformed JSON at line {}, column {}: {e}", e.line(), e.column())))
}

/// A graph problem as a dict: `severity`, `node` (or `None`), `path` (or `None`), `message`, and `text`.
fn issue_json(issue: &GraphIssue) -> Json {
    let severity = match issue.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    json!({"severity": severity, "node": issue.node.as_ref().map(|n| n.0.clone()), "path": null, "message": issue.message, "text": issue.to_string()})
}

fn parse_problem_json(error: &graph::ParseGraphError) -> Json {
    let path = match error {
        graph::ParseGraphError::Json { line, column, .. } => format!("line {line}, column {column}"),
        graph::ParseGraphError::Shape { path, .. } => path.clone(),
    };
    let message = match error {
        graph::ParseGraphError::Json { message, .. } | graph::ParseGraphError::Shape { message, .. } => message.clone(),
    };
    json!({"severity": "error", "node": null, "path": path, "message": message, "text": format!("error: {error}")})
}

fn graph_error(py: Python<'_>, headline: String, problems: Vec<Json>) -> PyErr {
    let lines: Vec<String> = problems.iter().filter_map(|p| p["text"].as_str().map(|t| format!("  {t}"))).collect();
    let err = GraphError::new_err(format!("{headline}:\n{}", lines.join("\n")));
    // `problems`: the same list as Python dicts.
    let attached = py
        .import("json")
        .and_then(|json| json.call_method1("loads", (Json::Array(problems).to_string(),)))
        .and_then(|list| err.value(py).setattr("problems", list));
    match attached {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// Every problem of a node-link graph (JSON text): reading problems located by JSON path, then validation
/// problems located by node. An empty list means the graph generates.
#[pyfunction]
fn validate(py: Python<'_>, graph_json: &str) -> String {
    py.detach(|| {
        let problems: Vec<Json> = match graph::from_json_str(graph_json) {
            Err(errors) => errors.iter().map(parse_problem_json).collect(),
            Ok(parsed) => {
                let registry = builtin_with(parsed.image_params().copied().unwrap_or_default());
                match ValidGraph::new(parsed, &registry) {
                    Ok(_) => Vec::new(),
                    Err(issues) => issues.iter().map(issue_json).collect(),
                }
            }
        };
        Json::Array(problems).to_string()
    })
}

fn families_of(text: &str) -> Result<Vec<Family>, String> {
    let mut families: Vec<Family> = Vec::new();
    for name in text.split(',').map(str::trim) {
        let named = match name {
            "mixed" => Family::ALL.to_vec(),
            other => vec![Family::parse(other).ok_or_else(|| format!("family: unknown family `{other}` (math, gsm, python, image or mixed)"))?],
        };
        for family in named {
            if !families.contains(&family) {
                families.push(family);
            }
        }
    }
    Ok(families)
}

/// Why a dataset could not be made: a graph with problems (each a dict), or anything else.
enum Refusal {
    Graph(String, Vec<Json>),
    Generate(String),
}

/// A dataset as the text `arbigraph generate` writes for the same settings: the reference layout (`json`) or
/// JSONL (`jsonl`). `graph_json` is the node-link graph of `topology="custom"`.
#[pyfunction]
#[pyo3(signature = (topology, family, samples_per_target, seed, length, distractors, structure, graph_json, targets, max_attempts, creation_time, format))]
#[allow(clippy::too_many_arguments)]
fn generate_text(
    py: Python<'_>,
    topology: String,
    family: String,
    samples_per_target: u32,
    seed: u64,
    length: usize,
    distractors: usize,
    structure: Option<String>,
    graph_json: Option<String>,
    targets: Vec<String>,
    max_attempts: u32,
    creation_time: Option<String>,
    format: String,
) -> PyResult<String> {
    let made = py.detach(move || -> Result<String, Refusal> {
        let format = match format.as_str() {
            "json" => FileFormat::Json,
            "jsonl" => FileFormat::Jsonl,
            other => return Err(Refusal::Generate(format!("format: `{other}` is neither `json` nor `jsonl`"))),
        };
        let families = families_of(&family).map_err(Refusal::Generate)?;
        let parsed = match (topology.as_str(), graph_json) {
            ("custom", Some(text)) => Some(
                graph::from_json_str(&text).map_err(|errors| Refusal::Graph("graph: not a valid node-link graph".into(), errors.iter().map(parse_problem_json).collect()))?,
            ),
            ("custom", None) => return Err(Refusal::Generate("graph: topology=\"custom\" needs a graph".into())),
            (_, Some(_)) => return Err(Refusal::Generate(format!("graph: a graph is only used with topology=\"custom\", not `{topology}`"))),
            _ => None,
        };
        let image_params = parsed.as_ref().and_then(|g| g.image_params().copied()).unwrap_or_default();
        let registry = builtin_with(image_params);
        let topology = match topology.as_str() {
            "custom" => {
                let valid = ValidGraph::new(parsed.expect("read above for custom"), &registry)
                    .map_err(|issues| Refusal::Graph(format!("graph: {} problem(s)", issues.len()), issues.iter().map(issue_json).collect()))?;
                Topology::Custom(Box::new(valid))
            }
            name => {
                let params = TopologyParams { distractors, length, structure: structure.as_deref() };
                Topology::parse(name, &params, families[0]).map_err(|e| Refusal::Generate(if e.starts_with("structure") { e } else { format!("topology: {e}") }))?
            }
        };
        let config = GenerateConfig { topology, families, samples_per_target, seed, max_attempts, only_targets: targets };
        let run = RunInfo { creation_time, graph_path: None, generator: dataset::GENERATOR.to_string(), images: ImageStorage::Inline };
        let mut text = String::new();
        let mut out = |piece: &str| -> Result<(), generate::GenerateError> {
            text.push_str(piece);
            Ok(())
        };
        let written = if config.may_draw_pictures() {
            generate::generate(&config, &registry, &mut |_, _| {}).and_then(|samples| match format {
                FileFormat::Jsonl => out(&dataset::file_text(&config, &samples, &run, FileFormat::Jsonl)),
                FileFormat::Json => dataset::write_json_samples(&config, &samples, &run, &mut out),
            })
        } else {
            match format {
                FileFormat::Jsonl => dataset::write_jsonl(&config, &registry, &mut out, &mut |_, _| {}).map(drop),
                FileFormat::Json => dataset::write_json(&config, &registry, &run, &mut out, &mut |_, _| {}).map(drop),
            }
        };
        written.map_err(|e| Refusal::Generate(e.to_string()))?;
        Ok(text)
    });
    made.map_err(|refusal| match refusal {
        Refusal::Graph(headline, problems) => graph_error(py, headline, problems),
        Refusal::Generate(message) => GenerateError::new_err(message),
    })
}

/// Reads a dataset or results file's text (`name` locates problems and picks JSONL for `.jsonl`): returns
/// `{"summary": …, "samples": [...]}` as JSON text.
#[pyfunction]
fn read_dataset(py: Python<'_>, name: &str, text: &str) -> PyResult<String> {
    py.detach(|| match dataset::read_dataset(name, text) {
        Ok(read) => Ok(json!({"summary": read.summary, "samples": read.samples}).to_string()),
        Err(e) => Err(DatasetError::new_err(e.to_string())),
    })
}

/// The topology of a dataset or results sample (JSON text): `baseline`, `forgetting`, `chain`, `multichain` or
/// `custom`, read from the keys the reference layout gives each.
#[pyfunction]
fn topology_of(sample_json: &str) -> PyResult<&'static str> {
    Ok(dataset::shape::topology_of(&parse_json(sample_json, "sample")?))
}

/// The reference layout's pretty text of a parsed file (JSON text in), with a final newline.
#[pyfunction]
fn pretty(py: Python<'_>, json_text: &str) -> PyResult<String> {
    let value = parse_json(json_text, "file")?;
    Ok(py.detach(|| {
        let mut text = dataset::to_pretty_string(&value);
        text.push('\n');
        text
    }))
}

/// What a dataset or results file holds and its schema problems (each located), as JSON text.
#[pyfunction]
fn inspect_file(py: Python<'_>, json_text: &str) -> PyResult<String> {
    let value = parse_json(json_text, "file")?;
    Ok(py.detach(|| {
        let found = dataset::inspect(&value);
        json!({
            "kind": match found.kind { dataset::FileKind::Dataset => "dataset", dataset::FileKind::Results => "results" },
            "mode": found.mode,
            "topology": found.topology,
            "num_samples": found.num_samples,
            "families": found.families,
            "num_targets": found.num_targets,
            "correct": found.correct,
            "statuses": found.statuses,
            "problems": found.problems,
        })
        .to_string()
    }))
}

/// Grades turn texts against a sample (JSON text): the engine's answer collection over the turns in order, then
/// its reference and lenient verdicts and per-node grading.
#[pyfunction(name = "grade")]
fn grade_sample(py: Python<'_>, sample_json: &str, turns: Vec<String>, index: usize) -> PyResult<String> {
    let sample = parse_json(sample_json, "sample")?;
    py.detach(|| {
        let spec = SampleSpec::from_json(&sample, index).map_err(|e| GradeError::new_err(e.to_string()))?;
        let turns: Vec<(usize, String)> = turns.into_iter().enumerate().collect();
        let (answers, last) = grade::replay_answers(&turns, &spec.expected);
        let graded = grade::grade_answers(&spec, &answers, &last, true);
        Ok(grade_json(&spec, &graded, &answers).to_string())
    })
}

fn grade_json(spec: &SampleSpec, graded: &grade::SampleGrade, answers: &grade::collect::Answers) -> Json {
    let nodes: serde_json::Map<String, Json> = graded.nodes.iter().map(|(name, status)| (name.clone(), json!(status.as_str()))).collect();
    json!({
        "correct": graded.correct,
        "lenient": graded.lenient.unwrap_or(graded.correct),
        "target": spec.target,
        "expected": spec.expected,
        "answers": answers.to_json(),
        "node_status": nodes,
        "first_breaks": graded.first_breaks,
    })
}

/// Grades every sample of a results file (JSON text): from the stored answers, or re-collected from the stored
/// turns with `replay`.
#[pyfunction]
fn grade_results(py: Python<'_>, json_text: &str, replay: bool) -> PyResult<String> {
    let file = parse_json(json_text, "results")?;
    py.detach(|| {
        let samples = results::results_samples(&file).map_err(|e| DatasetError::new_err(e.to_string()))?;
        let mut graded = Vec::with_capacity(samples.len());
        for (index, sample) in samples.iter().enumerate() {
            let record = results::ResultRecord::parse(sample);
            let options = grade::GradeOptions { replay, lenient: true };
            let (grade, answers) = results::grade_record(&record, index, options).map_err(|e| GradeError::new_err(e.to_string()))?;
            let spec = SampleSpec::from_record(&record.sample, index).map_err(|e| GradeError::new_err(e.to_string()))?;
            graded.push(grade_json(&spec, &grade, &answers));
        }
        Ok(Json::Array(graded).to_string())
    })
}

/// One expression through the calculator: Python's `str()` of the result.
#[pyfunction]
fn calculate(expression: &str) -> PyResult<String> {
    calculator::evaluate(expression).map(|n| n.to_python_str()).map_err(|e| CalculatorError::new_err(format!("{expression:?}: {e}")))
}

/// One calculator tool call (arguments as JSON text), answered as the agent answers it.
#[pyfunction]
fn calculator_call(arguments_json: &str) -> String {
    let arguments = serde_json::from_str::<Json>(arguments_json).unwrap_or_else(|_| Json::String(arguments_json.to_string()));
    toolcalls::execute(toolcalls::CALCULATOR, &arguments)
}

/// The calculator's tool schema, as a chat-completions `tools` entry (JSON text).
#[pyfunction]
fn calculator_tool() -> String {
    openai_wire::calculator_tool().to_string()
}

fn config_for(topology: &str, strategy: Option<&str>) -> PyResult<AgentConfig> {
    let mut config = AgentConfig::for_topology(topology);
    if let Some(text) = strategy {
        config.strategy = Strategy::parse(text).map_err(|e| ArbiGraphError::new_err(format!("strategy {text:?}: {e}")))?;
    }
    config.lenient = true;
    Ok(config)
}

/// The agent loop's settings for a topology (turn limit, completion limits, repair budgets, system prompt), as
/// JSON text.
#[pyfunction]
fn agent_config(topology: &str) -> PyResult<String> {
    let c = config_for(topology, None)?;
    Ok(json!({
        "max_turns": c.max_turns,
        "max_tokens": c.max_tokens,
        "repair_max_tokens": c.repair_max_tokens,
        "max_model_len": c.max_model_len,
        "temperature": c.temperature,
        "top_p": c.top_p,
        "require_initial_calculator_call": c.require_initial_calculator_call,
        "budgets": {"initial_tool": c.budgets.initial_tool, "final_answer": c.budgets.final_answer, "cutoff": c.budgets.cutoff},
        "strategy": c.strategy.to_string(),
        "system_prompt": c.system_prompt,
    })
    .to_string())
}

/// One sample's agent loop (the engine's sans-IO session): `start` and `reply` give the next chat-completions
/// request body, or `None` when the sample is done; `record` is then its results-file sample.
#[pyclass(module = "arbigraph._engine")]
struct Session {
    sample: Json,
    config: AgentConfig,
    session: Option<AgentSession>,
    step: Option<Step>,
    model: String,
}

impl Session {
    fn body(&self) -> Option<String> {
        match &self.step {
            Some(Step::Send(request)) | Some(Step::Auxiliary(request)) => Some(openai_wire::request_json(request, &self.model).to_string()),
            _ => None,
        }
    }
}

#[pymethods]
impl Session {
    #[new]
    #[pyo3(signature = (sample_json, topology, model, strategy=None))]
    fn new(sample_json: &str, topology: &str, model: String, strategy: Option<&str>) -> PyResult<Session> {
        let sample = parse_json(sample_json, "sample")?;
        let config = config_for(topology, strategy)?;
        Ok(Session { sample, config, session: None, step: None, model })
    }

    /// Starts the sample: the first request body (JSON text), or `None` when it ends at once.
    fn start(&mut self, index: usize) -> PyResult<Option<String>> {
        let input = AgentInput::from_sample(&self.sample, index).map_err(|e| GradeError::new_err(e.to_string()))?;
        let (session, step) = AgentSession::start(&input, &self.config);
        self.session = Some(session);
        self.step = Some(step);
        Ok(self.body())
    }

    /// Feeds the reply body (chat-completions JSON text) of the last request: the next body, or `None` when done.
    fn reply(&mut self, reply_json: &str) -> PyResult<Option<String>> {
        let session = self.session.as_mut().ok_or_else(|| ArbiGraphError::new_err("session: reply before start"))?;
        let reply = openai_wire::parse_reply(reply_json).map_err(|e| ArbiGraphError::new_err(format!("reply: {e}")))?;
        self.step = Some(session.on_reply(reply));
        Ok(self.body())
    }

    /// Ends the sample as an API error (a call that failed for good).
    fn fail(&mut self, message: &str) -> PyResult<()> {
        let session = self.session.as_mut().ok_or_else(|| ArbiGraphError::new_err("session: fail before start"))?;
        self.step = Some(session.on_error(arbigraph_studio::engine::agent::AgentError::Request { reason: message.to_string() }));
        Ok(())
    }

    /// The finished sample as a results-file sample (JSON text), or `None` while it runs.
    fn record(&self) -> Option<String> {
        match &self.step {
            Some(Step::Finished(record)) => Some(results::result_sample(&self.sample, record, record.strategy.name(), Json::Null).to_string()),
            _ => None,
        }
    }

    /// Whether the request in flight is an auxiliary call (a strategy's summary), not a turn.
    fn auxiliary(&self) -> bool {
        matches!(self.step, Some(Step::Auxiliary(_)))
    }
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("GENERATOR", dataset::GENERATOR)?;
    m.add("ArbiGraphError", py.get_type::<ArbiGraphError>())?;
    m.add("GraphError", py.get_type::<GraphError>())?;
    m.add("GenerateError", py.get_type::<GenerateError>())?;
    m.add("DatasetError", py.get_type::<DatasetError>())?;
    m.add("GradeError", py.get_type::<GradeError>())?;
    m.add("CalculatorError", py.get_type::<CalculatorError>())?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(generate_text, m)?)?;
    m.add_function(wrap_pyfunction!(read_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(pretty, m)?)?;
    m.add_function(wrap_pyfunction!(topology_of, m)?)?;
    m.add_function(wrap_pyfunction!(inspect_file, m)?)?;
    m.add_function(wrap_pyfunction!(grade_sample, m)?)?;
    m.add_function(wrap_pyfunction!(grade_results, m)?)?;
    m.add_function(wrap_pyfunction!(calculate, m)?)?;
    m.add_function(wrap_pyfunction!(calculator_call, m)?)?;
    m.add_function(wrap_pyfunction!(calculator_tool, m)?)?;
    m.add_function(wrap_pyfunction!(agent_config, m)?)?;
    m.add_class::<Session>()?;
    Ok(())
}
