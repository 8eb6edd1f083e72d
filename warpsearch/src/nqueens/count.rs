//! Splitting the search into subproblems and running them on the CPU or the GPU.

use super::jobs::{Estimator, JobList};
use super::{Counts, known, reference, validate};
use crate::backend::Backend;
use crate::error::{Error, GpuError, Result};
use crate::feed::{FedBuffers, FedLaunch, Finished, Pace, run_fed};
use crate::gpu::{GpuDevice, launch_config, step};
use crate::run::RunControl;
use crate::shard::{
    CheckpointFile, ChunkSource, DeviceShare, Partition, Selection, Shard, ShardResult,
};
use cudarc::driver::{CudaFunction, PushKernelArg};
use kernels::nqueens::constellation::{self, Counter, Found, Job, Level};
use kernels::nqueens::{
    MAX_PREFIX_ROWS, MIN_SYMMETRY_N, Search, Subproblem, Tally, enumerate_prefixes,
};
use rayon::prelude::*;
use std::time::Instant;

/// Subproblems per CPU thread the split aims for: many more than threads, because their sizes
/// vary by orders of magnitude and rayon balances by stealing whole items. (512 left N=18 with
/// 1,354 subproblems and a long tail: 83 % of two cores busy.)
const CPU_SUBPROBLEMS_PER_THREAD: u64 = 8192;
/// Subproblems a rayon task runs before it checks for Ctrl-C and updates the progress bar.
const CPU_CHUNK: usize = 4;
/// The constellation counter on a CPU core, with two rows of look-ahead: ≈ 20 more
/// instructions a step for ≈ 1.25× fewer steps pays on a CPU (n = 16, one core: 1.54 →
/// 1.37 s), not on a GPU, which keeps one (`kernels::entry`).
type CpuCounter = Counter<[Level; 32], 2>;

/// Threads per GPU block (`WARPSEARCH_BLOCK` overrides it for tuning runs).
const GPU_BLOCK: u32 = 128;
/// Subproblems per resident GPU thread the split aims for (`WARPSEARCH_SPLIT` overrides it).
const GPU_SUBPROBLEMS_PER_THREAD: u64 = 16;
/// The most subproblems a GPU run is split into (8 bytes each, on the host and the GPU).
const GPU_MAX_SUBPROBLEMS: u64 = 1 << 26;

/// Subproblems per resident GPU thread for board size `n`: 16 up to N=20, then 4× more per
/// size, because each size's tree is ≈ 8× larger and one launch runs until its slowest thread
/// is done: a thread searches ≈ 10⁶ nodes/s, so a subproblem must stay well under a second's
/// work for the run's tail to stay short.
fn gpu_split(n: u32) -> u64 {
    let base = tuning("WARPSEARCH_SPLIT", GPU_SUBPROBLEMS_PER_THREAD);
    base << (2 * n.saturating_sub(20).min(8))
}

/// Steps a GPU lane takes between two work-refill votes of its warp (see the kernel);
/// `WARPSEARCH_STEPS_PER_POLL` overrides it for tuning runs.
const GPU_STEPS_PER_POLL: u32 = 16;

/// A positive integer from the environment, for tuning runs; `default` otherwise.
fn tuning<T: std::str::FromStr + PartialOrd + Default>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|v| *v > T::default())
        .unwrap_or(default)
}

fn steps_per_poll() -> u32 {
    tuning("WARPSEARCH_STEPS_PER_POLL", GPU_STEPS_PER_POLL)
}

fn gpu_block() -> u32 {
    // Whole warps only: the kernel's collectives need every lane of a warp.
    tuning("WARPSEARCH_BLOCK", GPU_BLOCK).next_multiple_of(32)
}

/// The counting method: border constellations or the row-by-row search with its symmetry
/// tests. Both backends count by constellations (measured, `docs/notes/nqueens-gpu.md`): on
/// the GPU their uniform steps keep 30 of 32 lanes busy where the row search kept 10; on a CPU
/// core, searched upside down with two rows of look-ahead, they visit 2.3× fewer nodes than
/// the row search (n = 16, one core: 1.37 s against 1.83 s).
/// `WARPSEARCH_NQUEENS_ENGINE=rows` picks the row search instead, for comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Constellations,
    Rows,
}

fn engine() -> Engine {
    if std::env::var("WARPSEARCH_NQUEENS_ENGINE").as_deref() == Ok("rows") {
        Engine::Rows
    } else {
        Engine::Constellations
    }
}

/// Counts `n`-queens solutions on `backend`.
pub fn count_on(n: u32, backend: &Backend, control: &RunControl) -> Result<Counts> {
    validate(n)?;
    let started = Instant::now();
    if n < MIN_SYMMETRY_N {
        let (total, unique, nodes) = reference::count_by_brute_force(n)?;
        return Ok(finish(
            n,
            backend,
            started,
            total.into(),
            unique.into(),
            nodes.into(),
        ));
    }
    let fed_gpu = matches!(backend, Backend::Gpu(_)) && n >= FED_MIN_N;
    if engine() == Engine::Constellations && (fed_gpu || n > LAST_WHOLE_RUN_N) {
        // The GPUs (one or several) share the chunks of the work list, as the shards of a
        // cluster run do, each in one launch that the host feeds while it runs: the host makes
        // the jobs while the GPU is already counting.
        let result = count_shard(n, backend, control, Shard::WHOLE, None)?;
        let mut counts = result
            .counts
            .counts(n, backend.kind(), started.elapsed().as_secs_f64());
        counts.devices = result.per_device;
        return Ok(counts);
    }
    if engine() == Engine::Constellations {
        return count_constellations(n, backend, control, started);
    }
    let target = match backend {
        Backend::Cpu(pool) => CPU_SUBPROBLEMS_PER_THREAD * pool.current_num_threads() as u64,
        Backend::Gpu(gpus) => {
            (gpu_split(n) * gpu_resident_threads(gpus.first(), n)? as u64).min(GPU_MAX_SUBPROBLEMS)
        }
    };
    let (subproblems, prefix_nodes) = split(n, target);
    let mut tally = match backend {
        Backend::Cpu(pool) => run_cpu(pool, n, &subproblems, control)?,
        Backend::Gpu(gpus) => run_gpu(gpus.first(), n, &subproblems, control)?,
    };
    tally.nodes += prefix_nodes;
    Ok(finish(
        n,
        backend,
        started,
        tally.total().into(),
        tally.unique().into(),
        tally.nodes.into(),
    ))
}

