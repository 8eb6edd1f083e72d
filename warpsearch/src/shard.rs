//! What every exhaustive search shares when it is split across runs: deterministic shards,
//! result files, checkpoints that survive a kill, and merging the shards' results.
//!
//! A search's work is a fixed list of *units* (its subproblems), grouped into *chunks* of
//! consecutive units. The list depends only on the problem, its size and the program version —
//! never on the machine — and its [`Partition::fingerprint`] (BLAKE3 of the units) proves it.
//! Shard K of M takes chunks K−1, K−1+M, K−1+2M, … (strided, so shards get alike mixes of
//! large and small chunks). A chunk is the unit of progress: a checkpoint lists the chunks
//! done and their summed counts, so a resumed run redoes at most the chunks that were running
//! when it was killed, and never counts one twice.

use crate::error::{Error, Result};
use crate::run::RunControl;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The program version written into result files and checkpoints.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Part `index` (1-based) of `of` shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, 1..=`of`.
    pub index: u32,
    /// How many shards.
    pub of: u32,
}

impl Shard {
    /// The whole search as one shard.
    pub const WHOLE: Shard = Shard { index: 1, of: 1 };

    /// Shard `index` of `of`, 1 ≤ `index` ≤ `of`.
    pub fn new(index: u32, of: u32) -> Result<Shard> {
        if index == 0 || index > of {
            return Err(Error::InvalidArgument(format!(
                "a shard is K/M with 1 ≤ K ≤ M; got {index}/{of}"
            )));
        }
        Ok(Shard { index, of })
    }

    /// Parses `K/M`. A zero-based K (as Slurm's `$SLURM_ARRAY_TASK_ID` from 0 or Kubernetes'
    /// `$JOB_COMPLETION_INDEX` give) is written `K+1`; see `docs/cluster.md`.
    pub fn parse(text: &str) -> Result<Shard> {
        let bad =
            || Error::InvalidArgument(format!("--shard wants K/M with 1 ≤ K ≤ M; got {text:?}"));
        let (k, m) = text.split_once('/').ok_or_else(bad)?;
        let index = k.trim().parse().map_err(|_| bad())?;
        let of = m.trim().parse().map_err(|_| bad())?;
        Shard::new(index, of).map_err(|_| bad())
    }

    /// The chunks of `chunks` that belong to this shard, in order.
    pub fn chunks(self, chunks: u32) -> impl Iterator<Item = u32> {
        (self.index - 1..chunks).step_by(self.of as usize)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.of)
    }
}

/// The identity of a search's work list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partition {
    /// e.g. "nqueens".
    pub problem: String,
    /// The problem size.
    pub n: u32,
    /// The program version that made the list.
    pub version: String,
    /// Units in the list.
    pub units: u64,
    /// Chunks the units are grouped into.
    pub chunks: u32,
    /// BLAKE3 of the problem, size and every unit, in hex.
    pub fingerprint: String,
}

impl Partition {
    /// The partition of `units` (each unit's words in order) into `chunks` chunks.
    pub fn new(problem: &str, n: u32, units: &[impl AsRef<[u64]>], chunks: u32) -> Partition {
        let mut hasher = blake3::Hasher::new();
        hasher.update(problem.as_bytes());
        hasher.update(&n.to_le_bytes());
        hasher.update(&chunks.to_le_bytes());
        for unit in units {
            for word in unit.as_ref() {
                hasher.update(&word.to_le_bytes());
            }
        }
        Partition {
            problem: problem.into(),
            n,
            version: VERSION.into(),
            units: units.len() as u64,
            chunks,
            fingerprint: hasher.finalize().to_hex().to_string(),
        }
    }

    /// The units of chunk `chunk`: a range of indices into the list.
    pub fn chunk_range(&self, chunk: u32) -> std::ops::Range<usize> {
        let units = self.units as u128;
        let chunks = self.chunks.max(1) as u128;
        let start = units * chunk as u128 / chunks;
        let end = units * (chunk as u128 + 1) / chunks;
        start as usize..end as usize
    }

