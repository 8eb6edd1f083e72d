//! The search: threat-space proofs (VCF, VCT) and an iteratively deepened principal-variation
//! search with a shared transposition table, run by one thread or many (lazy SMP).
//!
//! Every node starts from the threats the board's pattern counts show: a five of the side to
//! move wins; the opponent's five must be blocked (a forced move, searched without using
//! depth); an open four wins when the opponent has no four to reply with; and when the opponent
//! threatens an open four, only the cells that stop it and the side's own fours are searched.
//! Other nodes try every cell within two of a stone, best pattern score first. At depth zero a
//! quiescence search plays fours only (a bounded VCF) before it trusts the evaluation.

use super::board::{Board, CELLS, Cell, Shape, opponent};
use super::knobs::{Knobs, LateMove};
use super::pattern::{BLACK, EMPTY, GameRule, Pattern, WHITE};
use super::policy;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

mod proof;

/// The score of a five on the board now; a win in `n` plies scores `WIN - n`.
pub const WIN: i32 = 30_000;
/// Scores beyond this are proven wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// The deepest ply a search reaches.
const MAX_PLY: usize = 128;
/// One ply in the units of a node's remaining depth: depth is counted in sixteenths of a ply, so
/// that an extension or a reduction can be a fraction of one (as Rapfi's are). Margins and
/// move-count tables read the depth rounded up to whole plies.
const PLY: i32 = 16;
/// When a search stops.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Stop at this instant (the last finished iteration's move is played).
    pub deadline: Option<Instant>,
    /// Stop after this many nodes (summed over threads): the same moves on every machine.
    pub nodes: Option<u64>,
    /// Deepest iteration.
    pub depth: Option<u32>,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The move to play.
    pub best: Cell,
    /// Its score for the side to move (`WIN - n`: wins in n plies).
    pub score: i32,
    /// The last iteration completed (0 for moves found without the tree search).
    pub depth: u32,
    /// Nodes searched, all threads.
    pub nodes: u64,
    /// How the move was found.
    pub reason: Reason,
}

/// How a move was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The first move on an empty board.
    Opening,
    /// It makes five.
    Five,
    /// It blocks the opponent's only five point.
    Block,
    /// The first move of a proven VCF.
    Vcf,
    /// The first move of a proven VCT.
    Vct,
    /// The principal-variation search.
    Search,
}

/// The transposition table, shared by threads without locks: each entry stores the key XORed
/// with its data, so a torn write reads as a miss.
pub struct Table {
    entries: Vec<[AtomicU64; 2]>,
    mask: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact = 1,
    Lower = 2,
    Upper = 3,
}

impl Bound {
    /// What a search's `score` is, with the window it was given (`alpha` as it came in).
    fn of(score: i32, alpha: i32, beta: i32) -> Bound {
        if score >= beta {
            Bound::Lower
        } else if score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// Whether a stored `score` with this bound decides a node searched with (`alpha`, `beta`).
    fn settles(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }
}

#[derive(Clone, Copy)]
struct Entry {
    best: Cell,
    score: i32,
    depth: i32,
    bound: Bound,
}

impl Table {
    /// A table of about `megabytes` MB (rounded down to a power of two entries).
    pub fn new(megabytes: usize) -> Table {
        let wanted = (megabytes.max(1) << 20) / 16;
        let size = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        Table {
            entries: (0..size)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            mask: size - 1,
        }
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        for entry in &self.entries {
            entry[0].store(0, Ordering::Relaxed);
            entry[1].store(0, Ordering::Relaxed);
        }
    }

    fn probe(&self, hash: u64) -> Option<Entry> {
        let slot = &self.entries[hash as usize & self.mask];
        let data = slot[1].load(Ordering::Relaxed);
        if data == 0 || slot[0].load(Ordering::Relaxed) ^ data != hash {
            return None;
        }
        let bound = match (data >> 48) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(Entry {
            best: (data & 0xFFFF) as Cell,
            score: ((data >> 16) & 0xFFFF) as u16 as i16 as i32,
            depth: ((data >> 32) & 0xFFFF) as i32,
            bound,
        })
    }

    /// Stores a quiescence result (depth 0) unless the slot holds another position's entry
    /// from the main search, which is worth more than it.
    fn store_shallow(&self, hash: u64, entry: Entry) {
        let slot = &self.entries[hash as usize & self.mask];
        let old = slot[1].load(Ordering::Relaxed);
        let same = slot[0].load(Ordering::Relaxed) ^ old == hash;
        if old != 0 && !same && (old >> 32) & 0xFFFF > 0 {
            return;
        }
        self.store(hash, entry);
    }

    fn store(&self, hash: u64, entry: Entry) {
        let slot = &self.entries[hash as usize & self.mask];
        let old = slot[1].load(Ordering::Relaxed);
        let old_depth = ((old >> 32) & 0xFFFF) as i32;
        let same = slot[0].load(Ordering::Relaxed) ^ old == hash;
        if same && old_depth > entry.depth && entry.bound != Bound::Exact {
            return;
        }
        let data = (entry.best as u64 & 0xFFFF)
            | (u64::from(entry.score as i16 as u16) << 16)
            | ((entry.depth.clamp(0, 0xFFFF) as u64) << 32)
            | ((entry.bound as u64) << 48);
        slot[0].store(hash ^ data, Ordering::Relaxed);
        slot[1].store(data, Ordering::Relaxed);
    }
}

/// The principal variation of a search of `board` that chose `first`: that move, then the
/// best moves `table` holds followed from position to position while each is an empty cell
/// that does not end the game, `plies` moves at most. (The root is not stored in the table,
/// so its move is given.) The position at the end is the leaf whose evaluation the search's
/// score came from, as far as the table kept the line.
pub fn principal_variation(board: &Board, first: Cell, table: &Table, plies: usize) -> Vec<Cell> {
    let mut board = board.clone();
    let mut line = Vec::new();
    let mut next = Some(first);
    while let Some(cell) = next
        && line.len() < plies
        && cell < CELLS
        && board.at(cell) == EMPTY
    {
        board.place(cell, board.side_to_move());
        if board.wins_at(cell) {
            break;
        }
        line.push(cell);
        next = table.probe(board.hash()).map(|entry| entry.best);
    }
    line
}

/// A mate score as stored (relative to the node) from one relative to the root.
fn to_table(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score + ply as i32
    } else if score < -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score - ply as i32
    } else if score < -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The hand-set move-ordering bonus of a cell where the side to move makes `mine` and the
/// opponent would make `theirs`: threats that win or force a win come first.
pub fn shape_bonus(mine: Shape, theirs: Shape) -> i32 {
    let mine = match mine {
        Shape::FourThree => 3_000,
        Shape::DoubleThree => 1_000,
        Shape::Four => 200,
        _ => 0,
    };
    let theirs = match theirs {
        Shape::FourThree => 1_500,
        Shape::DoubleThree => 500,
        _ => 0,
    };
    mine + theirs
}

/// A candidate move with what it makes for both sides.
#[derive(Clone, Copy)]
struct Candidate {
    cell: Cell,
    score: i32,
    mine: Shape,
    theirs: Shape,
}

/// How a node starts.
enum Start {
    /// Its score is known.
    Decided(i32),
    /// The opponent's only five point must be blocked.
    Forced(Cell),
    /// A node to search.
    Open,
}

