//! The search engine for your own kernels: describe a search once and run it anywhere.
//!
//! A [`Search`] says what the work is (a fixed list of *units*, each a few `u64` words, or a
//! short list of roots that the engine expands into units chunk by chunk while the run goes:
//! [`Search::EXPANDS`]), what one unit's result is (a few words, from code that is the same on
//! the CPU and in the kernel), how results add up (a [`Partial`]), and which PTX kernel runs
//! units on a GPU. The
//! engine does the rest: it groups the units into chunks ([`crate::shard::Partition`]), hands
//! them to every CPU core (rayon) or to every GPU (one fed launch a GPU for the whole run,
//! [`crate::feed`]), draws progress, stops on Ctrl-C, and gives shards, result files and
//! checkpoints for free ([`run`]).
//!
//! The kernel follows one calling convention, so the engine can launch any of them:
//!
//! ```text
//! extern "ptx-kernel" fn name(
//!     params: *const u64,               // Search::params()
//!     work: *const kernels::work::Work, // the launch: units, queue, feed, results, chunks, bound
//! )
//! ```
//!
//! `kernels::work::Work` is a block of eight words the engine writes before the launch. A
//! kernel on the depth-first skeleton hands it to `kernels::dfs::walk_units`; a kernel that
//! runs one unit a thread takes units with `Work::next_unit`, writes each unit's
//! `RESULT_WORDS` result words and calls `Work::finish`. Each GPU runs one launch for the
//! whole run: the engine writes the units of the chunks it hands that GPU while the kernel
//! runs (several GPUs take chunks as fast as each finishes them), and reads a chunk's results
//! back as soon as its last unit is done (progress and checkpoints). A branch-and-bound search
//! reads `Work::bound` and lowers it (`atom.min`) when it finds better; the engine carries the
//! lowest value between GPUs and the CPU while they run ([`SharedBound`]).
//! `examples/costas/` is a whole search written this way, and `docs/tutorial-costas.md` builds
//! it step by step.
//!
//! ## Two levels
//!
//! [`run`] is the engine for a search that fits the calling convention above. Under it are
//! [`run_chunks`] — the work list's [`Partition`] into chunks, the ledger of finished chunks
//! (checkpoints, shards, result files), one worker per GPU (or the CPU pool) taking chunks
//! from a [`ChunkSource`] as fast as it finishes them, progress, Ctrl-C, and a failing
//! worker dropped with its chunks handed to the others — and [`crate::run::feed::run_fed`], one
//! launch a GPU fed chunk by chunk.
//! [`run`] is these two with the calling convention above; a search whose kernel has a
//! convention of its own uses them directly: the built-in N-Queens count (constellation jobs)
//! and no-three-in-line (warp-per-board subtrees whose boards are tagged by chunk) do, so
//! every search gets the same shards, checkpoints, multi-GPU hand-out and fed launches.
//!
//! ```
//! use warpsearch_engine::search::{self, Kernel, Search, UnitResults};
//! use warpsearch_engine::shard::{Partial, Shard};
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
//!     fn partial(&self, results: &UnitResults) -> Count { Count(results.sum(0)) }
//!     fn kernel(&self) -> Option<Kernel> { None } // CPU only
//! }
//!
//! let backend = warpsearch_engine::Backend::Cpu(warpsearch_engine::backend::cpu_pool(Some(2))?);
//! let control = warpsearch_engine::RunControl::quiet();
//! let result = search::run(&Sevens, &backend, &control, Shard::WHOLE, None)?;
//! assert_eq!(result.counts.0, 143);
//! # Ok::<(), warpsearch_engine::Error>(())
//! ```

use crate::control::RunControl;
use crate::device::backend::Backend;
use crate::device::gpu::{GpuDevice, Module, launch_config, step};
use crate::error::{Error, GpuError, Result};
use crate::run::feed::{FedBuffers, FedLaunch, Finished, Pace, Trace, ring_pieces, run_fed};
use crate::shard::{CheckpointFile, Shard, ShardResult};
use cudarc::driver::{CudaSlice, PushKernelArg};
use rayon::prelude::*;
use std::ops::Range;

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

