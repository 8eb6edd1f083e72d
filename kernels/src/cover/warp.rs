//! Exact cover with a warp to a node: the options still open are one bit set spread over the
//! 32 lanes ([`OpenOptions`]), so that counting an item's open options — the work of the
//! fewest-options choice — is one AND and one population count a lane and one warp sum,
//! instead of one lane testing the item's every option against the covered set
//! ([`super::Cover`], a lane to a node).
//!
//! A node holds the covered items (the same in every lane) and the open options: those that
//! meet no covered item. Choosing option `o` covers its items and closes every option that
//! shares an item with it: the open set loses each of `o`'s items' option sets. A unit is a
//! covered set, as for [`super::Cover`], and the walk counts the same solutions. The stack (a
//! level a depth: the open set, the covered set, the item branched on and the last option
//! tried) lives in a [`LaneSlab`]: a lane's share of it in its own shared-memory column.

use super::{Layout, MAX_WORDS};
use crate::slab::LaneSlab;
use crate::warp::{Lanes, lane_id};

/// Words of the open set each lane holds.
pub const LANE_WORDS: usize = 2;
/// The most options a problem may have for this tree: 64 · 32 · [`LANE_WORDS`].
pub const MAX_OPTIONS: usize = 64 * 32 * LANE_WORDS;
/// The item a level holds when every primary item is covered.
const NONE: u32 = u32::MAX;

/// A set over all options, spread over the warp: word `j` of lane `l` holds options
/// `64 · (32 j + l)` to `64 · (32 j + l) + 63`.
pub type OpenOptions = Lanes<[u64; LANE_WORDS]>;

/// The walk's result for one unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Walked {
    /// Solutions below the unit.
    pub found: u64,
    /// Options chosen below the unit.
    pub nodes: u64,
}

/// The tree of a problem's flat array (see [`Layout`]), a warp to a node.
#[derive(Clone, Copy)]
pub struct WarpCover<'a> {
    data: &'a [u64],
    layout: Layout,
    /// Where the items' option sets start.
    item_options: usize,
}

