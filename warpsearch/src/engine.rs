//! The search engine for your own kernels: describe a search once and run it anywhere.
//!
//! A [`Search`] says what the work is (a fixed list of *units*, each a few `u64` words), what
//! one unit's result is (a few words, from code that is the same on the CPU and in the
//! kernel), how results add up (a [`Partial`]), and which PTX kernel runs units on a GPU. The
//! engine does the rest: it groups the units into chunks ([`crate::shard::Partition`]), hands
//! them to every CPU core (rayon) or to every GPU (a launch per batch of chunks, two in flight
//! per GPU), draws progress, stops on Ctrl-C, and gives shards, result files and checkpoints
//! for free ([`run`]).
//!
//! The kernel follows one calling convention, so the engine can launch any of them:
//!
//! ```text
//! extern "ptx-kernel" fn name(
//!     params: *const u64,        // Search::params()
//!     units: *const u64,         // count × UNIT_WORDS words
//!     count: u32,
//!     next: *const AtomicU32,    // zeroed: the work queue (kernels::atomic::WorkQueue)
//!     cancel: *const AtomicU32,  // set by the host on Ctrl-C: stop taking units
//!     results: *mut u64,         // count × RESULT_WORDS words, one slice per unit
//!     bound: *const AtomicU64,   // Search::shared_bound(): the best so far (u64::MAX without)
//! )
//! ```
//!
//! A kernel claims unit indices from `next` (the engine reads it for progress), writes each
//! unit's result, and stops taking units once `cancel` is set. A branch-and-bound search
//! reads `bound` and lowers it (`atom.min`) when it finds better; the engine carries the
//! lowest value between launches, GPUs and the CPU while they run ([`SharedBound`]). A kernel
//! without a bound may leave the last argument out of its signature. `examples/costas/` is a whole
//! search written this way, and `docs/tutorial-costas.md` builds it step by step.
//!
//! ## Two levels
//!
//! [`run`] is the engine for a search that fits the calling convention above. Under it is
//! [`run_chunks`]: the work list's [`Partition`] into chunks, the ledger of finished chunks
//! (checkpoints, shards, result files), one worker per GPU (or the CPU pool) taking chunks
//! from a [`ChunkSource`] as fast as it finishes them, progress, Ctrl-C and the first error
//! stopping the others. A search that drives its own launches runs on that level: the
//! built-in N-Queens count (constellation jobs fed into one launch per GPU while it runs) and
//! no-three-in-line (warp-per-board subtrees whose boards are tagged by chunk) both do, so
//! every search gets the same shards, checkpoints and multi-GPU hand-out.
//!
//! ```
//! use warpsearch::engine::{self, Kernel, Search};
//! use warpsearch::shard::{Partial, Shard};
//!
//! /// Counts the numbers below 1000 divisible by 7, one unit per hundred.
//! struct Sevens;
//!
//! #[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
//! struct Count(u64);
//!
//! impl Partial for Count {
//!     fn add(&mut self, other: &Self) { self.0 += other.0 }
//!     fn nodes(&self) -> u128 { self.0.into() }
//! }
//!
//! impl Search for Sevens {
//!     type Partial = Count;
//!     const UNIT_WORDS: usize = 1;
//!     const RESULT_WORDS: usize = 1;
//!     fn problem(&self) -> &str { "sevens" }
//!     fn size(&self) -> u32 { 1000 }
//!     fn units(&self) -> Vec<u64> { (0..10).collect() }
//!     fn params(&self) -> Vec<u64> { vec![] }
//!     fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
//!         result[0] = (unit[0] * 100..unit[0] * 100 + 100).filter(|i| i % 7 == 0).count() as u64;
//!     }
//!     fn partial(&self, results: &[u64]) -> Count { Count(results.iter().sum()) }
//!     fn kernel(&self) -> Option<Kernel> { None } // CPU only
//! }
//!
//! let backend = warpsearch::Backend::Cpu(warpsearch::backend::cpu_pool(Some(2))?);
//! let control = warpsearch::RunControl::quiet();
//! let result = engine::run(&Sevens, &backend, &control, Shard::WHOLE, None)?;
//! assert_eq!(result.counts.0, 143);
//! # Ok::<(), warpsearch::Error>(())
//! ```

