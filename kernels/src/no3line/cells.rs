//! A partial board as two bitboards — cells known to hold a point, cells known to be empty —
//! and the reasoning on it: propagation to a fixpoint and the choice of what to branch on.

use super::pairs::PairLines;
use super::propagate::Techniques;
use super::symmetry::nearest_centre;
use crate::bits::{SlicedCounts, popc};
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

    /// Whether every cell is known: a configuration (one vote).
    #[inline(always)]
    pub fn is_complete(&self) -> bool {
        !self.unknown().is_nonzero().any()
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
    /// Each pair costs one line of [`PairLines`] (on the GPU a byte per lane from L1) and an
    /// `or`; pairs whose line holds no third cell, and pairs in one row or column, are
    /// skipped ([`PairLines::partners`]).
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
            let from_new = lines.from(row, column);
            let partners = self.done & lines.partners(row, column);
            let mut old_rows = partners.is_nonzero().ballot();
            while old_rows != 0 {
                let old_row = old_rows.trailing_zeros();
                old_rows &= old_rows - 1;
                let mut old = partners.broadcast(old_row);
                while old != 0 {
                    let old_column = 31 - old.leading_zeros();
                    old ^= 1 << old_column;
                    blocked = blocked | from_new.to(old_row, old_column);
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
    /// counters ([`Lanes::column_counts`]: five shuffle rounds, a `lop3` majority each) —
    /// for n ≤ 16 points and open cells side by side in one word, one butterfly for both.
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
        let (have, open) = if n <= 16 {
            // Points in the low half-word, open cells in the high one: one butterfly for
            // both (open cells off the board are 0, so nothing spills across).
            (self.points | (!self.empty) << 16).column_counts().halves()
        } else {
            (self.points.column_counts(), (!self.empty).column_counts())
        };
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
    /// 0. With `techniques.symmetry`, the first row until it is complete: every image is
    ///    compared with it (the symmetry test's `cannot_be_canonical`), so little
    ///    is pruned before it is known.
    /// 1. A *vulnerable* cell (with `techniques.vulnerable_cells`): an unknown cell of a row
    ///    or column with exactly three cells not known empty (one point and two unknowns, or
    ///    three unknowns), so that if it turns out empty the counting rules place the line's
    ///    points. The one nearest the centre (squared distance, then row, then column).
    ///    Columns are read in the transposed board (lane = column): one `popc` each.
    /// 2. Else the row that is cheapest to split ([`row_score`]; without
    ///    `techniques.scored_branching`, the row with the fewest ways to finish).
    /// 3. With `techniques.scored_branching`, when even that row is wide (score ≥
    ///    [`CELL_BRANCH_SCORE`]), a single cell instead: the lowest by a cell score
    ///    (`scored_cell`).
    #[inline(always)]
    pub fn branch(
        &self,
        n: u32,
        techniques: Techniques,
        lines: &PairLines,
        transposed: &Transposed,
    ) -> Branch {
        let board = on_board(n);
        let open = Lanes::select(board, !self.empty, Lanes::splat(0)) & Lanes::splat(columns(n));
        let unknown = open & !self.points;
        let first_row = unknown.broadcast(0);
        if techniques.symmetry && first_row != 0 {
            return Branch::Row {
                row: 0,
                unknown: first_row,
                has_point: self.points.broadcast(0) != 0,
            };
        }
        if techniques.vulnerable_cells {
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
            if key != u32::MAX {
                return Branch::Cell {
                    row: key >> 5 & 31,
                    column: key & 31,
                };
            }
        }
        let scored = techniques.scored_branching;
        let best = lane_id()
            .zip_with(unknown, |lane, u| (lane, u))
            .zip_with(self.points, |(lane, u), p| {
                let k = popc(u);
                let score = match (u, p, scored) {
                    (0, _, _) => return u32::MAX,
                    (_, _, true) => row_score(popc(p), k),
                    (_, 0, false) => k * (k - 1) / 2,
                    (_, _, false) => k,
                };
                score << 5 | lane
            })
            .min_all();
        if best == u32::MAX {
            return Branch::Complete;
        }
        if scored && best >> 5 >= CELL_BRANCH_SCORE {
            let (row, column) = self.scored_cell(n, lines, transposed, unknown);
            return Branch::Cell { row, column };
        }
        let row = best & 31;
        Branch::Row {
            row,
            unknown: unknown.broadcast(row),
            has_point: self.points.broadcast(row) != 0,
        }
    }

    /// The unknown cell (of `unknown`, this board's unknown cells on the board) whose two
    /// children are expected to shrink the search most: the lowest score
    ///
    /// 4·(unknown cells in its row) − 11·(empty cells in its column) − 10·(points whose line
    /// with the cell holds a third cell, outside the cell's row and column),
    ///
    /// ties to the centre (L1 distance), then the lowest row and column. The weights are
    /// those tuned for the published CUDA search: its 3·column unknowns + 4·row unknowns +
    /// 3·column points − 8·column empties − 10·related points is this plus 3n, since a
    /// column's unknowns, points and empties add up to n. "Related" there is an offset rule,
    /// here the exact [`PairLines::partners`] masks. A point's relations are added to every
    /// cell at once in bit-sliced counters ([`SlicedCounts`]), the column empties come from
    /// the transposed board as six ballots, and each lane scores its own row's cells.
    #[inline(always)]
    fn scored_cell(
        &self,
        n: u32,
        lines: &PairLines,
        transposed: &Transposed,
        unknown: Lanes<u32>,
    ) -> (u32, u32) {
        let column_empty = (transposed.empty & Lanes::splat(columns(n)))
            .popc()
            .ballot_counts();
        let mut related = Lanes::splat(SlicedCounts::default());
        let mut rows = self.points.is_nonzero().ballot();
        while rows != 0 {
            let row = rows.trailing_zeros();
            rows &= rows - 1;
            let mut bits = self.points.broadcast(row);
            while bits != 0 {
                let column = bits.trailing_zeros();
                bits &= bits - 1;
                let partners = lines.partners(row, column).zip_with(lane_id(), |m, r| {
                    if r == row { 0 } else { m & !(1 << column) }
                });
                related = related.zip_with(partners, |mut counts, m| {
                    counts.add(m);
                    counts
                });
            }
        }
        let key = lane_id()
            .zip_with(unknown, |lane, u| (lane, u))
            .zip_with(related, |(lane, u), related| {
                let row_unknown = popc(u);
                let mut best = u32::MAX;
                let mut left = u;
                while left != 0 {
                    let c = left.trailing_zeros();
                    left &= left - 1;
                    let score =
                        1024 + 4 * row_unknown - 11 * column_empty.get(c) - 10 * related.get(c);
                    let distance = (2 * lane).abs_diff(n - 1) + (2 * c).abs_diff(n - 1);
                    best = best.min(score << 20 | distance << 10 | lane << 5 | c);
                }
                best
            })
            .min_all();
        (key >> 5 & 31, key & 31)
    }
}

/// Row scores from this value on make [`Cells::branch`] branch on a single cell instead (with
/// scored branching): a row with no point and 7 unknown cells (21 pairs), or one point and 4.
pub const CELL_BRANCH_SCORE: u32 = 20;

/// How costly a row with `points` points and `unknown` unknown cells is to branch on, lower
/// first: with no point, its pairs C(u, 2); with one point, 5, 9, 14, 20 for 1..4 unknowns and
/// 8 per unknown up to 8 (6 per unknown beyond). A one-point row weighs more than its u
/// children because each of them settles only one cell. The table is the published CUDA
/// search's tuning, which our measurements (docs/notes/benchmark-history.md, the technique table) kept.
#[inline(always)]
pub fn row_score(points: u32, unknown: u32) -> u32 {
    match points {
        0 => unknown * unknown.saturating_sub(1) / 2,
        1 if unknown <= 4 => (0x14_0E_09_05_00u64 >> (8 * unknown)) as u32 & 0xFF,
        1 if unknown <= 8 => 8 * unknown,
        1 => 6 * unknown,
        _ => unknown,
    }
}
