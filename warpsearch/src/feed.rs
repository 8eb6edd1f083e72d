//! One launch per GPU for a whole run, fed chunk by chunk while it runs.
//!
//! When several GPUs share a run's chunks ([`ChunkSource`]), a launch per batch of chunks ends
//! with a tail: lanes whose last item is long keep the GPU half idle, and a batch handed out
//! early cannot move to a GPU that finished first. Instead each GPU runs one launch for the
//! whole run. The host writes chunks' items into the launch's item list while it runs and
//! raises the supplied count (the kernel's side is `kernels::atomic::Feed`), keeping a little
//! ahead of what the kernel has claimed, so every GPU takes chunks as fast as it finishes them.
//! The kernel adds each finished item's counts to its chunk's counters and counts the item
//! done (`kernels::atomic::SlotCounters`); the host reports a chunk (for progress and
//! checkpoints) the moment its last item is done.

use crate::error::{Error, GpuError, Result};
use crate::gpu::{GpuDevice, step};
use crate::run::RunControl;
use crate::shard::{ChunkSource, Partition};
use cudarc::driver::CudaSlice;
use std::ops::Range;

/// The device words of a fed launch besides its items, all zeroed.
pub(crate) struct FedBuffers {
    /// `[supplied, closed]`: the kernel's `Feed`.
    pub feed: CudaSlice<u32>,
    /// `[next, cancel]`: the kernel's queue counter and stop word.
    pub control: CudaSlice<u32>,
    /// The chunk of each item (`capacity` words).
    pub item_slots: CudaSlice<u32>,
    /// `counts + 1` words per chunk of the partition: its counts, then its items left.
    pub slot_counters: CudaSlice<u64>,
    counts: usize,
}

impl FedBuffers {
    /// Buffers for up to `capacity` items in the chunks of `partition`, each chunk with
    /// `counts` counts.
    pub fn new(
        device: &GpuDevice,
        capacity: usize,
        partition: &Partition,
        counts: usize,
    ) -> Result<FedBuffers> {
        let stream = device.stream();
        let alloc = "allocating a fed launch's counters";
        let buffers = FedBuffers {
            feed: step(alloc, stream.alloc_zeros::<u32>(2))?,
            control: step(alloc, stream.alloc_zeros::<u32>(2))?,
            item_slots: step(alloc, stream.alloc_zeros::<u32>(capacity.max(1)))?,
            slot_counters: step(
                alloc,
                stream.alloc_zeros::<u64>((counts + 1) * partition.chunks as usize),
            )?,
            counts,
        };
        device.synchronize()?;
        Ok(buffers)
    }
}

/// How far ahead of the kernel the host keeps: items supplied before the launch, the number
/// of supplied-but-unclaimed items below which it supplies more, and how many it then adds
/// (each rounded up to whole chunks).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pace {
    pub first: usize,
    pub low: usize,
    pub top_up: usize,
}

/// A chunk whose last item is done.
#[derive(Debug)]
pub(crate) struct Finished {
    pub chunk: u32,
    /// Its items' positions in the launch's item list.
    pub items: Range<usize>,
    /// Its counts (the kernel's sums over its items).
    pub counts: Vec<u64>,
}

/// What one GPU was given, in order.
#[derive(Default)]
struct Given {
    chunks: Vec<(u32, Range<usize>)>,
    reported: Vec<bool>,
    supplied: usize,
    closed: bool,
}

