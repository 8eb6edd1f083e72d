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

/// Appends `words` to `bytes`, little-endian: a unit's bytes in a [`Partition`]'s fingerprint.
pub fn push_words(bytes: &mut Vec<u8>, words: &[u64]) {
    for word in words {
        bytes.extend_from_slice(&word.to_le_bytes());
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
    /// BLAKE3 of the problem, size and every unit (or of what determines every unit, for a
    /// list made on demand: [`Partition::identified`]), in hex.
    pub fingerprint: String,
}

impl Partition {
    /// The partition of `units` (each unit's words in order) into `chunks` chunks. The
    /// fingerprint hashes each chunk's units (in parallel: lists reach tens of millions of
    /// units) and then the chunks' hashes in order.
    pub fn new(
        problem: &str,
        n: u32,
        units: &[impl AsRef<[u64]> + Sync],
        chunks: u32,
    ) -> Partition {
        Partition::of_units(problem, n, units, chunks, |unit, bytes| {
            push_words(bytes, unit.as_ref())
        })
    }

    /// [`Partition::new`] for units that are not word slices themselves: `unit_bytes` appends
    /// a unit's words (little-endian, as [`push_words`] writes them) to the chunk's bytes, so
    /// that no word copy of a large list is made first.
    pub fn of_units<U: Sync>(
        problem: &str,
        n: u32,
        units: &[U],
        chunks: u32,
        unit_bytes: impl Fn(&U, &mut Vec<u8>) + Sync,
    ) -> Partition {
        use rayon::prelude::*;
        let mut partition = Partition::unhashed(problem, n, units.len() as u64, chunks);
        let chunk_hashes: Vec<blake3::Hash> = (0..chunks.max(1))
            .into_par_iter()
            .map(|chunk| {
                let mut bytes = Vec::new();
                for unit in &units[partition.chunk_range(chunk)] {
                    unit_bytes(unit, &mut bytes);
                }
                blake3::hash(&bytes)
            })
            .collect();
        partition.fingerprint =
            partition.hash_with(chunk_hashes.iter().map(|hash| hash.as_bytes().as_slice()));
        partition
    }

    /// The partition into `chunks` chunks of a list of `units` units that is made on demand,
    /// identified by `identity`: bytes that determine every unit and their order (with the
    /// problem, size and program version), such as the list's generators and their unit
    /// counts. Its fingerprint hashes those bytes instead of the units.
    pub fn identified(
        problem: &str,
        n: u32,
        units: u64,
        chunks: u32,
        identity: &[u8],
    ) -> Partition {
        let mut partition = Partition::unhashed(problem, n, units, chunks);
        partition.fingerprint = partition.hash_with([identity]);
        partition
    }

    /// This program version's partition, its fingerprint still to be set.
    fn unhashed(problem: &str, n: u32, units: u64, chunks: u32) -> Partition {
        Partition {
            problem: problem.into(),
            n,
            version: VERSION.into(),
            units,
            chunks,
            fingerprint: String::new(),
        }
    }

    /// BLAKE3 of the problem, size, chunks and units, then `parts` in order, in hex.
    fn hash_with<'a>(&self, parts: impl IntoIterator<Item = &'a [u8]>) -> String {
        let mut hasher = blake3::Hasher::new();
        hasher.update(self.problem.as_bytes());
        hasher.update(&self.n.to_le_bytes());
        hasher.update(&self.chunks.to_le_bytes());
        hasher.update(&self.units.to_le_bytes());
        for part in parts {
            hasher.update(part);
        }
        hasher.finalize().to_hex().to_string()
    }

    /// The units of chunk `chunk`: a range of indices into the list.
    pub fn chunk_range(&self, chunk: u32) -> std::ops::Range<usize> {
        let units = self.units as u128;
        let chunks = self.chunks.max(1) as u128;
        let start = units * chunk as u128 / chunks;
        let end = units * (chunk as u128 + 1) / chunks;
        start as usize..end as usize
    }

    /// The same work list: problem, size, units, chunks and fingerprint, whichever program
    /// versions made the two. Files of an earlier version whose list this version makes again
    /// are merged, verified and resumed like its own.
    pub fn same_work_list(&self, other: &Partition) -> bool {
        (
            &self.problem,
            self.n,
            self.units,
            self.chunks,
            &self.fingerprint,
        ) == (
            &other.problem,
            other.n,
            other.units,
            other.chunks,
            &other.fingerprint,
        )
    }

    /// The same search (problem, size, work list)?
    fn check_same(&self, other: &Partition, what: &str) -> Result<()> {
        let list = |p: &Partition| {
            format!(
                "{} units in {} chunks, fingerprint {}, made by version {}",
                p.units, p.chunks, p.fingerprint, p.version
            )
        };
        let differs = [
            (
                "problem",
                self.problem != other.problem,
                self.problem.clone(),
                other.problem.clone(),
            ),
            (
                "size",
                self.n != other.n,
                self.n.to_string(),
                other.n.to_string(),
            ),
            (
                "work list",
                !self.same_work_list(other),
                list(self),
                list(other),
            ),
        ];
        for (name, differs, mine, theirs) in differs {
            if differs {
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
    /// The nodes searched, for per-device reports (`u128`: a record-size search passes
    /// 2⁶⁴ nodes, N = 28 queens ≈ 3·10¹⁹).
    fn nodes(&self) -> u128;
    /// Whether [`Partial::add`] is the search's own rule, so that a file's counts must be its
    /// chunks' sum by it: true for a search's own type; false for [`JsonCounts`], which adds
    /// any search's fields up as numbers (a ruler's marks too).
    const OWN_RULE: bool = true;
}

/// The counts of any search as its result file holds them (JSON), for merging shards of a
/// search this crate does not know: numbers add up field by field (integers exactly, others
/// as floating point), objects and arrays element by element; other values must agree.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JsonCounts(pub serde_json::Value);

impl JsonCounts {
    fn add_values(sum: &mut serde_json::Value, other: &serde_json::Value) {
        use serde_json::Value;
        match (&mut *sum, other) {
            (Value::Null, _) => *sum = other.clone(),
            (Value::Number(a), Value::Number(b)) => {
                // Integers exactly, past 64 bits too (serde_json keeps a number's digits).
                let exact = |n: &serde_json::Number| n.to_string().parse::<u128>().ok();
                *sum = match (exact(a), exact(b)) {
                    (Some(a), Some(b)) => a
                        .checked_add(b)
                        .and_then(|sum| serde_json::to_value(sum).ok())
                        .unwrap_or_else(|| Value::from(a as f64 + b as f64)),
                    _ => Value::from(a.as_f64().unwrap_or(0.0) + b.as_f64().unwrap_or(0.0)),
                }
            }
            (Value::Object(a), Value::Object(b)) => {
                for (key, value) in b {
                    Self::add_values(a.entry(key.clone()).or_insert(Value::Null), value);
                }
            }
            (Value::Array(a), Value::Array(b)) => {
                for (i, value) in b.iter().enumerate() {
                    if i < a.len() {
                        Self::add_values(&mut a[i], value);
                    } else {
                        a.push(value.clone());
                    }
                }
            }
            _ => {}
        }
    }
}

impl Partial for JsonCounts {
    const OWN_RULE: bool = false;
    fn add(&mut self, other: &Self) {
        Self::add_values(&mut self.0, &other.0);
    }
    /// The field `nodes` when there is one.
    fn nodes(&self) -> u128 {
        match &self.0["nodes"] {
            serde_json::Value::Number(n) => n.to_string().parse().unwrap_or(0),
            _ => 0,
        }
    }
}

/// One chunk's counts in a result file or a checkpoint, with the device that computed it:
/// what `warpsearch verify` recounts and compares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkCount<P> {
    /// The chunk.
    pub index: u32,
    /// Its counts.
    pub counts: P,
    /// The worker that ran it, as [`DeviceShare::device`].
    pub device: String,
}

/// What one shard's run writes (`--result FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShardResult<P> {
    /// The work list it belongs to.
    pub partition: Partition,
    /// Which shard.
    pub shard: Shard,
    /// The shard's counts: its chunks' counts added up in chunk order.
    pub counts: P,
    /// Seconds the shard took (over every resumed run).
    pub seconds: f64,
    /// "cpu" or "gpu".
    pub backend: String,
    /// The devices it ran on.
    pub devices: Vec<String>,
    /// What each device did in the shard's last run.
    #[serde(default)]
    pub per_device: Vec<DeviceShare>,
    /// Devices that failed in the shard's last run and were dropped from it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
    /// Every chunk of the shard with its counts, in chunk order.
    pub chunks: Vec<ChunkCount<P>>,
    /// BLAKE3 over the partition, the shard and `chunks` ([`digest`]): a file edited by hand,
    /// or cut short, no longer matches it.
    pub digest: String,
}

/// A run's progress, written every few seconds and on Ctrl-C (`--checkpoint FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint<P> {
    /// The work list it belongs to.
    pub partition: Partition,
    /// Which shard.
    pub shard: Shard,
    /// The chunks finished so far, in chunk order, each with its counts.
    pub chunks: Vec<ChunkCount<P>>,
    /// Their counts, added up in chunk order.
    pub counts: P,
    /// Seconds spent so far, over every run.
    pub seconds: f64,
    /// As [`ShardResult::digest`].
    pub digest: String,
}

