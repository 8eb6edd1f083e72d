//! The Gomoku engine: boards of any size from 5×5 to 22×22, freestyle, exactly-five and renju
//! rules, threat-space proofs and a tree search that uses its time.
//!
//! ```
//! use warpsearch::gomoku::engine::{Board, GameRule, Limits, Table, Think, think, BLACK, WHITE};
//! let mut board = Board::new(20, 20, GameRule::Freestyle)?;
//! for x in 3..7 {
//!     board.place(board.cell(x, 10), BLACK);
//!     board.place(board.cell(x, 12), WHITE);
//! }
//! // Black to move has four in a row: the engine plays the five.
//! let options = Think { limits: Limits { nodes: Some(10_000), ..Limits::default() }, ..Think::default() };
//! let outcome = think(&board, &options, &Table::new(1)).unwrap();
//! assert!([board.cell(2, 10), board.cell(7, 10)].contains(&outcome.best));
//! # Ok::<(), String>(())
//! ```
//!
//! Layers: [`pattern`] (what a stone makes along one line, from an 11-cell window), [`board`]
//! (those patterns kept up to date for every empty cell, the evaluation, renju's forbidden
//! points), [`search`] (VCF, VCT and the principal-variation search), [`protocol`] (the
//! Piskvork brain) and [`matches`](mod@matches) (a harness that plays any two brains).

pub mod board;
pub mod crossing;
mod knobs;
pub mod matches;
pub mod pattern;
mod policy;
pub mod protocol;
pub mod search;

pub use board::{Board, Cell, MAX_SIZE, MIN_SIZE, Shape, ThreatPoint};
pub use pattern::{BLACK, EMPTY, GameRule, Pattern, WHITE};
pub use search::{
    Limits, Outcome, Reason, Table, Think, find_vcf, find_vct, find_vct_by_numbers,
    principal_variation, shape_bonus, think,
};

#[cfg(test)]
mod tests {
    use super::board::{DIRECTIONS, opponent};
    use super::pattern::{Pattern, pattern_on_line};
    use super::*;
    use std::collections::HashMap;

    /// The pattern at `centre` (holding a stone of `color`) by the definition, on the whole
    /// line and without windows: the independent reference of the tables.
    fn reference_placed(
        line: &mut Vec<u8>,
        centre: usize,
        color: u8,
        rule: GameRule,
        memo: &mut HashMap<Vec<u8>, Pattern>,
    ) -> Pattern {
        if let Some(&p) = memo.get(line) {
            return p;
        }
        let view = rule.perspective(color);
        let run_through = |line: &Vec<u8>, at: usize| {
            let (mut l, mut r) = (at, at);
            while l > 0 && line[l - 1] == color {
                l -= 1;
            }
            while r + 1 < line.len() && line[r + 1] == color {
                r += 1;
            }
            (l, r)
        };
        let is_five = |run: usize| if view.exact { run == 5 } else { run >= 5 };
        let (l, r) = run_through(line, centre);
        let pattern = if is_five(r - l + 1) {
            Pattern::F5
        } else if view.forbid && r - l + 1 > 5 {
            Pattern::Forbidden
        } else {
            let mut points = Vec::new();
            for e in 0..line.len() {
                if line[e] != EMPTY {
                    continue;
                }
                line[e] = color;
                let (l, r) = run_through(line, centre);
                if is_five(r - l + 1) {
                    points.push(e);
                }
                line[e] = EMPTY;
            }
            if points.len() >= 2 {
                let (a, b) = (points[0], points[points.len() - 1]);
                let straight = b - a == 5 && (a + 1..b).all(|c| line[c] == color);
                if view.forbid && !straight {
                    Pattern::Forbidden
                } else {
                    Pattern::F4
                }
            } else if points.len() == 1 {
                Pattern::B4
            } else {
                let mut best = Pattern::Dead;
                for e in 0..line.len() {
                    if line[e] != EMPTY || e.abs_diff(centre) > 5 {
                        continue;
                    }
                    line[e] = color;
                    let down = reference_placed(line, centre, color, rule, memo).down();
                    best = best.max(down);
                    line[e] = EMPTY;
                }
                best
            }
        };
        memo.insert(line.clone(), pattern);
        pattern
    }

