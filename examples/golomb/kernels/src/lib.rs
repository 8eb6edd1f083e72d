//! Optimal Golomb rulers by branch and bound, written once as a [`DepthFirst`] tree that
//! warpsearch's skeleton walks on every GPU lane and its CPU twin on every core.
//!
//! A Golomb ruler with `m` marks has its marks at integer positions `0 = a₀ < a₁ < … < aₘ₋₁`
//! with every difference `aⱼ − aᵢ` distinct; an optimal one is as short as possible. The
//! search places the marks left to right and keeps three bitmaps of positions `0..32·W`:
//!
//! - `behind`: bit `l` set when a mark stands `l` before the last one (bit 0: the last mark);
//! - `used`: the differences taken so far;
//! - `taken`: bit `s` set when a next mark `s` after the last one would repeat a difference,
//!   `taken = OR over l in behind of (used >> l)`.
//!
//! Placing the next mark `s` after the last one adds the differences `behind << s`, and
//! `taken` follows without the OR: `taken' = used' | (taken >> s)` (a difference the shift
//! brings in from two old marks is an old difference, already in `used'`). So a node costs a
//! few shifts of 224-bit words, and its candidates are the zero bits of `taken` up to a limit.
//!
//! The bound: a ruler shorter than the best one found so far, read from a word every lane and
//! every GPU shares ([`Ruler::best`]). The next mark must leave room for the marks after it,
//! which form a Golomb ruler themselves and so span at least the optimal length of their
//! count ([`OPTIMAL`], OEIS A003022, for fewer marks than the ruler searched). A ruler and its
//! mirror image are the same: only the one whose middle lies in the left half is searched,
//! which prunes half of the tree from the middle mark down.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]

use core::sync::atomic::{AtomicU64, Ordering};
use kernels::dfs::{Candidates, DepthFirst, Node, Walked, walk_unit_with_nodes};
use kernels::slab::Slab;

/// Most words of a bitmap: positions up to 223.
pub const MAX_WORDS: usize = 7;
/// Positions the widest bitmap holds: rulers up to `WIDTH − 1` long.
pub const WIDTH: u32 = 32 * MAX_WORDS as u32;
/// The most marks searched: the optimal 18-mark ruler is 216 long, the 19-mark one 246
/// (past [`WIDTH`]).
pub const MAX_MARKS: u32 = 18;
/// Gaps a unit (a prefix placed by the host) holds: 8 bits each in one `u64`.
pub const MAX_PREFIX: u32 = 8;

/// The optimal length of a ruler with `m` marks, m = 0..=18 (OEIS A003022). The search uses
/// the values below the `m` it searches, as the least room the marks after a node need.
pub const OPTIMAL: [u32; 19] = [
    0, 0, 1, 3, 6, 11, 17, 25, 34, 44, 55, 72, 85, 106, 127, 151, 177, 199, 216,
];

/// A bitmap of positions `0..32·W`, bit `i` of word `i / 32` for position `i`. Every loop
/// runs over the `W` words with constant indices, so on the GPU the words stay in
/// registers (a shift by a variable count is a few selects, not an indexed array).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bits<const W: usize>(pub [u32; W]);

impl<const W: usize> Bits<W> {
    /// Positions the bitmap holds.
    pub const POSITIONS: u32 = 32 * W as u32;

    /// No position.
    pub const EMPTY: Bits<W> = Bits([0; W]);

    /// Only position `at` (`at < POSITIONS`).
    #[inline(always)]
    pub fn only(at: u32) -> Bits<W> {
        Bits::EMPTY.with(at)
    }

    /// This set and position `at` (`at < POSITIONS`; one `OR` a word, selected).
    #[inline(always)]
    pub fn with(self, at: u32) -> Bits<W> {
        let mut words = self.0;
        for (i, word) in words.iter_mut().enumerate() {
            *word |= if at / 32 == i as u32 {
                1 << (at % 32)
            } else {
                0
            };
        }
        Bits(words)
    }

