//! Fits a residual to the Gomoku engine's evaluation at the leaves of its own search (the
//! temporal-difference "leaf" idea): each judged position is searched a few plies, the line the
//! search expects is played out, and the evaluation of the position at its end is fitted to
//! the judge's score of the position searched.
//!
//! ```text
//! cargo run --release -p warpsearch --example fit-eval -- judge --brain pbrain-rapfi \
//!     --ms 100 --count 60000 --workers 2 GAMES.jsonl… > judged.jsonl
//! cargo run --release -p warpsearch --example fit-eval -- [--depth D] [--base FILE] \
//!     judged.jsonl… > residual.txt
//! cargo run --release -p warpsearch --example fit-eval -- rank [--depth D] [--count N] \
//!     [--nodes N] [--from P] [--anchor X] [--base FILE] [--cache FILE] GAMES.jsonl… \
//!     > residual.txt
//! WARPSEARCH_GOMOKU_KNOBS=value_file=residual.txt warpsearch gomoku brain …
//! ```
//!
//! `judge` draws positions from recorded games (`gomoku match --out` files, 15×15 freestyle):
//! every distinct position of 5 to 80 stones (distinct by the sets of black and of white
//! stones), ordered by a hash of those sets, the first `count`; and has a Piskvork brain
//! search each for `ms` milliseconds, `workers` brains at a time, keeping the score and depth
//! it reports in its `MESSAGE … Depth D | Eval E` lines (Rapfi's form; a mate reads `+M9`).
//!
//! A judged position is a line `{"moves": ["x,y", …], "eval": "123"}` (15×15 freestyle, black
//! first; `eval` the judge's score for the side to move, in its units, where ±200 is a clear
//! edge). The model: a cell's value gains a residual for the multiset of its four line
//! patterns (`crossing::multiset_of`, 1,001 of them), so the evaluation of a leaf is the
//! engine's own plus Σ residual × (1.25 × the side to move's cells of that multiset − the
//! other side's). The error is (σ(eval / K) − σ(score / 200))², K fitted first to the engine's
//! own evaluation and then held, so the residual keeps the scale that the search's margins are
//! set in; an L2 pull keeps the residuals small. Full-batch Adam, a fixed number of steps: the
//! same files give the same table. Positions whose number of moves hashes to 0 mod 10 are
//! held out. `--base FILE` fits on top of an earlier residual (run with that residual in
//! `WARPSEARCH_GOMOKU_KNOBS` too, so the leaves are the ones it leads to) and writes the sum.
//!
//! `rank` fits the same residual to a choice instead of a score: it takes the positions before
//! the second engine's moves in `gomoku match --out` files (the teacher, Rapfi in ours; from
//! the fourth stone, moves that took 80–1,100 ms), searches every child (each empty cell
//! within two of a stone) `depth` plies and fits a softmax over the children's leaf values,
//! V / T with T fitted first and held, to the teacher's move (cross-entropy). A position's
//! children are what the search ranks, so a residual that only tells positions apart, as the
//! score fits' large terms on cells of ones and twos did, gains nothing here. Children the
//! short search proves lost take no part; positions with a proven win are left out. The softmax
//! leaves the level of a position's values free, and the search's margins compare values of
//! different positions: `--anchor X` adds X × (the mean change of a position's children's
//! values / T)² to the loss, and `--cache FILE` keeps the searched children for fits that
//! differ only in `--from`, `--anchor` and `--l2`. Games whose moves hash to 0 mod 10 are held
//! out; the held-out share of positions where the best child is the teacher's move goes to
//! standard error, before and after.

use rayon::prelude::*;
use std::collections::HashMap;
use warpsearch::gomoku::engine::crossing::{MULTISETS, multiset_of};
use warpsearch::gomoku::engine::matches::read_moves;
use warpsearch::gomoku::engine::{
    BLACK, Board, EMPTY, GameRule, Limits, Reason, Table, Think, WHITE, principal_variation, think,
};