    /// The same search (problem, size, version, work list)?
    fn check_same(&self, other: &Partition, what: &str) -> Result<()> {
        let fields = [
            ("problem", self.problem.clone(), other.problem.clone()),
            ("size", self.n.to_string(), other.n.to_string()),
            (
                "program version",
                self.version.clone(),
                other.version.clone(),
            ),
            (
                "partition",
                self.fingerprint.clone(),
                other.fingerprint.clone(),
            ),
        ];
        for (name, mine, theirs) in fields {
            if mine != theirs {
                return Err(Error::InvalidArgument(format!(
                    "{what} is for another {name} ({theirs}; this run: {mine})"
                )));
            }
        }
        Ok(())
    }
}

/// Counts that add up across chunks and shards.
pub trait Partial: Clone + Default + Serialize + DeserializeOwned {
    /// Adds another part's counts.
    fn add(&mut self, other: &Self);
}

/// What one shard's run writes (`--result FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShardResult<P> {
    /// The work list it belongs to.
    pub partition: Partition,
    /// Which shard.
    pub shard: Shard,
    /// The shard's counts.
    pub counts: P,
    /// Seconds the shard took (over every resumed run).
    pub seconds: f64,
    /// "cpu" or "gpu".
    pub backend: String,
    /// The devices it ran on.
    pub devices: Vec<String>,
}

/// A run's progress, written every few seconds and on Ctrl-C (`--checkpoint FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint<P> {
    /// The work list it belongs to.
    pub partition: Partition,
    /// Which shard.
    pub shard: Shard,
    /// Chunks finished.
    pub done: BTreeSet<u32>,
    /// Their counts, summed.
    pub counts: P,
    /// Seconds spent so far, over every run.
    pub seconds: f64,
}

/// Writes `value` as JSON to `path` atomically: a temporary file in the same folder, synced,
/// renamed over `path` (a reader sees the old file or the new one, whatever moment a kill comes).
pub fn write_json_atomically(path: &Path, value: &impl Serialize) -> Result<()> {
    use std::io::Write;
    let io = |source| Error::Io {
        path: path.display().to_string(),
        source,
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".warpsearch-")
        .tempfile_in(dir)
        .map_err(io)?;
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::Verification(format!("serialising {}: {e}", path.display())))?;
    file.write_all(text.as_bytes()).map_err(io)?;
    file.write_all(b"\n").map_err(io)?;
    file.as_file().sync_all().map_err(io)?;
    file.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| {
        Error::InvalidArgument(format!(
            "{}: not a warpsearch file of this kind ({e})",
            path.display()
        ))
    })
}

/// Where and how often to save progress.
#[derive(Clone, Debug)]
pub struct CheckpointFile {
    /// The file.
    pub path: PathBuf,
    /// Seconds between two saves (a save also follows the last chunk and a Ctrl-C).
    pub every: Duration,
}

