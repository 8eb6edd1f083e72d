//! One-row look-ahead: the columns of a row whose queen would leave a later row with no free
//! square. Both N-Queens searches drop them from a row's candidates, so a queen is only ever
//! placed where the row after it can still be filled — about a third of a plain search's
//! placements are of the other kind (measured over the constellation search at n = 12..16:
//! 1.6× fewer placements with it).

use crate::bits::{maj3, or3};

/// The columns `b` of a row whose queen empties a row `rows` (1, 2 or 3) further down, given
/// `ahead`, that row's free columns before this row's queen; every column when `ahead` is
/// empty.
///
/// A queen at `b` attacks `b − rows`, `b` and `b + rows` there, so it empties the row exactly
/// when `ahead` lies within those three. That is tested for `ahead` of at most two columns
/// (with one, its three neighbours qualify; with two, the columns that attack both — the
/// bitwise majority of the three shifted copies); a wider `ahead` is rarely emptied by one
/// queen and is left to the search. On the row before last this is exact: the last row then
/// has at most two free columns (only two columns are left), so each surviving candidate
/// completes exactly one board.
///
/// GPU: a multiplication (2^rows, on the multiply pipe) and a shift for the neighbours, one
/// `LOP3` each for the one- and two-column kill sets, two tests and selects; no branch.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn doomed(ahead: u32, rows: u32) -> u32 {
    let (one, two) = kill_sets(ahead, rows);
    let rest = ahead & ahead.wrapping_sub(1);
    let kill = if rest == 0 {
        one
    } else if rest & rest.wrapping_sub(1) == 0 {
        two
    } else {
        0
    };
    // Last, as a select: tested first, the compiler makes a branch of the rest.
    if ahead == 0 { u32::MAX } else { kill }
}

/// CPU twin of the GPU `doomed`: the same sets, chosen by masks made from the tests rather
/// than by selects, which the compiler may turn into branches that a CPU mispredicts (the
/// search is bound by mispredictions already).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn doomed(ahead: u32, rows: u32) -> u32 {
    let (one, two) = kill_sets(ahead, rows);
    let rest = ahead & ahead.wrapping_sub(1);
    let pair = rest & rest.wrapping_sub(1);
    let when = |test: bool| 0u32.wrapping_sub(test as u32);
    (one & when(rest == 0)) | (two & when(pair == 0)) | when(ahead == 0)
}

/// The kill sets for one free column (its three neighbours) and for two (the columns next to
/// both), `rows` rows up.
#[inline(always)]
fn kill_sets(ahead: u32, rows: u32) -> (u32, u32) {
    let (up, down) = (ahead.wrapping_mul(power_of_two(rows)), ahead >> rows);
    (or3(up, ahead, down), maj3(up, ahead, down))
}

/// 2^`rows` for `rows` in 1..=3, as `rows · (rows − 1) + 2`: GPU `IMAD`s on the multiply pipe
/// instead of a shift on the integer pipe, which limits the counters' steps.
#[inline(always)]
pub fn power_of_two(rows: u32) -> u32 {
    debug_assert!((1..=3).contains(&rows), "a shift of {rows} rows");
    rows * rows.wrapping_sub(1) + 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition: `b` is doomed when no column of `ahead` survives a queen at `b`.
    fn doomed_reference(ahead: u32, rows: u32, width: u32) -> u32 {
        (0..width)
            .filter(|&b| {
                let attacked = 1u64 << b | 1u64 << (b + rows) | (1u64 << b) >> rows;
                ahead as u64 & !attacked == 0
            })
            .fold(0, |set, b| set | 1 << b)
    }

    proptest! {
        #[test]
        fn doomed_is_exact_up_to_two_columns_and_never_wrong(
            ahead in 0u32..1 << 20,
            rows in 1u32..=3,
        ) {
            let board = (1u32 << 20) - 1;
            let exact = doomed_reference(ahead, rows, 20);
            let got = doomed(ahead, rows) & board;
            if ahead.count_ones() <= 2 {
                prop_assert_eq!(got, exact);
            } else {
                // Never a column that leaves the row something.
                prop_assert_eq!(got & !exact, 0);
            }
        }
    }

    #[test]
    fn powers_of_two() {
        assert_eq!([1, 2, 3].map(power_of_two), [2, 4, 8]);
    }
}
