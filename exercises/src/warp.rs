//! Exercises 1–4 and 7: votes, shuffles, scans, compaction, an aggregated atomic.

use core::sync::atomic::AtomicU32;
use kernels::warp::Lanes;

/// **Exercise 1.** For each lane whose flag is set, how many lanes *below* it have their flag
/// set too (its rank among the flagged lanes); lanes whose flag is clear get any value.
///
/// Use: [`Lanes::ballot`] (the flags as one word, bit `l` for lane `l`),
/// [`kernels::warp::lanemask_lt`] (per lane, the bits of the lanes below it), and
/// [`Lanes::popc`]. Three instructions on the GPU.
#[cfg(not(feature = "solutions"))]
pub fn lane_rank(flags: Lanes<bool>) -> Lanes<u32> {
    todo!("exercise 1: ballot, mask with lanemask_lt, popc")
}
#[cfg(feature = "solutions")]
pub use crate::solutions::lane_rank;

/// **Exercise 2.** The largest value of the warp, in every lane.
///
/// Use five rounds of `x = max(x, x.shuffle_xor(s))` for `s = 16, 8, 4, 2, 1`
/// ([`Lanes::shuffle_xor`], [`Lanes::zip_with`]), then [`Lanes::uniform`]. Not `reduce` or
/// `redux_max`: those are the library's answer.
#[cfg(not(feature = "solutions"))]
pub fn warp_max(values: Lanes<u32>) -> u32 {
    todo!("exercise 2: a butterfly of shuffle_xor")
}
#[cfg(feature = "solutions")]
pub use crate::solutions::warp_max;

/// **Exercise 3.** The inclusive prefix sum: lane `l` gets `values[0] + … + values[l]`
/// (wrapping).
///
/// Use five rounds of [`Lanes::shuffle_up`] by 1, 2, 4, 8, 16: in round `d`, a lane at
/// `d` or above adds the running sum of the lane `d` below it (a lane below `d` receives its
/// own value from `shuffle_up`, so it must add nothing: [`kernels::warp::lane_id`] tells).
#[cfg(not(feature = "solutions"))]
pub fn prefix_sum(values: Lanes<u32>) -> Lanes<u32> {
    todo!("exercise 3: a scan with shuffle_up")
}
#[cfg(feature = "solutions")]
pub use crate::solutions::prefix_sum;

/// **Exercise 4.** Writes the values of the lanes whose `keep` is set to `out[0]`, `out[1]`,
/// … in lane order, and returns how many it wrote. `out` has room for 32.
///
/// Each kept lane's slot is its rank among the kept lanes (exercise 1); the count is the
/// popcount of the ballot. The writes are a side effect per lane: [`Lanes::for_each`] (one
/// store per kept lane on the GPU, lanes 0 to 31 in turn on the CPU).
#[cfg(not(feature = "solutions"))]
pub fn compact_into(values: Lanes<u32>, keep: Lanes<bool>, out: &mut [u32]) -> u32 {
    todo!("exercise 4: rank as address, one write per kept lane")
}
#[cfg(feature = "solutions")]
pub use crate::solutions::compact_into;

/// **Exercise 7.** Every lane whose `want` is set receives a distinct index from `counter`,
/// with a single atomic for the whole warp: the lanes that want one get consecutive indices
/// in lane order, starting at the counter's old value, and the counter grows by how many
/// wanted. Lanes that do not want one get `u32::MAX`.
///
/// One lane adds for all: [`add_on_lane_zero`]. Its answer is in lane 0's register only, as
/// on the GPU, where the other lanes never ran the atomic; a broadcast ([`Lanes::broadcast`]
/// from lane 0) hands it to the others. Then each wanting lane adds its rank (exercise 1).
#[cfg(not(feature = "solutions"))]
pub fn claim(want: Lanes<bool>, counter: &AtomicU32) -> Lanes<u32> {
    todo!("exercise 7: ballot, one fetch_add, broadcast, rank")
}
#[cfg(feature = "solutions")]
pub use crate::solutions::claim;

