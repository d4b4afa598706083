//! The page's journal of a run (`engine::run::Journal`): the run store in IndexedDB. Each finished sample's
//! result goes under `run|index` in `samples`, and the run's record (with the adaptations its requests learnt,
//! and `finished` once every sample has a result) under its id in `runs`. The replies of a sample cut short are
//! stored under `turns` as they arrive (`web::fetch_backend::Journaled`) and handed back here for replay.
//! Without storage (a private window may refuse it) the run still goes; it just cannot be resumed.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use crate::app::evaluate::stored_run::RunSpec;
use crate::engine::agent::openai_wire::parse_reply;
use crate::engine::agent::{ChatReply, RequestShape};
use crate::engine::results::RunHeader;
use crate::engine::run::Journal;
use crate::web::fetch_backend::RunControl;
use crate::web::storage::{sample_key, sample_of_key, Store, RUNS, SAMPLES, TURNS};

use super::stored_results;

/// A run's journal in the run store.
pub struct StoreJournal {
    /// The run store, when the browser gave one.
    pub store: Option<Store>,
    /// The run's record as stored (its adaptations follow the shape).
    spec: RefCell<RunSpec>,
    /// What the run's requests carry, learnt by every lane.
    shape: Rc<RefCell<RequestShape>>,
    /// The results file's header (its adaptations follow the shape).
    header: RefCell<RunHeader>,
}

impl StoreJournal {
    /// Opens the store and records the run under its id.
    pub async fn open(spec: &RunSpec, header: RunHeader, shape: Rc<RefCell<RequestShape>>) -> StoreJournal {
        let store = Store::open().await.ok();
        if let Some(store) = &store {
            let _ = store.put(RUNS, &spec.id, &serde_json::to_value(spec).unwrap_or_default()).await;
        }
        StoreJournal { store, spec: RefCell::new(spec.clone()), shape, header: RefCell::new(header) }
    }

    /// The replies stored for each sample: every one counts towards the run's spend; those of samples without a
    /// result are returned, to be replayed.
    pub async fn replies(&self, control: &RunControl) -> Vec<Vec<ChatReply>> {
        let id = self.spec.borrow().id.clone();
        let unfinished: Vec<bool> = control.run().borrow().results().iter().map(Option::is_none).collect();
        let mut replies = vec![Vec::new(); unfinished.len()];
        let Some(store) = &self.store else { return replies };
        for (key, reply) in store.scan(TURNS, &format!("{id}|")).await.unwrap_or_default() {
            let Ok(reply) = parse_reply(&reply.to_string()) else { continue };
            control.count_tokens(&reply);
            if let Some(list) = sample_of_key(&key).filter(|&i| unfinished.get(i) == Some(&true)).and_then(|i| replies.get_mut(i)) {
                list.push(reply);
            }
        }
        replies
    }

    /// The run's id.
    pub fn id(&self) -> String {
        self.spec.borrow().id.clone()
    }

    /// The results file with `samples`.
    pub fn results_file(&self, samples: Vec<Value>) -> Value {
        self.header.borrow().results_file(samples)
    }

    /// Brings the header's and the record's adaptations up to the shape's; returns the record to store when they
    /// changed, so a reload resumes with them.
    fn sync_adaptations(&self) -> Option<Value> {
        let now = self.shape.borrow().notes_json();
        self.header.borrow_mut().adaptations = now.clone();
        if self.spec.borrow().adaptations == now {
            return None;
        }
        self.spec.borrow_mut().adaptations = now;
        Some(serde_json::to_value(&*self.spec.borrow()).unwrap_or_default())
    }
}

impl Journal for StoreJournal {
    fn source(&self) -> String {
        format!("the stored run {}", self.spec.borrow().id)
    }

    async fn append(&self, index: usize, result: &Value) -> Result<(), String> {
        let changed = self.sync_adaptations();
        let id = self.spec.borrow().id.clone();
        if let Some(store) = &self.store {
            // A failed write costs only a rerun of this sample after a reload; the run goes on.
            let _ = store.put(SAMPLES, &sample_key(&id, index), result).await;
            if let Some(record) = changed {
                let _ = store.put(RUNS, &id, &record).await;
            }
        }
        Ok(())
    }

    async fn read(&self) -> Result<Vec<(usize, Value)>, String> {
        let Some(store) = &self.store else { return Ok(Vec::new()) };
        let spec = self.spec.borrow().clone();
        Ok(stored_results(store, &spec).await.into_iter().enumerate().filter_map(|(i, result)| Some((i, result?))).collect())
    }

    async fn finish(&self, _samples: Vec<Value>, complete: bool) -> Result<(), String> {
        let _ = self.sync_adaptations();
        self.spec.borrow_mut().finished = complete;
        let (id, record) = (self.spec.borrow().id.clone(), serde_json::to_value(&*self.spec.borrow()).unwrap_or_default());
        if let Some(store) = &self.store {
            let _ = store.put(RUNS, &id, &record).await;
        }
        Ok(())
    }
}
