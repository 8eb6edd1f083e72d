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

use crate::control::RunControl;
use crate::device::gpu::{GpuDevice, step};
use crate::error::{Error, GpuError, Result};
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

/// With `WARPSEARCH_TRACE` set, the time each phase of a run took, on stderr: where a short
/// run's time goes (the work list, the copies, the kernel, the results).
pub(crate) struct Trace(Option<std::time::Instant>);

impl Trace {
    pub(crate) fn start() -> Trace {
        Trace(std::env::var_os("WARPSEARCH_TRACE").map(|_| std::time::Instant::now()))
    }

    /// Whether the run is traced.
    pub(crate) fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// Prints the time since the last mark as `what`'s.
    pub(crate) fn mark(&mut self, what: &str) {
        if let Some(last) = &mut self.0 {
            eprintln!(
                "trace: {what}: {:.3} ms",
                last.elapsed().as_secs_f64() * 1e3
            );
            *last = std::time::Instant::now();
        }
    }
}

/// The host's time in a fed launch by what it did, printed when the run is traced: where a
/// short run's time goes besides the kernel.
#[derive(Default)]
struct Spent {
    making: std::cell::Cell<std::time::Duration>,
    writing: std::cell::Cell<std::time::Duration>,
    looking: std::cell::Cell<std::time::Duration>,
    finishing: std::cell::Cell<std::time::Duration>,
}

impl Spent {
    /// Runs `work`, adding its time to `on`.
    fn on<T>(on: &std::cell::Cell<std::time::Duration>, work: impl FnOnce() -> T) -> T {
        let started = std::time::Instant::now();
        let result = work();
        on.set(on.get() + started.elapsed());
        result
    }

    fn print(&self) {
        let ms = |cell: &std::cell::Cell<std::time::Duration>| cell.get().as_secs_f64() * 1e3;
        eprintln!(
            "trace: host, in all: making items {:.3} ms, writing them {:.3} ms, reading counters {:.3} ms, finished chunks' results {:.3} ms",
            ms(&self.making),
            ms(&self.writing),
            ms(&self.looking),
            ms(&self.finishing)
        );
    }
}

/// A chunk whose last item is done.
#[derive(Debug)]
pub struct Finished {
    pub chunk: u32,
    /// Its items' numbers in the launch (item `i` lies at position `i mod capacity` of the
    /// launch's buffers: [`ring_pieces`]).
    pub items: Range<usize>,
    /// Its counts (the kernel's sums over its items).
    pub counts: Vec<u64>,
    /// Its items' words, for items made when the chunk was handed out
    /// ([`FedLaunch::made`]); empty for items of a list.
    pub made: Vec<u64>,
}

/// The pieces of the launch's items `items` that lie one after another in its buffers of
/// `capacity` positions: `(items, position of the first)`, two when the range goes round the
/// end (a range of at most `capacity` items).
pub fn ring_pieces(items: Range<usize>, capacity: usize) -> Vec<(Range<usize>, usize)> {
    let mut pieces = Vec::with_capacity(2);
    let mut start = items.start;
    while start < items.end {
        let position = start % capacity;
        let end = items.end.min(start + capacity - position);
        pieces.push((start..end, position));
        start = end;
    }
    pieces
}

/// What one GPU was given, in order.
#[derive(Default)]
struct Given {
    chunks: Vec<(u32, Range<usize>)>,
    reported: Vec<bool>,
    /// Each chunk's made items, kept until it is reported.
    made: Vec<Vec<u64>>,
    supplied: usize,
    /// The source has no chunk left (the feed closes once every staged chunk is written).
    drained: bool,
    /// Chunks taken from the source so far, and their items.
    taken_chunks: usize,
    taken_items: usize,
    closed: bool,
}

impl Given {
    /// The first item not yet reported done: positions from it on may still be in use.
    fn oldest_in_use(&self) -> usize {
        self.chunks
            .iter()
            .zip(&self.reported)
            .filter(|&(_, &reported)| !reported)
            .map(|((_, items), _)| items.start)
            .min()
            .unwrap_or(self.supplied)
    }
}

/// A chunk taken from the source whose items are not written yet (they wait for room in
/// the launch's ring).
struct Staged {
    chunk: u32,
    count: usize,
    made: Vec<u64>,
}

/// Makes the items of some chunks: each chunk's items' words, in the order of the chunks.
pub type MakeItems<'a> = dyn Fn(&[u32]) -> Result<Vec<Vec<u64>>> + 'a;

