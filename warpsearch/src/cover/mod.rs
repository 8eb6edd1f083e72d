//! Exact cover (Knuth's Algorithm X): choose options so that every primary item lies in exactly
//! one chosen option and every secondary item in at most one. Problems come in Knuth's dlx1
//! format ([`dlx1::parse`]) or from the generators of [`problems`] (pentomino packings,
//! Sudoku, N-Queens). [`count`] counts every solution on the engine, with the tree of
//! `kernels::cover` (item sets of up to 512 items); [`solutions`] lists some by an independent
//! search, for printing and as the count's cross-check.
//!
//! ```
//! use warpsearch::cover::{self, dlx1};
//! // Knuth's example (TAOCP 7.2.2.1): items a–g, one solution.
//! let problem = dlx1::parse("a b c d e f g\nc e\na d g\nb c f\na d f\nb g\nd e g\n")?;
//! let backend = warpsearch::Backend::Cpu(warpsearch::backend::cpu_pool(Some(1))?);
//! let counts = cover::count(&problem, &backend, &warpsearch::RunControl::quiet())?;
//! assert_eq!(counts.solutions, 1);
//! assert_eq!(cover::solutions(&problem, 10), vec![vec![0, 3, 4]]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod dlx1;
pub mod problems;

use crate::engine::{self, Kernel, Launch, Search, UnitResults};
use crate::error::{Error, Result};
use crate::shard::{Partial, Shard};
use crate::{Backend, RunControl};
use kernels::cover::warp::WarpCover;
use kernels::cover::{Cover, HEADER_WORDS, MAX_OPTIONS_PER_ITEM, MAX_WORDS};

/// An exact-cover problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The items' names; the first `primary` are primary.
    pub items: Vec<String>,
    /// How many items are primary.
    pub primary: usize,
    /// Each option's items, by number.
    pub options: Vec<Vec<usize>>,
    /// The line of each option in its file (1-based), for messages.
    pub lines: Vec<usize>,
}

impl Problem {
    /// A problem from item names (`primary` of them primary, first) and options of item
    /// numbers; the options' lines are their numbers from 2 (as in a dlx1 text without
    /// comments).
    ///
    /// # Errors
    /// What [`dlx1::parse`] refuses: too many items, no primary item, an unknown or repeated
    /// item in an option, an item in too many options.
    pub fn new(items: Vec<String>, primary: usize, options: Vec<Vec<usize>>) -> Result<Problem> {
        let lines = (2..options.len() + 2).collect();
        let problem = Problem {
            items,
            primary,
            options,
            lines,
        };
        if problem.primary == 0 || problem.primary > problem.items.len() {
            return Err(Error::InvalidArgument(format!(
                "{} primary items of {}",
                problem.primary,
                problem.items.len()
            )));
        }
        if problem.items.len() > dlx1::MAX_ITEMS {
            return Err(Error::InvalidArgument(format!(
                "{} items: at most {} are supported",
                problem.items.len(),
                dlx1::MAX_ITEMS
            )));
        }
        for (option, line) in problem.options.iter().zip(&problem.lines) {
            let mut seen = std::collections::BTreeSet::new();
            if let Some(&bad) = option
                .iter()
                .find(|&&item| item >= problem.items.len() || !seen.insert(item))
            {
                return Err(Error::InvalidArgument(format!(
                    "option {}: item {bad} is unknown or repeated",
                    line - 1
                )));
            }
        }
        problem
            .check()
            .map_err(|(line, message)| Error::InvalidArgument(format!("line {line}: {message}")))?;
        Ok(problem)
    }