/// What a node's scan of the empty cells near stones found.
struct Scan {
    candidates: Vec<Candidate>,
    /// The opponent can make an open four (or two fours) with one move.
    threatened: bool,
    /// A cell where the side to move makes an open four (allowed for it).
    open_four: Option<Cell>,
    /// The cells where the opponent makes an open four or two fours (allowed for it): the
    /// threats a defence must take away.
    threats: Vec<Cell>,
}

impl Scan {
    /// A VCT attacker's moves: the fours and open threes, fours first, then by score; at
    /// most 16.
    fn threats_to_make(&self) -> Vec<Cell> {
        let mut moves: Vec<&Candidate> = self
            .candidates
            .iter()
            .filter(|c| c.mine >= Shape::Three)
            .collect();
        moves.sort_by(|a, b| b.mine.cmp(&a.mine).then(b.score.cmp(&a.score)));
        moves.truncate(16);
        moves.iter().map(|c| c.cell).collect()
    }

    /// A VCT defender's moves against a threat: every cell where the attacker would make a
    /// four (each real defence is one) and the defender's own fours.
    fn answers_to_threats(&self) -> Vec<Cell> {
        self.candidates
            .iter()
            .filter(|c| c.theirs >= Shape::Four || c.mine >= Shape::Four)
            .map(|c| c.cell)
            .collect()
    }
}

/// One thread's searcher.
struct Searcher<'a> {
    board: Board,
    table: &'a Table,
    stop: &'a AtomicBool,
    shared_nodes: &'a AtomicU64,
    limits: Limits,
    nodes: u64,
    flushed: u64,
    killers: [[Cell; 2]; MAX_PLY],
    history: Box<[[i32; CELLS]; 2]>,
    /// By side and the opponent's last move: the reply that last cut a node off
    /// (`counter_move`; 0 for none).
    counters: Box<[[Cell; CELLS]; 2]>,
    /// The depth of the iteration under way (threat extensions stop two plies below it).
    root_depth: usize,
    /// False below a null move (no two in a row).
    null_allowed: bool,
    /// Static evaluations of the nodes on the current path, by ply (for "improving").
    evals: [i32; MAX_PLY],
    /// Whether the node at each ply of the current path is expected to fail high (a
    /// null-window search that is not the first move's; used by `wide_lmr` only).
    cut_nodes: [bool; MAX_PLY],
    /// The move a singular-extension test leaves out of the node at each ply (`singular`).
    excluded: [Option<Cell>; MAX_PLY],
    /// Plies of double singular extension on the path to each ply (`singular_double`).
    double_extended: [i32; MAX_PLY],
    /// Whether the move being searched at each ply of the current path makes a four.
    four_moves: [bool; MAX_PLY],
    knobs: &'static Knobs,
}

