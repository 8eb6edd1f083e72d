//! [`run_chunks`]: the loop every search's run goes through, its ledger of chunks done, and
//! the checkpoints it writes.

use super::*;

/// Where one worker of [`run_chunks`] gets its chunks.
pub struct ChunkSource<'a> {
    take: &'a (dyn Fn(Option<usize>) -> Result<Vec<u32>> + Sync),
}

impl ChunkSource<'_> {
    /// The next batch by the run's policy (see [`Workers`]); empty once none is left or the
    /// run is stopping.
    pub fn batch(&self) -> Result<Vec<u32>> {
        (self.take)(None)
    }

    /// Up to `count` chunks; empty once none is left or the run is stopping.
    pub fn take(&self, count: usize) -> Result<Vec<u32>> {
        (self.take)(Some(count))
    }
}

/// Where the chunks of a run stand: shared by its workers.
pub(crate) struct Ledger<P> {
    /// Chunks finished (earlier runs' too), each with its counts.
    done: std::collections::BTreeMap<u32, ChunkCount<P>>,
    last_save: Instant,
    /// The next chunk of the to-do list to hand out.
    next: usize,
    /// Which worker each chunk was handed to.
    owner: Vec<Option<usize>>,
    shares: Vec<DeviceShare>,
    failure: Option<Error>,
    /// A checkpoint save has failed (the warning is printed once; later saves are tried).
    save_failed: bool,
    /// Chunks of failed workers, handed out again before the rest of the list.
    requeued: Vec<u32>,
    /// Workers that failed and are out of the run.
    dropped: Vec<bool>,
    faults: Vec<Fault>,
    /// Chunks each worker has reported in this run (for [`Injected`] faults).
    reported: Vec<u32>,
    /// When each worker last took or reported a chunk (its silence starts there).
    last_heard: Vec<Instant>,
    /// Workers reported as possibly hung, and those dropped as hung (with their silence).
    warned: Vec<bool>,
    hung: Vec<Option<Duration>>,
}

impl<P: Partial> Ledger<P> {
    /// The finished chunks in chunk order.
    fn chunks(&self) -> Vec<ChunkCount<P>> {
        self.done.values().cloned().collect()
    }
}

