//! Line patterns read from an 11-cell window around an empty cell, for boards of any size.
//!
//! The whole-line tables of [`gomoku::table`](crate::gomoku::table) index a line by its
//! skew-ternary code, 3^15 entries for a 15-cell line: a 22-cell line would need 3^22. A shape
//! that goes through a cell, though, lies within four cells of it, and whether a five is exact
//! is decided one cell further out. So the engine keys each (cell, direction) by the ten cells
//! around it, two bits each (empty, black, white, wall): a 20-bit key whatever the board's
//! size. [`Tables`] maps a key to the [`Pattern`] a stone of each color would make there.
//!
//! The patterns are defined by what one more stone can do, recursively:
//! a five through the cell; else a four (one cell completes a five through the cell) or an
//! open four (two do); else the best that one more stone in the window makes, one step down
//! (an open four makes the cell an open three, a four a closed three, and so on to ones).

use std::sync::OnceLock;

/// Cells on each side of the centre in a window.
pub const HALF: usize = 5;
/// Cells in a window.
pub const WINDOW: usize = 2 * HALF + 1;
/// Keys of a window: 2 bits for each of its 10 cells besides the centre.
pub const KEYS: usize = 1 << (4 * HALF);

/// An empty cell.
pub const EMPTY: u8 = 0;
/// A black stone (moves first).
pub const BLACK: u8 = 1;
/// A white stone.
pub const WHITE: u8 = 2;
/// Off the board.
pub const WALL: u8 = 3;

/// What a stone placed on an empty cell makes along one line, weakest first.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Pattern {
    /// No five can be made through the cell in this line.
    #[default]
    Dead = 0,
    /// The stone would make an overline (or a double four in one line) that renju forbids
    /// black.
    Forbidden,
    /// A closed one: two more stones make a closed three.
    B1,
    /// An open one.
    F1,
    /// A closed two: one more stone makes a closed three.
    B2,
    /// An open two: one more stone makes an open three.
    F2,
    /// A closed three: one more stone makes a four.
    B3,
    /// An open three: one more stone makes an open four.
    F3,
    /// A four: one cell then makes five.
    B4,
    /// An open four: two cells make five, so it cannot be stopped.
    F4,
    /// A five.
    F5,
}

impl Pattern {
    /// The pattern one stone earlier: what a cell is whose stone lets a second stone make
    /// `self`.
    pub(crate) fn down(self) -> Pattern {
        match self {
            Pattern::F4 => Pattern::F3,
            Pattern::B4 => Pattern::B3,
            Pattern::F3 => Pattern::F2,
            Pattern::B3 => Pattern::B2,
            Pattern::F2 => Pattern::F1,
            Pattern::B2 => Pattern::B1,
            _ => Pattern::Dead,
        }
    }

    /// A four or an open four.
    pub fn is_four(self) -> bool {
        matches!(self, Pattern::B4 | Pattern::F4)
    }

    const ALL: [Pattern; 11] = [
        Pattern::Dead,
        Pattern::Forbidden,
        Pattern::B1,
        Pattern::F1,
        Pattern::B2,
        Pattern::F2,
        Pattern::B3,
        Pattern::F3,
        Pattern::B4,
        Pattern::F4,
        Pattern::F5,
    ];

    /// The pattern of a stored byte (table entries are written from `Pattern as u8`).
    #[inline]
    pub fn from_u8(byte: u8) -> Pattern {
        Pattern::ALL[usize::from(byte).min(10)]
    }
}

/// How a side's fives are judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Perspective {
    /// Only exactly five in a row wins (an overline does not).
    pub exact: bool,
    /// An overline, and two fours in one line, are forbidden (renju's black).
    pub forbid: bool,
}

/// A window seen by the side to classify: the own stones, blocked cells (the other side's
/// stones and the edge) and empty cells, centre at [`HALF`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Seen {
    Empty,
    Own,
    Blocked,
}

/// Index of a window's 10 outer cells in base 3 (the centre is left out).
fn index_of(window: &[Seen; WINDOW]) -> usize {
    let mut index = 0;
    for (i, cell) in window.iter().enumerate() {
        if i == HALF {
            continue;
        }
        index = index * 3
            + match cell {
                Seen::Empty => 0,
                Seen::Own => 1,
                Seen::Blocked => 2,
            };
    }
    index
}

/// Whether the own stones (with the centre's) make a five through the centre, by `view`'s
/// rule, and whether they make an overline through it.
fn five_through_centre(window: &[Seen; WINDOW], view: Perspective) -> (bool, bool) {
    let mut left = HALF;
    while left > 0 && window[left - 1] == Seen::Own {
        left -= 1;
    }
    let mut right = HALF;
    while right + 1 < WINDOW && window[right + 1] == Seen::Own {
        right += 1;
    }
    let run = right - left + 1;
    if view.exact {
        (run == 5, run > 5)
    } else {
        (run >= 5, false)
    }
}

