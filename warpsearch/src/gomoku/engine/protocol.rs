//! The Piskvork protocol (Gomocup's brain interface) on the engine.
//!
//! Commands are handled in the order a manager sends them: START (or RECTSTART), then INFO
//! lines (applied at once, the rule included: a manager sends `INFO rule` after START), then
//! BEGIN, TURN or BOARD … DONE. Every answer is one line.

use super::board::{Board, Cell, MAX_SIZE, MIN_SIZE, opponent};
use super::pattern::{BLACK, EMPTY, GameRule, WHITE};
use super::search::{Limits, Table, Think, think};
use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

/// The turn limit when the manager sends none (ms).
const DEFAULT_TURN_MS: i64 = 5_000;
/// The transposition table's size when the manager sets no memory limit (MB).
const DEFAULT_TABLE_MB: usize = 64;

/// The answer to ABOUT.
const ABOUT: &str = concat!(
    "name=\"warpsearch\", version=\"",
    env!("CARGO_PKG_VERSION"),
    "\", author=\"warpsearch developers\", country=\"-\""
);

/// How a brain's moves are limited besides the manager's clock.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Search this many nodes a move instead of using the clock (the same moves on every
    /// machine; INFO time limits are then ignored).
    pub nodes: Option<u64>,
    /// Threads (INFO thread_num overrides it); default 1.
    pub threads: Option<usize>,
    /// Cap on a move's time whatever the manager allows (ms).
    pub turn_cap_ms: Option<u64>,
    /// Answer each move after a `MESSAGE` line with the search's depth, score and nodes.
    pub messages: bool,
    /// Play uniformly random allowed cells next to stones instead of searching (a sparring
    /// partner for tests), from this seed.
    pub random: Option<u64>,
}

/// The block being read after BOARD or SWAP2BOARD.
struct Pending {
    swap2: bool,
    stones: Vec<(usize, usize, u8)>,
    error: Option<String>,
}

/// A brain between commands.
pub struct Brain {
    settings: Settings,
    board: Option<Board>,
    /// The brain's color on the board.
    me: u8,
    rule: GameRule,
    pending: Option<Pending>,
    timeout_turn: Option<i64>,
    timeout_match: Option<i64>,
    time_left: Option<i64>,
    max_memory: Option<u64>,
    threads: usize,
    table: Option<Table>,
    finished: bool,
}

impl Brain {
    /// A brain before START.
    pub fn new(settings: Settings) -> Brain {
        let threads = settings.threads.unwrap_or(1).max(1);
        Brain {
            settings,
            board: None,
            me: BLACK,
            rule: GameRule::Freestyle,
            pending: None,
            timeout_turn: None,
            timeout_match: None,
            time_left: None,
            max_memory: None,
            threads,
            table: None,
            finished: false,
        }
    }

    /// True after END.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// The board, after START.
    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    /// The rule in force.
    pub fn rule(&self) -> GameRule {
        self.rule
    }

    /// The time the next move may take: the turn limit, and a share of the match time left,
    /// less a margin for answering. Never more than either.
    pub fn move_budget(&self) -> Duration {
        let mut ms = self.timeout_turn.unwrap_or(DEFAULT_TURN_MS);
        if ms == 0 {
            ms = 10; // "play as fast as you can"
        }
        if let Some(left) = self.time_left {
            let left = left.max(0);
            let stones = self.board.as_ref().map_or(0, Board::stones) as i64;
            // Plan for at least 20 more own moves, fewer as the board fills.
            let moves_left = (40 - stones / 4).max(12);
            ms = ms.min(left / moves_left).min((left - 100).max(0));
        }
        if let Some(cap) = self.settings.turn_cap_ms {
            ms = ms.min(cap as i64);
        }
        let ms = ms.max(1) as f64;
        // The margin covers the answer, a stopping search and a busy machine: 5 ms and 6 %.
        Duration::from_secs_f64(((ms * 0.94) - 5.0).max(ms * 0.5) / 1000.0)
    }

