//! Whole lines through pairs of cells, precomputed: the table the propagating search reads
//! when a new point meets the points already on the board.

use super::gcd;
use crate::warp::Lanes;

/// What the propagating search needs to know about the line through two cells, in three
/// sections of one table of `u32` words:
///
/// 1. **Partners** (`n³` words): for every cell, the cells whose line with it is neither a row
///    nor a column and holds a third cell of the board, as a warp-wide mask ([`partners`](
///    Self::partners)).
/// 2. **Offsets** (`(2n − 1)³` bytes): for a cell `p` and a cell `q` at `(dr, dc)` from it,
///    and a row `t` rows from `p`, the column offset from `p` of the line's cell in that row,
///    or `NONE` (no lattice cell there, the row of `p` or `q`, off every board of this size,
///    or `p` and `q` in one row or column). Byte `((dr + n − 1)·w + dc + n − 1)·w + t + n − 1`,
///    `w = 2n − 1`: 29 KB at n = 16, so the GPU keeps it in L1. The index is linear in `q`'s
///    row and column, so the lines from one `p` differ by one multiply-add
///    ([`LinesFrom`]).
/// 3. **Lines** (`n⁵` words, 4 MiB at n = 16; the CPU only): for every ordered pair of cells
///    `p`, `q`, the other cells of their line, row `r` at word `(p·n² + q)·n + r`, with
///    `p = row·n + column`.
///
/// The GPU is given sections 1 and 2 ([`gpu_len`](Self::gpu_len)) and builds a line from
/// offsets, one byte per lane from L1; the CPU copies `n` words of section 3
/// ([`through`](Self::through) has the two forms). Rows and columns are lines too, but the
/// search never asks for them: the two-per-line rule empties the same cells.
#[derive(Clone, Copy, Debug)]
pub struct PairLines<'a> {
    n: u32,
    words: &'a [u32],
}

/// An offset that is no cell: `base + NONE` wraps past every column, so one unsigned compare
/// rejects it.
const NONE: i8 = i8::MIN;

impl<'a> PairLines<'a> {
    /// Words of the table for size `n`: partners, offsets, lines.
    pub const fn len(n: u32) -> usize {
        Self::gpu_len(n) + (n as usize).pow(5)
    }

    /// Words of the sections the GPU reads (partners and offsets): the start of the table.
    pub const fn gpu_len(n: u32) -> usize {
        Self::offsets_at(n) + Self::offset_bytes(n).div_ceil(4)
    }

    /// Where the offsets start (in words).
    const fn offsets_at(n: u32) -> usize {
        (n as usize).pow(3)
    }

    /// Bytes of the offsets section.
    const fn offset_bytes(n: u32) -> usize {
        (2 * n as usize - 1).pow(3)
    }

    /// Where the lines start (in words).
    const fn lines_at(n: u32) -> usize {
        Self::gpu_len(n)
    }

    /// Wraps `words` (filled by [`PairLines::fill`]): [`len`](Self::len)`(n)` words on the
    /// CPU, at least [`gpu_len`](Self::gpu_len)`(n)` on the GPU.
    #[inline(always)]
    pub fn new(n: u32, words: &'a [u32]) -> Self {
        PairLines { n, words }
    }

    /// Fills `words` (zeroed; [`len`](Self::len)`(n)` long, or [`gpu_len`](Self::gpu_len)`(n)`
    /// for the GPU's sections only): walks the line through every pair both ways, in steps of
    /// the pair's offset divided by its gcd (the lattice step), and marks the cells met; then
    /// the offsets, from the same arithmetic.
    pub fn fill(n: u32, words: &mut [u32]) {
        let n_i = n as i32;
        let with_lines = words.len() >= Self::len(n);
        for p in 0..n * n {
            for q in (0..n * n).filter(|&q| q != p) {
                let (r1, c1) = ((p / n) as i32, (p % n) as i32);
                let (r2, c2) = ((q / n) as i32, (q % n) as i32);
                let (dr, dc) = (r2 - r1, c2 - c1);
                let g = gcd(dr.unsigned_abs(), dc.unsigned_abs()) as i32;
                let (sr, sc) = (dr / g, dc / g);
                let start = Self::entry(n, p, q);
                let mut any = false;
                for direction in [1, -1] {
                    let (mut r, mut c) = (r1 + direction * sr, c1 + direction * sc);
                    while (0..n_i).contains(&r) && (0..n_i).contains(&c) {
                        if (r, c) != (r2, c2) {
                            if with_lines {
                                words[start + r as usize] |= 1 << c;
                            }
                            any = true;
                        }
                        (r, c) = (r + direction * sr, c + direction * sc);
                    }
                }
                // A pair in one row or one column needs no marking: the counting rules empty
                // the rest of a line that holds two points.
                if any && dr != 0 && dc != 0 {
                    words[Self::partners_entry(n, p) + (q / n) as usize] |= 1 << (q % n);
                }
            }
        }
        let span = 2 * n_i - 1;
        for dr in 1 - n_i..n_i {
            for dc in 1 - n_i..n_i {
                for t in 1 - n_i..n_i {
                    let on_line = dr != 0 && dc != 0 && t != 0 && t != dr && (t * dc) % dr == 0;
                    let offset = if on_line { t * dc / dr } else { 0 };
                    let byte = if on_line && offset.abs() < n_i {
                        offset as i8
                    } else {
                        NONE
                    };
                    let at = (((dr + n_i - 1) * span + dc + n_i - 1) * span + t + n_i - 1) as usize;
                    let word = &mut words[Self::offsets_at(n) + at / 4];
                    *word |= u32::from(byte as u8) << (8 * (at % 4));
                }
            }
        }
    }

