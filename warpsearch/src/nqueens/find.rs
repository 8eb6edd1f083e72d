//! Finding one N-Queens solution for large N: an explicit construction, min-conflicts local
//! search, and the randomised GPU search of Hennum (EPFL). Every solution returned has been
//! verified in O(N); a failed verification is an error, never a silent bad answer.

use crate::backend::{Backend, BackendChoice};
use crate::error::{Error, Result};
use crate::gpu::{GpuDevice, launch_config, step};
use crate::run::RunControl;
use cudarc::driver::PushKernelArg;
use kernels::nqueens::random_dfs::{self, Outcome};
use kernels::rng::SplitMix64;
use rayon::prelude::*;

/// How to look for a solution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// The explicit O(N) construction (even/odd lists with the fixes for N mod 6 = 2, 3).
    #[default]
    Construct,
    /// Min-conflicts local search (Sosic–Gu): greedy start, then conflict-reducing swaps.
    MinConflicts,
    /// Many independent randomised depth-first searches (GPU or all CPU cores), N ≤ 128.
    RandomDfs,
}

/// Largest N for `construct`: 4 bytes a queen plus 5 bits of verification, ≈ 4.7 GB here.
pub const MAX_CONSTRUCT_N: u32 = 1_000_000_000;
/// Largest N for `min-conflicts`: ≈ 20 bytes a queen (columns and diagonal counters).
pub const MAX_MIN_CONFLICTS_N: u32 = 100_000_000;
/// Queens a random-dfs search may place before it gives up (the paper's default).
pub const DEFAULT_LIMIT: u32 = 2000;

/// Options of [`find_one`].
#[derive(Clone, Debug)]
pub struct FindOptions {
    /// The method.
    pub method: Method,
    /// Where random-dfs runs (the other methods run on one CPU core).
    pub backend: BackendChoice,
    /// CPU threads for random-dfs.
    pub threads: Option<usize>,
    /// Seed of the randomised methods; the same seed gives the same solution.
    pub seed: u64,
    /// random-dfs: queens a search may place before giving up.
    pub limit: u32,
    /// Cancellation.
    pub control: RunControl,
}

impl Default for FindOptions {
    fn default() -> Self {
        FindOptions {
            method: Method::Construct,
            backend: BackendChoice::Auto,
            threads: None,
            seed: 1,
            limit: DEFAULT_LIMIT,
            control: RunControl::default(),
        }
    }
}

/// One solution of the `n`-queens problem: `columns[row]` is the column of row `row`'s queen.
///
/// ```
/// use warpsearch::nqueens::{FindOptions, find_one};
/// let columns = find_one(1000, &FindOptions::default())?;
/// assert_eq!(columns.len(), 1000);
/// # Ok::<(), warpsearch::Error>(())
/// ```
pub fn find_one(n: u32, options: &FindOptions) -> Result<Vec<u32>> {
    check_n(n, options.method)?;
    check_options(n, options)?;
    let backend = match options.method {
        Method::RandomDfs => {
            let first = crate::gpu::DeviceChoice::All.first_only();
            crate::backend::select(
                options.backend,
                options.threads,
                &first,
                &crate::builtin::KERNELS,
            )?
            .backend
        }
        _ => Backend::Cpu(crate::backend::cpu_pool(Some(1))?),
    };
    find_one_on(n, &backend, options)
}

/// Checks that `method` can handle `n`: 2 and 3 have no solution, and each method has a size limit.
pub fn check_n(n: u32, method: Method) -> Result<()> {
    if n == 0 {
        return Err(Error::InvalidArgument("N must be at least 1".into()));
    }
    if n == 2 || n == 3 {
        return Err(Error::NoSolution(format!("no solution exists for N = {n}")));
    }
    let (limit, why) = match method {
        Method::Construct => (MAX_CONSTRUCT_N, "4.7 bytes a queen"),
        Method::MinConflicts => (MAX_MIN_CONFLICTS_N, "20 bytes a queen"),
        Method::RandomDfs => (random_dfs::MAX_N, "the search's 128-bit masks"),
    };
    if n > limit {
        return Err(Error::InvalidArgument(format!(
            "--method {} handles N up to {limit} ({why}); got {n}",
            method_name(method)
        )));
    }
    Ok(())
}