/// Runs the chunks of `shard` that `checkpoint` does not list as done and returns the shard's
/// counts and its seconds over every run.
///
/// `run_batch(chunks, report)` runs up to `batch` chunks (a GPU launch takes all of them, a
/// CPU pass one) and calls `report(chunk, counts)` as each one is finished. Progress is saved
/// to the checkpoint at most every `every` seconds as chunks are reported, after the last one,
/// and when the run fails or is stopped (Ctrl-C): chunks not reported by then are run again by
/// the next run, so none is lost or counted twice.
pub fn run_chunks<P: Partial>(
    partition: &Partition,
    shard: Shard,
    checkpoint: Option<&CheckpointFile>,
    control: &RunControl,
    batch: usize,
    mut run_batch: impl FnMut(&[u32], &mut dyn FnMut(u32, P) -> Result<()>) -> Result<()>,
) -> Result<(P, f64)> {
    let started = Instant::now();
    let mut state = Checkpoint {
        partition: partition.clone(),
        shard,
        done: BTreeSet::new(),
        counts: P::default(),
        seconds: 0.0,
    };
    if let Some(file) = checkpoint
        && file.path.exists()
    {
        let saved: Checkpoint<P> = read_json(&file.path)?;
        let what = format!("the checkpoint {}", file.path.display());
        partition.check_same(&saved.partition, &what)?;
        if saved.shard != shard {
            return Err(Error::InvalidArgument(format!(
                "{what} is for shard {}; this run is shard {shard}",
                saved.shard
            )));
        }
        state = saved;
    }
    let earlier = state.seconds;
    let todo: Vec<u32> = shard
        .chunks(partition.chunks)
        .filter(|c| !state.done.contains(c))
        .collect();
    let total = shard.chunks(partition.chunks).count() as u64;
    let progress = control.progress_bar(
        total,
        &format!("{} {} shard {shard}", partition.problem, partition.n),
    );
    progress.advance(total - todo.len() as u64);
    let save = |state: &mut Checkpoint<P>| -> Result<()> {
        if let Some(file) = checkpoint {
            state.seconds = earlier + started.elapsed().as_secs_f64();
            write_json_atomically(&file.path, state)?;
        }
        Ok(())
    };
    let mut last_save = Instant::now();
    let mut outcome = Ok(());
    for chunks in todo.chunks(batch.max(1)) {
        if control.cancelled() {
            outcome = Err(Error::Interrupted);
            break;
        }
        let mut report = |chunk: u32, counts: P| -> Result<()> {
            if !chunks.contains(&chunk) || state.done.contains(&chunk) {
                return Err(Error::Verification(format!(
                    "chunk {chunk} reported twice or outside its batch"
                )));
            }
            state.counts.add(&counts);
            state.done.insert(chunk);
            progress.advance(1);
            if checkpoint.is_some_and(|file| last_save.elapsed() >= file.every) {
                save(&mut state)?;
                last_save = Instant::now();
            }
            Ok(())
        };
        if let Err(error) = run_batch(chunks, &mut report) {
            outcome = Err(error);
            break;
        }
        if let Some(missing) = chunks.iter().find(|c| !state.done.contains(c)) {
            outcome = Err(Error::Verification(format!(
                "chunk {missing} finished without being reported"
            )));
            break;
        }
    }
    progress.finish();
    save(&mut state)?;
    outcome?;
    Ok((state.counts, earlier + started.elapsed().as_secs_f64()))
}

