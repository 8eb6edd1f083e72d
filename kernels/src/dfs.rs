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
//! [`undo`](DepthFirst::undo) the choice that made it. On the GPU the 32 lanes take their
//! steps together; a lane whose unit is done claims the next one (one warp-aggregated atomic
//! for every lane that needs a unit) while the others go on, so units of very different
//! sizes keep the warp busy. What a step costs beyond the tree's own code: one shared-memory
//! load and store of the level's set, a vote that asks whether any lane needs a unit, and the
//! branch on the outcome.
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
}

/// What [`DepthFirst::descend`] found at the new node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node<Set> {
    /// A node to search further, with its candidate choices (an empty set is a dead end; the
    /// skeleton pops it at its next step). The tree's state now describes this node, and
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
    /// each descent (each level in its own slab words) sets it false: the skeleton then keeps
    /// no choice on its stack and calls no `undo`, one shared-memory store and load a node
    /// less.
    const UNDO: bool = true;
    /// Slab words the partial solution takes (the skeleton's stack follows them).
    fn state_words(&self) -> u32;
    /// Levels a unit's search descends at most (the stack holds one set a level).
    fn max_depth(&self) -> u32;
    /// Writes the partial solution of `unit` into `state`; returns the choices at its root.
    fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> Self::Set;
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
}

/// `Walk::depth` when no unit is being searched.
const IDLE: u32 = u32::MAX;

/// The stack of one walk: for each level, the choices not yet tried and (for a tree that
/// undoes) the one taken last. Level `d` sits at slab word `base + d · LEVEL_WORDS`.
struct Walk {
    /// Slab word of level 0.
    base: u32,
    /// The current level; [`IDLE`] when no unit is being searched.
    depth: u32,
    /// Solutions found in the current unit.
    found: u64,
    /// Nodes visited in the current unit: one a `descend`.
    nodes: u64,
}

impl Walk {
    #[inline(always)]
    fn level<T: DepthFirst>(&self, depth: u32) -> u32 {
        self.base + depth * level_words::<T>()
    }

    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn idle(&self) -> bool {
        self.depth == IDLE
    }

    /// Starts unit `unit`.
    #[inline(always)]
    fn start<T: DepthFirst, S: Slab>(&mut self, tree: &T, unit: &[u64], slab: &mut S) {
        let root = tree.start(unit, slab);
        root.store(slab, self.level::<T>(0));
        self.depth = 0;
        self.found = 0;
        self.nodes = 0;
    }

    /// One step: descends by the top level's lowest untried choice, or pops the level. Returns
    /// the unit's count when this step finished it.
    #[inline(always)]
    fn step<T: DepthFirst, S: Slab>(&mut self, tree: &T, slab: &mut S) -> Option<u64> {
        let depth = self.depth;
        if depth == IDLE {
            return None;
        }
        let at = self.level::<T>(depth);
        let set = T::Set::load(slab, at);
        if set.is_empty() {
            if depth == 0 {
                self.depth = IDLE;
                return Some(self.found);
            }
            let parent = depth - 1;
            if T::UNDO {
                let choice = slab.get(self.level::<T>(parent) + T::Set::WORDS);
                tree.undo(slab, parent, choice);
            }
            self.depth = parent;
            return None;
        }
        let choice = set.lowest();
        let rest = set.without_lowest();
        rest.store(slab, at);
        self.nodes += 1;
        match tree.descend(slab, depth, choice, rest) {
            Node::Leaves(count) => self.found += count as u64,
            Node::Inner(children) => {
                if T::UNDO {
                    slab.set(at + T::Set::WORDS, choice);
                }
                children.store(slab, self.level::<T>(depth + 1));
                self.depth = depth + 1;
            }
        }
        None
    }
}

/// Slab words a level of the skeleton's stack takes: the set, and the choice when the tree
/// undoes.
#[inline(always)]
const fn level_words<T: DepthFirst>() -> u32 {
    T::Set::WORDS + T::UNDO as u32
}

/// Slab words a walk of `tree` needs: its state and the stack (one set a level, and the
/// choice when the tree undoes). Give each GPU thread this many words of shared memory
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
pub fn walk_unit<T: DepthFirst, S: Slab>(tree: &T, unit: &[u64], slab: &mut S) -> u64 {
    walk_unit_with_nodes(tree, unit, slab).found
}

