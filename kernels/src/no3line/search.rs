//! The depth-first search as a loop with an explicit stack, for one warp per board.
//!
//! The recursive [`search_from`](super::search_from) is the reference; [`DepthFirst`] visits
//! the same nodes in the same order, without recursion, so that it runs on the GPU: a warp
//! owns one search, every decision is warp-uniform (the lanes never diverge), and the stack
//! lives in two places:
//! - the blocked cells of every level's boards, one row per lane, in a [`LaneSlab`]
//!   (shared memory on the GPU: one conflict-free load or store per level change);
//! - the per-level scalars (candidates still to try, the first point chosen, the column
//!   masks) in [`LevelStack`]s: lane `l` holds level `l`'s value, so a level's scalar is one
//!   shuffle away and needs no memory at all.

use super::{Board, Lines, MAX_N};
use crate::bits::lowest_bit;
use crate::slab::LaneSlab;
use crate::warp::{Lanes, lane_id};

/// Most rows a [`Prefix`] carries (10 bits a row after a 4-bit header).
pub const MAX_PREFIX_ROWS: u32 = 6;

/// The first rows of a search — two points a row — packed into a `u64`: bits 0..4 the number
/// of rows, then 10 bits a row: the first point's column, then the second's (5 bits each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct Prefix(pub u64);

impl Prefix {
    /// Rows placed.
    #[inline(always)]
    pub fn rows(self) -> u32 {
        (self.0 & 15) as u32
    }

    /// The two columns of `row` (< `rows()`), left first.
    #[inline(always)]
    pub fn columns(self, row: u32) -> (u32, u32) {
        let bits = (self.0 >> (4 + 10 * row)) as u32;
        (bits & 31, (bits >> 5) & 31)
    }

    /// The same prefix with one more row whose points are at columns `a < b`.
    pub fn push(self, a: u32, b: u32) -> Prefix {
        let rows = self.rows();
        let row_bits = (a | b << 5) as u64;
        Prefix((self.0 & !15) | row_bits << (4 + 10 * rows) | (rows + 1) as u64)
    }

    /// The board of size `n` with this prefix's points placed.
    #[inline(always)]
    pub fn board(self, n: u32, lines: &impl Lines) -> Board {
        let mut board = Board::empty(n);
        for row in 0..self.rows() {
            let (a, b) = self.columns(row);
            board.place_with(lines, row, a);
            board.place_with(lines, row, b);
        }
        board
    }
}

/// How much of the tree a search may skip because of the 8 symmetries of the square.
///
/// The host counts an orbit at its canonical member: the image that is smallest when the rows
/// are compared in order, each read as a binary number (bit c = column c). The canonical
/// member `R` is therefore not greater than any image in its first row, and every image's
/// first row is a border line of `R`: its first or last row, or its first or last column, read
/// forwards or backwards. Boards that fail such a comparison cannot be canonical, and the
/// search may drop them with everything below: every orbit is still found, through its
/// canonical member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pruning {
    /// No symmetry pruning: every configuration is found.
    Off,
    /// The first row is not greater than its mirror image: `a + b ≤ n − 1` for its points
    /// `a < b` (about half the tree).
    FirstRow,
    /// `FirstRow`, and the last row (read both ways) and columns 0 and n−1 (read top-down and
    /// bottom-up) can still reach the first row's value with the cells still open to them
    /// (checked at every node: four ballots and a little arithmetic).
    Canonical,
}

impl Pruning {
    /// Whether the first row with points at columns `a < b` is searched.
    #[inline(always)]
    pub fn allows(self, n: u32, a: u32, b: u32) -> bool {
        match self {
            Pruning::Off => true,
            Pruning::FirstRow | Pruning::Canonical => a + b < n,
        }
    }

