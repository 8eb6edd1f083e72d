//! Victory by continuous fours (VCF): a win in which every attacker move makes a four, so that
//! every defender move is forced.
//!
//! ```
//! use warpsearch::gomoku::{Board, Color, Rule, vcf};
//! let mut board = Board::new(Rule::Freestyle);
//! // Black: a three on row 7 and one on column 9, each closed at one end by White.
//! for (x, y) in [(5, 7), (6, 7), (7, 7), (9, 4), (9, 5), (9, 6)] {
//!     board.make(x, y, Color::Black)?;
//! }
//! for (x, y) in [(4, 7), (9, 3), (0, 0), (0, 2), (0, 4), (0, 6)] {
//!     board.make(x, y, Color::White)?;
//! }
//! let win = vcf::solve(&board, Color::Black, vcf::Limits::default())?.expect("a VCF");
//! // (9, 7) makes two fours at once; White blocks one, Black plays the other.
//! assert_eq!(win.moves[0], (9, 7));
//! assert_eq!(win.attacker_moves(), 2);
//! vcf::check(&board, Color::Black, &win.moves)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The search reads everything from the board's threat tables ([`super::Board::both_threats`]):
//! - the attacker wins at once on a **five point**;
//! - when the defender has a five point (a four of its own), the attacker must block it, and
//!   the block must itself be a four (two defender five points: no VCF here);
//! - otherwise the attacker tries its **four points** (open-four points first, then nearest
//!   its last move). After a four the attacker has one five point — the defender's only reply
//!   is to take it — or two or more (an open four or a double four): the defender blocks one
//!   and the attacker plays another;
//! - positions after each forced reply that are known to fail are kept in a transposition
//!   table (by Zobrist hash), with the depth they failed at or "proven" when no limit was hit.
//!
//! Limits: the attacker moves of a sequence (the five included) and the attacker moves tried
//! in all (nodes). A search that ends without hitting either proves that no VCF exists.

use super::reference::{self, ArrayBoard};
use super::{Board, Color, SIZE};
use rustc_hash::FxHashMap;

/// A move: column x, row y (0..15 each).
pub type Move = (usize, usize);

/// How far a VCF search goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most attacker moves in a sequence, the final five included.
    pub depth: u32,
    /// The most attacker moves tried in all.
    pub nodes: u64,
}

impl Default for Limits {
    /// 60 attacker moves (deeper than any VCF on a 15×15 board needs in practice) and ten
    /// million nodes (a few seconds on one core).
    fn default() -> Limits {
        Limits {
            depth: 60,
            nodes: 10_000_000,
        }
    }
}

/// A winning sequence: attacker and defender moves alternating, the attacker first; the last
/// move is the attacker's five.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Sequence {
    /// The moves, `[x, y]` each.
    pub moves: Vec<Move>,
}

impl Sequence {
    /// The attacker's moves, the five included.
    pub fn attacker_moves(&self) -> usize {
        self.moves.len().div_ceil(2)
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A VCF.
    Win(Sequence),
    /// No VCF exists: the search ended without hitting a limit.
    NoneExists,
    /// No VCF within the limits; a deeper or longer search may find one.
    LimitReached,
}

/// A search's verdict and its cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// What it found.
    pub verdict: Verdict,
    /// Attacker moves tried.
    pub nodes: u64,
}

/// Errors of a VCF search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VcfError {
    /// The position already holds a five.
    #[error("the position already holds a five of {0:?}: the game is over")]
    GameOver(Color),
    /// [`solve`] hit a limit before it could tell.
    #[error(
        "no VCF within the limits ({nodes} nodes tried, at most {depth} attacker moves); a longer search may find one"
    )]
    LimitReached {
        /// Attacker moves tried.
        nodes: u64,
        /// The depth limit.
        depth: u32,
    },
    /// A sequence that [`check`] refuses.
    #[error("move {index} ({x}, {y}): {why}")]
    BadSequence {
        /// Which move, from 0.
        index: usize,
        /// Its column.
        x: usize,
        /// Its row.
        y: usize,
        /// What is wrong with it.
        why: String,
    },
}

