//! Gomoku for the GPU and the CPU alike: the board's line geometry, the threat tables as one
//! block of words, and a VCF search (victory by continuous fours) that one thread runs for one
//! position — the same function in the kernel `warpsearch_gomoku_vcf` and on every CPU core.
//!
//! The host crate's `gomoku` module builds the tables (`gomoku::table`) and has a richer
//! single-position solver (`gomoku::vcf`, with a transposition table); this one is its
//! allocation-free twin for batches: a fixed stack of 60 levels, no hashing, and the candidates
//! of a level kept as a 225-cell set.

/// Board size.
pub const SIZE: usize = 15;
/// Cells on the board.
pub const CELLS: usize = SIZE * SIZE;
/// Lines on the board: 15 rows, 15 columns, 29 diagonals, 29 anti-diagonals.
pub const LINES: usize = 88;
/// Lines of 5 cells or more — the only ones that can hold a threat. They are numbered first:
/// 15 rows, 15 columns, 21 diagonals, 21 anti-diagonals; the 16 short corner diagonals follow.
pub const LONG_LINES: usize = 72;
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

/// The line number of diagonal or anti-diagonal `k` (0..=28) of a family (`anti`), and its length.
const fn slanted_line(k: usize, anti: bool) -> (usize, usize) {
    let length = if k < SIZE { k + 1 } else { 29 - k };
    let line = if length >= 5 {
        2 * SIZE + if anti { 21 } else { 0 } + (k - 4)
    } else {
        // Short lines: k in 0..=3 or 25..=28.
        LONG_LINES + if anti { 8 } else { 0 } + if k < 4 { k } else { k - 21 }
    };
    (line, length)
}

/// The (line, digit) pairs of every cell: row, column, diagonal, anti-diagonal.
pub struct Geometry {
    /// For cell `y·15 + x`: the four (line index, digit) pairs.
    pub lines_of_cell: [[(u8, u8); 4]; CELLS],
    /// For line `l`, digit `k`: the cell's (x, y), or (`u8::MAX`, `u8::MAX`) where the digit
    /// is not a cell.
    pub cell_of_digit: [[(u8, u8); LINE]; LINES],
    /// Code of each line when empty.
    pub empty_code: [u32; LINES],
}

const fn geometry() -> Geometry {
    let mut g = Geometry {
        lines_of_cell: [[(0, 0); 4]; CELLS],
        cell_of_digit: [[(u8::MAX, u8::MAX); LINE]; LINES],
        empty_code: [0; LINES],
    };
    let mut y = 0;
    while y < SIZE {
        let mut x = 0;
        while x < SIZE {
            let cell = y * SIZE + x;
            let d = SIZE - 1 - x + y; // diagonal: x − y constant, 0..=28
            let a = x + y; // anti-diagonal
            let (diagonal, diagonal_length) = slanted_line(d, false);
            let (anti, anti_length) = slanted_line(a, true);
            let lines = [
                (y, x, SIZE),
                (SIZE + x, y, SIZE),
                (diagonal, if x > y { x } else { y }, diagonal_length),
                (anti, if a < SIZE { SIZE - 1 - y } else { x }, anti_length),
            ];
            let mut i = 0;
            while i < 4 {
                let (line, digit, length) = lines[i];
                g.lines_of_cell[cell][i] = (line as u8, digit as u8);
                g.cell_of_digit[line][digit] = (x as u8, y as u8);
                g.empty_code[line] = empty_line_code(length);
                i += 1;
            }
            x += 1;
        }
        y += 1;
    }
    g
}

/// The board's geometry, computed at compile time.
pub static GEOMETRY: Geometry = geometry();

/// Black, who moves first (digit 2 in line codes).
pub const BLACK: usize = 0;
/// White (digit 1 in line codes).
pub const WHITE: usize = 1;

/// The skew-ternary digit of a color's stones: 2 black, 1 white.
#[inline(always)]
const fn digit(color: usize) -> u32 {
    2 - color as u32
}

/// A set of board cells: bit `y·15 + x` of four words.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Cells(pub [u64; 4]);

