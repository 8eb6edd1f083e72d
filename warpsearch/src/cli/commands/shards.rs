//! Sharded runs (`--shard`, `--result`, `--checkpoint`) and `warpsearch merge`.

use crate::cli::commands::{print_no3line_counts, print_nqueens_counts};
use crate::cli::output::*;
use crate::cli::*;

/// The shard, the checkpoint and the result file of a sharded run, from the command line.
pub(crate) struct SplitPlan {
    pub(crate) shard: warpsearch::shard::Shard,
    pub(crate) checkpoint: Option<warpsearch::shard::CheckpointFile>,
    pub(crate) result: Option<AtomicOut>,
}

impl SplitPlan {
    pub(crate) fn new(split: &SplitArgs) -> Result<SplitPlan, Error> {
        use warpsearch::shard::{CheckpointFile, Shard};
        let shard = match &split.shard {
            Some(text) => Shard::parse(text)?,
            None => Shard::WHOLE,
        };
        Ok(SplitPlan {
            shard,
            checkpoint: split.checkpoint.clone().map(|path| CheckpointFile {
                path,
                every: std::time::Duration::from_secs(split.checkpoint_every),
            }),
            // Fail on an unwritable --result before the search, not after it.
            result: split.result.as_deref().map(AtomicOut::create).transpose()?,
        })
    }

    /// Whether this run resumes a checkpoint (its file exists).
    pub(crate) fn resumes(&self) -> bool {
        self.checkpoint.as_ref().is_some_and(|c| c.path.exists())
    }

    /// The share of the whole count this run does: 1/M for shard K/M.
    pub(crate) fn share(&self) -> f64 {
        1.0 / f64::from(self.shard.of)
    }

    /// Says how to resume an interrupted run; the result of a finished one as JSON (write it
    /// with [`SplitPlan::write_result`] once the counts are printed).
    pub(crate) fn finish<P: serde::Serialize>(
        &mut self,
        outcome: Result<warpsearch::shard::ShardResult<P>, Error>,
    ) -> Result<(warpsearch::shard::ShardResult<P>, serde_json::Value), Error> {
        let result = match outcome {
            Err(Error::Interrupted) if self.checkpoint.is_some() => {
                note!("progress saved; run the same command again to resume");
                return Err(Error::Interrupted);
            }
            other => other?,
        };
        let value =
            serde_json::to_value(&result).map_err(|e| Error::Verification(e.to_string()))?;
        Ok((result, value))
    }

    /// Writes the result file, after the counts are printed: a full disk then costs the
    /// file (an error, exit status 1), never the counts; the checkpoint stays.
    pub(crate) fn write_result(&mut self, value: &serde_json::Value) -> Result<(), Error> {
        if let Some(mut file) = self.result.take() {
            file.line(format_args!("{value:#}"))?;
            file.commit()?;
        }
        Ok(())
    }

    /// The line for a proper shard (a whole run prints its answer instead).
    pub(crate) fn report(
        &self,
        what: &str,
        value: &serde_json::Value,
        json: bool,
    ) -> Result<i32, Error> {
        if json {
            out!("{value}");
        } else {
            let chunks = value["partition"]["chunks"].as_u64().unwrap_or(0) as u32;
            out!(
                "{what} shard {}: {} chunks of {chunks} done in {}; add the shards up with `warpsearch merge FILES…`",
                self.shard,
                self.shard.chunks(chunks).count(),
                seconds(value["seconds"].as_f64().unwrap_or(0.0)),
            );
        }
        Ok(0)
    }
}

pub(crate) fn run_merge(args: MergeArgs) -> Result<i32, Error> {
    use warpsearch::shard::merge;
    // The first file says which problem; `merge` then checks that all agree.
    let problem = std::fs::read_to_string(&args.files[0])
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|value| value["partition"]["problem"].as_str().map(str::to_string))
        .unwrap_or_default();
    let backend_of = |backends: &[String]| match backends {
        [one] if one == "gpu" => "gpu",
        [_] => "cpu",
        _ => "mixed",
    };
    match problem.as_str() {
        "nqueens" | "" => {}
        "no3line" => {}
        _ => {
            // Another search's shards (one written on warpsearch's engine, e.g. with
            // `warpsearch::kit`): its counts add up field by field.
            let (partition, counts, took, backends) =
                merge::<warpsearch::shard::JsonCounts>(&args.files)?;
            let value = serde_json::json!({
                "problem": partition.problem,
                "n": partition.n,
                "counts": counts.0,
                "seconds": took,
                "backend": backend_of(&backends),
            });
            if args.json {
                out!("{value}");
            } else {
                out!(
                    "{} {}: {} (all {} shards, {})",
                    partition.problem,
                    partition.n,
                    counts.0,
                    args.files.len(),
                    seconds(took)
                );
            }
            return Ok(0);
        }
    }
    match problem.as_str() {
        "no3line" => {
            let (partition, counts, seconds, backends) =
                merge::<warpsearch::no3line::Partial>(&args.files)?;
            let counts = counts.counts(partition.n, backend_of(&backends), seconds);
            print_no3line_counts(&counts, args.json)
        }
        _ => {
            let (partition, counts, seconds, backends) = merge::<nqueens::Partial>(&args.files)?;
            if partition.problem != "nqueens" {
                return Err(Error::InvalidArgument(format!(
                    "{}: not a result of a sharded count",
                    args.files[0].display()
                )));
            }
            let counts = counts.counts(partition.n, backend_of(&backends), seconds);
            print_nqueens_counts(&counts, args.json)
        }
    }
}
