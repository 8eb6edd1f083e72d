//! Exercise 8: a whole search on the depth-first skeleton.

#[cfg(not(feature = "solutions"))]
use kernels::dfs::{DepthFirst, Node};
#[cfg(not(feature = "solutions"))]
use kernels::slab::Slab;

/// **Exercise 8.** Derangements of `n`: the permutations `p` of `0..n` with `p[r] ≠ r` for
/// every row `r` (n rooks on an n×n board, none on the diagonal). There are 1, 0, 1, 2, 9,
/// 44, 265, 1854, 14833, 133496 of them for n = 0..9 (OEIS A000166).
///
/// Write the [`DepthFirst`](kernels::dfs::DepthFirst) tree (see `kernels::dfs` and `docs/tutorial-nqueens-simple.md`):
/// the state is two slab words, the rows placed so far and the columns they use. A unit is
/// the column of row 0 (one word); `start` places it and returns the candidates of row 1
/// (the free columns other than 1). `descend` places `choice` in the next row; a node whose
/// next row is the last answers `Node::Leaves(k)`, `k` the number of ways to finish it.
/// `undo` takes a choice back. With `n` up to 32 a `u32` is the set of columns.
pub struct Derangements {
    /// The board size, 2..=32.
    pub n: u32,
}

#[cfg(not(feature = "solutions"))]
impl DepthFirst for Derangements {
    type Set = u32;

    fn state_words(&self) -> u32 {
        todo!("exercise 8: how many slab words the state takes")
    }
    fn max_depth(&self) -> u32 {
        todo!("exercise 8: the deepest level a unit's search reaches")
    }
    fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> u32 {
        todo!("exercise 8: row 0 takes column unit[0]; return row 1's candidates")
    }
    fn descend<S: Slab>(&self, state: &mut S, depth: u32, choice: u32, rest: u32) -> Node<u32> {
        todo!("exercise 8: place `choice` in the next row")
    }
    fn undo<S: Slab>(&self, state: &mut S, depth: u32, choice: u32) {
        todo!("exercise 8: take `choice` back")
    }
}

/// The derangements of `n` (2..=32): one unit a column of row 0 other than 0, each walked
/// by the skeleton's CPU twin (`kernels::dfs::walk_unit`).
pub fn count_derangements(n: u32) -> u64 {
    let tree = Derangements { n };
    (1..n as u64)
        .map(|column| kernels::dfs::walk_unit(&tree, &[column], &mut [0u32; 64]))
        .sum()
}

/// The same count through the GPU kernel's own loop (`kernels::dfs::walk_warp`), run on the
/// CPU form of one warp: 32 lanes claiming units from a queue as they finish.
pub fn count_derangements_as_a_warp(n: u32) -> u64 {
    use kernels::dfs::{Report, walk_as_one_warp};
    let tree = Derangements { n };
    let units: [u64; 31] = core::array::from_fn(|i| i as u64 + 1);
    let count = n.saturating_sub(1).min(31) as usize;
    let mut results = [0u64; 31];
    walk_as_one_warp(
        &tree,
        &units[..count],
        1,
        &mut results[..count],
        Report::Counts,
        || [0u32; 64],
    );
    results.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OEIS A000166, n = 2..=10.
    const DERANGEMENTS: [u64; 9] = [1, 2, 9, 44, 265, 1854, 14833, 133496, 1334961];

    #[test]
    fn the_tree_counts_the_derangements() {
        for (n, &known) in (2..).zip(&DERANGEMENTS) {
            assert_eq!(count_derangements(n), known, "n = {n}");
        }
    }

    #[test]
    fn the_gpu_kernel_loop_on_a_cpu_warp_counts_the_same() {
        for (n, &known) in (2..).zip(&DERANGEMENTS) {
            assert_eq!(count_derangements_as_a_warp(n), known, "n = {n}");
        }
    }
}