impl Cells {
    /// Adds a cell.
    #[inline(always)]
    pub fn insert(&mut self, cell: usize) {
        self.0[cell / 64] |= 1 << (cell % 64);
    }
    /// Whether a cell is in.
    #[inline(always)]
    pub fn contains(&self, cell: usize) -> bool {
        self.0[cell / 64] >> (cell % 64) & 1 == 1
    }
    /// The number of cells.
    #[inline(always)]
    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    /// True when there is none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    /// The lowest cell, if any.
    #[inline(always)]
    pub fn lowest(&self) -> Option<usize> {
        self.0
            .iter()
            .position(|&w| w != 0)
            .map(|i| i * 64 + self.0[i].trailing_zeros() as usize)
    }
    /// Takes the lowest cell out.
    #[inline(always)]
    pub fn pop_lowest(&mut self) -> Option<usize> {
        let cell = self.lowest()?;
        self.0[cell / 64] &= !(1 << (cell % 64));
        Some(cell)
    }
    /// The only cell, when there is exactly one.
    #[inline(always)]
    fn single(&self) -> Option<usize> {
        if self.len() == 1 { self.lowest() } else { None }
    }
}

/// Words before the patterns in a [`TableWords`] block: pattern count, depth limit, node limit
/// and a format word.
pub const HEADER_WORDS: usize = 4;
/// The format word of a [`TableWords`] block.
pub const TABLE_FORMAT: u64 = 0x5653_4346_0000_0001;
/// Words of the packed 16-bit pattern indices (four a word).
pub const INDEX_WORDS: usize = CODES.div_ceil(4);
/// Words of the indices' bit 16 (one bit a code).
pub const HIGH_WORDS: usize = CODES.div_ceil(64);

/// The words of a [`TableWords`] block with `patterns` patterns.
pub const fn table_words(patterns: usize) -> usize {
    HEADER_WORDS + 2 * patterns + INDEX_WORDS + HIGH_WORDS
}

/// One rule's threat tables and a batch's limits as a block of `u64` words — what the host
/// uploads as the kernel's parameters, and what the CPU twin reads too:
///
/// | words | what |
/// | --- | --- |
/// | 1 | [`TABLE_FORMAT`] |
/// | 1 | number of patterns P |
/// | 1 | depth limit (attacker moves, the five included; at most [`MAX_DEPTH`]) |
/// | 1 | node limit (attacker moves tried) |
/// | 2·P | pattern p: word 2p black, 2p + 1 white; each five `\|` open four ≪ 16 `\|` four ≪ 32, masks over the line's digits |
/// | [`INDEX_WORDS`] | the low 16 bits of each code's pattern index, four a word |
/// | [`HIGH_WORDS`] | bit 16 of each code's pattern index, 64 a word |
#[derive(Clone, Copy)]
pub struct TableWords<'a> {
    patterns: &'a [u64],
    index: &'a [u64],
    high: &'a [u64],
    /// The depth limit.
    pub depth: u32,
    /// The node limit.
    pub nodes: u64,
}

impl<'a> TableWords<'a> {
    /// Reads a block; `None` when its format word or length is wrong.
    pub fn new(words: &'a [u64]) -> Option<TableWords<'a>> {
        if words.len() < HEADER_WORDS || words[0] != TABLE_FORMAT {
            return None;
        }
        let patterns = usize::try_from(words[1]).ok()?;
        if words.len() != table_words(patterns) {
            return None;
        }
        let (patterns, rest) = words[HEADER_WORDS..].split_at(2 * patterns);
        let (index, high) = rest.split_at(INDEX_WORDS);
        Some(TableWords {
            patterns,
            index,
            high,
            depth: (words[2] as u32).min(MAX_DEPTH as u32),
            nodes: words[3],
        })
    }

    /// The block at `words`, its length read from its header (the kernel's parameters).
    ///
    /// # Safety
    /// `words` must point to a whole block written as [`TableWords`] describes.
    pub unsafe fn from_raw(words: *const u64) -> Option<TableWords<'a>> {
        // SAFETY: the header's words are part of the block (the caller's promise).
        let patterns = unsafe { *words.add(1) } as usize;
        // SAFETY: the block is `table_words(patterns)` words long (the caller's promise).
        let block = unsafe { core::slice::from_raw_parts(words, table_words(patterns)) };
        TableWords::new(block)
    }

    /// The pattern index of a line code (0: no threat for either color).
    #[inline(always)]
    pub fn index_of(&self, code: u32) -> u32 {
        let code = code as usize;
        if code >= CODES {
            return 0;
        }
        let low = (self.index[code / 4] >> (16 * (code % 4))) as u32 & 0xFFFF;
        let top = (self.high[code / 64] >> (code % 64)) as u32 & 1;
        low | top << 16
    }

