//! Searching subtrees: on every CPU core, or one warp per subtree on a GPU.

use super::*;

/// Points placed below each prefix, and the complete boards found (GPU; the CPU streams them).
pub(crate) struct Searched {
    pub(crate) nodes: Vec<u64>,
    pub(crate) boards: Vec<Configuration>,
}

/// Searches every subtree on the CPU, one subtree per rayon task, calls `on_board` with every
/// complete board found (from several threads), and returns the nodes searched in each.
pub(crate) fn search_cpu(
    pool: &rayon::ThreadPool,
    n: u32,
    subtrees: &Subtrees,
    control: &RunControl,
    on_board: &(impl Fn(&[u32]) + Sync),
) -> Result<Vec<u64>> {
    let progress = control.progress_bar(subtrees.len() as u64, &format!("no3line {n} (CPU)"));
    let report = |rows: &[u32]| on_board(&rows[..n as usize]);
    let nodes: Vec<Result<u64>> = match subtrees {
        Subtrees::Prefixes(prefixes, pruning) => {
            let table = line_table(n);
            let lines = LineTable::new(n, &table);
            pool.install(|| {
                prefixes
                    .par_iter()
                    .map(|&prefix| {
                        if control.cancelled() {
                            return Err(Error::Interrupted);
                        }
                        let slab = [Lanes::splat(0u32); 2 * MAX_N as usize];
                        let mut search = DepthFirst::new(n, slab, &lines, *pruning);
                        let nodes = search.run(&prefix.board(n, &lines), prefix.rows(), |b| {
                            report(&b.points.to_array())
                        });
                        progress.advance(1);
                        Ok(nodes)
                    })
                    .collect()
            })
        }
        Subtrees::Boards(boards, techniques) => {
            let table = pair_table(n);
            let lines = PairLines::new(n, &table);
            let words = (WORDS_PER_BOARD * CPU_STACK_BOARDS) as usize;
            pool.install(|| {
                boards
                    .par_iter()
                    .map_init(
                        || vec![Lanes::splat(0u32); words],
                        |stack, start| {
                            if control.cancelled() {
                                return Err(Error::Interrupted);
                            }
                            let mut search = Propagating::new(
                                n,
                                *techniques,
                                &lines,
                                stack.as_mut_slice(),
                                CPU_STACK_BOARDS,
                            );
                            let nodes = search
                                .run(start, &StopOn(control), |b| report(&b.points.to_array()))
                                .map_err(|stopped| match stopped {
                                    Stopped::StackFull => stack_full(CPU_STACK_BOARDS),
                                    Stopped::Cancelled => Error::Interrupted,
                                })?;
                            progress.advance(1);
                            Ok(nodes)
                        },
                    )
                    .collect()
            })
        }
    };
    progress.finish();
    nodes.into_iter().collect()
}

/// A CPU thread's search shares nothing and stops when the run is cancelled (checked every
/// few nodes, so Ctrl-C does not wait for a long subtree to end).
struct StopOn<'c>(&'c RunControl);

impl Share for StopOn<'_> {
    fn wanted(&self) -> bool {
        false
    }
    fn give(&self, _: &Cells) -> bool {
        false
    }
    fn cancelled(&self) -> bool {
        self.0.cancelled()
    }
}

/// The GPU kernel that searches `subtrees`, with its dynamic shared memory per block.
pub(crate) fn kernel_for(subtrees: &Subtrees, n: u32) -> (&'static str, usize) {
    match subtrees {
        Subtrees::Prefixes(..) => (
            "warpsearch_no3line",
            4 * slab_words(n) as usize * GPU_BLOCK as usize,
        ),
        Subtrees::Boards(..) => ("warpsearch_no3line_propagate", 0),
    }
}

/// A subtree list on the GPU: prefixes (one word each) or start boards (two warp-wide words
/// each, settled: `starts[(2·i + k)·32 + lane]`).
enum Items {
    Prefixes(CudaSlice<u64>),
    Boards(CudaSlice<u32>),
}

impl Items {
    /// The device words of `subtrees[range]`, in the kernel's layout.
    fn words(subtrees: &Subtrees, range: std::ops::Range<usize>) -> (Vec<u64>, Vec<u32>) {
        match subtrees {
            Subtrees::Prefixes(prefixes, _) => {
                (prefixes[range].iter().map(|p| p.0).collect(), vec![])
            }
            Subtrees::Boards(starts, _) => (
                vec![],
                starts[range]
                    .iter()
                    .flat_map(|c| [c.points, c.empty])
                    .flat_map(|w| w.to_array())
                    .collect(),
            ),
        }
    }