/// A VCF for `side` on `board`: `Some` sequence, `None` when none exists, the error
/// [`VcfError::LimitReached`] when the limits stopped the search first.
pub fn solve(board: &Board, side: Color, limits: Limits) -> Result<Option<Sequence>, VcfError> {
    let report = search(board, side, limits)?;
    match report.verdict {
        Verdict::Win(sequence) => Ok(Some(sequence)),
        Verdict::NoneExists => Ok(None),
        Verdict::LimitReached => Err(VcfError::LimitReached {
            nodes: report.nodes,
            depth: limits.depth,
        }),
    }
}

/// [`solve`] with the verdict and the nodes it took.
pub fn search(board: &Board, side: Color, limits: Limits) -> Result<Report, VcfError> {
    if let Some(color) = game_over(board) {
        return Err(VcfError::GameOver(color));
    }
    let mut solver = Solver {
        board: board.clone(),
        attacker: side,
        hash: zobrist(board),
        failed: FxHashMap::default(),
        nodes: 0,
        max_nodes: limits.nodes,
        last: None,
    };
    let verdict = match solver.attack(limits.depth) {
        Found::Win(mut moves) => {
            moves.reverse();
            Verdict::Win(Sequence { moves })
        }
        Found::Fail { proven: true } => Verdict::NoneExists,
        Found::Fail { proven: false } => Verdict::LimitReached,
    };
    Ok(Report {
        verdict,
        nodes: solver.nodes,
    })
}

/// What one attacker node found.
enum Found {
    /// A win; the moves in reverse order (the five first).
    Win(Vec<Move>),
    /// No win; `proven` when no limit cut the search below.
    Fail { proven: bool },
}

/// A position (attacker to move) known to have no VCF within `depth` attacker moves, or none
/// at all when `proven`.
#[derive(Clone, Copy)]
struct Failed {
    depth: u32,
    proven: bool,
}

struct Solver {
    board: Board,
    attacker: Color,
    hash: u64,
    failed: FxHashMap<u64, Failed>,
    nodes: u64,
    max_nodes: u64,
    last: Option<Move>,
}

impl Solver {
    fn play(&mut self, (x, y): Move, color: Color) {
        // The solver only plays empty cells found by the tables, so `make` cannot fail.
        let _ = self.board.make(x, y, color);
        self.hash ^= ZOBRIST[color.index()][y * SIZE + x];
    }

    fn undo(&mut self, (x, y): Move, color: Color) {
        let _ = self.board.unmake(x, y, color);
        self.hash ^= ZOBRIST[color.index()][y * SIZE + x];
    }

    /// The attacker to move with at most `depth` attacker moves left.
    fn attack(&mut self, depth: u32) -> Found {
        let threats = self.board.both_threats();
        let (mine, theirs) = (
            &threats[self.attacker.index()],
            &threats[self.attacker.other().index()],
        );
        if let Some(five) = mine.fives().next() {
            return Found::Win(vec![five]);
        }
        if depth <= 1 {
            return Found::Fail { proven: false };
        }
        let candidates: Vec<Move> = match theirs.five_count() {
            0 => self.order(mine),
            1 => match theirs.fives().next() {
                Some((x, y)) if mine.is_four(x, y) => vec![(x, y)],
                _ => return Found::Fail { proven: true },
            },
            _ => return Found::Fail { proven: true },
        };
        let mut proven = true;
        for four in candidates {
            if self.nodes >= self.max_nodes {
                return Found::Fail { proven: false };
            }
            self.nodes += 1;
            match self.after_four(four, depth) {
                Found::Win(mut moves) => {
                    moves.push(four);
                    return Found::Win(moves);
                }
                Found::Fail { proven: false } => proven = false,
                Found::Fail { proven: true } => {}
            }
        }
        Found::Fail { proven }
    }

    /// Plays the attacker's four at `four` and the defender's forced reply, and searches on.
    fn after_four(&mut self, four: Move, depth: u32) -> Found {
        let defender = self.attacker.other();
        self.play(four, self.attacker);
        let fives: Vec<Move> = self.board.threats(self.attacker).fives().take(2).collect();
        let found = match fives[..] {
            // An open four or a double four: one block, then the other five.
            [block, five] => Found::Win(vec![five, block]),
            [block] => {
                self.play(block, defender);
                let previous = self.last.replace(four);
                let found = match self.failed.get(&self.hash) {
                    Some(known) if known.proven || known.depth >= depth - 1 => Found::Fail {
                        proven: known.proven,
                    },
                    _ => {
                        let found = self.attack(depth - 1);
                        if let Found::Fail { proven } = found {
                            self.failed.insert(
                                self.hash,
                                Failed {
                                    depth: depth - 1,
                                    proven,
                                },
                            );
                        }
                        found
                    }
                };
                self.last = previous;
                self.undo(block, defender);
                match found {
                    Found::Win(mut moves) => {
                        moves.push(block);
                        Found::Win(moves)
                    }
                    failed => failed,
                }
            }
            // The tables said four; a five point must follow. Nothing to search if not.
            _ => Found::Fail { proven: true },
        };
        self.undo(four, self.attacker);
        found
    }

