//! Counting N-Queens solutions with the full symmetry group of the square.
//!
//! The method is the corner / `BOUND1`–`BOUND2` / `COUNT2-4-8` search of Takaken and Somers:
//! each class of solutions under the 8 symmetries of the board is visited once (up to a small
//! factor) instead of 8 times, and the class size — 2, 4 or 8 — comes out of a check at the
//! leaf. `total = 2·C2 + 4·C4 + 8·C8`, `unique = C2 + C4 + C8`.
//!
//! * A solution with a queen in a corner (rotate it there: row 0, column 0) is never symmetric
//!   under a rotation, so its class has 8 members; counting with the second queen at
//!   `column > row` for the first rows ([`Kind::Corner`]) picks one of each mirror pair.
//! * Otherwise the first queen is at column `bound1 < n-1-bound1` of row 0 and the other
//!   three sides must not hold a queen "smaller" than it ([`Kind::Interior`]); the leaf check
//!   compares the board with its rotations to find the class size or reject a duplicate.
//!
//! The host enumerates the first rows into [`Subproblem`]s; [`Search`] finishes one. `Search`
//! is a step machine — one queen placed (after any backtracking) per iteration of
//! [`Search::advance`] — so that a GPU thread can interleave steps with fetching work. Its stack is one word per row, a
//! [`Slab`]: the attack masks are kept in a reversible form (64-bit, never shifted out) and are
//! rebuilt from the queen's bit on the way back up, so nothing else needs storing.

mod check;
pub mod constellation;
pub mod estimate;
pub mod lookahead;
pub mod random_dfs;
mod subproblem;

pub use check::Symmetry;
pub use subproblem::{MAX_PREFIX_ROWS, Subproblem, enumerate_prefixes};

use crate::bits::lowest_bit;
use crate::slab::Slab;

/// (total, unique) solutions for N = 1..=27 (OEIS A000170 and A002562).
pub const KNOWN: [(u64, u64); 27] = [
    (1, 1),
    (0, 0),
    (0, 0),
    (2, 1),
    (10, 2),
    (4, 1),
    (40, 6),
    (92, 12),
    (352, 46),
    (724, 92),
    (2680, 341),
    (14200, 1787),
    (73712, 9233),
    (365596, 45752),
    (2279184, 285053),
    (14772512, 1846955),
    (95815104, 11977939),
    (666090624, 83263591),
    (4968057848, 621012754),
    (39029188884, 4878666808),
    (314666222712, 39333324973),
    (2691008701644, 336376244042),
    (24233937684440, 3029242658210),
    (227514171973736, 28439272956934),
    (2207893435808352, 275986683743434),
    (22317699616364044, 2789712466510289),
    (234907967154122528, 29363495934315694),
];

/// Largest board the counter accepts. A job's and a chunk's counts stay well inside `u64` (a
/// 256th of N = 28's ≈ 3·10¹⁹ nodes is ≈ 10¹⁷); the host adds them up in `u128`. The
/// reversible masks need `n ≤ 32` anyway; N = 28 is the first size with no published count.
pub const MAX_N: u32 = 28;
/// Smallest board the symmetry method handles (smaller boards are counted directly).
pub const MIN_SYMMETRY_N: u32 = 4;

/// Where the first queen sits, which decides the symmetry rules of the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Queen at row 0, column 0; the second queen at column `bound1` of row 1.
    Corner,
    /// Queen at row 0, column `bound1`, with `bound1 < n - 1 - bound1`.
    Interior,
}

/// The board size and the symmetry rules of one (kind, bound1) family of subproblems.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// Board size.
    pub n: u32,
    /// The `n` low bits: the board's columns.
    pub mask: u32,
    /// Corner or interior search.
    pub kind: Kind,
    /// Corner: column of row 1's queen. Interior: column of row 0's queen.
    pub bound1: u32,
    /// `n - 1 - bound1`: the mirror of `bound1`.
    pub bound2: u32,
    /// Interior: columns 0 and n−1.
    side_mask: u32,
    /// Columns excluded above row `bound1`: column 1 (corner) or both sides (interior).
    early_exclude: u32,
    /// The row at which an interior search needs the sides taken (`bound2`); never for corners.
    side_rule_row: u32,
    /// Interior: columns that row n−1 may not use (`bound1` columns on each side).
    last_mask: u32,
    /// Column n−1.
    top_bit: u32,
    /// Interior: the last-row column that can make the board 180°-symmetric.
    end_bit: u32,
}

