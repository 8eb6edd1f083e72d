//! Errors of the library. Nothing a user can trigger panics: every failure is one of these.

use cudarc::driver::DriverError;
use cudarc::driver::sys::cudaError_enum as CuResult;

/// Any failure of a warpsearch operation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An argument outside what the operation supports (the message says what is allowed).
    #[error("{0}")]
    InvalidArgument(String),
    /// The GPU backend was asked for and could not be used, or failed while running.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The run was stopped (Ctrl-C) before it finished; no partial result is reported.
    #[error("interrupted before the search finished; no result")]
    Interrupted,
    /// The problem has no solution for this input (N-Queens with N = 2 or 3, say).
    #[error("{0}")]
    NoSolution(String),
    /// A result file or checkpoint whose digest, chunks or sum do not agree: edited by hand
    /// or damaged. The message names the file.
    #[error("{0}")]
    DamagedFile(String),
    /// A result failed its own verification: a bug, reported rather than returned.
    #[error("internal check failed: {0}")]
    Verification(String),
    /// A search needed more of a fixed resource (a stack, a buffer) than it was given; the
    /// result would be incomplete, so none is reported.
    #[error("search limit reached: {0}")]
    SearchLimit(String),
    /// One GPU of a run spread over several failed; the run was stopped.
    #[error("{device}: {source}")]
    OnDevice {
        /// Which GPU, as "GPU 1 (NVIDIA H200)".
        device: String,
        /// What went wrong there.
        source: Box<Error>,
    },
    /// A device finished no chunk for longer than the run's hang limit while it held some
    /// (`WARPSEARCH_HANG_LIMIT`): it was asked to stop and dropped from the run.
    #[error(
        "finished no chunk for {seconds:.0} s while holding some (the hang limit is {limit:.0} s); taken for hung"
    )]
    Hung {
        /// How long it had been silent.
        seconds: f64,
        /// The limit it passed.
        limit: f64,
    },
    /// Every device of a run failed, one after another; the checkpoint keeps what they
    /// finished.
    #[error(
        "every device of the run failed ({0}); the chunks they finished are in the checkpoint, if one was kept"
    )]
    DevicesFailed(String),
    /// Reading or writing a file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The CPU thread pool could not be built.
    #[error("cannot start the CPU thread pool: {0}")]
    ThreadPool(String),
}

/// Why the GPU backend is unavailable or failed.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// libcuda (the NVIDIA driver's user-space library) is not installed.
    #[error("no NVIDIA driver found (libcuda.so could not be loaded)")]
    DriverNotFound,
    /// The driver is installed but sees no GPU.
    #[error("the NVIDIA driver reports no CUDA device")]
    NoDevice,
    /// This binary was built without the PTX kernels.
    #[error(
        "this warpsearch was built without GPU kernels (the pinned nightly was missing at build time); rebuild with `cargo xtask run …` (docs/toolchain.md)"
    )]
    NoKernels,
    /// The driver is too old for the kernels' PTX.
    #[error(
        "the NVIDIA driver (CUDA {driver}) cannot load the kernels' PTX ({source}); a driver for CUDA 11.4 or newer is needed"
    )]
    PtxUnsupported {
        /// The driver's CUDA version, as "major.minor".
        driver: String,
        /// The driver's error.
        source: DriverError,
    },
    /// The GPU is older than the kernels' oldest target (Ampere, sm_80).
    #[error(
        "{name} is sm_{major}{minor}; warpsearch's kernels need compute capability 8.0 or newer (Ampere, Ada, Hopper, Blackwell)"
    )]
    GpuTooOld {
        /// The GPU's name.
        name: String,
        /// Compute capability, major.
        major: i32,
        /// Compute capability, minor.
        minor: i32,
    },
    /// The device ran out of memory.
    #[error("out of GPU memory while {what}")]
    OutOfMemory {
        /// What was being allocated.
        what: String,
    },
    /// Any other driver error, with what was being done.
    #[error("CUDA error while {what}: {source}")]
    Driver {
        /// What was being done.
        what: String,
        /// The driver's error.
        source: DriverError,
    },
    /// `--devices` names a GPU that this machine does not show (or the GPUs cannot be used).
    #[error("--devices names GPU {asked}, but {shown}")]
    DeviceNotShown {
        /// The first index that is not there.
        asked: usize,
        /// What the driver does show ("the driver shows 1 GPU: 0 (NVIDIA H100 …)"), or why
        /// no GPU can be used here.
        shown: String,
    },
    /// The operation has no GPU implementation yet.
    #[error("{0}")]
    Unsupported(String),
    /// A kernel asked to stop (Ctrl-C, another device's failure, or the hang limit) still ran
    /// after the grace it was given: the GPU is taken for hung and left running it.
    #[error(
        "the kernel did not stop within {seconds} s of being asked to; the GPU is taken for hung"
    )]
    NotStopping {
        /// The grace it was given.
        seconds: u64,
    },
    /// The CUDA bindings panicked (an old driver lacking a symbol, for instance).
    #[error("the CUDA driver bindings failed: {0}")]
    Bindings(String),
}

impl GpuError {
    /// Wraps a driver error with what was being done, picking out the cases users act on.
    pub fn driver(what: impl Into<String>, source: DriverError) -> GpuError {
        let what = what.into();
        match source.0 {
            CuResult::CUDA_ERROR_OUT_OF_MEMORY => GpuError::OutOfMemory { what },
            CuResult::CUDA_ERROR_NO_DEVICE => GpuError::NoDevice,
            _ => GpuError::Driver { what, source },
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
