//! Reading a file the user picked in an `<input type="file">` or dropped on the page.

use wasm_bindgen::JsCast;

/// The text of the first file picked in the input that fired `event`.
pub async fn picked_text(event: &web_sys::Event) -> Result<(String, String), String> {
    let input: web_sys::HtmlInputElement = event.target().and_then(|t| t.dyn_into().ok()).ok_or("not a file input")?;
    let file = input.files().and_then(|f| f.get(0)).ok_or("no file picked")?;
    let name = file.name();
    let text = wasm_bindgen_futures::JsFuture::from(file.text()).await.map_err(|e| format!("cannot read {name}: {e:?}"))?;
    Ok((name, text.as_string().unwrap_or_default()))
}

/// The text of a file (picked or dropped).
pub async fn file_text(file: &web_sys::File) -> Result<String, String> {
    let text = wasm_bindgen_futures::JsFuture::from(file.text()).await.map_err(|e| format!("cannot read {}: {e:?}", file.name()))?;
    text.as_string().ok_or_else(|| format!("cannot read {}: not text", file.name()))
}
