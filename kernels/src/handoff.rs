//! Work sharing between the warps of one launch: a warp with nothing left to claim says it is
//! idle, and a warp with pending work hands one piece of it to an idle warp's mailbox.
//!
//! A search that claims whole subtrees ends with a tail: the last long subtrees run alone
//! while the other warps have nothing to do (no-three-in-line n = 15 spent ≈ 35 s of 271 s
//! that way on the H100). With a [`Handoff`], an idle warp registers in a ring of waiting
//! warps; a busy warp that sees a waiting warp (one load every few nodes) gives it the
//! shallowest of its pending boards. Nothing is shared while every warp has its own work, so
//! the steady state pays only that load.
//!
//! Termination: every warp counts itself *busy* from before it looks for work until it has
//! none; a donor counts the receiver busy before it posts the piece. An idle warp leaves when
//! the busy count is zero: then no warp holds work, so no piece can ever come.
//!
//! Scopes: only this launch's warps use the region while it runs, so its ordered accesses
//! and fences are `.gpu` ([`crate::scope`]), not the `.sys` that plain Rust atomics become;
//! the host's stop word (word 3) is the one exception.
//!
//! Region layout (`u32` words, 8-byte aligned), for `warps` warps and pieces of `K` warp-wide
//! words:
//! - words 0–1: the ring's tickets, one `u64`: low half taken (head), high half issued (tail);
//! - word 2: warps busy;
//! - word 3: the host's stop, non-zero once it asks the launch to stop (searches look at it
//!   inside a subtree, [`Handoff::stopped`]: the region's address is kept anyway, where the
//!   launch's own stop word would cost a search its registers);
//! - words 4 .. 4 + 2·warps: the ring, `warps` `u64` entries `(ticket + 1) << 32 | warp` (+ 1:
//!   the zeroed region must not read as ticket 0's entry);
//! - from word [`Handoff::mailbox_start`]: a mailbox of `32·(1 + K)` words per warp: words
//!   0–31 one flag a lane (0 empty, else the piece's tag + 1), then the piece, word `k` of lane
//!   `l` at `32·(1 + k) + l`.

use crate::scope::{Scope, ScopedAtomic, fence_in};
use crate::warp::Lanes;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// One warp's view of the launch's work-sharing region.
///
/// GPU: only the region's address is kept; the grid's warps and this warp's index are read
/// from special registers when needed, so that a search carrying a `Handoff` through its
/// loop holds two registers for it, not four.
#[derive(Clone, Copy)]
pub struct Handoff {
    base: *mut u32,
    #[cfg(not(target_arch = "nvptx64"))]
    warps: u32,
    #[cfg(not(target_arch = "nvptx64"))]
    warp: u32,
}

impl Handoff {
    /// Where the mailboxes start in a region for `warps` warps (after the ring, 128-byte
    /// aligned).
    pub const fn mailbox_start(warps: u32) -> u32 {
        (4 + 2 * warps).div_ceil(32) * 32
    }

    /// Words of a region for `warps` warps and pieces of `K` warp-wide words.
    pub const fn words(warps: u32, k: u32) -> usize {
        Handoff::mailbox_start(warps) as usize + (warps * 32 * (1 + k)) as usize
    }

    /// Warp `warp`'s view of the region at `base`, or `None` when `base` is null (a launch
    /// without work sharing).
    ///
    /// # Safety
    /// A non-null `base` holds [`Handoff::words`]`(warps, K)` zeroed words (8-byte aligned)
    /// for the `K` of every later call, shared only by warps `0..warps` of one launch, each
    /// with its own `warp`.
    #[inline(always)]
    pub unsafe fn new(base: *mut u32, warps: u32, warp: u32) -> Option<Handoff> {
        #[cfg(target_arch = "nvptx64")]
        let _ = (warps, warp);
        (!base.is_null()).then_some(Handoff {
            base,
            #[cfg(not(target_arch = "nvptx64"))]
            warps,
            #[cfg(not(target_arch = "nvptx64"))]
            warp,
        })
    }

