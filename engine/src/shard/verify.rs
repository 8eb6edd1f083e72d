//! Recounting chunks of a finished run on other devices and comparing them chunk by chunk:
//! `warpsearch verify`.
//!
//! A record run takes weeks on many GPUs, and one faulty GPU or node can add a wrong count
//! that nothing else notices (for sizes without a known value the total cannot be checked).
//! Result files and checkpoints therefore keep every chunk's counts and the device that
//! computed them ([`crate::shard::ChunkCount`]). Verifying recounts a seeded random sample of
//! those chunks, or chosen ones, on whatever devices the user picks, and names each chunk
//! whose recount differs and the device that first computed it. A sample of a fraction `p`
//! of the chunks finds a faulty device that touched `k` chunks with probability about
//! `1 − (1 − p)^k` (docs/cluster.md).

use crate::error::{Error, Result};
use crate::shard::{ChunkCount, ChunkFile, ChunkRun, Partial, Partition};
use rand::SeedableRng;
use rand::seq::IteratorRandom;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The chunks that the files given to verify hold, each with the file it came from.
#[derive(Clone, Debug)]
pub struct Held<P> {
    /// The work list the files belong to.
    pub partition: Partition,
    /// Every chunk held, by index: its counts and device, and the file.
    pub chunks: BTreeMap<u32, (ChunkCount<P>, PathBuf)>,
}

impl<P: Partial> Held<P> {
    /// Reads result files or checkpoints of one run (each checked whole: its digest, its
    /// chunks, its sum, [`ChunkFile::read`]) and gathers their chunks. Files of different
    /// work lists, or two files holding one chunk, are refused.
    pub fn read(files: &[PathBuf]) -> Result<Held<P>> {
        let mut partition: Option<(Partition, &Path)> = None;
        let mut chunks: BTreeMap<u32, (ChunkCount<P>, PathBuf)> = BTreeMap::new();
        for path in files {
            let file: ChunkFile<P> = ChunkFile::read(path, false)?;
            match &partition {
                None => partition = Some((file.partition.clone(), path)),
                Some((first, first_path)) if !first.same_work_list(&file.partition) => {
                    return Err(Error::InvalidArgument(format!(
                        "{} and {} are of different runs (problem, size or work list)",
                        first_path.display(),
                        path.display()
                    )));
                }
                Some(_) => {}
            }
            for chunk in file.chunks {
                if let Some((_, other)) = chunks.get(&chunk.index) {
                    return Err(Error::InvalidArgument(format!(
                        "chunk {} is in both {} and {}: give each chunk once",
                        chunk.index,
                        other.display(),
                        path.display()
                    )));
                }
                chunks.insert(chunk.index, (chunk, path.to_path_buf()));
            }
        }
        let Some((partition, _)) = partition else {
            return Err(Error::InvalidArgument(
                "verify needs at least one result file or checkpoint".into(),
            ));
        };
        Ok(Held { partition, chunks })
    }