/// What [`merge`], [`crate::verify`] and resumed runs read of a result file or a checkpoint: the
/// fields both kinds have.
#[derive(Clone, Debug, Deserialize)]
pub struct ChunkFile<P> {
    /// The work list.
    pub partition: Partition,
    /// Which shard.
    pub shard: Shard,
    /// The chunks it holds.
    pub chunks: Vec<ChunkCount<P>>,
    /// Their sum.
    pub counts: P,
    /// Over the chunks.
    pub digest: String,
    /// Seconds spent on them, over every run.
    #[serde(default)]
    pub seconds: f64,
}

/// BLAKE3 over `partition`'s fingerprint, `shard`, `chunks` and `counts` (as JSON), in hex:
/// the digest of a result file or a checkpoint. It finds edits and damage, not forgery:
/// anyone can recompute it (a second, differently chunked run and `warpsearch verify` are the
/// checks against a faulty device; `docs/cluster.md`).
pub fn digest<P: Serialize>(
    partition: &Partition,
    shard: Shard,
    chunks: &[ChunkCount<P>],
    counts: &P,
) -> Result<String> {
    let mut hasher = blake3::Hasher::new();
    hasher.update(partition.fingerprint.as_bytes());
    hasher.update(&shard.index.to_le_bytes());
    hasher.update(&shard.of.to_le_bytes());
    // Through a `serde_json::Value`, whose objects sort their keys: a search's own counts type
    // and `JsonCounts` (which `warpsearch merge` reads any search's files as) then digest the
    // same bytes, whatever order the type declares its fields in.
    let json = serde_json::to_value((chunks, counts))
        .and_then(|value| serde_json::to_vec(&value))
        .map_err(|e| Error::Verification(format!("serialising the chunk list: {e}")))?;
    hasher.update(&json);
    Ok(hasher.finalize().to_hex().to_string())
}

/// The digest as version 0.1.0 took it, for its files: over the fingerprint, the shard and the
/// chunk list as its types serialise it (fields in their declared order), without the counts
/// (which [`ChunkFile::read`] checks against the chunks' sum in any case).
fn digest_0_1<P: Serialize>(
    partition: &Partition,
    shard: Shard,
    chunks: &[ChunkCount<P>],
) -> Result<String> {
    let mut hasher = blake3::Hasher::new();
    hasher.update(partition.fingerprint.as_bytes());
    hasher.update(&shard.index.to_le_bytes());
    hasher.update(&shard.of.to_le_bytes());
    let json = serde_json::to_vec(chunks)
        .map_err(|e| Error::Verification(format!("serialising the chunk list: {e}")))?;
    hasher.update(&json);
    Ok(hasher.finalize().to_hex().to_string())
}

/// The counts of `chunks` added up in their order (chunk order in every file), so that the
/// sum of a shard is the same whatever order its chunks finished in.
pub fn sum_of<P: Partial>(chunks: &[ChunkCount<P>]) -> P {
    let mut sum = P::default();
    for chunk in chunks {
        sum.add(&chunk.counts);
    }
    sum
}

impl<P: Partial> ChunkFile<P> {
    /// Reads a result file or a checkpoint and checks it is whole: its digest matches its
    /// chunks, its chunks are its shard's (each once, in order; all of them with
    /// `complete`), and its counts are their sum. The errors name the file.
    pub fn read(path: &Path, complete: bool) -> Result<ChunkFile<P>> {
        // A file of another version is read as this version's when its format is the same (its
        // work list is compared where it is used). One that does not parse may be of a format
        // before chunk lists and digests: say so rather than how it differs.
        let file: ChunkFile<P> = read_json(path).map_err(|error| {
            let version = std::fs::read_to_string(path)
                .ok()
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                .and_then(|value| value["partition"]["version"].as_str().map(String::from));
            match version {
                Some(version) if version != VERSION => Error::InvalidArgument(format!(
                    "{} was written by warpsearch {version} in a format this version ({VERSION}) cannot read ({error}): use {version} with it",
                    path.display()
                )),
                _ => error,
            }
        })?;
        file.check(&path.display().to_string(), complete)?;
        Ok(file)
    }

    fn check(&self, name: &str, complete: bool) -> Result<()> {
        let refuse = |why: String| {
            Err(Error::DamagedFile(format!(
                "{name}: {why}; the file was edited or damaged, and is refused"
            )))
        };
        let expected = if self.partition.version == "0.1.0" {
            digest_0_1(&self.partition, self.shard, &self.chunks)?
        } else {
            digest(&self.partition, self.shard, &self.chunks, &self.counts)?
        };
        if expected != self.digest {
            return refuse("its digest does not match its chunks and counts".into());
        }
        let mine: BTreeSet<u32> = self.shard.chunks(self.partition.chunks).collect();
        let mut last = None;
        for chunk in &self.chunks {
            if !mine.contains(&chunk.index) || last.is_some_and(|l| l >= chunk.index) {
                return refuse(format!(
                    "chunk {} is not one of shard {}'s or is out of order",
                    chunk.index, self.shard
                ));
            }
            last = Some(chunk.index);
        }
        if complete && self.chunks.len() != mine.len() {
            return refuse(format!(
                "it holds {} of shard {}'s {} chunks",
                self.chunks.len(),
                self.shard,
                mine.len()
            ));
        }
        let json = |p: &P| serde_json::to_value(p).ok();
        if P::OWN_RULE && json(&sum_of(&self.chunks)) != json(&self.counts) {
            return refuse("its counts are not the sum of its chunks".into());
        }
        Ok(())
    }
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

/// What one worker of a run (a GPU, or the CPU pool) did: per-device figures for `--json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceShare {
    /// The worker, as "GPU 1 (NVIDIA H200)" or "CPU, 16 threads".
    pub device: String,
    /// Chunks it ran.
    pub chunks: u32,
    /// Units (subproblems) in them.
    pub units: u64,
    /// Nodes it searched.
    pub nodes: u128,
    /// Seconds it was busy.
    pub seconds: f64,
}

/// A device that failed during a run and was dropped from it: the run went on without it, and
/// the chunks it had not finished were counted again by the others.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Fault {
    /// The device, as [`DeviceShare::device`].
    pub device: String,
    /// What went wrong.
    pub error: String,
    /// The chunks it held unfinished, handed to the other devices.
    pub recounted: Vec<u32>,
}

/// What [`run_chunks`] returns: the shard's counts, its seconds over every run, and each
/// worker's share of this run.
#[derive(Clone, Debug)]
pub struct ChunkRun<P> {
    /// The shard's counts (chunks of earlier runs included), added up in chunk order.
    pub counts: P,
    /// Each chunk's counts, in chunk order.
    pub chunks: Vec<ChunkCount<P>>,
    /// Seconds over every run.
    pub seconds: f64,
    /// Each worker's part of this run.
    pub shares: Vec<DeviceShare>,
    /// The devices that failed and were dropped, and the chunks counted again elsewhere.
    pub faults: Vec<Fault>,
}