    /// Whether `board`, whose rows up to `row` hold their points, may still complete to a
    /// canonical configuration (always true unless `Canonical`).
    #[inline(always)]
    pub fn admits(self, board: &Board, row: u32) -> bool {
        if self != Pruning::Canonical {
            return true;
        }
        let n = board.n;
        let first = board.points.broadcast(0) as u64;
        // Rows below `row` whose cell in a column is still free, per column.
        let open_rows = |column: u32| {
            lane_id()
                .zip_with(board.blocked, |r, blocked| {
                    r > row && r < n && blocked >> column & 1 == 0
                })
                .ballot()
        };
        let border = |column: u32| {
            if board.two & 1 << column != 0 {
                // Full: the column's values are known.
                let rows = board.points.map(|p| p >> column & 1 != 0).ballot();
                return rows as u64 >= first && reverse(rows, n) >= first;
            }
            let rows = board.points.map(|p| p >> column & 1 != 0).ballot();
            let missing = 2 - crate::bits::popc(rows).min(2);
            let open = open_rows(column);
            // Read top-down (bit r = row r) the best completion takes the lowest open rows
            // of the board; read bottom-up (row r ↦ bit n−1−r), the highest.
            match (
                largest_bits(open, missing),
                largest_bits(reverse(open, n) as u32, missing),
            ) {
                (Some(top), Some(bottom)) => {
                    rows as u64 + top >= first && reverse(rows, n) + bottom >= first
                }
                _ => false, // Not enough open cells: the column cannot get its points.
            }
        };
        // The last row, read forwards and backwards, at best takes its two largest cells.
        let last_row_ok = if row + 1 >= n {
            let last = board.points.broadcast(n - 1);
            last as u64 >= first && reverse(last, n) >= first
        } else {
            let open = board.columns() & !board.blocked.broadcast(n - 1) & !board.two;
            matches!(largest_bits(open, 2), Some(v) if v >= first)
                && matches!(largest_bits(reverse(open, n) as u32, 2), Some(v) if v >= first)
        };
        last_row_ok && border(0) && border(n - 1)
    }
}

/// The low `n` bits of `x` in reverse order.
#[inline(always)]
fn reverse(x: u32, n: u32) -> u64 {
    (crate::bits::bit_reverse(x) >> (32 - n)) as u64
}

/// The sum of the `k` (0..=2) highest set bits of `x`, or `None` when `x` has fewer.
#[inline(always)]
fn largest_bits(x: u32, k: u32) -> Option<u64> {
    let high = |x: u32| {
        if x == 0 {
            0
        } else {
            1u32 << (31 - x.leading_zeros())
        }
    };
    let first = high(x);
    let second = high(x ^ first);
    match k {
        0 => Some(0),
        1 if first != 0 => Some(first as u64),
        2 if second != 0 => Some(first as u64 + second as u64),
        _ => None,
    }
}

/// Calls `emit` with every prefix of `rows` rows (clamped to 1..=min(n − 1,
/// [`MAX_PREFIX_ROWS`])) that the search would descend into under `pruning`, in the search's
/// order, and returns the points placed on the way (the
/// reference search's node count for those rows).
pub fn enumerate_prefixes(
    n: u32,
    rows: u32,
    pruning: Pruning,
    mut emit: impl FnMut(Prefix),
) -> u64 {
    let depth = rows.clamp(1, (n - 1).min(MAX_PREFIX_ROWS));
    let mut nodes = 0;
    for a in 0..n {
        for b in (a + 1..n).filter(|&b| pruning.allows(n, a, b)) {
            let mut board = Board::empty(n);
            board.place(0, a);
            board.place(0, b);
            nodes += 2;
            if board.feasible(1) && pruning.admits(&board, 0) {
                let prefix = Prefix::default().push(a, b);
                nodes += extend_prefix(&board, prefix, depth, pruning, &mut emit);
            }
        }
    }
    nodes
}

fn extend_prefix(
    board: &Board,
    prefix: Prefix,
    depth: u32,
    pruning: Pruning,
    emit: &mut impl FnMut(Prefix),
) -> u64 {
    let row = prefix.rows();
    if row == depth {
        emit(prefix);
        return 0;
    }
    let mut nodes = 0;
    let candidates = board.candidates(row);
    let mut firsts = candidates;
    while firsts != 0 {
        let a = lowest_bit(firsts);
        firsts ^= a;
        let mut with_a = *board;
        with_a.place(row, a.trailing_zeros());
        nodes += 1;
        let mut seconds = candidates & !(a | (a - 1));
        while seconds != 0 {
            let b = lowest_bit(seconds);
            seconds ^= b;
            let mut with_b = with_a;
            with_b.place(row, b.trailing_zeros());
            nodes += 1;
            if with_b.feasible(row + 1) && pruning.admits(&with_b, row) {
                let next = prefix.push(a.trailing_zeros(), b.trailing_zeros());
                nodes += extend_prefix(&with_b, next, depth, pruning, emit);
            }
        }
    }
    nodes
}