/// Where a fed launch's items come from.
enum Items<'a> {
    /// A list's positions: a chunk's items are its range of the partition, written by
    /// `write(range, at)`.
    Listed(&'a dyn Fn(Range<usize>, usize) -> Result<()>),
    /// Made when their chunk is handed out: `make(chunks)` returns each one's items' words,
    /// `item_words` an item, which `write(words, at)` writes.
    Made {
        item_words: usize,
        make: &'a MakeItems<'a>,
        write: &'a dyn Fn(&[u64], usize) -> Result<()>,
    },
}

/// What a fed launch does at each point of [`run_fed`], for the search that drives it.
pub struct FedLaunch<'a> {
    items: Items<'a>,
    launch: &'a dyn Fn() -> Result<()>,
    finished: &'a mut dyn FnMut(&[Finished]) -> Result<()>,
    look: Option<&'a mut dyn FnMut() -> Result<()>>,
    also_stop: Option<&'a dyn Fn() -> Result<()>>,
}

impl<'a> FedLaunch<'a> {
    /// `write(range, at)` writes the items of work-list positions `range` as the launch's
    /// items `at..` (at positions `at mod capacity..` of its buffers, never past their end;
    /// `range` may span several chunks that follow each other in the work list); `launch()`
    /// starts the kernel on the device's stream with the [`FedBuffers`]; `finished(chunks)`
    /// gets each chunk once, as soon as its last item is done (a chunk with no items at once),
    /// several at a time when several finished since the last look.
    pub fn new(
        write: &'a dyn Fn(Range<usize>, usize) -> Result<()>,
        launch: &'a dyn Fn() -> Result<()>,
        finished: &'a mut dyn FnMut(&[Finished]) -> Result<()>,
    ) -> FedLaunch<'a> {
        FedLaunch {
            items: Items::Listed(write),
            launch,
            finished,
            look: None,
            also_stop: None,
        }
    }

    /// A launch whose items are made when their chunk is handed out (a streamed work list):
    /// `make(chunks)` returns the items of each of `chunks` (several at once, so that they
    /// can be made on every core), `item_words` words each, and
    /// `write(words, at)` writes some of them as the launch's items `at..` (at positions
    /// `at mod capacity..`, never past the buffers' end). A run may make more items than the
    /// launch holds: a position is written again once the chunk of the item there before is
    /// reported finished. `finished` gets each chunk's made items back
    /// ([`Finished::made`]).
    pub fn made(
        item_words: usize,
        make: &'a MakeItems<'a>,
        write: &'a dyn Fn(&[u64], usize) -> Result<()>,
        launch: &'a dyn Fn() -> Result<()>,
        finished: &'a mut dyn FnMut(&[Finished]) -> Result<()>,
    ) -> FedLaunch<'a> {
        FedLaunch {
            items: Items::Made {
                item_words: item_words.max(1),
                make,
                write,
            },
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

/// Chunks the feed takes from the source at once before it knows how many items a chunk
/// has, and at most once it does.
const FIRST_TAKE: usize = 4;
/// See [`FIRST_TAKE`].
const MOST_TAKEN: usize = 64;

/// Items a launch may be supplied in all: the kernel's queue counter is a `u32` that each
/// lane raises once more when it finds the queue closed, so the supplied count stays this
/// far below `u32::MAX` (more than the lanes of any GPU).
const ITEMS_PER_LAUNCH: usize = u32::MAX as usize - (1 << 22);

/// Runs one fed launch on `device` until `source` has no chunk left and every chunk given to
/// this GPU is done (or the run is stopped: then [`Error::Interrupted`], after the chunks
/// finished so far were reported). `launch` says how to write items, start the kernel and
/// take finished chunks; `pace` how far ahead of the kernel the host keeps.
///
/// The launch's buffers hold `capacity` items (the length of `buffers.item_slots`), used as a
/// ring: item `i` lies at position `i mod capacity`, and the host writes a position again only
/// after the chunk of the item there before was reported. A list that fits (`capacity` at
/// least its length) never goes round.
///
/// This is the lower level of [`crate::search`] that every GPU run goes through: the
/// engine's own searches ([`crate::run::search::run`]) and the built-in N-Queens count and
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
        items,
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
    let mut staged: std::collections::VecDeque<Staged> = std::collections::VecDeque::new();
    let spent = Spent::default();
    // Writes the staged chunks that fit the ring's free positions, in order, then raises the
    // supplied count (and closes the feed once the source is drained and nothing waits).
    // Chunks that follow each other in the work list are written with one copy of their
    // items, one of their item slots and one of their counters (fresh chunks' counters are
    // all zero, and no kernel touches them before their items are supplied); chunks without
    // items are finished at once.
    let flush = |given: &mut Given,
                 staged: &mut std::collections::VecDeque<Staged>,
                 finished: &mut dyn FnMut(&[Finished]) -> Result<()>|
     -> Result<()> {
        let mut room = capacity - (given.supplied - given.oldest_in_use());
        let mut batch: Vec<Staged> = Vec::new();
        while let Some(front) = staged.front() {
            if front.count > capacity {
                return Err(Error::Verification(format!(
                    "chunk {} has {} items, more than the fed launch's {capacity}",
                    front.chunk, front.count
                )));
            }
            if front.count > room {
                break;
            }
            room -= front.count;
            batch.extend(staged.pop_front());
        }
        let start = given.supplied;
        let total: usize = batch.iter().map(|staged| staged.count).sum();
        if start + total > ITEMS_PER_LAUNCH {
            return Err(GpuError::Unsupported(format!(
                "more than {ITEMS_PER_LAUNCH} items in one launch (its queue counter is 32 bits)"
            ))
            .into());
        }
        let mut slots = Vec::with_capacity(total);
        let mut at = start;
        let mut empty = Vec::new();
        let mut run_start = 0;
        for i in 0..batch.len() {
            let chunk = batch[i].chunk;
            let count = batch[i].count;
            slots.extend(std::iter::repeat_n(chunk, count));
            given.chunks.push((chunk, at..at + count));
            given.reported.push(count == 0);
            if count == 0 {
                empty.push(Finished {
                    chunk,
                    items: at..at,
                    counts: vec![0; buffers.counts],
                    made: Vec::new(),
                });
            }
            at += count;
            let run_ends = batch.get(i + 1).map(|next| next.chunk) != Some(chunk + 1);
            if !run_ends {
                continue;
            }
            let run = &batch[run_start..=i];
            let run_items = run.iter().map(|staged| staged.count).sum::<usize>();
            let first_item = at - run_items;
            match &items {
                Items::Listed(write) => {
                    let listed = partition.chunk_range(run[0].chunk).start;
                    for (piece, _) in ring_pieces(first_item..at, capacity) {
                        let offset = piece.start - first_item;
                        write(listed + offset..listed + offset + piece.len(), piece.start)?;
                    }
                }
                Items::Made {
                    item_words, write, ..
                } => {
                    let words: Vec<u64> = run.iter().flat_map(|s| s.made.iter().copied()).collect();
                    for (piece, _) in ring_pieces(first_item..at, capacity) {
                        let offset = (piece.start - first_item) * item_words;
                        write(
                            &words[offset..offset + piece.len() * item_words],
                            piece.start,
                        )?;
                    }
                }
            }
            let (first, last) = (run[0].chunk, chunk);
            let mut counters = vec![0u64; words * (last - first + 1) as usize];
            for (c, staged) in run.iter().enumerate() {
                counters[words * c + buffers.counts] = staged.count as u64;
            }
            device.poke(&buffers.slot_counters, words * first as usize, &counters)?;
            run_start = i + 1;
        }
        for (piece, position) in ring_pieces(start..at, capacity) {
            let offset = piece.start - start;
            device.poke(
                &buffers.item_slots,
                position,
                &slots[offset..offset + piece.len()],
            )?;
        }
        given
            .made
            .extend(batch.into_iter().map(|staged| staged.made));
        given.supplied = at;
        // The items written so far first, then the close: a lane that sees the feed closed
        // must see the final count.
        if at > start {
            device.poke(&buffers.feed, 0, &[given.supplied as u32])?;
        }
        if given.drained && staged.is_empty() && !given.closed {
            device.poke(&buffers.feed, 1, &[1])?;
            given.closed = true;
        }
        if !empty.is_empty() {
            finished(&empty)?;
        }
        Ok(())
    };
    // Takes chunks from the source until at least `want` more items wait to be written (or it
    // has none left), then writes what fits.
    let supply = |want: usize,
                  given: &mut Given,
                  staged: &mut std::collections::VecDeque<Staged>,
                  finished: &mut dyn FnMut(&[Finished]) -> Result<()>|
     -> Result<()> {
        let mut waiting: usize = staged.iter().map(|staged| staged.count).sum();
        while waiting < want && !given.drained {
            // As many chunks as the items wanted take at the average so far (a few to begin
            // with, while the average of made items is unknown).
            let per_chunk = given.taken_items / given.taken_chunks.max(1);
            let count = match per_chunk {
                0 => FIRST_TAKE,
                per_chunk => (want - waiting).div_ceil(per_chunk).clamp(1, MOST_TAKEN),
            };
            let chunks = source.take(count)?;
            if chunks.is_empty() {
                given.drained = true;
                break;
            }
            let made = match &items {
                Items::Listed(_) => vec![Vec::new(); chunks.len()],
                Items::Made { make, .. } => Spent::on(&spent.making, || make(&chunks))?,
            };
            if made.len() != chunks.len() {
                return Err(Error::Verification(format!(
                    "{} chunks made for {} taken",
                    made.len(),
                    chunks.len()
                )));
            }
            for (chunk, made) in chunks.into_iter().zip(made) {
                let count = match &items {
                    Items::Listed(_) => partition.chunk_range(chunk).len(),
                    Items::Made { item_words, .. } => {
                        if !made.len().is_multiple_of(*item_words) {
                            return Err(Error::InvalidArgument(format!(
                                "chunk {chunk} was made into {} words, not whole {item_words}-word items",
                                made.len()
                            )));
                        }
                        made.len() / item_words
                    }
                };
                waiting += count;
                given.taken_items += count;
                given.taken_chunks += 1;
                staged.push_back(Staged { chunk, count, made });
            }
        }
        Spent::on(&spent.writing, || flush(given, staged, finished))
    };
    // Reports the chunks whose last item is done since the last look.
    let mut counters = vec![0u64; buffers.slot_counters.len()];
    let mut look =
        |given: &mut Given, finished: &mut dyn FnMut(&[Finished]) -> Result<()>| -> Result<()> {
            Spent::on(&spent.looking, || {
                device.peek(&buffers.slot_counters, &mut counters)
            })?;
            let mut done = Vec::new();
            for (((chunk, items), reported), made) in given
                .chunks
                .iter()
                .zip(given.reported.iter_mut())
                .zip(given.made.iter_mut())
            {
                let base = words * *chunk as usize;
                if !*reported && counters[base + buffers.counts] == 0 {
                    *reported = true;
                    done.push(Finished {
                        chunk: *chunk,
                        items: items.clone(),
                        counts: counters[base..base + buffers.counts].to_vec(),
                        made: std::mem::take(made),
                    });
                }
            }
            if done.is_empty() {
                Ok(())
            } else {
                Spent::on(&spent.finishing, || finished(&done))
            }
        };

    let mut trace = Trace::start();
    supply(pace.first, &mut given, &mut staged, finished)?;
    trace.mark("the first supply");
    launch()?;
    trace.mark("the launch call");
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
                let want = if ahead < low {
                    low - ahead + pace.top_up
                } else {
                    0
                };
                // Also writes chunks that waited for room in the ring.
                supply(want, &mut given, &mut staged, finished)?;
                if given.closed {
                    trace.mark("the rest of the supply");
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
    trace.mark("the kernel after the feed closed");
    if trace.is_on() {
        spent.print();
    }
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
    fn ring_pieces_split_a_range_where_it_goes_round() {
        assert_eq!(ring_pieces(0..0, 8), vec![]);
        assert_eq!(ring_pieces(2..6, 8), vec![(2..6, 2)]);
        assert_eq!(ring_pieces(6..11, 8), vec![(6..8, 6), (8..11, 0)]);
        assert_eq!(ring_pieces(16..24, 8), vec![(16..24, 0)]);
        assert_eq!(ring_pieces(21..29, 8), vec![(21..24, 5), (24..29, 0)]);
    }

    #[test]
    fn the_ring_is_in_use_from_the_first_unreported_item() {
        let mut given = Given {
            chunks: vec![(4, 0..10), (5, 10..25), (6, 25..30)],
            reported: vec![true, false, false],
            supplied: 30,
            ..Given::default()
        };
        assert_eq!(given.oldest_in_use(), 10);
        // Chunks finish out of order: a later one done does not free the earlier's positions.
        given.reported[2] = true;
        assert_eq!(given.oldest_in_use(), 10);
        given.reported[1] = true;
        assert_eq!(given.oldest_in_use(), 30);
    }

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
