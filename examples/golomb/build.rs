//! Compiles kernels/ to PTX (and, with ptxas, to native code) as `$OUT_DIR/golomb.ptx`; the
//! variables `GOLOMB_PTX`, `GOLOMB_SKIP_PTX` and `GOLOMB_REQUIRE_PTX` work as in warpsearch.

fn main() {
    warpsearch_builder::Builder::new("kernels")
        .env_prefix("GOLOMB")
        .embed("golomb.ptx", false);
}