impl Rules {
    /// The rules for board size `n` (4..=27) and the family `(kind, bound1)`.
    #[inline(always)]
    pub fn new(n: u32, kind: Kind, bound1: u32) -> Rules {
        let mask = (1u32 << n) - 1;
        let top_bit = 1 << (n - 1);
        let low = (1u32 << bound1) - 1;
        Rules {
            n,
            mask,
            kind,
            bound1,
            bound2: n - 1 - bound1,
            side_mask: top_bit | 1,
            early_exclude: match kind {
                Kind::Corner => 2,
                Kind::Interior => top_bit | 1,
            },
            side_rule_row: match kind {
                Kind::Corner => u32::MAX,
                Kind::Interior => n - 1 - bound1,
            },
            last_mask: (low | (low << (n - bound1))) & mask,
            top_bit,
            end_bit: top_bit >> bound1,
        }
    }

    /// The last row, whose queen completes a solution.
    #[inline(always)]
    pub fn last_row(&self) -> u32 {
        self.n - 1
    }

    /// The columns of `row` (not the last) that the symmetry rules allow, given the free
    /// columns `free` and the columns `down` already taken. Zero prunes the row.
    ///
    /// Corner: column 1 is out above row `bound1` (else the mirror image is the smaller one).
    /// Interior: the sides are out above row `bound1` (a queen there would sit on a side
    /// "earlier" than row 0's); at row `bound2` the sides must already be taken, or be taken
    /// now. Written with selects rather than branches: on the GPU every lane of a warp runs
    /// the same instructions whatever its row and kind.
    #[inline(always)]
    pub fn filter(&self, row: u32, free: u32, down: u32) -> u32 {
        // CPU only: most rows have no rule, and a branch a CPU predicts well skips the
        // selects (the GPU keeps them: a branch there splits the warp).
        #[cfg(not(target_arch = "nvptx64"))]
        if row >= self.bound1 && row != self.side_rule_row {
            return free;
        }
        let early = if row < self.bound1 {
            self.early_exclude
        } else {
            0
        };
        let taken = down & self.side_mask;
        let sides = if taken == 0 {
            0
        } else if taken != self.side_mask {
            self.side_mask
        } else {
            u32::MAX
        };
        let at_rule_row = if row == self.side_rule_row {
            sides
        } else {
            u32::MAX
        };
        free & !early & at_rule_row
    }
}

/// Solution counts by class size, and the nodes (queens placed) that found them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Classes with 2 members (symmetric under 90° rotation).
    pub count2: u64,
    /// Classes with 4 members (symmetric under 180° rotation only).
    pub count4: u64,
    /// Classes with 8 members (no symmetry).
    pub count8: u64,
    /// Queens placed, the last row's included.
    pub nodes: u64,
}

impl Tally {
    /// All solutions: `2·C2 + 4·C4 + 8·C8`.
    pub fn total(&self) -> u64 {
        2 * self.count2 + 4 * self.count4 + 8 * self.count8
    }
    /// Solutions up to the symmetries of the square: `C2 + C4 + C8`.
    pub fn unique(&self) -> u64 {
        self.count2 + self.count4 + self.count8
    }
    /// Adds another tally to this one.
    pub fn add(&mut self, other: &Tally) {
        self.count2 += other.count2;
        self.count4 += other.count4;
        self.count8 += other.count8;
        self.nodes += other.nodes;
    }
    /// Records one interior leaf of the given symmetry class.
    #[inline(always)]
    fn record(&mut self, symmetry: Symmetry) {
        match symmetry {
            Symmetry::Rot90 => self.count2 += 1,
            Symmetry::Rot180 => self.count4 += 1,
            Symmetry::None => self.count8 += 1,
            Symmetry::Duplicate => {}
        }
    }
}

/// The squares attacked in the next row by the queens placed so far, kept reversible.
///
/// `left` is the left-diagonal history in 64 bits: placing a queen shifts it up by one and
/// nothing reaches bit 64 for `n ≤ 32`, so removing the queen can shift it back exactly.
/// `right` holds the right diagonals 32 bits up for the same reason (shifting down never
/// drops a bit below bit 0). The next row sees the low 32 bits of `left` and the high 32 of
/// `right`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Attacks {
    pub(crate) left: u64,
    pub(crate) down: u32,
    pub(crate) right: u64,
}

