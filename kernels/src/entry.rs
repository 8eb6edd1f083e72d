//! Kernel entry points (GPU only). Each is a thin shell: index arithmetic and loads on the way
//! in, stores on the way out; the work itself is the shared code the CPU backend runs too.
//!
//! Launch contract (checked by the host): 1-D blocks whose size is a multiple of 32, so that
//! every warp is whole and may use the full-mask collectives.

use crate::atomic::{Feed, NO_INDEX, SlotCounters, Supply, WorkQueue, add_warp_total};
use crate::bits::popc;
use crate::handoff::Handoff;
use crate::no3line::cells::Cells;
use crate::no3line::pairs::PairLines;
use crate::no3line::propagate::{Propagating, Share, Techniques, WORDS_PER_BOARD};
use crate::no3line::{DepthFirst, LineTable, Prefix, Pruning};
use crate::nqueens::constellation::{Counter, Job};
use crate::nqueens::estimate::estimated_work;
use crate::nqueens::{Search, Subproblem, random_dfs};
use crate::rng::SplitMix64;
use crate::scope::{Scope, ScopedAtomic};
use crate::selftest::{
    INPUTS, OUTPUTS, TIMED_SCOPES, exercise, reduction_chain, scope_chain, strided_sum,
};
use crate::slab::{GlobalSlab, SharedLevels, SharedSlab, Slab};
use crate::warp::{Lanes, syncwarp};
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// This thread's index in the grid.
#[inline(always)]
fn global_thread() -> u32 {
    // SAFETY: special-register reads with no preconditions.
    unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as u32 }
}

/// Runs [`exercise`] on `warps` warps. Warp `w`, lane `l` reads `inputs[(w·2 + i)·32 + l]` for
/// input `i` and the uniform `salts[w]`, and writes output `k` to `out[(w·OUTPUTS + k)·32 + l]`.
/// Claims come from the counter `next`; the popcounts of input 0 are added to `total`.
///
/// # Safety
/// The pointers must be valid device buffers of those sizes, the counters zeroed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_selftest(
    inputs: *const u32,
    salts: *const u32,
    out: *mut u32,
    next: *const AtomicU32,
    total: *const AtomicU64,
    warps: u32,
) {
    let thread = global_thread();
    let (warp, lane) = (thread / 32, thread % 32);
    if warp >= warps {
        return; // Whole warps leave together: `warp` is the same in all 32 lanes.
    }
    let input = |i: u32| {
        // SAFETY: in bounds for `warps` warps by the caller's contract.
        Lanes::this_lane(unsafe { *inputs.add(((warp * INPUTS as u32 + i) * 32 + lane) as usize) })
    };
    let (a, b) = (input(0), input(1));
    // SAFETY: as above; `next` and `total` point to device counters.
    let (salt, queue, total) =
        unsafe { (*salts.add(warp as usize), WorkQueue::new(&*next), &*total) };
    let results = exercise(a, b, salt, queue);
    for (k, result) in results.iter().enumerate() {
        let index = (warp as usize * OUTPUTS + k) * 32 + lane as usize;
        // SAFETY: in bounds by the caller's contract.
        unsafe { *out.add(index) = result.mine() };
    }
    add_warp_total(total, a.map(|x| popc(x) as u64));
    syncwarp();
}

/// Times one warp reduction: every thread runs [`reduction_chain`]`(op, redux, …, rounds)`
/// from a seed of its own and writes its last value to `out[thread]` (the host compares the
/// two forms' outputs, and times the launch).
///
/// # Safety
/// `out` holds one word for every thread of the launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_reduction_timing(
    op: u32,
    redux: u32,
    rounds: u32,
    out: *mut u32,
) {
    let thread = global_thread();
    let seed = Lanes::this_lane(thread.wrapping_mul(0x9E37_79B9) ^ 0x5bd1_e995);
    let result = reduction_chain(op, redux != 0, seed, rounds);
    // SAFETY: one word a thread (the caller's contract).
    unsafe { *out.add(thread as usize) = result.mine() };
}

/// Times one memory operation at one scope: every thread runs
/// [`scope_chain`]`(op, TIMED_SCOPES[scope], …, rounds)` on its own word `words[thread]`
/// (zeroed by the host), which ends holding the chain's last value (the host checks it).
///
/// # Safety
/// `words` holds one word for every thread of the launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_scope_timing(
    op: u32,
    scope: u32,
    rounds: u32,
    words: *mut u32,
) {
    let thread = global_thread();
    // SAFETY: one word a thread (the caller's contract), 4-byte aligned.
    let word = unsafe { AtomicU32::from_ptr(words.add(thread as usize)) };
    let seed = thread.wrapping_mul(0x9E37_79B9);
    // One arm a scope, so that each loop is compiled with its scope fixed.
    match scope {
        0 => scope_chain(op, TIMED_SCOPES[0], word, seed, rounds),
        1 => scope_chain(op, TIMED_SCOPES[1], word, seed, rounds),
        _ => scope_chain(op, TIMED_SCOPES[2], word, seed, rounds),
    };
}

