//! Tests of the editor model: edits, selection, undo and redo, refusals and their notices.

use super::*;
use crate::app::design::geometry::{port_point, node_rect, PortSide, TASK_SIZE};
use crate::app::design::gesture::PointerKind;

fn id(s: &str) -> NodeId {
    NodeId(s.into())
}

/// An editor whose screen shows world (0, 0) at its top-left corner at zoom 1.
fn editor() -> EditorModel {
    EditorModel { viewport: Viewport { origin: Point::default(), zoom: 1.0, width: 1200.0, height: 800.0 }, ..EditorModel::default() }
}

fn pointer(x: f64, y: f64) -> PointerInput {
    PointerInput { id: 1, screen: Point::new(x, y), inside: true, ..PointerInput::default() }
}

/// A real drag: down, a few moves, up.
fn drag(model: &mut EditorModel, from: Point, to: Point) {
    model.pointer_down(&pointer(from.x, from.y));
    for i in 1..=4 {
        let t = i as f64 / 4.0;
        model.pointer_move(&pointer(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t));
    }
    model.pointer_up(&pointer(to.x, to.y));
}

fn place(model: &mut EditorModel, family: &str, x: f64, y: f64) {
    model.begin_placing(PaletteItem::Task(family.into()));
    model.pointer_move(&pointer(x, y));
    model.pointer_up(&pointer(x, y));
}

fn out_port(model: &EditorModel, name: &str) -> Point {
    port_point(&node_rect(model.graph().node(&id(name)).unwrap(), Point::default()), PortSide::Out)
}

fn in_port(model: &EditorModel, name: &str) -> Point {
    port_point(&node_rect(model.graph().node(&id(name)).unwrap(), Point::default()), PortSide::In)
}

/// Three tasks placed from the palette and connected by dragging port to port.
fn three_task_chain() -> EditorModel {
    let mut model = editor();
    for (i, x) in [150.0, 450.0, 750.0].into_iter().enumerate() {
        place(&mut model, "math", x, 200.0);
        assert_eq!(model.selection(), &BTreeSet::from([id(&format!("task_{}", i + 1))]));
    }
    let (a, b) = (out_port(&model, "task_1"), in_port(&model, "task_2"));
    drag(&mut model, a, b);
    let (a, b) = (out_port(&model, "task_2"), in_port(&model, "task_3"));
    drag(&mut model, a, b);
    model
}

#[test]
fn a_chain_is_built_by_placing_and_connecting_and_every_step_undoes() {
    let mut model = three_task_chain();
    assert_eq!(model.graph().nodes().len(), 3);
    assert_eq!(model.graph().edges().len(), 2);
    assert_eq!(model.graph().target(), Some(&id("task_1")), "the first task became the target");
    assert_eq!(model.history_lengths(), (5, 0));
    for _ in 0..5 {
        model.undo();
    }
    assert!(model.graph().nodes().is_empty());
    for _ in 0..5 {
        model.redo();
    }
    assert_eq!(model.graph().edges().len(), 2);
}

#[test]
fn every_family_from_the_palette_is_a_valid_graph_on_its_own() {
    let registry = crate::engine::tasks::registry::builtin();
    for family in ["math", "gsm", "python", "image"] {
        let mut model = editor();
        place(&mut model, family, 300.0, 200.0);
        let errors: Vec<String> = model.graph().issues(&registry).into_iter().filter(|i| i.severity == crate::engine::graph::Severity::Error).map(|i| i.to_string()).collect();
        assert!(errors.is_empty(), "{family}: {errors:?}");
    }
}

#[test]
fn a_pasted_function_joins_the_graph_and_a_python_node_can_pin_it() {
    let registry = crate::engine::tasks::registry::builtin();
    let mut model = editor();
    place(&mut model, "python", 300.0, 200.0);
    let source = "def total(xs: List[int]) -> int:\n    return sum(xs)\n";
    assert_eq!(model.add_function(source, 1.0), Ok("total".to_string()));
    assert!(model.add_function("def broken(x: int) -> int:\n    return x +\n", 2.0).unwrap_err().starts_with("line 2"));
    let pinned = TaskNode { family: "python".into(), input_kind: Some("list".into()), output_kind: Some("scalar".into()), function: Some("total".into()), ..TaskNode::default() };
    model.update_task(&id("task_1"), pinned, 3.0).unwrap();
    assert!(crate::engine::graph::ValidGraph::new(model.graph().clone(), &registry).is_ok(), "{:?}", model.graph().issues(&registry));
    // The same name again replaces the source; undo brings the first back.
    model.add_function("def total(xs: List[int]) -> int:\n    return len(xs)\n", 4.0).unwrap();
    assert_eq!(model.graph().python_functions().len(), 1);
    assert!(model.graph().python_functions()[0].contains("len(xs)"));
    model.undo();
    assert!(model.graph().python_functions()[0].contains("sum(xs)"));
}