    #[inline(always)]
    fn partners_entry(n: u32, p: u32) -> usize {
        p as usize * n as usize
    }

    /// The cells whose line with (`row`, `column`) is neither its row nor its column and holds
    /// a third cell of the board, as a board: pairs outside it need no marking (about half of
    /// all pairs at n = 13 have no third cell; a row or column with two points is emptied by
    /// the counting rules), so the search skips them.
    #[inline(always)]
    pub fn partners(&self, row: u32, column: u32) -> Lanes<u32> {
        self.rows_from(Self::partners_entry(self.n, row * self.n + column))
    }

    /// Rows `0..n` of the `n` words from `start` (a cell's partners); zero in the other lanes.
    ///
    /// GPU: lane `r < n` loads its own word (one coalesced read).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn rows_from(&self, start: usize) -> Lanes<u32> {
        let n = self.n;
        crate::warp::lane_id().map(|r| {
            if r < n {
                // SAFETY: `start` is a cell's partner row, so `start + r < n³ ≤ words.len()`
                // for `r < n` (no bounds check: a compare and branch per load on the GPU).
                unsafe { *self.words.as_ptr().add(start + r as usize) }
            } else {
                0
            }
        })
    }

    /// Rows `0..n` of the `n` words from `start`; zero in the other lanes (and everywhere if
    /// the words run past the table, which a valid cell pair never does).
    ///
    /// CPU twin: one slice copy (a per-lane bounds-checked load cost the CPU search ≈ 5 %).
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    fn rows_from(&self, start: usize) -> Lanes<u32> {
        let n = self.n as usize;
        let mut rows = [0u32; 32];
        if let Some(words) = self.words.get(start..start + n) {
            rows[..n].copy_from_slice(words);
        }
        Lanes::from_array(rows)
    }

    #[inline(always)]
    fn entry(n: u32, p: u32, q: u32) -> usize {
        Self::lines_at(n) + (p as usize * (n * n) as usize + q as usize) * n as usize
    }

    /// The lines through (`row`, `column`) and other cells ([`LinesFrom::to`]).
    #[inline(always)]
    pub fn from(&self, row: u32, column: u32) -> LinesFrom<'a> {
        let n = self.n;
        let span = 2 * n - 1;
        LinesFrom {
            table: *self,
            row,
            column,
            // Byte of lane 0 for q = (0, 0): dr = −row, dc = −column, t = −row.
            lane_0: 4 * Self::offsets_at(n) as u32
                + ((n - 1 - row) * span + n - 1 - column) * span
                + (n - 1 - row),
        }
    }

    /// The other cells on the line through (`row`, `column`) and (`row2`, `column2`), two
    /// cells in different rows and columns (the pairs [`partners`](Self::partners) lists).
    #[inline(always)]
    pub fn through(&self, row: u32, column: u32, row2: u32, column2: u32) -> Lanes<u32> {
        self.from(row, column).to(row2, column2)
    }
    /// Byte `at` of the table, sign-extended. GPU: `ld.global.s8` (the words are
    /// little-endian, like the CPU's bytes as the host wrote them).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn offset(&self, at: u32) -> i32 {
        // SAFETY: `at` is a byte of the offsets section (a cell pair and a row of the board
        // index it), inside `words` (`gpu_len` words).
        i32::from(unsafe { *(self.words.as_ptr() as *const i8).add(at as usize) })
    }

    /// Byte `at` of the table, sign-extended (CPU twin, for the tests of the GPU form).
    #[cfg(all(not(target_arch = "nvptx64"), test))]
    #[inline(always)]
    fn offset(&self, at: u32) -> i32 {
        let at = at as usize;
        i32::from((self.words[at / 4] >> (8 * (at % 4))) as u8 as i8)
    }
}

/// The lines through one cell `p` (a new point) and the cells `q` it meets: what
/// [`PairLines::from`] returns, holding what does not depend on `q`.
#[derive(Clone, Copy, Debug)]
pub struct LinesFrom<'a> {
    table: PairLines<'a>,
    row: u32,
    column: u32,
    /// Byte of the offsets that lane 0 reads for q = (0, 0) (the CPU twin reads whole lines).
    #[cfg_attr(not(any(target_arch = "nvptx64", test)), allow(dead_code))]
    lane_0: u32,
}

