//! The designer's state: the editor model (graph, selection, history, viewport, gesture, notice) behind
//! revision signals, so each part of the page redraws only when its part changed; the validation issues;
//! autosave to local storage and the recent graphs; opening files and pastes through the job runner.
//! The graph changes only inside the model, through `GraphEdit`s.

use std::time::Duration;

use leptos::prelude::*;

use crate::app::design::draw::{marks, Marks};
use crate::app::design::gesture::Gesture;
use crate::app::design::recent::{RecentGraph, RecentList, CURRENT_KEY, RECENT_KEY};
use crate::app::design::{import, EditorModel, Notice, NoticeLevel};
use crate::app::jobs::{FromWorker, JobRequest};
use crate::engine::graph::{self, GraphIssue, NodeId, TaskGraph};
use crate::web::{local_storage, worker};

use super::with_registry;

/// The example graph the designer opens with when nothing was saved.
pub const FIRST_GRAPH: &str = include_str!("../../../public/examples/diamond.json");
/// Graphs up to this size are tidied on the page; bigger ones in the worker.
const TIDY_ON_PAGE: usize = 400;
/// Sentences kept in the live region.
const ANNOUNCEMENTS_KEPT: usize = 3;
/// Autosave waits this long after the last edit.
const AUTOSAVE_DELAY: Duration = Duration::from_millis(400);

/// How an opened graph joins the canvas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenAs {
    /// It replaces the graph (an import, a link, a recent graph).
    Replace,
    /// It is pasted into the graph.
    Paste,
}

/// The designer. `Copy`: every field is a handle to reactive or stored state.
#[derive(Clone, Copy)]
pub struct DesignState {
    model: StoredValue<EditorModel>,
    /// Bumped when the graph changes.
    pub graph_rev: RwSignal<u64>,
    /// Bumped a task after the graph changed: validation (and the problem list) run then, so a big paste
    /// is drawn in one main-thread task and checked in the next, rather than both in one long task.
    pub(super) checked_rev: RwSignal<u64>,
    check_pending: StoredValue<bool>,
    /// Bumped when the selection changes, or a move starts or ends (what the static drawing shows).
    pub selection_rev: RwSignal<u64>,
    /// Bumped when the viewport changes.
    pub view_rev: RwSignal<u64>,
    /// Bumped when the gesture's drawing changes.
    pub overlay_rev: RwSignal<u64>,
    /// The notice line.
    pub notice: RwSignal<Option<Notice>>,
    /// Validation issues of the graph, recomputed when it changes.
    pub issues: Memo<Vec<GraphIssue>>,
    /// The issues as drawing marks.
    pub marks: Memo<Marks>,
    /// The help overlay is open.
    pub help_open: RwSignal<bool>,
    /// Bumped when the connect list opens, closes or changes.
    pub menu_rev: RwSignal<u64>,
    /// The latest sentences for the live region (`[data-testid="announcer"]`), numbered, newest last: a few
    /// are kept so an edit's sentence is not replaced by the problem count that follows it a task later.
    pub announcements: RwSignal<Vec<(u64, String)>>,
    /// The keyboard is on the canvas: when a redraw replaces the focused node's element, its new element
    /// takes the focus back.
    pub keyboard_on_canvas: StoredValue<bool>,
    /// Move the browser's focus to the focused node after the next redraw (a palette entry added by Enter,
    /// the connect list closed).
    pub focus_request: StoredValue<bool>,
    /// Work in progress the page waits for (`opening dag200_mixed.json…`).
    pub busy: RwSignal<Option<String>>,
    /// Recently opened graphs.
    pub recent: RwSignal<RecentList>,
    /// The node-link JSON panel's text and its parse errors.
    pub json_text: RwSignal<String>,
    pub json_errors: RwSignal<Vec<String>>,
    /// The JSON panel is open (its text is kept up to date only then).
    pub json_open: RwSignal<bool>,
    autosave: StoredValue<Option<TimeoutHandle>>,
    was_moving: StoredValue<bool>,
    /// The graph change in progress came from the JSON panel (whose text must then stay as typed).
    from_json_panel: StoredValue<bool>,
}

