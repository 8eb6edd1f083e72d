//! `costas N [--backend auto|cpu|gpu] [--json] [--shard K/M --result FILE] [--checkpoint
//! FILE] …`: counts the Costas arrays of order N on every GPU or every CPU core and checks the
//! count against OEIS A008404. The flags and the run come from `warpsearch_engine::kit`.

use clap::Parser;
use costas::{Arrays, Costas, known};
use std::process::ExitCode;
use warpsearch_engine::kit::{self, Answer, RunArgs};

/// Counts Costas arrays of order N (permutation matrices whose dots have pairwise distinct
/// displacement vectors), on every GPU or every CPU core, and checks the count against
/// OEIS A008404.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The order: 1..=31 (known counts up to 29).
    #[arg(value_name = "N", value_parser = clap::value_parser!(u32).range(1..=31))]
    n: u32,
    #[command(flatten)]
    run: RunArgs,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let n = args.n;
    kit::run(&Costas { n }, &args.run, |arrays: &Arrays, seconds| {
        let known_match = known(n).map(|k| k == arrays.count);
        Answer {
            json: serde_json::json!({
                "n": n, "count": arrays.count, "nodes": arrays.nodes, "seconds": seconds,
                "known_match": known_match,
            }),
            text: format!(
                "Costas arrays of order {n}: {} ({seconds:.3} s) — {}",
                arrays.count,
                match known_match {
                    Some(true) => "matches OEIS A008404",
                    Some(false) => "DOES NOT MATCH OEIS A008404",
                    None => "no known count to compare with",
                }
            ),
            ok: known_match != Some(false),
        }
    })
}
