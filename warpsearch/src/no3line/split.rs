//! Splitting a search into subtrees on the host, and the tables the searches read.

use super::*;

/// Prefixes per CPU thread the split aims for (subtree sizes vary a lot; rayon steals whole
/// prefixes).
pub(crate) const CPU_PREFIXES_PER_THREAD: u64 = 64;
/// Prefixes per resident GPU warp the split aims for.
pub(crate) const GPU_PREFIXES_PER_WARP: u64 = 8;
/// Threads per GPU block.
pub(crate) const GPU_BLOCK: u32 = 128;

/// The prefixes of the shallowest depth that yields at least `target` of them (or of the
/// deepest allowed), with the points placed while enumerating them.
/// The split stops at a third of the rows: the host enumerates prefixes on one core, and
/// deeper splits would move the search there (n=9 at 6 rows: 238 k prefixes, 0.23 s).
pub(crate) fn split(n: u32, target: u64, pruning: Pruning) -> (Vec<Prefix>, u64) {
    let deepest = (n - 1).min(MAX_PREFIX_ROWS).min((n / 3).max(1));
    let mut rows = 1;
    loop {
        let mut prefixes = Vec::new();
        let nodes = enumerate_prefixes(n, rows, pruning, |p| prefixes.push(p));
        if prefixes.len() as u64 >= target || rows >= deepest {
            return (prefixes, nodes);
        }
        rows += 1;
    }
}

/// The two searches. `Propagate` (the default) is the full method of the issue: propagation
/// to a fixpoint, vulnerable-cell branching, symmetry pruning from the root. `Rows` fills the
/// board row by row and only blocks cells below (the first GPU search, kept for comparison);
/// `WARPSEARCH_NO3LINE_ENGINE=rows` selects it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Engine {
    Rows(Pruning),
    Propagate(Techniques),
}

/// The engine and its switches from the environment, for the technique table:
/// `WARPSEARCH_NO3LINE_ENGINE=rows`, `WARPSEARCH_NO3LINE_PRUNING=off|first-row`,
/// `WARPSEARCH_NO3LINE_BRANCHING=rows|vulnerable` (the fewest-options row only; vulnerable
/// cells, then that row — default: vulnerable cells, then scored rows and cells) and
/// `WARPSEARCH_NO3LINE_ROW_CHILDREN=pairs` (a row's children complete it; default: one point
/// each, centre-out) and `WARPSEARCH_NO3LINE_IMAGES=partial` (the 7 image comparisons on
/// every board; default: on complete boards only).
pub(crate) fn engine() -> Engine {
    if std::env::var("WARPSEARCH_NO3LINE_ENGINE").as_deref() == Ok("rows") {
        return Engine::Rows(pruning());
    }
    let branching = std::env::var("WARPSEARCH_NO3LINE_BRANCHING");
    Engine::Propagate(Techniques {
        symmetry: pruning() != Pruning::Off,
        vulnerable_cells: branching.as_deref() != Ok("rows"),
        scored_branching: !matches!(branching.as_deref(), Ok("rows" | "vulnerable")),
        sequential_rows: std::env::var("WARPSEARCH_NO3LINE_ROW_CHILDREN").as_deref() != Ok("pairs"),
        images_on_partial_boards: std::env::var("WARPSEARCH_NO3LINE_IMAGES").as_deref()
            == Ok("partial"),
    })
}

/// Independent subtrees of one search.
pub(crate) enum Subtrees {
    /// The row search's prefixes (first rows placed).
    Prefixes(Vec<Prefix>, Pruning),
    /// The propagating search's boards (a frontier of its tree).
    Boards(Vec<Cells>, Techniques),
}

impl Subtrees {
    pub(crate) fn len(&self) -> usize {
        match self {
            Subtrees::Prefixes(p, _) => p.len(),
            Subtrees::Boards(b, _) => b.len(),
        }
    }

