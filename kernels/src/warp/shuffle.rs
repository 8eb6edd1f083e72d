//! Warp shuffles: every lane reads a register of another lane, with no memory involved.
//!
//! All four forms follow PTX's `shfl.sync` exactly, including what happens when the source
//! lane is out of range (the lane keeps its own value), so the CPU twins can be trusted as
//! references for GPU code.

use super::Lanes;

#[cfg(target_arch = "nvptx64")]
mod gpu {
    unsafe extern "C" {
        #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
        pub fn idx(mask: u32, value: u32, lane: u32, clamp: u32) -> u32;
        #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
        pub fn bfly(mask: u32, value: u32, lane_mask: u32, clamp: u32) -> u32;
        #[link_name = "llvm.nvvm.shfl.sync.up.i32"]
        pub fn up(mask: u32, value: u32, delta: u32, clamp: u32) -> u32;
        #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
        pub fn down(mask: u32, value: u32, delta: u32, clamp: u32) -> u32;
    }
    /// `c` operand for a whole-warp segment: lanes 0..=31.
    pub const WHOLE_WARP: u32 = 0x1f;
}

#[cfg(target_arch = "nvptx64")]
impl Lanes<u32> {
    /// Lane `i` receives the value of lane `source[i] % 32`.
    ///
    /// GPU: `shfl.sync.idx.b32 r, v, src, 0x1f, 0xffffffff` (SASS `SHFL.IDX`).
    #[inline(always)]
    pub fn shuffle(self, source: Lanes<u32>) -> Lanes<u32> {
        // SAFETY: called by all 32 lanes, matching the full mask.
        Lanes(unsafe { gpu::idx(super::FULL_MASK, self.0, source.0, gpu::WHOLE_WARP) })
    }

    /// Every lane receives lane `source % 32`'s value. GPU: `shfl.sync.idx` with a uniform lane.
    #[inline(always)]
    pub fn broadcast(self, source: u32) -> u32 {
        // SAFETY: called by all 32 lanes, matching the full mask.
        unsafe { gpu::idx(super::FULL_MASK, self.0, source, gpu::WHOLE_WARP) }
    }

    /// Lane `i` receives the value of lane `i ^ (lane_mask % 32)`: the butterfly of reductions.
    ///
    /// GPU: `shfl.sync.bfly.b32 r, v, m, 0x1f, 0xffffffff` (SASS `SHFL.BFLY`).
    #[inline(always)]
    pub fn shuffle_xor(self, lane_mask: u32) -> Lanes<u32> {
        // SAFETY: called by all 32 lanes, matching the full mask.
        Lanes(unsafe { gpu::bfly(super::FULL_MASK, self.0, lane_mask, gpu::WHOLE_WARP) })
    }

    /// Lane `i` receives the value of lane `i - delta`; lanes below `delta` keep their own.
    ///
    /// GPU: `shfl.sync.up.b32 r, v, d, 0, 0xffffffff` (SASS `SHFL.UP`).
    #[inline(always)]
    pub fn shuffle_up(self, delta: u32) -> Lanes<u32> {
        // SAFETY: called by all 32 lanes, matching the full mask.
        Lanes(unsafe { gpu::up(super::FULL_MASK, self.0, delta, 0) })
    }

    /// Lane `i` receives the value of lane `i + delta`; lanes above `31 - delta` keep their own.
    ///
    /// GPU: `shfl.sync.down.b32 r, v, d, 0x1f, 0xffffffff` (SASS `SHFL.DOWN`).
    #[inline(always)]
    pub fn shuffle_down(self, delta: u32) -> Lanes<u32> {
        // SAFETY: called by all 32 lanes, matching the full mask.
        Lanes(unsafe { gpu::down(super::FULL_MASK, self.0, delta, gpu::WHOLE_WARP) })
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl Lanes<u32> {
    /// Lane `i` receives the value of lane `source[i] % 32`. CPU twin of `shfl.sync.idx`.
    #[inline(always)]
    pub fn shuffle(self, source: Lanes<u32>) -> Lanes<u32> {
        Lanes(core::array::from_fn(|i| {
            self.0[(source.0[i] % 32) as usize]
        }))
    }

    /// Every lane receives lane `source % 32`'s value. CPU twin of a uniform `shfl.sync.idx`.
    #[inline(always)]
    pub fn broadcast(self, source: u32) -> u32 {
        self.0[(source % 32) as usize]
    }

    /// Lane `i` receives the value of lane `i ^ (lane_mask % 32)`. CPU twin of `shfl.sync.bfly`.
    #[inline(always)]
    pub fn shuffle_xor(self, lane_mask: u32) -> Lanes<u32> {
        let lane_mask = (lane_mask % 32) as usize;
        Lanes(core::array::from_fn(|i| self.0[i ^ lane_mask]))
    }

    /// Lane `i` receives lane `i - delta`'s value; lanes below `delta` keep their own.
    /// CPU twin of `shfl.sync.up`.
    #[inline(always)]
    pub fn shuffle_up(self, delta: u32) -> Lanes<u32> {
        let delta = (delta % 32) as usize;
        Lanes(core::array::from_fn(|i| {
            if i >= delta {
                self.0[i - delta]
            } else {
                self.0[i]
            }
        }))
    }

    /// Lane `i` receives lane `i + delta`'s value; lanes above `31 - delta` keep their own.
    /// CPU twin of `shfl.sync.down`.
    #[inline(always)]
    pub fn shuffle_down(self, delta: u32) -> Lanes<u32> {
        let delta = (delta % 32) as usize;
        Lanes(core::array::from_fn(|i| {
            if i + delta < 32 {
                self.0[i + delta]
            } else {
                self.0[i]
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn shuffles_follow_ptx(values: [u32; 32], sources: [u32; 32], amount in 0u32..64) {
            let lanes = Lanes::from_array(values);
            let got = lanes.shuffle(Lanes::from_array(sources)).to_array();
            for i in 0..32 {
                prop_assert_eq!(got[i], values[(sources[i] & 31) as usize]);
            }
            let m = amount & 31;
            let xor = lanes.shuffle_xor(amount).to_array();
            let up = lanes.shuffle_up(amount).to_array();
            let down = lanes.shuffle_down(amount).to_array();
            for i in 0..32u32 {
                prop_assert_eq!(xor[i as usize], values[(i ^ m) as usize]);
                let j = i as i64 - m as i64;
                prop_assert_eq!(up[i as usize], values[if j >= 0 { j as usize } else { i as usize }]);
                let k = i + m;
                prop_assert_eq!(down[i as usize], values[if k < 32 { k as usize } else { i as usize }]);
            }
            prop_assert_eq!(lanes.broadcast(amount), values[m as usize]);
        }
    }
}
