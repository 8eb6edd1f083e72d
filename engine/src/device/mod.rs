//! Where a search runs: the GPUs ([`gpu`]: the driver, devices, kernel modules and launches)
//! or every CPU core, and how one is chosen ([`backend`]).

pub mod backend;
pub mod gpu;
