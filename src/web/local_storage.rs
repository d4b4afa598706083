//! Local storage as plain text by key: what the designer autosaves, and the API key when the user asks the
//! Evaluate page to remember it. Storage that is missing (private modes)
//! or full is reported as an error the caller shows; it never panics.

/// Why storage could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("local storage is not available in this browser")]
    Unavailable,
    #[error("local storage refused the write (it may be full): {0}")]
    Refused(String),
}

fn storage() -> Result<web_sys::Storage, StorageError> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten()).ok_or(StorageError::Unavailable)
}

/// The text stored under `key`, if any.
pub fn read(key: &str) -> Option<String> {
    storage().ok()?.get_item(key).ok().flatten()
}

/// Removes what is stored under `key` (nothing to remove is not an error).
pub fn remove(key: &str) -> Result<(), StorageError> {
    storage()?.remove_item(key).map_err(|e| StorageError::Refused(format!("{e:?}")))
}

/// Stores `value` under `key`.
pub fn write(key: &str, value: &str) -> Result<(), StorageError> {
    storage()?.set_item(key, value).map_err(|e| StorageError::Refused(format!("{e:?}")))
}
