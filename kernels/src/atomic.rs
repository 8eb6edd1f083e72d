//! Atomics in global memory, and a warp-aggregated work queue built on them.
//!
//! `core::sync::atomic` already lowers to PTX atomics (`fetch_add` with `Relaxed` becomes
//! `atom.global.add.u32`/`.u64`, SASS `ATOMG`/`RED`), so single atomics need no wrapper. What the
//! GPU adds is aggregation: when many lanes of a warp want an index at the same time, one lane
//! takes them all with a single atomic and hands them out with a shuffle.

use crate::bits::popc;
use crate::warp::{Lanes, lanemask_lt};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Returned by [`WorkQueue::claim`] to lanes that did not ask for an index.
pub const NO_INDEX: u32 = u32::MAX;

/// Hands out the indices 0, 1, 2, … of an array of work items, one atomic per warp.
#[derive(Clone, Copy)]
pub struct WorkQueue<'a> {
    next: &'a AtomicU32,
}

impl<'a> WorkQueue<'a> {
    /// A queue whose next index is `next` (zero-initialised by the host before the launch).
    pub fn new(next: &'a AtomicU32) -> Self {
        WorkQueue { next }
    }

    /// Every lane whose `want` is true receives a distinct index; lanes that want one receive
    /// consecutive indices in lane order; the others receive [`NO_INDEX`]. Indices keep
    /// growing past the number of work items: the caller compares with its count.
    ///
    /// GPU: one `vote.ballot`, one `atom.add` by the lowest wanting lane, one `shfl.idx` to
    /// broadcast the base, and `popc(ballot & lanemask_lt)` for each lane's rank.
    #[inline(always)]
    pub fn claim(&self, want: Lanes<bool>) -> Lanes<u32> {
        let votes = want.ballot();
        if votes == 0 {
            return Lanes::splat(NO_INDEX);
        }
        let leader = votes.trailing_zeros();
        let base = leader_fetch_add(self.next, popc(votes), leader);
        let rank = (lanemask_lt() & Lanes::splat(votes)).popc();
        Lanes::select(want, rank + Lanes::splat(base), Lanes::splat(NO_INDEX))
    }
}

/// The far end of a [`WorkQueue`] whose items the host supplies while the kernel runs: words
/// `[ready, closed]` in device memory, which the host raises and sets (through a second stream)
/// after it has written the items. A kernel without a feed has all `count` items from the start.
#[derive(Clone, Copy)]
pub struct Feed<'a> {
    words: Option<&'a [AtomicU32; 2]>,
    count: u32,
}

/// What a lane holding an index learns from the [`Feed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Supply {
    /// The item is there: read it (with volatile loads: the host wrote it during the launch,
    /// and an L1 line fetched earlier may be stale).
    Ready,
    /// No item will ever have this index: the lane's work is over.
    Closed,
    /// Not yet: ask again later.
    Pending,
}

impl<'a> Feed<'a> {
    /// `count` items, all there from the start.
    pub fn fixed(count: u32) -> Self {
        Feed { words: None, count }
    }

    /// Items the host supplies through `words` (`[ready, closed]`, zeroed at launch), at most
    /// `capacity` of them.
    pub fn host(words: &'a [AtomicU32; 2], capacity: u32) -> Self {
        Feed {
            words: Some(words),
            count: capacity,
        }
    }

    /// Whether the item at `index` can be read now, never will be, or later.
    ///
    /// GPU: two `ld.acquire.sys` of the feed words (closed first: once it is set, the ready
    /// count read after it is final). System scope, as plain Rust atomics give it, because the
    /// host writes these words while the kernel runs ([`crate::scope`]).
    #[inline(always)]
    pub fn supply(&self, index: u32) -> Supply {
        let Some(words) = self.words else {
            return if index < self.count {
                Supply::Ready
            } else {
                Supply::Closed
            };
        };
        let closed = words[1].load(Ordering::Acquire) != 0;
        let ready = words[0].load(Ordering::Acquire).min(self.count);
        if index < ready {
            Supply::Ready
        } else if closed {
            Supply::Closed
        } else {
            Supply::Pending
        }
    }
}

impl WorkQueue<'_> {
    /// One index for the whole warp (the same value in every lane): for work that a warp does
    /// together, such as a warp-wide board. GPU: lane 0's `atom.add` and one `shfl.idx`.
    #[inline(always)]
    pub fn claim_for_warp(&self) -> u32 {
        leader_fetch_add(self.next, 1, 0)
    }
}

