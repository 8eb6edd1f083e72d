//! Move ordering fitted to a stronger engine's choices: a multinomial logit over a position's
//! candidate cells that predicts the move the teacher played, from the cell's four line patterns
//! for the side to move and for the opponent (a weight for each line's pattern and one for each
//! multiset of four), and its distances to the last two stones. The weights ([`weights`]) come
//! from `cargo run --release -p warpsearch --example fit-policy`. Off unless the `policy` knob is
//! set: as the search's ordering it lost games (docs/gomoku-brain.md).

mod weights;

use super::board::{Board, Cell};
use super::pattern::Pattern;
use weights::{LINE_MINE, LINE_THEIRS, MULTISET_MINE, MULTISET_THEIRS, NEAR_LAST, NEAR_OWN};

fn multiset(patterns: [Pattern; 4]) -> u16 {
    let mut p = patterns.map(|p| p as u16);
    p.sort_unstable();
    p[0] + 11 * p[1] + 121 * p[2] + 1331 * p[3]
}

fn weight(patterns: [Pattern; 4], line: &[i32; 11], multisets: &[(u16, i16)]) -> i32 {
    let rest = multisets
        .binary_search_by_key(&multiset(patterns), |&(k, _)| k)
        .map_or(0, |i| i32::from(multisets[i].1));
    patterns.iter().map(|&p| line[p as usize]).sum::<i32>() + rest
}

/// The policy's weight of a cell's four patterns for the side that plays it.
pub(crate) fn mine(patterns: [Pattern; 4]) -> i32 {
    weight(patterns, &LINE_MINE, &MULTISET_MINE)
}

/// The policy's weight of a cell's four patterns for the side whose lines it blocks.
pub(crate) fn theirs(patterns: [Pattern; 4]) -> i32 {
    weight(patterns, &LINE_THEIRS, &MULTISET_THEIRS)
}

/// The policy's weight of `cell`'s distances to the last two stones (`recent`: the opponent's
/// last, then the side's own).
pub(crate) fn near(board: &Board, cell: Cell, recent: [Option<Cell>; 2]) -> i32 {
    let distance = |stone: Option<Cell>| {
        stone.map_or(5, |s| {
            let (a, b) = (board.xy(s), board.xy(cell));
            a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)).min(5)
        })
    };
    NEAR_LAST[distance(recent[0])] + NEAR_OWN[distance(recent[1])]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiset_tables_are_sorted_and_hold_ascending_codes() {
        for table in [&MULTISET_MINE[..], &MULTISET_THEIRS[..]] {
            assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
            for &(code, _) in table {
                let digits = [0, 1, 2, 3].map(|d| code / 11u16.pow(d) % 11);
                assert!(
                    code < 14_641 && digits.windows(2).all(|w| w[0] <= w[1]),
                    "{code}"
                );
            }
        }
    }

    #[test]
    fn a_cells_weight_does_not_depend_on_which_line_holds_which_pattern() {
        let cell = [Pattern::F3, Pattern::B1, Pattern::F2, Pattern::Dead];
        let turned = [Pattern::Dead, Pattern::F2, Pattern::F3, Pattern::B1];
        assert_eq!(mine(cell), mine(turned));
        assert_eq!(theirs(cell), theirs(turned));
        assert_ne!(mine(cell), mine([Pattern::Dead; 4]));
    }
}