use crate::backend::Backend;
use crate::error::{Error, GpuError, Result};
use crate::gpu::{GpuDevice, launch_config, step};
use crate::run::RunControl;
use crate::shard::{CheckpointFile, Shard, ShardResult};
use cudarc::driver::PushKernelArg;
use rayon::prelude::*;

pub use crate::shard::{ChunkSource, Partial, Partition, Selection, Workers, run_chunks};

/// A search's GPU kernel: the PTX module it is in (usually embedded with
/// `include_str!(concat!(env!("OUT_DIR"), "/….ptx"))` from a build script that uses
/// `warpsearch-builder`), the same module as native code for the common GPUs (the builder's
/// `….ptx.native.rs`, empty when it had no `ptxas`), and the entry point's name. An empty
/// `ptx` means the build has no kernel.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// The PTX text.
    pub ptx: &'static str,
    /// Cubins by architecture (e.g. `(90, …)` for sm_90): a GPU with one loads it at once
    /// instead of compiling the PTX.
    pub native: &'static [(u32, &'static [u8])],
    /// The entry point's name.
    pub name: &'static str,
}

/// How the engine launches a search's kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Threads a block (a multiple of 32).
    pub block: u32,
    /// Bytes of dynamic shared memory each thread of a block gets (a kernel on the
    /// depth-first skeleton needs `4 × kernels::dfs::slab_words(&tree)`).
    pub shared_bytes_per_thread: u32,
}

impl Default for Launch {
    /// 128 threads a block, no shared memory.
    fn default() -> Self {
        Launch {
            block: 128,
            shared_bytes_per_thread: 0,
        }
    }
}

impl Launch {
    /// The launch of a kernel on the depth-first skeleton (`kernels::dfs::walk_units`):
    /// `slab_words` words of shared memory a thread, in blocks of `kernels::dfs::BLOCK`
    /// (128) threads, the size the skeleton is compiled for (up to 454 words a thread fit a
    /// block's 227 KB).
    pub fn skeleton(slab_words: u32) -> Launch {
        Launch {
            block: kernels::dfs::BLOCK,
            shared_bytes_per_thread: 4 * slab_words,
        }
    }
}

/// The best value found so far by a branch-and-bound search (a shortest length, a lowest
/// cost), shared by every unit of a run: on the CPU every thread reads and lowers this one
/// word; each GPU gets a copy as its kernel's `bound` argument, and the engine, a few times a
/// second while a launch runs and after it, lowers this word and every GPU's copy to the
/// lowest of them. So a better solution found anywhere tightens the search everywhere within
/// a fraction of a second.
#[derive(Debug)]
pub struct SharedBound(std::sync::atomic::AtomicU64);

impl SharedBound {
    /// A bound that starts at `value` (`u64::MAX`: none yet).
    pub fn new(value: u64) -> SharedBound {
        SharedBound(std::sync::atomic::AtomicU64::new(value))
    }