#[test]
fn picture_parameters_are_one_undo_step_per_field_typed_into() {
    let mut model = three_task_chain();
    let steps = model.history_lengths().0;
    let mut params = ImageParams::default();
    for (k, paths) in [5, 6, 7].into_iter().enumerate() {
        params.num_paths = paths;
        model.set_image_params(Some(params), Some("num_paths"), 100.0 * k as f64).unwrap();
    }
    assert_eq!(model.graph().image_params().map(|p| p.num_paths), Some(7));
    assert_eq!(model.history_lengths().0, steps + 1, "typing into one field coalesces");
    params.height = 1000;
    model.set_image_params(Some(params), Some("height"), 400.0).unwrap();
    assert_eq!(model.history_lengths().0, steps + 2, "another field is another step");
    model.undo();
    assert_eq!(model.graph().image_params().map(|p| (p.num_paths, p.height)), Some((7, 1400)));
    model.undo();
    assert_eq!(model.graph().image_params(), None);
    model.redo();
    model.set_image_params(None, None, 900.0).unwrap();
    assert_eq!(model.graph().image_params(), None, "reset to the run's parameters");
}

#[test]
fn refused_connections_leave_the_graph_and_say_why_at_the_pointer() {
    let mut model = three_task_chain();
    let list_input = TaskNode { family: "math".into(), task_id: None, input_kind: Some("list".into()), output_kind: Some("scalar".into()), function: None };
    // A fourth task taking a list: a scalar output cannot feed it.
    place(&mut model, "math", 450.0, 500.0);
    model.update_task(&id("task_4"), list_input, 0.0).unwrap();
    let before = model.graph().clone();
    let (a, b) = (out_port(&model, "task_1"), in_port(&model, "task_4"));
    drag(&mut model, a, b);
    let notice = model.notice().unwrap();
    assert_eq!(notice.level, NoticeLevel::Refused);
    assert_eq!(notice.text, "refused: task_1 outputs a scalar, but task_4 takes a list");
    assert!(notice.at.is_some(), "shown at the pointer");
    // Closing the chain into a loop.
    let (a, b) = (out_port(&model, "task_3"), in_port(&model, "task_1"));
    drag(&mut model, a, b);
    assert!(model.notice().unwrap().text.contains("would create a cycle (task_1 -> task_2 -> task_3 -> task_1)"), "{:?}", model.notice());
    let (a, b) = (out_port(&model, "task_1"), in_port(&model, "task_3"));
    drag(&mut model, a, b);
    assert!(model.notice().unwrap().text.starts_with("refused: input already taken"));
    assert_eq!(model.graph(), &before);
    // The next successful action clears the notice.
    model.nudge(8.0, 0.0, 0.0);
    assert_eq!(model.notice(), None);
}

#[test]
fn a_drag_move_is_one_step_however_many_pointer_moves_it_took() {
    let mut model = three_task_chain();
    model.select_all();
    let steps = model.history_lengths().0;
    let before = model.graph().clone();
    let grab = Point::new(450.0, 200.0);
    model.pointer_down(&pointer(grab.x, grab.y));
    for i in 1..=30 {
        model.pointer_move(&pointer(grab.x + i as f64 * 3.0, grab.y + i as f64));
        if i == 15 {
            let (moving, offset) = model.moving().unwrap();
            assert_eq!(moving.len(), 3);
            assert_eq!(offset, Point::new(45.0, 15.0));
            assert_eq!(model.graph(), &before, "the graph changes only on the drop");
        }
    }
    model.pointer_up(&pointer(grab.x + 90.0, grab.y + 30.0));
    assert_eq!(model.history_lengths().0, steps + 1);
    for (old, new) in before.nodes().iter().zip(model.graph().nodes()) {
        assert_eq!(node_center(new), Point::new(node_center(old).x + 90.0, node_center(old).y + 30.0));
    }
    model.undo();
    assert_eq!(model.graph(), &before);
}

#[test]
fn dragging_an_unselected_node_moves_only_it_and_snapping_lands_it_on_the_grid() {
    let mut model = three_task_chain();
    model.set_snap(true);
    model.select_all();
    // Clicking task_2 alone first selects only it.
    model.pointer_down(&pointer(450.0, 200.0));
    model.pointer_up(&pointer(450.0, 200.0));
    drag(&mut model, Point::new(450.0, 200.0), Point::new(500.0, 213.0));
    let c = node_center(model.graph().node(&id("task_2")).unwrap());
    assert_eq!((c.x % GRID, c.y % GRID), (0.0, 0.0), "{c:?}");
    assert_eq!(node_center(model.graph().node(&id("task_1")).unwrap()), Point::new(150.0, 200.0));
}

