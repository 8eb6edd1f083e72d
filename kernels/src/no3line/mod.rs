//! No-three-in-line: 2n points on an n×n grid, two in every row and column, no three on any
//! line. The board algebra is warp-wide — one `u32` row per lane of a [`Lanes`] — so the same
//! code is the CPU twin of a warp-per-board GPU search.
//!
//! Two searches live here:
//! - the **propagating search** (the default): [`cells`] (a partial board as known points and
//!   known-empty cells; propagation to a fixpoint; the branch choice), [`pairs`] (the table of
//!   whole lines through every pair of cells), [`symmetry`] (the 8 symmetries of the square on
//!   partial boards and the canonical-member test), [`propagate`] (the depth-first search with
//!   its stack of pending boards);
//! - the **row search** (the first version, kept for comparison): [`Board`] and [`search_from`]
//!   in this module, and its iterative GPU form in [`search`] — row by row, two points a row;
//!   every placed point blocks, in all lower rows at once, the cells on its line with every
//!   earlier point.

pub mod cells;
pub mod pairs;
pub mod propagate;
pub mod search;
pub mod symmetry;

pub use search::{DepthFirst, LevelStack, MAX_PREFIX_ROWS, Prefix, Pruning, enumerate_prefixes};

use crate::bits::{lowest_bit, popc};
use crate::warp::{Lanes, lane_id};

/// Largest board: one row per lane of a warp, one column per bit of a row.
pub const MAX_N: u32 = 32;

/// A partial board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Board {
    /// Board size.
    pub n: u32,
    /// Bit c of lane r: a point at row r, column c.
    pub points: Lanes<u32>,
    /// Bit c of lane r: the cell is on a line through two points and can take no point.
    pub blocked: Lanes<u32>,
    /// Columns holding at least one point (kept as points are placed, so that the warp's
    /// column counts need not be recomputed at every step).
    pub one_or_more: u32,
    /// Columns holding two points.
    pub two: u32,
}

/// The greatest common divisor (Euclid), for reducing a line's step to its lattice step.
#[inline(always)]
pub fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Board {
    /// The empty `n`×`n` board (2 ≤ n ≤ 32).
    pub fn empty(n: u32) -> Board {
        Board {
            n,
            points: Lanes::splat(0),
            blocked: Lanes::splat(0),
            one_or_more: 0,
            two: 0,
        }
    }

    /// The `n` low bits: the board's columns.
    #[inline(always)]
    pub fn columns(&self) -> u32 {
        if self.n >= 32 {
            u32::MAX
        } else {
            (1 << self.n) - 1
        }
    }

    /// Columns that already hold two points.
    #[inline(always)]
    pub fn full_columns(&self) -> u32 {
        self.two
    }

    /// Free cells of `row`: not blocked, not in a full column, not holding a point.
    #[inline(always)]
    pub fn candidates(&self, row: u32) -> u32 {
        let free = self.columns() & !self.blocked.broadcast(row) & !self.points.broadcast(row);
        free & !self.full_columns()
    }

    /// Places a point at (row, column), computing its lines ([`Computed`]).
    pub fn place(&mut self, row: u32, column: u32) {
        self.place_with(&Computed { n: self.n }, row, column);
    }

    /// Places a point at (row, column): blocks the lines through it and every point of the
    /// rows above (a point beside it in the same row shares a row line, which the two-per-row
    /// rule already covers).
    #[inline(always)]
    pub fn place_with(&mut self, lines: &impl Lines, row: u32, column: u32) {
        for above in 0..row {
            let mut others = self.points.broadcast(above);
            while others != 0 {
                let other = lowest_bit(others);
                others ^= other;
                let cells = lines.beyond(row, column, above, other.trailing_zeros());
                self.blocked = self.blocked | cells;
            }
        }
        self.points = self.points | Lanes::from_fn(|r| if r == row { 1 << column } else { 0 });
        let bit = 1 << column;
        self.two |= self.one_or_more & bit;
        self.one_or_more |= bit;
    }

    /// False when some row from `row` on, or some column, can no longer get its two points.
    pub fn feasible(&self, row: u32) -> bool {
        let n = self.n;
        let full = self.full_columns();
        let open = self.columns() & !full;
        // Cells still available in the remaining rows.
        let available = self.blocked.zip_with(lane_id(), |blocked, r| {
            if r >= row && r < n {
                open & !blocked
            } else {
                0
            }
        });
        let rows_ok = available
            .zip_with(lane_id(), |cells, r| r < row || r >= n || popc(cells) >= 2)
            .all();
        if !rows_ok {
            return false;
        }
        let can = available.column_counts();
        // Columns with no point need two more cells, with one point one more.
        let need_two = !self.one_or_more & self.columns();
        let need_one = self.one_or_more & !self.two;
        need_two & !(can.two() | can.three_or_more()) == 0 && need_one & can.zero() == 0
    }
}

/// The cells a new point's lines rule out: for a point at (row, column) and an earlier point at
/// (above, other), `above < row`, the cells of the rows below `row` on their line (lane `r`:
/// row `r`'s cells as a column mask).
pub trait Lines {
    /// The cells below `row` on the line through (row, column) and (above, other).
    fn beyond(&self, row: u32, column: u32, above: u32, other: u32) -> Lanes<u32>;
}

