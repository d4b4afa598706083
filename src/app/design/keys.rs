//! Keyboard shortcuts: the table the help overlay lists, and the command each key press means. Copy, cut
//! and paste are left to the browser's clipboard events (they carry the system clipboard), so they appear
//! in the table but map to no command here.
//!
//! Arrow keys do two jobs without new chords for mouse users: with nodes selected they nudge the selection
//! (as they always did); with nothing selected they move the keyboard focus between nodes. Alt+arrows
//! always move the focus. Enter selects the focused node (so Enter, arrows, Escape picks a node up, moves
//! it and puts it down), Escape clears the selection, and the arrows move the focus again.

use super::access::Direction;

/// A key press, as the browser reports it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct KeyInput {
    /// `KeyboardEvent.key` (`a`, `Delete`, `ArrowLeft`, `?`, ` `).
    pub key: String,
    /// Ctrl, or Cmd on macOS.
    pub command: bool,
    pub shift: bool,
    pub alt: bool,
    /// Event time in milliseconds.
    pub time_ms: f64,
}

/// What a key press asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Command {
    Delete,
    SelectAll,
    Duplicate,
    Undo,
    Redo,
    /// Move the selection by a world distance.
    Nudge { dx: f64, dy: f64 },
    Fit,
    ZoomIn,
    ZoomOut,
    /// Zoom to 100 % around the screen centre.
    ActualSize,
    MarkTarget,
    ToggleSnap,
    /// Cancel the drag in progress, else clear the selection (and close the help).
    Escape,
    ToggleHelp,
    /// Space pressed: presses pan until it is released.
    HoldPan,
    /// Move the keyboard focus to the nearest node in a direction (Alt+arrow; plain arrows when nothing is
    /// selected, which the model decides).
    Focus(Direction),
    /// Select the focused node (Enter).
    Activate,
    /// Open the connect list of the focused node (C).
    OpenConnect,
    /// Select the focused node's next edge (E).
    NextEdge,
}

/// Nudge distance of an arrow key (world units); with Shift, `BIG_NUDGE`.
pub const NUDGE: f64 = 8.0;
/// Nudge distance of Shift+arrow.
pub const BIG_NUDGE: f64 = 48.0;

/// Every shortcut as the help overlay shows it: (keys, what it does).
pub const SHORTCUTS: &[(&str, &str)] = &[
    ("Drag from the palette", "add a node where you drop it"),
    ("Drag a node", "move it (or the whole selection)"),
    ("Drag from a port", "connect: output port to input port, or back"),
    ("Drag the background · Space+drag · middle button", "pan"),
    ("Wheel · pinch · + / −", "zoom around the pointer"),
    ("Click · Shift+click", "select · add to or remove from the selection"),
    ("Shift+drag the background", "box-select"),
    ("Delete · Backspace", "delete the selection"),
    ("Ctrl/Cmd+A", "select everything"),
    ("Ctrl/Cmd+C · X · V", "copy · cut · paste (node-link JSON, also between tabs)"),
    ("Ctrl/Cmd+D", "duplicate the selection"),
    ("Ctrl/Cmd+Z", "undo"),
    ("Ctrl/Cmd+Shift+Z · Ctrl+Y", "redo"),
    ("Tab", "reach the canvas (one stop: the focused node) and the palette"),
    ("Arrow keys (nothing selected) · Alt+arrows", "move the focus to the nearest node that way"),
    ("Enter on a node · Enter on a palette entry", "select the focused node · add that node beside the focused one"),
    ("C", "connect the focused node: a list to filter by typing, Enter connects, Escape closes"),
    ("E", "select the focused node's next edge (Delete removes it)"),
    ("Click a port, then another port", "connect without dragging"),
    ("Click a palette entry, then the canvas", "place a node without dragging"),
    ("Arrow keys · Shift+arrows", "nudge the selection a little · a lot"),
    ("F", "fit the graph to the view"),
    ("0", "zoom to 100 %"),
    ("T", "mark the selected task as the target"),
    ("G", "snap to grid on or off"),
    ("Escape", "cancel a drag, else clear the selection"),
    ("?", "show or hide this help"),
];

