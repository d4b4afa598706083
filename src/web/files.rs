//! Files in and out of the page: reading a file picked in an `<input type="file">` or dropped on the page,
//! fetching a static site's files (its dataset index and shards) relative to the app, and copying text to
//! the clipboard.

use wasm_bindgen::JsCast;

use crate::app::results::data::utf8_text;

/// The text of the first file picked in the input that fired `event`.
pub async fn picked_text(event: &web_sys::Event) -> Result<(String, String), String> {
    let file = picked_file(event).ok_or("no file picked")?;
    Ok((file.name(), file_text(&file).await?))
}

/// Bytes copied into the app per task while a file is read.
const COPY_BYTES: u32 = 8 << 20;

/// The text of a file (picked or dropped). Its bytes are copied into the app a few megabytes per task (a large
/// file never holds the page) and checked as UTF-8 here: a file that is not UTF-8 text is refused with the place
/// of its first bad byte (the browser's own decoding would replace bad bytes silently), and a large file skips a
/// round trip through a JavaScript string.
pub async fn file_text(file: &web_sys::File) -> Result<String, String> {
    utf8_text(&file.name(), file_bytes(file).await?)
}

/// The bytes of a file (picked or dropped), copied into the app a few megabytes per task.
async fn file_bytes(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await.map_err(|e| format!("cannot read {}: {e:?}", file.name()))?;
    let array = js_sys::Uint8Array::new(&buffer);
    let length = array.length();
    let mut bytes = Vec::with_capacity(length as usize);
    let mut start = 0;
    while start < length {
        if start > 0 {
            crate::web::soon::next_task().await;
        }
        let end = length.min(start.saturating_add(COPY_BYTES));
        bytes.extend_from_slice(&array.subarray(start, end).to_vec());
        start = end;
    }
    Ok(bytes)
}

/// The first `limit` bytes of a file (all of a shorter one), without reading the rest.
pub async fn file_head(file: &web_sys::File, limit: u32) -> Result<Vec<u8>, String> {
    let head = file.slice_with_f64_and_f64(0.0, f64::from(limit)).map_err(|e| format!("cannot read {}: {e:?}", file.name()))?;
    let buffer = wasm_bindgen_futures::JsFuture::from(head.array_buffer()).await.map_err(|e| format!("cannot read {}: {e:?}", file.name()))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Every file picked in the (multiple) input that fired `event`, as (name, text), in the order given.
pub async fn picked_texts(event: &web_sys::Event) -> Result<Vec<(String, String)>, String> {
    let input: web_sys::HtmlInputElement = event.target().and_then(|t| t.dyn_into().ok()).ok_or("no file input")?;
    let files: Vec<web_sys::File> = input.files().map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect()).unwrap_or_default();
    input.set_value("");
    let mut out = Vec::with_capacity(files.len());
    for file in files {
        out.push((file.name(), file_text(&file).await?));
    }
    Ok(out)
}

/// The first file picked in the input that fired `event`.
pub fn picked_file(event: &web_sys::Event) -> Option<web_sys::File> {
    let input: web_sys::HtmlInputElement = event.target().and_then(|t| t.dyn_into().ok())?;
    let file = input.files().and_then(|f| f.get(0));
    // Let the same file be picked again later (a fixed file, reopened).
    input.set_value("");
    file
}

/// The first file of a drop, if the drop carries files.
pub fn dropped_file(event: &web_sys::DragEvent) -> Option<web_sys::File> {
    event.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0))
}

/// Every file of a drop, in the order given.
pub fn dropped_files(event: &web_sys::DragEvent) -> Vec<web_sys::File> {
    event.data_transfer().and_then(|d| d.files()).map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect()).unwrap_or_default()
}

/// The text of each file, as (name, text), in order; the first that cannot be read stops with why.
pub async fn texts_of(files: Vec<web_sys::File>) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::with_capacity(files.len());
    for file in files {
        out.push((file.name(), file_text(&file).await?));
    }
    Ok(out)
}

/// True when a drag carries files (not text or a link).
pub fn drags_files(event: &web_sys::DragEvent) -> bool {
    event.data_transfer().is_some_and(|d| d.types().iter().any(|t| t.as_string().as_deref() == Some("Files")))
}

/// Fetches a file beside the app (`datasets/index.json`) as text. `Ok(None)` when the server says it is not there.
pub async fn fetch_text(path: &str) -> Result<Option<String>, String> {
    let response = gloo_net::http::Request::get(path).send().await.map_err(|e| format!("cannot fetch {path}: {e}"))?;
    if response.status() == 404 {
        return Ok(None);
    }
    if !response.ok() {
        return Err(format!("cannot fetch {path}: the server answered {}", response.status()));
    }
    response.text().await.map(Some).map_err(|e| format!("cannot read {path}: {e}"))
}

/// Copies `text` to the clipboard.
pub async fn copy_text(text: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let promise = window.navigator().clipboard().write_text(text);
    wasm_bindgen_futures::JsFuture::from(promise).await.map(|_| ()).map_err(|e| format!("cannot copy: {e:?}"))
}
