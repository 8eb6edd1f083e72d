//! Look-ahead: the columns of a row whose queen leaves a later row some free square. The
//! constellation counter tries only those, so a queen is only ever placed where the row after
//! it (and on a CPU the row after that too) can still be filled — about a third of a plain
//! search's placements are of the other kind (measured over the constellation search at
//! n = 12..16: 1.6× fewer placements with one row, 1.25× fewer again with a second).

use crate::bits::{MAJ3, lop3, nor3};

/// The columns `b` of a row whose queen leaves some free square in the row `rows` (1 to 31)
/// further down, given `ahead`, that row's free columns before this row's queen; none when
/// `ahead` is empty.
///
/// A queen at `b` attacks `b − rows`, `b` and `b + rows` there, so it empties the row exactly
/// when `ahead` lies within those three. That is tested for `ahead` of at most two columns
/// (with one, its three neighbours empty it; with two, the columns that attack both — the
/// bitwise majority of the three shifted copies); a wider `ahead` is rarely emptied by one
/// queen, and every column is spared. On the row before last this is exact: the last row then
/// has at most two free columns (only two columns are left), so each spared candidate
/// completes exactly one board.
///
/// GPU: two shifts for the neighbours, one `LOP3` each for the one- and two-column sets (built
/// complemented: no separate `NOT`), two tests and selects; no branch. (The shift up was a
/// multiplication by `rows · (rows − 1) + 2` while the multiply pipe had room and the integer
/// pipe did not; now that instruction issue is the limit, the one shift is cheaper than two
/// `IMAD`s.)
#[inline(always)]
pub fn spared(ahead: u32, rows: u32) -> u32 {
    choose(ahead, spared_sets(ahead, ahead << rows, ahead >> rows))
}

/// The spared columns for `ahead`, given its sets for one and for two columns: `one` if it
/// has one column, `two` if two, every column if more, none if it is empty.
///
/// GPU: two tests and selects (tested last, `ahead == 0` stays a select; first, the compiler
/// makes a branch of the rest).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn choose(ahead: u32, (one, two): (u32, u32)) -> u32 {
    let rest = ahead & ahead.wrapping_sub(1);
    let spared = if rest == 0 {
        one
    } else if rest & rest.wrapping_sub(1) == 0 {
        two
    } else {
        u32::MAX
    };
    if ahead == 0 { 0 } else { spared }
}

/// CPU twin of the GPU `choose`: the same sets, chosen by masks made from the tests rather
/// than by selects, which the compiler may turn into branches that a CPU mispredicts.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn choose(ahead: u32, (one, two): (u32, u32)) -> u32 {
    let rest = ahead & ahead.wrapping_sub(1);
    let pair = rest & rest.wrapping_sub(1);
    let when = |test: bool| 0u32.wrapping_sub(test as u32);
    ((one & when(rest == 0)) | (two & when(rest != 0 && pair == 0)) | when(pair != 0))
        & when(ahead != 0)
}

/// The columns spared when `ahead` has one column (not its three neighbours) and when it has
/// two (not those attacking both), given its copies moved `up` and `down` by the rows between.
#[inline(always)]
fn spared_sets(ahead: u32, up: u32, down: u32) -> (u32, u32) {
    (nor3(up, ahead, down), lop3::<{ !MAJ3 }>(up, ahead, down))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition: `b` empties the row when no column of `ahead` survives a queen at `b`.
    fn emptying_reference(ahead: u32, rows: u32, width: u32) -> u32 {
        (0..width)
            .filter(|&b| {
                let attacked = 1u64 << b | 1u64 << (b + rows) | (1u64 << b) >> rows;
                ahead as u64 & !attacked == 0
            })
            .fold(0, |set, b| set | 1 << b)
    }

    proptest! {
        #[test]
        fn spared_is_exact_up_to_two_columns_and_never_drops_a_good_column(
            ahead in 0u32..1 << 20,
            rows in 1u32..=6,
        ) {
            let board = (1u32 << 20) - 1;
            let exact = !emptying_reference(ahead, rows, 20) & board;
            let got = spared(ahead, rows) & board;
            if ahead.count_ones() <= 2 {
                prop_assert_eq!(got, exact);
            } else {
                // Every column that leaves the row something is kept.
                prop_assert_eq!(exact & !got, 0);
            }
        }
    }
}
