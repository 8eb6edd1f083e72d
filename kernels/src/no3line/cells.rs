//! A partial board as two bitboards — cells known to hold a point, cells known to be empty —
//! and the reasoning on it: propagation to a fixpoint and the choice of what to branch on.

use super::pairs::PairLines;
use super::symmetry::nearest_centre;
use crate::bits::popc;
use crate::warp::{Lanes, lane_id};

/// A partial board of the propagating search, one row per lane.
///
/// Cells outside the `n`×`n` board (columns ≥ n, lanes ≥ n) are kept in `empty`, so that
/// "unknown" needs no masking.
#[derive(Clone, Copy, Debug)]
pub struct Cells {
    /// Cells known to hold a point.
    pub points: Lanes<u32>,
    /// Cells known to be empty (and every cell off the board).
    pub empty: Lanes<u32>,
    /// The points whose lines with one another have been marked (the rest are new).
    pub done: Lanes<u32>,
}

/// A board's points and empty cells transposed (lane = column, bit = row), computed once a
/// node for both the symmetry check and the branch choice.
#[derive(Clone, Copy, Debug)]
pub struct Transposed {
    /// The points, transposed.
    pub points: Lanes<u32>,
    /// The empty cells (with the off-board padding), transposed.
    pub empty: Lanes<u32>,
}

impl Transposed {
    /// `cells` transposed: two [`Lanes::transpose`]s.
    #[inline(always)]
    pub fn of(cells: &Cells) -> Transposed {
        Transposed {
            points: cells.points.transpose(),
            empty: cells.empty.transpose(),
        }
    }
}

/// What the search does with a board after propagating it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// Every cell is known: a configuration.
    Complete,
    /// Branch on one cell: a point there, or not.
    Cell {
        /// Its row.
        row: u32,
        /// Its column.
        column: u32,
    },
    /// Branch on every way to finish a row's two points among its unknown cells.
    Row {
        /// The row.
        row: u32,
        /// Its unknown cells.
        unknown: u32,
        /// Whether it holds a point already (then each unknown cell is one option, else each
        /// pair of them).
        has_point: bool,
    },
}

/// The low `n` bits.
#[inline(always)]
fn columns(n: u32) -> u32 {
    u32::MAX >> (32 - n)
}

/// Lanes below `n`: the board's rows.
#[inline(always)]
fn on_board(n: u32) -> Lanes<bool> {
    lane_id().map(|r| r < n)
}

impl Cells {
    /// The empty `n`×`n` board (2 ≤ n ≤ 32): nothing known.
    #[inline(always)]
    pub fn new(n: u32) -> Cells {
        Cells {
            points: Lanes::splat(0),
            empty: lane_id().map(|r| if r < n { !columns(n) } else { u32::MAX }),
            done: Lanes::splat(0),
        }
    }

    /// A board whose every point has its lines marked (a propagated one, as stored), from
    /// its points and empty cells.
    #[inline(always)]
    pub fn settled(points: Lanes<u32>, empty: Lanes<u32>) -> Cells {
        Cells {
            points,
            empty,
            done: points,
        }
    }

    /// Cells neither known to hold a point nor known to be empty.
    #[inline(always)]
    pub fn unknown(&self) -> Lanes<u32> {
        !(self.points | self.empty)
    }

    /// The board with points added to row `row` at the columns of `bits` (unknown cells).
    #[inline(always)]
    pub fn with_points(&self, row: u32, bits: u32) -> Cells {
        Cells {
            points: self.points | lane_id().map(|r| if r == row { bits } else { 0 }),
            ..*self
        }
    }

    /// The board with (`row`, `column`) known to be empty.
    #[inline(always)]
    pub fn with_empty(&self, row: u32, column: u32) -> Cells {
        Cells {
            empty: self.empty | lane_id().map(|r| if r == row { 1 << column } else { 0 }),
            ..*self
        }
    }

    /// Marks empty the other cells of the line through every new point and every point
    /// placed before it (new points are taken one at a time, so pairs of new points are met
    /// too), and records the new points as done.
    ///
    /// Each pair costs one row of [`PairLines`] — a coalesced load — and an `or`; pairs whose
    /// line holds no third cell are skipped ([`PairLines::partners`]).
    #[inline(always)]
    fn mark_lines(&mut self, lines: &PairLines) {
        loop {
            let fresh = self.points & !self.done;
            let rows = fresh.is_nonzero().ballot();
            if rows == 0 {
                return;
            }
            let row = rows.trailing_zeros();
            let bits = fresh.broadcast(row);
            let column = 31 - bits.leading_zeros();
            let mut blocked = self.empty;
            let partners = self.done & lines.partners(row, column);
            let mut old_rows = partners.is_nonzero().ballot();
            while old_rows != 0 {
                let old_row = old_rows.trailing_zeros();
                old_rows &= old_rows - 1;
                let mut old = partners.broadcast(old_row);
                while old != 0 {
                    let old_column = 31 - old.leading_zeros();
                    old ^= 1 << old_column;
                    blocked = blocked | lines.through(row, column, old_row, old_column);
                }
            }
            self.empty = blocked;
            self.done = self.done | lane_id().map(|r| if r == row { 1 << column } else { 0 });
        }
    }