    fn reference(line: &[u8], centre: usize, color: u8, rule: GameRule) -> Pattern {
        // Only the 11 cells around the centre can matter; the rest of the line is cut off
        // where a wall would stand (the reference sees the whole window, walls as walls).
        let mut memo = HashMap::new();
        let mut placed = line.to_vec();
        placed[centre] = color;
        reference_placed(&mut placed, centre, color, rule, &mut memo)
    }

    /// Every line of `length` (as a row of a `length`×5 board) in base 3, or `samples` random
    /// ones: the board's patterns in the row equal the reference's.
    fn check_lines(length: usize, samples: Option<usize>, rule: GameRule) {
        let total = 3usize.pow(length as u32);
        let mut random = kernels::rng::SplitMix64::new(length as u64, 7);
        let count = samples.unwrap_or(total);
        for i in 0..count {
            let code = if samples.is_some() {
                (random.next_u64() % total as u64) as usize
            } else {
                i
            };
            let mut line = vec![EMPTY; length];
            let mut c = code;
            for cell in line.iter_mut() {
                *cell = (c % 3) as u8;
                c /= 3;
            }
            let mut board = Board::new(length, 5, rule).unwrap();
            for (x, &stone) in line.iter().enumerate() {
                if stone != EMPTY {
                    board.place(board.cell(x, 2), stone);
                }
            }
            for (x, &stone) in line.iter().enumerate() {
                if stone != EMPTY {
                    continue;
                }
                for color in [BLACK, WHITE] {
                    let expected = reference(&line, x, color, rule);
                    let got = board.pattern(board.cell(x, 2), color, 0);
                    assert_eq!(
                        got, expected,
                        "line {line:?}, cell {x}, color {color}, rule {rule:?}: table {got:?}, reference {expected:?}"
                    );
                    assert_eq!(pattern_on_line(&line, x, color, rule), expected);
                }
            }
        }
    }

    #[test]
    fn a_four_makes_two_lines_only_with_a_two_or_a_three_across_it() {
        let mut board = Board::new(15, 15, GameRule::Freestyle).unwrap();
        // Black has three in row 7 (x = 4..6): (7, 7) makes a four there.
        for x in 4..7 {
            board.place(board.cell(x, 7), BLACK);
        }
        let four = board.cell(7, 7);
        assert_eq!(board.pattern(four, BLACK, 0), Pattern::F4);
        assert!(!board.makes_two_lines(four, BLACK), "a four alone");
        // One black stone in the column makes (7, 7) a four and an open two.
        board.place(board.cell(7, 9), BLACK);
        assert!(board.makes_two_lines(four, BLACK), "a four and a two");
        assert!(
            !board.makes_two_lines(four, WHITE),
            "white makes nothing there"
        );
    }

    #[test]
    fn tables_match_the_definition_on_every_short_line() {
        for rule in [GameRule::Freestyle, GameRule::Standard, GameRule::Renju] {
            for length in 5..=if cfg!(debug_assertions) { 7 } else { 10 } {
                check_lines(length, None, rule);
            }
        }
    }

    #[test]
    fn tables_match_the_definition_on_long_lines() {
        let samples = if cfg!(debug_assertions) { 200 } else { 4_000 };
        for rule in [GameRule::Freestyle, GameRule::Standard, GameRule::Renju] {
            for length in 11..=MAX_SIZE {
                check_lines(length, Some(samples), rule);
            }
        }
    }

