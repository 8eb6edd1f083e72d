//! Langford pairings L(2, n) as a search of warpsearch's engine, with the row's reversal as a
//! weight a unit: the work list places the largest value only in the left half of the row
//! (a pairing and its mirror image have it on opposite sides, or both in the middle), and
//! [`Search::weight`] counts each unit's pairings twice — once for their mirror images — or
//! once for a unit whose largest value sits in the middle, where both images are among its own
//! pairings. The engine applies the weights on the host, the same on the CPU and the GPU: the
//! kernel never sees them. `src/main.rs` is the command line around it.

use langford_kernels::{Langford, empty_row, encode, fitting};
use warpsearch_engine::search::{Kernel, Launch, Partial, Search, UnitResults};

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/langford.ptx"));
const NATIVE: &[(u32, &[u8])] = include!(concat!(env!("OUT_DIR"), "/langford.ptx.native.rs"));

/// L(2, n) for n = 1..=24, pairings up to reversal (OEIS A014552).
pub const KNOWN: [u64; 24] = [
    0,
    0,
    1,
    1,
    0,
    0,
    26,
    150,
    0,
    0,
    17_792,
    108_144,
    0,
    0,
    39_809_640,
    326_721_800,
    0,
    0,
    256_814_891_280,
    2_636_337_861_200,
    0,
    0,
    3_799_455_942_515_488,
    46_845_158_056_515_936,
];

/// What some units found.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Langford sequences, each pairing and its mirror image counted apart (twice L(2, n)).
    pub sequences: u64,
    /// Nodes visited (values placed).
    pub nodes: u64,
}

impl Counts {
    /// Pairings up to reversal, L(2, n).
    pub fn pairings(&self) -> u64 {
        self.sequences / 2
    }
}

impl Partial for Counts {
    fn add(&mut self, other: &Self) {
        self.sequences += other.sequences;
        self.nodes += other.nodes;
    }
    fn nodes(&self) -> u128 {
        self.nodes.into()
    }
}

/// The count of L(2, n). The work list's roots are the tree's own nodes a few values below
/// the largest value's placement (at least 2^14 of them), the largest value only in the left
/// half of the row; each root is expanded, when its chunk is handed out, into the nodes
/// `split` values below the largest: a few million small units, so that the GPU's last ones
/// are short.
pub struct Pairings {
    tree: Langford,
    root_levels: u32,
    split: u32,
}

impl Pairings {
    /// The count for n (1..=31): units n / 3 values below the largest value
    /// (`LANGFORD_SPLIT=k`: k values, for tuning runs). On one H100, n = 15 with units 4, 5,
    /// 6 and 7 values below: 0.076, 0.059, 0.174 and 0.68 s (the host's making and writing of
    /// 10⁵–10⁷ units is what grows); n = 16: 0.52, 0.315, 0.31 and 2.0 s.
    pub fn new(n: u32) -> Pairings {
        let tuned = std::env::var("LANGFORD_SPLIT")
            .ok()
            .and_then(|k| k.parse().ok());
        Pairings::with_split(n, tuned.unwrap_or(n / 3))
    }

    /// The count for n with units `split` values below the largest value (1..=n). With
    /// `split` ≥ n − 1 every unit has every value placed: the units are the pairings
    /// themselves, each counted by the tree's `unit_leaves`.
    pub fn with_split(n: u32, split: u32) -> Pairings {
        let split = split.clamp(1, n.max(1));
        let mut search = Pairings {
            tree: Langford { n },
            root_levels: split,
            split,
        };
        search.root_levels = (0..split)
            .find(|&levels| {
                let mut roots = 0usize;
                search.nodes_at(levels, &mut |_| roots += 1);
                roots >= 1 << 14
            })
            .unwrap_or(split);
        search
    }

    /// The last place value n may take and still sit in the left half: its mirror image starts
    /// at 2n − 2 − n − p = n − 2 − p.
    fn middle(&self) -> u32 {
        self.tree.n.saturating_sub(2) / 2
    }

    /// The nodes `levels` values below the largest value's placements (in the left half), as
    /// units; each carries the largest value's place in its second word's upper half.
    fn nodes_at(&self, levels: u32, out: &mut dyn FnMut([u64; 2])) {
        let n = self.tree.n;
        for first in 0..=self.middle() {
            if n >= 1 && first + n + 1 < 2 * n {
                let taken = empty_row(n) | 1 << first | 1 << (first + n + 1);
                let [row, rest] = encode(taken, (1u32 << (n - 1)) - 1);
                below([row, rest | (first as u64) << 32], levels, out);
            }
        }
    }
}

/// The nodes `levels` below `unit` by the tree's own rule (the leftmost empty place filled
/// first), each a unit with `unit`'s upper word kept; a node with every value placed is a unit
/// however few levels it is below, and a dead end (nothing fits) is none.
fn below(unit: [u64; 2], levels: u32, out: &mut dyn FnMut([u64; 2])) {
    let (taken, remaining) = (unit[0], unit[1] as u32);
    if levels == 0 || remaining == 0 {
        return out(unit);
    }
    let leftmost = (!taken).trailing_zeros();
    let mut fits = fitting(taken, remaining);
    while fits != 0 {
        let choice = fits.trailing_zeros();
        fits &= fits - 1;
        let [row, rest] = encode(
            taken | 1 << leftmost | 1 << (leftmost + choice + 2),
            remaining & !(1 << choice),
        );
        below([row, rest | unit[1] >> 32 << 32], levels - 1, out);
    }
}

