//! Compiles kernels/ to PTX (and, with ptxas, to native code) as `$OUT_DIR/langford.ptx`; the
//! variables `LANGFORD_PTX`, `LANGFORD_SKIP_PTX` and `LANGFORD_REQUIRE_PTX` work as in
//! warpsearch.

fn main() {
    warpsearch_builder::Builder::new("kernels")
        .env_prefix("LANGFORD")
        .embed("langford.ptx", false);
}
