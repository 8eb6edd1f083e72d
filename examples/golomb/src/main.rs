//! `golomb M [--backend auto|cpu|gpu] [--json] [--shard K/M --result FILE] [--checkpoint
//! FILE] …`: finds an optimal Golomb ruler of M marks by branch and bound, on every GPU or
//! every CPU core, and checks its length against OEIS A003022. The flags and the run come
//! from `warpsearch_engine::kit`.

use clap::Parser;
use golomb::{Golomb, Shortest, is_golomb, known};
use golomb_kernels::MAX_MARKS;
use std::process::ExitCode;
use warpsearch_engine::kit::{self, Answer, RunArgs};

/// Finds an optimal Golomb ruler (marks whose pairwise distances are all different, as short
/// as possible) by branch and bound: a shorter ruler found on any lane or GPU tightens the
/// bound everywhere. Proves the length optimal and checks it against OEIS A003022.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Marks of the ruler: 2..=18.
    #[arg(value_name = "M", value_parser = clap::value_parser!(u32).range(2..=MAX_MARKS as i64))]
    m: u32,
    #[command(flatten)]
    run: RunArgs,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let m = args.m;
    let search = Golomb::first(m);
    let start = search.start();
    kit::run(&search, &args.run, |shortest: &Shortest, seconds| {
        let found = shortest.length < start;
        let checks = found && is_golomb(&shortest.marks) && shortest.marks.len() as u32 == m;
        let known_match = known(m).map(|k| found && k == shortest.length);
        let marks = shortest
            .marks
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>();
        Answer {
            json: serde_json::json!({
                "m": m, "length": found.then_some(shortest.length), "marks": shortest.marks,
                "nodes": shortest.nodes, "seconds": seconds, "known_match": known_match,
                "bound": search.reached().min(shortest.length as u64),
            }),
            text: format!(
                "optimal Golomb ruler with {m} marks: {} — {} ({seconds:.3} s, {} nodes)",
                match found {
                    true => format!("length {} ({})", shortest.length, marks.join(" ")),
                    false => format!("none shorter than {start}"),
                },
                match known_match {
                    Some(true) => "matches OEIS A003022",
                    _ => "DOES NOT MATCH OEIS A003022",
                },
                shortest.nodes,
            ),
            ok: checks && known_match == Some(true),
        }
    })
}
