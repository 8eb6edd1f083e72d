//! The engine's board: any size from 5×5 to 22×22, with every empty cell's line patterns kept
//! up to date as stones are placed and taken back.
//!
//! Cells lie in a 32-wide array with five cells of wall around the board, so that a cell's
//! neighbours five steps away in any of the four directions are always inside the array. Each
//! (cell, direction) holds the 20-bit window key of [`pattern`](super::pattern); placing a stone
//! changes the keys of the 40 cells within five steps along its four lines by one XOR each.
//! The patterns of empty cells are looked up again as their keys change, and so are the sums
//! the evaluation reads and the counts of fives and open fours the search asks about.

pub use super::crossing::Shape;
use super::crossing::{CODES, Crossing, DIGIT, Summand, code_of, crossings, summands};
use super::knobs::Knobs;
use super::pattern::{BLACK, EMPTY, GameRule, HALF, Pattern, Tables, WALL, WHITE, key_shift};

/// Row stride of the cell array.
pub const STRIDE: usize = 32;
/// Cells in the array.
pub const CELLS: usize = STRIDE * STRIDE;
/// The largest board side.
pub const MAX_SIZE: usize = STRIDE - 2 * HALF;
/// The smallest board side.
pub const MIN_SIZE: usize = 5;
/// The four line directions as steps in the array: across, down, down-right, down-left.
pub const DIRECTIONS: [isize; 4] = [1, STRIDE as isize, STRIDE as isize + 1, STRIDE as isize - 1];

/// A cell: its index in the array.
pub type Cell = usize;

/// Zobrist keys: one per (color, cell), from a fixed seed.
fn zobrist() -> &'static [[u64; CELLS]; 2] {
    static KEYS: std::sync::OnceLock<Box<[[u64; CELLS]; 2]>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut keys = Box::new([[0u64; CELLS]; 2]);
        for side in keys.iter_mut() {
            for key in side.iter_mut() {
                *key = next();
            }
        }
        keys
    })
}

/// What an empty cell is for one colour ([`Board::threat_point`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThreatPoint {
    /// A stone there makes an open four (or two fives in one line).
    OpenFour,
    /// A stone there makes five.
    Five,
    /// Renju: black may not play there (overline, double four, or double three).
    Forbidden,
}

/// Bit offsets of the four counts in a tally word.
const FIVES: u32 = 0;
const FOURS: u32 = 16;
const OPEN_FOURS: u32 = 32;
const OPEN_THREES: u32 = 48;

/// What one (cell, direction) of each [`Pattern`] adds to a tally: a five point counts in
/// the first lane, a four in the second, an open four in the second and third, an open three
/// in the fourth. A count never goes below zero, so the lanes never borrow from each other.
const TALLY: [u64; 11] = {
    let mut table = [0u64; 11];
    table[Pattern::F5 as usize] = 1 << FIVES;
    table[Pattern::B4 as usize] = 1 << FOURS;
    table[Pattern::F4 as usize] = (1 << FOURS) | (1 << OPEN_FOURS);
    table[Pattern::F3 as usize] = 1 << OPEN_THREES;
    table
};

/// The count in the 16-bit lane at `offset` of a tally.
#[inline]
fn lane(tally: u64, offset: u32) -> u16 {
    (tally >> offset) as u16
}

/// The other color.
#[inline]
pub fn opponent(color: u8) -> u8 {
    3 - color
}

