//! A match harness: plays any two Piskvork brains against each other.
//!
//! Each game starts both brains afresh, opens with a position from the openings list (every
//! opening is played twice, colours swapped), and then relays the moves: the first move of
//! each brain comes as a BOARD block, the rest as TURN. Every move is checked (on the board,
//! on an empty cell, not forbidden to renju's black) and timed; a brain that answers late,
//! exits, or answers nonsense loses the game. Lines a brain prints besides its move
//! (MESSAGE, DEBUG, …) are skipped.

use super::board::{Board, Cell};
use super::pattern::{BLACK, EMPTY, GameRule, WHITE};
use serde::Serialize;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The openings shipped with the harness: the 26 classic three-stone openings (the centre,
/// a second stone beside or diagonal to it, a third in the central 5×5, up to symmetry), as
/// offsets from the centre, black first.
pub const OPENINGS: &str = include_str!("openings-26.txt");

/// The balanced openings shipped with the harness (`--openings balanced`): 26 three-stone
/// openings, each judged even for the side to move (white) by Rapfi's search; the file's header
/// says how they were chosen.
pub const BALANCED_OPENINGS: &str = include_str!("openings-balanced.txt");

/// What a match plays.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// The two brains: shell commands.
    pub engines: [String; 2],
    /// Games in all (each opening twice, colours swapped).
    pub games: usize,
    /// Time a move for each brain (ms); None: no turn limit sent.
    pub turn_ms: [Option<u64>; 2],
    /// Time a game for each brain (ms); None: no match limit.
    pub match_ms: [Option<u64>; 2],
    /// The rule.
    pub rule: GameRule,
    /// The board side.
    pub size: usize,
    /// Openings: stones as offsets from the centre, black first.
    pub openings: Vec<Vec<(i64, i64)>>,
    /// Games played at once.
    pub concurrency: usize,
    /// Threads each brain is told to use (INFO thread_num).
    pub threads: [usize; 2],
    /// Time beyond the limit a brain may take before it forfeits (ms).
    pub grace_ms: u64,
    /// Time to wait before a brain that has just answered gets its next command (ms).
    pub settle_ms: u64,
    /// Time a brain has to answer START (ms).
    pub start_ms: u64,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// A five.
    Five,
    /// The board filled up.
    Draw,
    /// A brain took longer than its time.
    Time,
    /// A brain played an occupied cell, a cell off the board or a forbidden point.
    Illegal,
    /// A brain exited, or answered something that is not a move.
    Crash,
}

/// One game's record.
#[derive(Clone, Debug, Serialize)]
pub struct GameRecord {
    /// Game number, from 0.
    pub game: usize,
    /// Opening number.
    pub opening: usize,
    /// Which brain (0 or 1) played black.
    pub black: usize,
    /// The winner (0 or 1); None for a draw.
    pub winner: Option<usize>,
    /// How it ended.
    pub ending: Ending,
    /// What went wrong, for forfeits.
    pub detail: Option<String>,
    /// Moves as "x,y", black first, the opening included.
    pub moves: Vec<String>,
    /// Milliseconds each move took (the opening's stones: 0).
    pub ms: Vec<u64>,
}

/// The moves of a game record's `moves` array (the "x,y" strings a [`GameRecord`] is written
/// with) as (x, y) pairs, leaving out any that do not read; None when it is not an array.
pub fn read_moves(moves: &serde_json::Value) -> Option<Vec<(usize, usize)>> {
    Some(
        moves
            .as_array()?
            .iter()
            .filter_map(|m| {
                let (x, y) = m.as_str()?.split_once(',')?;
                Some((x.parse().ok()?, y.parse().ok()?))
            })
            .collect(),
    )
}

/// A match's score for brain 0.
#[derive(Clone, Debug, Serialize)]
pub struct Score {
    /// Games played.
    pub games: usize,
    /// Brain 0's wins, draws and losses.
    pub wins: usize,
    /// Draws.
    pub draws: usize,
    /// Losses.
    pub losses: usize,
    /// Points a game for brain 0 (0..1).
    pub score: f64,
    /// Elo difference of brain 0 over brain 1.
    pub elo: f64,
    /// 95 % interval of the Elo difference.
    pub elo_low: f64,
    /// Upper end.
    pub elo_high: f64,
}

