//! The leaf check of interior solutions: compare the board with its rotations.

use super::Rules;
use crate::bits::lowest_bit;
use crate::slab::Slab;

/// The board as the check reads it: row `r`'s queen as a one-bit column mask.
struct Queens<'a, S: Slab>(&'a S);

impl<S: Slab> Queens<'_, S> {
    /// The search's stack word of a row holds the candidates it had when its queen was chosen;
    /// the queen is the lowest of them.
    #[inline(always)]
    fn get(&self, row: u32) -> u32 {
        lowest_bit(self.0.get(row))
    }
}

/// What the rotations of a complete interior board say about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symmetry {
    /// Equal to its 90° rotation: its class has 2 members.
    Rot90,
    /// Equal to its 180° rotation only: 4 members.
    Rot180,
    /// No rotation fixes it: 8 members.
    None,
    /// A rotation of it is smaller, so its class is counted at that other board.
    Duplicate,
}

/// Compares the board (row r's queen is the lowest bit of `board[r]`) with its 90°, 180°
/// and 270° rotations in the order used by the search, which visits a class at its smallest
/// member. Each comparison walks the rows of both boards in step and stops at the first
/// difference; it only needs to run at leaves, where every row holds a queen.
// Inlined on the GPU (a call there spills the caller's registers to the stack); kept out of
// line on the CPU, where it would only bloat the hot loop of the search.
#[cfg_attr(target_arch = "nvptx64", inline(always))]
#[cfg_attr(not(target_arch = "nvptx64"), inline(never))]
pub fn classify<S: Slab>(board: &S, rules: &Rules) -> Symmetry {
    let board = Queens(board);
    let last = rules.last_row();
    // 90°: only possible when the queen of row bound2 is in column 0.
    if board.get(rules.bound2) == 1 {
        let mut own = 1;
        let mut pattern = 2;
        while own <= last {
            let mut bit = 1;
            let mut you = last;
            while board.get(you) != pattern && board.get(own) >= bit {
                bit <<= 1;
                you -= 1;
            }
            if board.get(own) > bit {
                return Symmetry::Duplicate;
            }
            if board.get(own) < bit {
                break;
            }
            own += 1;
            pattern <<= 1;
        }
        if own > last {
            return Symmetry::Rot90;
        }
    }
    // 180°: only possible when the last row's queen mirrors row 0's.
    if board.get(last) == rules.end_bit {
        let mut own = 1;
        let mut you = last - 1;
        while own <= last {
            let mut bit = 1;
            let mut pattern = rules.top_bit;
            while pattern != board.get(you) && board.get(own) >= bit {
                bit <<= 1;
                pattern >>= 1;
            }
            if board.get(own) > bit {
                return Symmetry::Duplicate;
            }
            if board.get(own) < bit {
                break;
            }
            own += 1;
            you = you.wrapping_sub(1);
        }
        if own > last {
            return Symmetry::Rot180;
        }
    }
    // 270°: only possible when the queen of row bound1 is in the last column.
    if board.get(rules.bound1) == rules.top_bit {
        let mut own = 1;
        let mut pattern = rules.top_bit >> 1;
        while own <= last {
            let mut bit = 1;
            let mut you = 0;
            while board.get(you) != pattern && board.get(own) >= bit {
                bit <<= 1;
                you += 1;
            }
            if board.get(own) > bit {
                return Symmetry::Duplicate;
            }
            if board.get(own) < bit {
                break;
            }
            own += 1;
            pattern >>= 1;
        }
    }
    Symmetry::None
}