impl<P: Serialize> ChunkRun<P> {
    /// The result file's content for shard `shard` of `partition`, run on `backend`.
    pub fn into_result(
        self,
        partition: Partition,
        shard: Shard,
        backend: &crate::backend::Backend,
    ) -> Result<ShardResult<P>> {
        Ok(ShardResult {
            digest: digest(&partition, shard, &self.chunks, &self.counts)?,
            partition,
            shard,
            counts: self.counts,
            seconds: self.seconds,
            backend: backend.kind().into(),
            devices: vec![backend.describe()],
            per_device: self.shares,
            faults: self.faults,
            chunks: self.chunks,
        })
    }
}

/// Which chunks of a work list a run takes: a shard's, or a list of them (a sample that
/// `warpsearch verify` recounts, or an estimate's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Shard K of M ([`Shard::WHOLE`]: every chunk).
    Shard(Shard),
    /// These chunks.
    Chunks(BTreeSet<u32>),
}

impl From<Shard> for Selection {
    fn from(shard: Shard) -> Selection {
        Selection::Shard(shard)
    }
}

impl Selection {
    /// Its chunks of a list of `chunks`, in order.
    pub fn chunks(&self, chunks: u32) -> Vec<u32> {
        match self {
            Selection::Shard(shard) => shard.chunks(chunks).collect(),
            Selection::Chunks(list) => list.range(..chunks).copied().collect(),
        }
    }

    /// Whether chunk 0 is among them (it carries what the host counts itself).
    pub fn has_chunk_0(&self) -> bool {
        match self {
            Selection::Shard(shard) => shard.index == 1,
            Selection::Chunks(list) => list.contains(&0),
        }
    }
}

/// Who runs the chunks: one worker per name (a GPU lane each, or the CPU pool), each taking
/// at most `max_batch` chunks at a time.
#[derive(Clone, Debug)]
pub struct Workers {
    /// One name per worker, as [`DeviceShare::device`] (the lanes of one GPU share a name,
    /// and their shares are added up).
    pub names: Vec<String>,
    /// The most chunks a worker takes at once (a GPU launch takes a batch; the CPU one chunk).
    pub max_batch: usize,
    /// Each chunk's estimated work, when the search can tell: chunks are then handed out
    /// heaviest first, so that the run ends on light chunks. A run spread over several GPUs
    /// ends when its last chunks do, and a heavy chunk handed out last keeps one GPU busy
    /// while the others idle. `None`: in the partition's order.
    pub weights: Option<Vec<f64>>,
    /// A fault to inject, for tests and drills ([`Workers::of`] reads [`FAULT_VARIABLE`]).
    pub fault: Option<Injected>,
    /// When a silent worker is reported, and dropped ([`Workers::of`] reads
    /// [`HANG_LIMIT_VARIABLE`]).
    pub hang: HangPolicy,
}

/// The environment variable that sets [`HangPolicy::limit`] in seconds: a device that finishes
/// no chunk for that long while it holds some is taken for hung, dropped from the run, and its
/// chunks go to the other devices.
pub const HANG_LIMIT_VARIABLE: &str = "WARPSEARCH_HANG_LIMIT";

/// How a run tells a hung device (a kernel that never finishes, a lost device the driver does
/// not report) from a slow chunk. A worker is *silent* while it holds unfinished chunks and
/// has reported none since it last took or reported one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HangPolicy {
    /// A worker silent for `warn_factor` times the run's typical time between one worker's
    /// chunks (and at least `warn_after`) is reported once, as possibly hung.
    pub warn_factor: f64,
    /// See `warn_factor`.
    pub warn_after: Duration,
    /// A worker silent this long is dropped: asked to stop, its unfinished chunks counted by
    /// the others. `None`: never (the default, since a record's chunks can take days).
    pub limit: Option<Duration>,
}

impl Default for HangPolicy {
    fn default() -> HangPolicy {
        HangPolicy {
            warn_factor: 10.0,
            warn_after: Duration::from_secs(60),
            limit: None,
        }
    }
}

impl HangPolicy {
    /// The default, with the limit [`HANG_LIMIT_VARIABLE`] sets (seconds; unset, empty or not a
    /// positive number: no limit).
    pub fn from_env() -> HangPolicy {
        let limit = std::env::var(HANG_LIMIT_VARIABLE)
            .ok()
            .and_then(|text| text.trim().parse::<f64>().ok())
            .filter(|seconds| seconds.is_finite() && *seconds > 0.0)
            .map(Duration::from_secs_f64);
        HangPolicy {
            limit,
            ..HangPolicy::default()
        }
    }
}

impl Workers {
    /// Chunks the next batch of a worker takes when `left` are left. One worker takes everything up to `max_batch` (a launch's tail
    /// is paid once per batch); several take shrinking shares (guided self-scheduling: half of
    /// what is left divided among the workers), so a worker that finishes early takes more
    /// and all finish together, with no fixed ratios.
    fn next_batch(&self, left: usize) -> usize {
        let workers = self.names.len().max(1);
        let share = if workers == 1 {
            left
        } else {
            left.div_ceil(2 * workers)
        };
        share.clamp(1, self.max_batch.max(1)).min(left)
    }
}

impl Workers {
    /// These workers, handing out chunks heaviest first by `weights` (one per chunk of the
    /// partition; see [`Workers::weights`]).
    pub fn with_weights(self, weights: Vec<f64>) -> Workers {
        Workers {
            weights: Some(weights),
            ..self
        }
    }

    /// `chunks` in the order they are handed out: heaviest first when every chunk has a
    /// weight (ties and the rest in the partition's order), else as they are.
    fn order(&self, mut chunks: Vec<u32>) -> Vec<u32> {
        if let Some(weights) = &self.weights {
            let weight = |c: &u32| weights.get(*c as usize).copied();
            if chunks.iter().all(|c| weight(c).is_some_and(f64::is_finite)) {
                chunks.sort_by(|a, b| {
                    weight(b)
                        .unwrap_or(0.0)
                        .total_cmp(&weight(a).unwrap_or(0.0))
                });
            }
        }
        chunks
    }

    /// The workers of `backend`: every GPU (each runs one fed launch for the whole run, or
    /// launches of its own), or the CPU pool taking one chunk at a time (so its checkpoints
    /// follow every chunk).
    pub fn of(backend: &crate::backend::Backend) -> Workers {
        match backend {
            crate::backend::Backend::Cpu(_) => Workers {
                names: vec![backend.describe()],
                max_batch: 1,
                weights: None,
                fault: Injected::from_env(),
                hang: HangPolicy::from_env(),
            },
            crate::backend::Backend::Gpu(gpus) => Workers {
                names: gpus.all().iter().map(|d| d.label()).collect(),
                max_batch: usize::MAX,
                weights: None,
                fault: Injected::from_env(),
                hang: HangPolicy::from_env(),
            },
        }
    }
}

/// Names the GPU in an error of a run spread over several GPUs (a one-GPU run's errors stay as
/// they are; a stop caused by another GPU's failure stays [`Error::Interrupted`]).
pub fn on_device(gpus: &crate::gpu::Gpus, device: &crate::gpu::GpuDevice, error: Error) -> Error {
    match error {
        Error::Interrupted => error,
        _ if gpus.len() == 1 => error,
        error => Error::OnDevice {
            device: device.label(),
            source: Box::new(error),
        },
    }
}

/// Where one worker of [`run_chunks`] gets its chunks.
pub struct ChunkSource<'a> {
    take: &'a (dyn Fn(Option<usize>) -> Result<Vec<u32>> + Sync),
}

impl ChunkSource<'_> {
    /// The next batch by the run's policy (see [`Workers`]); empty once none is left or the
    /// run is stopping.
    pub fn batch(&self) -> Result<Vec<u32>> {
        (self.take)(None)
    }

    /// Up to `count` chunks; empty once none is left or the run is stopping.
    pub fn take(&self, count: usize) -> Result<Vec<u32>> {
        (self.take)(Some(count))
    }
}

