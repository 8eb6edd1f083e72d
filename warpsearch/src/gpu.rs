//! The GPU backend: the driver, the device, the embedded PTX module, and launches.
//!
//! cudarc loads libcuda at run time (`dynamic-loading`), so the binary starts on machines
//! without a driver; [`GpuDevice::open`] checks for the library before touching it, because
//! cudarc panics when it is missing.

use crate::error::{Error, GpuError};
use crate::run::{Progress, RunControl};
use cudarc::driver::result::{memcpy_dtoh_async, memcpy_htod_async};
use cudarc::driver::sys::CUdevice_attribute as Attribute;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DriverError,
};
use cudarc::nvrtc::Ptx;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The kernels crate compiled to PTX by build.rs (empty when it could not be built).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// True when this binary carries the GPU kernels.
pub fn has_kernels() -> bool {
    !PTX.trim().is_empty()
}

/// An initialised GPU with the kernels loaded.
pub struct GpuDevice {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// A non-blocking stream for looking at a running kernel's counters (see [`Self::watch`]).
    monitor: Arc<CudaStream>,
    module: Arc<CudaModule>,
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// CUDA version the driver supports, e.g. "13.0".
    pub driver_cuda: String,
    /// The kernel driver's version string (Linux: from /proc/driver/nvidia/version), if known.
    pub driver_version: Option<String>,
}

