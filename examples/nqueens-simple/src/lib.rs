//! The textbook bitmap N-Queens count as a search of warpsearch's engine: the work list (every
//! placement of the first rows), the kernel, and how results add up. `src/main.rs` is the
//! command line around it.

use nqueens_simple_kernels::{Queens, encode};
use warpsearch_engine::search::{Kernel, Launch, Partial, Search, UnitResults};

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/queens.ptx"));
const NATIVE: &[(u32, &[u8])] = include!(concat!(env!("OUT_DIR"), "/queens.ptx.native.rs"));

/// Solutions of n = 1..=27 (OEIS A000170).
pub const KNOWN: [u64; 27] = [
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2680,
    14200,
    73712,
    365596,
    2279184,
    14772512,
    95815104,
    666090624,
    4968057848,
    39029188884,
    314666222712,
    2691008701644,
    24233937684440,
    227514171973736,
    2207893435808352,
    22317699616364044,
    234907967154122528,
];

/// Counts and nodes of some units.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Solutions.
    pub solutions: u64,
    /// Queens placed.
    pub nodes: u64,
}

impl Partial for Counts {
    fn add(&mut self, other: &Self) {
        self.solutions += other.solutions;
        self.nodes += other.nodes;
    }
    fn nodes(&self) -> u128 {
        self.nodes.into()
    }
}

/// The work list: every placement of the first rows, at least 2^14 of them (the roots), each
/// expanded to the first `split` = (n + 1) / 3 rows when its chunk is handed out, on every
/// core while the GPU runs: millions of small units, so that the last ones are short.
pub struct Simple(Queens);

impl Simple {
    /// The count for an n × n board (`NQS_UNIT_ROWS=k`: units of k rows, for tuning runs).
    /// Measured on one H100, units of 5, 6 and 7 rows: N = 18 0.26, 0.22, 0.46–0.58 s;
    /// N = 19 1.85, 1.45, 1.57 s; N = 20 14.3, 13.0, 11.5 s.
    pub fn new(n: u32) -> Simple {
        let tuned = std::env::var("NQS_UNIT_ROWS")
            .ok()
            .and_then(|k| k.parse().ok());
        let split = tuned
            .unwrap_or((n + 1) / 3)
            .clamp(1, n.saturating_sub(2).max(1));
        Simple(Queens { n, split })
    }

    /// The rows of the roots: the fewest that give 2^14 (at most `split`).
    fn root_rows(&self) -> u32 {
        let (n, split) = (self.0.n, self.0.split);
        (1..split)
            .find(|&k| count_prefixes(n, k) >= 1 << 14)
            .unwrap_or(split)
    }
}

fn prefixes(n: u32, left_rows: u32, masks: [u32; 3], row: u32, out: &mut dyn FnMut([u64; 2])) {
    let [columns, left, right] = masks;
    if left_rows == 0 {
        return out(encode(row, columns, left, right));
    }
    let mut free = (u32::MAX >> (32 - n)) & !(columns | left | right);
    while free != 0 {
        let queen = free & free.wrapping_neg();
        free ^= queen;
        let next = [columns | queen, (left | queen) << 1, (right | queen) >> 1];
        prefixes(n, left_rows - 1, next, row + 1, out);
    }
}

fn count_prefixes(n: u32, rows: u32) -> u64 {
    let mut count = 0;
    prefixes(n, rows, [0; 3], 0, &mut |_| count += 1);
    count
}

