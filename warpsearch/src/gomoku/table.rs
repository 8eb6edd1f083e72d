//! Skew-ternary line codes and the threat tables indexed by them.
//!
//! A line is one integer: digit k (weight w_k = (3^(k+1) − 1)/2: 1, 4, 13, 40, … — OEIS
//! A261547) holds 0 for empty, 1 for white, 2 for black, 3 for the board's edge. A line of
//! length L < 15 uses the top L digits with a 3 directly below them and zeros under that. Such
//! numbers are the skew-ternary numerals: at most one 3, and only zeros below it, so the codes
//! of all lines of all lengths fill 0 .. 21,523,358 with no gap, and one table serves them all.
//!
//! Each table entry must give, for both colors, the five points and the open-four points of
//! the line: 60 bits. At 8 bytes an entry two rules would take 344 MB, so an entry is a `u16`
//! index into a small dictionary of the distinct threat patterns (43 MB a rule).

use super::line::{Cell, LineThreats, threats};
use super::{Color, Rule};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Instant;

/// Cells on the longest line.
pub const LINE: usize = 15;
/// Digit weights w_k = (3^(k+1) − 1)/2 for k = 0..15 (OEIS A261547); w_15 is the table size.
pub const WEIGHTS: [u32; 16] = [
    1, 4, 13, 40, 121, 364, 1093, 3280, 9841, 29524, 88573, 265720, 797161, 2391484, 7174453,
    21523360,
];
/// Number of codes, hence table entries: 0 ..= 21,523,358.
pub const CODES: usize = 21_523_359;

/// The code of an empty line of `length` cells (1..=15): the edge digit 3 below its cells.
pub const fn empty_line_code(length: usize) -> u32 {
    if length >= LINE {
        0
    } else {
        3 * WEIGHTS[LINE - 1 - length]
    }
}

/// Decodes a code into its cells (the line's cell i is digit `LINE − length + i`).
/// Greedy from the top digit: the lower digits of a skew-ternary numeral are worth less than
/// the next weight, so each digit is the quotient.
pub fn decode(code: u32) -> Vec<Cell> {
    let mut rest = code;
    let mut digits = [0u32; LINE];
    for k in (0..LINE).rev() {
        digits[k] = rest / WEIGHTS[k];
        rest -= digits[k] * WEIGHTS[k];
    }
    let edge = digits.iter().rposition(|&d| d == 3);
    let first = edge.map_or(0, |e| e + 1);
    digits[first..]
        .iter()
        .map(|&d| match d {
            0 => Cell::Empty,
            1 => Cell::Stone(Color::White),
            _ => Cell::Stone(Color::Black),
        })
        .collect()
}

/// The threats of one line for both colors, with masks over *digits* (so that a lookup can map
/// digit → board cell without knowing the line's length).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// Indexed by [`Color::index`].
    pub by_color: [LineThreats; 2],
}

impl Pattern {
    /// True when neither color has a threat on the line.
    pub fn is_empty(&self) -> bool {
        self.by_color.iter().all(|t| t.five | t.open_four == 0)
    }
}

/// The threat pattern of a decoded line, shifted to digit positions.
pub fn pattern_of(
    cells: &[Cell],
    rule: Rule,
    compute: fn(&[Cell], Color, Rule) -> LineThreats,
) -> Pattern {
    let shift = LINE - cells.len();
    let mut pattern = Pattern::default();
    for color in [Color::Black, Color::White] {
        let t = compute(cells, color, rule);
        pattern.by_color[color.index()] = LineThreats {
            five: t.five << shift,
            open_four: t.open_four << shift,
        };
    }
    pattern
}

/// The threat table of one rule.
pub struct Table {
    /// Per code, an index into `patterns`.
    index: Vec<u16>,
    /// The distinct patterns; entry 0 is the empty pattern.
    patterns: Vec<Pattern>,
    /// Seconds the build took.
    pub build_seconds: f64,
}

impl Table {
    /// The threats of the line with this code (`code < CODES`).
    #[inline]
    pub fn lookup(&self, code: u32) -> &Pattern {
        &self.patterns[self.index[code as usize] as usize]
    }

    /// The pattern index of a code (`code < CODES`); 0 is the empty pattern.
    #[inline]
    pub fn index_of(&self, code: u32) -> u16 {
        self.index[code as usize]
    }

    /// The pattern with this index.
    #[inline]
    pub fn pattern(&self, index: u16) -> &Pattern {
        &self.patterns[index as usize]
    }

    /// Distinct threat patterns.
    pub fn distinct_patterns(&self) -> usize {
        self.patterns.len()
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.index.len() * 2 + self.patterns.len() * std::mem::size_of::<Pattern>()
    }

    /// Builds the table on every core: patterns are computed in parallel chunks and interned
    /// in order, so the build never holds more than one chunk of full patterns.
    pub fn build(rule: Rule) -> Table {
        let started = Instant::now();
        let mut index = vec![0u16; CODES];
        let mut patterns = vec![Pattern::default()];
        let mut known: HashMap<Pattern, u16> = HashMap::from([(Pattern::default(), 0)]);
        const CHUNK: usize = 1 << 20;
        for (chunk_index, out) in index.chunks_mut(CHUNK).enumerate() {
            let base = chunk_index * CHUNK;
            let chunk: Vec<Pattern> = (0..out.len())
                .into_par_iter()
                .map(|i| pattern_of(&decode((base + i) as u32), rule, threats))
                .collect();
            for (slot, pattern) in out.iter_mut().zip(chunk) {
                if pattern.is_empty() {
                    continue;
                }
                let next = patterns.len();
                *slot = *known.entry(pattern).or_insert_with(|| {
                    patterns.push(pattern);
                    // The number of distinct patterns is a constant of the encoding — 9389
                    // (freestyle) and 4158 (standard), measured by the exhaustive test — so
                    // it always fits; a change that broke this would fail that test.
                    u16::try_from(next).unwrap_or(u16::MAX)
                });
            }
        }
        Table {
            index,
            patterns,
            build_seconds: started.elapsed().as_secs_f64(),
        }
    }

    /// The table of `rule`, built on first use and kept for the life of the process.
    pub fn get(rule: Rule) -> &'static Table {
        static FREESTYLE: OnceLock<Table> = OnceLock::new();
        static STANDARD: OnceLock<Table> = OnceLock::new();
        match rule {
            Rule::Freestyle => FREESTYLE.get_or_init(|| Table::build(Rule::Freestyle)),
            Rule::Standard => STANDARD.get_or_init(|| Table::build(Rule::Standard)),
        }
    }
}
