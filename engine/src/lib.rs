//! The engine of warpsearch: run a search of your own — a kernel in a `no_std` crate built to
//! PTX by `warpsearch-builder`, and the same code as its CPU twin — on every GPU of a machine or
//! every CPU core, with progress, Ctrl-C, deterministic shards, checkpoints that survive a kill,
//! devices that fail without stopping the run, verification and predictions.
//!
//! The crate's folders are its layers, from the hardware up:
//!
//! - [`device`]: where a search runs — [`gpu`] (the driver, devices, kernel modules, launches)
//!   and [`backend`] (the GPUs or the CPU pool, and how they are chosen).
//! - [`control`]: what every layer shares — cancellation and progress ([`RunControl`]).
//! - [`run`]: running one search — the [`search`] engine ([`search::Search`], [`search::run`])
//!   and the [`feed`]: one launch a GPU fed chunk by chunk.
//! - [`shard`]: the work list and what a run keeps of it — partition, result files,
//!   checkpoints, merging, the workers and their faults, [`verify`] and [`predict`].
//! - [`kit`]: the ready-made command line of a search binary.
//!
//! A search of your own depends on this crate, `warpsearch-builder` (its build script) and
//! `warpsearch-kernels` (its kernel crate) only; `examples/costas` is one, and
//! docs/tutorial-costas.md builds it step by step.

pub mod control;
pub mod device;
pub mod error;
pub mod kit;
pub mod run;
pub mod shard;

pub use device::{backend, gpu};
pub use run::{feed, search};
pub use shard::{predict, verify};

pub use backend::{Backend, BackendChoice};
pub use control::RunControl;
pub use error::{Error, GpuError, Result};
/// The kernels crate (`warpsearch-kernels`, library name `kernels`) as the host sees it: the
/// CPU twins of the warp primitives and of the depth-first skeleton ([`kernels::dfs`]), for a
/// search's CPU path.
pub use kernels;
