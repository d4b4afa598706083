//! Browser checks (wasm-bindgen-test in headless Chromium): the app mounts and routes, and the engine's seeded
//! randomness, generated files and rasterised pictures are the same in wasm as natively.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

async fn tick(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().expect("window").set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).expect("setTimeout");
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.expect("timer resolves");
}

#[wasm_bindgen_test]
fn seeded_stream_matches_the_native_one() {
    // The same pinned values as `engine::rng::tests::the_stream_is_pinned_across_platforms`.
    let mut rng = arbigraph_studio::engine::rng::InstanceRng::from_seed(0);
    let first: Vec<i64> = (0..5).map(|_| rng.int_in(0, 999)).collect();
    assert_eq!(first, vec![652, 623, 878, 556, 681]);
}

#[wasm_bindgen_test]
fn generated_files_are_byte_identical_to_native_ones() {
    // The same fingerprint as `PROBE_FINGERPRINT` in tests/generation.rs (native).
    let registry = arbigraph_studio::engine::tasks::registry::builtin();
    let text = arbigraph_studio::engine::dataset::cross_platform_probe(&registry);
    assert_eq!(format!("{:016x}", arbigraph_studio::engine::dataset::fingerprint(&text)), "e83521980d7580fe");
}

#[wasm_bindgen_test]
fn png_pictures_are_byte_identical_to_native_ones() {
    // The same fingerprint as `PNG_PROBE_FINGERPRINT` in tests/it/image.rs (native).
    let png = arbigraph_studio::engine::tasks::image::probe_png().expect("the probe picture draws");
    assert_eq!(format!("{:016x}", arbigraph_studio::engine::dataset::fingerprint_bytes(&png)), "d4e4eb1566a8cf93");
}

#[wasm_bindgen_test]
async fn app_mounts_and_follows_the_hash() {
    let window = web_sys::window().expect("window");
    window.location().set_hash("#/about").expect("set hash");
    leptos::mount::mount_to_body(arbigraph_studio::ui::App);
    tick(20).await;
    let doc = window.document().expect("document");
    assert!(doc.get_element_by_id("page-about").is_some(), "about page shown for #/about");
    let link: web_sys::HtmlElement = doc.get_element_by_id("nav-results").expect("results link").dyn_into().expect("an element");
    link.click();
    tick(50).await;
    assert!(doc.get_element_by_id("page-results").is_some(), "results page after clicking its link");
    assert!(doc.get_element_by_id("page-about").is_none());
}
