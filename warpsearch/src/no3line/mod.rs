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
use crate::feed::{FedBuffers, FedLaunch, Finished, Pace, run_fed};
use crate::gpu::{GpuDevice, launch_config, step};
use crate::run::RunControl;
use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};
use kernels::handoff::Handoff;
use kernels::no3line::cells::Cells;
use kernels::no3line::pairs::PairLines;
use kernels::no3line::propagate::{
    Propagating, Share, Stopped, Techniques, WORDS_PER_BOARD, expand, settle,
};
use kernels::no3line::search::slab_words;
use kernels::no3line::{
    DepthFirst, LineTable, MAX_PREFIX_ROWS, Prefix, Pruning, enumerate_prefixes,
};
use kernels::warp::Lanes;
use rayon::prelude::*;
use std::sync::Mutex;
use std::time::Instant;

mod check;
mod draw;
mod search;
mod shards;
mod split;
mod symmetry;

pub use check::*;
pub use draw::*;
use search::*;
pub use shards::*;
use split::*;
pub use symmetry::*;

/// Largest n accepted: what the representation allows (a board is one 32-bit row per lane;
/// the line tables have n⁵ words, 134 MB at 32). The search is exponential: n = 15 takes
/// about 4½ minutes on one H100, and sizes past 16 are runs for several GPUs or a cluster
/// (shards and checkpoints), with known values to compare up to n = 20.
pub const MAX_N: u32 = 32;

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

/// Known values for n = 2..=20: (total, inequivalent, classes iden … full), from Achim
/// Flammenkamp's table "Number of Solutions of the No-Three-in-Line-Problem on Small Grids"
/// (<http://wwwhomes.uni-bielefeld.de/achim/no3in/table.html>; his columns `.` `/` `-` `:`
/// `x` `o` `+` `*` are iden, dia1, ort1, rot2, dia2, rot4, ort2, full; his `c` column for odd
/// n is not a class of 2n-point configurations and is not in his sums). The totals for n = 17
/// and 18 are also OEIS A000755 (Benjamin Chaffin, 2006).
pub const KNOWN: [(u32, u64, u64, [u64; 8]); 19] = [
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
    (17, 55576, 7094, [6800, 12, 0, 282, 0, 0, 0, 0]),
    (18, 152210, 19204, [18853, 14, 0, 328, 2, 7, 0, 0]),
    (19, 258176, 32577, [31967, 16, 0, 594, 0, 0, 0, 0]),
    (20, 941580, 118057, [117347, 17, 0, 675, 2, 16, 0, 0]),
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
    /// Points placed by the search (`u128`: past n = 20 they may pass 2⁶⁴).
    pub nodes: u128,
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

/// Streams every configuration of size `n` to `found` (from several threads, in no fixed
/// order) and returns the counts. The backend comes from `options` (`auto`: the GPU when there
/// is one).
pub fn enumerate(n: u32, options: &Options, found: impl Fn(&[u32]) + Sync) -> Result<Counts> {
    validate(n)?;
    let selected = crate::backend::select(
        options.backend,
        options.threads,
        &options.devices,
        &crate::builtin::KERNELS,
    )?;
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
        let (whole, partition) = work_list(n, target, engine);
        let run = search_chunks(
            n,
            backend,
            control,
            &whole,
            &partition,
            crate::shard::Shard::WHOLE.into(),
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
        nodes: u128::from(prefix_nodes) + nodes.iter().map(|&n| u128::from(n)).sum::<u128>(),
        known_match: (part == Part::WHOLE)
            .then(|| known(n).map(|k| k == classes))
            .flatten(),
        devices: Vec::new(),
    })
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

    /// Asserts that `rows` is a configuration of size `n`: two points per row and column, no
    /// three collinear (checked over every triple, independently of the search's tables).
    fn assert_valid(n: u32, rows: &[u32]) {
        assert_eq!(rows.len(), n as usize);
        assert!(rows.iter().all(|r| r.count_ones() == 2), "rows: {rows:?}");
        let columns = rows.iter().fold(vec![0; n as usize], |mut count, &row| {
            (0..n as usize).for_each(|c| count[c] += row >> c & 1);
            count
        });
        assert!(columns.iter().all(|&c| c == 2), "columns: {rows:?}");
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
    }

    #[test]
    fn sizes_past_16_are_accepted_and_a_part_of_n_17_finds_only_valid_boards() {
        // The embedded table is consistent: each row's total and inequivalent count follow
        // from its classes.
        for &(n, total, inequivalent, _) in &KNOWN {
            let classes = known(n).unwrap();
            assert_eq!(
                (classes.total(), classes.inequivalent()),
                (total, inequivalent),
                "n = {n}"
            );
        }
        assert!((17..=MAX_N).all(|n| validate(n).is_ok()));
        assert!(validate(MAX_N + 1).is_err());
        // A part of the n = 17 tree on the CPU (the propagating search, the same code the
        // GPU runs): a configuration checked independently (`assert_valid`), its last rows
        // left open; the search below that board must find it again, and only valid boards.
        // Symmetry pruning is off here, since the configuration need not be the canonical
        // image of its orbit.
        let n = 17;
        assert_valid(n, &SYMMETRIC_17);
        let start = (0..n - OPEN_ROWS_17).fold(Cells::new(n), |cells, row| {
            cells.with_points(row, SYMMETRIC_17[row as usize])
        });
        let techniques = Techniques {
            symmetry: false,
            ..Techniques::DEFAULT
        };
        let part = Subtrees::Boards(vec![start], techniques);
        let pool = cpu_pool(Some(2)).unwrap();
        let boards = Mutex::new(Vec::new());
        let nodes = search_cpu(&pool, n, &part, &RunControl::quiet(), &|rows: &[u32]| {
            boards.lock().unwrap().push(rows.to_vec())
        })
        .unwrap();
        let boards = boards.into_inner().unwrap();
        boards.iter().for_each(|rows| assert_valid(n, rows));
        assert!(
            boards.contains(&SYMMETRIC_17.to_vec()),
            "not found again: {boards:?}"
        );
        assert!(nodes[0] > 1);
    }

    /// A 17 × 17 configuration that a 180° turn maps to itself (row r's points as bits),
    /// found once by plain backtracking over the top rows with a triple-by-triple collinearity
    /// test (five minutes on one core), independently of the search and its tables.
    const SYMMETRIC_17: [u32; 17] = [
        33, 2560, 4160, 16400, 8448, 81920, 8194, 514, 1088, 32896, 32776, 5, 264, 4100, 1040, 160,
        67584,
    ];

    /// Rows the n = 17 test leaves open below its known configuration (13: about 1.7 million
    /// nodes, 5 s on 2 cores).
    const OPEN_ROWS_17: u32 = 13;

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
                assert_valid(n, rows);
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
    #[ignore = "about 6 and 60 seconds on 2 cores; run by `cargo xtask test`"]
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
