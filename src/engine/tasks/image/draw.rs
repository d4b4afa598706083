//! One drawing, two outputs: a list of strokes and circles that becomes an SVG string and, through
//! tiny-skia, a greyscale PNG. Both are pure functions of the drawing, so the PNG bytes are the same natively
//! and in the browser.

use std::fmt::Write as _;

/// Something drawn, in painting order.
#[derive(Clone, Debug, PartialEq)]
pub enum Mark {
    /// An open polyline stroked in black with round caps and joins.
    Polyline { points: Vec<(f32, f32)>, width: f32 },
    /// A white disc with a black outline.
    Circle { cx: f32, cy: f32, radius: f32, width: f32 },
}

/// A black-on-white picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawing {
    pub width: u32,
    pub height: u32,
    pub marks: Vec<Mark>,
}

/// Why a drawing could not be rasterised or encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    #[error("a {width}x{height} canvas cannot be allocated")]
    Canvas { width: u32, height: u32 },
    #[error("png encoding failed: {0}")]
    Png(String),
}

impl Drawing {
    /// The drawing as a standalone SVG document.
    pub fn to_svg(&self) -> String {
        let (w, h) = (self.width, self.height);
        let mut out = String::with_capacity(64 * self.marks.len() + 256);
        let _ = write!(out, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#);
        let _ = write!(out, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
        out.push_str(r#"<g fill="none" stroke="black" stroke-linecap="round" stroke-linejoin="round">"#);
        for mark in &self.marks {
            match mark {
                Mark::Polyline { points, width } => {
                    out.push_str("<path d=\"");
                    for (i, &(x, y)) in points.iter().enumerate() {
                        out.push(if i == 0 { 'M' } else { 'L' });
                        let _ = write!(out, "{} {}", num(x), num(y));
                    }
                    let _ = write!(out, "\" stroke-width=\"{}\"/>", num(*width));
                }
                Mark::Circle { cx, cy, radius, width } => {
                    let _ = write!(out, r#"<circle cx="{}" cy="{}" r="{}" fill="white" stroke-width="{}"/>"#, num(*cx), num(*cy), num(*radius), num(*width));
                }
            }
        }
        out.push_str("</g></svg>\n");
        out
    }

    /// The drawing rasterised with anti-aliasing: one grey byte per pixel, row by row (0 black, 255 white).
    pub fn to_gray(&self) -> Result<Vec<u8>, RenderError> {
        use tiny_skia::{Color, FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, Transform};
        let canvas = RenderError::Canvas { width: self.width, height: self.height };
        let mut pixmap = Pixmap::new(self.width, self.height).ok_or(canvas)?;
        pixmap.fill(Color::WHITE);
        let mut ink = Paint::default();
        ink.set_color_rgba8(0, 0, 0, 255);
        ink.anti_alias = true;
        let mut paper = Paint::default();
        paper.set_color_rgba8(255, 255, 255, 255);
        paper.anti_alias = true;
        let stroke = |width: f32| Stroke { width, line_cap: LineCap::Round, line_join: LineJoin::Round, ..Stroke::default() };
        for mark in &self.marks {
            match mark {
                Mark::Polyline { points, width } => {
                    let mut builder = PathBuilder::new();
                    for (i, &(x, y)) in points.iter().enumerate() {
                        if i == 0 {
                            builder.move_to(x, y);
                        } else {
                            builder.line_to(x, y);
                        }
                    }
                    // A polyline with fewer than two points draws nothing.
                    if let Some(path) = builder.finish() {
                        pixmap.stroke_path(&path, &ink, &stroke(*width), Transform::identity(), None);
                    }
                }
                Mark::Circle { cx, cy, radius, width } => {
                    if let Some(path) = PathBuilder::from_circle(*cx, *cy, *radius) {
                        pixmap.fill_path(&path, &paper, FillRule::Winding, Transform::identity(), None);
                        pixmap.stroke_path(&path, &ink, &stroke(*width), Transform::identity(), None);
                    }
                }
            }
        }
        // Black and white only: every channel holds the same grey, so the red one is the pixel.
        Ok(pixmap.data().chunks_exact(4).map(|px| px[0]).collect())
    }

    /// The drawing as an 8-bit greyscale PNG.
    pub fn to_png(&self) -> Result<Vec<u8>, RenderError> {
        let gray = self.to_gray()?;
        let mut out = Vec::with_capacity(gray.len() / 16);
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        // One filter for every row: as small as the adaptive choice on these mostly white pictures, and faster.
        encoder.set_filter(png::Filter::Sub);
        let png_error = |e: png::EncodingError| RenderError::Png(e.to_string());
        let mut writer = encoder.write_header().map_err(png_error)?;
        writer.write_image_data(&gray).map_err(png_error)?;
        writer.finish().map_err(png_error)?;
        Ok(out)
    }
}

/// A coordinate with at most two decimals and no trailing zeros.
fn num(x: f32) -> String {
    let text = format!("{x:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" { "0".to_string() } else { text.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Drawing {
        Drawing {
            width: 60,
            height: 40,
            marks: vec![
                Mark::Polyline { points: vec![(5.0, 20.0), (55.0, 20.0)], width: 4.0 },
                Mark::Circle { cx: 30.0, cy: 20.0, radius: 10.0, width: 2.0 },
            ],
        }
    }

    #[test]
    fn svg_lists_every_mark_in_order() {
        let svg = sample().to_svg();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"60\" height=\"40\""), "{svg}");
        let path = svg.find("<path d=\"M5 20L55 20\" stroke-width=\"4\"/>").expect("the line");
        let circle = svg.find("<circle cx=\"30\" cy=\"20\" r=\"10\"").expect("the circle");
        assert!(path < circle);
    }

    #[test]
    fn raster_has_ink_on_the_line_and_paper_inside_the_circle() {
        let gray = sample().to_gray().expect("small canvas");
        let at = |x: usize, y: usize| gray[y * 60 + x];
        assert_eq!(at(2, 2), 255, "background is white");
        assert!(at(10, 20) < 40, "the line is black: {}", at(10, 20));
        assert_eq!(at(30, 20), 255, "the disc covers the line");
        assert!(at(40, 20) < 80, "the outline is dark: {}", at(40, 20));
    }

    #[test]
    fn png_round_trips_through_a_decoder() {
        let drawing = sample();
        let bytes = drawing.to_png().expect("encodes");
        let decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
        let mut reader = decoder.read_info().expect("a png header");
        let mut buf = vec![0; reader.output_buffer_size().expect("fits")];
        let info = reader.next_frame(&mut buf).expect("one frame");
        assert_eq!((info.width, info.height, info.color_type), (60, 40, png::ColorType::Grayscale));
        assert_eq!(&buf[..info.buffer_size()], drawing.to_gray().unwrap().as_slice());
    }

    #[test]
    fn numbers_print_without_trailing_zeros() {
        assert_eq!(num(12.5), "12.5");
        assert_eq!(num(3.0), "3");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(7.256), "7.26");
    }
}
