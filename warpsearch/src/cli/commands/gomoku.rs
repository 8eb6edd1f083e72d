//! `warpsearch gomoku`: threat points of a position.

use crate::cli::*;

pub(crate) fn run_gomoku(args: GomokuArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    match args.action {
        Some(GomokuAction::Vcf(vcf)) => return run_vcf(vcf, cancel),
        Some(GomokuAction::Brain(brain)) => {
            let settings = gomoku::engine::protocol::Settings {
                nodes: brain.nodes,
                threads: brain.threads,
                turn_cap_ms: brain.max_ms,
                messages: !brain.quiet,
                random: brain.random,
            };
            gomoku::engine::protocol::run(
                settings,
                std::io::stdin().lock(),
                std::io::stdout().lock(),
            )
            .map_err(|source| Error::Io {
                path: "standard output".into(),
                source,
            })?;
            return Ok(0);
        }
        Some(GomokuAction::Match(args)) => return run_match(args, cancel),
        Some(GomokuAction::Vct(args)) => return run_vct(args),
        None => {}
    }
    let text = read_input(&args.input, MAX_GOMOKU_INPUT)?;
    let Some(rule) = line_table_rule(args.rule, dimensions(&text, args.size)) else {
        return window_threat_points(&args, &text);
    };
    let position = gomoku::parse::parse(&text)
        .map_err(|e| Error::InvalidArgument(format!("{}: {e}", args.input)))?;
    load_table(rule);
    let board = board_of(&position, rule).map_err(Error::InvalidArgument)?;
    let [black, white] = board.both_threats();
    if cancel.load(Ordering::SeqCst) {
        return Err(Error::Interrupted);
    }
    if args.json {
        let list = |t: &gomoku::Threats| t.iter().collect::<Vec<_>>();
        out!(
            "{}",
            serde_json::json!({ "rule": args.rule, "black": list(&black), "white": list(&white) })
        );
        return Ok(0);
    }
    out!(
        "   {}",
        (0..15).map(|x| format!("{x:>3}")).collect::<String>()
    );
    for y in 0..15 {
        let row: String = (0..15)
            .map(|x| {
                let mark = match (board.get(x, y), black.at(x, y), white.at(x, y)) {
                    (Some(Color::Black), _, _) => 'X',
                    (Some(Color::White), _, _) => 'O',
                    (None, Some(_), Some(_)) => '*',
                    (None, Some(Kind::Five), None) => 'F',
                    (None, Some(Kind::OpenFour), None) => 'f',
                    (None, None, Some(Kind::Five)) => 'G',
                    (None, None, Some(Kind::OpenFour)) => 'g',
                    (None, None, None) => '.',
                };
                format!("  {mark}")
            })
            .collect();
        out!("{y:>2} {row}");
    }
    let describe = |name: &str, threats: &gomoku::Threats| -> String {
        let points: Vec<String> = threats
            .iter()
            .map(|t| {
                format!(
                    "({},{}) {}",
                    t.x,
                    t.y,
                    if t.kind == Kind::Five {
                        "five"
                    } else {
                        "open-four"
                    }
                )
            })
            .collect();
        format!(
            "{name}: {}",
            if points.is_empty() {
                "no threat points".to_string()
            } else {
                points.join(", ")
            }
        )
    };
    out!(
        "rule: {:?}. X/O stones; F/f black five/open-four point; G/g white; * both.",
        rule
    );
    out!("{}", describe("black", &black));
    out!("{}", describe("white", &white));
    Ok(0)
}

/// The 15-line tables' rule for a position they can read (15×15, freestyle or standard); None
/// when the engine's window tables must read it.
fn line_table_rule(rule: GameRule, (width, height): (usize, usize)) -> Option<Rule> {
    match (rule, width, height) {
        (GameRule::Freestyle, 15, 15) => Some(Rule::Freestyle),
        (GameRule::Standard, 15, 15) => Some(Rule::Standard),
        _ => None,
    }
}