/// Checks the options that only some methods use: random-dfs needs room for N queens in one
/// search (`limit ≥ N`, else no search can ever succeed), and only random-dfs runs on the GPU.
pub fn check_options(n: u32, options: &FindOptions) -> Result<()> {
    if options.method == Method::RandomDfs && options.limit < n {
        return Err(Error::InvalidArgument(format!(
            "--limit {} is below N = {n}: a search that may place only {} queens can never place all {n}; use at least {n} (default {DEFAULT_LIMIT})",
            options.limit, options.limit
        )));
    }
    if options.method != Method::RandomDfs && options.backend == BackendChoice::Gpu {
        return Err(Error::InvalidArgument(format!(
            "--method {} runs on the CPU only; --backend gpu applies to --method random-dfs",
            method_name(options.method)
        )));
    }
    Ok(())
}

/// The method's name as the CLI spells it.
pub fn method_name(method: Method) -> &'static str {
    match method {
        Method::Construct => "construct",
        Method::MinConflicts => "min-conflicts",
        Method::RandomDfs => "random-dfs",
    }
}

/// A vector of `len` copies of `value`, or an error instead of an abort when memory is short.
fn allocate<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut vector = Vec::new();
    vector.try_reserve_exact(len).map_err(|_| {
        Error::InvalidArgument(format!("not enough memory for {what} ({len} entries)"))
    })?;
    vector.resize(len, value);
    Ok(vector)
}

/// Verifies in O(N) that `columns` is a solution: a permutation with no two queens on a diagonal.
pub fn verify(columns: &[u32]) -> Result<()> {
    let n = columns.len();
    let words = |bits: usize| bits.div_ceil(64);
    let mut used = allocate(words(n) + 2 * words(2 * n), 0u64, "verification")?;
    let (column_bits, diagonals) = used.split_at_mut(words(n));
    let (down, up) = diagonals.split_at_mut(words(2 * n));
    let mark = |set: &mut [u64], index: usize| {
        let (word, bit) = (index / 64, 1u64 << (index % 64));
        let clash = set[word] & bit != 0;
        set[word] |= bit;
        clash
    };
    for (row, &column) in columns.iter().enumerate() {
        let column = column as usize;
        if column >= n {
            return Err(Error::Verification(format!(
                "row {row}: column {column} is off the board"
            )));
        }
        if mark(column_bits, column) || mark(down, row + column) || mark(up, column + n - 1 - row) {
            return Err(Error::Verification(format!(
                "row {row}: the queen at column {column} is attacked"
            )));
        }
    }
    Ok(())
}

/// The explicit construction, valid for every N ≥ 4 (and N = 1).
///
/// In 1-based columns: the even numbers, then the odd ones; for N mod 6 = 2 the odd list
/// starts 3, 1 and has 5 moved to its end; for N mod 6 = 3 the 2 moves to the end of the even
/// list and 1, 3 to the end of the odd list.
pub fn construct(n: u32) -> Result<Vec<u32>> {
    check_n(n, Method::Construct)?;
    let mut columns = allocate(0, 0u32, "the solution")?;
    columns
        .try_reserve_exact(n as usize)
        .map_err(|_| Error::InvalidArgument(format!("not enough memory for {n} queens")))?;
    let evens = (2..=n).step_by(2);
    let odds = (1..=n).step_by(2);
    match n % 6 {
        2 => {
            columns.extend(evens);
            columns.extend([3, 1].into_iter().filter(|&c| c <= n));
            columns.extend(odds.filter(|&c| c >= 7));
            columns.push(5);
        }
        3 => {
            columns.extend((4..=n).step_by(2));
            columns.push(2);
            columns.extend(odds.filter(|&c| c >= 5));
            columns.extend([1, 3]);
        }
        _ => {
            columns.extend(evens);
            columns.extend(odds);
        }
    }
    // To 0-based columns.
    columns.iter_mut().for_each(|c| *c -= 1);
    Ok(columns)
}

/// Min-conflicts local search in the style of Sosic and Gu: queens start as a permutation
/// (no column conflicts); all but the last few are placed greedily where no diagonal is taken,
/// then swaps that reduce the number of diagonal collisions repair the rest.
pub fn min_conflicts(n: u32, seed: u64, control: &RunControl) -> Result<Vec<u32>> {
    check_n(n, Method::MinConflicts)?;
    if n < 8 {
        // Too small for random repair to be reliable; the construction is exact.
        return construct(n);
    }
    let mut attempt = 0;
    loop {
        if control.cancelled() {
            return Err(Error::Interrupted);
        }
        if let Some(columns) = MinConflicts::new(n, seed, attempt)?.solve(control)? {
            return Ok(columns);
        }
        attempt += 1;
    }
}

