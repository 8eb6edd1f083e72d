//! A depth-first search written once as a [`DepthFirst`] tree, walked by the GPU skeleton
//! (`walk_units`, GPU only: every lane its own search, lanes refilled from the work queue
//! while their neighbours are still busy) and by its CPU twin ([`walk_unit`]: the same steps,
//! one unit on one thread).
//!
//! The user writes the search's *tree*: how a unit becomes a partial solution, the candidate
//! choices at a node (a bit set), how a choice changes the partial solution and how it is
//! undone, and how many solutions a node that needs no further search stands for. The
//! partial solution lives in a [`Slab`] of `u32` words — on the GPU a column of the block's
//! shared memory, conflict-free across the warp whatever depth each lane is at; on the CPU an
//! array. The skeleton keeps its stack (the untried candidates of each level, and the choice
//! taken when the tree undoes) in the same slab, after the tree's own words.
//!
//! One step of the walk is one visited node: take the lowest untried candidate of the top
//! level and [`descend`](DepthFirst::descend), or pop an exhausted level and
//! [`undo`](DepthFirst::undo) the choice that made it — both through one call,
//! [`descend_or_undo`](DepthFirst::descend_or_undo), which a tree whose undo retraces its
//! descent writes as one body so that a warp's lanes run it together. A tree that copies its
//! state forward ([`DepthFirst::UNDO`] false) never spends a step only popping: a level whose
//! last choice is taken is left in that step, and the walk comes back straight to the nearest
//! level above with choices left. On the GPU the 32 lanes take their steps together; a lane
//! whose unit is done claims the next one (one warp-aggregated atomic for every lane that needs
//! a unit) while the others go on, so units of very different sizes keep the warp busy. Once
//! the work has run out for some lanes, a busy lane of a tree that undoes hands half of its top
//! level's choices (near its unit's root) to an idle lane, with a copy of the tree's state, so
//! the last units of a launch do not hold the warp to one lane. What a step costs beyond the
//! tree's own code: a vote that asks whether any lane needs a unit, the
//! pick of the lowest candidate, a shared-memory store of the rest when the walk goes deeper,
//! and the branches between a leaf, a push and a pop.
//!
//! ```
//! use kernels::dfs::{DepthFirst, Node, walk_unit};
//! use kernels::slab::Slab;
//!
//! /// Subsets of {0..n} with sum exactly `target`, searched from one unit (the empty set):
//! /// choice 1 takes the next number, choice 0 leaves it out.
//! struct Sums { n: u32, target: u32 }
//!
//! impl DepthFirst for Sums {
//!     type Set = u32;
//!     // word 0: the running sum; word 1: the next number to decide.
//!     fn state_words(&self) -> u32 { 2 }
//!     fn max_depth(&self) -> u32 { self.n + 1 }
//!     fn start<S: Slab>(&self, _unit: &[u64], state: &mut S) -> u32 {
//!         state.set(0, 0);
//!         state.set(1, 0);
//!         0b11 // take the number 0, or leave it out
//!     }
//!     fn descend<S: Slab>(&self, state: &mut S, _depth: u32, choice: u32, _rest: u32) -> Node<u32> {
//!         let (sum, number) = (state.get(0), state.get(1));
//!         let sum = sum + choice * number; // choice 1: take it
//!         if number == self.n {
//!             return Node::Leaves((sum == self.target) as u32); // state untouched
//!         }
//!         state.set(0, sum);
//!         state.set(1, number + 1);
//!         Node::Inner(0b11)
//!     }
//!     fn undo<S: Slab>(&self, state: &mut S, _depth: u32, choice: u32) {
//!         let number = state.get(1) - 1;
//!         state.set(1, number);
//!         state.set(0, state.get(0) - choice * number);
//!     }
//! }
//!
//! // {1, 4}, {2, 3}, {0, 1, 4}, {0, 2, 3} of {0..4} sum to 5.
//! let mut slab = [0u32; 32];
//! assert_eq!(walk_unit(&Sums { n: 4, target: 5 }, &[0], &mut slab), 4);
//!
//! // A probe of a tree this even (two choices at each of five levels) is exact: 2 + 4 + … + 32.
//! let mut always_first = |_children: u32| 0;
//! let nodes = kernels::dfs::probe(&Sums { n: 4, target: 5 }, &[0], &mut slab, &mut always_first);
//! assert_eq!(nodes, 62.0);
//! ```

use crate::atomic::NO_INDEX;
use crate::slab::Slab;

/// A set of candidate choices at one level, as the bits of a word: choice `i` is bit `i`.
pub trait Candidates: Copy {
    /// Slab words one set takes on the skeleton's stack.
    const WORDS: u32;
    /// No choice left.
    fn is_empty(self) -> bool;
    /// The lowest choice (the set is not empty).
    fn lowest(self) -> u32;
    /// The set without its lowest choice.
    fn without_lowest(self) -> Self;
    /// The set in slab words `at..at + WORDS`.
    fn store<S: Slab>(self, slab: &mut S, at: u32);
    /// The set stored at `at`.
    fn load<S: Slab>(slab: &S, at: u32) -> Self;
    /// The number of choices (by default by taking them off one by one; for estimates, not
    /// for the walk).
    fn count(self) -> u32 {
        let (mut set, mut count) = (self, 0);
        while !set.is_empty() {
            set = set.without_lowest();
            count += 1;
        }
        count
    }
    /// The set without its `n` lowest choices.
    fn skip(self, n: u32) -> Self {
        let mut set = self;
        for _ in 0..n {
            set = set.without_lowest();
        }
        set
    }
    /// The set as two non-empty parts, its lower choices and the rest, when it has two or
    /// more: how a busy lane shares its work with an idle one once the work queue has run dry
    /// (the GPU skeleton's hand-over). `None` (the default) never splits, and a search whose
    /// set does not split keeps its lanes to their own units.
    fn split(self) -> Option<(Self, Self)> {
        None
    }
}

/// Up to 32 choices. GPU: `lowest` is `brev` + `bfind` (or `FLO`), `without_lowest` one `LOP3`
/// with the `IADD` of `set − 1`.
impl Candidates for u32 {
    const WORDS: u32 = 1;
    #[inline(always)]
    fn is_empty(self) -> bool {
        self == 0
    }
    #[inline(always)]
    fn lowest(self) -> u32 {
        self.trailing_zeros()
    }
    #[inline(always)]
    fn without_lowest(self) -> Self {
        self & self.wrapping_sub(1)
    }
    #[inline(always)]
    fn store<S: Slab>(self, slab: &mut S, at: u32) {
        slab.set(at, self);
    }
    #[inline(always)]
    fn load<S: Slab>(slab: &S, at: u32) -> Self {
        slab.get(at)
    }
    /// The lower half of the choices (rounded down) and the upper half.
    #[inline(always)]
    fn split(self) -> Option<(Self, Self)> {
        halves(self, self.count_ones())
    }
}

