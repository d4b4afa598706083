//! The search shared by chains and multichains. Stages are made in order from candidate lists. In a single pass
//! (the reference's attempt) the first stage whose candidates all fail ends the attempt. In a repair search a
//! stage that keeps failing is redrawn, then the search backs up to the stage that feeds it, all within one try
//! budget per sample, so long chains generate where whole attempts almost never succeed.
//!
//! Randomness: until the first failure of an attempt every draw comes from the attempt's own RNG, in the order a
//! plain left-to-right pass makes them. After the first failure each try (and each candidate list) draws from an
//! RNG derived from the sample's coordinates, the attempt, the stage and a running try counter, so the search stays
//! a pure function of the seed.

use crate::engine::rng::InstanceRng;

/// Repair tries per sample, shared by its repair attempts: four per stage plus a fixed reserve, so short chains
/// of hard tasks (Python tasks whose outputs collapse into short lists) get several fresh attempts.
pub fn try_budget(stages: usize) -> usize {
    stages.saturating_mul(4).saturating_add(1_200)
}

/// Repair tries one attempt may spend before the next attempt starts over with a fresh plan: a stuck search
/// explores one neighbourhood, a fresh attempt another. (Measured on Python chains of 64 tasks: a single
/// attempt with the whole budget left 13% of samples unmade, attempts of this size none.)
pub fn attempt_budget(stages: usize) -> usize {
    stages.saturating_mul(2).saturating_add(100)
}

/// How an attempt treats a stage whose candidates all failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The attempt fails (the reference's behaviour: the caller starts a new attempt).
    Single,
    /// Redraw the stage, then back up to its feeder, within the budget.
    Repair,
}

/// Why a candidate list is being built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// The first visit of a stage in a pass where nothing has failed yet.
    First,
    /// The first list of this visit ran out: redraw the stage before backing up.
    Again,
    /// A visit after a failure somewhere in this attempt.
    Redo,
}

/// The stages of one sample, as the search sees them.
pub trait Stages {
    /// What a stage is made from (a task).
    type Candidate: Clone;
    /// A made stage.
    type Made;
    /// Number of stages.
    fn len(&self) -> usize;
    /// Candidates of stage `j` in try order; `made[..j]` are all present.
    fn candidates(&mut self, j: usize, made: &[Option<Self::Made>], round: Round, rng: &mut InstanceRng) -> Vec<Self::Candidate>;
    /// Makes stage `j` from `candidate`; a problem is returned as text.
    fn run(&mut self, j: usize, candidate: &Self::Candidate, made: &[Option<Self::Made>], rng: &mut InstanceRng) -> Result<Self::Made, String>;
    /// Stage `j` was made and is now being undone.
    fn forget(&mut self, _j: usize, _made: &Self::Made) {}
    /// The stage to back up to when stage `j` has no candidate left (none: the attempt fails).
    fn feeder(&self, j: usize) -> Option<usize>;
    /// How a candidate is named in errors (a task key).
    fn name(&self, candidate: &Self::Candidate) -> String;
    /// What stage `j` needs, for errors when no candidate fits it at all.
    fn slot(&self, j: usize) -> String;
}

/// Where a failed search got stuck: the furthest stage that failed, its last candidate and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Stuck {
    /// 0-based stage index.
    pub stage: usize,
    pub task: String,
    pub reason: String,
}

/// The repair tries of one sample, shared by its attempts, and the furthest failure of any attempt.
#[derive(Debug)]
pub struct Budget {
    pub limit: usize,
    pub used: usize,
    /// Where the current attempt must stop (`start_attempt`).
    attempt_end: usize,
    /// The furthest failure seen in any attempt.
    pub stuck: Option<Stuck>,
}

impl Budget {
    pub fn new(limit: usize) -> Budget {
        Budget { limit, used: 0, attempt_end: usize::MAX, stuck: None }
    }

    /// True when the sample's tries are all used.
    pub fn spent(&self) -> bool {
        self.used >= self.limit
    }

    /// Lets the next attempt spend at most `tries` of what is left.
    pub fn start_attempt(&mut self, tries: usize) {
        self.attempt_end = self.used.saturating_add(tries);
    }

    /// True when the current attempt must stop.
    fn attempt_spent(&self) -> bool {
        self.spent() || self.used >= self.attempt_end
    }

    fn note(&mut self, stuck: Stuck) {
        if self.stuck.as_ref().is_none_or(|s| stuck.stage >= s.stage) {
            self.stuck = Some(stuck);
        }
    }
}

