//! Reductions in one instruction: `redux.sync` (sm_80 and newer, the oldest GPUs warpsearch
//! runs on) combines a 32-bit value over the warp in hardware, where [`Lanes::sum`],
//! [`Lanes::min_all`] and [`Lanes::or_all`] take five shuffle rounds. Which is faster in a
//! given kernel is for the profiler to say (the shuffle forms also exist for the 64-bit and
//! bit-plane reductions that `redux` does not do); both give the same answer.

use super::Lanes;

#[cfg(target_arch = "nvptx64")]
mod gpu {
    // Each takes the lane's value and the member mask, and is convergent: all lanes of the
    // mask call it together.
    unsafe extern "C" {
        #[link_name = "llvm.nvvm.redux.sync.add"]
        pub fn add(value: u32, mask: u32) -> u32;
        #[link_name = "llvm.nvvm.redux.sync.umin"]
        pub fn umin(value: u32, mask: u32) -> u32;
        #[link_name = "llvm.nvvm.redux.sync.umax"]
        pub fn umax(value: u32, mask: u32) -> u32;
        #[link_name = "llvm.nvvm.redux.sync.and"]
        pub fn and(value: u32, mask: u32) -> u32;
        #[link_name = "llvm.nvvm.redux.sync.or"]
        pub fn or(value: u32, mask: u32) -> u32;
        #[link_name = "llvm.nvvm.redux.sync.xor"]
        pub fn xor(value: u32, mask: u32) -> u32;
    }
}

#[cfg(target_arch = "nvptx64")]
impl Lanes<u32> {
    /// Wrapping sum of the 32 lanes, in every lane. GPU: one `redux.sync.add.u32`.
    #[inline(always)]
    pub fn redux_add(self) -> u32 {
        // SAFETY: called by all 32 lanes (the warp module's rule), matching the full mask.
        unsafe { gpu::add(self.0, super::FULL_MASK) }
    }

    /// The smallest value (unsigned), in every lane. GPU: one `redux.sync.min.u32`.
    #[inline(always)]
    pub fn redux_min(self) -> u32 {
        // SAFETY: called by all 32 lanes (the warp module's rule), matching the full mask.
        unsafe { gpu::umin(self.0, super::FULL_MASK) }
    }

    /// The largest value (unsigned), in every lane. GPU: one `redux.sync.max.u32`.
    #[inline(always)]
    pub fn redux_max(self) -> u32 {
        // SAFETY: called by all 32 lanes (the warp module's rule), matching the full mask.
        unsafe { gpu::umax(self.0, super::FULL_MASK) }
    }

    /// Bitwise AND of the 32 lanes, in every lane. GPU: one `redux.sync.and.b32`.
    #[inline(always)]
    pub fn redux_and(self) -> u32 {
        // SAFETY: called by all 32 lanes (the warp module's rule), matching the full mask.
        unsafe { gpu::and(self.0, super::FULL_MASK) }
    }

    /// Bitwise OR of the 32 lanes, in every lane. GPU: one `redux.sync.or.b32`.
    #[inline(always)]
    pub fn redux_or(self) -> u32 {
        // SAFETY: called by all 32 lanes (the warp module's rule), matching the full mask.
        unsafe { gpu::or(self.0, super::FULL_MASK) }
    }

    /// Bitwise XOR of the 32 lanes, in every lane. GPU: one `redux.sync.xor.b32`.
    #[inline(always)]
    pub fn redux_xor(self) -> u32 {
        // SAFETY: called by all 32 lanes (the warp module's rule), matching the full mask.
        unsafe { gpu::xor(self.0, super::FULL_MASK) }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl Lanes<u32> {
    /// Wrapping sum of the 32 lanes, in every lane. CPU twin of `redux.sync.add.u32`.
    #[inline(always)]
    pub fn redux_add(self) -> u32 {
        self.to_array().into_iter().fold(0, u32::wrapping_add)
    }

    /// The smallest value (unsigned), in every lane. CPU twin of `redux.sync.min.u32`.
    #[inline(always)]
    pub fn redux_min(self) -> u32 {
        self.to_array().into_iter().fold(u32::MAX, u32::min)
    }

    /// The largest value (unsigned), in every lane. CPU twin of `redux.sync.max.u32`.
    #[inline(always)]
    pub fn redux_max(self) -> u32 {
        self.to_array().into_iter().fold(0, u32::max)
    }

    /// Bitwise AND of the 32 lanes, in every lane. CPU twin of `redux.sync.and.b32`.
    #[inline(always)]
    pub fn redux_and(self) -> u32 {
        self.to_array().into_iter().fold(u32::MAX, |a, b| a & b)
    }

    /// Bitwise OR of the 32 lanes, in every lane. CPU twin of `redux.sync.or.b32`.
    #[inline(always)]
    pub fn redux_or(self) -> u32 {
        self.to_array().into_iter().fold(0, |a, b| a | b)
    }

    /// Bitwise XOR of the 32 lanes, in every lane. CPU twin of `redux.sync.xor.b32`.
    #[inline(always)]
    pub fn redux_xor(self) -> u32 {
        self.to_array().into_iter().fold(0, |a, b| a ^ b)
    }
}

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn redux_agrees_with_the_shuffle_trees_and_the_folds(values: [u32; 32]) {
            let lanes = Lanes::from_array(values);
            prop_assert_eq!(lanes.redux_add(), lanes.sum());
            prop_assert_eq!(lanes.redux_min(), lanes.min_all());
            prop_assert_eq!(lanes.redux_or(), lanes.or_all());
            prop_assert_eq!(lanes.redux_max(), values.iter().copied().max().unwrap_or(0));
            prop_assert_eq!(lanes.redux_and(), values.iter().fold(u32::MAX, |a, b| a & b));
            prop_assert_eq!(lanes.redux_xor(), values.iter().fold(0, |a, b| a ^ b));
        }
    }
}
