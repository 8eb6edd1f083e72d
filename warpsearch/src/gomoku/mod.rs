//! Gomoku threat points on a 15×15 board by skew-ternary line lookup tables.
//!
//! ```
//! use warpsearch::gomoku::{Board, Color, Kind, Rule};
//! let mut board = Board::new(Rule::Freestyle);
//! for x in 3..7 {
//!     board.make(x, 7, Color::Black)?;               // four black stones in a row
//! }
//! let threats = board.threats(Color::Black);
//! let fives: Vec<_> = threats.iter().filter(|t| t.kind == Kind::Five).map(|t| (t.x, t.y)).collect();
//! assert_eq!(fives, vec![(2, 7), (7, 7)]);
//! # Ok::<(), warpsearch::gomoku::GomokuError>(())
//! ```
//!
//! The board keeps one code per line — 15 rows, 15 columns, 29 diagonals, 29 anti-diagonals —
//! updated by `make`/`unmake` with four additions. `threats` reads one table entry per line
//! that holds a stone and collects the set bits. Definitions: [`line`](mod@line). Encoding: [`table`].

pub mod batch;
pub mod cache;
pub mod engine;
pub mod line;
pub mod parse;
pub mod reference;
pub mod table;
pub mod vcf;

use table::{Table, WEIGHTS};

use kernels::gomoku::{GEOMETRY, LONG_LINES};
pub use kernels::gomoku::{LINES, SIZE};

/// A side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// Moves first; digit 2 in line codes.
    Black,
    /// Digit 1 in line codes.
    White,
}

impl Color {
    /// 0 for black, 1 for white.
    pub fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }
    /// The skew-ternary digit of this color's stones: 2 black, 1 white.
    fn digit(self) -> u32 {
        match self {
            Color::Black => 2,
            Color::White => 1,
        }
    }
    /// The other side.
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
}

/// What counts as a win.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rule {
    /// Five or more in a row wins.
    #[default]
    Freestyle,
    /// Exactly five in a row wins; an overline does not.
    Standard,
}

/// The kind of a threat point: the strongest over the four lines through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Playing here makes an open four (two ways to make five next move).
    OpenFour,
    /// Playing here makes five.
    Five,
}

/// A threat point: x is the column 0..14 from the left, y the row 0..14 from the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Threat {
    /// Column.
    pub x: usize,
    /// Row.
    pub y: usize,
    /// Five or open four.
    pub kind: Kind,
}

/// Errors of board operations and input parsing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GomokuError {
    /// A coordinate outside 0..15.
    #[error("({x}, {y}) is off the board (coordinates are 0..=14)")]
    OffBoard {
        /// Column as given.
        x: i128,
        /// Row as given.
        y: i128,
    },
    /// A stone on an occupied cell, or taken from an empty one / the wrong color.
    #[error("cell ({x}, {y}) {why}")]
    Cell {
        /// Column.
        x: usize,
        /// Row.
        y: usize,
        /// What is wrong.
        why: &'static str,
    },
    /// Input that is not a position (the message names line and column).
    #[error("{0}")]
    Parse(String),
    /// A line of more cells than the board's longest (15).
    #[error("a line of {0} cells is longer than the board's lines (at most 15)")]
    LineTooLong(usize),
}

/// A 15×15 board with incrementally maintained line codes.
#[derive(Clone)]
pub struct Board {
    rule: Rule,
    codes: [u32; LINES],
    cells: [Option<Color>; SIZE * SIZE],
    table: &'static Table,
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Board({:?}, {} stones)",
            self.rule,
            self.cells.iter().flatten().count()
        )
    }
}

impl Board {
    /// An empty board. The rule's table is built on first use (about a second on a few cores).
    pub fn new(rule: Rule) -> Board {
        Board {
            rule,
            codes: GEOMETRY.empty_code,
            cells: [None; SIZE * SIZE],
            table: Table::get(rule),
        }
    }

    /// The rule.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The stone at (x, y), if any.
    pub fn get(&self, x: usize, y: usize) -> Option<Color> {
        if x < SIZE && y < SIZE {
            self.cells[y * SIZE + x]
        } else {
            None
        }
    }

