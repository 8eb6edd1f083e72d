//! Whole lines through pairs of cells, precomputed: the table the propagating search reads
//! when a new point meets the points already on the board.

use super::gcd;
use crate::warp::Lanes;

/// For every ordered pair of distinct cells `p`, `q` of an `n`×`n` board, the other lattice
/// cells on the line through them, as a warp-wide mask (lane `r`: row `r`'s cells, bit `c`:
/// column `c`). Entry `(p·n² + q)·n + r` holds row `r`'s word, with `p = row·n + column`.
/// `n⁵` words (4 MiB at n = 16), then `n³` words of [`partners`](Self::partners); the GPU reads one coalesced word per lane and keeps the hot
/// part of the table in L2.
///
/// Rows and columns are lines too (a pair in one row gives the rest of the row), but the
/// search never asks for them: the two-per-row rule empties the same cells.
#[derive(Clone, Copy, Debug)]
pub struct PairLines<'a> {
    n: u32,
    words: &'a [u32],
}

impl<'a> PairLines<'a> {
    /// Words a table for size `n` holds: the lines, then the partner masks.
    pub const fn len(n: u32) -> usize {
        (n as usize).pow(5) + (n as usize).pow(3)
    }

    /// Wraps `words` (filled by [`PairLines::fill`], [`len`](Self::len)`(n)` long).
    #[inline(always)]
    pub fn new(n: u32, words: &'a [u32]) -> Self {
        PairLines { n, words }
    }

    /// Fills `words` (`len(n)` long): walks the line through every pair both ways, in steps
    /// of the pair's offset divided by its gcd (the lattice step), and marks the cells met.
    pub fn fill(n: u32, words: &mut [u32]) {
        let n_i = n as i32;
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
                            words[start + r as usize] |= 1 << c;
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
    }

    #[inline(always)]
    fn partners_entry(n: u32, p: u32) -> usize {
        (n as usize).pow(5) + p as usize * n as usize
    }

    /// The cells whose line with (`row`, `column`) is neither its row nor its column and holds
    /// a third cell of the board, as a board: pairs outside it need no marking (about half of
    /// all pairs at n = 13 have no third cell; a row or column with two points is emptied by
    /// the counting rules), so the search skips their loads.
    #[inline(always)]
    pub fn partners(&self, row: u32, column: u32) -> Lanes<u32> {
        self.rows_from(Self::partners_entry(self.n, row * self.n + column))
    }

    /// Rows `0..n` of the `n` words from `start`; zero in the other lanes (and past the end of
    /// the table, which a valid cell pair never reaches).
    ///
    /// GPU: lane `r < n` loads its own word (one coalesced read).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn rows_from(&self, start: usize) -> Lanes<u32> {
        let n = self.n;
        crate::warp::lane_id().map(|r| {
            if r < n {
                self.words.get(start + r as usize).copied().unwrap_or(0)
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
        (p as usize * (n * n) as usize + q as usize) * n as usize
    }

    /// The other cells on the line through (`row`, `column`) and (`row2`, `column2`).
    ///
    /// GPU: one `ld.global` per lane below `n` (a coalesced `n`-word read).
    #[inline(always)]
    pub fn through(&self, row: u32, column: u32, row2: u32, column2: u32) -> Lanes<u32> {
        let n = self.n;
        self.rows_from(Self::entry(n, row * n + column, row2 * n + column2))
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
}