/// `set` (of `choices` choices) as its lower half of choices (rounded down) and its upper
/// half, when it has two or more: [`Candidates::split`] of the word-sized sets.
#[inline(always)]
fn halves<C: Candidates + core::ops::BitXor<Output = C>>(set: C, choices: u32) -> Option<(C, C)> {
    if choices < 2 {
        return None;
    }
    let upper = set.skip(choices / 2);
    Some((set ^ upper, upper))
}

/// Up to 64 choices, in two slab words (low word first).
impl Candidates for u64 {
    const WORDS: u32 = 2;
    #[inline(always)]
    fn is_empty(self) -> bool {
        self == 0
    }
    #[inline(always)]
    fn lowest(self) -> u32 {
        self.trailing_zeros()
    }
    #[inline(always)]
    fn without_lowest(self) -> Self {
        self & self.wrapping_sub(1)
    }
    #[inline(always)]
    fn store<S: Slab>(self, slab: &mut S, at: u32) {
        slab.set(at, self as u32);
        slab.set(at + 1, (self >> 32) as u32);
    }
    #[inline(always)]
    fn load<S: Slab>(slab: &S, at: u32) -> Self {
        slab.get(at) as u64 | (slab.get(at + 1) as u64) << 32
    }
    /// The lower half of the choices (rounded down) and the upper half.
    #[inline(always)]
    fn split(self) -> Option<(Self, Self)> {
        halves(self, self.count_ones())
    }
}

/// What [`DepthFirst::descend`] found at the new node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node<Set> {
    /// A node to search further, with its candidate choices (an empty set is a dead end; the
    /// skeleton pops it at its next step, or at once for a tree that copies forward). The tree's state now describes this node, and
    /// [`DepthFirst::undo`] will be called for it.
    Inner(Set),
    /// A node whose search is settled without descending: it stands for this many solutions
    /// (0 for a dead end, 1 for a solution, more when the tree counts a last level at once).
    /// The tree's state must be as it was before `descend` (no `undo` follows).
    Leaves(u32),
}

/// A search tree, written once for the GPU skeleton and the CPU twin. A *unit* of work is a
/// node of the tree (usually a prefix of choices made by the host) given as `u64` words; the
/// tree's partial solution lives in slab words `0..state_words()`.
pub trait DepthFirst {
    /// The candidate choices at one node.
    type Set: Candidates;
    /// Whether [`undo`](Self::undo) does anything. A tree that copies its state forward on
    /// each descent sets it false: each level keeps its own slab words, and `descend` at depth
    /// `d` reads level `d`'s words and writes only level `d + 1`'s (never a level at or above
    /// `d`, which the walk may come back to). The skeleton then calls no `undo`, and leaves a
    /// level in the same step as its last choice's descent, coming back straight to the
    /// nearest level above with choices left: every step is a descent, about half the steps
    /// of the undoing form.
    const UNDO: bool = true;
    /// Slab words the partial solution takes (the skeleton's stack follows them).
    fn state_words(&self) -> u32;
    /// Levels a unit's search descends at most (the stack holds one set a level).
    fn max_depth(&self) -> u32;
    /// Writes the partial solution of `unit` into `state`; returns the choices at its root.
    fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> Self::Set;
    /// Solutions that the unit itself already is, counted once when the walk starts it: 1 for a
    /// unit that is a complete solution (a work list made down to the last level, as the
    /// units of a short self-avoiding walk are), 0 (the default) when all its solutions lie
    /// below it. The root's choices ([`start`](Self::start)'s set, empty for a complete unit)
    /// are searched as usual. Called right after `start`, with the unit's state; the default
    /// compiles to nothing.
    #[inline(always)]
    fn unit_leaves<S: Slab>(&self, unit: &[u64], state: &S) -> u32 {
        let _ = (unit, state);
        0
    }
    /// Makes choice `choice` at `depth` (0: the unit's root) in `state`. `rest` is the
    /// level's set after this choice (its choices not yet tried): most trees ignore it, but a
    /// set type that carries more than the choices (a bitmap the next level is computed from,
    /// as `examples/golomb` keeps) hands it on here without the tree storing it twice.
    fn descend<S: Slab>(
        &self,
        state: &mut S,
        depth: u32,
        choice: u32,
        rest: Self::Set,
    ) -> Node<Self::Set>;
    /// Takes back the choice `choice` that [`descend`](Self::descend) made at `depth`
    /// (called only when it answered [`Node::Inner`]).
    fn undo<S: Slab>(&self, state: &mut S, depth: u32, choice: u32);
    /// [`undo`](Self::undo) when `undo` is true (answering `Node::Leaves(0)`, which the
    /// skeleton ignores), else [`descend`](Self::descend): the one call the skeleton makes for a
    /// tree that undoes. The default calls one or the other. A tree whose undo retraces its
    /// descent — the same loop over the same state, each change taken back (an XOR undoes an
    /// XOR) — overrides it with one body for both: on the GPU, the lanes of a warp that undo
    /// and those that descend then run the same instructions together, where otherwise one
    /// group waits while the other runs (examples/costas: see its `descend_or_undo`).
    #[inline(always)]
    fn descend_or_undo<S: Slab>(
        &self,
        state: &mut S,
        depth: u32,
        choice: u32,
        rest: Self::Set,
        undo: bool,
    ) -> Node<Self::Set> {
        if undo {
            self.undo(state, depth, choice);
            Node::Leaves(0)
        } else {
            self.descend(state, depth, choice, rest)
        }
    }
}

/// `Walk::depth` when no unit is being searched.
const IDLE: u32 = u32::MAX;

/// How close to its floor the top level of a tree that undoes must be for the walk to share
/// it ([`Walk::giveable`]): deeper levels hold small subtrees, and a hand-over costs a copy of
/// the tree's state.
const NEAR_ROOT: u32 = 3;