impl<'a> Searcher<'a> {
    fn new(
        board: Board,
        table: &'a Table,
        stop: &'a AtomicBool,
        shared_nodes: &'a AtomicU64,
        limits: Limits,
    ) -> Searcher<'a> {
        Searcher {
            board,
            table,
            stop,
            shared_nodes,
            limits,
            nodes: 0,
            flushed: 0,
            killers: [[0; 2]; MAX_PLY],
            history: Box::new([[0; CELLS]; 2]),
            counters: Box::new([[0; CELLS]; 2]),
            root_depth: 0,
            null_allowed: true,
            evals: [0; MAX_PLY],
            cut_nodes: [false; MAX_PLY],
            excluded: [None; MAX_PLY],
            double_extended: [0; MAX_PLY],
            four_moves: [false; MAX_PLY],
            knobs: Knobs::get(),
        }
    }

    /// Counts a node; true when the search must stop.
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & 511 == 0 {
            let total = self
                .shared_nodes
                .fetch_add(self.nodes - self.flushed, Ordering::Relaxed)
                + (self.nodes - self.flushed);
            self.flushed = self.nodes;
            if self.limits.nodes.is_some_and(|limit| total >= limit)
                || self.limits.deadline.is_some_and(|d| Instant::now() >= d)
            {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        self.stop.load(Ordering::Relaxed)
    }

    fn flush(&mut self) {
        self.shared_nodes
            .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
    }

    /// True when `color` may play `cell` (renju forbids some of black's).
    #[inline]
    fn allowed(&mut self, cell: Cell, color: u8) -> bool {
        if color != BLACK || self.board.rule() != GameRule::Renju {
            return true;
        }
        let patterns = self.board.patterns(cell, BLACK);
        let suspicious = patterns.contains(&Pattern::Forbidden)
            || patterns.iter().filter(|p| p.is_four()).count() >= 2
            || patterns.iter().filter(|&&p| p == Pattern::F3).count() >= 2;
        !(suspicious && self.board.is_forbidden(cell))
    }

    /// Scans the empty cells near stones for the side to move, `me`.
    fn scan(&mut self, me: u8) -> Scan {
        let them = opponent(me);
        let mut candidates = Vec::with_capacity(64);
        let mut threats = Vec::new();
        let mut open_four = None;
        // Read only by the policy's distance terms.
        let recent = if self.knobs.policy > 0 {
            self.last_two()
        } else {
            [None; 2]
        };
        for i in 0..self.board.board_cells().len() {
            let cell = self.board.board_cells()[i];
            if self.board.at(cell) != EMPTY || !self.board.is_near(cell) {
                continue;
            }
            let (my_shape, their_shape) =
                (self.board.shape(cell, me), self.board.shape(cell, them));
            if their_shape >= Shape::OpenFour && self.allowed(cell, them) {
                threats.push(cell);
            }

            if !self.allowed(cell, me) {
                continue;
            }
            if my_shape >= Shape::OpenFour && open_four.is_none() {
                open_four = Some(cell);
            }
            let mut score = self.board.attack(cell, me) + self.board.defence(cell, them);
            if self.knobs.policy > 0 {
                score += policy::near(&self.board, cell, recent) * self.knobs.policy / 100;
            }
            // With `policy_alone=2`, cells where either side makes an open three or more stay
            // ahead of the policy's quiet moves (and so inside the cap on candidates).
            if self.knobs.policy_alone == 2
                && (my_shape >= Shape::Three || their_shape >= Shape::Three)
            {
                score += 100_000;
            }
            // The shape bonuses are in the policy's own tables when it orders alone.
            if self.knobs.policy_alone == 0 {
                score += shape_bonus(my_shape, their_shape);
            }
            candidates.push(Candidate {
                cell,
                score,
                mine: my_shape,
                theirs: their_shape,
            });
        }
        Scan {
            candidates,
            threatened: !threats.is_empty(),
            open_four,
            threats,
        }
    }

    /// The opponent's five points when it has any: Err(score) when the node is decided
    /// (two five points, or the only one forbidden to `me`), Ok(Some(cell)) for the forced
    /// block, Ok(None) when there is nothing to block.
    #[inline]
    fn forced_block(&mut self, me: u8, ply: usize) -> Result<Option<Cell>, i32> {
        let them = opponent(me);
        if self.board.five_count(them) == 0 {
            return Ok(None);
        }
        let cells = self.board.five_cells(them);
        match cells.as_slice() {
            [] => Ok(None),
            [cell] if self.allowed(*cell, me) => Ok(Some(*cell)),
            _ => Err(-(WIN - ply as i32 - 1)),
        }
    }

    /// What every node checks first: the stop, a five of the side to move, a full board or
    /// the deepest ply, and the opponent's five points.
    fn enter(&mut self, me: u8, ply: usize) -> Start {
        if self.tick() {
            return Start::Decided(0);
        }
        if self.board.five_count(me) > 0 {
            return Start::Decided(WIN - ply as i32);
        }
        if self.board.is_full() || ply + 2 >= MAX_PLY {
            return Start::Decided(0);
        }
        match self.forced_block(me, ply) {
            Err(score) => Start::Decided(score),
            Ok(Some(cell)) => Start::Forced(cell),
            Ok(None) => Start::Open,
        }
    }

    fn quiesce(&mut self, mut alpha: i32, beta: i32, ply: usize, fours: u32) -> i32 {
        let me = self.me();
        match self.enter(me, ply) {
            Start::Decided(score) => return score,
            Start::Forced(cell) => {
                self.board.place(cell, me);
                let score = -self.quiesce(-beta, -alpha, ply + 1, fours);
                self.board.undo();
                return score;
            }
            Start::Open => {}
        }
        // With `q_table`, the table's bounds cut here too (an entry of any depth: a main
        // search's is at least as deep), and the four search's results are kept.
        let hash = self.board.hash();
        if self.knobs.q_table > 0
            && let Some(entry) = self.table.probe(hash)
        {
            let score = from_table(entry.score, ply);
            if entry.bound.settles(score, alpha, beta) {
                return score;
            }
        }
        let stand = self.board.evaluate(me);
        if stand >= beta {
            return stand;
        }
        // Delta pruning (`q_delta`, off the principal variation): a four sequence that wins
        // nothing rarely lifts the evaluation that far.
        if self.knobs.q_delta > 0 && beta - alpha == 1 && stand + self.knobs.q_delta < alpha {
            return alpha;
        }
        let original_alpha = alpha;
        alpha = alpha.max(stand);
        if fours == 0 || self.board.four_count(me) == 0 {
            return alpha;
        }
        let them = opponent(me);
        let narrow = self.knobs.q_narrow > 0;
        let own_last = self.last_two()[1];
        let first_level = fours == self.knobs.quiescence_fours;
        let mut moves: Vec<(Cell, Shape)> = Vec::new();
        for i in 0..self.board.board_cells().len() {
            let cell = self.board.board_cells()[i];
            if self.board.at(cell) != EMPTY || !self.board.is_near(cell) {
                continue;
            }
            let shape = self.board.shape(cell, me);
            if shape >= Shape::Four && self.allowed(cell, me) {
                if shape >= Shape::OpenFour && self.board.four_count(them) == 0 {
                    return WIN - ply as i32 - 2;
                }
                if narrow
                    && (own_last.is_some_and(|last| !Board::in_reach(last, cell))
                        || (!first_level || self.knobs.q_narrow > 1)
                            && shape == Shape::Four
                            && !self.board.makes_two_lines(cell, me))
                {
                    continue;
                }
                moves.push((cell, shape));
            }
        }
        moves.sort_by_key(|m| std::cmp::Reverse(m.1));
        moves.truncate(self.knobs.quiescence_width);
        let mut best_move = None;
        for (cell, _) in moves {
            self.board.place(cell, me);
            let score = -self.quiesce(-beta, -alpha, ply + 1, fours - 1);
            self.board.undo();
            if self.stop.load(Ordering::Relaxed) {
                return 0;
            }
            if score > alpha {
                alpha = score;
                best_move = Some(cell);
                if alpha >= beta {
                    break;
                }
            }
        }
        if self.knobs.q_table > 0
            && let Some(best) = best_move
        {
            let bound = Bound::of(alpha, original_alpha, beta);
            self.table.store_shallow(
                hash,
                Entry {
                    best,
                    score: to_table(alpha, ply),
                    depth: 0,
                    bound,
                },
            );
        }
        alpha
    }

    /// True when a stone on empty `cell` makes no open two or closed three, or better, for
    /// either side.
    fn is_trivial(&self, cell: Cell) -> bool {
        [BLACK, WHITE].iter().all(|&color| {
            self.board
                .patterns(cell, color)
                .iter()
                .all(|&p| p < Pattern::F2 || p == Pattern::Forbidden)
        })
    }

    /// Whether `me`'s stone on `cell` leaves none of the opponent's `threats` (its open-four and
    /// double-four cells) standing. A stone of `me` only takes from the opponent's lines, so
    /// no threat appears that was not there before.
    fn defends(&mut self, cell: Cell, me: u8, threats: &[Cell]) -> bool {
        let them = opponent(me);
        self.board.place(cell, me);
        let stopped = threats.iter().all(|&threat| {
            threat == cell
                || self.board.shape(threat, them) < Shape::OpenFour
                || !self.allowed(threat, them)
        });
        self.board.undo();
        stopped
    }

    /// The last two stones: the opponent's last, then the side's own before it.
    #[inline]
    fn last_two(&self) -> [Option<Cell>; 2] {
        let played = self.board.moves();
        let n = played.len();
        [n.checked_sub(1), n.checked_sub(2)].map(|i| i.map(|i| played[i]))
    }

    #[inline]
    fn me(&self) -> u8 {
        self.board.side_to_move()
    }

    /// The moves of a node, best first: the opponent's open-four threats leave only the
    /// cells that stop them and the side's own fours. Below the root, at most
    /// `moves_per_node` of them (`pv_moves` at a PV node, when set).
    fn ordered_moves(
        &mut self,
        scan: &Scan,
        me: u8,
        ply: usize,
        hash_move: Option<Cell>,
        pv: bool,
    ) -> Vec<Cell> {
        let side = usize::from(me - 1);
        let last = self.board.moves().last().copied();
        let counter = last.map_or(0, |l| self.counters[side][l]);
        // Against a threat, a move is the side's own four or a cell where the opponent would
        // make a four: every defence is one (a stone that stops an open four or a double four
        // sits where the attacker's stone would make a four).
        let answers =
            |c: &&Candidate| !scan.threatened || c.theirs >= Shape::Four || c.mine >= Shape::Four;
        // With `exact_defence`, only the real defences of those (and the side's fours); none
        // means the node is lost, and the wider set lets the search say so. Renju's black
        // threats are left wide: a white stone can lift a forbidden point and so make a threat
        // that was not there.
        let renju_black = self.board.rule() == GameRule::Renju && me == WHITE;
        let mut exact: Vec<Cell> = Vec::new();
        if scan.threatened && self.knobs.exact_defence > 0 && !renju_black {
            for c in scan.candidates.iter().filter(answers) {
                if c.mine >= Shape::Four || self.defends(c.cell, me, &scan.threats) {
                    exact.push(c.cell);
                }
            }
        }
        let mut moves: Vec<(i32, Cell)> = scan
            .candidates
            .iter()
            .filter(answers)
            .filter(|c| exact.is_empty() || exact.contains(&c.cell))
            .map(|c| {
                let mut key = c.score + self.history[side][c.cell].min(5_000) / 8;
                if self.knobs.near_order != 0 && last.is_some_and(|l| Board::in_reach(l, c.cell)) {
                    key += self.knobs.near_order;
                }
                if self.knobs.counter_move != 0 && c.cell == counter {
                    key += self.knobs.counter_move;
                }
                if Some(c.cell) == hash_move {
                    key += 1 << 24;
                } else if self.killers[ply].contains(&c.cell) {
                    key += 1 << 20;
                }
                (key, c.cell)
            })
            .collect();
        let order = |a: &(i32, Cell), b: &(i32, Cell)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        let keep = if pv && self.knobs.pv_moves > 0 {
            self.knobs.pv_moves
        } else {
            self.knobs.moves_per_node
        };
        if !scan.threatened && ply > 0 && moves.len() > keep {
            // Only the best `keep` are searched: pick them, then order just those (the order
            // is total, so this is the full sort's prefix).
            moves.select_nth_unstable_by(keep.saturating_sub(1), order);
            moves.truncate(keep);
        }
        moves.sort_unstable_by(order);
        moves.into_iter().map(|(_, cell)| cell).collect()
    }

    /// The score of the node at `ply` within (`alpha`, `beta`), searched `fine` sixteenths of a
    /// ply deep (see [`PLY`]).
    fn search(&mut self, fine: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        let me = self.me();
        match self.enter(me, ply) {
            Start::Decided(score) => return score,
            Start::Forced(cell) => {
                // A forced block uses no depth (or less than none, `forced_ext`, held below a
                // ply so that a four and its block still cost some); its evaluation is the
                // last node's.
                self.evals[ply] = if ply > 0 { -self.evals[ply - 1] } else { 0 };
                self.cut_nodes[ply + 1] = beta - alpha == 1 && !self.cut_nodes[ply];
                self.double_extended[ply + 1] = self.double_extended[ply];
                self.four_moves[ply] = false;
                self.board.place(cell, me);
                let extension = self.knobs.forced_ext.clamp(0, PLY - 1);
                let score = -self.search(fine + extension, -beta, -alpha, ply + 1);
                self.board.undo();
                return score;
            }
            Start::Open => {}
        }
        let mut fine = fine;
        if fine <= 0 {
            // An open three of the opponent's is answered before the evaluation is trusted.
            if self.board.open_four_count(opponent(me)) > 0
                && ply < self.root_depth + self.knobs.leaf_threat
            {
                fine = PLY;
            } else {
                return self.quiesce(alpha, beta, ply, self.knobs.quiescence_fours);
            }
        }
        // Mate-distance pruning.
        let best_possible = WIN - ply as i32 - 1;
        if alpha >= best_possible {
            return alpha;
        }
        let hash = self.board.hash();
        let excluded = self.excluded[ply];
        let mut hash_move = None;
        let mut hash_entry = None;
        if let Some(entry) = self.table.probe(hash) {
            if self.board.at(entry.best) == EMPTY {
                hash_move = Some(entry.best);
                hash_entry = Some(entry);
            }
            let score = from_table(entry.score, ply);
            // A singular test's node is the same position less one move: the table's score
            // is not its score.
            if entry.depth >= fine
                && ply > 0
                && excluded.is_none()
                && entry.bound.settles(score, alpha, beta)
            {
                return score;
            }
        }
        // Internal iterative reduction: a node the table knows nothing of is likely new to the
        // search and poorly ordered; it is searched a ply shallower.
        if self.knobs.iir_depth > 0
            && hash_move.is_none()
            && excluded.is_none()
            && fine >= self.knobs.iir_depth * PLY
        {
            fine -= PLY;
        }
        // A PV node whose table move comes from a shallower search (a move the last iterations
        // did not choose) is searched shallower in proportion (`pv_tt_reduction`).
        if let Some(entry) = hash_entry.filter(|_| {
            self.knobs.pv_tt_reduction > 0 && beta - alpha > 1 && excluded.is_none() && fine > PLY
        }) {
            fine -= ((fine - entry.depth) * self.knobs.pv_tt_reduction / PLY).clamp(0, 58);
        }
        // Whole plies, rounded up.
        let depth = (fine + PLY - 1) / PLY;
        let them = opponent(me);
        let pv = beta - alpha > 1;
        let static_eval = self.board.evaluate(me);
        self.evals[ply] = static_eval;
        let improving = ply < 2 || static_eval > self.evals[ply - 2];
        let calm = self.board.open_four_count(them) == 0;
        // Reverse futility: far above beta with the opponent making no threat, a real move
        // keeps the side there.
        let knobs = self.knobs;
        if !pv
            && knobs.rfp > 0
            && depth <= knobs.rfp_depth
            && calm
            && static_eval.abs() < WIN_BOUND
            && beta > -WIN_BOUND
            && static_eval - knobs.rfp * (depth - i32::from(improving)) >= beta
        {
            return static_eval;
        }
        // Razoring: far below alpha near the leaves, only fours can save the node.
        if !pv && knobs.razor > 0 && depth <= 2 && calm && static_eval + knobs.razor * depth < alpha
        {
            return self.quiesce(alpha, alpha + 1, ply, knobs.quiescence_fours);
        }
        // Null move: when passing still leaves the side above beta, a real move will too. Not
        // when the opponent has an open three (a pass would lose to its open four).
        if !pv
            && self.null_allowed
            && excluded.is_none()
            && depth >= 3
            && beta.abs() < WIN_BOUND
            && static_eval >= beta
            && self.board.open_four_count(them) == 0
            && self.board.four_count(me) == 0
        {
            self.board.pass();
            self.null_allowed = false;
            self.cut_nodes[ply + 1] = !self.cut_nodes[ply];
            self.double_extended[ply + 1] = self.double_extended[ply];
            self.four_moves[ply] = false;
            let score = -self.search(
                fine - PLY * (1 + self.knobs.null_reduction),
                -beta,
                -beta + 1,
                ply + 1,
            );
            self.null_allowed = true;
            self.board.pass();
            if self.stop.load(Ordering::Relaxed) {
                return 0;
            }
            if score >= beta {
                return beta;
            }
        }
        let scan = self.scan(me);
        if scan.open_four.is_some() && self.board.four_count(them) == 0 {
            return WIN - ply as i32 - 2;
        }
        let moves = self.ordered_moves(&scan, me, ply, hash_move, pv);
        if moves.is_empty() {
            // Every cell near stones is forbidden or there is none: pass the evaluation.
            return self.board.evaluate(me);
        }
        let original_alpha = alpha;
        let mut best = i32::MIN + 1;
        let mut best_move = moves[0];
        // Defending against an open three: the replies are few, so they cost no depth (up to
        // a path length), and the attacker's threat sequences are seen to their end.
        let depth_cost = if scan.threatened
            && knobs.threat_ext > 0
            && ply < self.root_depth * knobs.threat_ext as usize
        {
            0
        } else {
            1
        };
        let threes_before = self.board.open_four_count(me);
        let recent = self.last_two();
        let cut_node = self.cut_nodes[ply];
        // Far above beta at an expected cut node: the moves but fours are searched shallower
        // (`fail_high`, Rapfi's fail-high reduction).
        let likely_fail_high = knobs.fail_high > 0
            && !pv
            && cut_node
            && static_eval
                >= beta + knobs.fail_high * depth + if calm { 0 } else { knobs.fail_high_threat };
        for (index, &cell) in moves.iter().enumerate() {
            if Some(cell) == excluded {
                continue;
            }
            // Singular extension: when every other move falls well short of the table's
            // move's score in a shallower search, that move is searched a ply deeper; when
            // another also reaches beta there, the node is cut (several moves fail high).
            let mut extension = 0;
            if let Some(entry) = hash_entry.filter(|e| {
                knobs.singular > 0
                    && Some(cell) == hash_move
                    && excluded.is_none()
                    && ply > 0
                    && ply < 2 * self.root_depth
                    && depth >= knobs.singular_depth
                    && e.bound != Bound::Upper
                    && e.depth >= fine - 2 * PLY
                    && from_table(e.score, ply).abs() < WIN_BOUND
            }) {
                let tt_score = from_table(entry.score, ply);
                let singular_beta = tt_score - knobs.singular * depth / 100;
                self.excluded[ply] = Some(cell);
                let value = self.search(depth / 2 * PLY, singular_beta - 1, singular_beta, ply);
                self.excluded[ply] = None;
                self.cut_nodes[ply] = cut_node;
                self.evals[ply] = static_eval;
                if self.stop.load(Ordering::Relaxed) {
                    return 0;
                }
                if value < singular_beta {
                    // Far below: the move is all the node has; two plies (a bounded number
                    // of times on a path).
                    let double = knobs.singular_double > 0
                        && !pv
                        && value < singular_beta - knobs.singular_double
                        && self.double_extended[ply] < knobs.singular_double_max * PLY;
                    extension = if double { 2 * PLY } else { PLY };
                } else if singular_beta >= beta {
                    return singular_beta;
                } else if tt_score >= beta {
                    extension = -knobs.singular_reduction * PLY;
                }
            } else if Some(cell) == hash_move && excluded.is_none() && ply < 2 * self.root_depth {
                // The table's move, not tested for singularity: a fraction of a ply more.
                extension = if pv { knobs.tt_ext_pv } else { knobs.tt_ext };
            }
            let trivial = depth < knobs.trivial_depth && self.is_trivial(cell);
            let late = (knobs.wide_lmr > 0 && index >= 1).then(|| {
                let candidate = scan.candidates.iter().find(|c| c.cell == cell);
                let near = |r: Option<Cell>| r.is_some_and(|r| Board::in_reach(r, cell));
                LateMove {
                    depth,
                    index,
                    pv,
                    improving,
                    cut_node,
                    killer: self.killers[ply].contains(&cell),
                    score: candidate.map_or(0, |c| c.score),
                    counter_four: scan.threatened
                        && candidate.is_some_and(|c| c.theirs < Shape::Four),
                    far_from_theirs: !near(recent[0]),
                    far_from_mine: !near(recent[1]),
                }
            });
            self.board.place(cell, me);
            // A four or a new open three: the move forces a reply and is searched in full.
            let makes_four = self.board.five_count(me) > 0;
            self.four_moves[ply] = makes_four;
            let forcing = makes_four || self.board.open_four_count(me) > threes_before;
            let quiet = !forcing && !scan.threatened;
            // An open three forces a reply too, but there are many of them: with
            // `lmr_threes`, late ones are searched shallower first like quiet moves.
            let reducible = quiet
                || knobs.lmr_threes > 0 && !makes_four && !scan.threatened
                || knobs.lmr_defence > 0 && !makes_four && scan.threatened;
            // Late quiet moves near the leaves are not searched at all, nor quiet moves that
            // cannot lift a hopeless evaluation to alpha.
            let futile = quiet
                && index > 0
                && depth <= 2
                && alpha.abs() < WIN_BOUND
                && static_eval + [0, knobs.futility1, knobs.futility2][depth.max(0) as usize]
                    <= alpha;
            let late_quiet = quiet && index >= knobs.late_moves(depth, improving);
            // Move-count pruning of every kind of move but fours, once one does not lose.
            let counted_out = knobs.lmp_all > 0
                && !makes_four
                && best > -WIN_BOUND
                && index >= knobs.move_count_limit(depth, improving);
            if futile || late_quiet || counted_out || quiet && trivial {
                self.board.undo();
                continue;
            }
            let mut score;
            let free_four = knobs.four_ext > 0
                && self.board.five_count(me) > 0
                && ply < self.root_depth * knobs.four_ext as usize;
            if likely_fail_high {
                if !makes_four {
                    extension -= knobs.fail_high_reduction;
                } else if ply >= 2 && self.four_moves[ply - 2] {
                    // A second four in a row: the attack is searched deeper instead.
                    extension += PLY;
                }
            }
            let mut child = if free_four {
                fine
            } else {
                fine - PLY * depth_cost
            } + extension;
            self.double_extended[ply + 1] = self.double_extended[ply] + (extension - PLY).max(0);
            if index == 0 {
                self.cut_nodes[ply + 1] = !pv && !cut_node;
                score = -self.search(child, -beta, -alpha, ply + 1);
            } else {
                // Late moves are searched shallower first.
                let reduction = if let Some(late) = &late {
                    if depth >= 2 && !makes_four {
                        ((knobs.wide_reduction(late) * f64::from(PLY)).round() as i32)
                            .min(child - PLY)
                            .max(0)
                    } else {
                        0
                    }
                } else if reducible && depth >= 2 && index >= 2 {
                    let far = knobs.far_reduction != 0
                        && !recent.iter().flatten().any(|&r| Board::in_reach(r, cell));
                    ((knobs.reduction(depth, index) + if far { knobs.far_reduction } else { 0 })
                        * PLY)
                        .min(fine - PLY)
                } else {
                    0
                };
                self.cut_nodes[ply + 1] = reduction > 0 || !cut_node;
                score = -self.search(child - reduction, -alpha - 1, -alpha, ply + 1);
                // A reduced move that beats alpha by far is searched a ply deeper than planned.
                if score > alpha && reduction > 0 && knobs.lmr_deeper > 0 {
                    child += PLY * i32::from(score > alpha + knobs.lmr_deeper);
                }
                if score > alpha && reduction > 0 {
                    self.cut_nodes[ply + 1] = !cut_node;
                    score = -self.search(child, -alpha - 1, -alpha, ply + 1);
                }
                if score > alpha && score < beta {
                    self.cut_nodes[ply + 1] = false;
                    score = -self.search(child, -beta, -alpha, ply + 1);
                }
            }
            self.board.undo();
            if self.stop.load(Ordering::Relaxed) {
                return 0;
            }
            if score > best {
                best = score;
                best_move = cell;
            }
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    if !self.killers[ply].contains(&cell) {
                        self.killers[ply] = [cell, self.killers[ply][0]];
                    }
                    let side = usize::from(me - 1);
                    self.history[side][cell] += depth * depth;
                    if let Some(&last) = self.board.moves().last() {
                        self.counters[side][last] = cell;
                    }
                    if knobs.history_malus > 0 {
                        // The moves tried before it did not cut: they move down.
                        for &tried in &moves[..index] {
                            let h = &mut self.history[side][tried];
                            *h = (*h - depth * depth).max(-5_000);
                        }
                    }
                    break;
                }
            }
        }
        if excluded.is_some() {
            // Every move but one: not this position's score.
            return best;
        }
        let bound = Bound::of(best, original_alpha, beta);
        self.table.store(
            hash,
            Entry {
                best: best_move,
                score: to_table(best, ply),
                depth: fine,
                bound,
            },
        );
        best
    }

    /// One iteration at the root over `moves` (reordered best first) with the window
    /// (`low`, `high`); the best move and score, or None when stopped before the first move
    /// was searched. A score at or below `low` is an upper bound (every move failed low); one at
    /// or above `high` is a lower bound (the search stopped at that move).
    fn root(
        &mut self,
        depth: i32,
        moves: &mut Vec<Cell>,
        low: i32,
        high: i32,
    ) -> Option<(Cell, i32)> {
        let me = self.me();
        self.root_depth = depth.max(0) as usize;
        let mut alpha = low;
        let beta = high;
        let mut best: Option<(Cell, i32)> = None;
        for (index, &cell) in moves.iter().enumerate() {
            self.board.place(cell, me);
            let mut score;
            self.double_extended[1] = 0;
            self.four_moves[0] = self.board.five_count(me) > 0;
            if index == 0 {
                self.cut_nodes[1] = false;
                score = -self.search((depth - 1) * PLY, -beta, -alpha, 1);
            } else {
                self.cut_nodes[1] = true;
                score = -self.search((depth - 1) * PLY, -alpha - 1, -alpha, 1);
                if score > alpha && score < beta && !self.stop.load(Ordering::Relaxed) {
                    self.cut_nodes[1] = false;
                    score = -self.search((depth - 1) * PLY, -beta, -alpha, 1);
                }
            }
            self.board.undo();
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((cell, score));
                alpha = alpha.max(score);
            }
            if score >= beta {
                break;
            }
        }
        if let Some((cell, _)) = best {
            // The best first, then the order as it was.
            moves.retain(|&m| m != cell);
            moves.insert(0, cell);
        }
        best
    }

    /// One iteration at the root, first in a window around the last iteration's score
    /// (`last`; `aspiration` wide on each side, 0 for the full window) and wider after a
    /// fail, until the score lies inside it.
    fn root_aspirated(
        &mut self,
        depth: i32,
        moves: &mut Vec<Cell>,
        last: Option<i32>,
    ) -> Option<(Cell, i32)> {
        let full = (-WIN - 1, WIN + 1);
        let mut delta = self.knobs.aspiration;
        let (mut low, mut high) = match last {
            Some(score) if delta > 0 && depth >= 4 && score.abs() < WIN_BOUND => {
                (score - delta, score + delta)
            }
            _ => full,
        };
        loop {
            let result = self.root(depth, moves, low, high);
            if self.stop.load(Ordering::Relaxed) {
                return result;
            }
            let (_, score) = result?;
            if score <= low && low > full.0 {
                delta *= 2;
                low = if delta > 1_000 { full.0 } else { score - delta };
            } else if score >= high && high < full.1 {
                delta *= 2;
                high = if delta > 1_000 { full.1 } else { score + delta };
            } else {
                return result;
            }
        }
    }

    /// Whether `attacker` (to move) wins by continuous fours within `depth` of its own moves.
    /// The first move when it does.
    fn vcf(&mut self, depth: u32, failed: &mut rustc_hash::FxHashMap<u64, u32>) -> Option<Cell> {
        if self.tick() {
            return None;
        }
        let me = self.me();
        let them = opponent(me);
        if self.board.five_count(me) > 0 {
            return self.board.five_cells(me).first().copied();
        }
        if self.board.five_count(them) > 0 {
            // Our four must also block theirs.
            let cells = self.board.five_cells(them);
            let [cell] = cells[..] else { return None };
            if self.board.shape(cell, me) < Shape::Four || !self.allowed(cell, me) {
                return None;
            }
            return self.vcf_move(cell, depth, failed).then_some(cell);
        }
        if depth == 0 {
            return None;
        }
        let hash = self.board.hash();
        if failed.get(&hash).is_some_and(|&d| d >= depth) {
            return None;
        }
        let mut moves: Vec<(Shape, i32, Cell)> = Vec::new();
        for i in 0..self.board.board_cells().len() {
            let cell = self.board.board_cells()[i];
            if self.board.at(cell) != EMPTY || !self.board.is_near(cell) {
                continue;
            }
            let shape = self.board.shape(cell, me);
            if shape >= Shape::Four && self.allowed(cell, me) {
                if shape >= Shape::OpenFour && self.board.four_count(them) == 0 {
                    return Some(cell);
                }
                let score = self.board.attack(cell, me);
                moves.push((shape, score, cell));
            }
        }
        moves.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        for (_, _, cell) in moves {
            if self.vcf_move(cell, depth, failed) {
                return Some(cell);
            }
            if self.stop.load(Ordering::Relaxed) {
                return None;
            }
        }
        failed.insert(hash, depth);
        None
    }

    /// Plays the attacker's four at `cell`, the defender's block, and goes on.
    fn vcf_move(
        &mut self,
        cell: Cell,
        depth: u32,
        failed: &mut rustc_hash::FxHashMap<u64, u32>,
    ) -> bool {
        let me = self.me();
        let them = opponent(me);
        self.board.place(cell, me);
        let result = if self.board.five_count(them) > 0 {
            false // the defender makes five first
        } else {
            let fives = self.board.five_cells(me);
            match fives[..] {
                [] => false,
                [block] if self.allowed(block, them) => {
                    self.board.place(block, them);
                    let won = self.vcf(depth - 1, failed).is_some();
                    self.board.undo();
                    won
                }
                _ => true,
            }
        };
        self.board.undo();
        result
    }

    /// Whether the side to move wins by threats (fours and open threes) within `depth` of its
    /// own moves, against every defence; the first move when it does.
    fn vct(&mut self, depth: u32, failed: &mut rustc_hash::FxHashMap<u64, u32>) -> Option<Cell> {
        if self.tick() {
            return None;
        }
        let me = self.me();
        let them = opponent(me);
        if self.board.five_count(me) > 0 {
            return self.board.five_cells(me).first().copied();
        }
        match self.forced_block(me, 0) {
            Err(_) => return None,
            Ok(Some(cell)) => {
                self.board.place(cell, me);
                let won = self.vct_defend(depth, failed);
                self.board.undo();
                return won.then_some(cell);
            }
            Ok(None) => {}
        }
        if depth == 0 {
            return None;
        }
        let hash = self.board.hash() ^ 0x5555;
        if failed.get(&hash).is_some_and(|&d| d >= depth) {
            return None;
        }
        let scan = self.scan(me);
        if let Some(cell) = scan.open_four
            && self.board.four_count(them) == 0
        {
            return Some(cell);
        }
        for cell in scan.threats_to_make() {
            self.board.place(cell, me);
            let won = self.vct_defend(depth - 1, failed);
            self.board.undo();
            if won {
                return Some(cell);
            }
            if self.stop.load(Ordering::Relaxed) {
                return None;
            }
        }
        failed.insert(hash, depth);
        None
    }

    /// The defender to move: true when the attacker wins against every defence.
    fn vct_defend(&mut self, depth: u32, failed: &mut rustc_hash::FxHashMap<u64, u32>) -> bool {
        if self.tick() {
            return false;
        }
        let me = self.me(); // the defender
        let attacker = opponent(me);
        if self.board.five_count(me) > 0 {
            return false;
        }
        match self.forced_block(me, 0) {
            Err(_) => return true,
            Ok(Some(cell)) => {
                self.board.place(cell, me);
                let won = self.vct(depth, failed).is_some();
                self.board.undo();
                return won;
            }
            Ok(None) => {}
        }
        let scan = self.scan(me);
        if !scan.threatened {
            return false; // the attacker's last move threatened nothing
        }
        let _ = attacker;
        for cell in scan.answers_to_threats() {
            self.board.place(cell, me);
            let won = self.vct(depth, failed).is_some();
            self.board.undo();
            if !won || self.stop.load(Ordering::Relaxed) {
                return false;
            }
        }
        true
    }
}