/// The side to move's share of its own values (the engine's `tempo` of 25 %).
const TEMPO: f64 = 1.25;
/// The judge's score that makes a clear edge.
const JUDGE_SCALE: f64 = 200.0;
const STEPS: usize = 400;
const RATE: f64 = 0.5;

/// One judged position, searched: the engine's evaluation of its leaf for the side to move at
/// the root, the leaf's cell counts by multiset (signed and weighted likewise) and the target.
struct Sample {
    /// Moves from the position searched to its leaf.
    plies: usize,
    eval: f64,
    counts: Vec<(u16, f64)>,
    target: f64,
    held_out: bool,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    match std::env::args().nth(1).as_deref() {
        Some("judge") => return judge(std::env::args().skip(2).collect()),
        Some("rank") => return rank(std::env::args().skip(2).collect()),
        _ => {}
    }
    let mut args = std::env::args().skip(1);
    let (mut depth, mut base, mut files, mut lambda) = (4u32, vec![0i32; MULTISETS], vec![], 1e-6);
    let mut strongest_from = 0usize;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--depth" => depth = args.next().ok_or("--depth D")?.parse()?,
            "--l2" => lambda = args.next().ok_or("--l2 X")?.parse()?,
            "--from" => strongest_from = args.next().ok_or("--from PATTERN")?.parse()?,
            "--base" => base = read_base(&args.next().ok_or("--base FILE")?)?,
            _ => files.push(arg),
        }
    }
    if files.is_empty() {
        return Err(
            "usage: fit-eval [--depth D] [--l2 X] [--base FILE] JUDGED.jsonl… > residual.txt"
                .into(),
        );
    }
    let mut judged = Vec::new();
    for file in &files {
        for line in std::fs::read_to_string(file)?.lines() {
            let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(score) = value["eval"].as_str().and_then(|s| s.parse::<f64>().ok()) else {
                continue;
            };
            let moves = read_moves(&value["moves"]).ok_or("no moves")?;
            judged.push((moves, score));
        }
    }
    eprintln!("{} judged positions", judged.len());
    let samples: Vec<Sample> = judged
        .par_iter()
        .filter_map(|(moves, score)| sample(moves, *score, depth))
        .collect();
    let held = samples.iter().filter(|s| s.held_out).count();
    eprintln!(
        "{} searched to a quiet leaf ({} held out), depth {depth}, {:.2} plies to the leaf on average",
        samples.len(),
        held,
        samples.iter().map(|s| s.plies as f64).sum::<f64>() / samples.len().max(1) as f64
    );
    // K for the engine's own evaluation, by a scan.
    let error_at = |k: f64, train: bool| {
        let (sum, n) = samples
            .iter()
            .filter(|s| s.held_out != train)
            .fold((0.0, 0usize), |(sum, n), s| {
                (sum + (sigmoid(s.eval / k) - s.target).powi(2), n + 1)
            });
        sum / n.max(1) as f64
    };
    let k = (1..=60)
        .map(|i| f64::from(i) * 50.0)
        .min_by(|&a, &b| error_at(a, true).total_cmp(&error_at(b, true)))
        .unwrap_or(600.0);
    eprintln!(
        "K = {k}: error {:.5} (train), {:.5} (held out)",
        error_at(k, true),
        error_at(k, false)
    );
    let free = free_cells(strongest_from);
    let eval_of = |residual: &[f64], s: &Sample| with_residual(s.eval, &s.counts, residual);
    let train: Vec<&Sample> = samples.iter().filter(|s| !s.held_out).collect();
    let error = |residual: &[f64], held_out: bool| {
        let (sum, n) =
            samples
                .iter()
                .filter(|s| s.held_out == held_out)
                .fold((0.0, 0usize), |(sum, n), s| {
                    (
                        sum + (sigmoid(eval_of(residual, s) / k) - s.target).powi(2),
                        n + 1,
                    )
                });
        sum / n.max(1) as f64
    };
    let residual = adam(
        &free,
        lambda,
        train.len(),
        |residual| {
            let mut gradient = vec![0.0f64; MULTISETS];
            for s in &train {
                let p = sigmoid(eval_of(residual, s) / k);
                let g = 2.0 * (p - s.target) * p * (1.0 - p) / k;
                for &(i, c) in &s.counts {
                    gradient[usize::from(i)] += g * c;
                }
            }
            gradient
        },
        |step, residual| {
            eprintln!(
                "step {step}: error {:.5} (train), {:.5} (held out)",
                error(residual, false),
                error(residual, true)
            )
        },
    );
    write_residual(&residual, &base);
    Ok(())
}

