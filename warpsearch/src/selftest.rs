//! `warpsearch selftest`: runs every warp primitive on the chosen backend with varied inputs
//! and compares the results with a plain scalar reference written independently here.

use crate::backend::Backend;
use crate::error::Result;
use crate::gpu::{GpuDevice, launch_config, step};
use cudarc::driver::PushKernelArg;
use kernels::atomic::{NO_INDEX, WorkQueue};
use kernels::scope::Scope;
use kernels::selftest::{
    CLAIM_OUTPUT, INPUTS, LOAD_ROUNDS, OUTPUT_NAMES, OUTPUTS, TIMED_REDUCTIONS, TIMED_SCOPE_OPS,
    exercise, scope_chain, strided_sum,
};
use kernels::warp::Lanes;
use rand::{Rng, SeedableRng};
use std::sync::atomic::AtomicU32;

/// Outcome of one primitive's comparison.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Check {
    /// The primitive.
    pub name: String,
    /// Lanes whose result differed from the reference (0 = passed).
    pub mismatches: usize,
    /// The first mismatch, described.
    pub first_mismatch: Option<String>,
}

/// The self-test's result.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    /// Where it ran.
    pub backend: String,
    /// Warps exercised.
    pub warps: u32,
    /// One entry per primitive.
    pub checks: Vec<Check>,
}

impl Report {
    /// True when every primitive matched.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.mismatches == 0)
    }
}

/// The inputs of one run: `warps` warps × `INPUTS` words per lane, and a salt per warp.
struct Inputs {
    words: Vec<u32>,
    salts: Vec<u32>,
}

fn make_inputs(warps: u32, seed: u64) -> Inputs {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut words = Vec::with_capacity(warps as usize * INPUTS * 32);
    for warp in 0..warps {
        // Vary the kind of data from warp to warp: dense, sparse, single bits, zeros, ones.
        for _ in 0..INPUTS * 32 {
            let x: u32 = rng.random();
            words.push(match warp % 6 {
                0 | 1 => x,
                2 => x & rng.random::<u32>() & rng.random::<u32>(),
                3 => 1 << (x % 32),
                4 => {
                    if x.is_multiple_of(3) {
                        0
                    } else {
                        x
                    }
                }
                _ => {
                    if x.is_multiple_of(3) {
                        u32::MAX
                    } else {
                        x | 1
                    }
                }
            });
        }
    }
    let salts = (0..warps).map(|_| rng.random_range(0..1000)).collect();
    Inputs { words, salts }
}

/// The most warps of inputs one self-test runs (≈ 100 MB of inputs and outputs).
pub const MAX_WARPS: u32 = 1 << 16;

/// Runs the self-test on `backend` with `warps` warps (1..=[`MAX_WARPS`]) of inputs drawn
/// from `seed`.
pub fn run(backend: &Backend, warps: u32, seed: u64) -> Result<Report> {
    if !(1..=MAX_WARPS).contains(&warps) {
        return Err(crate::Error::InvalidArgument(format!(
            "--warps must be 1..={MAX_WARPS} (a warp is 32 lanes of random inputs); got {warps}"
        )));
    }
    let inputs = make_inputs(warps, seed);
    let (outputs, popc_total) = match backend {
        Backend::Cpu(_) => run_cpu(&inputs, warps),
        Backend::Gpu(gpus) => run_gpu(gpus.first(), &inputs, warps)?,
    };
    Ok(compare(backend, &inputs, warps, &outputs, popc_total))
}

/// One warp reduction timed on a GPU in both forms (`warpsearch bench warp`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ReductionTiming {
    /// add, min, max, and, or or xor.
    pub reduction: &'static str,
    /// Nanoseconds a round of the dependent chain takes with the five-shuffle tree (median).
    pub tree_ns: f64,
    /// The same with one `redux.sync`.
    pub redux_ns: f64,
    /// Reductions per second over the whole GPU with the tree and with `redux.sync`.
    pub tree_per_second: f64,
    /// See `tree_per_second`.
    pub redux_per_second: f64,
}

/// Rounds of the dependent chain a timing launch runs.
pub const TIMING_ROUNDS: u32 = 4096;

