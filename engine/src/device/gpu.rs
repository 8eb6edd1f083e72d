//! The GPU backend: the driver, the device, kernel modules (loaded once a device), and launches.
//!
//! cudarc loads libcuda at run time (`dynamic-loading`), so the binary starts on machines
//! without a driver; [`GpuDevice::open`] checks for the library before touching it, because
//! cudarc panics when it is missing.

use crate::control::{Progress, RunControl};
use crate::error::{Error, GpuError};
use cudarc::driver::result::{memcpy_dtoh_async, memcpy_htod_async};
use cudarc::driver::sys::CUdevice_attribute as Attribute;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DriverError,
};
use cudarc::nvrtc::Ptx;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a kernel asked to stop may run on before its GPU is taken for hung: the kernels
/// look at the stop word inside every subtree, so a healthy one stops within a second or two.
pub const STOP_GRACE: Duration = Duration::from_secs(60);

/// A module of kernels as a build script made it with `warpsearch-builder`: the PTX (usually
/// `include_str!(concat!(env!("OUT_DIR"), "/….ptx"))`) and the same module as native code for
/// the common GPUs (the builder's `….ptx.native.rs`, empty when it had no `ptxas`). An empty
/// `ptx` means the build has no kernels.
#[derive(Clone, Copy, Debug)]
pub struct Module {
    /// The PTX text.
    pub ptx: &'static str,
    /// Cubins by architecture (e.g. `(90, …)` for sm_90): a GPU with one loads it at once
    /// instead of compiling the PTX.
    pub native: &'static [(u32, &'static [u8])],
}

impl Module {
    /// True when the build carried kernels (its PTX is not empty).
    pub fn is_present(&self) -> bool {
        !self.ptx.trim().is_empty()
    }

    /// The architectures it carries native code for (e.g. `[80, 86, 89, 90, 100, 120]`).
    pub fn native_archs(&self) -> Vec<u32> {
        self.native.iter().map(|&(arch, _)| arch).collect()
    }
}

/// Which form of the kernels a GPU loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelForm {
    /// The cubin of this architecture (e.g. 90 for sm_90): no compilation at load time.
    Native(u32),
    /// The PTX, compiled by the driver for the GPU (on a machine's first run; the driver
    /// keeps the result in its compute cache unless `CUDA_CACHE_DISABLE=1`).
    Ptx,
    /// None: a build without warpsearch's own kernels (feature `builtin-kernels` off), whose
    /// GPUs run only the searches that bring their own.
    None,
}

impl std::fmt::Display for KernelForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KernelForm::Native(arch) => write!(f, "native sm_{arch}"),
            KernelForm::Ptx => f.write_str("PTX, compiled by the driver"),
            KernelForm::None => f.write_str("none (this build carries no kernels of its own)"),
        }
    }
}

/// The form a GPU of compute capability `major.minor` loads from `native`: the cubin of its
/// own architecture, else that of the newest lower one of the same major version (a cubin
/// runs on any GPU of its major version and an equal or higher minor one), else the PTX.
/// `WARPSEARCH_KERNELS=ptx` asks for the PTX whatever the GPU.
pub fn kernel_form(native: &[(u32, &[u8])], (major, minor): (i32, i32)) -> KernelForm {
    if std::env::var("WARPSEARCH_KERNELS").is_ok_and(|v| v.eq_ignore_ascii_case("ptx")) {
        return KernelForm::Ptx;
    }
    let (Ok(major), Ok(minor)) = (u32::try_from(major), u32::try_from(minor)) else {
        return KernelForm::Ptx;
    };
    native
        .iter()
        .map(|&(arch, _)| arch)
        .filter(|&arch| arch / 10 == major && arch % 10 <= minor)
        .max()
        .map_or(KernelForm::Ptx, KernelForm::Native)
}

/// An initialised GPU with the kernels loaded.
pub struct GpuDevice {
    /// Its index among the visible GPUs.
    pub ordinal: usize,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// A non-blocking stream for looking at a running kernel's counters (see [`Self::watch`]).
    monitor: Arc<CudaStream>,
    /// The modules loaded so far, by their PTX: each is loaded once a device (a cubin loads in
    /// about a millisecond, PTX compiles for much longer).
    modules: Mutex<Vec<(&'static str, Arc<CudaModule>, KernelForm)>>,
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
        Self::open_ordinal(0)
    }

    /// Opens GPU `ordinal` (as numbered after `CUDA_VISIBLE_DEVICES`) and loads the kernels.
    pub fn open_ordinal(ordinal: usize) -> Result<GpuDevice, GpuError> {
        guarded(|| Self::open_unchecked(ordinal))
    }