    /// Whether position `at` is in the set.
    pub fn contains(self, at: u32) -> bool {
        at < Self::POSITIONS && self.0[(at / 32) as usize] >> (at % 32) & 1 == 1
    }

    /// The union.
    #[inline(always)]
    pub fn or(self, other: Bits<W>) -> Bits<W> {
        Bits(core::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    /// The positions in exactly one of the two.
    #[inline(always)]
    pub fn xor(self, other: Bits<W>) -> Bits<W> {
        Bits(core::array::from_fn(|i| self.0[i] ^ other.0[i]))
    }

    /// Every position moved up by `shift` (`shift < POSITIONS`); those past `POSITIONS` drop out.
    #[inline(always)]
    pub fn up(self, shift: u32) -> Bits<W> {
        // Whole words first, as three conditional moves by 1, 2 and 4 words.
        let whole = shift / 32;
        let words = move_words(self.0, 1, whole & 1 != 0);
        let words = move_words(words, 2, whole & 2 != 0);
        let words = move_words(words, 4, whole & 4 != 0);
        let bits = shift % 32;
        core::array::from_fn(|i| {
            let below = if i > 0 { words[i - 1] } else { 0 };
            (((words[i] as u64) << 32 | below as u64) << bits >> 32) as u32
        })
        .into()
    }

    /// Every position moved down by `shift` (`shift < POSITIONS`); those below 0 drop out.
    #[inline(always)]
    pub fn down(self, shift: u32) -> Bits<W> {
        let whole = shift / 32;
        let words = move_words(self.0, -1, whole & 1 != 0);
        let words = move_words(words, -2, whole & 2 != 0);
        let words = move_words(words, -4, whole & 4 != 0);
        let bits = shift % 32;
        core::array::from_fn(|i| {
            let above = if i + 1 < W { words[i + 1] } else { 0 };
            (((above as u64) << 32 | words[i] as u64) >> bits) as u32
        })
        .into()
    }

    /// The lowest position not in the set; `POSITIONS` when every one is. Branch-free: the words
    /// are scanned from the top, each non-full one replacing the answer.
    #[inline(always)]
    pub fn lowest_free(self) -> u32 {
        let mut lowest = Self::POSITIONS;
        for i in (0..W).rev() {
            let free = !self.0[i];
            if free != 0 {
                lowest = 32 * i as u32 + free.trailing_zeros();
            }
        }
        lowest
    }

    #[inline(always)]
    fn load<S: Slab>(slab: &S, at: u32) -> Bits<W> {
        Bits(core::array::from_fn(|i| slab.get(at + i as u32)))
    }

    #[inline(always)]
    fn store<S: Slab>(self, slab: &mut S, at: u32) {
        for (i, &word) in self.0.iter().enumerate() {
            slab.set(at + i as u32, word);
        }
    }
}

/// `words` moved up by `by` words (down for a negative `by`) when `when`, zeros filling in:
/// with a constant `by`, one select a word.
#[inline(always)]
fn move_words<const W: usize>(words: [u32; W], by: isize, when: bool) -> [u32; W] {
    core::array::from_fn(|i| {
        let from = i as isize - by;
        let moved = if (0..W as isize).contains(&from) {
            words[from as usize]
        } else {
            0
        };
        if when { moved } else { words[i] }
    })
}

impl<const W: usize> From<[u32; W]> for Bits<W> {
    fn from(words: [u32; W]) -> Bits<W> {
        Bits(words)
    }
}

/// The candidate gaps at a node: every `s` in `1..=limit` whose bit in `taken` is clear. The
/// skeleton marks a gap as tried by setting its bit, so the set is also the node's `taken`
/// bitmap, which the child's is computed from (positions above a tried gap are untouched).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gaps<const W: usize> {
    /// Gaps that would repeat a difference, or that were tried.
    pub taken: Bits<W>,
    /// The longest gap that leaves room under the bound.
    pub limit: u32,
}

impl<const W: usize> Candidates for Gaps<W> {
    const WORDS: u32 = W as u32 + 1;
    #[inline(always)]
    fn is_empty(self) -> bool {
        self.taken.lowest_free() > self.limit
    }
    #[inline(always)]
    fn lowest(self) -> u32 {
        self.taken.lowest_free()
    }
    #[inline(always)]
    fn without_lowest(self) -> Self {
        Gaps {
            taken: self.taken.with(self.taken.lowest_free()),
            limit: self.limit,
        }
    }
    #[inline(always)]
    fn store<S: Slab>(self, slab: &mut S, at: u32) {
        self.taken.store(slab, at);
        slab.set(at + W as u32, self.limit);
    }
    #[inline(always)]
    fn load<S: Slab>(slab: &S, at: u32) -> Self {
        Gaps {
            taken: Bits::load(slab, at),
            limit: slab.get(at + W as u32),
        }
    }
}

/// The search for a ruler of `marks` marks shorter than `best`, below units of `prefix` gaps
/// placed by the host.
///
/// Slab words: `behind` (`W`), `used` (`W`), the last mark's position, the first gap, the
/// bound as this lane last read it (the shared word is read when a unit starts, at each child
/// of a unit's root and after each ruler found; a stale value only prunes less), and the
/// middle key once the middle mark is placed.
pub struct Ruler<'a, const W: usize> {
    /// Marks of the ruler, 2..=[`MAX_MARKS`].
    pub marks: u32,
    /// Gaps in a unit, `0..=min(marks − 2, MAX_PREFIX)`.
    pub prefix: u32,
    /// The shortest ruler found so far anywhere (`32·W` or more: none yet); lowered with
    /// one atomic min (`atom.min.u64`) when a lane finds a shorter one.
    pub best: &'a AtomicU64,
}

