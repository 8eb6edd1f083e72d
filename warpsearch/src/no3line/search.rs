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
                                .run(start, |b| report(&b.points.to_array()))
                                .map_err(|_| stack_full(CPU_STACK_BOARDS))?;
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

pub(crate) fn stack_full(boards: u32) -> Error {
    Error::SearchLimit(format!(
        "a subtree needed more than {boards} pending boards on its stack"
    ))
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
    let (name, shared) = kernel_for(subtrees, n);
    let function = device.function(name)?;
    let blocks = device.resident_blocks(&function, GPU_BLOCK, shared)? * device.multiprocessors;
    let count = u32::try_from(subtrees.len())
        .map_err(|_| GpuError::Unsupported(format!("{} subtrees", subtrees.len())))?;
    // Room for every board when the count is known (twice over), else for 2²⁰ boards.
    let capacity: u32 = known(n).map_or(1 << 20, |k| (2 * k.total()).max(1024) as u32);
    let device_lines = step(
        "copying line masks to the GPU",
        stream.clone_htod(&match subtrees {
            Subtrees::Prefixes(..) => line_table(n),
            Subtrees::Boards(..) => pair_table(n),
        }),
    )?;
    let control_words = step("allocating counters", stream.alloc_zeros::<u32>(2))?;
    let nodes = step(
        "allocating counters",
        stream.alloc_zeros::<u64>(count as usize),
    )?;
    let found = step("allocating counters", stream.alloc_zeros::<u32>(1))?;
    let overflow = step("allocating counters", stream.alloc_zeros::<u32>(1))?;
    let boards = step(
        "allocating the board buffer",
        stream.alloc_zeros::<u32>(32 * capacity as usize),
    )?;
    let progress = control.progress_bar(count as u64, &format!("no3line {n} (GPU)"));
    // Buffers the kernel reads stay alive (here) until it has finished.
    let mut prefix_words = None;
    let mut start_words = None;
    let mut stack_words = None;
    let launched = match subtrees {
        Subtrees::Prefixes(prefixes, pruning) => {
            let words: Vec<u64> = prefixes.iter().map(|p| p.0).collect();
            let device_prefixes = prefix_words.insert(step(
                "copying prefixes to the GPU",
                stream.clone_htod(&words),
            )?);
            let pruning = pruning_code(*pruning);
            let mut launch = stream.launch_builder(&function);
            launch
                .arg(&n)
                .arg(&pruning)
                .arg(&device_lines)
                .arg(&*device_prefixes)
                .arg(&count)
                .arg(&control_words)
                .arg(&nodes)
                .arg(&found)
                .arg(&capacity)
                .arg(&boards);
            // SAFETY: arguments match `warpsearch_no3line`: the line table of size n, `count`
            // prefixes and node slots, zeroed control words and board counter, `32·capacity`
            // board words, 8·n bytes of shared memory per thread, whole-warp blocks.
            step("launching the no-three-in-line kernel", unsafe {
                launch.launch(launch_config(blocks, GPU_BLOCK, shared))
            })
        }
        Subtrees::Boards(starts, techniques) => {
            let words: Vec<u32> = starts
                .iter()
                .flat_map(|c| [c.points, c.empty, c.done])
                .flat_map(|w| w.to_array())
                .collect();
            let device_starts = start_words.insert(step(
                "copying start boards to the GPU",
                stream.clone_htod(&words),
            )?);
            let warps = blocks as usize * GPU_BLOCK as usize / 32;
            let stacks = stack_words.insert(step(
                "allocating the search stacks",
                stream
                    .alloc_zeros::<u32>(warps * (WORDS_PER_BOARD * 32 * GPU_STACK_BOARDS) as usize),
            )?);
            let bits = techniques.bits();
            let mut launch = stream.launch_builder(&function);
            launch
                .arg(&n)
                .arg(&bits)
                .arg(&device_lines)
                .arg(&*device_starts)
                .arg(&count)
                .arg(&control_words)
                .arg(&nodes)
                .arg(&found)
                .arg(&capacity)
                .arg(&boards)
                .arg(&*stacks)
                .arg(&GPU_STACK_BOARDS)
                .arg(&overflow);
            // SAFETY: arguments match `warpsearch_no3line_propagate`: the pair table of size n,
            // `3·32·count` start words and `count` node slots, zeroed counters, `32·capacity`
            // board words, a stack region of `3·32·GPU_STACK_BOARDS` words for every warp of
            // the grid, whole-warp blocks, no shared memory.
            step("launching the no-three-in-line kernel", unsafe {
                launch.launch(launch_config(blocks, GPU_BLOCK, 0))
            })
        }
    };
    launched?;
    let watched = device.watch(&control_words, count as u64, &progress, control);
    progress.finish();
    watched?;
    if step("reading the overflow flag", stream.clone_dtoh(&overflow))?[0] != 0 {
        return Err(stack_full(GPU_STACK_BOARDS));
    }
    let stored = step("reading the board count", stream.clone_dtoh(&found))?[0];
    if stored > capacity {
        return Err(Error::SearchLimit(format!(
            "the GPU found {stored} boards, more than the {capacity} expected at most"
        )));
    }
    let nodes = step("reading the node counts", stream.clone_dtoh(&nodes))?;
    let words = step(
        "reading the boards",
        stream.clone_dtoh(&boards.slice(..32 * stored as usize)),
    )?;
    device.synchronize()?;
    let boards = words
        .chunks(32)
        .map(|rows| rows[..n as usize].to_vec())
        .collect();
    Ok(Searched { nodes, boards })
}
