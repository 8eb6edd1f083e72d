//! The self-test: every warp primitive applied to varied inputs, written once over
//! [`Lanes`] so that the GPU result can be compared word for word with the CPU twin.

use crate::atomic::WorkQueue;
use crate::bits::{bit_reverse, highest_set_bit, lop3, lowest_bit, maj3, popc, xor3};
use crate::scope::{Scope, ScopedAtomic, fence_in};
use crate::warp::{LaneCounters, Lanes, TRANSPOSE_ROUNDS, lane_id, lanemask_lt};
use core::sync::atomic::{AtomicU32, Ordering};

/// Number of per-lane results [`exercise`] produces.
pub const OUTPUTS: usize = 42;
/// Index of the result that comes from the work queue (compared by its properties, since
/// the order in which warps reach the counter differs between runs).
pub const CLAIM_OUTPUT: usize = 41;
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
    "transpose_round",
    "round.bit0",
    "round.bit1",
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
    let (width, low) = TRANSPOSE_ROUNDS[(salt % 5) as usize];
    // Two butterfly rounds of the column counter at two different widths.
    let counters = LaneCounters::of_rows(sparse)
        .round(1 << (salt % 5))
        .round(1 << ((salt % 5 + 1) % 5));
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
        a.transpose_round(width, low),
        counters.bit0,
        counters.bit1,
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

/// The memory operations `warpsearch bench warp` times at each [`Scope`]: a relaxed store
/// then a `fence.sc`, an `ld.acquire`, an `st.release`.
pub const TIMED_SCOPE_OPS: [&str; 3] = ["st + fence.sc", "ld.acquire", "st.release"];

/// The scopes timed, in the order of the kernel's `scope` argument.
pub const TIMED_SCOPES: [Scope; 3] = [Scope::Block, Scope::Gpu, Scope::System];

/// `rounds` rounds of operation `TIMED_SCOPE_OPS[op]` at `scope` on this thread's own `word`
/// (no other thread touches it, so the time is the operation's own cost, not contention),
/// each round's value `x ← rotl(x, 1) ^ i` (the load's value joins in). Returns the last `x`,
/// which is also left in `word`; it does not depend on the scope.
#[inline(always)]
pub fn scope_chain(op: u32, scope: Scope, word: &AtomicU32, seed: u32, rounds: u32) -> u32 {
    let mut x = seed;
    match op {
        0 => {
            for i in 0..rounds {
                word.store_in(Scope::Gpu, x, Ordering::Relaxed);
                fence_in(scope, Ordering::SeqCst);
                x = x.rotate_left(1) ^ i;
            }
        }
        1 => {
            for i in 0..rounds {
                x = x.rotate_left(1) ^ i ^ word.load_in(scope, Ordering::Acquire);
            }
        }
        _ => {
            for i in 0..rounds {
                word.store_in(scope, x, Ordering::Release);
                x = x.rotate_left(1) ^ i;
            }
        }
    }
    word.store_in(Scope::Gpu, x, Ordering::Relaxed);
    x
}

/// Rounds of independent loads a thread makes in the coalescing timing.
pub const LOAD_ROUNDS: u32 = 1024;

/// The sum of the `rounds` words thread `thread` of `threads` reads with `stride`: word
/// `((k · threads + thread) · stride) mod len` in round `k` (`len` a power of two). At stride
/// 1 a warp's 32 loads of a round are 128 consecutive bytes (4 sectors of 32 bytes); at
/// stride 8 or more each lane's word lies in its own sector (32 sectors). `load(i)` reads word
/// `i`.
#[inline(always)]
pub fn strided_sum(
    thread: u32,
    threads: u32,
    stride: u32,
    len: u32,
    rounds: u32,
    load: impl Fn(u32) -> u32,
) -> u32 {
    let mut sum = 0u32;
    for k in 0..rounds {
        let index = (k.wrapping_mul(threads).wrapping_add(thread)).wrapping_mul(stride) & (len - 1);
        sum = sum.wrapping_add(load(index));
    }
    sum
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

    #[test]
    fn a_scope_chain_does_not_depend_on_the_scope() {
        for op in 0..TIMED_SCOPE_OPS.len() as u32 {
            let results = TIMED_SCOPES.map(|scope| {
                let word = AtomicU32::new(0);
                let x = scope_chain(op, scope, &word, 0x1234_5678, 50);
                assert_eq!(
                    word.load(Ordering::Relaxed),
                    x,
                    "the last value is left in the word"
                );
                x
            });
            assert_eq!(results, [results[0]; 3], "{}", TIMED_SCOPE_OPS[op as usize]);
            assert_ne!(results[0], 0x1234_5678);
        }
    }

    #[test]
    fn strided_loads_read_the_words_the_formula_names() {
        let words: std::vec::Vec<u32> = (0..64u32).map(|i| i * 3).collect();
        // Thread 1 of 4, stride 8, 3 rounds: words 8, 40, 72 & 63 = 8.
        let sum = strided_sum(1, 4, 8, 64, 3, |i| words[i as usize]);
        assert_eq!(sum, (8 + 40 + 8) * 3);
    }
}
