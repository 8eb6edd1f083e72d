//! Fits the Gomoku engine's move-ordering policy (`src/gomoku/engine/policy.rs`) to the moves a
//! stronger engine played in recorded games, and writes its weights (`policy/weights.rs`).
//!
//! ```text
//! cargo run --release -p warpsearch --example fit-policy -- \
//!     results/2026-11-28-gomoku-tuning/batch*.jsonl \
//!     > warpsearch/src/gomoku/engine/policy/weights.rs
//! cargo fmt
//! ```
//!
//! The games are `warpsearch gomoku match --out` files whose second engine is the teacher
//! (Rapfi in the files named above). A position is taken before each of the teacher's moves
//! from the fourth stone on that took 80–1,100 ms (a searched move, not an instant forced one),
//! once per distinct position; games whose number hashes to 0 mod 10 are held out. The model is
//! a multinomial logit over the position's candidate cells (empty, within two cells of a stone):
//! a cell's score is the sum of a weight for each of its four line patterns for the side to
//! move and for the opponent, a weight for each of the two multisets of four, and weights for
//! its distances to the last two stones. Stochastic gradient descent, 12 passes in a fixed
//! shuffled order (seeded; the rate 0.1, then 0.03, then 0.01, four passes each): the same files give the same table. The held-out accuracy of the
//! fitted and of the hand-set ordering goes to standard error: how often the teacher's move is
//! first, in the first three and in the first 14, 24 and 36 (the caps on a node's moves), and,
//! over every position, the teacher's moves by kind (a threat, a defence, a building move) with
//! where each kind falls in the hand-set order. `--order-only` first prints the hand-set
//! reports alone, without the fit, so that ordering knobs can be compared
//! (`WARPSEARCH_GOMOKU_KNOBS=policy=50 … fit-policy --order-only GAMES…`).

use rand::SeedableRng;
use rand::seq::SliceRandom;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use warpsearch::gomoku::engine::matches::read_moves;
use warpsearch::gomoku::engine::{BLACK, Board, EMPTY, GameRule, Pattern, WHITE, shape_bonus};

/// One candidate cell: its feature indices, its hand-set score and whether the teacher played it.
struct Candidate {
    features: Vec<usize>,
    hand_set: i32,
    chosen: bool,
    kind: Kind,
}

/// What a move does, for the report of where the teacher's moves fall in the hand-set order.
#[derive(Clone, Copy)]
enum Kind {
    /// It makes an open three or more.
    Threat,
    /// Otherwise, it takes a cell where the opponent would make an open three or more.
    Defence,
    /// Otherwise, it makes an open two or a closed three.
    Builder,
    /// None of those.
    Quiet,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Threat, Kind::Defence, Kind::Builder, Kind::Quiet];

    fn of(mine: [Pattern; 4], theirs: [Pattern; 4]) -> Kind {
        if mine.iter().any(|&p| p >= Pattern::F3) {
            Kind::Threat
        } else if theirs.iter().any(|&p| p >= Pattern::F3) {
            Kind::Defence
        } else if mine.iter().any(|&p| matches!(p, Pattern::F2 | Pattern::B3)) {
            Kind::Builder
        } else {
            Kind::Quiet
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Threat => "makes an open three or more",
            Kind::Defence => "takes the opponent's open-three cell",
            Kind::Builder => "makes an open two or a closed three",
            Kind::Quiet => "none of those",
        }
    }
}

/// Names the model's weights.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Feature {
    LineMine(u8),
    LineTheirs(u8),
    MultisetMine(u16),
    MultisetTheirs(u16),
    NearLast(usize),
    NearOwn(usize),
}

