//! `nqueens-simple N [--backend auto|cpu|gpu] [--json] [--shard K/M --result FILE]
//! [--checkpoint FILE] …`: the textbook bitmap N-Queens count on warpsearch's engine and
//! depth-first skeleton; the flags and the run come from `warpsearch_engine::kit`.

use clap::Parser;
use nqueens_simple::{Counts, KNOWN, Simple};
use nqueens_simple_kernels::MAX_N;
use std::process::ExitCode;
use warpsearch_engine::kit::{self, Answer, RunArgs};

/// Counts the solutions of the n-queens problem, every one (no symmetry), with the textbook
/// bitmap search on warpsearch's depth-first skeleton.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The board size, 4..=32 (known counts up to 27).
    #[arg(value_name = "N", value_parser = clap::value_parser!(u32).range(4..=MAX_N as i64))]
    n: u32,
    #[command(flatten)]
    run: RunArgs,
}

fn main() -> ExitCode {
    let args = Args::parse();
    kit::run(
        &Simple::new(args.n),
        &args.run,
        |counts: &Counts, seconds| {
            let known = KNOWN
                .get(args.n as usize - 1)
                .map(|&k| k == counts.solutions);
            Answer {
                json: serde_json::json!({
                    "n": args.n, "count": counts.solutions, "nodes": counts.nodes,
                    "nodes_per_second": (counts.nodes as f64 / seconds).round(),
                    "seconds": seconds, "known_match": known,
                }),
                text: format!(
                    "{}-queens: {} solutions ({seconds:.3} s)",
                    args.n, counts.solutions
                ),
                ok: known != Some(false),
            }
        },
    )
}