/// A leaf's evaluation with `residual` added for its cell counts by multiset.
fn with_residual(eval: f64, counts: &[(u16, f64)], residual: &[f64]) -> f64 {
    eval + counts
        .iter()
        .map(|&(i, n)| residual[usize::from(i)] * n)
        .sum::<f64>()
}

/// For each multiset, whether it gets a residual: with `--from P`, only cells whose strongest
/// line pattern is P or stronger (in `Pattern` order: 6 is a closed three), so the many cells
/// of ones and twos, which stand for how spread out a side's stones are, keep their hand-set
/// values.
fn free_cells(strongest_from: usize) -> Vec<bool> {
    sorted_fours()
        .iter()
        .map(|four| four[3] >= strongest_from)
        .collect()
}

/// Full-batch Adam from zero, `STEPS` steps with an L2 pull of `lambda`, on the `free`
/// residuals, `gradient_at` summing over `samples` samples; `report` every 100 steps.
fn adam(
    free: &[bool],
    lambda: f64,
    samples: usize,
    gradient_at: impl Fn(&[f64]) -> Vec<f64>,
    report: impl Fn(usize, &[f64]),
) -> Vec<f64> {
    let mut residual = vec![0.0f64; MULTISETS];
    let (mut m, mut v) = (vec![0.0f64; MULTISETS], vec![0.0f64; MULTISETS]);
    for step in 1..=STEPS {
        let gradient = gradient_at(&residual);
        for (i, g) in gradient.iter().enumerate() {
            if !free[i] {
                continue;
            }
            let g = g / samples.max(1) as f64 + lambda * residual[i];
            m[i] = 0.9 * m[i] + 0.1 * g;
            v[i] = 0.999 * v[i] + 0.001 * g * g;
            let (mh, vh) = (
                m[i] / (1.0 - 0.9f64.powi(step as i32)),
                v[i] / (1.0 - 0.999f64.powi(step as i32)),
            );
            residual[i] -= RATE * mh / (vh.sqrt() + 1e-12);
        }
        if step % 100 == 0 {
            report(step, &residual);
        }
    }
    residual
}

/// The 20 largest residuals to standard error, and `base` + the residual (rounded) to
/// standard output, one number a line.
fn write_residual(residual: &[f64], base: &[i32]) {
    let fours = sorted_fours();
    let mut moved: Vec<(usize, f64)> = residual.iter().copied().enumerate().collect();
    moved.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    const NAMES: [&str; 11] = [
        "-", "x", "B1", "F1", "B2", "F2", "B3", "F3", "B4", "F4", "F5",
    ];
    for (index, r) in moved.iter().take(20) {
        let names = fours[*index].map(|p| NAMES[p]).join(" ");
        eprintln!("{names:<14} {r:+.1}");
    }
    let mut out = String::new();
    for (i, r) in residual.iter().enumerate() {
        out.push_str(&format!("{}\n", base[i] + r.round() as i32));
    }
    print!("{out}");
}

/// Every multiset of four patterns as its sorted pattern numbers, in `multiset_of`'s order.
fn sorted_fours() -> Vec<[usize; 4]> {
    let mut fours = Vec::with_capacity(MULTISETS);
    for a in 0..11 {
        for b in a..11 {
            for c in b..11 {
                for d in c..11 {
                    fours.push([a, b, c, d]);
                }
            }
        }
    }
    fours
}