/// Reads shard result files and checks that they are one search's shards, each exactly once:
/// the same problem, size, version and partition, the same number of shards, none missing,
/// none twice. Returns the partition, the summed counts, the summed seconds and the backends.
pub fn merge<P: Partial>(files: &[PathBuf]) -> Result<(Partition, P, f64, Vec<String>)> {
    let Some(first_path) = files.first() else {
        return Err(Error::InvalidArgument(
            "merge needs at least one result file".into(),
        ));
    };
    let results: Vec<ShardResult<P>> = files.iter().map(|f| read_json(f)).collect::<Result<_>>()?;
    let first = &results[0];
    let of = first.shard.of;
    let mut seen: Vec<Option<&Path>> = vec![None; of as usize];
    let mut counts = P::default();
    let mut seconds = 0.0;
    let mut backends = Vec::new();
    for (result, path) in results.iter().zip(files) {
        first.partition.check_same(
            &result.partition,
            &format!("{} (beside {})", path.display(), first_path.display()),
        )?;
        if result.shard.of != of {
            return Err(Error::InvalidArgument(format!(
                "{} is shard {} but {} is shard {}: different numbers of shards",
                path.display(),
                result.shard,
                first_path.display(),
                first.shard
            )));
        }
        let slot = &mut seen[result.shard.index as usize - 1];
        if let Some(other) = slot {
            return Err(Error::InvalidArgument(format!(
                "shard {} appears twice: {} and {}",
                result.shard,
                other.display(),
                path.display()
            )));
        }
        *slot = Some(path);
        counts.add(&result.counts);
        seconds += result.seconds;
        if !backends.contains(&result.backend) {
            backends.push(result.backend.clone());
        }
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(k, _)| format!("{}/{of}", k + 1))
        .collect();
    if !missing.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "shards missing: {} (given: {})",
            missing.join(", "),
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok((first.partition.clone(), counts, seconds, backends))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Sum(u64);

    impl Partial for Sum {
        fn add(&mut self, other: &Self) {
            self.0 += other.0;
        }
    }

    fn partition() -> Partition {
        let units: Vec<[u64; 1]> = (0..1000).map(|i| [i]).collect();
        Partition::new("test", 5, &units, 37)
    }

    #[test]
    fn shards_cover_every_chunk_exactly_once() {
        for of in 1..=9 {
            let mut all: Vec<u32> = (1..=of)
                .flat_map(|k| Shard::new(k, of).unwrap().chunks(37))
                .collect();
            all.sort();
            assert_eq!(all, (0..37).collect::<Vec<_>>(), "{of} shards");
        }
        let p = partition();
        let covered: usize = (0..p.chunks).map(|c| p.chunk_range(c).len()).sum();
        assert_eq!(covered, 1000);
        assert!(
            Shard::parse("0/3").is_err()
                && Shard::parse("4/3").is_err()
                && Shard::parse("x").is_err()
        );
        assert_eq!(Shard::parse(" 2/3 ").unwrap(), Shard { index: 2, of: 3 });
    }

    #[test]
    fn a_resumed_run_counts_every_chunk_once_whenever_it_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let p = partition();
        let file = CheckpointFile {
            path: dir.path().join("ck.json"),
            every: Duration::ZERO,
        };
        let value = |c: u32| -> u64 { p.chunk_range(c).map(|u| u as u64).sum() };
        let expected: u64 = (0..1000).sum();
        for stop_after in [0, 1, 5, 36] {
            let _ = std::fs::remove_file(&file.path);
            let mut calls = 0;
            let first = run_chunks(
                &p,
                Shard::WHOLE,
                Some(&file),
                &RunControl::quiet(),
                1,
                |c, report| {
                    calls += 1;
                    if calls > stop_after {
                        return Err(Error::Interrupted);
                    }
                    report(c[0], Sum(value(c[0])))
                },
            );
            assert!(matches!(first, Err(Error::Interrupted)));
            let mut again = 0;
            // Resumed in batches of 4 chunks.
            let (sum, _) = run_chunks(
                &p,
                Shard::WHOLE,
                Some(&file),
                &RunControl::quiet(),
                37,
                |c, report| {
                    // One batch for everything left, reported chunk by chunk in another order.
                    for &chunk in c.iter().rev() {
                        again += 1;
                        report(chunk, Sum(value(chunk)))?;
                    }
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(sum.0, expected, "stopped after {stop_after}");
            assert_eq!(again, 37 - stop_after, "only the rest is run");
        }
        // A checkpoint of another search or shard is refused.
        let other = Partition::new("test", 6, &[[1u64]], 1);
        assert!(
            run_chunks::<Sum>(
                &other,
                Shard::WHOLE,
                Some(&file),
                &RunControl::quiet(),
                1,
                |_, _| Ok(())
            )
            .is_err()
        );
        assert!(
            run_chunks::<Sum>(
                &p,
                Shard::new(1, 2).unwrap(),
                Some(&file),
                &RunControl::quiet(),
                1,
                |_, _| Ok(())
            )
            .is_err()
        );
    }

    #[test]
    fn merge_needs_every_shard_once_of_one_search() {
        let dir = tempfile::tempdir().unwrap();
        let p = partition();
        let write = |name: &str, shard: Shard, partition: &Partition| {
            let path = dir.path().join(name);
            let result = ShardResult {
                partition: partition.clone(),
                shard,
                counts: Sum(shard.index as u64),
                seconds: 1.0,
                backend: "cpu".into(),
                devices: vec![],
            };
            write_json_atomically(&path, &result).unwrap();
            path
        };
        let a = write("a.json", Shard::new(1, 3).unwrap(), &p);
        let b = write("b.json", Shard::new(2, 3).unwrap(), &p);
        let c = write("c.json", Shard::new(3, 3).unwrap(), &p);
        let (_, sum, seconds, _) = merge::<Sum>(&[a.clone(), b.clone(), c.clone()]).unwrap();
        assert_eq!((sum.0, seconds), (6, 3.0));
        let message = |files: &[PathBuf]| merge::<Sum>(files).unwrap_err().to_string();
        assert!(message(&[a.clone(), b.clone()]).contains("missing: 3/3"));
        assert!(message(&[a.clone(), b.clone(), b.clone(), c.clone()]).contains("twice"));
        let other = write(
            "d.json",
            Shard::new(3, 3).unwrap(),
            &Partition::new("test", 6, &[[1u64]], 1),
        );
        assert!(message(&[a.clone(), b.clone(), other]).contains("d.json"));
        let four = write("e.json", Shard::new(3, 4).unwrap(), &p);
        assert!(message(&[a, b, four]).contains("numbers of shards"));
    }
}