impl std::fmt::Debug for GpuDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl GpuDevice {
    /// Opens GPU 0 and loads the kernels.
    pub fn open() -> Result<GpuDevice, GpuError> {
        if !has_kernels() {
            return Err(GpuError::NoKernels);
        }
        // SAFETY: only probes whether the shared library can be loaded.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::DriverNotFound);
        }
        // The bindings panic on a driver that lacks a symbol they expect; turn that into an
        // error instead of a crash.
        let previous_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let opened = std::panic::catch_unwind(Self::open_unchecked);
        std::panic::set_hook(previous_hook);
        opened.unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(GpuError::Bindings(message))
        })
    }

    fn open_unchecked() -> Result<GpuDevice, GpuError> {
        let ctx = CudaContext::new(0).map_err(|e| GpuError::driver("initialising GPU 0", e))?;
        let attribute = |a: Attribute| {
            ctx.attribute(a)
                .map_err(|e| GpuError::driver("reading device attributes", e))
        };
        let compute_capability = (
            attribute(Attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attribute(Attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let multiprocessors =
            attribute(Attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let name = ctx
            .name()
            .map_err(|e| GpuError::driver("reading the device name", e))?;
        let mut version = 0;
        // SAFETY: writes one int; the library is loaded (checked by `open`).
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }
            .result()
            .map_err(|e| GpuError::driver("reading the driver version", e))?;
        let driver_cuda = format!("{}.{}", version / 1000, version % 1000 / 10);
        let module = ctx
            .load_module(Ptx::from_src(PTX))
            .map_err(|source| match source.0 {
                cudarc::driver::sys::cudaError_enum::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                | cudarc::driver::sys::cudaError_enum::CUDA_ERROR_INVALID_PTX
                | cudarc::driver::sys::cudaError_enum::CUDA_ERROR_NO_BINARY_FOR_GPU => {
                    GpuError::PtxUnsupported {
                        driver: driver_cuda.clone(),
                        source,
                    }
                }
                _ => GpuError::driver("loading the kernels", source),
            })?;
        let stream = ctx.default_stream();
        // Created now: creating a second stream later would wait for a running kernel.
        let monitor = ctx
            .new_stream()
            .map_err(|e| GpuError::driver("creating a stream", e))?;
        Ok(GpuDevice {
            ctx,
            stream,
            monitor,
            module,
            name,
            compute_capability,
            multiprocessors,
            driver_cuda,
            driver_version: linux_driver_version(),
        })
    }

    /// One line: name, architecture, multiprocessors, driver.
    pub fn describe(&self) -> String {
        let (major, minor) = self.compute_capability;
        let driver = match &self.driver_version {
            Some(version) => format!("driver {version}, CUDA {}", self.driver_cuda),
            None => format!("CUDA {}", self.driver_cuda),
        };
        format!(
            "{} (sm_{major}{minor}, {} SMs, {driver})",
            self.name, self.multiprocessors
        )
    }

    /// The stream all work is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A kernel of the embedded module by name.
    pub fn function(&self, name: &str) -> Result<CudaFunction, GpuError> {
        self.module
            .load_function(name)
            .map_err(|e| GpuError::driver(format!("looking up kernel {name}"), e))
    }

    /// Waits for all queued work.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        self.stream
            .synchronize()
            .map_err(|e| GpuError::driver("waiting for the GPU", e))
    }

    /// Blocks per multiprocessor that fit for `function` at this block size and shared memory.
    pub fn resident_blocks(
        &self,
        function: &CudaFunction,
        block: u32,
        shared_bytes: usize,
    ) -> Result<u32, GpuError> {
        // More than 48 KB of dynamic shared memory a block must be allowed explicitly (the
        // attribute stays set on the function for its launches).
        if shared_bytes > 48 * 1024 {
            function
                .set_attribute(
                    cudarc::driver::sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    i32::try_from(shared_bytes).unwrap_or(i32::MAX),
                )
                .map_err(|e| GpuError::driver("allowing the block's shared memory", e))?;
        }
        function
            .occupancy_max_active_blocks_per_multiprocessor(block, shared_bytes, None)
            .map_err(|e| GpuError::driver("computing occupancy", e))
            .map(|blocks| blocks.max(1))
    }

    /// Waits for the work queued so far, for a kernel that follows the watch protocol: word 0
    /// of `words` counts the work items it has claimed (out of `total`), and it takes no more
    /// once word 1 is non-zero. While waiting, the counter drives `progress` a few times a
    /// second, and on Ctrl-C (`control`) word 1 is set: the kernel's results are then
    /// incomplete and [`Error::Interrupted`] is returned. Both go through a second stream, which
    /// does not wait for the kernel.
    pub fn watch(
        &self,
        words: &CudaSlice<u32>,
        total: u64,
        progress: &Progress,
        control: &RunControl,
    ) -> Result<(), Error> {
        self.watch_with(words, total, progress, control, &mut || Ok(()))
    }

    /// Copies `buffer` to `out` through the monitor stream, while a kernel may still be
    /// writing it (for counters the kernel updates atomically).
    pub fn peek(&self, buffer: &CudaSlice<u64>, out: &mut [u64]) -> Result<(), GpuError> {
        let pointer = {
            let (pointer, _record) = buffer.device_ptr(&self.stream);
            pointer
        };
        // SAFETY: `pointer` is the live buffer `buffer`, at least `out.len()` words (the
        // caller's slices agree); the copy is waited for before `out` is used.
        step("reading counters", unsafe {
            memcpy_dtoh_async(out, pointer, self.monitor.cu_stream())
        })?;
        step("reading counters", self.monitor.synchronize())
    }

    /// [`GpuDevice::watch`], calling `tick` at every look (a few times a second).
    pub fn watch_with(
        &self,
        words: &CudaSlice<u32>,
        total: u64,
        progress: &Progress,
        control: &RunControl,
        tick: &mut dyn FnMut() -> Result<(), Error>,
    ) -> Result<(), Error> {
        let words_ptr = {
            let (pointer, _record) = words.device_ptr(&self.stream);
            pointer
        };
        let finished = step("recording an event", self.stream.record_event(None))?;
        let started = Instant::now();
        let mut stopping = false;
        let mut claimed = [0u32; 1];
        while !step("waiting for the GPU", finished.try_is_complete())? {
            // Spin briefly (short runs must not pay for a sleep), then look a few times a second.
            if started.elapsed() < Duration::from_millis(500) {
                std::thread::yield_now();
                continue;
            }
            std::thread::sleep(Duration::from_millis(50));
            // SAFETY: `words_ptr` is the live buffer `words` (at least two words); the copy is
            // waited for before `claimed` is read.
            step("reading progress", unsafe {
                memcpy_dtoh_async(&mut claimed, words_ptr, self.monitor.cu_stream())
            })?;
            step("reading progress", self.monitor.synchronize())?;
            progress.set(u64::from(claimed[0]).min(total));
            tick()?;
            if control.cancelled() && !stopping {
                stopping = true;
                let stop = [1u32];
                // SAFETY: writes the buffer's second word; `stop` outlives the copy, which is
                // waited for.
                step("stopping the GPU", unsafe {
                    memcpy_htod_async(words_ptr + 4, &stop, self.monitor.cu_stream())
                })?;
                step("stopping the GPU", self.monitor.synchronize())?;
            }
        }
        if stopping || control.cancelled() {
            return Err(Error::Interrupted);
        }
        Ok(())
    }

    /// The CUDA context (for timing events).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
}

/// A 1-D launch of `blocks` blocks of `block` threads with `shared_bytes` of dynamic shared memory.
pub(crate) fn launch_config(
    blocks: u32,
    block: u32,
    shared_bytes: usize,
) -> cudarc::driver::LaunchConfig {
    cudarc::driver::LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: shared_bytes as u32,
    }
}

/// Maps a driver error during a named step.
pub(crate) fn step<T>(what: &str, result: Result<T, DriverError>) -> Result<T, GpuError> {
    result.map_err(|e| GpuError::driver(what, e))
}

fn linux_driver_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    line.split_whitespace()
        .find(|word| word.chars().next().is_some_and(|c| c.is_ascii_digit()) && word.contains('.'))
        .map(str::to_string)
}
