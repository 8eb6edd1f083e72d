//! No-three-in-line: every configuration of 2n points on the n×n grid with no three on a line,
//! counted in total and up to the 8 symmetries of the square, by symmetry class.
//!
//! ```
//! use warpsearch::no3line::{self, Options};
//! let counts = no3line::count(6, &Options::default())?;
//! assert_eq!((counts.total, counts.inequivalent), (50, 11));
//! assert_eq!(counts.known_match, Some(true));
//! # Ok::<(), warpsearch::Error>(())
//! ```
//!
//! The search is `kernels::no3line::propagate::Propagating`, written in the warp board algebra
//! (one row per lane): known points and known-empty cells, line marking and the row/column
//! counting rules to a fixpoint, vulnerable-cell branching, symmetry pruning. On the GPU one
//! warp searches one subtree at a time (kernel `warpsearch_no3line_propagate`), on the CPU the
//! same code runs on every core with rayon. The host splits the tree breadth-first into
//! subtrees, collects the complete boards, and classifies each by its stabiliser, counting an
//! orbit at its canonical (lexicographically smallest) image. The first, row-by-row search
//! (`kernels::no3line::DepthFirst`) is kept for comparison: `WARPSEARCH_NO3LINE_ENGINE=rows`.

use crate::backend::{Backend, cpu_pool};
use crate::error::{Error, GpuError, Result};
use crate::gpu::{GpuDevice, launch_config, step};
use crate::run::RunControl;
use cudarc::driver::PushKernelArg;
use kernels::no3line::cells::Cells;
use kernels::no3line::pairs::PairLines;
use kernels::no3line::propagate::{Propagating, Techniques, WORDS_PER_BOARD, expand};
use kernels::no3line::search::slab_words;
use kernels::no3line::{
    DepthFirst, LineTable, MAX_PREFIX_ROWS, Prefix, Pruning, enumerate_prefixes,
};
use kernels::warp::Lanes;
use rayon::prelude::*;
use std::sync::Mutex;
use std::time::Instant;

/// Largest n accepted (the line table has n⁵ words, 4 MiB at 16; the search is exponential:
/// n = 15 took 22 minutes on an H100, n = 16 is beyond reach of this version).
pub const MAX_N: u32 = 16;

/// Configurations by the symmetry group that fixes them (their stabiliser).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Classes {
    /// Only the identity.
    pub iden: u64,
    /// A reflection in one main diagonal.
    pub dia1: u64,
    /// A reflection in one mid-line.
    pub ort1: u64,
    /// The 180° rotation only.
    pub rot2: u64,
    /// Both diagonal reflections (and 180°).
    pub dia2: u64,
    /// The 90° rotations.
    pub rot4: u64,
    /// Both mid-line reflections (and 180°).
    pub ort2: u64,
    /// All 8 symmetries.
    pub full: u64,
}

impl Classes {
    /// Configurations in all: each orbit counts its size, 8 / |stabiliser|.
    pub fn total(&self) -> u64 {
        8 * self.iden
            + 4 * (self.dia1 + self.ort1 + self.rot2)
            + 2 * (self.dia2 + self.rot4 + self.ort2)
            + self.full
    }
    /// Orbits under the symmetries of the square.
    pub fn inequivalent(&self) -> u64 {
        self.iden
            + self.dia1
            + self.ort1
            + self.rot2
            + self.dia2
            + self.rot4
            + self.ort2
            + self.full
    }
}

/// Known values for n = 2..=16: (total, inequivalent, classes iden … full).
pub const KNOWN: [(u32, u64, u64, [u64; 8]); 15] = [
    (2, 1, 1, [0, 0, 0, 0, 0, 0, 0, 1]),
    (3, 2, 1, [0, 0, 0, 0, 1, 0, 0, 0]),
    (4, 11, 4, [0, 0, 1, 1, 1, 0, 0, 1]),
    (5, 32, 5, [3, 2, 0, 0, 0, 0, 0, 0]),
    (6, 50, 11, [4, 0, 0, 2, 2, 3, 0, 0]),
    (7, 132, 22, [11, 1, 0, 10, 0, 0, 0, 0]),
    (8, 380, 57, [40, 5, 1, 7, 0, 4, 0, 0]),
    (9, 368, 51, [41, 3, 0, 7, 0, 0, 0, 0]),
    (10, 1135, 156, [132, 3, 0, 13, 1, 6, 0, 1]),
    (11, 1120, 158, [122, 6, 0, 30, 0, 0, 0, 0]),
    (12, 4348, 566, [524, 3, 0, 33, 2, 4, 0, 0]),
    (13, 3622, 499, [407, 9, 0, 82, 1, 0, 0, 0]),
    (14, 10568, 1366, [1284, 5, 0, 61, 3, 13, 0, 0]),
    (15, 30634, 3978, [3681, 13, 0, 283, 1, 0, 0, 0]),
    (16, 46304, 5900, [5683, 14, 0, 189, 1, 13, 0, 0]),
];

