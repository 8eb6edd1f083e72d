//! warpsearch: exhaustive combinatorial search on NVIDIA GPUs, with the kernels written in
//! pure Rust (the `kernels` crate, compiled to PTX) and the very same code running on every
//! CPU core when no GPU is there.
//!
//! - [`nqueens`]: count all N-Queens solutions (total and unique), or find one for huge N.
//! - [`gomoku`]: threat points of a 15×15 Gomoku board from skew-ternary line tables.
//! - [`no3line`]: no-three-in-line configurations by symmetry class, one warp per board on
//!   the GPU and the same code on every CPU core.
//! - [`selftest`]: check every warp primitive on the chosen backend against a reference.
//! - [`backend`]: how the GPU or CPU is chosen; [`run`]: cancellation and progress;
//!   [`shard`]: deterministic shards, result files, checkpoints and merging; [`predict`]: what
//!   a count will take, from a sample of its chunks (`--estimate`); [`verify`]: recount a
//!   sample of a run's chunks on other devices and compare them chunk by chunk.
//! - [`engine`]: run a search of your own (your kernel, built to PTX by `warpsearch-builder`)
//!   on every CPU core or every GPU, with progress, Ctrl-C, shards and checkpoints.

pub mod builtin;
pub mod cover;
pub mod gomoku;
pub mod no3line;
pub mod nqueens;
pub mod selftest;

// The engine (the crate `warpsearch-engine`) under the paths this crate has always had.
pub use warpsearch_engine::search as engine;
pub use warpsearch_engine::{backend, error, feed, gpu, kit, predict, run, shard, verify};

pub use backend::{Backend, BackendChoice};
pub use error::{Error, GpuError, Result};
/// The kernels crate (`warpsearch-kernels`, library name `kernels`) as the host sees it: the
/// CPU twins of the warp primitives and of the depth-first skeleton ([`kernels::dfs`]), for a
/// search's CPU path.
pub use kernels;
pub use run::RunControl;

/// The README's code, run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoc;

/// The code of docs/gomoku-vcf.md, run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/gomoku-vcf.md")]
pub struct GomokuVcfDoc;

/// The code of docs/gomoku-brain.md, run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/gomoku-brain.md")]
pub struct GomokuBrainDoc;
