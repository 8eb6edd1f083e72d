//! Many positions' VCFs at once, on every CPU core or on the GPU, in two steps:
//!
//! 1. A search of the engine ([`crate::engine`]) whose units are positions and whose kernel
//!    gives each position one thread ([`kernels::gomoku::vcf`], the function the CPU runs too,
//!    so both give the same answers, node counts included), each search stopped after
//!    [`FIRST_STEP_NODES`] nodes. The rule's whole threat table (47 MB) is the kernel's
//!    parameter block, copied to each GPU once a run.
//! 2. The few positions that the first step could not settle go to the single-position solver
//!    ([`super::vcf::search`], with its transposition table) on every CPU core, with the
//!    batch's own limits. A VCF search's size is heavy-tailed: on one H100 thread a position of
//!    10⁶ nodes takes twenty seconds, which would hold the whole batch; a CPU core does it in
//!    one.
//!
//! ```
//! use warpsearch::gomoku::{Board, Color, Rule, batch};
//! let mut board = Board::new(Rule::Freestyle);
//! for (x, y) in [(5, 7), (6, 7), (7, 7)] {
//!     board.make(x, y, Color::Black)?;
//! }
//! for (x, y) in [(0, 0), (0, 2), (0, 4)] {
//!     board.make(x, y, Color::White)?;
//! }
//! let backend = warpsearch::Backend::Cpu(warpsearch::backend::cpu_pool(Some(2))?);
//! let batch = batch::Batch::new(Rule::Freestyle, &[(board, Color::Black)], 60, 1_000_000);
//! let answers = batch.solve(&backend, &warpsearch::RunControl::quiet())?;
//! // An open three: an open four, then five.
//! assert_eq!(answers[0].moves.len(), 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::table::Table;
use super::{Board, Color, Rule, SIZE};
use crate::engine::{self, Kernel, Launch, Search, UnitResults};
use crate::error::Result;
use crate::shard::Partial;
use kernels::gomoku::{self as twin, POSITION_WORDS, RESULT_WORDS, verdict};

/// What the batch found for one position.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Answer {
    /// "vcf", "none exists" or "limit reached" ("not run" for a position a stop skipped).
    pub verdict: String,
    /// The VCF's moves (attacker first, the five last), `[x, y]` each; empty without one.
    pub moves: Vec<(usize, usize)>,
    /// Attacker moves tried.
    pub nodes: u64,
}

/// The answers of some positions, in the work list's order.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Answers(pub Vec<Answer>);

impl Partial for Answers {
    /// Chunks arrive in the work list's order (the engine adds them in chunk order).
    fn add(&mut self, other: &Self) {
        self.0.extend(other.0.iter().cloned());
    }
    fn nodes(&self) -> u128 {
        self.0.iter().map(|a| u128::from(a.nodes)).sum()
    }
}

/// Nodes a position may take in the first step (one thread of the engine's backend) before it
/// is left to the second (the solver on the CPU cores).
pub const FIRST_STEP_NODES: u64 = 10_000;

/// A batch of positions, each with its attacker, and the limits of every search.
pub struct Batch {
    rule: Rule,
    units: Vec<u64>,
    words: Vec<u64>,
    depth: u32,
    nodes: u64,
}

impl Batch {
    /// The batch of `positions` (board and attacker) under `rule`, each searched to `depth`
    /// attacker moves (at most 60) and `nodes` attacker moves tried.
    pub fn new(rule: Rule, positions: &[(Board, Color)], depth: u32, nodes: u64) -> Batch {
        let mut units = Vec::with_capacity(positions.len() * POSITION_WORDS);
        for (board, side) in positions {
            let mut words = [0u64; POSITION_WORDS];
            for y in 0..SIZE {
                for x in 0..SIZE {
                    let cell = y * SIZE + x;
                    let stone = match board.get(x, y) {
                        None => 0,
                        Some(Color::Black) => 1,
                        Some(Color::White) => 2,
                    };
                    words[cell / 32] |= stone << (2 * (cell % 32));
                }
            }
            words[POSITION_WORDS - 1] |= (side.index() as u64) << 63;
            units.extend_from_slice(&words);
        }
        Batch {
            rule,
            units,
            words: table_words(Table::get(rule), depth, nodes.min(FIRST_STEP_NODES)),
            depth,
            nodes,
        }
    }

