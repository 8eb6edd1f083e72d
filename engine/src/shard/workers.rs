//! Who runs the chunks and what happens when one of them fails: [`Workers`], the hang
//! policy, and the fault injection of drills and tests.

use super::*;

/// Who runs the chunks: one worker per name (a GPU lane each, or the CPU pool), each taking
/// at most `max_batch` chunks at a time.
#[derive(Clone, Debug)]
pub struct Workers {
    /// One name per worker, as [`DeviceShare::device`] (the lanes of one GPU share a name,
    /// and their shares are added up).
    pub names: Vec<String>,
    /// The most chunks a worker takes at once (a GPU launch takes a batch; the CPU one chunk).
    pub max_batch: usize,
    /// Each chunk's estimated work, when the search can tell: chunks are then handed out
    /// heaviest first, so that the run ends on light chunks. A run spread over several GPUs
    /// ends when its last chunks do, and a heavy chunk handed out last keeps one GPU busy
    /// while the others idle. `None`: in the partition's order.
    pub weights: Option<Vec<f64>>,
    /// A fault to inject, for tests and drills ([`Workers::of`] reads [`FAULT_VARIABLE`]).
    pub fault: Option<Injected>,
    /// When a silent worker is reported, and dropped ([`Workers::of`] reads
    /// [`HANG_LIMIT_VARIABLE`]).
    pub hang: HangPolicy,
}

/// The environment variable that sets [`HangPolicy::limit`] in seconds: a device that finishes
/// no chunk for that long while it holds some is taken for hung, dropped from the run, and its
/// chunks go to the other devices.
pub const HANG_LIMIT_VARIABLE: &str = "WARPSEARCH_HANG_LIMIT";

/// How a run tells a hung device (a kernel that never finishes, a lost device the driver does
/// not report) from a slow chunk. A worker is *silent* while it holds unfinished chunks and
/// has reported none since it last took or reported one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HangPolicy {
    /// A worker silent for `warn_factor` times the run's typical time between one worker's
    /// chunks (and at least `warn_after`) is reported once, as possibly hung.
    pub warn_factor: f64,
    /// See `warn_factor`.
    pub warn_after: Duration,
    /// A worker silent this long is dropped: asked to stop, its unfinished chunks counted by
    /// the others. `None`: never (the default, since a record's chunks can take days).
    pub limit: Option<Duration>,
}

impl Default for HangPolicy {
    fn default() -> HangPolicy {
        HangPolicy {
            warn_factor: 10.0,
            warn_after: Duration::from_secs(60),
            limit: None,
        }
    }
}

impl HangPolicy {
    /// The default, with the limit [`HANG_LIMIT_VARIABLE`] sets (seconds; unset, empty or not a
    /// positive number: no limit).
    pub fn from_env() -> HangPolicy {
        let limit = std::env::var(HANG_LIMIT_VARIABLE)
            .ok()
            .and_then(|text| text.trim().parse::<f64>().ok())
            .filter(|seconds| seconds.is_finite() && *seconds > 0.0)
            .map(Duration::from_secs_f64);
        HangPolicy {
            limit,
            ..HangPolicy::default()
        }
    }
}

impl Workers {
    /// Chunks the next batch of a worker takes when `left` are left. One worker takes everything up to `max_batch` (a launch's tail
    /// is paid once per batch); several take shrinking shares (guided self-scheduling: half of
    /// what is left divided among the workers), so a worker that finishes early takes more
    /// and all finish together, with no fixed ratios.
    pub(crate) fn next_batch(&self, left: usize) -> usize {
        let workers = self.names.len().max(1);
        let share = if workers == 1 {
            left
        } else {
            left.div_ceil(2 * workers)
        };
        share.clamp(1, self.max_batch.max(1)).min(left)
    }
}

impl Workers {
    /// These workers, handing out chunks heaviest first by `weights` (one per chunk of the
    /// partition; see [`Workers::weights`]).
    pub fn with_weights(self, weights: Vec<f64>) -> Workers {
        Workers {
            weights: Some(weights),
            ..self
        }
    }

