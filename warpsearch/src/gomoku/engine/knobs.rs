//! The engine's tuning parameters: the search's pruning and the evaluation's values.
//!
//! The defaults are the measured best; docs/notes/gomoku-engine.md records each value tried and
//! what it did. `WARPSEARCH_GOMOKU_KNOBS="name=value,…"` overrides them (the names of the
//! fields; a list is written with `:` between its numbers), which is how tuning matches play
//! one build against itself or another brain with other values.

#[derive(Clone, Debug)]
pub(crate) struct Knobs {
    /// Candidate moves a node below the root tries at most (the best by pattern score,
    /// history and killers); a node answering a threat tries every answer.
    pub(crate) moves_per_node: usize,
    /// Plies a null move's search is shallower.
    pub(crate) null_reduction: i32,
    /// Margins of futility pruning of quiet moves at depths 1 and 2.
    pub(crate) futility1: i32,
    pub(crate) futility2: i32,
    /// Late-move pruning: quiet moves beyond `(lmp_base + depth^lmp_power)`, halved when the
    /// static evaluation is not improving, are not searched (depth ≤ `lmp_depth`); 0 prunes
    /// by a fixed table at depths 1–4 instead (5, 8, 12, 16 moves), −1 (the default) not at
    /// all, which scored better against Rapfi (docs/notes/gomoku-engine.md).
    pub(crate) lmp_base: f64,
    pub(crate) lmp_power: f64,
    pub(crate) lmp_depth: i32,
    /// Reverse futility: a node whose static evaluation beats beta by `rfp` per ply of depth
    /// (one ply less when improving) returns it (depth ≤ `rfp_depth`; 0 turns it off).
    pub(crate) rfp: i32,
    pub(crate) rfp_depth: i32,
    /// Razoring: a node at depth ≤ 2 whose evaluation is `razor` per ply below alpha drops to
    /// the quiescence search (0 turns it off).
    pub(crate) razor: i32,
    /// Below this depth, quiet moves that make no open two or closed three for either side
    /// are skipped (0 turns it off).
    pub(crate) trivial_depth: i32,
    /// Late-move reductions: ln(depth)·ln(index + 1) / `lmr_divisor`.
    pub(crate) lmr_divisor: f64,
    /// 1: late moves that make an open three (and no four) are reduced like quiet ones.
    pub(crate) lmr_threes: i32,
    /// 1: against an open three, late defences (not fours) are reduced like quiet moves.
    pub(crate) lmr_defence: i32,
    /// Fours a quiescence search plays in a row at most, and tries a node at most.
    pub(crate) quiescence_fours: u32,
    pub(crate) quiescence_width: usize,
    /// The evaluation's value of each line pattern (in [`Pattern`](super::Pattern) order),
    /// summed over every empty cell and direction.
    pub(crate) value: [i32; 11],
    /// The value of each [`Shape`](super::Shape) a cell makes, added once a cell.
    pub(crate) shape_value: [i32; 8],
    /// Added for each pair of a cell's lines that both hold an open two or a closed three
    /// (a cell that builds two lines at once).
    pub(crate) pair_two: i32,
    /// Added for each pair of a cell's lines where one holds an open three or a four and the
    /// other an open two or a closed three.
    pub(crate) pair_three: i32,
    /// The value of each pair of a cell's line patterns, added for each of the cell's six
    /// pairs of directions: the upper triangle of an 11 × 11 table in
    /// [`Pattern`](super::Pattern) order, row by row (`a ≤ b`: 66 numbers). All zero (the
    /// default) turns it off. A cell is then worth what its lines build together, as in
    /// Rapfi's classic evaluation, rather than the sum of what each line holds.
    pub(crate) pairs: [i32; 66],
    /// Added to the value of a cell whose four line patterns form each multiset (in
    /// [`multiset_of`](super::crossing::multiset_of) order): a fitted evaluation's residual
    /// over the hand-set values, read from the file that `value_file=PATH` names (1,001
    /// whitespace-separated integers, as `--example fit-eval` writes them). Empty: none.
    pub(crate) value_residual: Vec<i32>,
    /// 1: the evaluation is the mean of this position's and the position's before the last
    /// stone (as Rapfi's classic evaluation), which evens out the swing between the two sides'
    /// turns.
    pub(crate) smooth: i32,
    /// The side to move's own value counts (100 + `tempo`) %.
    pub(crate) tempo: i32,
    /// A defence against an open three costs no depth while the path is shorter than
    /// `threat_ext` times the iteration's depth (0 turns it off).
    pub(crate) threat_ext: i32,
    /// Per cent of a move's time for checking the root moves against the opponent's VCF and
    /// VCT (after the proofs' share).
    pub(crate) refute_share: u32,
    /// The deepest VCT (attacker threats) looked for in that check.
    pub(crate) refute_vct: u32,
    /// Half-width of the root's first window around the last iteration's score from depth 4
    /// (0: the full window).
    pub(crate) aspiration: i32,
    /// 1: the quiet moves tried before a cutoff lose history (depth² each).
    pub(crate) history_malus: i32,
    /// Added to the evaluation when the side to move can make two open threes with one
    /// stone and the opponent has no four to answer with (0 turns it off).
    pub(crate) double_three_bonus: i32,
    /// The initiative: the first value is added to the evaluation of a side to move that can
    /// make an open three while the opponent has no four to answer with; the second is taken
    /// off when only the opponent can make one and the side to move has no four either.
    pub(crate) initiative: [i32; 2],
    /// A move that makes a four costs no depth while the path is shorter than `four_ext`
    /// times the iteration's depth (0 turns it off): the reply is forced, so a run of fours
    /// is seen to its end by the main search, not only by the quiescence's narrow one.
    pub(crate) four_ext: i32,
    /// Against an open three (or a double four), keep only the moves that leave the opponent
    /// no open four, and the side's own fours (1), or every cell where the opponent would make a
    /// four (0: a superset of the defences).
    pub(crate) exact_defence: i32,
    /// At the leaves, an open three of the opponent's is answered by one more ply of search
    /// while the path is shorter than the iteration's depth plus `leaf_threat`.
    pub(crate) leaf_threat: usize,
    /// A late move's first search is `far_reduction` plies shallower when its cell shares no
    /// line window with either of the last two stones (off their lines, or more than four cells
    /// along them) and is more than two cells from both: play far from the fight rarely
    /// answers it (0 turns it off).
    pub(crate) far_reduction: i32,
    /// Added to the ordering key of a cell that shares a line window with the opponent's last
    /// stone (0 turns it off).
    pub(crate) near_order: i32,
    /// The fitted move-ordering policy ([`policy`](super::policy)), scaled by `policy`/100,
    /// added to each candidate's ordering score (0 turns it off); with `policy_alone=1` it
    /// replaces the hand-set per-pattern scores and shape bonuses, and with `policy_alone=2`
    /// as well but with the cells where either side makes an open three or more kept first.
    pub(crate) policy: i32,
    pub(crate) policy_alone: i32,
    /// The cap on candidate moves at PV nodes below the root, in place of `moves_per_node` (0
    /// keeps `moves_per_node`): the few nodes on the principal variation may afford every
    /// move where the cap, everywhere, cost depth. 36 and 60 played level with the defaults
    /// (docs/gomoku-brain.md).
    pub(crate) pv_moves: usize,
    /// Reductions in the manner of Rapfi's (0 turns them off): every late move but a four is
    /// searched shallower first, by ln(depth)·ln(index + 1)·`wide_lmr`/100 plies, one less at
    /// PV nodes and one more at a node that is not improving, 1.8 more at an expected cut node
    /// for a move that is not a killer, `weak_reduction`/100 more for a move whose ordering
    /// score is below `weak_score`, and 1.9 / 1 more for a defence that is only a counter-four
    /// far from the opponent's / own last stone; never below one ply.
    pub(crate) wide_lmr: i32,
    pub(crate) weak_reduction: i32,
    pub(crate) weak_score: i32,
    /// 1: move-count pruning of every late move but a four (not only quiet ones), at every
    /// depth, once a move that does not lose is known: 3 + depth^`lmp_power` moves, half of
    /// them when not improving.
    pub(crate) lmp_all: i32,
    /// Singular extensions (0 turns them off): at depth ≥ `singular_depth`, the table's move
    /// (a lower bound or exact, at most two plies shallower) is searched one ply deeper when
    /// every other move, searched at half the depth, stays below its score less
    /// `singular`/100 a ply of depth; the node is cut when they reach beta as well, and the
    /// move is searched `singular_reduction` plies shallower when only its score beats beta.
    pub(crate) singular: i32,
    pub(crate) singular_depth: i32,
    pub(crate) singular_reduction: i32,
    /// Double singular extensions (0 turns them off): at a node off the principal variation,
    /// a singular move whose test stayed `singular_double` below the test's bound is searched
    /// two plies deeper, at most `singular_double_max` times on a path.
    pub(crate) singular_double: i32,
    pub(crate) singular_double_max: i32,
    /// Internal iterative reduction (0 turns it off): a node at depth ≥ `iir_depth` without a
    /// table move is searched a ply shallower.
    pub(crate) iir_depth: i32,
    /// A late move whose reduced search beats alpha by more than `lmr_deeper` is searched a ply
    /// deeper than planned (0 turns it off).
    pub(crate) lmr_deeper: i32,
    /// The table's move, when not tested for singularity, is searched `tt_ext_pv` (at PV
    /// nodes) or `tt_ext` (elsewhere) sixteenths of a ply deeper (Rapfi: a quarter and a
    /// twelfth).
    pub(crate) tt_ext_pv: i32,
    pub(crate) tt_ext: i32,
    /// Fail-high reduction (0 turns it off): at an expected cut node off the principal
    /// variation whose static evaluation beats beta by `fail_high` a ply of depth (plus
    /// `fail_high_threat` when the opponent has an open three), every move but a four is
    /// searched `fail_high_reduction` sixteenths of a ply shallower, and a four that follows
    /// the side's own four a ply deeper.
    pub(crate) fail_high: i32,
    pub(crate) fail_high_threat: i32,
    pub(crate) fail_high_reduction: i32,
    /// A PV node whose table move was stored by a shallower search is searched shallower by
    /// `pv_tt_reduction` sixteenths of the difference (at most 3.6 plies; 0 turns it off;
    /// Rapfi: 0.28 of a ply a ply).
    pub(crate) pv_tt_reduction: i32,
    /// The forced block of the opponent's four is searched `forced_ext` sixteenths of a ply
    /// deeper than the node (it already costs no depth; Rapfi: 1.3 plies for the block, so
    /// 0.3 more than ours). Held below a ply, so that a four and its block still cost depth.
    pub(crate) forced_ext: i32,
    /// 1: the quiescence reads the table's bounds and keeps its four searches' results there
    /// (never over another position's main-search entry).
    pub(crate) q_table: i32,
    /// Delta pruning in the quiescence (0 turns it off): off the principal variation, a node
    /// whose evaluation is below alpha by more than `q_delta` is not searched for fours.
    pub(crate) q_delta: i32,
    /// 1: the quiescence's fours as Rapfi's four search draws them: only cells in reach of the
    /// side's own last stone, and below its first level only fours that also make an open two
    /// or better on another line (a four and a three, a four and a two); 2: those alone at
    /// every level.
    pub(crate) q_narrow: i32,
    /// Added to the ordering key of the move that last cut off a node reached by the same
    /// opponent's move (the counter-move heuristic; 0 turns it off). Above every pattern
    /// score and below the killers at 500,000.
    pub(crate) counter_move: i32,
    /// The cells a node's moves are drawn from: those with a stone within two cells (2), or
    /// within three cells or four along a line (3, Rapfi's default range).
    pub(crate) near_range: i32,
    /// The root's VCT proofs, its own and the opponent's after each root move, by proof
    /// numbers within this many threats (0: by iterative deepening to 6 and `refute_vct`).
    pub(crate) pn_threats: u32,
    /// Per cent of a move's time kept back from the tree search to prove its chosen move safe
    /// from the opponent's VCT by proof numbers, and the next moves when it is not (0 turns it
    /// off).
    pub(crate) verify_share: u32,
}

