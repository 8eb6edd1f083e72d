//! Counting Costas arrays of order n with warpsearch's engine: the search described once
//! ([`Costas`]), run on every GPU or every CPU core.
//!
//! ```
//! use costas::{Costas, count};
//! let backend = warpsearch::Backend::Cpu(warpsearch::backend::cpu_pool(None)?);
//! let counted = count(8, &backend, &warpsearch::RunControl::quiet())?;
//! assert_eq!(counted.count, 444);
//! assert_eq!(counted.known_match, Some(true));
//! # Ok::<(), warpsearch::Error>(())
//! ```

use costas_kernels::{MAX_N, MAX_PREFIX, prefixes, probe_unit, search_unit};
use warpsearch::engine::{self, Kernel, Launch, Partial, Search};
use warpsearch::shard::Shard;
use warpsearch::{Backend, Error, Result, RunControl};

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

/// Units the work list aims for: a few for each lane the skeleton keeps busy (≈ 100 k on an
/// H100 at n = 16: 24 warps an SM, limited by shared memory), so that every lane has work;
/// the skeleton refills a lane as soon as its unit is done, so units may differ in size.
/// Measured on the H100 at n = 15: 2^17–2^18 units 0.091–0.096 s, 2^20 0.111–0.114 s.
const TARGET_UNITS: usize = 1 << 18;

impl Costas {
    /// The prefix depth of the work list: the shallowest with at least [`TARGET_UNITS`]
    /// units (or the deepest allowed).
    fn depth(&self) -> u32 {
        // A unit is at most n − 1 rows: the skeleton searches at least one row of it.
        let deepest = self.n.saturating_sub(1).min(MAX_PREFIX);
        // For tuning runs: COSTAS_UNITS_LOG2=k aims at 2^k units.
        let target = std::env::var("COSTAS_UNITS_LOG2")
            .ok()
            .and_then(|k| k.parse::<u32>().ok())
            .filter(|&k| k < 40)
            .map_or(TARGET_UNITS, |k| 1 << k);
        (1..=deepest)
            .find(|&depth| {
                let mut units = 0;
                prefixes(self.n, depth, &mut |_| units += 1);
                units >= target
            })
            .unwrap_or(deepest)
    }
}

impl Search for Costas {
    type Partial = Arrays;
    const UNIT_WORDS: usize = 1;
    const RESULT_WORDS: usize = 2;

    fn problem(&self) -> &str {
        "costas"
    }

    fn size(&self) -> u32 {
        self.n
    }

    fn units(&self) -> Vec<u64> {
        let mut units = Vec::new();
        prefixes(self.n, self.depth(), &mut |word| units.push(word));
        units
    }

    fn params(&self) -> Vec<u64> {
        vec![self.n as u64]
    }

    fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
        let walked = search_unit(self.n, unit[0]);
        result.copy_from_slice(&[walked.found, walked.nodes]);
    }

    fn partial(&self, results: &[u64]) -> Arrays {
        let mut sum = Arrays::default();
        for walked in results.chunks(2) {
            sum.add(&Arrays {
                count: walked[0],
                nodes: walked[1],
            });
        }
        sum
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
    let result = engine::run(&Costas { n }, backend, control, Shard::WHOLE, None)?;
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
        let backend = Backend::Cpu(warpsearch::backend::cpu_pool(None).unwrap());
        for n in 1..=12 {
            let counted = count(n, &backend, &RunControl::quiet()).unwrap();
            assert_eq!(counted.count, KNOWN[n as usize - 1], "n = {n}");
            assert_eq!(counted.known_match, Some(true));
        }
    }

    #[test]
    fn bad_orders_are_errors() {
        let backend = Backend::Cpu(warpsearch::backend::cpu_pool(Some(1)).unwrap());
        assert!(count(0, &backend, &RunControl::quiet()).is_err());
        assert!(count(32, &backend, &RunControl::quiet()).is_err());
    }
}