/// The stack of one walk: for each level, the choices not yet tried and one more word — for a
/// tree that undoes the choice taken last, for one that copies forward the level to come back
/// to. Level `d` sits at slab word `base + d · (set words + 1)`. A set of
/// up to two words on the top level lives in registers (`top`) and is written to the slab
/// only when the walk descends below it, so a step that finds a leaf touches no stack memory.
struct Walk<C> {
    /// Slab word of level 0.
    base: u32,
    /// The current level; [`IDLE`] when no unit is being searched.
    depth: u32,
    /// The current level's untried choices when they are kept in registers (`CACHED`; the
    /// slab copy is stale while the level is the top); unused otherwise.
    top: C,
    /// For a tree that copies forward: the level the walk returns to when the current one is
    /// exhausted (the nearest level above with choices left), [`IDLE`] at the unit's root.
    back: u32,
    /// For a tree that undoes: the level whose exhaustion ends the walk — 0 for a unit's
    /// root, deeper for choices handed over by another lane (a tree that copies forward ends
    /// there by `back`).
    floor: u32,
    /// Solutions found in the current unit.
    found: u64,
    /// Nodes visited in the current unit: one a `descend`.
    nodes: u64,
}

impl<C: Candidates> Walk<C> {
    /// Whether the top level's set is kept in registers: for sets of up to two words (on an
    /// H100 this made nqueens-simple 8–10 % faster). A larger set (examples/golomb's bitmap
    /// of used differences, up to eight words) stays in the slab: in registers it raised
    /// that kernel from 69 to 72 registers, and no gain stood out of branch and bound's
    /// run-to-run spread (16 marks: 17 to 40 s across runs of the same builds).
    const CACHED: bool = C::WORDS <= 2;

    /// An idle walk of a tree whose state takes `base` words of `slab`.
    #[inline(always)]
    fn idle<S: Slab>(base: u32, slab: &S) -> Self {
        Walk {
            base,
            depth: IDLE,
            // Any value: an idle walk never reads it.
            top: C::load(slab, base),
            back: IDLE,
            floor: 0,
            found: 0,
            nodes: 0,
        }
    }

    #[inline(always)]
    fn level<T: DepthFirst<Set = C>>(&self, depth: u32) -> u32 {
        self.base + depth * level_words::<T>()
    }

    /// The level whose untried choices this walk can share with an idle lane (split in two,
    /// [`Candidates::split`]), if any: the top level of a tree that undoes, near its unit's
    /// root (within [`NEAR_ROOT`] levels of its floor), where a part is worth the copy of
    /// the tree's state. A tree that copies forward does not share: its largest part is at
    /// the far end of its `back` chain, and walking the chain every step of the tail made
    /// nqueens-simple 11–45 % slower on an H100 (N = 20..18).
    #[inline(always)]
    fn giveable<T: DepthFirst<Set = C>>(&self) -> Option<u32> {
        if !T::UNDO || self.depth == IDLE || !Self::CACHED {
            return None;
        }
        let near = self.depth - self.floor < NEAR_ROOT;
        (near && self.top.split().is_some()).then_some(self.depth)
    }

    /// Starts unit `unit`.
    #[inline(always)]
    fn start<T: DepthFirst<Set = C>, S: Slab>(&mut self, tree: &T, unit: &[u64], slab: &mut S) {
        let root = tree.start(unit, slab);
        if Self::CACHED {
            self.top = root;
        } else {
            root.store(slab, self.level::<T>(0));
        }
        self.depth = 0;
        self.back = IDLE;
        self.floor = 0;
        self.found = tree.unit_leaves(unit, slab) as u64;
        self.nodes = 0;
    }

    /// The top level's untried choices: in registers, or in the slab for a set kept there.
    #[inline(always)]
    fn top_set<T: DepthFirst<Set = C>, S: Slab>(&self, slab: &S) -> C {
        if Self::CACHED {
            self.top
        } else {
            C::load(slab, self.level::<T>(self.depth))
        }
    }

    /// One step; returns the unit's count when this step finished it.
    #[inline(always)]
    fn step<T: DepthFirst<Set = C>, S: Slab>(&mut self, tree: &T, slab: &mut S) -> Option<u64> {
        if self.depth == IDLE {
            return None;
        }
        let set = self.top_set::<T, S>(slab);
        if T::UNDO {
            self.step_undoing(tree, slab, set)
        } else {
            self.step_forward(tree, slab, set)
        }
    }

    /// One step of a tree that copies forward, from a busy walk's top level `set`: descends by
    /// its lowest untried choice, and in the same step leaves every level that choice exhausts, so that every
    /// step is a descent (the built-in N-Queens counter's form).
    ///
    /// A level whose last choice is taken is not kept: its child's level records the level
    /// to come back to (`back`), the nearest one above that still has choices. A child that
    /// is a leaf, or has no choices, is not pushed; when its level has no choices left either,
    /// the walk returns to `back` at once, reading that level's set and its own `back`. So a
    /// node costs one step, against about two (a descent, and later a pop) in the undoing form.
    #[inline(always)]
    fn step_forward<T: DepthFirst<Set = C>, S: Slab>(
        &mut self,
        tree: &T,
        slab: &mut S,
        set: C,
    ) -> Option<u64> {
        let depth = self.depth;
        if set.is_empty() {
            // Only a unit's root can be empty here: a level left with no choices is never kept.
            self.depth = IDLE;
            return Some(self.found);
        }
        let choice = set.lowest();
        let rest = set.without_lowest();
        self.nodes += 1;
        let children = match tree.descend(slab, depth, choice, rest) {
            Node::Inner(children) if !children.is_empty() => Some(children),
            Node::Inner(_) => None,
            Node::Leaves(count) => {
                self.found += count as u64;
                None
            }
        };
        let at = self.level::<T>(depth);
        match children {
            Some(children) => {
                if !rest.is_empty() {
                    rest.store(slab, at);
                    slab.set(at + C::WORDS, self.back);
                    self.back = depth;
                }
                if Self::CACHED {
                    self.top = children;
                } else {
                    children.store(slab, self.level::<T>(depth + 1));
                }
                self.depth = depth + 1;
            }
            None if rest.is_empty() => {
                let back = self.back;
                if back == IDLE {
                    self.depth = IDLE;
                    return Some(self.found);
                }
                let at = self.level::<T>(back);
                if Self::CACHED {
                    self.top = C::load(slab, at);
                }
                self.back = slab.get(at + C::WORDS);
                self.depth = back;
            }
            None => {
                if Self::CACHED {
                    self.top = rest;
                } else {
                    rest.store(slab, at);
                }
            }
        }
        None
    }