/// What the reductions of `wide_lmr` know of a late move.
pub(crate) struct LateMove {
    pub(crate) depth: i32,
    pub(crate) index: usize,
    pub(crate) pv: bool,
    pub(crate) improving: bool,
    pub(crate) cut_node: bool,
    pub(crate) killer: bool,
    /// The move's ordering score (its pattern values for both sides).
    pub(crate) score: i32,
    /// Against an open three, a move that does not block it but makes a four.
    pub(crate) counter_four: bool,
    pub(crate) far_from_theirs: bool,
    pub(crate) far_from_mine: bool,
}

impl Knobs {
    const DEFAULT: Knobs = Knobs {
        moves_per_node: 24,
        null_reduction: 3,
        futility1: 200,
        futility2: 500,
        lmp_base: 3.0,
        lmp_power: 1.32,
        lmp_depth: -1,
        rfp: 150,
        rfp_depth: 6,
        razor: 150,
        trivial_depth: 0,
        lmr_divisor: 1.5,
        lmr_threes: 0,
        lmr_defence: 0,
        quiescence_fours: 8,
        quiescence_width: 3,
        value: [0, 0, 1, 2, 3, 5, 8, 40, 60, 160, 240],
        shape_value: [0, 0, 20, 120, 0, 240, 300, 0],
        pair_two: 0,
        pair_three: 0,
        pairs: [0; 66],
        value_residual: Vec::new(),
        smooth: 0,
        tempo: 25,
        threat_ext: 0,
        refute_share: 10,
        refute_vct: 5,
        aspiration: 0,
        history_malus: 0,
        double_three_bonus: 0,
        initiative: [0, 0],
        four_ext: 0,
        exact_defence: 0,
        leaf_threat: 2,
        far_reduction: 0,
        near_order: 0,
        wide_lmr: 0,
        weak_reduction: 200,
        weak_score: 40,
        lmp_all: 0,
        singular: 100,
        singular_depth: 6,
        singular_reduction: 1,
        singular_double: 0,
        singular_double_max: 6,
        iir_depth: 0,
        lmr_deeper: 0,
        tt_ext_pv: 0,
        tt_ext: 0,
        fail_high: 0,
        fail_high_threat: 90,
        fail_high_reduction: 16,
        pv_tt_reduction: 0,
        forced_ext: 0,
        q_table: 0,
        q_delta: 0,
        q_narrow: 0,
        counter_move: 0,
        near_range: 2,
        pn_threats: 0,
        verify_share: 0,
        policy: 0,
        policy_alone: 0,
        pv_moves: 0,
    };

