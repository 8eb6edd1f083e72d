//! Prefix sums across the lanes (scans) and ballot compaction: where each lane's item goes
//! when some lanes have items and the others do not.
//!
//! Both are written once over [`Lanes`] operations (shuffles, votes, lane arithmetic), so the
//! GPU form and the CPU twin are the same code.

use super::{Lanes, lane_id, lanemask_lt};

impl Lanes<u32> {
    /// Lane `i` receives the sum of lanes `0..=i` (wrapping).
    ///
    /// Five rounds (Hillis–Steele): in round `d` = 1, 2, 4, 8, 16 a lane adds the running sum
    /// of the lane `d` below it, if there is one. GPU: per round one `shfl.sync.up.b32`, a
    /// compare of the lane index and a predicated `add` (about 20 instructions in all).
    #[inline(always)]
    pub fn inclusive_sum(self) -> Lanes<u32> {
        // Five calls rather than a loop over an array, which the compiler would keep in local
        // memory.
        self.add_from_below(1)
            .add_from_below(2)
            .add_from_below(4)
            .add_from_below(8)
            .add_from_below(16)
    }

    /// Lane `i` receives the sum of lanes `0..i` (lane 0: 0): where lane `i`'s items start when
    /// every lane writes `self` items one after another.
    #[inline(always)]
    pub fn exclusive_sum(self) -> Lanes<u32> {
        self.inclusive_sum() - self
    }

    /// One round of [`inclusive_sum`](Self::inclusive_sum): add the value `distance` lanes
    /// below, if that lane exists.
    #[inline(always)]
    fn add_from_below(self, distance: u32) -> Lanes<u32> {
        let below = self.shuffle_up(distance);
        let has_below = lane_id().map(|lane| lane >= distance);
        self + Lanes::select(has_below, below, Lanes::splat(0))
    }
}

/// Where the lanes that have an item put it, packed without gaps: [`Lanes<bool>::compact`].
#[derive(Clone, Copy, Debug)]
pub struct Compaction {
    /// For a lane with an item, its slot: how many lanes below it have one.
    pub slot: Lanes<u32>,
    /// How many lanes have an item (the same in every lane).
    pub count: u32,
}

impl Lanes<bool> {
    /// Stream compaction in one vote: each lane with an item (`true`) gets the next free slot
    /// in lane order, `popc(ballot & lanemask_lt)`, and every lane learns the total,
    /// `popc(ballot)`. GPU: one `vote.sync.ballot`, a read of `%lanemask_lt`, two `popc`.
    #[inline(always)]
    pub fn compact(self) -> Compaction {
        let ballot = self.ballot();
        Compaction {
            slot: lanemask_lt().map(|below| (below & ballot).count_ones()),
            count: ballot.count_ones(),
        }
    }
}

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sums_are_the_running_totals(values: [u32; 32]) {
            let inclusive = Lanes::from_array(values).inclusive_sum().to_array();
            let exclusive = Lanes::from_array(values).exclusive_sum().to_array();
            let mut total = 0u32;
            for lane in 0..32 {
                prop_assert_eq!(exclusive[lane], total);
                total = total.wrapping_add(values[lane]);
                prop_assert_eq!(inclusive[lane], total);
            }
        }

        #[test]
        fn compaction_packs_the_items_in_lane_order(items: [bool; 32]) {
            let packed = Lanes::from_array(items).compact();
            let slots = packed.slot.to_array();
            let mut next = 0;
            for lane in 0..32 {
                if items[lane] {
                    prop_assert_eq!(slots[lane], next);
                    next += 1;
                }
            }
            prop_assert_eq!(packed.count, next);
        }
    }
}
