//! The work list and its split: [`Shard`], [`Partition`] (the units in chunks, with the
//! fingerprint that proves them) and [`Selection`] (which chunks a run takes).

use super::*;

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
    pub(crate) fn check_same(&self, other: &Partition, what: &str) -> Result<()> {
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