fn elo_of(score: f64) -> f64 {
    let s = score.clamp(1e-4, 1.0 - 1e-4);
    -400.0 * (1.0 / s - 1.0).log10()
}

impl Score {
    /// The score of `records` for brain 0, with the Elo difference and its 95 % interval
    /// (from the games' standard deviation); with no game, the score and Elo are NaN (null in
    /// JSON), not a number read as a result.
    pub fn of(records: &[GameRecord]) -> Score {
        let games = records.len();
        if games == 0 {
            return Score {
                games,
                wins: 0,
                draws: 0,
                losses: 0,
                score: f64::NAN,
                elo: f64::NAN,
                elo_low: f64::NAN,
                elo_high: f64::NAN,
            };
        }
        let wins = records.iter().filter(|r| r.winner == Some(0)).count();
        let losses = records.iter().filter(|r| r.winner == Some(1)).count();
        let draws = games - wins - losses;
        let n = games.max(1) as f64;
        let score = (wins as f64 + draws as f64 / 2.0) / n;
        let variance = records
            .iter()
            .map(|r| {
                let points = match r.winner {
                    Some(0) => 1.0,
                    Some(_) => 0.0,
                    None => 0.5,
                };
                (points - score) * (points - score)
            })
            .sum::<f64>()
            / n;
        let margin = 1.96 * (variance / n).sqrt();
        Score {
            games,
            wins,
            draws,
            losses,
            score,
            elo: elo_of(score),
            elo_low: elo_of(score - margin),
            elo_high: elo_of(score + margin),
        }
    }
}

/// Parses an openings text: one opening a line, stones `dx,dy` from the centre separated by
/// spaces, black first; `#` starts a comment.
pub fn parse_openings(text: &str) -> Result<Vec<Vec<(i64, i64)>>, String> {
    let mut openings = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut stones = Vec::new();
        for stone in line.split_whitespace() {
            let (dx, dy) = stone
                .split_once(',')
                .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
                .ok_or_else(|| format!("line {}: '{stone}' is not dx,dy", number + 1))?;
            stones.push((dx, dy));
        }
        openings.push(stones);
    }
    if openings.is_empty() {
        return Err("no openings".into());
    }
    Ok(openings)
}

/// Checks that every opening fits a `size`×`size` board (its stones on the board, no cell
/// twice), so that a match does not score an opening it cannot play.
pub fn check_openings(openings: &[Vec<(i64, i64)>], size: usize) -> Result<(), String> {
    let centre = (size / 2) as i64;
    for (index, opening) in openings.iter().enumerate() {
        for (k, &(dx, dy)) in opening.iter().enumerate() {
            let (x, y) = (centre + dx, centre + dy);
            if !(0..size as i64).contains(&x) || !(0..size as i64).contains(&y) {
                return Err(format!(
                    "opening {} ({dx},{dy}) does not fit a {size}x{size} board (the classic \
                     openings fit any board from 5x5)",
                    index + 1
                ));
            }
            if opening[..k].contains(&(dx, dy)) {
                return Err(format!(
                    "opening {} puts two stones on {dx},{dy}",
                    index + 1
                ));
            }
        }
    }
    Ok(())
}

/// A running brain.
struct Brain {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
    last_answer: Instant,
    settle: Duration,
    command: String,
}