/// The board after `moves` (15×15 freestyle, black first), or None for a bad record.
fn replay(moves: &[(usize, usize)]) -> Option<Board> {
    let mut board = Board::new(15, 15, GameRule::Freestyle).ok()?;
    for (i, &(x, y)) in moves.iter().enumerate() {
        let cell = board.checked_cell(x as i64, y as i64)?;
        if board.at(cell) != EMPTY {
            return None;
        }
        board.place(cell, if i % 2 == 0 { BLACK } else { WHITE });
    }
    Some(board)
}

/// What a short search makes of a position, for its side to move.
enum Leaf {
    /// The end of the line it expects: its evaluation and cell counts by multiset (the side
    /// to move's weighted by the tempo, the other side's negative), for the side to move at
    /// the position searched, and the moves to it.
    Quiet {
        plies: usize,
        eval: f64,
        counts: Vec<(u16, f64)>,
    },
    /// A proven win (positive) or loss for the side to move.
    Proven(i32),
}

/// `board` searched `depth` plies (at most `nodes`) and the leaf of the line it expects;
/// None when the search returns no move. A forced block is played and the search goes on
/// from the position after it.
fn leaf(board: &Board, depth: u32, nodes: u64, table: &Table) -> Option<Leaf> {
    let options = Think {
        limits: Limits {
            deadline: None,
            nodes: Some(nodes),
            depth: Some(depth),
        },
        threads: 1,
        proof_share: 0.1,
    };
    let outcome = think(board, &options, table)?;
    if outcome.score.abs() > 10_000 {
        return Some(Leaf::Proven(outcome.score));
    }
    if outcome.reason == Reason::Block {
        let mut next = board.clone();
        next.place(outcome.best, next.side_to_move());
        return Some(match leaf(&next, depth, nodes, table)? {
            Leaf::Proven(score) => Leaf::Proven(-score),
            Leaf::Quiet {
                plies,
                eval,
                counts,
            } => Leaf::Quiet {
                plies: plies + 1,
                eval: -eval,
                counts: counts.into_iter().map(|(i, c)| (i, -c)).collect(),
            },
        });
    }
    let root = board.side_to_move();
    let mut end = board.clone();
    let line = if outcome.reason == Reason::Search {
        principal_variation(board, outcome.best, table, 24)
    } else {
        vec![]
    };
    for &cell in &line {
        end.place(cell, end.side_to_move());
    }
    let mover = end.side_to_move();
    let sign = if mover == root { 1.0 } else { -1.0 };
    let mut counts: HashMap<u16, f64> = HashMap::new();
    for &cell in end.board_cells() {
        if end.at(cell) != EMPTY {
            continue;
        }
        for (color, weight) in [(mover, TEMPO), (3 - mover, -1.0)] {
            let index = multiset_of(end.patterns(cell, color)) as u16;
            *counts.entry(index).or_default() += sign * weight;
        }
    }
    Some(Leaf::Quiet {
        plies: line.len(),
        eval: sign * f64::from(end.evaluate(mover)),
        counts: counts.into_iter().filter(|&(_, c)| c != 0.0).collect(),
    })
}

/// `moves` searched `depth` plies and its leaf's features, or None when the position is not
/// one the evaluation decides (a proof, a forced move, a win in sight, a bad record).
fn sample(moves: &[(usize, usize)], score: f64, depth: u32) -> Option<Sample> {
    let board = replay(moves)?;
    if !board.five_cells(3 - board.side_to_move()).is_empty() {
        return None;
    }
    let Leaf::Quiet {
        plies,
        eval,
        counts,
    } = leaf(&board, depth, 200_000, &Table::new(4))?
    else {
        return None;
    };
    if plies == 0 {
        return None;
    }
    let key = hash_of(moves);
    Some(Sample {
        plies,
        eval,
        counts,
        target: sigmoid(score / JUDGE_SCALE),
        held_out: (key >> 40).is_multiple_of(10),
    })
}