    fn open_unchecked(ordinal: usize) -> Result<GpuDevice, GpuError> {
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| GpuError::driver(format!("initialising GPU {ordinal}"), e))?;
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
        if compute_capability.0 < 8 {
            return Err(GpuError::GpuTooOld {
                name,
                major: compute_capability.0,
                minor: compute_capability.1,
            });
        }
        let stream = ctx.default_stream();
        // Created now: creating a second stream later would wait for a running kernel.
        let monitor = ctx
            .new_stream()
            .map_err(|e| GpuError::driver("creating a stream", e))?;
        // The context's first allocation and copy set up its memory (about 10 ms on an H100):
        // part of opening the GPU, as making the threads is part of making the CPU backend,
        // not of the first search's time.
        stream
            .clone_htod(&[0u32])
            .and_then(|_first| stream.synchronize())
            .map_err(|e| GpuError::driver("a first copy to the GPU", e))?;
        Ok(GpuDevice {
            ordinal,
            ctx,
            stream,
            monitor,
            modules: Mutex::new(Vec::new()),
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
        format!(
            "{} (sm_{major}{minor}, {} SMs, {})",
            self.name,
            self.multiprocessors,
            self.describe_driver()
        )
    }

    /// "driver 580.1, CUDA 13.0".
    fn describe_driver(&self) -> String {
        match &self.driver_version {
            Some(version) => format!("driver {version}, CUDA {}", self.driver_cuda),
            None => format!("CUDA {}", self.driver_cuda),
        }
    }

    /// "GPU 1 (NVIDIA H200)": how errors and per-device reports name it.
    pub fn label(&self) -> String {
        format!("GPU {} ({})", self.ordinal, self.name)
    }

    /// The stream all work is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Loads `module` on this GPU (once: later calls return the same module) and says which
    /// form it loaded: this GPU's cubin when the module has one for it (see [`kernel_form`]),
    /// else the PTX, compiled by the driver. A cubin the driver refuses (one too new for it,
    /// say) falls back to the PTX.
    pub fn module(&self, module: &Module) -> Result<(Arc<CudaModule>, KernelForm), GpuError> {
        if !module.is_present() {
            return Err(GpuError::NoKernels);
        }
        self.bind()?;
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        // The same text at another address (a `const` copied by the compiler) is the same module.
        let same = |ptx: &&str| std::ptr::eq(*ptx, module.ptx) || *ptx == module.ptx;
        if let Some((_, loaded, form)) = modules.iter().find(|(ptx, _, _)| same(ptx)) {
            return Ok((loaded.clone(), *form));
        }
        let form = kernel_form(module.native, self.compute_capability);
        let cubin = module
            .native
            .iter()
            .find(|&&(arch, _)| KernelForm::Native(arch) == form)
            .map(|&(_, cubin)| cubin);
        let (loaded, form) = match cubin
            .and_then(|cubin| self.ctx.load_module(Ptx::from_binary(cubin.to_vec())).ok())
        {
            Some(loaded) => (loaded, form),
            None => {
                let loaded = self
                    .ctx
                    .load_module(Ptx::from_src(module.ptx))
                    .map_err(|source| match source.0 {
                        cudarc::driver::sys::cudaError_enum::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                        | cudarc::driver::sys::cudaError_enum::CUDA_ERROR_INVALID_PTX
                        | cudarc::driver::sys::cudaError_enum::CUDA_ERROR_NO_BINARY_FOR_GPU => {
                            GpuError::PtxUnsupported {
                                driver: self.driver_cuda.clone(),
                                source,
                            }
                        }
                        _ => GpuError::driver("loading a kernel module", source),
                    })?;
                (loaded, KernelForm::Ptx)
            }
        };
        modules.push((module.ptx, loaded.clone(), form));
        Ok((loaded, form))
    }

    /// Kernel `name` of `module` (loading the module on this GPU the first time, and binding
    /// the context to this thread first, since every use of a GPU starts by looking up its
    /// kernel).
    pub fn function(&self, module: &Module, name: &str) -> Result<CudaFunction, GpuError> {
        let (loaded, _) = self.module(module)?;
        loaded
            .load_function(name)
            .map_err(|e| GpuError::driver(format!("looking up kernel {name}"), e))
    }

    /// Makes this GPU's context the calling thread's current one. The driver's context is
    /// per thread: a GPU opened on one thread and driven from another (the GPUs of a run are
    /// opened in parallel, and each is then driven by its own worker) must be bound before
    /// calls that do not bind it themselves, such as the occupancy query and raw copies.
    pub fn bind(&self) -> Result<(), GpuError> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| GpuError::driver("making the GPU's context current", e))
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
        self.bind()?;
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
        self.watch_with(words, control, &mut |claimed| {
            progress.set(claimed.min(total));
            Ok(())
        })
    }

    /// Copies `buffer` to `out` through the monitor stream, while a kernel may still be
    /// writing it (for counters the kernel updates atomically).
    pub fn peek<T: cudarc::driver::DeviceRepr>(
        &self,
        buffer: &CudaSlice<T>,
        out: &mut [T],
    ) -> Result<(), GpuError> {
        self.peek_at(buffer, 0, out)
    }

    /// [`peek`](Self::peek) from item `offset` of `buffer` on: for the parts of a buffer a
    /// running kernel has finished with (a fed launch's finished chunks).
    pub fn peek_at<T: cudarc::driver::DeviceRepr>(
        &self,
        buffer: &CudaSlice<T>,
        offset: usize,
        out: &mut [T],
    ) -> Result<(), GpuError> {
        self.bind()?;
        if offset
            .checked_add(out.len())
            .is_none_or(|end| end > buffer.len())
        {
            return Err(GpuError::Unsupported(format!(
                "reading {} items at {offset} of a {}-item buffer",
                out.len(),
                buffer.len()
            )));
        }
        if out.is_empty() {
            return Ok(());
        }
        let pointer = {
            let (pointer, _record) = buffer.device_ptr(&self.stream);
            pointer + (offset * std::mem::size_of::<T>()) as u64
        };
        // SAFETY: the range [offset, offset + out.len()) lies inside the live buffer (checked
        // above); the copy is waited for before `out` is used.
        step("reading counters", unsafe {
            memcpy_dtoh_async(out, pointer, self.monitor.cu_stream())
        })?;
        step("reading counters", self.monitor.synchronize())
    }

    /// The device address of `buffer` (for a block of addresses a kernel reads, such as the
    /// engine's `kernels::work::Work`).
    pub fn address<T>(&self, buffer: &CudaSlice<T>) -> u64 {
        let (pointer, _record) = buffer.device_ptr(&self.stream);
        pointer
    }

    /// Writes `data` into `buffer` from item `offset` on, through the monitor stream, while a
    /// kernel may be running (for work the host supplies to a running kernel); returns once
    /// the data is on the GPU.
    pub fn poke<T: cudarc::driver::DeviceRepr>(
        &self,
        buffer: &CudaSlice<T>,
        offset: usize,
        data: &[T],
    ) -> Result<(), GpuError> {
        self.bind()?;
        if offset
            .checked_add(data.len())
            .is_none_or(|end| end > buffer.len())
        {
            return Err(GpuError::Unsupported(format!(
                "writing {} items at {offset} of a {}-item buffer",
                data.len(),
                buffer.len()
            )));
        }
        if data.is_empty() {
            return Ok(());
        }
        let pointer = {
            let (pointer, _record) = buffer.device_ptr(&self.stream);
            pointer + (offset * std::mem::size_of::<T>()) as u64
        };
        // SAFETY: the range [offset, offset + data.len()) lies inside the live buffer (checked
        // above); `data` outlives the copy, which is waited for.
        step("supplying work to the GPU", unsafe {
            memcpy_htod_async(pointer, data, self.monitor.cu_stream())
        })?;
        step("supplying work to the GPU", self.monitor.synchronize())
    }

    /// [`GpuDevice::watch`], calling `look` with the claimed count at every look (a few times
    /// a second) instead of drawing progress itself.
    pub fn watch_with(
        &self,
        words: &CudaSlice<u32>,
        control: &RunControl,
        look: &mut dyn FnMut(u64) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.bind()?;
        let words_ptr = {
            let (pointer, _record) = words.device_ptr(&self.stream);
            pointer
        };
        let finished = step("recording an event", self.stream.record_event(None))?;
        let started = Instant::now();
        let mut stopping: Option<Instant> = None;
        let mut claimed = [0u32; 1];
        while !step("waiting for the GPU", finished.try_is_complete())? {
            if stopping.is_some_and(|asked| asked.elapsed() > STOP_GRACE) {
                // The kernel sees the stop word within a subtree; one that does not is hung.
                // Its buffers stay allocated (their frees are queued behind it).
                return Err(GpuError::NotStopping {
                    seconds: STOP_GRACE.as_secs(),
                }
                .into());
            }
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
            look(u64::from(claimed[0]))?;
            if control.cancelled() && stopping.is_none() {
                stopping = Some(Instant::now());
                let stop = [1u32];
                // SAFETY: writes the buffer's second word; `stop` outlives the copy, which is
                // waited for.
                step("stopping the GPU", unsafe {
                    memcpy_htod_async(words_ptr + 4, &stop, self.monitor.cu_stream())
                })?;
                step("stopping the GPU", self.monitor.synchronize())?;
            }
        }
        if stopping.is_some() || control.cancelled() {
            return Err(Error::Interrupted);
        }
        Ok(())
    }

    /// The CUDA context (for timing events).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
}

