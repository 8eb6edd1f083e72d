//! Counting Costas arrays of order n with warpsearch's engine: the search described once
//! ([`Costas`]), run on every GPU or every CPU core.
//!
//! ```
//! use costas::{Costas, count};
//! let backend = warpsearch_engine::Backend::Cpu(warpsearch_engine::backend::cpu_pool(None)?);
//! let counted = count(8, &backend, &warpsearch_engine::RunControl::quiet())?;
//! assert_eq!(counted.count, 444);
//! assert_eq!(counted.known_match, Some(true));
//! # Ok::<(), warpsearch_engine::Error>(())
//! ```

use costas_kernels::{MAX_N, MAX_PREFIX, extensions, prefixes, probe_unit, search_unit};
use warpsearch_engine::search::{self, Kernel, Launch, Partial, Search, UnitResults};
use warpsearch_engine::shard::Shard;
use warpsearch_engine::{Backend, Error, Result, RunControl};

/// The kernel crate's PTX, built by build.rs (empty when the nightly was missing).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/costas.ptx"));

/// The same kernels as native code for the common GPUs (empty when the build had no `ptxas`).
pub const NATIVE: &[(u32, &[u8])] = include!(concat!(env!("OUT_DIR"), "/costas.ptx.native.rs"));

/// Costas arrays of order n = 1..=29, counting rotations and reflections as distinct (OEIS
/// A008404).
pub const KNOWN: [u64; 29] = [
    1, 2, 4, 12, 40, 116, 200, 444, 760, 2160, 4368, 7852, 12828, 17252, 19612, 21104, 18276,
    15096, 10240, 6464, 3536, 2052, 872, 200, 88, 56, 204, 712, 164,
];

/// The known count of order `n`, if there is one.
pub fn known(n: u32) -> Option<u64> {
    KNOWN.get((n as usize).checked_sub(1)?).copied()
}

/// The search of order `n`, as the engine runs it.
pub struct Costas {
    /// The order.
    pub n: u32,
}

/// What adds up: arrays found, and the nodes the search visited to find them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Arrays {
    /// Costas arrays.
    pub count: u64,
    /// Nodes visited (one a descent of the skeleton).
    pub nodes: u64,
}

impl Partial for Arrays {
    fn add(&mut self, other: &Self) {
        self.count += other.count;
        self.nodes += other.nodes;
    }
    fn nodes(&self) -> u128 {
        self.nodes.into()
    }
}

/// Roots the work list aims for: enough that its 256 chunks are of even size (the partition,
/// shards and checkpoints refer to them), few enough to make in 1–3 ms.
const TARGET_ROOTS: usize = 1 << 14;

/// Rows the engine adds to each root when it hands the root's chunk out: the units a GPU lane
/// runs. One row gives ≈ 400 k units at n = 16, a few for each of the ≈ 100 k lanes the
/// skeleton keeps busy on an H100; each row more multiplies them by 8–10. Measured on one
/// H100, 1 → 2 rows: n = 16 0.137 → 0.139 s, n = 17 0.716 → 0.692 s, n = 18 3.77 → 3.66 s:
/// from n = 17 on, two rows.
fn expand_rows(n: u32) -> u32 {
    if n >= 17 { 2 } else { 1 }
}

impl Costas {
    /// The deepest a unit may be: n − 1 rows (the skeleton searches at least one row of it),
    /// at most [`MAX_PREFIX`].
    fn deepest(&self) -> u32 {
        self.n.saturating_sub(1).min(MAX_PREFIX)
    }

    /// The rows of the work list's roots: the fewest that give at least [`TARGET_ROOTS`]
    /// roots (or the deepest allowed).
    fn root_rows(&self) -> u32 {
        (1..=self.deepest())
            .find(|&rows| {
                let mut roots = 0;
                prefixes(self.n, rows, &mut |_| roots += 1);
                roots >= TARGET_ROOTS
            })
            .unwrap_or(self.deepest())
    }