/// Runs one fed launch on `device` until `source` has no chunk left and every chunk given to
/// this GPU is done (or the run is stopped: then [`Error::Interrupted`], after the chunks
/// finished so far were reported).
///
/// `write(range, at)` writes the items of work-list positions `range` at item `at` of the
/// launch's item list (through [`GpuDevice::poke`]); `launch()` starts the kernel on the
/// device's stream with `buffers`; `finished(chunks)` gets each chunk once, as soon as its
/// last item is done (a chunk with no items at once).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_fed(
    device: &GpuDevice,
    partition: &Partition,
    source: &ChunkSource,
    buffers: &FedBuffers,
    pace: Pace,
    write: &dyn Fn(Range<usize>, usize) -> Result<()>,
    launch: &dyn Fn() -> Result<()>,
    finished: &mut dyn FnMut(&[Finished]) -> Result<()>,
    control: &RunControl,
) -> Result<()> {
    let words = buffers.counts + 1;
    let capacity = buffers.item_slots.len();
    let mut given = Given::default();
    // Supplies chunks until at least `want` more items are written or none is left (then
    // closes the feed); chunks without items are finished at once.
    let supply = |want: usize,
                  given: &mut Given,
                  finished: &mut dyn FnMut(&[Finished]) -> Result<()>|
     -> Result<()> {
        let start = given.supplied;
        while given.supplied - start < want {
            let Some(&chunk) = source.take(1)?.first() else {
                // The items written so far first, then the close: a lane that sees the feed
                // closed must see the final count.
                device.poke(&buffers.feed, 0, &[given.supplied as u32])?;
                device.poke(&buffers.feed, 1, &[1])?;
                given.closed = true;
                return Ok(());
            };
            let range = partition.chunk_range(chunk);
            let at = given.supplied;
            if at + range.len() > capacity {
                return Err(Error::Verification(format!(
                    "chunk {chunk} does not fit the fed launch's {capacity} items"
                )));
            }
            write(range.clone(), at)?;
            device.poke(&buffers.item_slots, at, &vec![chunk; range.len()])?;
            let left = words * chunk as usize + buffers.counts;
            device.poke(&buffers.slot_counters, left, &[range.len() as u64])?;
            given.supplied += range.len();
            given.chunks.push((chunk, at..given.supplied));
            given.reported.push(range.is_empty());
            if range.is_empty() {
                finished(&[Finished {
                    chunk,
                    items: at..at,
                    counts: vec![0; buffers.counts],
                }])?;
            }
        }
        device.poke(&buffers.feed, 0, &[given.supplied as u32])?;
        Ok(())
    };
    // Reports the chunks whose last item is done since the last look.
    let mut counters = vec![0u64; buffers.slot_counters.len()];
    let mut look =
        |given: &mut Given, finished: &mut dyn FnMut(&[Finished]) -> Result<()>| -> Result<()> {
            device.peek(&buffers.slot_counters, &mut counters)?;
            let mut done = Vec::new();
            for ((chunk, items), reported) in given.chunks.iter().zip(given.reported.iter_mut()) {
                let base = words * *chunk as usize;
                if !*reported && counters[base + buffers.counts] == 0 {
                    *reported = true;
                    done.push(Finished {
                        chunk: *chunk,
                        items: items.clone(),
                        counts: counters[base..base + buffers.counts].to_vec(),
                    });
                }
            }
            if done.is_empty() {
                Ok(())
            } else {
                finished(&done)
            }
        };

    supply(pace.first, &mut given, finished)?;
    launch()?;
    let stream = device.stream();
    let ended = step("recording an event", stream.record_event(None))?;
    let mut stopping = false;
    let mut claimed = [0u32];
    let outcome = (|| -> Result<()> {
        while !step("waiting for the GPU", ended.try_is_complete())? {
            std::thread::sleep(std::time::Duration::from_millis(5));
            if control.cancelled() && !stopping {
                stopping = true;
                device.poke(&buffers.control, 1, &[1])?;
            }
            if !given.closed && !stopping {
                device.peek(&buffers.control, &mut claimed)?;
                let ahead = given.supplied.saturating_sub(claimed[0] as usize);
                if ahead < pace.low {
                    supply(pace.top_up, &mut given, finished)?;
                }
            }
            look(&mut given, finished)?;
        }
        Ok(())
    })();
    if outcome.is_err() && !stopping {
        // Stop the kernel before leaving: its buffers are freed on return.
        let _ = device.poke(&buffers.control, 1, &[1]);
    }
    step("waiting for the GPU", stream.synchronize())?;
    outcome?;
    // The chunks finished since the last look, also when the run was stopped.
    look(&mut given, finished)?;
    if stopping || control.cancelled() {
        return Err(Error::Interrupted);
    }
    if !given.closed {
        return Err(
            GpuError::Unsupported("a fed launch ended before its feed was closed".into()).into(),
        );
    }
    match given.reported.iter().position(|done| !done) {
        Some(slot) => Err(Error::Verification(format!(
            "chunk {} was not finished when the GPU's launch ended",
            given.chunks[slot].0
        ))),
        None => Ok(()),
    }
}