/// Options of a move choice.
#[derive(Clone, Debug)]
pub struct Think {
    /// When to stop.
    pub limits: Limits,
    /// Threads (lazy SMP); 1 searches on the calling thread.
    pub threads: usize,
    /// Share of the time given to the VCF and VCT proofs before the tree search (0..1).
    pub proof_share: f64,
}

impl Default for Think {
    fn default() -> Think {
        Think {
            limits: Limits::default(),
            threads: 1,
            proof_share: 0.1,
        }
    }
}

/// Chooses a move for the side to move on `board`; None on a full board or when no cell near
/// a stone is allowed and the board is not empty.
pub fn think(board: &Board, options: &Think, table: &Table) -> Option<Outcome> {
    let started = Instant::now();
    let me = board.side_to_move();
    let them = opponent(me);
    if board.is_full() {
        return None;
    }
    let outcome = |best, score, reason, nodes| Outcome {
        best,
        score,
        depth: 0,
        nodes,
        reason,
    };
    if board.stones() == 0 {
        let centre = board.cell(board.width() / 2, board.height() / 2);
        return Some(outcome(centre, 0, Reason::Opening, 0));
    }
    if let Some(&cell) = board.five_cells(me).first() {
        return Some(outcome(cell, WIN, Reason::Five, 0));
    }
    let stop = AtomicBool::new(false);
    let nodes = AtomicU64::new(0);
    let mut probe = Searcher::new(board.clone(), table, &stop, &nodes, options.limits);
    let block = probe.forced_block(me, 0);
    match block {
        Ok(Some(cell)) => return Some(outcome(cell, 0, Reason::Block, 0)),
        Err(score) => {
            // Lost: block one five point (or play any allowed cell).
            let cell = board
                .five_cells(them)
                .into_iter()
                .find(|&c| probe.allowed(c, me))
                .or_else(|| any_allowed(&mut probe, me))?;
            return Some(outcome(cell, score, Reason::Block, 0));
        }
        Ok(None) => {}
    }
    // Proofs first, each with a share of the time.
    let proof_deadline = options.limits.deadline.map(|d| {
        let total = d.saturating_duration_since(started);
        started + total.mul_f64(options.proof_share.clamp(0.0, 1.0))
    });
    let proof_nodes = options
        .limits
        .nodes
        .map(|n| (n as f64 * options.proof_share) as u64);
    probe.limits = Limits {
        deadline: proof_deadline,
        nodes: proof_nodes,
        depth: None,
    };
    // A VCF, else a VCT (by proof numbers with `pn_threats`, else deepening to 6 threats).
    let proven = probe
        .vcf(40, &mut rustc_hash::FxHashMap::default())
        .map(|cell| (cell, Reason::Vcf))
        .or_else(|| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let threats = probe.knobs.pn_threats;
            let found = if threats > 0 {
                probe.vct_by_numbers(threats, &mut Default::default())
            } else {
                let mut failed = rustc_hash::FxHashMap::default();
                (2..=6)
                    .map_while(|depth| {
                        let found = probe.vct(depth, &mut failed);
                        (!stop.load(Ordering::Relaxed) || found.is_some()).then_some(found)
                    })
                    .flatten()
                    .next()
            };
            found.map(|cell| (cell, Reason::Vct))
        });
    if let Some((cell, reason)) = proven {
        probe.flush();
        return Some(outcome(
            cell,
            WIN_BOUND,
            reason,
            nodes.load(Ordering::Relaxed),
        ));
    }
    probe.flush();
    stop.store(false, Ordering::Relaxed);
    let root_scan = probe.scan(me);
    let mut root_moves = probe.ordered_moves(&root_scan, me, 0, None, true);
    if root_moves.is_empty() {
        let cell = any_allowed(&mut probe, me)?;
        return Some(outcome(
            cell,
            0,
            Reason::Search,
            nodes.load(Ordering::Relaxed),
        ));
    }
    if root_moves.len() == 1 {
        return Some(outcome(
            root_moves[0],
            0,
            Reason::Search,
            nodes.load(Ordering::Relaxed),
        ));
    }
    // Moves after which the opponent wins by VCF or VCT are dropped (unless all are).
    let safe = refute(&mut probe, &root_moves, options, started);
    if !safe.is_empty() {
        root_moves = safe;
    }
    stop.store(false, Ordering::Relaxed);
    if root_moves.len() == 1 {
        return Some(outcome(
            root_moves[0],
            0,
            Reason::Search,
            nodes.load(Ordering::Relaxed),
        ));
    }
    let max_depth = options.limits.depth.unwrap_or(60).clamp(1, 60) as i32;
    // With `verify_share`, the tree search leaves that share of the time to prove the chosen
    // move safe from the opponent's VCT (see `verified`).
    let verify = f64::from(probe.knobs.verify_share.min(90)) / 100.0;
    let search_limits = Limits {
        deadline: options.limits.deadline.map(|d| {
            let now = Instant::now();
            now + d.saturating_duration_since(now).mul_f64(1.0 - verify)
        }),
        nodes: options.limits.nodes.map(|n| {
            let used = nodes.load(Ordering::Relaxed);
            used + (n.saturating_sub(used) as f64 * (1.0 - verify)) as u64
        }),
        depth: options.limits.depth,
    };
    let search = |limits: Limits, moves: &mut Vec<Cell>| {
        tree_search(
            board,
            table,
            &stop,
            &nodes,
            limits,
            options.threads,
            max_depth,
            moves,
        )
    };
    let (mut cell, mut score, mut depth) = search(search_limits, &mut root_moves);
    if verify > 0.0 && score.abs() < WIN_BOUND {
        // The chosen move, and the next ones while they are lost, against the opponent's VCT;
        // the time left after that goes back to the tree search without the lost moves.
        stop.store(false, Ordering::Relaxed);
        probe.limits = options.limits;
        let lost = lost_moves(&mut probe, &root_moves);
        if lost.len() < root_moves.len() {
            root_moves.retain(|m| !lost.contains(m));
        }
        if !stop.load(Ordering::Relaxed) && root_moves.len() > 1 {
            (cell, score, depth) = search(options.limits, &mut root_moves);
        } else {
            cell = root_moves[0];
        }
    }
    Some(Outcome {
        best: cell,
        score,
        depth,
        nodes: nodes.load(Ordering::Relaxed),
        reason: Reason::Search,
    })
}