    /// A seeded random sample of the held chunks: `fraction` of them (0 < fraction ≤ 1),
    /// rounded up, so at least one. The same files and seed give the same sample.
    pub fn sample(&self, fraction: f64, seed: u64) -> Result<BTreeSet<u32>> {
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(Error::InvalidArgument(format!(
                "a sample is a fraction of the chunks above 0 and at most 1 (or 100%); got {fraction}"
            )));
        }
        let wanted = ((self.chunks.len() as f64 * fraction).ceil() as usize).max(1);
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        Ok(self
            .chunks
            .keys()
            .copied()
            .choose_multiple(&mut rng, wanted)
            .into_iter()
            .collect())
    }

    /// Checks that every chunk of `chunks` is held (a recount compares with a file).
    pub fn check_held(&self, chunks: &BTreeSet<u32>) -> Result<()> {
        let missing: Vec<String> = chunks
            .iter()
            .filter(|c| !self.chunks.contains_key(c))
            .map(u32::to_string)
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "chunks {} are not in the files given (they hold {} of {} chunks)",
                missing.join(", "),
                self.chunks.len(),
                self.partition.chunks
            )))
        }
    }

    /// Compares a recount with the held chunks: one [`Difference`] per chunk whose counts
    /// differ (as JSON) or that the recount lacks.
    pub fn compare(&self, recount: &[ChunkCount<P>]) -> Vec<Difference> {
        let json = |p: &P| serde_json::to_value(p).unwrap_or(serde_json::Value::Null);
        let by_index: BTreeMap<u32, &ChunkCount<P>> =
            recount.iter().map(|c| (c.index, c)).collect();
        let mut differences = Vec::new();
        for (index, again) in &by_index {
            let Some((held, file)) = self.chunks.get(index) else {
                continue;
            };
            let (recorded, recounted) = (json(&held.counts), json(&again.counts));
            if recorded != recounted {
                differences.push(Difference {
                    chunk: *index,
                    file: file.display().to_string(),
                    device: held.device.clone(),
                    recorded,
                    recount_device: again.device.clone(),
                    recounted,
                });
            }
        }
        differences
    }
}

/// The share of the chunks a verify recounts when neither a sample nor a list is given.
pub const DEFAULT_SAMPLE: f64 = 0.01;

/// Exit status of a verify that found a chunk whose recount differs.
pub const EXIT_DIFFERENT: u8 = 3;

/// Which chunks a verify recounts.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The chunks.
    pub chunks: BTreeSet<u32>,
    /// For a sample: its fraction and seed.
    pub sample: Option<(f64, u64)>,
}

impl<P: Partial> Held<P> {
    /// The chunks to recount: `chunks` (`--chunks 3,17,40-45`, each held), else a sample of
    /// `sample` (`--sample 1%`, default [`DEFAULT_SAMPLE`]) drawn with `seed`.
    pub fn plan(&self, sample: Option<&str>, chunks: Option<&str>, seed: u64) -> Result<Plan> {
        match chunks {
            Some(list) => {
                let chunks = parse_chunks(list)?;
                self.check_held(&chunks)?;
                Ok(Plan {
                    chunks,
                    sample: None,
                })
            }
            None => {
                let fraction = sample.map_or(Ok(DEFAULT_SAMPLE), parse_fraction)?;
                Ok(Plan {
                    chunks: self.sample(fraction, seed)?,
                    sample: Some((fraction, seed)),
                })
            }
        }
    }

    /// The line said before a recount: what is recounted where.
    pub fn announce(&self, plan: &Plan, backend: &str) -> String {
        let list: Vec<String> = plan.chunks.iter().map(u32::to_string).collect();
        format!(
            "verify {} {}: recounting {} of the {} chunks held ({} in the work list){} on {backend}: {}",
            self.partition.problem,
            self.partition.n,
            plan.chunks.len(),
            self.chunks.len(),
            self.partition.chunks,
            match plan.sample {
                Some((_, seed)) => format!(", seed {seed}"),
                None => String::new(),
            },
            list.join(", ")
        )
    }

    /// Recounts `plan`'s chunks with `recount` (on the devices described by `backend`), timed,
    /// and compares them with the held chunks ([`Held::report`]).
    pub fn recount(
        &self,
        plan: &Plan,
        backend: &str,
        recount: impl FnOnce(BTreeSet<u32>) -> Result<(ChunkRun<P>, Partition)>,
    ) -> Result<Report> {
        let started = std::time::Instant::now();
        let (run, partition) = recount(plan.chunks.clone())?;
        self.report(
            plan,
            (&run.chunks, &partition),
            backend,
            started.elapsed().as_secs_f64(),
        )
    }