/// Runs the chunks of `selection` that `checkpoint` does not list as done and returns the
/// counts, the seconds over every run, each chunk's counts, and what each worker did.
///
/// Each worker (a thread per name in `workers`) calls `run_worker(worker, source, control,
/// report)` once; it takes chunks from `source` (in batches by the run's policy, or as many as
/// it wants at a time: a GPU fed while its kernel runs) until none is left, runs them, and
/// calls `report(chunk, counts)` as each one is finished. Progress is saved to the checkpoint at most every
/// `every` seconds as chunks are reported, after the last one, and when the run fails or is
/// stopped (Ctrl-C): chunks not reported by then are run again by the next run, so none is
/// lost or counted twice. When one worker fails, the others are stopped through `control`
/// and the first failure is returned. A checkpoint is kept only for a shard's run.
pub fn run_chunks<P: Partial + Send>(
    partition: &Partition,
    selection: impl Into<Selection>,
    checkpoint: Option<&CheckpointFile>,
    control: &RunControl,
    workers: &Workers,
    run_worker: impl Fn(usize, &ChunkSource, &RunControl, &dyn Fn(u32, P) -> Result<()>) -> Result<()>
    + Sync,
) -> Result<ChunkRun<P>> {
    let started = Instant::now();
    let selection = selection.into();
    let shard = match (&selection, checkpoint) {
        (Selection::Shard(shard), _) => *shard,
        (Selection::Chunks(_), None) => Shard::WHOLE,
        (Selection::Chunks(_), Some(_)) => {
            return Err(Error::InvalidArgument(
                "a checkpoint is kept for a shard's run, not for a list of chunks".into(),
            ));
        }
    };
    let mut done = std::collections::BTreeMap::new();
    let mut earlier = 0.0;
    if let Some(file) = checkpoint
        && file.path.exists()
    {
        let saved: ChunkFile<P> = ChunkFile::read(&file.path, false)?;
        let what = format!("the checkpoint {}", file.path.display());
        partition.check_same(&saved.partition, &what)?;
        if saved.shard != shard {
            return Err(Error::InvalidArgument(format!(
                "{what} is for shard {}; this run is shard {shard}",
                saved.shard
            )));
        }
        earlier = saved.seconds;
        done = saved.chunks.into_iter().map(|c| (c.index, c)).collect();
    }
    let mine = selection.chunks(partition.chunks);
    let todo: Vec<u32> = workers.order(
        mine.iter()
            .copied()
            .filter(|c| !done.contains_key(c))
            .collect(),
    );
    let total = mine.len() as u64;
    let label = match &selection {
        Selection::Shard(Shard::WHOLE) => format!("{} {}", partition.problem, partition.n),
        Selection::Shard(shard) => format!("{} {} shard {shard}", partition.problem, partition.n),
        Selection::Chunks(_) => format!("{} {}, {total} chunks", partition.problem, partition.n),
    };
    let progress = control.progress_bar(total, &label);
    progress.advance(total - todo.len() as u64);
    let save = |ledger: &Ledger<P>| -> Result<()> {
        if let Some(file) = checkpoint {
            let chunks = ledger.chunks();
            let counts = sum_of(&chunks);
            let state = Checkpoint {
                partition: partition.clone(),
                shard,
                digest: digest(partition, shard, &chunks, &counts)?,
                counts,
                chunks,
                seconds: earlier + started.elapsed().as_secs_f64(),
            };
            write_json_atomically(&file.path, &state)?;
        }
        Ok(())
    };
    let ledger = std::sync::Mutex::new(Ledger {
        done,
        last_save: Instant::now(),
        next: 0,
        owner: vec![None; partition.chunks as usize],
        shares: workers
            .names
            .iter()
            .map(|name| DeviceShare {
                device: name.clone(),
                ..DeviceShare::default()
            })
            .collect(),
        failure: None,
        save_failed: false,
        requeued: Vec::new(),
        dropped: vec![false; workers.names.len()],
        faults: Vec::new(),
        reported: vec![0; workers.names.len()],
        last_heard: vec![Instant::now(); workers.names.len()],
        warned: vec![false; workers.names.len()],
        hung: vec![None; workers.names.len()],
    });

    let injected = workers.fault;
    let lock = || {
        ledger
            .lock()
            .map_err(|_| Error::Verification("a worker thread panicked".into()))
    };
    let (stoppable, stop) = control.child();
    // Each worker's own stop (it also stops with the run), for dropping it alone when it hangs.
    let own_stops: Vec<(RunControl, std::sync::Arc<std::sync::atomic::AtomicBool>)> =
        workers.names.iter().map(|_| stoppable.child()).collect();
    let worker = |index: usize| -> Result<()> {
        let own = &own_stops[index].0;
        // Hands this worker chunks: `Some(k)` up to k, `None` a batch by the guided policy.
        let take = |count: Option<usize>| -> Result<Vec<u32>> {
            if own.cancelled() {
                return Ok(Vec::new());
            }
            let mut ledger = lock()?;
            if ledger.dropped[index] {
                return Ok(Vec::new());
            }
            // A failed worker's chunks first: they are the ones the run waits on.
            let requeued = ledger.requeued.len();
            let batch = if requeued > 0 {
                let take = match count {
                    Some(count) => count.min(requeued),
                    None => workers.next_batch(requeued),
                };
                ledger.requeued.drain(..take).collect()
            } else {
                let left = todo.len() - ledger.next;
                let take = match count {
                    Some(count) => count.min(left),
                    None => workers.next_batch(left),
                };
                let batch = todo[ledger.next..ledger.next + take].to_vec();
                ledger.next += take;
                batch
            };
            for &chunk in &batch {
                ledger.owner[chunk as usize] = Some(index);
            }
            if !batch.is_empty() {
                ledger.last_heard[index] = Instant::now();
            }
            Ok(batch)
        };
        let report = |chunk: u32, counts: P| -> Result<()> {
            let mut ledger = lock()?;
            if ledger.owner.get(chunk as usize) != Some(&Some(index))
                || ledger.done.contains_key(&chunk)
            {
                return Err(Error::Verification(format!(
                    "chunk {chunk} reported twice or by a worker it was not given to"
                )));
            }
            if let Some(fault) = injected.filter(|f| f.worker == index)
                && ledger.reported[index] >= fault.after
            {
                if fault.hang {
                    // A kernel that never finishes: nothing more is reported until the run
                    // asks this worker to stop.
                    drop(ledger);
                    while !own.cancelled() {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    return Err(Error::Interrupted);
                }
                return Err(Error::OnDevice {
                    device: workers.names[index].clone(),
                    source: Box::new(Error::Verification(format!(
                        "a fault injected by {FAULT_VARIABLE} after {} chunks",
                        fault.after
                    ))),
                });
            }
            ledger.reported[index] += 1;
            ledger.last_heard[index] = Instant::now();
            let share = &mut ledger.shares[index];
            share.chunks += 1;
            share.units += partition.chunk_range(chunk).len() as u64;
            share.nodes += counts.nodes();
            let device = share.device.clone();
            ledger.done.insert(
                chunk,
                ChunkCount {
                    index: chunk,
                    counts,
                    device,
                },
            );
            progress.advance(1);
            if checkpoint.is_some_and(|file| ledger.last_save.elapsed() >= file.every) {
                // A failed save (a full disk) must not stop a long count: warn once, go on,
                // and try again at the next interval.
                if let Err(error) = save(&ledger)
                    && !std::mem::replace(&mut ledger.save_failed, true)
                {
                    progress.note(&format!(
                        "warning: could not save the checkpoint ({error}); the count goes on, and the save is tried again every interval"
                    ));
                }
                ledger.last_save = Instant::now();
            }
            Ok(())
        };
        let busy = Instant::now();
        let outcome = run_worker(index, &ChunkSource { take: &take }, own, &report);
        let mut ledger = lock()?;
        ledger.shares[index].seconds += busy.elapsed().as_secs_f64();
        // A worker the watchdog took for hung failed, whatever it returned once stopped.
        let outcome = match (ledger.hung[index], workers.hang.limit) {
            (Some(silent), Some(limit)) => Err(Error::Hung {
                seconds: silent.as_secs_f64(),
                limit: limit.as_secs_f64(),
            }),
            _ => outcome,
        };
        let outcome = outcome.and_then(|()| {
            let mine = |c: &u32| ledger.owner[*c as usize] == Some(index);
            match todo
                .iter()
                .filter(|c| mine(c))
                .find(|c| !ledger.done.contains_key(c))
            {
                Some(missing) => Err(Error::Verification(format!(
                    "chunk {missing} finished without being reported"
                ))),
                None => Ok(()),
            }
        });
        let survivors = (0..workers.names.len())
            .filter(|&w| w != index && !ledger.dropped[w])
            .count();
        match outcome {
            Err(error)
                if !matches!(error, Error::Interrupted)
                    && survivors > 0
                    && !stoppable.cancelled() =>
            {
                // A failing device is dropped, not the run: its unfinished chunks go to the
                // others, and the run ends exact without it.
                ledger.dropped[index] = true;
                let unfinished: Vec<u32> = todo
                    .iter()
                    .copied()
                    .filter(|&c| {
                        ledger.owner[c as usize] == Some(index) && !ledger.done.contains_key(&c)
                    })
                    .collect();
                for &chunk in &unfinished {
                    ledger.owner[chunk as usize] = None;
                }
                ledger.requeued.extend(&unfinished);
                let device = workers.names[index].clone();
                let error = without_device(error, &device);
                progress.note(&format!(
                    "warning: {device} failed ({error}); it is dropped from the run, and its {} unfinished chunks go to the other devices",
                    unfinished.len()
                ));
                ledger.faults.push(Fault {
                    device,
                    error: error.to_string(),
                    recounted: unfinished,
                });
                return Ok(());
            }
            _ => {}
        }
        if let Err(mut error) = outcome {
            if !ledger.faults.is_empty() && !matches!(error, Error::Interrupted) {
                // The last device of the run failed too.
                let mut devices: Vec<String> = ledger
                    .faults
                    .iter()
                    .map(|f| format!("{}: {}", f.device, f.error))
                    .collect();
                devices.push(format!("{}: {error}", workers.names[index]));
                error = Error::DevicesFailed(devices.join("; "));
            }
            // The first real failure wins over the others' "interrupted".
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            let replace = match (&ledger.failure, &error) {
                (None, _) => true,
                (Some(Error::Interrupted), e) => !matches!(e, Error::Interrupted),
                _ => false,
            };
            if replace {
                ledger.failure = Some(error);
            }
        }
        Ok(())
    };
    let worker = &worker;
    // Rounds: a worker that fails after the others have emptied the list leaves its chunks
    // for another round of the workers still in the run.
    let mut joined: Vec<Result<()>> = Vec::new();
    loop {
        let alive: Vec<usize> = {
            let ledger = lock()?;
            (0..workers.names.len())
                .filter(|&w| !ledger.dropped[w])
                .collect()
        };
        joined.extend(std::thread::scope(|scope| {
            // Each worker says when it ends, so that a short run is over the moment its last
            // worker is, not at the watchdog's next tick.
            let (ended, endings) = std::sync::mpsc::channel::<()>();
            let handles: Vec<_> = alive
                .iter()
                .map(|&index| {
                    let ended = ended.clone();
                    scope.spawn(move || {
                        let result = worker(index);
                        let _ = ended.send(());
                        result
                    })
                })
                .collect();
            drop(ended);
            // The watchdog: while the workers run, look for silent ones.
            let tick = Duration::from_millis(50).min(workers.hang.warn_after / 4);
            let mut running = handles.len();
            while running > 0 {
                match endings.recv_timeout(tick) {
                    Ok(()) => {
                        running -= 1;
                        continue;
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    // Every sender is gone: every worker has ended (or panicked).
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                }
                if let Ok(mut ledger) = ledger.lock() {
                    look_for_hangs(
                        &mut ledger,
                        &alive,
                        &todo,
                        workers,
                        &own_stops,
                        &progress,
                        started,
                    );
                }
            }
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::Verification("a worker panicked".into())))
                })
                .collect::<Vec<_>>()
        }));
        let mut ledger = lock()?;
        let anyone_left = ledger.dropped.iter().any(|d| !d);
        if ledger.requeued.is_empty() || ledger.failure.is_some() || control.cancelled() {
            break;
        }
        if !anyone_left {
            let devices: Vec<String> = ledger
                .faults
                .iter()
                .map(|f| format!("{}: {}", f.device, f.error))
                .collect();
            ledger.failure = Some(Error::DevicesFailed(devices.join("; ")));
            break;
        }
    }
    progress.finish();
    let ledger = ledger
        .into_inner()
        .map_err(|_| Error::Verification("a worker thread panicked".into()))?;
    for fault in &ledger.faults {
        progress.note(&format!(
            "{} failed and was dropped ({}); chunks counted again on the other devices: {:?}",
            fault.device, fault.error, fault.recounted
        ));
    }
    if let Err(error) = save(&ledger) {
        // A finished count is still returned (and printed by the caller); a stopped one can
        // resume only from the last save that worked.
        progress.note(&format!(
            "warning: could not save the checkpoint at the end of the run ({error}); a resumed run starts from the last save that worked"
        ));
    }
    joined.into_iter().collect::<Result<()>>()?;
    if let Some(failure) = ledger.failure {
        return Err(failure);
    }
    let chunks: Vec<ChunkCount<P>> = mine
        .iter()
        .filter_map(|c| ledger.done.get(c).cloned())
        .collect();
    if control.cancelled() || chunks.len() < mine.len() {
        return Err(Error::Interrupted);
    }
    // The lanes of one GPU are one device in the report: work added up, the busier lane's
    // seconds (they ran side by side).
    let mut shares: Vec<DeviceShare> = Vec::new();
    for share in ledger.shares {
        match shares.iter_mut().find(|s| s.device == share.device) {
            Some(same) => {
                same.chunks += share.chunks;
                same.units += share.units;
                same.nodes += share.nodes;
                same.seconds = same.seconds.max(share.seconds);
            }
            None => shares.push(share),
        }
    }
    Ok(ChunkRun {
        counts: sum_of(&chunks),
        chunks,
        seconds: earlier + started.elapsed().as_secs_f64(),
        shares,
        faults: ledger.faults,
    })
}