/// The root moves, best first, without those after which the opponent has a VCF or a VCT
/// (found within a share of the time); empty when every move checked loses.
fn refute(
    probe: &mut Searcher<'_>,
    moves: &[Cell],
    options: &Think,
    started: Instant,
) -> Vec<Cell> {
    const CHECKED: usize = 24;
    let me = probe.me();
    let phase_end = options.limits.deadline.map(|d| {
        started
            + d.saturating_duration_since(started)
                .mul_f64(options.proof_share + f64::from(probe.knobs.refute_share) / 100.0)
    });
    let per_move_nodes = options
        .limits
        .nodes
        .map(|n| n * u64::from(probe.knobs.refute_share) / 100 / CHECKED as u64);
    let mut kept = Vec::with_capacity(moves.len());
    for (index, &cell) in moves.iter().enumerate() {
        if index >= CHECKED
            || probe.stop.load(Ordering::Relaxed) && phase_end.is_some_and(|e| Instant::now() >= e)
        {
            kept.push(cell);
            continue;
        }
        let left = CHECKED.min(moves.len()) - index;
        probe.stop.store(false, Ordering::Relaxed);
        probe.flush();
        let counted = probe.shared_nodes.load(Ordering::Relaxed);
        probe.limits = Limits {
            deadline: phase_end.map(|e| {
                let now = Instant::now();
                now + e.saturating_duration_since(now) / left as u32
            }),
            nodes: per_move_nodes.map(|n| counted + n),
            depth: None,
        };
        probe.board.place(cell, me);
        let mut failed = rustc_hash::FxHashMap::default();
        let mut lost = probe.vcf(30, &mut failed).is_some();
        if !lost && probe.knobs.pn_threats > 0 && !probe.stop.load(Ordering::Relaxed) {
            let threats = probe.knobs.pn_threats;
            lost = probe
                .vct_by_numbers(threats, &mut Default::default())
                .is_some();
        }
        let mut depth = if probe.knobs.pn_threats > 0 {
            u32::MAX
        } else {
            2
        };
        while !lost && depth <= probe.knobs.refute_vct && !probe.stop.load(Ordering::Relaxed) {
            lost = probe.vct(depth, &mut failed).is_some();
            depth += 1;
        }
        probe.board.undo();
        if !lost {
            kept.push(cell);
        }
    }
    probe.flush();
    probe.limits = options.limits;
    kept
}

