//! The engine's calling convention: what every kernel that `warpsearch::engine` launches is
//! handed besides its parameters.
//!
//! ```text
//! extern "ptx-kernel" fn name(params: *const u64, work: *const kernels::work::Work)
//! ```
//!
//! [`Work`] is a block of eight words the engine writes to device memory before the launch:
//! where the launch's units are, how the host feeds more of them while the kernel runs, where
//! each unit's result goes, which chunk of the work list each unit belongs to, and the shared
//! bound of a branch-and-bound search. One launch a GPU runs a whole run: the host writes the
//! units of the chunks it hands this GPU while the kernel works, raises the supplied count,
//! and reads a chunk's results back as soon as its last unit is done (for progress and
//! checkpoints), so several GPUs take chunks as fast as each finishes them.
//!
//! A kernel on the depth-first skeleton hands the block to `kernels::dfs::walk_units` and is
//! done. A kernel that runs one unit a thread uses the block's methods: [`Work::next_unit`]
//! for the next unit it should run (waiting while the host has not yet written it),
//! [`Work::unit`] for its words, [`Work::result`] for its result words, then [`Work::finish`].
//!
//! Because the convention is one pointer, what the engine hands a kernel can grow without
//! changing any kernel's signature.

use crate::atomic::{Feed, SlotCounters, Supply, WorkQueue};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Words of a unit [`Work::unit`] reads at most.
pub const MAX_UNIT_WORDS: usize = 8;

/// What a launch is handed: eight 64-bit words, in this order (the host writes them as
/// `[u64; 8]`, see [`WORK_WORDS`]).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Work {
    /// The launch's units, each the search's unit words, as a ring: unit `i` lies at position
    /// `i & positions`. A unit below the feed's supplied count is written and final; the host
    /// writes a position again only after the unit there before is finished and its result
    /// read back.
    units: *const u64,
    /// The ring's positions less one ([`ring_mask`] of what the launch holds: a power of two
    /// less one, so a position is one `and`). A launch whose units all fit never goes round,
    /// and its buffers need hold only those units.
    positions: u64,
    /// `[supplied, closed]`: the host raises the first once it has written more units, and
    /// sets the second when no more will come ([`Feed`]).
    feed: *const [AtomicU32; 2],
    /// `[next, cancel]`: the work queue's counter (units claimed so far, which the engine
    /// reads for progress) and the stop word the host sets on Ctrl-C.
    queue: *const [AtomicU32; 2],
    /// The results, the search's result words a unit, at the unit's position (zeroed before
    /// the unit is supplied).
    results: *mut u64,
    /// The chunk of the unit at each position (null: none kept; a launch of tests).
    unit_chunks: *const u32,
    /// Each chunk's units not yet finished ([`SlotCounters`] with no counts).
    chunk_left: *const AtomicU64,
    /// The shared bound of a branch-and-bound search (`u64::MAX` until a solution lowers it).
    bound: *const AtomicU64,
}

/// The words of a [`Work`] block.
pub const WORK_WORDS: usize = 8;

/// The second word of a [`Work`] block for a launch that holds `capacity` units: the smallest
/// power of two at least `capacity`, less one. Unit `i` is at position `i & ring_mask`: for
/// `i < capacity` that is `i`, and a ring of a power of two positions goes round.
pub const fn ring_mask(capacity: u32) -> u64 {
    (capacity as u64).next_power_of_two() - 1
}
const _: () = assert!(core::mem::size_of::<Work>() == 8 * WORK_WORDS);