impl<const W: usize> Ruler<'_, W> {
    const BEHIND: u32 = 0;
    const USED: u32 = W as u32;
    const POSITION: u32 = 2 * W as u32;
    const FIRST: u32 = 2 * W as u32 + 1;
    const BOUND: u32 = 2 * W as u32 + 2;
    const MIDDLE: u32 = 2 * W as u32 + 3;
    /// Slab words of the state.
    pub const STATE_WORDS: u32 = 2 * W as u32 + 4;

    /// The mark that decides which of a mirror pair is searched: the middle one, or the upper
    /// of the two middle ones.
    #[inline(always)]
    fn middle(&self) -> u32 {
        self.marks / 2
    }

    /// Twice the ruler's middle, `2·a_c` or `a_(c−1) + a_c` for the middle mark `c` at
    /// `position` after the mark at `before`. A ruler's mirror image has `2·L − key`: of
    /// each pair only the one with `key < L` is searched (with `key = L`, the one whose first
    /// gap is the shorter), so a node whose key reaches the bound is pruned halfway down.
    #[inline(always)]
    fn key(&self, before: u32, position: u32) -> u32 {
        position
            + if self.marks % 2 == 1 {
                position
            } else {
                before
            }
    }

    #[inline(always)]
    fn read_best(&self) -> u32 {
        self.best
            .load(Ordering::Relaxed)
            .min(Bits::<W>::POSITIONS as u64) as u32
    }

    /// The longest next gap after mark `mark` at `position` under `bound`, the differences
    /// `used` taken: the marks after the next one form a Golomb ruler, at least
    /// `OPTIMAL[marks − mark − 1]` long, and its gaps are distinct differences not yet used,
    /// so it is at least as long as the sum of that many of the smallest ones (counted up to
    /// [`SMALLEST`] gaps: the bound that matters near the leaves, where the first is weak).
    /// The ruler must stay shorter than `bound`. 0 when no gap fits.
    #[inline(always)]
    fn limit(&self, bound: u32, mark: u32, position: u32, used: Bits<W>) -> u32 {
        let after = self.marks - mark - 2;
        // The unused differences below 32 are the zero bits of the first word; those past it
        // count as 32 each (a valid floor: they are at least 32).
        let mut free = !(used.0[0] | 1);
        let unused = free;
        let mut smallest = 0;
        for i in 0..SMALLEST {
            let gap = if free != 0 { free.trailing_zeros() } else { 32 };
            free &= free.wrapping_sub(1);
            smallest += if i < after { gap } else { 0 };
        }
        // And its longest difference is at least the (after·(after + 1)/2)-th unused one.
        let widest = nth_bit(unused, (after + 1) * after / 2);
        let smallest = smallest.max(widest);
        let room = OPTIMAL[after as usize + 1].max(smallest) + position + 1;
        bound.saturating_sub(room)
    }
}

