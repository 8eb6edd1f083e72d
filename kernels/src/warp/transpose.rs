//! The warp as a 32×32 bit matrix (lane = row, bit = column), transposed in registers.

use super::{Lanes, lane_id};

/// The rounds of [`Lanes::transpose`], in order: (width `s`, the columns whose bit `s` is
/// clear).
pub const TRANSPOSE_ROUNDS: [(u32, u32); 5] = [
    (16, 0x0000_FFFF),
    (8, 0x00FF_00FF),
    (4, 0x0F0F_0F0F),
    (2, 0x3333_3333),
    (1, 0x5555_5555),
];

impl Lanes<u32> {
    /// The transposed bit matrix: bit `c` of lane `r` becomes bit `r` of lane `c`.
    ///
    /// Five butterfly rounds, widths 16, 8, 4, 2, 1. In round `s` the lanes pair up with
    /// `lane ^ s`, and the two off-diagonal `s`×`s` blocks of every pair swap places: the lane
    /// of the pair with the lower index (bit `s` of the lane clear) keeps its low columns (bit
    /// `s` of the column clear) and takes its partner's low columns into its high ones; the lane
    /// with the higher index keeps its high columns and takes its partner's high columns into
    /// its low ones. After all five rounds every block has been transposed at every scale.
    ///
    /// GPU: per round one `shfl.sync.bfly`, two shifts and a few `lop3` (about 30 instructions
    /// in all, no memory). The CPU twin runs the same rounds over the 32-lane array.
    #[inline(always)]
    pub fn transpose(self) -> Lanes<u32> {
        // Five calls rather than a loop over an array of (width, mask) pairs, which the
        // compiler keeps in local memory.
        self.transpose_round(16, 0x0000_FFFF)
            .transpose_round(8, 0x00FF_00FF)
            .transpose_round(4, 0x0F0F_0F0F)
            .transpose_round(2, 0x3333_3333)
            .transpose_round(1, 0x5555_5555)
    }

    /// One round of [`transpose`](Self::transpose): width `s`, `low` the columns whose bit
    /// `s` is clear (the pairs of [`TRANSPOSE_ROUNDS`], in that order). Lane `l` and lane
    /// `l ^ s` swap the two off-diagonal `s`×`s` blocks of their pair. Public so that a round
    /// can be shown on its own (the learning path's pictures).
    ///
    /// GPU: one `shfl.sync.bfly`, two shifts and a few `lop3`.
    #[inline(always)]
    pub fn transpose_round(self, s: u32, low: u32) -> Lanes<u32> {
        let partner = self.shuffle_xor(s);
        lane_id()
            .zip_with(self, |lane, mine| (lane, mine))
            .zip_with(partner, |(lane, mine), theirs| {
                if lane & s == 0 {
                    (mine & low) | ((theirs & low) << s)
                } else {
                    (mine & !low) | ((theirs & !low) >> s)
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn transpose_moves_every_bit(rows: [u32; 32]) {
            let t = Lanes::from_array(rows).transpose().to_array();
            for (r, row) in rows.iter().enumerate() {
                for (c, column) in t.iter().enumerate() {
                    prop_assert_eq!(row >> c & 1, column >> r & 1);
                }
            }
        }
    }
}