impl DesignState {
    pub(super) fn new() -> DesignState {
        let graph = restored().unwrap_or_else(|| import::open("diamond.json", FIRST_GRAPH).unwrap_or_default());
        let model = StoredValue::new(EditorModel::new(graph));
        let graph_rev = RwSignal::new(0u64);
        let checked_rev = RwSignal::new(0u64);
        let issues = Memo::new(move |_| {
            checked_rev.track();
            model.with_value(|m| with_registry(|r| m.graph().issues(r)))
        });
        let marks = Memo::new(move |_| {
            let issues = issues.get();
            model.with_value(|m| marks(m.graph(), &issues))
        });
        DesignState {
            model,
            graph_rev,
            checked_rev,
            check_pending: StoredValue::new(false),
            selection_rev: RwSignal::new(0),
            view_rev: RwSignal::new(0),
            overlay_rev: RwSignal::new(0),
            notice: RwSignal::new(None),
            issues,
            marks,
            help_open: RwSignal::new(false),
            menu_rev: RwSignal::new(0),
            announcements: RwSignal::new(Vec::new()),
            keyboard_on_canvas: StoredValue::new(false),
            focus_request: StoredValue::new(false),
            busy: RwSignal::new(None),
            recent: RwSignal::new(local_storage::read(RECENT_KEY).map(|t| RecentList::from_json(&t)).unwrap_or_default()),
            json_text: RwSignal::new(String::new()),
            json_errors: RwSignal::new(Vec::new()),
            json_open: RwSignal::new(false),
            autosave: StoredValue::new(None),
            was_moving: StoredValue::new(false),
            from_json_panel: StoredValue::new(false),
        }
    }

    /// Reads the model (untracked: track the revision signals you depend on).
    pub fn read<R>(&self, f: impl FnOnce(&EditorModel) -> R) -> R {
        self.model.with_value(f)
    }

    /// Changes the model, then signals what changed and schedules the autosave.
    pub fn update<R>(&self, f: impl FnOnce(&mut EditorModel) -> R) -> R {
        let (result, changes, moving, notice, said) = self
            .model
            .try_update_value(|m| {
                let result = f(m);
                let changes = m.take_changes();
                (result, changes, m.moving().is_some(), m.notice().cloned(), m.take_announcements())
            })
            .expect("the designer's state lives as long as the app");
        if changes.menu {
            self.menu_rev.update(|r| *r += 1);
        }
        if !said.is_empty() {
            self.announcements.update(|kept| {
                for sentence in said {
                    let n = kept.last().map_or(0, |(n, _)| n + 1);
                    kept.push((n, sentence));
                }
                let extra = kept.len().saturating_sub(ANNOUNCEMENTS_KEPT);
                kept.drain(..extra);
            });
        }
        let moving_changed = self.was_moving.try_update_value(|was| std::mem::replace(was, moving) != moving).unwrap_or(false);
        if changes.graph {
            self.graph_rev.update(|r| *r += 1);
            self.schedule_check();
            self.schedule_autosave();
            if self.json_open.get_untracked() && !self.from_json_panel.get_value() {
                self.refresh_json();
            }
        }
        if changes.selection || moving_changed {
            self.selection_rev.update(|r| *r += 1);
        }
        if changes.view {
            self.view_rev.update(|r| *r += 1);
        }
        if changes.overlay {
            self.overlay_rev.update(|r| *r += 1);
        }
        if changes.notice {
            self.notice.set(notice);
        }
        result
    }

    /// The graph as node-link JSON text.
    pub fn graph_json(&self) -> String {
        self.read(|m| graph::to_json(m.graph()).to_string())
    }

    /// Shows a notice.
    pub fn say(&self, level: NoticeLevel, text: impl Into<String>) {
        let text = text.into();
        self.update(|m| m.set_notice(level, text));
    }

    /// Puts the graph's JSON into the panel (pretty), clearing its errors.
    pub fn refresh_json(&self) {
        let text = self.read(|m| serde_json::to_string_pretty(&graph::to_json(m.graph())).unwrap_or_default());
        self.json_text.set(text);
        self.json_errors.set(Vec::new());
    }

    /// Takes text typed in the JSON panel: a graph that parses replaces the canvas's (typing coalesces into
    /// one undoable step); one that does not keeps the canvas and lists the located errors.
    pub fn edit_json(&self, text: String) {
        self.json_text.set(text.clone());
        match import::open("JSON panel", &text) {
            Ok(graph) => {
                self.json_errors.set(Vec::new());
                let now = js_sys::Date::now();
                self.from_json_panel.set_value(true);
                self.update(|m| {
                    let _ = m.apply("edit the JSON", crate::engine::graph::GraphEdit::Replace(Box::new(graph)), Some("json panel"), now);
                });
                self.from_json_panel.set_value(false);
            }
            Err(e) => self.json_errors.set(vec![e.to_string()]),
        }
    }