/// Gaps after the next mark whose least sum [`Ruler`] adds up from the unused differences.
pub const SMALLEST: u32 = 6;

/// The position of the `n`-th set bit of `x` (`n` from 1; 0 for `n` = 0), or 32 when `x` has
/// fewer: a branch-free binary search with five population counts (`POPC`).
#[inline(always)]
pub fn nth_bit(x: u32, n: u32) -> u32 {
    let enough = x.count_ones() >= n;
    // Each step keeps the half that holds the bit (the upper one when the lower has fewer
    // than n), written out five times so that every width is a constant.
    let step = |(x, n, position): (u32, u32, u32), width: u32| {
        let low = (x & ((1 << width) - 1)).count_ones();
        match low < n {
            true => (x >> width, n - low, position + width),
            false => (x, n, position),
        }
    };
    let (_, n, position) = step(step(step(step(step((x, n, 0), 16), 8), 4), 2), 1);
    if n == 0 {
        0
    } else if enough {
        position
    } else {
        32
    }
}

/// The unit of `gaps` (each 1..=255, at most [`MAX_PREFIX`] of them).
pub fn encode(gaps: &[u32]) -> u64 {
    gaps.iter()
        .enumerate()
        .fold(0, |word, (i, &gap)| word | (gap as u64) << (8 * i))
}

/// Gap `i` of a unit.
#[inline(always)]
pub fn gap(unit: u64, i: u32) -> u32 {
    (unit >> (8 * i)) as u32 & 0xFF
}

