//! The Costas array search, written once and compiled twice: to PTX (the kernel at the end of
//! this file) and to native code (the CPU runs [`count_unit`] through warpsearch's engine).
//!
//! A Costas array of order n is a permutation `p` of `0..n` (row r has its dot in column
//! `p[r]`) in which the displacement vectors between all pairs of dots are distinct. Two dots
//! `d` rows apart differ by `p[r] − p[r − d]` columns, so the array is Costas exactly when, for
//! every row distance `d`, those differences are distinct: one bit mask per distance (a
//! difference triangle) checks it as the rows are placed.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]

use kernels::dfs::{DepthFirst, Node, Walked, walk_unit_with_nodes};
use kernels::slab::Slab;

/// Largest order searched: columns fit 6 bits in a unit, and the differences of a distance
/// (−(n−1) ..= n−1) fit one 64-bit mask.
pub const MAX_N: u32 = 31;

/// Rows a unit can hold (6 bits a column after a 5-bit row count).
pub const MAX_PREFIX: u32 = 9;

/// A partial Costas array: the first `rows` rows placed.
#[derive(Clone, Copy)]
pub struct Board {
    n: u32,
    rows: u32,
    columns: [u32; MAX_N as usize],
    /// Columns taken (it is a permutation).
    used: u32,
    /// For each row distance d, the differences seen so far, shifted by n − 1.
    differences: [u64; MAX_N as usize],
}

impl Board {
    /// An empty board of order `n` (1 ≤ n ≤ [`MAX_N`]).
    pub fn new(n: u32) -> Board {
        Board {
            n,
            rows: 0,
            columns: [0; MAX_N as usize],
            used: 0,
            differences: [0; MAX_N as usize],
        }
    }

    /// Rows placed.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Whether a dot in column `column` of the next row keeps every displacement distinct.
    #[inline(always)]
    pub fn fits(&self, column: u32) -> bool {
        if self.used >> column & 1 != 0 {
            return false;
        }
        let shift = column + self.n - 1;
        (1..=self.rows).all(|d| {
            let above = self.columns[(self.rows - d) as usize];
            self.differences[d as usize] >> (shift - above) & 1 == 0
        })
    }

    /// The columns of the next row that keep every displacement distinct (bit c: column c),
    /// one shift a row distance: the same rule as [`Board::fits`], for a whole row at once.
    #[inline(always)]
    pub fn candidates(&self) -> u32 {
        let mut forbidden = self.used;
        for d in 1..=self.rows {
            let anchor = self.columns[(self.rows - d) as usize];
            forbidden |= (self.differences[d as usize] >> (self.n - 1 - anchor)) as u32;
        }
        (u32::MAX >> (32 - self.n)) & !forbidden
    }

    /// Places a dot in column `column` of the next row (which [`Board::fits`] allowed).
    #[inline(always)]
    pub fn place(&mut self, column: u32) {
        let shift = column + self.n - 1;
        for d in 1..=self.rows {
            let above = self.columns[(self.rows - d) as usize];
            self.differences[d as usize] |= 1 << (shift - above);
        }
        self.columns[self.rows as usize] = column;
        self.used |= 1 << column;
        self.rows += 1;
    }

    /// Takes the last row's dot away.
    #[inline(always)]
    pub fn remove(&mut self) {
        self.rows -= 1;
        let column = self.columns[self.rows as usize];
        self.used &= !(1 << column);
        let shift = column + self.n - 1;
        for d in 1..=self.rows {
            let above = self.columns[(self.rows - d) as usize];
            self.differences[d as usize] &= !(1 << (shift - above));
        }
    }

    /// The Costas arrays that complete this board, by depth-first search without recursion
    /// (a GPU thread has no stack to spare).
    pub fn count_completions(&mut self) -> u64 {
        let base = self.rows;
        if base == self.n {
            return 1;
        }
        let mut count = 0;
        // The next column to try in each row.
        let mut next = [0u32; MAX_N as usize + 1];
        loop {
            let row = self.rows;
            let mut column = next[row as usize];
            while column < self.n && !self.fits(column) {
                column += 1;
            }
            if column < self.n {
                next[row as usize] = column + 1;
                self.place(column);
                if self.rows == self.n {
                    count += 1;
                    self.remove();
                } else {
                    next[self.rows as usize] = 0;
                }
            } else if row == base {
                return count;
            } else {
                self.remove();
            }
        }
    }
}

/// A unit of work: the first rows of a board, as one word (the row count in bits 0..5, then
/// 6 bits a column).
pub fn encode(columns: &[u32]) -> u64 {
    columns
        .iter()
        .enumerate()
        .fold(columns.len() as u64, |word, (i, &c)| {
            word | (c as u64) << (5 + 6 * i)
        })
}

