//! `graph`, ours: the strategy only ArbiGraph can offer, because it knows the instance's dependency structure.
//! For the next open task (the first expected output without an answer) a request carries the prompt, the
//! confirmed answers of that task's direct predecessors, and the work still needed: the exchanges made while the
//! open task was current, and those made for tasks that still have an unanswered successor. Work on a task whose
//! successors are all answered is dropped; the latest exchange is always sent (so every call keeps its result).
//!
//! Failure modes (docs/CONTEXT_STRATEGIES.md): a wrong answer is passed on as confirmed; work is attributed to
//! the task that was open when it happened, so a model that works ahead or out of order loses that work from
//! view; without stage records the dependencies are read from the prompt's `task_M_out` mentions; and the
//! answers of non-predecessors (a distractor's value, a result the model wants to re-check) are not shown.

use super::requirements::{dependencies, requirements_of};
use super::{exchanges, head_with_view, ContextInput, ContextStrategy, Plan, Strategy, StrategyInfo, StrategyRun, TurnEvent};
use crate::engine::agent::prompts::GRAPH_HEADER;
use crate::engine::agent::{Message, Role};
use crate::engine::grade::SampleSpec;
use serde_json::{json, Value};

/// `graph` in the list of strategies.
pub(super) static GRAPH: Graph = Graph;

/// The `graph` strategy: no parameters; its record is a [`GraphRecord`].
pub(super) struct Graph;

static INFO: StrategyInfo = StrategyInfo {
    name: "graph",
    description: "task-graph aware: the prompt, confirmed answers of the next task's predecessors, and the work still needed",
    params: &[],
};

impl ContextStrategy for Graph {
    fn info(&self) -> &'static StrategyInfo {
        &INFO
    }

    fn start(&self, _strategy: &Strategy, spec: &SampleSpec) -> Box<dyn StrategyRun> {
        Box::new(GraphRecord::new(spec))
    }
}

impl StrategyRun for GraphRecord {
    fn observe_turn(&mut self, event: &TurnEvent<'_>) {
        GraphRecord::observe_turn(self, event);
    }

    fn plan(&self, input: &ContextInput<'_>) -> Plan {
        Plan::Send(self.messages(input))
    }

    fn to_json(&self) -> Option<Value> {
        Some(GraphRecord::to_json(self))
    }
}

/// The dependencies and when each output was first answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphRecord {
    /// Each expected output with its direct predecessors, in expected order.
    pub dependencies: Vec<(String, Vec<String>)>,
    /// Each answered output with the turn of its first answer.
    pub first_answers: Vec<(String, usize)>,
}

impl GraphRecord {
    /// The record of a sample: dependencies from its stage records or its prompt.
    pub fn new(spec: &SampleSpec) -> GraphRecord {
        let requirements = requirements_of(&spec.prompt, &spec.expected);
        GraphRecord { dependencies: dependencies(spec, &requirements), first_answers: Vec::new() }
    }

    /// Notes the first answer of every output a turn set.
    pub fn observe_turn(&mut self, event: &TurnEvent<'_>) {
        for name in event.updated {
            if !self.first_answers.iter().any(|(n, _)| n == name) {
                self.first_answers.push((name.clone(), event.turn));
            }
        }
    }