const PASSES: usize = 12;
const SEED: u64 = 1;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    // `--order-only`: the hand-set order's reports alone, without the fit, for comparing the
    // knobs that change a cell's ordering score (set in WARPSEARCH_GOMOKU_KNOBS: `policy`,
    // `policy_alone`); what the search reorders itself (the table's move, killers, history,
    // `near_order`, threats kept first) is not in these scores.
    let order_only = files.first().is_some_and(|f| f == "--order-only");
    if order_only {
        files.remove(0);
    }
    if files.is_empty() {
        return Err("usage: fit-policy [--order-only] GAMES.jsonl… > weights.rs".into());
    }
    let mut index: HashMap<Feature, usize> = HashMap::new();
    let (mut train, mut held_out) = (Vec::new(), Vec::new());
    let mut seen = HashSet::new();
    for file in &files {
        for line in std::fs::read_to_string(file)?.lines() {
            if line.trim().is_empty() {
                continue;
            }
            let game: serde_json::Value = serde_json::from_str(line)?;
            let moves = read_moves(&game["moves"]).ok_or("no moves")?;
            let ms: Vec<u64> = game["ms"]
                .as_array()
                .ok_or("no times")?
                .iter()
                .filter_map(|t| t.as_u64())
                .collect();
            if moves.iter().any(|&(x, y)| x > 14 || y > 14) || ms.len() != moves.len() {
                continue;
            }
            let teacher_black = game["black"].as_u64() == Some(1);
            let number = game["game"].as_u64().unwrap_or(0);
            let held = (number.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32).is_multiple_of(10);
            for i in 3..moves.len() {
                if (i % 2 == 0) != teacher_black || !(80..=1100).contains(&ms[i]) {
                    continue;
                }
                if !seen.insert(moves[..i].to_vec()) {
                    continue;
                }
                if let Some(position) = candidates(&moves[..i], moves[i], &mut index)? {
                    if held { &mut held_out } else { &mut train }.push(position);
                }
            }
        }
    }
    let residual: Vec<bool> = {
        let mut r = vec![false; index.len()];
        for (f, &i) in &index {
            r[i] = matches!(f, Feature::MultisetMine(_) | Feature::MultisetTheirs(_));
        }
        r
    };
    if order_only {
        let hand_set = |c: &Candidate| f64::from(c.hand_set);
        eprintln!(
            "{} positions; the teacher's move first / in the first three / 14 / 24 / 36 (hand-set, held out): {:.1} / {:.1} / {:.1} / {:.1} / {:.1} %",
            train.len() + held_out.len(),
            within(&held_out, hand_set, 1),
            within(&held_out, hand_set, 3),
            within(&held_out, hand_set, 14),
            within(&held_out, hand_set, 24),
            within(&held_out, hand_set, 36)
        );
        kinds(train.iter().chain(&held_out));
        return Ok(());
    }
    let mut weights = vec![0.0f64; index.len()];
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(SEED);
    for pass in 0..PASSES {
        train.shuffle(&mut rng);
        let rate = [0.1, 0.03, 0.01][pass * 3 / PASSES];
        for position in &train {
            let scores: Vec<f64> = position.iter().map(|c| score(&weights, c)).collect();
            let top = scores.iter().cloned().fold(f64::MIN, f64::max);
            let exp: Vec<f64> = scores.iter().map(|s| (s - top).exp()).collect();
            let total: f64 = exp.iter().sum();
            for (c, e) in position.iter().zip(&exp) {
                let gradient = e / total - f64::from(u8::from(c.chosen));
                if gradient.abs() > 1e-4 {
                    for &f in &c.features {
                        let decay = if residual[f] { 0.01 * weights[f] } else { 0.0 };
                        weights[f] -= rate * (gradient + decay);
                    }
                }
            }
        }
        eprintln!(
            "pass {}: held-out negative log-likelihood {:.3}",
            pass + 1,
            nll(&weights, &held_out)
        );
    }
    let fitted = accuracy(&held_out, |c| score(&weights, c));
    let hand_set = accuracy(&held_out, |c| f64::from(c.hand_set));
    let caps = [14, 24, 36].map(|k| {
        (
            within(&held_out, |c| score(&weights, c), k),
            within(&held_out, |c| f64::from(c.hand_set), k),
        )
    });
    eprintln!(
        "the teacher's move among the first 14 / 24 / 36 (caps on a node's moves): fitted {:.1} / {:.1} / {:.1} %, hand-set {:.1} / {:.1} / {:.1} %",
        caps[0].0, caps[1].0, caps[2].0, caps[0].1, caps[1].1, caps[2].1
    );
    kinds(train.iter().chain(&held_out));
    eprintln!(
        "{} positions fitted, {} held out; the teacher's move first / in the first three: fitted {:.1} % / {:.1} %, hand-set {:.1} % / {:.1} %",
        train.len(),
        held_out.len(),
        fitted.0,
        fitted.1,
        hand_set.0,
        hand_set.1
    );
    print!(
        "{}",
        source(
            &index,
            &weights,
            train.len(),
            held_out.len(),
            fitted,
            hand_set
        )
    );
    Ok(())
}

