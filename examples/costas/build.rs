//! Compiles the kernel crate (kernels/) to PTX with the nightly it pins and embeds it as
//! `$OUT_DIR/costas.ptx`; with `ptxas` (`COSTAS_PTXAS`, `WARPSEARCH_PTXAS` or the PATH) also
//! as native code for the common GPUs, listed in `$OUT_DIR/costas.ptx.native.rs`. Without the nightly the example builds CPU-only with one warning;
//! `COSTAS_PTX=file.ptx` embeds a prebuilt file, `COSTAS_SKIP_PTX=1` skips the GPU build and
//! `COSTAS_REQUIRE_PTX=1` makes a failed GPU build an error.

fn main() {
    warpsearch_builder::Builder::new("kernels")
        .env_prefix("COSTAS")
        .embed("costas.ptx", false);
}