/// Where the chunks of a run stand: shared by its workers.
struct Ledger<P> {
    /// Chunks finished (earlier runs' too), each with its counts.
    done: std::collections::BTreeMap<u32, ChunkCount<P>>,
    last_save: Instant,
    /// The next chunk of the to-do list to hand out.
    next: usize,
    /// Which worker each chunk was handed to.
    owner: Vec<Option<usize>>,
    shares: Vec<DeviceShare>,
    failure: Option<Error>,
    /// A checkpoint save has failed (the warning is printed once; later saves are tried).
    save_failed: bool,
    /// Chunks of failed workers, handed out again before the rest of the list.
    requeued: Vec<u32>,
    /// Workers that failed and are out of the run.
    dropped: Vec<bool>,
    faults: Vec<Fault>,
    /// Chunks each worker has reported in this run (for [`Injected`] faults).
    reported: Vec<u32>,
    /// When each worker last took or reported a chunk (its silence starts there).
    last_heard: Vec<Instant>,
    /// Workers reported as possibly hung, and those dropped as hung (with their silence).
    warned: Vec<bool>,
    hung: Vec<Option<Duration>>,
}

impl<P: Partial> Ledger<P> {
    /// The finished chunks in chunk order.
    fn chunks(&self) -> Vec<ChunkCount<P>> {
        self.done.values().cloned().collect()
    }
}

/// The environment variable that injects a device fault, for tests and drills: `K:M` makes
/// worker K (0-based, in the order the run lists its devices; each GPU lane is one) fail when
/// it reports its (M+1)-th chunk, as a lost device or a failed copy would; `K:M:hang` makes it
/// hang there instead (it reports nothing more until it is asked to stop), as a kernel that
/// never finishes would.
pub const FAULT_VARIABLE: &str = "WARPSEARCH_FAULT";

/// A device fault to inject ([`FAULT_VARIABLE`]): worker `worker` fails (or hangs) when it
/// reports its chunk number `after + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Injected {
    /// The worker (0-based, in [`Workers::names`]' order).
    pub worker: usize,
    /// Chunks it reports before it fails.
    pub after: u32,
    /// Hang instead of failing: the report waits until the worker is asked to stop.
    pub hang: bool,
}

impl Injected {
    /// The fault [`FAULT_VARIABLE`] asks for, if it is set and reads `K:M` or `K:M:hang`.
    pub fn from_env() -> Option<Injected> {
        Injected::parse(&std::env::var(FAULT_VARIABLE).ok()?)
    }

    /// `K:M` (fail) or `K:M:hang`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Injected> {
        let mut parts = text.split(':').map(str::trim);
        let worker = parts.next()?.parse().ok()?;
        let after = parts.next()?.parse().ok()?;
        let hang = match parts.next() {
            None => false,
            Some("hang") => true,
            Some(_) => return None,
        };
        Some(Injected {
            worker,
            after,
            hang,
        })
    }
}

/// `error` without the [`Error::OnDevice`] layers that name `device` again (the caller names it).
fn without_device(error: Error, device: &str) -> Error {
    match error {
        Error::OnDevice {
            device: named,
            source,
        } if named == device => without_device(*source, device),
        error => error,
    }
}

