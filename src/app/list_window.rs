//! The maths of a virtualised list: which rows a scroll position shows (with a few rows of overscan above and
//! below), where to draw them, how far to scroll so a row is in view, and what the list's keys do. Rows have
//! one fixed height. Lists taller than browsers allow an element to be are compressed: the scrollbar maps
//! proportionally onto the rows, so a million rows scroll as smoothly as a hundred.

/// The tallest scroll height the list uses (browsers cap element heights at about 33 million pixels).
pub const MAX_SCROLL_HEIGHT: f64 = 8_000_000.0;

/// The rows to draw for one scroll position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListWindow {
    /// First row drawn.
    pub first: usize,
    /// One past the last row drawn.
    pub end: usize,
    /// Where the first drawn row's top edge goes, in pixels from the top of the scrolled content.
    pub offset: f64,
    /// Height of the scrolled content.
    pub height: f64,
}

/// The list's geometry: how many rows, how tall each is, the visible height, and extra rows drawn beyond it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListGeometry {
    pub count: usize,
    pub row_height: f64,
    pub viewport: f64,
    pub overscan: usize,
}

impl ListGeometry {
    fn natural_height(&self) -> f64 {
        self.count as f64 * self.row_height
    }

    fn compressed(&self) -> bool {
        self.natural_height() > MAX_SCROLL_HEIGHT
    }

    /// Rows that fit in the viewport (at least one).
    pub fn page_rows(&self) -> usize {
        ((self.viewport / self.row_height).floor() as usize).max(1)
    }

    /// Height of the scrolled content.
    pub fn height(&self) -> f64 {
        self.natural_height().min(MAX_SCROLL_HEIGHT)
    }

    /// The row at the top of the viewport, as a fraction (row 12.5 is halfway through row 12).
    fn top_row(&self, scroll_top: f64) -> f64 {
        let scroll_top = scroll_top.clamp(0.0, (self.height() - self.viewport).max(0.0));
        if self.compressed() {
            let rows_above_last_page = (self.count as f64 - self.viewport / self.row_height).max(0.0);
            scroll_top / (MAX_SCROLL_HEIGHT - self.viewport) * rows_above_last_page
        } else {
            scroll_top / self.row_height
        }
    }

    /// The rows to draw at `scroll_top`.
    pub fn window(&self, scroll_top: f64) -> ListWindow {
        if self.count == 0 || self.row_height <= 0.0 {
            return ListWindow { first: 0, end: 0, offset: 0.0, height: 0.0 };
        }
        let scroll_top = scroll_top.clamp(0.0, (self.height() - self.viewport).max(0.0));
        let top = self.top_row(scroll_top);
        let top_index = (top.floor() as usize).min(self.count - 1);
        let first = top_index.saturating_sub(self.overscan);
        let visible = (self.viewport / self.row_height).ceil() as usize + 1;
        let end = (top_index + visible + self.overscan).min(self.count);
        // The top row's own top edge sits `fraction` rows above the viewport's top.
        let fraction = top - top_index as f64;
        let offset = scroll_top - (fraction + (top_index - first) as f64) * self.row_height;
        ListWindow { first, end, offset, height: self.height() }
    }

    /// The scroll position that shows `row` at the top of the viewport.
    pub fn scroll_top_of(&self, row: usize) -> f64 {
        let row = row.min(self.count.saturating_sub(1)) as f64;
        if self.compressed() {
            let rows_above_last_page = (self.count as f64 - self.viewport / self.row_height).max(1.0);
            (row / rows_above_last_page * (MAX_SCROLL_HEIGHT - self.viewport)).min(MAX_SCROLL_HEIGHT - self.viewport)
        } else {
            (row * self.row_height).min((self.height() - self.viewport).max(0.0))
        }
    }

    /// A scroll position that brings `row` fully into view, or `None` when it already is.
    pub fn reveal(&self, row: usize, scroll_top: f64) -> Option<f64> {
        if row >= self.count {
            return None;
        }
        let top = self.top_row(scroll_top);
        let rows_in_view = self.viewport / self.row_height;
        let row_f = row as f64;
        if row_f < top - 1e-3 {
            Some(self.scroll_top_of(row))
        } else if row_f + 1.0 > top + rows_in_view + 1e-3 {
            let first_shown = (row_f + 1.0 - rows_in_view).max(0.0);
            Some(if self.compressed() { self.scroll_top_of(first_shown.ceil() as usize) } else { first_shown * self.row_height })
        } else {
            None
        }
    }
}

/// What a key press does in the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKey {
    Next,
    Previous,
    PageDown,
    PageUp,
    First,
    Last,
    /// Open the selected row.
    Open,
    /// Close the open row, or clear the selection.
    Close,
}

impl ListKey {
    /// The action of a `KeyboardEvent.key` value (`j`/`k` or arrows, Page keys, Home/End, Enter, Escape).
    pub fn of(key: &str) -> Option<ListKey> {
        Some(match key {
            "j" | "ArrowDown" => ListKey::Next,
            "k" | "ArrowUp" => ListKey::Previous,
            "PageDown" => ListKey::PageDown,
            "PageUp" => ListKey::PageUp,
            "Home" => ListKey::First,
            "End" => ListKey::Last,
            "Enter" => ListKey::Open,
            "Escape" => ListKey::Close,
            _ => return None,
        })
    }

