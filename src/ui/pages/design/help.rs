//! The `?` overlay: every shortcut and gesture of the canvas, from `app::design::keys::SHORTCUTS`.

use leptos::prelude::*;

use crate::app::design::keys::SHORTCUTS;
use crate::ui::state::AppState;

/// The help overlay (shown while `help_open`).
#[component]
pub fn Help() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    view! {
        <Show when=move || design.help_open.get()>
            <div class="design-help" data-testid="help" role="dialog" aria-label="Designer shortcuts" on:pointerdown=move |ev| ev.stop_propagation()>
                <div class="design-help-head">
                    <h2>"Shortcuts"</h2>
                    <button aria-label="Close help" on:click=move |_| design.help_open.set(false)>"×"</button>
                </div>
                <table>
                    <tbody>
                        {SHORTCUTS.iter().map(|(keys, what)| view! { <tr><th><kbd>{*keys}</kbd></th><td>{*what}</td></tr> }).collect_view()}
                    </tbody>
                </table>
                <p class="design-hint">"Ports: circles carry scalars, squares carry lists, diamonds are open (the target's undeclared kinds)."</p>
            </div>
        </Show>
    }
}
