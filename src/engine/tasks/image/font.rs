//! A built-in stroke font for the digits 0–9: each digit is a few polylines in a 6×10 cell (y grows
//! downwards), drawn with round caps and joins. No font files, so pictures look the same everywhere.

/// Width of a digit cell, in font units.
pub const CELL_WIDTH: f32 = 6.0;
/// Height of a digit cell, in font units.
pub const CELL_HEIGHT: f32 = 10.0;
/// Space between two digits, in font units.
pub const DIGIT_GAP: f32 = 2.0;

/// The strokes of one digit (`0..=9`), as polylines in font units.
pub fn digit(d: u8) -> &'static [&'static [(f32, f32)]] {
    match d {
        0 => &[&[(3.0, 0.0), (5.0, 0.9), (6.0, 3.0), (6.0, 7.0), (5.0, 9.1), (3.0, 10.0), (1.0, 9.1), (0.0, 7.0), (0.0, 3.0), (1.0, 0.9), (3.0, 0.0)]],
        1 => &[&[(0.8, 2.4), (3.6, 0.0), (3.6, 10.0)], &[(1.0, 10.0), (6.0, 10.0)]],
        2 => &[&[(0.3, 2.2), (1.3, 0.6), (3.0, 0.0), (4.8, 0.6), (5.8, 2.2), (5.5, 3.9), (0.0, 10.0), (6.0, 10.0)]],
        3 => &[&[
            (0.3, 1.3), (2.0, 0.0), (4.2, 0.1), (5.6, 1.4), (5.6, 3.3), (4.3, 4.5), (2.2, 4.8),
            (4.3, 5.1), (5.9, 6.5), (5.9, 8.5), (4.4, 9.8), (2.0, 10.0), (0.1, 8.8),
        ]],
        4 => &[&[(4.6, 10.0), (4.6, 0.0), (0.0, 7.0), (6.0, 7.0)]],
        5 => &[&[(5.6, 0.0), (0.9, 0.0), (0.5, 4.4), (2.2, 3.8), (4.0, 3.9), (5.5, 5.0), (6.0, 7.0), (5.4, 9.0), (3.6, 10.0), (1.6, 9.9), (0.2, 8.9)]],
        6 => &[&[
            (5.2, 0.8), (3.6, 0.0), (1.8, 0.4), (0.6, 2.0), (0.0, 4.5), (0.0, 7.0), (0.7, 9.1), (2.4, 10.0), (4.0, 10.0),
            (5.4, 9.1), (6.0, 7.4), (5.6, 5.4), (4.3, 4.3), (2.6, 4.2), (1.2, 4.8), (0.2, 6.0),
        ]],
        7 => &[&[(0.0, 0.0), (6.0, 0.0), (2.2, 10.0)]],
        8 => &[&[
            (3.0, 4.6), (1.2, 4.0), (0.5, 2.4), (1.2, 0.6), (3.0, 0.0), (4.8, 0.6), (5.5, 2.4), (4.8, 4.0), (3.0, 4.6),
            (1.0, 5.3), (0.0, 7.4), (0.8, 9.4), (3.0, 10.0), (5.2, 9.4), (6.0, 7.4), (5.0, 5.3), (3.0, 4.6),
        ]],
        _ => &[&[
            (0.8, 9.2), (2.4, 10.0), (4.2, 9.6), (5.4, 8.0), (6.0, 5.5), (6.0, 3.0), (5.3, 0.9), (3.6, 0.0), (2.0, 0.0),
            (0.6, 0.9), (0.0, 2.6), (0.4, 4.6), (1.7, 5.7), (3.4, 5.8), (4.8, 5.2), (5.8, 4.0),
        ]],
    }
}

/// Width of a number's text, in font units.
pub fn text_width(digits: usize) -> f32 {
    digits as f32 * CELL_WIDTH + digits.saturating_sub(1) as f32 * DIGIT_GAP
}

/// The strokes of `number` centred on (`cx`, `cy`), `scale` pixels per font unit, as pixel polylines.
pub fn number_strokes(number: u32, cx: f32, cy: f32, scale: f32) -> Vec<Vec<(f32, f32)>> {
    let text = number.to_string();
    let left = cx - text_width(text.len()) * scale / 2.0;
    let top = cy - CELL_HEIGHT * scale / 2.0;
    let mut out = Vec::new();
    for (i, byte) in text.bytes().enumerate() {
        let x0 = left + i as f32 * (CELL_WIDTH + DIGIT_GAP) * scale;
        for stroke in digit(byte - b'0') {
            out.push(stroke.iter().map(|&(x, y)| (x0 + x * scale, top + y * scale)).collect());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_digit_stays_inside_its_cell_and_has_ink() {
        for d in 0..=9 {
            let strokes = digit(d);
            assert!(!strokes.is_empty() && strokes.iter().all(|s| s.len() >= 2), "digit {d}");
            for &(x, y) in strokes.iter().flat_map(|s| s.iter()) {
                assert!((0.0..=CELL_WIDTH).contains(&x) && (0.0..=CELL_HEIGHT).contains(&y), "digit {d}: ({x}, {y})");
            }
        }
    }

    #[test]
    fn numbers_are_centred_on_the_given_point() {
        let strokes = number_strokes(48, 100.0, 50.0, 2.0);
        let xs: Vec<f32> = strokes.iter().flatten().map(|p| p.0).collect();
        let ys: Vec<f32> = strokes.iter().flatten().map(|p| p.1).collect();
        let (min_x, max_x) = xs.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        let (min_y, max_y) = ys.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &y| (lo.min(y), hi.max(y)));
        assert_eq!((min_x + max_x) / 2.0, 100.0);
        assert_eq!((min_y, max_y), (40.0, 60.0));
    }
}
