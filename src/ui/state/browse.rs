//! The instance browser's state: the datasets the page knows (the generated run, a regenerated link, opened
//! files, a static site's hosted datasets), each dataset's rows (the samples themselves stay in the job
//! runner's store), the filters and the list they give, the selection and the open instance. Hosted datasets
//! load shard by shard as the list shows them. Every long step is a job (`web::worker`). The view lives in the
//! address (`app::browse::url`): filter edits replace it, opening and closing an instance push a history entry,
//! and `restore` brings an address back (on load, back and forward), waiting for a dataset still to come.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::app::browse::url::BrowseAddress;
use crate::app::browse::catalog::{Query, Row};
use crate::app::browse::demo;
use crate::engine::generate::form::GenerateForm;
use crate::app::instance::Detail;
use crate::app::jobs::packs::PackSource;
use crate::app::jobs::{FromWorker, JobRequest};
use crate::app::browse::link::Link;
use crate::engine::dataset::site::{SiteDataset, SiteIndex, INDEX_PATH, START_META};
use crate::web::files::fetch_text;
use crate::web::worker::{self, JobHandle};

/// The key of the generated run's dataset.
pub use crate::app::browse::url::GENERATED;
/// The key of a regenerated link's dataset.
pub const LINKED: &str = "link";

/// Where a dataset came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// Generated in this tab from `form`: the plan's runs (their forms), or a custom graph.
    Generated { form: GenerateForm, runs: Vec<GenerateForm>, graph: Option<String>, packs: Vec<PackSource> },
    /// One sample regenerated from a link.
    Link { form: GenerateForm, graph: Option<String>, target: usize, sample: u32 },
    /// A file opened in this tab.
    File,
    /// A dataset of the static site the app is served from.
    Hosted(Box<SiteDataset>),
}

/// A dataset the page knows.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetInfo {
    /// Key in the store (`generated`, `file:x.json`, `site:math_chain`).
    pub key: String,
    /// What the page calls it.
    pub name: String,
    pub source: Source,
    /// Samples in the dataset.
    pub total: usize,
    /// Rows received.
    pub loaded: usize,
}