/// A hash of a move list (which positions are held out, and their order).
fn hash_of(moves: &[(usize, usize)]) -> u64 {
    moves.iter().fold(0u64, |h, &(x, y)| {
        (h ^ (x * 15 + y) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    })
}

/// One position before the teacher's move: its children's leaves, for the side to move.
#[derive(serde::Serialize, serde::Deserialize)]
struct Choice {
    /// (leaf evaluation, cell counts) of each child not proven lost.
    children: Vec<(f64, Vec<(u16, f64)>)>,
    /// The teacher's child.
    chosen: usize,
    held_out: bool,
}

/// The position after `moves` with each child searched, or None when the teacher's move is
/// not a child, is proven lost, or some child is a proven win.
fn choice(
    moves: &[(usize, usize)],
    teacher: (usize, usize),
    depth: u32,
    nodes: u64,
    held_out: bool,
) -> Option<Choice> {
    let board = replay(moves)?;
    let me = board.side_to_move();
    let target = board.checked_cell(teacher.0 as i64, teacher.1 as i64)?;
    let table = Table::new(1);
    let (mut children, mut chosen) = (Vec::new(), None);
    for &cell in board.board_cells() {
        if board.at(cell) != EMPTY || !board.is_near(cell) {
            continue;
        }
        let mut child = board.clone();
        child.place(cell, me);
        if child.wins_at(cell) {
            return None;
        }
        table.clear();
        match leaf(&child, depth, nodes, &table)? {
            Leaf::Proven(score) if score < 0 => return None,
            Leaf::Proven(_) => {}
            Leaf::Quiet { eval, counts, .. } => {
                if cell == target {
                    chosen = Some(children.len());
                }
                children.push((-eval, counts.into_iter().map(|(i, c)| (i, -c)).collect()));
            }
        }
    }
    Some(Choice {
        chosen: chosen?,
        children,
        held_out,
    })
    .filter(|c| c.children.len() > 1)
}

/// The `rank` mode (see the top of the file).
fn rank(args: Vec<String>) -> Result<(), Box<dyn std::error::Error>> {
    let (mut depth, mut count, mut nodes, mut lambda) = (2u32, 4_000usize, 20_000u64, 1e-6);
    let (mut strongest_from, mut base, mut files) = (0usize, vec![0i32; MULTISETS], vec![]);
    let (mut cache, mut anchor) = (None, 0.0f64);
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--depth" => depth = args.next().ok_or("--depth D")?.parse()?,
            "--count" => count = args.next().ok_or("--count N")?.parse()?,
            "--nodes" => nodes = args.next().ok_or("--nodes N")?.parse()?,
            "--l2" => lambda = args.next().ok_or("--l2 X")?.parse()?,
            "--from" => strongest_from = args.next().ok_or("--from PATTERN")?.parse()?,
            "--base" => base = read_base(&args.next().ok_or("--base FILE")?)?,
            "--cache" => cache = Some(args.next().ok_or("--cache FILE")?),
            "--anchor" => anchor = args.next().ok_or("--anchor X")?.parse()?,
            _ => files.push(arg),
        }
    }
    if files.is_empty() {
        return Err(
            "usage: fit-eval rank [--depth D] [--count N] [--nodes N] [--l2 X] \
                    [--from P] [--anchor X] [--base FILE] [--cache FILE] GAMES.jsonl… > residual.txt"
                .into(),
        );
    }
    // (hash, moves before, teacher's move, held out), distinct positions, ordered by hash.
    let mut seen = std::collections::HashSet::new();
    let mut positions = Vec::new();
    for file in &files {
        for line in std::fs::read_to_string(file)?.lines() {
            let Ok(game) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let (Some(moves), Some(ms)) = (read_moves(&game["moves"]), game["ms"].as_array())
            else {
                continue;
            };
            let ms: Vec<u64> = ms.iter().filter_map(|t| t.as_u64()).collect();
            if ms.len() != moves.len() {
                continue;
            }
            let teacher_black = game["black"].as_u64() == Some(1);
            let held = (hash_of(&moves) >> 40).is_multiple_of(10);
            for i in 3..moves.len() {
                if (i % 2 == 0) != teacher_black || !(80..=1100).contains(&ms[i]) {
                    continue;
                }
                if seen.insert(moves[..i].to_vec()) {
                    positions.push((hash_of(&moves[..=i]), moves[..i].to_vec(), moves[i], held));
                }
            }
        }
    }
    positions.sort();
    let distinct = positions.len();
    positions.truncate(count);
    // The searched children are the slow part: `--cache FILE` keeps them for fits that differ
    // only in `--from` and `--l2` (delete the file when the games, depth or knobs change).
    let cached = cache
        .as_ref()
        .and_then(|path| std::fs::read_to_string(path).ok());
    let choices: Vec<Choice> = match cached {
        Some(text) => text
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?,
        None => {
            let choices: Vec<Choice> = positions
                .par_iter()
                .filter_map(|(_, moves, teacher, held)| {
                    choice(moves, *teacher, depth, nodes, *held)
                })
                .collect();
            if let Some(path) = &cache {
                let mut text = String::new();
                for c in &choices {
                    text.push_str(&serde_json::to_string(c)?);
                    text.push('\n');
                }
                std::fs::write(path, text)?;
            }
            choices
        }
    };
    let held = choices.iter().filter(|c| c.held_out).count();
    eprintln!(
        "{} of {} positions (of {distinct} distinct) with a choice among {:.1} children on average, {held} held out",
        choices.len(),
        positions.len(),
        choices.iter().map(|c| c.children.len() as f64).sum::<f64>() / choices.len().max(1) as f64
    );
    let values = |residual: &[f64], c: &Choice| -> Vec<f64> {
        c.children
            .iter()
            .map(|(eval, counts)| with_residual(*eval, counts, residual))
            .collect()
    };
    // Softmax of value / t over a position's children: the probabilities.
    let softmax = |values: &[f64], t: f64| -> Vec<f64> {
        let top = values.iter().copied().fold(f64::MIN, f64::max);
        let e: Vec<f64> = values.iter().map(|v| ((v - top) / t).exp()).collect();
        let total: f64 = e.iter().sum();
        e.into_iter().map(|x| x / total).collect()
    };
    let loss = |residual: &[f64], t: f64, held_out: bool| {
        let (sum, n) =
            choices
                .iter()
                .filter(|c| c.held_out == held_out)
                .fold((0.0, 0usize), |(sum, n), c| {
                    let p = softmax(&values(residual, c), t);
                    (sum - p[c.chosen].max(1e-300).ln(), n + 1)
                });
        sum / n.max(1) as f64
    };
    let first = |residual: &[f64], held_out: bool| {
        let (hits, n) = choices.iter().filter(|c| c.held_out == held_out).fold(
            (0usize, 0usize),
            |(hits, n), c| {
                let v = values(residual, c);
                let best = v.iter().copied().fold(f64::MIN, f64::max);
                (hits + usize::from(v[c.chosen] >= best), n + 1)
            },
        );
        100.0 * hits as f64 / n.max(1) as f64
    };
    let zero = vec![0.0f64; MULTISETS];
    let t = (1..=80)
        .map(|i| f64::from(i) * 10.0)
        .min_by(|&a, &b| loss(&zero, a, false).total_cmp(&loss(&zero, b, false)))
        .unwrap_or(100.0);
    eprintln!(
        "T = {t}: cross-entropy {:.4} (train), {:.4} (held out); the teacher's move best in {:.1} % of held-out positions",
        loss(&zero, t, false),
        loss(&zero, t, true),
        first(&zero, true)
    );
    let train: Vec<&Choice> = choices.iter().filter(|c| !c.held_out).collect();
    // The mean change of a position's children's values: the level the softmax leaves free.
    let level_shift = |residual: &[f64], c: &Choice| {
        c.children
            .iter()
            .map(|(_, counts)| with_residual(0.0, counts, residual))
            .sum::<f64>()
            / c.children.len() as f64
    };
    let shift_rms = |residual: &[f64]| {
        let held: Vec<f64> = choices
            .iter()
            .filter(|c| c.held_out)
            .map(|c| level_shift(residual, c).powi(2))
            .collect();
        (held.iter().sum::<f64>() / held.len().max(1) as f64).sqrt()
    };
    let residual = adam(
        &free_cells(strongest_from),
        lambda,
        train.len(),
        |residual| {
            let per_position: Vec<Vec<f64>> = train
                .par_iter()
                .map(|c| {
                    let p = softmax(&values(residual, c), t);
                    let shift = level_shift(residual, c) / t;
                    let share = 1.0 / c.children.len() as f64;
                    let mut gradient = vec![0.0f64; MULTISETS];
                    for (j, (_, counts)) in c.children.iter().enumerate() {
                        let g = (p[j] - f64::from(u8::from(j == c.chosen))) / t
                            + 2.0 * anchor * shift * share / t;
                        for &(i, n) in counts {
                            gradient[usize::from(i)] += g * n;
                        }
                    }
                    gradient
                })
                .collect();
            let mut gradient = vec![0.0f64; MULTISETS];
            for g in &per_position {
                gradient.iter_mut().zip(g).for_each(|(a, b)| *a += b);
            }
            gradient
        },
        |step, residual| {
            eprintln!(
                "step {step}: cross-entropy {:.4} (train), {:.4} (held out); the teacher's move best in {:.1} % held out; level moved {:.0} (rms, held out)",
                loss(residual, t, false),
                loss(residual, t, true),
                first(residual, true),
                shift_rms(residual)
            )
        },
    );
    write_residual(&residual, &base);
    Ok(())
}

