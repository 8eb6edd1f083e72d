//! The textbook bitmap N-Queens counter (one queen a row; the columns and both diagonals
//! taken, as three bit masks) written once as a [`DepthFirst`] tree: warpsearch's skeleton
//! walks it on the GPU, its CPU twin on every core. No symmetry, no constellations: it is the
//! yardstick of what the skeleton costs beside the built-in counter.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]

use kernels::dfs::{DepthFirst, Node};
use kernels::slab::Slab;

/// Largest board: a row of columns is one `u32`.
pub const MAX_N: u32 = 32;

/// The search below a prefix of `split` ≤ n − 2 rows of an n × n board. Slab word 0 holds the unit's
/// row count; level d (the node d rows below the unit) keeps its three masks in words
/// `1 + 3d ..= 3 + 3d`, so descending copies them forward and undoing costs nothing.
#[derive(Clone, Copy)]
pub struct Queens {
    /// The board's size.
    pub n: u32,
    /// Rows the host places before a unit starts.
    pub split: u32,
}

impl Queens {
    #[inline(always)]
    fn free(&self, columns: u32, left: u32, right: u32) -> u32 {
        (u32::MAX >> (32 - self.n)) & !(columns | left | right)
    }
}

/// A unit: the masks after the first rows, as two words (`columns | left << 32`,
/// `right | rows << 32`).
pub fn encode(rows: u32, columns: u32, left: u32, right: u32) -> [u64; 2] {
    [
        columns as u64 | (left as u64) << 32,
        right as u64 | (rows as u64) << 32,
    ]
}

impl DepthFirst for Queens {
    type Set = u32;
    const UNDO: bool = false;

    fn state_words(&self) -> u32 {
        1 + 3 * (self.max_depth() + 1)
    }

    fn max_depth(&self) -> u32 {
        self.n - self.split.min(self.n)
    }

    #[inline(always)]
    fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> u32 {
        let (columns, left) = (unit[0] as u32, (unit[0] >> 32) as u32);
        let (right, rows) = (unit[1] as u32, (unit[1] >> 32) as u32);
        state.set(0, rows);
        state.set(1, columns);
        state.set(2, left);
        state.set(3, right);
        self.free(columns, left, right)
    }

    #[inline(always)]
    fn descend<S: Slab>(&self, state: &mut S, depth: u32, column: u32, _rest: u32) -> Node<u32> {
        let at = 1 + 3 * depth;
        let queen = 1 << column;
        let columns = state.get(at) | queen;
        let left = (state.get(at + 1) | queen) << 1;
        let right = (state.get(at + 2) | queen) >> 1;
        let row = state.get(0) + depth + 1;
        let free = self.free(columns, left, right);
        if row + 1 == self.n {
            // The last row: each free column completes a board.
            return Node::Leaves(free.count_ones());
        }
        state.set(at + 3, columns);
        state.set(at + 4, left);
        state.set(at + 5, right);
        Node::Inner(free)
    }

    #[inline(always)]
    fn undo<S: Slab>(&self, _state: &mut S, _depth: u32, _column: u32) {}
}

/// The kernel: the skeleton over [`Queens`], each unit's count and nodes in two words.
///
/// # Safety
/// The engine's calling convention (`kernels::work`): `params` = [n, split]; two words a
/// unit, two result words a unit; whole-warp blocks, each thread with `4 · slab_words` bytes
/// of dynamic shared memory.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn nqueens_simple(
    params: *const u64,
    work: *const kernels::work::Work,
) {
    // SAFETY: the calling convention above.
    unsafe {
        let tree = Queens {
            n: *params as u32,
            split: *params.add(1) as u32,
        };
        kernels::dfs::walk_units(&tree, &*work, 2, kernels::dfs::Report::CountsAndNodes);
    }
}
