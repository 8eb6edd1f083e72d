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
    fn extend(board: &mut Board, depth: u32, found: &mut impl FnMut(u64)) {
        if board.rows == depth {
            found(encode(&board.columns[..depth as usize]));
            return;
        }
        for column in 0..board.n {
            if board.fits(column) {
                board.place(column);
                extend(board, depth, found);
                board.remove();
            }
        }
    }
    extend(&mut Board::new(n), depth, found);
}

/// The Costas arrays of order `n` that start with the unit `word`: what one GPU thread (or
/// one CPU task) computes.
pub fn count_unit(n: u32, word: u64) -> u64 {
    decode(n, word).count_completions()
}

/// The engine's kernel: each thread takes units from the work queue (one atomic per warp:
/// `WorkQueue::claim` ballots the lanes that want one) and writes each unit's count.
///
/// # Safety
/// The engine's calling convention: `params[0]` is n; `units` holds `count` words; `next`
/// and `cancel` are zeroed device words; `results` holds `count` words; whole-warp blocks.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn costas_count(
    params: *const u64,
    units: *const u64,
    count: u32,
    next: *const core::sync::atomic::AtomicU32,
    cancel: *const core::sync::atomic::AtomicU32,
    results: *mut u64,
) {
    use core::sync::atomic::Ordering;
    use kernels::atomic::WorkQueue;
    use kernels::warp::Lanes;
    // SAFETY: the calling convention above.
    let (n, queue, cancel) = unsafe { (*params as u32, WorkQueue::new(&*next), &*cancel) };
    let mut done = false;
    // Every lane comes back to the claim together (the ballot needs the whole warp), so a
    // lane that finishes its unit early waits for its neighbours' units: simple, and fine when
    // units are alike. warpsearch's N-Queens kernel shows the refill-while-busy form.
    loop {
        let claimed = queue.claim(Lanes::this_lane(!done)).mine();
        if !done {
            if claimed < count && cancel.load(Ordering::Relaxed) == 0 {
                // SAFETY: `claimed < count`, the length of `units` and `results`.
                unsafe {
                    *results.add(claimed as usize) = count_unit(n, *units.add(claimed as usize))
                };
            } else {
                done = true;
            }
        }
        if Lanes::this_lane(done).all() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
