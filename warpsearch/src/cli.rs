//! Argument parsing (clap), output (human or `--json`), exit codes and Ctrl-C.

use clap::{Args, Parser, Subcommand};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use warpsearch::backend::{self, BackendChoice, Selected};
use warpsearch::nqueens;
use warpsearch::{Error, RunControl, selftest};

/// Exit status of a run stopped by Ctrl-C (128 + SIGINT), as shells expect.
const EXIT_INTERRUPTED: i32 = 130;

#[derive(Parser)]
#[command(
    name = "warpsearch",
    version,
    about = "Exhaustive combinatorial search on NVIDIA GPUs, with the same Rust kernels on every CPU core",
    long_about = "Exhaustive combinatorial search on NVIDIA GPUs, with the same Rust kernels on every CPU core.\n\n\
The kernels are written once in no_std Rust: compiled to PTX they run one search per GPU thread \
(or one board per warp); compiled natively they run on every core with rayon. With --backend auto \
(the default) the GPU is used when an NVIDIA driver and device are present, and a line on stderr says \
which backend ran and why.",
    after_help = "Examples:\n  warpsearch nqueens 18                 count all 18-queens solutions\n  \
warpsearch nqueens 12 --backend cpu --json\n  warpsearch selftest --backend gpu    check every warp primitive on the GPU\n  \
warpsearch bench nqueens --to 16      timing table"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count all solutions of the N-Queens problem (total and up to symmetry).
    #[command(
        long_about = "Count all solutions of the N-Queens problem: N queens on an N×N board, no two in a row, \
column or diagonal. Prints the total, the number unique up to rotation and reflection, the backend, the time, \
the nodes searched (queens placed) and whether the counts match the known values (OEIS A000170, A002562).\n\n\
The search uses the 8 symmetries of the board, so it visits about an eighth of the tree. N ranges over 1..=27."
    )]
    Nqueens(NqueensArgs),
    /// Run every warp primitive on the chosen backend and compare with a scalar reference.
    Selftest(SelftestArgs),
    /// Time a range of problem sizes and print a table.
    Bench(BenchArgs),
}

#[derive(Args, Clone)]
struct Common {
    /// Where to run: auto picks the GPU when one is usable, else the CPU.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// Threads for the CPU backend (default: every core).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Print one JSON object on stdout instead of text (no progress bar).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct NqueensArgs {
    /// Board size (1..=27).
    #[arg(value_name = "N")]
    n: u32,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct SelftestArgs {
    /// Warps of random inputs to run.
    #[arg(long, default_value_t = 264)]
    warps: u32,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct BenchArgs {
    /// What to time.
    #[arg(value_enum)]
    problem: BenchProblem,
    /// Smallest size.
    #[arg(long, default_value_t = 8)]
    from: u32,
    /// Largest size.
    #[arg(long, default_value_t = 16)]
    to: u32,
    /// Runs per size; the table shows the median.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    #[command(flatten)]
    common: Common,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum BenchProblem {
    /// N-Queens counting.
    Nqueens,
}

/// Runs the CLI and returns the process exit status.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    // A first Ctrl-C asks the search to stop cleanly; a second one exits at once.
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(EXIT_INTERRUPTED);
        }
        eprintln!("\nstopping (Ctrl-C again to quit at once)…");
    });
    let json = match &cli.command {
        Command::Nqueens(a) => a.common.json,
        Command::Selftest(a) => a.common.json,
        Command::Bench(a) => a.common.json,
    };
    let result = match cli.command {
        Command::Nqueens(args) => run_nqueens(args, cancel),
        Command::Selftest(args) => run_selftest(args),
        Command::Bench(args) => run_bench(args, cancel),
    };
    match result {
        Ok(status) => status,
        Err(error) => {
            if json {
                println!("{}", serde_json::json!({ "error": error.to_string() }));
            } else {
                eprintln!("error: {error}");
            }
            match error {
                Error::Interrupted => EXIT_INTERRUPTED,
                _ => 1,
            }
        }
    }
}

fn select(common: &Common) -> Result<Selected, Error> {
    let selected = backend::select(common.backend, common.threads)?;
    eprintln!("{}", selected.reason);
    Ok(selected)
}

fn control(common: &Common, cancel: Arc<AtomicBool>) -> RunControl {
    RunControl::default().with_cancel(cancel).with_progress(!common.json)
}

