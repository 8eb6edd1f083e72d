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

use super::cache::Outcome;
use super::line::{Cell, LineThreats, threats_of_masks};
use super::{Color, GomokuError, Rule};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::path::Path;
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
pub fn decode(code: u32) -> Vec<Cell> {
    let mut cells = [Cell::Empty; LINE];
    let length = decode_into(code, &mut cells);
    cells[..length].to_vec()
}

/// [`decode`] without allocating: writes the cells to the front of `cells` and returns the
/// line's length. Greedy from the top digit: the lower digits of a skew-ternary numeral are
/// worth less than the next weight, so each digit is the quotient.
pub fn decode_into(code: u32, cells: &mut [Cell; LINE]) -> usize {
    let mut rest = code.min(CODES as u32 - 1);
    let mut digits = [0u32; LINE];
    for k in (0..LINE).rev() {
        digits[k] = rest / WEIGHTS[k];
        rest -= digits[k] * WEIGHTS[k];
    }
    let first = digits.iter().rposition(|&d| d == 3).map_or(0, |e| e + 1);
    for (cell, &digit) in cells.iter_mut().zip(&digits[first..]) {
        *cell = match digit {
            0 => Cell::Empty,
            1 => Cell::Stone(Color::White),
            _ => Cell::Stone(Color::Black),
        };
    }
    LINE - first
}

static EMPTY: Pattern = Pattern {
    by_color: [LineThreats {
        five: 0,
        open_four: 0,
    }; 2],
};

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

    /// The four masks in one word (for interning and for the on-disk cache).
    pub fn to_bits(self) -> u64 {
        let [black, white] = self.by_color;
        u64::from(black.five)
            | u64::from(black.open_four) << 16
            | u64::from(white.five) << 32
            | u64::from(white.open_four) << 48
    }

    /// The inverse of [`Pattern::to_bits`].
    pub fn from_bits(bits: u64) -> Pattern {
        let mask = |shift: u32| (bits >> shift) as u16;
        Pattern {
            by_color: [
                LineThreats {
                    five: mask(0),
                    open_four: mask(16),
                },
                LineThreats {
                    five: mask(32),
                    open_four: mask(48),
                },
            ],
        }
    }
}

/// The skew-ternary digits of a code, lowest first.
fn digits_of(code: u32) -> [u8; LINE] {
    let mut rest = code.min(CODES as u32 - 1);
    let mut digits = [0u8; LINE];
    for k in (0..LINE).rev() {
        digits[k] = (rest / WEIGHTS[k]) as u8;
        rest -= u32::from(digits[k]) * WEIGHTS[k];
    }
    digits
}

/// Steps `digits` to the next code: a skew-ternary numeral's lowest non-zero digit is the
/// only one that may be 3, and 3·w_k + 1 = w_(k+1), so a 3 carries into the next digit
/// (everything below it is already zero); otherwise digit 0 goes up by one.
fn next_code(digits: &mut [u8; LINE]) {
    match digits.iter().position(|&d| d != 0) {
        Some(k) if digits[k] == 3 && k + 1 < LINE => {
            digits[k] = 0;
            digits[k + 1] += 1;
        }
        _ => digits[0] += 1,
    }
}

/// The threat pattern of a code given by its digits (the table build's inner loop): digit k
/// is bit k of the masks, so no shift is needed; the digits below the edge digit 3 are off
/// the line, neither stones nor empty.
fn pattern_of_digits(digits: &[u8; LINE], rule: Rule) -> Pattern {
    let (mut black, mut white, mut empty) = (0u16, 0u16, 0u16);
    for (k, &digit) in digits.iter().enumerate().rev() {
        match digit {
            0 => empty |= 1 << k,
            1 => white |= 1 << k,
            2 => black |= 1 << k,
            _ => break,
        }
    }
    let mut pattern = Pattern::default();
    pattern.by_color[Color::Black.index()] = threats_of_masks(black, empty, rule);
    pattern.by_color[Color::White.index()] = threats_of_masks(white, empty, rule);
    pattern
}

