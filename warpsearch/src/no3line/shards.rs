//! Shards, checkpoints and several GPUs: the search in chunks of a fixed work list.

use super::*;

/// The smallest size a search spreads over several GPUs. Smaller ones take one GPU well
/// under a second, less than the sharded work list's finer split costs the host (n = 13 on
/// two H200s: 0.63 s, on one 0.50 s).
pub(crate) const MULTI_GPU_MIN_N: u32 = 14;

/// Counts of a no-three-in-line search that add up across chunks and shards.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Partial {
    /// Canonical configurations found, by class.
    pub classes: Classes,
    /// Nodes searched (`u128`: n ≥ 20 may pass 2⁶⁴).
    pub nodes: u128,
}

impl crate::shard::Partial for Partial {
    fn add(&mut self, other: &Self) {
        let (a, b) = (&mut self.classes, &other.classes);
        a.iden += b.iden;
        a.dia1 += b.dia1;
        a.ort1 += b.ort1;
        a.rot2 += b.rot2;
        a.dia2 += b.dia2;
        a.rot4 += b.rot4;
        a.ort2 += b.ort2;
        a.full += b.full;
        self.nodes += other.nodes;
    }
    fn nodes(&self) -> u128 {
        self.nodes
    }
}

impl Partial {
    /// The counts of a complete search (every shard merged).
    pub fn counts(&self, n: u32, backend: &'static str, seconds: f64) -> Counts {
        Counts {
            n,
            total: self.classes.total(),
            inequivalent: self.classes.inequivalent(),
            classes: self.classes,
            backend,
            seconds,
            nodes: self.nodes,
            known_match: known(n).map(|k| k == self.classes),
            devices: Vec::new(),
        }
    }
}

/// Subtrees a sharded search's work list aims for: fixed, so that it is the same everywhere.
pub(crate) const SHARDED_TARGET: u64 = 1 << 16;
/// Chunks of a sharded search.
pub(crate) const SHARDED_CHUNKS: usize = 256;
/// Chunks of the work list an estimate samples: its heavy and light subtrees lie far apart,
/// and seven of 256 chunks saw half the nodes of n = 16 on an H100 (4096 chunks: within 20 %).
const ESTIMATE_CHUNKS: usize = 1024;

/// Searches shard `shard` of the size-`n` search on `backend`, resuming from and saving to
/// `checkpoint` when given (chunk by chunk, on the CPU and on GPUs alike). The counts add up
/// with the other shards' in
/// [`crate::shard::merge`].
pub fn enumerate_shard(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    shard: crate::shard::Shard,
    checkpoint: Option<&crate::shard::CheckpointFile>,
) -> Result<crate::shard::ShardResult<Partial>> {
    validate(n)?;
    let (whole, partition) = work_list(n, SHARDED_TARGET, engine());
    let run = search_chunks(
        n,
        backend,
        control,
        &whole,
        &partition,
        shard.into(),
        checkpoint,
        &|_| {},
    )?;
    run.into_result(partition, shard, backend)
}

/// Searches the chunks `chunks` of the sharded work list of size `n` (the same on every
/// machine and backend) on `backend`: what `warpsearch verify` recounts. Returns each chunk's
/// counts and the work list's partition.
pub fn enumerate_chunks(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    chunks: std::collections::BTreeSet<u32>,
) -> Result<(crate::shard::ChunkRun<Partial>, crate::shard::Partition)> {
    validate(n)?;
    let (whole, partition) = work_list(n, SHARDED_TARGET, engine());
    let selection = crate::shard::Selection::Chunks(chunks);
    let run = search_chunks(
        n,
        backend,
        control,
        &whole,
        &partition,
        selection,
        None,
        &|_| {},
    )?;
    Ok((run, partition))
}

/// Predicts the search of size `n` on `backend` (nodes, seconds, ranges) by searching
/// levels of a sample of its chunks there for about `budget` seconds ([`crate::predict`]).
pub fn estimate(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    budget: f64,
) -> Result<crate::predict::Prediction> {
    validate(n)?;
    let started = std::time::Instant::now();
    // The work list the count itself would make (its subtree target on these devices), cut
    // into finer chunks than a sharded search's, so that the sample is of the very subtrees
    // it runs, spread over more of them.
    let devices = match backend {
        Backend::Gpu(gpus) => gpus.len() as u64,
        Backend::Cpu(_) => 1,
    };
    let target = super::subtree_target(n, backend, engine())? * devices;
    let whole = split_search(n, target, engine());
    let chunks = whole.subtrees.len().clamp(1, ESTIMATE_CHUNKS) as u32;
    let partition = crate::shard::Partition::new("no3line", n, &whole.subtrees.words(), chunks);
    let setup = crate::predict::Setup {
        seconds: started.elapsed().as_secs_f64(),
        nodes: whole.nodes.into(),
    };
    let quiet = control.clone().with_progress(false);
    crate::predict::predict(partition.chunks, budget, setup, |shard| {
        let run = search_chunks(
            n,
            backend,
            &quiet,
            &whole,
            &partition,
            shard.into(),
            None,
            &|_| {},
        )?;
        Ok((run.counts.nodes, run.seconds))
    })
}