/// The static site's index, as far as the page knows.
#[derive(Clone, Debug, PartialEq)]
pub enum SiteStatus {
    Looking,
    /// No `datasets/index.json` beside the app.
    Absent,
    Found(SiteIndex),
    /// The index is there but wrong: its problems.
    Broken(Vec<String>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum ShardState {
    Waiting,
    Loading,
    Loaded,
    Failed,
}

/// The instance browser's state.
#[derive(Clone, Copy)]
pub struct BrowseState {
    pub datasets: RwSignal<Vec<DatasetInfo>>,
    /// Rows by dataset key; `revision` changes whenever they do.
    rows: StoredValue<HashMap<String, Vec<Option<Row>>>>,
    pub revision: RwSignal<u64>,
    /// The dataset shown.
    pub current: RwSignal<Option<String>>,
    pub query: RwSignal<Query>,
    /// The dataset positions the query keeps, in order; `None` is every position in order.
    pub view: RwSignal<Option<Vec<usize>>>,
    /// The selected sample (a dataset position).
    pub selected: RwSignal<Option<usize>>,
    /// True when the instance view shows the selected sample.
    pub open: RwSignal<bool>,
    pub detail: RwSignal<Option<Detail>>,
    /// Set when the list should scroll a position into view.
    pub reveal: RwSignal<Option<usize>>,
    pub site: RwSignal<SiteStatus>,
    /// True when the site's datasets are the app's demo, generated in the worker (no file beside the app).
    pub demo: RwSignal<bool>,
    /// A problem to show (a bad file, a failed fetch); cleared by the next success.
    pub error: RwSignal<String>,
    /// What just happened (a file opened, a link followed).
    pub notice: RwSignal<String>,
    /// A file being read: its name and progress.
    pub opening: RwSignal<Option<(String, usize, usize)>>,
    shards: StoredValue<HashMap<String, Vec<ShardState>>>,
    query_job: StoredValue<Option<JobHandle>>,
    detail_job: StoredValue<Option<JobHandle>>,
    /// An address whose dataset is not here yet (the site index, a regenerated sample, a run or file to come).
    pending: StoredValue<Option<BrowseAddress>>,
    /// True while an address is being restored: the address is not rewritten meanwhile.
    quiet: StoredValue<bool>,
}

impl BrowseState {
    pub(super) fn new() -> BrowseState {
        let state = BrowseState {
            datasets: RwSignal::new(Vec::new()),
            rows: StoredValue::new(HashMap::new()),
            revision: RwSignal::new(0),
            current: RwSignal::new(None),
            query: RwSignal::new(Query::default()),
            view: RwSignal::new(None),
            selected: RwSignal::new(None),
            open: RwSignal::new(false),
            detail: RwSignal::new(None),
            reveal: RwSignal::new(None),
            site: RwSignal::new(SiteStatus::Looking),
            demo: RwSignal::new(false),
            error: RwSignal::new(String::new()),
            notice: RwSignal::new(String::new()),
            opening: RwSignal::new(None),
            shards: StoredValue::new(HashMap::new()),
            query_job: StoredValue::new(None),
            detail_job: StoredValue::new(None),
            pending: StoredValue::new(None),
            quiet: StoredValue::new(false),
        };
        leptos::task::spawn_local(async move { state.load_site().await });
        state
    }

    /// Reads `datasets/index.json` beside the app and lists its datasets. The app's own build (a page without
    /// the `<meta>` a site built by `arbigraph site` carries) has none and asks for nothing: the worker generates
    /// the demo datasets (`app::browse::demo`) and they are listed the same way.
    async fn load_site(self) {
        let selector = format!("meta[name=\"{START_META}\"]");
        if document().query_selector(&selector).ok().flatten().is_none() {
            return self.load_demo();
        }
        match fetch_text(INDEX_PATH).await {
            Ok(None) => {
                self.site.set(SiteStatus::Absent);
                if let Some(address) = self.pending.try_update_value(Option::take).flatten() {
                    self.restore(address, &[]);
                }
            }
            Err(e) => {
                self.site.set(SiteStatus::Absent);
                self.error.set(e);
            }
            Ok(Some(text)) => match SiteIndex::parse(&text) {
                Err(problems) => {
                    self.error.set(format!("{INDEX_PATH} is broken: {}", problems.join("; ")));
                    self.site.set(SiteStatus::Broken(problems));
                }
                Ok(index) => self.list_site(index, ShardState::Waiting),
            },
        }
    }

    /// Lists a site's datasets, their shards in state `shards`, and restores an address that waited for them.
    fn list_site(&self, index: SiteIndex, shards: ShardState) {
        for d in &index.datasets {
            let info = DatasetInfo { key: demo::key(&d.name), name: d.name.clone(), source: Source::Hosted(Box::new(d.clone())), total: d.samples, loaded: 0 };
            self.shards.update_value(|s| {
                s.insert(info.key.clone(), vec![shards; d.shards.len()]);
            });
            self.upsert(info);
        }
        self.site.set(SiteStatus::Found(index));
        if let Some(address) = self.pending.try_update_value(Option::take).flatten() {
            self.restore(address, &[]);
        }
    }

    /// The demo datasets, generated in the worker: the index comes first (its shards marked as loading, so none
    /// is fetched), then every dataset's rows.
    fn load_demo(self) {
        self.demo.set(true);
        worker::start(JobRequest::DemoSite, move |message| match message {
            FromWorker::File { text, .. } => match SiteIndex::parse(&text) {
                Ok(index) => self.list_site(index, ShardState::Loading),
                Err(problems) => self.demo_failed(format!("the demo datasets' index is broken: {}", problems.join("; "))),
            },
            FromWorker::Rows { dataset, total, rows, .. } => self.add_rows(&dataset, total, rows),
            FromWorker::Done { .. } => self.shards.update_value(|all| all.values_mut().flatten().for_each(|s| *s = ShardState::Loaded)),
            FromWorker::Failed { message, .. } => self.demo_failed(message),
            _ => {}
        });
    }

    fn demo_failed(&self, message: String) {
        self.error.set(format!("the demo datasets could not be made: {message}"));
        if matches!(self.site.get_untracked(), SiteStatus::Looking) {
            self.site.set(SiteStatus::Absent);
            if let Some(address) = self.pending.try_update_value(Option::take).flatten() {
                self.restore(address, &[]);
            }
        }
    }

    fn upsert(&self, info: DatasetInfo) {
        self.datasets.update(|all| match all.iter_mut().find(|d| d.key == info.key) {
            Some(slot) => *slot = info,
            None => all.push(info),
        });
    }

    /// The dataset with `key`.
    pub fn info(&self, key: &str) -> Option<DatasetInfo> {
        self.datasets.with_untracked(|all| all.iter().find(|d| d.key == key).cloned())
    }

    /// The shown dataset.
    pub fn current_info(&self) -> Option<DatasetInfo> {
        let key = self.current.get()?;
        self.datasets.with(|all| all.iter().find(|d| d.key == key).cloned())
    }

    /// Runs `f` over the rows of dataset `key` (tracking `revision`).
    pub fn with_rows<R>(&self, key: &str, f: impl FnOnce(&[Option<Row>]) -> R) -> R {
        self.revision.track();
        self.rows.with_value(|all| f(all.get(key).map(Vec::as_slice).unwrap_or(&[])))
    }

    /// Starts dataset `key` afresh (empty) and shows it.
    pub fn begin(&self, key: &str, name: &str, source: Source, total: usize) {
        self.rows.update_value(|all| {
            all.insert(key.to_string(), vec![None; total]);
        });
        self.revision.update(|r| *r += 1);
        self.upsert(DatasetInfo { key: key.to_string(), name: name.to_string(), source, total, loaded: 0 });
        self.show(key);
        // An address that named this dataset before it was here: its filters and instance now apply.
        let waiting = self.pending.with_value(|p| p.as_ref().and_then(BrowseAddress::dataset).is_some_and(|d| d == key || d == name));
        if waiting {
            if let Some(address) = self.pending.try_update_value(Option::take).flatten() {
                self.notice.set(String::new());
                self.error.set(String::new());
                self.quietly(|| self.apply_view(&address));
                self.write_url(false);
            }
        }
    }

    /// Adds rows streamed in for dataset `key` (of `total` samples).
    pub fn add_rows(&self, key: &str, total: usize, rows: Vec<Row>) {
        let mut loaded = 0;
        self.rows.update_value(|all| {
            let slots = all.entry(key.to_string()).or_default();
            if slots.len() < total {
                slots.resize(total, None);
            }
            for row in rows {
                let at = row.index;
                if at >= slots.len() {
                    slots.resize(at + 1, None);
                }
                slots[at] = Some(row);
            }
            loaded = slots.iter().filter(|r| r.is_some()).count();
        });
        self.revision.update(|r| *r += 1);
        self.datasets.update(|all| {
            if let Some(d) = all.iter_mut().find(|d| d.key == key) {
                d.total = d.total.max(total);
                d.loaded = loaded;
            }
        });
        if self.current.get_untracked().as_deref() == Some(key) {
            if !self.query.with_untracked(Query::is_identity) {
                self.run_query();
            }
            // An instance opened before its sample was made (a restored address) is shown once it is.
            if let (true, Some(index)) = (self.open.get_untracked(), self.selected.get_untracked()) {
                if self.detail.with_untracked(|d| d.as_ref().is_none_or(|d| d.dataset != key || d.row.index != index)) {
                    self.request_detail(index);
                }
            }
        }
    }

    /// A run ended early (cancelled or failed): the dataset is what was made, not the slots it asked for.
    pub fn settle(&self, key: &str) {
        let mut total = 0;
        self.rows.update_value(|all| {
            if let Some(slots) = all.get_mut(key) {
                let end = slots.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
                slots.truncate(end);
                total = end;
            }
        });
        self.revision.update(|r| *r += 1);
        self.datasets.update(|all| {
            if let Some(d) = all.iter_mut().find(|d| d.key == key) {
                d.total = total;
            }
        });
    }

    /// Shows dataset `key` from its start, with no filter.
    pub fn show(&self, key: &str) {
        if self.current.get_untracked().as_deref() != Some(key) {
            self.current.set(Some(key.to_string()));
            self.query.set(Query::default());
            self.view.set(None);
        }
        self.selected.set(None);
        self.open.set(false);
        self.detail.set(None);
        self.reveal.set(Some(0));
        if matches!(self.info(key).map(|d| d.source), Some(Source::Hosted(_))) {
            self.ensure_loaded(key, 0, 1);
        }
        self.write_url(false);
    }

    /// Changes the filters; the list follows once the runner answers. The address follows without a new
    /// history entry (typing is not navigating).
    pub fn set_query(&self, query: Query) {
        self.query.set(query);
        self.run_query();
        self.write_url(false);
    }

    fn run_query(&self) {
        let Some(key) = self.current.get_untracked() else { return };
        let query = self.query.get_untracked();
        if let Some(job) = self.query_job.get_value() {
            job.cancel();
        }
        if query.is_identity() {
            self.view.set(None);
            return;
        }
        // A filter on a hosted dataset needs every sample: fetch the shards not yet here.
        if let Some(total) = self.info(&key).filter(|d| matches!(d.source, Source::Hosted(_))).map(|d| d.total) {
            self.ensure_loaded(&key, 0, total);
        }
        let state = *self;
        let handle = worker::start(JobRequest::Query { dataset: key, query }, move |message| {
            if let FromWorker::View { indices, .. } = message {
                state.view.set(Some(indices));
            }
        });
        self.query_job.set_value(Some(handle));
    }

    /// Selects dataset position `index`, shows it when the instance view is open, and scrolls it into view.
    pub fn select(&self, index: usize) {
        self.selected.set(Some(index));
        self.reveal.set(Some(index));
        if self.open.get_untracked() {
            self.request_detail(index);
            self.write_url(true);
        }
    }

    /// Opens the instance view on the selected sample (a new history entry).
    pub fn open_selected(&self) {
        if let Some(index) = self.selected.get_untracked() {
            self.open.set(true);
            self.request_detail(index);
            self.write_url(true);
        }
    }

    /// Closes the instance view (a new history entry), or, when it is closed, clears the selection.
    pub fn close(&self) {
        if self.open.get_untracked() {
            self.open.set(false);
            self.write_url(true);
        } else {
            self.selected.set(None);
        }
    }

    /// The address of what the page shows (`Link::None` when no dataset is shown).
    pub fn address(&self) -> BrowseAddress {
        let Some(info) = self.current.get_untracked().and_then(|key| self.info(&key)) else { return BrowseAddress::default() };
        let open = if self.open.get_untracked() { self.selected.get_untracked() } else { None };
        let (link, rerun) = match info.source {
            Source::Generated { form, graph, .. } => (Link::Dataset { name: info.key, index: open }, Some((form, graph))),
            Source::Link { form, graph, target, sample } => (Link::Regenerate { form, graph, target, sample }, None),
            Source::File => (Link::Dataset { name: info.key, index: open }, None),
            Source::Hosted(_) => (Link::Dataset { name: info.name, index: open }, None),
        };
        BrowseAddress { link, rerun, query: self.query.get_untracked() }
    }

    /// Writes the shown view into the address, as a new history entry (`push`) or in place; only on Browse,
    /// only with a dataset shown, never while an address is being restored.
    fn write_url(&self, push: bool) {
        if self.quiet.get_value() || self.current.with_untracked(Option::is_none) {
            return;
        }
        let location = window().location().hash().unwrap_or_default();
        if !location.starts_with("#/browse") {
            return;
        }
        let hash = self.address().to_hash();
        if hash == location {
            return;
        }
        let Ok(history) = window().history() else { return };
        let _ = if push {
            history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&hash))
        } else {
            history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&hash))
        };
    }

    fn quietly(&self, f: impl FnOnce()) {
        let was = self.quiet.get_value();
        self.quiet.set_value(true);
        f();
        self.quiet.set_value(was);
    }

    /// The address's filters and open instance, on the dataset shown.
    fn apply_view(&self, address: &BrowseAddress) {
        if self.query.with_untracked(|q| *q != address.query) {
            self.query.set(address.query.clone());
            self.run_query();
        }
        match address.open() {
            Some(index) => {
                if self.selected.get_untracked() != Some(index) || !self.open.get_untracked() {
                    self.selected.set(Some(index));
                    self.reveal.set(Some(index));
                    self.open.set(true);
                    self.request_detail(index);
                }
            }
            None => self.open.set(false),
        }
    }

    /// Shows what `address` names (on load, back and forward): the dataset, its filters and the open instance.
    /// A dataset not here yet is waited for (the site's index, a regenerated sample, a file opened again); the
    /// generated run's settings, when the address carries them and the run is not here, are returned for the
    /// caller to generate. `problems` (bad values in the address) are shown.
    pub fn restore(&self, address: BrowseAddress, problems: &[String]) -> Option<(GenerateForm, Option<String>)> {
        if !problems.is_empty() {
            self.error.set(problems.join("; "));
        }
        let mut rerun = None;
        self.quietly(|| match address.link.clone() {
            Link::None => {}
            Link::Regenerate { form, graph, target, sample } => {
                let here = matches!(self.info(LINKED).map(|d| d.source), Some(Source::Link { form: f, graph: g, target: t, sample: s }) if f == form && g == graph && t == target && s == sample);
                if here {
                    if self.current.get_untracked().as_deref() != Some(LINKED) {
                        self.show(LINKED);
                    }
                    self.apply_view(&address);
                } else {
                    self.pending.set_value(Some(address.clone()));
                    self.regenerate(form, graph, target, sample);
                }
            }
            Link::Dataset { name, .. } => {
                let found = self.datasets.with_untracked(|all| all.iter().find(|d| d.name == name || d.key == name).map(|d| d.key.clone()));
                match found {
                    Some(key) => {
                        if self.current.get_untracked().as_deref() != Some(key.as_str()) {
                            self.show(&key);
                        }
                        self.apply_view(&address);
                    }
                    None => {
                        let filters = address.query != Query::default();
                        let keeps = match (filters, address.open()) {
                            (true, Some(i)) => format!(": its filters and sample #{i} come back when it is"),
                            (true, None) => ": its filters come back when it is".to_string(),
                            (false, Some(i)) => format!(": sample #{i} opens when it is"),
                            (false, None) => String::new(),
                        };
                        self.pending.set_value(Some(address.clone()));
                        if name == GENERATED && address.rerun.is_some() {
                            rerun = address.rerun.clone();
                        } else if name == GENERATED {
                            self.notice.set(format!("this address names the generated run, which is not in this tab: generate it again{keeps}"));
                        } else if name.starts_with("file:") {
                            self.notice.set(format!("this address names `{name}`, which was opened in an earlier visit: open it again{keeps}"));
                        } else if self.site.get_untracked() != SiteStatus::Looking {
                            self.error.set(format!("the link names dataset `{name}`, which is not open here: open its file, or use the site that hosts it"));
                        }
                    }
                }
            }
        });
        if address.link == Link::None {
            // An address naming nothing (the navigation link) shows what is here.
            self.write_url(false);
        }
        rerun
    }

    fn request_detail(&self, index: usize) {
        let Some(key) = self.current.get_untracked() else { return };
        if self.detail.with_untracked(|d| d.as_ref().is_some_and(|d| d.dataset == key && d.row.index == index)) {
            return;
        }
        if let Some(job) = self.detail_job.get_value() {
            job.cancel();
        }
        let loaded = self.with_rows_untracked(&key, |rows| rows.get(index).is_some_and(Option::is_some));
        if !loaded {
            // The shard arrives first; `add_shard_rows` asks again.
            self.ensure_loaded(&key, index, index + 1);
            return;
        }
        let state = *self;
        let handle = worker::start(JobRequest::Detail { dataset: key, index }, move |message| match message {
            FromWorker::Detail { detail, .. } => {
                if state.selected.get_untracked() == Some(detail.row.index) {
                    state.detail.set(Some(*detail));
                }
            }
            FromWorker::Failed { message, .. } => state.error.set(message),
            _ => {}
        });
        self.detail_job.set_value(Some(handle));
    }

    fn with_rows_untracked<R>(&self, key: &str, f: impl FnOnce(&[Option<Row>]) -> R) -> R {
        self.rows.with_value(|all| f(all.get(key).map(Vec::as_slice).unwrap_or(&[])))
    }

    /// Fetches the shards of hosted dataset `key` that hold positions `first..end` and are not here yet.
    pub fn ensure_loaded(&self, key: &str, first: usize, end: usize) {
        let Some(Source::Hosted(dataset)) = self.info(key).map(|d| d.source) else { return };
        let Some(from) = dataset.shard_of(first) else { return };
        let to = dataset.shard_of(end.saturating_sub(1).max(first)).unwrap_or(from);
        for shard in from..=to {
            let waiting = self.shards.with_value(|s| s.get(key).and_then(|v| v.get(shard)).is_some_and(|st| matches!(st, ShardState::Waiting | ShardState::Failed)));
            if waiting {
                self.set_shard(key, shard, ShardState::Loading);
                let (state, key, dataset) = (*self, key.to_string(), dataset.clone());
                leptos::task::spawn_local(async move { state.load_shard(&key, &dataset, shard).await });
            }
        }
    }

    fn set_shard(&self, key: &str, shard: usize, to: ShardState) {
        self.shards.update_value(|s| {
            if let Some(slot) = s.get_mut(key).and_then(|v| v.get_mut(shard)) {
                *slot = to;
            }
        });
    }

    async fn load_shard(self, key: &str, dataset: &SiteDataset, shard: usize) {
        let meta = &dataset.shards[shard];
        let path = format!("datasets/{}", meta.file);
        let text = match fetch_text(&path).await {
            Ok(Some(text)) => text,
            Ok(None) => return self.shard_failed(key, shard, format!("{path} is missing from the site")),
            Err(e) => return self.shard_failed(key, shard, e),
        };
        let summary = (!dataset.summary.is_null()).then(|| dataset.summary.clone());
        let request = JobRequest::LoadShard { dataset: key.to_string(), name: meta.file.clone(), first: meta.first, total: dataset.samples, summary, text };
        let key = key.to_string();
        worker::start(request, move |message| match message {
            FromWorker::Rows { dataset, total, rows, .. } => self.add_rows(&dataset, total, rows),
            FromWorker::Done { .. } => {
                self.set_shard(&key, shard, ShardState::Loaded);
                // A sample waiting for this shard can be shown now.
                if let (true, Some(index)) = (self.open.get_untracked(), self.selected.get_untracked()) {
                    self.request_detail(index);
                }
            }
            FromWorker::Failed { message, location, .. } => self.shard_failed(&key, shard, location.map(|l| format!("{l}: {message}")).unwrap_or(message)),
            _ => {}
        });
    }

    fn shard_failed(&self, key: &str, shard: usize, message: String) {
        self.set_shard(key, shard, ShardState::Failed);
        self.error.set(message);
    }

    /// Opens a dataset file (read and parsed in the worker); a bad file leaves everything loaded as it was.
    pub fn open_file(&self, file: web_sys::File) {
        let name = file.name();
        let key = format!("file:{name}");
        let state = *self;
        self.error.set(String::new());
        self.opening.set(Some((name.clone(), 0, 0)));
        let request = JobRequest::OpenFile { dataset: key.clone(), name: name.clone(), text: String::new() };
        worker::start_with_file(request, file.into(), move |message| match message {
            FromWorker::Opened { samples, .. } => {
                state.begin(&key, &name, Source::File, samples);
                state.opening.set(Some((name.clone(), 0, samples)));
            }
            FromWorker::Rows { dataset, total, rows, .. } => state.add_rows(&dataset, total, rows),
            FromWorker::Progress { done, total, .. } => state.opening.set(Some((name.clone(), done, total))),
            FromWorker::Done { .. } => {
                state.opening.set(None);
                let count = state.info(&key).map(|d| d.total).unwrap_or(0);
                state.notice.set(format!("opened {name}: {count} samples"));
                state.error.set(String::new());
            }
            FromWorker::Failed { message, location, .. } => {
                state.opening.set(None);
                // A message that already names its file carries its own location: say it once.
                state.error.set(match location {
                    Some(at) if !message.starts_with(at.split(':').next().unwrap_or(&at)) => format!("{at}: {message}"),
                    _ => message,
                });
            }
            _ => {}
        });
    }

    fn regenerate(&self, form: GenerateForm, graph: Option<String>, target: usize, sample: u32) {
        let state = *self;
        let name = format!("link: {} {}, target {target}, sample {sample}", form.family, form.topology);
        self.begin(LINKED, &name, Source::Link { form: form.clone(), graph: graph.clone(), target, sample }, 1);
        let request = JobRequest::GenerateOne { dataset: LINKED.into(), form, graph, target, sample, packs: super::packs::current_sources() };
        worker::start(request, move |message| match message {
            FromWorker::Rows { dataset, total, rows, .. } => {
                state.add_rows(&dataset, total, rows);
                state.quietly(|| {
                    state.select(0);
                    state.open_selected();
                });
                state.notice.set("regenerated from the link".into());
            }
            FromWorker::Failed { message, .. } => state.error.set(format!("the link's sample cannot be regenerated: {message}")),
            _ => {}
        });
    }
}