/// A residual file (`value_file`'s form): 1,001 numbers.
fn read_base(path: &str) -> Result<Vec<i32>, Box<dyn std::error::Error>> {
    let base: Vec<i32> = std::fs::read_to_string(path)?
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    if base.len() != MULTISETS {
        return Err(format!("{path}: not {MULTISETS} numbers").into());
    }
    Ok(base)
}

/// The `judge` mode (see the top of the file).
fn judge(args: Vec<String>) -> Result<(), Box<dyn std::error::Error>> {
    use rustc_hash::FxHasher;
    use std::hash::Hasher;
    let (mut brain, mut ms, mut count, mut workers, mut files) =
        (String::new(), 100u64, 60_000usize, 1usize, vec![]);
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--brain" => brain = args.next().ok_or("--brain CMD")?,
            "--ms" => ms = args.next().ok_or("--ms N")?.parse()?,
            "--count" => count = args.next().ok_or("--count N")?.parse()?,
            "--workers" => workers = args.next().ok_or("--workers N")?.parse()?,
            _ => files.push(arg),
        }
    }
    if brain.is_empty() || files.is_empty() {
        return Err(
            "usage: fit-eval judge --brain CMD [--ms 100] [--count N] [--workers W] GAMES.jsonl…"
                .into(),
        );
    }
    let mut seen = std::collections::HashSet::new();
    let mut positions: Vec<(u64, Vec<String>)> = Vec::new();
    for file in &files {
        for line in std::fs::read_to_string(file)?.lines() {
            let Ok(game) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(moves) = game["moves"].as_array() else {
                continue;
            };
            let moves: Vec<String> = moves
                .iter()
                .filter_map(|m| m.as_str().map(String::from))
                .collect();
            let on_board = |m: &String| {
                m.split(',')
                    .all(|c| c.parse::<usize>().is_ok_and(|c| c < 15))
            };
            if !moves.iter().all(on_board) {
                continue;
            }
            for stones in 5..moves.len().min(81) {
                let mut sides = [Vec::new(), Vec::new()];
                for (i, m) in moves[..stones].iter().enumerate() {
                    sides[i % 2].push(m.as_str());
                }
                sides.iter_mut().for_each(|s| s.sort_unstable());
                let key = format!("{}#{}", sides[0].join("|"), sides[1].join("|"));
                let mut hasher = FxHasher::default();
                hasher.write(key.as_bytes());
                if seen.insert(key) {
                    positions.push((hasher.finish(), moves[..stones].to_vec()));
                }
            }
        }
    }
    positions.sort();
    positions.truncate(count);
    eprintln!(
        "judging {} of {} distinct positions",
        positions.len(),
        seen.len()
    );
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out = std::sync::Mutex::new(std::io::stdout());
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            scope.spawn(|| -> Result<(), String> {
                let mut judge = Judge::start(&brain, ms)?;
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((_, moves)) = positions.get(i) else {
                        return Ok(());
                    };
                    let verdict = match judge.ask(moves) {
                        Ok(verdict) => verdict,
                        Err(why) => {
                            eprintln!("position {i}: {why}; the brain is started again");
                            judge = Judge::start(&brain, ms)?;
                            continue;
                        }
                    };
                    let line =
                        serde_json::json!({"moves": moves, "eval": verdict.0, "depth": verdict.1});
                    use std::io::Write;
                    let mut out = out.lock().map_err(|e| e.to_string())?;
                    writeln!(out, "{line}").map_err(|e| e.to_string())?;
                }
            });
        }
    });
    Ok(())
}