/// The watchdog's look at the run: a worker of `alive` that holds unfinished chunks and has
/// been silent past the warning threshold is reported once; past the limit it is marked hung
/// and asked to stop (its own stop), and the run then drops it when it returns.
fn look_for_hangs<P>(
    ledger: &mut Ledger<P>,
    alive: &[usize],
    todo: &[u32],
    workers: &Workers,
    own_stops: &[(RunControl, std::sync::Arc<std::sync::atomic::AtomicBool>)],
    progress: &crate::run::Progress,
    started: Instant,
) {
    let policy = workers.hang;
    let reports: u32 = ledger.reported.iter().sum();
    let running = alive.iter().filter(|&&w| !ledger.dropped[w]).count().max(1);
    // The typical time between one worker's chunks, once some are in.
    let typical = (reports > 0).then(|| {
        started
            .elapsed()
            .mul_f64(running as f64 / f64::from(reports))
    });
    let warn_at = typical
        .map_or(policy.warn_after, |t| t.mul_f64(policy.warn_factor))
        .max(policy.warn_after);
    for &w in alive {
        if ledger.dropped[w] || ledger.hung[w].is_some() {
            continue;
        }
        let holds = todo
            .iter()
            .any(|&c| ledger.owner[c as usize] == Some(w) && !ledger.done.contains_key(&c));
        let silent = ledger.last_heard[w].elapsed();
        if !holds {
            continue;
        }
        let device = &workers.names[w];
        if silent > warn_at && !ledger.warned[w] {
            ledger.warned[w] = true;
            let typical = typical.map_or(String::new(), |t| {
                format!(" (typically {:.1} s between its chunks)", t.as_secs_f64())
            });
            let limit = policy.limit.map_or(
                format!("; set {HANG_LIMIT_VARIABLE}=SECONDS to drop a device that stays silent"),
                |l| format!("; it is dropped at {:.0} s", l.as_secs_f64()),
            );
            progress.note(&format!(
                "warning: {device} has finished no chunk for {:.0} s{typical}: it may be hung{limit}",
                silent.as_secs_f64()
            ));
        }
        if let Some(limit) = policy.limit
            && silent > limit
        {
            ledger.hung[w] = Some(silent);
            own_stops[w]
                .1
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Runs the chunks of `selection` that `checkpoint` does not list as done and returns the
/// counts, the seconds over every run, each chunk's counts, and what each worker did.
///
/// Each worker (a thread per name in `workers`) calls `run_worker(worker, source, control,
/// report)` once; it takes chunks from `source` (in batches by the run's policy, or as many as
/// it wants at a time: a GPU fed while its kernel runs) until none is left, runs them, and
/// calls `report(chunk, counts)` as each one is finished. Progress is saved to the checkpoint at most every
/// `every` seconds as chunks are reported, after the last one, and when the run fails or is
/// stopped (Ctrl-C): chunks not reported by then are run again by the next run, so none is
/// lost or counted twice. When one worker fails, the others are stopped through `control`
/// and the first failure is returned. A checkpoint is kept only for a shard's run.
pub fn run_chunks<P: Partial + Send>(
    partition: &Partition,
    selection: impl Into<Selection>,
    checkpoint: Option<&CheckpointFile>,
    control: &RunControl,
    workers: &Workers,
    run_worker: impl Fn(usize, &ChunkSource, &RunControl, &dyn Fn(u32, P) -> Result<()>) -> Result<()>
    + Sync,
) -> Result<ChunkRun<P>> {
    let started = Instant::now();
    let selection = selection.into();
    let shard = match (&selection, checkpoint) {
        (Selection::Shard(shard), _) => *shard,
        (Selection::Chunks(_), None) => Shard::WHOLE,
        (Selection::Chunks(_), Some(_)) => {
            return Err(Error::InvalidArgument(
                "a checkpoint is kept for a shard's run, not for a list of chunks".into(),
            ));
        }
    };
    let mut done = std::collections::BTreeMap::new();
    let mut earlier = 0.0;
    if let Some(file) = checkpoint
        && file.path.exists()
    {
        let saved: ChunkFile<P> = ChunkFile::read(&file.path, false)?;
        let what = format!("the checkpoint {}", file.path.display());
        partition.check_same(&saved.partition, &what)?;
        if saved.shard != shard {
            return Err(Error::InvalidArgument(format!(
                "{what} is for shard {}; this run is shard {shard}",
                saved.shard
            )));
        }
        earlier = saved.seconds;
        done = saved.chunks.into_iter().map(|c| (c.index, c)).collect();
    }
    let mine = selection.chunks(partition.chunks);
    let todo: Vec<u32> = workers.order(
        mine.iter()
            .copied()
            .filter(|c| !done.contains_key(c))
            .collect(),
    );
    let total = mine.len() as u64;
    let label = match &selection {
        Selection::Shard(Shard::WHOLE) => format!("{} {}", partition.problem, partition.n),
        Selection::Shard(shard) => format!("{} {} shard {shard}", partition.problem, partition.n),
        Selection::Chunks(_) => format!("{} {}, {total} chunks", partition.problem, partition.n),
    };
    let progress = control.progress_bar(total, &label);
    progress.advance(total - todo.len() as u64);
    let save = |ledger: &Ledger<P>| -> Result<()> {
        if let Some(file) = checkpoint {
            let chunks = ledger.chunks();
            let counts = sum_of(&chunks);
            let state = Checkpoint {
                partition: partition.clone(),
                shard,
                digest: digest(partition, shard, &chunks, &counts)?,
                counts,
                chunks,
                seconds: earlier + started.elapsed().as_secs_f64(),
            };
            write_json_atomically(&file.path, &state)?;
        }
        Ok(())
    };
    let ledger = std::sync::Mutex::new(Ledger {
        done,
        last_save: Instant::now(),
        next: 0,
        owner: vec![None; partition.chunks as usize],
        shares: workers
            .names
            .iter()
            .map(|name| DeviceShare {
                device: name.clone(),
                ..DeviceShare::default()
            })
            .collect(),
        failure: None,
        save_failed: false,
        requeued: Vec::new(),
        dropped: vec![false; workers.names.len()],
        faults: Vec::new(),
        reported: vec![0; workers.names.len()],
        last_heard: vec![Instant::now(); workers.names.len()],
        warned: vec![false; workers.names.len()],
        hung: vec![None; workers.names.len()],
    });

    let injected = workers.fault;
    let lock = || {
        ledger
            .lock()
            .map_err(|_| Error::Verification("a worker thread panicked".into()))
    };
    let (stoppable, stop) = control.child();
    // Each worker's own stop (it also stops with the run), for dropping it alone when it hangs.
    let own_stops: Vec<(RunControl, std::sync::Arc<std::sync::atomic::AtomicBool>)> =
        workers.names.iter().map(|_| stoppable.child()).collect();
    let worker = |index: usize| -> Result<()> {
        let own = &own_stops[index].0;
        // Hands this worker chunks: `Some(k)` up to k, `None` a batch by the guided policy.
        let take = |count: Option<usize>| -> Result<Vec<u32>> {
            if own.cancelled() {
                return Ok(Vec::new());
            }
            let mut ledger = lock()?;
            if ledger.dropped[index] {
                return Ok(Vec::new());
            }
            // A failed worker's chunks first: they are the ones the run waits on.
            let requeued = ledger.requeued.len();
            let batch = if requeued > 0 {
                let take = match count {
                    Some(count) => count.min(requeued),
                    None => workers.next_batch(requeued),
                };
                ledger.requeued.drain(..take).collect()
            } else {
                let left = todo.len() - ledger.next;
                let take = match count {
                    Some(count) => count.min(left),
                    None => workers.next_batch(left),
                };
                let batch = todo[ledger.next..ledger.next + take].to_vec();
                ledger.next += take;
                batch
            };
            for &chunk in &batch {
                ledger.owner[chunk as usize] = Some(index);
            }
            if !batch.is_empty() {
                ledger.last_heard[index] = Instant::now();
            }
            Ok(batch)
        };
        let report = |chunk: u32, counts: P| -> Result<()> {
            let mut ledger = lock()?;
            if ledger.owner.get(chunk as usize) != Some(&Some(index))
                || ledger.done.contains_key(&chunk)
            {
                return Err(Error::Verification(format!(
                    "chunk {chunk} reported twice or by a worker it was not given to"
                )));
            }
            if let Some(fault) = injected.filter(|f| f.worker == index)
                && ledger.reported[index] >= fault.after
            {
                if fault.hang {
                    // A kernel that never finishes: nothing more is reported until the run
                    // asks this worker to stop.
                    drop(ledger);
                    while !own.cancelled() {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    return Err(Error::Interrupted);
                }
                return Err(Error::OnDevice {
                    device: workers.names[index].clone(),
                    source: Box::new(Error::Verification(format!(
                        "a fault injected by {FAULT_VARIABLE} after {} chunks",
                        fault.after
                    ))),
                });
            }
            ledger.reported[index] += 1;
            ledger.last_heard[index] = Instant::now();
            let share = &mut ledger.shares[index];
            share.chunks += 1;
            share.units += partition.chunk_range(chunk).len() as u64;
            share.nodes += counts.nodes();
            let device = share.device.clone();
            ledger.done.insert(
                chunk,
                ChunkCount {
                    index: chunk,
                    counts,
                    device,
                },
            );
            progress.advance(1);
            if checkpoint.is_some_and(|file| ledger.last_save.elapsed() >= file.every) {
                // A failed save (a full disk) must not stop a long count: warn once, go on,
                // and try again at the next interval.
                if let Err(error) = save(&ledger)
                    && !std::mem::replace(&mut ledger.save_failed, true)
                {
                    progress.note(&format!(
                        "warning: could not save the checkpoint ({error}); the count goes on, and the save is tried again every interval"
                    ));
                }
                ledger.last_save = Instant::now();
            }
            Ok(())
        };
        let busy = Instant::now();
        let outcome = run_worker(index, &ChunkSource { take: &take }, own, &report);
        let mut ledger = lock()?;
        ledger.shares[index].seconds += busy.elapsed().as_secs_f64();
        // A worker the watchdog took for hung failed, whatever it returned once stopped.
        let outcome = match (ledger.hung[index], workers.hang.limit) {
            (Some(silent), Some(limit)) => Err(Error::Hung {
                seconds: silent.as_secs_f64(),
                limit: limit.as_secs_f64(),
            }),
            _ => outcome,
        };
        let outcome = outcome.and_then(|()| {
            let mine = |c: &u32| ledger.owner[*c as usize] == Some(index);
            match todo
                .iter()
                .filter(|c| mine(c))
                .find(|c| !ledger.done.contains_key(c))
            {
                Some(missing) => Err(Error::Verification(format!(
                    "chunk {missing} finished without being reported"
                ))),
                None => Ok(()),
            }
        });
        let survivors = (0..workers.names.len())
            .filter(|&w| w != index && !ledger.dropped[w])
            .count();
        match outcome {
            Err(error)
                if !matches!(error, Error::Interrupted)
                    && survivors > 0
                    && !stoppable.cancelled() =>
            {
                // A failing device is dropped, not the run: its unfinished chunks go to the
                // others, and the run ends exact without it.
                ledger.dropped[index] = true;
                let unfinished: Vec<u32> = todo
                    .iter()
                    .copied()
                    .filter(|&c| {
                        ledger.owner[c as usize] == Some(index) && !ledger.done.contains_key(&c)
                    })
                    .collect();
                for &chunk in &unfinished {
                    ledger.owner[chunk as usize] = None;
                }
                ledger.requeued.extend(&unfinished);
                let device = workers.names[index].clone();
                let error = without_device(error, &device);
                progress.note(&format!(
                    "warning: {device} failed ({error}); it is dropped from the run, and its {} unfinished chunks go to the other devices",
                    unfinished.len()
                ));
                ledger.faults.push(Fault {
                    device,
                    error: error.to_string(),
                    recounted: unfinished,
                });
                return Ok(());
            }
            _ => {}
        }
        if let Err(mut error) = outcome {
            if !ledger.faults.is_empty() && !matches!(error, Error::Interrupted) {
                // The last device of the run failed too.
                let mut devices: Vec<String> = ledger
                    .faults
                    .iter()
                    .map(|f| format!("{}: {}", f.device, f.error))
                    .collect();
                devices.push(format!("{}: {error}", workers.names[index]));
                error = Error::DevicesFailed(devices.join("; "));
            }
            // The first real failure wins over the others' "interrupted".
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            let replace = match (&ledger.failure, &error) {
                (None, _) => true,
                (Some(Error::Interrupted), e) => !matches!(e, Error::Interrupted),
                _ => false,
            };
            if replace {
                ledger.failure = Some(error);
            }
        }
        Ok(())
    };
    let worker = &worker;
    // Rounds: a worker that fails after the others have emptied the list leaves its chunks
    // for another round of the workers still in the run.
    let mut joined: Vec<Result<()>> = Vec::new();
    loop {
        let alive: Vec<usize> = {
            let ledger = lock()?;
            (0..workers.names.len())
                .filter(|&w| !ledger.dropped[w])
                .collect()
        };
        joined.extend(std::thread::scope(|scope| {
            let handles: Vec<_> = alive
                .iter()
                .map(|&index| scope.spawn(move || worker(index)))
                .collect();
            // The watchdog: while the workers run, look for silent ones.
            let tick = Duration::from_millis(50).min(workers.hang.warn_after / 4);
            while !handles.iter().all(|h| h.is_finished()) {
                std::thread::sleep(tick);
                if let Ok(mut ledger) = ledger.lock() {
                    look_for_hangs(
                        &mut ledger,
                        &alive,
                        &todo,
                        workers,
                        &own_stops,
                        &progress,
                        started,
                    );
                }
            }
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::Verification("a worker panicked".into())))
                })
                .collect::<Vec<_>>()
        }));
        let mut ledger = lock()?;
        let anyone_left = ledger.dropped.iter().any(|d| !d);
        if ledger.requeued.is_empty() || ledger.failure.is_some() || control.cancelled() {
            break;
        }
        if !anyone_left {
            let devices: Vec<String> = ledger
                .faults
                .iter()
                .map(|f| format!("{}: {}", f.device, f.error))
                .collect();
            ledger.failure = Some(Error::DevicesFailed(devices.join("; ")));
            break;
        }
    }
    progress.finish();
    let ledger = ledger
        .into_inner()
        .map_err(|_| Error::Verification("a worker thread panicked".into()))?;
    for fault in &ledger.faults {
        progress.note(&format!(
            "{} failed and was dropped ({}); chunks counted again on the other devices: {:?}",
            fault.device, fault.error, fault.recounted
        ));
    }
    if let Err(error) = save(&ledger) {
        // A finished count is still returned (and printed by the caller); a stopped one can
        // resume only from the last save that worked.
        progress.note(&format!(
            "warning: could not save the checkpoint at the end of the run ({error}); a resumed run starts from the last save that worked"
        ));
    }
    joined.into_iter().collect::<Result<()>>()?;
    if let Some(failure) = ledger.failure {
        return Err(failure);
    }
    let chunks: Vec<ChunkCount<P>> = mine
        .iter()
        .filter_map(|c| ledger.done.get(c).cloned())
        .collect();
    if control.cancelled() || chunks.len() < mine.len() {
        return Err(Error::Interrupted);
    }
    // The lanes of one GPU are one device in the report: work added up, the busier lane's
    // seconds (they ran side by side).
    let mut shares: Vec<DeviceShare> = Vec::new();
    for share in ledger.shares {
        match shares.iter_mut().find(|s| s.device == share.device) {
            Some(same) => {
                same.chunks += share.chunks;
                same.units += share.units;
                same.nodes += share.nodes;
                same.seconds = same.seconds.max(share.seconds);
            }
            None => shares.push(share),
        }
    }
    Ok(ChunkRun {
        counts: sum_of(&chunks),
        chunks,
        seconds: earlier + started.elapsed().as_secs_f64(),
        shares,
        faults: ledger.faults,
    })
}