impl<const W: usize> DepthFirst for Ruler<'_, W> {
    type Set = Gaps<W>;

    fn state_words(&self) -> u32 {
        Self::STATE_WORDS
    }

    fn max_depth(&self) -> u32 {
        self.marks - 1 - self.prefix
    }

    #[inline(always)]
    fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> Gaps<W> {
        let mut behind = Bits::<W>::only(0);
        let mut used = Bits::<W>::EMPTY;
        let mut taken = Bits::<W>::only(0);
        let mut position = 0;
        let mut key = 0;
        for i in 0..self.prefix {
            let s = gap(unit[0], i);
            let new = behind.up(s);
            used = used.or(new);
            behind = new.with(0);
            taken = used.or(taken.down(s)).with(0);
            if i + 1 == self.middle() {
                key = self.key(position, position + s);
            }
            position += s;
        }
        behind.store(state, Self::BEHIND);
        used.store(state, Self::USED);
        state.set(Self::POSITION, position);
        state.set(Self::FIRST, gap(unit[0], 0));
        state.set(Self::MIDDLE, key);
        let bound = self.read_best();
        state.set(Self::BOUND, bound);
        let limit = self.limit(bound, self.prefix, position, used);
        Gaps {
            taken,
            limit: if key < bound { limit } else { 0 },
        }
    }

    #[inline(always)]
    fn descend<S: Slab>(&self, state: &mut S, depth: u32, s: u32, rest: Gaps<W>) -> Node<Gaps<W>> {
        let mark = self.prefix + depth + 1;
        let before = state.get(Self::POSITION);
        let position = before + s;
        // Above the middle mark the key is not known yet (and the slab word holds a stale
        // one from another branch): 0, which prunes nothing.
        let key = match mark.cmp(&self.middle()) {
            core::cmp::Ordering::Less => 0,
            core::cmp::Ordering::Equal => self.key(before, position),
            core::cmp::Ordering::Greater => state.get(Self::MIDDLE),
        };
        if mark == self.marks - 1 {
            // The last mark: a ruler shorter than the bound (the limit saw to that, with the
            // bound this lane knew). Count it when it is the one of its mirror pair searched
            // and still the shortest anywhere.
            let tie = key == position && (self.marks < 3 || s > state.get(Self::FIRST));
            if !(key < position || tie) {
                return Node::Leaves(0);
            }
            let before = self.best.fetch_min(position as u64, Ordering::Relaxed);
            state.set(Self::BOUND, (before as u32).min(position));
            return Node::Leaves(((position as u64) < before) as u32);
        }
        let new = Bits::<W>::load(state, Self::BEHIND).up(s);
        let used = Bits::<W>::load(state, Self::USED).or(new);
        let taken = used.or(rest.taken.down(s)).with(0);
        let bound = if depth == 0 {
            let bound = self.read_best();
            state.set(Self::BOUND, bound);
            bound
        } else {
            state.get(Self::BOUND)
        };
        let limit = self.limit(bound, mark, position, used);
        if taken.lowest_free() > limit || key >= bound {
            return Node::Leaves(0);
        }
        new.with(0).store(state, Self::BEHIND);
        used.store(state, Self::USED);
        state.set(Self::POSITION, position);
        if mark == 1 {
            state.set(Self::FIRST, s);
        }
        if mark == self.middle() {
            state.set(Self::MIDDLE, key);
        }
        Node::Inner(Gaps { taken, limit })
    }

    #[inline(always)]
    fn undo<S: Slab>(&self, state: &mut S, _depth: u32, s: u32) {
        let behind = Bits::<W>::load(state, Self::BEHIND);
        let added = behind.xor(Bits::only(0));
        Bits::<W>::load(state, Self::USED)
            .xor(added)
            .store(state, Self::USED);
        behind.down(s).store(state, Self::BEHIND);
        state.set(Self::POSITION, state.get(Self::POSITION) - s);
    }
}

/// Words the bitmaps of a search take: the fewest whose positions hold a ruler shorter than
/// `bound` (1..=[`MAX_WORDS`]; 0 for a bound past [`WIDTH`]).
pub fn words_for(bound: u32) -> usize {
    match bound {
        0..=32 => 1,
        33..=224 => bound.div_ceil(32) as usize,
        _ => 0,
    }
}

/// Calls `$body` with `W` bound to the bitmap width `$words` (4..=7 words; fewer take 4), one
/// instantiation a width: a uniform branch on the GPU.
macro_rules! with_width {
    ($words:expr, |$w:ident| $body:expr) => {
        match $words {
            0..=4 => {
                const $w: usize = 4;
                $body
            }
            5 => {
                const $w: usize = 5;
                $body
            }
            6 => {
                const $w: usize = 6;
                $body
            }
            _ => {
                const $w: usize = 7;
                $body
            }
        }
    };
}

/// Slab words a walk needs with bitmaps of `words` words (the GPU launch gives each thread
/// `4 ×` bytes).
pub fn slab_words(marks: u32, prefix: u32, words: usize) -> u32 {
    let best = AtomicU64::new(u64::MAX);
    with_width!(words, |W| kernels::dfs::slab_words(&Ruler::<W> {
        marks,
        prefix,
        best: &best,
    }))
}

/// Slab words of a CPU walk: enough for 18 marks from an empty prefix, a power of two.
pub const SLAB_WORDS: usize = 256;

/// What one CPU task computes: the walk of unit `unit` with bitmaps of `words` words (rulers
/// found that were the shortest anywhere when found, and nodes), lowering `best` as the GPU
/// kernel does.
pub fn search_unit(marks: u32, prefix: u32, words: usize, best: &AtomicU64, unit: u64) -> Walked {
    let mut slab = [0u32; SLAB_WORDS];
    with_width!(words, |W| {
        let tree = Ruler::<W> {
            marks,
            prefix,
            best,
        };
        walk_unit_with_nodes(&tree, &[unit], &mut slab)
    })
}