    /// The subtrees at `indices`, in that order.
    pub(crate) fn select(&self, indices: impl Iterator<Item = usize>) -> Subtrees {
        match self {
            Subtrees::Prefixes(p, pruning) => {
                Subtrees::Prefixes(indices.map(|i| p[i]).collect(), *pruning)
            }
            Subtrees::Boards(b, techniques) => {
                Subtrees::Boards(indices.map(|i| b[i]).collect(), *techniques)
            }
        }
    }

    /// Each subtree as words, for the partition's fingerprint.
    pub(crate) fn words(&self) -> Vec<Vec<u64>> {
        match self {
            Subtrees::Prefixes(p, _) => p.iter().map(|prefix| vec![prefix.0]).collect(),
            Subtrees::Boards(b, _) => b
                .iter()
                .map(|cells| {
                    let (points, empty) = (cells.points.to_array(), cells.empty.to_array());
                    (0..32)
                        .map(|l| u64::from(points[l]) | u64::from(empty[l]) << 32)
                        .collect()
                })
                .collect(),
        }
    }

    /// Each chunk's estimated work, for handing the heaviest out first
    /// ([`crate::shard::Workers::weights`]): the sum over its boards of √(choices left), where
    /// a board's choices left are the product over its rows of C(unknown cells, points the
    /// row still needs). Measured on the CPU at n = 11 and 12: the estimate ranks chunks by
    /// their nodes with a Spearman correlation of 0.93 and 0.95, and the 32 chunks it puts
    /// last hold 1.8 % and 0.4 % of the nodes (the list's last 32: 13.7 % and 14.7 %). The row
    /// search's prefixes have no estimate.
    pub(crate) fn chunk_weights(
        &self,
        n: u32,
        partition: &crate::shard::Partition,
    ) -> Option<Vec<f64>> {
        let Subtrees::Boards(boards, _) = self else {
            return None;
        };
        let weight = |board: &Cells| (log_choices(n, board) / 2.0).exp();
        Some(
            (0..partition.chunks)
                .map(|chunk| {
                    boards[partition.chunk_range(chunk)]
                        .iter()
                        .map(weight)
                        .sum()
                })
                .collect(),
        )
    }

    /// Every `part.of`-th subtree, from the `part.index`-th.
    pub(crate) fn part(self, part: Part) -> Subtrees {
        fn pick<T>(all: Vec<T>, part: Part) -> Vec<T> {
            all.into_iter()
                .skip(part.index as usize - 1)
                .step_by(part.of as usize)
                .collect()
        }
        match self {
            Subtrees::Prefixes(p, pruning) => Subtrees::Prefixes(pick(p, part), pruning),
            Subtrees::Boards(b, techniques) => Subtrees::Boards(pick(b, part), techniques),
        }
    }
}

/// The logarithm of a board's choices left: the product over its rows of C(unknown cells,
/// points the row still needs). Subtrees grow with it (a rough estimate of their size).
fn log_choices(n: u32, board: &Cells) -> f64 {
    let (unknown, points) = (board.unknown().to_array(), board.points.to_array());
    (0..n as usize)
        .map(|row| {
            let cells = f64::from(unknown[row].count_ones());
            match 2u32.saturating_sub(points[row].count_ones()) {
                0 => 0.0,
                1 => cells.max(1.0).ln(),
                _ => (cells * (cells - 1.0) / 2.0).max(1.0).ln(),
            }
        })
        .sum()
}

/// A search split into subtrees on the host.
pub(crate) struct Split {
    pub(crate) subtrees: Subtrees,
    /// Nodes the host searched to find them.
    pub(crate) nodes: u64,
    /// Configurations the host met on the way (the propagating search's frontier can hold
    /// complete boards).
    pub(crate) complete: Vec<Configuration>,
}