/// Times every reduction of [`TIMED_REDUCTIONS`] as the shuffle tree and as `redux.sync` on
/// `device`: `repeat` launches of each (after one untimed), every thread of 32 resident warps
/// a multiprocessor running a chain of [`TIMING_ROUNDS`] dependent reductions. Both forms'
/// outputs must agree bit for bit, else the timing is refused as
/// [`Error::Verification`](crate::Error::Verification).
pub fn time_reductions(device: &GpuDevice, repeat: u32) -> Result<Vec<ReductionTiming>> {
    let stream = device.stream();
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_reduction_timing")?;
    let block = 256u32;
    let blocks = device.multiprocessors * 4;
    let threads = (blocks * block) as usize;
    let mut out = step(
        "allocating timing outputs",
        stream.alloc_zeros::<u32>(threads),
    )?;
    let mut run = |op: u32, redux: bool| -> Result<(f64, Vec<u32>)> {
        let mut seconds = Vec::new();
        for attempt in 0..=repeat {
            let started = std::time::Instant::now();
            let mut launch = stream.launch_builder(&function);
            let redux = redux as u32;
            launch
                .arg(&op)
                .arg(&redux)
                .arg(&TIMING_ROUNDS)
                .arg(&mut out);
            // SAFETY: the arguments match `warpsearch_reduction_timing`: one output word for
            // each of the launch's `threads` threads.
            step("launching the reduction timing", unsafe {
                launch.launch(launch_config(blocks, block, 0))
            })?;
            device.synchronize()?;
            if attempt > 0 {
                seconds.push(started.elapsed().as_secs_f64());
            }
        }
        seconds.sort_by(f64::total_cmp);
        let values = step("reading timing outputs", stream.clone_dtoh(&out))?;
        Ok((seconds[seconds.len() / 2], values))
    };
    let warps = threads as f64 / 32.0;
    let mut timings = Vec::new();
    for (op, &reduction) in TIMED_REDUCTIONS.iter().enumerate() {
        let (tree, tree_values) = run(op as u32, false)?;
        let (redux, redux_values) = run(op as u32, true)?;
        if tree_values != redux_values {
            return Err(crate::Error::Verification(format!(
                "the shuffle tree and redux.sync disagree on {reduction}; no timing reported"
            )));
        }
        let rounds = TIMING_ROUNDS as f64;
        timings.push(ReductionTiming {
            reduction,
            tree_ns: tree / rounds * 1e9,
            redux_ns: redux / rounds * 1e9,
            tree_per_second: warps * rounds / tree,
            redux_per_second: warps * rounds / redux,
        });
    }
    Ok(timings)
}

/// One memory operation timed at one PTX scope on a GPU (`warpsearch bench warp`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ScopeTiming {
    /// The operation (one of `TIMED_SCOPE_OPS`).
    pub operation: &'static str,
    /// `cta`, `gpu` or `sys`.
    pub scope: &'static str,
    /// Nanoseconds a round takes in one thread's chain (median launch).
    pub ns: f64,
}

/// Rounds of a scope timing's chain.
pub const SCOPE_ROUNDS: u32 = 1024;

