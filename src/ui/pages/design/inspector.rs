//! The inspector: the selected node's settings (family, declared kinds, the pinned task chosen from a
//! searchable list of the registry, a pick's index, a pack's inputs), the selected edge, or what a multiple
//! selection can do; for an image task, the picture settings of the graph's image tasks. Every change is one
//! edit through the model; typing in one field coalesces.

use leptos::prelude::*;

use crate::app::design::catalog::{choices, function_choices, FunctionChoice, TaskChoice};
use crate::engine::graph::{GraphFunctions, Node, NodeId, NodeKind, TaskNode};
use crate::engine::tasks::Family;
use crate::engine::value::Kind;
use crate::ui::state::{with_registry, AppState};

use super::pictures::PictureSettings;

/// Choices shown at most (searching narrows the rest).
const SHOWN: usize = 60;

/// What the inspector shows.
#[derive(Clone, Debug, PartialEq)]
enum Inspected {
    Nothing,
    Node(Node, bool, Vec<NodeId>),
    Edge(NodeId, NodeId),
    Many(usize),
}

/// The inspector.
#[component]
pub fn Inspector() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let inspected = Memo::new(move |_| {
        design.graph_rev.track();
        design.selection_rev.track();
        design.read(|m| {
            if let Some((a, b)) = m.selected_edge() {
                return Inspected::Edge(a.clone(), b.clone());
            }
            match m.single_selected() {
                Some(node) => {
                    let inputs = m.graph().edges().iter().filter(|e| e.destination == node.id).map(|e| e.source.clone()).collect();
                    Inspected::Node(node.clone(), m.graph().target() == Some(&node.id), inputs)
                }
                None if m.selection().is_empty() => Inspected::Nothing,
                None => Inspected::Many(m.selection().len()),
            }
        })
    });
    let delete = move |_| {
        let now = js_sys::Date::now();
        design.update(|m| m.delete_selection(now));
    };
    view! {
        <div class="design-inspector" data-testid="inspector">
            <h2>"Inspector"</h2>
            {move || match inspected.get() {
                Inspected::Nothing => view! { <p class="design-hint">"Select a node to see and change its settings. Drag from a node's right port to another's left port to connect them."</p> }.into_any(),
                Inspected::Many(n) => view! {
                    <p>{format!("{n} nodes selected.")}</p>
                    <p class="design-hint">"Drag one to move them all; Ctrl+C copies them as node-link JSON."</p>
                    <button class="design-danger" on:click=delete>"Delete selection"</button>
                }.into_any(),
                Inspected::Edge(a, b) => view! {
                    <p class="mono">{format!("{a} → {b}")}</p>
                    <button class="design-danger" on:click=delete>"Delete edge"</button>
                }.into_any(),
                Inspected::Node(node, is_target, inputs) => node_view(node, is_target, inputs).into_any(),
            }}
        </div>
    }
}

fn node_view(node: Node, is_target: bool, inputs: Vec<NodeId>) -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let id = node.id.clone();
    let target_id = id.clone();
    let make_target = move |_| {
        let now = js_sys::Date::now();
        let id = target_id.clone();
        design.update(|m| {
            let _ = m.apply(&format!("make {id} the target"), crate::engine::graph::GraphEdit::SetTarget(id.clone()), None, now);
        });
    };
    let delete = move |_| {
        let now = js_sys::Date::now();
        design.update(|m| m.delete_selection(now));
    };
    let kind_view = match node.kind {
        NodeKind::Task(task) => task_view(id.clone(), task).into_any(),
        NodeKind::Pick { index } => {
            let id = id.clone();
            let set = move |ev: leptos::ev::Event| match event_target_value(&ev).trim().parse::<i64>() {
                Ok(index) => {
                    let now = js_sys::Date::now();
                    let id = id.clone();
                    design.update(|m| {
                        let _ = m.set_pick_index(&id, index, now);
                    });
                }
                Err(_) => design.say(crate::app::design::NoticeLevel::Error, "the pick index must be a whole number"),
            };
            view! {
                <p class="design-hint">"Takes element [index] of its list input and passes it on as a scalar."</p>
                <label class="design-field">"index"<input name="index" type="number" min="0" value=index.to_string() on:change=set /></label>
            }
            .into_any()
        }
        NodeKind::Pack => view! {
            <p class="design-hint">"Packs its scalar inputs, in slot order, into a 10-element list."</p>
            <ol class="design-slots" start="0">{inputs.into_iter().map(|i| view! { <li class="mono">{i.0}</li> }).collect_view()}</ol>
        }
        .into_any(),
        NodeKind::Unknown { kind, op } => view! { <p class="design-hint">{format!("An unknown node ({kind} {}): validation says what to fix.", op.unwrap_or_default())}</p> }.into_any(),
    };
    view! {
        <div class="design-node-head">
            <span class="mono design-node-id">{id.0.clone()}</span>
            {if is_target {
                view! { <span class="design-target-badge">"target"</span> }.into_any()
            } else {
                view! { <button data-testid="make-target" on:click=make_target title="The target's answer is the one graded (T)">"Make target"</button> }.into_any()
            }}
        </div>
        {kind_view}
        <button class="design-danger" on:click=delete>"Delete node"</button>
    }
}

