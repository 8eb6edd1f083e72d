//! Compiles the kernel crate (kernels/) to PTX with the nightly it pins, and with `ptxas`
//! (found or fetched by the builder) to native code for the common GPUs.
//! `FIRST_KERNEL_PTX_STATS=1` prints each kernel's registers, `FIRST_KERNEL_SASS=1` writes
//! its SASS beside the cubins.

fn main() {
    warpsearch_builder::Builder::new("kernels")
        .env_prefix("FIRST_KERNEL")
        .embed("first_kernel.ptx", false);
}