    /// Handles one line; returns the lines to answer.
    pub fn handle(&mut self, line: &str) -> Vec<String> {
        if self.finished {
            return Vec::new();
        }
        let line = line.trim();
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((word, rest)) => (word, rest.trim()),
            None => (line, ""),
        };
        let command = word.to_ascii_uppercase();
        if let Some(mut pending) = self.pending.take() {
            match command.as_str() {
                "" => {
                    self.pending = Some(pending);
                    return Vec::new();
                }
                "DONE" => return vec![self.finish_board(pending)],
                "END" => {
                    self.finished = true;
                    return Vec::new();
                }
                _ => {
                    match parse_stone(line) {
                        Ok(stone) => pending.stones.push(stone),
                        Err(why) => {
                            pending.error.get_or_insert(why);
                        }
                    }
                    self.pending = Some(pending);
                    return Vec::new();
                }
            }
        }
        let answer = match command.as_str() {
            "" => return Vec::new(),
            "START" => self.start(rest),
            "RECTSTART" => self.rectstart(rest),
            "RESTART" => self.restart(),
            "BEGIN" => self.begin(),
            "TURN" => self.turn(rest),
            "BOARD" | "SWAP2BOARD" => {
                self.pending = Some(Pending {
                    swap2: command == "SWAP2BOARD",
                    stones: Vec::new(),
                    error: self.board.is_none().then(|| "no START yet".into()),
                });
                return Vec::new();
            }
            "DONE" => "ERROR DONE without BOARD".into(),
            "TAKEBACK" => self.takeback(rest),
            "INFO" => match self.info(rest) {
                Ok(()) => return Vec::new(),
                Err(why) => format!("ERROR {why}"),
            },
            "ABOUT" => ABOUT.into(),
            "END" => {
                self.finished = true;
                return Vec::new();
            }
            _ => format!("UNKNOWN {}", printable(line)),
        };
        vec![answer]
    }

    fn new_board(&mut self, width: usize, height: usize) -> String {
        match Board::new(width, height, self.rule) {
            Ok(board) => {
                self.board = Some(board);
                self.me = BLACK;
                "OK".into()
            }
            Err(why) => format!("ERROR {why}"),
        }
    }

    fn start(&mut self, size: &str) -> String {
        match size.parse::<usize>() {
            Ok(n) => self.new_board(n, n),
            Err(_) => format!(
                "ERROR START needs the board size ({MIN_SIZE} to {MAX_SIZE}), not '{}'",
                printable(size)
            ),
        }
    }

    fn rectstart(&mut self, size: &str) -> String {
        match parse_pair(size) {
            Ok((w, h)) if w > 0 && h > 0 => self.new_board(w as usize, h as usize),
            _ => format!(
                "ERROR RECTSTART needs width,height, not '{}'",
                printable(size)
            ),
        }
    }

    fn restart(&mut self) -> String {
        let Some(board) = &self.board else {
            return "ERROR no START yet".into();
        };
        let (w, h) = (board.width(), board.height());
        self.new_board(w, h)
    }

    fn begin(&mut self) -> String {
        let Some(board) = self.board.as_ref() else {
            return "ERROR no START yet".into();
        };
        self.me = board.side_to_move();
        self.reply()
    }

    fn turn(&mut self, text: &str) -> String {
        let Some(board) = self.board.as_mut() else {
            return "ERROR no START yet".into();
        };
        let cell = match parse_cell(board, text) {
            Ok(cell) => cell,
            Err(why) => return format!("ERROR {why}"),
        };
        if board.at(cell) != EMPTY {
            return format!("ERROR {} is already occupied", printable(text));
        }
        let color = board.side_to_move();
        board.place(cell, color);
        self.me = opponent(color);
        self.reply()
    }

    fn takeback(&mut self, text: &str) -> String {
        let Some(board) = self.board.as_mut() else {
            return "ERROR no START yet".into();
        };
        let cell = match parse_cell(board, text) {
            Ok(cell) => cell,
            Err(why) => return format!("ERROR {why}"),
        };
        let color = board.at(cell);
        if board.take_back(cell) {
            board.set_to_move(color);
            "OK".into()
        } else {
            format!("ERROR no stone at {} to take back", printable(text))
        }
    }

    /// Places a BOARD block's stones: the brain's (1) and the opponent's (2) by color, and
    /// stones marked 3 (a continuous game's) as blocking stones of neither side.
    fn finish_board(&mut self, pending: Pending) -> String {
        if let Some(why) = pending.error {
            return format!("ERROR {why}");
        }
        let Some(old) = self.board.as_ref() else {
            return "ERROR no START yet".into();
        };
        let own = pending.stones.iter().filter(|s| s.2 == 1).count();
        let theirs = pending.stones.iter().filter(|s| s.2 == 2).count();
        if own > theirs + 1 || theirs > own + 1 {
            return format!(
                "ERROR {own} own stones against {theirs}: not a position of alternate moves"
            );
        }
        let me = if pending.swap2 {
            if own + theirs == 0 || (own + theirs) % 2 == 1 {
                WHITE
            } else {
                BLACK
            }
        } else if theirs > own {
            WHITE
        } else {
            BLACK
        };
        let mut board = match Board::new(old.width(), old.height(), self.rule) {
            Ok(board) => board,
            Err(why) => return format!("ERROR {why}"),
        };
        // Alternate the colors so that the move history is a game's (black first).
        let mut mine: Vec<Cell> = Vec::new();
        let mut others: Vec<Cell> = Vec::new();
        for &(x, y, who) in &pending.stones {
            let cell = board.cell(x, y);
            if x >= board.width() || y >= board.height() {
                return format!("ERROR {x},{y} is off the board");
            }
            if board.at(cell) != EMPTY || mine.contains(&cell) || others.contains(&cell) {
                return format!("ERROR {x},{y} is given twice");
            }
            match who {
                1 => mine.push(cell),
                2 => others.push(cell),
                _ => board.block(cell),
            }
        }
        let (blacks, whites) = if pending.swap2 {
            // Black has as many stones as white or one more.
            if mine.len() >= others.len() {
                (mine, others)
            } else {
                (others, mine)
            }
        } else if me == BLACK {
            (mine, others)
        } else {
            (others, mine)
        };
        for i in 0..blacks.len().max(whites.len()) {
            if let Some(&cell) = blacks.get(i) {
                board.place(cell, BLACK);
            }
            if let Some(&cell) = whites.get(i) {
                board.place(cell, WHITE);
            }
        }
        if board.moves().iter().any(|&c| board.wins_at(c)) {
            return "ERROR the game is already over: the board holds a five".into();
        }
        board.set_to_move(me);
        self.board = Some(board);
        self.me = me;
        if pending.swap2 {
            return self.swap2();
        }
        self.reply()
    }

    /// A swap2 answer, one line: three opening stones on an empty board; with three stones,
    /// SWAP when black stands better, else a white move; with five, SWAP when white stands
    /// better, else a move.
    fn swap2(&mut self) -> String {
        let Some(board) = self.board.as_ref() else {
            return "ERROR no START yet".into();
        };
        let (cx, cy) = (board.width() / 2, board.height() / 2);
        match board.stones() {
            0 => format!("{},{} {},{} {},{}", cx, cy, cx + 1, cy + 1, cx + 2, cy - 1),
            3 | 5 => {
                let mover = board.side_to_move();
                let eval = board.evaluate(mover);
                if eval < -20 {
                    "SWAP".into()
                } else {
                    self.me = mover;
                    self.reply()
                }
            }
            n => format!("ERROR SWAP2BOARD with {n} stones (0, 3 or 5 expected)"),
        }
    }

    fn info(&mut self, text: &str) -> Result<(), String> {
        let (key, value) = match text.split_once(char::is_whitespace) {
            Some((key, value)) => (key.to_ascii_lowercase(), value.trim()),
            None => return Ok(()),
        };
        let number = value.parse::<i64>();
        match (key.as_str(), number) {
            ("timeout_turn", Ok(n)) => self.timeout_turn = Some(n.max(0)),
            ("timeout_match", Ok(n)) => self.timeout_match = Some(n.max(0)),
            // A manager may send a negative time left when the brain is over time.
            ("time_left", Ok(n)) => self.time_left = Some(n),
            ("max_memory", Ok(n)) => self.max_memory = Some(n.max(0) as u64),
            ("thread_num" | "max_thread_num", Ok(n)) => self.threads = n.clamp(1, 256) as usize,
            ("rule", Ok(n)) => {
                let rule = GameRule::from_piskvork(n.max(0) as u64)?;
                self.set_rule(rule)?;
            }
            ("rule", Err(_)) => {
                return Err(format!(
                    "INFO rule needs a number, not '{}'",
                    printable(value)
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// Applies a rule now: the board in play is set up again under it.
    fn set_rule(&mut self, rule: GameRule) -> Result<(), String> {
        self.rule = rule;
        if let Some(old) = self.board.take() {
            let mut board = Board::new(old.width(), old.height(), rule)?;
            for &cell in old.moves() {
                board.place(cell, old.at(cell));
            }
            for &cell in old.board_cells() {
                if old.at(cell) == super::pattern::WALL {
                    board.block(cell);
                }
            }
            board.set_to_move(old.side_to_move());
            self.board = Some(board);
        }
        Ok(())
    }

    fn table(&mut self) -> &Table {
        let megabytes = match self.max_memory {
            Some(bytes) if bytes > 0 => ((bytes >> 20) as usize / 2).clamp(1, DEFAULT_TABLE_MB),
            _ => DEFAULT_TABLE_MB,
        };
        self.table.get_or_insert_with(|| Table::new(megabytes))
    }

    /// Thinks for the brain's color, places the move and answers "x,y".
    fn reply(&mut self) -> String {
        let started = Instant::now();
        let budget = self.move_budget();
        let settings = self.settings.clone();
        let threads = self.threads;
        let me = self.me;
        self.table();
        let (Some(board), Some(table)) = (self.board.as_mut(), self.table.as_ref()) else {
            return "ERROR no START yet".into();
        };
        if board.moves().iter().any(|&c| board.wins_at(c)) {
            return "ERROR the game is already over: the board holds a five".into();
        }
        board.set_to_move(me);
        if let Some(seed) = settings.random {
            let Some(cell) = random_move(board, seed) else {
                return "ERROR the board is full".into();
            };
            let (x, y) = board.xy(cell);
            board.place(cell, me);
            return format!("{x},{y}");
        }
        let limits = match settings.nodes {
            Some(nodes) => Limits {
                nodes: Some(nodes),
                ..Limits::default()
            },
            None => Limits {
                deadline: Some(started + budget),
                ..Limits::default()
            },
        };
        let options = Think {
            limits,
            threads: if settings.nodes.is_some() { 1 } else { threads },
            ..Think::default()
        };
        match think(board, &options, table) {
            Some(outcome) => {
                let (x, y) = board.xy(outcome.best);
                board.place(outcome.best, me);
                if settings.messages {
                    format!(
                        "MESSAGE {:?} depth {} score {} nodes {} in {} ms\n{x},{y}",
                        outcome.reason,
                        outcome.depth,
                        outcome.score,
                        outcome.nodes,
                        started.elapsed().as_millis()
                    )
                } else {
                    format!("{x},{y}")
                }
            }
            None => "ERROR the board is full".into(),
        }
    }
}

/// A random allowed cell next to a stone (any empty allowed cell on an empty board), drawn
/// from `seed` and the position.
fn random_move(board: &mut Board, seed: u64) -> Option<Cell> {
    let me = board.side_to_move();
    let mut cells: Vec<Cell> = board
        .board_cells()
        .iter()
        .copied()
        .filter(|&c| board.at(c) == EMPTY && (board.stones() == 0 || board.is_near(c)))
        .collect();
    if cells.is_empty() {
        cells = board
            .board_cells()
            .iter()
            .copied()
            .filter(|&c| board.at(c) == EMPTY)
            .collect();
    }
    let mut random = kernels::rng::SplitMix64::new(seed, board.hash());
    while !cells.is_empty() {
        let index = (random.next_u64() % cells.len() as u64) as usize;
        let cell = cells.swap_remove(index);
        if me != BLACK || !board.is_forbidden(cell) {
            return Some(cell);
        }
    }
    None
}

/// At most 60 characters of `text`, control characters replaced by '?', for echoing.
fn printable(text: &str) -> String {
    text.chars()
        .take(60)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// "a,b" as two integers.
fn parse_pair(text: &str) -> Result<(i64, i64), String> {
    let mut parts = text.split(',').map(str::trim);
    let bad = || format!("expected x,y, not '{}'", printable(text));
    let (Some(a), Some(b), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        _ => Err(bad()),
    }
}

fn parse_cell(board: &Board, text: &str) -> Result<Cell, String> {
    let (x, y) = parse_pair(text)?;
    board.checked_cell(x, y).ok_or_else(|| {
        format!(
            "{x},{y} is off the {}x{} board",
            board.width(),
            board.height()
        )
    })
}

/// A BOARD line "x,y,who" (who 1, 2 or 3).
fn parse_stone(text: &str) -> Result<(usize, usize, u8), String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let bad = || format!("expected x,y,who in BOARD, not '{}'", printable(text));
    let [x, y, who] = parts[..] else {
        return Err(bad());
    };
    let (Ok(x), Ok(y), Ok(who)) = (x.parse::<usize>(), y.parse::<usize>(), who.parse::<u8>())
    else {
        return Err(bad());
    };
    if !(1..=3).contains(&who) {
        return Err(format!(
            "who must be 1 (mine), 2 (opponent's) or 3, not {who}"
        ));
    }
    if x >= MAX_SIZE || y >= MAX_SIZE {
        return Err(format!("{x},{y} is off the board"));
    }
    Ok((x, y, who))
}

/// Speaks the protocol until END or the end of input; answers are flushed line by line.
pub fn run(settings: Settings, input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut brain = Brain::new(settings);
    for line in input.split(b'\n') {
        let line = String::from_utf8_lossy(&line?).into_owned();
        for answer in brain.handle(&line) {
            writeln!(output, "{answer}")?;
        }
        output.flush()?;
        if brain.finished() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brain() -> Brain {
        Brain::new(Settings {
            nodes: Some(20_000),
            ..Settings::default()
        })
    }

    fn answers(brain: &mut Brain, lines: &[&str]) -> Vec<String> {
        lines.iter().flat_map(|l| brain.handle(l)).collect()
    }

    fn cell_of(answer: &str) -> (i64, i64) {
        parse_pair(answer).unwrap_or_else(|e| panic!("{answer}: {e}"))
    }

    #[test]
    fn rule_sent_after_start_applies_to_that_game() {
        let mut b = brain();
        let out = answers(&mut b, &["START 15", "INFO rule 1"]);
        assert_eq!(out, ["OK"]);
        assert_eq!(b.board().unwrap().rule(), GameRule::Standard);
        answers(&mut b, &["INFO rule 4"]);
        assert_eq!(b.board().unwrap().rule(), GameRule::Renju);
        answers(&mut b, &["INFO rule 0"]);
        assert_eq!(b.board().unwrap().rule(), GameRule::Freestyle);
    }

    #[test]
    fn start_20_and_other_sizes() {
        let mut b = brain();
        assert_eq!(answers(&mut b, &["START 20"]), ["OK"]);
        let reply = answers(&mut b, &["BEGIN"]);
        assert_eq!(reply, ["10,10"]);
        let mut b = brain();
        assert_eq!(answers(&mut b, &["START 22"]), ["OK"]);
        assert!(answers(&mut b, &["START 23"])[0].starts_with("ERROR"));
        assert!(answers(&mut b, &["START 4"])[0].starts_with("ERROR"));
        assert_eq!(answers(&mut b, &["RECTSTART 20,15"]), ["OK"]);
    }

    #[test]
    fn caro_is_refused_at_once_and_renju_is_played() {
        let mut b = brain();
        let out = answers(&mut b, &["START 15", "INFO rule 8"]);
        assert_eq!(out.len(), 2);
        assert!(out[1].starts_with("ERROR"), "{out:?}");
        // Renju: black must not play a double three. Black (the brain) to move in a
        // position where the tempting cell 7,4 is a double three.
        let mut b = brain();
        answers(&mut b, &["START 15", "INFO rule 4"]);
        let out = answers(
            &mut b,
            &[
                "BOARD", "5,4,1", "6,4,1", "7,6,1", "7,7,1", "0,0,2", "14,0,2", "0,14,2",
                "14,14,2", "DONE",
            ],
        );
        assert_eq!(out.len(), 1);
        assert_ne!(cell_of(&out[0]), (7, 4), "played a forbidden double three");
    }

    #[test]
    fn board_stones_marked_3_are_stones() {
        let mut b = brain();
        answers(&mut b, &["START 15"]);
        // Black (the opponent, 2) has four in a row on 3..6 with 2,7 marked 3 (blocked): the
        // brain must block at 7,7, the only open end.
        let out = answers(
            &mut b,
            &[
                "BOARD", "3,7,2", "4,7,2", "5,7,2", "6,7,2", "2,7,3", "0,0,1", "0,2,1", "0,4,1",
                "DONE",
            ],
        );
        assert_eq!(out, ["7,7"]);
        let board = b.board().unwrap();
        assert_ne!(board.at(board.cell(2, 7)), EMPTY);
    }

    #[test]
    fn negative_time_left_is_accepted() {
        let mut b = Brain::new(Settings::default());
        let out = answers(
            &mut b,
            &["START 15", "INFO timeout_turn 1000", "INFO time_left -200"],
        );
        assert_eq!(out, ["OK"]);
        assert!(b.move_budget() <= Duration::from_millis(2));
        let out = answers(&mut b, &["BEGIN"]);
        assert_eq!(out, ["7,7"]);
    }

    #[test]
    fn swap2board_is_answered_with_one_line() {
        for stones in [
            vec![],
            vec!["7,7,1", "8,8,2", "9,6,1"],
            vec!["7,7,1", "8,8,2", "9,6,1", "6,8,2", "8,7,1"],
        ] {
            let mut b = brain();
            answers(&mut b, &["START 15"]);
            let mut lines = vec!["SWAP2BOARD"];
            lines.extend(stones.iter().copied());
            lines.push("DONE");
            let out = answers(&mut b, &lines);
            assert_eq!(out.len(), 1, "{stones:?}: {out:?}");
            // The block is consumed: the next command is handled as a command.
            assert_eq!(answers(&mut b, &["ABOUT"]).len(), 1);
        }
    }

    #[test]
    fn time_budget_keeps_within_the_turn() {
        let mut b = Brain::new(Settings::default());
        answers(
            &mut b,
            &[
                "START 15",
                "INFO timeout_turn 1000",
                "INFO timeout_match 180000",
                "INFO time_left 180000",
            ],
        );
        let budget = b.move_budget();
        assert!(
            budget >= Duration::from_millis(900) && budget < Duration::from_millis(1000),
            "{budget:?}"
        );
    }

    #[test]
    fn bad_input_gets_errors_not_panics() {
        let mut b = brain();
        for line in [
            "TURN 1,1",
            "BEGIN",
            "TAKEBACK 1,1",
            "DONE",
            "START x",
            "RECTSTART 3",
        ] {
            assert!(answers(&mut b, &[line])[0].starts_with("ERROR"), "{line}");
        }
        answers(&mut b, &["START 15"]);
        for line in ["TURN 15,0", "TURN -1,2", "TURN a,b", "TAKEBACK 3,3"] {
            assert!(answers(&mut b, &[line])[0].starts_with("ERROR"), "{line}");
        }
        // A finished game.
        let out = answers(
            &mut b,
            &[
                "BOARD", "0,0,2", "1,0,2", "2,0,2", "3,0,2", "4,0,2", "5,5,1", "6,6,1", "7,7,1",
                "8,8,1", "DONE",
            ],
        );
        assert!(out[0].starts_with("ERROR"), "{out:?}");
        assert_eq!(answers(&mut b, &["FOO"]), ["UNKNOWN FOO"]);
    }
}