    /// The attacker's four points: open-four points first (they win at once), then by
    /// distance to its last four.
    fn order(&self, mine: &super::Threats) -> Vec<Move> {
        let mut moves: Vec<(u32, Move)> = mine
            .fours()
            .map(|(x, y)| {
                let open = mine.at(x, y) == Some(super::Kind::OpenFour);
                let distance = self
                    .last
                    .map_or(0, |(lx, ly)| x.abs_diff(lx).max(y.abs_diff(ly)) as u32);
                (if open { 0 } else { 1 + distance }, (x, y))
            })
            .collect();
        moves.sort_unstable();
        moves.into_iter().map(|(_, m)| m).collect()
    }
}

/// A random position for tests and benchmarks: `stones` alternating moves (black first) drawn
/// in the 9×9 centre, none of which makes a five (by `rule`). The same `random` state, the same
/// position.
pub fn random_position(
    rule: super::Rule,
    random: &mut kernels::rng::SplitMix64,
    stones: usize,
) -> Board {
    let mut board = Board::new(rule);
    let mut array = array_of(&board);
    let mut color = Color::Black;
    let mut placed = 0;
    // A crowded centre may leave no legal cell: stop there.
    let mut tries = 0;
    while placed < stones.min(81) && tries < 100_000 {
        tries += 1;
        let (x, y) = (3 + random.below(9) as usize, 3 + random.below(9) as usize);
        if array[y][x].is_none() && !reference::makes_five(&array, x, y, color, rule) {
            // The cell is empty, so `make` cannot fail.
            let _ = board.make(x, y, color);
            array[y][x] = Some(color);
            color = color.other();
            placed += 1;
        }
    }
    board
}

/// The side whose turn it is on `board` by the stone counts: black when they are equal.
pub fn side_to_move(board: &Board) -> Color {
    let array = array_of(board);
    let count = |color| {
        array
            .iter()
            .flatten()
            .filter(|s| **s == Some(color))
            .count()
    };
    if count(Color::Black) > count(Color::White) {
        Color::White
    } else {
        Color::Black
    }
}

/// The color that already has a five on `board`, if one has (the game is over).
pub fn game_over(board: &Board) -> Option<Color> {
    [Color::Black, Color::White]
        .into_iter()
        .find(|&color| holds_five(board, color))
}

/// Whether `color` has a five on `board` (five or more in a row in freestyle, exactly five in
/// the standard rule).
fn holds_five(board: &Board, color: Color) -> bool {
    let mut array = array_of(board);
    (0..SIZE).any(|y| {
        (0..SIZE).any(|x| {
            array[y][x] == Some(color) && {
                // A stone is part of a five when putting it back on the lifted board makes one.
                array[y][x] = None;
                let five = reference::makes_five(&array, x, y, color, board.rule());
                array[y][x] = Some(color);
                five
            }
        })
    })
}

/// The board as a plain array (`cells[y][x]`).
pub fn array_of(board: &Board) -> ArrayBoard {
    let mut out = [[None; SIZE]; SIZE];
    for (y, row) in out.iter_mut().enumerate() {
        for (x, cell) in row.iter_mut().enumerate() {
            *cell = board.get(x, y);
        }
    }
    out
}

