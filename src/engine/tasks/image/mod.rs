//! Image tasks: follow one of several braided, crossing paths in a generated picture and read the numbers on it.
//!
//! A picture has `num_paths` paths running left to right, each a polyline of numbered circles. Neighbouring
//! paths swap places along a random braid, so each path crosses at least `crossing_partners` others; the
//! picture is redrawn until it is legible (`braid`). The scalar input selects a path, and the answer is the
//! list of its numbers. Worked example (Task 3 after a task whose output was `-13`, 8 paths):
//!
//! ```text
//! Task 3:
//! Let start_node_index_3 be task_2_out preprocessed as follows: round it to an integer, rounding halves away
//! from zero (0.5 becomes 1 and -0.5 becomes -1); then replace it by the remainder of its absolute value divided by 8.
//! The image for Task 3 shows 8 paths running from left to right. …
//! ```
//!
//! `start_node_index_3 = 13 mod 8 = 5`; the model finds the sixth starting node from the top, follows its path
//! and answers e.g. `\boxed{task_3_out = [31, 32, 33, 34, 35, 36]}`, graded exactly like any list.
//! Geometry, validation and ground truth are pure Rust over `InstanceRng`; `draw` renders SVG and PNG from
//! the same marks, with tiny-skia and a built-in stroke font, so PNG bytes match natively and in wasm.

pub mod draw;
pub mod font;
pub mod braid;
pub mod params;
pub mod picture;
pub mod verify;

use std::rc::Rc;
use std::sync::Arc;

pub use params::{ImageParamError, ImageParams, Numbering, ParamSpec, PARAM_SPECS};
pub use picture::Picture;

use super::{Family, Task, TaskContext, TaskError, TaskInfo, TaskInstance};
use crate::engine::adapter::round_half_away;
use crate::engine::prompt::{Prompt, Role};
use crate::engine::rng::InstanceRng;
use crate::engine::value::{Kind, Number, Value};

/// The stable key of the path-traversal task.
pub const TRAVERSAL_KEY: &str = "image.traversal";

/// The image family's tasks with the given parameters (checked by the caller: see [`ImageParams::check`]).
pub fn all_with(params: ImageParams) -> Vec<Rc<dyn Task>> {
    vec![Rc::new(Traversal::new(params))]
}

/// The image family's tasks with the reference's parameters.
pub fn all() -> Vec<Rc<dyn Task>> {
    all_with(ImageParams::default())
}

/// Follow the selected path and list its numbers.
pub struct Traversal {
    info: TaskInfo,
    params: ImageParams,
}

impl Traversal {
    /// The task over pictures drawn with `params`.
    pub fn new(params: ImageParams) -> Traversal {
        Traversal {
            info: TaskInfo {
                key: TRAVERSAL_KEY.to_string(),
                family: Family::Image,
                task_id: 0,
                name: "traversal".to_string(),
                input_kinds: vec![Kind::Scalar],
                output_kind: Kind::List,
                description: "follow a braided path in a picture and list the numbers on it".to_string(),
            },
            params,
        }
    }

    /// The parameters pictures are drawn with.
    pub fn params(&self) -> &ImageParams {
        &self.params
    }

    /// Draws a picture for a raw selector input (no prompt); the same draws as `instantiate`.
    pub fn picture(&self, input: Number, rng: &mut InstanceRng) -> Result<Picture, TaskError> {
        self.params.check().map_err(|e| TaskError::Compute(e.to_string()))?;
        if !input.is_finite() {
            return Err(TaskError::Adapt(crate::engine::adapter::AdaptError::NotFinite));
        }
        let layout = braid::draw(&self.params, rng).map_err(|_| TaskError::Exhausted { attempts: braid::MAX_ATTEMPTS })?;
        let numbers = Picture::number(&self.params, &layout, rng);
        let start_node_index = select(input, self.params.num_paths);
        Ok(Picture { params: self.params, layout, numbers, input, start_node_index })
    }

    fn prompt(&self, ctx: &TaskContext<'_>) -> Prompt {
        let n = ctx.number;
        let p = self.params.num_paths;
        let index = format!("start_node_index_{n}");
        let mut prompt = Prompt::new();
        prompt.push(Role::Instruction, &format!("Task {n}:\n"));
        prompt.push(
            Role::Adapter,
            &format!(
                "Let {index} be {} preprocessed as follows: round it to an integer, rounding halves away from zero (0.5 becomes 1 and -0.5 becomes -1); then replace it by the remainder of its absolute value divided by {p}.\n",
                ctx.input_name
            ),
        );
        prompt.push(
            Role::Computation,
            &format!(
                "The image for Task {n} shows {p} paths running from left to right. Each path is a chain of {} circles (nodes), each with a number written in it; \
                 consecutive nodes of a path are joined by a straight edge that never bends or changes direction between the two nodes, and where two edges cross, each simply continues straight on.\n\
                 The starting node of a path is its leftmost node. Index the paths by their starting nodes from top to bottom, starting at 0.\n\
                 Follow the path whose starting node has index {index} from its starting node to its last node on the right, and call the list of the numbers on its nodes, in order from left to right, ",
                self.params.nodes_per_path
            ),
        );
        prompt.push(Role::OutputName, &format!("task_{n}_out"));
        prompt.push(Role::Computation, ".\n");
        prompt
    }
}