/// The board a position's text is on: a move list's is `size`×`size`, a grid's its own (width
/// of its first row, number of rows).
fn dimensions(text: &str, size: usize) -> (usize, usize) {
    if text.contains(',') {
        return (size, size);
    }
    let rows: Vec<usize> = text
        .lines()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).count())
        .filter(|&n| n > 0)
        .collect();
    (rows.first().copied().unwrap_or(0), rows.len())
}

/// `gomoku FILE` on a board the 15-line tables do not cover: the window tables' threat points.
fn window_threat_points(args: &GomokuArgs, text: &str) -> Result<i32, Error> {
    use gomoku::engine::{BLACK, ThreatPoint, WHITE};
    let mut board = engine_position(text, args.rule, args.size)
        .map_err(|e| Error::InvalidArgument(format!("{}: {e}", args.input)))?;
    let (width, height) = (board.width(), board.height());
    let mut points = [Vec::new(), Vec::new()];
    let mut marks = vec![vec!['.'; width]; height];
    for (y, row) in marks.iter_mut().enumerate() {
        for (x, mark) in row.iter_mut().enumerate() {
            let cell = board.cell(x, y);
            let (black, white) = (
                board.threat_point(cell, BLACK),
                board.threat_point(cell, WHITE),
            );
            *mark = match (board.at(cell), black, white) {
                (BLACK, _, _) => 'X',
                (WHITE, _, _) => 'O',
                (_, Some(ThreatPoint::Forbidden), _) => '#',
                (_, Some(_), Some(_)) => '*',
                (_, Some(ThreatPoint::Five), None) => 'F',
                (_, Some(ThreatPoint::OpenFour), None) => 'f',
                (_, None, Some(ThreatPoint::Five)) => 'G',
                (_, None, Some(_)) => 'g',
                _ => '.',
            };
            for (side, point) in [black, white].into_iter().enumerate() {
                if let Some(kind) = point {
                    points[side].push((x, y, kind));
                }
            }
        }
    }
    if args.json {
        let list = |side: &Vec<(usize, usize, ThreatPoint)>| -> Vec<serde_json::Value> {
            side.iter()
                .map(|&(x, y, kind)| serde_json::json!({"x": x, "y": y, "kind": kind}))
                .collect()
        };
        out!(
            "{}",
            serde_json::json!({"rule": args.rule, "width": width, "height": height,
                "black": list(&points[0]), "white": list(&points[1])})
        );
        return Ok(0);
    }
    out!(
        "   {}",
        (0..width).map(|x| format!("{x:>3}")).collect::<String>()
    );
    for (y, row) in marks.iter().enumerate() {
        let row: String = row.iter().map(|m| format!("  {m}")).collect();
        out!("{y:>2} {row}");
    }
    let describe = |name: &str, side: &Vec<(usize, usize, ThreatPoint)>| {
        let listed: Vec<String> = side
            .iter()
            .map(|&(x, y, kind)| {
                let kind = match kind {
                    ThreatPoint::Five => "five",
                    ThreatPoint::OpenFour => "open-four",
                    ThreatPoint::Forbidden => "forbidden",
                };
                format!("({x},{y}) {kind}")
            })
            .collect();
        if listed.is_empty() {
            format!("{name}: no threat points")
        } else {
            format!("{name}: {}", listed.join(", "))
        }
    };
    out!(
        "rule: {:?}, {width}×{height} (window tables). X/O stones; F/f black five/open-four point; G/g white; * both; # forbidden to black.",
        args.rule
    );
    out!("{}", describe("black", &points[0]));
    out!("{}", describe("white", &points[1]));
    Ok(0)
}