/// One scalar per search level, level `l` in lane `l` (so at most 32 levels).
///
/// GPU: a single register per lane; `get` is a `shfl.idx`, `set` a compare and select.
#[derive(Clone, Copy, Debug)]
pub struct LevelStack(Lanes<u32>);

impl LevelStack {
    /// Every level zero.
    #[inline(always)]
    pub fn new() -> Self {
        LevelStack(Lanes::splat(0))
    }

    /// Level `level`'s value, in every lane.
    #[inline(always)]
    pub fn get(&self, level: u32) -> u32 {
        self.0.broadcast(level)
    }

    /// Sets level `level`'s value.
    #[inline(always)]
    pub fn set(&mut self, level: u32, value: u32) {
        let mine = lane_id().equals(Lanes::splat(level));
        self.0 = Lanes::select(mine, Lanes::splat(value), self.0);
    }
}

impl Default for LevelStack {
    fn default() -> Self {
        Self::new()
    }
}

/// Words of a [`LaneSlab`] that a search of size `n` uses: two boards' blocked cells a level.
pub const fn slab_words(n: u32) -> u32 {
    2 * n
}

/// The iterative search. Level `l` is row `l`: its base board (the points of rows `< l`), the
/// candidates of row `l` still to try as first points, the first point chosen, and the
/// candidates still to try as second points.
pub struct DepthFirst<'l, S: LaneSlab, L: Lines> {
    n: u32,
    /// How a point's lines are found.
    lines: &'l L,
    /// Which boards may be skipped.
    pruning: Pruning,
    /// Word `2l`: the base board's blocked cells at level `l`; word `2l + 1`: after its first
    /// point.
    blocked: S,
    /// First-point candidates not yet tried.
    firsts: LevelStack,
    /// Second-point candidates not yet tried, for the current first point.
    seconds: LevelStack,
    /// The current first point (a column bit).
    first: LevelStack,
    /// The base board's columns with at least one point.
    one_or_more: LevelStack,
    /// The base board's columns with two points.
    two: LevelStack,
}

impl<'l, S: LaneSlab, L: Lines> DepthFirst<'l, S, L> {
    /// A search of board size `n` (2..=[`MAX_N`]) using `blocked` for
    /// [`slab_words`]`(n)` words of stack and `lines` for the points' lines, skipping what
    /// `pruning` allows.
    #[inline(always)]
    pub fn new(n: u32, blocked: S, lines: &'l L, pruning: Pruning) -> Self {
        debug_assert!((2..=MAX_N).contains(&n));
        DepthFirst {
            n,
            lines,
            pruning,
            blocked,
            firsts: LevelStack::new(),
            seconds: LevelStack::new(),
            first: LevelStack::new(),
            one_or_more: LevelStack::new(),
            two: LevelStack::new(),
        }
    }

    /// Makes `board` the base of level `row`, with every candidate of the row still to try.
    #[inline(always)]
    fn enter(&mut self, row: u32, board: &Board) {
        self.blocked.set(2 * row, board.blocked);
        self.one_or_more.set(row, board.one_or_more);
        self.two.set(row, board.two);
        self.firsts.set(row, board.candidates(row));
        self.seconds.set(row, 0);
    }

    /// Level `row`'s base board, rebuilt from the stack and the points of the rows above it
    /// (which `path` holds: points of deeper rows are dropped).
    #[inline(always)]
    fn base(&self, row: u32, path: &Board) -> Board {
        let above = lane_id().zip_with(path.points, |r, points| if r < row { points } else { 0 });
        Board {
            n: self.n,
            points: above,
            blocked: self.blocked.get(2 * row),
            one_or_more: self.one_or_more.get(row),
            two: self.two.get(row),
        }
    }

    /// Level `row`'s board after its current first point.
    #[inline(always)]
    fn with_first(&self, row: u32, path: &Board) -> Board {
        let a = self.first.get(row);
        let base = self.base(row, path);
        Board {
            points: lane_id().zip_with(base.points, |r, points| if r == row { a } else { points }),
            blocked: self.blocked.get(2 * row + 1),
            one_or_more: base.one_or_more | a,
            two: base.two | (base.one_or_more & a),
            ..base
        }
    }

