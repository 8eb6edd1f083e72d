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
mod jobs;
mod reference;

pub use count::{Partial, count_chunks, count_on, count_shard, estimate};
pub use find::{
    BatchReport, FindOptions, Method, check_n, construct, find_one, method_name, min_conflicts,
    random_dfs_batch, verify,
};
pub use reference::{MAX_BRUTE_FORCE_N, count_by_brute_force};

use crate::backend;
use crate::error::{Error, Result};

/// Largest N counted: N = 28, the first size without a published count (its nodes, ≈ 3·10¹⁹,
/// pass `u64`: every total and node count of the host is a `u128`).
pub const MAX_N: u32 = kernels::nqueens::MAX_N;

/// (total, unique) solutions for N = 1..=27 (OEIS A000170 and A002562).
pub use kernels::nqueens::KNOWN;

/// The known (total, unique) for `n`, when there is one.
pub fn known(n: u32) -> Option<(u128, u128)> {
    let (total, unique) = KNOWN.get((n as usize).checked_sub(1)?)?;
    Some(((*total).into(), (*unique).into()))
}

/// How to run a count: where, on how many threads, with what cancellation and progress.
pub use crate::backend::SearchOptions as Options;

/// The result of a count.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Counts {
    /// Board size.
    pub n: u32,
    /// All solutions.
    pub total: u128,
    /// Solutions up to rotation and reflection.
    pub unique: u128,
    /// "cpu" or "gpu".
    pub backend: &'static str,
    /// Seconds the count took: splitting, searching and summing (backend start-up excluded).
    pub seconds: f64,
    /// Queens placed in the whole search (each placement of a queen on a square counts one;
    /// N = 28 places ≈ 3·10¹⁹, past `u64`).
    pub nodes: u128,
    /// Whether total and unique match the known values; `None` when none are known.
    pub known_match: Option<bool>,
    /// What each GPU did (jobs, nodes, busy seconds); empty on the CPU.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<crate::shard::DeviceShare>,
}

/// Checks that `n` can be counted.
pub fn validate(n: u32) -> Result<()> {
    if n == 0 || n > MAX_N {
        return Err(Error::InvalidArgument(format!(
            "N must be between 1 and {MAX_N} when counting; got {n}"
        )));
    }
    Ok(())
}

/// Counts the solutions of the `n`-queens problem on the backend `options` selects.
pub fn count(n: u32, options: &Options) -> Result<Counts> {
    validate(n)?;
    let selected = backend::select(
        options.backend,
        options.threads,
        &options.devices,
        &crate::builtin::KERNELS,
    )?;
    count_on(n, &selected.backend, &options.control)
}