impl Attacks {
    /// No queen placed.
    pub(crate) const EMPTY: Attacks = Attacks {
        left: 0,
        down: 0,
        right: 0,
    };

    /// The attacks on the following row after a queen at column mask `bit` in this row.
    #[inline(always)]
    pub(crate) fn place(self, bit: u32) -> Attacks {
        Attacks {
            left: (self.left | bit as u64) << 1,
            down: self.down | bit,
            right: (self.right | (bit as u64) << 32) >> 1,
        }
    }

    /// The inverse of [`place`](Self::place): the attacks before the queen at `bit` was placed.
    #[inline(always)]
    pub(crate) fn unplace(self, bit: u32) -> Attacks {
        Attacks {
            left: (self.left >> 1) ^ bit as u64,
            down: self.down ^ bit,
            right: (self.right << 1) ^ (bit as u64) << 32,
        }
    }

    /// Columns among `mask` that no placed queen attacks.
    #[inline(always)]
    pub(crate) fn free(self, mask: u32) -> u32 {
        mask & !(self.left as u32 | self.down | (self.right >> 32) as u32)
    }
}

/// The depth-first search of one subproblem, advanced one step at a time.
///
/// The stack is one word per row: for each row above `row`, the candidates that row had
/// when its queen was chosen. Candidates are tried lowest first, so the queen is the lowest
/// bit of that word and the candidates still to try are the bits above it: backing up needs
/// one load and no recomputation. (Rows of the subproblem's prefix hold just their queen.)
pub struct Search<S: Slab> {
    rules: Rules,
    /// The row whose remaining candidates are in `candidates`.
    row: u32,
    /// The subproblem's first free row; backtracking past it ends the search.
    start: u32,
    /// What the queens above `row` attack in it.
    attacks: Attacks,
    /// Columns of `row` still to try.
    candidates: u32,
    board: S,
    /// An interior leaf whose symmetry check is still to be done (see [`Search::advance`]).
    pending_check: bool,
    /// What this search has found so far (across every subproblem it was loaded with).
    pub tally: Tally,
}

impl<S: Slab> Search<S> {
    /// An idle search (no subproblem loaded) using `board` as its stack.
    #[inline(always)]
    pub fn new(n: u32, board: S) -> Self {
        Search {
            rules: Rules::new(n, Kind::Corner, 2),
            row: 0,
            start: 0,
            attacks: Attacks::EMPTY,
            candidates: 0,
            board,
            pending_check: false,
            tally: Tally::default(),
        }
    }

    /// True when the loaded subproblem is finished (or none was loaded).
    #[inline(always)]
    pub fn is_idle(&self) -> bool {
        self.candidates == 0 && self.row == self.start && !self.pending_check
    }

    /// Starts on `subproblem`: places its queens and computes the first free row's candidates.
    #[inline(always)]
    pub fn load(&mut self, subproblem: Subproblem) {
        self.rules = Rules::new(self.rules.n, subproblem.kind(), subproblem.bound1());
        let rows = subproblem.rows();
        self.attacks = Attacks::EMPTY;
        for row in 0..rows {
            let bit = 1u32 << subproblem.column(row);
            self.board.set(row, bit);
            self.attacks = self.attacks.place(bit);
        }
        self.row = rows;
        self.start = rows;
        self.candidates =
            self.rules
                .filter(rows, self.attacks.free(self.rules.mask), self.attacks.down);
    }

