//! Langford pairings L(2, n) — the numbers 1, 1, 2, 2, …, n, n in a row of 2n places with the
//! two k's k places apart (k others between them) — as a [`DepthFirst`] tree: warpsearch's
//! skeleton walks it on the GPU, its CPU twin on every core.
//!
//! The tree fills the leftmost empty place at every step: the candidates are the values not
//! placed yet whose second copy, k + 1 places further on, lands on an empty place. Places are
//! the bits of one `u64` (so n ≤ 31), values the bits of one `u32` (bit k − 1 for k), and a
//! step is a few bit operations: `fitting` is the whole of it.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]

use kernels::dfs::{DepthFirst, Node};
use kernels::slab::Slab;

/// Largest n: 2n places and the places past the end marked taken fit one `u64`.
pub const MAX_N: u32 = 31;

/// The places of a row of 2n marked taken, with every place past the end taken too (so that
/// no second copy lands beyond it).
#[inline(always)]
pub fn empty_row(n: u32) -> u64 {
    !0u64 << (2 * n)
}

/// The values of `remaining` (bit k − 1 for value k) that fit with their first copy at the
/// leftmost empty place of `taken`: their second copy, k + 1 places further on, is empty too.
/// Bit j of the empty places shifted right by (leftmost + 2) is the place of value j + 1's
/// second copy, so one shift and one AND test every value at once.
#[inline(always)]
pub fn fitting(taken: u64, remaining: u32) -> u32 {
    let empty = !taken;
    // A full row has no empty place (64): shifting by 63 then leaves nothing.
    let leftmost = empty.trailing_zeros();
    remaining & (empty >> (leftmost + 2).min(63)) as u32
}

/// A unit: the row with some values placed (`taken`, the places past the end included) and
/// the values still to place, in two words. The host may keep more in the second word's
/// upper half (the kernel reads its lower 32 bits).
pub fn encode(taken: u64, remaining: u32) -> [u64; 2] {
    [taken, remaining as u64]
}

/// The search below a unit of a row of 2n places. Level d (d values placed below the unit)
/// keeps the row and the values left in slab words `3d ..= 3d + 2`, so a descent copies them
/// forward and nothing is undone.
#[derive(Clone, Copy)]
pub struct Langford {
    /// Values 1..=n, places 0..2n.
    pub n: u32,
}

impl Langford {
    #[inline(always)]
    fn level<S: Slab>(state: &S, at: u32) -> (u64, u32) {
        let taken = state.get(at) as u64 | (state.get(at + 1) as u64) << 32;
        (taken, state.get(at + 2))
    }

    #[inline(always)]
    fn set_level<S: Slab>(state: &mut S, at: u32, taken: u64, remaining: u32) {
        state.set(at, taken as u32);
        state.set(at + 1, (taken >> 32) as u32);
        state.set(at + 2, remaining);
    }
}

impl DepthFirst for Langford {
    type Set = u32;
    const UNDO: bool = false;

    fn state_words(&self) -> u32 {
        3 * (self.max_depth() + 1)
    }

    fn max_depth(&self) -> u32 {
        self.n
    }

    #[inline(always)]
    fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> u32 {
        let (taken, remaining) = (unit[0], unit[1] as u32);
        Self::set_level(state, 0, taken, remaining);
        fitting(taken, remaining)
    }

    /// A unit with every value placed is itself a pairing (a work list made down to the last
    /// value, as `Pairings::with_split(n, n)` makes it).
    #[inline(always)]
    fn unit_leaves<S: Slab>(&self, _unit: &[u64], state: &S) -> u32 {
        (state.get(2) == 0) as u32
    }

    #[inline(always)]
    fn descend<S: Slab>(&self, state: &mut S, depth: u32, choice: u32, _rest: u32) -> Node<u32> {
        let at = 3 * depth;
        let (taken, remaining) = Self::level(state, at);
        let leftmost = (!taken).trailing_zeros();
        // Value choice + 1 at the leftmost empty place, its second copy choice + 2 further on.
        let taken = taken | 1 << leftmost | 1 << (leftmost + choice + 2);
        let remaining = remaining & !(1 << choice);
        let fits = fitting(taken, remaining);
        if remaining & remaining.wrapping_sub(1) == 0 {
            // One value left (or none): it completes a pairing where it fits.
            return Node::Leaves(if remaining == 0 { 1 } else { fits.count_ones() });
        }
        Self::set_level(state, at + 3, taken, remaining);
        Node::Inner(fits)
    }

    #[inline(always)]
    fn undo<S: Slab>(&self, _state: &mut S, _depth: u32, _choice: u32) {}
}

/// The kernel: the skeleton over [`Langford`], each unit's pairings and nodes in two words.
///
/// # Safety
/// The engine's calling convention (`kernels::work`): `params` = [n]; two words a unit, two
/// result words a unit; whole-warp blocks, each thread with `4 · slab_words` bytes of dynamic
/// shared memory.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn langford(params: *const u64, work: *const kernels::work::Work) {
    // SAFETY: the calling convention above.
    unsafe {
        let tree = Langford { n: *params as u32 };
        kernels::dfs::walk_units(&tree, &*work, 2, kernels::dfs::Report::CountsAndNodes);
    }
}