impl Kernel {
    /// The module the kernel is in.
    pub fn module(&self) -> Module {
        Module {
            ptx: self.ptx,
            native: self.native,
        }
    }
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
/// word; each GPU gets a copy (`kernels::work::Work::bound`), and the engine, every few
/// milliseconds while a launch runs and after it, lowers this word and every GPU's copy to the
/// lowest of them. So a better solution found anywhere tightens the search everywhere within
/// milliseconds.
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

/// Finished units as the engine hands them to [`Search::partial`]: each unit's words
/// (`UNIT_WORDS`), its result words (`RESULT_WORDS`) and its weight ([`Search::weight`]), in the
/// same order.
#[derive(Clone, Copy)]
pub struct UnitResults<'a> {
    units: &'a [u64],
    results: &'a [u64],
    unit_words: usize,
    result_words: usize,
    weight: &'a dyn Weights,
}

/// One finished unit of [`UnitResults`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitResult<'a> {
    /// The unit's words.
    pub unit: &'a [u64],
    /// Its result words.
    pub result: &'a [u64],
    /// Its weight ([`Search::weight`]).
    pub weight: u64,
}

impl<'a> UnitResults<'a> {
    /// `search`'s finished `units` and their `results` (`S::UNIT_WORDS` and `S::RESULT_WORDS`
    /// words each, in the same order): what the engine hands to [`Search::partial`], for a
    /// runner of one's own or a test.
    ///
    /// # Panics
    /// When `units` and `results` do not hold the same number of whole units.
    pub fn of<S: Search>(search: &'a S, units: &'a [u64], results: &'a [u64]) -> UnitResults<'a> {
        let (unit_words, result_words) = (S::UNIT_WORDS.max(1), S::RESULT_WORDS.max(1));
        assert!(
            units.len().is_multiple_of(unit_words)
                && results.len().is_multiple_of(result_words)
                && units.len() / unit_words == results.len() / result_words,
            "{} unit words and {} result words are not whole units of {unit_words} and {result_words}",
            units.len(),
            results.len()
        );
        UnitResults {
            units,
            results,
            unit_words,
            result_words,
            weight: search,
        }
    }

    /// The number of units.
    pub fn len(&self) -> usize {
        self.results.len() / self.result_words
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }

    /// Every result word, unit after unit.
    pub fn words(&self) -> &'a [u64] {
        self.results
    }

    /// Every unit's words, unit after unit.
    pub fn units(&self) -> &'a [u64] {
        self.units
    }

    /// Each unit with its result and weight.
    pub fn iter(&self) -> impl Iterator<Item = UnitResult<'a>> + '_ {
        self.units
            .chunks(self.unit_words)
            .zip(self.results.chunks(self.result_words))
            .map(|(unit, result)| UnitResult {
                unit,
                result,
                weight: self.weight.weight_of(unit),
            })
    }

    /// The sum of result word `word` over the units (nodes visited, say).
    pub fn sum(&self, word: usize) -> u64 {
        self.results
            .chunks(self.result_words)
            .map(|r| r[word])
            .sum()
    }

    /// The sum of result word `word`, each unit's times its weight (solutions, when the work
    /// list keeps one unit of each symmetry orbit).
    pub fn weighted_sum(&self, word: usize) -> u64 {
        self.iter().map(|u| u.weight * u.result[word]).sum()
    }
}

impl std::fmt::Debug for UnitResults<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnitResults")
            .field("units", &self.len())
            .field("unit_words", &self.unit_words)
            .field("result_words", &self.result_words)
            .finish()
    }
}

/// [`Search::weight`] as a trait object (a `Search`, with its constants, is not one).
trait Weights: Sync {
    fn weight_of(&self, unit: &[u64]) -> u64;
}