/// The known classes of `n`, if any.
pub fn known(n: u32) -> Option<Classes> {
    KNOWN
        .iter()
        .find(|k| k.0 == n)
        .map(|&(_, _, _, c)| Classes {
            iden: c[0],
            dia1: c[1],
            ort1: c[2],
            rot2: c[3],
            dia2: c[4],
            rot4: c[5],
            ort2: c[6],
            full: c[7],
        })
}

/// How to run: backend, CPU threads, cancellation and progress.
pub use crate::backend::SearchOptions as Options;

/// The result of a count.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Counts {
    /// Board size.
    pub n: u32,
    /// Configurations.
    pub total: u64,
    /// Configurations up to the symmetries of the square.
    pub inequivalent: u64,
    /// Orbits by symmetry class.
    pub classes: Classes,
    /// "cpu" or "gpu".
    pub backend: &'static str,
    /// Seconds the search took.
    pub seconds: f64,
    /// Points placed by the search.
    pub nodes: u64,
    /// Whether the classes match the known values; `None` when none are known.
    pub known_match: Option<bool>,
    /// What each GPU did when the search was spread over several; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<crate::shard::DeviceShare>,
}

/// A configuration: `rows[r]` has bit c set for the point at (r, c).
pub type Configuration = Vec<u32>;

/// Checks that `n` can be searched.
pub fn validate(n: u32) -> Result<()> {
    if !(2..=MAX_N).contains(&n) {
        return Err(Error::InvalidArgument(format!(
            "n must be between 2 and {MAX_N}; got {n}"
        )));
    }
    Ok(())
}

/// A symmetry of the square as a map of cells: (row, column, n) → (row, column).
type CellMap = fn(usize, usize, usize) -> (usize, usize);

/// Checks that `rows` describes points on an n×n grid, n = `rows.len()` ≤ 32: no row has a
/// point in a column ≥ n.
pub fn check_configuration(rows: &[u32]) -> Result<()> {
    let n = rows.len();
    if n > 32 {
        return Err(Error::InvalidArgument(format!(
            "a configuration has at most 32 rows (one u32 a row); got {n}"
        )));
    }
    if let Some((r, _)) = rows
        .iter()
        .enumerate()
        .find(|&(_, &row)| n < 32 && row >> n != 0)
    {
        return Err(Error::InvalidArgument(format!(
            "row {r} has a point in a column ≥ {n}, outside the {n}×{n} grid"
        )));
    }
    Ok(())
}

/// The 8 images of a configuration under the symmetries of the square, identity first, in the
/// order: identity, rot90, rot180, rot270, flip rows, flip columns, main diagonal, anti-diagonal.
/// An error when `rows` is not a configuration ([`check_configuration`]).
pub fn images(rows: &[u32]) -> Result<[Configuration; 8]> {
    check_configuration(rows)?;
    Ok(images_of(rows))
}

/// [`images`] of a checked configuration.
fn images_of(rows: &[u32]) -> [Configuration; 8] {
    let n = rows.len();
    let maps: [CellMap; 8] = [
        |r, c, _| (r, c),
        |r, c, n| (c, n - 1 - r),
        |r, c, n| (n - 1 - r, n - 1 - c),
        |r, c, n| (n - 1 - c, r),
        |r, c, n| (n - 1 - r, c),
        |r, c, n| (r, n - 1 - c),
        |r, c, _| (c, r),
        |r, c, n| (n - 1 - c, n - 1 - r),
    ];
    maps.map(|map| {
        let mut out = vec![0u32; n];
        for (r, &row) in rows.iter().enumerate() {
            for c in (0..n).filter(|&c| row >> c & 1 == 1) {
                let (r2, c2) = map(r, c, n);
                out[r2] |= 1 << c2;
            }
        }
        out
    })
}

/// Whether `rows` is its orbit's representative (the lexicographically smallest image), and the
/// class of its stabiliser. An error when `rows` is not a configuration.
pub fn classify(rows: &[u32]) -> Result<(bool, Class)> {
    check_configuration(rows)?;
    Ok(classify_checked(rows))
}

/// [`classify`] of a checked configuration.
fn classify_checked(rows: &[u32]) -> (bool, Class) {
    let all = images_of(rows);
    let canonical = all.iter().all(|image| rows <= image.as_slice());
    let fixes: Vec<bool> = all.iter().map(|image| image.as_slice() == rows).collect();
    let class = match (
        fixes.iter().filter(|&&f| f).count(),
        fixes[1],
        fixes[2],
        fixes[4] || fixes[5],
        fixes[6] || fixes[7],
    ) {
        (8, ..) => Class::Full,
        (4, true, ..) => Class::Rot4,
        (4, _, _, true, false) => Class::Ort2,
        (4, ..) => Class::Dia2,
        (2, _, true, ..) => Class::Rot2,
        (2, _, _, true, _) => Class::Ort1,
        (2, ..) => Class::Dia1,
        _ => Class::Iden,
    };
    (canonical, class)
}

/// A stabiliser class (see [`Classes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Trivial.
    Iden,
    /// One diagonal.
    Dia1,
    /// One mid-line.
    Ort1,
    /// 180°.
    Rot2,
    /// Both diagonals.
    Dia2,
    /// 90°.
    Rot4,
    /// Both mid-lines.
    Ort2,
    /// All.
    Full,
}