#[test]
fn clicks_shift_clicks_and_box_selection() {
    let mut model = three_task_chain();
    model.pointer_down(&pointer(150.0, 200.0));
    model.pointer_up(&pointer(150.0, 200.0));
    assert_eq!(model.selection(), &BTreeSet::from([id("task_1")]));
    let shift = |x: f64, y: f64| PointerInput { shift: true, ..pointer(x, y) };
    model.pointer_down(&shift(750.0, 200.0));
    model.pointer_up(&shift(750.0, 200.0));
    assert_eq!(model.selection().len(), 2);
    model.pointer_down(&shift(150.0, 200.0));
    model.pointer_up(&shift(150.0, 200.0));
    assert_eq!(model.selection(), &BTreeSet::from([id("task_3")]), "shift-click toggles");
    model.pointer_down(&pointer(20.0, 600.0));
    model.pointer_up(&pointer(20.0, 600.0));
    assert!(model.selection().is_empty(), "a click on the background clears");
    // Shift-drag a box around the first two.
    model.pointer_down(&shift(10.0, 100.0));
    for x in [100.0, 300.0, 520.0] {
        model.pointer_move(&shift(x, 300.0));
    }
    model.pointer_up(&shift(520.0, 300.0));
    assert_eq!(model.selection(), &BTreeSet::from([id("task_1"), id("task_2")]));
}

#[test]
fn clicking_an_edge_selects_it_and_delete_removes_only_it() {
    let mut model = three_task_chain();
    let (a, b) = (out_port(&model, "task_1"), in_port(&model, "task_2"));
    let middle = Point::new((a.x + b.x) / 2.0, (a.y + b.y) / 2.0);
    model.pointer_down(&pointer(middle.x, middle.y));
    model.pointer_up(&pointer(middle.x, middle.y));
    assert_eq!(model.selected_edge(), Some(&(id("task_1"), id("task_2"))));
    model.key_down(&KeyInput { key: "Delete".into(), ..KeyInput::default() });
    assert_eq!(model.graph().edges().len(), 1);
    assert_eq!(model.graph().nodes().len(), 3);
}

#[test]
fn deleting_a_selection_is_one_step_and_undo_restores_it_exactly() {
    let mut model = three_task_chain();
    let before = model.graph().clone();
    model.select_all();
    model.key_down(&KeyInput { key: "Backspace".into(), ..KeyInput::default() });
    assert!(model.graph().nodes().is_empty());
    assert!(model.selection().is_empty());
    model.key_down(&KeyInput { key: "z".into(), command: true, ..KeyInput::default() });
    assert_eq!(model.graph(), &before);
    model.key_down(&KeyInput { key: "Z".into(), command: true, shift: true, ..KeyInput::default() });
    assert!(model.graph().nodes().is_empty());
    model.key_down(&KeyInput { key: "y".into(), command: true, ..KeyInput::default() });
    assert_eq!(model.notice().unwrap().text, "nothing to redo");
}

#[test]
fn copy_then_paste_is_one_step_with_fresh_ids_at_the_pointer() {
    let mut model = three_task_chain();
    model.select_all();
    let text = model.copy().unwrap();
    let clip = crate::engine::graph::from_json_str(&text).unwrap();
    model.pointer_move(&pointer(600.0, 600.0));
    let steps = model.history_lengths().0;
    assert_eq!(model.paste(&clip, 0.0), Ok(3));
    assert_eq!(model.history_lengths().0, steps + 1);
    assert_eq!(model.graph().nodes().len(), 6);
    assert_eq!(model.graph().edges().len(), 4, "the edges inside the copy came along");
    assert_eq!(model.selection().len(), 3, "the pasted nodes are selected");
    let pasted = bounds(model.graph().nodes().iter().skip(3)).unwrap();
    assert!(pasted.center().distance(Point::new(600.0, 600.0)) < 1.0);
    model.undo();
    assert_eq!(model.graph().nodes().len(), 3);
    assert!(model.selection().is_empty(), "undone nodes leave the selection");
}

#[test]
fn a_paste_wider_than_the_view_brings_the_view_to_it() {
    let mut model = editor();
    let clip = crate::app::design::presets::build("chain", &[("n".to_string(), "40".to_string())].into_iter().collect()).unwrap();
    let zoom = model.viewport().zoom;
    assert_eq!(model.paste(&clip, 0.0), Ok(40));
    let pasted = bounds(model.graph().nodes()).unwrap();
    assert!(model.viewport().zoom < zoom, "zoomed out to show the paste");
    assert!((model.viewport().zoom - crate::app::design::lod::TITLE_ZOOM).abs() < 1e-9, "but no further than titles stay legible");
    let shown = model.viewport().visible();
    assert!(shown.intersects(&pasted) && (shown.x - pasted.x) * model.viewport().zoom < 41.0, "the paste's start is in view");
}