/// Runs `open` (a call into the driver bindings) once the kernels and the driver are known to
/// be there, turning a panic of the bindings into an error.
fn guarded<T>(open: impl FnOnce() -> Result<T, GpuError>) -> Result<T, GpuError> {
    // SAFETY: only probes whether the shared library can be loaded.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(GpuError::DriverNotFound);
    }
    // The bindings panic on a driver that lacks a symbol they expect; turn that into an error
    // instead of a crash.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(open));
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

/// The names of the GPUs the driver shows this process, by index (after
/// `CUDA_VISIBLE_DEVICES`).
pub fn visible_names() -> Result<Vec<String>, GpuError> {
    let count = visible_devices()?;
    guarded(|| {
        (0..count)
            .map(|ordinal| {
                let ordinal = i32::try_from(ordinal).unwrap_or(i32::MAX);
                cudarc::driver::result::device::get(ordinal)
                    .and_then(cudarc::driver::result::device::get_name)
                    .map_err(|e| GpuError::driver("reading a device name", e))
            })
            .collect()
    })
}

/// How many GPUs the driver shows this process (after `CUDA_VISIBLE_DEVICES`).
pub fn visible_devices() -> Result<usize, GpuError> {
    guarded(|| {
        let count =
            CudaContext::device_count().map_err(|e| GpuError::driver("counting the GPUs", e))?;
        Ok(usize::try_from(count).unwrap_or(0))
    })
}

