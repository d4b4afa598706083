//! Saving text as a file download (Blob + object URL + a temporary link).

use wasm_bindgen::JsCast;

/// Why a download could not start.
#[derive(Debug, thiserror::Error)]
#[error("download failed: {0}")]
pub struct DownloadError(String);

/// Offers `text` as a download named `filename`.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), DownloadError> {
    let err = |e: wasm_bindgen::JsValue| DownloadError(format!("{e:?}"));
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(err)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(err)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or_else(|| DownloadError("no document".into()))?;
    let anchor: web_sys::HtmlAnchorElement = document.create_element("a").map_err(err)?.dyn_into().map_err(|_| DownloadError("not an anchor".into()))?;
    anchor.set_href(&url);
    anchor.set_download(filename);
    anchor.click();
    web_sys::Url::revoke_object_url(&url).map_err(err)?;
    Ok(())
}