/// The engine's kernel: warpsearch's depth-first skeleton over [`Ruler`], every lane its own
/// unit, all of them pruning against the one bound word.
///
/// # Safety
/// The engine's calling convention (`kernels::work`): `params` holds the marks, the prefix
/// and the bitmaps' words; one word a unit, two result words a unit; blocks of
/// `kernels::dfs::BLOCK` threads, each with `4 · slab_words` bytes of dynamic shared memory.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn golomb_search(
    params: *const u64,
    work: *const kernels::work::Work,
) {
    use kernels::dfs::{Report, walk_units};
    // SAFETY: the calling convention above.
    unsafe {
        let (marks, prefix, work) = (*params as u32, *params.add(1) as u32, &*work);
        with_width!(*params.add(2), |W| {
            let tree = Ruler::<W> {
                marks,
                prefix,
                best: work.bound(),
            };
            walk_units(&tree, work, 1, Report::CountsAndNodes)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    fn positions(bits: Bits<MAX_WORDS>) -> impl Iterator<Item = u32> {
        (0..WIDTH).filter(move |&i| bits.contains(i))
    }

    #[test]
    fn shifts_move_every_position_and_drop_those_past_the_ends() {
        let bits = [0, 1, 31, 32, 63, 100, 191, 200, 223]
            .iter()
            .fold(Bits::<MAX_WORDS>::EMPTY, |b, &i| b.with(i));
        for shift in 0..WIDTH {
            let up: Vec<u32> = positions(bits.up(shift)).collect();
            let want: Vec<u32> = positions(bits)
                .map(|i| i + shift)
                .filter(|&i| i < WIDTH)
                .collect();
            assert_eq!(up, want, "up {shift}");
            let down: Vec<u32> = positions(bits.down(shift)).collect();
            let want: Vec<u32> = positions(bits)
                .filter(|&i| i >= shift)
                .map(|i| i - shift)
                .collect();
            assert_eq!(down, want, "down {shift}");
        }
    }

    #[test]
    fn lowest_free_is_the_first_clear_bit() {
        let mut bits = Bits::<MAX_WORDS>::EMPTY;
        for i in 0..WIDTH {
            assert_eq!(bits.lowest_free(), i);
            bits = bits.with(i);
        }
        assert_eq!(bits.lowest_free(), WIDTH);
    }

    #[test]
    fn nth_bit_is_the_position_of_the_nth_set_bit() {
        for x in [0u32, 1, 0b1011_0000, 0x8000_0001, u32::MAX, 0xDEAD_BEEF] {
            let set: Vec<u32> = (0..32).filter(|&i| x >> i & 1 == 1).collect();
            assert_eq!(nth_bit(x, 0), 0);
            for n in 1..=33 {
                assert_eq!(
                    nth_bit(x, n),
                    set.get(n as usize - 1).copied().unwrap_or(32),
                    "{x:#x} {n}"
                );
            }
        }
    }

    #[test]
    fn units_round_trip() {
        let unit = encode(&[1, 3, 255, 7]);
        assert_eq!(
            (0..4).map(|i| gap(unit, i)).collect::<Vec<_>>(),
            [1, 3, 255, 7]
        );
    }

    #[test]
    fn small_rulers_are_found_at_their_optimal_length() {
        // One unit from the empty ruler: the bound falls many times inside the walk, so a
        // prune that trusts a value left over from another branch shows here.
        for marks in 2..=12 {
            let best = AtomicU64::new(u64::MAX);
            let walked = search_unit(marks, 0, 4, &best, 0);
            assert_eq!(
                best.into_inner(),
                OPTIMAL[marks as usize] as u64,
                "{marks} marks"
            );
            assert!(walked.found >= 1);
        }
    }
}
