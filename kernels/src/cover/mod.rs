//! Exact cover (Knuth's Algorithm X) as a [`DepthFirst`] tree: choose options so that every
//! primary item is in exactly one chosen option and every secondary item in at most one.
//!
//! The problem is one flat array of `u64` words ([`Layout`] says where each part lies), so
//! that the same tree runs from a host slice on the CPU and from a kernel's parameter block on
//! the GPU. Items are bits of a set of up to [`MAX_WORDS`] words (512 items); the partial
//! solution is the set of items covered so far. A node branches on the primary item not yet
//! covered that has the fewest options left (Knuth's "minimum remaining values", found by
//! testing every such item's options against the covered set): its candidates are those
//! options, as the bits of an [`OptionSet`] (up to 512 options an item).
//!
//! [`Cover`] gives each lane a node. [`warp`] walks the same tree with a warp to a node, the
//! options still open spread over the lanes as one bit set: the GPU's kernel for problems of
//! up to [`warp::MAX_OPTIONS`] options (6× faster on the pentominoes).

use crate::dfs::{Candidates, DepthFirst, Node};
use crate::slab::Slab;

pub mod warp;

/// Most words of an item set: 512 items.
pub const MAX_WORDS: usize = 8;
/// Most options of one item: the bits of an [`OptionSet`].
pub const MAX_OPTIONS_PER_ITEM: usize = 64 * OPTION_SET_WORDS;
/// Words of an [`OptionSet`].
pub const OPTION_SET_WORDS: usize = 8;
/// Words before the problem's arrays: items, primary items, words a set, options, the
/// deepest a solution goes.
pub const HEADER_WORDS: usize = 5;
/// The item a level holds when every primary item is covered.
const NONE: u32 = u32::MAX;

/// Where the parts of a problem's flat array lie:
///
/// - `[items, primary, words, options, max_depth]`;
/// - the primary items in the order they are branched on (`primary` words);
/// - each option's items as a set (`options × words` words);
/// - where each item's options start in the list below (`items + 1` words);
/// - the list: each item's options, by index;
/// - each item's options as a set over all options ([`Layout::option_words`] words an item),
///   read by [`warp`]'s tree only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Items, primary and secondary.
    pub items: usize,
    /// Primary items (the first `primary` item numbers).
    pub primary: usize,
    /// Words of an item set.
    pub words: usize,
    /// Options.
    pub options: usize,
    /// The most options a solution has.
    pub max_depth: usize,
}

impl Layout {
    /// The layout of `data`'s header.
    #[inline(always)]
    pub fn of(data: &[u64]) -> Layout {
        Layout {
            items: data[0] as usize,
            primary: data[1] as usize,
            words: data[2] as usize,
            options: data[3] as usize,
            max_depth: data[4] as usize,
        }
    }

    /// Where the branching order starts.
    #[inline(always)]
    pub fn order(&self) -> usize {
        HEADER_WORDS
    }

    /// Where the option sets start.
    #[inline(always)]
    pub fn sets(&self) -> usize {
        self.order() + self.primary
    }

    /// Where the items' starts in the list lie.
    #[inline(always)]
    pub fn starts(&self) -> usize {
        self.sets() + self.options * self.words
    }

    /// Where the list of each item's options starts.
    #[inline(always)]
    pub fn list(&self) -> usize {
        self.starts() + self.items + 1
    }

    /// Words of a set over all options.
    #[inline(always)]
    pub fn option_words(&self) -> usize {
        self.options.div_ceil(64)
    }

    /// Where the items' option sets start, in `data` (after the list, whose length is the
    /// last of the starts).
    #[inline(always)]
    pub fn item_options(&self, data: &[u64]) -> usize {
        self.list() + data[self.starts() + self.items] as usize
    }

    /// The words of the whole array, from its header and its starts.
    #[inline(always)]
    pub fn total_words(&self, data: &[u64]) -> usize {
        self.item_options(data) + self.items * self.option_words()
    }
}

/// The candidate options of one item: bit `j` for its `j`-th option (up to 512).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OptionSet(pub [u64; OPTION_SET_WORDS]);