/// [`walk_unit`], also counting the nodes visited.
pub fn walk_unit_with_nodes<T: DepthFirst, S: Slab>(
    tree: &T,
    unit: &[u64],
    slab: &mut S,
) -> Walked {
    let mut walk = Walk {
        base: tree.state_words(),
        depth: IDLE,
        found: 0,
        nodes: 0,
    };
    walk.start(tree, unit, slab);
    loop {
        if let Some(found) = walk.step(tree, slab) {
            return Walked {
                found,
                nodes: walk.nodes,
            };
        }
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

/// The GPU skeleton: every lane of every warp walks units of `tree` from the engine's work
/// queue until the queue or `cancel` says stop, and writes each unit's count to
/// `results[unit]`. A lane that finishes a unit claims the next at its next step (one
/// warp-aggregated atomic for all lanes that need one), while its neighbours go on.
///
/// # Safety
/// The engine's calling convention: `units` holds `count × unit_words` words and `results`
/// `count` words; `next` and `cancel` are zeroed device words; blocks of [`BLOCK`] threads,
/// each with [`slab_words`] words (`4 ×` bytes) of dynamic shared memory that nothing else
/// uses.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn walk_units<T: DepthFirst>(
    tree: &T,
    units: *const u64,
    unit_words: u32,
    count: u32,
    next: &core::sync::atomic::AtomicU32,
    cancel: &core::sync::atomic::AtomicU32,
    results: *mut u64,
) {
    // SAFETY: the same contract.
    unsafe {
        walk::<T, false>(tree, units, unit_words, count, next, cancel, results);
    }
}

/// [`walk_units`], writing two words a unit: `results[2·unit]` its count and
/// `results[2·unit + 1]` the nodes it visited ([`Walked`]).
///
/// # Safety
/// As for [`walk_units`], with `results` of `2 × count` words.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn walk_units_with_nodes<T: DepthFirst>(
    tree: &T,
    units: *const u64,
    unit_words: u32,
    count: u32,
    next: &core::sync::atomic::AtomicU32,
    cancel: &core::sync::atomic::AtomicU32,
    results: *mut u64,
) {
    // SAFETY: the same contract.
    unsafe {
        walk::<T, true>(tree, units, unit_words, count, next, cancel, results);
    }
}

/// The skeleton's loop; `NODES`: also write each unit's nodes.
///
/// # Safety
/// As for [`walk_units`] (`results`: 2 words a unit with `NODES`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn walk<T: DepthFirst, const NODES: bool>(
    tree: &T,
    units: *const u64,
    unit_words: u32,
    count: u32,
    next: &core::sync::atomic::AtomicU32,
    cancel: &core::sync::atomic::AtomicU32,
    results: *mut u64,
) {
    use crate::atomic::WorkQueue;
    use crate::warp::Lanes;
    use core::sync::atomic::Ordering;
    // SAFETY: the launch provides the shared memory in blocks of `BLOCK` (contract above).
    let mut slab = unsafe { crate::slab::BlockSlab::<BLOCK>::for_this_thread() };
    let queue = WorkQueue::new(next);
    let mut walk = Walk {
        base: tree.state_words(),
        depth: IDLE,
        found: 0,
        nodes: 0,
    };
    let mut unit = 0u32;
    let mut finished = false;
    loop {
        let idle = walk.idle() && !finished;
        if Lanes::this_lane(idle).any() {
            let claimed = queue.claim(Lanes::this_lane(idle)).mine();
            if idle {
                if claimed < count && cancel.load(Ordering::Relaxed) == 0 {
                    unit = claimed;
                    // SAFETY: `claimed < count`: the unit's words are inside `units`.
                    let words = unsafe {
                        core::slice::from_raw_parts(
                            units.add((claimed * unit_words) as usize),
                            unit_words as usize,
                        )
                    };
                    walk.start(tree, words, &mut slab);
                } else {
                    finished = true;
                }
            }
        }
        if Lanes::this_lane(finished).all() {
            return;
        }
        if let Some(found) = walk.step(tree, &mut slab) {
            // SAFETY: `unit < count`, within `results` (2 words a unit with `NODES`).
            unsafe {
                if NODES {
                    *results.add(2 * unit as usize) = found;
                    *results.add(2 * unit as usize + 1) = walk.nodes;
                } else {
                    *results.add(unit as usize) = found;
                }
            }
        }
    }
}
