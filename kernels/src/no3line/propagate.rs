//! The propagating depth-first search: propagate, prune by symmetry, branch — one warp per
//! board, with the boards still to visit on an explicit stack.

use super::cells::{Branch, Cells, Transposed};
use super::pairs::PairLines;
use super::symmetry::nearest_centre;
use crate::bits::{lowest_bit, popc};
use crate::slab::LaneSlab;

/// Words one stored board takes (on a stack, in a start list, in a hand-over): its points and
/// empty cells. Boards are stored settled ([`settle`]), so every point's lines are marked and
/// the done points need no word of their own ([`Cells::settled`]).
pub const WORDS_PER_BOARD: u32 = 2;

/// Which of the search's optional rules are on (all of them unless measuring what each
/// saves). Passed to the GPU as [`Techniques::bits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Techniques {
    /// Drop boards none of whose completions is canonical; off, every configuration is
    /// reported, not one per orbit.
    pub symmetry: bool,
    /// Branch on vulnerable cells first; off, always on a row (or a scored cell).
    pub vulnerable_cells: bool,
    /// Choose the row by [`row_score`](super::cells::row_score), and branch on a scored
    /// cell when every row is wide; off, the row with the fewest ways to finish.
    pub scored_branching: bool,
    /// A row's children place one point each, centre-out, the cells tried before it empty
    /// ([`expand`]; the first row under symmetry excepted); off, each child completes the
    /// row (every pair of its unknown cells).
    pub sequential_rows: bool,
    /// With `symmetry`, compare the 7 images with partial boards too, not only with complete
    /// ones ([`Cells::has_smaller_image`]). Off by default: on partial boards it pruned a
    /// board in 500 (n = 11), for six warp transposes' worth of work per settle.
    pub images_on_partial_boards: bool,
}

impl Techniques {
    /// The search as shipped: everything on but the image comparisons on partial boards.
    pub const DEFAULT: Techniques = Techniques {
        symmetry: true,
        vulnerable_cells: true,
        scored_branching: true,
        sequential_rows: true,
        images_on_partial_boards: false,
    };

    /// Bit 0: symmetry, bit 1: vulnerable cells, bit 2: scored branching, bit 3: sequential
    /// rows, bit 4: images on partial boards.
    pub fn bits(self) -> u32 {
        u32::from(self.symmetry)
            | u32::from(self.vulnerable_cells) << 1
            | u32::from(self.scored_branching) << 2
            | u32::from(self.sequential_rows) << 3
            | u32::from(self.images_on_partial_boards) << 4
    }

    /// The inverse of [`bits`](Self::bits).
    #[inline(always)]
    pub fn from_bits(bits: u32) -> Techniques {
        Techniques {
            symmetry: bits & 1 != 0,
            vulnerable_cells: bits & 2 != 0,
            scored_branching: bits & 4 != 0,
            sequential_rows: bits & 8 != 0,
            images_on_partial_boards: bits & 16 != 0,
        }
    }
}

/// Why a search stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The stack was full: the search needs more than the capacity it was given.
    StackFull,
    /// [`Share::cancelled`] said so: Ctrl-C on a CPU thread. The subtree is unfinished and
    /// must not be counted. (Not on the GPU, where a second variant, even unused, costs the
    /// kernel spills: there a stop returns [`Stopped::StackFull`], and the caller, which asked
    /// for the stop, tells them apart by asking [`Share::cancelled`] again.)
    #[cfg(not(target_arch = "nvptx64"))]
    Cancelled,
}

impl Stopped {
    /// What a search returns when [`Share::cancelled`] says so.
    #[cfg(not(target_arch = "nvptx64"))]
    pub const CANCELLED: Stopped = Stopped::Cancelled;
    /// What a search returns when [`Share::cancelled`] says so.
    #[cfg(target_arch = "nvptx64")]
    pub const CANCELLED: Stopped = Stopped::StackFull;
}

/// `cells` propagated to a fixpoint and checked against the symmetries: a *node* of the
/// search (a consistent board that may still complete to a canonical configuration), or
/// `None` when it is contradictory or cannot be canonical.
///
/// Every board gets the cheap symmetry test (its border lines against its first row); the
/// 7 image comparisons, which need the board transposed, only complete boards (unless
/// `techniques.images_on_partial_boards`): on partial boards almost every comparison stops
/// at a cell still unknown.
///
/// Children are settled before they are stored, so a stack holds only nodes: boards that
/// propagation kills cost no stack traffic, and the search counts the boards it branches on
/// (as the published CUDA search counts its consistent boards).
#[inline(always)]
pub fn settle(
    n: u32,
    lines: &PairLines,
    techniques: Techniques,
    mut cells: Cells,
) -> Option<Cells> {
    if !cells.propagate(n, lines) {
        return None;
    }
    if techniques.symmetry {
        if !cells.border_lines_can_reach_the_first_row(n) {
            return None;
        }
        let compare = techniques.images_on_partial_boards || cells.is_complete();
        if compare && cells.has_smaller_image(n, &Transposed::of(&cells)) {
            return None;
        }
    }
    Some(cells)
}