/// Lane `leader` adds `amount` to `counter`; every lane receives the value before the add.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn leader_fetch_add(counter: &AtomicU32, amount: u32, leader: u32) -> u32 {
    let previous = if crate::warp::lane_id().mine() == leader {
        counter.fetch_add(amount, Ordering::Relaxed)
    } else {
        0
    };
    Lanes::this_lane(previous).broadcast(leader)
}

/// CPU twin: the warp is one thread, so the leader's add is simply done once.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn leader_fetch_add(counter: &AtomicU32, amount: u32, _leader: u32) -> u32 {
    counter.fetch_add(amount, Ordering::Relaxed)
}

/// Per-chunk counters of a launch whose host reports the work chunk by chunk while it runs
/// (for checkpoints): item `i` belongs to slot `item_slots[i]`, whose `C + 1` counters start
/// at `counters[(C + 1)·slot]` (`C` counts, fixed by the kernel's calls to
/// [`finish`](Self::finish)). The last of them is the slot's items left, which the host sets
/// to its number of items before it supplies them and takes the counts as final once it
/// reads zero there.
#[derive(Clone, Copy)]
pub struct SlotCounters {
    item_slots: *const u32,
    counters: *const AtomicU64,
}

impl SlotCounters {
    /// The counters of a launch; `None` when the host gave none (`item_slots` null).
    ///
    /// # Safety
    /// A non-null `item_slots` holds a slot for every item the launch will finish, each slot
    /// below the number of `C + 1`-word groups `counters` points to; both live for the launch.
    pub unsafe fn new(item_slots: *const u32, counters: *const AtomicU64) -> Option<Self> {
        (!item_slots.is_null()).then_some(SlotCounters {
            item_slots,
            counters,
        })
    }

    /// Adds `counts` to the counters of `item`'s slot, then counts the item done. Every write
    /// this thread made before (the item's results) is visible GPU-wide before the host can
    /// see the item done.
    ///
    /// GPU: an `ld.volatile` of the slot (the host wrote it during the launch), `atom.add.u64`
    /// per count, `fence.sc.sys`, `atom.add.u64` of −1. The fence is system-scope (a plain Rust
    /// fence) because the host reads the counters while the kernel runs: it must not see the
    /// item done before it can see the counts.
    #[inline(always)]
    pub fn finish<const C: usize>(&self, item: u32, counts: [u64; C]) {
        // SAFETY: `item` has a slot (the contract of `new`); volatile, as the host wrote it
        // while the kernel ran and a cached line could be stale.
        let slot = unsafe { core::ptr::read_volatile(self.item_slots.add(item as usize)) } as usize;
        // SAFETY: the slot's `words` counters are inside `counters` (the contract of `new`).
        let counter = |word: usize| unsafe { &*self.counters.add((C + 1) * slot + word) };
        for (word, &count) in counts.iter().enumerate() {
            counter(word).fetch_add(count, Ordering::Relaxed);
        }
        core::sync::atomic::fence(Ordering::SeqCst);
        counter(C).fetch_sub(1, Ordering::Relaxed);
    }

    /// Counts one more piece of `item` to [`finish`](Self::finish) before its slot is done
    /// (work sharing splits an item between warps; each piece finishes with its own counts).
    /// Must happen while another piece of the item is unfinished, so that the slot cannot
    /// reach zero in between.
    #[inline(always)]
    pub fn add_piece<const C: usize>(&self, item: u32) {
        // SAFETY: as in `finish`.
        let slot = unsafe { core::ptr::read_volatile(self.item_slots.add(item as usize)) } as usize;
        // SAFETY: the slot's items-left word, as in `finish`.
        unsafe { &*self.counters.add((C + 1) * slot + C) }.fetch_add(1, Ordering::Relaxed);
    }
}