/// Splits the search of `engine` into at least `target` subtrees where it can.
pub(crate) fn split_search(n: u32, target: u64, engine: Engine) -> Split {
    match engine {
        Engine::Rows(pruning) => {
            let (prefixes, nodes) = split(n, target, pruning);
            Split {
                subtrees: Subtrees::Prefixes(prefixes, pruning),
                nodes,
                complete: Vec::new(),
            }
        }
        Engine::Propagate(techniques) => {
            let table = pair_table(n);
            let lines = PairLines::new(n, &table);
            // The frontier holds nodes (settled boards), as the search's stacks do.
            let root = settle(n, &lines, techniques, Cells::new(n));
            let (mut frontier, mut nodes, mut complete) = (Vec::from_iter(root), 0, Vec::new());
            // Breadth-first, a level at a time, at most `MAX_SPLIT_LEVELS` levels.
            for _ in 0..MAX_SPLIT_LEVELS {
                // Stop when the frontier is wide enough, or when the host has done as much
                // work as the frontier it wanted (small boards, whose trees are shallow).
                if frontier.is_empty() || frontier.len() as u64 >= target || nodes >= target {
                    break;
                }
                let every = vec![true; frontier.len()];
                let (next, expanded) =
                    expand_some(n, &lines, techniques, &frontier, &every, &mut complete);
                nodes += expanded;
                frontier = next;
            }
            // A full split's heaviest boards a level further (small boards stop early).
            if frontier.len() as u64 >= target {
                for _ in 0..REFINE_PASSES {
                    let heaviest = heaviest(n, &frontier);
                    let (next, expanded) =
                        expand_some(n, &lines, techniques, &frontier, &heaviest, &mut complete);
                    nodes += expanded;
                    frontier = next;
                }
            }
            Split {
                subtrees: Subtrees::Boards(frontier, techniques),
                nodes,
                complete,
            }
        }
    }
}

/// Passes after the breadth-first split, each expanding the heaviest
/// [`REFINE_PER_MILLE`] ‰ of the boards.
///
/// The breadth-first frontier's subtrees are very uneven: at n = 12 the largest 1 % hold 56 %
/// of the nodes, the largest one 0.36 %. A GPU warp searches one subtree alone until its
/// launch runs out of subtrees to claim, so the large ones are mostly searched at the end, by
/// warps sharing them (`kernels::handoff`), and with several GPUs the one that drew more of
/// them ends seconds later (n = 15 on two H200s: 20.2 and 27.0 s). Eight passes of 5 % at
/// n = 12 (CPU, every subtree's nodes): the largest 1 % hold 11.5 %, the largest one 0.04 %,
/// Σ size² / Σ size (the work in progress when the list runs dry) 15× smaller, for 49 % more
/// subtrees and 0.3 s more splitting on two cores.
const REFINE_PASSES: u32 = 8;
/// Boards a refining pass expands, per thousand.
const REFINE_PER_MILLE: usize = 50;

/// Which boards of `frontier` are among its heaviest [`REFINE_PER_MILLE`] ‰ by
/// [`log_choices`] (ties at the cut included).
fn heaviest(n: u32, frontier: &[Cells]) -> Vec<bool> {
    let weights: Vec<f64> = frontier.par_iter().map(|b| log_choices(n, b)).collect();
    let mut sorted = weights.clone();
    sorted.sort_by(f64::total_cmp);
    match sorted.get(sorted.len() - sorted.len() * REFINE_PER_MILLE / 1000) {
        Some(&cut) => weights.iter().map(|&w| w >= cut).collect(),
        None => vec![false; frontier.len()],
    }
}

/// `frontier` with each board marked in `chosen` replaced by its children, in place, on every
/// core (rayon keeps the order, so parts, shards and cross-checks see the same subtrees); the
/// configurations met on the way go to `complete`. Returns the new frontier and the boards
/// expanded (nodes).
fn expand_some(
    n: u32,
    lines: &PairLines,
    techniques: Techniques,
    frontier: &[Cells],
    chosen: &[bool],
    complete: &mut Vec<Configuration>,
) -> (Vec<Cells>, u64) {
    let expanded: Vec<(Vec<Cells>, Vec<Configuration>)> = frontier
        .par_iter()
        .zip(chosen)
        .map(|(cells, &chosen)| {
            if !chosen {
                return (vec![*cells], Vec::new());
            }
            let (mut children, mut finds) = (Vec::new(), Vec::new());
            expand(
                n,
                lines,
                techniques,
                cells,
                |done| finds.push(done.points.to_array()[..n as usize].to_vec()),
                |child| children.push(*child),
            );
            (children, finds)
        })
        .collect();
    let mut next = Vec::new();
    for (children, finds) in expanded {
        next.extend(children);
        complete.extend(finds);
    }
    (next, chosen.iter().filter(|&&c| c).count() as u64)
}

