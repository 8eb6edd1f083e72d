//! Warp votes: every lane contributes a `bool`, every lane receives the combined answer.

use super::Lanes;
use crate::bits::SlicedCounts;

#[cfg(target_arch = "nvptx64")]
mod gpu {
    unsafe extern "C" {
        #[link_name = "llvm.nvvm.vote.ballot.sync"]
        pub fn ballot(mask: u32, predicate: bool) -> u32;
        #[link_name = "llvm.nvvm.vote.any.sync"]
        pub fn any(mask: u32, predicate: bool) -> bool;
        #[link_name = "llvm.nvvm.vote.all.sync"]
        pub fn all(mask: u32, predicate: bool) -> bool;
        #[link_name = "llvm.nvvm.bar.warp.sync"]
        pub fn bar_warp_sync(mask: u32);
        #[link_name = "llvm.nvvm.read.ptx.sreg.lanemask.lt"]
        pub fn lanemask_lt() -> u32;
    }
}

#[cfg(target_arch = "nvptx64")]
impl Lanes<bool> {
    /// Bit `i` of the result is lane `i`'s value; every lane receives the same word.
    ///
    /// GPU: `vote.sync.ballot.b32 r, p, 0xffffffff` (SASS `VOTE.ANY R, PT, P`).
    #[inline(always)]
    pub fn ballot(self) -> u32 {
        // SAFETY: called by all 32 lanes (the module's rule), matching the full mask.
        unsafe { gpu::ballot(super::FULL_MASK, self.0) }
    }

    /// True when any lane's value is true. GPU: `vote.sync.any.pred` (SASS `VOTE.ANY`).
    #[inline(always)]
    pub fn any(self) -> bool {
        // SAFETY: as for `ballot`.
        unsafe { gpu::any(super::FULL_MASK, self.0) }
    }

    /// True when every lane's value is true. GPU: `vote.sync.all.pred` (SASS `VOTE.ALL`).
    #[inline(always)]
    pub fn all(self) -> bool {
        // SAFETY: as for `ballot`.
        unsafe { gpu::all(super::FULL_MASK, self.0) }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl Lanes<bool> {
    /// Bit `i` of the result is lane `i`'s value. CPU twin of `vote.sync.ballot.b32`.
    #[inline(always)]
    pub fn ballot(self) -> u32 {
        self.0
            .iter()
            .enumerate()
            .fold(0, |word, (lane, &bit)| word | (bit as u32) << lane)
    }

    /// True when any lane's value is true. CPU twin of `vote.sync.any.pred`.
    #[inline(always)]
    pub fn any(self) -> bool {
        self.0.iter().any(|&bit| bit)
    }

    /// True when every lane's value is true. CPU twin of `vote.sync.all.pred`.
    #[inline(always)]
    pub fn all(self) -> bool {
        self.0.iter().all(|&bit| bit)
    }
}

impl Lanes<u32> {
    /// Each lane's value (below 64) as the count of its bit position: lane `i`'s value becomes
    /// position `i`'s count of the result, in every lane. The warp's values transposed into
    /// six bit planes — six ballots, the same code on both forms.
    #[inline(always)]
    pub fn ballot_counts(self) -> SlicedCounts {
        SlicedCounts::from_planes(
            [0, 1, 2, 3, 4, 5].map(|k| self.map(|v| v >> k & 1 != 0).ballot()),
        )
    }
}

/// Per lane: the mask of the lanes below it (`(1 << lane) - 1`).
///
/// GPU: `%lanemask_lt` (SASS `S2R SR_LTMASK`). With a ballot it ranks a lane among the lanes
/// that voted yes: `popc(ballot & lanemask_lt)`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn lanemask_lt() -> Lanes<u32> {
    // SAFETY: reading a special register has no preconditions.
    Lanes(unsafe { gpu::lanemask_lt() })
}

/// Per lane: the mask of the lanes below it. CPU twin of `%lanemask_lt`.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lanemask_lt() -> Lanes<u32> {
    Lanes::from_fn(|lane| (1u32 << lane) - 1)
}

/// Waits until all 32 lanes of the warp reach this point and orders their memory accesses.
///
/// GPU: `bar.warp.sync 0xffffffff` (SASS `WARPSYNC`). Needed between a lane writing shared
/// memory and another lane reading it. CPU twin: nothing, the CPU form runs the lanes in step.
#[inline(always)]
pub fn syncwarp() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: called by all 32 lanes, matching the full mask.
    unsafe {
        gpu::bar_warp_sync(super::FULL_MASK)
    }
}