    /// Random positions played and taken back: the incremental state equals a board built
    /// from scratch, and every direction's pattern equals the reference on that line.
    #[test]
    fn incremental_state_matches_a_fresh_board_in_every_direction() {
        let mut random = kernels::rng::SplitMix64::new(44, 1);
        for size in [5usize, 9, 15, 20, 22] {
            for rule in [GameRule::Freestyle, GameRule::Renju] {
                let mut board = Board::new(size, size, rule).unwrap();
                for _ in 0..(size * size / 2) {
                    let empty: Vec<Cell> = board
                        .board_cells()
                        .iter()
                        .copied()
                        .filter(|&c| board.at(c) == EMPTY)
                        .collect();
                    let cell = empty[(random.next_u64() % empty.len() as u64) as usize];
                    let color = board.side_to_move();
                    board.place(cell, color);
                    if random.next_u64().is_multiple_of(5) {
                        board.undo();
                    }
                    // A stone taken back from the middle of the game (the protocol's
                    // TAKEBACK): the moves before it then undo by recomputing.
                    if random.next_u64().is_multiple_of(17) && board.moves().len() > 2 {
                        let moves = board.moves();
                        let cell = moves[(random.next_u64() % moves.len() as u64) as usize];
                        assert!(board.take_back(cell));
                    }
                }
                // Undo part of the game, the trail's way and the recomputing way mixed.
                for _ in 0..size {
                    board.undo();
                }
                let mut fresh = Board::new(size, size, rule).unwrap();
                for &cell in board.moves() {
                    fresh.place(cell, board.at(cell));
                }
                assert_eq!(board.hash(), fresh.hash());
                for color in [BLACK, WHITE] {
                    assert_eq!(board.evaluate(color), fresh.evaluate(color));
                    assert_eq!(board.five_count(color), fresh.five_count(color));
                    assert_eq!(board.four_count(color), fresh.four_count(color));
                    // The open-four and open-three lanes against a recount of the patterns.
                    let recount = |wanted: Pattern| {
                        board
                            .board_cells()
                            .iter()
                            .filter(|&&c| board.at(c) == EMPTY)
                            .flat_map(|&c| board.patterns(c, color))
                            .filter(|&p| p == wanted)
                            .count()
                    };
                    assert_eq!(
                        usize::from(board.open_four_count(color)),
                        recount(Pattern::F4)
                    );
                    assert_eq!(
                        usize::from(board.open_three_count(color)),
                        recount(Pattern::F3)
                    );
                    // The five points as a scan of every cell finds them (five_cells looks
                    // on the last stones' lines first).
                    let scanned: Vec<Cell> = board
                        .board_cells()
                        .iter()
                        .copied()
                        .filter(|&c| {
                            board.at(c) == EMPTY && board.patterns(c, color).contains(&Pattern::F5)
                        })
                        .collect();
                    assert_eq!(board.five_cells(color), scanned);
                }
                for &cell in board.board_cells() {
                    if board.at(cell) != EMPTY {
                        continue;
                    }
                    for (d, &step) in DIRECTIONS.iter().enumerate() {
                        // The line through `cell` in direction d, as far as the board goes.
                        let mut start = cell as isize;
                        while board.at((start - step) as usize) != pattern::WALL {
                            start -= step;
                        }
                        let mut line = Vec::new();
                        let mut at = start;
                        let mut centre = 0;
                        while board.at(at as usize) != pattern::WALL {
                            if at as usize == cell {
                                centre = line.len();
                            }
                            line.push(board.at(at as usize));
                            at += step;
                        }
                        for color in [BLACK, WHITE] {
                            assert_eq!(
                                board.pattern(cell, color, d),
                                reference(&line, centre, color, rule)
                            );
                        }
                    }
                }
            }
        }
    }