/// Times loads at a stride: every thread sums its [`strided_sum`] of `data` (`len` words, a
/// power of two) into `out[thread]`.
///
/// # Safety
/// `data` holds `len` words; `out` one word for every thread of the launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_load_timing(
    stride: u32,
    len: u32,
    rounds: u32,
    data: *const u32,
    out: *mut u32,
) {
    let thread = global_thread();
    // SAFETY: special-register reads.
    let threads = unsafe { core::arch::nvptx::_grid_dim_x() * _block_dim_x() } as u32;
    // SAFETY: `strided_sum` masks every index below `len`, the length of `data`.
    let sum = strided_sum(thread, threads, stride, len, rounds, |i| unsafe {
        *data.add(i as usize)
    });
    // SAFETY: one word a thread (the caller's contract).
    unsafe { *out.add(thread as usize) = sum };
}

/// Counts N-Queens solutions of the `count` subproblems in `subproblems` for board size `n`.
///
/// Every thread runs a [`Search`] with its stack in shared memory (`4·n` bytes a thread). A
/// thread whose search is idle takes the next subproblem from `next` — one atomic per warp for
/// all the lanes that need work — and then places up to `steps_per_poll` queens before the warp
/// meets again, so lanes are refilled while their neighbours are still busy. At the end each
/// warp adds its counts to `tallies` = [count2, count4, count8, nodes].
///
/// The whole run is one launch (a launch per chunk would leave every chunk's slowest
/// subproblems running on an otherwise idle GPU). The host watches `next` for progress while
/// the kernel runs, and stops it by making `cancel` non-zero: lanes then take no more work,
/// and the counts are incomplete (the host discards them).
///
/// # Safety
/// Dynamic shared memory of `4·n·blockDim.x` bytes; valid buffers; `next`, `cancel` and
/// `tallies` zeroed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_nqueens(
    n: u32,
    subproblems: *const u64,
    count: u32,
    steps_per_poll: u32,
    next: *const AtomicU32,
    cancel: *const AtomicU32,
    tallies: *const AtomicU64,
) {
    // SAFETY: the launch provides n words of shared memory per thread (the contract above),
    // and the search only indexes rows below n.
    let slab = unsafe { SharedSlab::for_this_thread() };
    // SAFETY: `next` points to a zeroed device counter.
    let queue = WorkQueue::new(unsafe { &*next });
    let mut search = Search::new(n, slab);
    let mut exhausted = false;
    loop {
        let idle = search.is_idle() && !exhausted;
        let claimed = queue.claim(Lanes::this_lane(idle)).mine();
        if idle {
            // SAFETY: `cancel` points to a device word that the host may set at any time.
            let stop = unsafe { &*cancel }.load(Ordering::Relaxed) != 0;
            if claimed < count && !stop {
                // SAFETY: `claimed < count`, the length of `subproblems`.
                search.load(Subproblem(unsafe { *subproblems.add(claimed as usize) }));
            } else {
                exhausted = true;
            }
        }
        if Lanes::this_lane(exhausted).all() {
            break;
        }
        search.advance(steps_per_poll);
    }
    let tally = search.tally;
    // Four calls rather than a loop over an array: a loop that is not unrolled would put the
    // array in local memory.
    // SAFETY: `tallies` points to four device counters.
    let counter = |i: usize| unsafe { &*tallies.add(i) };
    add_warp_total(counter(0), Lanes::this_lane(tally.count2));
    add_warp_total(counter(1), Lanes::this_lane(tally.count4));
    add_warp_total(counter(2), Lanes::this_lane(tally.count8));
    add_warp_total(counter(3), Lanes::this_lane(tally.nodes));
}