#[test]
fn cut_and_duplicate() {
    let mut model = three_task_chain();
    model.pointer_down(&pointer(150.0, 200.0));
    model.pointer_up(&pointer(150.0, 200.0));
    model.key_down(&KeyInput { key: "d".into(), command: true, ..KeyInput::default() });
    assert_eq!(model.graph().nodes().len(), 4);
    assert_eq!(model.selection(), &BTreeSet::from([id("task_4")]));
    let text = model.cut(0.0).unwrap();
    assert!(text.contains("task_4"));
    assert_eq!(model.graph().nodes().len(), 3);
}

#[test]
fn nudges_in_a_row_are_one_step_and_escape_cancels_a_drag() {
    let mut model = three_task_chain();
    model.select_all();
    let steps = model.history_lengths().0;
    for t in [0.0, 100.0, 200.0] {
        model.key_down(&KeyInput { key: "ArrowRight".into(), time_ms: t, ..KeyInput::default() });
    }
    assert_eq!(model.history_lengths().0, steps + 1);
    assert_eq!(node_center(model.graph().node(&id("task_1")).unwrap()).x, 150.0 + 24.0);
    let before = model.graph().clone();
    model.pointer_down(&pointer(174.0, 200.0));
    model.pointer_move(&pointer(300.0, 300.0));
    assert!(model.moving().is_some());
    model.key_down(&KeyInput { key: "Escape".into(), ..KeyInput::default() });
    model.pointer_up(&pointer(300.0, 300.0));
    assert_eq!(model.graph(), &before, "a cancelled move moves nothing");
}

#[test]
fn tidy_is_one_undoable_step() {
    let mut model = three_task_chain();
    drag(&mut model, Point::new(450.0, 200.0), Point::new(460.0, 700.0));
    let messy = model.graph().clone();
    model.tidy(0.0);
    let tidy: Vec<Point> = model.graph().nodes().iter().map(node_center).collect();
    assert_eq!(tidy[0].y, tidy[1].y, "a chain tidies into a line");
    assert!(tidy[0].x < tidy[1].x && tidy[1].x < tidy[2].x);
    model.undo();
    assert_eq!(model.graph(), &messy);
}

#[test]
fn the_view_pans_zooms_and_fits() {
    let mut model = three_task_chain();
    drag(&mut model, Point::new(300.0, 600.0), Point::new(400.0, 650.0));
    assert_eq!(model.viewport().origin, Point::new(-100.0, -50.0), "dragging the background pans");
    let anchor = model.viewport().to_world(Point::new(300.0, 300.0));
    model.wheel(Point::new(300.0, 300.0), -240.0);
    assert!(model.viewport().zoom > 1.0);
    assert!(model.viewport().to_world(Point::new(300.0, 300.0)).distance(anchor) < 1e-9, "wheel zooms around the pointer");
    model.key_down(&KeyInput { key: "f".into(), ..KeyInput::default() });
    let all = bounds(model.graph().nodes()).unwrap();
    assert!(model.viewport().visible().encloses(&all));
    assert!(model.take_changes().view);
    assert!(!model.take_changes().view, "changes are taken once");
}

#[test]
fn a_touch_drag_moves_a_node_and_a_pinch_zooms() {
    let mut model = three_task_chain();
    let touch = |id: i32, x: f64, y: f64| PointerInput { id, kind: PointerKind::Touch, screen: Point::new(x, y), inside: true, ..PointerInput::default() };
    model.pointer_down(&touch(5, 450.0, 200.0));
    for x in [460.0, 480.0, 500.0] {
        model.pointer_move(&touch(5, x, 200.0));
    }
    model.pointer_up(&touch(5, 500.0, 200.0));
    assert_eq!(node_center(model.graph().node(&id("task_2")).unwrap()), Point::new(500.0, 200.0));
    model.pointer_down(&touch(6, 100.0, 600.0));
    model.pointer_down(&touch(7, 200.0, 600.0));
    model.pointer_move(&touch(7, 300.0, 600.0));
    assert!((model.viewport().zoom - 2.0).abs() < 1e-9);
}

#[test]
fn marking_the_target_and_editing_a_task_in_the_inspector() {
    let mut model = three_task_chain();
    model.pointer_down(&pointer(750.0, 200.0));
    model.pointer_up(&pointer(750.0, 200.0));
    model.key_down(&KeyInput { key: "t".into(), ..KeyInput::default() });
    assert_eq!(model.graph().target(), Some(&id("task_3")));
    let steps = model.history_lengths().0;
    for pinned in [1, 12, 123] {
        let task = TaskNode { family: "math".into(), task_id: Some(pinned), input_kind: Some("scalar".into()), output_kind: Some("scalar".into()), function: None };
        model.update_task(&id("task_3"), task, pinned as f64).unwrap();
    }
    assert_eq!(model.history_lengths().0, steps + 1, "typing in one field is one step");
    model.select_all();
    model.mark_target(0.0);
    assert_eq!(model.notice().unwrap().text, "select one task to make it the target");
}