    /// The best value so far.
    pub fn get(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Lowers the bound to `value` if that is lower; true when it was.
    pub fn lower(&self, value: u64) -> bool {
        self.0
            .fetch_min(value, std::sync::atomic::Ordering::Relaxed)
            > value
    }

    /// The word itself, for a tree that reads and lowers it on the CPU as its kernel does on
    /// the GPU (`kernels` code takes a `&AtomicU64`).
    pub fn atomic(&self) -> &std::sync::atomic::AtomicU64 {
        &self.0
    }
}

/// A search described once; see the module's documentation for the kernel's conventions.
pub trait Search: Sync {
    /// What results add up to (per chunk, per shard, per run).
    type Partial: Partial + Send;
    /// Words a unit takes in the kernel's input.
    const UNIT_WORDS: usize;
    /// Words of one unit's result.
    const RESULT_WORDS: usize;
    /// A short name for result files and checkpoints, e.g. "costas".
    fn problem(&self) -> &str;
    /// The problem size, for result files and checkpoints.
    fn size(&self) -> u32;
    /// The work list: `UNIT_WORDS` words per unit, the same on every machine (it is what
    /// shards and checkpoints refer to).
    fn units(&self) -> Vec<u64>;
    /// Words handed to the kernel as its first argument (its parameters, e.g. the size).
    fn params(&self) -> Vec<u64>;
    /// Runs one unit on the CPU and writes its `RESULT_WORDS` result words: the same code the
    /// kernel runs for a unit.
    fn run_unit(&self, unit: &[u64], result: &mut [u64]);
    /// The counts of some units from their results (`RESULT_WORDS` words each).
    fn partial(&self, results: &[u64]) -> Self::Partial;
    /// [`partial`](Self::partial) when the units themselves are needed to read the results
    /// (`units`: `UNIT_WORDS` words each, in the order of `results`), e.g. to rebuild the
    /// solution a unit reported only by its value. The engine calls this one; by default it
    /// is `partial(results)`.
    fn partial_of(&self, units: &[u64], results: &[u64]) -> Self::Partial {
        let _ = units;
        self.partial(results)
    }
    /// The bound of a branch-and-bound search ([`SharedBound`]), when it has one.
    fn shared_bound(&self) -> Option<&SharedBound> {
        None
    }
    /// Knuth's estimate of the nodes below `unit` from one random path (`pick(k)`: a number
    /// below `k`, uniformly at random), for [`estimate`]; a search on the depth-first
    /// skeleton returns `Some(kernels::dfs::probe(&tree, unit, &mut slab, pick))`. `None`
    /// (the default): the search cannot be estimated (a branch-and-bound search's size
    /// depends on the bound its run will find).
    fn probe(&self, unit: &[u64], pick: &mut dyn FnMut(u32) -> u32) -> Option<f64> {
        let _ = (unit, pick);
        None
    }
    /// The GPU kernel, when this build has one.
    fn kernel(&self) -> Option<Kernel>;
    /// How the kernel is launched ([`Launch::default`]: 128 threads a block, no shared
    /// memory).
    fn launch(&self) -> Launch {
        Launch::default()
    }
}

/// What [`estimate`] predicts of a whole search.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// Units in the work list.
    pub units: u64,
    /// Probes made (random paths, each below a unit drawn at random).
    pub probes: u64,
    /// The predicted nodes (one a `descend`).
    pub nodes: f64,
    /// The 95 % confidence range of the prediction (two standard errors each side; Knuth's
    /// estimates are skewed, so read it as a guide).
    pub low: f64,
    /// See `low`.
    pub high: f64,
}

/// Predicts the nodes of `search` without running it: `probes` random paths
/// ([`Search::probe`]) below units drawn at random from the work list, from `seed` (the same
/// seed, the same estimate).
pub fn estimate<S: Search>(search: &S, probes: u64, seed: u64) -> Result<Estimate> {
    use rand::{Rng, SeedableRng};
    let units = search.units();
    let count = units.len() / S::UNIT_WORDS.max(1);
    if count == 0 || probes == 0 {
        return Err(Error::InvalidArgument(
            "an estimate needs units and at least one probe".into(),
        ));
    }
    let mut random = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let (mut sum, mut squares) = (0.0, 0.0);
    for _ in 0..probes {
        let index = random.random_range(0..count);
        let unit = &units[index * S::UNIT_WORDS..(index + 1) * S::UNIT_WORDS];
        let mut pick = |k: u32| random.random_range(0..k.max(1));
        let nodes = search.probe(unit, &mut pick).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{} cannot be estimated (its description has no probe)",
                search.problem()
            ))
        })? * count as f64;
        sum += nodes;
        squares += nodes * nodes;
    }
    let n = probes as f64;
    let mean = sum / n;
    let spread = if probes > 1 {
        ((squares - n * mean * mean).max(0.0) / (n - 1.0)).sqrt() / n.sqrt()
    } else {
        mean
    };
    Ok(Estimate {
        units: count as u64,
        probes,
        nodes: mean,
        low: (mean - 2.0 * spread).max(0.0),
        high: mean + 2.0 * spread,
    })
}