    /// The warps sharing the region: GPU, the grid's (`%nctaid.x · %ntid.x / 32`).
    #[inline(always)]
    fn warps(&self) -> u32 {
        #[cfg(target_arch = "nvptx64")]
        {
            let (blocks, threads): (u32, u32);
            // SAFETY: special-register reads. Not marked pure on purpose: the compiler must
            // not hoist the mailbox addresses out of the kernel's loops, where they would
            // hold registers through the whole search.
            unsafe {
                core::arch::asm!(
                    "mov.u32 {b}, %nctaid.x;",
                    "mov.u32 {t}, %ntid.x;",
                    b = out(reg32) blocks,
                    t = out(reg32) threads,
                    options(nostack)
                )
            };
            blocks * threads / 32
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.warps
    }

    /// The calling warp's index: GPU, its place in the grid.
    #[inline(always)]
    fn warp(&self) -> u32 {
        #[cfg(target_arch = "nvptx64")]
        {
            let (block, threads, thread): (u32, u32, u32);
            // SAFETY: special-register reads (not pure: see `warps`).
            unsafe {
                core::arch::asm!(
                    "mov.u32 {b}, %ctaid.x;",
                    "mov.u32 {n}, %ntid.x;",
                    "mov.u32 {t}, %tid.x;",
                    b = out(reg32) block,
                    n = out(reg32) threads,
                    t = out(reg32) thread,
                    options(nostack)
                )
            };
            (block * threads + thread) / 32
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.warp
    }

    fn tickets(&self) -> &AtomicU64 {
        // SAFETY: words 0–1 of the region, 8-byte aligned (the contract of `new`).
        unsafe { AtomicU64::from_ptr(self.base.cast()) }
    }

    fn busy(&self) -> &AtomicU32 {
        // SAFETY: word 2 of the region.
        unsafe { AtomicU32::from_ptr(self.base.add(2)) }
    }

    fn ring(&self, ticket: u32) -> &AtomicU64 {
        let word = 4 + 2 * (ticket % self.warps().max(1)) as usize;
        // SAFETY: inside the ring (`ticket % warps < warps`), 8-byte aligned.
        unsafe { AtomicU64::from_ptr(self.base.add(word).cast()) }
    }

    fn mailbox(&self, warp: u32, k: u32) -> *mut u32 {
        let word = Handoff::mailbox_start(self.warps()) + warp * 32 * (1 + k);
        // SAFETY: `warp < warps`: inside the mailboxes.
        unsafe { self.base.add(word as usize) }
    }

    /// Counts the calling warp busy: call before looking for work, so that a warp leaving
    /// [`wait`](Self::wait) never misses work another warp is about to claim.
    #[inline(always)]
    pub fn begin(&self) {
        on_leader(|| self.busy().fetch_add(1, Ordering::Relaxed));
    }

    /// Counts the calling warp no longer busy (after the work [`begin`](Self::begin) covered
    /// or a piece from [`wait`](Self::wait) is done).
    #[inline(always)]
    pub fn end(&self) {
        // GPU scope: only this launch's warps read the region while it runs.
        fence_in(Scope::Gpu, Ordering::SeqCst);
        on_leader(|| self.busy().fetch_sub(1, Ordering::Relaxed));
    }

    /// Whether the host has asked the launch to stop (word 3 of the region): one load by
    /// the leader, the same answer on every lane.
    #[inline(always)]
    pub fn stopped(&self) -> bool {
        // SAFETY: word 3 of the region.
        let word = unsafe { AtomicU32::from_ptr(self.base.add(3)) };
        // A plain Rust load, `.sys`: the host writes this word while the kernel runs.
        on_leader(|| word.load(Ordering::Relaxed)) != 0
    }

    /// Whether some warp is waiting for work: one load.
    #[inline(always)]
    pub fn wanted(&self) -> bool {
        let tickets = on_leader_u64(|| self.tickets().load_in(Scope::Gpu, Ordering::Relaxed));
        tickets as u32 != (tickets >> 32) as u32
    }

    /// Hands `piece` (tagged `tag`) to a waiting warp and counts that warp busy; false when
    /// none was waiting or another donor came first (the caller keeps the piece). Once a
    /// receiver is taken and before it can see the piece, `taken` runs (the caller's
    /// bookkeeping for one more piece in flight).
    #[inline(always)]
    pub fn give<const K: usize>(
        &self,
        tag: u32,
        piece: [Lanes<u32>; K],
        taken: impl FnOnce(),
    ) -> bool {
        let receiver = self.take_waiting();
        if receiver == NOBODY {
            return false;
        }
        taken();
        let mailbox = self.mailbox(receiver, K as u32);
        for (k, word) in piece.iter().enumerate() {
            // SAFETY: word k of the piece, inside the receiver's mailbox, which only this
            // donor writes until the receiver registers again.
            unsafe { store_lanes(mailbox.add(32 * (1 + k)), *word) };
        }
        // Each lane releases its own words with its own flag (the tag + 1): a receiving lane
        // that sees its flag sees its words, whatever the order of the other lanes.
        // SAFETY: the mailbox's 32 flag words.
        unsafe { set_lane_flags(mailbox, tag + 1) };
        true
    }

    /// Registers the calling warp as idle, counts it no longer busy, and waits for a piece of
    /// `k` words: returns its tag, the piece then being at [`piece`](Self::piece) (and the
    /// warp busy again: call [`end`](Self::end) when it is done), or `None` once no warp is
    /// busy, or when `stop` says so.
    #[inline(always)]
    pub fn wait(&self, k: u32, stop: impl Fn() -> bool) -> Option<u32> {
        on_leader(|| {
            let ticket = (self.tickets().fetch_add(1 << 32, Ordering::Relaxed) >> 32) as u32;
            self.ring(ticket).store_in(
                Scope::Gpu,
                (ticket.wrapping_add(1) as u64) << 32 | self.warp() as u64,
                Ordering::Release,
            );
            0
        });
        self.end();
        let flags = self.mailbox(self.warp(), k);
        loop {
            // SAFETY: the 32 flag words of this warp's own mailbox.
            let mut tag = unsafe { lane_flags(flags) };
            if tag.is_none() {
                // Nobody busy: no piece can come, unless one was posted just before the count
                // reached zero.
                let busy = on_leader(|| self.busy().load_in(Scope::Gpu, Ordering::Acquire));
                if busy == 0 || stop() {
                    // SAFETY: as above.
                    tag = Some(unsafe { lane_flags(flags) }?);
                }
            }
            if let Some(tag) = tag {
                // The piece stays in the mailbox: no donor writes to it again before this
                // warp registers again.
                // SAFETY: as above.
                unsafe { set_lane_flags(flags, 0) };
                return Some(tag);
            }
            pause();
        }
    }

    /// The piece [`wait`](Self::wait) received, `k` warp-wide words: word `j` of lane `l` at
    /// `piece(k)[32·j + l]`.
    #[inline(always)]
    pub fn piece(&self, k: u32) -> *const u32 {
        // SAFETY: word 32 of this warp's mailbox, where its piece starts.
        unsafe { self.mailbox(self.warp(), k).add(32) }
    }
}

impl Handoff {
    /// The first warp waiting in the ring, taken out of it and counted busy, or [`NOBODY`].
    /// Out of line: with the whole hand-over inlined into its loop the propagating kernel
    /// took 56 registers instead of 48 (ptxas, sm_90); this way, 52.
    #[inline(never)]
    fn take_waiting(&self) -> u32 {
        on_leader(|| {
            let tickets = self.tickets().load_in(Scope::Gpu, Ordering::Relaxed);
            let head = tickets as u32;
            if head == (tickets >> 32) as u32 {
                return NOBODY;
            }
            // The entry is read before the ticket is taken: a registration not written yet is
            // skipped (tried again later), never waited for.
            let entry = self.ring(head).load_in(Scope::Gpu, Ordering::Acquire);
            if (entry >> 32) as u32 != head.wrapping_add(1) {
                return NOBODY;
            }
            let taken = self.tickets().compare_exchange_in(
                Scope::Gpu,
                tickets,
                tickets + 1,
                Ordering::AcqRel,
            );
            if taken.is_err() {
                return NOBODY;
            }
            self.busy().fetch_add(1, Ordering::Relaxed);
            entry as u32
        })
    }
}

/// The receiver of a failed [`Handoff::give`].
const NOBODY: u32 = u32::MAX;

/// `f` run by lane 0, its result in every lane (GPU: a branch and a `shfl.sync.idx`; CPU:
/// `f`).
#[inline(always)]
fn on_leader(f: impl FnOnce() -> u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let value = if crate::warp::lane_id().mine() == 0 {
            f()
        } else {
            0
        };
        Lanes::this_lane(value).broadcast(0)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    f()
}

/// [`on_leader`] for a 64-bit result (two shuffles on the GPU).
#[inline(always)]
fn on_leader_u64(f: impl FnOnce() -> u64) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let value = if crate::warp::lane_id().mine() == 0 {
            f()
        } else {
            0
        };
        let low = Lanes::this_lane(value as u32).broadcast(0);
        let high = Lanes::this_lane((value >> 32) as u32).broadcast(0);
        low as u64 | (high as u64) << 32
    }
    #[cfg(not(target_arch = "nvptx64"))]
    f()
}