    /// What the tree cannot hold: an item in more options than an option set has bits.
    fn check(&self) -> std::result::Result<(), (usize, String)> {
        let mut per_item = vec![0usize; self.items.len()];
        for (option, &line) in self.options.iter().zip(&self.lines) {
            for &item in option {
                per_item[item] += 1;
                if per_item[item] > MAX_OPTIONS_PER_ITEM {
                    return Err((
                        line,
                        format!(
                            "item {:?} is in more than {MAX_OPTIONS_PER_ITEM} options",
                            self.items[item]
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The problem as dlx1 text.
    pub fn to_dlx1(&self) -> String {
        let mut text = String::new();
        for (i, item) in self.items.iter().enumerate() {
            if i == self.primary {
                text.push_str("| ");
            }
            text.push_str(item);
            text.push(' ');
        }
        text.pop();
        text.push('\n');
        for option in &self.options {
            let names: Vec<&str> = option.iter().map(|&i| self.items[i].as_str()).collect();
            text.push_str(&names.join(" "));
            text.push('\n');
        }
        text
    }

    /// The flat array of `kernels::cover` (its `Layout`): the primary items in branching
    /// order (fewest options first), each option's item set, each item's options as a list
    /// and as a set over all options.
    pub fn data(&self) -> Vec<u64> {
        let words = self.items.len().div_ceil(64).max(1);
        let mut of_item: Vec<Vec<u64>> = vec![Vec::new(); self.items.len()];
        for (o, option) in self.options.iter().enumerate() {
            for &item in option {
                of_item[item].push(o as u64);
            }
        }
        let mut order: Vec<usize> = (0..self.primary).collect();
        // Among items with as few options left, the tree branches on the first in this order.
        order.sort_by_key(|&item| of_item[item].len());
        // A solution has at most as many options as its primary items allow: each option
        // covers at least its fewest primary items.
        let fewest = self
            .options
            .iter()
            .map(|o| o.iter().filter(|&&i| i < self.primary).count())
            .filter(|&k| k > 0)
            .min()
            .unwrap_or(1);
        let max_depth = self.primary.div_ceil(fewest);
        let mut data = vec![
            self.items.len() as u64,
            self.primary as u64,
            words as u64,
            self.options.len() as u64,
            max_depth as u64,
        ];
        debug_assert_eq!(data.len(), HEADER_WORDS);
        data.extend(order.iter().map(|&i| i as u64));
        for option in &self.options {
            let mut set = vec![0u64; words];
            for &item in option {
                set[item / 64] |= 1 << (item % 64);
            }
            data.extend(set);
        }
        let mut start = 0u64;
        for list in &of_item {
            data.push(start);
            start += list.len() as u64;
        }
        data.push(start);
        for list in &of_item {
            data.extend(list);
        }
        // Each item's options as a set over all options (the warp tree's).
        let option_words = self.options.len().div_ceil(64);
        for list in &of_item {
            let mut set = vec![0u64; option_words];
            for &o in list {
                set[o as usize / 64] |= 1 << (o % 64);
            }
            data.extend(set);
        }
        data
    }
}

/// What a count found.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Solutions.
    pub solutions: u64,
    /// Nodes visited (options chosen) below the units that run (the levels above them, where
    /// the work list is made and expanded, go uncounted).
    pub nodes: u64,
}

impl Partial for Counts {
    fn add(&mut self, other: &Self) {
        self.solutions += other.solutions;
        self.nodes += other.nodes;
    }
    fn nodes(&self) -> u128 {
        self.nodes.into()
    }
}

/// A problem as a search of the engine. Its work list is the item sets covered a few options
/// below the root (at least [`ROOTS`] of them where the tree has that many); each is expanded
/// [`EXPAND_LEVELS`] options deeper into the units that run, on every core while the GPUs
/// count, so that a GPU gets hundreds of thousands of units without the host making them on
/// one thread first.
struct CoverSearch {
    data: Vec<u64>,
    roots: Vec<u64>,
    /// Levels each root is expanded by.
    expand: usize,
}

/// The fewest roots in the work list (`WARPSEARCH_COVER_ROOTS` overrides it).
const ROOTS: usize = 1_024;
/// Options each root is expanded by (`WARPSEARCH_COVER_EXPAND` overrides it).
const EXPAND_LEVELS: usize = 2;

/// A tuning variable's value, or `default` when it is unset or unreadable.
fn tuning(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(default)
}

impl CoverSearch {
    /// The tree with a warp to a node, where the problem has few enough options for it
    /// (`kernels::cover::warp::MAX_OPTIONS`) and its stack fits a lane's shared memory.
    fn warp_tree(&self) -> Option<WarpCover<'_>> {
        WarpCover::new(&self.data).filter(|tree| tree.slab_words() <= MOST_SLAB_WORDS)
    }

    fn new(problem: &Problem) -> CoverSearch {
        let data = problem.data();
        let tree = Cover::new(&data);
        let least = tuning("WARPSEARCH_COVER_ROOTS", ROOTS);
        let expand = tuning("WARPSEARCH_COVER_EXPAND", EXPAND_LEVELS);
        let roots = levels_below(
            &tree,
            vec![0u64; MAX_WORDS],
            tree.layout().max_depth,
            least,
            true,
        );
        CoverSearch {
            data,
            roots,
            expand,
        }
    }
}

/// The item sets `levels` options below those of `units` (fewer levels where `least` sets
/// are reached first; a set that covers every primary item stays as it is), in the same order
/// whether made on one thread or, with `parallel`, a level's sets split over every core (the
/// work list's roots: made before the run starts, so on one thread they would hold it up).
fn levels_below(
    tree: &Cover,
    mut units: Vec<u64>,
    levels: usize,
    least: usize,
    parallel: bool,
) -> Vec<u64> {
    use rayon::prelude::*;
    for _ in 0..levels {
        if units.len() / MAX_WORDS >= least {
            break;
        }
        let below: Vec<u64> = if parallel {
            units
                .par_chunks(MAX_WORDS)
                .flat_map_iter(|unit| {
                    let mut out = Vec::new();
                    children(tree, unit, &mut out);
                    out
                })
                .collect()
        } else {
            let mut below = Vec::with_capacity(units.len() * 8);
            for unit in units.chunks(MAX_WORDS) {
                children(tree, unit, &mut below);
            }
            below
        };
        if below.is_empty() {
            break;
        }
        units = below;
    }
    units
}

/// The units one option below `unit` (a unit that covers every primary item stays as it is:
/// it is a solution).
fn children(tree: &Cover, unit: &[u64], out: &mut Vec<u64>) {
    let mut covered = [0u64; MAX_WORDS];
    covered.copy_from_slice(unit);
    let (item, set) = tree.branch(&covered);
    if item == u32::MAX {
        out.extend_from_slice(unit);
        return;
    }
    for (w, mut bits) in set.0.into_iter().enumerate() {
        while bits != 0 {
            let choice = w as u32 * 64 + bits.trailing_zeros();
            bits &= bits - 1;
            let mut child = covered;
            tree.cover(&mut child, tree.option(item, choice));
            out.extend_from_slice(&child);
        }
    }
}

impl Search for CoverSearch {
    type Partial = Counts;
    const UNIT_WORDS: usize = MAX_WORDS;
    const RESULT_WORDS: usize = 2;
    fn problem(&self) -> &str {
        "cover"
    }
    fn size(&self) -> u32 {
        Cover::new(&self.data).layout().items as u32
    }
    const EXPANDS: bool = true;
    fn units(&self) -> Vec<u64> {
        self.roots.clone()
    }
    /// The root's item sets `expand` options deeper: they depend on the root alone.
    fn expand(&self, root: &[u64], units: &mut Vec<u64>) {
        let tree = Cover::new(&self.data);
        units.extend(levels_below(
            &tree,
            root.to_vec(),
            self.expand,
            usize::MAX,
            false,
        ));
    }
    fn params(&self) -> Vec<u64> {
        self.data.clone()
    }
    /// The lane tree: on the CPU it is as fast as the warp tree's CPU form on the
    /// pentominoes and faster on problems of few options (queens-12: 0.13 s against 0.54 s
    /// on two threads); both count the same (`pentominoes_in_every_listed_box_give_the_known_counts`).
    fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
        let tree = Cover::new(&self.data);
        let mut words = vec![0u32; kernels::dfs::slab_words(&tree) as usize];
        let walked = kernels::dfs::walk_unit_with_nodes(&tree, unit, &mut &mut words[..]);
        result.copy_from_slice(&[walked.found, walked.nodes]);
    }
    fn partial(&self, results: &UnitResults<'_>) -> Counts {
        Counts {
            solutions: results.sum(0),
            nodes: results.sum(1),
        }
    }
    /// The built-in kernel, when this build has it and a lane's slab fits the skeleton's
    /// block (a problem of many items and deep solutions, such as a 9×9 Sudoku's, runs on the
    /// CPU).
    fn kernel(&self) -> Option<Kernel> {
        let name = if self.warp_tree().is_some() {
            "warpsearch_cover_warp"
        } else if kernels::dfs::slab_words(&Cover::new(&self.data)) <= MOST_SLAB_WORDS {
            "warpsearch_cover"
        } else {
            return None;
        };
        crate::builtin::has_kernels().then_some(Kernel {
            ptx: crate::builtin::KERNELS.ptx,
            native: crate::builtin::KERNELS.native,
            name,
        })
    }
    fn launch(&self) -> Launch {
        match self.warp_tree() {
            Some(tree) => Launch::skeleton(tree.slab_words()),
            None => Launch::skeleton(kernels::dfs::slab_words(&Cover::new(&self.data))),
        }
    }
}

/// The most slab words a lane of the skeleton's 128-thread blocks may take (227 KB of shared
/// memory a block).
const MOST_SLAB_WORDS: u32 = 454;

/// Whether `problem` can run on the GPU: this build has the kernel and a lane's part of the
/// search fits the skeleton's shared memory.
pub fn runs_on_gpu(problem: &Problem) -> bool {
    CoverSearch {
        data: problem.data(),
        roots: Vec::new(),
        expand: 0,
    }
    .kernel()
    .is_some()
}

/// Counts every solution of `problem` on `backend` (a GPU backend only for a problem that
/// [`runs_on_gpu`]).
pub fn count(problem: &Problem, backend: &Backend, control: &RunControl) -> Result<Counts> {
    let search = CoverSearch::new(problem);
    if let (Backend::Gpu(_), None) = (backend, search.kernel()) {
        return Err(Error::InvalidArgument(
            "this problem runs on the CPU only (a build without GPU kernels, or too many items for a lane's shared memory): use --backend cpu".into(),
        ));
    }
    Ok(engine::run(&search, backend, control, Shard::WHOLE, None)?.counts)
}

/// Up to `limit` solutions, each its options by number in increasing order, found by a plain
/// Algorithm X (the item with the fewest options left first) independent of the counting tree.
pub fn solutions(problem: &Problem, limit: usize) -> Vec<Vec<usize>> {
    let mut of_item: Vec<Vec<usize>> = vec![Vec::new(); problem.items.len()];
    for (o, option) in problem.options.iter().enumerate() {
        for &item in option {
            of_item[item].push(o);
        }
    }
    let mut found = Vec::new();
    let mut covered = vec![false; problem.items.len()];
    let mut chosen = Vec::new();
    search(
        problem,
        &of_item,
        &mut covered,
        &mut chosen,
        limit,
        &mut found,
    );
    found
}

fn search(
    problem: &Problem,
    of_item: &[Vec<usize>],
    covered: &mut [bool],
    chosen: &mut Vec<usize>,
    limit: usize,
    found: &mut Vec<Vec<usize>>,
) {
    if found.len() >= limit {
        return;
    }
    let fits = |o: usize, covered: &[bool]| problem.options[o].iter().all(|&i| !covered[i]);
    let best = (0..problem.primary)
        .filter(|&item| !covered[item])
        .map(|item| {
            (
                of_item[item].iter().filter(|&&o| fits(o, covered)).count(),
                item,
            )
        })
        .min();
    let Some((_, item)) = best else {
        let mut solution = chosen.clone();
        solution.sort_unstable();
        found.push(solution);
        return;
    };
    for &o in &of_item[item] {
        if !fits(o, covered) {
            continue;
        }
        for &i in &problem.options[o] {
            covered[i] = true;
        }
        chosen.push(o);
        search(problem, of_item, covered, chosen, limit, found);
        chosen.pop();
        for &i in &problem.options[o] {
            covered[i] = false;
        }
        if found.len() >= limit {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu() -> Backend {
        Backend::Cpu(crate::backend::cpu_pool(None).unwrap())
    }

    fn counted(problem: &Problem) -> u64 {
        count(problem, &cpu(), &RunControl::quiet())
            .unwrap()
            .solutions
    }

    #[test]
    fn dlx1_reads_knuths_format_and_names_the_line_of_each_error() {
        let text = "| a comment\na b c | x y\n| another\na x\nb c y\n\nc x\n";
        let problem = dlx1::parse(text).unwrap();
        assert_eq!((problem.items.len(), problem.primary), (5, 3));
        assert_eq!(problem.options, [vec![0, 3], vec![1, 2, 4], vec![2, 3]]);
        assert_eq!(problem.lines, [4, 5, 7]);
        // Round trip.
        assert_eq!(
            dlx1::parse(&problem.to_dlx1()).unwrap().options,
            problem.options
        );
        for (bad, line, says) in [
            ("", 1, "no item line"),
            ("| only\n", 1, "no item line"),
            ("a b\na q\n", 2, "not an item"),
            ("a b\nb a b\n", 2, "twice in one option"),
            ("a a\n", 1, "named twice"),
            ("a | b | c\n", 1, "second `|`"),
            ("averylongname\n", 1, "longer than 8"),
            ("a b\n\na b:1\n", 3, "colours"),
        ] {
            let error = dlx1::parse(bad).unwrap_err();
            assert_eq!(error.line, line, "{bad:?}: {error}");
            assert!(error.to_string().contains(says), "{bad:?}: {error}");
        }
        let many: Vec<String> = (0..600).map(|i| format!("i{i}")).collect();
        assert!(
            dlx1::parse(&many.join(" "))
                .unwrap_err()
                .message
                .contains("at most 512")
        );
    }

    #[test]
    fn sudoku_and_queens_as_exact_cover_give_the_known_counts() {
        let empty = problems::sudoku(&".".repeat(16)).unwrap();
        assert_eq!(counted(&empty), 288);
        let puzzle =
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
        let problem = problems::sudoku(puzzle).unwrap();
        assert_eq!(counted(&problem), 1);
        let solution = &solutions(&problem, 2)[0];
        // The grid the solution fills keeps the givens.
        let mut grid = [0usize; 81];
        for &o in solution {
            let option = &problem.options[o];
            grid[option[0]] = option[1] % 9 + 1;
        }
        for (cell, given) in puzzle.chars().enumerate() {
            if let Some(d) = given.to_digit(10) {
                assert_eq!(grid[cell], d as usize);
            }
        }
        assert!(problems::sudoku("123").is_err());
        for n in 1..=9 {
            let known = crate::nqueens::known(n).map(|(total, _)| total as u64);
            let problem = problems::queens(n as usize);
            assert_eq!(Some(counted(&problem)), known, "n = {n}");
            assert_eq!(Some(solutions(&problem, usize::MAX).len() as u64), known);
        }
    }

    #[test]
    fn pentominoes_in_small_boxes_give_the_known_counts_and_agree_with_the_listing() {
        let thin = problems::pentominoes(3, 20, &[]);
        assert_eq!(counted(&thin), 8);
        assert_eq!(solutions(&thin, 100).len(), 8);
    }

    /// The warp tree's CPU form (the 32 lanes as arrays) over every unit of the work list,
    /// expanded: the known counts, as the GPU's kernel must give.
    fn counted_by_the_warp_tree(problem: &Problem) -> u64 {
        let search = CoverSearch::new(problem);
        let tree = search
            .warp_tree()
            .expect("few enough options for the warp tree");
        let mut slab = vec![kernels::warp::Lanes::splat(0u32); tree.slab_words() as usize];
        let mut units = Vec::new();
        for root in search.roots.chunks(MAX_WORDS) {
            search.expand(root, &mut units);
        }
        units
            .chunks(MAX_WORDS)
            .map(|unit| tree.walk(unit, &mut &mut slab[..]).found)
            .sum()
    }

    #[test]
    fn the_warp_tree_counts_small_boxes_queens_and_sudoku() {
        assert_eq!(
            counted_by_the_warp_tree(&problems::pentominoes(3, 20, &[])),
            8
        );
        assert_eq!(counted_by_the_warp_tree(&problems::queens(8)), 92);
        let empty = problems::sudoku(&".".repeat(16)).unwrap();
        assert_eq!(counted_by_the_warp_tree(&empty), 288);
    }

    #[test]
    #[ignore = "seconds on two cores; run with --ignored (CI does)"]
    fn pentominoes_in_every_listed_box_give_the_known_counts() {
        let centre = [(3, 3), (3, 4), (4, 3), (4, 4)];
        for (rows, columns, holes, known) in [
            (4, 15, &[][..], 1472),
            (5, 12, &[][..], 4040),
            (6, 10, &[][..], 9356),
            (8, 8, &centre[..], 520),
        ] {
            let problem = problems::pentominoes(rows, columns, holes);
            assert_eq!(counted(&problem), known, "{rows}×{columns}");
            // The GPU's tree for these boxes, in its CPU form.
            assert_eq!(
                counted_by_the_warp_tree(&problem),
                known,
                "{rows}×{columns}, a warp to a node"
            );
        }
    }
}