fn task_view(id: NodeId, task: TaskNode) -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let query = RwSignal::new(String::new());
    let current = StoredValue::new(task.clone());
    let edit = {
        let id = id.clone();
        move |change: Box<dyn FnOnce(&mut TaskNode)>| {
            let mut next = current.get_value();
            change(&mut next);
            let now = js_sys::Date::now();
            let id = id.clone();
            design.update(|m| {
                let _ = m.update_task(&id, next, now);
            });
        }
    };
    let kind_value = |k: &Option<String>| k.clone().unwrap_or_default();
    let set_family = {
        let edit = edit.clone();
        move |ev: leptos::ev::Event| {
            let family = event_target_value(&ev);
            edit(Box::new(move |t| {
                if t.family != family {
                    t.task_id = None;
                    t.function = None;
                }
                t.family = family;
            }));
        }
    };
    let set_kind = |input: bool| {
        let edit = edit.clone();
        move |ev: leptos::ev::Event| {
            let value = event_target_value(&ev);
            let kind = (!value.is_empty()).then_some(value);
            edit(Box::new(move |t| if input { t.input_kind = kind } else { t.output_kind = kind }));
        }
    };
    let family = task.family();
    let pinned = task.task_id;
    let pinned_function = task.function.clone();
    let function_name = task.function.clone();
    let function_sources = Memo::new(move |_| {
        design.graph_rev.track();
        design.read(|m| m.graph().python_functions().to_vec())
    });
    let (set_input, set_output) = (set_kind(true), set_kind(false));
    let list_edit = edit.clone();
    let list = move || {
        let Some(family) = family else {
            return view! { <p class="design-hint">"A task of family any is drawn from the families chosen when generating; choose a family to pin one task."</p> }.into_any();
        };
        let input = task.input_kind();
        let output = task.output_kind();
        let found = with_registry(|r| choices(r, family, &query.get(), input, output));
        let total = found.len();
        let rows = found.into_iter().take(SHOWN).map(|c| choice_row(c, pinned, list_edit.clone())).collect_view();
        let own = if family == Family::Python { function_choices(&GraphFunctions::parse(&function_sources.get()), &query.get(), input, output) } else { Vec::new() };
        let own_rows = (!own.is_empty()).then(|| {
            let rows = own.into_iter().map(|c| function_row(c, pinned_function.clone(), list_edit.clone())).collect_view();
            view! {
                <p class="design-hint">"This graph's functions"</p>
                <ul class="design-task-list" data-testid="function-list">{rows}</ul>
                <p class="design-hint">"Built-in functions"</p>
            }
        });
        view! {
            {own_rows}
            <ul class="design-task-list" data-testid="task-list">{rows}</ul>
            {(total > SHOWN).then(|| view! { <p class="design-hint">{format!("{} more: search to narrow.", total - SHOWN)}</p> })}
        }
        .into_any()
    };
    let unpin = {
        let edit = edit.clone();
        move |_| {
            edit(Box::new(|t| {
                t.task_id = None;
                t.function = None;
            }))
        }
    };
    let pinned_name = move || {
        if let Some(name) = &function_name {
            return Some((format!("{name}()"), "this graph's function".to_string()));
        }
        let family = family?;
        let id = u32::try_from(pinned?).ok()?;
        with_registry(|r| r.by_task_id(family, id).map(|t| (t.info().name.clone(), t.info().signature())))
    };
    let kinds = ["", "scalar", "list"];
    let kind_options = move |selected: String| kinds.iter().map(move |k| view! { <option value=*k selected=selected == *k>{if k.is_empty() { "any" } else { k }}</option> }).collect_view();
    view! {
        <label class="design-field">"family"
            <select name="family" data-testid="inspector-family" on:change=set_family>
                {["math", "gsm", "python", "image", "any"].into_iter().map(|f| view! { <option value=f selected=current.get_value().family == f>{f}</option> }).collect_view()}
            </select>
        </label>
        <label class="design-field">"input kind"<select name="input_kind" data-testid="inspector-input" on:change=set_input>{kind_options(kind_value(&current.get_value().input_kind))}</select></label>
        <label class="design-field">"output kind"<select name="output_kind" data-testid="inspector-output" on:change=set_output>{kind_options(kind_value(&current.get_value().output_kind))}</select></label>
        <div class="design-pinned">
            {move || match pinned_name() {
                Some((name, signature)) => view! {
                    <span>"pinned: "<strong>{name}</strong>" "<span class="mono">{signature}</span></span>
                    <button on:click=unpin.clone()>"Unpin"</button>
                }.into_any(),
                None => view! { <span class="design-hint">"No pinned task: every task of the family that fits the kinds can be drawn."</span> }.into_any(),
            }}
        </div>
        <input type="search" class="design-search" placeholder="Search tasks to pin…" data-testid="inspector-search"
            prop:value=move || query.get() on:input=move |ev| query.set(event_target_value(&ev)) />
        {list}
        {(current.get_value().family == "image").then(|| view! { <PictureSettings /> })}
    }
}