    /// One step of a tree that undoes, from a busy walk's top level `set`: descends by its
    /// lowest untried choice, or pops the level and undoes the choice that made it.
    #[inline(always)]
    fn step_undoing<T: DepthFirst<Set = C>, S: Slab>(
        &mut self,
        tree: &T,
        slab: &mut S,
        set: C,
    ) -> Option<u64> {
        let depth = self.depth;
        let undoing = set.is_empty();
        if undoing && depth == self.floor {
            self.depth = IDLE;
            return Some(self.found);
        }
        // Descending: the top level's lowest choice. Undoing: the choice its parent took. One
        // call to the tree for both, so that a tree whose undo retraces its descent
        // (`DepthFirst::descend_or_undo`) runs the same instructions in every lane.
        let at_depth = if undoing { depth - 1 } else { depth };
        let at = self.level::<T>(at_depth);
        let (choice, rest) = if undoing {
            (slab.get(at + C::WORDS), set)
        } else {
            (set.lowest(), set.without_lowest())
        };
        let node = tree.descend_or_undo(slab, at_depth, choice, rest, undoing);
        if undoing {
            if Self::CACHED {
                self.top = C::load(slab, at);
            }
            self.depth = at_depth;
            return None;
        }
        self.nodes += 1;
        match node {
            Node::Leaves(count) => {
                self.found += count as u64;
                if Self::CACHED {
                    self.top = rest;
                } else {
                    rest.store(slab, at);
                }
            }
            Node::Inner(children) => {
                rest.store(slab, at);
                slab.set(at + C::WORDS, choice);
                if Self::CACHED {
                    self.top = children;
                } else {
                    children.store(slab, self.level::<T>(depth + 1));
                }
                self.depth = depth + 1;
            }
        }
        None
    }
}

/// Slab words a level of the skeleton's stack takes: the set, and one word more — the choice
/// taken when the tree undoes, the level to come back to when it copies forward.
#[inline(always)]
const fn level_words<T: DepthFirst>() -> u32 {
    T::Set::WORDS + 1
}

/// Slab words a walk of `tree` needs: its state and the stack (a set and one more word a
/// level). Give each GPU thread this many words of shared memory
/// (`4 ×` bytes).
#[inline(always)]
pub fn slab_words<T: DepthFirst>(tree: &T) -> u32 {
    tree.state_words() + (tree.max_depth() + 1) * level_words::<T>()
}

/// Threads a block of the skeleton's launch: the kernel is compiled for this block size (its
/// slab's stride is a constant), and `engine::Launch::skeleton` launches it so.
pub const BLOCK: u32 = 128;

/// What a walk of one unit found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Walked {
    /// Solutions: the sum of the [`Node::Leaves`] counts.
    pub found: u64,
    /// Nodes visited: one a [`DepthFirst::descend`].
    pub nodes: u64,
}

/// CPU twin: the solutions under `unit`, searched on this thread with the skeleton's steps.
/// `slab` must hold [`slab_words`] words.
#[track_caller]
pub fn walk_unit<T: DepthFirst, S: Slab>(tree: &T, unit: &[u64], slab: &mut S) -> u64 {
    walk_unit_with_nodes(tree, unit, slab).found
}

/// [`walk_unit`], also counting the nodes visited.
///
/// # Panics
/// When `slab` knows its size and it is less than [`slab_words`], or the walk descends past
/// [`DepthFirst::max_depth`] (a tree whose `max_depth` is too small; on the GPU it would
/// write past its slab into a neighbour's).
#[track_caller]
pub fn walk_unit_with_nodes<T: DepthFirst, S: Slab>(
    tree: &T,
    unit: &[u64],
    slab: &mut S,
) -> Walked {
    check_slab(tree, slab);
    let mut walk = Walk::idle(tree.state_words(), slab);
    walk.start(tree, unit, slab);
    loop {
        if let Some(found) = walk.step(tree, slab) {
            return Walked {
                found,
                nodes: walk.nodes,
            };
        }
        assert!(
            walk.depth <= tree.max_depth(),
            "the walk descended to depth {}, past max_depth() = {}: max_depth must be the \
             deepest level a unit's search reaches (the stack keeps one level a depth)",
            walk.depth,
            tree.max_depth()
        );
    }
}

/// Panics, with the tree's numbers, when `slab` knows its size and has fewer words than a walk
/// of `tree` needs.
#[track_caller]
fn check_slab<T: DepthFirst, S: Slab>(tree: &T, slab: &S) {
    if let Some(words) = slab.words() {
        let needed = slab_words(tree);
        assert!(
            words >= needed,
            "a slab of {words} words for a walk that needs {needed} (slab_words: {} state words \
             and {} stack levels of {} words, for max_depth() = {})",
            tree.state_words(),
            tree.max_depth() + 1,
            level_words::<T>(),
            tree.max_depth()
        );
    }
}

/// Knuth's estimate of the nodes a walk of `unit` visits (one a [`DepthFirst::descend`]),
/// from one random path: at each node on the path, `pick(k)` (a number below `k`, uniformly at
/// random) chooses one of its `k` children, and the node adds `k` times the product of the
/// branching above it. The mean of many such probes is the tree's node count (the estimate
/// is unbiased; its spread is the tree's unevenness). The walk's own steps on one path: no
/// `undo`, since the state is written afresh by `start` at the next probe.
pub fn probe<T: DepthFirst, S: Slab>(
    tree: &T,
    unit: &[u64],
    slab: &mut S,
    pick: &mut impl FnMut(u32) -> u32,
) -> f64 {
    let mut set = tree.start(unit, slab);
    let (mut weight, mut nodes, mut depth) = (1.0, 0.0, 0);
    loop {
        let children = set.count();
        if children == 0 {
            return nodes;
        }
        nodes += weight * children as f64;
        let index = pick(children).min(children - 1);
        let rest = set.skip(index);
        let choice = rest.lowest();
        match tree.descend(slab, depth, choice, rest.without_lowest()) {
            Node::Leaves(_) => return nodes,
            Node::Inner(next) => {
                weight *= children as f64;
                set = next;
                depth += 1;
            }
        }
    }
}

/// What the skeleton writes for each unit it walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    /// One word a unit: `results[unit]` is its count.
    Counts,
    /// Two words a unit: `results[2·unit]` its count, `results[2·unit + 1]` the nodes it
    /// visited ([`Walked`]).
    CountsAndNodes,
}

/// What one lane of the skeleton keeps between its steps: its walk, its slab (the tree's
/// state and the walk's stack), the unit it is on, the unit it claimed and waits for (the host
/// has not written it yet), and whether the queue has run dry for it.
pub struct Lane<S, C> {
    walk: Walk<C>,
    slab: S,
    unit: u32,
    held: u32,
    finished: bool,
}

impl<S: Slab, C: Candidates> Lane<S, C> {
    /// An idle lane of `tree`'s walk, on `slab` (at least [`slab_words`] words).
    #[inline(always)]
    pub fn new<T: DepthFirst<Set = C>>(tree: &T, slab: S) -> Self {
        Lane {
            walk: Walk::idle(tree.state_words(), &slab),
            slab,
            unit: 0,
            held: NO_INDEX,
            finished: false,
        }
    }

