//! Threat proofs by proof numbers: the same VCT as [`Searcher::vct`] (the attacker's fours and
//! open threes, against every cell that stops a threat and the defender's own fours), searched
//! depth-first by proof and disproof numbers (df-pn) instead of by iterative deepening.
//!
//! A fixed-depth search spends its nodes evenly over the attacker's threats; proof numbers go
//! where the defender has the fewest answers, which is where a threat sequence is proven. The
//! moves at each node are [`Searcher::vct`]'s, so a proof here is a proof there at the same
//! number of threats, and the answers agree whenever both searches finish.
//!
//! Stones are only ever added, so the positions form a graph without cycles: the table of
//! numbers needs no path information, only the threats left (part of its key).

use super::{Searcher, opponent};
use crate::gomoku::engine::board::Cell;
use rustc_hash::FxHashMap;
use std::sync::atomic::Ordering;

/// A number no proof reaches: proven (disproven) nodes have a disproof (proof) number of it.
const INFINITE: u32 = 1 << 28;

/// Proof and disproof numbers of the nodes searched so far, by position and threats left.
pub(super) type Numbers = FxHashMap<u64, (u32, u32)>;

/// A node: the attacker to move (it needs one threat that wins) or the defender (every
/// answer must lose).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Turn {
    Attacker,
    Defender,
}

impl Turn {
    fn other(self) -> Turn {
        match self {
            Turn::Attacker => Turn::Defender,
            Turn::Defender => Turn::Attacker,
        }
    }

    /// A pair of (proof, disproof) numbers as (the one the node takes the least of over its
    /// children, the one it sums), and back: an attacker's node is proven by one child, a
    /// defender's disproven by one.
    fn own_first(self, (a, b): (u32, u32)) -> (u32, u32) {
        match self {
            Turn::Attacker => (a, b),
            Turn::Defender => (b, a),
        }
    }
}