impl Work {
    /// A block over these buffers.
    ///
    /// # Safety
    /// `units` holds `capacity` units of the kernel's unit words and `results` `capacity`
    /// units' result words; `feed`, `queue` and `bound` are valid words; a non-null
    /// `unit_chunks` holds a chunk below the groups of `chunk_left` for every position; all of
    /// them live as long as the block is used, nothing but the walk writes `results`, and the
    /// host supplies no unit whose position still holds an unfinished one.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn new(
        units: *const u64,
        capacity: u32,
        feed: *const [AtomicU32; 2],
        queue: *const [AtomicU32; 2],
        results: *mut u64,
        unit_chunks: *const u32,
        chunk_left: *const AtomicU64,
        bound: *const AtomicU64,
    ) -> Work {
        Work {
            units,
            positions: ring_mask(capacity),
            feed,
            queue,
            results,
            unit_chunks,
            chunk_left,
            bound,
        }
    }

    /// The work queue over the launch's units (`kernels::atomic::WorkQueue`): indices to
    /// claim, one atomic a warp.
    #[inline(always)]
    pub fn queue(&self) -> WorkQueue<'_> {
        // SAFETY: `queue` is valid for the block's life (the contract of `new`).
        WorkQueue::new(unsafe { &(*self.queue)[0] })
    }

    /// Whether the host asked the launch to stop (Ctrl-C, an error elsewhere): take no more
    /// units. GPU: one `ld.relaxed`.
    #[inline(always)]
    pub fn cancelled(&self) -> bool {
        // SAFETY: as in `queue`.
        unsafe { &(*self.queue)[1] }.load(Ordering::Relaxed) != 0
    }

    /// Whether the unit at `index` is written, never will be, or not yet ([`Feed::supply`]).
    /// A run may supply more units than the launch holds at once (the ring of `units`), so the
    /// supplied count is not capped at the capacity.
    #[inline(always)]
    pub fn supply(&self, index: u32) -> Supply {
        // SAFETY: `feed` is valid for the block's life (the contract of `new`).
        Feed::host(unsafe { &*self.feed }, u32::MAX).supply(index)
    }

    /// The ring position of unit `index`: `index & positions`, one `and`.
    #[inline(always)]
    fn position(&self, index: u32) -> usize {
        (index & self.positions as u32) as usize
    }

    /// For a kernel that runs one unit a thread: the index of this thread's next unit, once
    /// the host has written it; `None` when no unit is left or the launch was stopped.
    /// GPU: one `atom.add` (not aggregated: for work that takes far longer than a claim), then
    /// the feed's two loads until the unit is there.
    #[inline(always)]
    pub fn next_unit(&self) -> Option<u32> {
        if self.cancelled() {
            return None;
        }
        // SAFETY: as in `queue`.
        let index = unsafe { &(*self.queue)[0] }.fetch_add(1, Ordering::Relaxed);
        loop {
            match self.supply(index) {
                Supply::Ready => return Some(index),
                Supply::Closed => return None,
                Supply::Pending if self.cancelled() => return None,
                Supply::Pending => core::hint::spin_loop(),
            }
        }
    }

    /// The first `words` (at most [`MAX_UNIT_WORDS`]) words of unit `index`, read past the
    /// cache of this SM (`ld.volatile`): the host may have written them after the launch, and
    /// a line cached earlier could be stale.
    ///
    /// # Safety
    /// `index` was [`Supply::Ready`], and a unit has at least `words` words.
    #[inline(always)]
    pub unsafe fn unit(&self, index: u32, words: u32) -> [u64; MAX_UNIT_WORDS] {
        let mut unit = [0; MAX_UNIT_WORDS];
        let base = self.position(index) * words as usize;
        // A loop of fixed length, unrolled, so that the array stays in registers.
        for (word, slot) in unit.iter_mut().enumerate() {
            if word < words as usize {
                // SAFETY: a supplied unit lies inside `units` (the contract above and of `new`).
                *slot = unsafe { core::ptr::read_volatile(self.units.add(base + word)) };
            }
        }
        unit
    }

    /// Unit `index`'s result words (`words` a unit).
    ///
    /// # Safety
    /// `index` was claimed by this thread and not finished, and a result has `words` words.
    #[inline(always)]
    pub unsafe fn result(&self, index: u32, words: u32) -> *mut u64 {
        // SAFETY: a claimed unit's result lies inside `results` (the contract of `new`).
        unsafe { self.results.add(self.position(index) * words as usize) }
    }

    /// Counts unit `index` done, after its result words are written: they are visible
    /// GPU-wide before the host can see the unit's chunk finished. GPU: an `ld.volatile` of the
    /// unit's chunk, `fence.sc` and an `atom.add.u64` of −1 on the chunk's word
    /// ([`SlotCounters::finish`]); nothing without chunks.
    #[inline(always)]
    pub fn finish(&self, index: u32) {
        // SAFETY: the chunks are valid for every unit of the launch (the contract of `new`).
        if let Some(chunks) = unsafe { SlotCounters::new(self.unit_chunks, self.chunk_left) } {
            chunks.finish::<0>(self.position(index) as u32, []);
        }
    }

    /// Counts one more piece of unit `index` to [`finish`](Self::finish) before its chunk is
    /// done: the skeleton's hand-over splits a unit between lanes, and each piece finishes on
    /// its own. Must happen while another piece of the unit is unfinished
    /// ([`SlotCounters::add_piece`]).
    #[inline(always)]
    pub fn add_piece(&self, index: u32) {
        // SAFETY: the chunks are valid for every unit of the launch (the contract of `new`).
        if let Some(chunks) = unsafe { SlotCounters::new(self.unit_chunks, self.chunk_left) } {
            chunks.add_piece::<0>(self.position(index) as u32);
        }
    }

    /// The run's shared bound on this GPU (`u64::MAX` until a solution lowers it).
    #[inline(always)]
    pub fn bound(&self) -> &AtomicU64 {
        // SAFETY: `bound` is valid for the block's life (the contract of `new`).
        unsafe { &*self.bound }
    }
}