#[test]
fn palette_items_dropped_outside_the_canvas_add_nothing() {
    let mut model = editor();
    model.begin_placing(PaletteItem::Pack);
    let outside = PointerInput { inside: false, ..pointer(-50.0, 10.0) };
    model.pointer_move(&outside);
    model.pointer_up(&outside);
    assert!(model.graph().nodes().is_empty());
    model.begin_placing(PaletteItem::Pick);
    model.pointer_move(&pointer(100.0, 100.0));
    model.pointer_up(&pointer(100.0, 100.0));
    assert_eq!(model.graph().nodes()[0].id, id("pick_1"));
    assert_eq!(model.graph().target(), None, "an adapter never becomes the target");
    assert_eq!(node_rect(&model.graph().nodes()[0], Point::default()).center(), Point::new(100.0, 100.0));
    let _ = TASK_SIZE;
}

#[test]
fn clicking_an_issue_focuses_its_node() {
    let mut model = three_task_chain();
    model.focus(&id("task_3"));
    assert_eq!(model.selection(), &BTreeSet::from([id("task_3")]));
    let centre = model.viewport().to_screen(Point::new(750.0, 200.0));
    assert!(centre.distance(Point::new(600.0, 400.0)) < 1e-9);
}

#[test]
fn replacing_the_graph_is_undoable_and_fits_the_view() {
    let mut model = three_task_chain();
    let before = model.graph().clone();
    let other = crate::app::design::presets::build("multichain", &Default::default()).unwrap();
    model.replace(other.clone(), "open preset", 0.0);
    assert_eq!(model.graph(), &other);
    let (shown, all) = (model.viewport().visible(), bounds(other.nodes()).unwrap());
    assert!(model.viewport().zoom >= crate::app::design::lod::TITLE_ZOOM - 1e-9, "at a zoom where titles read");
    assert!(shown.encloses(&all) || (shown.intersects(&all) && shown.x <= all.x), "the whole graph, or its start, in view");
    model.undo();
    assert_eq!(model.graph(), &before);
}

// ---- Keyboard alternatives and announcements -----------------------------------------------------------

fn key(model: &mut EditorModel, key: &str) -> KeyOutcome {
    model.key_down(&KeyInput { key: key.into(), ..KeyInput::default() })
}

fn alt(model: &mut EditorModel, key: &str) -> KeyOutcome {
    model.key_down(&KeyInput { key: key.into(), alt: true, ..KeyInput::default() })
}

/// Three tasks added from the palette with the keyboard alone, each beside the last, then unselected.
fn keyboard_three() -> EditorModel {
    let mut model = editor();
    for _ in 0..3 {
        model.add_beside_focus(&PaletteItem::Task("math".into()), 0.0).unwrap();
    }
    key(&mut model, "Escape");
    model.take_announcements();
    model
}

#[test]
fn the_canvas_has_one_tab_stop_and_arrows_walk_the_focus_when_nothing_is_selected() {
    let mut model = three_task_chain();
    key(&mut model, "Escape");
    assert!(model.selection().is_empty());
    assert_eq!(model.focused(), Some(&id("task_3")), "the focus stayed on the node added last");
    model.set_focus(&id("task_1"));
    assert_eq!(model.tab_stop(), Some(&id("task_1")));
    let before = model.graph().clone();
    key(&mut model, "ArrowRight");
    assert_eq!(model.focused(), Some(&id("task_2")));
    key(&mut model, "ArrowRight");
    key(&mut model, "ArrowRight");
    assert_eq!(model.focused(), Some(&id("task_3")), "nothing further right: the focus stays");
    assert_eq!(model.take_announcements().last().map(String::as_str), Some("No node to the right of task_3"));
    alt(&mut model, "ArrowLeft");
    assert_eq!(model.focused(), Some(&id("task_2")));
    assert_eq!(model.graph(), &before, "walking the focus moves no node");
    // Enter selects the focused node; arrows then nudge it, Alt+arrows still walk; Escape puts it down.
    key(&mut model, "Enter");
    assert_eq!(model.selection(), &BTreeSet::from([id("task_2")]));
    key(&mut model, "ArrowDown");
    assert_eq!(node_center(model.graph().node(&id("task_2")).unwrap()), Point::new(450.0, 208.0));
    alt(&mut model, "ArrowRight");
    assert_eq!(model.focused(), Some(&id("task_3")));
    assert_eq!(model.selection(), &BTreeSet::from([id("task_2")]), "the focus follows the selection, not the other way round");
}

