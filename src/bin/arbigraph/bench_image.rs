//! `arbigraph bench --image`: 1,000 image-task pictures drawn, rendered to PNG and re-checked by the
//! independent checker, with the time of each step and the PNG probe's fingerprint.

use std::process::ExitCode;
use std::time::Instant;

use arbigraph_studio::engine::dataset::fingerprint_bytes;
use arbigraph_studio::engine::rng::InstanceRng;
use arbigraph_studio::engine::tasks::image::verify::verify;
use arbigraph_studio::engine::tasks::image::{probe_png, ImageParams, Traversal};
use arbigraph_studio::engine::value::Number;

/// Pictures per run.
const PICTURES: u64 = 1000;

/// Runs the image benchmark; exit code 1 if any picture fails the checker.
pub fn run() -> ExitCode {
    let params = ImageParams::default();
    let task = Traversal::new(params);
    println!("image pictures ({params})");

    let cpu_start = cpu_seconds();
    let start = Instant::now();
    let mut pictures = Vec::with_capacity(PICTURES as usize);
    for seed in 0..PICTURES {
        let mut rng = InstanceRng::for_instance(seed, &[0, 0, 0]);
        match task.picture(Number::Int(seed as i64 - 500), &mut rng) {
            Ok(picture) => pictures.push(picture),
            Err(e) => {
                println!("seed {seed}: {e}");
                return ExitCode::from(1);
            }
        }
    }
    let drawn = start.elapsed().as_secs_f64();
    let attempts: Vec<u32> = pictures.iter().map(|p| p.layout.attempts).collect();
    let mean_attempts = f64::from(attempts.iter().sum::<u32>()) / attempts.len() as f64;

    let start = Instant::now();
    let mut png_bytes = 0usize;
    for picture in &pictures {
        match picture.to_png() {
            Ok(png) => png_bytes += png.len(),
            Err(e) => {
                println!("png: {e}");
                return ExitCode::from(1);
            }
        }
    }
    let rendered = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu_start;

    let start = Instant::now();
    let svg_bytes: usize = pictures.iter().map(|p| p.to_svg().len()).sum();
    let svg_time = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let mut failed = 0;
    for picture in &pictures {
        let truth: Vec<i64> = picture.answer().into_iter().map(i64::from).collect();
        if let Err(problems) = verify(&picture.metadata_json(), &truth) {
            failed += 1;
            println!("checker: {problems:?}");
        }
    }
    let checked = start.elapsed().as_secs_f64();

    let n = pictures.len() as f64;
    println!("{:<26} {:>10} {:>12} {:>14}", "step", "seconds", "pictures/s", "note");
    println!("{:<26} {:>10.3} {:>12.0} {:>14}", "draw + validate", drawn, n / drawn, format!("{mean_attempts:.1} attempts, max {}", attempts.iter().max().unwrap_or(&0)));
    println!("{:<26} {:>10.3} {:>12.0} {:>14}", "render PNG", rendered, n / rendered, format!("{:.0} KiB mean", png_bytes as f64 / n / 1024.0));
    println!("{:<26} {:>10.3} {:>12.0} {:>14}", "render SVG", svg_time, n / svg_time, format!("{:.0} KiB mean", svg_bytes as f64 / n / 1024.0));
    println!("{:<26} {:>10.3} {:>12.0} {:>14}", "independent checker", checked, n / checked, format!("{} of {} pass", pictures.len() - failed, pictures.len()));
    println!("{:<26} {:>10.3} {:>12} {:>14}", "draw + PNG, total", drawn + rendered, "", format!("{cpu:.2} s CPU"));
    match probe_png() {
        Ok(png) => println!("PNG probe fingerprint: {:016x}", fingerprint_bytes(&png)),
        Err(e) => println!("PNG probe failed: {e}"),
    }
    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

/// CPU time used by this process so far (Linux; 0 where unknown): wall time on a shared machine overstates it.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may contain spaces), from the state on: utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(user), Some(system)) => (user + system) / 100.0,
        _ => 0.0,
    }
}
