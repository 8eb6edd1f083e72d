//! Warp programming exercises, in increasing difficulty. Each is a function (or, for the last,
//! a trait implementation) whose body is `todo!()`, with tests underneath that run on the CPU
//! twin of [`kernels::warp::Lanes`] — the same code a GPU would run, one warp held in an
//! array. Write the body, then:
//!
//! ```text
//! cargo test -p exercises                 # fails until every exercise is done
//! cargo test -p exercises lane_rank       # one exercise's tests
//! cargo test -p exercises --features solutions   # the model answers (src/solutions.rs)
//! ```
//!
//! | # | exercise | what it teaches | chapter of `docs/learn/` |
//! | --: | --- | --- | --- |
//! | 1 | [`lane_rank`] | ballot, lane masks, popc | 3 |
//! | 2 | [`warp_max`] | a butterfly of `shuffle_xor` | 4, 5 |
//! | 3 | [`prefix_sum`] | a scan with `shuffle_up` | 4 |
//! | 4 | [`compact_into`] | compaction: a rank as an address, a write per lane | 3, 7 |
//! | 5 | [`column_popcounts`] | the warp as a bit matrix: transpose | 6 |
//! | 6 | [`bit_select`] | one `lop3` from its truth table | 6 |
//! | 7 | [`claim`] | a warp-aggregated atomic: one lane adds, all learn | 7 |
//! | 8 | [`Derangements`] | a whole search on the depth-first skeleton | 8 |
//!
//! Use only what each exercise names (the library has a ready-made answer to most of them:
//! that is the point of the library, not of the exercise). Hints sit in each doc comment.
#![no_std]
// A `todo!()` body leaves its arguments unused until the exercise is done.
#![cfg_attr(not(feature = "solutions"), allow(unused_variables))]

#[cfg(test)]
extern crate std;

mod bits;
mod search;
mod warp;

pub use bits::{bit_select, column_popcounts};
pub use search::{Derangements, count_derangements, count_derangements_as_a_warp};
pub use warp::{add_on_lane_zero, claim, compact_into, lane_rank, prefix_sum, warp_max};

#[cfg(feature = "solutions")]
mod solutions;