/// Sets the 32 flag words at `at` to `value` (GPU: each lane an `st.release.gpu` of its own word,
/// after its own piece words).
///
/// # Safety
/// `at` points to 32 writable, 4-byte aligned words.
#[inline(always)]
unsafe fn set_lane_flags(at: *mut u32, value: u32) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: this lane's flag, inside the 32 (the contract above).
    unsafe {
        AtomicU32::from_ptr(at.add(crate::warp::lane_id().mine() as usize)).store_in(
            Scope::Gpu,
            value,
            Ordering::Release,
        )
    };
    #[cfg(not(target_arch = "nvptx64"))]
    for lane in 0..32 {
        // SAFETY: `lane < 32`, inside the 32 (the contract above).
        unsafe { AtomicU32::from_ptr(at.add(lane)).store(value, Ordering::Release) };
    }
}

/// The tag of a piece whose 32 flag words at `at` are all set (each flag is the tag + 1), or
/// `None` (GPU: each lane an `ld.acquire.gpu` of its own flag, then a vote).
///
/// # Safety
/// `at` points to 32 readable, 4-byte aligned words.
#[inline(always)]
unsafe fn lane_flags(at: *mut u32) -> Option<u32> {
    #[cfg(target_arch = "nvptx64")]
    {
        // SAFETY: this lane's flag, inside the 32 (the contract above).
        let flag = unsafe {
            AtomicU32::from_ptr(at.add(crate::warp::lane_id().mine() as usize))
                .load_in(Scope::Gpu, Ordering::Acquire)
        };
        let flags = Lanes::this_lane(flag);
        flags.map(|f| f != 0).all().then(|| flags.broadcast(0) - 1)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        // SAFETY: `lane < 32`, inside the 32 (the contract above).
        let flags: [u32; 32] = core::array::from_fn(|lane| unsafe {
            AtomicU32::from_ptr(at.add(lane)).load(Ordering::Acquire)
        });
        flags.iter().all(|&f| f != 0).then(|| flags[0] - 1)
    }
}

