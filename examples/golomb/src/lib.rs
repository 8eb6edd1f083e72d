//! Optimal Golomb rulers on warpsearch's engine: the work list (every placement of the first
//! few marks), the run's shared bound, the result (the shortest ruler found, its marks
//! rebuilt on the host), and an independent slow solver the tests check the search against.

use golomb_kernels::{MAX_MARKS, MAX_PREFIX, OPTIMAL, WIDTH, encode, gap, search_unit, words_for};
use warpsearch_engine::search::{Kernel, Launch, Partial, Search, SharedBound, UnitResults};

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/golomb.ptx"));
const NATIVE: &[(u32, &[u8])] = include!(concat!(env!("OUT_DIR"), "/golomb.ptx.native.rs"));

/// Units the work list aims at: enough for every lane of a large GPU several times over.
const TARGET_UNITS: u64 = 1 << 17;

/// The optimal length of a ruler of `marks` marks, where known (OEIS A003022).
pub fn known(marks: u32) -> Option<u32> {
    OPTIMAL.get(marks as usize).copied()
}

/// The shortest ruler of some units: its length (`WIDTH` when none was found), its marks,
/// and the nodes visited.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Shortest {
    /// The ruler's length; `WIDTH` for none.
    pub length: u32,
    /// Its marks, from 0 (empty for none).
    pub marks: Vec<u32>,
    /// Nodes visited.
    pub nodes: u64,
}

impl Default for Shortest {
    fn default() -> Self {
        Shortest {
            length: WIDTH,
            marks: Vec::new(),
            nodes: 0,
        }
    }
}

impl Partial for Shortest {
    /// The shorter ruler (of two as short, the first in the order of their marks, so that
    /// shards add up to the same answer in any order); the nodes add up.
    fn add(&mut self, other: &Self) {
        if (other.length, &other.marks) < (self.length, &self.marks) {
            self.length = other.length;
            self.marks = other.marks.clone();
        }
        self.nodes += other.nodes;
    }
    fn nodes(&self) -> u128 {
        self.nodes.into()
    }
}

/// The search for an optimal ruler of `marks` marks.
pub struct Golomb {
    marks: u32,
    prefix: u32,
    /// The bound the search starts from: a multiple of 32, the bitmaps' width.
    start: u32,
    bound: SharedBound,
}

impl Golomb {
    /// The search for a ruler of `marks` marks (2..=[`MAX_MARKS`]) shorter than `start`
    /// (rounded up to a multiple of 32, at most [`WIDTH`]): the narrower the bitmaps, the
    /// faster each node, and the lower the bound, the less is searched before the first
    /// rulers tighten it. Its units are the placements of the first few marks: as many as
    /// needed for about 2^17 units.
    pub fn new(marks: u32, start: u32) -> Golomb {
        let marks = marks.clamp(2, MAX_MARKS);
        let start = (32 * words_for(start.max(1)) as u32).clamp(128, WIDTH);
        let most = (marks - 2).min(MAX_PREFIX);
        let prefix = (1..most)
            .find(|&k| count_prefixes(marks, k, start) >= TARGET_UNITS)
            .unwrap_or(most);
        Golomb {
            marks,
            prefix,
            start,
            bound: SharedBound::new(start as u64),
        }
    }

    /// The first bound to try for `marks` marks: the bitmaps just wide enough for the known
    /// optimal length. The search proves that nothing shorter than what it finds exists
    /// whatever the start; a start too low would find nothing, and say so.
    pub fn first(marks: u32) -> Golomb {
        Golomb::new(marks, known(marks).map_or(WIDTH, |k| k + 1))
    }

    /// The lowest bound the run reached: the length of the shortest ruler any unit found.
    pub fn reached(&self) -> u64 {
        self.bound.get()
    }

    /// The bound the search started from: it proves that no ruler shorter than this exists
    /// when it finds none.
    pub fn start(&self) -> u32 {
        self.start
    }

    fn words(&self) -> usize {
        words_for(self.start)
    }

    /// Marks of the ruler searched.
    pub fn marks(&self) -> u32 {
        self.marks
    }
}

/// Calls `out` with the gaps of every Golomb prefix of `marks.len() − 1 + left` gaps, of a
/// ruler of `total` marks, that can still end shorter than `bound`, extending `marks`.
fn prefixes(total: u32, left: u32, bound: u32, marks: &mut Vec<u32>, out: &mut dyn FnMut(&[u32])) {
    if left == 0 {
        let gaps: Vec<u32> = marks.windows(2).map(|w| w[1] - w[0]).collect();
        return out(&gaps);
    }
    let last = *marks.last().unwrap_or(&0);
    let room = OPTIMAL[(total - marks.len() as u32) as usize];
    for position in last + 1..bound.saturating_sub(room) {
        if fits(marks, position) {
            marks.push(position);
            prefixes(total, left - 1, bound, marks, out);
            marks.pop();
        }
    }
}

