//! Counts, for each of the 32 bit positions, how many of a million words have that bit set:
//! on the GPU when there is one (the kernel of kernels/), and always with the CPU twin, and
//! says whether the two agree. `--json` prints one JSON line.

use cudarc::driver::{CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use first_kernel_kernels::bit_histogram;
use std::process::ExitCode;

/// The kernels as PTX (empty when the build could not make them: the CPU runs alone).
const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/first_kernel.ptx"));
/// Native code for the common GPUs: (architecture, e.g. 90 for sm_90; the cubin).
const NATIVE: &[(u32, &[u8])] = include!(concat!(env!("OUT_DIR"), "/first_kernel.ptx.native.rs"));

/// Words counted.
const WORDS: usize = 1 << 20;

fn main() -> ExitCode {
    let json = std::env::args().any(|arg| arg == "--json");
    let words: Vec<u32> = (0..WORDS as u32)
        .map(|i| i.wrapping_mul(0x9E37_79B9) ^ i >> 7)
        .collect();
    let cpu = bit_histogram(&words);
    let (backend, counts) = match on_gpu(&words) {
        Ok(counts) => ("gpu", counts),
        Err(why) => {
            eprintln!("first-kernel: no GPU run ({why}); the CPU twin's counts alone");
            ("cpu", cpu)
        }
    };
    let agree = counts == cpu;
    if json {
        println!(
            "{{\"backend\":\"{backend}\",\"words\":{WORDS},\"set_bits\":{},\"agree\":{agree}}}",
            counts.iter().sum::<u64>()
        );
    } else {
        println!("{backend}: set bits of {WORDS} words, by position 0..32: {counts:?}");
        println!("the CPU twin agrees: {agree}");
    }
    if agree {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The histogram counted by the kernel on GPU 0, or why it could not run.
fn on_gpu(words: &[u32]) -> Result<[u64; 32], String> {
    if PTX.is_empty() {
        return Err("built without the GPU kernels".into());
    }
    // SAFETY: only looks for the driver library; nothing is called through it yet.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver on this machine".into());
    }
    let context = CudaContext::new(0).map_err(failed("opening GPU 0"))?;
    let (major, minor) = context
        .compute_capability()
        .map_err(failed("reading the compute capability"))?;
    // This GPU's own cubin when the build made one, else the PTX (the driver compiles it).
    let arch = (major * 10 + minor) as u32;
    let module = match NATIVE.iter().find(|(native, _)| *native == arch) {
        Some((_, cubin)) => context.load_module(Ptx::from_binary(cubin.to_vec())),
        None => context.load_module(Ptx::from_src(PTX)),
    }
    .map_err(failed("loading the kernels"))?;
    let kernel = module
        .load_function("first_kernel_bit_histogram")
        .map_err(failed("finding the kernel"))?;
    let stream = context.default_stream();
    let device_words = stream
        .clone_htod(words)
        .map_err(failed("copying the words"))?;
    let mut histogram = stream
        .alloc_zeros::<u32>(32)
        .map_err(failed("allocating the histogram"))?;
    let len = words.len() as u32;
    let mut launch = stream.launch_builder(&kernel);
    launch.arg(&device_words).arg(&len).arg(&mut histogram);
    // SAFETY: the arguments match the kernel's contract: `len` words, 32 zeroed counters,
    // and whole warps (`for_num_elems` launches blocks of 1,024 threads).
    unsafe { launch.launch(LaunchConfig::for_num_elems(len)) }
        .map_err(failed("launching the kernel"))?;
    let counts = stream
        .clone_dtoh(&histogram)
        .map_err(failed("reading the histogram"))?;
    Ok(std::array::from_fn(|bit| u64::from(counts[bit])))
}

/// For `map_err` on a driver call: the step that failed, then the driver's own words.
fn failed(what: &'static str) -> impl Fn(DriverError) -> String {
    move |e| format!("{what}: {e}")
}
