//! What the four lines crossing at an empty cell add up to for one side: the shape a stone
//! there makes, its move-ordering scores and its share of the evaluation.
//!
//! A cell's four [`Pattern`]s are kept as one base-11 code (direction `d` is digit `d`), so a
//! pattern that changes in one line moves the code by `(new - old) · 11^d`, and everything
//! that depends on the four together is one lookup in a table of 11⁴ = 14,641 entries (229 KB),
//! built once from the engine's tuning knobs (`WARPSEARCH_GOMOKU_KNOBS`).

use super::knobs::Knobs;
use super::pattern::Pattern;

/// Codes of four patterns.
pub const CODES: usize = 11 * 11 * 11 * 11;

/// The weight of direction `d`'s digit in a code.
pub const DIGIT: [u16; 4] = [1, 11, 121, 1331];

/// Per-pattern move-ordering scores of a cell: for the side that plays there (attack) and for
/// the side whose line it blocks (defence), summed over the cell's four lines.
const ATTACK: [i32; 11] = [0, 0, 2, 4, 8, 20, 24, 70, 80, 600, 10_000];
const DEFENCE: [i32; 11] = [0, 0, 1, 2, 5, 14, 16, 50, 60, 400, 5_000];

/// The strongest shape a stone makes at a cell over its four lines, for move choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shape {
    /// Nothing of note.
    #[default]
    None,
    /// An open three.
    Three,
    /// An open three and a closed three.
    ThreePlus,
    /// Two open threes (forbidden for renju's black).
    DoubleThree,
    /// A four.
    Four,
    /// A four and an open three.
    FourThree,
    /// An open four or two fours: wins unless the opponent has a four of its own.
    OpenFour,
    /// A five.
    Five,
}

/// What four patterns at one cell make, for one side.
#[derive(Clone, Copy, Debug, Default)]
pub struct Crossing {
    /// The cell's share of the side's evaluation.
    pub value: i32,
    /// Move-ordering score of the side playing the cell.
    pub attack: i32,
    /// Move-ordering score of the other side playing the cell (blocking these lines).
    pub defence: i32,
    /// The strongest shape a stone there makes.
    pub shape: Shape,
}

/// The code of four patterns (direction `d` as digit `d`).
#[inline]
pub fn code_of(patterns: [Pattern; 4]) -> u16 {
    patterns
        .iter()
        .zip(DIGIT)
        .map(|(&p, digit)| p as u16 * digit)
        .sum()
}

/// Multisets of four patterns (11 kinds): C(14, 4).
pub const MULTISETS: usize = 1001;

/// The index of the multiset of `patterns` (their order forgotten): the rank of the sorted
/// four among all sorted fours, lexicographically, so 0 is four `Dead` lines and 1,000 four
/// fives. A cell's value depends only on this (the directions are alike).
pub fn multiset_of(patterns: [Pattern; 4]) -> usize {
    static RANKS: std::sync::OnceLock<Box<[u16; CODES]>> = std::sync::OnceLock::new();
    let ranks = RANKS.get_or_init(|| {
        let mut ranks = Box::new([0u16; CODES]);
        let mut rank = 0u16;
        for a in 0..11usize {
            for b in a..11 {
                for c in b..11 {
                    for d in c..11 {
                        ranks[a * 1331 + b * 121 + c * 11 + d] = rank;
                        rank += 1;
                    }
                }
            }
        }
        ranks
    });
    let mut sorted = patterns.map(|p| p as usize);
    sorted.sort_unstable();
    usize::from(ranks[sorted[0] * 1331 + sorted[1] * 121 + sorted[2] * 11 + sorted[3]])
}

/// The table of every code, built on first use from the knobs.
pub fn crossings() -> &'static [Crossing; CODES] {
    static TABLE: std::sync::OnceLock<Box<[Crossing; CODES]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let knobs = Knobs::get();
        let mut table = Box::new([Crossing::default(); CODES]);
        for (code, entry) in table.iter_mut().enumerate() {
            let patterns =
                [0, 1, 2, 3].map(|d| Pattern::from_u8((code / 11usize.pow(d) % 11) as u8));
            *entry = crossing_of(patterns, knobs);
        }
        table
    })
}

