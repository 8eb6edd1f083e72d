//! Running one search: the [`search`] engine ([`search::Search`], [`search::run`]) and the
//! [`feed`] that keeps each GPU's one launch supplied with chunks. Cancellation and progress
//! ([`RunControl`]) are [`crate::control`]'s, re-exported here under the path they always had.

pub mod feed;
pub mod search;

pub use crate::control::*;