impl Search for Pairings {
    type Partial = Counts;
    const UNIT_WORDS: usize = 2;
    const RESULT_WORDS: usize = 2;
    const EXPANDS: bool = true;
    fn problem(&self) -> &str {
        "langford"
    }
    fn size(&self) -> u32 {
        self.tree.n
    }
    fn units(&self) -> Vec<u64> {
        let mut roots = Vec::new();
        self.nodes_at(self.root_levels, &mut |u| roots.extend(u));
        roots
    }
    fn expand(&self, root: &[u64], units: &mut Vec<u64>) {
        let levels = self.split - self.root_levels;
        below([root[0], root[1]], levels, &mut |u| units.extend(u));
    }
    /// 2 for a unit whose largest value sits left of the middle (its pairings' mirror images
    /// are in no unit), 1 for one in the middle (they are among its own).
    fn weight(&self, unit: &[u64]) -> u64 {
        let first = (unit[1] >> 32) as u32;
        if 2 * first + 2 == self.tree.n { 1 } else { 2 }
    }
    fn params(&self) -> Vec<u64> {
        vec![self.tree.n as u64]
    }
    fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
        let mut slab = [0u32; 128];
        let walked =
            warpsearch_engine::kernels::dfs::walk_unit_with_nodes(&self.tree, unit, &mut slab);
        result.copy_from_slice(&[walked.found, walked.nodes]);
    }
    fn partial(&self, results: &UnitResults) -> Counts {
        Counts {
            sequences: results.weighted_sum(0),
            nodes: results.sum(1),
        }
    }
    fn probe(&self, unit: &[u64], pick: &mut dyn FnMut(u32) -> u32) -> Option<f64> {
        let mut slab = [0u32; 128];
        let tree = &self.tree;
        Some(warpsearch_engine::kernels::dfs::probe(
            tree,
            unit,
            &mut slab,
            &mut |k| pick(k),
        ))
    }
    fn kernel(&self) -> Option<Kernel> {
        Some(Kernel {
            ptx: PTX,
            native: NATIVE,
            name: "langford",
        })
    }
    fn launch(&self) -> Launch {
        Launch::skeleton(warpsearch_engine::kernels::dfs::slab_words(&self.tree))
    }
}

/// Every Langford sequence of n, both images, by brute force over the rows (n ≤ 8): the
/// reference the tests hold the search to.
pub fn brute_force(n: u32) -> u64 {
    fn fill(n: u32, taken: u64, remaining: u32) -> u64 {
        if remaining == 0 {
            return 1;
        }
        let leftmost = (!taken).trailing_zeros();
        (0..n)
            .filter(|&k| remaining >> k & 1 == 1)
            .map(|k| {
                let second = leftmost + k + 2;
                if second < 2 * n && taken >> second & 1 == 0 {
                    fill(
                        n,
                        taken | 1 << leftmost | 1 << second,
                        remaining & !(1 << k),
                    )
                } else {
                    0
                }
            })
            .sum()
    }
    fill(n, empty_row(n), (1u32 << n) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpsearch_engine::{Backend, RunControl, backend, search, shard::Shard};

    fn count(search: &Pairings) -> Counts {
        let cpu = Backend::Cpu(backend::cpu_pool(None).unwrap());
        search::run(search, &cpu, &RunControl::quiet(), Shard::WHOLE, None)
            .unwrap()
            .counts
    }

    #[test]
    fn the_weighted_units_count_every_sequence_once_for_small_n() {
        for n in 1..=8 {
            let counts = count(&Pairings::new(n));
            assert_eq!(counts.sequences, brute_force(n), "n = {n}");
            assert_eq!(counts.pairings(), KNOWN[n as usize - 1], "n = {n}");
        }
    }

    #[test]
    fn units_that_are_whole_pairings_count_themselves() {
        for n in [3, 4, 7, 8] {
            let search = Pairings::with_split(n, n);
            let mut units = Vec::new();
            for root in search.units().chunks(2) {
                search.expand(root, &mut units);
            }
            // Every unit has every value placed (its remaining values, the low half, are none).
            assert!(!units.is_empty() && units.chunks(2).all(|u| u[1] as u32 == 0));
            let counts = count(&search);
            assert_eq!(counts.sequences, brute_force(n), "n = {n}");
            // No node below a unit: each counted itself.
            assert_eq!(counts.nodes, 0, "n = {n}");
        }
    }

    #[test]
    fn the_counts_match_oeis_a014552() {
        for n in [11, 12] {
            assert_eq!(
                count(&Pairings::new(n)).pairings(),
                KNOWN[n as usize - 1],
                "n = {n}"
            );
        }
    }

    #[test]
    fn a_unit_in_the_middle_weighs_one_and_the_others_two() {
        let units = |search: &Pairings| {
            let mut units = Vec::new();
            for root in search.units().chunks(2) {
                search.expand(root, &mut units);
            }
            units
        };
        let search = Pairings::new(8);
        let weights: Vec<u64> = units(&search).chunks(2).map(|u| search.weight(u)).collect();
        assert!(weights.contains(&1) && weights.contains(&2));
        // n = 7: no middle place (n − 2 is odd), every unit weighs two.
        let odd = Pairings::new(7);
        assert!(units(&odd).chunks(2).all(|u| odd.weight(u) == 2));
    }
}
