//! One line of the board and the threat definitions on it.
//!
//! A line is up to 15 cells; beyond its ends is the board's edge. For a color C and an empty
//! cell p of the line:
//! - p is a **five** point if placing C at p makes a run of C through p of length exactly 5
//!   ([`Rule::Standard`]) or at least 5 ([`Rule::Freestyle`]);
//! - otherwise p is an **open-four** point if, after placing C at p, at least two distinct
//!   empty cells q of the line would each make a five (by the rule) whose run contains p;
//! - p is a **four** point if it is not a five point and, after placing C at p, at least one
//!   empty cell q of the line would make a five whose run contains p (every open-four point is
//!   a four point). A four point is where C can play a four: the moves of a VCF.

use super::{Color, GomokuError, Rule};

/// The content of a cell of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Nothing there.
    Empty,
    /// A stone.
    Stone(Color),
}

/// Threat points of one color on one line, as bit masks over the line's cells (bit i = cell i).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LineThreats {
    /// Five points.
    pub five: u16,
    /// Open-four points (never also five points).
    pub open_four: u16,
    /// Four points (never also five points; every open-four point is one).
    pub four: u16,
}

impl Rule {
    /// Whether a run of `length` stones wins under this rule.
    #[inline]
    pub fn is_five(self, length: usize) -> bool {
        match self {
            Rule::Freestyle => length >= 5,
            Rule::Standard => length == 5,
        }
    }
}

/// Cells on the longest line of the board.
pub const MAX_LINE: usize = 15;

fn check_length(cells: &[Cell]) -> Result<(), GomokuError> {
    if cells.len() > MAX_LINE {
        return Err(GomokuError::LineTooLong(cells.len()));
    }
    Ok(())
}

/// The fast computation used to build the tables (see [`threats_of_masks`]); a line longer
/// than [`MAX_LINE`] cells is an error.
pub fn threats(cells: &[Cell], color: Color, rule: Rule) -> Result<LineThreats, GomokuError> {
    check_length(cells)?;
    let (mut mine, mut empty) = (0u16, 0u16);
    for (i, cell) in cells.iter().enumerate() {
        match cell {
            Cell::Empty => empty |= 1 << i,
            Cell::Stone(c) if *c == color => mine |= 1 << i,
            Cell::Stone(_) => {}
        }
    }
    Ok(threats_of_masks(mine, empty, rule))
}

/// The threats of one color on a line given as masks (bit i = cell i): `mine` the color's
/// stones, `empty` the empty cells; cells in neither are the other color's or off the line.
///
/// Bit-parallel over the cells: `at_least_before[k]` has bit p when the k cells before p all
/// hold the color (`after` likewise), so each run length is a few shifts and ANDs. A cell p
/// with exactly `a` stones before it and `b` after makes a run of a + 1 + b: a five when that is
/// 5 (or ≥ 5 in freestyle). Otherwise, with a + b ≤ 3, it is an open-four point when the empty
/// cells at both ends of that run, q = p − a − 1 and q' = p + b + 1, would each complete a five
/// together with the stones beyond them: only those two cells can, since every cell between p
/// and a completing cell must hold the color.
pub fn threats_of_masks(mine: u16, empty: u16, rule: Rule) -> LineThreats {
    let (mine, empty) = (u32::from(mine), u32::from(empty));
    let mut before = [u32::MAX; 6];
    let mut after = [u32::MAX; 6];
    for k in 1..6 {
        before[k] = before[k - 1] & (mine << k);
        after[k] = after[k - 1] & (mine >> k);
    }
    let exactly_before = |k: usize| before[k] & !before[k + 1];
    let exactly_after = |k: usize| after[k] & !after[k + 1];
    let mut five = 0;
    for a in 0..5 {
        five |= match rule {
            Rule::Freestyle => before[a] & after[4 - a],
            Rule::Standard => exactly_before(a) & exactly_after(4 - a),
        };
    }
    five &= empty;
    let (mut open_four, mut four) = (0, 0);
    for a in 0..4 {
        for b in 0..4 - a {
            // An end cell completes a five with `needed` more stones beyond it (exactly that
            // many in the standard rule).
            let needed = 3 - a - b;
            let (left, right) = match rule {
                Rule::Freestyle => (before[needed], after[needed]),
                Rule::Standard => (exactly_before(needed), exactly_after(needed)),
            };
            let run = exactly_before(a) & exactly_after(b);
            let left_end = (empty & left) << (a + 1);
            let right_end = (empty & right) >> (b + 1);
            open_four |= run & left_end & right_end;
            four |= run & (left_end | right_end);
        }
    }
    LineThreats {
        five: five as u16,
        open_four: (open_four & empty & !five) as u16,
        four: (four & empty & !five) as u16,
    }
}

/// The definitions applied literally, for tests: every empty p, every empty q, on copies of
/// the line, runs measured by walking outwards.
pub fn threats_by_definition(
    cells: &[Cell],
    color: Color,
    rule: Rule,
) -> Result<LineThreats, GomokuError> {
    check_length(cells)?;
    let run_through = |line: &[Cell], at: usize| -> (usize, usize) {
        let mut left = at;
        while left > 0 && line[left - 1] == Cell::Stone(color) {
            left -= 1;
        }
        let mut right = at;
        while right + 1 < line.len() && line[right + 1] == Cell::Stone(color) {
            right += 1;
        }
        (left, right)
    };
    let mut result = LineThreats::default();
    for p in 0..cells.len() {
        if cells[p] != Cell::Empty {
            continue;
        }
        let mut placed = cells.to_vec();
        placed[p] = Cell::Stone(color);
        let (left, right) = run_through(&placed, p);
        if rule.is_five(right - left + 1) {
            result.five |= 1 << p;
            continue;
        }
        let mut completions = 0;
        for q in 0..cells.len() {
            if q == p || placed[q] != Cell::Empty {
                continue;
            }
            let mut both = placed.clone();
            both[q] = Cell::Stone(color);
            let (left, right) = run_through(&both, q);
            if rule.is_five(right - left + 1) && (left..=right).contains(&p) {
                completions += 1;
            }
        }
        if completions >= 1 {
            result.four |= 1 << p;
        }
        if completions >= 2 {
            result.open_four |= 1 << p;
        }
    }
    Ok(result)
}
