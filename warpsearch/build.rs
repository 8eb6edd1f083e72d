//! Builds the `kernels` crate to PTX with the nightly pinned in `kernels/rust-toolchain.toml`
//! and hands it to the crate as `$OUT_DIR/kernels.ptx` (see `warpsearch-builder`).
//!
//! - `WARPSEARCH_PTX=/path/file.ptx`: embed that file instead of building.
//! - `WARPSEARCH_SKIP_PTX=1`: build CPU-only without trying.
//! - Without the default feature `builtin-kernels` nothing is compiled: a crate that runs only
//!   its own searches on the engine needs none of warpsearch's kernels.
//! - `WARPSEARCH_REQUIRE_PTX=1`: fail the build (one line, no backtrace) when the PTX cannot be
//!   built (`cargo xtask` sets it once the toolchain is verified); otherwise the crate is built
//!   CPU-only with one warning that says why and how to fix it.
//!
//! The nested cargo runs in its own target directory (`target/kernels`), so it neither
//! waits on the outer build's lock nor is thrown away by `cargo clean -p warpsearch`.

fn main() {
    if std::env::var_os("CARGO_FEATURE_BUILTIN_KERNELS").is_none() {
        // A user of the engine alone: no built-in kernels to compile (they run on the CPU).
        let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
        for (file, text) in [("kernels.ptx", ""), ("kernels.ptx.native.rs", "&[]\n")] {
            if let Err(e) = std::fs::write(out.join(file), text) {
                println!("cargo::error={file}: {e}");
            }
        }
        return;
    }
    warpsearch_builder::Builder::new("../kernels")
        // 88 registers unbounded (20 warps a multiprocessor, latency-bound: docs/notes/
        // no3line-gpu.md); 64 fit without a spill and make it 32.
        .max_registers("warpsearch_no3line_propagate", 64)
        // Frames by design, not warnings: the VCF search's own stack of moves and threat
        // cells (indexed by depth at run time), and the lane tree's covered set (indexed by
        // an item's word; the warp tree, which the listed problems use, has none).
        .expect_stack_frame("warpsearch_gomoku_vcf", 5_680)
        .expect_stack_frame("warpsearch_cover", 56)
        .embed("kernels.ptx", false);
}
