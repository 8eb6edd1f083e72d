//! Choosing where a search runs: the GPU when one is usable, otherwise every CPU core.

use crate::device::gpu::{DeviceChoice, Gpus, Module};
use crate::error::{Error, GpuError, Result};
use std::sync::Arc;

/// What the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendChoice {
    /// The GPU when the driver loads and a device initialises, else the CPU.
    #[default]
    Auto,
    /// Every CPU core (or `--threads`), with rayon.
    Cpu,
    /// The GPU; an error when there is none.
    Gpu,
}

/// Where and how a search runs: the options of every problem's `count`.
#[derive(Clone, Debug, Default)]
pub struct SearchOptions {
    /// Where to run.
    pub backend: BackendChoice,
    /// CPU threads (all cores when `None`).
    pub threads: Option<usize>,
    /// Which GPUs (all by default).
    pub devices: crate::device::gpu::DeviceChoice,
    /// Cancellation and progress.
    pub control: crate::control::RunControl,
}

/// Where a search runs, once chosen.
#[derive(Clone, Debug)]
pub enum Backend {
    /// A rayon pool of this many threads.
    Cpu(Arc<rayon::ThreadPool>),
    /// The opened GPUs (counting runs spread over all of them; other work uses the first).
    Gpu(Gpus),
}

impl Backend {
    /// "cpu" or "gpu".
    pub fn kind(&self) -> &'static str {
        match self {
            Backend::Cpu(_) => "cpu",
            Backend::Gpu(_) => "gpu",
        }
    }

    /// A one-line description for reports.
    pub fn describe(&self) -> String {
        match self {
            Backend::Cpu(pool) => format!("CPU, {} threads", pool.current_num_threads()),
            Backend::Gpu(gpus) if gpus.len() == 1 => format!("GPU {}", gpus.describe()),
            Backend::Gpu(gpus) => gpus.describe(),
        }
    }
}

/// The chosen backend and, for `auto`, why.
#[derive(Clone, Debug)]
pub struct Selected {
    /// Where the search runs.
    pub backend: Backend,
    /// One line saying which backend and why (printed by the CLI on stderr).
    pub reason: String,
}