/// State of one min-conflicts attempt.
struct MinConflicts {
    n: usize,
    columns: Vec<u32>,
    /// Queens on each diagonal `row + column`.
    down: Vec<u32>,
    /// Queens on each diagonal `column − row + n − 1`.
    up: Vec<u32>,
    rng: SplitMix64,
}

impl MinConflicts {
    fn new(n: u32, seed: u64, attempt: u64) -> Result<MinConflicts> {
        let n = n as usize;
        let mut columns = allocate(n, 0u32, "the queens")?;
        columns
            .iter_mut()
            .enumerate()
            .for_each(|(i, c)| *c = i as u32);
        Ok(MinConflicts {
            n,
            columns,
            down: allocate(2 * n, 0u32, "diagonal counters")?,
            up: allocate(2 * n, 0u32, "diagonal counters")?,
            rng: SplitMix64::new(seed, attempt),
        })
    }

    fn diagonals(&self, row: usize, column: u32) -> (usize, usize) {
        (row + column as usize, column as usize + self.n - 1 - row)
    }

    fn add(&mut self, row: usize, delta: i32) {
        let (d, u) = self.diagonals(row, self.columns[row]);
        self.down[d] = self.down[d].wrapping_add_signed(delta);
        self.up[u] = self.up[u].wrapping_add_signed(delta);
    }

    /// Collisions the queen of `row` takes part in (other queens on its two diagonals).
    fn collisions(&self, row: usize) -> u32 {
        let (d, u) = self.diagonals(row, self.columns[row]);
        self.down[d] - 1 + self.up[u] - 1
    }

    fn solve(mut self, control: &RunControl) -> Result<Option<Vec<u32>>> {
        let n = self.n;
        // Greedy start: place rows in order, each with a random remaining column whose
        // diagonals are free, within a budget of tries; the last rows take what is left.
        let free_tail = 32.min(n);
        let mut tries = 0usize;
        for row in 0..n {
            let remaining = (n - row) as u32;
            if row < n - free_tail {
                while tries < 4 * n {
                    let pick = row + self.rng.below(remaining) as usize;
                    let (d, u) = self.diagonals(row, self.columns[pick]);
                    if self.down[d] == 0 && self.up[u] == 0 {
                        self.columns.swap(row, pick);
                        break;
                    }
                    tries += 1;
                }
            } else {
                let pick = row + self.rng.below(remaining) as usize;
                self.columns.swap(row, pick);
            }
            self.add(row, 1);
        }
        // Repair: for each attacked queen, try swapping with random rows until the number of
        // collisions drops; give up (and restart with a new stream) after a generous budget.
        let mut attacked: Vec<usize> = (0..n).filter(|&r| self.collisions(r) > 0).collect();
        let mut budget = 64 * n as u64 + 100_000;
        while !attacked.is_empty() {
            if control.cancelled() {
                return Err(Error::Interrupted);
            }
            let mut still = Vec::new();
            for &row in &attacked {
                if self.collisions(row) == 0 {
                    continue;
                }
                let mut fixed = false;
                for _ in 0..64 {
                    budget = budget.saturating_sub(1);
                    let other = self.rng.below(n as u32) as usize;
                    if other != row && self.swap_reduces(row, other) {
                        fixed = true;
                        if self.collisions(other) > 0 {
                            still.push(other);
                        }
                        break;
                    }
                }
                if !fixed || self.collisions(row) > 0 {
                    still.push(row);
                }
            }
            if budget == 0 {
                return Ok(None);
            }
            still.sort_unstable();
            still.dedup();
            attacked = still;
        }
        Ok(Some(self.columns))
    }

    /// Swaps the columns of rows `a` and `b` if that lowers the collisions; returns whether it did.
    fn swap_reduces(&mut self, a: usize, b: usize) -> bool {
        let before = self.collisions(a) + self.collisions(b);
        self.add(a, -1);
        self.add(b, -1);
        self.columns.swap(a, b);
        self.add(a, 1);
        self.add(b, 1);
        let after = self.collisions(a) + self.collisions(b);
        if after < before {
            return true;
        }
        self.add(a, -1);
        self.add(b, -1);
        self.columns.swap(a, b);
        self.add(a, 1);
        self.add(b, 1);
        false
    }
}