/// The board.
#[derive(Clone)]
pub struct Board {
    width: usize,
    height: usize,
    rule: GameRule,
    tables: &'static Tables,
    cells: [u8; CELLS],
    keys: [[u32; 4]; CELLS],
    crossings: &'static [Crossing; CODES],
    /// What each crossing adds to the sums, two bytes a code (see [`Summand`]).
    summands: &'static [Summand; CODES],
    /// Patterns of each (cell, color, direction); valid for empty cells.
    patterns: [[[Pattern; 4]; 2]; CELLS],
    /// The four patterns of each (cell, color) as one [`crossing`](super::crossing) code.
    codes: [[u16; 2]; CELLS],
    /// The side to move's own value counts (100 + this) %.
    tempo: i32,
    /// The evaluation is the mean of this position's and the one before (see [`Knobs`]).
    smooth: bool,
    /// Stones within two cells (Chebyshev distance), for move generation; with `wide_near`,
    /// within three cells or four along a line.
    near: [u8; CELLS],
    wide_near: bool,
    /// The crossings' values summed over every empty cell, per color.
    value: [i32; 2],
    /// Empty cells where each color would make two open threes at once.
    double_threes: [i16; 2],
    /// Added to the evaluation of a side to move that has a double-three cell while the
    /// opponent has no four to answer with.
    double_three_bonus: i32,
    /// The initiative's terms (see [`Knobs`]): added for a side to move that can make an open
    /// three while the opponent has no four, and taken off when only the opponent can.
    initiative: [i32; 2],
    /// Per color, four counts of (empty cell, direction) pairs in 16-bit lanes of one word
    /// (see [`TALLY`]): where it would make five, a four or an open four, an open four, an
    /// open three.
    tally: [u64; 2],
    hash: u64,
    /// The color whose turn it is.
    to_move: u8,
    /// Cells holding a stone of neither side.
    blocked: usize,
    moves: Vec<Cell>,
    /// The board's cells, row by row.
    board_cells: Vec<Cell>,
    /// The patterns and codes each [`place`](Board::place) changed, in order, so that
    /// [`undo`](Board::undo) puts them back without a table lookup.
    trail: Vec<Change>,
    /// One frame a placed stone that `undo` can take back from the trail (stones placed
    /// before a [`block`](Board::block) or a [`take_back`](Board::take_back) have none and are
    /// lifted by recomputing their neighbours).
    frames: Vec<Frame>,
}

/// A (cell, direction) whose patterns a stone changed, with what it held before.
#[derive(Clone, Copy)]
struct Change {
    cell: u16,
    d: u8,
    patterns: [Pattern; 2],
    codes: [u16; 2],
}