    /// The defaults with `WARPSEARCH_GOMOKU_KNOBS` applied (read once); unknown names and
    /// unreadable values are reported on stderr and ignored.
    pub(crate) fn get() -> &'static Knobs {
        static KNOBS: std::sync::OnceLock<Knobs> = std::sync::OnceLock::new();
        KNOBS.get_or_init(|| {
            let mut knobs = Knobs::DEFAULT;
            if let Ok(text) = std::env::var("WARPSEARCH_GOMOKU_KNOBS") {
                for item in text.split(',').filter(|s| !s.trim().is_empty()) {
                    if !knobs.set(item) {
                        eprintln!("WARPSEARCH_GOMOKU_KNOBS: ignored `{item}`");
                    }
                }
            }
            knobs
        })
    }

    fn set(&mut self, item: &str) -> bool {
        let Some((name, value)) = item.split_once('=') else {
            return false;
        };
        let (name, value) = (name.trim(), value.trim());
        fn put<T: std::str::FromStr>(slot: &mut T, value: &str) -> bool {
            value.parse().map(|v| *slot = v).is_ok()
        }
        fn put_list<const N: usize>(slot: &mut [i32; N], value: &str) -> bool {
            let numbers: Result<Vec<i32>, _> = value.split(':').map(str::parse).collect();
            match numbers.ok().and_then(|n| <[i32; N]>::try_from(n).ok()) {
                Some(list) => {
                    *slot = list;
                    true
                }
                None => false,
            }
        }
        match name {
            "moves_per_node" => put(&mut self.moves_per_node, value),
            "null_reduction" => put(&mut self.null_reduction, value),
            "futility1" => put(&mut self.futility1, value),
            "futility2" => put(&mut self.futility2, value),
            "lmp_base" => put(&mut self.lmp_base, value),
            "lmp_power" => put(&mut self.lmp_power, value),
            "lmp_depth" => put(&mut self.lmp_depth, value),
            "rfp" => put(&mut self.rfp, value),
            "rfp_depth" => put(&mut self.rfp_depth, value),
            "razor" => put(&mut self.razor, value),
            "trivial_depth" => put(&mut self.trivial_depth, value),
            "lmr_divisor" => put(&mut self.lmr_divisor, value),
            "lmr_threes" => put(&mut self.lmr_threes, value),
            "lmr_defence" => put(&mut self.lmr_defence, value),
            "quiescence_fours" => put(&mut self.quiescence_fours, value),
            "quiescence_width" => put(&mut self.quiescence_width, value),
            "value" => put_list(&mut self.value, value),
            "shape_value" => put_list(&mut self.shape_value, value),
            "pair_two" => put(&mut self.pair_two, value),
            "pair_three" => put(&mut self.pair_three, value),
            "pairs" => put_list(&mut self.pairs, value),
            "value_file" => match read_residual(value) {
                Ok(residual) => {
                    self.value_residual = residual;
                    true
                }
                Err(why) => {
                    eprintln!("WARPSEARCH_GOMOKU_KNOBS: value_file: {why}");
                    false
                }
            },
            "smooth" => put(&mut self.smooth, value),
            "tempo" => put(&mut self.tempo, value),
            "threat_ext" => put(&mut self.threat_ext, value),
            "refute_share" => put(&mut self.refute_share, value),
            "refute_vct" => put(&mut self.refute_vct, value),
            "aspiration" => put(&mut self.aspiration, value),
            "history_malus" => put(&mut self.history_malus, value),
            "double_three_bonus" => put(&mut self.double_three_bonus, value),
            "initiative" => put_list(&mut self.initiative, value),
            "four_ext" => put(&mut self.four_ext, value),
            "exact_defence" => put(&mut self.exact_defence, value),
            "leaf_threat" => put(&mut self.leaf_threat, value),
            "far_reduction" => put(&mut self.far_reduction, value),
            "near_order" => put(&mut self.near_order, value),
            "policy" => put(&mut self.policy, value),
            "policy_alone" => put(&mut self.policy_alone, value),
            "pv_moves" => put(&mut self.pv_moves, value),
            "wide_lmr" => put(&mut self.wide_lmr, value),
            "weak_reduction" => put(&mut self.weak_reduction, value),
            "weak_score" => put(&mut self.weak_score, value),
            "lmp_all" => put(&mut self.lmp_all, value),
            "singular" => put(&mut self.singular, value),
            "singular_depth" => put(&mut self.singular_depth, value),
            "singular_reduction" => put(&mut self.singular_reduction, value),
            "singular_double" => put(&mut self.singular_double, value),
            "singular_double_max" => put(&mut self.singular_double_max, value),
            "iir_depth" => put(&mut self.iir_depth, value),
            "lmr_deeper" => put(&mut self.lmr_deeper, value),
            "tt_ext_pv" => put(&mut self.tt_ext_pv, value),
            "tt_ext" => put(&mut self.tt_ext, value),
            "fail_high" => put(&mut self.fail_high, value),
            "fail_high_threat" => put(&mut self.fail_high_threat, value),
            "fail_high_reduction" => put(&mut self.fail_high_reduction, value),
            "pv_tt_reduction" => put(&mut self.pv_tt_reduction, value),
            "forced_ext" => put(&mut self.forced_ext, value),
            "q_table" => put(&mut self.q_table, value),
            "q_delta" => put(&mut self.q_delta, value),
            "q_narrow" => put(&mut self.q_narrow, value),
            "counter_move" => put(&mut self.counter_move, value),
            "near_range" => put(&mut self.near_range, value),
            "pn_threats" => put(&mut self.pn_threats, value),
            "verify_share" => put(&mut self.verify_share, value),
            _ => false,
        }
    }

    /// The residual `value_residual` adds to a cell of `multiset` (0 when there is none).
    pub(crate) fn residual(&self, multiset: usize) -> i32 {
        self.value_residual.get(multiset).copied().unwrap_or(0)
    }

    /// The value `pairs` gives one pair of line patterns (in either order).
    pub(crate) fn pair(&self, a: usize, b: usize) -> i32 {
        let (low, high) = (a.min(b), a.max(b));
        self.pairs[low * 11 - low * low.saturating_sub(1) / 2 + (high - low)]
    }

    /// Plies a late quiet move's first search is reduced by: grows with the depth left and
    /// the move's place in the order.
    pub(crate) fn reduction(&self, depth: i32, index: usize) -> i32 {
        (0.5 + f64::from(depth).ln() * ((index + 1) as f64).ln() / self.lmr_divisor) as i32
    }

    /// Plies a late move's first search is reduced by under `wide_lmr` (see there).
    pub(crate) fn wide_reduction(&self, late: &LateMove) -> f64 {
        let mut r =
            f64::from(late.depth).ln() * ((late.index + 1) as f64).ln() * f64::from(self.wide_lmr)
                / 100.0;
        if late.pv {
            r -= 1.0;
        } else if !late.improving && r > 1.0 {
            r += 1.0;
        }
        if late.cut_node && !late.killer {
            r += 1.8;
        }
        if late.score < self.weak_score {
            r += f64::from(self.weak_reduction) / 100.0;
        }
        if late.counter_four {
            r += if late.far_from_theirs { 1.9 } else { 0.0 };
            r += if late.far_from_mine { 1.0 } else { 0.0 };
        }
        r.max(0.0)
    }

    /// Moves (of any kind but fours) a node at `depth` tries under `lmp_all`.
    pub(crate) fn move_count_limit(&self, depth: i32, improving: bool) -> usize {
        let count = 3.0 + f64::from(depth.max(0)).powf(self.lmp_power);
        (if improving { count } else { count / 2.0 }) as usize
    }

    /// Quiet moves a node at `depth` tries before the rest are pruned.
    pub(crate) fn late_moves(&self, depth: i32, improving: bool) -> usize {
        if depth <= self.lmp_depth {
            let count = self.lmp_base + f64::from(depth).powf(self.lmp_power);
            (if improving { count } else { count / 2.0 }) as usize
        } else if depth <= 4 && self.lmp_depth == 0 {
            [0, 5, 8, 12, 16][depth.max(0) as usize]
        } else {
            usize::MAX
        }
    }
}

/// A residual table for `value_residual` from the file at `path`.
fn read_residual(path: &str) -> Result<Vec<i32>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let numbers: Vec<i32> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{path}: {e}"))?;
    if numbers.len() != super::crossing::MULTISETS {
        return Err(format!(
            "{path}: {} numbers, not {}",
            numbers.len(),
            super::crossing::MULTISETS
        ));
    }
    Ok(numbers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pairs` holds one entry for each unordered pair of the 11 patterns, in either order.
    #[test]
    fn every_pair_of_patterns_has_an_entry_of_its_own() {
        let mut knobs = Knobs::DEFAULT;
        for (index, value) in knobs.pairs.iter_mut().enumerate() {
            *value = index as i32;
        }
        let mut seen = [false; 66];
        for a in 0..11 {
            for b in a..11 {
                let index = knobs.pair(a, b);
                assert_eq!(index, knobs.pair(b, a));
                assert!(!seen[index as usize], "({a}, {b}) shares entry {index}");
                seen[index as usize] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}
