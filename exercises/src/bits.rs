//! Exercises 5 and 6: the warp as a bit matrix, and `lop3`.

// Used by the exercises' signatures and docs (with `solutions`, by the tests alone).
#[cfg_attr(feature = "solutions", allow(unused_imports))]
use kernels::warp::Lanes;

/// **Exercise 5.** A 32×32 board, row `r` in lane `r` (bit `c` of the row: column `c`): lane
/// `c` of the answer holds how many rows have a point in column `c`.
///
/// Two library calls: turn the columns into rows ([`Lanes::transpose`]), then count each
/// row's bits ([`Lanes::popc`]). Draw it on paper first: which lane holds which bit after
/// the transpose?
#[cfg(not(feature = "solutions"))]
pub fn column_popcounts(rows: Lanes<u32>) -> Lanes<u32> {
    todo!("exercise 5: transpose, then popc")
}
#[cfg(feature = "solutions")]
pub use crate::solutions::column_popcounts;

/// **Exercise 6.** For each bit: `a`'s bit where `mask` has a 1, `b`'s where it has a 0 —
/// `(mask & a) | (!mask & b)` — as **one** [`kernels::bits::lop3`].
///
/// The table of a three-input function is the function applied to the constants
/// `0xF0, 0xCC, 0xAA` (the first, second and third input's column of a truth table).
/// Compute it by hand, then check it with the test.
#[cfg(not(feature = "solutions"))]
pub fn bit_select(mask: u32, a: u32, b: u32) -> u32 {
    todo!("exercise 6: one lop3 with the right table")
}
#[cfg(feature = "solutions")]
pub use crate::solutions::bit_select;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_popcounts_counts_each_column() {
        let mut seed = 0x9E37_79B9u32;
        for _ in 0..50 {
            let rows: [u32; 32] = core::array::from_fn(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                seed & seed.rotate_left(7)
            });
            let counts = column_popcounts(Lanes::from_array(rows)).to_array();
            for (column, &count) in counts.iter().enumerate() {
                let by_hand = rows.iter().filter(|r| *r >> column & 1 == 1).count() as u32;
                assert_eq!(
                    count, by_hand,
                    "column {column}: your count (left), expected (right); rows {rows:08x?}"
                );
            }
        }
    }

    #[test]
    fn bit_select_takes_a_under_the_mask_and_b_elsewhere() {
        let cases = [
            (0xFFFF_0000u32, 0x1234_5678u32, 0x9ABC_DEF0u32),
            (0x0F0F_0F0F, 0xFFFF_FFFF, 0),
            (0, 0xDEAD_BEEF, 0xCAFE_F00D),
            (0xAAAA_AAAA, 0x5555_5555, 0xAAAA_AAAA),
        ];
        for (mask, a, b) in cases {
            assert_eq!(
                bit_select(mask, a, b),
                (mask & a) | (!mask & b),
                "bit_select({mask:#010x}, {a:#010x}, {b:#010x}): yours (left), expected (right)"
            );
        }
    }
}