    /// Opens graph text (a file, a drop, a paste) in the worker, then replaces or pastes into the graph.
    /// A bad file becomes the notice and leaves the graph as it was.
    pub fn open_text(&self, name: String, text: String, how: OpenAs) {
        let state = *self;
        self.busy.set(Some(format!("opening {name}…")));
        let request = JobRequest::OpenGraph { name: name.clone(), text, arrange: false };
        worker::start(request, move |message| match message {
            FromWorker::Parsed { json, .. } => {
                state.busy.set(None);
                match graph::from_json_str(&json) {
                    Ok(opened) => state.take_opened(&name, opened, how),
                    Err(errors) => state.say(NoticeLevel::Error, format!("{name}: {}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))),
                }
            }
            FromWorker::Failed { message, .. } => {
                state.busy.set(None);
                state.say(NoticeLevel::Error, message);
            }
            FromWorker::Cancelled { .. } => state.busy.set(None),
            _ => {}
        });
    }

    /// Replaces or pastes an opened, placed graph.
    pub fn take_opened(&self, name: &str, opened: TaskGraph, how: OpenAs) {
        let now = js_sys::Date::now();
        match how {
            OpenAs::Replace => {
                let nodes = opened.nodes().len();
                self.update(|m| {
                    m.replace(opened, &format!("open {name}"), now);
                    m.set_notice(NoticeLevel::Info, format!("opened {name} ({nodes} nodes)"));
                });
                self.remember(name);
            }
            OpenAs::Paste => {
                self.update(|m| {
                    if let Ok(count) = m.paste(&opened, now) {
                        m.set_notice(NoticeLevel::Info, format!("pasted {count} nodes"));
                    }
                });
            }
        }
    }

    /// Tidies the graph: on the page when small, in the worker when big (one undoable step either way).
    pub fn tidy(&self) {
        let nodes = self.read(|m| m.graph().nodes().len());
        if nodes <= TIDY_ON_PAGE {
            let now = js_sys::Date::now();
            self.update(|m| m.tidy(now));
            return;
        }
        let state = *self;
        self.busy.set(Some(format!("tidying {nodes} nodes…")));
        let request = JobRequest::OpenGraph { name: "graph".into(), text: self.graph_json(), arrange: true };
        worker::start(request, move |message| match message {
            FromWorker::Parsed { json, .. } => {
                state.busy.set(None);
                if let Ok(placed) = graph::from_json_str(&json) {
                    let positions: Vec<(NodeId, crate::app::design::geometry::Point)> =
                        placed.nodes().iter().filter_map(|n| n.position.map(|(x, y)| (n.id.clone(), crate::app::design::geometry::Point::new(x, y)))).collect();
                    let now = js_sys::Date::now();
                    state.update(|m| m.move_to("tidy up", &positions, now));
                }
            }
            FromWorker::Failed { message, .. } => {
                state.busy.set(None);
                state.say(NoticeLevel::Error, format!("cannot tidy: {message}"));
            }
            FromWorker::Cancelled { .. } => state.busy.set(None),
            _ => {}
        });
    }

    /// Adds the current graph to the recent list under `name`.
    pub fn remember(&self, name: &str) {
        let (json, nodes, edges) = self.read(|m| (graph::to_json(m.graph()).to_string(), m.graph().nodes().len(), m.graph().edges().len()));
        let entry = RecentGraph { name: name.to_string(), saved_ms: js_sys::Date::now(), nodes, edges, json };
        self.recent.update(|r| r.remember(entry));
        if let Err(e) = local_storage::write(RECENT_KEY, &self.recent.with_untracked(RecentList::to_json)) {
            self.say(NoticeLevel::Error, e.to_string());
        }
    }

    /// True while a gesture is in progress.
    pub fn is_gesturing(&self) -> bool {
        self.read(|m| !matches!(m.gesture(), Gesture::Idle))
    }

    fn schedule_check(&self) {
        if self.check_pending.get_value() {
            return;
        }
        self.check_pending.set_value(true);
        let state = *self;
        set_timeout(
            move || {
                state.check_pending.set_value(false);
                state.checked_rev.update(|r| *r += 1);
            },
            Duration::ZERO,
        );
    }

    fn schedule_autosave(&self) {
        if let Some(pending) = self.autosave.get_value() {
            pending.clear();
        }
        let state = *self;
        let handle = set_timeout_with_handle(
            move || {
                state.autosave.set_value(None);
                if let Err(e) = local_storage::write(CURRENT_KEY, &state.graph_json()) {
                    state.say(NoticeLevel::Error, format!("autosave failed: {e}"));
                }
            },
            AUTOSAVE_DELAY,
        )
        .ok();
        self.autosave.set_value(handle);
    }
}

/// The autosaved graph, if there is one that still opens.
fn restored() -> Option<TaskGraph> {
    let text = local_storage::read(CURRENT_KEY)?;
    import::open("saved graph", &text).ok()
}