/// The number of jobs [`count_on`] aims its work list at on `backend` when it does not feed
/// the GPU chunk by chunk (the CPU, and GPU counts below `FED_MIN_N`).
fn whole_run_target(n: u32, backend: &Backend) -> Result<u64> {
    Ok(match backend {
        Backend::Cpu(pool) => CPU_SUBPROBLEMS_PER_THREAD * pool.current_num_threads() as u64,
        Backend::Gpu(gpus) => (gpu_split(n)
            * gpu_resident_constellation_threads(gpus.first(), n, n)? as u64)
            .min(GPU_MAX_SUBPROBLEMS),
    })
}

/// [`count_on`] by border constellations (`kernels::nqueens::constellation`).
fn count_constellations(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    started: Instant,
) -> Result<Counts> {
    let list = JobList::new(n, whole_run_target(n, backend)?, estimator(backend))?;
    let jobs = list.all();
    let mut found = list.found;
    let (searched, (s180, s90)) = match backend {
        Backend::Cpu(pool) => {
            let searched = run_cpu_jobs(pool, n, &jobs, control)?;
            (searched, pool.install(|| symmetric_counts(n)))
        }
        // The host counts the symmetric solutions while the GPU runs.
        Backend::Gpu(gpus) => std::thread::scope(|scope| {
            let symmetric = scope.spawn(|| symmetric_counts(n));
            let searched = run_gpu_jobs(gpus.first(), n, &jobs, control);
            let symmetric = symmetric
                .join()
                .map_err(|_| Error::Verification("the symmetric count panicked".into()));
            Ok::<_, Error>((searched?, symmetric?))
        })?,
    };
    found.add(&searched);
    let total = found.solutions;
    let mut counts = finish(
        n,
        backend,
        started,
        total.into(),
        constellation::classes(total.into(), s180, s90),
        found.nodes.into(),
    );
    if let Backend::Gpu(gpus) = backend {
        counts.devices = vec![DeviceShare {
            device: gpus.first().label(),
            chunks: 0,
            units: jobs.len() as u64,
            nodes: searched.nodes.into(),
            seconds: counts.seconds,
        }];
    }
    Ok(counts)
}

/// The largest N counted in one piece on the CPU (and by the row search): a whole run adds up
/// its nodes in `u64`, which N = 28's ≈ 3·10¹⁹ would pass, so larger sizes are counted chunk
/// by chunk ([`count_shard`]), each chunk's counts well inside `u64` and the sums in `u128`.
const LAST_WHOLE_RUN_N: u32 = 27;

/// The smallest N counted by fed launches over the chunked work list (on one GPU or several):
/// below it one GPU takes well under a second, less than making the chunked work list and
/// starting a second GPU's share cost, and one launch over the whole list is as fast. From
/// N=20 the fed launch hides the host's making of the jobs (one H100: N=20 1.11 → 1.02 s,
/// N=21 8.22 → 7.87 s, `docs/notes/nqueens-gpu.md`, 2026-11-24, commit 0e15375).
const FED_MIN_N: u32 = 20;

/// Counts of an N-Queens count that add up across chunks and shards: the weighted solutions of
/// the constellations, the nodes, and (in chunk 0's share) the rotation-symmetric solutions.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Partial {
    /// Solutions found (each completion weighted by its constellation's orbit).
    pub solutions: u128,
    /// Queens placed.
    pub nodes: u128,
    /// 180°-symmetric solutions (counted once, with chunk 0).
    pub s180: u64,
    /// 90°-symmetric solutions (counted once, with chunk 0).
    pub s90: u64,
}

impl crate::shard::Partial for Partial {
    fn add(&mut self, other: &Self) {
        self.solutions += other.solutions;
        self.nodes += other.nodes;
        self.s180 += other.s180;
        self.s90 += other.s90;
    }
    fn nodes(&self) -> u128 {
        self.nodes
    }
}

impl Partial {
    /// The counts of a complete search (every shard merged).
    pub fn counts(&self, n: u32, backend: &'static str, seconds: f64) -> Counts {
        let unique = constellation::classes(self.solutions, self.s180, self.s90);
        Counts {
            n,
            total: self.solutions,
            unique,
            backend,
            seconds,
            nodes: self.nodes,
            known_match: known(n).map(|expected| expected == (self.solutions, unique)),
            devices: Vec::new(),
        }
    }
}

/// Jobs a sharded count's work list aims for at size `n`: fixed for each size, so that the
/// list (and each shard) is the same on every machine. 2²² below N=20, 2²⁴ at N=20 and 21,
/// 2²⁶ from N=22: each size's tree is ≈ 8× larger, and a run ends with its longest jobs, so
/// jobs must stay short against the run (N=21 on two H200s: 1.9 M jobs of ≈ 0.7 s each left
/// 1.77× scaling). At N=20 the finer list (11 M jobs, one row fewer left each) also needs one
/// stack level less, so more warps fit on an SM: one H100 1.02 → 0.97–1.00 s.
///
/// `WARPSEARCH_JOBS_LOG2` sets the target to a power of two for tuning runs (the list then
/// differs, so shards and checkpoints of such runs only match runs with the same setting).
fn sharded_target(n: u32) -> u64 {
    let log2 = match n {
        ..20 => 22,
        20 | 21 => 24,
        _ => 26,
    };
    1 << tuning("WARPSEARCH_JOBS_LOG2", log2).min(30)
}

/// Where `backend` makes the estimates that choose the images of a work list: on its first GPU,
/// or on the CPU (the same numbers either way).
fn estimator(backend: &Backend) -> Estimator<'_> {
    match backend {
        Backend::Cpu(_) => Estimator::Cpu,
        Backend::Gpu(gpus) => Estimator::Gpu(gpus.first()),
    }
}