    /// The row selected after the key, from `selected` in a list of `count` rows with `page` rows a page.
    /// Moving keys select the first row when nothing is selected.
    pub fn apply(self, selected: Option<usize>, count: usize, page: usize) -> Option<usize> {
        if count == 0 {
            return None;
        }
        let last = count - 1;
        let Some(at) = selected.map(|s| s.min(last)) else {
            return match self {
                ListKey::Last => Some(last),
                ListKey::Open | ListKey::Close => None,
                _ => Some(0),
            };
        };
        Some(match self {
            ListKey::Next => (at + 1).min(last),
            ListKey::Previous => at.saturating_sub(1),
            ListKey::PageDown => (at + page.max(1)).min(last),
            ListKey::PageUp => at.saturating_sub(page.max(1)),
            ListKey::First => 0,
            ListKey::Last => last,
            ListKey::Open | ListKey::Close => at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(count: usize) -> ListGeometry {
        ListGeometry { count, row_height: 30.0, viewport: 600.0, overscan: 5 }
    }

    #[test]
    fn the_window_holds_the_visible_rows_and_the_overscan() {
        let g = list(10_000);
        let w = g.window(0.0);
        assert_eq!((w.first, w.end, w.offset, w.height), (0, 26, 0.0, 300_000.0));
        let w = g.window(3_015.0);
        assert_eq!((w.first, w.end), (95, 126));
        assert_eq!(w.offset, 95.0 * 30.0, "rows are drawn where they belong");
        let w = g.window(1e12);
        assert_eq!(w.end, 10_000);
        assert!(w.end - w.first <= 20 + 2 + 2 * 5, "only about a viewport of rows: {w:?}");
        assert_eq!(list(3).window(0.0), ListWindow { first: 0, end: 3, offset: 0.0, height: 90.0 });
        assert_eq!(list(0).window(50.0).end, 0);
    }

    #[test]
    fn a_very_long_list_is_compressed_and_still_reaches_both_ends() {
        let g = list(1_000_000);
        assert_eq!(g.height(), MAX_SCROLL_HEIGHT);
        assert_eq!(g.window(0.0).first, 0);
        let bottom = g.window(MAX_SCROLL_HEIGHT);
        assert_eq!(bottom.end, 1_000_000);
        let last_row_top = bottom.offset + (999_999 - bottom.first) as f64 * 30.0;
        assert!((last_row_top + 30.0 - MAX_SCROLL_HEIGHT).abs() < 1e-3, "the last row ends at the bottom: {last_row_top}");
        let middle = g.window(g.scroll_top_of(500_000));
        assert!(middle.first <= 500_000 && 500_000 < middle.end, "{middle:?}");
        let top_of_row = middle.offset + (500_000 - middle.first) as f64 * 30.0;
        assert!((top_of_row - g.scroll_top_of(500_000)).abs() < 1e-3, "row 500000 is drawn at the viewport's top");
    }

    #[test]
    fn reveal_scrolls_only_when_the_row_is_out_of_view() {
        let g = list(1_000);
        assert_eq!(g.reveal(5, 0.0), None);
        assert_eq!(g.reveal(19, 0.0), None);
        assert_eq!(g.reveal(20, 0.0), Some(30.0), "the next row below scrolls one row");
        assert_eq!(g.reveal(3, 300.0), Some(90.0), "a row above goes to the top");
        assert_eq!(g.reveal(999, 0.0), Some(999.0 * 30.0 - 570.0));
        assert_eq!(g.reveal(1_000, 0.0), None);
        let huge = list(2_000_000);
        let at = huge.reveal(1_500_000, 0.0).unwrap();
        let w = huge.window(at);
        assert!(w.first <= 1_500_000 && 1_500_000 < w.end);
        assert_eq!(huge.reveal(1_500_000, at), None);
    }

    #[test]
    fn keys_move_the_selection_within_the_list() {
        assert_eq!(ListKey::of("j"), Some(ListKey::Next));
        assert_eq!(ListKey::of("ArrowUp"), Some(ListKey::Previous));
        assert_eq!(ListKey::of("x"), None);
        assert_eq!(ListKey::Next.apply(None, 10, 5), Some(0));
        assert_eq!(ListKey::Next.apply(Some(9), 10, 5), Some(9));
        assert_eq!(ListKey::Previous.apply(Some(0), 10, 5), Some(0));
        assert_eq!(ListKey::PageDown.apply(Some(2), 10, 5), Some(7));
        assert_eq!(ListKey::PageUp.apply(Some(2), 10, 5), Some(0));
        assert_eq!(ListKey::Last.apply(None, 10, 5), Some(9));
        assert_eq!(ListKey::Open.apply(None, 10, 5), None);
        assert_eq!(ListKey::Next.apply(Some(40), 10, 5), Some(9), "a stale selection is clamped");
        assert_eq!(ListKey::Next.apply(Some(0), 0, 5), None);
        assert_eq!(list(1_000).page_rows(), 20);
    }
}