    /// Places up to `budget` queens, backing up as needed in between. Returns false once the
    /// subproblem is exhausted.
    ///
    /// Every iteration first backs up to a row that still has a candidate (a short loop,
    /// often empty), then places exactly one queen. On the GPU this keeps the lanes of a warp
    /// on the same instructions most of the time; the rules for that, learnt by measurement
    /// (`docs/notes/nqueens-gpu.md`):
    /// - "back up" and "place" are not separate steps (a warp would run both every step);
    /// - nothing with loops of its own runs inside the loop: an interior leaf that needs the
    ///   rotation check ends the call early and is checked at the start of the next one,
    ///   because a lane branching out to it would wait for the whole warp's budget;
    /// - the scalar state lives in locals (on the CPU the struct, which holds the stack array,
    ///   would otherwise keep it in memory).
    #[inline(always)]
    pub fn advance(&mut self, budget: u32) -> bool {
        if self.pending_check {
            self.pending_check = false;
            self.tally.record(check::classify(&self.board, &self.rules));
        }
        let rules = self.rules;
        let start = self.start;
        let mut row = self.row;
        let mut attacks = self.attacks;
        let mut candidates = self.candidates;
        let mut placed = 0u32;
        let mut corner_leaves = 0u32;
        let mut alive = true;
        while placed < budget {
            // Back up to a row that still has a candidate.
            while candidates == 0 {
                if row == start {
                    alive = false;
                    break;
                }
                row -= 1;
                let tried = self.board.get(row);
                let bit = lowest_bit(tried);
                attacks = attacks.unplace(bit);
                candidates = tried ^ bit;
            }
            if !alive {
                break;
            }
            // Place the lowest candidate: a leaf at the last row, else descend if allowed.
            placed += 1;
            let tried = candidates;
            let bit = lowest_bit(tried);
            candidates ^= bit;
            let next_attacks = attacks.place(bit);
            let next = row + 1;
            let free = next_attacks.free(rules.mask);
            if next == rules.last_row() {
                // The last row has at most one free column; a queen there completes a board.
                let complete = (free != 0) as u32;
                placed += complete;
                match rules.kind {
                    Kind::Corner => corner_leaves += complete,
                    Kind::Interior => {
                        if complete != 0 && free & rules.last_mask == 0 {
                            self.board.set(row, bit);
                            self.board.set(rules.last_row(), free);
                            self.pending_check = true;
                            break;
                        }
                    }
                }
            } else {
                let allowed = rules.filter(next, free, next_attacks.down);
                if allowed != 0 {
                    self.board.set(row, tried);
                    row = next;
                    attacks = next_attacks;
                    candidates = allowed;
                }
            }
        }
        self.row = row;
        self.attacks = attacks;
        self.candidates = candidates;
        self.tally.nodes += placed as u64;
        self.tally.count8 += corner_leaves as u64;
        alive || self.pending_check
    }

    /// Runs the loaded subproblem to the end.
    #[inline(always)]
    pub fn run(&mut self) {
        while self.advance(1 << 20) {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(n: u32, rows: u32) -> Tally {
        let mut search = Search::new(n, [0u32; 32]);
        let prefix_nodes = enumerate_prefixes(n, rows, |subproblem| {
            search.load(subproblem);
            search.run();
        });
        let mut tally = search.tally;
        tally.nodes += prefix_nodes;
        tally
    }

    #[test]
    fn counts_match_known_values_at_every_split_depth() {
        for (n, &(total, unique)) in (4..=13).zip(KNOWN[3..].iter()) {
            let reference = count(n, 2);
            assert_eq!(
                (reference.total(), reference.unique()),
                (total, unique),
                "n = {n}"
            );
            for rows in 3..=MAX_PREFIX_ROWS {
                // Where the tree is split must not change the counts, nor the nodes visited.
                assert_eq!(count(n, rows), reference, "n = {n}, rows = {rows}");
            }
        }
    }

    #[test]
    fn attacks_unplace_inverts_place() {
        // A 25-queens solution (evens then odds; valid since 25 mod 6 = 1): deep enough to
        // shift the 64-bit masks as far as the search ever does.
        let columns: [u32; 25] = core::array::from_fn(|i| {
            if i < 12 {
                2 * i as u32 + 1
            } else {
                2 * (i as u32 - 12)
            }
        });
        let mut history = [Attacks::EMPTY; 25];
        let mut attacks = Attacks::EMPTY;
        for (row, &column) in columns.iter().enumerate() {
            assert_ne!(
                attacks.free((1 << 25) - 1) & 1 << column,
                0,
                "row {row} attacked"
            );
            history[row] = attacks;
            attacks = attacks.place(1 << column);
        }
        for row in (0..25).rev() {
            attacks = attacks.unplace(1 << columns[row]);
            assert_eq!(attacks, history[row]);
        }
    }

    #[test]
    fn subproblem_packing_round_trips() {
        let columns = [1, 26, 0, 13, 7, 31, 2, 9, 30, 4];
        let packed = Subproblem::new(Kind::Interior, 12, &columns);
        assert_eq!(
            (packed.kind(), packed.bound1(), packed.rows()),
            (Kind::Interior, 12, 10)
        );
        for (row, &column) in columns.iter().enumerate() {
            assert_eq!(packed.column(row as u32), column);
        }
    }
}
