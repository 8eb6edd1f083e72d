//! `costas N [--backend auto|cpu|gpu] [--threads T] [--json]`: counts the Costas arrays of
//! order N on every GPU or every CPU core and checks the count against OEIS A008404.

use clap::Parser;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use warpsearch::RunControl;
use warpsearch::backend::{self, BackendChoice};
use warpsearch::gpu::DeviceChoice;

/// Counts Costas arrays of order N (permutation matrices whose dots have pairwise distinct
/// displacement vectors), on every GPU or every CPU core, and checks the count against
/// OEIS A008404.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The order: 1..=31 (known counts up to 29).
    #[arg(value_name = "N")]
    n: u32,
    /// Where to run: auto picks the GPU when one is usable and this build has its kernel.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// CPU threads (default: every core).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// One JSON object on stdout: {"n", "count", "backend", "seconds", "known_match"}.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(code) => code,
        Err(error) => {
            if args.json {
                println!("{}", serde_json::json!({ "error": error.to_string() }));
            }
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> warpsearch::Result<ExitCode> {
    let stop = Arc::new(AtomicBool::new(false));
    warpsearch::run::on_interrupt(stop.clone())?;
    let control = RunControl::quiet()
        .with_cancel(stop)
        .with_progress(!args.json);
    let mut choice = args.backend;
    if choice == BackendChoice::Auto && costas::PTX.trim().is_empty() {
        eprintln!("backend: CPU (auto: this build has no GPU kernel)");
        choice = BackendChoice::Cpu;
    }
    let selected = backend::select(choice, args.threads, &DeviceChoice::All)?;
    eprintln!("{}", selected.reason);
    let counted = costas::count(args.n, &selected.backend, &control)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&counted)
                .map_err(|e| warpsearch::Error::Verification(e.to_string()))?
        );
    } else {
        println!(
            "Costas arrays of order {}: {} ({} · {:.3} s) — {}",
            counted.n,
            counted.count,
            selected.backend.describe(),
            counted.seconds,
            match counted.known_match {
                Some(true) => "matches OEIS A008404",
                Some(false) => "DOES NOT MATCH OEIS A008404",
                None => "no known count to compare with",
            }
        );
    }
    Ok(if counted.known_match == Some(false) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