/// The search of size `n` split into about `target` subtrees, and their partition into chunks.
pub(crate) fn work_list(n: u32, target: u64, engine: Engine) -> (Split, crate::shard::Partition) {
    let whole = split_search(n, target, engine);
    let chunks = whole.subtrees.len().clamp(1, SHARDED_CHUNKS) as u32;
    let partition = crate::shard::Partition::new("no3line", n, &whole.subtrees.words(), chunks);
    (whole, partition)
}

/// Searches the chunks of `selection` of `whole` (grouped by `partition`) on `backend`'s workers
/// (the CPU pool a chunk at a time, or every GPU in one fed launch), streaming every
/// configuration found to `found`. The host's own nodes and finds go with chunk 0.
#[allow(clippy::too_many_arguments)]
pub(crate) fn search_chunks(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    whole: &Split,
    partition: &crate::shard::Partition,
    selection: crate::shard::Selection,
    checkpoint: Option<&crate::shard::CheckpointFile>,
    found: &(dyn Fn(&[u32]) + Sync),
) -> Result<crate::shard::ChunkRun<Partial>> {
    let extra = |chunk: u32| -> Partial {
        if chunk != 0 {
            return Partial::default();
        }
        let mut tally = Tally::default();
        whole
            .complete
            .iter()
            .for_each(|rows| tally.record(rows, &found));
        Partial {
            classes: tally.0,
            nodes: whole.nodes.into(),
        }
    };
    // The CPU pool takes a chunk at a time; every GPU runs one launch for the whole run, fed
    // chunk by chunk ([`crate::feed`]).
    let workers = crate::shard::Workers::of(backend);
    let workers = match whole.subtrees.chunk_weights(n, partition) {
        Some(weights) => workers.with_weights(weights),
        None => workers,
    };
    let run_worker = |worker: usize,
                      source: &crate::shard::ChunkSource,
                      control: &RunControl,
                      report: &dyn Fn(u32, Partial) -> Result<()>|
     -> Result<()> {
        let quiet = control.clone().with_progress(false);
        match backend {
            Backend::Cpu(pool) => loop {
                let chunks = source.batch()?;
                if chunks.is_empty() {
                    return Ok(());
                }
                for &chunk in &chunks {
                    let subtrees = whole.subtrees.select(partition.chunk_range(chunk));
                    let tally = Mutex::new(Tally::default());
                    let record = |rows: &[u32]| {
                        if let Ok(mut tally) = tally.lock() {
                            tally.record(rows, &found);
                        }
                    };
                    let nodes = search_cpu(pool, n, &subtrees, &quiet, &record)?;
                    let classes = tally
                        .into_inner()
                        .map_err(|_| Error::Verification("a search thread panicked".into()))?
                        .0;
                    let mut part = extra(chunk);
                    crate::shard::Partial::add(
                        &mut part,
                        &Partial {
                            classes,
                            nodes: nodes.iter().map(|&n| u128::from(n)).sum(),
                        },
                    );
                    report(chunk, part)?;
                }
            },
            Backend::Gpu(gpus) => {
                let device = &gpus.all()[worker];
                let report_chunk = |chunk: u32, nodes: u64, boards: Vec<Configuration>| {
                    let mut tally = Tally::default();
                    boards.iter().for_each(|rows| tally.record(rows, &found));
                    let mut part = extra(chunk);
                    crate::shard::Partial::add(
                        &mut part,
                        &Partial {
                            classes: tally.0,
                            nodes: nodes.into(),
                        },
                    );
                    report(chunk, part)
                };
                search_gpu_fed(
                    device,
                    n,
                    &whole.subtrees,
                    partition,
                    source,
                    &quiet,
                    &report_chunk,
                )
                .map_err(|e| crate::shard::on_device(gpus, device, e))
            }
        }
    };
    crate::shard::run_chunks(
        partition, selection, checkpoint, control, &workers, run_worker,
    )
}
