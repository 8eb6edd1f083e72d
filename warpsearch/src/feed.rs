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
pub struct FedBuffers {
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
///
/// What is supplied ahead can only run on this GPU, so when several GPUs share a run, the
/// less is ahead when the chunks run out, the closer together they finish. But items are
/// claimed at very different rates (no-three-in-line: a few hundred a second per GPU at
/// n = 15, over a hundred thousand at n = 13), so `low` is raised to what the kernel claims
/// in `cover` at its measured rate (the items claimed beyond the first supply, over the
/// time since the launch).
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    pub first: usize,
    pub low: usize,
    pub top_up: usize,
    pub cover: std::time::Duration,
}

impl Pace {
    /// Items to keep ahead once `claimed` items were claimed in `elapsed` since the launch.
    fn low_after(&self, claimed: usize, elapsed: std::time::Duration) -> usize {
        let rate = claimed.saturating_sub(self.first) as f64 / elapsed.as_secs_f64().max(1e-3);
        self.low.max((rate * self.cover.as_secs_f64()) as usize)
    }
}

/// A chunk whose last item is done.
#[derive(Debug)]
pub struct Finished {
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

/// What a fed launch does at each point of [`run_fed`], for the search that drives it.
pub struct FedLaunch<'a> {
    write: &'a dyn Fn(Range<usize>, usize) -> Result<()>,
    launch: &'a dyn Fn() -> Result<()>,
    finished: &'a mut dyn FnMut(&[Finished]) -> Result<()>,
    look: Option<&'a mut dyn FnMut() -> Result<()>>,
    also_stop: Option<&'a dyn Fn() -> Result<()>>,
}