    /// Pattern `index`'s masks for `color`: (five, open four, four) over the line's digits.
    #[inline(always)]
    pub fn masks(&self, index: u32, color: usize) -> (u16, u16, u16) {
        let word = self
            .patterns
            .get(2 * index as usize + color)
            .copied()
            .unwrap_or(0);
        (word as u16, (word >> 16) as u16, (word >> 32) as u16)
    }
}

/// The threat points of one color as cell sets.
#[derive(Clone, Copy, Default)]
pub struct ThreatCells {
    /// Five points.
    pub five: Cells,
    /// Open-four points.
    pub open_four: Cells,
    /// Four points (open-four points included).
    pub four: Cells,
}

/// A board for the VCF search: the long lines' codes and their pattern indices, updated by
/// `make`/`unmake` (four lines each).
pub struct LineBoard<'t> {
    tables: &'t TableWords<'t>,
    codes: [u32; LONG_LINES],
    index: [u32; LONG_LINES],
}

impl<'t> LineBoard<'t> {
    /// An empty board.
    pub fn new(tables: &'t TableWords<'t>) -> LineBoard<'t> {
        let mut codes = [0; LONG_LINES];
        codes.copy_from_slice(&GEOMETRY.empty_code[..LONG_LINES]);
        let mut index = [0; LONG_LINES];
        for (slot, &code) in index.iter_mut().zip(&codes) {
            *slot = tables.index_of(code);
        }
        LineBoard {
            tables,
            codes,
            index,
        }
    }

    /// Places (`add`) or removes a stone of `color` at `cell`: four line codes change.
    #[inline(always)]
    fn change(&mut self, cell: usize, color: usize, add: bool) {
        for &(line, digit_at) in &GEOMETRY.lines_of_cell[cell] {
            let line = line as usize;
            if line < LONG_LINES {
                let weight = WEIGHTS[digit_at as usize] * digit(color);
                self.codes[line] = if add {
                    self.codes[line] + weight
                } else {
                    self.codes[line] - weight
                };
                self.index[line] = self.tables.index_of(self.codes[line]);
            }
        }
    }

    /// Places a stone (the cell must be empty).
    #[inline(always)]
    pub fn make(&mut self, cell: usize, color: usize) {
        self.change(cell, color, true);
    }

    /// Removes a stone placed by [`make`](Self::make).
    #[inline(always)]
    pub fn unmake(&mut self, cell: usize, color: usize) {
        self.change(cell, color, false);
    }

    /// The threat points of both colors (indexed by color).
    pub fn threats(&self) -> [ThreatCells; 2] {
        let mut out = [ThreatCells::default(); 2];
        for line in 0..LONG_LINES {
            let index = self.index[line];
            if index == 0 {
                continue;
            }
            for (color, threats) in out.iter_mut().enumerate() {
                let (five, open_four, four) = self.tables.masks(index, color);
                for (mask, set) in [
                    (five, &mut threats.five),
                    (open_four, &mut threats.open_four),
                    (four, &mut threats.four),
                ] {
                    add_digits(line, mask, set);
                }
            }
        }
        out
    }

    /// The five points of `color` on the four lines through `cell`.
    pub fn fives_through(&self, cell: usize, color: usize) -> Cells {
        let mut out = Cells::default();
        for &(line, _) in &GEOMETRY.lines_of_cell[cell] {
            let line = line as usize;
            if line < LONG_LINES {
                let (five, _, _) = self.tables.masks(self.index[line], color);
                add_digits(line, five, &mut out);
            }
        }
        out
    }
}

/// Adds the cells of `line` whose digits are set in `mask` to `set`.
#[inline(always)]
fn add_digits(line: usize, mut mask: u16, set: &mut Cells) {
    while mask != 0 {
        let digit_at = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let (x, y) = GEOMETRY.cell_of_digit[line][digit_at];
        set.insert(y as usize * SIZE + x as usize);
    }
}

/// Words of a position (a unit of the batch): 2 bits a cell (0 empty, 1 black, 2 white) in
/// cell order, and the attacker in the top bit of the last word (0 black, 1 white).
pub const POSITION_WORDS: usize = 8;
/// Words of a result: verdict and move count, nodes, then the moves (a cell each, 8 a word).
pub const RESULT_WORDS: usize = 2 + (2 * MAX_DEPTH).div_ceil(8);
/// The deepest VCF a batch searches (attacker moves, the five included).
pub const MAX_DEPTH: usize = 60;