/// Counts the completions of the `count` constellation jobs in `jobs` for board size `n`
/// ([`constellation`](crate::nqueens::constellation)): `tallies` = [weighted solutions, nodes].
///
/// Every thread runs a [`Counter`] with its stack in shared memory (`levels` levels, 768
/// bytes a warp each). A thread whose counter is idle takes the next job from `next` — one
/// atomic per warp for all the lanes that need work — and then takes up to `steps_per_poll`
/// steps before the warp meets again, so lanes are refilled while their neighbours are busy.
/// Setting `cancel` makes every thread stop, abandoning its job.
///
/// With `feed` null, all `count` jobs are there at launch. Otherwise the host supplies them
/// while the kernel runs ([`Feed`]): `feed[0]` counts the jobs written so far (at most
/// `count`), and once `feed[1]` is set no more come; a lane that has claimed an index beyond
/// the supplied ones waits for it. This lets one launch a GPU run for a whole multi-GPU count
/// while the host hands each GPU more work as it needs it.
///
/// For checkpoints, `job_slots` (may be null) gives each job a slot, and when a job is done
/// its solutions and nodes are added to `slot_counters[3·slot]`, `[3·slot + 1]` and
/// `[3·slot + 2]` is decremented: the host sets that third word to the slot's number of jobs
/// and takes a slot's counts as final once it reads zero there.
///
/// # Safety
/// `jobs` holds `count` jobs (with a feed: room for them, filled in order before `feed[0]`
/// counts them), each with at most `levels + 2` rows to fill; `next`, `cancel` and the two
/// `tallies` are zeroed device words; `job_slots` is null or holds `count` slots below the
/// number of triples in `slot_counters`; `feed` is null or two zeroed device words; dynamic
/// shared memory of `levels × 768` bytes per warp; whole-warp blocks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_nqueens_constellation(
    n: u32,
    jobs: *const Job,
    count: u32,
    levels: u32,
    steps_per_poll: u32,
    next: *const AtomicU32,
    cancel: *const AtomicU32,
    tallies: *const AtomicU64,
    job_slots: *const u32,
    slot_counters: *const AtomicU64,
    feed: *const [AtomicU32; 2],
) {
    // SAFETY: the launch provides `levels` levels per thread (the contract above).
    let stack = unsafe { SharedLevels::for_this_thread(levels) };
    // SAFETY: `next` points to a zeroed device counter.
    let queue = WorkQueue::new(unsafe { &*next });
    let feed = if feed.is_null() {
        Feed::fixed(count)
    } else {
        // SAFETY: a non-null `feed` points to two zeroed device words (the contract above).
        Feed::host(unsafe { &*feed }, count)
    };
    // SAFETY: `job_slots` is null or holds a slot below the triples of `slot_counters` for
    // every job (the contract above).
    let slots = unsafe { SlotCounters::new(job_slots, slot_counters) };
    // One row of look-ahead: a second saves steps but costs more instructions than it saves
    // on the GPU, where instruction issue is the limit (`Frontier::candidates_ahead`).
    let mut counter = Counter::<_, 1>::new(n, stack);
    let mut exhausted = false;
    // The job this lane runs, for the per-slot counts: its index and the lane's counts when it
    // started.
    let mut current = NO_INDEX;
    let mut at_start = counter.found;
    // An index this lane holds whose job the host has not supplied yet.
    let mut waiting = NO_INDEX;
    loop {
        let idle = counter.is_idle() && !exhausted;
        if idle && current != NO_INDEX {
            if let Some(slots) = slots {
                slots.finish(
                    current,
                    [
                        counter.found.solutions - at_start.solutions,
                        counter.found.nodes - at_start.nodes,
                    ],
                );
            }
        }
        let want = idle && waiting == NO_INDEX;
        let claimed = queue.claim(Lanes::this_lane(want)).mine();
        if idle {
            current = NO_INDEX;
            if want {
                waiting = claimed;
            }
            // SAFETY: `cancel` points to a device word that the host may set at any time.
            let stop = unsafe { &*cancel }.load(Ordering::Relaxed) != 0;
            match feed.supply(waiting) {
                _ if stop => exhausted = true,
                Supply::Ready => {
                    // SAFETY: `waiting` is below the supplied count, at most `count`, the
                    // length of `jobs`; volatile, as the host may have written it during the
                    // launch.
                    counter.load(unsafe { core::ptr::read_volatile(jobs.add(waiting as usize)) });
                    current = waiting;
                    waiting = NO_INDEX;
                    at_start = counter.found;
                }
                Supply::Closed => exhausted = true,
                Supply::Pending => {}
            }
        }
        if Lanes::this_lane(exhausted).all() {
            break;
        }
        // A stop abandons the jobs in flight too (a job can run for tens of seconds at large
        // N); the host then discards this launch's counts.
        // SAFETY: as above.
        if unsafe { &*cancel }.load(Ordering::Relaxed) != 0 {
            break;
        }
        counter.advance(steps_per_poll);
    }
    let found = counter.found;
    // SAFETY: `tallies` points to two device counters.
    let counter = |i: usize| unsafe { &*tallies.add(i) };
    add_warp_total(counter(0), Lanes::this_lane(found.solutions));
    add_warp_total(counter(1), Lanes::this_lane(found.nodes));
}

/// Estimates the work of the constellation counter on `count` boards of size `n`: thread `i`
/// runs [`estimated_work`] with `probes` probes on `boards[i]` (its frontier and schedule; the
/// weight is not read), its random stream keyed by `keys[i]` (seed, stream), and writes the
/// estimate to `estimates[i]`. The same code on the CPU gives the same numbers, bit for bit.
///
/// # Safety
/// `boards`, `keys` and `estimates` hold `count` elements each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_nqueens_estimate(
    n: u32,
    boards: *const Job,
    keys: *const [u64; 2],
    count: u32,
    probes: u32,
    estimates: *mut u64,
) {
    let i = global_thread();
    if i >= count {
        return; // No collectives below: a thread may leave alone.
    }
    // SAFETY: `i < count`, the length of each buffer (the contract above).
    let (board, [seed, stream]) = unsafe { (*boards.add(i as usize), *keys.add(i as usize)) };
    let mut rng = SplitMix64::new(seed, stream);
    let estimate = estimated_work(n, board.frontier, board.schedule, probes, &mut rng);
    // SAFETY: as above.
    unsafe { *estimates.add(i as usize) = estimate };
}

