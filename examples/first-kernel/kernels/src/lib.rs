//! A first kernel of one's own: how many words have each bit set, counted a warp at a time.
//! Written once over `Lanes` and compiled twice: to PTX for the GPU (the entry point at the
//! end), to native code for the CPU twin and the tests.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]

use kernels::warp::Lanes;

/// How many of the warp's 32 words have bit `b` set, in lane `b`: the transpose makes bit
/// `b` of every lane's word the bits of lane `b`'s word, and `popc` counts them.
#[inline(always)]
pub fn bit_counts(words: Lanes<u32>) -> Lanes<u32> {
    words.transpose().map(u32::count_ones)
}

/// The CPU twin of the kernel: [`bit_counts`] warp after warp (32 words a warp, zeros after
/// the last word), summed per bit.
#[cfg(not(target_arch = "nvptx64"))]
pub fn bit_histogram(words: &[u32]) -> [u64; 32] {
    let mut histogram = [0u64; 32];
    for warp in words.chunks(32) {
        let lanes = Lanes::from_fn(|lane| warp.get(lane as usize).copied().unwrap_or(0));
        for (bit, count) in bit_counts(lanes).to_array().into_iter().enumerate() {
            histogram[bit] += u64::from(count);
        }
    }
    histogram
}

/// The GPU entry point: thread `t` takes `words[t]` (0 from `len` on), its warp counts the
/// bits, and lane `b` adds the count of bit `b` to `histogram[b]`: 32 atomics a warp.
///
/// # Safety
/// `words` holds `len` words and `histogram` 32 zeroed device words; whole warps launch.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn first_kernel_bit_histogram(
    words: *const u32,
    len: u32,
    histogram: *const core::sync::atomic::AtomicU32,
) {
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
    // SAFETY: special-register reads with no preconditions.
    let thread = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as u32;
    let word = if thread < len {
        // SAFETY: `thread < len`, inside `words` (the contract above).
        unsafe { *words.add(thread as usize) }
    } else {
        0
    };
    let counts = bit_counts(Lanes::this_lane(word));
    let bit = kernels::warp::lane_id().mine();
    // SAFETY: `bit < 32`, inside `histogram` (the contract above).
    let counter = unsafe { &*histogram.add(bit as usize) };
    counter.fetch_add(counts.mine(), core::sync::atomic::Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn the_twin_counts_every_bit_of_every_word() {
        // 100 words: three whole warps and a partial one.
        let words: Vec<u32> = (0..100u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        let mut expected = [0u64; 32];
        for word in &words {
            for (bit, count) in expected.iter_mut().enumerate() {
                *count += u64::from(word >> bit & 1);
            }
        }
        assert_eq!(bit_histogram(&words), expected, "words: {words:?}");
    }
}