    fn cell(x: usize, y: usize) -> Result<usize, GomokuError> {
        if x < SIZE && y < SIZE {
            Ok(y * SIZE + x)
        } else {
            Err(GomokuError::OffBoard {
                x: x as i128,
                y: y as i128,
            })
        }
    }

    /// Places a stone: four additions to the line codes.
    #[inline]
    pub fn make(&mut self, x: usize, y: usize, color: Color) -> Result<(), GomokuError> {
        let cell = Self::cell(x, y)?;
        if self.cells[cell].is_some() {
            return Err(GomokuError::Cell {
                x,
                y,
                why: "is already occupied",
            });
        }
        self.cells[cell] = Some(color);
        for &(line, digit) in &GEOMETRY.lines_of_cell[cell] {
            self.codes[line as usize] += WEIGHTS[digit as usize] * color.digit();
        }
        Ok(())
    }

    /// Removes a stone placed by [`make`](Self::make): four subtractions.
    #[inline]
    pub fn unmake(&mut self, x: usize, y: usize, color: Color) -> Result<(), GomokuError> {
        let cell = Self::cell(x, y)?;
        if self.cells[cell] != Some(color) {
            return Err(GomokuError::Cell {
                x,
                y,
                why: "does not hold a stone of that color",
            });
        }
        self.cells[cell] = None;
        for &(line, digit) in &GEOMETRY.lines_of_cell[cell] {
            self.codes[line as usize] -= WEIGHTS[digit as usize] * color.digit();
        }
        Ok(())
    }

    /// Every threat point of `color`, with its kind.
    pub fn threats(&self, color: Color) -> Threats {
        self.both_threats()[color.index()]
    }

    /// The threat points of both colors.
    ///
    /// One table load per line of 5 cells or more (the lines are numbered so that these come
    /// first); empty lines simply find the empty pattern, index 0, and the few lines with a
    /// threat (3–8 on a mid-game board) are decoded into cells.
    #[inline]
    pub fn both_threats(&self) -> [Threats; 2] {
        let mut out = [Threats::default(); 2];
        for (line, &code) in self.codes[..LONG_LINES].iter().enumerate() {
            let index = self.table.index_of(code);
            if index == 0 {
                continue;
            }
            let pattern = self.table.pattern(index);
            for (side, threats) in pattern.by_color.iter().zip(out.iter_mut()) {
                for (mut mask, set) in [
                    (side.five, &mut threats.five),
                    (side.open_four, &mut threats.open_four),
                    (side.four, &mut threats.four),
                ] {
                    if line < SIZE {
                        // A row: digit = x, so the mask is already the row's bits.
                        set[line] |= mask;
                        continue;
                    }
                    while mask != 0 {
                        let digit = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        let (x, y) = GEOMETRY.cell_of_digit[line][digit];
                        set[y as usize % SIZE] |= 1 << x;
                    }
                }
            }
        }
        out
    }

    /// The code of every line: rows, columns, then the diagonals (`14 − x + y`) and
    /// anti-diagonals (`x + y`) of 5 cells or more, then the 16 short ones.
    pub fn line_codes(&self) -> &[u32; LINES] {
        &self.codes
    }
}

/// The threat points of one color: two sets of cells, as 15 row masks each (bit x of
/// `five[y]` = cell (x, y)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Threats {
    five: [u16; SIZE],
    open_four: [u16; SIZE],
    four: [u16; SIZE],
}