    /// Every subtree, copied to the GPU.
    fn upload(device: &GpuDevice, subtrees: &Subtrees) -> Result<Items> {
        let stream = device.stream();
        let (prefixes, boards) = Items::words(subtrees, 0..subtrees.len());
        let what = "copying subtrees to the GPU";
        Ok(match subtrees {
            Subtrees::Prefixes(..) => Items::Prefixes(step(what, stream.clone_htod(&prefixes))?),
            Subtrees::Boards(..) => Items::Boards(step(what, stream.clone_htod(&boards))?),
        })
    }

    /// Room for `capacity` subtrees of `subtrees`' kind, written later by [`Items::write`].
    fn room(device: &GpuDevice, subtrees: &Subtrees, capacity: usize) -> Result<Items> {
        let stream = device.stream();
        let what = "allocating the subtree list";
        Ok(match subtrees {
            Subtrees::Prefixes(..) => Items::Prefixes(step(what, stream.alloc_zeros(capacity))?),
            Subtrees::Boards(..) => Items::Boards(step(
                what,
                stream.alloc_zeros((WORDS_PER_BOARD * 32) as usize * capacity),
            )?),
        })
    }

    /// Writes `subtrees[range]` at position `at`, while a kernel may be running.
    fn write(
        &self,
        device: &GpuDevice,
        subtrees: &Subtrees,
        range: std::ops::Range<usize>,
        at: usize,
    ) -> Result<()> {
        let (prefixes, boards) = Items::words(subtrees, range);
        match self {
            Items::Prefixes(words) => device.poke(words, at, &prefixes)?,
            Items::Boards(words) => {
                device.poke(words, at * (WORDS_PER_BOARD * 32) as usize, &boards)?
            }
        }
        Ok(())
    }
}

/// One launch's buffers besides its subtrees: line masks, per-subtree nodes, the boards found
/// (and with a feed, each board's tag), the stacks of the propagating search, overflow flags.
struct Launcher {
    function: CudaFunction,
    blocks: u32,
    shared: usize,
    n: u32,
    count: u32,
    capacity: u32,
    lines: CudaSlice<u32>,
    nodes: CudaSlice<u64>,
    found: CudaSlice<u32>,
    overflow: CudaSlice<u32>,
    boards: CudaSlice<u32>,
    tags: CudaSlice<u32>,
    stacks: Option<CudaSlice<u32>>,
    /// The propagating kernel's work-sharing region (zeroed; one launch per `Launcher`), unless
    /// `WARPSEARCH_NO3LINE_HANDOFF=off`.
    handoff: Option<CudaSlice<u32>>,
}

impl Launcher {
    /// Buffers for a launch over `count` subtrees of `subtrees`' kind.
    fn new(device: &GpuDevice, n: u32, subtrees: &Subtrees, count: usize) -> Result<Launcher> {
        let stream = device.stream();
        let (name, shared) = kernel_for(subtrees, n);
        let function = device.function(&crate::builtin::KERNELS, name)?;
        let blocks = device.resident_blocks(&function, GPU_BLOCK, shared)? * device.multiprocessors;
        let count =
            u32::try_from(count).map_err(|_| GpuError::Unsupported(format!("{count} subtrees")))?;
        // Room for every board when the count is known (twice over), else for 2²⁰ boards.
        let capacity: u32 = known(n).map_or(1 << 20, |k| (2 * k.total()).max(1024) as u32);
        let alloc = "allocating counters";
        let lines = step(
            "copying line masks to the GPU",
            stream.clone_htod(&match subtrees {
                Subtrees::Prefixes(..) => line_table(n),
                Subtrees::Boards(..) => gpu_pair_table(n),
            }),
        )?;
        let warps = blocks as usize * GPU_BLOCK as usize / 32;
        let (stacks, handoff) = match subtrees {
            Subtrees::Prefixes(..) => (None, None),
            Subtrees::Boards(..) => (
                Some(step(
                    "allocating the search stacks",
                    stream.alloc_zeros::<u32>(
                        warps * (WORDS_PER_BOARD * 32 * GPU_STACK_BOARDS) as usize,
                    ),
                )?),
                if work_sharing() {
                    Some(step(
                        "allocating the work-sharing region",
                        stream.alloc_zeros::<u32>(Handoff::words(warps as u32, WORDS_PER_BOARD)),
                    )?)
                } else {
                    None
                },
            ),
        };
        Ok(Launcher {
            function,
            blocks,
            shared,
            n,
            count,
            capacity,
            lines,
            nodes: step(alloc, stream.alloc_zeros::<u64>(count.max(1) as usize))?,
            found: step(alloc, stream.alloc_zeros::<u32>(1))?,
            overflow: step(alloc, stream.alloc_zeros::<u32>(1))?,
            boards: step(
                "allocating the board buffer",
                stream.alloc_zeros::<u32>(32 * capacity as usize),
            )?,
            tags: step(alloc, stream.alloc_zeros::<u32>(capacity as usize))?,
            stacks,
            handoff,
        })
    }