impl Search for Simple {
    type Partial = Counts;
    const UNIT_WORDS: usize = 2;
    const RESULT_WORDS: usize = 2;
    fn problem(&self) -> &str {
        "nqueens-simple"
    }
    fn size(&self) -> u32 {
        self.0.n
    }
    const EXPANDS: bool = true;
    fn units(&self) -> Vec<u64> {
        let mut units = Vec::new();
        prefixes(self.0.n, self.root_rows(), [0; 3], 0, &mut |u| {
            units.extend(u)
        });
        units
    }
    fn expand(&self, root: &[u64], units: &mut Vec<u64>) {
        let (row, columns) = ((root[1] >> 32) as u32, root[0] as u32);
        let masks = [columns, (root[0] >> 32) as u32, root[1] as u32];
        let left_rows = self.0.split - row;
        prefixes(self.0.n, left_rows, masks, row, &mut |u| units.extend(u));
    }
    fn params(&self) -> Vec<u64> {
        vec![self.0.n as u64, self.0.split as u64]
    }
    fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
        let mut slab = [0u32; 256];
        let walked =
            warpsearch_engine::kernels::dfs::walk_unit_with_nodes(&self.0, unit, &mut slab);
        result.copy_from_slice(&[walked.found, walked.nodes]);
    }
    fn partial(&self, results: &UnitResults) -> Counts {
        // The kernel counts a last row's solutions without visiting them: nodes + solutions.
        let solutions = results.sum(0);
        let nodes = results.sum(1) + solutions;
        Counts { solutions, nodes }
    }
    fn kernel(&self) -> Option<Kernel> {
        Some(Kernel {
            ptx: PTX,
            native: NATIVE,
            name: "nqueens_simple",
        })
    }
    fn launch(&self) -> Launch {
        Launch::skeleton(warpsearch_engine::kernels::dfs::slab_words(&self.0))
    }
    fn probe(&self, unit: &[u64], pick: &mut dyn FnMut(u32) -> u32) -> Option<f64> {
        let mut slab = [0u32; 256];
        let walk =
            warpsearch_engine::kernels::dfs::probe(&self.0, unit, &mut slab, &mut |k| pick(k));
        Some(walk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpsearch_engine::{RunControl, backend, search, shard::Shard};

    #[test]
    fn the_estimate_of_the_nodes_is_within_its_range_and_5_percent_of_the_walk() {
        let cpu = warpsearch_engine::Backend::Cpu(backend::cpu_pool(None).unwrap());
        for n in [11, 13] {
            let search = Simple::new(n);
            let counts = search::run(&search, &cpu, &RunControl::quiet(), Shard::WHOLE, None)
                .unwrap()
                .counts;
            // The walk's nodes are its descents; `Counts::nodes` also counts the solutions.
            let walked = (counts.nodes - counts.solutions) as f64;
            let estimate = search::estimate(&search, 200_000, 7).unwrap();
            assert!(
                estimate.low <= walked && walked <= estimate.high,
                "n = {n}: {walked} outside {estimate:?}"
            );
            assert!(
                (estimate.nodes / walked - 1.0).abs() < 0.05,
                "n = {n}: {estimate:?}"
            );
        }
    }

    #[test]
    fn a_sample_run_predicts_the_nodes_of_the_whole_run() {
        let cpu = warpsearch_engine::Backend::Cpu(backend::cpu_pool(None).unwrap());
        let search = Simple::new(13);
        let counted = search::run(&search, &cpu, &RunControl::quiet(), Shard::WHOLE, None)
            .unwrap()
            .counts
            .nodes as f64;
        let predicted = search::predict(&search, &cpu, &RunControl::quiet(), 1.0).unwrap();
        assert!(
            (predicted.nodes / counted - 1.0).abs() < 0.10,
            "{counted} counted, {predicted:?}"
        );
        assert!(predicted.seconds > 0.0 && predicted.sample_chunks >= 7);
    }

    #[test]
    fn boards_4_to_12_match_oeis_on_the_cpu() {
        let cpu = warpsearch_engine::Backend::Cpu(backend::cpu_pool(None).unwrap());
        for n in 4..=12 {
            let r = search::run(
                &Simple::new(n),
                &cpu,
                &RunControl::quiet(),
                Shard::WHOLE,
                None,
            );
            assert_eq!(
                r.unwrap().counts.solutions,
                KNOWN[n as usize - 1],
                "n = {n}"
            );
        }
    }
}