/// The watchdog's look at the run: a worker of `alive` that holds unfinished chunks and has
/// been silent past the warning threshold is reported once; past the limit it is marked hung
/// and asked to stop (its own stop), and the run then drops it when it returns.
pub(crate) fn look_for_hangs<P>(
    ledger: &mut Ledger<P>,
    alive: &[usize],
    todo: &[u32],
    workers: &Workers,
    own_stops: &[(RunControl, std::sync::Arc<std::sync::atomic::AtomicBool>)],
    progress: &crate::control::Progress,
    started: Instant,
) {
    let policy = workers.hang;
    let reports: u32 = ledger.reported.iter().sum();
    let running = alive.iter().filter(|&&w| !ledger.dropped[w]).count().max(1);
    // The typical time between one worker's chunks, once some are in.
    let typical = (reports > 0).then(|| {
        started
            .elapsed()
            .mul_f64(running as f64 / f64::from(reports))
    });
    let warn_at = typical
        .map_or(policy.warn_after, |t| t.mul_f64(policy.warn_factor))
        .max(policy.warn_after);
    for &w in alive {
        if ledger.dropped[w] || ledger.hung[w].is_some() {
            continue;
        }
        let holds = todo
            .iter()
            .any(|&c| ledger.owner[c as usize] == Some(w) && !ledger.done.contains_key(&c));
        let silent = ledger.last_heard[w].elapsed();
        if !holds {
            continue;
        }
        let device = &workers.names[w];
        if silent > warn_at && !ledger.warned[w] {
            ledger.warned[w] = true;
            let typical = typical.map_or(String::new(), |t| {
                format!(" (typically {:.1} s between its chunks)", t.as_secs_f64())
            });
            let limit = policy.limit.map_or(
                format!("; set {HANG_LIMIT_VARIABLE}=SECONDS to drop a device that stays silent"),
                |l| format!("; it is dropped at {:.0} s", l.as_secs_f64()),
            );
            progress.note(&format!(
                "warning: {device} has finished no chunk for {:.0} s{typical}: it may be hung{limit}",
                silent.as_secs_f64()
            ));
        }
        if let Some(limit) = policy.limit
            && silent > limit
        {
            ledger.hung[w] = Some(silent);
            own_stops[w]
                .1
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}