/// One step of the search at `node` (a [`settle`]d board): hands it to `complete` when every
/// cell is known, else branches and hands `child` each child that settles (every child has
/// one more decision; together they cover every completion exactly once). Returns the number
/// of children handed on.
///
/// The host calls this to split the tree breadth-first; [`Propagating`] calls it with its
/// stack.
#[inline(always)]
pub fn expand(
    n: u32,
    lines: &PairLines,
    techniques: Techniques,
    node: &Cells,
    mut complete: impl FnMut(&Cells),
    mut child: impl FnMut(&Cells),
) -> u32 {
    let mut children = 0;
    let mut settled = |board: Cells| {
        if let Some(board) = settle(n, lines, techniques, board) {
            child(&board);
            children += 1;
        }
    };
    match node.branch(n, techniques, lines, &Transposed::of(node)) {
        Branch::Complete => complete(node),
        Branch::Cell { row, column } => {
            settled(node.with_empty(row, column));
            settled(node.with_points(row, 1 << column));
        }
        Branch::Row {
            row,
            unknown,
            has_point,
        } if techniques.sequential_rows && !(techniques.symmetry && row == 0) => {
            // Child i: a point at the i-th cell centre-out, the cells before it empty. A row
            // without a point needs two, so its last cell is never its first point. (Not the
            // first row under symmetry: the canonical test prunes once it has both points,
            // so it gets them in one step.)
            let mut tried = *node;
            let mut left = unknown;
            while popc(left) > u32::from(!has_point) {
                let Some(column) = nearest_centre(left, n) else {
                    break;
                };
                settled(tried.with_points(row, 1 << column));
                tried = tried.with_empty(row, column);
                left ^= 1 << column;
            }
        }
        Branch::Row {
            row,
            unknown,
            has_point,
        } => {
            let mut firsts = unknown;
            while firsts != 0 {
                let a = lowest_bit(firsts);
                firsts ^= a;
                if has_point {
                    settled(node.with_points(row, a));
                    continue;
                }
                let mut seconds = firsts;
                while seconds != 0 {
                    let b = lowest_bit(seconds);
                    seconds ^= b;
                    settled(node.with_points(row, a | b));
                }
            }
        }
    }
    children
}

/// Where a search may hand pending boards to searchers with nothing to do (the GPU's warps
/// through a [`Handoff`](crate::handoff::Handoff)).
pub trait Share {
    /// Whether some searcher is waiting for a board (asked every [`SHARE_EVERY`] nodes while
    /// boards are pending: it must be cheap).
    fn wanted(&self) -> bool;
    /// Hands `board` over; false when nobody took it (the search keeps it).
    fn give(&self, board: &Cells) -> bool;
    /// Whether the search should stop now, unfinished (asked every [`CANCEL_EVERY`] nodes;
    /// never, unless overridden): how a CPU thread honours Ctrl-C inside a long subtree, and a
    /// GPU warp the launch's stop word (a subtree of n = 17 can keep a warp for many minutes,
    /// longer than a scheduler waits between SIGTERM and SIGKILL).
    #[inline(always)]
    fn cancelled(&self) -> bool {
        false
    }
}

/// Shares nothing and never stops early: a plain search of one subtree to its end. (The CPU
/// backend's threads use a `Share` that stops on Ctrl-C; GPU warps one around the launch's
/// hand-over region.)
pub struct Keep;

impl Share for Keep {
    #[inline(always)]
    fn wanted(&self) -> bool {
        false
    }
    #[inline(always)]
    fn give(&self, _: &Cells) -> bool {
        false
    }
}

/// Nodes between two looks for a searcher waiting for a board (a power of two).
pub const SHARE_EVERY: u64 = 8;
/// Nodes between two looks at [`Share::cancelled`] (a power of two): a GPU warp expands
/// ≈ 10⁵ boards a second at n = 17, so a stop is seen within ≈ 50 ms (measured on an H100:
/// n = 15 and 17 exit 0.1 s after SIGTERM). The look costs n = 15 47.09 → 47.62 s (every 256
/// boards: 47.62–47.95 s); docs/notes/no3line-gpu.md.
pub const CANCEL_EVERY: u64 = 4096;

