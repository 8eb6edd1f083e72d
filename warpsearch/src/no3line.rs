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
//! This version runs the search of `kernels::no3line` — written in the warp board algebra, one
//! row per lane — on every CPU core (the first of the issue's stages: a correct CPU twin).

use crate::backend::{BackendChoice, cpu_pool};
use crate::error::{Error, GpuError, Result};
use kernels::no3line::{Board, search_from};
use rayon::prelude::*;
use std::sync::Mutex;
use std::time::Instant;

/// Largest n this version accepts (the search is exponential; n = 12 takes minutes on 2 cores).
pub const MAX_N: u32 = 16;

/// Configurations by the symmetry group that fixes them (their stabiliser).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
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
    fn add(&mut self, o: &Classes) {
        self.iden += o.iden;
        self.dia1 += o.dia1;
        self.ort1 += o.ort1;
        self.rot2 += o.rot2;
        self.dia2 += o.dia2;
        self.rot4 += o.rot4;
        self.ort2 += o.ort2;
        self.full += o.full;
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

/// How to run (this version searches on the CPU: `BackendChoice::Gpu` is an error).
pub use crate::run::SearchOptions as Options;

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
    /// "cpu".
    pub backend: &'static str,
    /// Seconds the search took.
    pub seconds: f64,
    /// Points placed by the search.
    pub nodes: u64,
    /// Whether the classes match the known values; `None` when none are known.
    pub known_match: Option<bool>,
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

/// The 8 images of a configuration under the symmetries of the square, identity first, in the
/// order: identity, rot90, rot180, rot270, flip rows, flip columns, main diagonal, anti-diagonal.
pub fn images(rows: &[u32]) -> [Configuration; 8] {
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
/// class of its stabiliser.
pub fn classify(rows: &[u32]) -> (bool, Class) {
    let all = images(rows);
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

/// Streams every configuration of size `n` to `found` (from the rayon threads, in no fixed
/// order) and returns the counts.
pub fn enumerate(n: u32, options: &Options, found: impl Fn(&[u32]) + Sync) -> Result<Counts> {
    validate(n)?;
    if options.backend == BackendChoice::Gpu {
        return Err(GpuError::Unsupported(
            "no-three-in-line runs on the CPU in this version".into(),
        )
        .into());
    }
    let pool = cpu_pool(options.threads)?;
    let started = Instant::now();
    let pairs: Vec<(u32, u32)> = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect();
    let progress = options
        .control
        .progress_bar(pairs.len() as u64, &format!("no3line {n}"));
    let results: Mutex<(Classes, u64)> = Mutex::new((Classes::default(), 0));
    let cancelled = pool.install(|| {
        pairs.par_iter().try_for_each(|&(a, b)| {
            if options.control.cancelled() {
                return Err(Error::Interrupted);
            }
            let mut classes = Classes::default();
            let nodes = search_from(n, a, b, &mut |board: &Board| {
                let rows: Vec<u32> = board.points.to_array()[..n as usize].to_vec();
                found(&rows);
                let (canonical, class) = classify(&rows);
                if canonical {
                    match class {
                        Class::Iden => classes.iden += 1,
                        Class::Dia1 => classes.dia1 += 1,
                        Class::Ort1 => classes.ort1 += 1,
                        Class::Rot2 => classes.rot2 += 1,
                        Class::Dia2 => classes.dia2 += 1,
                        Class::Rot4 => classes.rot4 += 1,
                        Class::Ort2 => classes.ort2 += 1,
                        Class::Full => classes.full += 1,
                    }
                }
            });
            let mut totals = results
                .lock()
                .map_err(|_| Error::Verification("a search thread panicked".into()))?;
            totals.0.add(&classes);
            totals.1 += nodes;
            progress.advance(1);
            Ok(())
        })
    });
    progress.finish();
    cancelled?;
    let (classes, nodes) = results
        .into_inner()
        .map_err(|_| Error::Verification("a search thread panicked".into()))?;
    Ok(Counts {
        n,
        total: classes.total(),
        inequivalent: classes.inequivalent(),
        classes,
        backend: "cpu",
        seconds: started.elapsed().as_secs_f64(),
        nodes,
        known_match: known(n).map(|k| k == classes),
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
pub fn svg(rows: &[u32]) -> String {
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
    out + "</svg>\n"
}

/// Counts the configurations of size `n`.
pub fn count(n: u32, options: &Options) -> Result<Counts> {
    enumerate(n, options, |_| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_counts_match_the_known_values_for_n_2_to_10() {
        for n in 2..=10 {
            let total = std::sync::atomic::AtomicU64::new(0);
            let counts = enumerate(n, &Options::default(), |rows| {
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
    fn bad_n_and_gpu_are_errors() {
        assert!(matches!(
            count(1, &Options::default()),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            count(MAX_N + 1, &Options::default()),
            Err(Error::InvalidArgument(_))
        ));
        let gpu = Options {
            backend: BackendChoice::Gpu,
            ..Options::default()
        };
        assert!(matches!(
            count(4, &gpu),
            Err(Error::Gpu(GpuError::Unsupported(_)))
        ));
    }
}