/// The board of order `n` a unit describes.
pub fn decode(n: u32, word: u64) -> Board {
    let mut board = Board::new(n);
    let rows = (word & 31) as u32;
    for i in 0..rows {
        board.place((word >> (5 + 6 * i) & 63) as u32);
    }
    board
}

/// Calls `found` with every valid board of its first `depth` rows, encoded ([`encode`]), in
/// a fixed order; `depth` ≤ min(n, [`MAX_PREFIX`]).
pub fn prefixes(n: u32, depth: u32, found: &mut impl FnMut(u64)) {
    extensions(n, encode(&[]), depth, found)
}

/// Calls `found` with every valid board of `depth` rows that begins with the unit `word`,
/// encoded, in a fixed order (the word itself when it has `depth` rows already); `depth` ≤
/// min(n, [`MAX_PREFIX`]).
pub fn extensions(n: u32, word: u64, depth: u32, found: &mut impl FnMut(u64)) {
    fn extend(board: &mut Board, depth: u32, found: &mut impl FnMut(u64)) {
        if board.rows >= depth {
            found(encode(&board.columns[..board.rows as usize]));
            return;
        }
        let mut candidates = board.candidates();
        while candidates != 0 {
            let column = candidates.trailing_zeros();
            candidates &= candidates - 1;
            board.place(column);
            extend(board, depth, found);
            board.remove();
        }
    }
    extend(&mut decode(n, word), depth, found);
}

/// The Costas search as a [`DepthFirst`] tree, walked by warpsearch's skeleton on the GPU and
/// by its CPU twin: a node is a board of its first rows, a choice is the next row's column,
/// and the candidates are the columns that keep every displacement distinct — computed for a
/// whole row at once from the difference masks, one shift a row distance.
///
/// Slab words (u32): 0 the rows placed, 1 the columns used, `2..2 + n` the columns, then for
/// each row distance d the differences seen, as a mask (bit `x + n − 1` for the difference x):
/// one word at `2 + n + d` while the 2n − 1 differences fit 32 bits (n ≤ 16, `WIDE` false),
/// else two words at `2 + n + 2d`. The narrow form halves the slab traffic of a step.
#[derive(Clone, Copy)]
pub struct CostasTree<const WIDE: bool> {
    /// The order.
    pub n: u32,
}

/// Largest order whose difference masks fit one word.
pub const NARROW_MAX_N: u32 = 16;

impl<const WIDE: bool> CostasTree<WIDE> {
    const ROWS: u32 = 0;
    const USED: u32 = 1;
    const COLUMNS: u32 = 2;

    #[inline(always)]
    fn column<S: Slab>(&self, state: &S, row: u32) -> u32 {
        state.get(Self::COLUMNS + row)
    }

    #[inline(always)]
    fn differences<S: Slab>(&self, state: &S, distance: u32) -> u64 {
        if WIDE {
            let at = Self::COLUMNS + self.n + 2 * distance;
            state.get(at) as u64 | (state.get(at + 1) as u64) << 32
        } else {
            state.get(Self::COLUMNS + self.n + distance) as u64
        }
    }

    #[inline(always)]
    fn set_differences<S: Slab>(&self, state: &mut S, distance: u32, mask: u64) {
        if WIDE {
            let at = Self::COLUMNS + self.n + 2 * distance;
            state.set(at, mask as u32);
            state.set(at + 1, (mask >> 32) as u32);
        } else {
            state.set(Self::COLUMNS + self.n + distance, mask as u32);
        }
    }

    /// Places a dot in `column` of the next row (a unit's prefix, which is known to fit).
    #[inline(always)]
    fn place<S: Slab>(&self, state: &mut S, column: u32) {
        let rows = state.get(Self::ROWS);
        let shift = column + self.n - 1;
        for distance in 1..=rows {
            let above = self.column(state, rows - distance);
            let differences = self.differences(state, distance) | 1 << (shift - above);
            self.set_differences(state, distance, differences);
        }
        state.set(Self::COLUMNS + rows, column);
        state.set(Self::USED, state.get(Self::USED) | 1 << column);
        state.set(Self::ROWS, rows + 1);
    }

    /// All n columns.
    #[inline(always)]
    fn all_columns(&self) -> u32 {
        u32::MAX >> (32 - self.n)
    }

    /// The columns of row `rows` that keep every displacement distinct, given the board's
    /// first `rows` rows.
    #[inline(always)]
    fn candidates<S: Slab>(&self, state: &S, rows: u32) -> u32 {
        let mut forbidden = state.get(Self::USED);
        for distance in 1..=rows {
            let anchor = self.column(state, rows - distance);
            // Bit c of the shifted mask: the difference c − anchor was seen at this distance.
            forbidden |= (self.differences(state, distance) >> (self.n - 1 - anchor)) as u32;
        }
        self.all_columns() & !forbidden
    }
}