impl Brain {
    fn start(command: &str, settle: Duration) -> Result<Brain, String> {
        let mut command_line = Command::new("sh");
        command_line.arg("-c").arg(command);
        // A brain runs in its own process group, so that Ctrl-C at a terminal stops the match
        // (which then ends its brains) rather than killing the brains mid-game, which would
        // read as forfeits.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command_line, 0);
        let mut child = command_line
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start '{command}': {e}"))?;
        let input = child.stdin.take().ok_or("no stdin")?;
        let output = child.stdout.take().ok_or("no stdout")?;
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Brain {
            child,
            input,
            lines,
            last_answer: Instant::now(),
            settle,
            command: command.to_string(),
        })
    }

    /// How the brain's process ended ("exited (signal: 9 (SIGKILL))"), waiting up to 200 ms
    /// for it after its output closed; "exited" when it is still running or cannot be asked.
    fn exit_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(200);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("exited ({status})"),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => return "exited".to_string(),
            }
        }
    }

    /// Sends lines, after the settle time since the brain's last answer.
    fn send(&mut self, lines: &[String]) -> Result<(), String> {
        let since = self.last_answer.elapsed();
        if since < self.settle {
            std::thread::sleep(self.settle - since);
        }
        for line in lines {
            writeln!(self.input, "{line}")
                .map_err(|e| format!("'{}' closed its input: {e}", self.command))?;
        }
        self.input.flush().map_err(|e| e.to_string())
    }

    /// The next answer line that is not a message, within `limit`.
    fn answer(&mut self, limit: Duration) -> Result<String, Ending> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let line = line.trim().to_string();
                    let upper = line.to_ascii_uppercase();
                    // ERROR lines answer a command the brain did not take (an INFO it
                    // does not know); a move request that fails times out instead.
                    if line.is_empty()
                        || ["MESSAGE", "DEBUG", "INFO", "SUGGEST", "ERROR"]
                            .iter()
                            .any(|w| upper.starts_with(w))
                    {
                        continue;
                    }
                    self.last_answer = Instant::now();
                    return Ok(line);
                }
                Err(RecvTimeoutError::Timeout) => return Err(Ending::Time),
                Err(RecvTimeoutError::Disconnected) => return Err(Ending::Crash),
            }
        }
    }
}

impl Drop for Brain {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "END");
        let _ = self.input.flush();
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether the stone just placed at `cell` wins under `rule`.
fn wins(board: &Board, cell: Cell) -> bool {
    board.wins_at(cell)
}