/// Writes a warp-wide word to 32 consecutive words at `at` (GPU: one coalesced `st.volatile`
/// a lane).
///
/// # Safety
/// `at` points to 32 writable words.
#[inline(always)]
unsafe fn store_lanes(at: *mut u32, value: Lanes<u32>) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: this lane's word, inside the 32 (the contract above).
    unsafe {
        core::ptr::write_volatile(at.add(crate::warp::lane_id().mine() as usize), value.mine())
    };
    #[cfg(not(target_arch = "nvptx64"))]
    for (lane, word) in value.to_array().into_iter().enumerate() {
        // SAFETY: `lane < 32`, inside the 32 (the contract above).
        unsafe { core::ptr::write_volatile(at.add(lane), word) };
    }
}

/// Reads a warp-wide word from 32 consecutive words at `at` (GPU: one coalesced
/// `ld.volatile` a lane).
///
/// # Safety
/// `at` points to 32 readable words.
#[cfg(test)]
#[inline(always)]
unsafe fn load_lanes(at: *const u32) -> Lanes<u32> {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: this lane's word, inside the 32 (the contract above).
    unsafe {
        Lanes::this_lane(core::ptr::read_volatile(
            at.add(crate::warp::lane_id().mine() as usize),
        ))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    // SAFETY: `lane < 32`, inside the 32 (the contract above).
    Lanes::from_fn(|lane| unsafe { core::ptr::read_volatile(at.add(lane as usize)) })
}

/// Lets other warps run while this one waits (GPU: `nanosleep.u32 1000`, about a
/// microsecond, so that idle warps do not take issue slots from busy ones; CPU: a spin hint).
#[inline(always)]
fn pause() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: `nanosleep` only delays this thread.
    unsafe {
        core::arch::asm!("nanosleep.u32 1000;", options(nomem, nostack))
    };
    #[cfg(not(target_arch = "nvptx64"))]
    core::hint::spin_loop();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64 as Counter;
    use std::vec;
    use std::vec::Vec;

    #[test]
    fn a_registration_not_written_yet_is_skipped_not_taken() {
        let mut region = vec![0u64; Handoff::words(4, 1).div_ceil(2)];
        let base = region.as_mut_ptr().cast::<u32>();
        // SAFETY: a zeroed, 8-byte aligned region for 4 warps.
        let donor = unsafe { Handoff::new(base, 4, 0) }.unwrap();
        // Ticket 0 issued, its entry (warp 3) not written: the zeroed ring must not read as
        // ticket 0 of warp 0.
        donor.tickets().fetch_add(1 << 32, Ordering::Relaxed);
        assert!(donor.wanted());
        assert_eq!(donor.take_waiting(), NOBODY);
        donor.ring(0).store(1 << 32 | 3, Ordering::Release);
        assert_eq!(donor.take_waiting(), 3);
        assert!(!donor.wanted());
    }

    /// Warps as threads: each claims start items from a shared counter; item `i` is a binary
    /// tree of depth `depths[i]`, searched with a stack, whose pending subtrees (the
    /// shallowest first) are given to idle warps whenever one waits. Every leaf must be
    /// counted once under its item's tag, and every warp must leave.
    #[test]
    fn idle_warps_get_pieces_of_busy_warps_trees_and_everyone_leaves() {
        const WARPS: u32 = 6;
        const LARGEST: u32 = 16;
        let depths = [3u32, 14, 0, 9, LARGEST, 1, 12];
        let mut region = vec![0u64; Handoff::words(WARPS, 1).div_ceil(2)];
        let base = region.as_mut_ptr().cast::<u32>() as usize;
        let next = AtomicU32::new(0);
        let leaves: Vec<Counter> = depths.iter().map(|_| Counter::new(0)).collect();
        let received = Counter::new(0);
        std::thread::scope(|scope| {
            for warp in 0..WARPS {
                let (next, leaves, received, depths) = (&next, &leaves, &received, &depths);
                scope.spawn(move || {
                    // SAFETY: `region` is zeroed, 8-byte aligned and large enough; each thread
                    // is its own warp.
                    let handoff = unsafe { Handoff::new(base as *mut u32, WARPS, warp) }.unwrap();
                    let search = |tag: u32, depth: u32| {
                        let mut stack = vec![depth];
                        while let Some(depth) = stack.pop() {
                            if depth == 0 {
                                leaves[tag as usize].fetch_add(1, Ordering::Relaxed);
                            } else {
                                stack.extend([depth - 1, depth - 1]);
                            }
                            if stack.len() > 1
                                && handoff.wanted()
                                && handoff.give(tag, [Lanes::splat(stack[0])], || {})
                            {
                                stack.remove(0);
                            }
                        }
                    };
                    let mut claiming = true;
                    loop {
                        handoff.begin();
                        if claiming {
                            let item = next.fetch_add(1, Ordering::Relaxed);
                            if let Some(&depth) = depths.get(item as usize) {
                                // The largest tree starts only once a warp waits, so that
                                // a hand-over happens however the threads are scheduled.
                                while depth == LARGEST && !handoff.wanted() {
                                    std::thread::yield_now();
                                }
                                search(item, depth);
                                handoff.end();
                                continue;
                            }
                            claiming = false;
                        }
                        match handoff.wait(1, || false) {
                            Some(tag) => {
                                received.fetch_add(1, Ordering::Relaxed);
                                // SAFETY: the piece's one word, in this warp's mailbox.
                                let piece = unsafe { load_lanes(handoff.piece(1)) };
                                search(tag, piece.broadcast(0));
                                handoff.end();
                            }
                            None => return,
                        }
                    }
                });
            }
        });
        for (item, depth) in depths.iter().enumerate() {
            assert_eq!(
                leaves[item].load(Ordering::Relaxed),
                1 << depth,
                "item {item}"
            );
        }
        assert!(
            received.load(Ordering::Relaxed) > 0,
            "no piece was handed over"
        );
    }
}
