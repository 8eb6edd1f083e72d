//! `warpsearch info`: what the binary carries and what it sees.

use crate::cli::*;

pub(crate) fn run_info(args: InfoArgs) -> Result<i32, Error> {
    let module = &warpsearch::builtin::KERNELS;
    let ptx = module.ptx;
    let kernels = module.is_present();
    let target = ptx
        .lines()
        .find_map(|line| line.trim().strip_prefix(".target "))
        .map(str::trim);
    let native = module.native_archs();
    let native_names: Vec<String> = native.iter().map(|arch| format!("sm_{arch}")).collect();
    let gpu = warpsearch::gpu::GpuDevice::open();
    // Loading the module is what a search does first: its form (or why it failed) is the answer.
    let loaded = gpu.as_ref().ok().map(|device| match device.module(module) {
        Ok((_, form)) => form.to_string(),
        Err(warpsearch::GpuError::NoKernels) => warpsearch::gpu::KernelForm::None.to_string(),
        Err(why) => format!("not loaded: {why}"),
    });
    let threads = rayon::current_num_threads();
    if args.json {
        let value = serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            "gpu_kernels": kernels,
            "ptx_bytes": ptx.len(),
            "ptx_target": target,
            "native_archs": native_names,
            "gpu": gpu.as_ref().ok().map(|d| d.describe()),
            "gpu_kernels_loaded": loaded,
            "gpu_unavailable": gpu.as_ref().err().map(|e| e.to_string()),
            "cpu_threads": threads,
        });
        out!("{value}");
    } else {
        out!("warpsearch {}", env!("CARGO_PKG_VERSION"));
        if kernels {
            out!(
                "  GPU kernels: embedded ({} bytes of PTX for {})",
                ptx.len(),
                target.unwrap_or("?")
            );
            if native.is_empty() {
                out!(
                    "  native code: none (built without ptxas): every GPU compiles the PTX on its machine's first run"
                );
            } else {
                out!(
                    "  native code: {} (other GPUs compile the PTX on their machine's first run)",
                    native_names.join(", ")
                );
            }
        } else {
            out!("  GPU kernels: not built into this binary (CPU only)");
        }
        match &gpu {
            Ok(device) => out!(
                "  GPU: {}; kernels loaded as {}",
                device.describe(),
                loaded.as_deref().unwrap_or("?")
            ),
            Err(why) => out!("  GPU: none usable: {why}"),
        }
        out!("  CPU: {threads} threads");
    }
    Ok(0)
}
