//! `langford N [--backend auto|cpu|gpu] [--json] [--shard K/M --result FILE]
//! [--checkpoint FILE] …`: Langford pairings L(2, n) on warpsearch's engine and depth-first
//! skeleton, the reversal symmetry as a weight a unit; the flags and the run come from
//! `warpsearch_engine::kit`.

use clap::Parser;
use langford::{Counts, KNOWN, Pairings};
use langford_kernels::MAX_N;
use std::process::ExitCode;
use warpsearch_engine::kit::{self, Answer, RunArgs};

/// Counts Langford pairings L(2, n): the numbers 1, 1, …, n, n in a row with the two k's k
/// places apart, each pairing and its mirror image counted once.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// n, 1..=31 (known counts up to 24; there are pairings only when n mod 4 is 0 or 3).
    #[arg(value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_N as i64))]
    n: u32,
    #[command(flatten)]
    run: RunArgs,
}

fn main() -> ExitCode {
    let args = Args::parse();
    kit::run(
        &Pairings::new(args.n),
        &args.run,
        |counts: &Counts, seconds| {
            let known = KNOWN
                .get(args.n as usize - 1)
                .map(|&k| k == counts.pairings());
            Answer {
                json: serde_json::json!({
                    "n": args.n, "count": counts.pairings(), "sequences": counts.sequences,
                    "nodes": counts.nodes,
                    "nodes_per_second": (counts.nodes as f64 / seconds).round(),
                    "seconds": seconds, "known_match": known,
                }),
                text: format!(
                    "L(2, {}) = {} pairings ({seconds:.3} s)",
                    args.n,
                    counts.pairings()
                ),
                ok: known != Some(false),
            }
        },
    )
}