impl<S: Search> Weights for S {
    fn weight_of(&self, unit: &[u64]) -> u64 {
        self.weight(unit)
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
    /// shards and checkpoints refer to). With [`EXPANDS`](Self::EXPANDS), a list of roots
    /// that [`expand`](Self::expand) makes into the units that run.
    fn units(&self) -> Vec<u64>;
    /// Whether the work list is streamed: [`units`](Self::units) is a short list of roots
    /// (what the partition into chunks, shards, checkpoints and the fingerprint refer to),
    /// and each chunk's roots are made into the units that run by
    /// [`expand`](Self::expand) when the chunk is handed out, on every core, while the GPUs
    /// already count the chunks before it. A run then neither waits for a long list to be
    /// made nor holds it: each GPU's launch keeps a ring of units that the engine refills
    /// as chunks finish. `false` (the default): the units of the list run as they are.
    const EXPANDS: bool = false;
    /// The units one root of the work list stands for, appended to `units` in a fixed order
    /// (`UNIT_WORDS` words each; none when the root has no work): called only with
    /// [`EXPANDS`](Self::EXPANDS). The root's counts are the sum of theirs, so how deep a
    /// search expands changes neither its counts nor its fingerprint (only the nodes its
    /// units walk, when the levels above them go uncounted); it must depend on the root
    /// alone (not on the backend), so that every machine runs the same units.
    fn expand(&self, root: &[u64], units: &mut Vec<u64>) {
        units.extend_from_slice(root);
    }
    /// Words handed to the kernel as its first argument (its parameters, e.g. the size).
    fn params(&self) -> Vec<u64>;
    /// Runs one unit on the CPU and writes its `RESULT_WORDS` result words: the same code the
    /// kernel runs for a unit.
    fn run_unit(&self, unit: &[u64], result: &mut [u64]);
    /// How many solutions each solution below `unit` stands for: the size of its symmetry
    /// orbit, when the work list keeps one unit of each orbit (a Langford pairing and its
    /// reversal: 2; a unit that is its own mirror image: 1). The engine hands each unit's
    /// weight to [`partial`](Self::partial) with its results ([`UnitResults::weighted_sum`]),
    /// the same on the CPU and the GPU, so the kernel never sees it. 1 (the default): every
    /// unit stands for itself.
    fn weight(&self, unit: &[u64]) -> u64 {
        let _ = unit;
        1
    }
    /// The counts of some finished units: their results, and each one's unit and weight when
    /// they are needed to read it (to rebuild a solution a unit reported only by its value, say).
    fn partial(&self, results: &UnitResults<'_>) -> Self::Partial;
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
/// ([`Search::probe`]) below units drawn at random from the work list (of a streamed list, a
/// root at random and one of the units it expands to), from `seed` (the same seed, the same
/// estimate).
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
        let mut unit = &units[index * S::UNIT_WORDS..(index + 1) * S::UNIT_WORDS];
        // A streamed list's root stands for the units it expands to: one of them at random,
        // weighted by how many there are (the nodes below the units, as a run counts them).
        let expanded;
        let mut weight = count as f64;
        if S::EXPANDS {
            let mut made = Vec::new();
            search.expand(unit, &mut made);
            let units_below = made.len() / S::UNIT_WORDS.max(1);
            if units_below == 0 {
                // A sample of no nodes: it adds nothing to the sums, but it counts.
                continue;
            }
            let chosen = random.random_range(0..units_below);
            expanded = made[chosen * S::UNIT_WORDS..(chosen + 1) * S::UNIT_WORDS].to_vec();
            unit = &expanded;
            weight *= units_below as f64;
        }
        let mut pick = |k: u32| random.random_range(0..k.max(1));
        let nodes = search.probe(unit, &mut pick).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{} cannot be estimated (its description has no probe)",
                search.problem()
            ))
        })? * weight;
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
) -> Result<crate::shard::predict::Prediction> {
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
    let setup = crate::shard::predict::Setup {
        seconds: started.elapsed().as_secs_f64(),
        nodes: 0,
    };
    let quiet = control.clone().with_progress(false);
    crate::shard::predict::predict(chunks, budget, setup, |shard| {
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
/// CPU, whose threads a chunk always fills. A streamed list ([`Search::EXPANDS`]) counts the
/// units its first chunk's roots expand to.
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
    let per_chunk = if S::EXPANDS {
        let roots = search.units();
        let list: Vec<&[u64]> = roots.chunks(S::UNIT_WORDS.max(1)).collect();
        let chunks = list.len().clamp(1, CHUNKS) as u32;
        let partition = Partition::new(search.problem(), search.size(), &list, chunks);
        let first = chunk_units(search, &roots, partition.chunk_range(0))?;
        (first.len() / S::UNIT_WORDS.max(1)) as u64
    } else {
        units / units.clamp(1, CHUNKS as u64)
    };
    let device = gpus.first();
    let function = device.function(&kernel.module(), kernel.name)?;
    let shape = search.launch();
    let shared = shape.block as usize * shape.shared_bytes_per_thread as usize;
    let lanes = u64::from(device.resident_blocks(&function, shape.block, shared)?)
        * u64::from(shape.block)
        * u64::from(device.multiprocessors);
    Ok((per_chunk < lanes).then_some((per_chunk, lanes)))
}

/// Chunks a search's work list is grouped into (fewer when there are fewer units).
pub const CHUNKS: usize = 256;

/// A streamed list's ring ([`Search::EXPANDS`]) holds at least this many units a lane the
/// GPU runs at once, and at least [`RING_UNITS`] units, in at most [`RING_BYTES`].
const RING_LANES: usize = 8;
/// See [`RING_LANES`].
const RING_UNITS: usize = 1 << 20;
/// See [`RING_LANES`].
const RING_BYTES: usize = 256 << 20;

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
    let started = std::time::Instant::now();
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
    // One fed launch a GPU, chunks in the work list's order. (Heaviest first by Knuth's
    // estimate, 16 probes a chunk, was slower on one H100: Costas n = 15 0.037 → 0.042 s,
    // nqueens-simple N = 19 1.84 → 2.00 s; the tail is a few heavy units, not heavy chunks.)
    let workers = Workers::of(backend);
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
        let mut trace = Trace::start();
        match (backend, kernel) {
            (Backend::Gpu(gpus), Some(kernel)) => {
                let device = &gpus.all()[worker];
                let mut fed = || -> Result<()> {
                    let device_params = upload_params(device, &params)?;
                    trace.mark("copying the parameters");
                    let run = FedRun {
                        search,
                        device,
                        kernel,
                        units: &units,
                        partition: &partition,
                        gpus: gpus.len(),
                    };
                    run.run(&device_params, source, control, report)
                };
                fed().map_err(|e| crate::shard::on_device(gpus, device, e))
            }
            (Backend::Cpu(pool), _) => loop {
                let batch = source.batch()?;
                if batch.is_empty() {
                    return Ok(());
                }
                let made = pool.install(|| {
                    batch
                        .par_iter()
                        .map(|&c| chunk_units(search, &units, partition.chunk_range(c)))
                        .collect::<Result<Vec<_>>>()
                })?;
                let results = run_cpu(search, pool, &made, control)?;
                let mut offset = 0;
                for (&chunk, chunk_units) in batch.iter().zip(&made) {
                    let words = chunk_units.len() / S::UNIT_WORDS * S::RESULT_WORDS;
                    report(
                        chunk,
                        search.partial(&UnitResults::of(
                            search,
                            chunk_units,
                            &results[offset..offset + words],
                        )),
                    )?;
                    offset += words;
                }
            },
            (Backend::Gpu(_), None) => {
                Err(Error::Verification("a GPU run without its kernel".into()))
            }
        }
    };
    // The list and its partition are part of the run's time.
    let setup = started.elapsed().as_secs_f64();
    let mut run = run_chunks(
        &partition, selection, checkpoint, control, &workers, run_worker,
    )?;
    run.seconds += setup;
    trace.mark("the chunks");
    Ok((run, partition))
}