/// Predicts the nodes and the time of `search` on `backend` by running levels of a sample of
/// its chunks there for about `budget` seconds ([`crate::predict`]): what the kit's
/// `--estimate` prints. A branch-and-bound search (one with a [`Search::shared_bound`]) is
/// refused: a sample starts from the first bound, the whole run from ever better ones, so
/// its size says nothing about the run's.
pub fn predict<S: Search>(
    search: &S,
    backend: &Backend,
    control: &RunControl,
    budget: f64,
) -> Result<crate::predict::Prediction> {
    if search.shared_bound().is_some() {
        return Err(Error::InvalidArgument(format!(
            "{} is a branch-and-bound search: its size depends on the bound the run finds, which a sample cannot tell",
            search.problem()
        )));
    }
    let started = std::time::Instant::now();
    let units = search.units();
    let list: Vec<&[u64]> = units.chunks(S::UNIT_WORDS.max(1)).collect();
    if let Some((units, lanes)) = sample_underfills(search, backend, list.len() as u64)? {
        return Err(Error::InvalidArgument(format!(
            "a sample cannot time {} on this GPU: a chunk holds {units} units and the GPU runs {lanes} at once, so a sample's launch lasts as long as its longest unit; estimate the nodes with probes instead",
            search.problem()
        )));
    }
    let chunks = list.len().clamp(1, CHUNKS) as u32;
    // What every run spends before its first launch: the work list and its fingerprint.
    let _ = Partition::new(search.problem(), search.size(), &list, chunks);
    let setup = crate::predict::Setup {
        seconds: started.elapsed().as_secs_f64(),
        nodes: 0,
    };
    let quiet = control.clone().with_progress(false);
    crate::predict::predict(chunks, budget, setup, |shard| {
        let result = run(search, backend, &quiet, shard, None)?;
        Ok((result.counts.nodes(), result.seconds))
    })
}

/// Whether a sample of the chunks of `search`'s work list of `units` units is too small to
/// time a run on `backend`: on a GPU,
/// `Some((units a chunk holds, lanes the GPU runs at once))` when a chunk holds fewer units
/// than the GPU has lanes. A launch of fewer units lasts as long as its longest unit (one
/// lane's work), so a sample timed so would predict a run several times too long: a search
/// on the depth-first skeleton, whose whole list fills a GPU only a few times over, is such
/// a case (nqueens-simple N = 20 on an H100: 62 s predicted, 13.7 s counted). `None` on the
/// CPU, whose threads a chunk always fills.
pub fn sample_underfills<S: Search>(
    search: &S,
    backend: &Backend,
    units: u64,
) -> Result<Option<(u64, u64)>> {
    let Backend::Gpu(gpus) = backend else {
        return Ok(None);
    };
    let Some(kernel) = search.kernel() else {
        return Ok(None);
    };
    let per_chunk = units / units.clamp(1, CHUNKS as u64);
    let device = gpus.first();
    let function = device.load_kernel_from(kernel.ptx, kernel.native, kernel.name)?;
    let shape = search.launch();
    let shared = shape.block as usize * shape.shared_bytes_per_thread as usize;
    let lanes = u64::from(device.resident_blocks(&function, shape.block, shared)?)
        * u64::from(shape.block)
        * u64::from(device.multiprocessors);
    Ok((per_chunk < lanes).then_some((per_chunk, lanes)))
}

/// Chunks a search's work list is grouped into (fewer when there are fewer units).
pub const CHUNKS: usize = 256;

/// Runs shard `shard` of `search` on `backend` (every CPU core, or every GPU), resuming from
/// and saving to `checkpoint` when given. [`Shard::WHOLE`] is the whole search; the counts of
/// several shards add up with [`crate::shard::merge`].
pub fn run<S: Search>(
    search: &S,
    backend: &Backend,
    control: &RunControl,
    shard: Shard,
    checkpoint: Option<&CheckpointFile>,
) -> Result<ShardResult<S::Partial>> {
    let (run, partition) = run_selection(search, backend, control, shard.into(), checkpoint)?;
    let mut trace = Trace::start();
    let result = run.into_result(partition, shard, backend);
    trace.mark("the result's chunk records");
    result
}