/// Reads shard result files and checks that they are one search's shards, each exactly once:
/// the same problem, size, version and partition, the same number of shards, none missing,
/// none twice, and each file whole ([`ChunkFile::read`]: its digest, its chunks, its sum).
/// Returns the partition, the summed counts, the summed seconds and the backends.
pub fn merge<P: Partial>(files: &[PathBuf]) -> Result<(Partition, P, f64, Vec<String>)> {
    let Some(first_path) = files.first() else {
        return Err(Error::InvalidArgument(
            "merge needs at least one result file".into(),
        ));
    };
    // Each file whole first: its errors say what is wrong with it (another version's format
    // included) better than a failed parse as a result file does.
    for file in files {
        ChunkFile::<P>::read(file, true)?;
    }
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

    #[test]
    fn json_counts_add_up_field_by_field() {
        let mut sum = JsonCounts::default();
        for part in [
            serde_json::json!({"solutions": 3, "nodes": 10, "classes": [1, 2], "rate": 0.5}),
            serde_json::json!({"solutions": 4, "nodes": 5, "classes": [1, 0, 7], "rate": 0.25}),
        ] {
            sum.add(&JsonCounts(part));
        }
        assert_eq!(
            sum.0,
            serde_json::json!({"solutions": 7, "nodes": 15, "classes": [2, 2, 7], "rate": 0.75})
        );
        assert_eq!(sum.nodes(), 15);
    }
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Sum(u64);

    impl Partial for Sum {
        fn add(&mut self, other: &Self) {
            self.0 += other.0;
        }
        fn nodes(&self) -> u128 {
            self.0.into()
        }
    }

    fn workers(count: usize, max_batch: usize) -> Workers {
        Workers {
            names: (0..count).map(|i| format!("worker {i}")).collect(),
            max_batch,
            weights: None,
            fault: None,
            hang: HangPolicy::default(),
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
            let calls = AtomicUsize::new(0);
            let first = run_chunks(
                &p,
                Shard::WHOLE,
                Some(&file),
                &RunControl::quiet(),
                &workers(1, 1),
                |_, source, _, report| loop {
                    let c = source.batch()?;
                    if c.is_empty() {
                        return Ok(());
                    }
                    if calls.fetch_add(1, Ordering::Relaxed) >= stop_after {
                        return Err(Error::Interrupted);
                    }
                    report(c[0], Sum(value(c[0])))?;
                },
            );
            assert!(matches!(first, Err(Error::Interrupted)));
            let again = AtomicUsize::new(0);
            // Resumed by three workers taking batches of up to 4 chunks each.
            let run = run_chunks(
                &p,
                Shard::WHOLE,
                Some(&file),
                &RunControl::quiet(),
                &workers(3, 4),
                |worker, source, _, report| loop {
                    // Worker 0 feeds itself two at a time, the others take batches.
                    let c = match worker {
                        0 => source.take(2)?,
                        _ => source.batch()?,
                    };
                    if c.is_empty() {
                        return Ok(());
                    }
                    // Reported chunk by chunk in another order.
                    for &chunk in c.iter().rev() {
                        again.fetch_add(1, Ordering::Relaxed);
                        report(chunk, Sum(value(chunk)))?;
                    }
                },
            )
            .unwrap();
            assert_eq!(run.counts.0, expected, "stopped after {stop_after}");
            assert_eq!(again.into_inner(), 37 - stop_after, "only the rest is run");
            let shared: u32 = run.shares.iter().map(|s| s.chunks).sum();
            assert_eq!(shared as usize, 37 - stop_after);
        }
        // A checkpoint of another search or shard is refused.
        let other = Partition::new("test", 6, &[[1u64]], 1);
        assert!(
            run_chunks::<Sum>(
                &other,
                Shard::WHOLE,
                Some(&file),
                &RunControl::quiet(),
                &workers(1, 1),
                |_, _, _, _| Ok(())
            )
            .is_err()
        );
        assert!(
            run_chunks::<Sum>(
                &p,
                Shard::new(1, 2).unwrap(),
                Some(&file),
                &RunControl::quiet(),
                &workers(1, 1),
                |_, _, _, _| Ok(())
            )
            .is_err()
        );
    }

    /// A worker that fails mid-run is dropped: its unfinished chunks go to the others, and
    /// the run ends exact, naming it and the chunks counted again.
    #[test]
    fn a_failing_worker_is_dropped_and_the_run_ends_exact() {
        let p = partition();
        // The others wait until worker 2 has failed, so that it gets its chunks whatever the
        // threads' timing.
        let failed = std::sync::atomic::AtomicBool::new(false);
        let run = run_chunks::<Sum>(
            &p,
            Shard::WHOLE,
            None,
            &RunControl::quiet(),
            &workers(4, 2),
            |worker, source, control, report| {
                let mut ran = 0;
                loop {
                    let chunks = source.batch()?;
                    if chunks.is_empty() {
                        return Ok(());
                    }
                    for &chunk in &chunks {
                        if control.cancelled() {
                            return Err(Error::Interrupted);
                        }
                        // Worker 2 fails on its third chunk, holding the rest of its batch.
                        if worker == 2 && ran == 2 {
                            failed.store(true, Ordering::Relaxed);
                            return Err(Error::SearchLimit("worker 2 broke".into()));
                        }
                        while worker != 2 && !failed.load(Ordering::Relaxed) {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        std::thread::sleep(Duration::from_millis(2));
                        report(chunk, Sum(u64::from(chunk)))?;
                        ran += 1;
                    }
                }
            },
        )
        .unwrap();
        assert_eq!(run.counts.0, (0..37).sum::<u64>(), "every chunk once");
        assert_eq!(run.chunks.len(), 37);
        assert_eq!(run.faults.len(), 1, "{:?}", run.faults);
        assert_eq!(run.faults[0].device, "worker 2");
        assert!(run.faults[0].error.contains("worker 2 broke"));
        assert!(!run.faults[0].recounted.is_empty());
        for chunk in &run.faults[0].recounted {
            assert_ne!(run.chunks[*chunk as usize].device, "worker 2");
        }
    }

    /// When every worker fails, the run stops with an error that names them, and the chunks
    /// finished before are in the checkpoint.
    #[test]
    fn when_every_worker_fails_the_run_stops_and_keeps_its_checkpoint() {
        let p = partition();
        let dir = tempfile::tempdir().unwrap();
        let file = CheckpointFile {
            path: dir.path().join("ck.json"),
            every: Duration::from_secs(3600),
        };
        let outcome = run_chunks::<Sum>(
            &p,
            Shard::WHOLE,
            Some(&file),
            &RunControl::quiet(),
            &workers(3, 1),
            |worker, source, _, report| {
                let mut ran = 0;
                loop {
                    let chunks = source.batch()?;
                    if chunks.is_empty() {
                        return Ok(());
                    }
                    if ran == 3 {
                        return Err(Error::SearchLimit(format!("worker {worker} broke")));
                    }
                    report(chunks[0], Sum(1))?;
                    ran += 1;
                }
            },
        );
        match outcome {
            Err(Error::DevicesFailed(all)) => {
                assert!(
                    (0..3).all(|w| all.contains(&format!("worker {w} broke"))),
                    "{all}"
                )
            }
            other => panic!("{:?}", other.map(|r| r.counts)),
        }
        let saved: ChunkFile<Sum> = ChunkFile::read(&file.path, false).unwrap();
        assert_eq!(
            saved.chunks.len(),
            9,
            "three chunks from each worker before it failed"
        );
    }

    /// An injected fault (as `WARPSEARCH_FAULT=1:5` asks) drops worker 1 at its sixth report;
    /// the run still counts every chunk once.
    #[test]
    fn an_injected_fault_drops_its_worker_and_the_run_ends_exact() {
        let p = partition();
        let mut three = workers(3, 1);
        three.fault = Some(Injected {
            worker: 1,
            after: 5,
            hang: false,
        });
        // The others wait until worker 1 has met its fault, so that it gets its six chunks
        // whatever the threads' timing.
        let failed = std::sync::atomic::AtomicBool::new(false);
        let run = run_chunks::<Sum>(
            &p,
            Shard::WHOLE,
            None,
            &RunControl::quiet(),
            &three,
            |worker, source, _, report| loop {
                let chunks = source.batch()?;
                if chunks.is_empty() {
                    return Ok(());
                }
                while worker != 1 && !failed.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let reported = report(chunks[0], Sum(u64::from(chunks[0])));
                if reported.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                reported?;
            },
        )
        .unwrap();
        assert_eq!(run.counts.0, (0..37).sum::<u64>());
        assert_eq!(run.faults.len(), 1);
        assert!(
            run.faults[0].error.contains(FAULT_VARIABLE),
            "{:?}",
            run.faults
        );
        let by_one = run.chunks.iter().filter(|c| c.device == "worker 1").count();
        assert_eq!(by_one, 5, "worker 1 reported five chunks before its fault");
        assert_eq!(run.faults[0].recounted.len(), 1, "the chunk it held");
    }

    #[test]
    fn a_fault_is_read_as_worker_chunks_and_an_optional_hang() {
        let fault = |worker, after, hang| {
            Some(Injected {
                worker,
                after,
                hang,
            })
        };
        assert_eq!(Injected::parse("1:5"), fault(1, 5, false));
        assert_eq!(Injected::parse(" 0 : 64 :hang"), fault(0, 64, true));
        assert_eq!(Injected::parse("1:5:slow"), None);
        assert_eq!(Injected::parse("1"), None);
    }

    /// A worker that hangs (as `WARPSEARCH_FAULT=1:3:hang` asks) is taken for hung once it has
    /// been silent past the limit, asked to stop and dropped; its chunk is counted by another.
    #[test]
    fn a_hung_worker_is_dropped_at_the_limit_and_the_run_ends_exact() {
        let p = partition();
        let mut three = workers(3, 1);
        three.fault = Some(Injected {
            worker: 1,
            after: 3,
            hang: true,
        });
        three.hang = HangPolicy {
            warn_factor: 10.0,
            warn_after: Duration::from_millis(20),
            limit: Some(Duration::from_secs(1)),
        };
        let run = run_chunks::<Sum>(
            &p,
            Shard::WHOLE,
            None,
            &RunControl::quiet(),
            &three,
            |_, source, _, report| loop {
                let chunks = source.batch()?;
                if chunks.is_empty() {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(2));
                report(chunks[0], Sum(u64::from(chunks[0])))?;
            },
        )
        .unwrap();
        assert_eq!(run.counts.0, (0..37).sum::<u64>());
        assert_eq!(run.faults.len(), 1, "{:?}", run.faults);
        assert_eq!(run.faults[0].device, "worker 1");
        assert!(
            run.faults[0].error.contains("taken for hung"),
            "{:?}",
            run.faults
        );
        assert_eq!(run.faults[0].recounted.len(), 1, "the chunk it hung on");
        let by_one = run.chunks.iter().filter(|c| c.device == "worker 1").count();
        assert_eq!(by_one, 3, "worker 1 reported three chunks before it hung");
    }

    /// A slow chunk past the warning threshold but within no limit is only reported: the run
    /// ends with no fault.
    #[test]
    fn a_slow_worker_without_a_limit_is_warned_about_not_dropped() {
        let p = partition();
        let mut two = workers(2, 1);
        two.hang = HangPolicy {
            warn_factor: 10.0,
            warn_after: Duration::from_millis(10),
            limit: None,
        };
        let run = run_chunks::<Sum>(
            &p,
            Shard::WHOLE,
            None,
            &RunControl::quiet(),
            &two,
            |worker, source, _, report| loop {
                let chunks = source.batch()?;
                if chunks.is_empty() {
                    return Ok(());
                }
                if worker == 0 && chunks[0] == 0 {
                    std::thread::sleep(Duration::from_millis(150));
                }
                report(chunks[0], Sum(u64::from(chunks[0])))?;
            },
        )
        .unwrap();
        assert_eq!(run.counts.0, (0..37).sum::<u64>());
        assert!(run.faults.is_empty(), "{:?}", run.faults);
    }

    #[test]
    fn guided_batches_shrink_as_the_list_empties() {
        // Guided batches: several workers share the chunks, batches shrink.
        let w = workers(2, usize::MAX);
        assert_eq!(w.next_batch(256), 64);
        assert_eq!(w.next_batch(3), 1);
        assert_eq!(workers(1, usize::MAX).next_batch(256), 256);
        assert_eq!(workers(1, 1).next_batch(256), 1);
    }

    #[test]
    fn weighted_chunks_are_handed_out_heaviest_first_and_each_once() {
        let p = partition();
        // Chunk c weighs (c · 7) mod 37: a permutation of 0..37.
        let weights: Vec<f64> = (0..37).map(|c| ((c * 7) % 37) as f64).collect();
        let handed = std::sync::Mutex::new(Vec::new());
        let run = run_chunks(
            &p,
            Shard::WHOLE,
            None,
            &RunControl::quiet(),
            &workers(1, 1).with_weights(weights.clone()),
            |_, source, _, report| loop {
                let c = source.batch()?;
                if c.is_empty() {
                    return Ok(());
                }
                handed.lock().unwrap().push(c[0]);
                report(c[0], Sum(1))?;
            },
        )
        .unwrap();
        assert_eq!(run.counts.0, 37);
        let handed = handed.into_inner().unwrap();
        let handed_weights: Vec<f64> = handed.iter().map(|&c| weights[c as usize]).collect();
        let expected: Vec<f64> = (0..37).rev().map(f64::from).collect();
        assert_eq!(handed_weights, expected);
        // Weights that do not cover every chunk leave the partition's order.
        let w = workers(1, 1).with_weights(vec![1.0, 2.0]);
        assert_eq!(w.order(vec![0, 1, 2]), vec![0, 1, 2]);
        assert_eq!(w.order(vec![0, 1]), vec![1, 0]);
    }

    #[test]
    fn merge_needs_every_shard_once_of_one_search() {
        let dir = tempfile::tempdir().unwrap();
        let p = partition();
        let write = |name: &str, shard: Shard, partition: &Partition| {
            let path = dir.path().join(name);
            let chunks: Vec<ChunkCount<Sum>> = shard
                .chunks(partition.chunks)
                .map(|index| ChunkCount {
                    index,
                    counts: Sum(index as u64),
                    device: "cpu".into(),
                })
                .collect();
            let counts = sum_of(&chunks);
            let result = ShardResult {
                partition: partition.clone(),
                shard,
                seconds: 1.0,
                backend: "cpu".into(),
                devices: vec![],
                per_device: vec![],
                faults: vec![],
                digest: digest(partition, shard, &chunks, &counts).unwrap(),
                counts,
                chunks,
            };
            write_json_atomically(&path, &result).unwrap();
            path
        };
        let a = write("a.json", Shard::new(1, 3).unwrap(), &p);
        let b = write("b.json", Shard::new(2, 3).unwrap(), &p);
        let c = write("c.json", Shard::new(3, 3).unwrap(), &p);
        let (_, sum, seconds, _) = merge::<Sum>(&[a.clone(), b.clone(), c.clone()]).unwrap();
        assert_eq!((sum.0, seconds), ((0..37).sum(), 3.0));
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
        assert!(message(&[a.clone(), b.clone(), four]).contains("numbers of shards"));
        // A file edited by hand is refused, by name: a chunk's count, the sum, a chunk
        // dropped (with its digest recomputed), or the digest itself.
        let edit = |name: &str, change: &dyn Fn(&mut serde_json::Value)| {
            let mut value: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&c).unwrap()).unwrap();
            change(&mut value);
            let path = dir.path().join(name);
            std::fs::write(&path, value.to_string()).unwrap();
            message(&[a.clone(), b.clone(), path])
        };
        let chunk = edit("chunk.json", &|v| v["chunks"][1]["counts"] = 1000.into());
        assert!(
            chunk.contains("chunk.json") && chunk.contains("digest"),
            "{chunk}"
        );
        let sum = edit("sum.json", &|v| v["counts"] = 7.into());
        assert!(sum.contains("sum.json") && sum.contains("digest"), "{sum}");
        let resummed = edit("resummed.json", &|v| {
            let chunks: Vec<ChunkCount<Sum>> = serde_json::from_value(v["chunks"].clone()).unwrap();
            v["counts"] = 7.into();
            v["digest"] = digest(&p, Shard::new(3, 3).unwrap(), &chunks, &Sum(7))
                .unwrap()
                .into();
        });
        assert!(resummed.contains("not the sum"), "{resummed}");
        let short = edit("short.json", &|v| {
            let mut chunks: Vec<ChunkCount<Sum>> =
                serde_json::from_value(v["chunks"].clone()).unwrap();
            chunks.pop();
            let counts = sum_of(&chunks);
            v["counts"] = serde_json::to_value(&counts).unwrap();
            v["digest"] = digest(&p, Shard::new(3, 3).unwrap(), &chunks, &counts)
                .unwrap()
                .into();
            v["chunks"] = serde_json::to_value(chunks).unwrap();
        });
        assert!(
            short.contains("short.json") && short.contains("holds 11 of"),
            "{short}"
        );
        // A file of another version with the same work list merges like this version's; one
        // in a format this version cannot read names its version.
        let old_path = dir.path().join("old-version.json");
        let mut old: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&c).unwrap()).unwrap();
        old["partition"]["version"] = "0.0.1".into();
        std::fs::write(&old_path, old.to_string()).unwrap();
        let (_, sum, _, _) = merge::<Sum>(&[a.clone(), b.clone(), old_path]).unwrap();
        assert_eq!(sum.0, (0..37).sum::<u64>());
        let old_format = edit("old-format.json", &|v| {
            v["partition"]["version"] = "0.0.1".into();
            v["done"] = v["chunks"].take();
            v.as_object_mut().unwrap().remove("chunks");
        });
        assert!(
            old_format.contains("written by warpsearch 0.0.1 in a format"),
            "{old_format}"
        );
        let digest = edit("digest.json", &|v| v["digest"] = "00".into());
        assert!(digest.contains("digest.json"), "{digest}");
    }

    /// A search's own counts type, its fields not in alphabetical order, and `JsonCounts`
    /// (how `warpsearch merge` reads any search's file) find the same digest.
    #[test]
    fn a_file_digests_the_same_read_as_its_type_or_as_json() {
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        struct Two {
            zeta: u64,
            alpha: u64,
        }
        impl Partial for Two {
            fn add(&mut self, other: &Self) {
                self.zeta += other.zeta;
                self.alpha += other.alpha;
            }
            fn nodes(&self) -> u128 {
                self.zeta.into()
            }
        }
        let p = partition();
        let shard = Shard::new(2, 5).unwrap();
        let chunks: Vec<ChunkCount<Two>> = shard
            .chunks(p.chunks)
            .map(|index| ChunkCount {
                index,
                counts: Two {
                    zeta: index as u64,
                    alpha: 1,
                },
                device: "GPU 0".into(),
            })
            .collect();
        let counts = sum_of(&chunks);
        let result = ShardResult {
            partition: p.clone(),
            shard,
            seconds: 1.0,
            backend: "gpu".into(),
            devices: vec![],
            per_device: vec![],
            faults: vec![],
            digest: digest(&p, shard, &chunks, &counts).unwrap(),
            counts,
            chunks,
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two.json");
        write_json_atomically(&path, &result).unwrap();
        assert!(ChunkFile::<Two>::read(&path, true).is_ok());
        assert!(ChunkFile::<JsonCounts>::read(&path, true).is_ok());
    }

    #[test]
    fn json_counts_add_past_64_bits_exactly() {
        let big = u64::MAX as u128;
        let mut sum = JsonCounts(serde_json::json!({"nodes": u64::MAX}));
        sum.add(&JsonCounts(serde_json::json!({"nodes": u64::MAX})));
        assert_eq!(sum.nodes(), 2 * big);
        assert_eq!(sum.0["nodes"].to_string(), (2 * big).to_string());
    }

    #[test]
    fn a_list_of_chunks_runs_those_chunks_only() {
        let p = partition();
        let list: BTreeSet<u32> = [3, 17, 36].into();
        let run = run_chunks(
            &p,
            Selection::Chunks(list.clone()),
            None,
            &RunControl::quiet(),
            &workers(2, 2),
            |_, source, _, report| loop {
                let c = source.batch()?;
                if c.is_empty() {
                    return Ok(());
                }
                for chunk in c {
                    report(chunk, Sum(chunk as u64))?;
                }
            },
        )
        .unwrap();
        let indices: Vec<u32> = run.chunks.iter().map(|c| c.index).collect();
        assert_eq!(indices, vec![3, 17, 36]);
        assert_eq!(run.counts.0, 56);
        let dir = tempfile::tempdir().unwrap();
        let file = CheckpointFile {
            path: dir.path().join("ck.json"),
            every: Duration::ZERO,
        };
        assert!(
            run_chunks::<Sum>(
                &p,
                Selection::Chunks(list),
                Some(&file),
                &RunControl::quiet(),
                &workers(1, 1),
                |_, _, _, _| Ok(())
            )
            .is_err()
        );
    }
}