/// The search below one board, with a stack of pending boards in a [`LaneSlab`] of
/// `capacity ·` [`WORDS_PER_BOARD`] words (global memory on the GPU: a warp's private
/// region, one coalesced access per word).
pub struct Propagating<'l, S: LaneSlab> {
    n: u32,
    techniques: Techniques,
    lines: &'l PairLines<'l>,
    stack: S,
    capacity: u32,
}

impl<'l, S: LaneSlab> Propagating<'l, S> {
    /// A search of size `n` with `techniques`, using `stack` for `capacity` pending boards.
    #[inline(always)]
    pub fn new(
        n: u32,
        techniques: Techniques,
        lines: &'l PairLines<'l>,
        stack: S,
        capacity: u32,
    ) -> Self {
        Propagating {
            n,
            techniques,
            lines,
            stack,
            capacity,
        }
    }

    #[inline(always)]
    fn store(&mut self, slot: u32, cells: &Cells) {
        let base = slot * WORDS_PER_BOARD;
        self.stack.set(base, cells.points);
        self.stack.set(base + 1, cells.empty);
    }

    #[inline(always)]
    fn load(&self, slot: u32) -> Cells {
        let base = slot * WORDS_PER_BOARD;
        Cells::settled(self.stack.get(base), self.stack.get(base + 1))
    }