/// The candidate cells of the position after `moves`, with the teacher's `chosen` move marked;
/// None when that move is not among them.
fn candidates(
    moves: &[(usize, usize)],
    chosen: (usize, usize),
    index: &mut HashMap<Feature, usize>,
) -> Result<Option<Vec<Candidate>>, Box<dyn std::error::Error>> {
    let mut board = Board::new(15, 15, GameRule::Freestyle)?;
    for (i, &(x, y)) in moves.iter().enumerate() {
        let cell = board.cell(x, y);
        if board.at(cell) != EMPTY {
            return Ok(None);
        }
        board.place(cell, if i % 2 == 0 { BLACK } else { WHITE });
    }
    let me = board.side_to_move();
    let them = if me == BLACK { WHITE } else { BLACK };
    let target = board.cell(chosen.0, chosen.1);
    let played = board.moves().to_vec();
    let near = |cell, back: usize| {
        played.len().checked_sub(back).map_or(5, |i| {
            let (a, b) = (board.xy(played[i]), board.xy(cell));
            a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)).min(5)
        })
    };
    let mut id = |f: Feature| {
        let next = index.len();
        *index.entry(f).or_insert(next)
    };
    let mut list = Vec::new();
    for &cell in board.board_cells() {
        if board.at(cell) != EMPTY || !board.is_near(cell) {
            continue;
        }
        let (mine, theirs) = (board.patterns(cell, me), board.patterns(cell, them));
        let mut features: Vec<usize> = mine
            .iter()
            .map(|&p| id(Feature::LineMine(p as u8)))
            .collect();
        features.extend(theirs.iter().map(|&p| id(Feature::LineTheirs(p as u8))));
        features.push(id(Feature::MultisetMine(multiset(mine.map(|p| p as u8)))));
        features.push(id(Feature::MultisetTheirs(multiset(
            theirs.map(|p| p as u8),
        ))));
        features.push(id(Feature::NearLast(near(cell, 1))));
        features.push(id(Feature::NearOwn(near(cell, 2))));
        list.push(Candidate {
            features,
            hand_set: hand_set(&board, cell, me, them),
            chosen: cell == target,
            kind: Kind::of(mine, theirs),
        });
    }
    Ok(list.iter().any(|c| c.chosen).then_some(list))
}

/// The search's own ordering score without the policy (its scan's formula).
fn hand_set(board: &Board, cell: usize, me: u8, them: u8) -> i32 {
    board.attack(cell, me)
        + board.defence(cell, them)
        + shape_bonus(board.shape(cell, me), board.shape(cell, them))
}

/// Four patterns as a multiset: ascending, the smallest as the lowest base-11 digit.
fn multiset(mut patterns: [u8; 4]) -> u16 {
    patterns.sort_unstable();
    patterns
        .iter()
        .rev()
        .fold(0, |code, &p| code * 11 + u16::from(p))
}

fn score(weights: &[f64], c: &Candidate) -> f64 {
    c.features.iter().map(|&f| weights[f]).sum()
}

fn nll(weights: &[f64], positions: &[Vec<Candidate>]) -> f64 {
    let total: f64 = positions
        .iter()
        .map(|p| {
            let scores: Vec<f64> = p.iter().map(|c| score(weights, c)).collect();
            let top = scores.iter().cloned().fold(f64::MIN, f64::max);
            let log_total = scores.iter().map(|s| (s - top).exp()).sum::<f64>().ln() + top;
            let chosen = p
                .iter()
                .zip(&scores)
                .find(|(c, _)| c.chosen)
                .map_or(0.0, |(_, s)| *s);
            log_total - chosen
        })
        .sum();
    total / positions.len().max(1) as f64
}

/// Percent of positions where the chosen move is first, and among the first three, by `key`
/// (ties to the lower cell, as the search orders them).
fn accuracy(positions: &[Vec<Candidate>], key: impl Fn(&Candidate) -> f64) -> (f64, f64) {
    (within(positions, &key, 1), within(positions, &key, 3))
}

/// The share of `positions` (per cent) whose teacher's move is among the first `k` by `key`.
fn within(positions: &[Vec<Candidate>], key: impl Fn(&Candidate) -> f64, k: usize) -> f64 {
    let hits = positions
        .iter()
        .filter(|p| rank(p, &key).is_some_and(|r| r < k))
        .count();
    100.0 * hits as f64 / positions.len().max(1) as f64
}

/// For each kind of move, its share of the teacher's moves and where those fall in the
/// hand-set order (ranks 1–3, 4–14, 15–24, beyond: the caps of 14 and 24 a node, and the first
/// moves that late-move reductions leave whole), to standard error.
fn kinds<'a>(positions: impl Iterator<Item = &'a Vec<Candidate>>) {
    let mut table = [[0usize; 4]; 4];
    for p in positions {
        let (Some(chosen), Some(r)) = (
            p.iter().find(|c| c.chosen),
            rank(p, |c| f64::from(c.hand_set)),
        ) else {
            continue;
        };
        let bucket = [3, 14, 24].iter().take_while(|&&edge| r >= edge).count();
        table[chosen.kind as usize][bucket] += 1;
    }
    let total: usize = table.iter().flatten().sum();
    eprintln!(
        "the teacher's moves by kind, and their ranks in the hand-set order (1-3 / 4-14 / 15-24 / beyond):"
    );
    for kind in Kind::ALL {
        let row = table[kind as usize];
        let n: usize = row.iter().sum();
        let share = |x: usize| 100.0 * x as f64 / n.max(1) as f64;
        eprintln!(
            "  {:<40} {:5.1} % of {total}: {:.1} / {:.1} / {:.1} / {:.1} %",
            kind.name(),
            100.0 * n as f64 / total.max(1) as f64,
            share(row[0]),
            share(row[1]),
            share(row[2]),
            share(row[3])
        );
    }
}