    /// The outputs that read `name`.
    pub fn successors<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.dependencies.iter().filter(move |(_, preds)| preds.iter().any(|p| p == name)).map(|(n, _)| n.as_str())
    }

    /// The output that was open (first without an answer) when `turn` began.
    pub fn open_at(&self, turn: usize) -> Option<&str> {
        self.dependencies
            .iter()
            .map(|(n, _)| n.as_str())
            .find(|n| self.first_answers.iter().find(|(a, _)| a == n).is_none_or(|(_, t)| *t >= turn))
    }

    /// The messages of the next request.
    pub fn messages(&self, input: &ContextInput<'_>) -> Vec<Message> {
        let all = exchanges(input.messages);
        if all.is_empty() {
            return input.messages.to_vec();
        }
        let answered = |name: &str| input.answers.get(name).is_some();
        let open = self.dependencies.iter().map(|(n, _)| n.as_str()).find(|n| !answered(n));
        let mut view = format!("{GRAPH_HEADER}\n");
        let done: Vec<&str> = self.dependencies.iter().map(|(n, _)| n.as_str()).filter(|n| answered(n)).collect();
        if done.is_empty() {
            view.push_str("Nothing is answered yet.\n");
        } else {
            view.push_str(&format!("Answered so far: {}.\n", done.join(", ")));
        }
        match open {
            Some(name) => {
                let preds = self.dependencies.iter().find(|(n, _)| n == name).map(|(_, p)| p.as_slice()).unwrap_or(&[]);
                view.push_str(&format!("Next open result: {name}."));
                if preds.is_empty() {
                    view.push_str(" It reads no earlier result.\n");
                } else {
                    view.push_str(" It reads:\n");
                    for p in preds {
                        match input.answers.get(p) {
                            Some(a) => view.push_str(&format!("- {p} = {} (your answer in turn {})\n", a.answer, a.turn)),
                            None => view.push_str(&format!("- {p}: not answered yet\n")),
                        }
                    }
                }
            }
            None => view.push_str("Every requested result has an answer.\n"),
        }
        let mut out = head_with_view(input.messages, view.trim_end());
        let mut turn = 0;
        for (i, range) in all.iter().enumerate() {
            let is_turn = input.messages[range.start].role == Role::Assistant;
            let task = if is_turn { self.open_at(turn) } else { None };
            if is_turn {
                turn += 1;
            }
            let needed = task.is_some_and(|t| Some(t) == open || self.successors(t).any(|s| !answered(s)));
            if i + 1 == all.len() || needed {
                out.extend(input.messages[range.clone()].iter().cloned());
            }
        }
        out
    }

    /// The record as JSON (exported under `strategy_record`).
    pub fn to_json(&self) -> Value {
        json!({
            "dependencies": self.dependencies.iter().map(|(n, p)| json!({"output": n, "reads": p})).collect::<Vec<_>>(),
            "first_answers": self.first_answers.iter().map(|(n, t)| json!({"output": n, "turn": t})).collect::<Vec<_>>()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::engine::grade::collect::Answers;

    const PROMPT: &str = "Task 1:\nCompute task_1_out.\n\nTask 2:\nLet x be task_1_out; call it task_2_out.\n\n\
Task 3:\nLet y be task_2_out; call it task_3_out.\n\nTask 4:\nLet z be task_1_out; call it task_4_out.\n";

    /// Turns 2k and 2k+1 work on task k+1; turn 2k+1 boxes it.
    fn run(turns: usize) -> (GraphRecord, Vec<Message>, Answers, SampleSpec) {
        let spec = testing::spec(PROMPT);
        let mut record = GraphRecord::new(&spec);
        let mut messages = testing::start(PROMPT);
        let mut answers = Answers::new();
        for t in 0..turns {
            let content = if t % 2 == 1 { format!("\\boxed{{task_{}_out = {}}}", t / 2 + 1, 100 + t) } else { format!("working on task {}", t / 2 + 1) };
            let updated = answers.collect(&content, t, &spec.expected);
            record.observe_turn(&TurnEvent { turn: t, message_index: messages.len(), content: &content, updated: &updated, answers: &answers });
            testing::exchange(&mut messages, t, &content, &["1"]);
        }
        (record, messages, answers, spec)
    }

    #[test]
    fn dependencies_and_successors_come_from_the_prompt() {
        let (record, _, _, _) = run(0);
        assert_eq!(record.dependencies[1], ("task_2_out".to_string(), vec!["task_1_out".to_string()]));
        assert_eq!(record.successors("task_1_out").collect::<Vec<_>>(), vec!["task_2_out", "task_4_out"]);
        assert_eq!(record.successors("task_3_out").count(), 0);
    }

    #[test]
    fn the_open_task_gets_its_predecessors_answers_and_finished_work_is_dropped() {
        // Tasks 1 and 2 answered (turns 1 and 3); task 3 open, working since turn 4.
        let (record, messages, answers, spec) = run(5);
        let sent = record.messages(&testing::input(&messages, &spec, &answers));
        let view = &sent[1].content;
        assert!(view.contains("Next open result: task_3_out. It reads:\n- task_2_out = 103 (your answer in turn 3)"), "{view}");
        assert!(!view.contains("task_1_out = 101"), "non-predecessors' values are not shown: {view}");
        let kept: Vec<&str> = sent[2..].iter().filter(|m| m.role == Role::Assistant).map(|m| m.content.as_str()).collect();
        // Task 1 still has an open successor (task 4): its work stays; task 2's successor is task 3 (open): stays.
        assert_eq!(kept, vec!["working on task 1", "\\boxed{task_1_out = 101}", "working on task 2", "\\boxed{task_2_out = 103}", "working on task 3"]);
        testing::assert_well_formed(&sent, &messages);
    }

    #[test]
    fn work_on_a_task_whose_successors_are_all_answered_is_dropped() {
        // Tasks 1-3 answered; task 4 open since turn 6. Task 2's only successor (task 3) is answered, task 3 has
        // none; task 1 is read by the open task 4.
        let (record, messages, answers, spec) = run(7);
        let sent = record.messages(&testing::input(&messages, &spec, &answers));
        let kept: Vec<&str> = sent[2..].iter().filter(|m| m.role == Role::Assistant).map(|m| m.content.as_str()).collect();
        assert_eq!(kept, vec!["working on task 1", "\\boxed{task_1_out = 101}", "working on task 4"]);
        assert!(sent[1].content.contains("- task_1_out = 101"), "task 4 reads task 1");
        testing::assert_well_formed(&sent, &messages);
        assert_eq!(record.to_json()["first_answers"][2]["turn"], 5);
    }

    #[test]
    fn the_latest_exchange_is_kept_even_when_its_task_is_finished() {
        let (record, messages, answers, spec) = run(8);
        let sent = record.messages(&testing::input(&messages, &spec, &answers));
        assert!(sent[1].content.contains("Every requested result has an answer."));
        let kept: Vec<&str> = sent[2..].iter().filter(|m| m.role == Role::Assistant).map(|m| m.content.as_str()).collect();
        assert_eq!(kept, vec!["\\boxed{task_4_out = 107}"]);
        testing::assert_well_formed(&sent, &messages);
    }

    #[test]
    fn before_any_turn_the_transcript_is_sent_as_is() {
        let (record, messages, answers, spec) = run(0);
        assert_eq!(record.messages(&testing::input(&messages, &spec, &answers)), messages);
    }
}