/// What `patterns` make under `knobs`.
fn crossing_of(patterns: [Pattern; 4], knobs: &Knobs) -> Crossing {
    let shape = shape_of(patterns);
    let builds = |p: Pattern| matches!(p, Pattern::F2 | Pattern::B3);
    let threatens = |p: Pattern| matches!(p, Pattern::F3 | Pattern::B4 | Pattern::F4);
    let mut value = knobs.shape_value[shape as usize] + knobs.residual(multiset_of(patterns));
    for (i, &a) in patterns.iter().enumerate() {
        value += knobs.value[a as usize];
        for &b in &patterns[i + 1..] {
            value += knobs.pair(a as usize, b as usize);
            if builds(a) && builds(b) {
                value += knobs.pair_two;
            } else if threatens(a) && builds(b) || builds(a) && threatens(b) {
                value += knobs.pair_three;
            }
        }
    }
    // The hand-set scores (left out with `policy_alone` 1 or 2), plus the fitted policy's weights
    // scaled by `policy`/100.
    let hand_set = i32::from(knobs.policy_alone == 0);
    let (mut attack, mut defence) = (
        hand_set * patterns.iter().map(|&p| ATTACK[p as usize]).sum::<i32>(),
        hand_set * patterns.iter().map(|&p| DEFENCE[p as usize]).sum::<i32>(),
    );
    if knobs.policy > 0 {
        attack += super::policy::mine(patterns) * knobs.policy / 100;
        defence += super::policy::theirs(patterns) * knobs.policy / 100;
    }
    Crossing {
        value,
        attack,
        defence,
        shape,
    }
}

/// A crossing's share of the board's running sums in two bytes: its value times two, plus one
/// when it is a double three. The sums change for every pattern a stone changes, so this is
/// the lookup on the board's hottest path; at 29 KB for every code the table stays in the
/// first-level cache, where [`Crossing`]s (16 bytes each, 234 KB) do not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summand(i16);

impl Summand {
    /// The largest value a summand holds; larger ones are clamped (no value of the knobs'
    /// defaults comes near it).
    pub const MAX_VALUE: i32 = i16::MAX as i32 / 2;

    fn of(crossing: &Crossing) -> Summand {
        let value = crossing
            .value
            .clamp(-Summand::MAX_VALUE, Summand::MAX_VALUE);
        Summand((value * 2 + i32::from(crossing.shape == Shape::DoubleThree)) as i16)
    }

    /// The crossing's value.
    #[inline]
    pub fn value(self) -> i32 {
        i32::from(self.0 >> 1)
    }

    /// 1 for a double three, else 0.
    #[inline]
    pub fn double_three(self) -> i16 {
        self.0 & 1
    }
}

/// The [`Summand`] of every code, built from [`crossings`].
pub fn summands() -> &'static [Summand; CODES] {
    static TABLE: std::sync::OnceLock<Box<[Summand; CODES]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([Summand::default(); CODES]);
        for (summand, crossing) in table.iter_mut().zip(crossings().iter()) {
            *summand = Summand::of(crossing);
        }
        table
    })
}

/// The strongest shape of four line patterns.
pub fn shape_of(patterns: [Pattern; 4]) -> Shape {
    let mut fives = 0;
    let mut open_fours = 0;
    let mut fours = 0;
    let mut open_threes = 0;
    let mut threes = 0;
    for p in patterns {
        match p {
            Pattern::F5 => fives += 1,
            Pattern::F4 => open_fours += 1,
            Pattern::B4 => fours += 1,
            Pattern::F3 => open_threes += 1,
            Pattern::B3 => threes += 1,
            _ => {}
        }
    }
    if fives > 0 {
        Shape::Five
    } else if open_fours > 0 || fours >= 2 {
        Shape::OpenFour
    } else if fours == 1 && open_threes > 0 {
        Shape::FourThree
    } else if fours == 1 {
        Shape::Four
    } else if open_threes >= 2 {
        Shape::DoubleThree
    } else if open_threes == 1 && threes > 0 {
        Shape::ThreePlus
    } else if open_threes == 1 {
        Shape::Three
    } else {
        Shape::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The multisets are numbered 0..1,001 without gaps, and a code's index does not depend on
    /// the order of its directions.
    #[test]
    fn multisets_number_every_sorted_four_once() {
        let mut seen = [false; MULTISETS];
        for code in 0..CODES {
            let patterns =
                [0, 1, 2, 3].map(|d| Pattern::from_u8((code / 11usize.pow(d) % 11) as u8));
            let index = multiset_of(patterns);
            let mut turned = patterns;
            turned.rotate_left(1);
            turned.swap(0, 2);
            assert_eq!(multiset_of(turned), index);
            seen[index] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(multiset_of([Pattern::Dead; 4]), 0);
        assert_eq!(multiset_of([Pattern::F5; 4]), MULTISETS - 1);
    }

    /// Every code's two-byte summand gives back its crossing's value and double-three flag.
    #[test]
    fn summands_hold_every_crossings_value_and_double_three() {
        for (summand, crossing) in summands().iter().zip(crossings().iter()) {
            assert_eq!(summand.value(), crossing.value);
            assert_eq!(
                summand.double_three(),
                i16::from(crossing.shape == Shape::DoubleThree)
            );
        }
    }
}