/// Checks a VCF move by move with the plain rules ([`mod@reference`], no tables): attacker and
/// defender alternate from the attacker; each cell is empty; every attacker move but the last
/// makes a four (a five point follows), and blocks the defender's five point when there is
/// one; each defender move takes an attacker five point; the last move makes five.
pub fn check(board: &Board, side: Color, moves: &[Move]) -> Result<(), VcfError> {
    let rule = board.rule();
    let mut array = array_of(board);
    let bad = |index: usize, (x, y): Move, why: &str| VcfError::BadSequence {
        index,
        x,
        y,
        why: why.to_string(),
    };
    if moves.len().is_multiple_of(2) {
        return Err(VcfError::BadSequence {
            index: moves.len(),
            x: 0,
            y: 0,
            why: "a VCF ends with the attacker's move: it has an odd number of moves".into(),
        });
    }
    for (index, &(x, y)) in moves.iter().enumerate() {
        if x >= SIZE || y >= SIZE || array[y][x].is_some() {
            return Err(bad(index, (x, y), "not an empty cell of the board"));
        }
        let attacker = index % 2 == 0;
        let color = if attacker { side } else { side.other() };
        if attacker {
            if index + 1 == moves.len() {
                if !reference::makes_five(&array, x, y, side, rule) {
                    return Err(bad(index, (x, y), "the last move does not make five"));
                }
            } else {
                let theirs = reference::five_points(&array, side.other(), rule);
                if !theirs.is_empty() && theirs != [(x, y)] {
                    return Err(bad(
                        index,
                        (x, y),
                        "the defender has a four that this move does not block",
                    ));
                }
                array[y][x] = Some(color);
                if reference::five_points(&array, side, rule).is_empty() {
                    return Err(bad(index, (x, y), "does not make a four"));
                }
                continue;
            }
        } else if !reference::five_points(&array, side, rule).contains(&(x, y)) {
            return Err(bad(
                index,
                (x, y),
                "the defender's move does not block the four",
            ));
        }
        array[y][x] = Some(color);
    }
    Ok(())
}

/// The Zobrist key of every (color, cell), from a fixed seed (SplitMix64).
static ZOBRIST: [[u64; SIZE * SIZE]; 2] = zobrist_keys();

const fn zobrist_keys() -> [[u64; SIZE * SIZE]; 2] {
    let mut keys = [[0; SIZE * SIZE]; 2];
    let mut state: u64 = 0x5EED_6060_F00D_CAFE;
    let mut i = 0;
    while i < 2 * SIZE * SIZE {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        keys[i / (SIZE * SIZE)][i % (SIZE * SIZE)] = z ^ (z >> 31);
        i += 1;
    }
    keys
}

