//! Randomised depth-first search for one N-Queens solution (Hennum, "Finding solutions to the
//! n-queens puzzle on GPU", EPFL): many independent searches, each trying the columns of every
//! row in a random order and giving up after a fixed number of queen placements.
//!
//! Each row tries its free columns cyclically from a random starting column, so the order is
//! random yet the position reached can be stored in one word: the stack holds, per row, the
//! starting column and how far round the cycle the row has got. Attacks are kept as absolute
//! occupancy of columns and of both diagonal families (256-bit for boards up to 128), so a
//! queen is removed by clearing three bits.

use crate::rng::SplitMix64;
use crate::slab::Slab;

/// Largest board the randomised search handles (128 columns, 255 diagonals of each kind).
pub const MAX_N: u32 = 128;

/// A row of up to 128 columns as two 64-bit words. Written out rather than `u128`: the
/// first GPU measurement of this search at N = 100 disagreed with the CPU and produced an
/// attacked board (caught by verification), and 128-bit shifts by 64 or more — which N = 40,
/// where the two agreed exactly, never needs — are the operation that differs. Here every shift
/// is a 64-bit shift by less than 64, with the word selected by an explicit branch.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Row128 {
    low: u64,
    high: u64,
}

impl Row128 {
    /// The low `n` bits set (`n ≤ 128`).
    #[inline(always)]
    pub fn first(n: u32) -> Row128 {
        Row128 {
            low: low_bits(n.min(64)),
            high: low_bits(n.saturating_sub(64)),
        }
    }

    /// Only bit `index` (< 128) set.
    #[inline(always)]
    pub fn bit(index: u32) -> Row128 {
        if index < 64 {
            Row128 {
                low: 1 << index,
                high: 0,
            }
        } else {
            Row128 {
                low: 0,
                high: 1 << (index - 64),
            }
        }
    }

    /// True when no bit is set.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.low | self.high == 0
    }

    /// Index of the lowest set bit (128 when empty).
    #[inline(always)]
    pub fn lowest(self) -> u32 {
        if self.low != 0 {
            self.low.trailing_zeros()
        } else {
            64 + self.high.trailing_zeros()
        }
    }

    /// Bits `shift ..` moved down to 0 (`shift < 128`).
    #[inline(always)]
    pub fn shifted_down(self, shift: u32) -> Row128 {
        if shift == 0 {
            self
        } else if shift < 64 {
            Row128 {
                low: self.low >> shift | self.high << (64 - shift),
                high: self.high >> shift,
            }
        } else {
            Row128 {
                low: self.high >> (shift - 64),
                high: 0,
            }
        }
    }

    /// Bits moved up by `shift` (`shift < 128`), the top ones dropped.
    #[inline(always)]
    pub fn shifted_up(self, shift: u32) -> Row128 {
        if shift == 0 {
            self
        } else if shift < 64 {
            Row128 {
                low: self.low << shift,
                high: self.high << shift | self.low >> (64 - shift),
            }
        } else {
            Row128 {
                low: 0,
                high: self.low << (shift - 64),
            }
        }
    }

    /// Rotated right by `by` within the low `n` bits (`by < n ≤ 128`, higher bits clear).
    #[inline(always)]
    pub fn rotate_right(self, by: u32, n: u32) -> Row128 {
        if by == 0 {
            self
        } else {
            (self.shifted_down(by) | self.shifted_up(n - by)) & Row128::first(n)
        }
    }
}