    /// Searches below `start` (a board whose rows `< row` hold their points, `1 ≤ row < n`),
    /// calls `visit` with every complete board, and returns the points placed — the same
    /// boards, in the same order, and the same count as the recursive reference.
    #[inline(always)]
    pub fn run(&mut self, start: &Board, row: u32, mut visit: impl FnMut(&Board)) -> u64 {
        let top = row;
        let mut level = row;
        let mut path = *start;
        let mut nodes = 0u64;
        self.enter(level, start);
        loop {
            let seconds = self.seconds.get(level);
            if seconds == 0 {
                let firsts = self.firsts.get(level);
                if firsts == 0 {
                    if level == top {
                        break;
                    }
                    level -= 1;
                    continue;
                }
                // Next first point: place it on the base board and keep that board.
                let a = lowest_bit(firsts);
                self.firsts.set(level, firsts ^ a);
                nodes += 1;
                let base = self.base(level, &path);
                let mut with_a = base;
                with_a.place_with(self.lines, level, a.trailing_zeros());
                self.blocked.set(2 * level + 1, with_a.blocked);
                self.first.set(level, a);
                // A point of the same row blocks nothing in its row: the second point's
                // candidates are the base's, right of the first.
                self.seconds
                    .set(level, base.candidates(level) & !(a | (a - 1)));
                path = with_a;
                continue;
            }
            let b = lowest_bit(seconds);
            self.seconds.set(level, seconds ^ b);
            nodes += 1;
            let mut child = self.with_first(level, &path);
            child.place_with(self.lines, level, b.trailing_zeros());
            if child.feasible(level + 1) && self.pruning.admits(&child, level) {
                if level + 1 == self.n {
                    visit(&child);
                } else {
                    level += 1;
                    self.enter(level, &child);
                    path = child;
                }
            }
        }
        nodes
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LineTable, search_from};
    use super::*;
    use std::vec::Vec;

    /// All complete boards (as row words) and the node count of the reference search.
    fn reference(n: u32) -> (Vec<Vec<u32>>, u64) {
        let mut boards = Vec::new();
        let mut nodes = 0;
        for a in 0..n {
            for b in a + 1..n {
                nodes += search_from(n, a, b, &mut |board: &Board| {
                    boards.push(board.points.to_array()[..n as usize].to_vec())
                });
            }
        }
        (boards, nodes)
    }

    fn iterative(n: u32, rows: u32) -> (Vec<Vec<u32>>, u64) {
        let mut boards = Vec::new();
        let mut prefixes = Vec::new();
        let mut nodes = enumerate_prefixes(n, rows, Pruning::Off, |p| prefixes.push(p));
        let mut table = std::vec![0u32; LineTable::len(n)];
        LineTable::fill(n, &mut table);
        let lines = LineTable::new(n, &table);
        let mut search = DepthFirst::new(n, [Lanes::splat(0u32); 64], &lines, Pruning::Off);
        for prefix in prefixes {
            nodes += search.run(&prefix.board(n, &lines), prefix.rows(), |board| {
                boards.push(board.points.to_array()[..n as usize].to_vec())
            });
        }
        (boards, nodes)
    }

    #[test]
    fn iterative_search_matches_the_recursive_reference() {
        for n in 2..=8 {
            let expected = reference(n);
            for rows in 1..=4 {
                assert_eq!(
                    iterative(n, rows),
                    expected,
                    "n = {n}, prefix rows = {rows}"
                );
            }
        }
    }

    #[test]
    fn prefix_packing_round_trips() {
        let prefix = Prefix::default().push(0, 31).push(7, 9).push(30, 31);
        assert_eq!(prefix.rows(), 3);
        assert_eq!(
            [0, 1, 2].map(|r| prefix.columns(r)),
            [(0, 31), (7, 9), (30, 31)]
        );
    }

    #[test]
    fn level_stack_keeps_each_level() {
        let mut stack = LevelStack::new();
        for level in 0..32 {
            stack.set(level, level * 7 + 1);
        }
        stack.set(5, 99);
        assert!((0..32).all(|l| stack.get(l) == if l == 5 { 99 } else { l * 7 + 1 }));
    }
}