/// Runs `searches` randomised N-Queens searches ([`random_dfs::search`]), search `i` on thread
/// `i` of a grid-stride loop, each placing at most `limit` queens. Writes `found[i]` (1 or 0),
/// adds the queens placed to `placed`, and the first search to succeed (by `winner`, which
/// starts at `u32::MAX`) writes its columns to `solution[0..n]`.
///
/// # Safety
/// Dynamic shared memory of `4·n·blockDim.x` bytes; `found` holds `searches` words,
/// `solution` `n` words; counters initialised as stated.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_random_dfs(
    n: u32,
    seed: u64,
    first_index: u64,
    searches: u32,
    limit: u32,
    found: *mut u32,
    placed: *const AtomicU64,
    winner: *const AtomicU32,
    solution: *mut u32,
) {
    // SAFETY: the launch provides n words of shared memory per thread; the search indexes
    // rows below n only.
    let mut rows = unsafe { SharedSlab::for_this_thread() };
    // SAFETY: special-register reads.
    let threads = unsafe { core::arch::nvptx::_grid_dim_x() * _block_dim_x() } as u32;
    let mut total = 0u64;
    let mut index = global_thread();
    while index < searches {
        let (outcome, count) =
            random_dfs::search(n, seed, first_index + index as u64, limit, &mut rows);
        total += count as u64;
        let success = outcome == random_dfs::Outcome::Found;
        // SAFETY: `index < searches`, the length of `found`.
        unsafe { *found.add(index as usize) = success as u32 };
        // SAFETY: `winner` points to a device counter.
        let winner = unsafe { &*winner };
        if success
            // GPU scope: only the launch's threads race for the flag; the host reads it after.
            && winner
                .compare_exchange_in(Scope::Gpu, u32::MAX, index, Ordering::Relaxed)
                .is_ok()
        {
            for row in 0..n {
                // SAFETY: `row < n`, the length of `solution`.
                unsafe { *solution.add(row as usize) = random_dfs::column_of(rows.get(row), n) };
            }
        }
        index += threads;
    }
    // SAFETY: `placed` points to a device counter.
    unsafe { &*placed }.fetch_add(total, Ordering::Relaxed);
}

/// What the two no-three-in-line kernels share: a warp claims subtree after subtree (one
/// atomic on `control[0]` each) until they run out or the host sets the stop word
/// `control[1]`; complete boards take the next slot of `found` and are written, row `r` by
/// lane `r`, to `boards[slot·32 ..]` while the slot is below `capacity` (the host sees an
/// overflow as `found > capacity`); the nodes below subtree `i` are added to `nodes[i]` (by
/// every warp that searched a piece of it).
///
/// A fed launch (one per GPU for a whole multi-GPU run) adds the [`Feed`] the subtrees come
/// through, [`SlotCounters`] (nodes, subtrees left) per chunk of the work list, and a tag per
/// stored board (`board_tags[slot]` = its subtree's index + 1), so that the host can report
/// each chunk, with its boards, as soon as its last subtree is done.
struct SubtreeTasks<'a> {
    queue: WorkQueue<'a>,
    stop: &'a AtomicU32,
    slots: WorkQueue<'a>,
    feed: Feed<'a>,
    chunks: Option<SlotCounters>,
    board_tags: *mut u32,
    capacity: u32,
    boards: *mut u32,
    nodes: *const AtomicU64,
    lane: u32,
}

/// The fed-launch arguments of the no-three-in-line kernels (all null for a launch that has
/// its whole work list from the start).
#[derive(Clone, Copy)]
struct FedArgs {
    feed: *const [AtomicU32; 2],
    item_slots: *const u32,
    slot_counters: *const AtomicU64,
    board_tags: *mut u32,
}