    /// Wants a unit: its last one is done and the queue has not run dry for it.
    #[inline(always)]
    fn wants_unit(&self) -> bool {
        self.walk.depth == IDLE && !self.finished
    }
}

/// Hands work from busy lanes to idle ones, once the work queue has run dry for some lanes of
/// the warp: each idle lane is paired with a busy lane whose top level has two untried
/// choices or more ([`Candidates::split`]); the busy lane keeps the lower half and the idle
/// lane takes the upper half, with a copy of the busy lane's state (the tree's slab words,
/// through shuffles) and the same unit, searching only below that level (its `floor`, or an
/// empty `back` chain). Without it the last units of a launch keep their lanes busy while
/// the warp's other lanes wait: with about three units a lane (Costas n = 15 on an H100),
/// the largest unit is 0.85 of a lane's average share of the work.
#[inline(always)]
fn hand_over<T: DepthFirst, S: Slab>(
    tree: &T,
    lanes: &mut crate::warp::Lanes<Lane<S, T::Set>>,
    work: &crate::work::Work,
) {
    use crate::warp::{Lanes, lane_id, lanemask_lt};
    let idle = lanes.map_ref(|lane| lane.walk.depth == IDLE && lane.finished);
    let level = lanes.map_ref(|lane| lane.walk.giveable::<T>());
    let busy = level.map(|level| level.is_some());
    let (idle_votes, busy_votes) = (idle.ballot(), busy.ballot());
    if idle_votes == 0 || busy_votes == 0 {
        return;
    }
    let pairs = idle_votes.count_ones().min(busy_votes.count_ones());
    let below = lanemask_lt();
    let idle_rank = (below & Lanes::splat(idle_votes)).popc();
    let busy_rank = (below & Lanes::splat(busy_votes)).popc();
    let receiving = idle.zip_with(idle_rank, |idle, rank| idle && rank < pairs);
    let giving = busy.zip_with(busy_rank, |busy, rank| busy && rank < pairs);
    // A receiver's source: the busy lane of its own rank (the rank-th set bit of the votes).
    let source = Lanes::select(
        receiving,
        idle_rank.map(|rank| {
            let mut votes = busy_votes;
            // Lanes that receive nothing may count past the busy lanes: the set bits run
            // out, and clearing the lowest of none leaves none.
            for _ in 0..rank {
                votes &= votes.wrapping_sub(1);
            }
            votes.trailing_zeros()
        }),
        lane_id(),
    );
    // A giver keeps the lower half of the level's choices and leaves the upper half in its
    // slab, in its top level's own words (unused while that level is the top).
    let given = level.zip_with(giving, |level, giving| level.filter(|_| giving));
    lanes.each_mut_with(given, |lane, level| {
        let Some(level) = level else { return };
        let walk = &mut lane.walk;
        if let Some((keep, give)) = walk.top.split() {
            walk.top = keep;
            give.store(&mut lane.slab, walk.level::<T>(level));
            // The unit's chunk waits for one more piece; the giver is still busy with it, so
            // the chunk cannot be counted done in between.
            work.add_piece(lane.unit);
        }
    });
    // The level a receiver starts at: the one its giver split.
    let depth = given.map(|level| level.unwrap_or(0)).shuffle(source);
    let unit = lanes.map_ref(|lane| lane.unit).shuffle(source);
    for word in 0..tree.state_words() {
        let value = lanes.map_ref(|lane| lane.slab.get(word)).shuffle(source);
        lanes.each_mut_with(
            receiving.zip_with(value, |r, v| (r, v)),
            |lane, (receiving, value)| {
                if receiving {
                    lane.slab.set(word, value);
                }
            },
        );
    }
    for word in 0..T::Set::WORDS {
        let value = lanes
            .map_ref(|lane| {
                let depth = if lane.walk.depth == IDLE {
                    0
                } else {
                    lane.walk.depth
                };
                lane.slab.get(lane.walk.level::<T>(depth) + word)
            })
            .shuffle(source);
        lanes.each_mut_with(
            receiving
                .zip_with(value, |r, v| (r, v))
                .zip_with(depth, |(r, v), d| (r, v, d)),
            |lane, (receiving, value, depth)| {
                if receiving {
                    let at = lane.walk.level::<T>(depth) + word;
                    lane.slab.set(at, value);
                }
            },
        );
    }
    lanes.each_mut_with(
        receiving
            .zip_with(depth, |r, d| (r, d))
            .zip_with(unit, |(r, d), u| (r, d, u)),
        |lane, (receiving, depth, unit)| {
            if receiving {
                let walk = &mut lane.walk;
                walk.top = T::Set::load(&lane.slab, walk.level::<T>(depth));
                walk.depth = depth;
                walk.back = IDLE;
                walk.floor = depth;
                walk.found = 0;
                walk.nodes = 0;
                // It stays `finished`: the queue is dry for it, and it will not claim again.
                lane.unit = unit;
            }
        },
    );
}