/// Times every operation of `TIMED_SCOPE_OPS` at every scope of `TIMED_SCOPES` on `device`:
/// `repeat` launches of each (after one untimed), every thread of 32 resident warps a
/// multiprocessor running [`SCOPE_ROUNDS`] rounds on its own word. Every word must end
/// holding the CPU twin's value, else the timing is refused.
pub fn time_scopes(device: &GpuDevice, repeat: u32) -> Result<Vec<ScopeTiming>> {
    let stream = device.stream();
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_scope_timing")?;
    let block = 256u32;
    let blocks = device.multiprocessors * 4;
    let threads = blocks * block;
    let mut words = step(
        "allocating timing words",
        stream.alloc_zeros::<u32>(threads as usize),
    )?;
    let mut timings = Vec::new();
    for (op, &operation) in TIMED_SCOPE_OPS.iter().enumerate() {
        let expected: Vec<u32> = (0..threads)
            .map(|thread| {
                let word = AtomicU32::new(0);
                scope_chain(
                    op as u32,
                    Scope::Gpu,
                    &word,
                    thread.wrapping_mul(0x9E37_79B9),
                    SCOPE_ROUNDS,
                )
            })
            .collect();
        for (scope, name) in ["cta", "gpu", "sys"].into_iter().enumerate() {
            let mut seconds = Vec::new();
            for attempt in 0..=repeat {
                step("clearing timing words", stream.memset_zeros(&mut words))?;
                device.synchronize()?;
                let started = std::time::Instant::now();
                let mut launch = stream.launch_builder(&function);
                let (op, scope) = (op as u32, scope as u32);
                launch
                    .arg(&op)
                    .arg(&scope)
                    .arg(&SCOPE_ROUNDS)
                    .arg(&mut words);
                // SAFETY: the arguments match `warpsearch_scope_timing`: one word for each of
                // the launch's `threads` threads.
                step("launching the scope timing", unsafe {
                    launch.launch(launch_config(blocks, block, 0))
                })?;
                device.synchronize()?;
                if attempt > 0 {
                    seconds.push(started.elapsed().as_secs_f64());
                }
            }
            let values = step("reading timing words", stream.clone_dtoh(&words))?;
            if values != expected {
                return Err(crate::Error::Verification(format!(
                    "{operation} at .{name}: the threads' last values differ from the CPU's; no timing reported"
                )));
            }
            seconds.sort_by(f64::total_cmp);
            timings.push(ScopeTiming {
                operation,
                scope: name,
                ns: seconds[seconds.len() / 2] / SCOPE_ROUNDS as f64 * 1e9,
            });
        }
    }
    Ok(timings)
}

/// Loads at one stride timed on a GPU (`warpsearch bench warp`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct LoadTiming {
    /// Words between neighbouring lanes' loads (1: a warp reads 128 consecutive bytes).
    pub stride: u32,
    /// 32-byte sectors a warp's 32 loads touch.
    pub sectors_per_request: u32,
    /// Gigabytes a second of words the threads asked for (4 bytes a load; median launch).
    pub useful_gb_per_second: f64,
}

/// Words of the buffer the coalescing timing reads (512 MiB: far beyond any L2, so the loads
/// come from memory).
pub const LOAD_WORDS: u32 = 1 << 27;

/// Times [`strided_sum`] at strides 1, 2, 4, 8 and 32 over a buffer of [`LOAD_WORDS`] words
/// (word `i` holds `i`): `repeat` launches of each after one untimed. Every thread's sum must
/// match the CPU's for a sample of threads, else the timing is refused.
pub fn time_loads(device: &GpuDevice, repeat: u32) -> Result<Vec<LoadTiming>> {
    let stream = device.stream();
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_load_timing")?;
    let block = 256u32;
    let blocks = device.multiprocessors * 4;
    let threads = blocks * block;
    let host: Vec<u32> = (0..LOAD_WORDS).collect();
    let data = step("copying the load buffer", stream.clone_htod(&host))?;
    let mut out = step(
        "allocating timing outputs",
        stream.alloc_zeros::<u32>(threads as usize),
    )?;
    let mut timings = Vec::new();
    for stride in [1u32, 2, 4, 8, 32] {
        let mut seconds = Vec::new();
        for attempt in 0..=repeat {
            let started = std::time::Instant::now();
            let mut launch = stream.launch_builder(&function);
            launch
                .arg(&stride)
                .arg(&LOAD_WORDS)
                .arg(&LOAD_ROUNDS)
                .arg(&data)
                .arg(&mut out);
            // SAFETY: the arguments match `warpsearch_load_timing`: `LOAD_WORDS` words of
            // data, one output word for each of the launch's `threads` threads.
            step("launching the load timing", unsafe {
                launch.launch(launch_config(blocks, block, 0))
            })?;
            device.synchronize()?;
            if attempt > 0 {
                seconds.push(started.elapsed().as_secs_f64());
            }
        }
        let sums = step("reading timing outputs", stream.clone_dtoh(&out))?;
        for thread in (0..threads).step_by(997) {
            let expected = strided_sum(thread, threads, stride, LOAD_WORDS, LOAD_ROUNDS, |i| {
                host[i as usize]
            });
            if sums[thread as usize] != expected {
                return Err(crate::Error::Verification(format!(
                    "stride {stride}: thread {thread} summed {}, the CPU {expected}; no timing reported",
                    sums[thread as usize]
                )));
            }
        }
        seconds.sort_by(f64::total_cmp);
        let bytes = threads as f64 * LOAD_ROUNDS as f64 * 4.0;
        timings.push(LoadTiming {
            stride,
            sectors_per_request: (32 * stride).div_ceil(8).min(32),
            useful_gb_per_second: bytes / seconds[seconds.len() / 2] / 1e9,
        });
    }
    Ok(timings)
}