impl SubtreeTasks<'_> {
    /// # Safety
    /// `control` (two words) and `found` point to zeroed device counters; `boards` holds
    /// `32·capacity` words and `nodes` `count` zeroed words. With a feed (`fed.feed`
    /// non-null): two zeroed feed words, `count` is the room for subtrees, `item_slots` a slot
    /// for each below the pairs of `slot_counters`, `board_tags` `capacity` words.
    #[inline(always)]
    unsafe fn new(
        control: *const AtomicU32,
        found: *const AtomicU32,
        count: u32,
        capacity: u32,
        boards: *mut u32,
        nodes: *mut u64,
        fed: FedArgs,
    ) -> Self {
        let nodes = nodes.cast_const().cast::<AtomicU64>();
        // SAFETY: by the contract above.
        let (queue, stop, slots) = unsafe {
            (
                WorkQueue::new(&*control),
                &*control.add(1),
                WorkQueue::new(&*found),
            )
        };
        let feed = if fed.feed.is_null() {
            Feed::fixed(count)
        } else {
            // SAFETY: two zeroed device words (the contract above).
            Feed::host(unsafe { &*fed.feed }, count)
        };
        SubtreeTasks {
            queue,
            stop,
            slots,
            feed,
            // SAFETY: by the contract above (null without a feed).
            chunks: unsafe { SlotCounters::new(fed.item_slots, fed.slot_counters) },
            board_tags: fed.board_tags,
            capacity,
            boards,
            nodes,
            lane: crate::warp::lane_id().mine(),
        }
    }

    /// The next subtree's index for the whole warp, or `None` when there are no more or the
    /// host asked to stop. With a feed the warp waits for the host to supply its index. Any
    /// lane's view of the stop word decides for the whole warp, and the feed's answer counts
    /// once every lane has it (votes keep them uniform).
    #[inline(always)]
    fn next(&self) -> Option<u32> {
        let index = self.queue.claim_for_warp();
        loop {
            if Lanes::this_lane(self.stop.load(Ordering::Relaxed) != 0).any() {
                return None;
            }
            let supply = self.feed.supply(index);
            if Lanes::this_lane(supply == Supply::Ready).all() {
                return Some(index);
            }
            if Lanes::this_lane(supply == Supply::Closed).all() {
                return None;
            }
        }
    }

    /// Appends a complete board (its points, row `r` in lane `r`) found below subtree `index`.
    #[inline(always)]
    fn store_board(&self, index: u32, points: Lanes<u32>) {
        let slot = self.slots.claim_for_warp();
        if slot < self.capacity {
            // SAFETY: `slot < capacity`: in bounds of the `32·capacity` words (and of the
            // `capacity` tags, when there are tags).
            unsafe {
                *self.boards.add(slot as usize * 32 + self.lane as usize) = points.mine();
                if self.lane == 0 && !self.board_tags.is_null() {
                    *self.board_tags.add(slot as usize) = index + 1;
                }
            }
        }
    }

    /// Whether the host asked the warps to stop.
    #[inline(always)]
    fn stopped(&self) -> bool {
        Lanes::this_lane(self.stop.load(Ordering::Relaxed) != 0).any()
    }

    /// Records the nodes searched below subtree `index` (from [`next`](Self::next)) or below a
    /// piece of it, and in a fed launch counts that done in its chunk once the whole warp's
    /// board writes are visible.
    #[inline(always)]
    fn finish(&self, index: u32, nodes: u64) {
        if self.lane == 0 {
            // SAFETY: `index < count` (from `next`), the length of `nodes`.
            unsafe { &*self.nodes.add(index as usize) }.fetch_add(nodes, Ordering::Relaxed);
        }
        if let Some(chunks) = self.chunks {
            // System scope (a plain Rust fence): the host copies the boards out once it sees
            // the chunk done, while the kernel still runs.
            core::sync::atomic::fence(Ordering::SeqCst);
            syncwarp();
            if self.lane == 0 {
                chunks.finish(index, [nodes]);
            }
        }
    }

    /// Counts one more piece of subtree `index` to finish before its chunk is done: call
    /// while this warp's own piece of it is unfinished, before the new piece can be picked up.
    #[inline(always)]
    fn split(&self, index: u32) {
        if let Some(chunks) = self.chunks {
            if self.lane == 0 {
                chunks.add_piece::<1>(index);
            }
        }
    }

    /// The start item `index` of `items` (`words` words per item): volatile reads, as a fed
    /// launch's host writes items while the kernel runs.
    ///
    /// # Safety
    /// `index < count` (from [`next`](Self::next)) and `items` holds `words·count` words.
    #[inline(always)]
    unsafe fn item<T: Copy>(&self, items: *const T, words: u32, index: u32, word: u32) -> T {
        // SAFETY: by the contract above.
        unsafe { core::ptr::read_volatile(items.add((words * index + word) as usize)) }
    }
}