#[test]
fn the_focus_follows_clicks_and_leaves_deleted_nodes() {
    let mut model = three_task_chain();
    model.pointer_down(&pointer(150.0, 200.0));
    model.pointer_up(&pointer(150.0, 200.0));
    assert_eq!(model.focused(), Some(&id("task_1")));
    model.select_all();
    assert_eq!(model.focused(), Some(&id("task_1")), "a selection that keeps the focused node keeps the focus");
    key(&mut model, "Delete");
    assert_eq!(model.focused(), None);
    assert_eq!(model.tab_stop(), None);
    model.undo();
    assert_eq!(model.tab_stop(), Some(&id("task_1")), "with no focus the first node is the Tab stop");
}

#[test]
fn enter_on_a_palette_entry_adds_beside_the_focus_in_one_step_and_focuses_it() {
    let mut model = editor();
    let first = model.add_beside_focus(&PaletteItem::Task("math".into()), 0.0).unwrap();
    assert_eq!(node_center(model.graph().node(&first).unwrap()), Point::new(600.0, 400.0), "no focus: the view's centre");
    assert_eq!(model.graph().target(), Some(&first));
    let steps = model.history_lengths().0;
    let pack = model.add_beside_focus(&PaletteItem::Pack, 0.0).unwrap();
    assert_eq!(pack, id("pack_2"), "ids count every node");
    assert_eq!(model.history_lengths().0, steps + 1, "one undoable step");
    assert_eq!(model.focused(), Some(&pack));
    let (a, b) = (node_rect(model.graph().node(&first).unwrap(), Point::default()), node_rect(model.graph().node(&pack).unwrap(), Point::default()));
    assert_eq!((b.x - a.right(), b.center().y), (keyboard::ADD_GAP, a.center().y), "to the right, level");
    // Beside the first again: the spot is taken, so the new node goes below it.
    model.set_focus(&first);
    let third = model.add_beside_focus(&PaletteItem::Pick, 0.0).unwrap();
    let c = node_rect(model.graph().node(&third).unwrap(), Point::default());
    assert!(!c.intersects(&b) && c.y > b.bottom(), "{c:?} below {b:?}");
    assert_eq!(model.take_announcements(), ["Added task_1, math task, scalar to scalar, target", "Added pack_2, pack adapter, scalars into a list", "Added pick_3, pick adapter, element 0 of a list"]);
    model.undo();
    assert_eq!(model.graph().nodes().len(), 2);
    assert_eq!(model.focused(), None, "an undone node loses the focus");
    assert_eq!(model.take_announcements(), ["Undid: add pick_3"]);
}

#[test]
fn c_opens_a_filterable_connect_list_and_enter_connects_through_graph_edit() {
    let mut model = keyboard_three();
    model.set_focus(&id("task_2"));
    key(&mut model, "c");
    let menu = model.connect_menu().unwrap();
    assert_eq!((menu.node.clone(), menu.query.as_str(), menu.active), (id("task_2"), "", 0));
    let labels: Vec<String> = model.connect_choices().into_iter().map(|c| c.label).collect();
    assert_eq!(labels, ["task_2 output → task_1 input (math, scalar)", "task_2 output → task_3 input (math, scalar)", "task_1 output → task_2 input (math, scalar)", "task_3 output → task_2 input (math, scalar)"]);
    assert_eq!(model.take_announcements(), ["Connect task_2: 4 choices (type to filter, Enter connects, Escape closes)"]);
    for ch in ["3"] {
        key(&mut model, ch);
    }
    assert_eq!(model.connect_choices().len(), 2, "typing filters by node id");
    key(&mut model, "ArrowDown");
    key(&mut model, "ArrowDown");
    assert_eq!(model.connect_menu().unwrap().active, 0, "the active choice wraps around");
    let steps = model.history_lengths().0;
    key(&mut model, "Enter");
    assert!(model.connect_menu().is_none(), "a made edge closes the list");
    assert_eq!(model.graph().edges().len(), 1);
    assert_eq!((model.graph().edges()[0].source.clone(), model.graph().edges()[0].destination.clone()), (id("task_2"), id("task_3")));
    assert_eq!(model.history_lengths().0, steps + 1);
    assert_eq!(model.take_announcements(), ["Connected task_2 output to task_3 input"]);
    key(&mut model, "c");
    key(&mut model, "Escape");
    assert!(model.connect_menu().is_none());
    assert_eq!(model.selection(), &BTreeSet::new(), "Escape closed the list, nothing else");
    model.undo();
    assert!(model.graph().edges().is_empty());
    assert_eq!(model.take_announcements().last().map(String::as_str), Some("Undid: connect task_2 to task_3"));
}