/// The estimates of [`kernels::nqueens::estimate::estimated_work`] for `boards` of size `n`,
/// each with its probes' key, made on `device` in one launch.
pub(super) fn gpu_estimates(
    device: &GpuDevice,
    n: u32,
    boards: &[Job],
    keys: &[[u64; 2]],
    probes: u32,
) -> Result<Vec<u64>, GpuError> {
    if boards.is_empty() {
        return Ok(Vec::new());
    }
    let count = u32::try_from(boards.len())
        .map_err(|_| GpuError::Unsupported(format!("{} boards (at most 2³² − 1)", boards.len())))?;
    let stream = device.stream();
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_nqueens_estimate")?;
    let words: Vec<u64> = boards.iter().flat_map(|board| board.to_words()).collect();
    let key_words: Vec<u64> = keys.iter().flatten().copied().collect();
    let device_boards = step("copying boards to the GPU", stream.clone_htod(&words))?;
    let device_keys = step("copying keys to the GPU", stream.clone_htod(&key_words))?;
    let mut estimates = step(
        "allocating estimates",
        stream.alloc_zeros::<u64>(boards.len()),
    )?;
    let config = launch_config(count.div_ceil(ESTIMATE_BLOCK), ESTIMATE_BLOCK, 0);
    let mut launch = stream.launch_builder(&function);
    launch
        .arg(&n)
        .arg(&device_boards)
        .arg(&device_keys)
        .arg(&count)
        .arg(&probes)
        .arg(&mut estimates);
    // SAFETY: arguments match `warpsearch_nqueens_estimate`: `count` boards of 5 words, `count`
    // keys of 2 words, `count` result words.
    step("launching the N-Queens estimate kernel", unsafe {
        launch.launch(config)
    })?;
    let estimates = step("reading the estimates", stream.clone_dtoh(&estimates))?;
    device.synchronize()?;
    Ok(estimates)
}

/// Threads per block of the estimate kernel: one board each, no shared memory.
const ESTIMATE_BLOCK: u32 = 64;

/// Chunks of a sharded count: the unit of shards and checkpoints.
const SHARDED_CHUNKS: usize = 256;

/// The work list of a sharded count of size `n` (made chunk by chunk as chunks are handed
/// out) and the partition's identity.
fn sharded_partition(n: u32, backend: &Backend) -> Result<(JobList, Partition)> {
    validate(n)?;
    if n < MIN_SYMMETRY_N {
        return Err(Error::InvalidArgument(format!(
            "N = {n} is too small to shard: count it whole"
        )));
    }
    let list = JobList::new(n, sharded_target(n), estimator(backend))?;
    let chunks = list.len().clamp(1, SHARDED_CHUNKS) as u32;
    let partition =
        Partition::identified("nqueens", n, list.len() as u64, chunks, &list.identity());
    Ok((list, partition))
}

/// Counts shard `shard` of the `n`-queens count on `backend`, resuming from and saving to
/// `checkpoint` when given. The result's counts add up with the other shards' in
/// [`crate::shard::merge`]; [`Partial::counts`] turns the sum into the answer.
pub fn count_shard(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    shard: Shard,
    checkpoint: Option<&CheckpointFile>,
) -> Result<ShardResult<Partial>> {
    let (run, partition) = count_selection(n, backend, control, shard.into(), checkpoint)?;
    run.into_result(partition, shard, backend)
}

/// Counts the chunks `chunks` of the `n`-queens count's work list (the list a sharded count
/// makes: the same on every machine and backend) on `backend`: what `warpsearch verify`
/// recounts. Returns each chunk's counts and the work list's partition.
pub fn count_chunks(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    chunks: std::collections::BTreeSet<u32>,
) -> Result<(crate::shard::ChunkRun<Partial>, Partition)> {
    count_selection(n, backend, control, Selection::Chunks(chunks), None)
}

/// [`count_shard`] and [`count_chunks`]: makes the work list, starts the symmetric counts
/// when chunk 0 is among `selection`'s, and runs the chunks.
fn count_selection(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    selection: Selection,
    checkpoint: Option<&CheckpointFile>,
) -> Result<(crate::shard::ChunkRun<Partial>, Partition)> {
    let (list, partition) = sharded_partition(n, backend)?;
    // The symmetric counts go with chunk 0; they are counted on the host while the search
    // runs, so that reporting chunk 0 does not hold up its worker.
    std::thread::scope(|scope| {
        let owns_chunk_0 = selection.has_chunk_0();
        let symmetric =
            std::sync::Mutex::new(owns_chunk_0.then(|| scope.spawn(move || symmetric_counts(n))));
        let symmetric_counts_now = || {
            let handle = symmetric.lock().ok().and_then(|mut h| h.take());
            handle
                .and_then(|h| h.join().ok())
                .unwrap_or_else(|| symmetric_counts(n))
        };
        let run = count_shard_with(
            n,
            backend,
            control,
            selection,
            checkpoint,
            (&list, &partition),
            &symmetric_counts_now,
        )?;
        Ok((run, partition))
    })
}

/// Predicts the count of `n` on `backend` (nodes, seconds, ranges) within about `budget`
/// seconds ([`crate::predict`]). Up to the calibration size (N = 22 on GPUs, 16 on the CPU) it
/// counts levels of a sample of the work list's chunks there. Past it, a chunk can take hours
/// (N = 28: days), so the nodes come from Knuth's random probes of every start of the work
/// list and the time per node from a counted sample of the calibration size on the same
/// devices ([`crate::predict::Prediction::from_probes`]); when that predicts a sample of this size's own chunks to fit in
/// four budgets, the size is sampled itself instead (it is the more exact).
pub fn estimate(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    budget: f64,
) -> Result<crate::predict::Prediction> {
    validate(n)?;
    if n < MIN_SYMMETRY_N {
        return Err(Error::InvalidArgument(format!(
            "N = {n} is too small to estimate: count it, it takes a moment"
        )));
    }
    let started = Instant::now();
    let calibration = calibration_n(backend);
    let by_sample = |started: Instant| -> Result<crate::predict::Prediction> {
        let (list, partition) = estimate_list(n, backend)?;
        let setup = crate::predict::Setup {
            seconds: started.elapsed().as_secs_f64(),
            nodes: list.found.nodes.into(),
        };
        estimate_by_sample(n, backend, control, budget, (&list, &partition), setup)
    };
    if n <= calibration {
        return by_sample(started);
    }
    // The count's own list, images chosen as it chooses them: on a CPU that is most of an
    // estimate's time (N = 28 on two cores: 42 s; 100 probes instead of 1,000 took 7 s but
    // picked worse images, +4 % nodes).
    let (list, partition) = estimate_list(n, backend)?;
    let setup = crate::predict::Setup {
        seconds: started.elapsed().as_secs_f64(),
        nodes: 0,
    };
    let probed = list.probe_nodes(ESTIMATE_PROBES, ESTIMATE_BATCHES);
    let (cal_list, cal_partition) = estimate_list(calibration, backend)?;
    let cal_setup = crate::predict::Setup {
        seconds: 0.0,
        nodes: cal_list.found.nodes.into(),
    };
    let calibrated = estimate_by_sample(
        calibration,
        backend,
        control,
        budget.max(CALIBRATION_BUDGET),
        (&cal_list, &cal_partition),
        cal_setup,
    )?;
    let prediction = crate::predict::Prediction::from_probes(
        partition.chunks,
        probed,
        setup,
        &calibrated,
        calibration,
        started.elapsed().as_secs_f64(),
    );
    let smallest_sample = crate::predict::smallest_sample(partition.chunks);
    if prediction.seconds * smallest_sample <= 4.0 * budget {
        return by_sample(Instant::now());
    }
    Ok(prediction)
}