impl Task for Traversal {
    fn info(&self) -> &TaskInfo {
        &self.info
    }

    fn instantiate(&self, ctx: &TaskContext<'_>, rng: &mut InstanceRng) -> Result<TaskInstance, TaskError> {
        let Value::Scalar(input) = ctx.input else { return Err(TaskError::UnsupportedKind(ctx.input.kind())) };
        let picture = self.picture(*input, rng)?;
        let output = Value::List(picture.answer().into_iter().map(|x| Number::Int(i64::from(x))).collect());
        Ok(TaskInstance { body: self.prompt(ctx), output, statics: Vec::new(), template_index: None, picture: Some(Arc::new(picture)) })
    }

    /// The numbers on one path: one per node.
    fn fixed_list_len(&self) -> Option<usize> {
        Some(self.params.nodes_per_path as usize)
    }
}

/// The picture used to check that PNG bytes match across platforms: default parameters, seed 11, input 3.
/// `tests/it/image.rs` pins the fingerprint of its PNG; the browser build must produce the same bytes.
pub fn probe_png() -> Result<Vec<u8>, String> {
    let picture = Traversal::new(ImageParams::default()).picture(Number::Int(3), &mut InstanceRng::from_seed(11)).map_err(|e| e.to_string())?;
    picture.to_png().map_err(|e| e.to_string())
}

/// The selector: round half away from zero, absolute value, modulo the number of paths.
pub fn select(input: Number, num_paths: u32) -> usize {
    (round_half_away(input).unsigned_abs() % u64::from(num_paths)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instantiate(input: Value, seed: u64) -> Result<TaskInstance, TaskError> {
        let task = Traversal::new(ImageParams::default());
        let ctx = TaskContext { number: 3, input_name: "task_2_out", input: &input, output_kind: None };
        task.instantiate(&ctx, &mut InstanceRng::from_seed(seed))
    }

    #[test]
    fn the_selector_rounds_takes_the_absolute_value_and_wraps() {
        assert_eq!(select(Number::Int(-13), 8), 5);
        assert_eq!(select(Number::Float(2.5), 8), 3);
        assert_eq!(select(Number::Float(-2.5), 8), 3);
        assert_eq!(select(Number::Int(16), 8), 0);
        assert_eq!(select(Number::Int(i64::MIN), 8), 0);
    }

    #[test]
    fn the_answer_is_the_selected_paths_numbers_left_to_right() {
        let instance = instantiate(Value::int(-13), 4).expect("a picture");
        let picture = instance.picture.as_ref().expect("image tasks carry their picture");
        assert_eq!(picture.start_node_index, 5);
        let expected: Vec<Number> = picture.numbers[5].iter().map(|&x| Number::Int(i64::from(x))).collect();
        assert_eq!(instance.output, Value::List(expected));
        let path = &picture.layout.paths[5];
        assert!(path.windows(2).all(|w| w[0].x < w[1].x));
        // Sequential numbering: consecutive numbers along a path, blocks of 6.
        let first = picture.numbers[5][0];
        assert_eq!(first % 6, 1);
        assert_eq!(picture.numbers[5], (first..first + 6).collect::<Vec<_>>());
    }

    #[test]
    fn the_prompt_names_the_input_the_image_and_the_output() {
        let instance = instantiate(Value::int(7), 1).expect("a picture");
        let text = instance.body.text();
        assert!(text.starts_with("Task 3:\nLet start_node_index_3 be task_2_out preprocessed"), "{text}");
        assert!(text.contains("divided by 8.\nThe image for Task 3 shows 8 paths"), "{text}");
        assert!(text.trim_end().ends_with("call the list of the numbers on its nodes, in order from left to right, task_3_out."), "{text}");
    }

    #[test]
    fn a_list_input_is_refused() {
        let refused = instantiate(Value::List(vec![Number::Int(1), Number::Int(2)]), 0);
        assert_eq!(refused, Err(TaskError::UnsupportedKind(Kind::List)));
    }

    #[test]
    fn shuffled_numbering_uses_every_number_once() {
        let params = ImageParams { numbering: Numbering::Shuffled, ..ImageParams::default() };
        let picture = Traversal::new(params).picture(Number::Int(2), &mut InstanceRng::from_seed(9)).expect("a picture");
        let mut all: Vec<u32> = picture.numbers.iter().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, (1..=48).collect::<Vec<_>>());
    }
}