fn run_cpu(inputs: &Inputs, warps: u32) -> (Vec<u32>, u64) {
    let next = AtomicU32::new(0);
    let mut out = Vec::with_capacity(warps as usize * OUTPUTS * 32);
    let mut total = 0;
    for warp in 0..warps as usize {
        let lanes = |i: usize| {
            Lanes::from_array(std::array::from_fn(|l| {
                inputs.words[(warp * INPUTS + i) * 32 + l]
            }))
        };
        let (a, b) = (lanes(0), lanes(1));
        for result in exercise(a, b, inputs.salts[warp], WorkQueue::new(&next)) {
            out.extend(result.to_array());
        }
        total += a
            .to_array()
            .iter()
            .map(|x| x.count_ones() as u64)
            .sum::<u64>();
    }
    (out, total)
}

fn run_gpu(device: &GpuDevice, inputs: &Inputs, warps: u32) -> Result<(Vec<u32>, u64)> {
    let stream = device.stream();
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_selftest")?;
    let words = step("copying self-test inputs", stream.clone_htod(&inputs.words))?;
    let salts = step("copying self-test inputs", stream.clone_htod(&inputs.salts))?;
    let mut out = step(
        "allocating self-test outputs",
        stream.alloc_zeros::<u32>(warps as usize * OUTPUTS * 32),
    )?;
    let next = step("allocating a counter", stream.alloc_zeros::<u32>(1))?;
    let total = step("allocating a counter", stream.alloc_zeros::<u64>(1))?;
    let block = 128u32;
    let config = launch_config((warps * 32).div_ceil(block), block, 0);
    let mut launch = stream.launch_builder(&function);
    launch
        .arg(&words)
        .arg(&salts)
        .arg(&mut out)
        .arg(&next)
        .arg(&total)
        .arg(&warps);
    // SAFETY: the arguments match `warpsearch_selftest`'s signature and contract: buffers of
    // `warps` warps, zeroed counters, whole-warp blocks.
    step("launching the self-test kernel", unsafe {
        launch.launch(config)
    })?;
    let out = step("reading self-test outputs", stream.clone_dtoh(&out))?;
    let total = step("reading self-test outputs", stream.clone_dtoh(&total))?;
    device.synchronize()?;
    Ok((out, total[0]))
}