impl LinesFrom<'_> {
    /// The cells of the line through `p` and (`row`, `column`) other than the two, for a cell
    /// in another row and column than `p`.
    ///
    /// GPU: built from the offsets — one uniform multiply-add for `q`, then per lane below `n`
    /// one `ld.global.s8` (an L1 hit: the section is small), an add, an unsigned compare and a
    /// shift; rows without a lattice cell of the line read `NONE`.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub fn to(&self, row: u32, column: u32) -> Lanes<u32> {
        self.by_offsets(row, column)
    }

    /// The cells of the line through `p` and (`row`, `column`) other than the two.
    ///
    /// CPU twin: a copy of the pair's `n` words of lines (cheaper on a CPU than 32 lanes of
    /// offset arithmetic; tested equal to the GPU form).
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    pub fn to(&self, row: u32, column: u32) -> Lanes<u32> {
        let n = self.table.n;
        self.table.rows_from(PairLines::entry(
            n,
            self.row * n + self.column,
            row * n + column,
        ))
    }

    /// [`to`](Self::to) from the offsets section, as the GPU computes it.
    #[cfg(any(target_arch = "nvptx64", test))]
    #[inline(always)]
    fn by_offsets(&self, row: u32, column: u32) -> Lanes<u32> {
        let n = self.table.n;
        let span = 2 * n - 1;
        let lane_0 = self.lane_0 + (row * span + column) * span;
        crate::warp::lane_id().map(|r| {
            if r >= n {
                return 0;
            }
            let offset = self.table.offset(lane_0 + r);
            let column = self.column.wrapping_add(offset as u32);
            if column < n { 1 << column } else { 0 }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    #[test]
    fn lines_hold_exactly_the_collinear_cells() {
        let n = 7;
        let mut words = vec![0; PairLines::len(n)];
        PairLines::fill(n, &mut words);
        let lines = PairLines::new(n, &words);
        let cells = || (0..n).flat_map(move |r| (0..n).map(move |c| (r as i32, c as i32)));
        for (r1, c1) in cells() {
            for (r2, c2) in cells().filter(|&q| q != (r1, c1)) {
                let mask = lines.through(r1 as u32, c1 as u32, r2 as u32, c2 as u32);
                for (r, c) in cells() {
                    let collinear = (r2 - r1) * (c - c1) == (r - r1) * (c2 - c1);
                    let other = (r, c) != (r1, c1) && (r, c) != (r2, c2);
                    let partners = lines.partners(r1 as u32, c1 as u32);
                    let has_third = (0..n as usize).any(|row| mask.lane(row) != 0);
                    let skew = r1 != r2 && c1 != c2;
                    assert_eq!(partners.lane(r2 as usize) >> c2 & 1 == 1, has_third && skew);
                    assert_eq!(
                        mask.lane(r as usize) >> c & 1 == 1,
                        collinear && other,
                        "pair ({r1},{c1}) ({r2},{c2}), cell ({r},{c})"
                    );
                }
            }
        }
    }

    /// The cells of the line through two cells in different rows and columns, other than them.
    fn reference_line(n: u32, (r1, c1): (i32, i32), (r2, c2): (i32, i32)) -> [u32; 32] {
        let mut rows = [0u32; 32];
        for r in 0..n as i32 {
            for c in 0..n as i32 {
                let collinear = (r2 - r1) * (c - c1) == (r - r1) * (c2 - c1);
                if collinear && (r, c) != (r1, c1) && (r, c) != (r2, c2) {
                    rows[r as usize] |= 1 << c;
                }
            }
        }
        rows
    }

    #[test]
    fn the_gpu_form_builds_the_same_lines_from_offsets() {
        for n in [2u32, 3, 7, 12] {
            let mut words = vec![0; PairLines::len(n)];
            PairLines::fill(n, &mut words);
            let lines = PairLines::new(n, &words);
            for p in 0..n * n {
                for q in (0..n * n).filter(|q| q / n != p / n && q % n != p % n) {
                    let (r1, c1, r2, c2) = (p / n, p % n, q / n, q % n);
                    assert_eq!(
                        lines.from(r1, c1).by_offsets(r2, c2).to_array(),
                        lines.through(r1, c1, r2, c2).to_array(),
                        "n = {n}, pair ({r1},{c1}) ({r2},{c2})"
                    );
                }
            }
        }
    }

    #[test]
    fn offsets_alone_serve_every_size_up_to_32() {
        for n in [17u32, 24, 32] {
            let mut words = vec![0; PairLines::gpu_len(n)];
            PairLines::fill(n, &mut words);
            let lines = PairLines::new(n, &words);
            let cell = |k: u32| ((k * 7919) % (n * n)) as i32;
            for k in 0..2000 {
                let (p, q) = (cell(k), cell(3 * k + 1));
                let (a, b) = ((p / n as i32, p % n as i32), (q / n as i32, q % n as i32));
                if a.0 == b.0 || a.1 == b.1 {
                    continue;
                }
                let built = lines
                    .from(a.0 as u32, a.1 as u32)
                    .by_offsets(b.0 as u32, b.1 as u32);
                assert_eq!(
                    built.to_array(),
                    reference_line(n, a, b),
                    "n = {n}, {a:?} {b:?}"
                );
            }
        }
    }
}
