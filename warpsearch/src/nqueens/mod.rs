//! N-Queens: count every solution (total and up to symmetry) on the GPU or every CPU core.
//!
//! ```
//! use warpsearch::nqueens::{self, Options};
//! use warpsearch::BackendChoice;
//!
//! let options = Options { backend: BackendChoice::Cpu, ..Options::default() };
//! let counts = nqueens::count(8, &options)?;
//! assert_eq!((counts.total, counts.unique), (92, 12));
//! assert_eq!(counts.known_match, Some(true));
//! # Ok::<(), warpsearch::Error>(())
//! ```
//!
//! The search itself is `kernels::nqueens` (the same code on both backends); this module
//! splits the tree into subproblems, runs them, and checks the result against the known
//! values of OEIS A000170 (total) and A002562 (unique).

mod count;
pub mod find;
mod reference;

pub use count::count_on;
pub use find::{
    BatchReport, FindOptions, Method, check_n, construct, find_one, method_name, min_conflicts,
    random_dfs_batch, verify,
};
pub use reference::count_by_brute_force;

use crate::backend::{self, BackendChoice};
use crate::error::{Error, Result};
use crate::run::RunControl;

/// Largest N counted: totals stay exact in `u64` through N = 27.
pub const MAX_N: u32 = kernels::nqueens::MAX_N;

/// (total, unique) solutions for N = 1..=27 (OEIS A000170 and A002562).
pub const KNOWN: [(u64, u64); 27] = [
    (1, 1),
    (0, 0),
    (0, 0),
    (2, 1),
    (10, 2),
    (4, 1),
    (40, 6),
    (92, 12),
    (352, 46),
    (724, 92),
    (2680, 341),
    (14200, 1787),
    (73712, 9233),
    (365596, 45752),
    (2279184, 285053),
    (14772512, 1846955),
    (95815104, 11977939),
    (666090624, 83263591),
    (4968057848, 621012754),
    (39029188884, 4878666808),
    (314666222712, 39333324973),
    (2691008701644, 336376244042),
    (24233937684440, 3029242658210),
    (227514171973736, 28439272956934),
    (2207893435808352, 275986683743434),
    (22317699616364044, 2789712466510289),
    (234907967154122528, 29363495934315694),
];

/// The known (total, unique) for `n`, when there is one.
pub fn known(n: u32) -> Option<(u64, u64)> {
    KNOWN.get((n as usize).checked_sub(1)?).copied()
}

/// How to run a count.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Where to run.
    pub backend: BackendChoice,
    /// CPU threads (all cores when `None`).
    pub threads: Option<usize>,
    /// Cancellation and progress.
    pub control: RunControl,
}

/// The result of a count.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Counts {
    /// Board size.
    pub n: u32,
    /// All solutions.
    pub total: u64,
    /// Solutions up to rotation and reflection.
    pub unique: u64,
    /// "cpu" or "gpu".
    pub backend: &'static str,
    /// Seconds the count took: splitting, searching and summing (backend start-up excluded).
    pub seconds: f64,
    /// Queens placed in the whole search (each placement of a queen on a square counts one).
    pub nodes: u64,
    /// Whether total and unique match the known values; `None` when none are known.
    pub known_match: Option<bool>,
}

/// Checks that `n` can be counted.
pub fn validate(n: u32) -> Result<()> {
    if n == 0 || n > MAX_N {
        return Err(Error::InvalidArgument(format!(
            "N must be between 1 and {MAX_N} (counts are exact in 64 bits up to N = {MAX_N}); got {n}"
        )));
    }
    Ok(())
}

/// Counts the solutions of the `n`-queens problem on the backend `options` selects.
pub fn count(n: u32, options: &Options) -> Result<Counts> {
    validate(n)?;
    let selected = backend::select(options.backend, options.threads)?;
    count_on(n, &selected.backend, &options.control)
}