/// The command of a key press (`None`: not a canvas shortcut; let the browser have it).
pub fn command_for(input: &KeyInput) -> Option<Command> {
    let key = input.key.as_str();
    if input.alt {
        return Direction::of_key(key).map(Command::Focus);
    }
    if input.command {
        return match key.to_ascii_lowercase().as_str() {
            "a" => Some(Command::SelectAll),
            "d" => Some(Command::Duplicate),
            "z" if input.shift => Some(Command::Redo),
            "z" => Some(Command::Undo),
            "y" => Some(Command::Redo),
            _ => None,
        };
    }
    let step = if input.shift { BIG_NUDGE } else { NUDGE };
    Some(match key {
        "Delete" | "Backspace" => Command::Delete,
        "ArrowLeft" => Command::Nudge { dx: -step, dy: 0.0 },
        "ArrowRight" => Command::Nudge { dx: step, dy: 0.0 },
        "ArrowUp" => Command::Nudge { dx: 0.0, dy: -step },
        "ArrowDown" => Command::Nudge { dx: 0.0, dy: step },
        "f" | "F" => Command::Fit,
        "+" | "=" => Command::ZoomIn,
        "-" | "_" => Command::ZoomOut,
        "0" => Command::ActualSize,
        "t" | "T" => Command::MarkTarget,
        "g" | "G" => Command::ToggleSnap,
        "Escape" => Command::Escape,
        "Enter" => Command::Activate,
        "c" | "C" => Command::OpenConnect,
        "e" | "E" => Command::NextEdge,
        "?" => Command::ToggleHelp,
        " " => Command::HoldPan,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(key: &str, command: bool, shift: bool) -> Option<Command> {
        command_for(&KeyInput { key: key.into(), command, shift, ..KeyInput::default() })
    }

    #[test]
    fn every_documented_key_maps_to_its_command() {
        let cases = [
            ("Delete", false, false, Some(Command::Delete)),
            ("Backspace", false, false, Some(Command::Delete)),
            ("a", true, false, Some(Command::SelectAll)),
            ("D", true, true, Some(Command::Duplicate)),
            ("z", true, false, Some(Command::Undo)),
            ("Z", true, true, Some(Command::Redo)),
            ("y", true, false, Some(Command::Redo)),
            ("ArrowLeft", false, false, Some(Command::Nudge { dx: -NUDGE, dy: 0.0 })),
            ("ArrowDown", false, true, Some(Command::Nudge { dx: 0.0, dy: BIG_NUDGE })),
            ("f", false, false, Some(Command::Fit)),
            ("F", false, true, Some(Command::Fit)),
            ("t", false, false, Some(Command::MarkTarget)),
            ("Escape", false, false, Some(Command::Escape)),
            ("?", false, true, Some(Command::ToggleHelp)),
            (" ", false, false, Some(Command::HoldPan)),
        ];
        for (key, command, shift, expected) in cases {
            assert_eq!(press(key, command, shift), expected, "{key} command={command} shift={shift}");
        }
    }

    #[test]
    fn clipboard_keys_and_other_keys_are_left_to_the_browser() {
        for (key, command) in [("c", true), ("x", true), ("v", true), ("q", false), ("Tab", false), ("r", true)] {
            assert_eq!(press(key, command, false), None, "{key}");
        }
        assert_eq!(command_for(&KeyInput { key: "f".into(), alt: true, ..KeyInput::default() }), None);
    }

    #[test]
    fn keyboard_alternatives_to_drags_have_keys_and_alt_arrows_move_the_focus() {
        let alt = |key: &str| command_for(&KeyInput { key: key.into(), alt: true, ..KeyInput::default() });
        assert_eq!(alt("ArrowLeft"), Some(Command::Focus(Direction::Left)));
        assert_eq!(alt("ArrowDown"), Some(Command::Focus(Direction::Down)));
        for (key, expected) in [("Enter", Command::Activate), ("c", Command::OpenConnect), ("C", Command::OpenConnect), ("e", Command::NextEdge)] {
            assert_eq!(press(key, false, false), Some(expected), "{key}");
        }
        let help: String = SHORTCUTS.iter().map(|(k, w)| format!("{k} {w}")).collect::<Vec<_>>().join(" | ");
        for needle in ["Tab", "Alt+arrows", "Enter", "C", "E", "Click a port", "Click a palette entry"] {
            assert!(help.contains(needle), "{needle} is listed");
        }
    }

    #[test]
    fn the_help_lists_every_shortcut_the_issue_names() {
        let keys: String = SHORTCUTS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(" | ");
        for needle in ["Delete", "Backspace", "Ctrl/Cmd+A", "C · X · V", "Ctrl/Cmd+D", "Ctrl/Cmd+Z", "Ctrl+Y", "Arrow", "F", "Escape", "?"] {
            assert!(keys.contains(needle), "{needle} is listed");
        }
    }
}