#[test]
fn refusals_from_the_connect_list_say_exactly_what_a_drag_says() {
    let mut model = keyboard_three();
    model.connect(&id("task_1"), &id("task_2"), 0.0).unwrap();
    model.connect(&id("task_2"), &id("task_3"), 0.0).unwrap();
    let list_input = TaskNode { family: "math".into(), task_id: None, input_kind: Some("list".into()), output_kind: Some("scalar".into()), function: None };
    model.set_focus(&id("task_2"));
    model.add_beside_focus(&PaletteItem::Task("math".into()), 0.0).unwrap();
    model.update_task(&id("task_4"), list_input, 0.0).unwrap();
    model.take_announcements();
    let before = model.graph().clone();
    // Kind mismatch: task_3's scalar into task_4's list, listed last and marked.
    model.set_focus(&id("task_3"));
    key(&mut model, "c");
    let choices = model.connect_choices();
    let mismatch = choices.iter().position(|c| c.to == id("task_4")).unwrap();
    assert!(!choices[mismatch].fits && choices[mismatch].label.contains("kind mismatch"));
    for _ in 0..mismatch {
        key(&mut model, "ArrowDown");
    }
    model.take_announcements();
    key(&mut model, "Enter");
    let text = "task_3 outputs a scalar, but task_4 takes a list";
    assert_eq!(model.notice().unwrap().text, format!("refused: {text}"));
    assert_eq!(model.notice().unwrap().at, None, "a keyboard refusal is not pinned to the pointer");
    assert_eq!(model.take_announcements(), [format!("Refused: {text}")]);
    assert!(model.connect_menu().is_some(), "the list stays open after a refusal");
    // A cycle, with its path; then a taken input.
    key(&mut model, "Escape");
    key(&mut model, "c");
    model.set_connect_query("task_1");
    let first = model.connect_choices()[0].clone();
    assert_eq!((first.from.clone(), first.to.clone()), (id("task_3"), id("task_1")));
    key(&mut model, "Enter");
    assert_eq!(model.take_announcements().last().unwrap(), "Refused: connecting task_3 to task_1 would create a cycle (task_1 -> task_2 -> task_3 -> task_1)");
    model.set_connect_query("task_2");
    let labels: Vec<String> = model.connect_choices().into_iter().map(|c| c.label).collect();
    assert_eq!(labels, ["task_3 output → task_2 input (math, scalar)"], "task_2 -> task_3 exists already; the other way is listed");
    model.close_connect();
    model.set_focus(&id("task_1"));
    key(&mut model, "c");
    model.set_connect_query("task_3");
    key(&mut model, "Enter");
    assert!(model.take_announcements().last().unwrap().starts_with("Refused: input already taken: task_3 takes its one input from task_2"));
    assert_eq!(model.graph(), &before, "refusals change nothing");
}

#[test]
fn e_walks_the_focused_nodes_edges_and_delete_removes_the_one_selected() {
    let mut model = three_task_chain();
    key(&mut model, "Escape");
    model.set_focus(&id("task_2"));
    model.take_announcements();
    key(&mut model, "e");
    assert_eq!(model.selected_edge(), Some(&(id("task_1"), id("task_2"))));
    key(&mut model, "e");
    assert_eq!(model.selected_edge(), Some(&(id("task_2"), id("task_3"))));
    key(&mut model, "e");
    assert_eq!(model.selected_edge(), Some(&(id("task_1"), id("task_2"))), "cycles around");
    assert_eq!(model.take_announcements(), ["Edge task_1 to task_2, 1 of 2; Delete removes it", "Edge task_2 to task_3, 2 of 2; Delete removes it", "Edge task_1 to task_2, 1 of 2; Delete removes it"]);
    key(&mut model, "Delete");
    assert_eq!(model.graph().edges().len(), 1);
    assert_eq!(model.graph().nodes().len(), 3);
    assert_eq!(model.focused(), Some(&id("task_2")), "the focus stays on the node");
    assert_eq!(model.take_announcements(), ["Deleted edge task_1 to task_2"]);
    model.undo();
    assert_eq!(model.graph().edges().len(), 2);
    assert_eq!(model.take_announcements(), ["Undid: delete edge task_1 -> task_2"]);
}