/// Which GPUs a run may use (`--devices`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceChoice {
    /// Every GPU the driver shows (`CUDA_VISIBLE_DEVICES` applies first).
    #[default]
    All,
    /// The first GPU the driver shows: work that runs on one GPU when none is named.
    First,
    /// These ordinals, in this order, each once: GPUs named by the user, so a run with them
    /// is a GPU run whatever the backend choice (see [`crate::device::backend::select`]).
    List(Vec<usize>),
}

impl DeviceChoice {
    /// Parses `all` or a comma-separated list of GPU indices such as `0,2`.
    pub fn parse(text: &str) -> Result<DeviceChoice, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("all") {
            return Ok(DeviceChoice::All);
        }
        let mut list = Vec::new();
        for part in text.split(',') {
            let ordinal: usize = part.trim().parse().map_err(|_| {
                format!("--devices wants `all` or GPU indices like 0,2; got {text:?}")
            })?;
            if list.contains(&ordinal) {
                return Err(format!("--devices names GPU {ordinal} twice"));
            }
            list.push(ordinal);
        }
        Ok(DeviceChoice::List(list))
    }
}

impl DeviceChoice {
    /// Only the first GPU of this choice: for work that runs on one GPU.
    pub fn first_only(&self) -> DeviceChoice {
        match self {
            DeviceChoice::List(list) if !list.is_empty() => DeviceChoice::List(vec![list[0]]),
            _ => DeviceChoice::First,
        }
    }
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        DeviceChoice::parse(text)
    }
}

/// The GPUs of a run, each opened with the kernels loaded (at least one).
#[derive(Clone, Debug)]
pub struct Gpus {
    devices: Arc<[Arc<GpuDevice>]>,
}

