//! Reductions across the lanes of a warp, built from butterfly shuffles.
//!
//! After `log2(32) = 5` rounds of `x = combine(x, x.shuffle_xor(s))` for `s = 16, 8, 4, 2, 1`
//! every lane holds the combination of all 32 values. The code is the same for both forms;
//! only `shuffle_xor` differs.

use super::Lanes;
use crate::bits::maj3;

/// Calls `round` with the distances of the five butterfly rounds: 16, 8, 4, 2, 1.
///
/// Written out rather than looped over an array: an array that is not unrolled away would
/// land in local memory on the GPU.
#[inline(always)]
fn butterfly(mut round: impl FnMut(u32)) {
    round(16);
    round(8);
    round(4);
    round(2);
    round(1);
}

impl Lanes<u32> {
    /// The 32 lanes' values combined by `combine` (an associative and commutative operation:
    /// max, and, xor, …), returned to every lane: five butterfly rounds of
    /// `x = combine(x, x.shuffle_xor(s))`. GPU: 5 × `shfl.sync.bfly.b32` and `combine`'s
    /// instructions. For add, min, max, and, or and xor, the `redux_*` methods do it in one
    /// instruction on sm_80 and newer (`warpsearch bench warp` times both).
    #[inline(always)]
    pub fn reduce(self, combine: impl Fn(u32, u32) -> u32) -> u32 {
        let mut x = self;
        butterfly(|s| x = x.zip_with(x.shuffle_xor(s), &combine));
        x.uniform()
    }

    /// Wrapping sum of the 32 lanes' values, returned to every lane (5 × `SHFL.BFLY` + `IADD`).
    #[inline(always)]
    pub fn sum(self) -> u32 {
        let mut x = self;
        butterfly(|s| x = x + x.shuffle_xor(s));
        x.uniform()
    }

    /// Bitwise OR of the 32 lanes' values, returned to every lane.
    #[inline(always)]
    pub fn or_all(self) -> u32 {
        let mut x = self;
        butterfly(|s| x = x | x.shuffle_xor(s));
        x.uniform()
    }

    /// The smallest value of the warp, in every lane.
    ///
    /// GPU: five rounds of `shfl.sync.bfly` + `min.u32` (SASS `SHFL.BFLY`, `VIMNMX`).
    #[inline(always)]
    pub fn min_all(self) -> u32 {
        let mut x = self;
        butterfly(|s| x = x.zip_with(x.shuffle_xor(s), u32::min));
        x.uniform()
    }

    /// For every bit position (column of a board whose rows are the lanes), how many lanes
    /// have that bit set, saturated at 3.
    ///
    /// GPU: [`column_counts_by_butterfly`](Self::column_counts_by_butterfly).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub fn column_counts(self) -> ColumnCounts {
        self.column_counts_by_butterfly()
    }

    /// [`column_counts`](Self::column_counts) as the GPU computes it: each lane starts with a
    /// 2-bit counter per column — `(bit1, bit0) = (0, row)` — and five butterfly rounds add
    /// counters pairwise with saturation, two bit-planes at a time:
    /// `bit1 = x.bit1 | y.bit1 | (x.bit0 & y.bit0)` and
    /// `bit0 = maj3(x.bit1, y.bit0, y.bit1) | (x.bit0 ^ y.bit0)`, where `maj3` is one `LOP3`.
    /// Ten shuffles in all, whatever the board. (On the CPU only tests call it, against the
    /// twin.)
    #[cfg_attr(not(any(target_arch = "nvptx64", test)), allow(dead_code))]
    #[inline(always)]
    fn column_counts_by_butterfly(self) -> ColumnCounts {
        let mut counters = LaneCounters::of_rows(self);
        butterfly(|s| counters = counters.round(s));
        ColumnCounts {
            bit0: counters.bit0.uniform(),
            bit1: counters.bit1.uniform(),
        }
    }

    /// For every bit position (column of a board whose rows are the lanes), how many lanes
    /// have that bit set, saturated at 3.
    ///
    /// CPU twin: the rows added one at a time to the two bit-planes with saturation
    /// (`bit1 |= bit0 & row`, `bit0 = (bit0 ^ row) | (bit1 & (bit0 | row))`): 32 × 6
    /// operations instead of the butterfly's ten whole-warp shuffles (the no-three-in-line
    /// search spent a fifth of its CPU time in them). Same result: a saturated sum does not
    /// depend on the order of its terms.
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    pub fn column_counts(self) -> ColumnCounts {
        let (mut bit0, mut bit1) = (0u32, 0u32);
        for row in self.to_array() {
            let saturated_or_carry = bit1 & (bit0 | row);
            bit1 |= bit0 & row;
            bit0 = (bit0 ^ row) | saturated_or_carry;
        }
        ColumnCounts { bit0, bit1 }
    }
}

/// The GPU column counter between its butterfly rounds: in every lane, a 2-bit counter per
/// column saturated at 3, as two bit-planes (`2·bit1 + bit0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneCounters {
    /// Low bit of each column's counter, per lane.
    pub bit0: Lanes<u32>,
    /// High bit of each column's counter, per lane.
    pub bit1: Lanes<u32>,
}

impl LaneCounters {
    /// Each lane counting its own row: `(bit1, bit0) = (0, row)`.
    #[inline(always)]
    pub fn of_rows(rows: Lanes<u32>) -> LaneCounters {
        LaneCounters {
            bit0: rows,
            bit1: Lanes::splat(0),
        }
    }

