//! The run store in IndexedDB (through `rexie`), laid out as ARCHITECTURE.md's serialization invariant says: `runs` (run id → the
//! run's spec: samples, settings, base URL and model, never the key), `samples` (`run|index` → the result record
//! once the sample is done) and `turns` (`run|index|seq` → each reply as the wire's JSON, written before the
//! session consumes it). Keys are strings padded so that key order is run, sample, reply order; values are JSON text.

use rexie::{KeyRange, ObjectStore, Rexie, TransactionMode};
use serde_json::Value;
use wasm_bindgen::JsValue;

const DB: &str = "arbigraph-runs";
/// The run specs.
pub const RUNS: &str = "runs";
/// The finished samples' result records.
pub const SAMPLES: &str = "samples";
/// The replies of every sample, in order.
pub const TURNS: &str = "turns";

/// `run|index` (index padded).
pub fn sample_key(run: &str, index: usize) -> String {
    format!("{run}|{index:06}")
}

/// `run|index|seq` (both padded).
pub fn turn_key(run: &str, index: usize, seq: usize) -> String {
    format!("{run}|{index:06}|{seq:04}")
}

/// The sample index of a `sample_key` or a `turn_key` (run ids hold no `|`).
pub fn sample_of_key(key: &str) -> Option<usize> {
    key.split('|').nth(1)?.parse().ok()
}

/// An open database.
pub struct Store {
    db: Rexie,
}

fn text(e: impl std::fmt::Debug) -> String {
    format!("the browser's storage failed: {e:?}")
}

impl Store {
    /// Opens (and on first use creates) the database.
    pub async fn open() -> Result<Store, String> {
        let db = Rexie::builder(DB)
            .version(1)
            .add_object_store(ObjectStore::new(RUNS))
            .add_object_store(ObjectStore::new(SAMPLES))
            .add_object_store(ObjectStore::new(TURNS))
            .build()
            .await
            .map_err(text)?;
        Ok(Store { db })
    }

    /// Writes `value` under `key`, and waits until the write is committed.
    pub async fn put(&self, store: &str, key: &str, value: &Value) -> Result<(), String> {
        let tx = self.db.transaction(&[store], TransactionMode::ReadWrite).map_err(text)?;
        let handle = tx.store(store).map_err(text)?;
        handle.put(&JsValue::from_str(&value.to_string()), Some(&JsValue::from_str(key))).await.map_err(text)?;
        tx.done().await.map_err(text)?;
        Ok(())
    }

    /// Every `(key, value)` of `store` whose key starts with `prefix`, in key order.
    pub async fn scan(&self, store: &str, prefix: &str) -> Result<Vec<(String, Value)>, String> {
        let tx = self.db.transaction(&[store], TransactionMode::ReadOnly).map_err(text)?;
        let handle = tx.store(store).map_err(text)?;
        let pairs = handle.scan(prefix_range(prefix)?, None, None, None).await.map_err(text)?;
        Ok(pairs
            .into_iter()
            .filter_map(|(k, v)| {
                let key = k.as_string()?;
                let value = serde_json::from_str(&v.as_string()?).ok()?;
                key.starts_with(prefix).then_some((key, value))
            })
            .collect())
    }

    /// The value under `key`, if any.
    pub async fn get(&self, store: &str, key: &str) -> Result<Option<Value>, String> {
        let tx = self.db.transaction(&[store], TransactionMode::ReadOnly).map_err(text)?;
        let handle = tx.store(store).map_err(text)?;
        let value = handle.get(JsValue::from_str(key)).await.map_err(text)?;
        Ok(value.and_then(|v| serde_json::from_str(&v.as_string()?).ok()))
    }

    /// Deletes the record under `key`, and waits until the deletion is committed.
    pub async fn delete(&self, store: &str, key: &str) -> Result<(), String> {
        let tx = self.db.transaction(&[store], TransactionMode::ReadWrite).map_err(text)?;
        tx.store(store).map_err(text)?.delete(JsValue::from_str(key)).await.map_err(text)?;
        tx.done().await.map_err(text)?;
        Ok(())
    }

    /// Deletes every record of `store` whose key starts with `prefix` (end it with `|` to mean one run or one
    /// sample), and waits until the deletion is committed.
    pub async fn delete_prefix(&self, store: &str, prefix: &str) -> Result<(), String> {
        let tx = self.db.transaction(&[store], TransactionMode::ReadWrite).map_err(text)?;
        let handle = tx.store(store).map_err(text)?;
        let range = prefix_range(prefix)?.ok_or_else(|| text("an empty prefix would delete everything"))?;
        handle.delete(range.into()).await.map_err(text)?;
        tx.done().await.map_err(text)?;
        Ok(())
    }
}

/// The keys that start with `prefix` (all keys for an empty one): from the prefix itself up to the prefix
/// followed by the highest character.
fn prefix_range(prefix: &str) -> Result<Option<KeyRange>, String> {
    if prefix.is_empty() {
        return Ok(None);
    }
    let upper = format!("{prefix}\u{10FFFF}");
    KeyRange::bound(&JsValue::from_str(prefix), &JsValue::from_str(&upper), Some(false), Some(false)).map(Some).map_err(text)
}