impl Gpus {
    /// Opens the GPUs `choice` names, in parallel (each context takes a moment to create).
    pub fn open(choice: &DeviceChoice) -> Result<Gpus, GpuError> {
        let ordinals = match choice {
            DeviceChoice::All => (0..visible_devices()?).collect(),
            DeviceChoice::First => (0..visible_devices()?.min(1)).collect(),
            DeviceChoice::List(list) => {
                let shown = |why: GpuError| GpuError::DeviceNotShown {
                    asked: list.first().copied().unwrap_or(0),
                    shown: format!("no GPU can be used here: {why}"),
                };
                let names = visible_names().map_err(shown)?;
                if let Some(&missing) = list.iter().find(|&&o| o >= names.len()) {
                    let listed: Vec<String> = names
                        .iter()
                        .enumerate()
                        .map(|(i, name)| format!("{i} ({name})"))
                        .collect();
                    let shown = match names.len() {
                        0 => "the driver shows no GPU".to_string(),
                        1 => format!("the driver shows 1 GPU: {}", listed.join(", ")),
                        n => format!("the driver shows {n} GPUs: {}", listed.join(", ")),
                    };
                    return Err(GpuError::DeviceNotShown {
                        asked: missing,
                        shown,
                    });
                }
                list.clone()
            }
        };
        if ordinals.is_empty() {
            return Err(GpuError::NoDevice);
        }
        let opened: Vec<Result<GpuDevice, GpuError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = ordinals
                .iter()
                .map(|&ordinal| scope.spawn(move || GpuDevice::open_ordinal(ordinal)))
                .collect();
            // Meanwhile, the host threads that make and check a GPU run's work (rayon's pool):
            // part of opening the backend, as the CPU backend's pool is, not of the first run.
            rayon::broadcast(|_| ());
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(GpuError::Bindings("opening a GPU".into())))
                })
                .collect()
        });
        let devices = opened
            .into_iter()
            .map(|device| device.map(Arc::new))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Gpus {
            devices: devices.into(),
        })
    }

    /// One opened GPU.
    pub fn one(device: GpuDevice) -> Gpus {
        Gpus {
            devices: vec![Arc::new(device)].into(),
        }
    }

    /// The first GPU: the one that runs work that is not spread over several.
    pub fn first(&self) -> &Arc<GpuDevice> {
        &self.devices[0]
    }

    /// Every GPU of the run.
    pub fn all(&self) -> &[Arc<GpuDevice>] {
        &self.devices
    }

    /// How many GPUs.
    pub fn len(&self) -> usize {
        self.devices.len()
    }

    /// Never: a set holds at least one GPU.
    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    /// One line for reports: the GPU, or "2 GPUs: …".
    pub fn describe(&self) -> String {
        match self.all() {
            [one] => one.describe(),
            all => {
                let names: Vec<String> = all
                    .iter()
                    .map(|d| format!("{}: {}", d.ordinal, d.name))
                    .collect();
                format!(
                    "{} GPUs ({}; {})",
                    all.len(),
                    names.join(", "),
                    all[0].describe_driver()
                )
            }
        }
    }
}

/// A 1-D launch of `blocks` blocks of `block` threads with `shared_bytes` of dynamic shared memory.
pub fn launch_config(blocks: u32, block: u32, shared_bytes: usize) -> cudarc::driver::LaunchConfig {
    cudarc::driver::LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: shared_bytes as u32,
    }
}

/// Maps a driver error during a named step.
pub fn step<T>(what: &str, result: Result<T, DriverError>) -> Result<T, GpuError> {
    result.map_err(|e| GpuError::driver(what, e))
}

fn linux_driver_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    line.split_whitespace()
        .find(|word| word.chars().next().is_some_and(|c| c.is_ascii_digit()) && word.contains('.'))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::{DeviceChoice, KernelForm, kernel_form};

    #[test]
    fn a_gpu_loads_its_own_cubin_else_one_of_its_major_version_else_the_ptx() {
        let cubin: &[u8] = &[0];
        let native = [(80, cubin), (86, cubin), (90, cubin)];
        assert_eq!(kernel_form(&native, (9, 0)), KernelForm::Native(90));
        assert_eq!(kernel_form(&native, (8, 6)), KernelForm::Native(86));
        // sm_89 runs sm_86 code; sm_87 too.
        assert_eq!(kernel_form(&native, (8, 9)), KernelForm::Native(86));
        // A newer major version (Blackwell) or an older GPU needs the PTX.
        assert_eq!(kernel_form(&native, (10, 0)), KernelForm::Ptx);
        assert_eq!(kernel_form(&native, (7, 5)), KernelForm::Ptx);
        assert_eq!(kernel_form(&[], (9, 0)), KernelForm::Ptx);
    }

    #[test]
    fn device_lists_parse_and_bad_ones_are_refused() {
        assert_eq!(DeviceChoice::parse("all"), Ok(DeviceChoice::All));
        assert_eq!(DeviceChoice::parse(" ALL "), Ok(DeviceChoice::All));
        assert_eq!(
            DeviceChoice::parse("0, 2"),
            Ok(DeviceChoice::List(vec![0, 2]))
        );
        for bad in ["", "1,,2", "-1", "gpu0", "1,1"] {
            assert!(DeviceChoice::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            DeviceChoice::List(vec![3, 1]).first_only(),
            DeviceChoice::List(vec![3])
        );
        // Not named: the first GPU, without making it a named (GPU-only) choice.
        assert_eq!(DeviceChoice::All.first_only(), DeviceChoice::First);
    }
}
