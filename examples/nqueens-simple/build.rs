//! Compiles kernels/ to PTX (and, with ptxas, to native code) as `$OUT_DIR/queens.ptx`; the
//! variables `QUEENS_PTX`, `QUEENS_SKIP_PTX` and `QUEENS_REQUIRE_PTX` work as in warpsearch.

fn main() {
    warpsearch_builder::Builder::new("kernels")
        .env_prefix("QUEENS")
        .embed("queens.ptx", false);
}
