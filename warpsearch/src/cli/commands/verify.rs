//! `warpsearch verify`: recount a sample of a run's chunks and compare them chunk by chunk.

use crate::cli::*;
use std::collections::BTreeSet;
use warpsearch::shard::{ChunkRun, Partial, Partition};
use warpsearch::verify::Held;

pub(crate) fn run_verify(args: VerifyArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    // The first file says which problem; every file is then read as that problem's.
    let problem = std::fs::read_to_string(&args.files[0])
        .map_err(|source| Error::Io {
            path: args.files[0].display().to_string(),
            source,
        })
        .map(|text| {
            serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v["partition"]["problem"].as_str().map(str::to_string))
                .unwrap_or_default()
        })?;
    match problem.as_str() {
        "nqueens" => verify_with::<nqueens::Partial>(&args, cancel, |n, backend, control, c| {
            nqueens::count_chunks(n, backend, control, c)
        }),
        "no3line" => {
            verify_with::<warpsearch::no3line::Partial>(&args, cancel, |n, backend, control, c| {
                warpsearch::no3line::enumerate_chunks(n, backend, control, c)
            })
        }
        "" => Err(Error::InvalidArgument(format!(
            "{}: not a warpsearch result file or checkpoint",
            args.files[0].display()
        ))),
        other => Err(Error::InvalidArgument(format!(
            "{}: a result of {other}, which this binary cannot recount (it recounts nqueens and no3line)",
            args.files[0].display()
        ))),
    }
}

/// Recounts `args`' chunks with `recount` and compares; exit 0 when every chunk is equal,
/// [`EXIT_MISMATCH`] when one differs.
fn verify_with<P: Partial>(
    args: &VerifyArgs,
    cancel: Arc<AtomicBool>,
    recount: impl FnOnce(
        u32,
        &warpsearch::Backend,
        &RunControl,
        BTreeSet<u32>,
    ) -> Result<(ChunkRun<P>, Partition), Error>,
) -> Result<i32, Error> {
    let held = Held::<P>::read(&args.files)?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let plan = held.plan(args.sample.as_deref(), args.chunks.as_deref(), seed)?;
    let selected = select(&args.common)?;
    let backend = selected.backend.describe();
    note!("{}", held.announce(&plan, &backend));
    let control = control(&args.common, cancel);
    let report = held.recount(&plan, &backend, |chunks| {
        recount(held.partition.n, &selected.backend, &control, chunks)
    })?;
    if args.common.json {
        let value =
            serde_json::to_value(&report).map_err(|e| Error::Verification(e.to_string()))?;
        out!("{value}");
    } else {
        for line in report.lines() {
            out!("{line}");
        }
    }
    Ok(if report.equal { 0 } else { EXIT_MISMATCH })
}