    /// Warps of a launch: the most that are resident at once.
    fn warps(&self) -> usize {
        self.blocks as usize * GPU_BLOCK as usize / 32
    }

    /// Asks the warps of a running launch to leave their subtrees unfinished: the stop in
    /// the work-sharing region, which the search looks at every few hundred boards
    /// (`kernels::handoff::Handoff::stopped`). Without work sharing the launch stops between
    /// subtrees only.
    fn stop_inside_subtrees(&self, device: &GpuDevice) -> Result<()> {
        match &self.handoff {
            Some(handoff) => Ok(device.poke(handoff, 3, &[1])?),
            None => Ok(()),
        }
    }

    /// Launches the kernel for `subtrees`' kind over `items`, with `control` (queue counter,
    /// stop word) and, for a fed launch, its buffers.
    fn launch(
        &self,
        device: &GpuDevice,
        subtrees: &Subtrees,
        items: &Items,
        control: &CudaSlice<u32>,
        fed: Option<&FedBuffers>,
    ) -> Result<()> {
        let stream = device.stream();
        let null = 0u64;
        let mut launch = stream.launch_builder(&self.function);
        let n = self.n;
        // The search's options, as the kernel takes them.
        let code = match subtrees {
            Subtrees::Prefixes(_, pruning) => pruning_code(*pruning),
            Subtrees::Boards(_, techniques) => techniques.bits(),
        };
        match (subtrees, items) {
            (Subtrees::Prefixes(..), Items::Prefixes(prefixes)) => {
                launch
                    .arg(&n)
                    .arg(&code)
                    .arg(&self.lines)
                    .arg(prefixes)
                    .arg(&self.count)
                    .arg(control)
                    .arg(&self.nodes)
                    .arg(&self.found)
                    .arg(&self.capacity)
                    .arg(&self.boards);
            }
            (Subtrees::Boards(..), Items::Boards(starts)) => {
                let Some(stacks) = &self.stacks else {
                    return Err(Error::Verification(
                        "a propagating launch without stacks".into(),
                    ));
                };
                launch
                    .arg(&n)
                    .arg(&code)
                    .arg(&self.lines)
                    .arg(starts)
                    .arg(&self.count)
                    .arg(control)
                    .arg(&self.nodes)
                    .arg(&self.found)
                    .arg(&self.capacity)
                    .arg(&self.boards)
                    .arg(stacks)
                    .arg(&GPU_STACK_BOARDS)
                    .arg(&self.overflow);
            }
            _ => {
                return Err(Error::Verification(
                    "subtrees and their items differ in kind".into(),
                ));
            }
        }
        match fed {
            Some(fed) => launch
                .arg(&fed.feed)
                .arg(&fed.item_slots)
                .arg(&fed.slot_counters)
                .arg(&self.tags),
            None => launch.arg(&null).arg(&null).arg(&null).arg(&null),
        };
        if let Subtrees::Boards(..) = subtrees {
            match &self.handoff {
                Some(handoff) => launch.arg(handoff),
                None => launch.arg(&null),
            };
        }
        // SAFETY: arguments match `warpsearch_no3line` (prefixes) or
        // `warpsearch_no3line_propagate` (boards, with a stack region of
        // `2·32·GPU_STACK_BOARDS` words for every warp of the grid and a zeroed work-sharing
        // region for the grid's warps, used by this one launch): the line or pair table of
        // size n, room for `count` subtrees (all written before the launch, or before the
        // feed counts them) and `count` node slots, zeroed counters, `32·capacity` board
        // words and `capacity` tags, the fed launch's feed words and chunk counters or null
        // pointers, the shared memory `kernel_for` gives, whole-warp blocks.
        step("launching the no-three-in-line kernel", unsafe {
            launch.launch(launch_config(self.blocks, GPU_BLOCK, self.shared))
        })?;
        Ok(())
    }

    /// The boards found so far (those the kernel has finished writing, when it may still
    /// run: all boards of finished subtrees), with their tags; an error if a stack
    /// overflowed or the board buffer was too small.
    fn boards(&self, device: &GpuDevice) -> Result<(Vec<Configuration>, Vec<u32>)> {
        let mut word = [0u32];
        device.peek(&self.overflow, &mut word)?;
        if word[0] != 0 {
            return Err(stack_full(GPU_STACK_BOARDS));
        }
        device.peek(&self.found, &mut word)?;
        let stored = word[0];
        if stored > self.capacity {
            return Err(Error::SearchLimit(format!(
                "the GPU found {stored} boards, more than the {} expected at most",
                self.capacity
            )));
        }
        let mut words = vec![0u32; 32 * stored as usize];
        let mut tags = vec![0u32; stored as usize];
        device.peek(&self.boards, &mut words)?;
        device.peek(&self.tags, &mut tags)?;
        let boards = words
            .chunks(32)
            .map(|rows| rows[..self.n as usize].to_vec())
            .collect();
        Ok((boards, tags))
    }
}