/// The pattern of the centre (already holding an own stone) in `window`, memoized by the
/// window's index.
fn value(window: &mut [Seen; WINDOW], view: Perspective, memo: &mut [u8]) -> Pattern {
    let index = index_of(window);
    if memo[index] != u8::MAX {
        return Pattern::from_u8(memo[index]);
    }
    let (five, overline) = five_through_centre(window, view);
    let pattern = if five {
        Pattern::F5
    } else if overline && view.forbid {
        Pattern::Forbidden
    } else {
        let mut fives = [false; WINDOW];
        let mut best = Pattern::Dead;
        for cell in 0..WINDOW {
            if window[cell] != Seen::Empty {
                continue;
            }
            window[cell] = Seen::Own;
            fives[cell] = five_through_centre(window, view).0;
            window[cell] = Seen::Empty;
        }
        let five_points: Vec<usize> = (0..WINDOW).filter(|&c| fives[c]).collect();
        match five_points.len() {
            0 => {
                for cell in 0..WINDOW {
                    if window[cell] != Seen::Empty {
                        continue;
                    }
                    window[cell] = Seen::Own;
                    best = best.max(value(window, view, memo).down());
                    window[cell] = Seen::Empty;
                }
                best
            }
            1 => Pattern::B4,
            _ => {
                // Two five points: an open four when they close one run of four own stones,
                // else two fours in one line (renju forbids that for black).
                let (a, b) = (five_points[0], five_points[five_points.len() - 1]);
                let straight = b - a == 5 && (a + 1..b).all(|c| window[c] == Seen::Own);
                if view.forbid && !straight {
                    Pattern::Forbidden
                } else {
                    Pattern::F4
                }
            }
        }
    };
    memo[index] = pattern as u8;
    pattern
}

/// The pattern a stone of the classified side makes at the centre of `window` (whose centre is
/// empty). This is the definition the tables are checked against.
fn classify(window: &[Seen; WINDOW], view: Perspective, memo: &mut [u8]) -> Pattern {
    let mut placed = *window;
    placed[HALF] = Seen::Own;
    value(&mut placed, view, memo)
}

/// The bit position in a key of the cell at `offset` (−5..=5, not 0) from the centre.
#[inline]
pub const fn key_shift(offset: isize) -> u32 {
    if offset < 0 {
        (2 * (offset + HALF as isize)) as u32
    } else {
        (2 * (offset + HALF as isize - 1)) as u32
    }
}

/// The engine's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameRule {
    /// Five or more in a row wins (Gomocup rule 0).
    #[default]
    Freestyle,
    /// Exactly five wins; an overline does not (Gomocup rule 1).
    Standard,
    /// Renju (Gomocup rule 4): black's double three, double four and overline are forbidden;
    /// white's overline wins.
    Renju,
}

impl GameRule {
    /// How `color`'s fives are judged under this rule.
    pub fn perspective(self, color: u8) -> Perspective {
        match (self, color) {
            (GameRule::Freestyle, _) => Perspective {
                exact: false,
                forbid: false,
            },
            (GameRule::Standard, _) => Perspective {
                exact: true,
                forbid: false,
            },
            (GameRule::Renju, BLACK) => Perspective {
                exact: true,
                forbid: true,
            },
            (GameRule::Renju, _) => Perspective {
                exact: false,
                forbid: false,
            },
        }
    }

    /// The rule of a Piskvork `INFO rule` bit mask, or why it is not played: bit 0 exactly
    /// five, bit 1 a continuous game (accepted: the board simply goes on), bit 2 renju,
    /// bit 3 caro (not supported).
    pub fn from_piskvork(mask: u64) -> Result<GameRule, String> {
        if mask & 8 != 0 {
            return Err(format!(
                "rule {mask} (caro) is not supported; supported: 0 freestyle, 1 exactly five, 4 renju"
            ));
        }
        if mask & !0b111 != 0 {
            return Err(format!(
                "rule {mask} is unknown; supported: 0 freestyle, 1 exactly five, 4 renju"
            ));
        }
        Ok(if mask & 4 != 0 {
            GameRule::Renju
        } else if mask & 1 != 0 {
            GameRule::Standard
        } else {
            GameRule::Freestyle
        })
    }
}

/// Both sides' patterns of a rule in one table, built once per process: a byte an entry, black's
/// pattern in the low four bits and white's in the high four. Under freestyle only the nine
/// cells around the centre matter (no five depends on the cells beyond), so its table is
/// indexed by the inner 16 bits of a key: 64 KB, which stays in the core's L2 cache; the other
/// rules need the outer cells to tell five from an overline (1 MB).
pub struct Tables {
    entries: Vec<u8>,
    wide: bool,
}

