//! Skew-ternary line codes and the threat tables indexed by them.
//!
//! A line is one integer: digit k (weight w_k = (3^(k+1) − 1)/2: 1, 4, 13, 40, … — OEIS
//! A261547) holds 0 for empty, 1 for white, 2 for black, 3 for the board's edge. A line of
//! length L < 15 uses the top L digits with a 3 directly below them and zeros under that. Such
//! numbers are the skew-ternary numerals: at most one 3, and only zeros below it, so the codes
//! of all lines of all lengths fill 0 .. 21,523,358 with no gap, and one table serves them all.
//!
//! Each table entry must give, for both colors, the five, open-four and four points of the
//! line: 90 bits. At 16 bytes an entry two rules would take 689 MB, so an entry is a 17-bit
//! index into a dictionary of the distinct threat patterns (92,777 in freestyle): its low 16
//! bits in a `u16` array, its top bit in a bit set beside it (46 MB a rule).

use super::cache::Outcome;
use super::line::{Cell, LineThreats, threats_of_masks};
use super::{Color, GomokuError, Rule};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Instant;

pub use kernels::gomoku::{CODES, LINE, WEIGHTS, empty_line_code};

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
        four: 0,
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
        self.by_color
            .iter()
            .all(|t| t.five | t.open_four | t.four == 0)
    }

    /// The six masks in one word (for interning and for the on-disk cache): per color five,
    /// open four, four.
    pub fn to_bits(self) -> u128 {
        self.by_color
            .iter()
            .enumerate()
            .fold(0, |bits, (color, t)| {
                let shift = 48 * color;
                bits | u128::from(t.five) << shift
                    | u128::from(t.open_four) << (shift + 16)
                    | u128::from(t.four) << (shift + 32)
            })
    }

    /// The inverse of [`Pattern::to_bits`].
    pub fn from_bits(bits: u128) -> Pattern {
        let mask = |shift: usize| (bits >> shift) as u16;
        let side = |color: usize| LineThreats {
            five: mask(48 * color),
            open_four: mask(48 * color + 16),
            four: mask(48 * color + 32),
        };
        Pattern {
            by_color: [side(0), side(1)],
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
            four: t.four << shift,
        };
    }
    Ok(pattern)
}

/// The threat table of one rule.
pub struct Table {
    /// Per code, the low 16 bits of its index into `patterns`.
    index: Vec<u16>,
    /// Per code, bit 16 of its index (bit `code % 64` of word `code / 64`).
    high: Vec<u64>,
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
    pub fn index_of(&self, code: u32) -> u32 {
        let code = code as usize;
        match (self.index.get(code), self.high.get(code / 64)) {
            (Some(&low), Some(&high)) => u32::from(low) | ((high >> (code % 64)) as u32 & 1) << 16,
            _ => 0,
        }
    }

    /// The pattern with this index (the empty pattern for an index past the last).
    #[inline]
    pub fn pattern(&self, index: u32) -> &Pattern {
        self.patterns.get(index as usize).unwrap_or(&EMPTY)
    }

    /// The distinct patterns, the empty one first.
    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// The low 16 bits of every code's pattern index.
    pub fn indices(&self) -> &[u16] {
        &self.index
    }

    /// Bit 16 of every code's pattern index, 64 codes a word.
    pub fn high_bits(&self) -> &[u64] {
        &self.high
    }

    /// A table from its parts (the disk cache checks them first).
    pub(crate) fn from_parts(
        index: Vec<u16>,
        high: Vec<u64>,
        patterns: Vec<Pattern>,
        build_seconds: f64,
    ) -> Table {
        Table {
            index,
            high,
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
        self.index.len() * 2
            + self.high.len() * 8
            + self.patterns.len() * std::mem::size_of::<Pattern>()
    }

    /// Builds the table on every core: the patterns of a chunk of codes are computed in
    /// parallel (decoded into a stack array, as one word each), then interned in code order,
    /// so pattern indices do not depend on the number of threads.
    pub fn build(rule: Rule) -> Table {
        let started = Instant::now();
        let mut index = vec![0u16; CODES];
        let mut patterns = vec![Pattern::default()];
        let mut high = vec![0u64; CODES.div_ceil(64)];
        let mut known: FxHashMap<u128, u32> = FxHashMap::default();
        known.insert(0, 0);
        const CHUNK: usize = 1 << 20;
        let mut keys = vec![0u128; CHUNK];
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
            for (offset, (slot, &key)) in out.iter_mut().zip(keys.iter()).enumerate() {
                if key == 0 {
                    continue;
                }
                let next = patterns.len() as u32;
                let index = *known.entry(key).or_insert_with(|| {
                    patterns.push(Pattern::from_bits(key));
                    next
                });
                // The number of distinct patterns is a constant of the encoding — 92,777
                // (freestyle), printed by the exhaustive test — below the 2^17 that 17 bits
                // hold; a change that broke this would fail that test.
                *slot = index as u16;
                let code = base + offset;
                high[code / 64] |= u64::from(index >> 16 & 1) << (code % 64);
            }
        }
        Table {
            index,
            high,
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
