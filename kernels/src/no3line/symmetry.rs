//! The 8 symmetries of the square acting on partial boards, and the test that prunes a board
//! none of whose completions can be its orbit's representative.
//!
//! The representative (the "canonical" member) of an orbit is its smallest image in the **row
//! order**: rows compared from the first, each read as a binary number (bit `c` = column `c`)
//! — the order the host uses to pick the representative it counts and writes. The search's
//! first branch is on row 0, so from the top of the tree on, a board whose border lines
//! cannot reach its first row's value is dropped, and a complete board is compared with
//! every image.

use super::cells::{Cells, Transposed};
use crate::bits::{bit_reverse, popc};
use crate::warp::{Lanes, lane_id};

/// The set bit of `mask` nearest the middle of `0..n`, preferring the lower one at equal
/// distance (the centre-out order of rows, and of columns when choosing a cell); `None` for an
/// empty mask.
///
/// Splits the mask at the middle: the highest bit of the lower half and the lowest bit of the
/// upper half are the candidates (`clz` and `brev`+`clz` on the GPU, no loop).
#[inline(always)]
pub fn nearest_centre(mask: u32, n: u32) -> Option<u32> {
    let (low_end, high_start) = ((n - 1) / 2, n / 2);
    let lower = mask & (u32::MAX >> (31 - low_end));
    let upper = mask & (u32::MAX << high_start);
    let below = (lower != 0).then(|| 31 - lower.leading_zeros());
    let above = (upper != 0).then(|| upper.trailing_zeros());
    match (below, above) {
        (Some(b), Some(a)) => Some(if (n - 1) - 2 * b <= 2 * a - (n - 1) {
            b
        } else {
            a
        }),
        (b, a) => b.or(a),
    }
}

/// The low `n` bits of each row in reverse order: the mirror image in the middle column.
/// GPU: `brev.b32` and a shift.
#[inline(always)]
fn flip_columns(x: Lanes<u32>, n: u32) -> Lanes<u32> {
    x.map(|row| bit_reverse(row) >> (32 - n))
}

/// Rows in reverse order (row `r` ↔ row `n − 1 − r`): the mirror image in the middle row.
/// GPU: one `shfl.sync.idx`.
#[inline(always)]
fn flip_rows(x: Lanes<u32>, n: u32) -> Lanes<u32> {
    x.shuffle(lane_id().map(|r| (n - 1).wrapping_sub(r) & 31))
}

/// Whether every completion of `board` has `image` (the same board under one symmetry, as
/// known points and known-empty cells) strictly smaller in the row order.
///
/// The comparison runs down the order to the first cell that is not known-equal in both
/// (cells the symmetry maps to themselves are equal whatever they hold): if that cell is
/// known in both, they differ there and the board that holds the point is the larger; if it
/// is unknown in either, nothing is decided. Each lane finds its row's first such cell (its
/// highest: `clz`), a ballot finds the first row, and a second ballot reads the verdict.
#[inline(always)]
fn image_is_smaller(
    n: u32,
    board: (Lanes<u32>, Lanes<u32>),
    image: (Lanes<u32>, Lanes<u32>),
    fixed: Lanes<u32>,
) -> bool {
    let columns = u32::MAX >> (32 - n);
    let (points, empty) = board;
    let (image_points, image_empty) = image;
    let known = (points | empty) & (image_points | image_empty);
    let undecided = lane_id().zip_with((!known | (points ^ image_points)) & !fixed, |r, m| {
        if r < n { m & columns } else { 0 }
    });
    let rows = undecided.is_nonzero().ballot();
    if rows == 0 {
        return false; // Known and equal everywhere: the image is the board itself.
    }
    let verdict = undecided
        .zip_with(known & points, |m, kp| (m, kp))
        .map(|(m, kp)| m != 0 && kp >> (31 - m.leading_zeros()) & 1 == 1);
    verdict.ballot() >> rows.trailing_zeros() & 1 == 1
}

/// The largest value a line (a row, or a column read as a number with bit `r` = row `r`) can
/// still take: its points and the highest of its `open` cells for the points it lacks; zero
/// when it cannot get two.
#[inline(always)]
fn best_value(points: u32, open: u32) -> u32 {
    let mut value = points;
    let mut free = open & !points;
    for _ in popc(points)..2 {
        if free == 0 {
            return 0;
        }
        let top = 1 << (31 - free.leading_zeros());
        value |= top;
        free ^= top;
    }
    value
}