fn count_prefixes(marks: u32, gaps: u32, bound: u32) -> u64 {
    let mut count = 0;
    prefixes(marks, gaps, bound, &mut vec![0], &mut |_| count += 1);
    count
}

/// Whether a mark at `position` (past every mark of `marks`) keeps the differences distinct.
fn fits(marks: &[u32], position: u32) -> bool {
    let mut seen = [false; 2 * WIDTH as usize];
    for (i, &a) in marks.iter().enumerate() {
        for &b in &marks[i + 1..] {
            seen[(b - a) as usize] = true;
        }
    }
    marks.iter().all(|&a| {
        let difference = (position - a) as usize;
        !std::mem::replace(&mut seen[difference], true)
    })
}

/// Whether `marks` (rising, from 0) is a Golomb ruler.
pub fn is_golomb(marks: &[u32]) -> bool {
    marks.first() == Some(&0)
        && marks.windows(2).all(|w| w[0] < w[1])
        && (1..marks.len()).all(|k| fits(&marks[..k], marks[k]))
}

/// The independent solver: the first ruler of `marks` marks (in the order of their marks)
/// that extends `start` and is at most `longest` long; plain recursion over positions with a
/// table of differences, no bitmaps, no symmetry, no bound beyond `longest`.
pub fn first_ruler(marks: u32, start: &[u32], longest: u32) -> Option<Vec<u32>> {
    /// `seen[d]`: some two marks of `ruler` are `d` apart.
    fn extend(marks: u32, ruler: &mut Vec<u32>, seen: &mut [bool], longest: u32) -> bool {
        if ruler.len() as u32 == marks {
            return true;
        }
        let last = *ruler.last().unwrap_or(&0);
        let room = OPTIMAL[(marks - ruler.len() as u32) as usize];
        for position in last + 1..=longest.saturating_sub(room) {
            if ruler.iter().any(|&a| seen[(position - a) as usize]) {
                continue;
            }
            ruler
                .iter()
                .for_each(|&a| seen[(position - a) as usize] = true);
            ruler.push(position);
            if extend(marks, ruler, seen, longest) {
                return true;
            }
            ruler.pop();
            ruler
                .iter()
                .for_each(|&a| seen[(position - a) as usize] = false);
        }
        false
    }
    if !is_golomb(start) {
        return None;
    }
    let mut seen = vec![false; longest as usize + 1];
    for (i, &a) in start.iter().enumerate() {
        for &b in &start[i + 1..] {
            *seen.get_mut((b - a) as usize)? = true;
        }
    }
    let mut ruler = start.to_vec();
    extend(marks, &mut ruler, &mut seen, longest).then_some(ruler)
}

impl Search for Golomb {
    type Partial = Shortest;
    const UNIT_WORDS: usize = 1;
    const RESULT_WORDS: usize = 2;