/// Searches every subtree on the GPU, one warp per subtree at a time (kernel
/// `warpsearch_no3line` for prefixes, `warpsearch_no3line_propagate` for boards), and reads
/// back the node counts and the boards.
pub(crate) fn search_gpu(
    device: &GpuDevice,
    n: u32,
    subtrees: &Subtrees,
    control: &RunControl,
) -> Result<Searched> {
    let stream = device.stream();
    let launcher = Launcher::new(device, n, subtrees, subtrees.len())?;
    let items = Items::upload(device, subtrees)?;
    let control_words = step("allocating counters", stream.alloc_zeros::<u32>(2))?;
    device.synchronize()?;
    let progress = control.progress_bar(subtrees.len() as u64, &format!("no3line {n} (GPU)"));
    launcher.launch(device, subtrees, &items, &control_words, None)?;
    let watched = device.watch(&control_words, subtrees.len() as u64, &progress, control);
    progress.finish();
    watched?;
    device.synchronize()?;
    let (boards, _) = launcher.boards(device)?;
    let nodes = step(
        "reading the node counts",
        stream.clone_dtoh(&launcher.nodes),
    )?;
    device.synchronize()?;
    Ok(Searched {
        nodes: nodes[..subtrees.len()].to_vec(),
        boards,
    })
}

/// Searches the chunks `source` hands this GPU (chunks of `partition` over the work list
/// `subtrees`) in one launch that lasts the whole run ([`crate::feed`]): the host writes a
/// chunk's subtrees into the kernel's list while it runs, keeping about a quarter of a subtree
/// per resident warp ahead of what the warps have claimed, and each chunk is reported — its nodes
/// and the boards found below it (tagged by subtree) — the moment its last subtree is done.
pub(crate) fn search_gpu_fed(
    device: &GpuDevice,
    n: u32,
    subtrees: &Subtrees,
    partition: &crate::shard::Partition,
    source: &crate::shard::ChunkSource,
    control: &RunControl,
    report: &dyn Fn(u32, u64, Vec<Configuration>) -> Result<()>,
) -> Result<()> {
    let capacity = subtrees.len();
    let launcher = Launcher::new(device, n, subtrees, capacity)?;
    let items = Items::room(device, subtrees, capacity)?;
    // Per chunk: nodes, subtrees left.
    let buffers = FedBuffers::new(device, capacity, partition, 1)?;
    let warps = launcher.warps();
    let write = |range: std::ops::Range<usize>, at: usize| items.write(device, subtrees, range, at);
    let launch = || launcher.launch(device, subtrees, &items, &buffers.control, Some(&buffers));
    let mut finished = |chunks: &[Finished]| -> Result<()> {
        // A chunk's boards are all written before its last subtree is counted done.
        let (boards, tags) = launcher.boards(device)?;
        for chunk in chunks {
            let mine = boards
                .iter()
                .zip(&tags)
                .filter(|&(_, &tag)| tag != 0 && chunk.items.contains(&(tag as usize - 1)))
                .map(|(board, _)| board.clone())
                .collect();
            report(chunk.chunk, chunk.counts[0], mine)?;
        }
        Ok(())
    };
    // A subtree keeps a warp busy for about a second at n = 15, so what is supplied ahead is
    // work only this GPU can do when the others run dry: a quarter of a subtree per warp, or
    // the next 0.1 s of subtrees when they go faster (small n), topped up every 5 ms.
    let pace = Pace {
        first: warps,
        low: warps / 4,
        top_up: 1,
        cover: std::time::Duration::from_millis(100),
    };
    run_fed(
        device,
        partition,
        source,
        &buffers,
        pace,
        control,
        FedLaunch::new(&write, &launch, &mut finished)
            .with_also_stop(&|| launcher.stop_inside_subtrees(device)),
    )?;
    // A subtree abandoned on a full stack after its chunk's last look is still an error.
    launcher.boards(device).map(|_| ())
}

/// Whether warps that run out of subtrees get pieces of other warps' subtrees
/// (`kernels::handoff`); `WARPSEARCH_NO3LINE_HANDOFF=off` turns it off, for the technique
/// table.
fn work_sharing() -> bool {
    std::env::var("WARPSEARCH_NO3LINE_HANDOFF").as_deref() != Ok("off")
}

pub(crate) fn stack_full(boards: u32) -> Error {
    Error::SearchLimit(format!(
        "a subtree needed more than {boards} pending boards on its stack"
    ))
}