/// The threat pattern of a decoded line, shifted to digit positions; a line longer than
/// [`LINE`] cells is an error.
pub fn pattern_of(
    cells: &[Cell],
    rule: Rule,
    compute: fn(&[Cell], Color, Rule) -> Result<LineThreats, GomokuError>,
) -> Result<Pattern, GomokuError> {
    let shift = LINE
        .checked_sub(cells.len())
        .ok_or(GomokuError::LineTooLong(cells.len()))?;
    let mut pattern = Pattern::default();
    for color in [Color::Black, Color::White] {
        let t = compute(cells, color, rule)?;
        pattern.by_color[color.index()] = LineThreats {
            five: t.five << shift,
            open_four: t.open_four << shift,
        };
    }
    Ok(pattern)
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
    /// The threats of the line with this code; a number ≥ [`CODES`] is no line and has the
    /// empty pattern.
    #[inline]
    pub fn lookup(&self, code: u32) -> &Pattern {
        self.pattern(self.index_of(code))
    }

    /// The pattern index of a code; 0 is the empty pattern (also for numbers ≥ [`CODES`]).
    #[inline]
    pub fn index_of(&self, code: u32) -> u16 {
        self.index.get(code as usize).copied().unwrap_or(0)
    }

    /// The pattern with this index (the empty pattern for an index past the last).
    #[inline]
    pub fn pattern(&self, index: u16) -> &Pattern {
        self.patterns.get(usize::from(index)).unwrap_or(&EMPTY)
    }

    /// The distinct patterns, the empty one first.
    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// The pattern index of every code.
    pub fn indices(&self) -> &[u16] {
        &self.index
    }

    /// A table from its parts (the disk cache checks them first).
    pub(crate) fn from_parts(index: Vec<u16>, patterns: Vec<Pattern>, build_seconds: f64) -> Table {
        Table {
            index,
            patterns,
            build_seconds,
        }
    }

    /// Distinct threat patterns.
    pub fn distinct_patterns(&self) -> usize {
        self.patterns.len()
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.index.len() * 2 + self.patterns.len() * std::mem::size_of::<Pattern>()
    }

    /// Builds the table on every core: the patterns of a chunk of codes are computed in
    /// parallel (decoded into a stack array, as one word each), then interned in code order,
    /// so pattern indices do not depend on the number of threads.
    pub fn build(rule: Rule) -> Table {
        let started = Instant::now();
        let mut index = vec![0u16; CODES];
        let mut patterns = vec![Pattern::default()];
        let mut known: FxHashMap<u64, u16> = FxHashMap::default();
        known.insert(0, 0);
        const CHUNK: usize = 1 << 20;
        let mut keys = vec![0u64; CHUNK];
        for (chunk_index, out) in index.chunks_mut(CHUNK).enumerate() {
            let base = chunk_index * CHUNK;
            let keys = &mut keys[..out.len()];
            keys.par_chunks_mut(4096)
                .enumerate()
                .for_each(|(block, keys)| {
                    let mut digits = digits_of((base + block * 4096) as u32);
                    for key in keys.iter_mut() {
                        *key = pattern_of_digits(&digits, rule).to_bits();
                        next_code(&mut digits);
                    }
                });
            for (slot, &key) in out.iter_mut().zip(keys.iter()) {
                if key == 0 {
                    continue;
                }
                let next = patterns.len();
                *slot = *known.entry(key).or_insert_with(|| {
                    patterns.push(Pattern::from_bits(key));
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

    fn slot(rule: Rule) -> &'static OnceLock<Table> {
        static FREESTYLE: OnceLock<Table> = OnceLock::new();
        static STANDARD: OnceLock<Table> = OnceLock::new();
        match rule {
            Rule::Freestyle => &FREESTYLE,
            Rule::Standard => &STANDARD,
        }
    }

    /// The table of `rule`, built on first use and kept for the life of the process.
    pub fn get(rule: Rule) -> &'static Table {
        Self::slot(rule).get_or_init(|| Table::build(rule))
    }

    /// [`Table::get`] through the disk cache in `dir` ([`super::cache`]): the first use in a
    /// process loads the table from there, or builds and stores it. The outcome is returned
    /// when this call was the first use (later [`Table::get`] calls share the same table).
    pub fn get_cached(rule: Rule, dir: Option<&Path>) -> (&'static Table, Option<Outcome>) {
        let mut outcome = None;
        let table = Self::slot(rule).get_or_init(|| {
            let (table, how) = super::cache::load_or_build(dir, rule);
            outcome = Some(how);
            table
        });
        (table, outcome)
    }
}