/// Most levels the host expands when splitting the propagating search.
pub(crate) const MAX_SPLIT_LEVELS: u32 = 24;
/// Pending boards a GPU warp's stack holds (384 bytes each, in global memory); more is an
/// error, reported, never a silent undercount.
pub(crate) const GPU_STACK_BOARDS: u32 = 1024;

/// The pair table of size `n` ([`PairLines`]: partners, offsets and whole lines; 4 MiB at
/// n = 16), for the host's searches (the CPU twin copies whole lines).
pub(crate) fn pair_table(n: u32) -> Vec<u32> {
    filled_pair_table(n, PairLines::len(n))
}

/// The sections of [`pair_table`] the GPU reads: partner masks and line offsets (45 KB at
/// n = 16).
pub(crate) fn gpu_pair_table(n: u32) -> Vec<u32> {
    filled_pair_table(n, PairLines::gpu_len(n))
}

/// The first `len` words of the pair table ([`PairLines::fill`] leaves out the lines when
/// they do not fit).
fn filled_pair_table(n: u32, len: usize) -> Vec<u32> {
    let mut words = vec![0u32; len];
    PairLines::fill(n, &mut words);
    words
}

/// The symmetry pruning: [`Pruning::Canonical`] unless the environment sets
/// `WARPSEARCH_NO3LINE_PRUNING` to `off` or `first-row` (to measure what each step saves).
pub(crate) fn pruning() -> Pruning {
    match std::env::var("WARPSEARCH_NO3LINE_PRUNING").as_deref() {
        Ok("off") => Pruning::Off,
        Ok("first-row") => Pruning::FirstRow,
        _ => Pruning::Canonical,
    }
}

/// The kernel's code for `pruning`.
pub(crate) fn pruning_code(pruning: Pruning) -> u32 {
    match pruning {
        Pruning::Off => 0,
        Pruning::FirstRow => 1,
        Pruning::Canonical => 2,
    }
}

/// The line masks of size `n` for every pair of cells (4 MiB at n = 16).
pub(crate) fn line_table(n: u32) -> Vec<u32> {
    let mut words = vec![0u32; LineTable::len(n)];
    LineTable::fill(n, &mut words);
    words
}

/// Pending boards a CPU thread's stack holds (the CPU has room to spare).
pub(crate) const CPU_STACK_BOARDS: u32 = 8192;

/// How many subtrees to split into: enough for every CPU thread or GPU warp to take several.
pub(crate) fn subtree_target(n: u32, backend: &Backend, engine: Engine) -> Result<u64> {
    Ok(match backend {
        Backend::Cpu(pool) => CPU_PREFIXES_PER_THREAD * pool.current_num_threads() as u64,
        Backend::Gpu(gpus) => {
            let device = gpus.first();
            let probe = match engine {
                Engine::Rows(pruning) => Subtrees::Prefixes(Vec::new(), pruning),
                Engine::Propagate(techniques) => Subtrees::Boards(Vec::new(), techniques),
            };
            let (name, shared) = kernel_for(&probe, n);
            let function = device.function(&crate::builtin::KERNELS, name)?;
            let blocks = device.resident_blocks(&function, GPU_BLOCK, shared)?;
            GPU_PREFIXES_PER_WARP * (blocks * GPU_BLOCK / 32 * device.multiprocessors) as u64
        }
    })
}