/// Lane 0 adds `amount` to `counter` (one `atom.add` for the warp); the value the counter
/// had lands in lane 0 alone, the other lanes hold 0 — what the registers of a GPU warp hold
/// after `if lane == 0 { old = atomicAdd(…) }`. The CPU form keeps that shape, so that code
/// which forgets to broadcast fails here as it would on the GPU.
pub fn add_on_lane_zero(counter: &AtomicU32, amount: u32) -> Lanes<u32> {
    let mut old = 0;
    kernels::warp::on_one_lane(|| {
        old = counter.fetch_add(amount, core::sync::atomic::Ordering::Relaxed);
    });
    Lanes::from_fn(|lane| if lane == 0 { old } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::sync::atomic::Ordering;
    use std::vec::Vec;

    /// Deterministic pseudo-random warps (xorshift), so the tests need no crate.
    fn warps(count: usize) -> Vec<[u32; 32]> {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        (0..count)
            .map(|_| {
                core::array::from_fn(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 16) as u32
                })
            })
            .collect()
    }

    #[test]
    fn lane_rank_counts_the_flagged_lanes_below() {
        for words in warps(50) {
            let flags = Lanes::from_array(words.map(|w| w % 3 == 0));
            let ranks = lane_rank(flags).to_array();
            let mut below = 0;
            for lane in 0..32 {
                if words[lane] % 3 == 0 {
                    assert_eq!(
                        ranks[lane],
                        below,
                        "lane {lane}: your rank (left), expected (right); flags {:?}",
                        flags.to_array()
                    );
                    below += 1;
                }
            }
        }
    }

    #[test]
    fn warp_max_is_the_largest_value() {
        for words in warps(50) {
            let masked = words.map(|w| w >> (w % 32));
            let expected = masked.iter().copied().max().unwrap_or(0);
            assert_eq!(
                warp_max(Lanes::from_array(masked)),
                expected,
                "your maximum (left), expected (right); lanes {masked:?}"
            );
        }
    }

    #[test]
    fn prefix_sum_is_the_running_total() {
        for words in warps(50) {
            let sums = prefix_sum(Lanes::from_array(words)).to_array();
            let mut total = 0u32;
            for lane in 0..32 {
                total = total.wrapping_add(words[lane]);
                assert_eq!(
                    sums[lane], total,
                    "lane {lane}: your running total (left), expected (right); lanes {words:?}"
                );
            }
        }
    }

    #[test]
    fn compact_into_keeps_the_kept_values_in_lane_order() {
        for words in warps(50) {
            let keep = Lanes::from_array(words.map(|w| w & 4 != 0));
            let mut out = [u32::MAX; 32];
            let count = compact_into(Lanes::from_array(words), keep, &mut out);
            let expected: Vec<u32> = words.iter().copied().filter(|w| w & 4 != 0).collect();
            assert_eq!(
                &out[..count as usize],
                &expected[..],
                "your kept values (left), expected (right); lanes {words:?}, keep {:?}",
                keep.to_array()
            );
            assert!(
                out[count as usize..].iter().all(|&w| w == u32::MAX),
                "the words after the {count} kept must stay untouched (u32::MAX): {out:?}"
            );
        }
    }

    #[test]
    fn claim_hands_out_consecutive_indices_with_one_add() {
        let counter = AtomicU32::new(100);
        for words in warps(20) {
            let before = counter.load(Ordering::Relaxed);
            let want = Lanes::from_array(words.map(|w| w & 1 == 1));
            let got = claim(want, &counter).to_array();
            let wanting: Vec<usize> = (0..32).filter(|&l| words[l] & 1 == 1).collect();
            for (rank, &lane) in wanting.iter().enumerate() {
                assert_eq!(
                    got[lane],
                    before + rank as u32,
                    "lane {lane}: your index (left), expected (right); counter was {before}, lanes asking {wanting:?}"
                );
            }
            for lane in (0..32).filter(|l| !wanting.contains(l)) {
                assert_eq!(
                    got[lane],
                    u32::MAX,
                    "lane {lane} did not ask: your value (left), expected u32::MAX (right)"
                );
            }
            assert_eq!(
                counter.load(Ordering::Relaxed),
                before + wanting.len() as u32,
                "the counter after (left), expected (right): {before} plus the {} lanes asking",
                wanting.len()
            );
        }
    }
}