/// The scalar reference: each primitive's definition, lane by lane.
fn reference(a: &[u32; 32], b: &[u32; 32], salt: u32) -> [[u32; 32]; OUTPUTS] {
    let s = salt % 32;
    let c: [u32; 32] = std::array::from_fn(|i| a[i].rotate_left(s) ^ (b[i] >> (salt % 7)));
    let sparse: [u32; 32] = std::array::from_fn(|i| a[i] & b[i] & c[i]);
    let ballot = (0..32).fold(0u32, |w, i| w | (a[i] & 1) << i);
    let column = |bit: u32| {
        (0..32).fold(0u32, |w, col| {
            let count = sparse.iter().filter(|r| *r >> col & 1 == 1).count().min(3) as u32;
            w | ((count >> bit) & 1) << col
        })
    };
    let wide_sum = (0..32).fold(0u64, |sum, i| {
        sum.wrapping_add((a[i] as u64) << 32 | b[i] as u64)
    });
    let sum = a.iter().fold(0u32, |x, y| x.wrapping_add(*y));
    let sparse_or = sparse.iter().fold(0, |x, y| x | y);
    let smallest = a.iter().copied().min().unwrap_or(0);
    let uniform = |v: u32| [v; 32];
    // Lane i after two column-counter rounds of widths s1, s2: the saturated counts of the
    // rows i, i ^ s1, i ^ s2, i ^ s1 ^ s2, bit `bit` of each column.
    let (s1, s2) = (1usize << (salt % 5), 1usize << ((salt % 5 + 1) % 5));
    let counted = |i: usize, bit: u32| {
        let rows = [i, i ^ s1, i ^ s2, i ^ s1 ^ s2];
        (0..32).fold(0u32, |w, col| {
            let count = rows
                .iter()
                .filter(|&&r| sparse[r] >> col & 1 == 1)
                .count()
                .min(3) as u32;
            w | ((count >> bit) & 1) << col
        })
    };
    let per_lane = |f: &dyn Fn(usize) -> u32| -> [u32; 32] { std::array::from_fn(f) };
    [
        per_lane(&|i| i as u32),
        per_lane(&|i| a[i].count_ones()),
        per_lane(&|i| {
            if a[i] == 0 {
                99
            } else {
                31 - a[i].leading_zeros()
            }
        }),
        per_lane(&|i| {
            if a[i] == 0 {
                0
            } else {
                1 << a[i].trailing_zeros()
            }
        }),
        per_lane(&|i| a[i].reverse_bits()),
        per_lane(&|i| (a[i] & b[i]) | (a[i] & c[i]) | (b[i] & c[i])),
        per_lane(&|i| a[i] ^ b[i] ^ c[i]),
        per_lane(&|i| a[i] ^ (b[i] | c[i])),
        uniform(ballot),
        uniform(a.iter().any(|x| x % 61 == salt % 61) as u32),
        uniform(a.iter().zip(b).all(|(x, y)| (x | y | salt) & 1 == 1) as u32),
        per_lane(&|i| a[(b[i] % 32) as usize]),
        uniform(a[s as usize]),
        per_lane(&|i| a[i ^ s as usize]),
        per_lane(&|i| {
            if i >= s as usize {
                a[i - s as usize]
            } else {
                a[i]
            }
        }),
        per_lane(&|i| {
            if i + (s as usize) < 32 {
                a[i + s as usize]
            } else {
                a[i]
            }
        }),
        uniform(sum),
        uniform(sparse_or),
        uniform(column(0)),
        uniform(column(1)),
        per_lane(&|i| (1u32 << i) - 1),
        uniform(ballot.count_ones()),
        per_lane(&|c| (0..32).fold(0, |w, r| w | (a[r] >> c & 1) << r)),
        uniform(smallest),
        per_lane(&|i| a[..=i].iter().fold(0u32, |x, y| x.wrapping_add(*y))),
        per_lane(&|i| a[..i].iter().fold(0u32, |x, y| x.wrapping_add(*y))),
        per_lane(&|i| (ballot & ((1u32 << i) - 1)).count_ones()),
        uniform(ballot.count_ones()),
        per_lane(&|i| a[i] & 63),
        uniform(wide_sum as u32),
        uniform((wide_sum >> 32) as u32),
        uniform(sum),
        uniform(smallest),
        uniform(a.iter().copied().max().unwrap_or(0)),
        uniform((0..32).fold(u32::MAX, |x, i| x & (a[i] | b[i]))),
        uniform(sparse_or),
        uniform(c.iter().fold(0, |x, y| x ^ y)),
        uniform(b.iter().copied().max().unwrap_or(0)),
        per_lane(&|i| {
            // One transpose round of width `w`: lanes i and i ^ w swap off-diagonal blocks.
            let (w, low) = kernels::warp::TRANSPOSE_ROUNDS[(salt % 5) as usize];
            let w = w as usize;
            let partner = a[i ^ w];
            if i & w == 0 {
                (a[i] & low) | ((partner & low) << w)
            } else {
                (a[i] & !low) | ((partner & !low) >> w)
            }
        }),
        per_lane(&|i| counted(i, 0)),
        per_lane(&|i| counted(i, 1)),
        [0; 32], // the work queue, checked by its properties
    ]
}

