//! Warp-wide values and the collective operations on them.
//!
//! A warp is 32 threads that execute together. [`Lanes<T>`] is "one `T` per lane": on the GPU
//! it is this thread's register (the other 31 values live in the other threads), on the CPU it
//! is a `[T; 32]` holding the whole warp. Collective operations (vote, shuffle, reductions)
//! are methods on it, so a warp-cooperative algorithm — say one over a 32×32 bitboard with one
//! `u32` row per lane — is written once and runs on both.
//!
//! Rules that keep the two forms equivalent:
//! - Every collective is called by all 32 lanes (full mask `0xffffffff`); never inside a
//!   branch that only some lanes take.
//! - A value that is the same in every lane is a plain `T` ("uniform"), not a `Lanes<T>`.

mod lanes;
mod reduce;
mod redux;
mod scan;
mod shuffle;
mod transpose;
mod vote;

pub use lanes::{Lanes, lane_id, on_one_lane};
pub use reduce::{ColumnCounts, LaneCounters};
pub use scan::Compaction;
pub use transpose::TRANSPOSE_ROUNDS;
pub use vote::{lanemask_lt, syncwarp};

/// The mask naming every lane of a warp, passed to the `.sync` collectives.
pub const FULL_MASK: u32 = u32::MAX;
