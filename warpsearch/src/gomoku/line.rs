//! One line of the board and the threat definitions on it.
//!
//! A line is up to 15 cells; beyond its ends is the board's edge. For a color C and an empty
//! cell p of the line:
//! - p is a **five** point if placing C at p makes a run of C through p of length exactly 5
//!   ([`Rule::Standard`]) or at least 5 ([`Rule::Freestyle`]);
//! - otherwise p is an **open-four** point if, after placing C at p, at least two distinct
//!   empty cells q of the line would each make a five (by the rule) whose run contains p.

use super::{Color, Rule};

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

/// The fast computation used to build the tables: after placing C at p, the run through p
/// spans `[left, right]`; a q whose five contains p must be adjacent to that run, since every
/// cell between p and q must hold C. So only `left − 1` and `right + 1` need checking.
pub fn threats(cells: &[Cell], color: Color, rule: Rule) -> LineThreats {
    let len = cells.len();
    let mine = |i: usize| cells[i] == Cell::Stone(color);
    // Stones of `color` in a row ending just before / starting just after each cell.
    let mut run_left = [0usize; 16];
    let mut run_right = [0usize; 16];
    for i in 0..len {
        run_left[i + 1] = if mine(i) { run_left[i] + 1 } else { 0 };
    }
    for i in (0..len).rev() {
        run_right[i] = if mine(i) { run_right[i + 1] + 1 } else { 0 };
    }
    // run_left[i] = stones in a row in cells < i ending at i − 1; run_right[i + 1] likewise after i.
    let mut result = LineThreats::default();
    for p in 0..len {
        if cells[p] != Cell::Empty {
            continue;
        }
        let (before, after) = (run_left[p], run_right[p + 1]);
        let length = before + 1 + after;
        if rule.is_five(length) {
            result.five |= 1 << p;
            continue;
        }
        let (left, right) = (p - before, p + after);
        let extends = |q: Option<usize>, beyond: usize| -> bool {
            q.is_some_and(|q| {
                q < len && cells[q] == Cell::Empty && rule.is_five(length + 1 + beyond)
            })
        };
        let left_q = left.checked_sub(1);
        let left_beyond = left_q.map_or(0, |q| run_left[q]);
        let right_q = right + 1;
        let right_beyond = if right_q < len {
            run_right[right_q + 1]
        } else {
            0
        };
        if extends(left_q, left_beyond) && extends(Some(right_q), right_beyond) {
            result.open_four |= 1 << p;
        }
    }
    result
}

/// The definitions applied literally, for tests: every empty p, every empty q, on copies of
/// the line, runs measured by walking outwards.
pub fn threats_by_definition(cells: &[Cell], color: Color, rule: Rule) -> LineThreats {
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
        if completions >= 2 {
            result.open_four |= 1 << p;
        }
    }
    result
}