/// Outcome of one batch of randomised searches.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BatchReport {
    /// Searches run.
    pub searches: u32,
    /// Searches that found a solution.
    pub solutions: u32,
    /// Queens placed over all searches.
    pub placed: u64,
    /// GPU launch shape, "blocks × threads" (empty on the CPU).
    pub shape: String,
    /// Seconds (the GPU run is synchronised before the clock is read).
    pub seconds: f64,
    /// The first solution found, if any.
    #[serde(skip)]
    pub solution: Option<Vec<u32>>,
}

/// Threads per block of the random-dfs kernel: 64 keeps 4·N·64 bytes of shared memory under
/// 48 KB for every N up to 128.
const RANDOM_DFS_BLOCK: u32 = 64;

/// Runs searches `first .. first + searches` of the family `seed` on `backend`.
pub fn random_dfs_batch(
    n: u32,
    backend: &Backend,
    seed: u64,
    first: u64,
    searches: u32,
    limit: u32,
) -> Result<BatchReport> {
    check_n(n, Method::RandomDfs)?;
    if limit < n {
        return Err(Error::InvalidArgument(format!(
            "limit {limit} is below N = {n}: no search could succeed"
        )));
    }
    if first.checked_add(u64::from(searches)).is_none() {
        return Err(Error::InvalidArgument(format!(
            "searches {first} + {searches} run past the last search number (2^64 − 1)"
        )));
    }
    let started = std::time::Instant::now();
    match backend {
        Backend::Cpu(pool) => {
            let results: Vec<(bool, u32, Option<Vec<u32>>)> = pool.install(|| {
                (0..searches as u64)
                    .into_par_iter()
                    .map(|i| {
                        let mut rows = [0u32; 128];
                        let (outcome, placed) =
                            random_dfs::search(n, seed, first + i, limit, &mut rows);
                        let found = outcome == Outcome::Found;
                        let solution = found.then(|| {
                            (0..n)
                                .map(|r| random_dfs::column_of(rows[r as usize], n))
                                .collect()
                        });
                        (found, placed, solution)
                    })
                    .collect()
            });
            let solutions = results.iter().filter(|r| r.0).count() as u32;
            let placed = results.iter().map(|r| r.1 as u64).sum();
            let solution = results.into_iter().find_map(|r| r.2);
            Ok(BatchReport {
                searches,
                solutions,
                placed,
                shape: String::new(),
                seconds: started.elapsed().as_secs_f64(),
                solution,
            })
        }
        Backend::Gpu(gpus) => {
            random_dfs_gpu(gpus.first(), n, seed, first, searches, limit, started)
        }
    }
}

fn random_dfs_gpu(
    device: &GpuDevice,
    n: u32,
    seed: u64,
    first: u64,
    searches: u32,
    limit: u32,
    started: std::time::Instant,
) -> Result<BatchReport> {
    let stream = device.stream();
    let function = device.function(&crate::builtin::KERNELS, "warpsearch_random_dfs")?;
    let shared = 4 * n as usize * RANDOM_DFS_BLOCK as usize;
    let resident =
        device.resident_blocks(&function, RANDOM_DFS_BLOCK, shared)? * device.multiprocessors;
    let blocks = resident.min(searches.div_ceil(RANDOM_DFS_BLOCK)).max(1);
    let mut found = step(
        "allocating random-dfs results",
        stream.alloc_zeros::<u32>(searches as usize),
    )?;
    let placed = step("allocating a counter", stream.alloc_zeros::<u64>(1))?;
    let winner = step("allocating a counter", stream.clone_htod(&[u32::MAX]))?;
    let mut solution = step(
        "allocating the solution",
        stream.alloc_zeros::<u32>(n as usize),
    )?;
    let config = launch_config(blocks, RANDOM_DFS_BLOCK, shared);
    let mut launch = stream.launch_builder(&function);
    launch
        .arg(&n)
        .arg(&seed)
        .arg(&first)
        .arg(&searches)
        .arg(&limit)
        .arg(&mut found)
        .arg(&placed)
        .arg(&winner)
        .arg(&mut solution);
    // SAFETY: arguments match `warpsearch_random_dfs`: `searches` result words, `n` solution
    // words, zeroed `placed`, `winner` = u32::MAX, 4·n bytes of shared memory per thread.
    step("launching the random-dfs kernel", unsafe {
        launch.launch(config)
    })?;
    let found = step("reading random-dfs results", stream.clone_dtoh(&found))?;
    let placed = step("reading random-dfs results", stream.clone_dtoh(&placed))?[0];
    let winner = step("reading random-dfs results", stream.clone_dtoh(&winner))?[0];
    let solution = step("reading random-dfs results", stream.clone_dtoh(&solution))?;
    device.synchronize()?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(BatchReport {
        searches,
        solutions: found.iter().sum(),
        placed,
        shape: format!("{blocks} × {RANDOM_DFS_BLOCK}"),
        seconds,
        solution: (winner != u32::MAX).then_some(solution),
    })
}