/// Adds a warp's 64-bit values to a global total with one atomic (a butterfly sum first).
#[inline(always)]
pub fn add_warp_total(total: &AtomicU64, values: Lanes<u64>) {
    let sum = values.sum();
    crate::warp::on_one_lane(|| {
        total.fetch_add(sum, Ordering::Relaxed);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_counters_add_each_items_counts_to_its_slot_and_count_it_done() {
        // Items 0 and 2 in slot 1, item 1 in slot 0; two counts and the items left per slot.
        let slots = [1u32, 0, 1];
        let counters: [AtomicU64; 6] = core::array::from_fn(|_| AtomicU64::new(0));
        counters[2].store(1, Ordering::Relaxed);
        counters[5].store(2, Ordering::Relaxed);
        // SAFETY: every item has a slot below 6 / 3.
        let slot_counters =
            unsafe { SlotCounters::new(slots.as_ptr(), counters.as_ptr()) }.unwrap();
        slot_counters.finish(0, [5, 50]);
        assert_eq!(
            counters[5].load(Ordering::Relaxed),
            1,
            "slot 1 still has an item left"
        );
        slot_counters.finish(1, [7, 70]);
        slot_counters.finish(2, [1, 10]);
        let read: [u64; 6] = core::array::from_fn(|i| counters[i].load(Ordering::Relaxed));
        assert_eq!(read, [7, 70, 0, 6, 60, 0]);
        // SAFETY: a null pointer is allowed and means no counters.
        assert!(unsafe { SlotCounters::new(core::ptr::null(), counters.as_ptr()) }.is_none());
    }

    #[test]
    fn a_fixed_feed_has_every_item_and_no_more() {
        let feed = Feed::fixed(3);
        assert_eq!(feed.supply(0), Supply::Ready);
        assert_eq!(feed.supply(2), Supply::Ready);
        assert_eq!(feed.supply(3), Supply::Closed);
        assert_eq!(feed.supply(NO_INDEX), Supply::Closed);
    }

    #[test]
    fn a_host_feed_makes_lanes_wait_until_items_come_or_it_closes() {
        let words = [AtomicU32::new(0), AtomicU32::new(0)];
        let feed = Feed::host(&words, 10);
        // Nothing supplied yet: every index waits.
        assert_eq!(feed.supply(0), Supply::Pending);
        // The host writes three items, then raises the count.
        words[0].store(3, Ordering::Release);
        assert_eq!(feed.supply(2), Supply::Ready);
        assert_eq!(feed.supply(3), Supply::Pending);
        // More than the capacity is never handed out.
        words[0].store(50, Ordering::Release);
        assert_eq!(feed.supply(9), Supply::Ready);
        assert_eq!(feed.supply(10), Supply::Pending);
        // Closed: supplied items are still there, the rest never comes.
        words[0].store(5, Ordering::Release);
        words[1].store(1, Ordering::Release);
        assert_eq!(feed.supply(4), Supply::Ready);
        assert_eq!(feed.supply(5), Supply::Closed);
        assert_eq!(feed.supply(NO_INDEX), Supply::Closed);
    }

    #[test]
    fn a_claimed_index_is_never_lost_while_the_host_catches_up() {
        // The protocol of `warpsearch_nqueens_constellation`: a lane claims an index once and
        // holds it until its item comes or the feed closes; every item is run exactly once.
        let next = AtomicU32::new(0);
        let words = [AtomicU32::new(0), AtomicU32::new(0)];
        let (queue, feed) = (WorkQueue::new(&next), Feed::host(&words, 100));
        let mut held = [NO_INDEX; 32];
        let mut ran = [0u32; 100];
        let mut supplied = 0;
        loop {
            let want = Lanes::<bool>::from_fn(|lane| held[lane as usize] == NO_INDEX);
            let claimed = queue.claim(want);
            let mut all_done = true;
            for lane in 0..32 {
                if held[lane] == NO_INDEX {
                    held[lane] = claimed.to_array()[lane];
                }
                match feed.supply(held[lane]) {
                    Supply::Ready => {
                        ran[held[lane] as usize] += 1;
                        held[lane] = NO_INDEX;
                        all_done = false;
                    }
                    Supply::Pending => all_done = false,
                    Supply::Closed => {}
                }
            }
            // The host supplies 7 more items a round, and closes the feed at 100.
            if supplied < 100 {
                supplied = (supplied + 7).min(100);
                words[0].store(supplied, Ordering::Release);
            } else {
                words[1].store(1, Ordering::Release);
            }
            if all_done && words[1].load(Ordering::Relaxed) == 1 {
                break;
            }
        }
        assert!(ran.iter().all(|&count| count == 1), "{ran:?}");
    }
}