impl Candidates for OptionSet {
    const WORDS: u32 = 2 * OPTION_SET_WORDS as u32;
    #[inline(always)]
    fn is_empty(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    #[inline(always)]
    fn lowest(self) -> u32 {
        let mut at = 0;
        for w in self.0 {
            if w != 0 {
                return at + w.trailing_zeros();
            }
            at += 64;
        }
        at
    }
    #[inline(always)]
    fn without_lowest(self) -> Self {
        let mut set = self;
        for w in set.0.iter_mut() {
            if *w != 0 {
                *w &= *w - 1;
                break;
            }
        }
        set
    }
    #[inline(always)]
    fn store<S: Slab>(self, slab: &mut S, at: u32) {
        for (i, w) in self.0.iter().enumerate() {
            slab.set(at + 2 * i as u32, *w as u32);
            slab.set(at + 2 * i as u32 + 1, (*w >> 32) as u32);
        }
    }
    #[inline(always)]
    fn load<S: Slab>(slab: &S, at: u32) -> Self {
        let mut set = OptionSet::default();
        for (i, w) in set.0.iter_mut().enumerate() {
            *w =
                slab.get(at + 2 * i as u32) as u64 | (slab.get(at + 2 * i as u32 + 1) as u64) << 32;
        }
        set
    }
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
}

/// Word `at` of `set`, read by constant indices (a select a word): a dynamic index would put
/// the set in a stack frame on the GPU.
#[inline(always)]
fn word_at(set: &[u64; MAX_WORDS], at: usize) -> u64 {
    let mut word = 0;
    for (w, &value) in set.iter().enumerate() {
        if w == at {
            word = value;
        }
    }
    word
}

/// Whether the item set at `data[at..at + words]` meets `covered`: every word by a constant
/// index, the words past `words` skipped (a loop of a variable length would put `covered` in a
/// stack frame on the GPU).
#[inline(always)]
fn meets(data: &[u64], at: usize, words: usize, covered: &[u64; MAX_WORDS]) -> bool {
    let mut any = 0;
    for (w, &c) in covered.iter().enumerate() {
        if w < words {
            any |= data[at + w] & c;
        }
    }
    any != 0
}

/// An exact-cover problem's tree over its flat array (see [`Layout`]). A unit is a set of
/// covered items (`words` words, the rest of the unit ignored): the options chosen above it.
#[derive(Clone, Copy)]
pub struct Cover<'a> {
    data: &'a [u64],
    layout: Layout,
}

impl<'a> Cover<'a> {
    /// The tree of the problem in `data`.
    #[inline(always)]
    pub fn new(data: &'a [u64]) -> Cover<'a> {
        Cover {
            data,
            layout: Layout::of(data),
        }
    }

    /// Its layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Slab words a level takes: the covered set (two a word) and the item branched on.
    #[inline(always)]
    fn level_words(&self) -> u32 {
        2 * self.layout.words as u32 + 1
    }

    /// The primary item to branch on below `covered`, with its candidates: of the items not
    /// covered, the one with the fewest options that meet no covered item (Knuth's "minimum
    /// remaining values"; the first in branching order among equals, and at once one with
    /// none or one). `NONE` with no candidates when every primary item is covered.
    #[inline(always)]
    pub fn branch(&self, covered: &[u64; MAX_WORDS]) -> (u32, OptionSet) {
        let order = self.layout.order();
        let (mut best, mut fewest) = (NONE, u32::MAX);
        for k in 0..self.layout.primary {
            let item = self.data[order + k] as usize;
            if word_at(covered, item / 64) >> (item % 64) & 1 != 0 {
                continue;
            }
            let count = self.fitting_below(covered, item as u32, fewest);
            if count < fewest {
                (best, fewest) = (item as u32, count);
                if count <= 1 {
                    break;
                }
            }
        }
        if best == NONE {
            (NONE, OptionSet::default())
        } else {
            (best, self.candidates(covered, best))
        }
    }

    /// How many options of `item` meet no item of `covered`, counted only up to `stop` (an
    /// item with `stop` or more cannot beat the best so far).
    #[inline(always)]
    fn fitting_below(&self, covered: &[u64; MAX_WORDS], item: u32, stop: u32) -> u32 {
        let (words, sets, list) = (self.layout.words, self.layout.sets(), self.layout.list());
        let start = self.data[self.layout.starts() + item as usize] as usize;
        let end = self.data[self.layout.starts() + item as usize + 1] as usize;
        let mut count = 0;
        for &option in &self.data[list + start..list + end] {
            if !meets(self.data, sets + option as usize * words, words, covered) {
                count += 1;
                if count >= stop {
                    break;
                }
            }
        }
        count
    }

    /// The options of `item` (by their place in its list) that meet no item of `covered`.
    #[inline(always)]
    pub fn candidates(&self, covered: &[u64; MAX_WORDS], item: u32) -> OptionSet {
        let (words, sets) = (self.layout.words, self.layout.sets());
        let start = self.data[self.layout.starts() + item as usize] as usize;
        let end = self.data[self.layout.starts() + item as usize + 1] as usize;
        let list = self.layout.list();
        let mut set = OptionSet::default();
        for j in 0..end - start {
            let option = self.data[list + start + j] as usize;
            if !meets(self.data, sets + option * words, words, covered) {
                // Each word by a constant index (a select a word), so that the set stays in
                // registers on the GPU instead of a stack frame.
                for (w, word) in set.0.iter_mut().enumerate() {
                    if w == j / 64 {
                        *word |= 1 << (j % 64);
                    }
                }
            }
        }
        set
    }

    /// The option that is the `choice`-th of `item`'s list.
    #[inline(always)]
    pub fn option(&self, item: u32, choice: u32) -> usize {
        let start = self.data[self.layout.starts() + item as usize] as usize;
        self.data[self.layout.list() + start + choice as usize] as usize
    }

    /// `covered` with option `option`'s items added.
    #[inline(always)]
    pub fn cover(&self, covered: &mut [u64; MAX_WORDS], option: usize) {
        let (words, sets) = (self.layout.words, self.layout.sets());
        for (w, word) in covered.iter_mut().enumerate() {
            if w < words {
                *word |= self.data[sets + option * words + w];
            }
        }
    }

    #[inline(always)]
    fn read<S: Slab>(&self, state: &S, at: u32) -> ([u64; MAX_WORDS], u32) {
        let mut covered = [0u64; MAX_WORDS];
        for (i, w) in covered.iter_mut().enumerate() {
            if i < self.layout.words {
                *w = state.get(at + 2 * i as u32) as u64
                    | (state.get(at + 2 * i as u32 + 1) as u64) << 32;
            }
        }
        (covered, state.get(at + 2 * self.layout.words as u32))
    }

    #[inline(always)]
    fn write<S: Slab>(&self, state: &mut S, at: u32, covered: &[u64; MAX_WORDS], item: u32) {
        for (i, w) in covered.iter().enumerate() {
            if i < self.layout.words {
                state.set(at + 2 * i as u32, *w as u32);
                state.set(at + 2 * i as u32 + 1, (*w >> 32) as u32);
            }
        }
        state.set(at + 2 * self.layout.words as u32, item);
    }
}

impl DepthFirst for Cover<'_> {
    type Set = OptionSet;
    const UNDO: bool = false;

