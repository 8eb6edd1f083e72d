//! Subproblems: the first rows of a search, placed by the host and packed into a `u64`.

use super::{Attacks, Kind, MIN_SYMMETRY_N, Rules};

/// Most rows a subproblem can carry (5 bits a column in the 54 bits left by the header).
pub const MAX_PREFIX_ROWS: u32 = 10;

/// The first `rows` queens of a search, packed: bit 0 the kind (1 = interior), bits 1..6
/// `bound1`, bits 6..10 the number of rows, then 5 bits per row with its queen's column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct Subproblem(pub u64);

impl Subproblem {
    const COLUMNS_SHIFT: u32 = 10;

    /// Packs a prefix; `columns.len()` must not exceed [`MAX_PREFIX_ROWS`].
    pub fn new(kind: Kind, bound1: u32, columns: &[u32]) -> Subproblem {
        let mut word =
            (kind == Kind::Interior) as u64 | (bound1 as u64) << 1 | (columns.len() as u64) << 6;
        for (row, &column) in columns.iter().enumerate() {
            word |= (column as u64) << (Self::COLUMNS_SHIFT + 5 * row as u32);
        }
        Subproblem(word)
    }

    /// Corner or interior.
    #[inline(always)]
    pub fn kind(self) -> Kind {
        if self.0 & 1 == 1 {
            Kind::Interior
        } else {
            Kind::Corner
        }
    }

    /// The family's `bound1`.
    #[inline(always)]
    pub fn bound1(self) -> u32 {
        (self.0 >> 1) as u32 & 31
    }

    /// Rows placed.
    #[inline(always)]
    pub fn rows(self) -> u32 {
        (self.0 >> 6) as u32 & 15
    }

    /// Column of the queen of `row` (< `rows()`).
    #[inline(always)]
    pub fn column(self, row: u32) -> u32 {
        (self.0 >> (Self::COLUMNS_SHIFT + 5 * row)) as u32 & 31
    }
}

/// Calls `emit` with every subproblem of board size `n` (4..=27) whose first `rows` rows are
/// placed (`rows` is clamped to what the families and `n` allow: at least the family's fixed
/// rows, at most `min(n − 2, MAX_PREFIX_ROWS)`), in a fixed order. Returns the queens placed
/// on the way, dead ends included, so that node counts add up with the searches'.
pub fn enumerate_prefixes(n: u32, rows: u32, mut emit: impl FnMut(Subproblem)) -> u64 {
    debug_assert!((MIN_SYMMETRY_N..=super::MAX_N).contains(&n));
    let depth = rows.clamp(2, (n - 2).min(MAX_PREFIX_ROWS));
    let mut nodes = 0;
    let mut columns = [0u32; MAX_PREFIX_ROWS as usize];
    // Corner: row 0 at column 0, row 1 at column bound1.
    for bound1 in 2..n - 1 {
        let rules = Rules::new(n, Kind::Corner, bound1);
        columns[0] = 0;
        columns[1] = bound1;
        nodes += 2;
        let attacks = Attacks::EMPTY.place(1).place(1 << bound1);
        nodes += extend(&rules, &mut columns, 2, depth, attacks, &mut emit);
    }
    // Interior: row 0 at column bound1 < n − 1 − bound1.
    let mut bound1 = 1;
    while bound1 < n - 1 - bound1 {
        let rules = Rules::new(n, Kind::Interior, bound1);
        columns[0] = bound1;
        nodes += 1;
        let attacks = Attacks::EMPTY.place(1 << bound1);
        nodes += extend(&rules, &mut columns, 1, depth, attacks, &mut emit);
        bound1 += 1;
    }
    nodes
}

fn extend(
    rules: &Rules,
    columns: &mut [u32; MAX_PREFIX_ROWS as usize],
    row: u32,
    depth: u32,
    attacks: Attacks,
    emit: &mut impl FnMut(Subproblem),
) -> u64 {
    if row == depth {
        emit(Subproblem::new(
            rules.kind,
            rules.bound1,
            &columns[..depth as usize],
        ));
        return 0;
    }
    let mut candidates = rules.filter(row, attacks.free(rules.mask), attacks.down);
    let mut nodes = 0;
    while candidates != 0 {
        let bit = crate::bits::lowest_bit(candidates);
        candidates ^= bit;
        nodes += 1;
        columns[row as usize] = bit.trailing_zeros();
        nodes += extend(rules, columns, row + 1, depth, attacks.place(bit), emit);
    }
    nodes
}