impl Threats {
    /// The threat points in board order (row by row), each with its strongest kind.
    pub fn iter(&self) -> impl Iterator<Item = Threat> + '_ {
        (0..SIZE * SIZE).filter_map(move |cell| {
            let (x, y) = (cell % SIZE, cell / SIZE);
            self.at(x, y).map(|kind| Threat { x, y, kind })
        })
    }

    /// The kind at (x, y), if it is a threat point.
    pub fn at(&self, x: usize, y: usize) -> Option<Kind> {
        if x >= SIZE || y >= SIZE {
            return None;
        }
        let has = |set: &[u16; SIZE]| set[y] >> x & 1 == 1;
        if has(&self.five) {
            Some(Kind::Five)
        } else if has(&self.open_four) {
            Some(Kind::OpenFour)
        } else {
            None
        }
    }

    /// The four points (where a stone makes a four: five next move; open-four points
    /// included, five points not) in board order.
    pub fn fours(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        cells_of(&self.four)
    }

    /// The five points in board order.
    pub fn fives(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        cells_of(&self.five)
    }

    /// The open-four points in board order.
    pub fn open_fours(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        cells_of(&self.open_four)
    }

    /// Whether (x, y) is a four point ([`Threats::fours`]).
    pub fn is_four(&self, x: usize, y: usize) -> bool {
        x < SIZE && y < SIZE && self.four[y] >> x & 1 == 1
    }

    /// Number of five points.
    pub fn five_count(&self) -> u32 {
        self.five.iter().map(|row| row.count_ones()).sum()
    }

    /// Number of threat points.
    pub fn len(&self) -> usize {
        self.five
            .iter()
            .zip(&self.open_four)
            .map(|(f, o)| (f | o).count_ones() as usize)
            .sum()
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A board with `black` and `white` stones, for tests.
#[cfg(test)]
pub(crate) fn board_with(rule: Rule, black: &[(usize, usize)], white: &[(usize, usize)]) -> Board {
    let mut board = Board::new(rule);
    for (stones, color) in [(black, Color::Black), (white, Color::White)] {
        for &(x, y) in stones {
            if let Err(e) = board.make(x, y, color) {
                panic!("a test position plays ({x}, {y}) twice: {e}");
            }
        }
    }
    board
}

/// The cells of a set of 15 row masks, row by row.
fn cells_of(rows: &[u16; SIZE]) -> impl Iterator<Item = (usize, usize)> + '_ {
    rows.iter().enumerate().flat_map(|(y, &row)| {
        let mut mask = row;
        std::iter::from_fn(move || {
            (mask != 0).then(|| {
                let x = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                (x, y)
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::line::{Cell, threats_by_definition};
    use super::table::{CODES, Table, decode, pattern_of};
    use super::*;
    use kernels::rng::SplitMix64;
    use rayon::prelude::*;

    fn array(board: &Board) -> reference::ArrayBoard {
        let mut out = [[None; SIZE]; SIZE];
        for (y, row) in out.iter_mut().enumerate() {
            for (x, cell) in row.iter_mut().enumerate() {
                *cell = board.get(x, y);
            }
        }
        out
    }

    fn assert_matches_reference(board: &Board) {
        let both = board.both_threats();
        for color in [Color::Black, Color::White] {
            let fours: Vec<(usize, usize)> = both[color.index()].fours().collect();
            assert_eq!(
                fours,
                reference::four_points(&array(board), color, board.rule()),
                "{color:?} four points, {:?}",
                board.rule()
            );
            let expected = reference::threats(&array(board), color, board.rule());
            for (y, row) in expected.iter().enumerate() {
                for (x, &kind) in row.iter().enumerate() {
                    assert_eq!(
                        both[color.index()].at(x, y),
                        kind,
                        "{color:?} at ({x}, {y}), {:?}",
                        board.rule()
                    );
                }
            }
        }
    }

    #[test]
    fn skew_ternary_codes_decode_and_reencode() {
        let encode = |cells: &[Cell]| -> u32 {
            let shift = table::LINE - cells.len();
            let edge = if shift > 0 {
                3 * table::WEIGHTS[shift - 1]
            } else {
                0
            };
            edge + cells.iter().enumerate().fold(0, |code, (i, cell)| {
                code + table::WEIGHTS[shift + i]
                    * match cell {
                        Cell::Empty => 0,
                        Cell::Stone(Color::White) => 1,
                        Cell::Stone(Color::Black) => 2,
                    }
            })
        };
        let mut rng = SplitMix64::new(1, 1);
        for _ in 0..200_000 {
            let code = rng.below(CODES as u32);
            assert_eq!(encode(&decode(code)), code);
        }
        assert_eq!(decode(0).len(), 15);
        assert_eq!(decode(CODES as u32 - 1), vec![Cell::Stone(Color::Black)]);
    }

    /// Every table entry, both colors, both rules, against the definitions applied literally.
    /// Slow in debug builds: `cargo xtask test` runs it in release.
    #[test]
    #[ignore = "exhaustive (21.5 M codes × 2 rules); run in release by cargo xtask test"]
    fn every_table_entry_matches_the_definitions() {
        for rule in [Rule::Freestyle, Rule::Standard] {
            let table = Table::get(rule);
            let wrong = (0..CODES as u32)
                .into_par_iter()
                .filter(|&code| {
                    pattern_of(&decode(code), rule, threats_by_definition).ok()
                        != Some(*table.lookup(code))
                })
                .count();
            assert_eq!(wrong, 0, "{rule:?}: {wrong} entries differ");
            eprintln!(
                "{rule:?}: {} distinct patterns, {:.1} MB, built in {:.2} s",
                table.distinct_patterns(),
                table.bytes() as f64 / 1e6,
                table.build_seconds
            );
        }
    }

    #[test]
    fn random_games_with_make_and_unmake_match_the_reference() {
        for rule in [Rule::Freestyle, Rule::Standard] {
            let mut rng = SplitMix64::new(2026, rule as u64);
            for _game in 0..12 {
                let mut board = Board::new(rule);
                let mut played: Vec<(usize, usize, Color)> = Vec::new();
                let mut color = Color::Black;
                for _ in 0..70 {
                    // Mostly play, sometimes take back, and keep play near the centre or the
                    // edges so that both kinds of line are exercised.
                    if !played.is_empty() && rng.below(5) == 0 {
                        let (x, y, c) = played.pop().unwrap();
                        board.unmake(x, y, c).unwrap();
                        color = c;
                    } else {
                        let (x, y) = (rng.below(15) as usize, rng.below(15) as usize);
                        if board.make(x, y, color).is_ok() {
                            played.push((x, y, color));
                            color = color.other();
                        }
                    }
                    assert_matches_reference(&board);
                }
            }
        }
    }

    #[test]
    fn engine_window_tables_give_the_same_threat_points_as_the_line_tables() {
        use super::engine::{self, GameRule, ThreatPoint};
        for (rule, game_rule) in [
            (Rule::Freestyle, GameRule::Freestyle),
            (Rule::Standard, GameRule::Standard),
        ] {
            let mut rng = SplitMix64::new(2027, rule as u64);
            for _game in 0..40 {
                let mut board = Board::new(rule);
                let mut window = engine::Board::new(SIZE, SIZE, game_rule).unwrap();
                let mut color = Color::Black;
                for _ in 0..60 {
                    let (x, y) = (rng.below(15) as usize, rng.below(15) as usize);
                    if board.make(x, y, color).is_err() {
                        continue;
                    }
                    let stone = if color == Color::Black {
                        engine::BLACK
                    } else {
                        engine::WHITE
                    };
                    window.place(window.cell(x, y), stone);
                    color = color.other();
                    let [black, white] = board.both_threats();
                    for (threats, stone) in [(black, engine::BLACK), (white, engine::WHITE)] {
                        for y in 0..SIZE {
                            for x in 0..SIZE {
                                let expected = threats.at(x, y);
                                let found = match window.threat_point(window.cell(x, y), stone) {
                                    Some(ThreatPoint::Five) => Some(Kind::Five),
                                    Some(ThreatPoint::OpenFour) => Some(Kind::OpenFour),
                                    Some(ThreatPoint::Forbidden) | None => None,
                                };
                                assert_eq!(
                                    found, expected,
                                    "{rule:?}, cell ({x},{y}), colour {stone}, window tables (found) \
                                     against line tables (expected), position:\n{window:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn engine_vcf_agrees_with_the_line_solver() {
        use super::engine::{self, GameRule};
        use super::vcf::{self, Verdict};
        let (mut wins, mut nones) = (0, 0);
        for (rule, game_rule) in [
            (Rule::Freestyle, GameRule::Freestyle),
            (Rule::Standard, GameRule::Standard),
        ] {
            let mut rng = SplitMix64::new(2028, rule as u64);
            for position in 0..150 {
                let board = vcf::random_position(rule, &mut rng, 14 + position % 24);
                let mut window = engine::Board::new(SIZE, SIZE, game_rule).unwrap();
                for y in 0..SIZE {
                    for x in 0..SIZE {
                        match board.get(x, y) {
                            Some(Color::Black) => window.place(window.cell(x, y), engine::BLACK),
                            Some(Color::White) => window.place(window.cell(x, y), engine::WHITE),
                            None => {}
                        }
                    }
                }
                for side in [Color::Black, Color::White] {
                    // A side whose opponent already has a five point is not asked: the line
                    // solver then wants the block first, the engine counts the position lost.
                    let other = board.both_threats()[side.other() as usize];
                    if other.iter().any(|t| t.kind == Kind::Five) {
                        continue;
                    }
                    let Ok(report) = vcf::search(&board, side, vcf::Limits::default()) else {
                        continue;
                    };
                    window.set_to_move(if side == Color::Black {
                        engine::BLACK
                    } else {
                        engine::WHITE
                    });
                    let (found, _) = engine::find_vcf(&window, 60, 10_000_000);
                    match report.verdict {
                        Verdict::Win(_) => {
                            wins += 1;
                            assert!(
                                found.is_some(),
                                "{rule:?}: the line solver wins for {side:?}, the engine finds nothing:\n{window:?}"
                            );
                        }
                        Verdict::NoneExists => {
                            nones += 1;
                            assert!(
                                found.is_none(),
                                "{rule:?}: the line solver proves no VCF for {side:?}, the engine plays {:?}:\n{window:?}",
                                found.map(|c| window.xy(c))
                            );
                        }
                        Verdict::LimitReached => {}
                    }
                }
            }
        }
        assert!(
            wins > 20 && nones > 20,
            "{wins} wins and {nones} proofs of none"
        );
    }

    #[test]
    fn corners_edges_and_short_diagonals() {
        for rule in [Rule::Freestyle, Rule::Standard] {
            let mut board = Board::new(rule);
            // Four along the top edge, four down the left edge, a corner diagonal of 4 cells
            // (too short to hold a five), and four along a 5-cell diagonal.
            for i in 0..4 {
                board.make(i + 1, 0, Color::Black).unwrap();
                board.make(0, i + 2, Color::White).unwrap();
                board.make(14 - i, 11 + i, Color::Black).unwrap(); // anti-diagonal x + y = 25: 4 cells
            }
            for (x, y) in [(10, 0), (11, 1), (12, 2), (13, 3)] {
                board.make(x, y, Color::White).unwrap();
            }
            assert_matches_reference(&board);
            let black = board.threats(Color::Black);
            assert_eq!(black.at(0, 0), Some(Kind::Five));
            assert_eq!(black.at(5, 0), Some(Kind::Five));
            assert_eq!(board.threats(Color::White).at(14, 4), Some(Kind::Five));
        }
    }

    #[test]
    fn overline_is_five_only_in_freestyle() {
        for (rule, expected) in [(Rule::Freestyle, Some(Kind::Five)), (Rule::Standard, None)] {
            let mut board = Board::new(rule);
            for x in [2, 3, 4, 6, 7] {
                board.make(x, 7, Color::Black).unwrap();
            }
            // Filling (5, 7) makes six in a row.
            assert_eq!(board.threats(Color::Black).at(5, 7), expected, "{rule:?}");
        }
    }

    #[test]
    fn split_three_only_the_gap_makes_an_open_four() {
        let mut board = Board::new(Rule::Freestyle);
        for x in [5, 7, 8] {
            board.make(x, 7, Color::Black).unwrap();
        }
        let threats = board.threats(Color::Black);
        let points: Vec<(usize, usize, Kind)> =
            threats.iter().map(|t| (t.x, t.y, t.kind)).collect();
        assert_eq!(points, vec![(6, 7, Kind::OpenFour)]);
    }

    #[test]
    fn bad_moves_are_errors() {
        let mut board = Board::new(Rule::Freestyle);
        assert_eq!(board.get(usize::MAX, usize::MAX), None);
        assert!(board.threats(Color::Black).at(99, 3).is_none());
        board.make(7, 7, Color::Black).unwrap();
        assert!(board.make(7, 7, Color::White).is_err());
        assert!(board.make(15, 0, Color::White).is_err());
        assert!(board.unmake(7, 7, Color::White).is_err());
        assert!(board.unmake(0, 0, Color::Black).is_err());
    }
}