impl<const WIDE: bool> DepthFirst for CostasTree<WIDE> {
    type Set = u32;

    fn state_words(&self) -> u32 {
        Self::COLUMNS + if WIDE { 3 * self.n } else { 2 * self.n }
    }

    fn max_depth(&self) -> u32 {
        self.n
    }

    #[inline(always)]
    fn start<S: Slab>(&self, unit: &[u64], state: &mut S) -> u32 {
        let word = unit[0];
        let rows = (word & 31) as u32;
        state.set(Self::ROWS, 0);
        state.set(Self::USED, 0);
        for distance in 0..self.n {
            self.set_differences(state, distance, 0);
        }
        // A whole array as the unit is searched as its first n − 1 rows with the last row's
        // column as the only candidate.
        let placed = rows.min(self.n - 1);
        for row in 0..placed {
            self.place(state, (word >> (5 + 6 * row) & 63) as u32);
        }
        if rows == self.n {
            return 1 << (word >> (5 + 6 * placed) & 63);
        }
        self.candidates(state, rows)
    }

    #[inline(always)]
    fn descend<S: Slab>(&self, state: &mut S, depth: u32, column: u32, rest: u32) -> Node<u32> {
        self.descend_or_undo(state, depth, column, rest, false)
    }

    #[inline(always)]
    fn undo<S: Slab>(&self, state: &mut S, depth: u32, column: u32) {
        self.descend_or_undo(state, depth, column, 0, true);
    }

    /// Placing a dot sets one bit of each distance's difference mask, and taking it back
    /// clears the same bits: one loop, toggling (XOR), does both. So on the GPU the lanes
    /// that undo and the lanes that descend run this loop together instead of one after the
    /// other; the forbidden columns it also gathers are used only by a descent.
    #[inline(always)]
    fn descend_or_undo<S: Slab>(
        &self,
        state: &mut S,
        _depth: u32,
        column: u32,
        _rest: u32,
        undo: bool,
    ) -> Node<u32> {
        let rows = state.get(Self::ROWS);
        if !undo && rows + 1 == self.n {
            return Node::Leaves(1);
        }
        // The row whose dot is placed (descending) or taken back (undoing).
        let row = rows - undo as u32;
        let shift = column + self.n - 1;
        let last = !undo && rows + 2 == self.n;
        // The child's difference masks, and from them the columns its next row may take:
        // distance d's anchor is the child's row row + 1 − d (the new column for d = 1).
        let mut forbidden = state.get(Self::USED) | 1 << column;
        let mut anchor = column;
        for distance in 1..=row {
            let above = self.column(state, row - distance);
            let differences = self.differences(state, distance) ^ 1 << (shift - above);
            if !last {
                self.set_differences(state, distance, differences);
            }
            forbidden |= (differences >> (self.n - 1 - anchor)) as u32;
            anchor = above;
        }
        if undo {
            state.set(Self::USED, state.get(Self::USED) & !(1 << column));
            state.set(Self::ROWS, row);
            return Node::Leaves(0);
        }
        let children = self.all_columns() & !forbidden;
        if last {
            // The child's next row is the last one: each candidate completes an array.
            return Node::Leaves(children.count_ones());
        }
        state.set(Self::COLUMNS + rows, column);
        state.set(Self::USED, state.get(Self::USED) | 1 << column);
        state.set(Self::ROWS, rows + 1);
        Node::Inner(children)
    }
}

/// The Costas arrays of order `n` that start with the unit `word`, and the nodes the search
/// visited: what one GPU lane (or one CPU task) computes, here with the CPU twin of
/// warpsearch's skeleton.
pub fn search_unit(n: u32, word: u64) -> Walked {
    let mut slab = [0u32; SLAB_WORDS];
    if n <= NARROW_MAX_N {
        walk_unit_with_nodes(&CostasTree::<false> { n }, &[word], &mut slab)
    } else {
        walk_unit_with_nodes(&CostasTree::<true> { n }, &[word], &mut slab)
    }
}

/// Slab words a walk of order `n` needs (the GPU launch gives each thread `4 ×` bytes).
pub fn slab_words(n: u32) -> u32 {
    if n <= NARROW_MAX_N {
        kernels::dfs::slab_words(&CostasTree::<false> { n })
    } else {
        kernels::dfs::slab_words(&CostasTree::<true> { n })
    }
}

/// Slab words of the largest order: state `2 + 3·31`, stack `2·32`, rounded up to a power of
/// two (the CPU slab indexes modulo its length).
pub const SLAB_WORDS: usize = 256;