/// Runs the chunks `chunks` of `search`'s work list on `backend`: what a verify recounts
/// ([`crate::verify`]). Returns each chunk's counts and the work list's partition. A
/// branch-and-bound search is refused: a chunk's result depends on the bound it met.
pub fn recount<S: Search>(
    search: &S,
    backend: &Backend,
    control: &RunControl,
    chunks: std::collections::BTreeSet<u32>,
) -> Result<(crate::shard::ChunkRun<S::Partial>, Partition)> {
    if search.shared_bound().is_some() {
        return Err(Error::InvalidArgument(format!(
            "{} is a branch-and-bound search: a chunk's result depends on the bound it met, so a recount need not equal it",
            search.problem()
        )));
    }
    run_selection(search, backend, control, Selection::Chunks(chunks), None)
}

/// The whole of `search` on `backend`, for a caller that writes no result file: its counts
/// and seconds, without the per-chunk record and digest that [`run`] builds for files (a
/// search whose counts are large — a batch's answer for every unit — spends most of its host
/// time there).
pub fn run_counts<S: Search>(
    search: &S,
    backend: &Backend,
    control: &RunControl,
) -> Result<(S::Partial, f64)> {
    let (run, _) = run_selection(search, backend, control, Shard::WHOLE.into(), None)?;
    Ok((run.counts, run.seconds))
}

/// [`run`] and [`recount`]: the chunks of `selection`.
fn run_selection<S: Search>(
    search: &S,
    backend: &Backend,
    control: &RunControl,
    selection: Selection,
    checkpoint: Option<&CheckpointFile>,
) -> Result<(crate::shard::ChunkRun<S::Partial>, Partition)> {
    if S::UNIT_WORDS == 0 || S::RESULT_WORDS == 0 {
        return Err(Error::InvalidArgument(
            "a search's units and results need at least one word each".into(),
        ));
    }
    let mut trace = Trace::start();
    let units = search.units();
    trace.mark("the work list");
    if !units.len().is_multiple_of(S::UNIT_WORDS) {
        return Err(Error::InvalidArgument(format!(
            "{} words of units is not a whole number of {}-word units",
            units.len(),
            S::UNIT_WORDS
        )));
    }
    let list: Vec<&[u64]> = units.chunks(S::UNIT_WORDS).collect();
    let chunks = list.len().clamp(1, CHUNKS) as u32;
    let partition = Partition::new(search.problem(), search.size(), &list, chunks);
    trace.mark("the partition into chunks");
    let kernel = match backend {
        Backend::Gpu(_) => Some(
            search
                .kernel()
                .filter(|k| !k.ptx.trim().is_empty())
                .ok_or_else(|| {
                    GpuError::Unsupported(format!(
                        "this build of {} has no GPU kernel (its build script could not build the PTX); use --backend cpu",
                        search.problem()
                    ))
                })?,
        ),
        Backend::Cpu(_) => None,
    };
    let workers = Workers::of(backend, true);
    // The parameters are made once a run and copied to each GPU once, before its first
    // launch (a search's parameters may be large: Gomoku's threat table is 47 MB).
    let params = match backend {
        Backend::Gpu(_) => search.params(),
        Backend::Cpu(_) => Vec::new(),
    };
    let run_worker = |worker: usize,
                      source: &ChunkSource,
                      control: &RunControl,
                      report: &dyn Fn(u32, S::Partial) -> Result<()>|
     -> Result<()> {
        let mut device_params = None;
        let mut trace = Trace::start();
        loop {
            let batch = source.batch()?;
            if batch.is_empty() {
                return Ok(());
            }
            let ranges: Vec<_> = batch.iter().map(|&c| partition.chunk_range(c)).collect();
            let results = match (backend, kernel) {
                (Backend::Gpu(gpus), Some(kernel)) => {
                    let device = &gpus.lanes()[worker];
                    if device_params.is_none() {
                        trace.mark("taking the first chunks");
                        device_params = Some(
                            upload_params(device, &params)
                                .map_err(|e| crate::shard::on_device(gpus, device, e))?,
                        );
                        trace.mark("copying the parameters");
                    }
                    // Chunks next to each other (a run on one GPU takes them all, in order)
                    // are one slice of the work list: no copy of it.
                    let adjacent = ranges.windows(2).all(|pair| pair[0].end == pair[1].start);
                    let words: std::borrow::Cow<[u64]> = match (ranges.first(), ranges.last()) {
                        (Some(first), Some(last)) if adjacent => std::borrow::Cow::Borrowed(
                            &units[first.start * S::UNIT_WORDS..last.end * S::UNIT_WORDS],
                        ),
                        _ => ranges
                            .iter()
                            .flat_map(|r| {
                                units[r.start * S::UNIT_WORDS..r.end * S::UNIT_WORDS].iter()
                            })
                            .copied()
                            .collect(),
                    };
                    trace.mark("the chunks' units in one list");
                    run_gpu::<S>(
                        device,
                        kernel,
                        search.launch(),
                        device_params.as_ref().ok_or_else(|| {
                            Error::Verification("the parameters were not copied".into())
                        })?,
                        &words,
                        search.shared_bound(),
                        control,
                    )
                    .map_err(|e| crate::shard::on_device(gpus, device, e))?
                }
                (Backend::Cpu(pool), _) => run_cpu(search, pool, &list, &ranges, control)?,
                (Backend::Gpu(_), None) => {
                    return Err(Error::Verification("a GPU run without its kernel".into()));
                }
            };
            trace.mark("the launch");
            let mut offset = 0;
            for (&chunk, range) in batch.iter().zip(&ranges) {
                let words = range.len() * S::RESULT_WORDS;
                let chunk_units = &units[range.start * S::UNIT_WORDS..range.end * S::UNIT_WORDS];
                report(
                    chunk,
                    search.partial_of(chunk_units, &results[offset..offset + words]),
                )?;
                offset += words;
            }
            trace.mark("reporting the chunks");
        }
    };
    let run = run_chunks(
        &partition, selection, checkpoint, control, &workers, run_worker,
    )?;
    trace.mark("the chunks");
    Ok((run, partition))
}