    /// The rows [`expand`](Search::expand) adds to a root: [`expand_rows`], or for tuning
    /// runs `COSTAS_EXPAND_ROWS=k` (read once: `expand` runs for every root, on every core).
    fn expand_rows(&self) -> u32 {
        static ROWS: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
        ROWS.get_or_init(|| {
            std::env::var("COSTAS_EXPAND_ROWS")
                .ok()
                .and_then(|k| k.parse::<u32>().ok())
        })
        .unwrap_or(expand_rows(self.n))
    }
}

impl Search for Costas {
    type Partial = Arrays;
    const UNIT_WORDS: usize = 1;
    const RESULT_WORDS: usize = 2;
    const EXPANDS: bool = true;

    fn problem(&self) -> &str {
        "costas"
    }

    fn size(&self) -> u32 {
        self.n
    }

    fn units(&self) -> Vec<u64> {
        let mut roots = Vec::new();
        prefixes(self.n, self.root_rows(), &mut |word| roots.push(word));
        roots
    }

    fn expand(&self, root: &[u64], units: &mut Vec<u64>) {
        let rows = (root[0] & 31) as u32 + self.expand_rows();
        extensions(self.n, root[0], rows.min(self.deepest()), &mut |word| {
            units.push(word)
        });
    }

    fn params(&self) -> Vec<u64> {
        vec![self.n as u64]
    }

    fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
        let walked = search_unit(self.n, unit[0]);
        result.copy_from_slice(&[walked.found, walked.nodes]);
    }

    fn partial(&self, results: &UnitResults) -> Arrays {
        Arrays {
            count: results.sum(0),
            nodes: results.sum(1),
        }
    }

    fn kernel(&self) -> Option<Kernel> {
        Some(Kernel {
            ptx: PTX,
            native: NATIVE,
            name: "costas_count",
        })
    }

    fn launch(&self) -> Launch {
        Launch::skeleton(costas_kernels::slab_words(self.n))
    }

    fn probe(&self, unit: &[u64], pick: &mut dyn FnMut(u32) -> u32) -> Option<f64> {
        Some(probe_unit(self.n, unit[0], pick))
    }
}

/// A finished count.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Counted {
    /// The order.
    pub n: u32,
    /// Costas arrays of order n.
    pub count: u64,
    /// "cpu" or "gpu".
    pub backend: &'static str,
    /// Seconds the count took.
    pub seconds: f64,
    /// Whether the count matches OEIS A008404 (`None` past n = 29).
    pub known_match: Option<bool>,
}

/// Counts the Costas arrays of order `n` (1 ≤ n ≤ 31) on `backend`.
pub fn count(n: u32, backend: &Backend, control: &RunControl) -> Result<Counted> {
    if !(1..=MAX_N).contains(&n) {
        return Err(Error::InvalidArgument(format!(
            "the order must be between 1 and {MAX_N}; got {n}"
        )));
    }
    let result = search::run(&Costas { n }, backend, control, Shard::WHOLE, None)?;
    let count = result.counts.count;
    Ok(Counted {
        n,
        count,
        backend: backend.kind(),
        seconds: result.seconds,
        known_match: known(n).map(|k| k == count),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_1_to_12_match_oeis_on_the_cpu() {
        let backend = Backend::Cpu(warpsearch_engine::backend::cpu_pool(None).unwrap());
        for n in 1..=12 {
            let counted = count(n, &backend, &RunControl::quiet()).unwrap();
            assert_eq!(counted.count, KNOWN[n as usize - 1], "n = {n}");
            assert_eq!(counted.known_match, Some(true));
        }
    }

    #[test]
    fn bad_orders_are_errors() {
        let backend = Backend::Cpu(warpsearch_engine::backend::cpu_pool(Some(1)).unwrap());
        assert!(count(0, &backend, &RunControl::quiet()).is_err());
        assert!(count(32, &backend, &RunControl::quiet()).is_err());
    }
}