/// Knuth's estimate of the nodes below the unit `word`, from one random path (`pick(k)`: a
/// number below `k`), for `--estimate`.
pub fn probe_unit(n: u32, word: u64, pick: &mut dyn FnMut(u32) -> u32) -> f64 {
    let mut slab = [0u32; SLAB_WORDS];
    let mut pick = |k| pick(k);
    if n <= NARROW_MAX_N {
        kernels::dfs::probe(&CostasTree::<false> { n }, &[word], &mut slab, &mut pick)
    } else {
        kernels::dfs::probe(&CostasTree::<true> { n }, &[word], &mut slab, &mut pick)
    }
}

/// The engine's kernel: warpsearch's depth-first skeleton over [`CostasTree`], every lane
/// its own board, refilled from the work queue while its neighbours are busy.
///
/// # Safety
/// The engine's calling convention (`kernels::work`): `params[0]` is n; one word a unit, two
/// result words a unit (its arrays and nodes); blocks of `kernels::dfs::BLOCK` threads, each
/// with `4 · slab_words` bytes of dynamic shared memory.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn costas_count(
    params: *const u64,
    work: *const kernels::work::Work,
) {
    use kernels::dfs::{Report, walk_units};
    // SAFETY: the calling convention above.
    unsafe {
        let (n, work) = (*params as u32, &*work);
        // The order is the same in every lane: a uniform branch between two instantiations.
        if n <= NARROW_MAX_N {
            walk_units(&CostasTree::<false> { n }, work, 1, Report::CountsAndNodes);
        } else {
            walk_units(&CostasTree::<true> { n }, work, 1, Report::CountsAndNodes);
        }
    }
}

#[cfg(test)]
extern crate std;
#[cfg(test)]
use std::vec;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_of_candidates_is_the_columns_that_fit() {
        let mut count = 0;
        for n in 2..=9 {
            prefixes(n, n.min(4), &mut |word| {
                let board = decode(n, word);
                let fits = (0..n).filter(|&c| board.fits(c)).fold(0, |m, c| m | 1 << c);
                assert_eq!(board.candidates(), fits, "n = {n}");
                count += 1;
            });
        }
        assert!(count > 1000);
    }

    #[test]
    fn roots_expand_to_the_deeper_list_in_its_order() {
        for (n, rows, more) in [(7, 2, 1), (9, 3, 2), (10, 1, 3)] {
            let (mut roots, mut deeper, mut expanded) = (vec![], vec![], vec![]);
            prefixes(n, rows, &mut |word| roots.push(word));
            prefixes(n, rows + more, &mut |word| deeper.push(word));
            for &root in &roots {
                extensions(n, root, rows + more, &mut |word| expanded.push(word));
            }
            assert_eq!(expanded, deeper, "n = {n}");
        }
        // A root as deep as asked is its own expansion.
        let mut same = vec![];
        extensions(8, encode(&[0, 2]), 2, &mut |word| same.push(word));
        assert_eq!(same, [encode(&[0, 2])]);
    }

    #[test]
    fn units_round_trip_and_small_orders_are_counted() {
        let word = encode(&[3, 0, 4]);
        let board = decode(6, word);
        assert_eq!(board.rows(), 3);
        assert_eq!(encode(&board.columns[..3]), word);
        // Orders 1..=6 from the empty board: 1, 2, 4, 12, 40, 116 (OEIS A008404).
        let counts: [u64; 6] =
            core::array::from_fn(|i| Board::new(i as u32 + 1).count_completions());
        assert_eq!(counts, [1, 2, 4, 12, 40, 116]);
    }

    #[test]
    fn the_gpu_kernel_loop_counts_order_9_on_a_cpu_warp() {
        use kernels::dfs::{Report, walk_as_one_warp};
        // The units the host makes (first three rows), walked by the kernel's own loop: one
        // warp of 32 lanes claiming units as they finish, on the CPU form of `Lanes`.
        let n = 9;
        let mut units = std::vec::Vec::new();
        prefixes(n, 3, &mut |word| units.push(word));
        let tree = CostasTree::<false> { n };
        let mut results = std::vec![u64::MAX; 2 * units.len()];
        walk_as_one_warp(
            &tree,
            &units,
            1,
            &mut results,
            Report::CountsAndNodes,
            || [0u32; SLAB_WORDS],
        );
        for (unit, walked) in units.iter().zip(results.chunks(2)) {
            let twin = search_unit(n, *unit);
            assert_eq!(walked, [twin.found, twin.nodes]);
        }
        let arrays: u64 = results.chunks(2).map(|walked| walked[0]).sum();
        assert_eq!(arrays, 760, "OEIS A008404(9)");
    }
}