    /// Solves every position on `backend`; the answers in the positions' order.
    pub fn solve(
        &self,
        backend: &crate::Backend,
        control: &crate::RunControl,
    ) -> Result<Vec<Answer>> {
        if self.units.is_empty() {
            return Ok(Vec::new());
        }
        let (Answers(mut answers), _) = engine::run_counts(self, backend, control)?;
        if self.nodes <= FIRST_STEP_NODES {
            return Ok(answers);
        }
        // The second step: the unsettled positions on the CPU backend's threads (every core
        // with a GPU backend), in the order they are.
        use rayon::prelude::*;
        let limits = super::vcf::Limits {
            depth: self.depth.min(kernels::gomoku::MAX_DEPTH as u32),
            nodes: self.nodes,
        };
        let mut second = || {
            answers
                .par_iter_mut()
                .zip(self.units.par_chunks(POSITION_WORDS))
                .filter(|(answer, _)| answer.verdict == "limit reached")
                .try_for_each(|(answer, unit)| {
                    if control.cancelled() {
                        return Err(crate::Error::Interrupted);
                    }
                    let (board, side) = position_of(self.rule, unit);
                    let report = super::vcf::search(&board, side, limits)
                        .map_err(|e| crate::Error::Verification(e.to_string()))?;
                    answer.nodes += report.nodes;
                    answer.moves.clear();
                    answer.verdict = match report.verdict {
                        super::vcf::Verdict::Win(sequence) => {
                            answer.moves = sequence.moves;
                            "vcf"
                        }
                        super::vcf::Verdict::NoneExists => "none exists",
                        super::vcf::Verdict::LimitReached => "limit reached",
                    }
                    .into();
                    Ok(())
                })
        };
        match backend {
            crate::Backend::Cpu(pool) => pool.install(second)?,
            crate::Backend::Gpu(_) => second()?,
        }
        Ok(answers)
    }
}

/// The board and attacker of a unit.
fn position_of(rule: Rule, unit: &[u64]) -> (Board, Color) {
    let mut board = Board::new(rule);
    for cell in 0..SIZE * SIZE {
        let color = match twin::stone(unit, cell) {
            1 => Color::Black,
            2 => Color::White,
            _ => continue,
        };
        // A unit's cells hold one stone each, so `make` cannot fail.
        let _ = board.make(cell % SIZE, cell / SIZE, color);
    }
    let side = if twin::attacker(unit) == twin::WHITE {
        Color::White
    } else {
        Color::Black
    };
    (board, side)
}

/// The rule's table and the limits as the kernel's parameter block
/// ([`kernels::gomoku::TableWords`]).
pub fn table_words(table: &Table, depth: u32, nodes: u64) -> Vec<u64> {
    let patterns = table.patterns();
    let mut words = Vec::with_capacity(twin::table_words(patterns.len()));
    words.extend_from_slice(&[
        twin::TABLE_FORMAT,
        patterns.len() as u64,
        u64::from(depth.min(twin::MAX_DEPTH as u32)),
        nodes,
    ]);
    for pattern in patterns {
        for side in &pattern.by_color {
            words.push(
                u64::from(side.five) | u64::from(side.open_four) << 16 | u64::from(side.four) << 32,
            );
        }
    }
    words.extend(table.indices().chunks(4).map(|four| {
        four.iter().enumerate().fold(0u64, |word, (i, &index)| {
            word | u64::from(index) << (16 * i)
        })
    }));
    words.extend_from_slice(table.high_bits());
    words
}

