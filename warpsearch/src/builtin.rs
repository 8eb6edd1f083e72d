//! warpsearch's own kernels (N-Queens, no-three-in-line, the Gomoku VCF batch, the selftest):
//! the `kernels` crate compiled to PTX by build.rs, and to native code for the common GPUs when
//! the build found `ptxas`.

use warpsearch_engine::gpu::Module;

/// The module: empty PTX in a build that could not make it (or without the default feature
/// `builtin-kernels`), whose searches then run on the CPU.
pub static KERNELS: Module = Module {
    ptx: include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx")),
    native: include!(concat!(env!("OUT_DIR"), "/kernels.ptx.native.rs")),
};

/// True when this binary carries the GPU kernels.
pub fn has_kernels() -> bool {
    KERNELS.is_present()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_build_with_kernels_carries_native_code_for_the_common_gpus_when_ptxas_was_there() {
        // `cargo xtask` builds with ptxas: then sm_80 and sm_90 at least are native.
        if super::has_kernels() && option_env!("WARPSEARCH_PTXAS").is_some() {
            let archs = super::KERNELS.native_archs();
            assert!(archs.contains(&80) && archs.contains(&90), "{archs:?}");
        }
    }
}