/// Reads FILE (or standard input for `-`) as UTF-8 text of at most `limit` bytes.
fn read_input(input: &str, limit: u64) -> Result<String, Error> {
    use std::io::Read as _;
    let io = |source| Error::Io {
        path: input.to_string(),
        source,
    };
    let mut bytes = Vec::new();
    if input == "-" {
        std::io::stdin().take(limit + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(input).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
    }
    .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(Error::InvalidArgument(format!(
            "{input}: more than {} KB of input; a position is a 15-line grid or a move list of at most 225 moves",
            limit / 1024
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::InvalidArgument(format!(
            "{input}: not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The rule's table from the disk cache (or built and cached): a second call starts at once.
fn load_table(rule: Rule) {
    let dir = gomoku::cache::default_dir();
    if let (_, Some(gomoku::cache::Outcome::BuiltWithoutCache(why))) =
        gomoku::table::Table::get_cached(rule, dir.as_deref())
    {
        eprintln!("note: gomoku table cache: {why}");
    }
}

/// A board holding a parsed position.
fn board_of(position: &gomoku::parse::Position, rule: Rule) -> Result<Board, String> {
    let mut board = Board::new(rule);
    for (y, row) in position.iter().enumerate() {
        for (x, stone) in row.iter().enumerate() {
            if let Some(color) = stone {
                board.make(x, y, *color).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(board)
}

fn side_name(color: Color) -> &'static str {
    match color {
        Color::Black => "x",
        Color::White => "o",
    }
}

/// The most input `gomoku vcf --batch` reads.
const MAX_BATCH_INPUT: u64 = 1 << 30;

/// One position's answer: its JSON object and its text line.
struct Solved {
    json: serde_json::Value,
    text: String,
}

/// Solves one position for `side` (its turn by the counts when `None`).
fn solve_one(
    position: &gomoku::parse::Position,
    side: Option<Color>,
    rule: Rule,
    limits: gomoku::vcf::Limits,
) -> Result<Solved, String> {
    use gomoku::vcf::{self, Verdict};
    let board = board_of(position, rule)?;
    let side = side.unwrap_or_else(|| vcf::side_to_move(&board));
    let started = std::time::Instant::now();
    let report = vcf::search(&board, side, limits).map_err(|e| e.to_string())?;
    let seconds = started.elapsed().as_secs_f64();
    let name = side_name(side);
    let (json, text) = match &report.verdict {
        Verdict::Win(sequence) => {
            let moves: Vec<[usize; 2]> = sequence.moves.iter().map(|&(x, y)| [x, y]).collect();
            let listed: Vec<String> = sequence
                .moves
                .iter()
                .map(|(x, y)| format!("{x},{y}"))
                .collect();
            (
                serde_json::json!({"side": name, "vcf": true, "moves": moves, "nodes": report.nodes, "seconds": seconds}),
                format!(
                    "{name} wins by VCF in {} attacker moves: {} ({} nodes, {})",
                    sequence.attacker_moves(),
                    listed.join(" "),
                    report.nodes,
                    seconds_text(seconds)
                ),
            )
        }
        other => {
            let reason = if *other == Verdict::NoneExists {
                "none exists"
            } else {
                "limit reached"
            };
            (
                serde_json::json!({"side": name, "vcf": false, "reason": reason, "nodes": report.nodes, "seconds": seconds}),
                format!(
                    "{name} has no VCF: {reason} ({} nodes, {})",
                    report.nodes,
                    seconds_text(seconds)
                ),
            )
        }
    };
    Ok(Solved { json, text })
}

fn seconds_text(value: f64) -> String {
    crate::cli::output::seconds(value)
}

/// One line of a batch file as a position: a move list `x,y x,y …` or the 225 cells of a grid.
fn batch_position(line: &str) -> Result<gomoku::parse::Position, String> {
    if line.contains(',') {
        let moves: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || c == ';')
            .filter(|m| !m.is_empty())
            .collect();
        gomoku::parse::parse_moves(&moves.join("\n")).map_err(|e| e.to_string())
    } else {
        let cells: Vec<char> = line.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.len() != 225 {
            return Err(format!(
                "a grid line needs 225 cells (. x o); found {}",
                cells.len()
            ));
        }
        let rows: Vec<String> = cells.chunks(15).map(|r| r.iter().collect()).collect();
        gomoku::parse::parse_grid(&rows.join("\n")).map_err(|e| e.to_string())
    }
}

fn run_vcf(args: VcfArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    let limits = gomoku::vcf::Limits {
        depth: args.depth.max(1),
        nodes: args.nodes.max(1),
    };
    let side = args.side.map(|side| match side {
        Side::X => Color::Black,
        Side::O => Color::White,
    });
    if let Some(batch) = &args.batch {
        return match line_table_rule(args.rule, (args.size, args.size)) {
            Some(rule) => run_vcf_batch(batch, &args, rule, limits, cancel),
            None => run_window_vcf_batch(batch, &args, cancel),
        };
    }
    let _ = cancel;
    let text = read_input(&args.input, MAX_GOMOKU_INPUT)?;
    let Some(rule) = line_table_rule(args.rule, dimensions(&text, args.size)) else {
        let mut board = engine_position(&text, args.rule, args.size)
            .map_err(|e| Error::InvalidArgument(format!("{}: {e}", args.input)))?;
        if let Some(color) = side {
            board.set_to_move(engine_color(color));
        }
        let solved = window_vcf(&board, &args);
        out!(
            "{}",
            if args.common.json {
                solved.json.to_string()
            } else {
                solved.text
            }
        );
        return Ok(0);
    };
    let position = gomoku::parse::parse(&text)
        .map_err(|e| Error::InvalidArgument(format!("{}: {e}", args.input)))?;
    load_table(rule);
    let solved = solve_one(&position, side, rule, limits)
        .map_err(|e| Error::InvalidArgument(format!("{}: {e}", args.input)))?;
    if args.common.json {
        out!("{}", solved.json);
    } else {
        out!("{}", solved.text);
    }
    Ok(0)
}

/// A batch line as a position and its attacker, or why it cannot be searched.
type Readable = Result<(Board, Color), String>;

/// The engine's colour of a 15-line board colour.
fn engine_color(color: Color) -> u8 {
    match color {
        Color::Black => gomoku::engine::BLACK,
        Color::White => gomoku::engine::WHITE,
    }
}

/// The engine's VCF of one position for its side to move: the first move of a win, or none
/// found within --depth and --nodes (the engine's VCF does not prove that none exists).
fn window_vcf(board: &gomoku::engine::Board, args: &VcfArgs) -> Solved {
    let side = if board.side_to_move() == gomoku::engine::BLACK {
        "x"
    } else {
        "o"
    };
    let started = std::time::Instant::now();
    let (found, nodes) = gomoku::engine::find_vcf(board, args.depth.max(1), args.nodes.max(1));
    let seconds = started.elapsed().as_secs_f64();
    match found.map(|cell| board.xy(cell)) {
        Some((x, y)) => Solved {
            json: serde_json::json!({"side": side, "vcf": true, "first": [x, y], "nodes": nodes,
                "seconds": seconds, "width": board.width(), "height": board.height()}),
            text: format!(
                "{side} wins by VCF: first move {x},{y} ({nodes} nodes, {})",
                seconds_text(seconds)
            ),
        },
        None => Solved {
            json: serde_json::json!({"side": side, "vcf": false, "reason": "none found", "nodes": nodes,
                "seconds": seconds, "width": board.width(), "height": board.height()}),
            text: format!(
                "{side}: no VCF found within {} attacker moves and {} nodes ({nodes} nodes, {})",
                args.depth,
                args.nodes,
                seconds_text(seconds)
            ),
        },
    }
}

/// A batch line that could not be searched: as JSON or text.
fn print_line_error(json: bool, number: usize, why: &str) -> Result<(), Error> {
    if json {
        out!("{}", serde_json::json!({"line": number, "error": why}));
    } else {
        out!("line {number}: error: {why}");
    }
    Ok(())
}

/// `gomoku vcf --batch` on boards the 15-line solver does not cover (renju, sides other than
/// 15): the engine's VCF on every CPU thread.
fn run_window_vcf_batch(
    batch: &str,
    args: &VcfArgs,
    cancel: Arc<AtomicBool>,
) -> Result<i32, Error> {
    use rayon::prelude::*;
    if args.common.backend == BackendChoice::Gpu {
        return Err(Error::InvalidArgument(format!(
            "the GPU batch solves 15×15 freestyle and standard positions; {}×{} under {:?} runs on the CPU (--backend cpu)",
            args.size, args.size, args.rule
        )));
    }
    let text = read_input(batch, MAX_BATCH_INPUT)?;
    let cells = args.size * args.size;
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.common.threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::InvalidArgument(format!("--threads: {e}")))?;
    let started = std::time::Instant::now();
    let answers: Vec<Result<Solved, String>> = pool.install(|| {
        lines
            .par_iter()
            .map(|&(_, line)| {
                if cancel.load(Ordering::Relaxed) {
                    return Err("interrupted".to_string());
                }
                let position = if line.contains(',') {
                    line.to_string()
                } else {
                    let grid: Vec<char> = line.chars().filter(|c| !c.is_whitespace()).collect();
                    if grid.len() != cells {
                        return Err(format!(
                            "a grid line needs {cells} cells (. x o) for --size {}; found {}",
                            args.size,
                            grid.len()
                        ));
                    }
                    let rows: Vec<String> =
                        grid.chunks(args.size).map(|r| r.iter().collect()).collect();
                    rows.join("\n")
                };
                let board =
                    engine_position(&position, args.rule, args.size).map_err(|e| e.to_string())?;
                Ok(window_vcf(&board, args))
            })
            .collect()
    });
    if cancel.load(Ordering::SeqCst) {
        return Err(Error::Interrupted);
    }
    let seconds = started.elapsed().as_secs_f64();
    let (mut wins, mut errors) = (0u64, 0u64);
    for (&(number, _), answer) in lines.iter().zip(&answers) {
        match answer {
            Ok(solved) => {
                wins += u64::from(solved.json["vcf"] == true);
                if args.common.json {
                    let mut value = solved.json.clone();
                    value["line"] = number.into();
                    out!("{value}");
                } else {
                    out!("line {number}: {}", solved.text);
                }
            }
            Err(why) => {
                errors += 1;
                print_line_error(args.common.json, number, why)?;
            }
        }
    }
    let count = lines.len() as u64 - errors;
    let rate = if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    };
    if args.common.json {
        out!(
            "{}",
            serde_json::json!({"positions": count, "vcf": wins, "none_found": count - wins,
                "errors": errors, "seconds": seconds, "positions_per_second": rate,
                "backend": "cpu", "threads": pool.current_num_threads()})
        );
    } else {
        out!(
            "{count} positions: {wins} with a VCF, {} without one found, {errors} unreadable; {} on {} CPU threads ({rate:.0} positions a second)",
            count - wins,
            seconds_text(seconds),
            pool.current_num_threads()
        );
    }
    Ok(if errors > 0 { 1 } else { 0 })
}

fn run_vcf_batch(
    batch: &str,
    args: &VcfArgs,
    rule: Rule,
    limits: gomoku::vcf::Limits,
    cancel: Arc<AtomicBool>,
) -> Result<i32, Error> {
    use gomoku::vcf;
    let text = read_input(batch, MAX_BATCH_INPUT)?;
    load_table(rule);
    // Each line: a position and its attacker, or why it cannot be searched.
    let lines: Vec<(usize, Readable)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(number, line)| {
            let position = batch_position(line).and_then(|position| {
                let board = board_of(&position, rule)?;
                if let Some(color) = vcf::game_over(&board) {
                    return Err(vcf::VcfError::GameOver(color).to_string());
                }
                let side = vcf::side_to_move(&board);
                Ok((board, side))
            });
            (number, position)
        })
        .collect();
    let positions: Vec<(Board, Color)> = lines
        .iter()
        .filter_map(|(_, p)| p.as_ref().ok().cloned())
        .collect();
    let selected = select(&args.common)?;
    let control = control(&args.common, cancel);
    let started = std::time::Instant::now();
    let answers = gomoku::batch::Batch::new(rule, &positions, limits.depth, limits.nodes)
        .solve(&selected.backend, &control)?;
    let seconds = started.elapsed().as_secs_f64();
    let (mut wins, mut none, mut limit, mut errors, mut nodes) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut answer = answers.iter();
    for (number, position) in &lines {
        let solved = match position {
            Err(why) => {
                errors += 1;
                print_line_error(args.common.json, *number, why)?;
                continue;
            }
            Ok((_, side)) => (side, answer.next()),
        };
        let (side, Some(found)) = solved else {
            return Err(Error::Verification("the batch lost a position".into()));
        };
        nodes += found.nodes;
        let name = side_name(*side);
        let moves: Vec<[usize; 2]> = found.moves.iter().map(|&(x, y)| [x, y]).collect();
        let vcf = found.verdict == "vcf";
        match found.verdict.as_str() {
            "vcf" => wins += 1,
            "none exists" => none += 1,
            _ => limit += 1,
        }
        if args.common.json {
            let mut value =
                serde_json::json!({"line": number, "side": name, "vcf": vcf, "nodes": found.nodes});
            if vcf {
                value["moves"] = serde_json::json!(moves);
            } else {
                value["reason"] = found.verdict.clone().into();
            }
            out!("{value}");
        } else if vcf {
            let listed: Vec<String> = found
                .moves
                .iter()
                .map(|(x, y)| format!("{x},{y}"))
                .collect();
            out!(
                "line {number}: {name} wins by VCF in {} attacker moves: {}",
                found.moves.len().div_ceil(2),
                listed.join(" ")
            );
        } else {
            out!("line {number}: {name} has no VCF: {}", found.verdict);
        }
    }
    let count = positions.len() as u64;
    let rate = if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    };
    let backend = selected.backend.describe();
    if args.common.json {
        out!(
            "{}",
            serde_json::json!({"positions": count, "vcf": wins, "none": none, "limit_reached": limit,
                "errors": errors, "nodes": nodes, "seconds": seconds, "positions_per_second": rate,
                "backend": selected.backend.kind(), "devices": backend})
        );
    } else {
        out!(
            "{count} positions: {wins} with a VCF, {none} without, {limit} at a limit, {errors} unreadable; {} on {backend} ({rate:.0} positions a second, {nodes} nodes)",
            seconds_text(seconds)
        );
    }
    Ok(if errors > 0 { 1 } else { 0 })
}

/// "A" or "A,B" as one value for each engine.
fn pair_of<T: std::str::FromStr + Copy>(text: &str, what: &str) -> Result<[T; 2], Error> {
    let bad = || {
        Error::InvalidArgument(format!(
            "--{what}: expected a number or two (A,B), not '{text}'"
        ))
    };
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let values: Vec<T> = parts
        .iter()
        .map(|p| p.parse::<T>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    match values[..] {
        [a] => Ok([a, a]),
        [a, b] => Ok([a, b]),
        _ => Err(bad()),
    }
}

fn run_match(args: MatchArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    use gomoku::engine::matches::{self, MatchOptions, Score};
    let [first, second] = args.engines.as_slice() else {
        return Err(Error::InvalidArgument(format!(
            "give --engine exactly twice (got {})",
            args.engines.len()
        )));
    };
    if args.games == 0 {
        return Err(Error::InvalidArgument(
            "--games 0: a match needs at least one game".into(),
        ));
    }
    if !(gomoku::engine::MIN_SIZE..=gomoku::engine::MAX_SIZE).contains(&args.size) {
        return Err(Error::InvalidArgument(format!(
            "--size {}: boards are {} to {}",
            args.size,
            gomoku::engine::MIN_SIZE,
            gomoku::engine::MAX_SIZE
        )));
    }
    let openings_text = match args.openings.as_str() {
        "classic" => matches::OPENINGS.to_string(),
        "balanced" => matches::BALANCED_OPENINGS.to_string(),
        path => read_input(path, 1 << 20)?,
    };
    let openings = matches::parse_openings(&openings_text)
        .and_then(|openings| matches::check_openings(&openings, args.size).map(|()| openings))
        .map_err(|e| Error::InvalidArgument(format!("openings: {e}")))?;
    let turn_ms = match &args.turn_ms {
        Some(text) => pair_of::<u64>(text, "turn-ms")?.map(Some),
        None => [None, None],
    };
    let match_ms = match &args.match_ms {
        Some(text) => pair_of::<u64>(text, "match-ms")?.map(Some),
        None => [None, None],
    };
    if turn_ms == [None, None] && match_ms == [None, None] {
        return Err(Error::InvalidArgument(
            "give --turn-ms or --match-ms (a game needs a clock)".into(),
        ));
    }
    let options = MatchOptions {
        engines: [first.clone(), second.clone()],
        games: args.games,
        turn_ms,
        match_ms,
        rule: args.rule,
        size: args.size,
        openings,
        concurrency: args.concurrency.max(1),
        threads: pair_of::<usize>(&args.threads, "threads")?,
        grace_ms: args.grace_ms,
        settle_ms: args.settle_ms,
        start_ms: 30_000,
    };
    let out = match &args.out {
        Some(path) => Some(std::sync::Mutex::new(std::fs::File::create(path).map_err(
            |source| Error::Io {
                path: path.clone(),
                source,
            },
        )?)),
        None => None,
    };
    let progress = indicatif::ProgressBar::new(args.games as u64);
    progress.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let tally = std::sync::Mutex::new(Vec::new());
    let records = matches::play_match(&options, &cancel, &|record| {
        if let Some(out) = &out {
            let mut file = out.lock().unwrap_or_else(|e| e.into_inner());
            let _ = std::io::Write::write_all(
                &mut *file,
                format!("{}\n", serde_json::to_string(record).unwrap_or_default()).as_bytes(),
            );
        }
        let mut tally = tally.lock().unwrap_or_else(|e| e.into_inner());
        tally.push(record.clone());
        let score = Score::of(&tally);
        progress.set_message(format!(
            "+{} ={} -{} ({:.1} %)",
            score.wins,
            score.draws,
            score.losses,
            100.0 * score.score
        ));
        progress.inc(1);
    });
    progress.finish_and_clear();
    if cancel.load(Ordering::SeqCst) {
        eprintln!("interrupted after {} games", records.len());
    }
    let score = Score::of(&records);
    let forfeits: Vec<String> = records
        .iter()
        .filter(|r| !matches!(r.ending, matches::Ending::Five | matches::Ending::Draw))
        .map(|r| {
            format!(
                "game {}: engine {} {:?} ({})",
                r.game,
                r.winner.map_or(0, |w| 2 - w),
                r.ending,
                r.detail.clone().unwrap_or_default()
            )
        })
        .collect();
    if args.json {
        out!(
            "{}",
            serde_json::json!({"score": score, "rule": args.rule, "size": args.size,
                "turn_ms": turn_ms, "match_ms": match_ms, "forfeits": forfeits,
                "engines": [first, second]})
        );
    } else if score.games == 0 {
        out!("{first} vs {second}: no game ended");
    } else {
        out!(
            "{first} vs {second}: +{} ={} -{} in {} games, score {:.1} %, Elo {:+.0} (95 %: {:+.0} to {:+.0})",
            score.wins,
            score.draws,
            score.losses,
            score.games,
            100.0 * score.score,
            score.elo,
            score.elo_low,
            score.elo_high
        );
        for line in &forfeits {
            out!("  {line}");
        }
    }
    Ok(if cancel.load(Ordering::SeqCst) {
        130
    } else {
        0
    })
}

/// A position on the engine's board: a move list (`x,y` a line or separated by spaces, black
/// first) on a `size`×`size` board, or a grid of any size (rows of . x o, spaces ignored, all
/// rows as long). A finished game, an occupied or off-board move and impossible stone counts
/// are errors.
fn engine_position(
    text: &str,
    rule: GameRule,
    size: usize,
) -> Result<gomoku::engine::Board, Error> {
    use gomoku::engine::{BLACK, Board, WHITE};
    if text.contains(',') {
        let mut board = Board::new(size, size, rule)
            .map_err(|e| Error::InvalidArgument(format!("--size {size}: {e}")))?;
        let moves = text
            .split(|c: char| c.is_whitespace() || c == ';')
            .filter(|m| !m.is_empty());
        for (number, text) in moves.enumerate() {
            let bad = |why: String| Error::InvalidArgument(format!("move {}: {why}", number + 1));
            let (x, y) = text
                .split_once(',')
                .and_then(|(x, y)| {
                    Some((
                        x.trim().parse::<usize>().ok()?,
                        y.trim().parse::<usize>().ok()?,
                    ))
                })
                .ok_or_else(|| bad(format!("`{text}` is not x,y")))?;
            if x >= size || y >= size {
                return Err(bad(format!("{x},{y} is off the {size}×{size} board")));
            }
            if board.moves().last().is_some_and(|&c| board.wins_at(c)) {
                return Err(bad(
                    "the game was already over: the move before made five".into()
                ));
            }
            let cell = board.cell(x, y);
            if board.at(cell) != gomoku::engine::EMPTY {
                return Err(bad(format!("{x},{y} is already taken")));
            }
            let color = if number % 2 == 0 { BLACK } else { WHITE };
            board.place(cell, color);
        }
        if board.moves().last().is_some_and(|&c| board.wins_at(c)) {
            return Err(Error::InvalidArgument(
                "the game is already over: the last move made five".into(),
            ));
        }
        return Ok(board);
    }
    let mut rows: Vec<(usize, Vec<u8>)> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let cells: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.is_empty() {
            continue;
        }
        let row = cells
            .chars()
            .map(|c| match c {
                '.' | '+' | '-' => Ok(0),
                'x' | 'X' => Ok(BLACK),
                'o' | 'O' => Ok(WHITE),
                other => Err(Error::InvalidArgument(format!(
                    "line {}: '{other}' is not a cell (. x o)",
                    number + 1
                ))),
            })
            .collect::<Result<Vec<u8>, Error>>()?;
        rows.push((number + 1, row));
    }
    let height = rows.len();
    let width = rows.first().map_or(0, |r| r.1.len());
    if let Some((line, row)) = rows.iter().find(|r| r.1.len() != width) {
        return Err(Error::InvalidArgument(format!(
            "line {line}: {} cells where the first row has {width}",
            row.len()
        )));
    }
    let mut board = Board::new(width, height, rule)
        .map_err(|e| Error::InvalidArgument(format!("a {width}×{height} grid: {e}")))?;
    let mut stones = [Vec::new(), Vec::new()];
    for (y, (_, row)) in rows.iter().enumerate() {
        for (x, &c) in row.iter().enumerate() {
            if c != 0 {
                stones[usize::from(c - 1)].push(board.cell(x, y));
            }
        }
    }
    let (black, white) = (stones[0].len(), stones[1].len());
    if black < white || black > white + 1 {
        return Err(Error::InvalidArgument(format!(
            "{black} black and {white} white stones: black moves first, so black has as many as white or one more"
        )));
    }
    for i in 0..black {
        board.place(stones[0][i], BLACK);
        if let Some(&cell) = stones[1].get(i) {
            board.place(cell, WHITE);
        }
    }
    if board.moves().iter().any(|&c| board.wins_at(c)) {
        return Err(Error::InvalidArgument(
            "the game is already over: the position holds a five".into(),
        ));
    }
    Ok(board)
}

fn run_vct(args: VctArgs) -> Result<i32, Error> {
    let text = read_input(&args.input, MAX_GOMOKU_INPUT)?;
    let board = engine_position(&text, args.rule, args.size)?;
    let side = if board.side_to_move() == gomoku::engine::BLACK {
        "black"
    } else {
        "white"
    };
    let started = std::time::Instant::now();
    let (found, nodes) = if args.proof_numbers {
        gomoku::engine::find_vct_by_numbers(&board, args.depth, args.nodes)
    } else {
        gomoku::engine::find_vct(&board, args.depth, args.nodes)
    };
    let seconds = started.elapsed().as_secs_f64();
    let first = found.map(|cell| board.xy(cell));
    if args.json {
        out!(
            "{}",
            serde_json::json!({"side": side, "rule": args.rule, "vct": first.is_some(),
                "first": first.map(|(x, y)| [x, y]), "nodes": nodes, "seconds": seconds,
                "width": board.width(), "height": board.height()})
        );
    } else {
        match first {
            Some((x, y)) => {
                out!("{side} wins by VCT: first move {x},{y} ({nodes} nodes, {seconds:.3} s)")
            }
            None => out!(
                "no VCT for {side} within {} threats and {} nodes ({nodes} nodes searched)",
                args.depth,
                args.nodes
            ),
        }
    }
    Ok(0)
}