    /// `chunks` in the order they are handed out: heaviest first when every chunk has a
    /// weight (ties and the rest in the partition's order), else as they are.
    pub(crate) fn order(&self, mut chunks: Vec<u32>) -> Vec<u32> {
        if let Some(weights) = &self.weights {
            let weight = |c: &u32| weights.get(*c as usize).copied();
            if chunks.iter().all(|c| weight(c).is_some_and(f64::is_finite)) {
                chunks.sort_by(|a, b| {
                    weight(b)
                        .unwrap_or(0.0)
                        .total_cmp(&weight(a).unwrap_or(0.0))
                });
            }
        }
        chunks
    }

    /// The workers of `backend`: every GPU (each runs one fed launch for the whole run, or
    /// launches of its own), or the CPU pool taking one chunk at a time (so its checkpoints
    /// follow every chunk).
    pub fn of(backend: &crate::device::backend::Backend) -> Workers {
        match backend {
            crate::device::backend::Backend::Cpu(_) => Workers {
                names: vec![backend.describe()],
                max_batch: 1,
                weights: None,
                fault: Injected::from_env(),
                hang: HangPolicy::from_env(),
            },
            crate::device::backend::Backend::Gpu(gpus) => Workers {
                names: gpus.all().iter().map(|d| d.label()).collect(),
                max_batch: usize::MAX,
                weights: None,
                fault: Injected::from_env(),
                hang: HangPolicy::from_env(),
            },
        }
    }
}

/// Names the GPU in an error of a run spread over several GPUs (a one-GPU run's errors stay as
/// they are; a stop caused by another GPU's failure stays [`Error::Interrupted`]).
pub fn on_device(
    gpus: &crate::device::gpu::Gpus,
    device: &crate::device::gpu::GpuDevice,
    error: Error,
) -> Error {
    match error {
        Error::Interrupted => error,
        _ if gpus.len() == 1 => error,
        error => Error::OnDevice {
            device: device.label(),
            source: Box::new(error),
        },
    }
}

/// The environment variable that injects a device fault, for tests and drills: `K:M` makes
/// worker K (0-based, in the order the run lists its devices; each GPU lane is one) fail when
/// it reports its (M+1)-th chunk, as a lost device or a failed copy would; `K:M:hang` makes it
/// hang there instead (it reports nothing more until it is asked to stop), as a kernel that
/// never finishes would.
pub const FAULT_VARIABLE: &str = "WARPSEARCH_FAULT";

/// A device fault to inject ([`FAULT_VARIABLE`]): worker `worker` fails (or hangs) when it
/// reports its chunk number `after + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Injected {
    /// The worker (0-based, in [`Workers::names`]' order).
    pub worker: usize,
    /// Chunks it reports before it fails.
    pub after: u32,
    /// Hang instead of failing: the report waits until the worker is asked to stop.
    pub hang: bool,
}

impl Injected {
    /// The fault [`FAULT_VARIABLE`] asks for, if it is set and reads `K:M` or `K:M:hang`.
    pub fn from_env() -> Option<Injected> {
        Injected::parse(&std::env::var(FAULT_VARIABLE).ok()?)
    }

    /// `K:M` (fail) or `K:M:hang`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Injected> {
        let mut parts = text.split(':').map(str::trim);
        let worker = parts.next()?.parse().ok()?;
        let after = parts.next()?.parse().ok()?;
        let hang = match parts.next() {
            None => false,
            Some("hang") => true,
            Some(_) => return None,
        };
        Some(Injected {
            worker,
            after,
            hang,
        })
    }
}

/// `error` without the [`Error::OnDevice`] layers that name `device` again (the caller names it).
pub(crate) fn without_device(error: Error, device: &str) -> Error {
    match error {
        Error::OnDevice {
            device: named,
            source,
        } if named == device => without_device(*source, device),
        error => error,
    }
}