/// The Zobrist hash of a board's stones.
fn zobrist(board: &Board) -> u64 {
    let mut hash = 0;
    for y in 0..SIZE {
        for x in 0..SIZE {
            if let Some(color) = board.get(x, y) {
                hash ^= ZOBRIST[color.index()][y * SIZE + x];
            }
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gomoku::Rule;
    use crate::gomoku::board_with as board;
    use kernels::rng::SplitMix64;

    fn wins(board: &Board, side: Color) -> Sequence {
        let win = solve(board, side, Limits::default())
            .unwrap()
            .expect("a VCF");
        check(board, side, &win.moves).unwrap();
        win
    }

    #[test]
    fn a_four_on_the_board_wins_in_one_move() {
        let b = board(
            Rule::Freestyle,
            &[(3, 3), (4, 3), (5, 3), (6, 3)],
            &[(2, 3), (0, 0), (0, 1)],
        );
        assert_eq!(wins(&b, Color::Black).moves, vec![(7, 3)]);
    }

    #[test]
    fn a_chain_of_fours_is_found_and_checks() {
        // Black's stones on a diagonal staircase: each four's forced block leaves the next
        // four, and the last one is a double four.
        let b = board(
            Rule::Freestyle,
            &[(7, 7), (8, 7), (9, 7), (7, 9), (7, 10), (9, 9), (10, 10)],
            &[(6, 7), (7, 11), (11, 11), (0, 0), (0, 2), (0, 4), (0, 6)],
        );
        let win = wins(&b, Color::Black);
        assert!(win.attacker_moves() >= 2, "{win:?}");
    }

    #[test]
    fn the_defenders_four_must_be_blocked_first() {
        // White has four on row 0; Black's winning double four elsewhere must wait, and
        // Black's block at (5, 0) is no four: no VCF.
        let black = [(5, 7), (6, 7), (7, 7), (9, 4), (9, 5), (9, 6)];
        let white = [(4, 7), (9, 3), (1, 0), (2, 0), (3, 0), (4, 0)];
        let b = board(Rule::Freestyle, &black, &white);
        assert_eq!(solve(&b, Color::Black, Limits::default()), Ok(None));
        // Without White's four, the double four wins.
        let white = [(4, 7), (9, 3), (1, 0), (2, 0), (3, 0), (5, 1)];
        let b = board(Rule::Freestyle, &black, &white);
        assert_eq!(wins(&b, Color::Black).moves[0], (9, 7));
    }

    #[test]
    fn no_vcf_is_proven_and_limits_are_reported() {
        let b = board(Rule::Freestyle, &[(7, 7), (8, 8)], &[(7, 8)]);
        let report = search(&b, Color::Black, Limits::default()).unwrap();
        assert_eq!(report.verdict, Verdict::NoneExists);
        let chain = board(
            Rule::Freestyle,
            &[(7, 7), (8, 7), (9, 7), (7, 9), (7, 10), (9, 9), (10, 10)],
            &[(6, 7), (7, 11), (11, 11), (0, 0), (0, 2), (0, 4), (0, 6)],
        );
        let tight = Limits { depth: 2, nodes: 1 };
        assert!(matches!(
            solve(&chain, Color::Black, tight),
            Err(VcfError::LimitReached { .. })
        ));
    }

    #[test]
    fn a_finished_game_is_an_error() {
        let b = board(
            Rule::Freestyle,
            &[(3, 3), (4, 3), (5, 3), (6, 3), (7, 3)],
            &[(0, 0), (0, 1), (0, 2), (0, 3)],
        );
        assert_eq!(
            search(&b, Color::White, Limits::default()),
            Err(VcfError::GameOver(Color::Black))
        );
        // Six in a row is no five in the standard rule: the game goes on.
        let six = board(
            Rule::Standard,
            &[(3, 3), (4, 3), (5, 3), (6, 3), (7, 3), (8, 3)],
            &[(0, 0), (0, 1), (0, 2), (0, 3), (0, 5)],
        );
        assert!(search(&six, Color::White, Limits::default()).is_ok());
    }

    #[test]
    fn check_refuses_sequences_that_break_the_rules() {
        let b = board(
            Rule::Freestyle,
            &[(5, 7), (6, 7), (7, 7), (9, 4), (9, 5), (9, 6)],
            &[(4, 7), (9, 3), (0, 0), (0, 2), (0, 4), (0, 6)],
        );
        let good = wins(&b, Color::Black).moves;
        assert!(check(&b, Color::Black, &good[..2]).is_err(), "even length");
        assert!(check(&b, Color::Black, &[(12, 12)]).is_err(), "no five");
        assert!(
            check(&b, Color::Black, &[(1, 1), (9, 8), (8, 7)]).is_err(),
            "not a four"
        );
        let mut wrong_block = good.clone();
        wrong_block[1] = (14, 14);
        assert!(
            check(&b, Color::Black, &wrong_block).is_err(),
            "defender ignores the four"
        );
        assert!(
            check(&b, Color::Black, &[(9, 7), (9, 7), (8, 7)]).is_err(),
            "occupied"
        );
    }

    /// Both searches on a few hundred random positions, both sides, both rules: the same
    /// answer to "a VCF within four attacker moves?", and every sequence found checks.
    #[test]
    fn agrees_with_the_brute_force_reference_within_four_attacker_moves() {
        let mut random = SplitMix64::new(32, 4);
        let (mut with, mut without) = (0, 0);
        for round in 0..300 {
            let rule = if round % 3 == 2 {
                Rule::Standard
            } else {
                Rule::Freestyle
            };
            let stones = 14 + random.below(14) as usize;
            let b = random_position(rule, &mut random, stones);
            for side in [Color::Black, Color::White] {
                let limits = Limits {
                    depth: 4,
                    nodes: u64::MAX,
                };
                let found = match search(&b, side, limits).unwrap().verdict {
                    Verdict::Win(sequence) => {
                        check(&b, side, &sequence.moves).unwrap();
                        assert!(sequence.attacker_moves() <= 4);
                        true
                    }
                    _ => false,
                };
                let expected = reference::vcf_within(&mut array_of(&b), side, rule, 4);
                assert_eq!(found, expected, "round {round}, {side:?}, {rule:?}");
                if found {
                    with += 1;
                } else {
                    without += 1;
                }
                // Unlimited, a found sequence checks too.
                if let Ok(Some(sequence)) = solve(&b, side, Limits::default()) {
                    check(&b, side, &sequence.moves).unwrap();
                }
            }
        }
        // The sample holds both kinds.
        assert!(
            with >= 30 && without >= 30,
            "{with} with, {without} without"
        );
    }
}