/// Enumerates no-three-in-line boards of size `n`, one warp per [`Prefix`] at a time.
///
/// Each warp takes the next of the `count` prefixes from `control[0]` (one atomic per warp,
/// see [`WorkQueue::claim_for_warp`]), runs [`DepthFirst`] below it with its stack in shared
/// memory, and writes the points it placed to `nodes[index]`. Every complete board takes the
/// next slot of `found` and, when the slot is below `capacity`, is written as 32 words (row
/// `r` by lane `r`) to `boards[slot·32 ..]`; the host sees an overflow as `found > capacity`.
/// A non-zero `control[1]` makes the warps take no more prefixes (the host's stop request).
///
/// Lines come from `lines`, a [`LineTable`] for size `n` filled by the host; `pruning` is
/// 0, 1 or 2 for [`Pruning::Off`], [`Pruning::FirstRow`], [`Pruning::Canonical`].
///
/// # Safety
/// Dynamic shared memory of `4·2n·blockDim.x` bytes; `lines` holds `LineTable::len(n)`
/// words; `prefixes` and `nodes` hold `count` words, `boards` `32·capacity`; `control` (two
/// words) and `found` zeroed; `feed`, `item_slots`, `slot_counters` and `board_tags` all null,
/// or a fed launch's (see `SubtreeTasks`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_no3line(
    n: u32,
    pruning: u32,
    lines: *const u32,
    prefixes: *const u64,
    count: u32,
    control: *const AtomicU32,
    nodes: *mut u64,
    found: *const AtomicU32,
    capacity: u32,
    boards: *mut u32,
    feed: *const [AtomicU32; 2],
    item_slots: *const u32,
    slot_counters: *const AtomicU64,
    board_tags: *mut u32,
) {
    // SAFETY: the launch provides 2n words of shared memory per thread (the contract above);
    // the search indexes words below 2n only.
    let slab = unsafe { SharedSlab::for_this_thread() };
    let fed = FedArgs {
        feed,
        item_slots,
        slot_counters,
        board_tags,
    };
    // SAFETY: the buffers and counters as the contract above says.
    let tasks = unsafe { SubtreeTasks::new(control, found, count, capacity, boards, nodes, fed) };
    // SAFETY: `lines` holds `LineTable::len(n)` words, written before the launch and
    // read-only during it.
    let lines = LineTable::new(n, unsafe {
        core::slice::from_raw_parts(lines, LineTable::len(n))
    });
    let pruning = match pruning {
        0 => Pruning::Off,
        1 => Pruning::FirstRow,
        _ => Pruning::Canonical,
    };
    let mut search = DepthFirst::new(n, slab, &lines, pruning);
    while let Some(index) = tasks.next() {
        // SAFETY: `index < count`, the length of `prefixes`.
        let prefix = Prefix(unsafe { tasks.item(prefixes, 1, index, 0) });
        let placed = search.run(&prefix.board(n, &lines), prefix.rows(), |board| {
            tasks.store_board(index, board.points)
        });
        tasks.finish(index, placed);
    }
}

