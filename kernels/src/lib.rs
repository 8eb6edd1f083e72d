//! Search kernels written once in `no_std` Rust, compiled twice: to PTX for NVIDIA GPUs
//! (target `nvptx64-nvidia-cuda`) and to native code for the CPU backend and the tests.
//!
//! The crate reads as board algebra. [`bits`] holds the per-thread bit tricks, [`warp`] the
//! warp-wide type [`warp::Lanes`] ("one value per lane") with ballot, shuffle and reductions,
//! [`atomic`] the warp-aggregated work counter, [`scope`] atomics with a named PTX scope
//! (`.cta`, `.gpu`, `.sys`), [`slab`] per-thread stacks in shared memory,
//! [`rng`] a counter-based generator. Every primitive has a GPU form and a CPU twin side by
//! side; `docs/warp-programming.md` explains the design. The searches: [`nqueens`] (counting
//! with 8-fold symmetry, and the randomised search for one solution) and [`no3line`] (a board
//! as one row per lane).
//!
//! On the GPU, `Lanes<T>` is this lane's register; on the CPU it holds all 32 lanes of a warp in
//! an array. An algorithm written over `Lanes` therefore runs unchanged on both.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, link_llvm_intrinsics)
)]

#[cfg(test)]
extern crate std;

pub mod atomic;
pub mod bits;
pub mod cover;
pub mod dfs;
pub mod gomoku;
pub mod handoff;
pub mod no3line;
pub mod nqueens;
pub mod rng;
pub mod scope;
pub mod selftest;
pub mod slab;
pub mod warp;
pub mod work;

#[cfg(all(target_arch = "nvptx64", feature = "entry"))]
mod entry;

/// The code blocks of `docs/warp-programming.md`, compiled and run as this crate's doctests
/// (the GPU-only sketches there are marked `ignore`).
#[cfg(doctest)]
#[doc = include_str!("../../docs/warp-programming.md")]
pub struct WarpProgrammingDoc;

/// The CPU code blocks of the learning path, `docs/learn/`, run as doctests (its GPU-only
/// blocks, marked `ignore`, are built to PTX by `cargo xtask doc-gpu-blocks`).
#[cfg(doctest)]
pub mod learn {
    #[doc = include_str!("../../docs/learn/README.md")]
    pub struct Index;
    #[doc = include_str!("../../docs/learn/01-execution-model.md")]
    pub struct ExecutionModel;
    #[doc = include_str!("../../docs/learn/02-lanes.md")]
    pub struct Lanes;
    #[doc = include_str!("../../docs/learn/03-votes.md")]
    pub struct Votes;
    #[doc = include_str!("../../docs/learn/04-shuffles.md")]
    pub struct Shuffles;
    #[doc = include_str!("../../docs/learn/05-reductions.md")]
    pub struct Reductions;
    #[doc = include_str!("../../docs/learn/06-bitboards.md")]
    pub struct Bitboards;
    #[doc = include_str!("../../docs/learn/07-atomics.md")]
    pub struct Atomics;
    #[doc = include_str!("../../docs/learn/08-search-kernel.md")]
    pub struct SearchKernel;
    #[doc = include_str!("../../docs/learn/09-advanced.md")]
    pub struct Advanced;
    #[doc = include_str!("../../docs/learn/11-warp-rules.md")]
    pub struct WarpRules;
}

/// Width of a warp: 32 lanes on every NVIDIA GPU to date.
pub const WARP_SIZE: usize = 32;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // A kernel has nowhere to report a panic; trapping aborts the launch, and the host sees
    // CUDA_ERROR_LAUNCH_FAILED (mapped to a typed error), never a wrong answer.
    // SAFETY: `trap` has no preconditions; it ends the kernel.
    unsafe { core::arch::nvptx::trap() }
}
