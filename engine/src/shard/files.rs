//! What a run writes and reads: the counts that add up ([`Partial`]), result files and
//! checkpoints ([`ChunkFile`]), their digests, and [`merge`] of a search's shards.

use super::*;

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
pub(crate) fn digest_0_1<P: Serialize>(
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

pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
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
        backend: &crate::device::backend::Backend,
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