/// [`find_one`] on an already chosen backend (random-dfs uses it; the others run on the CPU).
pub fn find_one_on(n: u32, backend: &Backend, options: &FindOptions) -> Result<Vec<u32>> {
    check_n(n, options.method)?;
    if options.method == Method::RandomDfs {
        check_options(n, options)?;
    }
    let columns = match options.method {
        Method::Construct => construct(n)?,
        Method::MinConflicts => min_conflicts(n, options.seed, &options.control)?,
        Method::RandomDfs => random_dfs_find(n, backend, options)?,
    };
    verify(&columns)?;
    Ok(columns)
}

/// random-dfs as a way to find one solution: batches of searches until one succeeds.
fn random_dfs_find(n: u32, backend: &Backend, options: &FindOptions) -> Result<Vec<u32>> {
    let batch = match backend {
        Backend::Gpu(_) => 1 << 16,
        Backend::Cpu(pool) => 256 * pool.current_num_threads() as u32,
    };
    let mut first = 0u64;
    loop {
        if options.control.cancelled() {
            return Err(Error::Interrupted);
        }
        let report = random_dfs_batch(n, backend, options.seed, first, batch, options.limit)?;
        if let Some(solution) = report.solution {
            return Ok(solution);
        }
        first = first.checked_add(u64::from(batch)).ok_or_else(|| {
            Error::SearchLimit("every search number of this seed was tried".into())
        })?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn construction_is_valid_for_every_n_from_4_to_2000_and_large_n() {
        for n in (4..=2000).chain([1, 1_000_003, 4_000_002, 6_000_003]) {
            let columns = construct(n).unwrap();
            assert_eq!(columns.len(), n as usize);
            verify(&columns).unwrap_or_else(|e| panic!("n = {n}: {e}"));
        }
    }

    #[test]
    fn bad_n_is_rejected() {
        assert!(matches!(construct(2), Err(Error::NoSolution(_))));
        assert!(matches!(construct(3), Err(Error::NoSolution(_))));
        assert!(matches!(construct(0), Err(Error::InvalidArgument(_))));
        assert!(matches!(
            check_n(129, Method::RandomDfs),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            check_n(MAX_CONSTRUCT_N + 1, Method::Construct),
            Err(Error::InvalidArgument(_))
        ));
    }

    #[test]
    fn verification_rejects_bad_boards() {
        assert!(verify(&[1, 3, 0, 2]).is_ok());
        assert!(verify(&[0, 1, 2, 3]).is_err()); // diagonal
        assert!(verify(&[1, 3, 1, 2]).is_err()); // column twice
        assert!(verify(&[1, 3, 0, 4]).is_err()); // off the board
    }

    #[test]
    fn min_conflicts_is_valid_and_reproducible() {
        for (n, seed) in [(8, 1), (50, 2), (1000, 3), (100_000, 4), (8, 99)] {
            let a = min_conflicts(n, seed, &RunControl::quiet()).unwrap();
            verify(&a).unwrap();
            assert_eq!(
                a,
                min_conflicts(n, seed, &RunControl::quiet()).unwrap(),
                "n = {n}, seed {seed}"
            );
        }
    }

    #[test]
    fn random_dfs_finds_solutions_on_the_cpu() {
        let backend = Backend::Cpu(crate::backend::cpu_pool(Some(2)).unwrap());
        for n in 8..=64 {
            let options = FindOptions {
                method: Method::RandomDfs,
                seed: n as u64,
                ..FindOptions::default()
            };
            let columns = random_dfs_find(n, &backend, &options).unwrap();
            verify(&columns).unwrap();
        }
    }
}