/// The reference: every lane computes its own row's cell. The step (dr, dc) is reduced by the
/// gcd, so the line's lattice points in row `r` exist when the reduced `dr` divides `r − row`.
/// Costs two integer divisions per lane and a gcd loop (≈ 150 instructions on the GPU).
#[derive(Clone, Copy, Debug)]
pub struct Computed {
    /// Board size.
    pub n: u32,
}

impl Lines for Computed {
    #[inline(always)]
    fn beyond(&self, row: u32, column: u32, above: u32, other: u32) -> Lanes<u32> {
        let (dr, dc) = (row - above, column as i64 - other as i64);
        let g = gcd(dr, dc.unsigned_abs() as u32);
        let (sr, sc) = (dr / g, dc / g as i64);
        let n = self.n;
        lane_id().map(|r| {
            if r <= row || r >= n || !(r - row).is_multiple_of(sr) {
                return 0;
            }
            let c = column as i64 + ((r - row) / sr) as i64 * sc;
            if (0..n as i64).contains(&c) {
                1u32 << c
            } else {
                0
            }
        })
    }
}

/// The same masks precomputed for every pair of cells: entry `(p·n² + q)·n + r` is row `r`'s
/// mask for the new point at cell `p = row·n + column` and the earlier one at
/// `q = above·n + other`. `n⁵` words: 4 MiB at n = 16. One coalesced load per lane replaces
/// the arithmetic (the GPU keeps the table in L2).
#[derive(Clone, Copy, Debug)]
pub struct LineTable<'a> {
    n: u32,
    words: &'a [u32],
}

impl<'a> LineTable<'a> {
    /// Words a table for size `n` holds.
    pub const fn len(n: u32) -> usize {
        (n as usize).pow(5)
    }

    /// Wraps `words` (filled by [`LineTable::fill`], [`len`](Self::len)`(n)` long).
    #[inline(always)]
    pub fn new(n: u32, words: &'a [u32]) -> Self {
        LineTable { n, words }
    }

    /// Fills `words` (`len(n)` long) with the masks of [`Computed`].
    pub fn fill(n: u32, words: &mut [u32]) {
        let lines = Computed { n };
        for row in 0..n {
            for column in 0..n {
                for above in 0..row {
                    for other in 0..n {
                        let cells = lines.beyond(row, column, above, other);
                        let start = Self::entry(n, row, column, above, other);
                        for r in 0..n {
                            words[start + r as usize] = cells.broadcast(r);
                        }
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn entry(n: u32, row: u32, column: u32, above: u32, other: u32) -> usize {
        let p = (row * n + column) as usize;
        let q = (above * n + other) as usize;
        (p * (n * n) as usize + q) * n as usize
    }
}

impl Lines for LineTable<'_> {
    #[inline(always)]
    fn beyond(&self, row: u32, column: u32, above: u32, other: u32) -> Lanes<u32> {
        let start = Self::entry(self.n, row, column, above, other);
        let n = self.n;
        lane_id().map(|r| {
            if r < n {
                self.words.get(start + r as usize).copied().unwrap_or(0)
            } else {
                0
            }
        })
    }
}

/// Calls `visit` with every complete board whose first row holds points at columns `a < b`,
/// and returns the number of points placed (the search's nodes).
///
/// The recursive reference: the backends run [`DepthFirst`], which must visit the same boards
/// in the same order with the same node count (tested).
pub fn search_from(n: u32, a: u32, b: u32, visit: &mut impl FnMut(&Board)) -> u64 {
    let mut board = Board::empty(n);
    board.place(0, a);
    board.place(0, b);
    let mut nodes = 2;
    if board.feasible(1) {
        nodes += extend(&board, 1, visit);
    }
    nodes
}

fn extend(board: &Board, row: u32, visit: &mut impl FnMut(&Board)) -> u64 {
    if row == board.n {
        visit(board);
        return 0;
    }
    let mut nodes = 0;
    let mut firsts = board.candidates(row);
    while firsts != 0 {
        let a = lowest_bit(firsts);
        firsts ^= a;
        let mut with_a = *board;
        with_a.place(row, a.trailing_zeros());
        nodes += 1;
        // The second point: right of the first, and not on a line the first just blocked.
        let mut seconds = with_a.candidates(row) & !(a | (a - 1));
        while seconds != 0 {
            let b = lowest_bit(seconds);
            seconds ^= b;
            let mut with_b = with_a;
            with_b.place(row, b.trailing_zeros());
            nodes += 1;
            if with_b.feasible(row + 1) {
                nodes += extend(&with_b, row + 1, visit);
            }
        }
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_column_masks_match_the_warp_column_counts() {
        let mut board = Board::empty(9);
        for (row, column) in [(0, 1), (0, 4), (1, 1), (1, 7), (2, 0), (2, 4), (3, 8)] {
            board.place(row, column);
            let counts = board.points.column_counts();
            assert_eq!(board.two, counts.two() | counts.three_or_more());
            assert_eq!(board.one_or_more, !counts.zero());
        }
    }
}
