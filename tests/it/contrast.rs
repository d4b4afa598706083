//! The colour tables of both themes meet WCAG 2.2 AA contrast (relative luminance, 1.4.3 and 1.4.11): every text
//! colour on every surface it is drawn on at 4.5:1, and the graphics that carry meaning (ports by kind, edges,
//! family marks, the target's outline) at 3:1 on the canvas and the node fills. The tables are read from the
//! stylesheets themselves, light (`:root`) and dark (`prefers-color-scheme: dark`), so a colour changed there is
//! checked here.

use std::collections::BTreeMap;
use std::path::Path;

/// The `--name: #rrggbb` tokens of a stylesheet, as (light, dark) tables: the first block of each name is the
/// light theme's, the one inside the dark media query the dark theme's.
fn themes(file: &str) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let css = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).expect("the stylesheet is readable");
    // The byte ranges of the dark media blocks (there may be several), brace to matching brace.
    let mut dark_blocks = Vec::new();
    for (at, _) in css.match_indices("prefers-color-scheme: dark") {
        let Some(open) = css[at..].find('{').map(|o| at + o) else { continue };
        let mut depth = 0;
        for (i, c) in css[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        dark_blocks.push(open..open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let mut light = BTreeMap::new();
    let mut dark = BTreeMap::new();
    for (at, _) in css.match_indices("--") {
        let rest = &css[at..];
        let Some((name, value)) = rest.split_once(':') else { continue };
        if name.len() > 40 || name.contains(char::is_whitespace) || name.contains(['(', ')', ',']) {
            continue;
        }
        let value = value.trim_start();
        if !value.starts_with('#') || value.len() < 7 || !value[1..7].chars().all(|c| c.is_ascii_hexdigit()) {
            continue;
        }
        let table = if dark_blocks.iter().any(|b| b.contains(&at)) { &mut dark } else { &mut light };
        table.entry(name.to_string()).or_insert_with(|| value[..7].to_ascii_lowercase());
    }
    (light, dark)
}

/// WCAG relative luminance of `#rrggbb`.
fn luminance(hex: &str) -> f64 {
    let channel = |i: usize| {
        let c = u8::from_str_radix(&hex[i..i + 2], 16).expect("a hex colour") as f64 / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
}

fn ratio(a: &str, b: &str) -> f64 {
    let (a, b) = (luminance(a), luminance(b));
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

/// Checks every (foreground, background) pair of `pairs` at `minimum` in both themes of `file`; returns the failures.
fn check(file: &str, pairs: &[(&str, &str)], minimum: f64) -> Vec<String> {
    let (light, dark) = themes(file);
    let mut failures = Vec::new();
    for (theme, table, fallback) in [("light", &light, None), ("dark", &dark, Some(&light))] {
        let get = |name: &str| table.get(name).or_else(|| fallback.and_then(|f| f.get(name))).unwrap_or_else(|| panic!("{file} defines {name} ({theme})"));
        for (fg, bg) in pairs {
            let r = ratio(get(fg), get(bg));
            if r < minimum {
                failures.push(format!("{theme}: {fg} {} on {bg} {}: {r:.2} < {minimum}", get(fg), get(bg)));
            }
        }
    }
    failures
}

#[test]
fn text_colours_reach_4_5_to_1_on_every_surface_in_both_themes() {
    let mut pairs = Vec::new();
    for text in ["--fg", "--muted", "--accent", "--error", "--ok", "--warn"] {
        for surface in ["--bg", "--panel"] {
            pairs.push((text, surface));
        }
    }
    pairs.push(("--accent-fg", "--accent"));
    // Prompt text over its role highlights.
    for role in ["--role-input-value", "--role-adapter", "--role-computation", "--role-output-name"] {
        pairs.push(("--fg", role));
    }
    let failures = check("style/base.css", &pairs, 4.5);
    assert!(failures.is_empty(), "text contrast below AA:\n{}", failures.join("\n"));
}

#[test]
fn meaningful_graphics_on_the_canvas_reach_3_to_1_in_both_themes() {
    let mut pairs = Vec::new();
    for mark in ["--dg-edge", "--dg-scalar", "--dg-list", "--dg-fam-math", "--dg-fam-gsm", "--dg-fam-python", "--dg-fam-image", "--dg-fam-any", "--dg-target-line", "--dg-focus"] {
        for surface in ["--dg-canvas", "--dg-node"] {
            pairs.push((mark, surface));
        }
    }
    let failures = check("style/design.css", &pairs, 3.0);
    assert!(failures.is_empty(), "graphics contrast below 3:1:\n{}", failures.join("\n"));
}

#[test]
fn the_token_reader_finds_both_themes_and_the_ratio_is_wcags() {
    let (light, dark) = themes("style/base.css");
    assert!(light.len() >= 10 && dark.len() >= 10, "{light:?} {dark:?}");
    assert_ne!(light["--bg"], dark["--bg"]);
    let (light, dark) = themes("style/design.css");
    assert_eq!((light["--dg-focus"].as_str(), dark["--dg-focus"].as_str()), ("#b0006a", "#ff7ac8"), "a token set in a second pair of blocks");
    assert!((ratio("#000000", "#ffffff") - 21.0).abs() < 1e-9);
    assert!((ratio("#777777", "#ffffff") - 4.48).abs() < 0.01, "the WCAG example grey just misses 4.5");
}