/// Makes every stage, or returns `None` when the attempt fails (its reason is in `budget.stuck`).
/// `derive(stage, serial)` gives the RNG of a try after the first failure. Only repair tries count against the
/// budget.
pub fn search<S: Stages>(stages: &mut S, mode: Mode, rng: &mut InstanceRng, derive: &dyn Fn(usize, u64) -> InstanceRng, budget: &mut Budget) -> Option<Vec<S::Made>> {
    let n = stages.len();
    let mut made: Vec<Option<S::Made>> = (0..n).map(|_| None).collect();
    let mut lists: Vec<Option<(Round, Vec<S::Candidate>)>> = (0..n).map(|_| None).collect();
    let mut cursor = vec![0usize; n];
    let mut failed = false;
    let mut serial: u64 = 0;
    let mut j = 0;
    while j < n {
        if lists[j].is_none() {
            let round = if failed { Round::Redo } else { Round::First };
            let list = draw(stages, j, &made, round, rng, failed, derive, &mut serial);
            lists[j] = Some((round, list));
            cursor[j] = 0;
        }
        let mut success = false;
        let mut tried = false;
        loop {
            let (round, list) = lists[j].as_ref().expect("filled above");
            if cursor[j] >= list.len() {
                if *round == Round::Again || mode == Mode::Single {
                    break;
                }
                // The first list of this visit ran out: redraw the stage before backing up.
                failed = true;
                let list = draw(stages, j, &made, Round::Again, rng, failed, derive, &mut serial);
                lists[j] = Some((Round::Again, list));
                cursor[j] = 0;
                continue;
            }
            if mode == Mode::Repair {
                if budget.attempt_spent() {
                    return None;
                }
                budget.used += 1;
            }
            let candidate = list[cursor[j]].clone();
            cursor[j] += 1;
            tried = true;
            let outcome = if failed {
                let mut own = derive(j, serial);
                serial += 1;
                stages.run(j, &candidate, &made, &mut own)
            } else {
                stages.run(j, &candidate, &made, rng)
            };
            match outcome {
                Ok(stage) => {
                    made[j] = Some(stage);
                    success = true;
                    break;
                }
                Err(reason) => budget.note(Stuck { stage: j, task: stages.name(&candidate), reason }),
            }
        }
        if success {
            j += 1;
            continue;
        }
        if !tried && lists[j].as_ref().is_some_and(|(_, list)| list.is_empty()) {
            budget.note(Stuck { stage: j, task: stages.slot(j), reason: "no candidate task fits this stage".into() });
        }
        if mode == Mode::Single {
            return None;
        }
        // Back to the stage that feeds this one; everything after it is redone.
        let back = stages.feeder(j)?;
        for k in (back..=j).rev() {
            if let Some(stage) = made[k].take() {
                stages.forget(k, &stage);
            }
            if k > back {
                lists[k] = None;
            }
        }
        j = back;
    }
    Some(made.into_iter().map(|m| m.expect("every stage was made")).collect())
}