/// The largest size predicted from a counted sample of its own chunks before random probes
/// take over: one whose seven sampled chunks take a second or two (N = 22 on an H100: 1.5 s;
/// N = 16 on two CPU cores: about as long).
fn calibration_n(backend: &Backend) -> u32 {
    match backend {
        Backend::Gpu(_) => 22,
        Backend::Cpu(_) => 16,
    }
}

/// The least budget of the sample that calibrates a prediction by probes. Its levels must be
/// long against a launch's fixed cost (≈ 0.5 s): with 3 s of N = 22 on one H200 (levels of
/// 1..8 chunks, ≤ 2 s each) three calibrations gave 1.70, 1.95 and 2.17·10⁻¹² s a node.
const CALIBRATION_BUDGET: f64 = 12.0;

/// Probes per start of [`JobList::probe_nodes`] in an estimate, in batches: 1.3–2.2 % below
/// the counted nodes at N = 12..15 (the test in `jobs.rs`), 1.1 % below at N = 20.
const ESTIMATE_PROBES: u32 = 256;
const ESTIMATE_BATCHES: u32 = 8;

/// The work list the count of `n` on `backend` would make, cut into the 256 chunks of a
/// sharded count, so that a sample is of the very jobs the count runs. (Cut into 4096, the
/// samples of N = 23 on an H100 were launches too small to fill the GPU: 27 % over the time.)
fn estimate_list(n: u32, backend: &Backend) -> Result<(JobList, Partition)> {
    let target = match backend {
        Backend::Gpu(_) if n >= FED_MIN_N => sharded_target(n),
        _ => whole_run_target(n, backend)?,
    };
    let list = JobList::new(n, target, estimator(backend))?;
    let chunks = list.len().clamp(1, SHARDED_CHUNKS) as u32;
    let partition =
        Partition::identified("nqueens", n, list.len() as u64, chunks, &list.identity());
    Ok((list, partition))
}

/// [`estimate`] by counting levels of a sample of `list`'s chunks.
fn estimate_by_sample(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    budget: f64,
    (list, partition): (&JobList, &Partition),
    setup: crate::predict::Setup,
) -> Result<crate::predict::Prediction> {
    let quiet = control.clone().with_progress(false);
    // The samples leave chunk 0 out, so the symmetric counts are never asked for.
    let no_symmetric = || (0, 0);
    crate::predict::predict(partition.chunks, budget, setup, |shard| {
        let result = count_shard_with(
            n,
            backend,
            &quiet,
            shard.into(),
            None,
            (list, partition),
            &no_symmetric,
        )?;
        Ok((result.counts.nodes, result.seconds))
    })
}

/// The chunks of `selection` once the work list is made and the symmetric counts are under
/// way.
fn count_shard_with(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    selection: Selection,
    checkpoint: Option<&CheckpointFile>,
    (list, partition): (&JobList, &Partition),
    symmetric: &(dyn Fn() -> (u64, u64) + Sync),
) -> Result<crate::shard::ChunkRun<Partial>> {
    // Chunk 0 also carries what the enumeration found and the symmetric counts.
    let extra = |chunk: u32| -> Partial {
        if chunk != 0 {
            return Partial::default();
        }
        let (s180, s90) = symmetric();
        Partial {
            solutions: list.found.solutions.into(),
            nodes: list.found.nodes.into(),
            s180,
            s90,
        }
    };
    let with_found = |mut part: Partial, found: Found| {
        part.solutions += u128::from(found.solutions);
        part.nodes += u128::from(found.nodes);
        part
    };
    // One worker per GPU (each feeds its own launch) or the CPU pool.
    let workers = crate::shard::Workers::of(backend);
    // A GPU's launch is fed the chunks it takes (reporting each as its last job is done); the
    // CPU runs one chunk at a time. Only the whole shard shows progress.
    let levels = list.levels;
    let run_worker = |worker: usize,
                      source: &ChunkSource,
                      control: &RunControl,
                      report: &dyn Fn(u32, Partial) -> Result<()>|
     -> Result<()> {
        let quiet = control.clone().with_progress(false);
        let report_found =
            |chunk: u32, found: Found| report(chunk, with_found(extra(chunk), found));
        match backend {
            Backend::Cpu(pool) => loop {
                let chunks = source.batch()?;
                if chunks.is_empty() {
                    return Ok(());
                }
                for &chunk in &chunks {
                    let jobs = list.jobs(partition.chunk_range(chunk));
                    let found = run_cpu_jobs(pool, n, &jobs, &quiet)?;
                    report_found(chunk, found)?;
                }
            },
            // One launch per GPU for the whole run, fed chunk by chunk as it goes.
            Backend::Gpu(gpus) => {
                let device = &gpus.all()[worker];
                run_gpu_fed(
                    device,
                    n,
                    list,
                    partition,
                    levels,
                    source,
                    &quiet,
                    &report_found,
                )
                .map_err(|e| crate::shard::on_device(gpus, device, e))
            }
        }
    };
    crate::shard::run_chunks(
        partition, selection, checkpoint, control, &workers, run_worker,
    )
}