impl Tables {
    /// The tables of `rule` (built on first use: about 0.1 s).
    pub fn get(rule: GameRule) -> &'static Tables {
        static TABLES: [OnceLock<Tables>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        TABLES[rule as usize].get_or_init(|| Tables::build(rule))
    }

    fn build(rule: GameRule) -> Tables {
        let wide = rule != GameRule::Freestyle;
        let size = if wide { KEYS } else { 1 << 16 };
        // Each side's pattern of every window (3^10 of them, the centre left out).
        let by_window = [BLACK, WHITE].map(|own| {
            let view = rule.perspective(own);
            let mut memo = vec![u8::MAX; 3usize.pow(2 * HALF as u32)];
            let mut patterns = vec![0u8; memo.len()];
            let mut window = [Seen::Empty; WINDOW];
            for (index, pattern) in patterns.iter_mut().enumerate() {
                let mut rest = index;
                for slot in (0..WINDOW).filter(|&i| i != HALF).rev() {
                    window[slot] = [Seen::Empty, Seen::Own, Seen::Blocked][rest % 3];
                    rest /= 3;
                }
                *pattern = classify(&window, view, &mut memo) as u8;
            }
            patterns
        });
        // A window's base-3 index from its key, five cells (ten bits) at a time.
        let half_index = |own: u8| -> Vec<usize> {
            (0..1024usize)
                .map(|bits| {
                    (0..5).fold(0, |index, slot| {
                        let cell = ((bits >> (2 * slot)) & 3) as u8;
                        let digit = if cell == EMPTY {
                            0
                        } else if cell == own {
                            1
                        } else {
                            2
                        };
                        index * 3 + digit
                    })
                })
                .collect()
        };
        let halves = [half_index(BLACK), half_index(WHITE)];
        let entries = (0..size)
            .map(|index| {
                // A narrow index is the key without its outermost cells (offsets ±5).
                let key = if wide { index } else { index << 2 };
                let [black, white] = [0, 1].map(|side| {
                    let window = halves[side][key & 1023] * 243 + halves[side][(key >> 10) & 1023];
                    by_window[side][window]
                });
                black | white << 4
            })
            .collect();
        Tables { entries, wide }
    }

    /// Black's and white's patterns of a window key.
    #[inline]
    pub fn patterns(&self, key: u32) -> [Pattern; 2] {
        Tables::decode(self.byte(key))
    }

    /// The stored byte of a window key: black's pattern in the low four bits, white's in the
    /// high four.
    #[inline]
    pub fn byte(&self, key: u32) -> u8 {
        let index = if self.wide {
            key as usize & (KEYS - 1)
        } else {
            (key >> 2) as usize & 0xFFFF
        };
        self.entries[index]
    }

    /// The two patterns of a stored byte.
    #[inline]
    pub fn decode(byte: u8) -> [Pattern; 2] {
        [Pattern::from_u8(byte & 15), Pattern::from_u8(byte >> 4)]
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        self.entries.len()
    }
}

/// The pattern of `color` at `centre` of a line of cells (EMPTY/BLACK/WHITE; off the line is
/// a wall) computed from the definition on the line itself, for checking the tables.
pub fn pattern_on_line(line: &[u8], centre: usize, color: u8, rule: GameRule) -> Pattern {
    let mut window = [Seen::Blocked; WINDOW];
    for (slot, seen) in window.iter_mut().enumerate() {
        let at = centre as isize + slot as isize - HALF as isize;
        if at >= 0 && (at as usize) < line.len() {
            let cell = line[at as usize];
            *seen = if cell == EMPTY {
                Seen::Empty
            } else if cell == color {
                Seen::Own
            } else {
                Seen::Blocked
            };
        }
    }
    let mut memo = vec![u8::MAX; 3usize.pow(2 * HALF as u32)];
    classify(&window, rule.perspective(color), &mut memo)
}

/// A brute-force judge of a whole line for the tests: the number of cells where `color`
/// would complete a five (by the rule) and whether the line already holds one.
pub fn fives_on_line(line: &[u8], color: u8, rule: GameRule) -> usize {
    let view = rule.perspective(color);
    let mut count = 0;
    for cell in 0..line.len() {
        if line[cell] != EMPTY {
            continue;
        }
        let mut left = cell;
        while left > 0 && line[left - 1] == color {
            left -= 1;
        }
        let mut right = cell;
        while right + 1 < line.len() && line[right + 1] == color {
            right += 1;
        }
        let run = right - left + 1;
        if (view.exact && run == 5) || (!view.exact && run >= 5) {
            count += 1;
        }
    }
    count
}