#[test]
fn click_a_port_then_another_to_connect_and_click_a_palette_entry_then_the_canvas_to_place() {
    let mut model = three_task_chain();
    let a = out_port(&model, "task_1");
    let c = in_port(&model, "task_3");
    model.pointer_down(&pointer(a.x, a.y));
    model.pointer_up(&pointer(a.x, a.y));
    assert_eq!(model.armed_port(), Some(&(id("task_1"), PortSide::Out)));
    assert_eq!(model.take_announcements().last().unwrap(), "Connecting from task_1 output: click an input port, Escape cancels");
    model.pointer_down(&pointer(c.x, c.y));
    model.pointer_up(&pointer(c.x, c.y));
    assert!(model.take_announcements().last().unwrap().starts_with("Refused: input already taken"), "the same refusal as a drag");
    assert_eq!(model.armed_port(), None);
    // In port first, then an out port: connects the other way round.
    place(&mut model, "math", 450.0, 500.0);
    let (free_in, out) = (in_port(&model, "task_4"), out_port(&model, "task_3"));
    model.pointer_down(&pointer(free_in.x, free_in.y));
    model.pointer_up(&pointer(free_in.x, free_in.y));
    model.pointer_down(&pointer(out.x, out.y));
    model.pointer_up(&pointer(out.x, out.y));
    assert!(model.graph().edges().iter().any(|e| e.source == id("task_3") && e.destination == id("task_4")));
    // Escape forgets a clicked port.
    model.pointer_down(&pointer(out.x, out.y));
    model.pointer_up(&pointer(out.x, out.y));
    key(&mut model, "Escape");
    assert_eq!(model.armed_port(), None);
    // A palette entry clicked (released off the canvas without entering it), then a click on the canvas.
    model.begin_placing(PaletteItem::Pack);
    model.pointer_up(&PointerInput { inside: false, ..pointer(-40.0, 10.0) });
    assert!(matches!(model.gesture(), Gesture::Placing { .. }), "still carried");
    assert_eq!(model.take_announcements().last().unwrap(), "Click the canvas to place a pack adapter, Escape cancels");
    model.pointer_down(&pointer(300.0, 650.0));
    model.pointer_up(&pointer(300.0, 650.0));
    let pack = model.graph().nodes().last().unwrap();
    assert_eq!((pack.kind.clone(), node_center(pack)), (NodeKind::Pack, Point::new(300.0, 650.0)));
    assert!(model.gesture() == &Gesture::Idle);
}

#[test]
fn every_edit_refusal_undo_and_problem_count_is_announced_once() {
    let mut model = keyboard_three();
    model.note_problems(3);
    model.note_problems(3);
    model.connect(&id("task_1"), &id("task_2"), 0.0).unwrap();
    model.note_problems(2);
    let _ = model.connect(&id("task_2"), &id("task_1"), 0.0);
    model.undo();
    model.redo();
    model.undo();
    model.undo();
    model.undo();
    model.undo();
    model.undo();
    model.note_problems(0);
    assert_eq!(
        model.take_announcements(),
        [
            "3 problems",
            "Connected task_1 output to task_2 input",
            "2 problems",
            "Refused: connecting task_2 to task_1 would create a cycle (task_1 -> task_2 -> task_1)",
            "Undid: connect task_1 to task_2",
            "Redid: connect task_1 to task_2",
            "Undid: connect task_1 to task_2",
            "Undid: add task_3",
            "Undid: add task_2",
            "Undid: add task_1",
            "Nothing to undo",
            "No problems",
        ]
    );
    assert!(model.take_announcements().is_empty(), "drained");
    let changes = model.take_changes();
    assert!(changes.announce || changes.any());
}

#[test]
fn the_connect_list_stays_inside_the_canvas() {
    let mut model = editor();
    place(&mut model, "math", 1150.0, 780.0);
    key(&mut model, "c");
    let at = model.connect_menu_anchor().unwrap();
    let (w, h) = keyboard::MENU_SIZE;
    assert!(at.x >= 8.0 && at.x + w <= 1200.0 - 8.0, "{at:?}");
    assert!(at.y >= 8.0 && at.y + h <= 800.0, "above the node when there is no room below: {at:?}");
    model.close_connect();
    place(&mut model, "math", 100.0, 100.0);
    key(&mut model, "c");
    let node = node_rect(model.graph().node(&id("task_2")).unwrap(), Point::default());
    assert_eq!(model.connect_menu_anchor(), Some(Point::new(node.x.max(8.0), node.bottom() + 6.0)), "under the node when it fits");
}

#[test]
fn a_pack_task_from_the_palette_is_a_task_node_pinned_to_it_with_its_kinds() {
    let mut model = editor();
    let item = PaletteItem::Pinned { family: "python".into(), task_id: 7, input: "list".into(), output: "scalar".into(), name: "longestWPI".into() };
    model.begin_placing(item.clone());
    model.pointer_move(&pointer(300.0, 200.0));
    model.pointer_up(&pointer(300.0, 200.0));
    let node = model.graph().node(&id("task_1")).expect("the pinned task was placed");
    let NodeKind::Task(task) = &node.kind else { panic!("a task node: {node:?}") };
    assert_eq!((task.family.as_str(), task.task_id, task.input_kind.as_deref(), task.output_kind.as_deref()), ("python", Some(7), Some("list"), Some("scalar")));
    assert_eq!(model.graph().target(), Some(&id("task_1")), "the first task of a graph without a target becomes it");
    let added = model.add_beside_focus(&item, 0.0).expect("Enter adds it beside the focused node");
    assert_eq!(added, id("task_2"));
}