impl<'a> WarpCover<'a> {
    /// The tree of the problem in `data`, or `None` when it has more than [`MAX_OPTIONS`]
    /// options.
    #[inline(always)]
    pub fn new(data: &'a [u64]) -> Option<WarpCover<'a>> {
        let layout = Layout::of(data);
        (layout.options <= MAX_OPTIONS).then(|| WarpCover {
            data,
            layout,
            item_options: layout.item_options(data),
        })
    }

    /// Lane words of one stack level: the open set (two a word), the item and the last
    /// option tried, the covered set (two a word).
    #[inline(always)]
    pub fn level_words(&self) -> u32 {
        (2 * LANE_WORDS + 2 + 2 * self.layout.words) as u32
    }

    /// Lane words of the whole stack: a level for the unit and one for each option chosen.
    pub fn slab_words(&self) -> u32 {
        self.level_words() * (self.layout.max_depth as u32 + 1)
    }

    /// Word `w` of `item`'s option set (0 past the set's end).
    #[inline(always)]
    fn item_word(&self, item: usize, w: u32) -> u64 {
        let words = self.layout.option_words();
        if (w as usize) < words {
            self.data[self.item_options + item * words + w as usize]
        } else {
            0
        }
    }

    /// `item`'s options as a warp-wide set: each lane loads its own words (the warp reads
    /// consecutive words, one load a lane).
    #[inline(always)]
    fn item_set(&self, item: usize) -> OpenOptions {
        lane_id().map(|lane| core::array::from_fn(|j| self.item_word(item, 32 * j as u32 + lane)))
    }

    /// How many of `item`'s options are in `open`: a population count a lane, then a warp
    /// sum (GPU: `popc` and `redux.sync.add`).
    #[inline(always)]
    fn count(&self, open: OpenOptions, item: usize) -> u32 {
        open.zip_with(self.item_set(item), |open, mine| {
            let mut count = 0;
            for j in 0..LANE_WORDS {
                count += (open[j] & mine[j]).count_ones();
            }
            count
        })
        .redux_add()
    }

    /// The options that meet no item of `covered` (each lane tests its own options).
    #[inline(always)]
    fn open_below(&self, covered: &[u64; MAX_WORDS]) -> OpenOptions {
        let (words, sets, options) = (self.layout.words, self.layout.sets(), self.layout.options);
        lane_id().map(|lane| {
            let mut open = [0u64; LANE_WORDS];
            for (j, word) in open.iter_mut().enumerate() {
                let first = 64 * (32 * j + lane as usize);
                for bit in 0..64 {
                    let option = first + bit;
                    if option < options
                        && !super::meets(self.data, sets + option * words, words, covered)
                    {
                        *word |= 1 << bit;
                    }
                }
            }
            open
        })
    }

    /// The primary item to branch on (the fewest open options; the first in branching order
    /// among equals, and at once one with none or one) and its count; `NONE` when every
    /// primary item is covered. Uniform: every lane gets the same answer.
    #[inline(always)]
    fn branch(&self, open: OpenOptions, covered: &[u64; MAX_WORDS]) -> (u32, u32) {
        let order = self.layout.order();
        let (mut best, mut fewest) = (NONE, u32::MAX);
        for k in 0..self.layout.primary {
            let item = self.data[order + k] as usize;
            if super::word_at(covered, item / 64) >> (item % 64) & 1 != 0 {
                continue;
            }
            let count = self.count(open, item);
            if count < fewest {
                (best, fewest) = (item as u32, count);
                if count <= 1 {
                    break;
                }
            }
        }
        (best, fewest)
    }

    /// The lowest option of `set`, or `NONE`: a ballot a lane word, then the first lane's
    /// lowest bit (GPU: `vote.sync.ballot` and `shfl.sync.idx`).
    #[inline(always)]
    fn lowest(set: OpenOptions) -> u32 {
        for j in 0..LANE_WORDS {
            let lanes = set.map(|words| words[j] != 0).ballot();
            if lanes != 0 {
                let lane = lanes.trailing_zeros();
                let bit = set.map(|words| words[j].trailing_zeros()).broadcast(lane);
                return 64 * (32 * j as u32 + lane) + bit;
            }
        }
        NONE
    }

    /// The options of `set` above `option` (all of them for `NONE`).
    #[inline(always)]
    fn above(set: OpenOptions, option: u32) -> OpenOptions {
        if option == NONE {
            return set;
        }
        let (word, bit) = (option / 64, option % 64);
        set.zip_with(lane_id(), |mut words, lane| {
            for (j, w) in words.iter_mut().enumerate() {
                let at = 32 * j as u32 + lane;
                if at < word {
                    *w = 0;
                } else if at == word {
                    *w &= !((2u64 << bit) - 1);
                }
            }
            words
        })
    }

    /// `covered` with `option`'s items added.
    #[inline(always)]
    fn cover(&self, covered: &mut [u64; MAX_WORDS], option: usize) {
        let (words, sets) = (self.layout.words, self.layout.sets());
        for (w, word) in covered.iter_mut().enumerate() {
            if w < words {
                *word |= self.data[sets + option * words + w];
            }
        }
    }

    /// `open` less every option that shares an item with `option`.
    #[inline(always)]
    fn close(&self, open: OpenOptions, option: usize) -> OpenOptions {
        let (words, sets) = (self.layout.words, self.layout.sets());
        let mut open = open;
        for w in 0..MAX_WORDS {
            if w >= words {
                break;
            }
            let mut items = self.data[sets + option * words + w];
            while items != 0 {
                let item = 64 * w + items.trailing_zeros() as usize;
                items &= items - 1;
                let closed = self.item_set(item);
                open = open.zip_with(closed, |mut open, closed| {
                    for j in 0..LANE_WORDS {
                        open[j] &= !closed[j];
                    }
                    open
                });
            }
        }
        open
    }

    fn save<S: LaneSlab>(
        &self,
        slab: &mut S,
        depth: u32,
        open: OpenOptions,
        covered: &[u64; MAX_WORDS],
        item: u32,
    ) {
        let at = depth * self.level_words();
        for j in 0..LANE_WORDS {
            slab.set(at + 2 * j as u32, open.map(|w| w[j] as u32));
            slab.set(at + 2 * j as u32 + 1, open.map(|w| (w[j] >> 32) as u32));
        }
        let at = at + 2 * LANE_WORDS as u32;
        slab.set(at, Lanes::splat(item));
        slab.set(at + 1, Lanes::splat(NONE));
        for (w, &word) in covered.iter().enumerate() {
            if w < self.layout.words {
                slab.set(at + 2 + 2 * w as u32, Lanes::splat(word as u32));
                slab.set(at + 3 + 2 * w as u32, Lanes::splat((word >> 32) as u32));
            }
        }
    }

    /// Level `depth`: its open set, covered set, item and last option tried.
    fn load<S: LaneSlab>(&self, slab: &S, depth: u32) -> (OpenOptions, [u64; MAX_WORDS], u32, u32) {
        let at = depth * self.level_words();
        let mut open = Lanes::splat([0u64; LANE_WORDS]);
        for j in 0..LANE_WORDS {
            let (low, high) = (slab.get(at + 2 * j as u32), slab.get(at + 2 * j as u32 + 1));
            open.each_mut_with(
                low.zip_with(high, |l, h| l as u64 | (h as u64) << 32),
                |w, v| w[j] = v,
            );
        }
        let at = at + 2 * LANE_WORDS as u32;
        // Uniform words: every lane holds the same value, so lane 0's is everyone's.
        let item = slab.get(at).broadcast(0);
        let last = slab.get(at + 1).broadcast(0);
        let mut covered = [0u64; MAX_WORDS];
        for (w, word) in covered.iter_mut().enumerate() {
            if w < self.layout.words {
                *word = slab.get(at + 2 + 2 * w as u32).broadcast(0) as u64
                    | (slab.get(at + 3 + 2 * w as u32).broadcast(0) as u64) << 32;
            }
        }
        (open, covered, item, last)
    }

    /// Counts the solutions below `unit` (a covered set of [`MAX_WORDS`] words) and the
    /// options chosen on the way, with the whole warp; `slab` holds
    /// [`slab_words`](Self::slab_words) lane words.
    pub fn walk<S: LaneSlab>(&self, unit: &[u64], slab: &mut S) -> Walked {
        let mut covered = [0u64; MAX_WORDS];
        for (w, word) in covered.iter_mut().enumerate() {
            if w < self.layout.words {
                *word = unit[w];
            }
        }
        let mut walked = Walked::default();
        let open = self.open_below(&covered);
        let (item, fewest) = self.branch(open, &covered);
        if item == NONE {
            walked.found = 1;
            return walked;
        }
        if fewest == 0 {
            return walked;
        }
        self.save(slab, 0, open, &covered, item);
        let mut depth = 0u32;
        loop {
            let (open, covered, item, last) = self.load(slab, depth);
            let option = Self::lowest(Self::above(both(open, self.item_set(item as usize)), last));
            if option == NONE {
                if depth == 0 {
                    return walked;
                }
                depth -= 1;
                continue;
            }
            let at = depth * self.level_words() + 2 * LANE_WORDS as u32 + 1;
            slab.set(at, Lanes::splat(option));
            walked.nodes += 1;
            let mut below = covered;
            self.cover(&mut below, option as usize);
            let open = self.close(open, option as usize);
            let (next, fewest) = self.branch(open, &below);
            if next == NONE {
                walked.found += 1;
            } else if fewest > 0 {
                depth += 1;
                self.save(slab, depth, open, &below, next);
            }
        }
    }
}

/// The options in both `a` and `b`.
#[inline(always)]
fn both(a: OpenOptions, b: OpenOptions) -> OpenOptions {
    a.zip_with(b, |mut a, b| {
        for j in 0..LANE_WORDS {
            a[j] &= b[j];
        }
        a
    })
}

#[cfg(test)]
mod tests {
    use super::super::Cover;
    use super::super::tests::knuth;
    use super::*;
    use crate::dfs::walk_unit_with_nodes;
    use std::vec;
    use std::vec::Vec;