#[inline(always)]
fn low_bits(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

impl core::ops::BitOr for Row128 {
    type Output = Row128;
    #[inline(always)]
    fn bitor(self, rhs: Row128) -> Row128 {
        Row128 {
            low: self.low | rhs.low,
            high: self.high | rhs.high,
        }
    }
}

impl core::ops::BitAnd for Row128 {
    type Output = Row128;
    #[inline(always)]
    fn bitand(self, rhs: Row128) -> Row128 {
        Row128 {
            low: self.low & rhs.low,
            high: self.high & rhs.high,
        }
    }
}

impl core::ops::Not for Row128 {
    type Output = Row128;
    #[inline(always)]
    fn not(self) -> Row128 {
        Row128 {
            low: !self.low,
            high: !self.high,
        }
    }
}

/// A set of up to 256 bits in four words, with the few operations the search needs. Word
/// indices are selected with `match` so that, on the GPU, the words stay in registers.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Bits256 {
    words: [u64; 4],
}

impl Bits256 {
    /// Sets bit `index` (< 256).
    #[inline(always)]
    pub fn set(&mut self, index: u32) {
        let bit = 1u64 << (index % 64);
        match index / 64 {
            0 => self.words[0] |= bit,
            1 => self.words[1] |= bit,
            2 => self.words[2] |= bit,
            _ => self.words[3] |= bit,
        }
    }

    /// Clears bit `index` (< 256).
    #[inline(always)]
    pub fn clear(&mut self, index: u32) {
        let bit = !(1u64 << (index % 64));
        match index / 64 {
            0 => self.words[0] &= bit,
            1 => self.words[1] &= bit,
            2 => self.words[2] &= bit,
            _ => self.words[3] &= bit,
        }
    }

    /// Bits `shift .. shift + 128` (`shift < 128`).
    #[inline(always)]
    pub fn window(&self, shift: u32) -> Row128 {
        let (a, b, c) = match shift / 64 {
            0 => (self.words[0], self.words[1], self.words[2]),
            _ => (self.words[1], self.words[2], self.words[3]),
        };
        let s = shift % 64;
        if s == 0 {
            Row128 { low: a, high: b }
        } else {
            Row128 {
                low: a >> s | b << (64 - s),
                high: b >> s | c << (64 - s),
            }
        }
    }
}

/// The outcome of one randomised search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// All rows hold a queen: the stack holds the solution (see [`column_of`]).
    Found,
    /// The placement budget ran out first.
    GaveUp,
}

/// Decodes a solved stack word into the queen's column.
#[inline(always)]
pub fn column_of(word: u32, n: u32) -> u32 {
    let (start, step) = (word & 0xFF, word >> 8);
    (start + step) % n
}

