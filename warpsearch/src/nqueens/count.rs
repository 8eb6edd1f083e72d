//! Splitting the search into subproblems and running them on the CPU or the GPU.

use super::{Counts, known, reference, validate};
use crate::backend::Backend;
use crate::error::{Error, GpuError, Result};
use crate::gpu::{GpuDevice, launch_config, step};
use crate::run::RunControl;
use cudarc::driver::PushKernelArg;
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

/// Counts `n`-queens solutions on `backend`.
pub fn count_on(n: u32, backend: &Backend, control: &RunControl) -> Result<Counts> {
    validate(n)?;
    let started = Instant::now();
    if n < MIN_SYMMETRY_N {
        let (total, unique, nodes) = reference::count_by_brute_force(n)?;
        return Ok(finish(n, backend, started, total, unique, nodes));
    }
    let target = match backend {
        Backend::Cpu(pool) => CPU_SUBPROBLEMS_PER_THREAD * pool.current_num_threads() as u64,
        Backend::Gpu(device) => {
            (gpu_split(n) * gpu_resident_threads(device, n)? as u64).min(GPU_MAX_SUBPROBLEMS)
        }
    };
    let (subproblems, prefix_nodes) = split(n, target);
    let mut tally = match backend {
        Backend::Cpu(pool) => run_cpu(pool, n, &subproblems, control)?,
        Backend::Gpu(device) => run_gpu(device, n, &subproblems, control)?,
    };
    tally.nodes += prefix_nodes;
    Ok(finish(
        n,
        backend,
        started,
        tally.total(),
        tally.unique(),
        tally.nodes,
    ))
}

fn finish(
    n: u32,
    backend: &Backend,
    started: Instant,
    total: u64,
    unique: u64,
    nodes: u64,
) -> Counts {
    Counts {
        n,
        total,
        unique,
        backend: backend.kind(),
        seconds: started.elapsed().as_secs_f64(),
        nodes,
        known_match: known(n).map(|expected| expected == (total, unique)),
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
                let mut search = Search::new(n, [0u32; 32]);
                for &subproblem in chunk {
                    if control.cancelled() {
                        return None;
                    }
                    search.load(subproblem);
                    search.run();
                }
                progress.advance(chunk.len() as u64);
                Some(search.tally)
            })
            .try_reduce(Tally::default, |mut a, b| {
                a.add(&b);
                Some(a)
            })
    });
    progress.finish();
    tally.ok_or(Error::Interrupted)
}

/// Threads the GPU keeps resident for the N-Queens kernel at this `n`.
fn gpu_resident_threads(device: &GpuDevice, n: u32) -> Result<u32, GpuError> {
    let function = device.function("warpsearch_nqueens")?;
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
    let function = device.function("warpsearch_nqueens")?;
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
    use crate::nqueens::KNOWN;

    #[test]
    fn cpu_counts_match_the_known_values_for_n_1_to_16() {
        let backend = Backend::Cpu(crate::backend::cpu_pool(None).unwrap());
        for n in 1..=16 {
            let counts = count_on(n, &backend, &RunControl::quiet()).unwrap();
            assert_eq!(
                (counts.total, counts.unique),
                KNOWN[n as usize - 1],
                "n = {n}"
            );
            assert_eq!(counts.known_match, Some(true));
        }
    }

    #[test]
    fn symmetry_search_agrees_with_brute_force() {
        let backend = Backend::Cpu(crate::backend::cpu_pool(Some(1)).unwrap());
        for n in 1..=10 {
            let (total, unique, _) = reference::count_by_brute_force(n).unwrap();
            let counts = count_on(n, &backend, &RunControl::quiet()).unwrap();
            assert_eq!((counts.total, counts.unique), (total, unique), "n = {n}");
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
