//! Model answers to the exercises (feature `solutions`). Read them after you have tried.

use crate::Derangements;
use core::sync::atomic::AtomicU32;
use kernels::bits::lop3;
use kernels::dfs::{DepthFirst, Node};
use kernels::slab::Slab;
use kernels::warp::{Lanes, lane_id, lanemask_lt};

/// Exercise 1: the flags below each lane, counted.
pub fn lane_rank(flags: Lanes<bool>) -> Lanes<u32> {
    (lanemask_lt() & Lanes::splat(flags.ballot())).popc()
}

/// Exercise 2: five butterfly rounds.
pub fn warp_max(values: Lanes<u32>) -> u32 {
    let mut x = values;
    x = x.zip_with(x.shuffle_xor(16), u32::max);
    x = x.zip_with(x.shuffle_xor(8), u32::max);
    x = x.zip_with(x.shuffle_xor(4), u32::max);
    x = x.zip_with(x.shuffle_xor(2), u32::max);
    x = x.zip_with(x.shuffle_xor(1), u32::max);
    x.uniform()
}

/// Exercise 3: Hillis–Steele scan, written out (no array to loop over: on the GPU it would
/// land in local memory).
pub fn prefix_sum(values: Lanes<u32>) -> Lanes<u32> {
    let lane = lane_id();
    let round = |x: Lanes<u32>, d: u32| {
        let from_below = x.shuffle_up(d);
        let takes = lane.map(|l| l >= d);
        x + Lanes::select(takes, from_below, Lanes::splat(0))
    };
    let x = round(values, 1);
    let x = round(x, 2);
    let x = round(x, 4);
    let x = round(x, 8);
    round(x, 16)
}

/// Exercise 4: the rank is the slot.
pub fn compact_into(values: Lanes<u32>, keep: Lanes<bool>, out: &mut [u32]) -> u32 {
    let slots = lane_rank(keep);
    values
        .zip_with(keep, |value, kept| (value, kept))
        .zip_with(slots, |(value, kept), slot| (value, kept, slot))
        .for_each(|(value, kept, slot)| {
            if kept {
                out[slot as usize] = value;
            }
        });
    keep.ballot().count_ones()
}

/// Exercise 5: columns become rows.
pub fn column_popcounts(rows: Lanes<u32>) -> Lanes<u32> {
    rows.transpose().popc()
}

/// Exercise 6: `(0xF0 & 0xCC) | (!0xF0 & 0xAA)` = `0xC0 | 0x0A` = `0xCA`.
pub fn bit_select(mask: u32, a: u32, b: u32) -> u32 {
    lop3::<0xCA>(mask, a, b)
}

/// Exercise 7: one add, one broadcast, a rank each.
pub fn claim(want: Lanes<bool>, counter: &AtomicU32) -> Lanes<u32> {
    let votes = want.ballot();
    let old = crate::add_on_lane_zero(counter, votes.count_ones()).broadcast(0);
    let indices = lane_rank(want) + Lanes::splat(old);
    Lanes::select(want, indices, Lanes::splat(u32::MAX))
}

/// Exercise 8: word 0 the rows placed, word 1 the columns they use.
impl DepthFirst for Derangements {
    type Set = u32;

    fn state_words(&self) -> u32 {
        2
    }
    fn max_depth(&self) -> u32 {
        // The root (depth 0) chooses row 1; the last Inner node chooses row n - 2, whose
        // children are counted at once: depth n - 3 at most.
        self.n.saturating_sub(3)
    }
    fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> u32 {
        let used = 1 << unit[0];
        state.set(0, 1);
        state.set(1, used);
        self.free(1, used)
    }
    fn descend<S: Slab>(&self, state: &mut S, _: u32, choice: u32, _: u32) -> Node<u32> {
        let (row, used) = (state.get(0), state.get(1) | 1 << choice);
        if row + 1 == self.n {
            return Node::Leaves(1); // the choice filled the last row (n = 2)
        }
        let children = self.free(row + 1, used);
        if row + 2 == self.n {
            // The last row's column is forced: one way if it is free and off the diagonal.
            return Node::Leaves(children.count_ones());
        }
        state.set(0, row + 1);
        state.set(1, used);
        Node::Inner(children)
    }
    fn undo<S: Slab>(&self, state: &mut S, _: u32, choice: u32) {
        state.set(0, state.get(0) - 1);
        state.set(1, state.get(1) & !(1 << choice));
    }
}

impl Derangements {
    /// The columns row `row` may take: not used, not its own.
    fn free(&self, row: u32, used: u32) -> u32 {
        let all = if self.n == 32 {
            u32::MAX
        } else {
            (1 << self.n) - 1
        };
        all & !used & !(1u32.checked_shl(row).unwrap_or(0))
    }
}