    /// One round of the counting rules, rows then columns: a line with two points has its
    /// other cells empty; a line with exactly two cells not known empty has points on both.
    /// Returns `None` on a contradiction (a line with three points, or fewer than two cells
    /// left), else whether any cell changed.
    ///
    /// Rows count with `popc` in their own lane; columns with the warp's saturating 2-bit
    /// counters ([`Lanes::column_counts`]: five shuffle rounds, a `lop3` majority each).
    #[inline(always)]
    fn count_rules(&mut self, n: u32) -> Option<bool> {
        let board = on_board(n);
        let unknown = self.unknown();
        let (points, unknowns) = (self.points.popc(), unknown.popc());
        let bad_row = board
            .zip_with(points, |b, p| (b, p))
            .zip_with(unknowns, |(b, p), u| b && (p > 2 || p + u < 2));
        if bad_row.any() {
            return None;
        }
        let full = points.map(|p| p == 2);
        let forced = points.zip_with(unknowns, |p, u| p < 2 && p + u == 2);
        let rows_changed = (full.zip_with(forced, |f, g| f || g))
            .zip_with(unknown, |c, u| c && u != 0)
            .any();
        self.empty = Lanes::select(full, self.empty | unknown, self.empty);
        self.points = Lanes::select(forced, self.points | unknown, self.points);

        let columns = columns(n);
        let unknown = self.unknown();
        let have = self.points.column_counts();
        let open = (!self.empty).column_counts();
        if (have.three_or_more() | open.zero() | open.one()) & columns != 0 {
            return None;
        }
        let full = have.two() & columns;
        let forced = open.two() & !have.two() & columns;
        let columns_changed = (unknown & Lanes::splat(full | forced)).is_nonzero().any();
        self.empty = self.empty | (unknown & Lanes::splat(full));
        self.points = self.points | (unknown & Lanes::splat(forced));
        Some(rows_changed || columns_changed)
    }

    /// Propagates to a fixpoint: line marking for every new point, then the counting rules,
    /// again while anything changes. Returns false on a contradiction — three points on a
    /// line (a point on a cell a line made empty) or a row or column that cannot get its two.
    #[inline(always)]
    pub fn propagate(&mut self, n: u32, lines: &PairLines) -> bool {
        loop {
            self.mark_lines(lines);
            if (self.points & self.empty).is_nonzero().any() {
                return false;
            }
            match self.count_rules(n) {
                None => return false,
                Some(false) => return true,
                Some(true) => {}
            }
        }
    }

    /// What to branch on, for a propagated board.
    ///
    /// A *vulnerable* cell is an unknown cell of a row or column with exactly three cells not
    /// known empty (one point and two unknowns, or three unknowns): if it turns out empty,
    /// the counting rules place the line's points. The one nearest the centre (squared
    /// distance, then row, then column) is branched on. Without one, the row with the fewest
    /// ways to finish is. Columns are read in the transposed board (lane = column), where the
    /// counts are one `popc` each. (`vulnerable_cells` false: always a row, to measure what
    /// the rule saves.)
    #[inline(always)]
    pub fn branch(&self, n: u32, vulnerable_cells: bool, transposed: &Transposed) -> Branch {
        let board = on_board(n);
        let open = Lanes::select(board, !self.empty, Lanes::splat(0)) & Lanes::splat(columns(n));
        let unknown = open & !self.points;
        let open_t = !transposed.empty;
        let unknown_t = open_t & !transposed.points;
        let distance = |r: u32, c: u32| {
            let (dr, dc) = ((2 * r).abs_diff(n - 1), (2 * c).abs_diff(n - 1));
            (dr * dr + dc * dc) << 10 | r << 5 | c
        };
        let key = lane_id()
            .zip_with(open, |lane, o| (lane, o))
            .zip_with(unknown, |(lane, o), u| (lane, o, u))
            .zip_with(open_t, |(lane, o, u), ot| (lane, o, u, ot))
            .zip_with(unknown_t, |(lane, o, u, ot), ut| {
                let by_row = match nearest_centre(if popc(o) == 3 { u } else { 0 }, n) {
                    Some(c) => distance(lane, c),
                    None => u32::MAX,
                };
                let by_column = match nearest_centre(if popc(ot) == 3 { ut } else { 0 }, n) {
                    Some(r) => distance(r, lane),
                    None => u32::MAX,
                };
                by_row.min(by_column)
            })
            .min_all();
        if key != u32::MAX && vulnerable_cells {
            return Branch::Cell {
                row: key >> 5 & 31,
                column: key & 31,
            };
        }
        let options = lane_id()
            .zip_with(unknown, |lane, u| (lane, u))
            .zip_with(self.points, |(lane, u), p| {
                let k = popc(u);
                match (u, p) {
                    (0, _) => u32::MAX,
                    (_, 0) => (k * (k - 1) / 2) << 5 | lane,
                    _ => k << 5 | lane,
                }
            })
            .min_all();
        if options == u32::MAX {
            return Branch::Complete;
        }
        let row = options & 31;
        Branch::Row {
            row,
            unknown: unknown.broadcast(row),
            has_point: self.points.broadcast(row) != 0,
        }
    }
}