/// Plays game `game` of the match; `None` when `cancel` is set before the game ends (an
/// unfinished game is not scored, nor a brain's failure once the match is being stopped).
pub fn play_game(options: &MatchOptions, game: usize, cancel: &AtomicBool) -> Option<GameRecord> {
    let opening_index = (game / 2) % options.openings.len();
    let black = game % 2; // brain 0 is black in even games
    let mut record = GameRecord {
        game,
        opening: opening_index,
        black,
        winner: None,
        ending: Ending::Draw,
        detail: None,
        moves: Vec::new(),
        ms: Vec::new(),
    };
    let forfeit = |record: &mut GameRecord, loser: usize, ending: Ending, detail: String| {
        record.winner = Some(1 - loser);
        record.ending = ending;
        record.detail = Some(detail);
    };
    let mut board = match Board::new(options.size, options.size, options.rule) {
        Ok(board) => board,
        Err(why) => {
            record.detail = Some(why);
            return Some(record);
        }
    };
    let centre = (options.size / 2) as i64;
    for &(dx, dy) in &options.openings[opening_index] {
        let Some(cell) = board.checked_cell(centre + dx, centre + dy) else {
            record.detail = Some(format!("opening {opening_index} does not fit the board"));
            return Some(record);
        };
        if board.at(cell) != EMPTY {
            record.detail = Some(format!("opening {opening_index} repeats a cell"));
            return Some(record);
        }
        let color = board.side_to_move();
        board.place(cell, color);
        let (x, y) = board.xy(cell);
        record.moves.push(format!("{x},{y}"));
        record.ms.push(0);
    }
    let settle = Duration::from_millis(options.settle_ms);
    let mut brains = Vec::new();
    for (index, command) in options.engines.iter().enumerate() {
        match Brain::start(command, settle) {
            Ok(brain) => brains.push(brain),
            Err(why) => {
                forfeit(&mut record, index, Ending::Crash, why);
                return Some(record);
            }
        }
    }
    let rule_number = match options.rule {
        GameRule::Freestyle => 0,
        GameRule::Standard => 1,
        GameRule::Renju => 4,
    };
    let mut time_left: [Option<i64>; 2] = [
        options.match_ms[0].map(|m| m as i64),
        options.match_ms[1].map(|m| m as i64),
    ];
    for (index, brain) in brains.iter_mut().enumerate() {
        let sent = brain.send(&[format!("START {}", options.size)]);
        let answer = sent
            .map_err(|_| Ending::Crash)
            .and_then(|()| brain.answer(Duration::from_millis(options.start_ms)));
        match answer {
            Ok(line) if line.eq_ignore_ascii_case("OK") => {}
            Ok(line) => {
                forfeit(
                    &mut record,
                    index,
                    Ending::Crash,
                    format!("START answered '{line}'"),
                );
                return Some(record);
            }
            Err(ending) => {
                forfeit(&mut record, index, ending, "no answer to START".into());
                return Some(record);
            }
        }
        let mut info = vec![
            format!("INFO rule {rule_number}"),
            format!("INFO thread_num {}", options.threads[index]),
            "INFO max_memory 268435456".to_string(),
            "INFO game_type 1".to_string(),
        ];
        if let Some(turn) = options.turn_ms[index] {
            info.push(format!("INFO timeout_turn {turn}"));
        }
        match options.match_ms[index] {
            Some(total) => {
                info.push(format!("INFO timeout_match {total}"));
                info.push(format!("INFO time_left {total}"));
            }
            None => info.push("INFO timeout_match 0".to_string()),
        }
        if brain.send(&info).is_err() {
            forfeit(&mut record, index, Ending::Crash, "closed its input".into());
            return Some(record);
        }
    }
    let mut started = [false, false];
    let mut last: Option<Cell> = None;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        if board.is_full() {
            record.ending = Ending::Draw;
            return Some(record);
        }
        let color = board.side_to_move();
        let mover = if color == BLACK { black } else { 1 - black };
        let brain = &mut brains[mover];
        let mut lines = Vec::new();
        if let Some(left) = time_left[mover] {
            lines.push(format!("INFO time_left {left}"));
        }
        if !started[mover] {
            started[mover] = true;
            lines.push("BOARD".into());
            for &cell in board.moves() {
                let (x, y) = board.xy(cell);
                let who = if board.at(cell) == color { 1 } else { 2 };
                lines.push(format!("{x},{y},{who}"));
            }
            lines.push("DONE".into());
        } else if let Some(cell) = last {
            let (x, y) = board.xy(cell);
            lines.push(format!("TURN {x},{y}"));
        }
        if brain.send(&lines).is_err() {
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            forfeit(&mut record, mover, Ending::Crash, "closed its input".into());
            return Some(record);
        }
        let sent = Instant::now();
        let mut limit = options.turn_ms[mover].unwrap_or(u64::MAX / 4);
        if let Some(left) = time_left[mover] {
            limit = limit.min(left.max(0) as u64);
        }
        // A brain's first move may include its start-up (tables, hash memory).
        let grace = if board.stones() < options.openings[opening_index].len() + 2 {
            options.grace_ms.max(options.start_ms)
        } else {
            options.grace_ms
        };
        let limit = Duration::from_millis(limit.saturating_add(grace));
        let answer = brain.answer(limit);
        let took = sent.elapsed();
        let line = match answer {
            Ok(line) => line,
            Err(_) if cancel.load(Ordering::Relaxed) => return None,
            Err(ending) => {
                let what = if ending == Ending::Time {
                    format!("no move within {} ms", limit.as_millis())
                } else {
                    brain.exit_status()
                };
                forfeit(&mut record, mover, ending, what);
                return Some(record);
            }
        };
        if let Some(left) = time_left[mover].as_mut() {
            *left -= took.as_millis() as i64;
            if *left < -(options.grace_ms as i64) {
                forfeit(&mut record, mover, Ending::Time, "out of match time".into());
                return Some(record);
            }
        }
        let cell = line
            .split_once(',')
            .and_then(|(a, b)| Some((a.trim().parse::<i64>().ok()?, b.trim().parse::<i64>().ok()?)))
            .and_then(|(x, y)| board.checked_cell(x, y).map(|c| (c, x, y)));
        let Some((cell, x, y)) = cell else {
            forfeit(
                &mut record,
                mover,
                Ending::Crash,
                format!("answered '{line}'"),
            );
            return Some(record);
        };
        if board.at(cell) != EMPTY {
            forfeit(
                &mut record,
                mover,
                Ending::Illegal,
                format!("{x},{y} is occupied"),
            );
            return Some(record);
        }
        if color == BLACK && board.is_forbidden(cell) {
            forfeit(
                &mut record,
                mover,
                Ending::Illegal,
                format!("{x},{y} is forbidden"),
            );
            return Some(record);
        }
        board.place(cell, color);
        record.moves.push(format!("{x},{y}"));
        record.ms.push(took.as_millis() as u64);
        last = Some(cell);
        if wins(&board, cell) {
            record.winner = Some(mover);
            record.ending = Ending::Five;
            return Some(record);
        }
        let _ = WHITE;
    }
}