    fn state_words(&self) -> u32 {
        self.level_words() * (self.max_depth() + 1)
    }

    fn max_depth(&self) -> u32 {
        self.layout.max_depth as u32
    }

    #[inline(always)]
    fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> OptionSet {
        let mut covered = [0u64; MAX_WORDS];
        for (w, word) in covered.iter_mut().enumerate() {
            if w < self.layout.words {
                *word = unit[w];
            }
        }
        let (item, set) = self.branch(&covered);
        self.write(state, 0, &covered, item);
        set
    }

    /// A unit that covers every primary item is a solution itself.
    #[inline(always)]
    fn unit_leaves<S: Slab>(&self, _unit: &[u64], state: &S) -> u32 {
        (self.read(state, 0).1 == NONE) as u32
    }

    #[inline(always)]
    fn descend<S: Slab>(
        &self,
        state: &mut S,
        depth: u32,
        choice: u32,
        _rest: OptionSet,
    ) -> Node<OptionSet> {
        let at = depth * self.level_words();
        let (mut covered, item) = self.read(state, at);
        self.cover(&mut covered, self.option(item, choice));
        let (next, set) = self.branch(&covered);
        if next == NONE {
            return Node::Leaves(1);
        }
        self.write(state, at + self.level_words(), &covered, next);
        Node::Inner(set)
    }

    #[inline(always)]
    fn undo<S: Slab>(&self, _state: &mut S, _depth: u32, _choice: u32) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfs::walk_unit;
    use std::vec;
    use std::vec::Vec;

    /// Knuth's example (TAOCP 7.2.2.1 (5)): items a..g, six options, one solution.
    pub(crate) fn knuth() -> Vec<u64> {
        let options: [&[usize]; 6] = [
            &[2, 4],
            &[0, 3, 6],
            &[1, 2, 5],
            &[0, 3, 5],
            &[1, 6],
            &[3, 4, 6],
        ];
        let items = 7;
        let mut data = vec![items as u64, items as u64, 1, options.len() as u64, 7];
        data.extend(0..items as u64);
        for option in options {
            data.push(option.iter().map(|&i| 1u64 << i).sum());
        }
        let mut list = Vec::new();
        for item in 0..items {
            data.push(list.len() as u64);
            for (o, option) in options.iter().enumerate() {
                if option.contains(&item) {
                    list.push(o as u64);
                }
            }
        }
        data.push(list.len() as u64);
        data.extend(list);
        for item in 0..items {
            let set = options
                .iter()
                .enumerate()
                .filter(|(_, o)| o.contains(&item));
            data.push(set.fold(0, |bits, (o, _)| bits | 1 << o));
        }
        data
    }

    #[test]
    fn knuths_example_has_one_solution_and_a_covered_unit_counts_itself() {
        let data = knuth();
        let tree = Cover::new(&data);
        let mut words = vec![0u32; crate::dfs::slab_words(&tree) as usize];
        let mut slab = &mut words[..];
        assert_eq!(walk_unit(&tree, &[0], &mut slab), 1);
        // Every item covered: the unit is the solution.
        assert_eq!(walk_unit(&tree, &[0b111_1111], &mut slab), 1);
        // Options 0 and 4 chosen (a unit below them): the solution's third option completes it.
        assert_eq!(walk_unit(&tree, &[0b101_0110], &mut slab), 1);
        // Items 0 and 1 covered by a wrong choice: nothing completes it.
        assert_eq!(walk_unit(&tree, &[0b000_0011], &mut slab), 0);
    }

    #[test]
    fn an_option_set_walks_its_bits_in_order_across_words() {
        let mut set = OptionSet::default();
        for bit in [3, 64, 200, 511] {
            set.0[bit / 64] |= 1 << (bit % 64);
        }
        let mut seen = Vec::new();
        while !set.is_empty() {
            seen.push(set.lowest());
            set = set.without_lowest();
        }
        assert_eq!(seen, [3, 64, 200, 511]);
    }
}
