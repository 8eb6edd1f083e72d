//! `warpsearch verify`: recount a sample of a run's chunks and compare them chunk by chunk.

use crate::cli::output::*;
use crate::cli::*;
use std::collections::BTreeSet;
use warpsearch::shard::{ChunkRun, Partial, Partition};
use warpsearch::verify::{Held, parse_chunks, parse_fraction};

/// The share of the chunks a verify recounts when neither --sample nor --chunks is given.
const DEFAULT_SAMPLE: f64 = 0.01;

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
    let (chunks, fraction) = match (&args.chunks, &args.sample) {
        (Some(list), _) => {
            let chunks = parse_chunks(list)?;
            held.check_held(&chunks)?;
            (chunks, None)
        }
        (None, sample) => {
            let fraction = sample
                .as_deref()
                .map_or(Ok(DEFAULT_SAMPLE), parse_fraction)?;
            (held.sample(fraction, seed)?, Some(fraction))
        }
    };
    let partition = &held.partition;
    let what = format!("{} {}", partition.problem, partition.n);
    let selected = select(&args.common)?;
    let list: Vec<String> = chunks.iter().map(u32::to_string).collect();
    note!(
        "verify {what}: recounting {} of the {} chunks held ({} in the work list){} on {}: {}",
        chunks.len(),
        held.chunks.len(),
        partition.chunks,
        match fraction {
            Some(_) => format!(", seed {seed}"),
            None => String::new(),
        },
        selected.backend.describe(),
        list.join(", ")
    );
    let started = std::time::Instant::now();
    let control = control(&args.common, cancel);
    let (run, recounted_partition) = recount(partition.n, &selected.backend, &control, chunks)?;
    if recounted_partition != *partition {
        return Err(Error::InvalidArgument(format!(
            "this binary makes another work list for {what} (version {}, fingerprint {}) than the files' (version {}, fingerprint {}): verify with the version that ran it",
            recounted_partition.version,
            recounted_partition.fingerprint,
            partition.version,
            partition.fingerprint
        )));
    }
    let differences = held.compare(&run.chunks);
    let seconds_taken = started.elapsed().as_secs_f64();
    let nodes: u128 = run.chunks.iter().map(|c| c.counts.nodes()).sum();
    if args.common.json {
        let value = serde_json::json!({
            "problem": partition.problem,
            "n": partition.n,
            "seed": fraction.map(|_| seed),
            "sample": fraction,
            "chunks": run.chunks.iter().map(|c| c.index).collect::<Vec<_>>(),
            "chunks_held": held.chunks.len(),
            "chunks_total": partition.chunks,
            "backend": selected.backend.describe(),
            "nodes": nodes,
            "seconds": seconds_taken,
            "equal": differences.is_empty(),
            "differences": differences,
        });
        out!("{value}");
    } else {
        for d in &differences {
            out!(
                "chunk {} DIFFERS: {} holds {} (computed on {}); recounted {} on {}",
                d.chunk,
                d.file,
                d.recorded,
                d.device,
                d.recounted,
                d.recount_device
            );
        }
        out!(
            "verify {what}: {} chunks recounted ({} of the work list's {}) in {}, {} nodes: {}",
            run.chunks.len(),
            percent(run.chunks.len(), partition.chunks),
            partition.chunks,
            seconds(seconds_taken),
            group(nodes),
            if differences.is_empty() {
                "all equal".to_string()
            } else {
                format!("{} DIFFER", differences.len())
            }
        );
    }
    Ok(if differences.is_empty() {
        0
    } else {
        EXIT_MISMATCH
    })
}

fn percent(part: usize, whole: u32) -> String {
    format!("{:.1} %", 100.0 * part as f64 / whole.max(1) as f64)
}