/// Runs search number `index` of the family seeded with `seed` on an `n`-queens board
/// (1 ≤ n ≤ 128), placing at most `limit` queens. The stack `rows` needs `n` words; on
/// [`Outcome::Found`] word `r` decodes to row `r`'s column with [`column_of`]. Returns the
/// outcome and the number of queens placed.
#[inline(always)]
pub fn search<S: Slab>(n: u32, seed: u64, index: u64, limit: u32, rows: &mut S) -> (Outcome, u32) {
    let mut rng = SplitMix64::new(seed, index);
    let mask = Row128::first(n);
    let mut columns = Row128::default();
    let mut down_diagonals = Bits256::default(); // index row + column
    let mut up_diagonals = Bits256::default(); // index column − row + n − 1
    let mut row = 0u32;
    // Position in the current row's cycle to resume from (0 = fresh row, from its start).
    let mut resume_from: u32 = 0;
    let mut start = rng.below(n);
    let mut placed = 0u32;
    loop {
        if row == n {
            return (Outcome::Found, placed);
        }
        if placed >= limit {
            return (Outcome::GaveUp, placed);
        }
        let free =
            mask & !(columns | down_diagonals.window(row) | up_diagonals.window(n - 1 - row));
        // Free columns in this row's cyclic order, bit k = column (start + k) mod n.
        let ahead = free.rotate_right(start, n) & !Row128::first(resume_from);
        if ahead.is_empty() {
            // Row exhausted: back up to the row above and move on from its queen.
            if row == 0 {
                return (Outcome::GaveUp, placed);
            }
            row -= 1;
            let word = rows.get(row);
            let (row_start, step) = (word & 0xFF, word >> 8);
            let column = (row_start + step) % n;
            columns = columns & !Row128::bit(column);
            down_diagonals.clear(row + column);
            up_diagonals.clear(column + n - 1 - row);
            start = row_start;
            resume_from = step + 1;
            continue;
        }
        let step = ahead.lowest();
        let column = (start + step) % n;
        rows.set(row, start | step << 8);
        columns = columns | Row128::bit(column);
        down_diagonals.set(row + column);
        up_diagonals.set(column + n - 1 - row);
        placed += 1;
        row += 1;
        resume_from = 0;
        start = if row < n { rng.below(n) } else { 0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    fn verify(columns: &[u32]) -> bool {
        let n = columns.len();
        (0..n).all(|a| {
            (a + 1..n).all(|b| {
                columns[a] != columns[b] && columns[a].abs_diff(columns[b]) as usize != b - a
            })
        })
    }

    #[test]
    fn window_extracts_shifted_bits() {
        let mut bits = Bits256::default();
        for index in [0, 5, 63, 64, 100, 127, 128, 200, 254] {
            bits.set(index);
        }
        for shift in [0u32, 1, 5, 63, 64, 65, 100, 127] {
            let window = bits.window(shift);
            for k in 0..128u32 {
                let expected = [0, 5, 63, 64, 100, 127, 128, 200, 254].contains(&(shift + k));
                assert_eq!(
                    !(window & Row128::bit(k)).is_empty(),
                    expected,
                    "shift {shift} bit {k}"
                );
            }
        }
        bits.clear(64);
        assert!((bits.window(64) & Row128::bit(0)).is_empty());
    }

    /// The word-pair operations against `u128` arithmetic on the CPU, where it is reliable.
    #[test]
    fn row128_matches_u128() {
        let as_u128 = |r: Row128| (r.high as u128) << 64 | r.low as u128;
        let mut rng = crate::rng::SplitMix64::new(5, 5);
        for _ in 0..2000 {
            let x = Row128 {
                low: rng.next_u64(),
                high: rng.next_u64(),
            };
            let n = 1 + rng.below(128);
            let mask = if n == 128 {
                u128::MAX
            } else {
                (1u128 << n) - 1
            };
            let shift = rng.below(128);
            assert_eq!(as_u128(x.shifted_down(shift)), as_u128(x) >> shift);
            assert_eq!(as_u128(x.shifted_up(shift)), as_u128(x) << shift);
            assert_eq!(as_u128(Row128::first(n)), mask);
            let by = rng.below(n);
            let within = as_u128(x) & mask;
            let rotated = if by == 0 {
                within
            } else {
                ((within >> by) | (within << (n - by))) & mask
            };
            assert_eq!(
                as_u128((x & Row128::first(n)).rotate_right(by, n)),
                rotated,
                "n {n} by {by}"
            );
            assert_eq!(Row128::bit(shift).lowest(), shift);
        }
    }

    #[test]
    fn finds_valid_solutions_for_small_and_large_boards() {
        for n in [1u32, 4, 5, 8, 13, 40, 64, 100, 128] {
            let found = (0..200u64).find_map(|index| {
                let mut rows = [0u32; 128];
                let (outcome, _) = search(n, 42, index, 20_000, &mut rows);
                (outcome == Outcome::Found).then(|| {
                    (0..n)
                        .map(|r| column_of(rows[r as usize], n))
                        .collect::<Vec<_>>()
                })
            });
            let columns = found.unwrap_or_else(|| panic!("no solution for n = {n}"));
            assert!(verify(&columns), "n = {n}: {columns:?}");
        }
    }

    #[test]
    fn boards_without_solutions_give_up() {
        for n in [2u32, 3] {
            let mut rows = [0u32; 128];
            assert_eq!(search(n, 1, 0, 1000, &mut rows).0, Outcome::GaveUp);
        }
    }
}