/// Enumerates no-three-in-line boards of size `n` with the propagating search
/// ([`Propagating`]): one warp per start board at a time.
///
/// Start board `i` is the two warp-wide words (points, empty) of a settled board at
/// `starts[(2·i + k)·32 ..]`. Each warp takes the next start from `control[0]` (one atomic per
/// warp), searches below it with its pending boards on a stack of `stack_boards` boards in
/// its own region of `stacks` (`2·32·stack_boards` words a warp, warp `w` at
/// `w·2·32·stack_boards`), and writes the boards it expanded to `nodes[i]`. Complete
/// (canonical, when `techniques` asks for symmetry) boards are stored as for
/// `warpsearch_no3line`. A full stack sets `overflow` and abandons that start (the host
/// reports it); a non-zero `control[1]` makes the warps take no more starts.
///
/// With a `handoff` region, a warp that finds the work list empty does not leave: it waits
/// for a piece of another warp's subtree. Busy warps look every few nodes whether one waits
/// and hand it the shallowest of their pending boards ([`Handoff`]), so the run's last long
/// subtrees are searched by many warps instead of one each. A piece counts its nodes and
/// boards to its subtree (and, fed, to its chunk, which ends with its last piece).
///
/// # Safety
/// `lines` holds `PairLines::gpu_len(n)` words; `starts` `2·32·count` and `nodes` `count` words;
/// `boards` `32·capacity`; `stacks` a region for every warp of the grid; `control` (two
/// words), `found` and `overflow` zeroed; `feed`, `item_slots`, `slot_counters` and
/// `board_tags` all null, or a fed launch's (see `SubtreeTasks`: then `starts` has room for
/// `count` starts, written before the feed counts them); `handoff` null (no work sharing) or
/// [`Handoff::words`]`(warps, 3)` zeroed words for the grid's warps.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_no3line_propagate(
    n: u32,
    techniques: u32,
    lines: *const u32,
    starts: *const u32,
    count: u32,
    control: *const AtomicU32,
    nodes: *mut u64,
    found: *const AtomicU32,
    capacity: u32,
    boards: *mut u32,
    stacks: *mut u32,
    stack_boards: u32,
    overflow: *const AtomicU32,
    feed: *const [AtomicU32; 2],
    item_slots: *const u32,
    slot_counters: *const AtomicU64,
    board_tags: *mut u32,
    handoff: *mut u32,
) {
    let lane = crate::warp::lane_id().mine();
    let warp = global_thread() / 32;
    // SAFETY: special-register reads with no preconditions.
    let warps = unsafe { core::arch::nvptx::_grid_dim_x() * _block_dim_x() } as u32 / 32;
    let region = (warp as usize) * (WORDS_PER_BOARD * 32 * stack_boards) as usize;
    // SAFETY: the host gives every warp of the grid its own region of this size.
    let stack = unsafe { GlobalSlab::for_this_warp(stacks.add(region)) };
    let fed = FedArgs {
        feed,
        item_slots,
        slot_counters,
        board_tags,
    };
    // SAFETY: the buffers and counters as the contract above says.
    let tasks = unsafe { SubtreeTasks::new(control, found, count, capacity, boards, nodes, fed) };
    // SAFETY: `overflow` points to a zeroed device counter.
    let overflow = unsafe { &*overflow };
    // SAFETY: a null `handoff`, or a zeroed region for every warp of the grid (the contract
    // above); `warp < warps`.
    let handoff = unsafe { Handoff::new(handoff, warps, warp) };
    // SAFETY: `lines` holds `PairLines::gpu_len(n)` words, written before the launch and
    // read-only during it.
    let lines = PairLines::new(n, unsafe {
        core::slice::from_raw_parts(lines, PairLines::gpu_len(n))
    });
    let mut search = Propagating::new(
        n,
        Techniques::from_bits(techniques),
        &lines,
        stack,
        stack_boards,
    );
    // Whole subtrees from the work list while it has any, then pieces other warps hand over.
    // Both arrive as an index and the address of two warp-wide words (one way into the
    // search: two took 60–66 registers instead of 50).
    let mut claiming = true;
    loop {
        if let Some(handoff) = handoff {
            handoff.begin();
        }
        let claimed = if claiming { tasks.next() } else { None };
        let (index, words) = match (claimed, handoff) {
            (Some(index), _) => {
                let at = (32 * WORDS_PER_BOARD * index) as usize;
                // SAFETY: `index < count`: start `index` is inside `starts`.
                (index, unsafe { starts.add(at) })
            }
            (None, Some(handoff)) => {
                claiming = false;
                match handoff.wait(WORDS_PER_BOARD, || tasks.stopped()) {
                    Some(index) => (index, handoff.piece(WORDS_PER_BOARD)),
                    None => return,
                }
            }
            (None, None) => return,
        };
        // SAFETY: `words` holds two warp-wide words (a start or a piece), complete before
        // the feed or the mailbox flag said so; volatile, as they were written during the
        // launch.
        let word = |k: u32| {
            Lanes::this_lane(unsafe {
                core::ptr::read_volatile(words.add((32 * k + lane) as usize))
            })
        };
        let start = Cells::settled(word(0), word(1));
        let share = ShareSubtree {
            handoff,
            tasks: &tasks,
            index,
        };
        match search.run(&start, &share, |board| {
            tasks.store_board(index, board.points)
        }) {
            Ok(expanded) => tasks.finish(index, expanded),
            // The host stopped the launch (`Stopped::CANCELLED` is `StackFull` on the GPU):
            // the subtree stays unfinished, so its chunk is never reported, and a resumed run
            // searches it again.
            Err(_) if share.cancelled() => {}
            Err(_) => {
                if lane == 0 {
                    overflow.fetch_add(1, Ordering::Relaxed);
                }
                tasks.finish(index, 0);
            }
        }
        if let Some(handoff) = handoff {
            handoff.end();
        }
    }
}

/// A warp's subtree as the propagating search shares it: pending boards go to idle warps
/// through the launch's [`Handoff`], tagged with the subtree, each counted as one more piece
/// of the subtree's chunk once a receiver is taken and before it can see the piece (while
/// the donor's own piece still holds the chunk open).
struct ShareSubtree<'t, 'a> {
    handoff: Option<Handoff>,
    tasks: &'t SubtreeTasks<'a>,
    index: u32,
}

impl Share for ShareSubtree<'_, '_> {
    #[inline(always)]
    fn wanted(&self) -> bool {
        self.handoff.is_some_and(|handoff| handoff.wanted())
    }

    /// The host's stop, as the hand-off region carries it (without work sharing a launch
    /// still stops between subtrees, through the work list's stop word).
    #[inline(always)]
    fn cancelled(&self) -> bool {
        self.handoff.is_some_and(|handoff| handoff.stopped())
    }

    #[inline(always)]
    fn give(&self, board: &Cells) -> bool {
        let Some(handoff) = self.handoff else {
            return false;
        };
        let piece = [board.points, board.empty];
        handoff.give(self.index, piece, || self.tasks.split(self.index))
    }
}