/// One result's answer.
fn answer(result: &[u64]) -> Answer {
    let (kind, moves) = (result[0] & 0xFF, (result[0] >> 8) as usize);
    let verdict = match kind {
        verdict::WIN => "vcf",
        verdict::NONE => "none exists",
        verdict::LIMIT => "limit reached",
        _ => "not run",
    };
    let moves = (0..moves.min(2 * twin::MAX_DEPTH))
        .map(|i| {
            let cell = (result[2 + i / 8] >> (8 * (i % 8))) as usize & 0xFF;
            (cell % SIZE, cell / SIZE)
        })
        .collect();
    Answer {
        verdict: verdict.into(),
        moves,
        nodes: result[1],
    }
}

impl Search for Batch {
    type Partial = Answers;
    const UNIT_WORDS: usize = POSITION_WORDS;
    const RESULT_WORDS: usize = RESULT_WORDS;

    fn problem(&self) -> &str {
        match self.rule {
            Rule::Freestyle => "gomoku-vcf-freestyle",
            Rule::Standard => "gomoku-vcf-standard",
        }
    }

    fn size(&self) -> u32 {
        (self.units.len() / POSITION_WORDS) as u32
    }

    fn units(&self) -> Vec<u64> {
        self.units.clone()
    }

    fn params(&self) -> Vec<u64> {
        self.words.clone()
    }

    fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
        if let Some(tables) = twin::TableWords::new(&self.words) {
            twin::vcf(&tables, unit, result);
        }
    }

    fn partial(&self, results: &UnitResults<'_>) -> Answers {
        Answers(results.iter().map(|unit| answer(unit.result)).collect())
    }

    fn kernel(&self) -> Option<Kernel> {
        Some(Kernel {
            ptx: crate::builtin::KERNELS.ptx,
            native: crate::builtin::KERNELS.native,
            name: "warpsearch_gomoku_vcf",
        })
    }

    fn launch(&self) -> Launch {
        Launch::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gomoku::vcf::{self, Limits, Verdict};
    use kernels::rng::SplitMix64;

    /// The batch's twin and the single-position solver agree on whether a VCF exists, and
    /// every sequence the batch finds checks move by move.
    #[test]
    fn the_batch_agrees_with_the_solver_and_its_sequences_check() {
        let mut random = SplitMix64::new(11, 5);
        let mut positions = Vec::new();
        for round in 0..400 {
            let rule = Rule::Freestyle;
            let stones = 10 + random.below(26) as usize;
            let board = vcf::random_position(rule, &mut random, stones);
            let side = if round % 2 == 0 {
                vcf::side_to_move(&board)
            } else {
                vcf::side_to_move(&board).other()
            };
            // Positions with a five already on the board are errors for both: left out.
            if vcf::search(&board, side, Limits::default()).is_ok() {
                positions.push((board, side));
            }
        }
        let batch = Batch::new(Rule::Freestyle, &positions, 60, 10_000_000);
        let backend = crate::Backend::Cpu(crate::backend::cpu_pool(Some(2)).unwrap());
        let answers = batch.solve(&backend, &crate::RunControl::quiet()).unwrap();
        assert_eq!(answers.len(), positions.len());
        let mut wins = 0;
        for ((board, side), answer) in positions.iter().zip(&answers) {
            let solver = vcf::search(board, *side, Limits::default()).unwrap();
            match (&solver.verdict, answer.verdict.as_str()) {
                (Verdict::Win(_), "vcf") => {
                    vcf::check(board, *side, &answer.moves).unwrap();
                    wins += 1;
                }
                (Verdict::NoneExists, "none exists") => assert!(answer.moves.is_empty()),
                (expected, got) => panic!("solver {expected:?}, batch {got}"),
            }
        }
        assert!(
            wins > 50 && wins < answers.len() - 50,
            "{wins} of {}",
            answers.len()
        );
    }
}