    /// Compares a recount (`recount`, of the work list `recounted`, on `backend`, in
    /// `seconds`) with the held chunks. A recount of another work list (another program
    /// version or setting) is an error, not a difference.
    pub fn report(
        &self,
        plan: &Plan,
        (recount, recounted): (&[ChunkCount<P>], &Partition),
        backend: &str,
        seconds: f64,
    ) -> Result<Report> {
        let partition = &self.partition;
        if !recounted.same_work_list(partition) {
            return Err(Error::InvalidArgument(format!(
                "this binary makes another work list for {} {} (version {}, fingerprint {}) than the files' (version {}, fingerprint {}): verify with the version that ran it",
                partition.problem,
                partition.n,
                recounted.version,
                recounted.fingerprint,
                partition.version,
                partition.fingerprint
            )));
        }
        let differences = self.compare(recount);
        Ok(Report {
            problem: partition.problem.clone(),
            n: partition.n,
            seed: plan.sample.map(|(_, seed)| seed),
            sample: plan.sample.map(|(fraction, _)| fraction),
            chunks: recount.iter().map(|c| c.index).collect(),
            chunks_held: self.chunks.len(),
            chunks_total: partition.chunks,
            backend: backend.into(),
            nodes: recount.iter().map(|c| c.counts.nodes()).sum(),
            seconds,
            equal: differences.is_empty(),
            differences,
        })
    }
}

/// What a verify found: `--json` prints it as it is.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The problem.
    pub problem: String,
    /// Its size.
    pub n: u32,
    /// The sample's seed (none for a list of chunks).
    pub seed: Option<u64>,
    /// The sample's fraction.
    pub sample: Option<f64>,
    /// The chunks recounted.
    pub chunks: Vec<u32>,
    /// Chunks the files hold.
    pub chunks_held: usize,
    /// Chunks of the work list.
    pub chunks_total: u32,
    /// Where the recount ran.
    pub backend: String,
    /// Nodes recounted.
    pub nodes: u128,
    /// Seconds the recount took.
    pub seconds: f64,
    /// Whether every chunk recounted is equal.
    pub equal: bool,
    /// Each chunk that differs.
    pub differences: Vec<Difference>,
}

impl Report {
    /// The text lines: one per chunk that differs, then the summary.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .differences
            .iter()
            .map(|d| {
                format!(
                    "chunk {} DIFFERS: {} holds {} (computed on {}); recounted {} on {}",
                    d.chunk, d.file, d.recorded, d.device, d.recounted, d.recount_device
                )
            })
            .collect();
        lines.push(format!(
            "verify {} {}: {} chunks recounted ({:.1} % of the work list's {}) in {:.3} s, {} nodes: {}",
            self.problem,
            self.n,
            self.chunks.len(),
            100.0 * self.chunks.len() as f64 / f64::from(self.chunks_total.max(1)),
            self.chunks_total,
            self.seconds,
            self.nodes,
            if self.equal {
                "all equal".to_string()
            } else {
                format!("{} DIFFER", self.differences.len())
            }
        ));
        lines
    }
}

/// A chunk whose recount differs from the file's counts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    /// The chunk.
    pub chunk: u32,
    /// The file that holds it.
    pub file: String,
    /// The device that first computed it (as the file says).
    pub device: String,
    /// Its counts in the file.
    pub recorded: serde_json::Value,
    /// The device of the recount.
    pub recount_device: String,
    /// Its counts recounted.
    pub recounted: serde_json::Value,
}

/// Parses `--sample`: a fraction (`0.01`) or a percentage (`1%`).
pub fn parse_fraction(text: &str) -> Result<f64> {
    let bad = || {
        Error::InvalidArgument(format!(
            "--sample wants a fraction such as 0.01 or a percentage such as 1%; got {text:?}"
        ))
    };
    let fraction = match text.trim().strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().map_err(|_| bad())? / 100.0,
        None => text.trim().parse::<f64>().map_err(|_| bad())?,
    };
    if fraction > 0.0 && fraction <= 1.0 {
        Ok(fraction)
    } else {
        Err(bad())
    }
}