    fn board_of(size: usize, rule: GameRule, rows: &[&str]) -> Board {
        let mut board = Board::new(size, size, rule).unwrap();
        let mut stones = (Vec::new(), Vec::new());
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                match c {
                    'X' => stones.0.push(board.cell(x, y)),
                    'O' => stones.1.push(board.cell(x, y)),
                    _ => {}
                }
            }
        }
        for &cell in &stones.0 {
            board.place(cell, BLACK);
        }
        for &cell in &stones.1 {
            board.place(cell, WHITE);
        }
        let to_move = if stones.0.len() > stones.1.len() {
            WHITE
        } else {
            BLACK
        };
        board.set_to_move(to_move);
        board
    }

    /// Renju's forbidden points against a brute force: black's move is forbidden when it
    /// makes an overline, or two fours, or two open threes each of which can become a
    /// straight four at an allowed cell (by the RIF definition, checked on the board by
    /// playing every cell out).
    #[test]
    fn renju_forbidden_points() {
        // Double three.
        let mut board = board_of(
            15,
            GameRule::Renju,
            &[
                "...............",
                "...............",
                "...............",
                "...............",
                ".....XX........",
                "...............",
                ".......X.......",
                ".......X.......",
            ],
        );
        assert!(board.is_forbidden(board.cell(7, 4)));
        // Double four.
        let mut board = board_of(
            15,
            GameRule::Renju,
            &[
                "...............",
                "...............",
                "...............",
                "...O...........",
                "....XXX........",
                ".......X.......",
                ".......X.......",
                ".......X.......",
            ],
        );
        assert!(board.is_forbidden(board.cell(7, 4)));
        // Overline.
        let mut board = board_of(15, GameRule::Renju, &["", "", "", "XXX.XX........."]);
        assert!(board.is_forbidden(board.cell(3, 3)));
        // A five made together with an overline elsewhere is not forbidden; a five alone wins.
        let mut board = board_of(15, GameRule::Renju, &["", "", "", "XX.XX.........."]);
        assert!(!board.is_forbidden(board.cell(2, 3)));
        // White is never forbidden.
        let mut board = board_of(15, GameRule::Renju, &["", "", "", "OOO.OO.........", "X"]);
        board.set_to_move(WHITE);
        assert!(!board.is_forbidden(board.cell(3, 3)));
        // Two threes, one of which cannot become a straight four (its open-four point is
        // itself a double four... here simply blocked): allowed.
        let mut board = board_of(
            15,
            GameRule::Renju,
            &[
                "...............",
                "...............",
                "...............",
                "...............",
                "....OXX.O......",
                "...............",
                ".......X.......",
                ".......X.......",
            ],
        );
        assert!(!board.is_forbidden(board.cell(7, 4)));
        // The same shapes under freestyle are never forbidden.
        let mut board = board_of(
            15,
            GameRule::Freestyle,
            &[
                "...............",
                "...............",
                "...............",
                "...............",
                ".....XX........",
                "...............",
                ".......X.......",
                ".......X.......",
            ],
        );
        assert!(!board.is_forbidden(board.cell(7, 4)));
    }

    /// Brute-force double-three/four counting on random renju positions agrees with
    /// `is_forbidden` whenever no three needs the recursive check (both threes have an open
    /// four point that is itself plainly allowed).
    #[test]
    fn forbidden_points_agree_with_a_brute_force_count() {
        let mut random = kernels::rng::SplitMix64::new(4, 4);
        let mut checked = 0;
        for _ in 0..if cfg!(debug_assertions) { 40 } else { 400 } {
            let mut board = Board::new(15, 15, GameRule::Renju).unwrap();
            for _ in 0..30 {
                let x = 3 + (random.next_u64() % 9) as usize;
                let y = 3 + (random.next_u64() % 9) as usize;
                let cell = board.cell(x, y);
                if board.at(cell) == EMPTY {
                    let color = board.side_to_move();
                    board.place(cell, color);
                }
            }
            if board.five_count(BLACK) > 0 {
                continue;
            }
            for &cell in board.board_cells().to_vec().iter() {
                if board.at(cell) != EMPTY {
                    continue;
                }
                let (fours, threes, overline, five) = brute_force_shapes(&mut board, cell);
                if five {
                    assert!(!board.is_forbidden(cell));
                    continue;
                }
                let plain = overline || fours >= 2;
                if plain {
                    assert!(
                        board.is_forbidden(cell),
                        "{board:?} cell {:?}",
                        board.xy(cell)
                    );
                    checked += 1;
                } else if threes < 2 {
                    assert!(
                        !board.is_forbidden(cell),
                        "{board:?} cell {:?}",
                        board.xy(cell)
                    );
                }
            }
        }
        assert!(checked > 0);
    }

    /// For black at `cell`: the lines where it makes a four (counted by five points on the
    /// line that go through it), open threes (lines where one more black stone makes a
    /// straight four through it), an overline, a five: all by playing cells on the board.
    fn brute_force_shapes(board: &mut Board, cell: Cell) -> (usize, usize, bool, bool) {
        let run = |board: &Board, at: Cell, step: isize| {
            let mut n = 1;
            for sign in [1isize, -1] {
                let mut other = at as isize + sign * step;
                while board.at(other as usize) == BLACK {
                    n += 1;
                    other += sign * step;
                }
            }
            n
        };
        board.place(cell, BLACK);
        let (mut fours, mut threes, mut overline, mut five) = (0, 0, false, false);
        for &step in &DIRECTIONS {
            let r = run(board, cell, step);
            five |= r == 5;
            overline |= r > 5;
            // Five points on this line whose five includes `cell`.
            let points = |board: &mut Board| {
                let mut pts = Vec::new();
                for k in -5isize..=5 {
                    let other = (cell as isize + k * step) as usize;
                    if k == 0 || board.at(other) != EMPTY {
                        continue;
                    }
                    board.place(other, BLACK);
                    if run(board, cell, step) == 5 {
                        pts.push(other);
                    }
                    board.undo();
                }
                pts
            };
            let p = points(board);
            if !p.is_empty() {
                // Two five points are one straight four, else two fours in one line.
                let straight = p.len() == 2 && p[1].abs_diff(p[0]) == 5 * step.unsigned_abs();
                fours += if p.len() >= 2 && !straight { 2 } else { 1 };
                continue;
            }
            let mut open = false;
            for k in -4isize..=4 {
                let other = (cell as isize + k * step) as usize;
                if k == 0 || board.at(other) != EMPTY {
                    continue;
                }
                board.place(other, BLACK);
                let q = points(board);
                if q.len() == 2 && q[1].abs_diff(q[0]) == 5 * step.unsigned_abs() {
                    open = true;
                }
                board.undo();
            }
            threes += usize::from(open);
        }
        board.undo();
        let _ = opponent(BLACK);
        (fours, threes, overline, five)
    }

    #[test]
    fn vcf_and_vct_are_found_and_refuted() {
        // Black to move wins by a four-three.
        let board = board_of(
            15,
            GameRule::Freestyle,
            &[
                "...............",
                "...............",
                "...............",
                "...O...........",
                "....XXX........",
                "...............",
                ".......X.......",
                ".......X.......",
                "...OO..O.......",
                "..O............",
            ],
        );
        let (found, _) = find_vcf(&board, 10, 100_000);
        assert!(found.is_some());
        // An open three for black with white to move: white has no VCF.
        let mut board = board_of(
            15,
            GameRule::Freestyle,
            &["", "", "", "", "....XXX....", "", "", "O"],
        );
        board.set_to_move(WHITE);
        assert_eq!(find_vcf(&board, 10, 100_000).0, None);
        // Black to move with two separate open twos that cross: a VCT (three, then a
        // double threat) but no VCF.
        let mut board = board_of(
            15,
            GameRule::Freestyle,
            &[
                "...............",
                "...............",
                "...............",
                "...............",
                ".....XX........",
                "...............",
                ".......X.......",
                ".......X.......",
                "O.O.O..........",
                "O..............",
            ],
        );
        board.set_to_move(BLACK);
        assert_eq!(find_vcf(&board, 10, 100_000).0, None);
        let (vct, _) = find_vct(&board, 4, 1_000_000);
        assert!(vct.is_some());
    }

    #[test]
    fn the_search_blocks_an_open_three_and_takes_a_win() {
        let table = Table::new(4);
        let options = Think {
            limits: Limits {
                nodes: Some(200_000),
                ..Limits::default()
            },
            ..Think::default()
        };
        // White to move must stop black's open three at one of its ends (or the far ends).
        let mut board = board_of(
            15,
            GameRule::Freestyle,
            &["", "", "", "", "", "", "", "....XXX....", "......O...."],
        );
        board.set_to_move(WHITE);
        let outcome = think(&board, &options, &table).unwrap();
        let (x, y) = board.xy(outcome.best);
        assert_eq!(y, 7, "{outcome:?}");
        assert!([2, 3, 7, 8].contains(&x), "{outcome:?}");
        // On a 20×20 board black completes its four.
        let mut board = Board::new(20, 20, GameRule::Freestyle).unwrap();
        for x in 14..18 {
            board.place(board.cell(x, 19), BLACK);
            board.place(board.cell(x, 0), WHITE);
        }
        let outcome = think(&board, &options, &table).unwrap();
        assert_eq!(outcome.reason, Reason::Five);
        assert!([board.cell(13, 19), board.cell(18, 19)].contains(&outcome.best));
    }

    #[test]
    fn fixed_node_searches_are_deterministic() {
        let table = Table::new(4);
        let options = Think {
            limits: Limits {
                nodes: Some(30_000),
                ..Limits::default()
            },
            ..Think::default()
        };
        let mut board = Board::new(15, 15, GameRule::Standard).unwrap();
        for (x, y) in [(7, 7), (8, 8), (6, 8), (8, 6)] {
            let color = board.side_to_move();
            board.place(board.cell(x, y), color);
        }
        let first = think(&board, &options, &table).unwrap();
        table.clear();
        let second = think(&board, &options, &table).unwrap();
        assert_eq!(first.best, second.best);
        assert_eq!(first.nodes, second.nodes);
    }

    /// After a search, the table's line starts with the move the search chose, and every move
    /// of it is a legal one in turn.
    #[test]
    fn the_principal_variation_starts_with_the_chosen_move() {
        let table = Table::new(4);
        let options = Think {
            limits: Limits {
                depth: Some(4),
                nodes: Some(200_000),
                ..Limits::default()
            },
            ..Think::default()
        };
        let mut board = Board::new(15, 15, GameRule::Freestyle).unwrap();
        for (x, y) in [(7, 7), (8, 8), (6, 8), (8, 6), (9, 7)] {
            let color = board.side_to_move();
            board.place(board.cell(x, y), color);
        }
        let outcome = think(&board, &options, &table).unwrap();
        assert_eq!(outcome.reason, Reason::Search);
        let line = principal_variation(&board, outcome.best, &table, 24);
        assert!(line.len() >= 2, "{line:?}");
        assert_eq!(line[0], outcome.best);
        for cell in line {
            assert_eq!(board.at(cell), EMPTY);
            let color = board.side_to_move();
            board.place(cell, color);
        }
    }

    /// A plain array board for the VCT reference: freestyle, no tables.
    #[derive(Clone)]
    struct Plain {
        n: i64,
        cells: Vec<u8>,
    }

    impl Plain {
        fn at(&self, x: i64, y: i64) -> u8 {
            if x < 0 || y < 0 || x >= self.n || y >= self.n {
                pattern::WALL
            } else {
                self.cells[(y * self.n + x) as usize]
            }
        }
        fn set(&mut self, x: i64, y: i64, v: u8) {
            self.cells[(y * self.n + x) as usize] = v;
        }
        /// Whether a stone of `color` on empty (x, y) makes five or more in a row.
        fn makes_five(&mut self, x: i64, y: i64, color: u8) -> bool {
            [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| {
                let mut run = 1;
                for sign in [1, -1] {
                    let (mut cx, mut cy) = (x + sign * dx, y + sign * dy);
                    while self.at(cx, cy) == color {
                        run += 1;
                        cx += sign * dx;
                        cy += sign * dy;
                    }
                }
                run >= 5
            })
        }
        fn empties(&self) -> Vec<(i64, i64)> {
            (0..self.n * self.n)
                .map(|i| (i % self.n, i / self.n))
                .filter(|&(x, y)| self.at(x, y) == EMPTY)
                .collect()
        }
        fn five_points(&mut self, color: u8) -> Vec<(i64, i64)> {
            self.empties()
                .into_iter()
                .filter(|&(x, y)| self.makes_five(x, y, color))
                .collect()
        }
        /// A cell where `color` would have two five points at once.
        fn open_four_point(&mut self, color: u8) -> bool {
            self.empties().into_iter().any(|(x, y)| {
                self.set(x, y, color);
                let two = self.five_points(color).len() >= 2;
                self.set(x, y, EMPTY);
                two
            })
        }
        /// A cell where `color` would make a five point (a four).
        fn can_make_four(&mut self, color: u8) -> bool {
            self.empties().into_iter().any(|(x, y)| {
                self.set(x, y, color);
                let four = !self.five_points(color).is_empty();
                self.set(x, y, EMPTY);
                four
            })
        }
    }

    /// The attacker to move wins by threats within `depth` threat moves, trying every cell
    /// for both sides (the same rules of the game as `find_vct`: a forced block is free, an
    /// open four wins when the defender cannot make a four).
    fn reference_attack(b: &mut Plain, att: u8, depth: u32) -> bool {
        let def = opponent(att);
        if !b.five_points(att).is_empty() {
            return true;
        }
        match b.five_points(def)[..] {
            [] => {}
            [(x, y)] => {
                b.set(x, y, att);
                let won = reference_defend(b, att, depth);
                b.set(x, y, EMPTY);
                return won;
            }
            _ => return false,
        }
        if depth == 0 {
            return false;
        }
        if b.open_four_point(att) && !b.can_make_four(def) {
            return true;
        }
        for (x, y) in b.empties() {
            b.set(x, y, att);
            let threat = !b.five_points(att).is_empty() || b.open_four_point(att);
            let won = threat && reference_defend(b, att, depth - 1);
            b.set(x, y, EMPTY);
            if won {
                return true;
            }
        }
        false
    }

    fn reference_defend(b: &mut Plain, att: u8, depth: u32) -> bool {
        let def = opponent(att);
        if !b.five_points(def).is_empty() {
            return false;
        }
        match b.five_points(att)[..] {
            [] => {}
            [(x, y)] => {
                b.set(x, y, def);
                let won = reference_attack(b, att, depth);
                b.set(x, y, EMPTY);
                return won;
            }
            _ => return true,
        }
        if !b.open_four_point(att) {
            return false;
        }
        for (x, y) in b.empties() {
            b.set(x, y, def);
            let won = reference_attack(b, att, depth);
            b.set(x, y, EMPTY);
            if !won {
                return false;
            }
        }
        true
    }

    /// Proof numbers find a VCT exactly where iterative deepening does, three and four threats
    /// deep, on random 11×11 positions (the two searches share their moves, so only the order
    /// of the search differs).
    #[test]
    fn vct_by_proof_numbers_agrees_with_iterative_deepening() {
        let mut random = kernels::rng::SplitMix64::new(47, 3);
        let (mut positions, mut wins) = (0, 0);
        let wanted = if cfg!(debug_assertions) { 4 } else { 40 };
        while positions < wanted {
            let n = 11usize;
            let mut board = Board::new(n, n, GameRule::Freestyle).unwrap();
            let stones = 10 + (random.next_u64() % 9) as usize;
            while board.stones() < stones {
                let (x, y) = (2 + random.next_u64() % 7, 2 + random.next_u64() % 7);
                let cell = board.cell(x as usize, y as usize);
                let color = board.side_to_move();
                if board.at(cell) == EMPTY && !board.five_cells(color).contains(&cell) {
                    board.place(cell, color);
                }
            }
            positions += 1;
            for depth in 3..=4 {
                let (deepening, _) = find_vct(&board, depth, 50_000_000);
                let (numbers, _) = find_vct_by_numbers(&board, depth, 50_000_000);
                assert_eq!(
                    numbers.is_some(),
                    deepening.is_some(),
                    "depth {depth}:\n{board:?}"
                );
                wins += usize::from(numbers.is_some());
            }
        }
        assert!(wins > 0 || cfg!(debug_assertions), "no position was a VCT");
    }

    /// `find_vct` against the reference on random 8×8 positions without threats, one and two
    /// threat moves deep: the engine's defences (the cells that stop a threat and the
    /// defender's own fours) must be all the defences that matter.
    #[test]
    fn vct_agrees_with_a_reference_that_tries_every_cell() {
        let mut random = kernels::rng::SplitMix64::new(46, 2);
        let (mut positions, mut wins) = (0, 0);
        let wanted = if cfg!(debug_assertions) { 2 } else { 12 };
        while positions < wanted {
            let n = 8usize;
            let mut board = Board::new(n, n, GameRule::Freestyle).unwrap();
            let mut plain = Plain {
                n: n as i64,
                cells: vec![EMPTY; n * n],
            };
            let stones = 8 + (random.next_u64() % 5) as usize;
            while board.stones() < stones {
                let (x, y) = (1 + random.next_u64() % 6, 1 + random.next_u64() % 6);
                let cell = board.cell(x as usize, y as usize);
                if board.at(cell) == EMPTY {
                    let color = board.side_to_move();
                    board.place(cell, color);
                    plain.set(x as i64, y as i64, color);
                }
            }
            let att = board.side_to_move();
            let def = opponent(att);
            let quiet = [att, def]
                .iter()
                .all(|&c| plain.five_points(c).is_empty() && !plain.open_four_point(c));
            if !quiet {
                continue;
            }
            positions += 1;
            for depth in 1..=2 {
                let (engine, _) = find_vct(&board, depth, 50_000_000);
                let (numbers, _) = find_vct_by_numbers(&board, depth, 50_000_000);
                let expected = reference_attack(&mut plain, att, depth);
                assert_eq!(
                    engine.is_some(),
                    expected,
                    "depth {depth}, attacker {att}:\n{board:?}"
                );
                assert_eq!(
                    numbers.is_some(),
                    expected,
                    "proof numbers, depth {depth}, attacker {att}:\n{board:?}"
                );
                wins += usize::from(expected);
            }
        }
        // Some positions must be wins, or the comparison says little.
        assert!(wins > 0 || cfg!(debug_assertions), "no position was a VCT");
    }
}