/// A work list of a CPU test, whole from the start: the words a [`Work`] block points to.
#[cfg(not(target_arch = "nvptx64"))]
pub struct FixedWork {
    feed: [AtomicU32; 2],
    queue: [AtomicU32; 2],
    bound: AtomicU64,
}

#[cfg(not(target_arch = "nvptx64"))]
impl FixedWork {
    /// `count` units supplied and the feed closed; `cancel` as the stop word.
    pub fn new(count: u32, cancel: bool) -> FixedWork {
        FixedWork {
            feed: [AtomicU32::new(count), AtomicU32::new(1)],
            queue: [AtomicU32::new(0), AtomicU32::new(cancel.into())],
            bound: AtomicU64::new(u64::MAX),
        }
    }

    /// The queue's counter: the indices claimed so far (past the count once lanes run dry).
    pub fn claimed(&self) -> u32 {
        self.queue[0].load(Ordering::Relaxed)
    }

    /// The block over `units` and `results`, which must hold the count's units and results.
    ///
    /// # Safety
    /// `units` and `results` hold what the walk reads and writes for the count given to
    /// [`new`](Self::new); the block is used only while `self`, `units` and `results` live.
    pub unsafe fn work(&self, units: &[u64], results: &mut [u64]) -> Work {
        // SAFETY: the contract above.
        unsafe {
            Work::new(
                units.as_ptr(),
                self.feed[0].load(Ordering::Relaxed),
                &self.feed,
                &self.queue,
                results.as_mut_ptr(),
                core::ptr::null(),
                core::ptr::null(),
                &self.bound,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// The kernel's side of the tests below, on one thread: takes every unit the feed
    /// supplies, writes twice its one word as its result, finishes it; the indices taken.
    fn double_every_unit(work: &Work) -> Vec<u32> {
        let mut taken = Vec::new();
        while let Some(index) = work.next_unit() {
            // SAFETY: the unit is ready, one word; its result is this thread's.
            unsafe {
                let unit = work.unit(index, 1)[0];
                *work.result(index, 1) = unit * 2;
            }
            work.finish(index);
            taken.push(index);
        }
        taken
    }

    #[test]
    fn a_thread_takes_each_supplied_unit_once_and_none_after_the_close() {
        let units: Vec<u64> = (0..10).map(|i| 100 + i).collect();
        let mut results = [0u64; 10];
        let feed = [AtomicU32::new(0), AtomicU32::new(0)];
        let queue = [AtomicU32::new(0), AtomicU32::new(0)];
        let bound = AtomicU64::new(u64::MAX);
        let unit_chunks = [0u32, 0, 0, 0, 0, 1, 1, 1, 1, 1];
        let left = [AtomicU64::new(5), AtomicU64::new(5)];
        // SAFETY: ten one-word units and results; every unit has a chunk below 2.
        let work = unsafe {
            Work::new(
                units.as_ptr(),
                10,
                &feed,
                &queue,
                results.as_mut_ptr(),
                unit_chunks.as_ptr(),
                left.as_ptr(),
                &bound,
            )
        };
        std::thread::scope(|scope| {
            // The host writes nothing new (the units are there), but supplies them in steps
            // while the "kernel" runs, then closes the feed.
            scope.spawn(|| {
                for supplied in [3, 7, 10] {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    feed[0].store(supplied, Ordering::Release);
                }
                feed[1].store(1, Ordering::Release);
            });
            let taken = double_every_unit(&work);
            assert_eq!(taken, (0..10).collect::<Vec<u32>>());
        });
        assert_eq!(results[9], 218);
        assert_eq!(left.map(|l| l.load(Ordering::Relaxed)), [0, 0]);
        assert_eq!(work.bound().load(Ordering::Relaxed), u64::MAX);
    }

    #[test]
    fn a_run_longer_than_the_launch_goes_round_its_ring() {
        // 10 units through a ring of 4 positions, each unit its own chunk: the "host" writes
        // unit i at position i mod 4 once unit i − 4 is finished and its result read back,
        // as the engine does when a search's list is made while the launch runs.
        const UNITS: u32 = 10;
        const RING: usize = 4;
        let units: [AtomicU64; RING] = core::array::from_fn(|_| AtomicU64::new(0));
        let results: [AtomicU64; RING] = core::array::from_fn(|_| AtomicU64::new(0));
        let unit_chunks: [AtomicU32; RING] = core::array::from_fn(|_| AtomicU32::new(0));
        let left: [AtomicU64; UNITS as usize] = core::array::from_fn(|_| AtomicU64::new(1));
        let feed = [AtomicU32::new(0), AtomicU32::new(0)];
        let queue = [AtomicU32::new(0), AtomicU32::new(0)];
        let bound = AtomicU64::new(u64::MAX);
        // SAFETY: the ring's buffers hold one-word units and results and a chunk for each
        // position (`AtomicU64` and `AtomicU32` have the layout of `u64` and `u32`); every
        // chunk is below 10; the host below writes a position only once its unit is finished.
        let work = unsafe {
            Work::new(
                units.as_ptr().cast(),
                RING as u32,
                &feed,
                &queue,
                results.as_ptr().cast_mut().cast(),
                unit_chunks.as_ptr().cast(),
                left.as_ptr(),
                &bound,
            )
        };
        let read_back: Vec<u64> = std::thread::scope(|scope| {
            let host = scope.spawn(|| {
                let mut read_back = Vec::new();
                for i in 0..UNITS as usize {
                    let position = i % RING;
                    if let Some(before) = i.checked_sub(RING) {
                        while left[before].load(Ordering::Acquire) != 0 {
                            std::thread::yield_now();
                        }
                        read_back.push(results[position].swap(0, Ordering::Relaxed));
                    }
                    units[position].store(100 + i as u64, Ordering::Relaxed);
                    unit_chunks[position].store(i as u32, Ordering::Relaxed);
                    feed[0].store(i as u32 + 1, Ordering::Release);
                }
                feed[1].store(1, Ordering::Release);
                for i in UNITS as usize - RING..UNITS as usize {
                    while left[i].load(Ordering::Acquire) != 0 {
                        std::thread::yield_now();
                    }
                    read_back.push(results[i % RING].load(Ordering::Relaxed));
                }
                read_back
            });
            let taken = double_every_unit(&work);
            assert_eq!(taken, (0..UNITS).collect::<Vec<u32>>());
            host.join().unwrap()
        });
        assert_eq!(
            read_back,
            (0..10).map(|i| 200 + 2 * i).collect::<Vec<u64>>()
        );
    }

    #[test]
    fn a_stopped_launch_hands_out_no_unit() {
        let (units, mut results) = ([1u64, 2, 3, 4], [0u64; 4]);
        let fixed = FixedWork::new(4, true);
        // SAFETY: four one-word units and results, living past the block's use.
        let work = unsafe { fixed.work(&units, &mut results) };
        assert!(work.cancelled());
        assert_eq!(work.next_unit(), None);
        assert_eq!(fixed.claimed(), 0);
        let (units, mut results) = ([7u64, 8], [0u64; 2]);
        let open = FixedWork::new(2, false);
        // SAFETY: two one-word units and results, living past the block's use.
        let work = unsafe { open.work(&units, &mut results) };
        assert_eq!(
            [work.next_unit(), work.next_unit(), work.next_unit()],
            [Some(0), Some(1), None]
        );
        // SAFETY: unit 1 is ready.
        assert_eq!(unsafe { work.unit(1, 1) }[0], 8);
    }
}