/// The units of the work list's positions `range` (`units` is the whole list): the list's own
/// words, or with [`Search::EXPANDS`] what its roots expand to, in the list's order (made on
/// one thread: callers make several chunks at once).
fn chunk_units<'a, S: Search>(
    search: &S,
    units: &'a [u64],
    range: Range<usize>,
) -> Result<std::borrow::Cow<'a, [u64]>> {
    let words = &units[range.start * S::UNIT_WORDS..range.end * S::UNIT_WORDS];
    if !S::EXPANDS {
        return Ok(words.into());
    }
    let mut made = Vec::new();
    for root in words.chunks(S::UNIT_WORDS) {
        search.expand(root, &mut made);
    }
    if !made.len().is_multiple_of(S::UNIT_WORDS) {
        return Err(Error::InvalidArgument(format!(
            "{} expanded its roots into {} words, not whole {}-word units",
            search.problem(),
            made.len(),
            S::UNIT_WORDS
        )));
    }
    Ok(made.into())
}

/// The units of each of `chunks` (`UNIT_WORDS` words each) on every thread of `pool`; their
/// results in order.
fn run_cpu<S: Search>(
    search: &S,
    pool: &rayon::ThreadPool,
    chunks: &[std::borrow::Cow<[u64]>],
    control: &RunControl,
) -> Result<Vec<u64>> {
    let units: Vec<&[u64]> = chunks
        .iter()
        .flat_map(|chunk| chunk.chunks(S::UNIT_WORDS))
        .collect();
    let mut results = vec![0u64; units.len() * S::RESULT_WORDS];
    pool.install(|| {
        results
            .par_chunks_mut(S::RESULT_WORDS)
            .zip(units.par_iter())
            .try_for_each(|(result, unit)| {
                if control.cancelled() {
                    return Err(Error::Interrupted);
                }
                search.run_unit(unit, result);
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

/// One GPU's part of a run of a [`Search`]: one fed launch ([`crate::feed`]) for every chunk
/// the run hands this GPU.
struct FedRun<'a, S: Search> {
    search: &'a S,
    device: &'a GpuDevice,
    kernel: Kernel,
    /// The whole work list.
    units: &'a [u64],
    partition: &'a Partition,
    /// GPUs sharing the run.
    gpus: usize,
}

impl<S: Search> FedRun<'_, S> {
    /// Runs the launch until `source` has no chunk left, reporting each chunk's counts as
    /// soon as its last unit is done (its results read back while the kernel goes on), with
    /// Ctrl-C and the shared bound kept in step.
    fn run(
        &self,
        device_params: &CudaSlice<u64>,
        source: &ChunkSource,
        control: &RunControl,
        report: &dyn Fn(u32, S::Partial) -> Result<()>,
    ) -> Result<()> {
        let (device, kernel) = (self.device, self.kernel);
        let mut trace = Trace::start();
        let function = device.function(&kernel.module(), kernel.name)?;
        trace.mark("loading the kernel");
        let shape = self.search.launch();
        if shape.block == 0 || !shape.block.is_multiple_of(32) {
            return Err(Error::InvalidArgument(format!(
                "a block of {} threads: the engine launches whole warps",
                shape.block
            )));
        }
        let shared = shape.block as usize * shape.shared_bytes_per_thread as usize;
        let blocks =
            device.resident_blocks(&function, shape.block, shared)? * device.multiprocessors;
        let lanes = blocks as usize * shape.block as usize;
        let listed = self.units.len() / S::UNIT_WORDS;
        // A list runs whole from the launch's buffers; a streamed one goes round a ring of
        // units that holds several times what the GPU runs at once (at most 256 MiB; a power
        // of two, so that the kernel finds a position with one `and`).
        let capacity = if S::EXPANDS {
            let bytes = 8 * (S::UNIT_WORDS + S::RESULT_WORDS) + 4;
            let most = 1usize << (RING_BYTES / bytes).max(1).ilog2();
            (RING_LANES * lanes)
                .max(RING_UNITS)
                .next_power_of_two()
                .min(most)
        } else {
            listed.max(1)
        };
        // The kernel's queue counter is a `u32` that every lane raises once more when it finds
        // the queue empty: past `u32::MAX` it would wrap and hand out units again.
        if (capacity + lanes) as u64 > u64::from(u32::MAX) {
            return Err(GpuError::Unsupported(format!(
                "{capacity} units in one launch: at most {} on this GPU (the queue counter is 32 bits)",
                u64::from(u32::MAX) - lanes as u64
            ))
            .into());
        }
        let stream = device.stream();
        let device_units = step(
            "allocating the units",
            stream.alloc_zeros::<u64>(capacity * S::UNIT_WORDS),
        )?;
        let results = step(
            "allocating results",
            stream.alloc_zeros::<u64>(capacity * S::RESULT_WORDS),
        )?;
        let bound = self.search.shared_bound();
        let device_bound = step(
            "copying the bound",
            stream.clone_htod(&[bound.map_or(u64::MAX, SharedBound::get)]),
        )?;
        let buffers = FedBuffers::new(device, capacity, self.partition, 0)?;
        let work: [u64; kernels::work::WORK_WORDS] = [
            device.address(&device_units),
            kernels::work::ring_mask(capacity as u32),
            device.address(&buffers.feed),
            device.address(&buffers.control),
            device.address(&results),
            device.address(&buffers.item_slots),
            device.address(&buffers.slot_counters),
            device.address(&device_bound),
        ];
        let device_work = step("copying the launch's words", stream.clone_htod(&work))?;
        device.synchronize()?;
        trace.mark("allocating");
        // Units `at..` of the launch: at their ring positions, with their results zeroed when
        // the positions were used before (a result is added to, not stored).
        let write_units = |words: &[u64], at: usize| -> Result<()> {
            let position = at % capacity;
            device.poke(&device_units, position * S::UNIT_WORDS, words)?;
            if at >= capacity {
                let zeros = vec![0u64; words.len() / S::UNIT_WORDS * S::RESULT_WORDS];
                device.poke(&results, position * S::RESULT_WORDS, &zeros)?;
            }
            Ok(())
        };
        let write = |range: Range<usize>, at: usize| -> Result<()> {
            write_units(
                &self.units[range.start * S::UNIT_WORDS..range.end * S::UNIT_WORDS],
                at,
            )
        };
        let make = |chunks: &[u32]| -> Result<Vec<Vec<u64>>> {
            chunks
                .par_iter()
                .map(|&chunk| {
                    let range = self.partition.chunk_range(chunk);
                    Ok(chunk_units(self.search, self.units, range)?.into_owned())
                })
                .collect()
        };
        let launch = || -> Result<()> {
            let mut launch = stream.launch_builder(&function);
            launch.arg(device_params).arg(&device_work);
            // SAFETY: the engine's calling convention (`kernels::work`), which `Search`
            // implementors promise their kernel follows: the parameters, and a `Work` block
            // of a ring of `capacity` units of `UNIT_WORDS` words and their `RESULT_WORDS`
            // result words (a position written again only after its unit's chunk was
            // reported, its result zeroed), zeroed feed, queue and chunk counters, a chunk for
            // every position the feed supplies, the bound word; the shared memory
            // `Search::launch` asks for; whole-warp blocks (checked above).
            step(&format!("launching {}", kernel.name), unsafe {
                launch.launch(launch_config(blocks, shape.block, shared))
            })?;
            Ok(())
        };
        // A finished chunk's results, read while the kernel goes on: chunks next to each other
        // in the launch in one copy (two where they go round the ring's end).
        let mut finished = |chunks: &[Finished]| -> Result<()> {
            let mut chunks: Vec<&Finished> = chunks.iter().collect();
            chunks.sort_by_key(|chunk| chunk.items.start);
            let mut first = 0;
            while first < chunks.len() {
                let mut last = first;
                while last + 1 < chunks.len()
                    && chunks[last + 1].items.start == chunks[last].items.end
                {
                    last += 1;
                }
                let items = chunks[first].items.start..chunks[last].items.end;
                let mut read = vec![0u64; items.len() * S::RESULT_WORDS];
                for (piece, position) in ring_pieces(items.clone(), capacity) {
                    let offset = (piece.start - items.start) * S::RESULT_WORDS;
                    device.peek_at(
                        &results,
                        position * S::RESULT_WORDS,
                        &mut read[offset..offset + piece.len() * S::RESULT_WORDS],
                    )?;
                }
                for chunk in &chunks[first..=last] {
                    let offset = (chunk.items.start - items.start) * S::RESULT_WORDS;
                    let words = &read[offset..offset + chunk.items.len() * S::RESULT_WORDS];
                    let chunk_units = if S::EXPANDS {
                        &chunk.made[..]
                    } else {
                        let range = self.partition.chunk_range(chunk.chunk);
                        &self.units[range.start * S::UNIT_WORDS..range.end * S::UNIT_WORDS]
                    };
                    report(
                        chunk.chunk,
                        self.search
                            .partial(&UnitResults::of(self.search, chunk_units, words)),
                    )?;
                }
                first = last + 1;
            }
            Ok(())
        };
        // Keep the GPU's copy of the bound and the run's in step: each takes the lower.
        let mut look = || -> Result<()> {
            let Some(bound) = bound else {
                return Ok(());
            };
            let mut seen = [u64::MAX];
            device.peek(&device_bound, &mut seen)?;
            bound.lower(seen[0]);
            let best = bound.get();
            if best < seen[0] {
                device.poke(&device_bound, 0, &[best])?;
            }
            Ok(())
        };
        // One GPU takes a whole list before the launch (one copy). Of a streamed list it makes
        // a unit a lane before the launch (the GPU starts while the host makes the rest) and
        // then keeps half its ring ahead. Several GPUs keep about a unit a lane ahead of their
        // claims, so that none holds work another could take.
        let pace = match (self.gpus, S::EXPANDS) {
            (1, false) => Pace {
                first: usize::MAX,
                low: 0,
                top_up: 0,
                cover: std::time::Duration::ZERO,
            },
            (1, true) => Pace {
                // A quarter of the lanes' worth: the GPU starts sooner, and the host makes the
                // rest while it runs (a short run's first supply was 10 % of its time).
                first: lanes.div_ceil(4),
                low: capacity / 2,
                top_up: capacity / 4,
                cover: std::time::Duration::ZERO,
            },
            (gpus, false) => Pace {
                first: (capacity / (2 * gpus)).max(lanes),
                low: lanes,
                top_up: lanes,
                cover: std::time::Duration::from_millis(20),
            },
            (_, true) => Pace {
                first: lanes,
                low: lanes,
                top_up: lanes,
                cover: std::time::Duration::from_millis(20),
            },
        };
        let items = if S::EXPANDS {
            FedLaunch::made(S::UNIT_WORDS, &make, &write_units, &launch, &mut finished)
        } else {
            FedLaunch::new(&write, &launch, &mut finished)
        };
        let outcome = run_fed(
            device,
            self.partition,
            source,
            &buffers,
            pace,
            control,
            items.with_look(&mut look),
        );
        trace.mark("the launch (first supply to last chunk)");
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::Shard;

    /// Numbers below 100,000 divisible by 7, one unit a block of `ROOT` numbers; `STREAMED`,
    /// each of them a root expanded into blocks of `BLOCK` (none for roots that `skip` names,
    /// whose numbers are then not counted).
    struct Sevens<const STREAMED: bool> {
        skip: u64,
        ragged: bool,
    }

    const ROOT: u64 = 1000;
    const BLOCK: u64 = 10;

    #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Count {
        count: u64,
        units: u64,
    }

    impl Partial for Count {
        fn add(&mut self, other: &Self) {
            self.count += other.count;
            self.units += other.units;
        }
        fn nodes(&self) -> u128 {
            self.count.into()
        }
    }

    impl<const STREAMED: bool> Search for Sevens<STREAMED> {
        type Partial = Count;
        const UNIT_WORDS: usize = 2;
        const RESULT_WORDS: usize = 1;
        const EXPANDS: bool = STREAMED;
        fn problem(&self) -> &str {
            "sevens"
        }
        fn size(&self) -> u32 {
            100_000
        }
        fn units(&self) -> Vec<u64> {
            (0..100_000 / ROOT).flat_map(|r| [r * ROOT, ROOT]).collect()
        }
        fn expand(&self, root: &[u64], units: &mut Vec<u64>) {
            if self.skip > 0 && (root[0] / ROOT).is_multiple_of(self.skip) {
                return;
            }
            for b in 0..root[1] / BLOCK {
                units.extend([root[0] + b * BLOCK, BLOCK]);
            }
            if self.ragged {
                units.push(0);
            }
        }
        fn params(&self) -> Vec<u64> {
            vec![]
        }
        fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
            let (start, len) = (unit[0], unit[1]);
            result[0] = (start..start + len).filter(|i| i % 7 == 0).count() as u64;
        }
        fn partial(&self, results: &UnitResults<'_>) -> Count {
            Count {
                count: results.sum(0),
                units: results.len() as u64,
            }
        }
        fn kernel(&self) -> Option<Kernel> {
            None
        }
    }

    fn cpu() -> Backend {
        Backend::Cpu(crate::device::backend::cpu_pool(Some(2)).unwrap())
    }

    /// Every number below 1000 once, a unit a number, the odd ones standing for themselves and
    /// the next even number (weight 2): a work list of one unit an orbit {2k − 1, 2k}.
    struct Pairs;

    impl Search for Pairs {
        type Partial = Count;
        const UNIT_WORDS: usize = 1;
        const RESULT_WORDS: usize = 2;
        fn problem(&self) -> &str {
            "pairs"
        }
        fn size(&self) -> u32 {
            1000
        }
        fn units(&self) -> Vec<u64> {
            (1..1000).step_by(2).chain([0]).collect()
        }
        fn weight(&self, unit: &[u64]) -> u64 {
            if unit[0] == 0 { 1 } else { 2 }
        }
        fn params(&self) -> Vec<u64> {
            vec![]
        }
        fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
            // A multiple of 7 counted, and one node visited.
            result.copy_from_slice(&[unit[0].is_multiple_of(7) as u64, 1]);
        }
        fn partial(&self, results: &UnitResults<'_>) -> Count {
            Count {
                count: results.weighted_sum(0),
                units: results.sum(1),
            }
        }
        fn kernel(&self) -> Option<Kernel> {
            None
        }
    }

    #[test]
    fn weights_count_each_unit_for_its_orbit_and_leave_the_plain_sums_alone() {
        let result = run(&Pairs, &cpu(), &RunControl::quiet(), Shard::WHOLE, None).unwrap();
        // The odd multiples of 7 below 1000 (71 of them) twice, and 0 once.
        assert_eq!(result.counts.count, 2 * 71 + 1);
        assert_eq!(result.counts.units, 501);
        let (units, results) = ([0u64, 7, 9], [1u64, 1, 1, 1, 0, 1]);
        let finished = UnitResults::of(&Pairs, &units, &results);
        assert_eq!(
            (finished.len(), finished.weighted_sum(0), finished.sum(1)),
            (3, 3, 3)
        );
        let weights: Vec<u64> = finished.iter().map(|u| u.weight).collect();
        assert_eq!(weights, [1, 2, 2]);
        assert_eq!(
            finished.iter().nth(1).map(|u| u.result),
            Some(&[1u64, 1][..])
        );
    }

    #[test]
    fn a_streamed_list_counts_what_its_roots_would_and_keeps_their_fingerprint() {
        let (streamed, listed) = (
            Sevens::<true> {
                skip: 0,
                ragged: false,
            },
            Sevens::<false> {
                skip: 0,
                ragged: false,
            },
        );
        let quiet = RunControl::quiet();
        let whole = run(&streamed, &cpu(), &quiet, Shard::WHOLE, None).unwrap();
        let listed = run(&listed, &cpu(), &quiet, Shard::WHOLE, None).unwrap();
        assert_eq!(
            whole.counts.count,
            (0..100_000).filter(|i| i % 7 == 0).count() as u64
        );
        assert_eq!(whole.counts.count, listed.counts.count);
        // The units that ran: each root's 100 blocks, against the list's one unit a root.
        assert_eq!((whole.counts.units, listed.counts.units), (10_000, 100));
        assert_eq!(whole.partition, listed.partition);
        // Shards of the streamed list add up to the whole.
        let parts: u64 = (1..=3)
            .map(|i| {
                let shard = Shard::new(i, 3).unwrap();
                run(&streamed, &cpu(), &quiet, shard, None)
                    .unwrap()
                    .counts
                    .count
            })
            .sum();
        assert_eq!(parts, whole.counts.count);
    }

    #[test]
    fn roots_without_units_count_nothing_and_ragged_units_are_errors() {
        let quiet = RunControl::quiet();
        // Every third root expands to nothing: its thousand numbers are not counted.
        let sparse = Sevens::<true> {
            skip: 3,
            ragged: false,
        };
        let counted = run(&sparse, &cpu(), &quiet, Shard::WHOLE, None).unwrap();
        let expected = (0..100_000u64)
            .filter(|i| !(i / ROOT).is_multiple_of(3) && i % 7 == 0)
            .count() as u64;
        assert_eq!(counted.counts.count, expected);
        let ragged = Sevens::<true> {
            skip: 0,
            ragged: true,
        };
        let error = run(&ragged, &cpu(), &quiet, Shard::WHOLE, None).unwrap_err();
        assert!(
            error.to_string().contains("not whole 2-word units"),
            "{error}"
        );
    }
}