/// Plays the match, `concurrency` games at once; `each` sees every finished game.
pub fn play_match(
    options: &MatchOptions,
    cancel: &AtomicBool,
    each: &(dyn Fn(&GameRecord) + Sync),
) -> Vec<GameRecord> {
    let next = Arc::new(Mutex::new(0usize));
    let records = Arc::new(Mutex::new(Vec::new()));
    std::thread::scope(|scope| {
        for _ in 0..options.concurrency.max(1) {
            let next = Arc::clone(&next);
            let records = Arc::clone(&records);
            scope.spawn(move || {
                loop {
                    if cancel.load(Ordering::Relaxed) {
                        return;
                    }
                    let game = {
                        let mut next = next.lock().unwrap_or_else(|e| e.into_inner());
                        let game = *next;
                        *next += 1;
                        game
                    };
                    if game >= options.games {
                        return;
                    }
                    let Some(record) = play_game(options, game, cancel) else {
                        return;
                    };
                    each(&record);
                    records
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(record);
                }
            });
        }
    });
    let mut records = std::mem::take(&mut *records.lock().unwrap_or_else(|e| e.into_inner()));
    records.sort_by_key(|r| r.game);
    records
}

/// The 26 openings as offsets: the centre (black), a second stone beside it (direct) or
/// diagonal to it (indirect), and a third black stone in the central 5×5, one of each pair
/// of mirror images. `OPENINGS` holds this list; a test keeps them equal.
pub fn classic_openings() -> Vec<Vec<(i64, i64)>> {
    let mut openings = Vec::new();
    for (second, mirror) in [
        (
            (0i64, -1i64),
            (|(x, y): (i64, i64)| (-x, y)) as fn((i64, i64)) -> (i64, i64),
        ),
        ((1, -1), |(x, y): (i64, i64)| (-y, -x)),
    ] {
        let mut seen = Vec::new();
        for dy in -2..=2 {
            for dx in -2..=2 {
                let third = (dx, dy);
                if third == (0, 0) || third == second || seen.contains(&mirror(third)) {
                    continue;
                }
                seen.push(third);
                openings.push(vec![(0, 0), second, third]);
            }
        }
    }
    openings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A brain (a shell script) that starts, then exits with status 3 when asked for a move.
    const EXITS_ON_MOVE: &str = "while read l; do case \"$l\" in START*) echo OK;; \
         DONE*|BEGIN*|TURN*) exit 3;; esac; done";

    fn two(engine: &str, games: usize) -> MatchOptions {
        MatchOptions {
            engines: [engine.to_string(), engine.to_string()],
            games,
            turn_ms: [Some(2_000); 2],
            match_ms: [None; 2],
            rule: GameRule::Freestyle,
            size: 15,
            openings: classic_openings(),
            concurrency: 1,
            threads: [1; 2],
            grace_ms: 1_000,
            settle_ms: 0,
            start_ms: 5_000,
        }
    }

    #[test]
    fn a_brain_that_exits_forfeits_with_its_exit_status() {
        let never = AtomicBool::new(false);
        let record = play_game(&two(EXITS_ON_MOVE, 1), 0, &never).expect("not cancelled");
        assert_eq!(record.ending, Ending::Crash);
        // The opening's three stones end with black's, so white (brain 1 in game 0) is asked
        // first, and forfeits.
        assert_eq!(record.winner, Some(0));
        let detail = record.detail.unwrap_or_default();
        assert!(detail.contains("exit status: 3"), "{detail}");
    }

    #[test]
    fn a_cancelled_match_scores_no_unfinished_game() {
        // The flag is set as Ctrl-C sets it; a brain failing after it is not a forfeit.
        let cancel = AtomicBool::new(true);
        assert!(play_game(&two(EXITS_ON_MOVE, 1), 0, &cancel).is_none());
        let seen = Mutex::new(0);
        let records = play_match(&two(EXITS_ON_MOVE, 4), &cancel, &|_| {
            *seen.lock().unwrap_or_else(|e| e.into_inner()) += 1
        });
        assert!(records.is_empty());
        assert_eq!(*seen.lock().unwrap_or_else(|e| e.into_inner()), 0);
    }

    #[test]
    fn the_shipped_openings_are_the_26_classic_ones() {
        let shipped = parse_openings(OPENINGS).unwrap();
        assert_eq!(shipped, classic_openings());
        assert_eq!(shipped.len(), 26);
    }

    #[test]
    fn the_balanced_openings_are_26_distinct_three_stone_ones() {
        let balanced = parse_openings(BALANCED_OPENINGS).unwrap();
        assert_eq!(balanced.len(), 26);
        type Symmetry = fn((i64, i64)) -> (i64, i64);
        let symmetries: [Symmetry; 8] = [
            |(x, y)| (x, y),
            |(x, y)| (-x, y),
            |(x, y)| (x, -y),
            |(x, y)| (-x, -y),
            |(x, y)| (y, x),
            |(x, y)| (-y, x),
            |(x, y)| (y, -x),
            |(x, y)| (-y, -x),
        ];
        let mut seen = std::collections::HashSet::new();
        for opening in &balanced {
            assert_eq!(opening.len(), 3);
            assert_eq!(opening[0], (0, 0));
            assert!(
                opening[1] != opening[0] && opening[2] != opening[0] && opening[2] != opening[1]
            );
            assert!(opening.iter().all(|&(x, y)| x.abs() <= 4 && y.abs() <= 4));
            let image = |f: Symmetry| opening.iter().map(|&s| f(s)).collect::<Vec<_>>();
            let canonical = symmetries.iter().map(|&f| image(f)).min().unwrap();
            assert!(seen.insert(canonical), "{opening:?} is another's image");
        }
    }

    #[test]
    fn no_game_has_no_score() {
        let score = Score::of(&[]);
        assert_eq!(score.games, 0);
        assert!(score.score.is_nan() && score.elo.is_nan());
        let json = serde_json::to_value(&score).unwrap_or_default();
        assert!(json["elo"].is_null() && json["score"].is_null(), "{json}");
    }

    #[test]
    fn elo_and_interval() {
        let record = |winner| GameRecord {
            game: 0,
            opening: 0,
            black: 0,
            winner,
            ending: Ending::Five,
            detail: None,
            moves: vec![],
            ms: vec![],
        };
        let mut records = vec![record(Some(0)); 30];
        records.extend(vec![record(Some(1)); 10]);
        let score = Score::of(&records);
        assert_eq!((score.wins, score.losses, score.draws), (30, 10, 0));
        assert!((score.score - 0.75).abs() < 1e-9);
        assert!((score.elo - 190.8).abs() < 0.5, "{}", score.elo);
        assert!(score.elo_low < score.elo && score.elo < score.elo_high);
        let bad = parse_openings("0,0 1,x");
        assert!(bad.unwrap_err().contains("line 1"));
        let balanced = parse_openings(BALANCED_OPENINGS).unwrap();
        assert!(check_openings(&balanced, 9).is_ok());
        assert!(
            check_openings(&balanced, 7)
                .unwrap_err()
                .contains("does not fit a 7x7")
        );
        let twice = parse_openings("0,0 1,1 0,0").unwrap();
        assert!(
            check_openings(&twice, 15)
                .unwrap_err()
                .contains("two stones")
        );
    }
}