impl<'a> FedLaunch<'a> {
    /// `write(range, at)` writes the items of work-list positions `range` at item `at` of the
    /// launch's item list (through [`GpuDevice::poke`]; `range` may span several chunks that
    /// follow each other in the work list); `launch()` starts the kernel on the device's
    /// stream with the [`FedBuffers`]; `finished(chunks)` gets each chunk once, as soon as its
    /// last item is done (a chunk with no items at once), several at a time when several
    /// finished since the last look.
    pub fn new(
        write: &'a dyn Fn(Range<usize>, usize) -> Result<()>,
        launch: &'a dyn Fn() -> Result<()>,
        finished: &'a mut dyn FnMut(&[Finished]) -> Result<()>,
    ) -> FedLaunch<'a> {
        FedLaunch {
            write,
            launch,
            finished,
            look: None,
            also_stop: None,
        }
    }

    /// Also runs `look()` at every look while the kernel runs (every millisecond in a run's
    /// first half second, every 5 ms after) and once after it: for what must be kept in step
    /// with a running kernel, such as a shared bound.
    pub fn with_look(self, look: &'a mut dyn FnMut() -> Result<()>) -> FedLaunch<'a> {
        FedLaunch {
            look: Some(look),
            ..self
        }
    }

    /// Also runs `also_stop()` when the run is stopped, after the launch's stop word is set:
    /// for a kernel that looks for a stop elsewhere too.
    pub fn with_also_stop(self, also_stop: &'a dyn Fn() -> Result<()>) -> FedLaunch<'a> {
        FedLaunch {
            also_stop: Some(also_stop),
            ..self
        }
    }
}

/// Runs one fed launch on `device` until `source` has no chunk left and every chunk given to
/// this GPU is done (or the run is stopped: then [`Error::Interrupted`], after the chunks
/// finished so far were reported). `launch` says how to write items, start the kernel and
/// take finished chunks; `pace` how far ahead of the kernel the host keeps.
///
/// This is the lower level of [`crate::engine`] that every GPU run goes through: the
/// engine's own searches ([`crate::engine::run`]) and the built-in N-Queens count and
/// no-three-in-line, whose kernels have calling conventions of their own.
pub fn run_fed(
    device: &GpuDevice,
    partition: &Partition,
    source: &ChunkSource,
    buffers: &FedBuffers,
    pace: Pace,
    control: &RunControl,
    launch: FedLaunch,
) -> Result<()> {
    let FedLaunch {
        write,
        launch,
        finished,
        look: mut also_look,
        also_stop,
    } = launch;
    let mut also_look = || also_look.as_mut().map_or(Ok(()), |look| look());
    let also_stop = || also_stop.map_or(Ok(()), |stop| stop());
    let words = buffers.counts + 1;
    let capacity = buffers.item_slots.len();
    let mut given = Given::default();
    // Supplies chunks until at least `want` more items are written or none is left (then
    // closes the feed); chunks without items are finished at once. Chunks that follow each
    // other in the work list are written with one copy of their items, one of their item
    // slots and one of their counters (fresh chunks' counters are all zero, and no kernel
    // touches them before their items are supplied).
    let supply = |want: usize,
                  given: &mut Given,
                  finished: &mut dyn FnMut(&[Finished]) -> Result<()>|
     -> Result<()> {
        let start = given.supplied;
        let mut taken: Vec<u32> = Vec::new();
        let mut closing = false;
        let mut count = 0;
        while count < want {
            let Some(&chunk) = source.take(1)?.first() else {
                closing = true;
                break;
            };
            count += partition.chunk_range(chunk).len();
            taken.push(chunk);
        }
        if start + count > capacity {
            return Err(Error::Verification(format!(
                "{count} more items do not fit the fed launch's {capacity}"
            )));
        }
        let mut slots = Vec::with_capacity(count);
        let mut at = start;
        let mut run_start = 0;
        for i in 0..taken.len() {
            let chunk = taken[i];
            let range = partition.chunk_range(chunk);
            slots.extend(std::iter::repeat_n(chunk, range.len()));
            given.chunks.push((chunk, at..at + range.len()));
            given.reported.push(range.is_empty());
            at += range.len();
            let run_ends = taken.get(i + 1) != Some(&(chunk + 1));
            if run_ends {
                let (first, last) = (taken[run_start], chunk);
                let items = partition.chunk_range(first).start..range.end;
                let written = at - items.len();
                if !items.is_empty() {
                    write(items, written)?;
                }
                let mut counters = vec![0u64; words * (last - first + 1) as usize];
                for c in first..=last {
                    counters[words * (c - first) as usize + buffers.counts] =
                        partition.chunk_range(c).len() as u64;
                }
                device.poke(&buffers.slot_counters, words * first as usize, &counters)?;
                run_start = i + 1;
            }
        }
        device.poke(&buffers.item_slots, start, &slots)?;
        given.supplied = at;
        let empty: Vec<Finished> = taken
            .iter()
            .filter(|&&chunk| partition.chunk_range(chunk).is_empty())
            .map(|&chunk| Finished {
                chunk,
                items: at..at,
                counts: vec![0; buffers.counts],
            })
            .collect();
        // The items written so far first, then the close: a lane that sees the feed closed
        // must see the final count.
        device.poke(&buffers.feed, 0, &[given.supplied as u32])?;
        if closing {
            device.poke(&buffers.feed, 1, &[1])?;
            given.closed = true;
        }
        if !empty.is_empty() {
            finished(&empty)?;
        }
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
    let launched = std::time::Instant::now();
    let stream = device.stream();
    let ended = step("recording an event", stream.record_event(None))?;
    let mut stopping = false;
    let mut claimed = [0u32];
    let mut last_look = launched;
    let outcome = (|| -> Result<()> {
        while !step("waiting for the GPU", ended.try_is_complete())? {
            // A short run must not wait for a sleep: in the first half second spin, and look
            // every millisecond; then look every 5 ms.
            let early = launched.elapsed() < std::time::Duration::from_millis(500);
            if early {
                std::thread::yield_now();
                if last_look.elapsed() < std::time::Duration::from_millis(1) {
                    continue;
                }
            } else {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            last_look = std::time::Instant::now();
            if control.cancelled() && !stopping {
                stopping = true;
                device.poke(&buffers.control, 1, &[1])?;
                also_stop()?;
            }
            if !given.closed && !stopping {
                device.peek(&buffers.control, &mut claimed)?;
                let claimed = claimed[0] as usize;
                let ahead = given.supplied.saturating_sub(claimed);
                let low = pace.low_after(claimed, launched.elapsed());
                if ahead < low {
                    supply(low - ahead + pace.top_up, &mut given, finished)?;
                }
            }
            look(&mut given, finished)?;
            also_look()?;
        }
        Ok(())
    })();
    if outcome.is_err() && !stopping {
        // Stop the kernel before leaving: its buffers are freed on return.
        let _ = device.poke(&buffers.control, 1, &[1]);
    }
    step("waiting for the GPU", stream.synchronize())?;
    outcome?;
    also_look()?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_pace_keeps_low_until_the_claim_rate_asks_for_more() {
        let pace = Pace {
            first: 1000,
            low: 250,
            top_up: 1,
            cover: Duration::from_millis(100),
        };
        // The first supply's claims do not count: every warp takes one at the launch.
        assert_eq!(pace.low_after(1000, Duration::from_millis(5)), 250);
        // 1,000 claims a second beyond the first supply: 100 in 0.1 s, below `low`.
        assert_eq!(pace.low_after(2000, Duration::from_secs(1)), 250);
        // 100,000 a second: 10,000 in 0.1 s.
        assert_eq!(pace.low_after(101_000, Duration::from_secs(1)), 10_000);
        let fixed = Pace {
            cover: Duration::ZERO,
            ..pace
        };
        assert_eq!(fixed.low_after(101_000, Duration::from_secs(1)), 250);
    }
}