fn function_row(choice: FunctionChoice, pinned: Option<String>, edit: impl Fn(Box<dyn FnOnce(&mut TaskNode)>) + Clone + 'static) -> impl IntoView {
    let FunctionChoice { name, signature, inputs, output, fits } = choice;
    let class = if pinned.as_deref() == Some(name.as_str()) { "design-task design-task--pinned" } else if fits { "design-task" } else { "design-task design-task--misfit" };
    let pin = {
        let name = name.clone();
        move |_| {
            let (name, inputs) = (name.clone(), inputs.clone());
            edit(Box::new(move |t| {
                t.task_id = None;
                t.function = Some(name);
                if !t.input_kind.as_deref().and_then(Kind::parse).is_some_and(|k| inputs.contains(&k)) {
                    t.input_kind = inputs.first().map(|k| k.as_str().to_string());
                }
                t.output_kind = Some(output.as_str().to_string());
            }));
        }
    };
    view! {
        <li class=class>
            <button class="design-task-pick" data-function=name.clone() on:click=pin title="Pin this function of the graph">
                <span class="design-task-name">{format!("{name}()")}</span>
                <span class="design-task-sig mono">{signature}</span>
                <span class="design-task-desc">"pasted into this graph (the Python box)"</span>
            </button>
        </li>
    }
}

fn choice_row(choice: TaskChoice, pinned: Option<i64>, edit: impl Fn(Box<dyn FnOnce(&mut TaskNode)>) + Clone + 'static) -> impl IntoView {
    let TaskChoice { task_id, name, description, signature, fits, .. } = choice;
    let class = if pinned == Some(task_id) { "design-task design-task--pinned" } else if fits { "design-task" } else { "design-task design-task--misfit" };
    let pin = {
        let signature = signature.clone();
        move |_| {
            let (inputs, output) = signature.split_once(" → ").map(|(i, o)| (i.to_string(), o.to_string())).unwrap_or_default();
            edit(Box::new(move |t| {
                t.task_id = Some(task_id);
                t.function = None;
                let accepted: Vec<&str> = inputs.split(" | ").collect();
                if !t.input_kind.as_deref().is_some_and(|k| accepted.contains(&k)) {
                    t.input_kind = accepted.first().map(|k| k.to_string());
                }
                t.output_kind = Some(output);
            }));
        }
    };
    view! {
        <li class=class>
            <button class="design-task-pick" on:click=pin title=if fits { "Pin this task" } else { "Pin this task (its kinds will be set to fit it)" }>
                <span class="design-task-name">{name}</span>
                <span class="design-task-sig mono">{signature}</span>
                <span class="design-task-desc">{description}</span>
            </button>
        </li>
    }
}