    fn walk(data: &[u64], unit: &[u64]) -> Walked {
        let tree = WarpCover::new(data).unwrap();
        let mut slab = vec![Lanes::splat(0u32); tree.slab_words() as usize];
        tree.walk(unit, &mut &mut slab[..])
    }

    #[test]
    fn knuths_example_gives_one_solution_with_a_warp_to_a_node() {
        let data = knuth();
        let mut unit = vec![0u64; MAX_WORDS];
        assert_eq!(walk(&data, &unit).found, 1);
        unit[0] = 0b111_1111;
        assert_eq!(walk(&data, &unit).found, 1);
        unit[0] = 0b101_0110;
        assert_eq!(walk(&data, &unit).found, 1);
        unit[0] = 0b000_0011;
        assert_eq!(walk(&data, &unit).found, 0);
    }

    /// Every subset of `n` items as an option, plus the singletons twice (more than 64
    /// options, so that the open set spans lanes): the ways to cover the items.
    fn subsets(n: usize) -> Vec<u64> {
        let mut options: Vec<Vec<usize>> = (1u32..1 << n)
            .map(|mask| (0..n).filter(|&i| mask >> i & 1 != 0).collect())
            .collect();
        options.extend((0..n).map(|i| vec![i]));
        let mut of_item: Vec<Vec<u64>> = vec![Vec::new(); n];
        for (o, option) in options.iter().enumerate() {
            for &i in option {
                of_item[i].push(o as u64);
            }
        }
        let mut data = vec![n as u64, n as u64, 1, options.len() as u64, n as u64];
        data.extend(0..n as u64);
        for option in &options {
            data.push(option.iter().map(|&i| 1u64 << i).sum());
        }
        let mut start = 0;
        for list in &of_item {
            data.push(start);
            start += list.len() as u64;
        }
        data.push(start);
        for list in &of_item {
            data.extend(list);
        }
        let words = options.len().div_ceil(64);
        for list in &of_item {
            let mut set = vec![0u64; words];
            for &o in list {
                set[o as usize / 64] |= 1 << (o % 64);
            }
            data.extend(set);
        }
        data
    }

    #[test]
    fn the_warp_tree_counts_what_the_lane_tree_counts() {
        for n in 1..=7 {
            let data = subsets(n);
            let lane_tree = Cover::new(&data);
            let mut words = vec![0u32; crate::dfs::slab_words(&lane_tree) as usize];
            let unit = vec![0u64; MAX_WORDS];
            let expected = walk_unit_with_nodes(&lane_tree, &unit, &mut &mut words[..]);
            let got = walk(&data, &unit);
            assert_eq!(got.found, expected.found, "{n} items");
            assert!(got.found > 0);
        }
    }
}