/// Prefixes per CPU thread the split aims for (subtree sizes vary a lot; rayon steals whole
/// prefixes).
const CPU_PREFIXES_PER_THREAD: u64 = 64;
/// Prefixes per resident GPU warp the split aims for.
const GPU_PREFIXES_PER_WARP: u64 = 8;
/// Threads per GPU block.
const GPU_BLOCK: u32 = 128;

/// The prefixes of the shallowest depth that yields at least `target` of them (or of the
/// deepest allowed), with the points placed while enumerating them.
/// The split stops at a third of the rows: the host enumerates prefixes on one core, and
/// deeper splits would move the search there (n=9 at 6 rows: 238 k prefixes, 0.23 s).
fn split(n: u32, target: u64, pruning: Pruning) -> (Vec<Prefix>, u64) {
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
enum Engine {
    Rows(Pruning),
    Propagate(Techniques),
}

/// The engine and its switches from the environment: `WARPSEARCH_NO3LINE_ENGINE=rows`,
/// `WARPSEARCH_NO3LINE_PRUNING=off|first-row`, `WARPSEARCH_NO3LINE_BRANCHING=rows` (no
/// vulnerable cells), for the technique table.
fn engine() -> Engine {
    if std::env::var("WARPSEARCH_NO3LINE_ENGINE").as_deref() == Ok("rows") {
        return Engine::Rows(pruning());
    }
    Engine::Propagate(Techniques {
        symmetry: pruning() != Pruning::Off,
        vulnerable_cells: std::env::var("WARPSEARCH_NO3LINE_BRANCHING").as_deref() != Ok("rows"),
    })
}

/// Independent subtrees of one search.
enum Subtrees {
    /// The row search's prefixes (first rows placed).
    Prefixes(Vec<Prefix>, Pruning),
    /// The propagating search's boards (a frontier of its tree).
    Boards(Vec<Cells>, Techniques),
}

impl Subtrees {
    fn len(&self) -> usize {
        match self {
            Subtrees::Prefixes(p, _) => p.len(),
            Subtrees::Boards(b, _) => b.len(),
        }
    }

    /// The subtrees at `indices`, in that order.
    fn select(&self, indices: impl Iterator<Item = usize>) -> Subtrees {
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
    fn words(&self) -> Vec<Vec<u64>> {
        match self {
            Subtrees::Prefixes(p, _) => p.iter().map(|prefix| vec![prefix.0]).collect(),
            Subtrees::Boards(b, _) => b
                .iter()
                .map(|cells| {
                    let (points, empty, done) = (
                        cells.points.to_array(),
                        cells.empty.to_array(),
                        cells.done.to_array(),
                    );
                    (0..32)
                        .flat_map(|l| {
                            [
                                u64::from(points[l]) | u64::from(empty[l]) << 32,
                                u64::from(done[l]),
                            ]
                        })
                        .collect()
                })
                .collect(),
        }
    }

    /// Every `part.of`-th subtree, from the `part.index`-th.
    fn part(self, part: Part) -> Subtrees {
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

/// A search split into subtrees on the host.
struct Split {
    subtrees: Subtrees,
    /// Nodes the host searched to find them.
    nodes: u64,
    /// Configurations the host met on the way (the propagating search's frontier can hold
    /// complete boards).
    complete: Vec<Configuration>,
}

/// Splits the search of `engine` into at least `target` subtrees where it can.
fn split_search(n: u32, target: u64, engine: Engine) -> Split {
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
            let (mut frontier, mut nodes, mut complete) = (vec![Cells::new(n)], 0, Vec::new());
            // Breadth-first, a level at a time, at most `MAX_SPLIT_LEVELS` levels.
            for _ in 0..MAX_SPLIT_LEVELS {
                // Stop when the frontier is wide enough, or when the host has done as much
                // work as the frontier it wanted (small boards, whose trees are shallow).
                if frontier.is_empty() || frontier.len() as u64 >= target || nodes >= target {
                    break;
                }
                // Each board's children and finds, on every core (rayon keeps their order, so
                // parts and cross-checks see the same subtrees).
                let expanded: Vec<(Vec<Cells>, Vec<Configuration>)> = frontier
                    .par_iter()
                    .map(|cells| {
                        let (mut children, mut finds) = (Vec::new(), Vec::new());
                        expand(
                            n,
                            &lines,
                            techniques,
                            *cells,
                            |done| finds.push(done.points.to_array()[..n as usize].to_vec()),
                            |child| children.push(*child),
                        );
                        (children, finds)
                    })
                    .collect();
                nodes += frontier.len() as u64;
                let mut next = Vec::new();
                for (children, finds) in expanded {
                    next.extend(children);
                    complete.extend(finds);
                }
                frontier = next;
            }
            Split {
                subtrees: Subtrees::Boards(frontier, techniques),
                nodes,
                complete,
            }
        }
    }
}

/// Most levels the host expands when splitting the propagating search.
const MAX_SPLIT_LEVELS: u32 = 24;
/// Pending boards a GPU warp's stack holds (384 bytes each, in global memory); more is an
/// error, reported, never a silent undercount.
const GPU_STACK_BOARDS: u32 = 1024;

/// The whole-line masks of size `n` for every pair of cells (4 MiB at n = 16).
fn pair_table(n: u32) -> Vec<u32> {
    let mut words = vec![0u32; PairLines::len(n)];
    PairLines::fill(n, &mut words);
    words
}

/// The symmetry pruning: [`Pruning::Canonical`] unless the environment sets
/// `WARPSEARCH_NO3LINE_PRUNING` to `off` or `first-row` (to measure what each step saves).
fn pruning() -> Pruning {
    match std::env::var("WARPSEARCH_NO3LINE_PRUNING").as_deref() {
        Ok("off") => Pruning::Off,
        Ok("first-row") => Pruning::FirstRow,
        _ => Pruning::Canonical,
    }
}

/// The kernel's code for `pruning`.
fn pruning_code(pruning: Pruning) -> u32 {
    match pruning {
        Pruning::Off => 0,
        Pruning::FirstRow => 1,
        Pruning::Canonical => 2,
    }
}

/// Calls `found` once with every distinct image of `rows` (its orbit), `rows` first.
fn stream_orbit(rows: &[u32], found: &impl Fn(&[u32])) {
    found(rows);
    let mut others: Vec<Configuration> = images_of(rows)
        .into_iter()
        .filter(|image| image.as_slice() != rows)
        .collect();
    others.sort();
    others.dedup();
    for image in &others {
        found(image);
    }
}

/// Points placed below each prefix, and the complete boards found (GPU; the CPU streams them).
struct Searched {
    nodes: Vec<u64>,
    boards: Vec<Configuration>,
}

/// Counts by class, for the boards given to [`Tally::record`].
#[derive(Default)]
struct Tally(Classes);

impl Tally {
    /// Counts a board found by the search if it is its orbit's canonical member (the search
    /// may find other members too), and then streams the whole orbit to `found`.
    fn record(&mut self, rows: &[u32], found: &impl Fn(&[u32])) {
        let (canonical, class) = classify_checked(rows);
        if !canonical {
            return;
        }
        stream_orbit(rows, found);
        let c = &mut self.0;
        *match class {
            Class::Iden => &mut c.iden,
            Class::Dia1 => &mut c.dia1,
            Class::Ort1 => &mut c.ort1,
            Class::Rot2 => &mut c.rot2,
            Class::Dia2 => &mut c.dia2,
            Class::Rot4 => &mut c.rot4,
            Class::Ort2 => &mut c.ort2,
            Class::Full => &mut c.full,
        } += 1;
    }
}

/// The line masks of size `n` for every pair of cells (4 MiB at n = 16).
fn line_table(n: u32) -> Vec<u32> {
    let mut words = vec![0u32; LineTable::len(n)];
    LineTable::fill(n, &mut words);
    words
}

/// Pending boards a CPU thread's stack holds (the CPU has room to spare).
const CPU_STACK_BOARDS: u32 = 8192;

/// Searches every subtree on the CPU, one subtree per rayon task, calls `on_board` with every
/// complete board found (from several threads), and returns the nodes searched in each.
fn search_cpu(
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

fn stack_full(boards: u32) -> Error {
    Error::SearchLimit(format!(
        "a subtree needed more than {boards} pending boards on its stack"
    ))
}

/// The GPU kernel that searches `subtrees`, with its dynamic shared memory per block.
fn kernel_for(subtrees: &Subtrees, n: u32) -> (&'static str, usize) {
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
fn search_gpu(
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

/// Streams every configuration of size `n` to `found` (from several threads, in no fixed
/// order) and returns the counts. The backend comes from `options` (`auto`: the GPU when there
/// is one).
pub fn enumerate(n: u32, options: &Options, found: impl Fn(&[u32]) + Sync) -> Result<Counts> {
    validate(n)?;
    let selected = crate::backend::select(options.backend, options.threads, &options.devices)?;
    enumerate_on(n, &selected.backend, &options.control, found)
}

/// [`enumerate`] on a backend already chosen.
pub fn enumerate_on(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    found: impl Fn(&[u32]) + Sync,
) -> Result<Counts> {
    enumerate_part(n, backend, control, Part::WHOLE, found)
}

/// A share of a search, for runs too long for one sitting: part `index` (1-based) of `of`
/// takes every `of`-th subtree. The parts' classes and nodes add up to the whole search's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Part {
    /// Which part, 1..=`of`.
    pub index: u32,
    /// How many parts.
    pub of: u32,
}

impl Part {
    /// The whole search.
    pub const WHOLE: Part = Part { index: 1, of: 1 };

    /// Part `index` of `of`, 1 ≤ `index` ≤ `of`.
    pub fn new(index: u32, of: u32) -> Result<Part> {
        if index == 0 || index > of {
            return Err(Error::InvalidArgument(format!(
                "a part is K/M with 1 ≤ K ≤ M; got {index}/{of}"
            )));
        }
        Ok(Part { index, of })
    }

    /// Parses `K/M` with 1 ≤ K ≤ M.
    pub fn parse(text: &str) -> Result<Part> {
        let bad = || Error::InvalidArgument(format!("a part is K/M with 1 ≤ K ≤ M; got {text:?}"));
        let (k, m) = text.split_once('/').ok_or_else(bad)?;
        let (index, of) = (
            k.trim().parse().map_err(|_| bad())?,
            m.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > of {
            return Err(bad());
        }
        Ok(Part { index, of })
    }
}

/// [`enumerate_on`] restricted to one [`Part`]; `known_match` is `None` for a proper part.
pub fn enumerate_part(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    part: Part,
    found: impl Fn(&[u32]) + Sync,
) -> Result<Counts> {
    validate(n)?;
    Part::new(part.index, part.of)?;
    let started = Instant::now();
    let engine = engine();
    if let Backend::Gpu(gpus) = backend
        && gpus.len() > 1
        && part == Part::WHOLE
        && n >= MULTI_GPU_MIN_N
    {
        // Every GPU takes batches of chunks of one work list, as a cluster's shards do.
        let target = subtree_target(n, backend, engine)? * gpus.len() as u64;
        let whole = split_search(n, target, engine);
        let chunks = whole.subtrees.len().clamp(1, MULTI_GPU_CHUNKS) as u32;
        let partition = crate::shard::Partition::new("no3line", n, &whole.subtrees.words(), chunks);
        let run = search_chunks(
            n,
            backend,
            control,
            &whole,
            &partition,
            crate::shard::Shard::WHOLE,
            None,
            &found,
        )?;
        let mut counts = run
            .counts
            .counts(n, backend.kind(), started.elapsed().as_secs_f64());
        counts.devices = run.shares;
        return Ok(counts);
    }
    let whole = split_search(n, subtree_target(n, backend, engine)?, engine);
    let subtrees = whole.subtrees.part(part);
    // The host's own nodes and finds are counted once, by part 1.
    let (split_nodes, split_complete) = if part.index == 1 {
        (whole.nodes, whole.complete)
    } else {
        (0, Vec::new())
    };
    let tally = Mutex::new(Tally::default());
    let record = |rows: &[u32]| {
        if let Ok(mut tally) = tally.lock() {
            tally.record(rows, &found);
        }
    };
    split_complete.iter().for_each(|rows| record(rows));
    let nodes = match backend {
        Backend::Cpu(pool) => search_cpu(pool, n, &subtrees, control, &record)?,
        Backend::Gpu(gpus) => {
            let searched = search_gpu(gpus.first(), n, &subtrees, control)?;
            searched.boards.iter().for_each(|rows| record(rows));
            searched.nodes
        }
    };
    let classes = tally
        .into_inner()
        .map_err(|_| Error::Verification("a search thread panicked".into()))?
        .0;
    let prefix_nodes = split_nodes;
    Ok(Counts {
        n,
        total: classes.total(),
        inequivalent: classes.inequivalent(),
        classes,
        backend: backend.kind(),
        seconds: started.elapsed().as_secs_f64(),
        nodes: prefix_nodes + nodes.iter().sum::<u64>(),
        known_match: (part == Part::WHOLE)
            .then(|| known(n).map(|k| k == classes))
            .flatten(),
        devices: Vec::new(),
    })
}

/// The smallest size a search spreads over several GPUs (smaller ones take one GPU well
/// under a second).
const MULTI_GPU_MIN_N: u32 = 13;
/// Chunks of a search spread over several GPUs: the batches they take are made of these.
const MULTI_GPU_CHUNKS: usize = 256;

/// Counts of a no-three-in-line search that add up across chunks and shards.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Partial {
    /// Canonical configurations found, by class.
    pub classes: Classes,
    /// Nodes searched.
    pub nodes: u64,
}

impl crate::shard::Partial for Partial {
    fn add(&mut self, other: &Self) {
        let (a, b) = (&mut self.classes, &other.classes);
        a.iden += b.iden;
        a.dia1 += b.dia1;
        a.ort1 += b.ort1;
        a.rot2 += b.rot2;
        a.dia2 += b.dia2;
        a.rot4 += b.rot4;
        a.ort2 += b.ort2;
        a.full += b.full;
        self.nodes += other.nodes;
    }
    fn nodes(&self) -> u64 {
        self.nodes
    }
}

impl Partial {
    /// The counts of a complete search (every shard merged).
    pub fn counts(&self, n: u32, backend: &'static str, seconds: f64) -> Counts {
        Counts {
            n,
            total: self.classes.total(),
            inequivalent: self.classes.inequivalent(),
            classes: self.classes,
            backend,
            seconds,
            nodes: self.nodes,
            known_match: known(n).map(|k| k == self.classes),
            devices: Vec::new(),
        }
    }
}

/// Subtrees a sharded search's work list aims for: fixed, so that it is the same everywhere.
const SHARDED_TARGET: u64 = 1 << 16;
/// Chunks of a sharded search.
const SHARDED_CHUNKS: usize = 256;

/// Searches shard `shard` of the size-`n` search on `backend`, resuming from and saving to
/// `checkpoint` when given (the CPU saves chunk by chunk; a GPU launch takes the shard's
/// chunks at once and saves them when it ends). The counts add up with the other shards' in
/// [`crate::shard::merge`].
pub fn enumerate_shard(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    shard: crate::shard::Shard,
    checkpoint: Option<&crate::shard::CheckpointFile>,
) -> Result<crate::shard::ShardResult<Partial>> {
    validate(n)?;
    let engine = engine();
    let whole = split_search(n, SHARDED_TARGET, engine);
    let chunks = whole.subtrees.len().clamp(1, SHARDED_CHUNKS) as u32;
    let partition = crate::shard::Partition::new("no3line", n, &whole.subtrees.words(), chunks);
    let run = search_chunks(
        n,
        backend,
        control,
        &whole,
        &partition,
        shard,
        checkpoint,
        &|_| {},
    )?;
    Ok(crate::shard::ShardResult {
        partition,
        shard,
        counts: run.counts,
        seconds: run.seconds,
        backend: backend.kind().into(),
        devices: vec![backend.describe()],
        per_device: run.shares,
    })
}

/// Searches the chunks of `shard` of `whole` (grouped by `partition`) on `backend`'s workers
/// (the CPU pool a chunk at a time, or every GPU taking batches of chunks), streaming every
/// configuration found to `found`. The host's own nodes and finds go with chunk 0.
#[allow(clippy::too_many_arguments)]
fn search_chunks(
    n: u32,
    backend: &Backend,
    control: &RunControl,
    whole: &Split,
    partition: &crate::shard::Partition,
    shard: crate::shard::Shard,
    checkpoint: Option<&crate::shard::CheckpointFile>,
    found: &(dyn Fn(&[u32]) + Sync),
) -> Result<crate::shard::ChunkRun<Partial>> {
    let extra = |chunk: u32| -> Partial {
        if chunk != 0 {
            return Partial::default();
        }
        let mut tally = Tally::default();
        whole
            .complete
            .iter()
            .for_each(|rows| tally.record(rows, &found));
        Partial {
            classes: tally.0,
            nodes: whole.nodes,
        }
    };
    // A batch of one of several GPUs holds at least half the subtrees a one-GPU run splits into.
    let min_units = match backend {
        Backend::Gpu(_) => subtree_target(n, backend, engine())? / 2,
        Backend::Cpu(_) => 0,
    };
    let workers = crate::shard::Workers::of(backend, min_units, true);
    let run_batch = |worker: usize,
                     chunks: &[u32],
                     control: &RunControl,
                     report: &dyn Fn(u32, Partial) -> Result<()>|
     -> Result<()> {
        let quiet = control.clone().with_progress(false);
        match backend {
            Backend::Cpu(pool) => {
                for &chunk in chunks {
                    let subtrees = whole.subtrees.select(partition.chunk_range(chunk));
                    let tally = Mutex::new(Tally::default());
                    let record = |rows: &[u32]| {
                        if let Ok(mut tally) = tally.lock() {
                            tally.record(rows, &found);
                        }
                    };
                    let nodes = search_cpu(pool, n, &subtrees, &quiet, &record)?;
                    let classes = tally
                        .into_inner()
                        .map_err(|_| Error::Verification("a search thread panicked".into()))?
                        .0;
                    let mut part = extra(chunk);
                    crate::shard::Partial::add(
                        &mut part,
                        &Partial {
                            classes,
                            nodes: nodes.iter().sum(),
                        },
                    );
                    report(chunk, part)?;
                }
                Ok(())
            }
            Backend::Gpu(gpus) => {
                // One launch for the batch: the node counts are per subtree, the boards are
                // not, so the chunks are reported together when it ends.
                let device = &gpus.lanes()[worker];
                let ranges: Vec<_> = chunks.iter().map(|&c| partition.chunk_range(c)).collect();
                let subtrees = whole.subtrees.select(ranges.iter().flat_map(|r| r.clone()));
                let searched = search_gpu(device, n, &subtrees, &quiet)
                    .map_err(|e| crate::shard::on_device(gpus, device, e))?;
                let mut tally = Tally::default();
                searched
                    .boards
                    .iter()
                    .for_each(|rows| tally.record(rows, &found));
                let mut offset = 0;
                for (&chunk, range) in chunks.iter().zip(&ranges) {
                    let mut part = extra(chunk);
                    part.nodes += searched.nodes[offset..offset + range.len()]
                        .iter()
                        .sum::<u64>();
                    offset += range.len();
                    if chunk == chunks[0] {
                        // The boards of the launch go with its first chunk.
                        crate::shard::Partial::add(
                            &mut part,
                            &Partial {
                                classes: tally.0,
                                nodes: 0,
                            },
                        );
                    }
                    report(chunk, part)?;
                }
                Ok(())
            }
        }
    };
    let run_worker = |worker: usize,
                      source: &crate::shard::ChunkSource,
                      control: &RunControl,
                      report: &dyn Fn(u32, Partial) -> Result<()>| loop {
        let chunks = source.batch()?;
        if chunks.is_empty() {
            return Ok(());
        }
        run_batch(worker, &chunks, control, report)?;
    };
    crate::shard::run_chunks(partition, shard, checkpoint, control, &workers, run_worker)
}

/// How many subtrees to split into: enough for every CPU thread or GPU warp to take several.
fn subtree_target(n: u32, backend: &Backend, engine: Engine) -> Result<u64> {
    Ok(match backend {
        Backend::Cpu(pool) => CPU_PREFIXES_PER_THREAD * pool.current_num_threads() as u64,
        Backend::Gpu(gpus) => {
            let device = gpus.first();
            let probe = match engine {
                Engine::Rows(pruning) => Subtrees::Prefixes(Vec::new(), pruning),
                Engine::Propagate(techniques) => Subtrees::Boards(Vec::new(), techniques),
            };
            let (name, shared) = kernel_for(&probe, n);
            let function = device.function(name)?;
            let blocks = device.resident_blocks(&function, GPU_BLOCK, shared)?;
            GPU_PREFIXES_PER_WARP * (blocks * GPU_BLOCK / 32 * device.multiprocessors) as u64
        }
    })
}

/// What [`cross_check`] compared.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CrossCheck {
    /// Board size.
    pub n: u32,
    /// Subtrees (prefixes) searched by both backends.
    pub subtrees: usize,
    /// Nodes searched below them (equal on both).
    pub nodes: u64,
    /// Complete boards found (the same set on both).
    pub boards: usize,
}

/// Runs the same subtrees on the CPU and on the GPU and compares them one by one: the points
/// placed below every prefix, and the set of boards found. Any difference is an
/// [`Error::Verification`] naming the first differing subtree.
pub fn cross_check(n: u32, options: &Options) -> Result<CrossCheck> {
    validate(n)?;
    let gpus = crate::gpu::Gpus::open(&options.devices.first_only())?;
    let pool = cpu_pool(options.threads)?;
    let engine = engine();
    let target = subtree_target(n, &Backend::Gpu(gpus.clone()), engine)?;
    let split = split_search(n, target, engine);
    let subtrees = split.subtrees;
    let on_gpu = search_gpu(gpus.first(), n, &subtrees, &options.control)?;
    let on_cpu_boards = Mutex::new(Vec::new());
    let on_cpu_nodes = search_cpu(&pool, n, &subtrees, &options.control, &|rows| {
        if let Ok(mut boards) = on_cpu_boards.lock() {
            boards.push(rows.to_vec());
        }
    })?;
    if let Some(i) = (0..subtrees.len()).find(|&i| on_cpu_nodes[i] != on_gpu.nodes[i]) {
        return Err(Error::Verification(format!(
            "subtree {i}: {} nodes on the CPU, {} on the GPU",
            on_cpu_nodes[i], on_gpu.nodes[i]
        )));
    }
    let mut cpu_boards = on_cpu_boards
        .into_inner()
        .map_err(|_| Error::Verification("a search thread panicked".into()))?;
    let mut gpu_boards = on_gpu.boards;
    cpu_boards.sort();
    gpu_boards.sort();
    if cpu_boards != gpu_boards {
        return Err(Error::Verification(format!(
            "the CPU found {} boards, the GPU {}, and the sets differ",
            cpu_boards.len(),
            gpu_boards.len()
        )));
    }
    Ok(CrossCheck {
        n,
        subtrees: subtrees.len(),
        nodes: on_cpu_nodes.iter().sum(),
        boards: cpu_boards.len(),
    })
}

/// One line of the `--out` format: the rows in order, separated by spaces, each as the two
/// columns of its points (0-based), e.g. `0,1 0,1` for the only 2×2 configuration.
pub fn format_line(rows: &[u32]) -> String {
    rows.iter()
        .map(|&row| {
            let columns: Vec<String> = (0..32)
                .filter(|c| row >> c & 1 == 1)
                .map(|c: u32| c.to_string())
                .collect();
            columns.join(",")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An SVG drawing of a configuration: the grid's cells and its points.
pub fn svg(rows: &[u32]) -> Result<String> {
    check_configuration(rows)?;
    let n = rows.len();
    let cell = 24;
    let size = n * cell + 2 * cell;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{size}\" height=\"{size}\" viewBox=\"0 0 {size} {size}\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    for i in 0..=n {
        let p = cell + i * cell;
        let end = cell + n * cell;
        out +=
            &format!("<line x1=\"{cell}\" y1=\"{p}\" x2=\"{end}\" y2=\"{p}\" stroke=\"#bbb\"/>\n");
        out +=
            &format!("<line x1=\"{p}\" y1=\"{cell}\" x2=\"{p}\" y2=\"{end}\" stroke=\"#bbb\"/>\n");
    }
    for (r, &row) in rows.iter().enumerate() {
        for c in (0..n).filter(|&c| row >> c & 1 == 1) {
            let (x, y) = (cell + c * cell + cell / 2, cell + r * cell + cell / 2);
            out += &format!(
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"{}\" fill=\"#1f4e9c\"/>\n",
                cell / 3
            );
        }
    }
    Ok(out + "</svg>\n")
}

/// Counts the configurations of size `n`.
pub fn count(n: u32, options: &Options) -> Result<Counts> {
    enumerate(n, options, |_| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_add_up_to_the_whole_search_and_resume_exactly() {
        use crate::shard::{CheckpointFile, Partial as _, Shard};
        let backend = Backend::Cpu(crate::backend::cpu_pool(None).unwrap());
        let quiet = RunControl::quiet();
        let mut sum = Partial::default();
        for k in 1..=3 {
            let result =
                enumerate_shard(9, &backend, &quiet, Shard::new(k, 3).unwrap(), None).unwrap();
            sum.add(&result.counts);
        }
        assert_eq!(sum.counts(9, "cpu", 0.0).known_match, Some(true));
        let dir = tempfile::tempdir().unwrap();
        let file = CheckpointFile {
            path: dir.path().join("ck.json"),
            every: std::time::Duration::ZERO,
        };
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let stopped = RunControl::quiet().with_cancel(flag);
        assert!(enumerate_shard(9, &backend, &stopped, Shard::WHOLE, Some(&file)).is_err());
        let resumed = enumerate_shard(9, &backend, &quiet, Shard::WHOLE, Some(&file)).unwrap();
        assert_eq!(resumed.counts.counts(9, "cpu", 0.0).known_match, Some(true));
    }

    #[test]
    fn class_counts_match_the_known_values_for_n_2_to_10() {
        for n in 2..=10 {
            let total = std::sync::atomic::AtomicU64::new(0);
            let seen = Mutex::new(std::collections::HashSet::new());
            let counts = enumerate(n, &Options::default(), |rows| {
                // Each configuration exactly once.
                assert!(
                    seen.lock().unwrap().insert(rows.to_vec()),
                    "twice: {rows:?}"
                );
                // Every configuration streamed is valid: two per row and column, no three collinear.
                assert!(rows.iter().all(|r| r.count_ones() == 2));
                let points: Vec<(i64, i64)> = rows
                    .iter()
                    .enumerate()
                    .flat_map(|(r, &row)| {
                        (0..n as i64)
                            .filter(move |&c| row >> c & 1 == 1)
                            .map(move |c| (r as i64, c))
                    })
                    .collect();
                for i in 0..points.len() {
                    for j in i + 1..points.len() {
                        for k in j + 1..points.len() {
                            let (a, b, c) = (points[i], points[j], points[k]);
                            assert_ne!(
                                (b.0 - a.0) * (c.1 - a.1),
                                (c.0 - a.0) * (b.1 - a.1),
                                "collinear: {rows:?}"
                            );
                        }
                    }
                }
                total.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
            .unwrap();
            assert_eq!(
                counts.known_match,
                Some(true),
                "n = {n}: {:?}",
                counts.classes
            );
            assert_eq!(
                counts.total,
                total.into_inner(),
                "n = {n}: every configuration streamed"
            );
        }
    }

    #[test]
    #[ignore = "about 1 and 8 minutes on 2 cores; run by `cargo xtask test`"]
    fn class_counts_match_the_known_values_for_n_11_and_12() {
        for n in [11, 12] {
            let counts = count(n, &Options::default()).unwrap();
            assert_eq!(
                counts.known_match,
                Some(true),
                "n = {n}: {:?}",
                counts.classes
            );
        }
    }

    #[test]
    fn parts_add_up_to_the_whole() {
        let backend = Backend::Cpu(cpu_pool(Some(2)).unwrap());
        let control = RunControl::quiet();
        let whole = enumerate_on(9, &backend, &control, |_| {}).unwrap();
        let mut classes = Classes::default();
        let mut nodes = 0;
        for index in 1..=3 {
            let part =
                enumerate_part(9, &backend, &control, Part { index, of: 3 }, |_| {}).unwrap();
            assert_eq!(part.known_match, None);
            let c = part.classes;
            for (sum, x) in [
                (&mut classes.iden, c.iden),
                (&mut classes.dia1, c.dia1),
                (&mut classes.ort1, c.ort1),
                (&mut classes.rot2, c.rot2),
                (&mut classes.dia2, c.dia2),
                (&mut classes.rot4, c.rot4),
                (&mut classes.ort2, c.ort2),
                (&mut classes.full, c.full),
            ] {
                *sum += x;
            }
            nodes += part.nodes;
        }
        assert_eq!((classes, nodes), (whole.classes, whole.nodes));
        assert!(Part::parse("0/3").is_err() && Part::parse("4/3").is_err());
        assert_eq!(Part::parse("2/3").unwrap(), Part { index: 2, of: 3 });
    }

    #[test]
    fn bad_n_and_a_missing_gpu_are_errors() {
        assert!(matches!(
            count(1, &Options::default()),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            count(MAX_N + 1, &Options::default()),
            Err(Error::InvalidArgument(_))
        ));
        if crate::gpu::GpuDevice::open().is_err() {
            let gpu = Options {
                backend: crate::backend::BackendChoice::Gpu,
                ..Options::default()
            };
            assert!(matches!(count(4, &gpu), Err(Error::Gpu(_))));
            assert!(matches!(cross_check(4, &gpu), Err(Error::Gpu(_))));
        }
    }
}
