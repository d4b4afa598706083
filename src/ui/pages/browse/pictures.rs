//! The pictures of an instance's image tasks (`[data-testid="instance-picture"]`), each with an overlay of the
//! correct path that a toggle shows (`[data-testid="picture-overlay-toggle"]`), for people checking instances.

use leptos::prelude::*;

use crate::app::instance::{PictureSource, PictureView};

/// The pictures, with one overlay toggle for all of them.
#[component]
pub fn Pictures(pictures: Vec<PictureView>) -> impl IntoView {
    let overlay = RwSignal::new(false);
    let figures = pictures.into_iter().map(|picture| view! { <Picture picture=picture overlay=overlay /> }).collect_view();
    view! {
        <div class="instance-pictures-head">
            <h3>"Pictures"</h3>
            <label class="instance-overlay-toggle">
                <input type="checkbox" data-testid="picture-overlay-toggle" prop:checked=move || overlay.get()
                    on:change=move |ev| overlay.set(event_target_checked(&ev)) />
                " show the correct path"
            </label>
        </div>
        {figures}
    }
}

#[component]
fn Picture(picture: PictureView, overlay: RwSignal<bool>) -> impl IntoView {
    let caption = format!("Image {} · task {} · answer {}", picture.image_index, picture.task_number, picture.truth);
    let alt = format!("Image {} of the prompt: numbered paths for task {}", picture.image_index, picture.task_number);
    let view_box = format!("0 0 {} {}", picture.width, picture.height);
    let points = picture.overlay_points();
    let first = picture.path.first().copied();
    let body = match picture.source.clone() {
        PictureSource::Inline(url) => view! {
            <div class="instance-picture-frame">
                <img src=url alt=alt />
                <svg class="instance-picture-overlay" data-testid="picture-overlay" viewBox=view_box preserveAspectRatio="none"
                    aria-hidden="true" class:instance-picture-overlay--shown=move || overlay.get()>
                    <polyline points=points />
                    {first.map(|(x, y)| view! { <circle cx=x cy=y r="30" /> })}
                </svg>
            </div>
        }
        .into_any(),
        PictureSource::File(file) => view! { <p class="muted">"The picture is a file beside the dataset ("{file}"), which this page was not given."</p> }.into_any(),
        PictureSource::Missing => view! { <p class="muted">"This file does not carry the picture."</p> }.into_any(),
    };
    view! {
        <figure class="instance-picture" data-testid="instance-picture">
            {body}
            <figcaption class="mono">{caption}</figcaption>
        </figure>
    }
}