/// The 180°- and 90°-symmetric solutions (`S180`, `S90`), one task per column of row 0's queen.
fn symmetric_counts(n: u32) -> (u64, u64) {
    (0..n)
        .into_par_iter()
        .map(|first| constellation::symmetric_counts_from(n, first))
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

fn run_cpu_jobs(
    pool: &rayon::ThreadPool,
    n: u32,
    jobs: &[Job],
    control: &RunControl,
) -> Result<Found> {
    let progress = control.progress_bar(jobs.len() as u64, &format!("{n}-queens (CPU)"));
    let found = pool.install(|| {
        jobs.par_chunks(CPU_CHUNK)
            .map(|chunk| {
                let found =
                    run_units_fast(CpuCounter::new(n, [Level::default(); 32]), chunk, control)?;
                progress.advance(chunk.len() as u64);
                Some(found)
            })
            .try_reduce(Found::default, |mut a, b| {
                a.add(&b);
                Some(a)
            })
    });
    progress.finish();
    found.ok_or(Error::Interrupted)
}

/// Stack slots the jobs need (see `Counter`).
fn levels(n: u32, jobs: &[Job]) -> u32 {
    jobs.iter()
        .map(|job| constellation::stack_levels(n - job.frontier.queens()))
        .max()
        .unwrap_or(1)
}

/// Shared memory a block of `block` threads of the constellation kernel needs for `levels`
/// levels a thread.
fn constellation_shared_bytes(block: u32, levels: u32) -> usize {
    (block / 32 * levels * CONSTELLATION_WARP_LEVEL_BYTES) as usize
}

/// The block size, its shared memory and the resident blocks of the whole GPU for a
/// constellation launch with `levels` levels a thread: the block size (a whole number of warps
/// up to 256) that keeps the most warps resident, since shared memory limits them and is
/// handed out by block (at 11 levels, blocks of 64 threads keep 26 warps an SM of an H100,
/// blocks of 128 keep 24). `WARPSEARCH_BLOCK` fixes the size for tuning runs.
fn constellation_shape(
    device: &GpuDevice,
    function: &CudaFunction,
    levels: u32,
) -> Result<(u32, usize, u32), GpuError> {
    let sizes: Vec<u32> = match std::env::var("WARPSEARCH_BLOCK") {
        Ok(_) => vec![gpu_block()],
        Err(_) => (1..=8).map(|warps| 32 * warps).collect(),
    };
    let mut best = (0, 0, 0);
    for block in sizes {
        let shared = constellation_shared_bytes(block, levels);
        let blocks = device.resident_blocks(function, block, shared)?;
        // Ties go to the larger block (fewer blocks for the same warps).
        if blocks * block >= best.2 * best.0 {
            best = (block, shared, blocks);
        }
    }
    let (block, shared, blocks) = best;
    Ok((block, shared, blocks * device.multiprocessors))
}

/// Steps a lane of the constellation kernel takes between two refill votes of its warp
/// (measured at N=20 on the H100: 8 → 2.73 s, 16 → 2.69 s, 32 → 2.60 s).
const CONSTELLATION_STEPS_PER_POLL: u32 = 32;

/// The same for the fed launch, whose jobs are large (N ≥ 20 on one GPU, shards and several
/// GPUs): a lane that finishes a job waits longer for the next, but the warp meets, votes and
/// reads the cancel word a quarter as often. H100, 2026-11-24 (commit 3b8df03), N=21: 32 → 6.94 s,
/// 64 → 6.88 s, 128 → 6.84 s, 256 and 512 the same.
const FED_STEPS_PER_POLL: u32 = 128;

/// Bytes of one stack level of a warp in the constellation kernel (`SharedLevels`).
const CONSTELLATION_WARP_LEVEL_BYTES: u32 = 768;

/// Threads the GPU keeps resident for the constellation kernel with stacks for `rows` rows.
fn gpu_resident_constellation_threads(
    device: &GpuDevice,
    _n: u32,
    rows: u32,
) -> Result<u32, GpuError> {
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_nqueens_constellation")?;
    // Blocks of the default size, whatever size the launch takes: the work list, split for
    // this many threads, stays the one that was tuned (with the launch's own choice, N=17 got
    // a coarser list: 0.04 → 0.10 s).
    let block = gpu_block();
    let levels = rows.saturating_sub(4).max(2);
    let blocks =
        device.resident_blocks(&function, block, constellation_shared_bytes(block, levels))?;
    Ok(blocks * block * device.multiprocessors)
}

/// Runs the chunks `source` hands this GPU in one launch that lasts the whole run
/// ([`crate::feed`]): the host writes a chunk's jobs into the kernel's job list while it runs,
/// keeping about two jobs per resident lane supplied ahead of what the kernel has claimed, so
/// the GPU never waits and takes more chunks exactly as fast as it finishes them. Each chunk
/// is reported the moment its last job is done. The kernel's own work queue gives every lane
/// a new job as soon as its last one ends, so the GPU's only tail is the run's last jobs.
#[allow(clippy::too_many_arguments)]
fn run_gpu_fed(
    device: &GpuDevice,
    n: u32,
    list: &JobList,
    partition: &Partition,
    levels: u32,
    source: &ChunkSource,
    control: &RunControl,
    report: &dyn Fn(u32, Found) -> Result<()>,
) -> Result<()> {
    let stream = device.stream();
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_nqueens_constellation")?;
    let (block, shared, blocks) = constellation_shape(device, &function, levels)?;
    let lanes = blocks as usize * block as usize;
    let capacity = list.len().max(1);
    let count = u32::try_from(capacity)
        .map_err(|_| GpuError::Unsupported(format!("{capacity} jobs (at most 2³² − 1)")))?;
    let steps = tuning("WARPSEARCH_STEPS_PER_POLL", FED_STEPS_PER_POLL);
    let alloc = "allocating the job list";
    let device_jobs = step(alloc, stream.alloc_zeros::<u64>(capacity * Job::WORDS))?;
    let tallies = step(alloc, stream.alloc_zeros::<u64>(2))?;
    // Per chunk: solutions, nodes, jobs left.
    let buffers = FedBuffers::new(device, capacity, partition, 2)?;
    let write = |range: std::ops::Range<usize>, at: usize| -> Result<()> {
        let words: Vec<u64> = list
            .jobs(range)
            .iter()
            .flat_map(|job| job.to_words())
            .collect();
        Ok(device.poke(&device_jobs, at * Job::WORDS, &words)?)
    };
    let launch = || -> Result<()> {
        let next = buffers.control.slice(0..1);
        let cancel = buffers.control.slice(1..2);
        let mut launch = stream.launch_builder(&function);
        launch
            .arg(&n)
            .arg(&device_jobs)
            .arg(&count)
            .arg(&levels)
            .arg(&steps)
            .arg(&next)
            .arg(&cancel)
            .arg(&tallies)
            .arg(&buffers.item_slots)
            .arg(&buffers.slot_counters)
            .arg(&buffers.feed);
        // SAFETY: arguments match `warpsearch_nqueens_constellation`: room for `count` jobs of
        // 5 words with at most `levels + 2` rows to fill (written before the feed's count covers
        // them), zeroed counter, stop word and tallies, a slot per job below
        // `partition.chunks` and three counters per chunk, the two zeroed feed words,
        // `levels × 768` bytes of shared memory per warp, whole-warp blocks.
        step("launching the N-Queens constellation kernel", unsafe {
            launch.launch(launch_config(blocks, block, shared))
        })?;
        Ok(())
    };
    let mut finished = |chunks: &[Finished]| -> Result<()> {
        for chunk in chunks {
            let found = Found {
                solutions: chunk.counts[0],
                nodes: chunk.counts[1],
            };
            report(chunk.chunk, found)?;
        }
        Ok(())
    };
    let pace = Pace {
        first: 4 * lanes,
        low: 2 * lanes,
        top_up: lanes,
        cover: std::time::Duration::ZERO,
    };
    run_fed(
        device,
        partition,
        source,
        &buffers,
        pace,
        control,
        FedLaunch::new(&write, &launch, &mut finished),
    )
}

/// Runs every job in one launch, with progress and Ctrl-C as [`run_gpu`].
fn run_gpu_jobs(device: &GpuDevice, n: u32, jobs: &[Job], control: &RunControl) -> Result<Found> {
    let stream = device.stream();
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_nqueens_constellation")?;
    let levels = levels(n, jobs);
    let (block, shared, blocks) = constellation_shape(device, &function, levels)?;
    let words: Vec<u64> = jobs.iter().flat_map(|job| job.to_words()).collect();
    let count = u32::try_from(jobs.len())
        .map_err(|_| GpuError::Unsupported(format!("{} jobs (at most 2³² − 1)", jobs.len())))?;
    let steps = tuning("WARPSEARCH_STEPS_PER_POLL", CONSTELLATION_STEPS_PER_POLL);
    let device_words = step("copying jobs to the GPU", stream.clone_htod(&words))?;
    let words_control = step("allocating counters", stream.alloc_zeros::<u32>(2))?;
    let tallies = step("allocating counters", stream.alloc_zeros::<u64>(2))?;
    device.synchronize()?;
    let progress = control.progress_bar(jobs.len() as u64, &format!("{n}-queens (GPU)"));
    let config = launch_config(blocks, block, shared);
    let next = words_control.slice(0..1);
    let cancel = words_control.slice(1..2);
    // No per-job slots and no feed: every job is there from the start.
    let null = 0u64;
    let mut launch = stream.launch_builder(&function);
    launch
        .arg(&n)
        .arg(&device_words)
        .arg(&count)
        .arg(&levels)
        .arg(&steps)
        .arg(&next)
        .arg(&cancel)
        .arg(&tallies)
        .arg(&null)
        .arg(&null)
        .arg(&null);
    // SAFETY: arguments match `warpsearch_nqueens_constellation`: `count` jobs of 5 words with
    // at most `levels + 2` rows to fill, zeroed counter, stop word and tallies, null slots and
    // feed, `levels × 768` bytes of shared memory per warp, whole-warp blocks.
    step("launching the N-Queens constellation kernel", unsafe {
        launch.launch(config)
    })?;
    let watched = device.watch_with(&words_control, control, &mut |claimed| {
        progress.set(claimed.min(jobs.len() as u64));
        Ok(())
    });
    progress.finish();
    step("waiting for the GPU", stream.synchronize())?;
    watched?;
    let result = step("reading the counts", stream.clone_dtoh(&tallies))?;
    device.synchronize()?;
    Ok(Found {
        solutions: result[0],
        nodes: result[1],
    })
}

fn finish(
    n: u32,
    backend: &Backend,
    started: Instant,
    total: u128,
    unique: u128,
    nodes: u128,
) -> Counts {
    Counts {
        n,
        total,
        unique,
        backend: backend.kind(),
        seconds: started.elapsed().as_secs_f64(),
        nodes,
        known_match: known(n).map(|expected| expected == (total, unique)),
        devices: Vec::new(),
    }
}

/// The subproblems of the shallowest split that yields at least a quarter of `target` (or of
/// the deepest split allowed), with the queens placed while enumerating them. Shallower splits
/// are much smaller, so trying them first costs little. Each row deeper multiplies the count
/// by 4–8: insisting on the full target would often overshoot it several times over, and the
/// host's enumeration is part of the run (N=18: 4.4 M subproblems took 63 ms to enumerate,
/// 0.74 M took 7 ms, for a kernel of ≈ 80 ms).
fn split(n: u32, target: u64) -> (Vec<Subproblem>, u64) {
    let deepest = (n - 2).min(MAX_PREFIX_ROWS);
    let mut rows = 2;
    loop {
        let mut subproblems = Vec::new();
        let nodes = enumerate_prefixes(n, rows, |s| subproblems.push(s));
        if 4 * subproblems.len() as u64 >= target || rows >= deepest {
            return (subproblems, nodes);
        }
        rows += 1;
    }
}

fn run_cpu(
    pool: &rayon::ThreadPool,
    n: u32,
    subproblems: &[Subproblem],
    control: &RunControl,
) -> Result<Tally> {
    let progress = control.progress_bar(subproblems.len() as u64, &format!("{n}-queens (CPU)"));
    let tally = pool.install(|| {
        subproblems
            .par_chunks(CPU_CHUNK)
            .map(|chunk| {
                let tally = run_units_fast(Search::new(n, [0u32; 32]), chunk, control)?;
                progress.advance(chunk.len() as u64);
                Some(tally)
            })
            .try_reduce(Tally::default, |mut a, b| {
                a.add(&b);
                Some(a)
            })
    });
    progress.finish();
    tally.ok_or(Error::Interrupted)
}

/// A counting search that runs units of work one after another: the row search over
/// subproblems (CPU backend) or the constellation counter over jobs (CPU shards).
trait UnitSearch {
    type Unit: Copy;
    type Found;
    fn load(&mut self, unit: Self::Unit);
    fn run(&mut self);
    fn found(&self) -> Self::Found;
}

impl UnitSearch for Search<[u32; 32]> {
    type Unit = Subproblem;
    type Found = Tally;
    #[inline(always)]
    fn load(&mut self, unit: Subproblem) {
        Search::load(self, unit)
    }
    #[inline(always)]
    fn run(&mut self) {
        Search::run(self)
    }
    fn found(&self) -> Tally {
        self.tally
    }
}

impl UnitSearch for CpuCounter {
    type Unit = Job;
    type Found = Found;
    #[inline(always)]
    fn load(&mut self, unit: Job) {
        Counter::load(self, unit)
    }
    #[inline(always)]
    fn run(&mut self) {
        Counter::run(self)
    }
    fn found(&self) -> Found {
        self.found
    }
}

/// Runs `units` through `engine` on this thread; `None` once the run is cancelled.
#[inline(always)]
fn run_units<E: UnitSearch>(
    mut engine: E,
    units: &[E::Unit],
    control: &RunControl,
) -> Option<E::Found> {
    for &unit in units {
        if control.cancelled() {
            return None;
        }
        engine.load(unit);
        engine.run();
    }
    Some(engine.found())
}

/// [`run_units`], on x86-64 compiled for the bit instructions of x86-64-v3 (popcnt, BMI1,
/// BMI2, LZCNT) when this CPU has them. The default x86-64 target has none of them
/// (`count_ones` is a 12-instruction sequence there), so the loop is also compiled with them
/// and chosen at run time: N=16 on one thread, row search 1.91 → 1.85 s, constellation counter
/// 3.6 → 2.4 s (`docs/notes/nqueens-gpu.md`, commit cbb62ed). The search is inlined into the
/// feature-enabled function (`#[inline(always)]` all the way down: a closure was not inlined
/// there, and kept only part of the gain).
fn run_units_fast<E: UnitSearch>(
    engine: E,
    units: &[E::Unit],
    control: &RunControl,
) -> Option<E::Found> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
    {
        #[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt")]
        fn run_with_bits<E: UnitSearch>(
            engine: E,
            units: &[E::Unit],
            control: &RunControl,
        ) -> Option<E::Found> {
            run_units(engine, units, control)
        }
        // SAFETY: the CPU has every feature `run_with_bits` is compiled for (tested above).
        return unsafe { run_with_bits(engine, units, control) };
    }
    run_units(engine, units, control)
}

