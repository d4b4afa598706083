//! `arbigraph`: the native command line over the engine (generate, solve, trace, grade, eval and its strategy lab, merge, import-inspect, export,
//! probe-server, render, render-image, inspect, packs, bench, site).
//!
//! Each subcommand lives in its own file with its clap `Args` and a `run` returning the exit code:
//! 0 success, 1 the work ran but found problems (for example failed samples), 2 bad usage or bad input.

/// Generation and grading allocate many small values (big integers, prompt pieces) per task; mimalloc serves them
/// faster than the system allocator.
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(not(target_arch = "wasm32"))]
mod batch;
#[cfg(not(target_arch = "wasm32"))]
mod bench;
#[cfg(not(target_arch = "wasm32"))]
mod bench_harness;
#[cfg(not(target_arch = "wasm32"))]
mod bench_image;
#[cfg(not(target_arch = "wasm32"))]
mod bench_layout;
#[cfg(not(target_arch = "wasm32"))]
mod bench_scale;
#[cfg(not(target_arch = "wasm32"))]
mod eval;
#[cfg(not(target_arch = "wasm32"))]
mod export;
#[cfg(not(target_arch = "wasm32"))]
mod files;
#[cfg(not(target_arch = "wasm32"))]
mod generate;
#[cfg(not(target_arch = "wasm32"))]
mod grade;
#[cfg(not(target_arch = "wasm32"))]
mod import_inspect;
#[cfg(not(target_arch = "wasm32"))]
mod inspect;
#[cfg(not(target_arch = "wasm32"))]
#[cfg(not(target_arch = "wasm32"))]
mod merge;
#[cfg(not(target_arch = "wasm32"))]
mod pack_check;
#[cfg(not(target_arch = "wasm32"))]
mod packs;
#[cfg(not(target_arch = "wasm32"))]
mod probe;
#[cfg(not(target_arch = "wasm32"))]
mod render;
#[cfg(not(target_arch = "wasm32"))]
mod render_image;
#[cfg(not(target_arch = "wasm32"))]
mod shard;
#[cfg(not(target_arch = "wasm32"))]
mod site;
#[cfg(not(target_arch = "wasm32"))]
mod solve;
#[cfg(not(target_arch = "wasm32"))]
mod trace;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use clap::Parser;

    /// ArbiGraph: verifiable task-graph benchmarks for the context management of LLM agents.
    #[derive(Parser)]
    #[command(name = "arbigraph", version, about)]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(clap::Subcommand)]
    enum Command {
        /// Generate a dataset for a topology (baseline, forgetting, chain, multichain, custom DAG).
        Generate(generate::Args),
        /// Evaluate one math operator on a raw input, exactly as inside a graph.
        Solve(solve::Args),
        /// Run Python functions with the built-in interpreter.
        Trace(trace::Args),
        /// Re-grade a results file and print the metrics.
        Grade(grade::Args),
        /// Run an agent over a dataset against an OpenAI-compatible endpoint; several --strategy run a strategy lab.
        Eval(eval::Args),
        /// Merge the results files of a run's shards (eval --shard I/N) into one results file.
        Merge(merge::Args),
        /// Turn an Inspect AI log of the ArbiGraph task (.eval or JSON) into a results file, graded again.
        ImportInspect(import_inspect::Args),
        /// Export a dataset for other harnesses: Inspect AI JSONL, an lm-evaluation-harness task, a Hugging Face dataset.
        Export(export::Args),
        /// Serve the probe: a deterministic solver with amnesia behind an OpenAI-compatible endpoint.
        ProbeServer(probe::Args),
        /// Draw a custom task graph as SVG or DOT.
        Render(render::Args),
        /// Draw one image-task picture (path traversal) as PNG or SVG.
        RenderImage(render_image::Args),
        /// Describe a dataset or results file and report schema problems.
        Inspect(inspect::Args),
        /// List the tasks of task packs (a LeetCode-style pool, GSM-Symbolic templates) and the refused ones with why.
        Packs(packs::Args),
        /// Measure generation throughput.
        Bench(bench::Args),
        /// Write a static site for browsing datasets: the built app, the datasets and their shards.
        Site(site::Args),
    }

    match Cli::parse().command {
        Command::Generate(args) => generate::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Trace(args) => trace::run(args),
        Command::Grade(args) => grade::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Merge(args) => merge::run(args),
        Command::ImportInspect(args) => import_inspect::run(args),
        Command::Export(args) => export::run(args),
        Command::ProbeServer(args) => probe::run(args),
        Command::Render(args) => render::run(args),
        Command::RenderImage(args) => render_image::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Packs(args) => packs::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Site(args) => site::run(args),
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}
