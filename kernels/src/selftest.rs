//! The self-test: every warp primitive applied to varied inputs, written once over
//! [`Lanes`] so that the GPU result can be compared word for word with the CPU twin.

use crate::atomic::WorkQueue;
use crate::bits::{bit_reverse, highest_set_bit, lop3, lowest_bit, maj3, popc, xor3};
use crate::warp::{Lanes, lane_id, lanemask_lt};

/// Number of per-lane results [`exercise`] produces.
pub const OUTPUTS: usize = 39;
/// Index of the result that comes from the work queue (compared by its properties, since
/// the order in which warps reach the counter differs between runs).
pub const CLAIM_OUTPUT: usize = 38;
/// Input words per lane.
pub const INPUTS: usize = 2;

/// Names of the outputs, for reports.
pub const OUTPUT_NAMES: [&str; OUTPUTS] = [
    "lane_id",
    "popc",
    "highest_set_bit",
    "lowest_bit",
    "bit_reverse",
    "maj3",
    "xor3",
    "lop3<0x1E>",
    "ballot",
    "any",
    "all",
    "shuffle",
    "broadcast",
    "shuffle_xor",
    "shuffle_up",
    "shuffle_down",
    "sum",
    "or_all",
    "column_counts.bit0",
    "column_counts.bit1",
    "lanemask_lt",
    "popc(ballot) via lanes",
    "transpose",
    "min_all",
    "inclusive_sum",
    "exclusive_sum",
    "compact.slot",
    "compact.count",
    "ballot_counts",
    "sum_u64.low",
    "sum_u64.high",
    "redux_add",
    "redux_min",
    "redux_max",
    "redux_and",
    "redux_or",
    "redux_xor",
    "reduce(max)",
    "work_queue.claim",
];

/// Applies every primitive to one warp's inputs `a`, `b` and a uniform `salt`.
#[inline(always)]
pub fn exercise(
    a: Lanes<u32>,
    b: Lanes<u32>,
    salt: u32,
    queue: WorkQueue<'_>,
) -> [Lanes<u32>; OUTPUTS] {
    let c = a.map(|x| x.rotate_left(salt % 32)) ^ b.map(|x| x >> (salt % 7));
    let sparse = a & b & c;
    let counts = sparse.column_counts();
    let odd = a.map(|x| x & 1 == 1);
    let votes = odd.ballot();
    let wide_sum = a.zip_with(b, |x, y| (x as u64) << 32 | y as u64).sum();
    [
        lane_id(),
        a.map(popc),
        a.map(|x| highest_set_bit(x).unwrap_or(99)),
        a.map(lowest_bit),
        a.map(bit_reverse),
        a.zip_with(b, |x, y| (x, y))
            .zip_with(c, |(x, y), z| maj3(x, y, z)),
        a.zip_with(b, |x, y| (x, y))
            .zip_with(c, |(x, y), z| xor3(x, y, z)),
        a.zip_with(b, |x, y| (x, y))
            .zip_with(c, |(x, y), z| lop3::<0x1E>(x, y, z)),
        Lanes::splat(votes),
        Lanes::splat(a.map(|x| x % 61 == salt % 61).any() as u32),
        Lanes::splat((a | b | Lanes::splat(salt)).map(|x| x & 1 == 1).all() as u32),
        a.shuffle(b),
        Lanes::splat(a.broadcast(salt)),
        a.shuffle_xor(salt),
        a.shuffle_up(salt % 32),
        a.shuffle_down(salt % 32),
        Lanes::splat(a.sum()),
        Lanes::splat(sparse.or_all()),
        Lanes::splat(counts.bit0),
        Lanes::splat(counts.bit1),
        lanemask_lt(),
        Lanes::splat(odd.map(|o| o as u32).sum()),
        a.transpose(),
        Lanes::splat(a.min_all()),
        a.inclusive_sum(),
        a.exclusive_sum(),
        odd.compact().slot,
        Lanes::splat(odd.compact().count),
        {
            let counts = a.map(|x| x & 63).ballot_counts();
            lane_id().map(|lane| counts.get(lane))
        },
        Lanes::splat(wide_sum as u32),
        Lanes::splat((wide_sum >> 32) as u32),
        Lanes::splat(a.redux_add()),
        Lanes::splat(a.redux_min()),
        Lanes::splat(a.redux_max()),
        Lanes::splat((a | b).redux_and()),
        Lanes::splat(sparse.redux_or()),
        Lanes::splat(c.redux_xor()),
        Lanes::splat(b.reduce(u32::max)),
        queue.claim(b.map(|x| x & 8 != 0)),
    ]
}

/// The reductions `warpsearch bench warp` times, each as a shuffle tree
/// ([`Lanes::reduce`]) and as one `redux.sync` (`Lanes::redux_*`).
pub const TIMED_REDUCTIONS: [&str; 6] = ["add", "min", "max", "and", "or", "xor"];

/// `rounds` dependent reductions of kind `TIMED_REDUCTIONS[op]`, each round
/// `x ← rotl(x, 1) ^ reduce(x)`: the next round cannot start before the last one's result is
/// there, so the time is the reduction's latency plus two ALU instructions. `redux`: with
/// `redux.sync` rather than the five-shuffle tree. Both forms give the same bits (the host
/// compares them before it believes a time).
#[inline(always)]
pub fn reduction_chain(op: u32, redux: bool, seed: Lanes<u32>, rounds: u32) -> Lanes<u32> {
    #[inline(always)]
    fn chain(mut x: Lanes<u32>, rounds: u32, reduce: impl Fn(Lanes<u32>) -> u32) -> Lanes<u32> {
        for _ in 0..rounds {
            let r = reduce(x);
            x = x.map(|v| v.rotate_left(1) ^ r);
        }
        x
    }
    match (op, redux) {
        (0, false) => chain(seed, rounds, |x| x.reduce(u32::wrapping_add)),
        (1, false) => chain(seed, rounds, |x| x.reduce(u32::min)),
        (2, false) => chain(seed, rounds, |x| x.reduce(u32::max)),
        (3, false) => chain(seed, rounds, |x| x.reduce(|a, b| a & b)),
        (4, false) => chain(seed, rounds, |x| x.reduce(|a, b| a | b)),
        (5, false) => chain(seed, rounds, |x| x.reduce(|a, b| a ^ b)),
        (0, true) => chain(seed, rounds, Lanes::redux_add),
        (1, true) => chain(seed, rounds, Lanes::redux_min),
        (2, true) => chain(seed, rounds, Lanes::redux_max),
        (3, true) => chain(seed, rounds, Lanes::redux_and),
        (4, true) => chain(seed, rounds, Lanes::redux_or),
        _ => chain(seed, rounds, Lanes::redux_xor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_of_every_timed_reduction_give_the_same_chain() {
        let seed = Lanes::from_fn(|lane| lane.wrapping_mul(0x9E37_79B9) ^ 0x5bd1_e995);
        for op in 0..TIMED_REDUCTIONS.len() as u32 {
            let tree = reduction_chain(op, false, seed, 100);
            assert_eq!(
                tree,
                reduction_chain(op, true, seed, 100),
                "{}",
                TIMED_REDUCTIONS[op as usize]
            );
            assert_ne!(tree, seed);
        }
    }
}
