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
///
/// The contract the skeleton relies on (`kernels::dfs`):
/// - `max_depth` is the deepest level a unit's search reaches: the unit's root is depth 0,
///   and each `descend` that answers `Node::Inner` goes one deeper. The stack keeps one set a
///   level, so a walk needs `slab_words` = `state_words + (max_depth + 1) × 2` words here; the
///   harness gives it exactly that, and the CPU walk stops with a message when a search goes
///   deeper than `max_depth` says.
/// - `Node::Leaves(k)`: the node is settled without going deeper, and the state is as it was
///   before this `descend` (no `undo` follows). `Node::Inner(set)`: the state now describes
///   the child, and `undo` will be called for it.
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
    let mut words = [0u32; MAX_SLAB];
    let mut slab = &mut words[..slab_size(&tree)];
    (1..n as u64)
        .map(|column| kernels::dfs::walk_unit(&tree, &[column], &mut slab))
        .sum()
}

/// The most slab words a thread of the harness has (a GPU block of the skeleton gives each of
/// its threads about as many).
const MAX_SLAB: usize = 64;

/// The words a walk of `tree` needs, checked against [`MAX_SLAB`]. The harness hands the walk
/// exactly this many, so that a search deeper than its `max_depth` is caught, not wrapped.
fn slab_size(tree: &Derangements) -> usize {
    let words = kernels::dfs::slab_words(tree) as usize;
    assert!(
        words <= MAX_SLAB,
        "n = {}: the walk needs {words} slab words (state_words + (max_depth + 1) × 2); the \
         harness has {MAX_SLAB} a thread: is max_depth larger than the deepest level?",
        tree.n
    );
    words
}

/// The same count through the GPU kernel's own loop (`kernels::dfs::walk_warp`), run on the
/// CPU form of one warp: 32 lanes claiming units from a queue as they finish.
pub fn count_derangements_as_a_warp(n: u32) -> u64 {
    use kernels::dfs::{Report, walk_as_one_warp};
    let tree = Derangements { n };
    let units: [u64; 31] = core::array::from_fn(|i| i as u64 + 1);
    let count = n.saturating_sub(1).min(31) as usize;
    let mut results = [0u64; 31];
    // Each lane's slab holds exactly the words the walk needs: a search deeper than its
    // max_depth stops with a message instead of writing past the end.
    let words = slab_size(&tree);
    let mut slabs = [[0u32; MAX_SLAB]; 32];
    let mut lanes = slabs.iter_mut();
    walk_as_one_warp(
        &tree,
        &units[..count],
        1,
        &mut results[..count],
        Report::Counts,
        || match lanes.next() {
            Some(slab) => &mut slab[..words],
            None => unreachable!("one slab for each of the 32 lanes"),
        },
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
            assert_eq!(
                count_derangements(n),
                known,
                "n = {n}: your tree's count (left), OEIS A000166 (right)"
            );
        }
    }

    /// Your tree with `max_depth` 0: its searches go deeper, which the walk must catch
    /// (on a GPU they would write past the slab into the next thread's).
    struct Shallow(Derangements);

    impl kernels::dfs::DepthFirst for Shallow {
        type Set = u32;
        fn state_words(&self) -> u32 {
            self.0.state_words()
        }
        fn max_depth(&self) -> u32 {
            0
        }
        fn start<S: kernels::slab::Slab>(&self, unit: &[u64], state: &mut S) -> u32 {
            self.0.start(unit, state)
        }
        fn descend<S: kernels::slab::Slab>(
            &self,
            state: &mut S,
            depth: u32,
            choice: u32,
            rest: u32,
        ) -> kernels::dfs::Node<u32> {
            self.0.descend(state, depth, choice, rest)
        }
        fn undo<S: kernels::slab::Slab>(&self, state: &mut S, depth: u32, choice: u32) {
            self.0.undo(state, depth, choice)
        }
    }

    #[test]
    #[should_panic(expected = "past max_depth")]
    fn a_max_depth_too_small_is_caught() {
        let tree = Shallow(Derangements { n: 6 });
        let mut words = [0u32; MAX_SLAB];
        let mut slab = &mut words[..kernels::dfs::slab_words(&tree) as usize];
        kernels::dfs::walk_unit(&tree, &[1], &mut slab);
    }

    /// Every size the statement allows fits the harness's slab.
    #[test]
    fn every_size_fits_the_slab() {
        for n in 2..=32 {
            slab_size(&Derangements { n });
        }
    }

    #[test]
    fn the_gpu_kernel_loop_on_a_cpu_warp_counts_the_same() {
        for (n, &known) in (2..).zip(&DERANGEMENTS) {
            assert_eq!(
                count_derangements_as_a_warp(n),
                known,
                "n = {n}: your tree's count through the warp loop (left), OEIS A000166 (right)"
            );
        }
    }
}