/// Iterative deepening over `moves` (reordered best first by each iteration) on `threads`
/// threads (lazy SMP) until `limits`: the best move, its score and the last depth completed.
#[allow(clippy::too_many_arguments)]
fn tree_search(
    board: &Board,
    table: &Table,
    stop: &AtomicBool,
    nodes: &AtomicU64,
    limits: Limits,
    threads: usize,
    max_depth: i32,
    moves: &mut Vec<Cell>,
) -> (Cell, i32, u32) {
    let best = std::sync::Mutex::new((moves[0], 0i32, 0u32));
    std::thread::scope(|scope| {
        for thread in 1..threads.max(1) {
            let mut helper = Searcher::new(board.clone(), table, stop, nodes, limits);
            let mut moves = moves.clone();
            scope.spawn(move || {
                let mut depth = 1 + (thread as i32 % 2);
                while depth <= max_depth && !helper.stop.load(Ordering::Relaxed) {
                    helper.root(depth, &mut moves, -WIN - 1, WIN + 1);
                    depth += 1;
                }
                helper.flush();
            });
        }
        let mut main = Searcher::new(board.clone(), table, stop, nodes, limits);
        for depth in 1..=max_depth {
            let last = (depth > 1).then(|| best.lock().unwrap_or_else(|e| e.into_inner()).1);
            let result = main.root_aspirated(depth, moves, last);
            if let Some((cell, score)) = result {
                let mut best = best.lock().unwrap_or_else(|e| e.into_inner());
                // A stopped iteration's best is kept only when it searched the previous best
                // first (the move list is ordered by the last iteration).
                *best = (
                    cell,
                    score,
                    if stop.load(Ordering::Relaxed) {
                        best.2
                    } else {
                        depth as u32
                    },
                );
                if score.abs() > WIN_BOUND {
                    break;
                }
            }
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
        stop.store(true, Ordering::Relaxed);
        main.flush();
    });
    best.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// The root's moves, in the last iteration's order, after which the opponent has a VCF or a
/// VCT within `pn_threats` threats (10 when that is 0) found by proof numbers before the
/// probe's limits: checked from the first until one is not lost (at most four).
fn lost_moves(probe: &mut Searcher<'_>, moves: &[Cell]) -> Vec<Cell> {
    let me = probe.me();
    let threats = match probe.knobs.pn_threats {
        0 => 10,
        n => n,
    };
    let mut lost = Vec::new();
    for &cell in moves.iter().take(4) {
        probe.board.place(cell, me);
        let wins = probe
            .vcf(30, &mut rustc_hash::FxHashMap::default())
            .is_some()
            || !probe.stop.load(Ordering::Relaxed)
                && probe
                    .vct_by_numbers(threats, &mut Default::default())
                    .is_some();
        probe.board.undo();
        if wins {
            lost.push(cell);
        }
        if !wins || probe.stop.load(Ordering::Relaxed) {
            break;
        }
    }
    probe.flush();
    lost
}

/// Any empty cell `me` may play, nearest the centre first.
fn any_allowed(searcher: &mut Searcher<'_>, me: u8) -> Option<Cell> {
    let board = searcher.board.clone();
    let (cx, cy) = (board.width() as i64 / 2, board.height() as i64 / 2);
    let mut cells: Vec<Cell> = board
        .board_cells()
        .iter()
        .copied()
        .filter(|&c| board.at(c) == EMPTY)
        .collect();
    cells.sort_by_key(|&c| {
        let (x, y) = board.xy(c);
        (x as i64 - cx).abs().max((y as i64 - cy).abs())
    });
    cells.into_iter().find(|&c| searcher.allowed(c, me))
}

/// Runs `proof` on a searcher of `board` limited to `nodes` nodes: its answer and the nodes
/// it searched.
fn proof_within(
    board: &Board,
    nodes: u64,
    proof: impl FnOnce(&mut Searcher<'_>) -> Option<Cell>,
) -> (Option<Cell>, u64) {
    let table = Table::new(1);
    let stop = AtomicBool::new(false);
    let counter = AtomicU64::new(0);
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let mut searcher = Searcher::new(board.clone(), &table, &stop, &counter, limits);
    let found = proof(&mut searcher);
    searcher.flush();
    (found, counter.load(Ordering::Relaxed))
}

/// Proves or refutes a VCF for the side to move within `depth` fours and `nodes` nodes: its
/// first move when one is found.
pub fn find_vcf(board: &Board, depth: u32, nodes: u64) -> (Option<Cell>, u64) {
    proof_within(board, nodes, |searcher| {
        searcher.vcf(depth, &mut rustc_hash::FxHashMap::default())
    })
}

/// [`find_vct`] by proof numbers (see `search/proof.rs`): the same wins, searched where the
/// defender has the fewest answers first.
pub fn find_vct_by_numbers(board: &Board, depth: u32, nodes: u64) -> (Option<Cell>, u64) {
    proof_within(board, nodes, |searcher| {
        searcher.vct_by_numbers(depth, &mut Default::default())
    })
}

/// Proves or refutes a VCT (wins by fours and open threes against every defence) for the side
/// to move within `depth` threats and `nodes` nodes.
pub fn find_vct(board: &Board, depth: u32, nodes: u64) -> (Option<Cell>, u64) {
    proof_within(board, nodes, |searcher| {
        let mut failed = rustc_hash::FxHashMap::default();
        for d in 1..=depth {
            let found = searcher.vct(d, &mut failed);
            if found.is_some() || searcher.stop.load(Ordering::Relaxed) {
                return found;
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_entry_reads_back_as_stored_at_every_depth_in_sixteenths_of_a_ply() {
        let table = Table::new(1);
        for (i, depth) in [1, PLY, 60 * PLY, 0xFFFF].into_iter().enumerate() {
            let hash = 0x9E37_79B9_7F4A_7C15_u64.wrapping_mul(i as u64 + 1);
            for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                for score in [-(WIN - 7), -1, 0, 250, WIN - 3] {
                    table.clear();
                    let best = 100 + i as Cell;
                    table.store(
                        hash,
                        Entry {
                            best,
                            score,
                            depth,
                            bound,
                        },
                    );
                    let entry = table.probe(hash);
                    assert!(
                        entry.is_some_and(|e| e.best == best
                            && e.score == score
                            && e.depth == depth
                            && e.bound == bound),
                        "depth {depth}, score {score}: read back differently"
                    );
                    assert!(table.probe(hash ^ (1 << 40)).is_none(), "another key hit");
                }
            }
        }
    }

    #[test]
    fn a_deeper_bound_is_not_replaced_by_a_shallower_one() {
        let table = Table::new(1);
        let entry = |depth, bound| Entry {
            best: 40,
            score: 10,
            depth,
            bound,
        };
        table.store(7, entry(20 * PLY, Bound::Lower));
        table.store(7, entry(3 * PLY, Bound::Upper));
        assert!(table.probe(7).is_some_and(|e| e.depth == 20 * PLY));
        // An exact score replaces it whatever its depth.
        table.store(7, entry(3 * PLY, Bound::Exact));
        assert!(
            table
                .probe(7)
                .is_some_and(|e| e.depth == 3 * PLY && e.bound == Bound::Exact)
        );
    }
}