    /// One butterfly round: every lane adds the counters of lane `lane ^ s`, saturating at 3
    /// (`bit1 = x.bit1 | y.bit1 | (x.bit0 & y.bit0)`,
    /// `bit0 = maj3(x.bit1, y.bit0, y.bit1) | (x.bit0 ^ y.bit0)`). After the rounds 16, 8, 4,
    /// 2, 1 every lane holds the whole warp's counts ([`Lanes::column_counts`]); after the
    /// first `k`, those of the `2^k` lanes that share its low `5 − k` bits.
    ///
    /// GPU: two `shfl.sync.bfly` and three `lop3`.
    #[inline(always)]
    pub fn round(self, s: u32) -> LaneCounters {
        let (x0, x1) = (self.bit0, self.bit1);
        let (y0, y1) = (x0.shuffle_xor(s), x1.shuffle_xor(s));
        LaneCounters {
            bit1: x1 | y1 | (x0 & y0),
            bit0: lanes_maj3(x1, y0, y1) | (x0 ^ y0),
        }
    }
}

#[inline(always)]
fn lanes_maj3(a: Lanes<u32>, b: Lanes<u32>, c: Lanes<u32>) -> Lanes<u32> {
    a.zip_with(b, |a, b| (a, b))
        .zip_with(c, |(a, b), c| maj3(a, b, c))
}

/// Per-column counts saturated at 3, as two bit-planes: column `c` holds
/// `min(count, 3) = 2·bit1[c] + bit0[c]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnCounts {
    /// Low bit of each column's saturated count.
    pub bit0: u32,
    /// High bit of each column's saturated count.
    pub bit1: u32,
}

impl ColumnCounts {
    /// Columns whose count is exactly 0.
    #[inline(always)]
    pub fn zero(self) -> u32 {
        !(self.bit0 | self.bit1)
    }
    /// Columns whose count is exactly 1.
    #[inline(always)]
    pub fn one(self) -> u32 {
        self.bit0 & !self.bit1
    }
    /// Columns whose count is exactly 2.
    #[inline(always)]
    pub fn two(self) -> u32 {
        !self.bit0 & self.bit1
    }
    /// Columns whose count is 3 or more.
    #[inline(always)]
    pub fn three_or_more(self) -> u32 {
        self.bit0 & self.bit1
    }
    /// The saturated count of column `column` (0..=3).
    #[inline(always)]
    pub fn get(self, column: u32) -> u32 {
        ((self.bit1 >> column) & 1) << 1 | ((self.bit0 >> column) & 1)
    }

    /// The counts of columns `0..16`, and those of columns `16..32` moved down to `0..16`:
    /// bits count independently, so two 16-column boards packed side by side in one word are
    /// counted by one butterfly and split here.
    #[inline(always)]
    pub fn halves(self) -> (ColumnCounts, ColumnCounts) {
        let low = ColumnCounts {
            bit0: self.bit0 & 0xFFFF,
            bit1: self.bit1 & 0xFFFF,
        };
        let high = ColumnCounts {
            bit0: self.bit0 >> 16,
            bit1: self.bit1 >> 16,
        };
        (low, high)
    }
}

impl Lanes<u64> {
    /// Wrapping sum of the 32 lanes' 64-bit values, returned to every lane
    /// (each round shuffles the two 32-bit halves).
    #[inline(always)]
    pub fn sum(self) -> u64 {
        let mut x = self;
        butterfly(|s| {
            let low = x.map(|v| v as u32).shuffle_xor(s);
            let high = x.map(|v| (v >> 32) as u32).shuffle_xor(s);
            let other = low.zip_with(high, |l, h| (h as u64) << 32 | l as u64);
            x = x.zip_with(other, u64::wrapping_add);
        });
        x.uniform()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sparse_rows() -> impl Strategy<Value = [u32; 32]> {
        // Sparse rows make every saturated count from 0 to 3 common.
        proptest::array::uniform32(
            (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(a, b, c)| a & b & c),
        )
    }

    proptest! {
        #[test]
        fn packed_halves_count_like_two_boards(rows in sparse_rows()) {
            let (low, high) = Lanes::from_array(rows).column_counts().halves();
            prop_assert_eq!(low, Lanes::from_array(rows.map(|r| r & 0xFFFF)).column_counts());
            prop_assert_eq!(high, Lanes::from_array(rows.map(|r| r >> 16)).column_counts());
        }

        #[test]
        fn the_gpu_and_cpu_column_counts_agree(rows in sparse_rows()) {
            let lanes = Lanes::from_array(rows);
            prop_assert_eq!(lanes.column_counts_by_butterfly(), lanes.column_counts());
        }

        #[test]
        fn column_counts_saturate_at_three(rows in sparse_rows()) {
            let counts = Lanes::from_array(rows).column_counts();
            for column in 0..32 {
                let reference = rows.iter().filter(|r| *r >> column & 1 == 1).count().min(3) as u32;
                prop_assert_eq!(counts.get(column), reference);
            }
        }

        #[test]
        fn sum_and_or_reduce(values: [u32; 32]) {
            let lanes = Lanes::from_array(values);
            prop_assert_eq!(lanes.sum(), values.iter().fold(0u32, |a, &b| a.wrapping_add(b)));
            prop_assert_eq!(lanes.or_all(), values.iter().fold(0, |a, &b| a | b));
            prop_assert_eq!(lanes.min_all(), values.iter().copied().min().unwrap_or(0));
        }

        #[test]
        fn votes(values: [bool; 32]) {
            let lanes = Lanes::from_array(values);
            let reference = (0..32).fold(0u32, |w, i| w | (values[i] as u32) << i);
            prop_assert_eq!(lanes.ballot(), reference);
            prop_assert_eq!(lanes.any(), reference != 0);
            prop_assert_eq!(lanes.all(), reference == u32::MAX);
        }
    }
}