/// The skeleton's loop for one warp: each lane walks units of `tree` from `work` (the
/// engine's calling convention, [`crate::work`]: `unit_words` words a unit) until the feed
/// closes or the launch is stopped, and adds each unit's result to its result words as
/// `report` says, then counts the unit (or its piece) done for its chunk. A lane that
/// finishes a unit claims the next at its next step (one warp-aggregated atomic for all lanes
/// that need one), while its neighbours go on; a lane whose claimed unit the host has not
/// written yet holds the index and looks again at its next step. Once the queue has run dry,
/// busy lanes hand part of their work to idle ones (`hand_over`).
///
/// Written over [`Lanes`](crate::warp::Lanes), so that the same loop runs on both forms: on
/// the GPU each thread is one lane and `lanes` its own register state (`walk_units`, GPU
/// only, sets it up), on the CPU `lanes` holds a whole warp's 32 walks and each round steps
/// them in lane order. CPU tests run a search's kernel loop this way, claims, writes and
/// cancellation included.
///
/// # Safety
/// `work`'s results hold one word a unit (two for [`Report::CountsAndNodes`]), zeroed, its
/// units `unit_words` words each (at most [`MAX_UNIT_WORDS`](crate::work::MAX_UNIT_WORDS)).
#[inline(always)]
pub unsafe fn walk_warp<T: DepthFirst, S: Slab>(
    tree: &T,
    lanes: &mut crate::warp::Lanes<Lane<S, T::Set>>,
    work: &crate::work::Work,
    unit_words: u32,
    report: Report,
) {
    use crate::atomic::Supply;
    use core::sync::atomic::{AtomicU64, Ordering};
    let queue = work.queue();
    let result_words = match report {
        Report::Counts => 1,
        Report::CountsAndNodes => 2,
    };
    // Whether the queue has run dry for some lane (the same in every lane: set from a vote).
    let mut dry = false;
    loop {
        let wanting = lanes.map_ref(Lane::wants_unit);
        if wanting.any() {
            let claimed =
                queue.claim(lanes.map_ref(|lane| lane.wants_unit() && lane.held == NO_INDEX));
            lanes.each_mut_with(claimed, |lane, claimed| {
                if !lane.wants_unit() {
                    return;
                }
                if lane.held == NO_INDEX {
                    lane.held = claimed;
                }
                if work.cancelled() {
                    lane.finished = true;
                    return;
                }
                match work.supply(lane.held) {
                    Supply::Ready => {
                        // SAFETY: the unit is supplied, `unit_words` words (the contract).
                        let words = unsafe { work.unit(lane.held, unit_words) };
                        lane.unit = lane.held;
                        lane.held = NO_INDEX;
                        lane.walk
                            .start(tree, &words[..unit_words as usize], &mut lane.slab);
                    }
                    Supply::Closed => lane.finished = true,
                    Supply::Pending => {}
                }
            });
            // Only a claim finishes a lane, so this is the one place to ask (a lane that
            // searches what another handed it is finished but not idle).
            let finished = lanes.map_ref(|lane| lane.finished);
            if lanes
                .map_ref(|lane| lane.finished && lane.walk.depth == IDLE)
                .all()
            {
                return;
            }
            // Only a tree that undoes shares its work (`Walk::giveable`).
            dry = T::UNDO && finished.any();
        }
        if dry {
            // A lane the queue ran dry for searches only what others hand it, so the warp is
            // done when every lane is idle.
            if lanes.map_ref(|lane| lane.walk.depth == IDLE).all() {
                return;
            }
            hand_over(tree, lanes, work);
        }
        lanes.each_mut(|lane| {
            if let Some(found) = lane.walk.step(tree, &mut lane.slab) {
                // A tree that undoes adds (atomically): a unit whose work was handed over ends
                // in several lanes.
                // SAFETY: the lane's unit (or piece) was claimed or handed to it and is not
                // finished; its result words are `result_words` (the contract), `u64`s aligned
                // for `AtomicU64`, zeroed, written only through atomics while the loop runs
                // (or only by this lane, for a tree that copies forward).
                unsafe {
                    let result = work.result(lane.unit, result_words);
                    let nodes = lane.walk.nodes;
                    if T::UNDO {
                        AtomicU64::from_ptr(result).fetch_add(found, Ordering::Relaxed);
                        if report == Report::CountsAndNodes {
                            AtomicU64::from_ptr(result.add(1)).fetch_add(nodes, Ordering::Relaxed);
                        }
                    } else {
                        // Never shared: the lane's own unit.
                        *result = found;
                        if report == Report::CountsAndNodes {
                            *result.add(1) = nodes;
                        }
                    }
                }
                work.finish(lane.unit);
            }
        });
    }
}

/// CPU twin of a launch's kernel loop, for tests: [`walk_warp`] on one warp of 32 lanes, each
/// with a slab from `slab()`, over `units` (`unit_words` words each) with its own queue and no
/// cancellation, writing `results` as `report` says (zeroing them first) — what one GPU warp
/// alone would do with the whole work list, hand-overs included.
///
/// # Panics
/// When `units` is not a whole number of units, `results` does not have the words `report`
/// needs for them, or a slab that knows its size is smaller than [`slab_words`] (tests only:
/// the GPU path checks nothing).
#[cfg(not(target_arch = "nvptx64"))]
#[track_caller]
pub fn walk_as_one_warp<T: DepthFirst, S: Slab>(
    tree: &T,
    units: &[u64],
    unit_words: u32,
    results: &mut [u64],
    report: Report,
    mut slab: impl FnMut() -> S,
) {
    let count = units.len() / unit_words as usize;
    let words = match report {
        Report::Counts => count,
        Report::CountsAndNodes => 2 * count,
    };
    assert_eq!(units.len(), count * unit_words as usize, "a part of a unit");
    assert_eq!(results.len(), words, "results for {count} units");
    assert!(
        unit_words as usize <= crate::work::MAX_UNIT_WORDS,
        "units of {unit_words} words"
    );
    // The loop adds to each unit's words.
    results.fill(0);
    let mut lanes = crate::warp::Lanes::from_fn(|_| {
        let slab = slab();
        check_slab(tree, &slab);
        Lane::new(tree, slab)
    });
    let fixed = crate::work::FixedWork::new(count as u32, false);
    // SAFETY: `units` holds `count` units and `results` the words `report` writes for them
    // (both checked above); they and `fixed` outlive the walk.
    unsafe {
        let work = fixed.work(units, results);
        walk_warp(tree, &mut lanes, &work, unit_words, report);
    }
}

