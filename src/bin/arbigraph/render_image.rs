//! `arbigraph render-image`: one path-traversal picture for a seed, written as PNG or SVG (with its metadata),
//! and the image-parameter flags shared with `arbigraph generate`.

use std::path::PathBuf;
use std::process::ExitCode;

use arbigraph_studio::engine::rng::InstanceRng;
use arbigraph_studio::engine::tasks::image::{ImageParams, Numbering, Traversal};
use arbigraph_studio::engine::value::Number;

use super::files::{fail, write_text};

/// The image tasks' difficulty parameters as flags; unset flags keep the reference's defaults.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ImageArgs {
    /// Image tasks: paths per picture [default: 8].
    #[arg(long)]
    image_paths: Option<i64>,
    /// Image tasks: numbered nodes per path [default: 6].
    #[arg(long)]
    image_nodes_per_path: Option<i64>,
    /// Image tasks: distinct paths every path must cross [default: 2].
    #[arg(long)]
    image_crossing_partners: Option<i64>,
    /// Image tasks: largest start-order distance between crossing paths [default: 5].
    #[arg(long)]
    image_max_crossing_distance: Option<i64>,
    /// Image tasks: largest random node displacement in pixels [default: 145].
    #[arg(long)]
    image_perturbation: Option<i64>,
    /// Image tasks: canvas width in pixels [default: 2000].
    #[arg(long)]
    image_width: Option<i64>,
    /// Image tasks: canvas height in pixels [default: 1400].
    #[arg(long)]
    image_height: Option<i64>,
    /// Image tasks: `sequential` (the reference: consecutive numbers along each path) or `shuffled`.
    #[arg(long)]
    image_numbering: Option<String>,
}

impl ImageArgs {
    /// The parameters, checked as a whole.
    pub fn params(&self) -> Result<ImageParams, String> {
        self.params_over(ImageParams::default())
    }

    /// `base` (for instance a graph file's own parameters) with the flags given on top, checked as a whole.
    pub fn params_over(&self, base: ImageParams) -> Result<ImageParams, String> {
        let mut params = base;
        let flags = [
            ("num_paths", self.image_paths),
            ("nodes_per_path", self.image_nodes_per_path),
            ("crossing_partners", self.image_crossing_partners),
            ("max_crossing_index_distance", self.image_max_crossing_distance),
            ("perturbation", self.image_perturbation),
            ("width", self.image_width),
            ("height", self.image_height),
        ];
        for (name, value) in flags {
            if let Some(value) = value {
                params.set(name, value).map_err(|e| e.to_string())?;
            }
        }
        if let Some(text) = &self.image_numbering {
            params.numbering = Numbering::parse(text).ok_or_else(|| format!("unknown --image-numbering `{text}` (sequential or shuffled)"))?;
        }
        params.check().map_err(|e| format!("image parameters: {e}"))?;
        Ok(params)
    }
}

/// Arguments of `arbigraph render-image`.
#[derive(clap::Args)]
pub struct Args {
    /// Seed of the picture.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The raw selector input (its rounded absolute value modulo the number of paths picks the path).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    input: f64,
    /// Output file: `.png` or `.svg`.
    #[arg(short, long)]
    output: PathBuf,
    /// Also write the picture's metadata (positions, numbers, selected path, validation figures) as JSON here.
    #[arg(long)]
    metadata: Option<PathBuf>,
    #[command(flatten)]
    image: ImageArgs,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match render(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(message),
    }
}

fn render(args: &Args) -> Result<(), String> {
    let params = args.image.params()?;
    if !args.input.is_finite() {
        return Err("--input must be a finite number".into());
    }
    let input = if args.input.fract() == 0.0 && args.input.abs() < 1e15 { Number::Int(args.input as i64) } else { Number::Float(args.input) };
    let picture = Traversal::new(params).picture(input, &mut InstanceRng::from_seed(args.seed)).map_err(|e| e.to_string())?;
    let extension = args.output.extension().and_then(|e| e.to_str()).unwrap_or("");
    match extension {
        "svg" => write_text(&args.output, &picture.to_svg())?,
        "png" => {
            let bytes = picture.to_png().map_err(|e| e.to_string())?;
            std::fs::write(&args.output, bytes).map_err(|e| format!("cannot write {}: {e}", args.output.display()))?;
        }
        _ => return Err(format!("{}: the output must end in .png or .svg", args.output.display())),
    }
    if let Some(path) = &args.metadata {
        let mut text = serde_json::to_string_pretty(&picture.metadata_json()).map_err(|e| e.to_string())?;
        text.push('\n');
        write_text(path, &text)?;
    }
    eprintln!(
        "wrote {} (start node index {}, answer {:?}, {} attempts)",
        args.output.display(),
        picture.start_node_index,
        picture.answer(),
        picture.layout.attempts
    );
    Ok(())
}