/// A Piskvork brain asked for its judgement of positions.
struct Judge {
    child: std::process::Child,
    input: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    ms: u64,
}

impl Judge {
    fn start(command: &str, ms: u64) -> Result<Judge, String> {
        use std::io::BufRead;
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start '{command}': {e}"))?;
        let input = child.stdin.take().ok_or("no stdin")?;
        let output = child.stdout.take().ok_or("no stdout")?;
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(output)
                .lines()
                .map_while(Result::ok)
            {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut judge = Judge {
            child,
            input,
            lines,
            ms,
        };
        judge.send(&["START 15".into()])?;
        judge.answer()?;
        judge.send(&[
            format!("INFO timeout_turn {ms}"),
            "INFO timeout_match 0".into(),
            "INFO rule 0".into(),
        ])?;
        Ok(judge)
    }

    fn send(&mut self, lines: &[String]) -> Result<(), String> {
        use std::io::Write;
        // Rapfi drops a command that comes right after its answer.
        std::thread::sleep(std::time::Duration::from_millis(30));
        for line in lines {
            writeln!(self.input, "{line}").map_err(|e| e.to_string())?;
        }
        self.input.flush().map_err(|e| e.to_string())
    }

    /// Lines up to the next answer (a move or OK): the last reported (eval, depth).
    fn answer(&mut self) -> Result<(Option<String>, Option<String>), String> {
        let limit = std::time::Duration::from_millis(self.ms * 10 + 2_000);
        let (mut eval, mut depth) = (None, None);
        loop {
            let line = self
                .lines
                .recv_timeout(limit)
                .map_err(|e| format!("no answer ({e})"))?;
            let line = line.trim();
            let field = |name: &str| {
                line.split(" | ")
                    .find_map(|part| part.trim().strip_prefix(name))
                    .map(|v| v.trim().to_string())
            };
            if line.starts_with("MESSAGE") {
                if let (Some(e), Some(d)) = (field("Eval "), field("Depth ")) {
                    (eval, depth) = (Some(e), Some(d));
                }
                continue;
            }
            if line == "OK"
                || line
                    .split_once(',')
                    .is_some_and(|(x, y)| x.parse::<u32>().is_ok() && y.parse::<u32>().is_ok())
            {
                return Ok((eval, depth));
            }
        }
    }

    fn ask(&mut self, moves: &[String]) -> Result<(Option<String>, Option<String>), String> {
        let mover = moves.len() % 2;
        let mut lines = vec!["BOARD".to_string()];
        for (i, m) in moves.iter().enumerate() {
            lines.push(format!("{m},{}", if i % 2 == mover { 1 } else { 2 }));
        }
        lines.push("DONE".into());
        self.send(&lines)?;
        self.answer()
    }
}

impl Drop for Judge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