/// The units of `ranges` on every thread of `pool`; their results in order.
fn run_cpu<S: Search>(
    search: &S,
    pool: &rayon::ThreadPool,
    list: &[&[u64]],
    ranges: &[std::ops::Range<usize>],
    control: &RunControl,
) -> Result<Vec<u64>> {
    let indices: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
    let mut results = vec![0u64; indices.len() * S::RESULT_WORDS];
    pool.install(|| {
        results
            .par_chunks_mut(S::RESULT_WORDS)
            .zip(indices.par_iter())
            .try_for_each(|(result, &index)| {
                if control.cancelled() {
                    return Err(Error::Interrupted);
                }
                search.run_unit(list[index], result);
                Ok(())
            })
    })?;
    Ok(results)
}

/// `params` in `device`'s memory (one word when empty: a kernel with no parameters still gets
/// a valid pointer).
fn upload_params(device: &GpuDevice, params: &[u64]) -> Result<cudarc::driver::CudaSlice<u64>> {
    let params = if params.is_empty() {
        &[0u64][..]
    } else {
        params
    };
    Ok(step(
        "copying parameters",
        device.stream().clone_htod(params),
    )?)
}

/// With `WARPSEARCH_TRACE` set, the time each phase of a run took, on stderr: where a short
/// run's time goes (the work list, the copies, the kernel, the results).
struct Trace(Option<std::time::Instant>);

impl Trace {
    fn start() -> Trace {
        Trace(std::env::var_os("WARPSEARCH_TRACE").map(|_| std::time::Instant::now()))
    }

    /// Prints the time since the last mark as `what`'s.
    fn mark(&mut self, what: &str) {
        if let Some(last) = &mut self.0 {
            eprintln!(
                "trace: {what}: {:.3} ms",
                last.elapsed().as_secs_f64() * 1e3
            );
            *last = std::time::Instant::now();
        }
    }
}