/// The GPU skeleton: [`walk_warp`] on every warp of the launch, each thread a lane with its
/// slab in the block's shared memory, over the launch's `work` (`unit_words` words a unit),
/// writing each unit's result as `report` says.
///
/// # Safety
/// The engine's calling convention ([`crate::work`]), with zeroed results of one word a unit
/// (two for [`Report::CountsAndNodes`]); blocks of [`BLOCK`] threads, each with [`slab_words`]
/// words (`4 ×` bytes) of dynamic shared memory that nothing else uses.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn walk_units<T: DepthFirst>(
    tree: &T,
    work: &crate::work::Work,
    unit_words: u32,
    report: Report,
) {
    // SAFETY: the launch provides the shared memory in blocks of `BLOCK` (contract above).
    let slab = unsafe { crate::slab::BlockSlab::<BLOCK>::for_this_thread() };
    let mut lanes = crate::warp::Lanes::this_lane(Lane::new(tree, slab));
    // SAFETY: the same contract.
    unsafe { walk_warp(tree, &mut lanes, work, unit_words, report) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warp::Lanes;
    use std::vec::Vec;

    /// Subsets of {0..n} summing to `target` whose smallest number taken is the unit (the
    /// unit `n + 1`: none taken). A tree that undoes, with units of very different sizes.
    struct Sums {
        n: u32,
        target: u32,
    }

    impl DepthFirst for Sums {
        type Set = u32;
        fn state_words(&self) -> u32 {
            2
        }
        fn max_depth(&self) -> u32 {
            self.n + 1
        }
        fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> u32 {
            // Numbers below the unit are left out; the unit itself is taken.
            let first = unit[0] as u32;
            state.set(0, 0);
            state.set(1, first);
            if first > self.n { 0 } else { 0b10 }
        }
        fn descend<S: Slab>(&self, state: &mut S, _: u32, choice: u32, _: u32) -> Node<u32> {
            let (sum, number) = (state.get(0), state.get(1));
            let sum = sum + choice * number;
            if number == self.n {
                return Node::Leaves((sum == self.target) as u32);
            }
            state.set(0, sum);
            state.set(1, number + 1);
            Node::Inner(0b11)
        }
        fn undo<S: Slab>(&self, state: &mut S, _: u32, choice: u32) {
            let number = state.get(1) - 1;
            state.set(1, number);
            state.set(0, state.get(0) - choice * number);
        }
    }

    /// [`Sums`] as a tree that copies forward: level d's running sum in slab word d, with a
    /// sum past the target a dead end (an empty set) so that the walk meets dead ends,
    /// leaves and exhausted levels in every order.
    struct ForwardSums {
        n: u32,
        target: u32,
    }

    impl DepthFirst for ForwardSums {
        type Set = u32;
        const UNDO: bool = false;
        fn state_words(&self) -> u32 {
            self.n + 3
        }
        fn max_depth(&self) -> u32 {
            self.n + 1
        }
        fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> u32 {
            let first = unit[0] as u32;
            state.set(0, 0);
            state.set(self.n + 2, first);
            if first > self.n { 0 } else { 0b10 }
        }
        fn descend<S: Slab>(&self, state: &mut S, depth: u32, choice: u32, _: u32) -> Node<u32> {
            let number = state.get(self.n + 2) + depth;
            let sum = state.get(depth) + choice * number;
            if number == self.n {
                return Node::Leaves((sum == self.target) as u32);
            }
            state.set(depth + 1, sum);
            Node::Inner(if sum > self.target { 0 } else { 0b11 })
        }
        fn undo<S: Slab>(&self, _: &mut S, _: u32, _: u32) {}
    }

    #[test]
    fn a_tree_that_copies_forward_finds_what_the_undoing_form_finds() {
        for (n, target) in [(0, 0), (1, 1), (6, 4), (11, 20), (13, 30)] {
            let (undoing, forward) = (Sums { n, target }, ForwardSums { n, target });
            let mut total = 0;
            for unit in 0..n as u64 + 2 {
                let a = walk_unit_with_nodes(&undoing, &[unit], &mut [0u32; 64]);
                let b = walk_unit_with_nodes(&forward, &[unit], &mut [0u32; 64]);
                // The same descents, minus those below a dead end the forward tree prunes.
                assert_eq!(a.found, b.found, "n {n}, unit {unit}");
                assert!(b.nodes <= a.nodes, "n {n}, unit {unit}");
                total += b.found;
            }
            // Every non-empty subset once, by its smallest number (the unit n + 1 finds none).
            let by_hand = (1u32..1 << (n + 1))
                .filter(|s| (0..=n).filter(|b| s >> b & 1 == 1).sum::<u32>() == target)
                .count() as u64;
            assert_eq!(total, by_hand, "n {n}");
        }
        // With nothing pruned the two forms descend the same nodes.
        let (undoing, forward) = (
            Sums { n: 9, target: 1000 },
            ForwardSums { n: 9, target: 1000 },
        );
        for unit in 0..11u64 {
            let a = walk_unit_with_nodes(&undoing, &[unit], &mut [0u32; 64]);
            let b = walk_unit_with_nodes(&forward, &[unit], &mut [0u32; 64]);
            assert_eq!(a, b, "unit {unit}");
        }
    }

    #[test]
    fn the_kernel_loop_walks_a_forward_tree_as_the_cpu_twin_does() {
        let tree = ForwardSums { n: 12, target: 25 };
        let units: Vec<u64> = (0..90).map(|i| i % 15).collect();
        let mut results = std::vec![u64::MAX; 2 * units.len()];
        walk_as_one_warp(
            &tree,
            &units,
            1,
            &mut results,
            Report::CountsAndNodes,
            || [0u32; 64],
        );
        for (i, &unit) in units.iter().enumerate() {
            let walked = walk_unit_with_nodes(&tree, &[unit], &mut [0u32; 64]);
            assert_eq!(
                results[2 * i..2 * i + 2],
                [walked.found, walked.nodes],
                "unit {i}"
            );
        }
    }

    /// Runs the skeleton's kernel loop on the CPU form of a warp, as one GPU warp would.
    fn walk_as_a_warp(tree: &Sums, units: &[u64], cancel: bool, report: Report) -> Vec<u64> {
        let words = if report == Report::Counts { 1 } else { 2 };
        let mut results = std::vec![0; units.len() * words];
        let mut lanes = Lanes::from_fn(|_| Lane::new(tree, [0u32; 64]));
        let fixed = crate::work::FixedWork::new(units.len() as u32, cancel);
        // SAFETY: `units` holds `len` one-word units; `results` their words; both outlive
        // the walk.
        unsafe {
            let work = fixed.work(units, &mut results);
            walk_warp(tree, &mut lanes, &work, 1, report);
        }
        results
    }

    #[test]
    fn the_kernel_loop_on_a_cpu_warp_writes_every_units_count_and_nodes() {
        let tree = Sums { n: 11, target: 20 };
        // 70 units: more than two per lane, most of them empty (first > n), a few large.
        let units: Vec<u64> = (0..70).map(|i| i % 14).collect();
        let results = walk_as_a_warp(&tree, &units, false, Report::CountsAndNodes);
        for (i, &unit) in units.iter().enumerate() {
            let walked = walk_unit_with_nodes(&tree, &[unit], &mut [0u32; 64]);
            assert_eq!(
                results[2 * i..2 * i + 2],
                [walked.found, walked.nodes],
                "unit {i}"
            );
        }
        // Every subset of {0..11} summing to 20, counted once: by the unit of its smallest
        // number.
        let total: u64 = (0..12u64).map(|u| results[2 * u as usize]).sum();
        let by_hand = (1u32..1 << 12)
            .filter(|s| (0..12).filter(|b| s >> b & 1 == 1).sum::<u32>() == 20)
            .count() as u64;
        assert_eq!(total, by_hand);
        assert_eq!(walk_as_a_warp(&tree, &units, false, Report::Counts), {
            let pairs = results.chunks(2).map(|pair| pair[0]);
            pairs.collect::<Vec<_>>()
        });
    }

    /// [`Sums`] from units that decide the first `decided` numbers (unit: the mask of those
    /// taken). With every number decided a unit is a complete subset: it has no choices, and
    /// counts itself through [`DepthFirst::unit_leaves`].
    struct Decided {
        sums: Sums,
        decided: u32,
    }

    impl DepthFirst for Decided {
        type Set = u32;
        fn state_words(&self) -> u32 {
            2
        }
        fn max_depth(&self) -> u32 {
            self.sums.n + 1
        }
        fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> u32 {
            let sum = (0..self.decided).filter(|b| unit[0] >> b & 1 == 1).sum();
            state.set(0, sum);
            state.set(1, self.decided);
            if self.decided > self.sums.n { 0 } else { 0b11 }
        }
        fn unit_leaves<S: Slab>(&self, _: &[u64], state: &S) -> u32 {
            (self.decided > self.sums.n && state.get(0) == self.sums.target) as u32
        }
        fn descend<S: Slab>(&self, state: &mut S, d: u32, choice: u32, rest: u32) -> Node<u32> {
            self.sums.descend(state, d, choice, rest)
        }
        fn undo<S: Slab>(&self, state: &mut S, depth: u32, choice: u32) {
            self.sums.undo(state, depth, choice)
        }
    }

    #[test]
    fn units_that_are_complete_solutions_count_themselves_on_the_cpu_and_in_the_kernel_loop() {
        let (n, target) = (9, 17);
        let by_hand = (0u32..1 << (n + 1))
            .filter(|s| (0..=n).filter(|b| s >> b & 1 == 1).sum::<u32>() == target)
            .count() as u64;
        // From no number decided to all of them: the last work list is every subset.
        for decided in 0..=n + 1 {
            let tree = Decided {
                sums: Sums { n, target },
                decided,
            };
            let units: Vec<u64> = (0..1u64 << decided).collect();
            let cpu: u64 = units
                .iter()
                .map(|&u| walk_unit(&tree, &[u], &mut [0u32; 64]))
                .sum();
            assert_eq!(cpu, by_hand, "{decided} decided, CPU twin");
            let mut results = std::vec![0; units.len()];
            walk_as_one_warp(&tree, &units, 1, &mut results, Report::Counts, || {
                [0u32; 64]
            });
            assert_eq!(
                results.iter().sum::<u64>(),
                by_hand,
                "{decided} decided, a warp"
            );
        }
    }

    #[test]
    fn a_cancelled_kernel_loop_starts_no_unit_and_writes_nothing() {
        let units: Vec<u64> = (0..40).collect();
        let results = walk_as_a_warp(&Sums { n: 9, target: 7 }, &units, true, Report::Counts);
        assert!(results.iter().all(|&r| r == 0));
    }

    #[test]
    fn one_large_unit_is_shared_by_the_whole_warp_and_counted_exactly() {
        fn run<T: DepthFirst<Set = u32>>(tree: &T) -> (Walked, u32, [u64; 2]) {
            let mut lanes = Lanes::from_fn(|_| Lane::new(tree, [0u32; 64]));
            let mut results = [0u64; 2];
            let fixed = crate::work::FixedWork::new(1, false);
            // SAFETY: one one-word unit and its two result words, outliving the walk.
            unsafe {
                let work = fixed.work(&[2u64], &mut results);
                walk_warp(tree, &mut lanes, &work, 1, Report::CountsAndNodes);
            }
            let twin = walk_unit_with_nodes(tree, &[2], &mut [0u32; 64]);
            // A lane keeps the nodes of the last work it did.
            let worked = lanes
                .map_ref(|lane| lane.walk.nodes > 0)
                .ballot()
                .count_ones();
            assert_eq!(fixed.claimed(), 33, "one claim each, and the unit's");
            (twin, worked, results)
        }
        // A tree that undoes shares its unit with the idle lanes.
        let (twin, worked, results) = run(&Sums { n: 14, target: 40 });
        assert_eq!(results, [twin.found, twin.nodes]);
        assert!(twin.found > 0);
        assert!(
            worked > 16,
            "{worked} lanes worked: the unit was not shared"
        );
        // One that copies forward keeps it to its lane.
        let (twin, worked, results) = run(&ForwardSums { n: 14, target: 40 });
        assert_eq!(results, [twin.found, twin.nodes]);
        assert_eq!(worked, 1, "a forward tree's unit was shared");
    }

    proptest::proptest! {
        /// Any work list, walked by the kernel's own loop on a CPU warp, gives every unit the
        /// count and nodes of its CPU twin, for a tree that undoes and for one that copies
        /// forward (whose counts agree with each other).
        #[test]
        fn the_kernel_loop_matches_the_twin_unit_by_unit(
            n in 0u32..12,
            target in 0u32..40,
            units in proptest::collection::vec(0u64..14, 1..80),
        ) {
            let units: Vec<u64> = units.into_iter().map(|u| u % (n as u64 + 2)).collect();
            let (undoing, forward) = (Sums { n, target }, ForwardSums { n, target });
            let mut results = std::vec![0; 2 * units.len()];
            let mut forward_results = results.clone();
            walk_as_one_warp(&undoing, &units, 1, &mut results, Report::CountsAndNodes, || {
                [0u32; 64]
            });
            walk_as_one_warp(&forward, &units, 1, &mut forward_results, Report::CountsAndNodes, || {
                [0u32; 64]
            });
            for (i, &unit) in units.iter().enumerate() {
                let a = walk_unit_with_nodes(&undoing, &[unit], &mut [0u32; 64]);
                let b = walk_unit_with_nodes(&forward, &[unit], &mut [0u32; 64]);
                proptest::prop_assert_eq!(&results[2 * i..2 * i + 2], &[a.found, a.nodes][..]);
                proptest::prop_assert_eq!(&forward_results[2 * i..2 * i + 2], &[b.found, b.nodes][..]);
                proptest::prop_assert_eq!(a.found, b.found);
            }
        }
    }

    #[test]
    fn lanes_claim_units_in_lane_order_and_the_queue_ends_past_the_count() {
        let tree = Sums { n: 5, target: 3 };
        let mut lanes = Lanes::from_fn(|_| Lane::new(&tree, [0u32; 16]));
        let units = [0u64; 3];
        let mut results = [0u64; 3];
        let fixed = crate::work::FixedWork::new(3, false);
        // SAFETY: three one-word units and three result words, outliving the walk.
        unsafe {
            let work = fixed.work(&units, &mut results);
            walk_warp(&tree, &mut lanes, &work, 1, Report::Counts);
        }
        // A first claim by all 32 lanes (indices 0..32: lanes 0, 1, 2 get the units, the
        // other 29 find the queue dry and never claim again), then one by each of the three
        // when its unit ends (32..35); the idle lanes search what the three hand them.
        assert_eq!(fixed.claimed(), 35);
        assert!(lanes.map_ref(|lane| lane.finished).all());
        assert_eq!(results, [2, 2, 2]);
        // The safe form for tests gives the same.
        let mut again = [0u64; 3];
        walk_as_one_warp(&tree, &units, 1, &mut again, Report::Counts, || [0u32; 16]);
        assert_eq!(again, results);
    }
}