impl Searcher<'_> {
    /// The attacker (the side to move) wins by threats within `threats` threat moves: its
    /// first move, when proven within the node limit.
    pub(super) fn vct_by_numbers(&mut self, threats: u32, numbers: &mut Numbers) -> Option<Cell> {
        let (proof, _) = self.prove(Turn::Attacker, threats, INFINITE - 1, INFINITE - 1, numbers);
        if proof != 0 {
            return None;
        }
        // The move that proves it: a five, the forced block, an open four or a proven child.
        let me = self.me();
        if let Some(&cell) = self.board.five_cells(me).first() {
            return Some(cell);
        }
        let moves = self.children(Turn::Attacker, threats);
        moves
            .children
            .into_iter()
            .find(|(_, key)| numbers.get(key).is_some_and(|&(p, _)| p == 0))
            .map(|(cell, _)| cell)
            .or_else(|| self.scan(me).open_four)
    }

    /// Searches the node until its proof number reaches `proof_limit` or its disproof number
    /// `disproof_limit` (or the search must stop); its numbers.
    fn prove(
        &mut self,
        turn: Turn,
        threats: u32,
        proof_limit: u32,
        disproof_limit: u32,
        numbers: &mut Numbers,
    ) -> (u32, u32) {
        let key = self.node_key(turn, threats);
        if self.tick() {
            return numbers.get(&key).copied().unwrap_or((1, 1));
        }
        let Moves {
            children,
            forced,
            decided,
        } = self.children(turn, threats);
        if let Some(result) = decided {
            numbers.insert(key, result);
            return result;
        }
        let next = turn.other();
        let mover = self.me();
        let mut result;
        loop {
            // An attacker's node is proven by its best child and disproven by all of them; a
            // defender's the other way round. `own` is the number the node takes the least of,
            // `other` the one it sums.
            let (mut least, mut second, mut sum, mut best) = (INFINITE, INFINITE, 0u32, 0);
            for (index, &(_, child)) in children.iter().enumerate() {
                let (p, d) = numbers.get(&child).copied().unwrap_or((1, 1));
                let (own, other) = turn.own_first((p, d));
                if own < least {
                    second = least;
                    least = own;
                    best = index;
                } else if own < second {
                    second = own;
                }
                sum = (sum + other).min(INFINITE);
            }
            result = turn.own_first((least, sum));
            let (own_limit, other_limit) = turn.own_first((proof_limit, disproof_limit));
            if least >= own_limit || sum >= other_limit || self.stop.load(Ordering::Relaxed) {
                break;
            }
            let (cell, child) = children[best];
            let (_, child_other) = turn.own_first(numbers.get(&child).copied().unwrap_or((1, 1)));
            // The best child is searched until it is no longer best (a quarter more than the
            // second's number, which keeps the search from switching back and forth) or the
            // node's sum reaches its limit.
            let own_child_limit = own_limit.min(second.saturating_add(second / 4 + 1));
            let other_child_limit = (other_limit - sum)
                .saturating_add(child_other)
                .min(INFINITE);
            let child_threats = threats - u32::from(turn == Turn::Attacker && !forced);
            self.board.place(cell, mover);
            let (child_proof, child_disproof) =
                turn.own_first((own_child_limit, other_child_limit));
            self.prove(next, child_threats, child_proof, child_disproof, numbers);
            self.board.undo();
        }
        if !self.stop.load(Ordering::Relaxed) {
            numbers.insert(key, result);
        }
        result
    }

    /// The key of the node's numbers: the position, whose turn it is and the threats left.
    fn node_key(&self, turn: Turn, threats: u32) -> u64 {
        self.board.hash() ^ salt(turn, threats)
    }

    /// The node's moves, or its numbers when it is decided without one.
    fn children(&mut self, turn: Turn, threats: u32) -> Moves {
        const PROVEN: (u32, u32) = (0, INFINITE);
        const DISPROVEN: (u32, u32) = (INFINITE, 0);
        let me = self.me();
        let them = opponent(me);
        let next = turn.other();
        let (win, loss) = match turn {
            Turn::Attacker => (PROVEN, DISPROVEN),
            Turn::Defender => (DISPROVEN, PROVEN),
        };
        if self.board.five_count(me) > 0 {
            return Moves::decided(win);
        }
        match self.forced_block(me, 0) {
            Err(_) => return Moves::decided(loss),
            Ok(Some(cell)) => {
                return Moves {
                    children: vec![(cell, self.child_key(cell, me, next, threats))],
                    forced: true,
                    decided: None,
                };
            }
            Ok(None) => {}
        }
        let scan = self.scan(me);
        let cells: Vec<Cell> = match turn {
            Turn::Attacker => {
                if threats == 0 {
                    return Moves::decided(DISPROVEN);
                }
                if scan.open_four.is_some() && self.board.four_count(them) == 0 {
                    return Moves::decided(PROVEN);
                }
                scan.threats_to_make()
            }
            Turn::Defender => {
                if !scan.threatened {
                    // The attacker's last move threatened nothing.
                    return Moves::decided(DISPROVEN);
                }
                scan.answers_to_threats()
            }
        };
        if cells.is_empty() {
            return Moves::decided(loss);
        }
        let child_threats = threats - u32::from(turn == Turn::Attacker);
        let children = cells
            .into_iter()
            .map(|cell| (cell, self.child_key(cell, me, next, child_threats)))
            .collect();
        Moves {
            children,
            forced: false,
            decided: None,
        }
    }

    /// The key of the node after `me` plays `cell`.
    fn child_key(&self, cell: Cell, me: u8, turn: Turn, threats: u32) -> u64 {
        self.board.hash_with(cell, me) ^ salt(turn, threats)
    }
}

/// What a node's key adds to its position's hash: whose turn it is and the threats left.
fn salt(turn: Turn, threats: u32) -> u64 {
    (u64::from(threats) << 1 | u64::from(turn == Turn::Defender))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// A node's moves: (cell, the child's key) each; `forced` when the one move blocks a five
/// (it costs no threat); `decided` holds the node's numbers when it needs no move, (0, ∞)
/// proven and (∞, 0) disproven.
struct Moves {
    children: Vec<(Cell, u64)>,
    forced: bool,
    decided: Option<(u32, u32)>,
}

impl Moves {
    fn decided(numbers: (u32, u32)) -> Moves {
        Moves {
            children: Vec::new(),
            forced: false,
            decided: Some(numbers),
        }
    }
}