/// The most CPU threads a run may ask for: four per core. More only adds switching (5000
/// threads on 2 cores took 22.7 s for a 0.03 s search) and, far beyond, never starts.
pub fn max_threads() -> usize {
    4 * std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Builds a rayon pool of `threads` threads (all cores when `None`); 0 or more than
/// [`max_threads`] is an error.
pub fn cpu_pool(threads: Option<usize>) -> Result<Arc<rayon::ThreadPool>> {
    if threads == Some(0) {
        return Err(Error::InvalidArgument(
            "--threads must be at least 1".into(),
        ));
    }
    if let Some(threads) = threads
        && threads > max_threads()
    {
        return Err(Error::InvalidArgument(format!(
            "--threads {threads} is far more than this machine's {} cores; use at most {} (4 a core), or leave it out to use every core",
            max_threads() / 4,
            max_threads()
        )));
    }
    let mut builder =
        rayon::ThreadPoolBuilder::new().thread_name(|i| format!("warpsearch-cpu-{i}"));
    if let Some(threads) = threads {
        builder = builder.num_threads(threads);
    }
    builder
        .build()
        .map(Arc::new)
        .map_err(|e| Error::ThreadPool(e.to_string()))
}

/// Resolves `choice`: `gpu` fails when no GPU is usable, `auto` falls back to the CPU and says
/// why. `devices` says which GPUs to open; a list of indices means the GPU whatever `choice`
/// says (an index the driver does not show is an error that lists those it shows, and
/// `cpu` with a list is an error).
///
/// `kernels` is the module the searches to run need (a program's own kernels): without it
/// (a build that could not make the PTX) `auto` means the CPU, and `gpu` is an error.
pub fn select(
    choice: BackendChoice,
    threads: Option<usize>,
    devices: &DeviceChoice,
    kernels: &Module,
) -> Result<Selected> {
    if !kernels.is_present() {
        return without_kernel(choice, threads, devices, &|| GpuError::NoKernels);
    }
    select_with_kernel(choice, threads, devices)
}

/// [`select`] once the search's kernel is known to be there.
fn select_with_kernel(
    choice: BackendChoice,
    threads: Option<usize>,
    devices: &DeviceChoice,
) -> Result<Selected> {
    let cpu = |reason: String| -> Result<Selected> {
        Ok(Selected {
            backend: Backend::Cpu(cpu_pool(threads)?),
            reason,
        })
    };
    // A user who names GPUs has asked for GPUs: never a quiet CPU run.
    if matches!(devices, DeviceChoice::List(_)) {
        if choice == BackendChoice::Cpu {
            return Err(Error::InvalidArgument(
                "--devices names GPUs, but --backend cpu runs on the CPU: leave out one of the two"
                    .into(),
            ));
        }
        let backend = Backend::Gpu(Gpus::open(devices)?);
        let reason = format!("backend: {} (--devices names it)", backend.describe());
        return Ok(Selected { backend, reason });
    }
    match choice {
        BackendChoice::Cpu => {
            let selected = cpu(String::new())?;
            let reason = format!("backend: {} (as asked)", selected.backend.describe());
            Ok(Selected { reason, ..selected })
        }
        BackendChoice::Gpu => {
            let backend = Backend::Gpu(Gpus::open(devices)?);
            let reason = format!("backend: {} (as asked)", backend.describe());
            Ok(Selected { backend, reason })
        }
        BackendChoice::Auto => match Gpus::open(devices) {
            Ok(gpus) => {
                let backend = Backend::Gpu(gpus);
                let reason = format!("backend: {} (auto: a GPU is available)", backend.describe());
                Ok(Selected { backend, reason })
            }
            Err(why) => {
                let pool = cpu_pool(threads)?;
                let reason = format!(
                    "backend: CPU, {} threads (auto: {})",
                    pool.current_num_threads(),
                    short_reason(&why)
                );
                Ok(Selected {
                    backend: Backend::Cpu(pool),
                    reason,
                })
            }
        },
    }
}

/// [`select`] for a search that may lack a GPU kernel in this build (`has_kernel`): then
/// `auto` means the CPU, with the reason, and `gpu` or named `--devices` are an error that says
/// why — so no search binary writes that fallback itself.
pub fn select_for(
    choice: BackendChoice,
    threads: Option<usize>,
    devices: &DeviceChoice,
    has_kernel: bool,
) -> Result<Selected> {
    if has_kernel {
        return select_with_kernel(choice, threads, devices);
    }
    without_kernel(choice, threads, devices, &|| {
        GpuError::Unsupported(
            "this build has no GPU kernel for this search (its build script could not build the PTX: see the build's warning); use --backend cpu".into(),
        )
    })
}

/// The backend of a search whose kernel this build lacks (`why`): the CPU under `auto`, with
/// the reason; an error for `gpu` or named GPUs.
fn without_kernel(
    choice: BackendChoice,
    threads: Option<usize>,
    devices: &DeviceChoice,
    why: &dyn Fn() -> GpuError,
) -> Result<Selected> {
    match choice {
        BackendChoice::Gpu => Err(why().into()),
        BackendChoice::Auto if matches!(devices, DeviceChoice::List(_)) => {
            Err(GpuError::Unsupported(format!("--devices names GPUs, but {}", why())).into())
        }
        BackendChoice::Auto => {
            let pool = cpu_pool(threads)?;
            let reason = format!(
                "backend: CPU, {} threads (auto: {})",
                pool.current_num_threads(),
                short_reason(&why())
            );
            Ok(Selected {
                backend: Backend::Cpu(pool),
                reason,
            })
        }
        BackendChoice::Cpu => select_with_kernel(choice, threads, devices),
    }
}

fn short_reason(error: &GpuError) -> String {
    match error {
        GpuError::NoKernels => "built without GPU kernels".into(),
        GpuError::Unsupported(_) => "this build has no GPU kernel for this search".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_without_a_kernel_runs_on_the_cpu_under_auto_and_refuses_the_gpu() {
        let all = DeviceChoice::All;
        let selected = select_for(BackendChoice::Auto, Some(1), &all, false).unwrap();
        assert_eq!(selected.backend.kind(), "cpu");
        assert!(
            selected.reason.contains("no GPU kernel"),
            "{}",
            selected.reason
        );
        let error = select_for(BackendChoice::Gpu, Some(1), &all, false).unwrap_err();
        assert!(error.to_string().contains("no GPU kernel"), "{error}");
        let named = DeviceChoice::List(vec![0]);
        assert!(select_for(BackendChoice::Auto, Some(1), &named, false).is_err());
        let cpu = select_for(BackendChoice::Cpu, Some(1), &all, false).unwrap();
        assert_eq!(cpu.backend.kind(), "cpu");
    }
}