    /// Visits every board below `start` (any board: it is [`settle`]d first, which leaves a
    /// node as it is), calls `complete` with each canonical configuration, and returns the
    /// nodes expanded, or why it stopped early. While boards are pending and `share` wants
    /// one, the oldest (the shallowest, so the largest subtree) is handed over instead of
    /// searched here.
    #[inline(always)]
    pub fn run(
        &mut self,
        start: &Cells,
        share: &impl Share,
        mut complete: impl FnMut(&Cells),
    ) -> Result<u64, Stopped> {
        let (n, lines, techniques, capacity) = (self.n, self.lines, self.techniques, self.capacity);
        let wrap = |slot: u32| {
            if slot >= capacity {
                slot - capacity
            } else {
                slot
            }
        };
        let mut nodes = 0u64;
        let Some(mut next) = settle(n, lines, techniques, *start) else {
            return Ok(0);
        };
        // Pending boards: slots `bottom ..` (modulo the capacity), oldest first.
        let mut bottom = 0u32;
        let mut pending = 0u32;
        loop {
            nodes += 1;
            // The first child is searched at once; the others wait on the stack.
            let mut first: Option<Cells> = None;
            let mut full = false;
            expand(n, lines, techniques, &next, &mut complete, |c| {
                if first.is_none() {
                    first = Some(*c);
                } else if pending < capacity {
                    self.store(wrap(bottom + pending), c);
                    pending += 1;
                } else {
                    full = true;
                }
            });
            if full {
                return Err(Stopped::StackFull);
            }
            next = match first {
                Some(c) => c,
                None if pending == 0 => return Ok(nodes),
                None => {
                    pending -= 1;
                    self.load(wrap(bottom + pending))
                }
            };
            if nodes & (CANCEL_EVERY - 1) == 0 && share.cancelled() {
                return Err(Stopped::CANCELLED);
            }
            if pending > 0
                && nodes & (SHARE_EVERY - 1) == 0
                && share.wanted()
                && share.give(&self.load(bottom))
            {
                bottom = wrap(bottom + 1);
                pending -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warp::Lanes;
    use std::vec;
    use std::vec::Vec;

    fn table(n: u32) -> Vec<u32> {
        let mut words = vec![0; PairLines::len(n)];
        PairLines::fill(n, &mut words);
        words
    }

    /// Calls `f` with a search of size `n` and a stack of `capacity` boards.
    fn with_search<R>(
        n: u32,
        techniques: Techniques,
        capacity: u32,
        f: impl FnOnce(&mut Propagating<'_, &mut [Lanes<u32>]>) -> R,
    ) -> R {
        let words = table(n);
        let lines = PairLines::new(n, &words);
        let mut stack = vec![Lanes::splat(0u32); (WORDS_PER_BOARD * capacity) as usize];
        f(&mut Propagating::new(
            n,
            techniques,
            &lines,
            stack.as_mut_slice(),
            capacity,
        ))
    }

    /// The configurations the search reports (each orbit's canonical member), and its nodes.
    pub(crate) fn search(n: u32, techniques: Techniques) -> (Vec<Vec<u32>>, u64) {
        with_search(n, techniques, 4096, |search| {
            let mut found = Vec::new();
            let nodes = search
                .run(&Cells::new(n), &Keep, |c| {
                    found.push(c.points.to_array()[..n as usize].to_vec())
                })
                .expect("a stack of 4096 boards is enough for n ≤ 10");
            (found, nodes)
        })
    }

    fn valid(rows: &[u32]) -> bool {
        let n = rows.len() as i64;
        let points: Vec<(i64, i64)> = (0..n)
            .flat_map(|r| {
                (0..n)
                    .filter(move |&c| rows[r as usize] >> c & 1 == 1)
                    .map(move |c| (r, c))
            })
            .collect();
        let columns_ok = (0..n).all(|c| points.iter().filter(|p| p.1 == c).count() == 2);
        let rows_ok = rows.iter().all(|r| r.count_ones() == 2);
        let no_three = points.iter().enumerate().all(|(i, a)| {
            points[i + 1..].iter().enumerate().all(|(j, b)| {
                points[i + 1 + j + 1..]
                    .iter()
                    .all(|c| (b.0 - a.0) * (c.1 - a.1) != (c.0 - a.0) * (b.1 - a.1))
            })
        });
        columns_ok && rows_ok && no_three
    }

    #[test]
    fn one_board_per_orbit_for_n_2_to_10() {
        let orbits = [1, 1, 4, 5, 11, 22, 57, 51, 156];
        for n in 2..=10u32 {
            let (found, nodes) = search(n, Techniques::DEFAULT);
            assert!(found.iter().all(|rows| valid(rows)), "n = {n}");
            assert_eq!(
                found.len(),
                orbits[n as usize - 2],
                "n = {n} ({nodes} nodes)"
            );
        }
    }

    /// Wants a board at two of every three looks, and keeps what it is given to be searched
    /// later.
    struct Collect {
        taken: core::cell::RefCell<Vec<Cells>>,
        looks: core::cell::Cell<u32>,
    }

    impl Share for Collect {
        fn wanted(&self) -> bool {
            self.looks.set(self.looks.get() + 1);
            !self.looks.get().is_multiple_of(3)
        }
        fn give(&self, board: &Cells) -> bool {
            self.taken.borrow_mut().push(*board);
            true
        }
    }

    #[test]
    fn boards_handed_over_and_searched_elsewhere_give_the_same_search() {
        for n in 6..=9u32 {
            let (mut expected, expected_nodes) = search(n, Techniques::DEFAULT);
            let share = Collect {
                taken: Default::default(),
                looks: Default::default(),
            };
            let mut found = Vec::new();
            let (mut nodes, mut handed) = (0, 0);
            let mut todo = vec![Cells::new(n)];
            with_search(n, Techniques::DEFAULT, 4096, |search| {
                while let Some(start) = todo.pop() {
                    nodes += search
                        .run(&start, &share, |c| {
                            found.push(c.points.to_array()[..n as usize].to_vec())
                        })
                        .unwrap();
                    handed += share.taken.borrow().len();
                    todo.append(&mut share.taken.borrow_mut());
                }
            });
            assert!(handed > 5, "n = {n}: only {handed} boards handed over");
            found.sort();
            expected.sort();
            assert_eq!((found, nodes), (expected, expected_nodes), "n = {n}");
        }
    }

    /// Asks the search to stop at the `after`-th look.
    struct StopAfter {
        after: u32,
        looks: core::cell::Cell<u32>,
    }

    impl Share for StopAfter {
        fn wanted(&self) -> bool {
            false
        }
        fn give(&self, _: &Cells) -> bool {
            false
        }
        fn cancelled(&self) -> bool {
            self.looks.set(self.looks.get() + 1);
            self.looks.get() >= self.after
        }
    }

    #[test]
    fn a_cancelled_search_stops_within_a_few_nodes() {
        let n = 10;
        let stop = StopAfter {
            after: 3,
            looks: Default::default(),
        };
        let mut found = 0;
        let result = with_search(n, Techniques::DEFAULT, 4096, |search| {
            search.run(&Cells::new(n), &stop, |_| found += 1)
        });
        assert_eq!(result, Err(Stopped::Cancelled));
        assert_eq!(stop.looks.get(), 3);
        assert!(found < 156);
    }

    #[test]
    fn a_full_stack_stops_the_search_with_an_error() {
        let n = 8;
        let result = with_search(n, Techniques::DEFAULT, 2, |search| {
            search.run(&Cells::new(n), &Keep, |_| {})
        });
        assert_eq!(result, Err(Stopped::StackFull));
    }

    #[test]
    fn every_technique_finds_the_same_configurations() {
        let orbits = [4, 5, 11, 22, 57];
        let totals = [11, 32, 50, 132, 380];
        for n in 4..=8u32 {
            for bits in 0..32 {
                let techniques = Techniques::from_bits(bits);
                let (found, _) = search(n, techniques);
                let expected = if techniques.symmetry { orbits } else { totals };
                assert_eq!(
                    found.len(),
                    expected[n as usize - 4],
                    "n = {n}, {techniques:?}"
                );
                assert!(found.iter().all(|rows| valid(rows)));
            }
        }
    }
}