/// The engine's calling convention (`warpsearch::engine`, [`crate::work`]) for a batch of
/// Gomoku positions: one thread searches one position's VCF ([`crate::gomoku::vcf`], the same
/// function the CPU runs), taking positions one at a time until they run out or the launch is
/// stopped. `params` is the rule's [`crate::gomoku::TableWords`] block (≈ 47 MB: the whole
/// threat table).
///
/// # Safety
/// The engine's buffers: `params` a whole table block, `work`'s units of `POSITION_WORDS`
/// words and results of `RESULT_WORDS` words.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_gomoku_vcf(
    params: *const u64,
    work: *const crate::work::Work,
) {
    use crate::gomoku::{POSITION_WORDS, RESULT_WORDS, TableWords, vcf};
    // SAFETY: `params` is a whole table block (the contract above).
    let Some(tables) = (unsafe { TableWords::from_raw(params) }) else {
        return;
    };
    // SAFETY: the engine's block, valid for the launch (the contract above).
    let work = unsafe { &*work };
    while let Some(index) = work.next_unit() {
        let mut position = [0u64; POSITION_WORDS];
        // SAFETY: the position is supplied; it and its result slot are this thread's.
        let result = unsafe {
            let words = work.unit(index, POSITION_WORDS as u32);
            position.copy_from_slice(&words[..POSITION_WORDS]);
            core::slice::from_raw_parts_mut(work.result(index, RESULT_WORDS as u32), RESULT_WORDS)
        };
        vcf(&tables, &position, result);
        work.finish(index);
    }
}

/// Exact cover on the depth-first skeleton: the tree of [`crate::cover::Cover`] over the
/// problem's flat array, which is the launch's parameter block; a unit is a covered set of
/// [`crate::cover::MAX_WORDS`] words, its result its solutions and nodes.
///
/// # Safety
/// The engine's calling convention (`kernels::work`): `params` holds a whole problem array
/// (`crate::cover::Layout`: its length follows from its header and its starts); units of
/// `MAX_WORDS` words, two result words a unit; whole-warp blocks of
/// [`crate::dfs::BLOCK`] threads, each with `4 · slab_words` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_cover(
    params: *const u64,
    work: *const crate::work::Work,
) {
    // SAFETY: the calling convention above: the header, then the arrays it describes.
    unsafe {
        let header = core::slice::from_raw_parts(params, crate::cover::HEADER_WORDS);
        let layout = crate::cover::Layout::of(header);
        let listed = *params.add(layout.starts() + layout.items) as usize;
        let data = core::slice::from_raw_parts(params, layout.list() + listed);
        let tree = crate::cover::Cover::new(data);
        crate::dfs::walk_units(
            &tree,
            &*work,
            crate::cover::MAX_WORDS as u32,
            crate::dfs::Report::CountsAndNodes,
        );
    }
}

/// Exact cover with a warp to a node ([`crate::cover::warp::WarpCover`]): each warp takes a
/// unit (a covered set of [`crate::cover::MAX_WORDS`] words) and walks it with all 32 lanes;
/// its result is its solutions and nodes.
///
/// # Safety
/// The engine's calling convention (`kernels::work`): `params` holds a whole problem array
/// with its items' option sets (`crate::cover::Layout::total_words`: its length follows from
/// its header and its starts) of at most [`crate::cover::warp::MAX_OPTIONS`] options; units of
/// `MAX_WORDS` words, two result words a unit; whole-warp blocks, each thread with
/// `4 · WarpCover::slab_words` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warpsearch_cover_warp(
    params: *const u64,
    work: *const crate::work::Work,
) {
    use crate::cover::{HEADER_WORDS, Layout, MAX_WORDS, warp::WarpCover};
    use crate::warp::{Lanes, on_one_lane};
    // SAFETY: the calling convention above: the header, then the arrays it describes.
    let (data, work) = unsafe {
        let header = core::slice::from_raw_parts(params, HEADER_WORDS);
        let length = Layout::of(header).total_words(core::slice::from_raw_parts(
            params,
            Layout::of(header).list(),
        ));
        (core::slice::from_raw_parts(params, length), &*work)
    };
    let Some(tree) = WarpCover::new(data) else {
        return;
    };
    // SAFETY: the launch gives each thread `slab_words` words of dynamic shared memory (the
    // contract above), used by nothing else.
    let mut slab = unsafe { crate::slab::SharedSlab::for_this_thread() };
    loop {
        // Lane 0 claims the warp's next unit; every lane learns it.
        let claimed = Lanes::from_fn(|lane| {
            if lane == 0 {
                work.next_unit().unwrap_or(u32::MAX)
            } else {
                0
            }
        })
        .broadcast(0);
        if claimed == u32::MAX {
            break;
        }
        // SAFETY: the unit was supplied; it has MAX_WORDS words.
        let unit = unsafe { work.unit(claimed, MAX_WORDS as u32) };
        let walked = tree.walk(&unit[..MAX_WORDS], &mut slab);
        on_one_lane(|| {
            // SAFETY: the unit is this warp's, claimed and not finished; two result words.
            unsafe {
                let result = work.result(claimed, 2);
                *result = walked.found;
                *result.add(1) = walked.nodes;
            }
            work.finish(claimed);
        });
    }
}