/// A candidate list, from the attempt's RNG while nothing has failed, else from a derived one.
#[allow(clippy::too_many_arguments)]
fn draw<S: Stages>(stages: &mut S, j: usize, made: &[Option<S::Made>], round: Round, rng: &mut InstanceRng, failed: bool, derive: &dyn Fn(usize, u64) -> InstanceRng, serial: &mut u64) -> Vec<S::Candidate> {
    if failed {
        let mut own = derive(j, *serial);
        *serial += 1;
        stages.candidates(j, made, round, &mut own)
    } else {
        stages.candidates(j, made, round, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stages over integers: stage j takes candidate c and the previous value v, and fails unless
    /// `accept(j, v, c)`; a visit first offers candidate 0, then 0..width (like a chain's planned task, then others).
    struct Fake<F: Fn(usize, i64, i64) -> bool> {
        n: usize,
        width: i64,
        accept: F,
        rounds: Vec<(usize, Round)>,
    }

    impl<F: Fn(usize, i64, i64) -> bool> Stages for Fake<F> {
        type Candidate = i64;
        type Made = i64;
        fn len(&self) -> usize {
            self.n
        }
        fn candidates(&mut self, j: usize, _made: &[Option<i64>], round: Round, _rng: &mut InstanceRng) -> Vec<i64> {
            self.rounds.push((j, round));
            match round {
                Round::First | Round::Redo => vec![0],
                Round::Again => (0..self.width).collect(),
            }
        }
        fn run(&mut self, j: usize, candidate: &i64, made: &[Option<i64>], _rng: &mut InstanceRng) -> Result<i64, String> {
            let previous = if j == 0 { 0 } else { made[j - 1].expect("made in order") };
            if (self.accept)(j, previous, *candidate) {
                Ok(previous * 10 + candidate)
            } else {
                Err(format!("degenerate output at {j}"))
            }
        }
        fn feeder(&self, j: usize) -> Option<usize> {
            j.checked_sub(1)
        }
        fn name(&self, candidate: &i64) -> String {
            format!("fake.{candidate}")
        }
        fn slot(&self, j: usize) -> String {
            format!("fake stage {j}")
        }
    }

    fn run<F: Fn(usize, i64, i64) -> bool>(fake: &mut Fake<F>, limit: usize) -> (Option<Vec<i64>>, Budget) {
        run_in(Mode::Repair, fake, limit)
    }

    fn run_in<F: Fn(usize, i64, i64) -> bool>(mode: Mode, fake: &mut Fake<F>, limit: usize) -> (Option<Vec<i64>>, Budget) {
        let mut budget = Budget::new(limit);
        let mut rng = InstanceRng::from_seed(1);
        let made = search(fake, mode, &mut rng, &|stage, serial| InstanceRng::for_instance(9, &[stage as u64, serial]), &mut budget);
        (made, budget)
    }

    #[test]
    fn a_single_pass_ends_at_the_first_stage_that_runs_out_and_spends_no_budget() {
        let mut fake = Fake { n: 4, width: 3, accept: |j, _, c| j != 2 || c != 0, rounds: Vec::new() };
        let (made, budget) = run_in(Mode::Single, &mut fake, 100);
        assert_eq!(made, None);
        assert_eq!(budget.used, 0);
        assert_eq!(fake.rounds, vec![(0, Round::First), (1, Round::First), (2, Round::First)]);
        assert_eq!(budget.stuck.map(|s| (s.stage, s.task)), Some((2, "fake.0".to_string())));
    }

    #[test]
    fn stages_that_pass_at_once_use_one_try_each_and_only_first_rounds() {
        let mut fake = Fake { n: 5, width: 3, accept: |_, _, _| true, rounds: Vec::new() };
        let (made, budget) = run(&mut fake, 100);
        assert_eq!(made, Some(vec![0, 0, 0, 0, 0]));
        assert_eq!(budget.used, 5);
        assert!(fake.rounds.iter().all(|(_, r)| *r == Round::First));
    }

    #[test]
    fn a_failing_stage_is_redrawn_before_its_predecessor() {
        // Stage 2 rejects candidate 0: it is redrawn (candidate 1 passes) without touching stage 1.
        let mut fake = Fake { n: 4, width: 3, accept: |j, _, c| j != 2 || c != 0, rounds: Vec::new() };
        let (made, budget) = run(&mut fake, 100);
        assert_eq!(made, Some(vec![0, 0, 1, 10]));
        assert_eq!(fake.rounds, vec![(0, Round::First), (1, Round::First), (2, Round::First), (2, Round::Again), (3, Round::Redo)]);
        assert_eq!(budget.used, 6);
    }

    #[test]
    fn a_stage_that_cannot_pass_on_its_input_backs_up_to_its_feeder() {
        // Stage 3 passes only when stage 2 ended in 2, which stage 2 only reaches on its third candidate.
        let mut fake = Fake { n: 4, width: 3, accept: |j, v, _| j != 3 || v % 10 == 2, rounds: Vec::new() };
        let (made, _) = run(&mut fake, 100);
        assert_eq!(made, Some(vec![0, 0, 2, 20]));
        assert!(fake.rounds.contains(&(2, Round::Again)), "stage 2 got more candidates: {:?}", fake.rounds);
    }

    #[test]
    fn an_impossible_stage_fails_within_the_budget_and_names_itself() {
        let mut fake = Fake { n: 30, width: 4, accept: |j, _, _| j != 17, rounds: Vec::new() };
        let (made, budget) = run(&mut fake, try_budget(30));
        assert_eq!(made, None);
        assert!(budget.used <= budget.limit);
        let stuck = budget.stuck.expect("the failure is recorded");
        assert_eq!(stuck.stage, 17);
        assert!(stuck.task.starts_with("fake."), "{}", stuck.task);
        assert_eq!(stuck.reason, "degenerate output at 17");
    }

    #[test]
    fn an_attempt_stops_at_its_share_of_the_budget() {
        let mut fake = Fake { n: 30, width: 4, accept: |j, _, _| j != 17, rounds: Vec::new() };
        let mut budget = Budget::new(1_000);
        budget.start_attempt(50);
        let made = search(&mut fake, Mode::Repair, &mut InstanceRng::from_seed(1), &|s, k| InstanceRng::for_instance(2, &[s as u64, k]), &mut budget);
        assert_eq!(made, None);
        assert_eq!(budget.used, 50);
        assert!(!budget.spent(), "the sample has tries left for a fresh attempt");
    }

    #[test]
    fn the_search_is_bounded_when_the_first_stage_can_always_back_out() {
        // Stage 0 has no feeder: once its candidates run out the attempt fails without spending the whole budget.
        let mut fake = Fake { n: 3, width: 2, accept: |j, _, _| j != 1, rounds: Vec::new() };
        let (made, budget) = run(&mut fake, 1_000);
        assert_eq!(made, None);
        assert!(budget.used < 20, "used {}", budget.used);
        assert_eq!(budget.stuck.map(|s| s.stage), Some(1));
    }
}