/// The sums before a stone was placed, and where its changes begin in the trail.
#[derive(Clone, Copy)]
struct Frame {
    /// The number of moves before this stone.
    moves: u32,
    trail: u32,
    value: [i32; 2],
    double_threes: [i16; 2],
    tally: [u64; 2],
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for y in 0..self.height {
            for x in 0..self.width {
                let c = match self.cells[self.cell(x, y)] {
                    BLACK => 'X',
                    WHITE => 'O',
                    _ => '.',
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl Board {
    /// An empty `width`×`height` board (each 5..=22) under `rule`.
    pub fn new(width: usize, height: usize, rule: GameRule) -> Result<Board, String> {
        for side in [width, height] {
            if !(MIN_SIZE..=MAX_SIZE).contains(&side) {
                return Err(format!(
                    "a board side of {side} is not supported (sides are {MIN_SIZE} to {MAX_SIZE})"
                ));
            }
        }
        let tables = Tables::get(rule);
        let mut board = Board {
            width,
            height,
            rule,
            tables,
            cells: [WALL; CELLS],
            keys: [[0; 4]; CELLS],
            crossings: crossings(),
            summands: summands(),
            patterns: [[[Pattern::Dead; 4]; 2]; CELLS],
            codes: [[0; 2]; CELLS],
            tempo: Knobs::get().tempo,
            smooth: Knobs::get().smooth != 0,
            near: [0; CELLS],
            wide_near: Knobs::get().near_range >= 3,
            value: [0; 2],
            double_threes: [0; 2],
            double_three_bonus: Knobs::get().double_three_bonus,
            initiative: Knobs::get().initiative,
            tally: [0; 2],
            hash: 0,
            to_move: BLACK,
            blocked: 0,
            moves: Vec::with_capacity(width * height),
            board_cells: Vec::with_capacity(width * height),
            trail: Vec::with_capacity(4_096),
            frames: Vec::with_capacity(width * height),
        };
        for y in 0..height {
            for x in 0..width {
                let cell = board.cell(x, y);
                board.cells[cell] = EMPTY;
                board.board_cells.push(cell);
            }
        }
        for y in 0..height {
            for x in 0..width {
                let cell = board.cell(x, y);
                for (d, &step) in DIRECTIONS.iter().enumerate() {
                    let mut key = 0u32;
                    for offset in -(HALF as isize)..=HALF as isize {
                        if offset == 0 {
                            continue;
                        }
                        let other = (cell as isize + offset * step) as usize;
                        key |= u32::from(board.cells[other]) << key_shift(offset);
                    }
                    board.keys[cell][d] = key;
                }
                board.add_cell(cell);
            }
        }
        Ok(board)
    }

    /// The cell at column `x`, row `y` (not checked).
    #[inline]
    pub fn cell(&self, x: usize, y: usize) -> Cell {
        (y + HALF) * STRIDE + x + HALF
    }

    /// Column and row of a cell.
    #[inline]
    pub fn xy(&self, cell: Cell) -> (usize, usize) {
        (cell % STRIDE - HALF, cell / STRIDE - HALF)
    }

    /// The cell at (x, y) when it is on the board.
    pub fn checked_cell(&self, x: i64, y: i64) -> Option<Cell> {
        (x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height)
            .then(|| self.cell(x as usize, y as usize))
    }

    /// Board width.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Board height.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The rule.
    pub fn rule(&self) -> GameRule {
        self.rule
    }

    /// What is on a cell: EMPTY, BLACK, WHITE or WALL.
    #[inline]
    pub fn at(&self, cell: Cell) -> u8 {
        self.cells[cell]
    }

    /// The moves so far, in order.
    pub fn moves(&self) -> &[Cell] {
        &self.moves
    }

    /// Stones on the board.
    pub fn stones(&self) -> usize {
        self.moves.len()
    }

    /// The color to move: the other color than the last stone placed (black on an empty
    /// board), unless set with [`Board::set_to_move`].
    #[inline]
    pub fn side_to_move(&self) -> u8 {
        self.to_move
    }

    /// Sets the color to move (for positions set up out of turn).
    pub fn set_to_move(&mut self, color: u8) {
        self.to_move = color;
    }

    /// Passes the turn (a null move in the search; passing again undoes it). The hash marks
    /// positions reached after a pass.
    #[inline]
    pub fn pass(&mut self) {
        self.to_move = opponent(self.to_move);
        self.hash ^= 0x2545_F491_4F6C_DD1D;
    }

    /// Stones of `color` on the board.
    pub fn count_of(&self, color: u8) -> usize {
        self.moves
            .iter()
            .filter(|&&c| self.cells[c] == color)
            .count()
    }

    /// The board's cells, row by row.
    pub fn board_cells(&self) -> &[Cell] {
        &self.board_cells
    }

    /// The position's Zobrist hash.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash the position would have with a `color` stone on empty `cell`.
    #[inline]
    pub fn hash_with(&self, cell: Cell, color: u8) -> u64 {
        self.hash ^ zobrist()[usize::from(color - 1)][cell]
    }

    /// True when no cell is empty.
    pub fn is_full(&self) -> bool {
        self.moves.len() + self.blocked == self.board_cells.len()
    }

    /// The pattern `color` would make at empty `cell` along direction `d`.
    #[inline]
    pub fn pattern(&self, cell: Cell, color: u8, d: usize) -> Pattern {
        self.patterns[cell][usize::from(color - 1)][d]
    }

    /// The move-ordering score of `color` playing `cell` for its own lines.
    #[inline]
    pub fn attack(&self, cell: Cell, color: u8) -> i32 {
        self.crossing(cell, color).attack
    }

    /// The move-ordering score of playing `cell` against `color`'s lines there.
    #[inline]
    pub fn defence(&self, cell: Cell, color: u8) -> i32 {
        self.crossing(cell, color).defence
    }

    #[inline]
    fn crossing(&self, cell: Cell, color: u8) -> &Crossing {
        &self.crossings[usize::from(self.codes[cell][usize::from(color - 1)])]
    }

    /// The window key of (`cell`, direction `d`): two bits for each of the ten cells around it.
    #[inline]
    pub fn key(&self, cell: Cell, d: usize) -> u32 {
        self.keys[cell][d]
    }

    /// The four patterns of `color` at `cell`.
    #[inline]
    pub fn patterns(&self, cell: Cell, color: u8) -> [Pattern; 4] {
        self.patterns[cell][usize::from(color - 1)]
    }

    /// True when `color`'s stone on `cell` makes an open two or a closed three, or better, on
    /// at least two of its lines (a four that also makes a three or a two, say): the fours
    /// Rapfi's four search keeps below its first level (`q_narrow`).
    pub fn makes_two_lines(&self, cell: Cell, color: u8) -> bool {
        self.patterns(cell, color)
            .iter()
            .filter(|&&p| p >= Pattern::F2)
            .count()
            >= 2
    }

    /// True when a stone is within two cells of `cell`.
    #[inline]
    pub fn is_near(&self, cell: Cell) -> bool {
        self.near[cell] > 0
    }

    /// True when `a` and `b` share a line window (on one line, at most four cells apart) or
    /// lie within two cells of each other: a stone on one can change the other's patterns.
    #[inline]
    pub fn in_reach(a: Cell, b: Cell) -> bool {
        let dx = (a % STRIDE).abs_diff(b % STRIDE);
        let dy = (a / STRIDE).abs_diff(b / STRIDE);
        let on_line = dx == 0 || dy == 0 || dx == dy;
        dx.max(dy) <= 2 || on_line && dx.max(dy) <= 4
    }

    /// (empty cell, direction) pairs where `color` would make five.
    #[inline]
    pub fn five_count(&self, color: u8) -> u16 {
        lane(self.tally[usize::from(color - 1)], FIVES)
    }

    /// (empty cell, direction) pairs where `color` would make a four or an open four.
    #[inline]
    pub fn four_count(&self, color: u8) -> u16 {
        lane(self.tally[usize::from(color - 1)], FOURS)
    }

    /// (empty cell, direction) pairs where `color` would make an open four.
    #[inline]
    pub fn open_four_count(&self, color: u8) -> u16 {
        lane(self.tally[usize::from(color - 1)], OPEN_FOURS)
    }

    /// (empty cell, direction) pairs where `color` would make an open three.
    #[inline]
    pub fn open_three_count(&self, color: u8) -> u16 {
        lane(self.tally[usize::from(color - 1)], OPEN_THREES)
    }

    /// The static evaluation for `color`: its patterns' values less the opponent's.
    #[inline]
    pub fn evaluate(&self, color: u8) -> i32 {
        let of = |value: [i32; 2]| {
            let me = value[usize::from(color - 1)];
            let them = value[usize::from(opponent(color) - 1)];
            // The side to move gets to realise its shapes first.
            me + me * self.tempo / 100 - them
        };
        let mut score = of(self.value);
        if self.smooth {
            // The sums before the last stone, when the trail still holds them.
            if let Some(frame) = self.frames.last()
                && frame.moves as usize + 1 == self.moves.len()
            {
                score = (score + of(frame.value)) / 2;
            }
        }
        if self.double_three_bonus != 0
            && self.double_threes[usize::from(color - 1)] > 0
            && self.four_count(opponent(color)) == 0
            && !(self.rule == GameRule::Renju && color == BLACK)
        {
            score += self.double_three_bonus;
        }
        if self.initiative != [0, 0] {
            let them_color = opponent(color);
            let (my_threes, their_threes) = (
                self.open_three_count(color) > 0,
                self.open_three_count(them_color) > 0,
            );
            if my_threes && self.four_count(them_color) == 0 {
                score += self.initiative[0];
            } else if their_threes && !my_threes && self.four_count(color) == 0 {
                score -= self.initiative[1];
            }
        }
        score
    }

    /// The strongest shape of `color` at empty `cell`.
    #[inline]
    pub fn shape(&self, cell: Cell, color: u8) -> Shape {
        self.crossing(cell, color).shape
    }

    /// Adds the patterns of empty `cell` to the sums.
    fn add_cell(&mut self, cell: Cell) {
        for d in 0..4 {
            let both = self.tables.patterns(self.keys[cell][d]);
            for (side, &pattern) in both.iter().enumerate() {
                self.patterns[cell][side][d] = pattern;
                self.count(side, pattern, 1);
            }
        }
        for side in 0..2 {
            let code = code_of(self.patterns[cell][side]);
            self.codes[cell][side] = code;
            let add = self.summands[usize::from(code)];
            self.value[side] += add.value();
            self.double_threes[side] += add.double_three();
        }
    }

    /// Removes the patterns of `cell` (about to hold a stone) from the sums.
    fn remove_cell(&mut self, cell: Cell) {
        for side in 0..2 {
            for d in 0..4 {
                let pattern = self.patterns[cell][side][d];
                self.count(side, pattern, -1);
            }
            let sub = self.summands[usize::from(self.codes[cell][side])];
            self.value[side] -= sub.value();
            self.double_threes[side] -= sub.double_three();
        }
    }

    /// Counts `pattern` in (`sign` 1) or out (`sign` -1) of `side`'s tally: one table
    /// lookup and an add, with no branch on the pattern.
    #[inline]
    fn count(&mut self, side: usize, pattern: Pattern, sign: i32) {
        let step = TALLY[pattern as usize];
        self.tally[side] = if sign > 0 {
            self.tally[side].wrapping_add(step)
        } else {
            self.tally[side].wrapping_sub(step)
        };
    }

    /// XORs `color`'s bits into the keys of the cells within five steps of `cell`.
    #[inline]
    fn flip_keys(&mut self, cell: Cell, color: u8) {
        for (d, &step) in DIRECTIONS.iter().enumerate() {
            for distance in 1..=HALF as isize {
                for offset in [distance, -distance] {
                    let other = (cell as isize + offset * step) as usize;
                    // `cell` lies at -offset seen from `other`. Cells off the board keep keys
                    // too (never read): flipping them unconditionally spares a branch.
                    self.keys[other][d] ^= u32::from(color) << key_shift(-offset);
                    if self.cells[other] == EMPTY {
                        // Most cells a stone reaches keep their patterns: compare the table's
                        // byte with the stored pair before decoding it.
                        let byte = self.tables.byte(self.keys[other][d]);
                        let was = [self.patterns[other][0][d], self.patterns[other][1][d]];
                        if byte == was[0] as u8 | (was[1] as u8) << 4 {
                            continue;
                        }
                        let both = Tables::decode(byte);
                        self.trail.push(Change {
                            cell: other as u16,
                            d: d as u8,
                            patterns: was,
                            codes: self.codes[other],
                        });
                        for (side, &new) in both.iter().enumerate() {
                            let old = self.patterns[other][side][d];
                            if old != new {
                                self.count(side, old, -1);
                                self.count(side, new, 1);
                                self.patterns[other][side][d] = new;
                                let before = self.codes[other][side];
                                let code = (i32::from(before)
                                    + (new as i32 - old as i32) * i32::from(DIGIT[d]))
                                    as u16;
                                self.codes[other][side] = code;
                                let (add, sub) = (
                                    self.summands[usize::from(code)],
                                    self.summands[usize::from(before)],
                                );
                                self.value[side] += add.value() - sub.value();
                                self.double_threes[side] += add.double_three() - sub.double_three();
                            }
                        }
                    }
                }
            }
        }
    }

    /// XORs `color`'s bits into the keys of the cells within five steps of `cell`, and
    /// nothing else: the patterns come back from the trail.
    #[inline]
    fn xor_keys(&mut self, cell: Cell, color: u8) {
        for (d, &step) in DIRECTIONS.iter().enumerate() {
            for distance in 1..=HALF as isize {
                for offset in [distance, -distance] {
                    let other = (cell as isize + offset * step) as usize;
                    self.keys[other][d] ^= u32::from(color) << key_shift(-offset);
                }
            }
        }
    }

    /// Adds `delta` to the stone counts of the 5×5 square around `cell` (move generation
    /// tries the cells with a stone within two), or with `wide_near` of the 7×7 square and
    /// the cells four away along the lines.
    fn count_near(&mut self, cell: Cell, delta: i8) {
        if self.wide_near {
            for dy in -3isize..=3 {
                for dx in -3isize..=3 {
                    let other = (cell as isize + dy * STRIDE as isize + dx) as usize;
                    self.near[other] = self.near[other].wrapping_add_signed(delta);
                }
            }
            for step in DIRECTIONS {
                for offset in [4 * step, -4 * step] {
                    let other = (cell as isize + offset) as usize;
                    self.near[other] = self.near[other].wrapping_add_signed(delta);
                }
            }
            return;
        }
        for dy in -2isize..=2 {
            for dx in -2isize..=2 {
                let other = (cell as isize + dy * STRIDE as isize + dx) as usize;
                self.near[other] = self.near[other].wrapping_add_signed(delta);
            }
        }
    }

    /// Places a `color` stone on empty `cell`.
    pub fn place(&mut self, cell: Cell, color: u8) {
        debug_assert_eq!(self.cells[cell], EMPTY);
        self.frames.push(Frame {
            moves: self.moves.len() as u32,
            trail: self.trail.len() as u32,
            value: self.value,
            double_threes: self.double_threes,
            tally: self.tally,
        });
        self.remove_cell(cell);
        self.cells[cell] = color;
        self.flip_keys(cell, color);
        self.hash ^= zobrist()[usize::from(color - 1)][cell];
        self.count_near(cell, 1);
        self.moves.push(cell);
        self.to_move = opponent(color);
    }

    /// Puts a stone of neither side on empty `cell` (a continuous game's stones marked 3): it
    /// blocks both colors' lines and is not a move.
    pub fn block(&mut self, cell: Cell) {
        debug_assert_eq!(self.cells[cell], EMPTY);
        self.remove_cell(cell);
        self.cells[cell] = WALL;
        self.flip_keys(cell, WALL);
        self.hash ^= zobrist()[0][cell] ^ zobrist()[1][cell];
        self.blocked += 1;
        self.forget_trail();
    }

    /// Drops the trail: the stones placed so far are lifted by recomputing (after a change
    /// that is not the last stone's, the trail no longer describes the board).
    fn forget_trail(&mut self) {
        self.trail.clear();
        self.frames.clear();
    }

    /// Takes back the last stone placed; returns its cell.
    pub fn undo(&mut self) -> Option<Cell> {
        let cell = self.moves.pop()?;
        let color = self.cells[cell];
        self.to_move = color;
        match self.frames.last() {
            Some(&frame) if frame.moves as usize == self.moves.len() => {
                self.frames.pop();
                for change in self.trail.drain(frame.trail as usize..).rev() {
                    let other = usize::from(change.cell);
                    let d = usize::from(change.d);
                    self.patterns[other][0][d] = change.patterns[0];
                    self.patterns[other][1][d] = change.patterns[1];
                    self.codes[other] = change.codes;
                }
                self.value = frame.value;
                self.double_threes = frame.double_threes;
                self.tally = frame.tally;
                self.cells[cell] = EMPTY;
                self.xor_keys(cell, color);
                self.hash ^= zobrist()[usize::from(color - 1)][cell];
                self.count_near(cell, -1);
            }
            _ => self.lift(cell),
        }
        Some(cell)
    }

    /// Removes the stone on `cell`, wherever it is in the move order.
    pub fn take_back(&mut self, cell: Cell) -> bool {
        let Some(position) = self.moves.iter().rposition(|&c| c == cell) else {
            return false;
        };
        self.moves.remove(position);
        self.lift(cell);
        self.forget_trail();
        true
    }

    fn lift(&mut self, cell: Cell) {
        let color = self.cells[cell];
        let mark = self.trail.len();
        self.cells[cell] = EMPTY;
        self.flip_keys(cell, color);
        // Lifted by recomputing: the changes flip_keys recorded describe no placed stone.
        self.trail.truncate(mark);
        self.hash ^= zobrist()[usize::from(color - 1)][cell];
        self.count_near(cell, -1);
        self.add_cell(cell);
    }

    /// True when the stone on `cell` is part of a winning five (by the rule, for its color).
    pub fn wins_at(&self, cell: Cell) -> bool {
        let color = self.cells[cell];
        if color != BLACK && color != WHITE {
            return false;
        }
        let exact = self.rule.perspective(color).exact;
        DIRECTIONS.iter().any(|&step| {
            let mut run = 1;
            for sign in [1isize, -1] {
                let mut other = cell as isize + sign * step;
                while self.cells[other as usize] == color {
                    run += 1;
                    other += sign * step;
                }
            }
            if exact { run == 5 } else { run >= 5 }
        })
    }

    /// Whether a black stone on empty `cell` is forbidden under renju (never under other
    /// rules, never for white): an overline, two fours, or two open threes that are real,
    /// an open three being real when one of the cells that make it an open four is itself
    /// allowed (the RIF definition, followed to `depth` levels).
    pub fn is_forbidden(&mut self, cell: Cell) -> bool {
        self.forbidden_to(cell, 3)
    }

    fn forbidden_to(&mut self, cell: Cell, depth: u32) -> bool {
        if self.rule != GameRule::Renju || self.cells[cell] != EMPTY {
            return false;
        }
        let patterns = self.patterns(cell, BLACK);
        if patterns.contains(&Pattern::F5) {
            return false;
        }
        if patterns.contains(&Pattern::Forbidden) {
            return true;
        }
        let fours = patterns.iter().filter(|p| p.is_four()).count();
        if fours >= 2 {
            return true;
        }
        let threes = patterns.iter().filter(|&&p| p == Pattern::F3).count();
        if threes < 2 {
            return false;
        }
        if depth == 0 {
            return true;
        }
        // Count the threes that can really become open fours.
        self.place(cell, BLACK);
        let mut real = 0;
        for (d, &step) in DIRECTIONS.iter().enumerate() {
            if patterns[d] != Pattern::F3 {
                continue;
            }
            let mut is_real = false;
            for offset in -4isize..=4 {
                let other = (cell as isize + offset * step) as usize;
                if offset == 0 || self.cells[other] != EMPTY {
                    continue;
                }
                if self.pattern(other, BLACK, d) == Pattern::F4
                    && !self.forbidden_to(other, depth - 1)
                {
                    is_real = true;
                    break;
                }
            }
            real += usize::from(is_real);
        }
        self.undo();
        real >= 2
    }

    /// What empty `cell` is for `color`: a five point, an open-four point (two cells of one
    /// line would then each make five), a renju point forbidden to black, or nothing of these
    /// (also for a stone).
    pub fn threat_point(&mut self, cell: Cell, color: u8) -> Option<ThreatPoint> {
        if self.cells[cell] != EMPTY {
            return None;
        }
        let patterns = self.patterns(cell, color);
        if patterns.contains(&Pattern::F5) {
            Some(ThreatPoint::Five)
        } else if color == BLACK && self.is_forbidden(cell) {
            Some(ThreatPoint::Forbidden)
        } else if patterns.contains(&Pattern::F4) {
            Some(ThreatPoint::OpenFour)
        } else {
            None
        }
    }

    /// Cells where `color` would make five.
    pub fn five_cells(&self, color: u8) -> Vec<Cell> {
        let wanted = self.five_count(color);
        if wanted == 0 {
            return Vec::new();
        }
        // A five point is nearly always on a line through one of the last two stones: look
        // there first, and scan the board only when those lines do not hold every pair.
        let side = usize::from(color - 1);
        let mut found = Vec::new();
        let mut pairs = 0;
        'lines: for &last in self.moves.iter().rev().take(2) {
            for &step in &DIRECTIONS {
                for distance in 1..HALF as isize {
                    for offset in [distance, -distance] {
                        let c = (last as isize + offset * step) as usize;
                        if self.cells[c] != EMPTY {
                            continue;
                        }
                        let here = self.patterns[c][side]
                            .iter()
                            .filter(|&&p| p == Pattern::F5)
                            .count() as u16;
                        if here > 0 && !found.contains(&c) {
                            found.push(c);
                            pairs += here;
                            if pairs == wanted {
                                break 'lines;
                            }
                        }
                    }
                }
            }
        }
        if pairs == wanted {
            // In board order, as the scan gives them.
            found.sort_unstable();
            return found;
        }
        self.board_cells
            .iter()
            .copied()
            .filter(|&c| self.cells[c] == EMPTY && self.patterns(c, color).contains(&Pattern::F5))
            .collect()
    }
}