/// Parses `--chunks`: indices and ranges, `3,17,40-45`.
pub fn parse_chunks(text: &str) -> Result<BTreeSet<u32>> {
    let bad = |part: &str| {
        Error::InvalidArgument(format!(
            "--chunks wants chunk indices and ranges such as 3,17,40-45; {part:?} is neither"
        ))
    };
    let mut chunks = BTreeSet::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let a: u32 = a.trim().parse().map_err(|_| bad(part))?;
                let b: u32 = b.trim().parse().map_err(|_| bad(part))?;
                if a > b {
                    return Err(bad(part));
                }
                chunks.extend(a..=b);
            }
            None => {
                chunks.insert(part.parse().map_err(|_| bad(part))?);
            }
        }
    }
    if chunks.is_empty() {
        return Err(bad(text));
    }
    Ok(chunks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::{Shard, digest, sum_of, write_json_atomically};

    #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Count(u64);

    impl Partial for Count {
        fn add(&mut self, other: &Self) {
            self.0 += other.0;
        }
        fn nodes(&self) -> u128 {
            self.0.into()
        }
    }

    fn write(dir: &Path, name: &str, shard: Shard, partition: &Partition) -> PathBuf {
        let chunks: Vec<ChunkCount<Count>> = shard
            .chunks(partition.chunks)
            .map(|index| ChunkCount {
                index,
                counts: Count(10 * index as u64),
                device: format!("GPU {}", shard.index),
            })
            .collect();
        let path = dir.join(name);
        let counts = sum_of(&chunks);
        let value = serde_json::json!({
            "partition": partition,
            "shard": shard,
            "digest": digest(partition, shard, &chunks, &counts).unwrap(),
            "counts": counts,
            "chunks": chunks,
        });
        write_json_atomically(&path, &value).unwrap();
        path
    }

    #[test]
    fn samples_are_seeded_and_differences_name_the_chunk_file_and_device() {
        let dir = tempfile::tempdir().unwrap();
        let units: Vec<[u64; 1]> = (0..100).map(|i| [i]).collect();
        let p = Partition::new("test", 7, &units, 20);
        let a = write(dir.path(), "a.json", Shard::new(1, 2).unwrap(), &p);
        let b = write(dir.path(), "b.json", Shard::new(2, 2).unwrap(), &p);
        let held = Held::<Count>::read(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(held.chunks.len(), 20);
        let s = held.sample(0.1, 7).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s, held.sample(0.1, 7).unwrap(), "same seed, same sample");
        let all: BTreeSet<u32> = (0..20).collect();
        assert_eq!(held.sample(1.0, 1).unwrap(), all);
        assert!(held.sample(0.0, 1).is_err() && held.sample(1.5, 1).is_err());
        let honest: Vec<ChunkCount<Count>> = [3u32, 4]
            .iter()
            .map(|&index| ChunkCount {
                index,
                counts: Count(10 * index as u64),
                device: "CPU".into(),
            })
            .collect();
        assert!(held.compare(&honest).is_empty());
        let mut wrong = honest.clone();
        wrong[1].counts = Count(41);
        let differences = held.compare(&wrong);
        assert_eq!(differences.len(), 1);
        let d = &differences[0];
        assert_eq!((d.chunk, d.device.as_str()), (4, "GPU 1"));
        assert!(d.file.ends_with("a.json"));
        assert!(held.check_held(&[5, 99].into()).is_err());
        // One chunk in two files is refused.
        assert!(Held::<Count>::read(&[a.clone(), a]).is_err());
    }

    #[test]
    fn sample_and_chunk_lists_parse() {
        assert_eq!(parse_fraction("1%").unwrap(), 0.01);
        assert_eq!(parse_fraction("0.25").unwrap(), 0.25);
        assert!(parse_fraction("0").is_err() && parse_fraction("150%").is_err());
        assert!(parse_fraction("x").is_err());
        assert_eq!(
            parse_chunks("3, 17,40-42").unwrap(),
            [3, 17, 40, 41, 42].into()
        );
        assert!(parse_chunks("5-3").is_err() && parse_chunks("a").is_err());
        assert!(parse_chunks("").is_err());
    }
}