/// The units `words` in one launch of `kernel` on `device` (the calling convention of the
/// module's documentation), with Ctrl-C and the shared bound kept in step; their results in
/// order.
fn run_gpu<S: Search>(
    device: &GpuDevice,
    kernel: Kernel,
    shape: Launch,
    device_params: &cudarc::driver::CudaSlice<u64>,
    words: &[u64],
    bound: Option<&SharedBound>,
    control: &RunControl,
) -> Result<Vec<u64>> {
    let count = words.len() / S::UNIT_WORDS;
    let count32 = u32::try_from(count)
        .map_err(|_| GpuError::Unsupported(format!("{count} units in one launch")))?;
    let mut trace = Trace::start();
    let function = device.load_kernel_from(kernel.ptx, kernel.native, kernel.name)?;
    trace.mark("loading the kernel");
    let stream = device.stream();
    if shape.block == 0 || !shape.block.is_multiple_of(32) {
        return Err(Error::InvalidArgument(format!(
            "a block of {} threads: the engine launches whole warps",
            shape.block
        )));
    }
    let shared = shape.block as usize * shape.shared_bytes_per_thread as usize;
    let blocks = device.resident_blocks(&function, shape.block, shared)? * device.multiprocessors;
    // The kernel's queue counter is a `u32` that every lane raises once more when it finds the
    // queue empty: past `u32::MAX` it would wrap and hand out units again.
    let lanes = u64::from(blocks) * u64::from(shape.block);
    if u64::from(count32) + lanes > u64::from(u32::MAX) {
        return Err(GpuError::Unsupported(format!(
            "{count} units in one launch: at most {} on this GPU (the queue counter is 32 bits)",
            u64::from(u32::MAX) - lanes
        ))
        .into());
    }
    trace.mark("the occupancy query");
    let device_units = step("copying units", stream.clone_htod(words))?;
    let control_words = step("allocating counters", stream.alloc_zeros::<u32>(2))?;
    let results = step(
        "allocating results",
        stream.alloc_zeros::<u64>(count.max(1) * S::RESULT_WORDS),
    )?;
    let device_bound = step(
        "copying the bound",
        stream.clone_htod(&[bound.map_or(u64::MAX, SharedBound::get)]),
    )?;
    device.synchronize()?;
    trace.mark("copying the units and allocating");
    let next = control_words.slice(0..1);
    let cancel = control_words.slice(1..2);
    let mut launch = stream.launch_builder(&function);
    launch
        .arg(device_params)
        .arg(&device_units)
        .arg(&count32)
        .arg(&next)
        .arg(&cancel)
        .arg(&results)
        .arg(&device_bound);
    // SAFETY: the engine's calling convention (module documentation), which `Search`
    // implementors promise their kernel follows: the parameters, `count` units of
    // `UNIT_WORDS` words, a zeroed queue counter and stop word, `count × RESULT_WORDS` result
    // words; the shared memory `Search::launch` asks for; whole-warp blocks (checked above).
    step(&format!("launching {}", kernel.name), unsafe {
        launch.launch(launch_config(blocks, shape.block, shared))
    })?;
    trace.mark("launching");
    let progress = control.progress_bar(count as u64, kernel.name);
    // Keep the GPU's copy of the bound and the run's in step: each takes the lower.
    let exchange = |bound: &SharedBound| -> Result<()> {
        let mut seen = [u64::MAX];
        device.peek(&device_bound, &mut seen)?;
        bound.lower(seen[0]);
        let best = bound.get();
        if best < seen[0] {
            device.poke(&device_bound, 0, &[best])?;
        }
        Ok(())
    };
    let watched = device.watch_with(&control_words, control, &mut |claimed| {
        progress.set(claimed.min(count as u64));
        bound.map_or(Ok(()), exchange)
    });
    progress.finish();
    watched?;
    trace.mark("the kernel (launch to finish)");
    // The last word on the bound, after the kernel: what it found is the run's now.
    bound.map_or(Ok(()), exchange)?;
    let results = step("reading results", stream.clone_dtoh(&results))?;
    device.synchronize()?;
    trace.mark("reading the results");
    let mut results = results;
    results.truncate(count * S::RESULT_WORDS);
    Ok(results)
}