/// A result's verdicts (word 0, low byte).
pub mod verdict {
    /// Not searched (the run was stopped first).
    pub const NOT_RUN: u64 = 0;
    /// No VCF exists.
    pub const NONE: u64 = 1;
    /// A VCF: its moves follow.
    pub const WIN: u64 = 2;
    /// No VCF within the limits.
    pub const LIMIT: u64 = 3;
}

/// The stone at `cell` of a position: 0 empty, 1 black, 2 white.
#[inline(always)]
pub fn stone(position: &[u64], cell: usize) -> u64 {
    position[cell / 32] >> (2 * (cell % 32)) & 3
}

/// The attacker of a position ([`BLACK`] or [`WHITE`]).
#[inline(always)]
pub fn attacker(position: &[u64]) -> usize {
    (position[POSITION_WORDS - 1] >> 63) as usize
}

/// One level of the search: the attacker's four tried and the defender's block, the
/// candidates still to try, and whether a limit cut the search anywhere below.
#[derive(Clone, Copy, Default)]
struct Level {
    candidates: Cells,
    four: u8,
    block: u8,
    cut: bool,
}

impl Cells {
    /// Takes out the cell nearest `to` (Chebyshev distance; the lowest cell on a tie, and
    /// the lowest cell without `to`).
    #[inline(always)]
    fn pop_nearest(&mut self, to: Option<usize>) -> Option<usize> {
        let Some(to) = to else {
            return self.pop_lowest();
        };
        let (tx, ty) = (to % SIZE, to / SIZE);
        let mut best: Option<(usize, usize)> = None;
        let mut rest = *self;
        while let Some(cell) = rest.pop_lowest() {
            let distance = (cell % SIZE).abs_diff(tx).max((cell / SIZE).abs_diff(ty));
            if best.is_none_or(|(d, _)| distance < d) {
                best = Some((distance, cell));
            }
        }
        let (_, cell) = best?;
        self.0[cell / 64] &= !(1 << (cell % 64));
        Some(cell)
    }
}

/// Entries of a search's table of failed positions.
pub const FAILED_ENTRIES: usize = 256;

/// Positions (attacker to move) known to have no VCF within some depth, or none at all: one
/// word an entry at `hash % FAILED_ENTRIES`, the hash's top 57 bits, then whether it is proven
/// (bit 6) and the depth (bits 0..6). A colliding newer entry replaces the older.
struct Failed([u64; FAILED_ENTRIES]);

impl Failed {
    /// Whether the position of `hash` is known to fail with `left` attacker moves; `Some`
    /// with its proven flag when it is.
    #[inline(always)]
    fn known(&self, hash: u64, left: usize) -> Option<bool> {
        let entry = self.0[(hash % FAILED_ENTRIES as u64) as usize];
        let proven = entry >> 6 & 1 == 1;
        (entry != 0 && entry >> 7 == hash >> 7 && (proven || (entry & 0x3F) as usize >= left))
            .then_some(proven)
    }

    #[inline(always)]
    fn store(&mut self, hash: u64, left: usize, proven: bool) {
        self.0[(hash % FAILED_ENTRIES as u64) as usize] =
            hash >> 7 << 7 | u64::from(proven) << 6 | left as u64 & 0x3F;
    }
}

/// The Zobrist key of every (color, cell), from a fixed seed (SplitMix64).
static ZOBRIST: [[u64; CELLS]; 2] = zobrist_keys();

const fn zobrist_keys() -> [[u64; CELLS]; 2] {
    let mut keys = [[0; CELLS]; 2];
    let mut state: u64 = 0x5EED_6060_F00D_CAFE;
    let mut i = 0;
    while i < 2 * CELLS {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        keys[i / CELLS][i % CELLS] = z ^ (z >> 31);
        i += 1;
    }
    keys
}

/// The end of a VCF whose last four, `four`, left two or more five points: the defender takes
/// the lowest, the attacker plays the next.
#[inline(always)]
fn two_fives(four: usize, fives: Cells) -> [u8; 3] {
    let mut rest = fives;
    let block = rest.pop_lowest().unwrap_or(0);
    let five = rest.lowest().unwrap_or(0);
    [four as u8, block as u8, five as u8]
}