/// The teacher's move's place among a position's candidates by `key` (0 is first).
fn rank(p: &[Candidate], key: impl Fn(&Candidate) -> f64) -> Option<usize> {
    let chosen = p.iter().position(|c| c.chosen)?;
    let k = key(&p[chosen]);
    // Candidates come in cell order, so an equal key before the chosen one ranks above it.
    Some(
        p.iter()
            .enumerate()
            .filter(|&(i, c)| key(c) > k || key(c) == k && i < chosen)
            .count(),
    )
}

/// The source of the policy's weights module.
fn source(
    index: &HashMap<Feature, usize>,
    weights: &[f64],
    fitted_on: usize,
    held_out: usize,
    fitted: (f64, f64),
    hand_set: (f64, f64),
) -> String {
    let hundredths = |f: Feature| index.get(&f).map(|&i| (weights[i] * 100.0).round() as i32);
    let mut line_mine: Vec<i32> = (0..11)
        .map(|p| hundredths(Feature::LineMine(p)).unwrap_or(0))
        .collect();
    let mut line_theirs: Vec<i32> = (0..11)
        .map(|p| hundredths(Feature::LineTheirs(p)).unwrap_or(0))
        .collect();
    // Patterns the teacher's positions never show: renju's forbidden one as a dead line, and
    // for the mover an open four or five above every line seen (a search meets them only when
    // the opponent has a four, so the order among them hardly matters).
    line_mine[1] = line_mine[0];
    line_theirs[1] = line_theirs[0];
    let highest = *line_mine[..9].iter().max().unwrap_or(&0);
    line_mine[9] = line_mine[9].max(highest + 500);
    line_mine[10] = line_mine[10].max(highest + 1000);
    let near = |make: fn(usize) -> Feature| -> Vec<i32> {
        (0..6).map(|d| hundredths(make(d)).unwrap_or(0)).collect()
    };
    let multisets = |mine: bool| -> Vec<(u16, i32)> {
        let mut list: Vec<(u16, i32)> = index
            .iter()
            .filter_map(|(f, &i)| match (f, mine) {
                (Feature::MultisetMine(k), true) | (Feature::MultisetTheirs(k), false) => {
                    Some((*k, (weights[i] * 100.0).round() as i32))
                }
                _ => None,
            })
            .collect();
        list.sort_unstable();
        list
    };
    let list = |v: &[i32]| v.iter().map(i32::to_string).collect::<Vec<_>>().join(", ");
    let mut out = String::new();
    let _ = write!(
        out,
        "//! The policy's weights, in hundredths of a logit (written by `cargo run --release -p warpsearch
//! --example fit-policy`, then `cargo fmt`; that file says from what and how).
//!
//! Fitted to {fitted_on} positions; on {held_out} held out, the teacher's move is this
//! ordering's first in {:.1} % and among its first three in {:.1} % (the hand-set scores:
//! {:.1} % and {:.1} %).

/// Each line pattern's weight for the side that plays the cell, in `Pattern` order.
pub(super) const LINE_MINE: [i32; 11] = [{}];
/// Each line pattern's weight for the side whose lines the cell blocks.
pub(super) const LINE_THEIRS: [i32; 11] = [{}];
/// By Chebyshev distance (1..=5, farther as 5) to the opponent's last stone.
pub(super) const NEAR_LAST: [i32; 6] = [{}];
/// By Chebyshev distance to the side's own last stone.
pub(super) const NEAR_OWN: [i32; 6] = [{}];
",
        fitted.0,
        fitted.1,
        hand_set.0,
        hand_set.1,
        list(&line_mine),
        list(&line_theirs),
        list(&near(Feature::NearLast)),
        list(&near(Feature::NearOwn)),
    );
    for (name, mine, whose) in [
        ("MULTISET_MINE", true, "the side that plays the cell"),
        (
            "MULTISET_THEIRS",
            false,
            "the side whose lines the cell blocks",
        ),
    ] {
        let entries = multisets(mine);
        let _ = writeln!(
            out,
            "/// The four patterns' multiset (ascending, the smallest as the lowest base-11 digit) and its\n/// weight beyond its lines' own, for {whose}; sorted by code.\npub(super) const {name}: [(u16, i16); {}] = [",
            entries.len()
        );
        let mut row = String::from("   ");
        for (k, v) in entries {
            let item = format!(" ({k}, {v}),");
            if row.len() + item.len() > 99 {
                let _ = writeln!(out, "{row}");
                row = String::from("   ");
            }
            row.push_str(&item);
        }
        let _ = writeln!(out, "{row}\n];");
    }
    out
}