/// The centre cell, the only one a quarter turn fixes (odd `n`; none for even `n`).
fn centre(r: u32, n: u32, m: u32, odd: bool) -> u32 {
    if odd && r == m && r < n { 1 << m } else { 0 }
}

impl Cells {
    /// Every image's first row is a border line of the board — the first or last row or
    /// column, read either way. Once the first row is known (value `v`), each border line
    /// must still be able to reach `v`; its best completion takes its highest open cells.
    /// The same counting argument as the row search's
    /// [`Pruning::Canonical`](crate::no3line::search::Pruning::Canonical), and it works from the root on: the test every settled
    /// board gets.
    ///
    /// The border columns are read with one ballot per bit-plane (bit 0 or bit `n − 1` of
    /// every row): no transpose.
    #[inline(always)]
    pub fn border_lines_can_reach_the_first_row(&self, n: u32) -> bool {
        let first = self.points.broadcast(0);
        if popc(first) < 2 {
            return true;
        }
        let columns = u32::MAX >> (32 - n);
        let open = !self.empty;
        let row = |lane: u32| (self.points.broadcast(lane), open.broadcast(lane) & columns);
        let column = |bit: u32| {
            let has = |x: Lanes<u32>| x.map(|row| row >> bit & 1 == 1).ballot();
            (has(self.points), has(open))
        };
        let reverse = |x: u32| bit_reverse(x) >> (32 - n);
        // Written out rather than as a loop over an array: an array indexed in a loop that
        // is not unrolled would live in local memory on the GPU.
        let reaches = |(points, open): (u32, u32)| {
            best_value(points, open) >= first && best_value(reverse(points), reverse(open)) >= first
        };
        reaches(row(0)) && reaches(row(n - 1)) && reaches(column(0)) && reaches(column(n - 1))
    }

    /// True when some image of this board under the 7 other symmetries is smaller in the row
    /// order whatever its unknown cells become. On a complete board: it is not its orbit's
    /// representative.
    ///
    /// The images are built from the known points and known-empty cells, `transposed` for
    /// the four symmetries that swap rows and columns, `brev` for the column mirror and a
    /// shuffle for the row mirror.
    #[inline(always)]
    pub fn has_smaller_image(&self, n: u32, transposed: &Transposed) -> bool {
        let board = (self.points, self.empty);
        let transposed = (transposed.points, transposed.empty);
        let mirror = |(p, e): (Lanes<u32>, Lanes<u32>)| (flip_columns(p, n), flip_columns(e, n));
        let upend = |(p, e): (Lanes<u32>, Lanes<u32>)| (flip_rows(p, n), flip_rows(e, n));
        // Each image with the cells it maps to themselves (always equal in both boards).
        let m = (n - 1) / 2;
        let odd = n % 2 == 1;
        let fixed = |f: fn(u32, u32, u32, bool) -> u32| lane_id().map(|r| f(r, n, m, odd));
        let smaller = |image, fixed| image_is_smaller(n, board, image, fixed);
        // Written out, not looped over an array (which would live in local memory).
        smaller(
            mirror(board),
            fixed(|_, _, m, odd| if odd { 1 << m } else { 0 }),
        ) || smaller(
            upend(board),
            fixed(|r, n, _, _| if 2 * r + 1 == n { u32::MAX } else { 0 }),
        ) || smaller(upend(mirror(board)), fixed(centre))
            || smaller(transposed, fixed(|r, _, _, _| 1 << r))
            || smaller(mirror(transposed), fixed(centre))
            || smaller(upend(transposed), fixed(centre))
            || smaller(
                upend(mirror(transposed)),
                fixed(|r, n, _, _| 1 << (n - 1 - r.min(n - 1))),
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_centre_picks_the_closest_bit_lower_first() {
        for n in 2..=32u32 {
            for mask in [
                0u32,
                1,
                0b1010_0110,
                0xF000_000F,
                u32::MAX,
                0x0001_8000,
                0x4000_0002,
            ] {
                let mask = mask & (u32::MAX >> (32 - n));
                let reference = (0..n)
                    .filter(|c| mask >> c & 1 == 1)
                    .min_by_key(|&c| ((2 * c).abs_diff(n - 1), c));
                assert_eq!(
                    nearest_centre(mask, n),
                    reference,
                    "n = {n}, mask {mask:#x}"
                );
            }
        }
    }
}