/// Searches a VCF for the attacker of `position` ([`POSITION_WORDS`] words) within the
/// limits of `tables` and writes the result ([`RESULT_WORDS`] words): the verdict and the
/// number of moves in word 0 (`verdict | moves << 8`), the attacker moves tried in word 1, the
/// moves (cells, attacker first, the five last) from word 2, eight a word.
///
/// Each node: the attacker wins on a five point; with moves to spare, it must block the
/// defender's only five point (two: none here) with a move that is itself a four, or it wins
/// at once with an open-four point, or it tries its four points, nearest its last four first.
/// After a four, one five point means the defender's forced block, two mean a win. Positions
/// after a block that are known to fail ([`FAILED_ENTRIES`] of them, by Zobrist hash) are not
/// searched again.
pub fn vcf(tables: &TableWords, position: &[u64], result: &mut [u64]) {
    let side = attacker(position);
    let defender = 1 - side;
    let mut board = LineBoard::new(tables);
    let mut hash = 0u64;
    for (cell, (black, white)) in ZOBRIST[BLACK].iter().zip(&ZOBRIST[WHITE]).enumerate() {
        let (color, key) = match stone(position, cell) {
            1 => (BLACK, black),
            2 => (WHITE, white),
            _ => continue,
        };
        board.make(cell, color);
        hash ^= key;
    }
    let depth = tables.depth as usize;
    let mut stack = [Level::default(); MAX_DEPTH];
    let mut failed = Failed([0; FAILED_ENTRIES]);
    let mut top = 0;
    let mut nodes = 0u64;
    let mut aborted = false;
    let mut tail = [0u8; 3];
    let mut tail_len = 0;
    'search: loop {
        // A new node at level `top`: the attacker to move with `depth − top` moves left.
        let threats = board.threats();
        let (mine, theirs) = (&threats[side], &threats[defender]);
        if let Some(five) = mine.five.lowest() {
            tail[0] = five as u8;
            tail_len = 1;
            break 'search;
        }
        let mut candidates = Cells::default();
        stack[top].cut = false;
        if depth <= top + 1 {
            stack[top].cut = true;
        } else if theirs.five.is_empty() {
            if let Some(open) = mine.open_four.lowest() {
                nodes += 1;
                board.make(open, side);
                tail = two_fives(open, board.fives_through(open, side));
                tail_len = 3;
                break 'search;
            }
            candidates = mine.four;
        } else if let Some(block) = theirs.five.single()
            && mine.four.contains(block)
        {
            candidates.insert(block);
        }
        stack[top].candidates = candidates;
        // The next candidate of level `top`, climbing up past exhausted levels.
        loop {
            let last = top.checked_sub(1).map(|parent| stack[parent].four as usize);
            let Some(four) = stack[top].candidates.pop_nearest(last) else {
                if top == 0 {
                    break 'search;
                }
                failed.store(hash, depth - top, !stack[top].cut);
                let cut = stack[top].cut;
                top -= 1;
                stack[top].cut |= cut;
                let (four, block) = (stack[top].four as usize, stack[top].block as usize);
                board.unmake(block, defender);
                board.unmake(four, side);
                hash ^= ZOBRIST[defender][block] ^ ZOBRIST[side][four];
                continue;
            };
            if nodes >= tables.nodes {
                aborted = true;
                break 'search;
            }
            nodes += 1;
            board.make(four, side);
            let fives = board.fives_through(four, side);
            match fives.len() {
                0 => board.unmake(four, side),
                1 => {
                    let block = fives.lowest().unwrap_or(0);
                    let child = hash ^ ZOBRIST[side][four] ^ ZOBRIST[defender][block];
                    if let Some(proven) = failed.known(child, depth - top - 1) {
                        stack[top].cut |= !proven;
                        board.unmake(four, side);
                        continue;
                    }
                    board.make(block, defender);
                    hash = child;
                    stack[top].four = four as u8;
                    stack[top].block = block as u8;
                    top += 1;
                    continue 'search;
                }
                _ => {
                    tail = two_fives(four, fives);
                    tail_len = 3;
                    break 'search;
                }
            }
        }
    }
    for word in result.iter_mut() {
        *word = 0;
    }
    result[1] = nodes;
    if tail_len == 0 {
        result[0] = if aborted || stack[0].cut {
            verdict::LIMIT
        } else {
            verdict::NONE
        };
        return;
    }
    let mut moves = 0;
    let mut put = |cell: u8| {
        result[2 + moves / 8] |= u64::from(cell) << (8 * (moves % 8));
        moves += 1;
    };
    for level in &stack[..top] {
        put(level.four);
        put(level.block);
    }
    for &cell in &tail[..tail_len] {
        put(cell);
    }
    result[0] = verdict::WIN | (moves as u64) << 8;
}
