//! One module per subcommand: each runs it and prints its result.

pub(crate) mod bench;
pub(crate) mod cover;
pub(crate) mod estimate;
pub(crate) mod gomoku;
pub(crate) mod info;
pub(crate) mod no3line;
pub(crate) mod nqueens;
pub(crate) mod selftest;
pub(crate) mod shards;
pub(crate) mod verify;

pub(crate) use estimate::{check_estimate, preview, print_prediction, rough_seconds};
pub(crate) use no3line::print_no3line_counts;
pub(crate) use nqueens::{print_device_shares, print_nqueens_counts};
pub(crate) use shards::SplitPlan;