fn compare(
    backend: &Backend,
    inputs: &Inputs,
    warps: u32,
    outputs: &[u32],
    popc_total: u64,
) -> Report {
    let mut checks: Vec<Check> = OUTPUT_NAMES
        .iter()
        .map(|name| Check {
            name: name.to_string(),
            mismatches: 0,
            first_mismatch: None,
        })
        .collect();
    let note = |check: &mut Check, message: String| {
        check.mismatches += 1;
        check.first_mismatch.get_or_insert(message);
    };
    let mut claimed = Vec::new();
    let mut expected_total = 0u64;
    for warp in 0..warps as usize {
        let input = |i: usize| -> [u32; 32] {
            std::array::from_fn(|l| inputs.words[(warp * INPUTS + i) * 32 + l])
        };
        let (a, b) = (input(0), input(1));
        expected_total += a.iter().map(|x| x.count_ones() as u64).sum::<u64>();
        let expected = reference(&a, &b, inputs.salts[warp]);
        for (k, check) in checks.iter_mut().enumerate() {
            let got = &outputs[(warp * OUTPUTS + k) * 32..][..32];
            if k == CLAIM_OUTPUT {
                // Wanting lanes get consecutive indices in lane order; the others NO_INDEX.
                let wanting: Vec<usize> = (0..32).filter(|&l| b[l] & 8 != 0).collect();
                for (l, &index) in got.iter().enumerate() {
                    if !wanting.contains(&l) && index != NO_INDEX {
                        note(
                            check,
                            format!("warp {warp} lane {l}: got index {index} without asking"),
                        );
                    }
                }
                for (rank, &l) in wanting.iter().enumerate() {
                    if got[l] != got[wanting[0]].wrapping_add(rank as u32) {
                        note(
                            check,
                            format!("warp {warp} lane {l}: index {} is not consecutive", got[l]),
                        );
                    }
                    claimed.push(got[l]);
                }
                continue;
            }
            for lane in 0..32 {
                if got[lane] != expected[k][lane] {
                    note(
                        check,
                        format!(
                            "warp {warp} lane {lane}: got {:#010x}, expected {:#010x}",
                            got[lane], expected[k][lane]
                        ),
                    );
                }
            }
        }
    }
    // Across warps the claimed indices must be exactly 0..count, each once.
    claimed.sort_unstable();
    if claimed
        .iter()
        .enumerate()
        .any(|(i, &index)| index != i as u32)
    {
        note(
            &mut checks[CLAIM_OUTPUT],
            "claimed indices are not exactly 0..count".into(),
        );
    }
    let mut total = Check {
        name: "atomic u64 total".into(),
        mismatches: 0,
        first_mismatch: None,
    };
    if popc_total != expected_total {
        note(
            &mut total,
            format!("got {popc_total}, expected {expected_total}"),
        );
    }
    checks.push(total);
    Report {
        backend: backend.describe(),
        warps,
        checks,
    }
}

#[cfg(test)]
mod tests {
    use super::OUTPUT_NAMES;

    /// Public functions of `kernels::warp` that are not collectives and so have no self-test
    /// output of their own: lane-local plumbing, the GPU intrinsics' declarations, a barrier,
    /// and the accessors of a reduction's result. `on_one_lane` is lane-local too (lane 0
    /// runs a closure); every warp total the counts add goes through it.
    const NOT_COLLECTIVES: [&str; 37] = [
        "splat",
        "from_fn",
        "map",
        "zip_with",
        "mine",
        "uniform",
        "to_array",
        "from_array",
        "lane",
        "select",
        "is_nonzero",
        "equals",
        "this_lane",
        "idx",
        "bfly",
        "up",
        "down",
        "bar_warp_sync",
        "add",
        "umin",
        "umax",
        "and",
        "or",
        "xor",
        "syncwarp",
        "zero",
        "one",
        "two",
        "three_or_more",
        "halves",
        "get",
        "map_ref",
        "each_mut",
        "each_mut_with",
        "for_each",
        "on_one_lane",
        "of_rows",
    ];

    #[test]
    fn every_public_warp_primitive_is_in_the_self_test() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../kernels/src/warp");
        let mut names = Vec::new();
        for entry in std::fs::read_dir(folder).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for line in text.lines() {
                if let Some(rest) = line.trim_start().strip_prefix("pub fn ") {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    names.push(name);
                }
            }
        }
        assert!(names.len() > 30, "only {names:?}");
        for name in names {
            if NOT_COLLECTIVES.contains(&name.as_str()) {
                continue;
            }
            let tested = OUTPUT_NAMES
                .iter()
                .any(|output| output.split(['.', '(', ' ']).next() == Some(name.as_str()));
            assert!(
                tested,
                "kernels::warp::{name} is public but not in the self-test (kernels/src/selftest.rs)"
            );
        }
    }
}