/// Threads the GPU keeps resident for the N-Queens kernel at this `n`.
fn gpu_resident_threads(device: &GpuDevice, n: u32) -> Result<u32, GpuError> {
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_nqueens")?;
    let blocks = device.resident_blocks(&function, gpu_block(), shared_bytes(n))?;
    Ok(blocks * gpu_block() * device.multiprocessors)
}

/// Shared memory a block needs: one word per row for each thread's stack.
fn shared_bytes(n: u32) -> usize {
    4 * n as usize * gpu_block() as usize
}

/// Runs every subproblem in one launch. The host meanwhile reads the kernel's work counter for
/// the progress bar and, on Ctrl-C, sets the kernel's stop word, through a second stream that
/// does not wait for the kernel.
fn run_gpu(
    device: &GpuDevice,
    n: u32,
    subproblems: &[Subproblem],
    control: &RunControl,
) -> Result<Tally> {
    let stream = device.stream();
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_nqueens")?;
    let shared = shared_bytes(n);
    let block = gpu_block();
    let blocks = device.resident_blocks(&function, block, shared)? * device.multiprocessors;
    let words: Vec<u64> = subproblems.iter().map(|s| s.0).collect();
    let count = u32::try_from(words.len()).map_err(|_| {
        GpuError::Unsupported(format!("{} subproblems (at most 2³² − 1)", words.len()))
    })?;
    let steps = steps_per_poll();
    let device_words = step("copying subproblems to the GPU", stream.clone_htod(&words))?;
    // [next subproblem, stop]: the kernel's work counter and the host's stop request.
    let words_control = step("allocating counters", stream.alloc_zeros::<u32>(2))?;
    let tallies = step("allocating counters", stream.alloc_zeros::<u64>(4))?;
    device.synchronize()?;
    let progress = control.progress_bar(words.len() as u64, &format!("{n}-queens (GPU)"));
    let config = launch_config(blocks, block, shared);
    let next = words_control.slice(0..1);
    let cancel = words_control.slice(1..2);
    let mut launch = stream.launch_builder(&function);
    launch
        .arg(&n)
        .arg(&device_words)
        .arg(&count)
        .arg(&steps)
        .arg(&next)
        .arg(&cancel)
        .arg(&tallies);
    // SAFETY: arguments match `warpsearch_nqueens`: `count` subproblems, zeroed counter, stop
    // word and tallies, 4·n bytes of shared memory per thread, whole-warp blocks.
    step("launching the N-Queens kernel", unsafe {
        launch.launch(config)
    })?;
    let watched = device.watch(&words_control, words.len() as u64, &progress, control);
    progress.finish();
    watched?;
    let result = step("reading the counts", stream.clone_dtoh(&tallies))?;
    device.synchronize()?;
    Ok(Tally {
        count2: result[0],
        count4: result[1],
        count8: result[2],
        nodes: result[3],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nqueens::known;

    /// A shard file written by warpsearch 0.1.0 (kept in results/ from a 2× H200 run of N=24)
    /// is whole, and this version makes the same work list for N=24, so merge, verify and
    /// resume accept it.
    #[test]
    fn an_earlier_version_s_n24_shard_is_this_version_s_work_list() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../results/2026-11-26-2x-h200-nqueens-24-shard-1-of-100.json");
        let file: crate::shard::ChunkFile<Partial> =
            crate::shard::ChunkFile::read(&path, true).expect("the 0.1.0 file reads whole");
        assert_eq!(file.partition.version, "0.1.0");
        let backend = Backend::Cpu(crate::backend::cpu_pool(None).unwrap());
        let (_, today) = sharded_partition(24, &backend).unwrap();
        assert!(
            today.same_work_list(&file.partition),
            "N=24: this version's list {today:?}, the file's {:?}",
            file.partition
        );
        assert_ne!(today.version, file.partition.version);
    }

    #[test]
    fn cpu_counts_match_the_known_values_for_n_1_to_16() {
        let backend = Backend::Cpu(crate::backend::cpu_pool(None).unwrap());
        for n in 1..=16 {
            let counts = count_on(n, &backend, &RunControl::quiet()).unwrap();
            assert_eq!((counts.total, counts.unique), known(n).unwrap(), "n = {n}");
            assert_eq!(counts.known_match, Some(true));
        }
    }

    #[test]
    fn the_constellation_engine_counts_n_4_to_15_on_the_cpu() {
        // The GPU's engine, run by the same code on the CPU: every split target, so that
        // jobs start at several depths.
        let backend = Backend::Cpu(crate::backend::cpu_pool(None).unwrap());
        for n in 4..=15 {
            let counts =
                count_constellations(n, &backend, &RunControl::quiet(), Instant::now()).unwrap();
            assert_eq!((counts.total, counts.unique), known(n).unwrap(), "n = {n}");
        }
        for target in [1, 1 << 10, 1 << 20] {
            let list = JobList::new(14, target, Estimator::Cpu).expect("the CPU estimate");
            let jobs = list.all();
            let mut found = list.found;
            found.add(
                &run_cpu_jobs(
                    &crate::backend::cpu_pool(None).unwrap(),
                    14,
                    &jobs,
                    &RunControl::quiet(),
                )
                .unwrap(),
            );
            assert_eq!(
                found.solutions,
                crate::nqueens::KNOWN[13].0,
                "target {target}"
            );
        }
    }

    #[test]
    fn shards_add_up_to_the_whole_count_and_resume_exactly() {
        use crate::shard::Partial as _;
        let backend = Backend::Cpu(crate::backend::cpu_pool(None).unwrap());
        let quiet = RunControl::quiet();
        let mut sum = Partial::default();
        for k in 1..=3 {
            let result =
                count_shard(13, &backend, &quiet, Shard::new(k, 3).unwrap(), None).unwrap();
            sum.add(&result.counts);
        }
        let counts = sum.counts(13, "cpu", 0.0);
        assert_eq!((counts.total, counts.unique), known(13).unwrap());
        assert_eq!(counts.known_match, Some(true));
        // Interrupted after some chunks, then resumed: the same counts.
        let dir = tempfile::tempdir().unwrap();
        let file = CheckpointFile {
            path: dir.path().join("ck.json"),
            every: std::time::Duration::ZERO,
        };
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let stopped = RunControl::quiet().with_cancel(flag);
        let stopped_run = count_shard(13, &backend, &stopped, Shard::WHOLE, Some(&file));
        assert!(
            matches!(stopped_run, Err(Error::Interrupted)),
            "{:?}",
            stopped_run.map(|r| r.counts)
        );
        assert!(file.path.exists());
        let resumed = count_shard(13, &backend, &quiet, Shard::WHOLE, Some(&file)).unwrap();
        assert_eq!(
            Some(resumed.counts.counts(13, "cpu", 0.0).total),
            known(13).map(|k| k.0)
        );
        // A checkpoint of another size is refused.
        assert!(count_shard(12, &backend, &quiet, Shard::WHOLE, Some(&file)).is_err());
    }

    proptest::proptest! {
        /// The u128 paths: chunk counts past 2⁶⁴ add up exactly in any order and survive the
        /// result file's JSON (written and read back digit for digit), as does the unique count
        /// made from them.
        #[test]
        fn partials_add_and_encode_past_64_bits(
            parts in proptest::collection::vec((0u128..1 << 100, 0u128..1 << 100, 0u64..1 << 40), 1..20),
        ) {
            use crate::shard::Partial as _;
            let parts: Vec<Partial> = parts
                .iter()
                .map(|&(solutions, nodes, s180)| Partial { solutions, nodes, s180, s90: s180 / 2 })
                .collect();
            let mut forward = Partial::default();
            parts.iter().for_each(|p| forward.add(p));
            let mut backward = Partial::default();
            parts.iter().rev().for_each(|p| backward.add(p));
            proptest::prop_assert_eq!(&forward, &backward);
            proptest::prop_assert_eq!(forward.nodes, parts.iter().map(|p| p.nodes).sum::<u128>());
            let text = serde_json::to_string(&forward).unwrap();
            let back: Partial = serde_json::from_str(&text).unwrap();
            proptest::prop_assert_eq!(&back, &forward);
            let value = serde_json::to_value(forward.counts(28, "cpu", 1.0)).unwrap();
            proptest::prop_assert_eq!(value["nodes"].to_string(), forward.nodes.to_string());
            let unique = constellation::classes(forward.solutions, forward.s180, forward.s90);
            proptest::prop_assert_eq!(value["unique"].to_string(), unique.to_string());
            let mut json = crate::shard::JsonCounts::default();
            for p in &parts {
                json.add(&crate::shard::JsonCounts(serde_json::to_value(p).unwrap()));
            }
            proptest::prop_assert_eq!(json.nodes(), forward.nodes);
        }
    }

    #[test]
    fn symmetry_search_agrees_with_brute_force() {
        let backend = Backend::Cpu(crate::backend::cpu_pool(Some(1)).unwrap());
        for n in 1..=10 {
            let (total, unique, _) = reference::count_by_brute_force(n).unwrap();
            let counts = count_on(n, &backend, &RunControl::quiet()).unwrap();
            assert_eq!(
                (counts.total, counts.unique),
                (total.into(), unique.into()),
                "n = {n}"
            );
        }
    }

    #[test]
    fn a_cancelled_count_reports_no_result() {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let backend = Backend::Cpu(crate::backend::cpu_pool(Some(1)).unwrap());
        let result = count_on(14, &backend, &RunControl::quiet().with_cancel(flag));
        assert!(matches!(result, Err(Error::Interrupted)));
    }
}