    fn problem(&self) -> &str {
        "golomb"
    }
    fn size(&self) -> u32 {
        self.marks
    }
    fn units(&self) -> Vec<u64> {
        let mut units = Vec::new();
        prefixes(
            self.marks,
            self.prefix,
            self.start,
            &mut vec![0],
            &mut |gaps| units.push(encode(gaps)),
        );
        units
    }
    fn params(&self) -> Vec<u64> {
        vec![self.marks as u64, self.prefix as u64, self.words() as u64]
    }
    fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
        let walked = search_unit(
            self.marks,
            self.prefix,
            self.words(),
            self.bound.atomic(),
            unit[0],
        );
        result.copy_from_slice(&[walked.found, walked.nodes]);
    }
    /// A unit reports only how many times it lowered the bound; the ruler itself is rebuilt
    /// here, by the independent solver, in each such unit at the bound now known.
    fn partial(&self, results: &UnitResults) -> Shortest {
        let mut shortest = Shortest {
            nodes: results.sum(1),
            ..Shortest::default()
        };
        let best = self.bound.get().min(self.start as u64) as u32;
        for finished in results.iter() {
            if finished.result[0] == 0 || best >= self.start {
                continue;
            }
            let unit = finished.unit[0];
            let mut start = vec![0];
            for i in 0..self.prefix {
                start.push(start[i as usize] + gap(unit, i));
            }
            if let Some(marks) = first_ruler(self.marks, &start, best) {
                shortest.add(&Shortest {
                    length: *marks.last().unwrap_or(&0),
                    marks,
                    nodes: 0,
                });
            }
        }
        shortest
    }
    fn shared_bound(&self) -> Option<&SharedBound> {
        Some(&self.bound)
    }
    fn kernel(&self) -> Option<Kernel> {
        Some(Kernel {
            ptx: PTX,
            native: NATIVE,
            name: "golomb_search",
        })
    }
    fn launch(&self) -> Launch {
        Launch::skeleton(golomb_kernels::slab_words(
            self.marks,
            self.prefix,
            self.words(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpsearch_engine::{RunControl, backend, search, shard::Shard};

    #[test]
    fn the_engine_proves_the_optimal_lengths_up_to_11_marks_on_the_cpu() {
        let cpu = warpsearch_engine::Backend::Cpu(backend::cpu_pool(None).unwrap());
        for marks in 2..=11 {
            let search = Golomb::first(marks);
            let result = search::run(&search, &cpu, &RunControl::quiet(), Shard::WHOLE, None);
            let shortest = result.unwrap().counts;
            assert_eq!(Some(shortest.length), known(marks), "{marks} marks");
            assert!(is_golomb(&shortest.marks), "{:?}", shortest.marks);
            assert_eq!(shortest.marks.len() as u32, marks);
            assert_eq!(*shortest.marks.last().unwrap(), shortest.length);
        }
    }

    #[test]
    fn a_bound_tight_from_the_start_still_finds_the_optimum() {
        // As on a GPU, where thousands of lanes tighten the bound before the unit that holds
        // the optimum is walked.
        let cpu = warpsearch_engine::Backend::Cpu(backend::cpu_pool(None).unwrap());
        for marks in 3..=12 {
            let search = Golomb::first(marks);
            let optimal = known(marks).unwrap();
            search.bound.lower(optimal as u64 + 1);
            let result = search::run(&search, &cpu, &RunControl::quiet(), Shard::WHOLE, None);
            let shortest = result.unwrap().counts;
            assert_eq!(shortest.length, optimal, "{marks} marks");
            assert!(is_golomb(&shortest.marks));
        }
    }

    /// A slab that stands for the other lanes of a GPU: while the walk runs, they keep
    /// lowering the shared bound (one step every `every` stores, down to `floor`).
    struct Racing<'a> {
        words: [u32; golomb_kernels::SLAB_WORDS],
        best: &'a std::sync::atomic::AtomicU64,
        floor: u64,
        every: u32,
        stores: u32,
    }

    impl warpsearch_engine::kernels::slab::Slab for Racing<'_> {
        fn get(&self, index: u32) -> u32 {
            self.words[index as usize]
        }
        fn set(&mut self, index: u32, value: u32) {
            self.words[index as usize] = value;
            self.stores += 1;
            if self.stores.is_multiple_of(self.every)
                && self.best.load(std::sync::atomic::Ordering::Relaxed) > self.floor
            {
                self.best.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    #[test]
    fn a_bound_that_other_lanes_lower_during_the_walk_still_leads_to_the_optimum() {
        for marks in 10..=12 {
            let search = Golomb::first(marks);
            let floor = known(marks).unwrap() as u64 + 1;
            for every in [5, 50] {
                let best = std::sync::atomic::AtomicU64::new(search.start as u64);
                let mut slab = Racing {
                    words: [0; golomb_kernels::SLAB_WORDS],
                    best: &best,
                    floor,
                    every,
                    stores: 0,
                };
                let tree = golomb_kernels::Ruler::<4> {
                    marks,
                    prefix: search.prefix,
                    best: &best,
                };
                for unit in search.units() {
                    warpsearch_engine::kernels::dfs::walk_unit(&tree, &[unit], &mut slab);
                }
                assert_eq!(best.into_inner(), floor - 1, "{marks} marks, every {every}");
            }
        }
    }

    #[test]
    fn shards_merge_to_the_shortest_ruler() {
        let cpu = warpsearch_engine::Backend::Cpu(backend::cpu_pool(None).unwrap());
        let dir = std::env::temp_dir().join(format!("golomb-shards-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files: Vec<_> = (1..=3)
            .map(|k| {
                let shard = Shard::new(k, 3).unwrap();
                let search = Golomb::first(10);
                let result = search::run(&search, &cpu, &RunControl::quiet(), shard, None);
                let file = dir.join(format!("{k}.json"));
                warpsearch_engine::shard::write_json_atomically(&file, &result.unwrap()).unwrap();
                file
            })
            .collect();
        let (_, shortest, _, _) = warpsearch_engine::shard::merge::<Shortest>(&files).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(shortest.length, 55);
        assert!(is_golomb(&shortest.marks));
    }

    #[test]
    fn the_independent_solver_finds_the_optimal_lengths_and_nothing_shorter() {
        for marks in 3..=9 {
            let optimal = known(marks).unwrap();
            let ruler = first_ruler(marks, &[0], optimal).unwrap();
            assert!(is_golomb(&ruler));
            assert_eq!(first_ruler(marks, &[0], optimal - 1), None, "{marks} marks");
        }
    }

    #[test]
    fn every_unit_is_a_golomb_prefix_and_none_is_missing() {
        let search = Golomb::new(8, 200);
        let units = search.units();
        assert_eq!(units.len() as u64, count_prefixes(8, search.prefix, 224));
        for &unit in &units {
            let mut marks = vec![0];
            for i in 0..search.prefix {
                marks.push(marks[i as usize] + gap(unit, i));
            }
            assert!(is_golomb(&marks), "{marks:?}");
        }
    }
}