fn run_nqueens(args: NqueensArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    nqueens::validate(args.n)?;
    let selected = select(&args.common)?;
    let counts = nqueens::count_on(args.n, &selected.backend, &control(&args.common, cancel))?;
    let rate = counts.nodes as f64 / counts.seconds.max(1e-9);
    if args.common.json {
        let mut value = serde_json::to_value(&counts).map_err(|e| Error::Verification(e.to_string()))?;
        value["nodes_per_second"] = serde_json::json!(rate.round());
        println!("{value}");
    } else {
        println!("{}-queens: {} solutions, {} unique", counts.n, group(counts.total), group(counts.unique));
        println!(
            "  backend {} · {:.3} s · {} nodes · {}",
            counts.backend,
            counts.seconds,
            group(counts.nodes),
            per_second(rate, "nodes")
        );
        println!(
            "  {}",
            match counts.known_match {
                Some(true) => "matches the known values (OEIS A000170, A002562)",
                Some(false) => "DOES NOT MATCH the known values (OEIS A000170, A002562): please report this",
                None => "no known value to compare with",
            }
        );
    }
    Ok(if counts.known_match == Some(false) { 1 } else { 0 })
}

fn run_selftest(args: SelftestArgs) -> Result<i32, Error> {
    let selected = select(&args.common)?;
    let report = selftest::run(&selected.backend, args.warps, args.seed)?;
    if args.common.json {
        let value = serde_json::json!({ "passed": report.passed(), "report": report });
        println!("{value}");
    } else {
        println!("selftest on {} ({} warps, seed {})", report.backend, report.warps, args.seed);
        for check in &report.checks {
            match &check.first_mismatch {
                None => println!("  ok    {}", check.name),
                Some(first) => println!("  FAIL  {} ({} lanes differ; first: {first})", check.name, check.mismatches),
            }
        }
        let failed = report.checks.iter().filter(|c| c.mismatches > 0).count();
        println!("{} passed, {failed} failed", report.checks.len() - failed);
    }
    Ok(if report.passed() { 0 } else { 1 })
}

fn run_bench(args: BenchArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    let BenchProblem::Nqueens = args.problem;
    if args.from > args.to || args.repeat == 0 {
        return Err(Error::InvalidArgument("need --from ≤ --to and --repeat ≥ 1".into()));
    }
    nqueens::validate(args.from)?;
    nqueens::validate(args.to)?;
    let selected = select(&args.common)?;
    let control = RunControl::default().with_cancel(cancel);
    // Warm-up: the first launch pays for lazy driver set-up.
    nqueens::count_on(10, &selected.backend, &control)?;
    let mut rows = Vec::new();
    if !args.common.json {
        println!("{:>3} {:>20} {:>19} {:>7} {:>10} {:>20} {:>14} {:>5}", "N", "total", "unique", "backend", "seconds", "nodes", "nodes/s", "known");
    }
    let mut status = 0;
    for n in args.from..=args.to {
        let mut runs = Vec::new();
        for _ in 0..args.repeat {
            runs.push(nqueens::count_on(n, &selected.backend, &control)?);
        }
        let mut seconds: Vec<f64> = runs.iter().map(|c| c.seconds).collect();
        seconds.sort_by(f64::total_cmp);
        let median = seconds[seconds.len() / 2];
        let counts = &runs[0];
        if runs.iter().any(|c| (c.total, c.unique) != (counts.total, counts.unique)) || counts.known_match == Some(false) {
            status = 1;
        }
        let rate = counts.nodes as f64 / median.max(1e-9);
        let known = match counts.known_match {
            Some(true) => "ok",
            Some(false) => "WRONG",
            None => "-",
        };
        if !args.common.json {
            println!(
                "{:>3} {:>20} {:>19} {:>7} {:>10.4} {:>20} {:>14.3e} {:>5}",
                n, counts.total, counts.unique, counts.backend, median, counts.nodes, rate, known
            );
        }
        rows.push(serde_json::json!({
            "n": n, "total": counts.total, "unique": counts.unique, "backend": counts.backend,
            "seconds": median, "all_seconds": seconds, "nodes": counts.nodes, "nodes_per_second": rate.round(),
            "known_match": counts.known_match,
        }));
    }
    if args.common.json {
        println!("{}", serde_json::json!({ "backend": selected.backend.describe(), "results": rows }));
    } else {
        println!("# {}", selected.backend.describe());
    }
    Ok(status)
}

/// 1234567 → "1,234,567".
fn group(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// 1.23e9 → "1.23 G nodes/s".
fn per_second(rate: f64, unit: &str) -> String {
    let (scaled, prefix) = match rate {
        r if r >= 1e12 => (r / 1e12, "T"),
        r if r >= 1e9 => (r / 1e9, "G"),
        r if r >= 1e6 => (r / 1e6, "M"),
        r if r >= 1e3 => (r / 1e3, "k"),
        r => (r, ""),
    };
    format!("{scaled:.2} {prefix}{unit}/s")
}
