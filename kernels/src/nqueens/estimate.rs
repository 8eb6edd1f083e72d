//! Knuth's estimate of the size of a search tree by random probes (D. E. Knuth, "Estimating
//! the efficiency of backtrack programs", Math. Comp. 29, 1975), used to pick, for each border
//! constellation, the image whose interior search is smallest
//! ([`Constellation::searched`](super::constellation::Constellation::searched)).
//!
//! A probe walks from the root to a leaf, taking one child uniformly at random at each node. If
//! the nodes on its way had `d₁, d₂, …` children, then `d₁ + d₁·d₂ + d₁·d₂·d₃ + …` is an
//! unbiased estimate of the number of nodes below the root: a node at depth `k` is reached
//! with probability `1 / (d₁ ⋯ d_k)`. Averaged over a few hundred probes, the estimates of the
//! four directions a constellation can be searched in rank them almost as well as the full
//! searches do (measured at n = 12..16: `docs/notes/nqueens-gpu.md`, 2026-11-24), at a cost
//! independent of the tree's size.

use super::constellation::Frontier;
use crate::bits::popc;
use crate::rng::SplitMix64;

/// The mean over `probes` random probes of Knuth's estimate of the work of a
/// [`Counter`](super::constellation::Counter) on the board `frontier` of size `n` with the
/// shift schedule `schedule` (as [`Constellation::start`] returns them): the steps it takes
/// (a queen placed each) and the completions it counts (one each, on the row before last),
/// each row's candidates taken as the counter takes them (one row of look-ahead). Zero for no
/// probes.
///
/// In integers (saturating at `u64::MAX`, far above any search up to n = 27), so that the GPU
/// and the CPU, which run this same code, find bit-identical estimates and choose the same
/// images: a host may take the choice from either, and the work list stays the same.
///
/// [`Constellation::start`]: super::constellation::Constellation::start
#[inline(always)]
pub fn estimated_work(
    n: u32,
    frontier: Frontier,
    schedule: u64,
    probes: u32,
    rng: &mut SplitMix64,
) -> u64 {
    let mask = if n >= 32 { u32::MAX } else { (1 << n) - 1 };
    let mut sum = 0u64;
    for _ in 0..probes {
        let mut board = frontier;
        // The number of boards at this depth that the probe's path stands for.
        let mut paths = 1u64;
        loop {
            let queens = board.queens();
            let shifts = (schedule >> (2 * queens.min(31))) as u32;
            let candidates = board.candidates_ahead::<1>(mask, shifts);
            let choices = popc(candidates);
            if choices == 0 {
                break;
            }
            paths = paths.saturating_mul(choices as u64);
            sum = sum.saturating_add(paths);
            // On the row before last the candidates are the completions, which the counter
            // counts without a step.
            if queens + 2 >= n {
                break;
            }
            let bit = nth_bit(candidates, rng.below(choices));
            board = board.place(bit, shifts & 3);
        }
    }
    sum.checked_div(probes as u64).unwrap_or(0)
}

/// The `index`-th lowest set bit of `mask` (from 0) as a one-bit mask; zero when `mask` has
/// no more than `index` bits.
fn nth_bit(mask: u32, index: u32) -> u32 {
    let mut rest = mask;
    for _ in 0..index {
        rest &= rest.wrapping_sub(1);
    }
    rest & rest.wrapping_neg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nqueens::constellation::{Constellation, Counter, Job, Level, for_each_canonical};

    #[test]
    fn nth_bit_walks_the_set_bits_from_the_lowest() {
        assert_eq!(nth_bit(0b1011_0100, 0), 0b100);
        assert_eq!(nth_bit(0b1011_0100, 1), 0b1_0000);
        assert_eq!(nth_bit(0b1011_0100, 3), 0b1000_0000);
        assert_eq!(nth_bit(0b1011_0100, 4), 0);
    }

    /// The work of a counter on the whole search of `c`, as [`estimated_work`] estimates it:
    /// its steps and the completions it counts.
    fn exact_work(c: &Constellation) -> Option<(f64, Frontier, u64)> {
        let (frontier, schedule, rows) = c.start()?;
        if rows < 2 {
            return None;
        }
        let mut counter = Counter::<_, 1>::new(c.n, [Level::default(); 32]);
        counter.load(Job {
            frontier,
            schedule,
            weight: 1,
        });
        counter.run();
        // The counter's nodes are its steps and the two queens of each completion.
        let work = counter.found.nodes - counter.found.solutions;
        Some((work as f64, frontier, schedule))
    }

    #[test]
    fn the_mean_of_many_probes_approaches_the_work_of_the_search() {
        // Unbiased: summed over constellations (so that no single tree's variance decides),
        // 2000 probes each land within a few per cent of the exact total.
        let n = 11;
        let (mut exact, mut estimated) = (0.0, 0.0);
        let mut rng = SplitMix64::new(1, 0);
        for_each_canonical(n, |c, _| {
            let c = c.searched(0);
            if let Some((work, frontier, schedule)) = exact_work(&c) {
                exact += work;
                estimated += estimated_work(n, frontier, schedule, 2000, &mut rng) as f64;
            }
        });
        let ratio = estimated / exact;
        assert!((0.97..1.03).contains(&ratio), "estimate / exact = {ratio}");
    }

    #[test]
    fn the_estimated_image_takes_less_work_than_the_fixed_rule() {
        // Measured at n = 12 in steps: the best image 1.092 times fewer, 300 probes 1.091.
        let n = 12;
        let (mut fixed, mut estimated) = (0.0, 0.0);
        for_each_canonical(n, |c, orbit| {
            let work = |image: Constellation| exact_work(&image).map_or(0.0, |e| e.0);
            fixed += orbit as f64 * work(c.searched(0));
            estimated += orbit as f64 * work(c.searched(300));
        });
        let gain = fixed / estimated;
        assert!(gain > 1.07, "fixed / estimated work = {gain}");
    }

    #[test]
    fn no_probes_estimate_nothing() {
        let c = Constellation {
            n: 8,
            top: 1,
            bottom: 6,
            left: 4,
            right: 3,
        };
        let (frontier, schedule, _) = c.start().unwrap_or_default();
        assert_eq!(
            estimated_work(8, frontier, schedule, 0, &mut SplitMix64::new(0, 0)),
            0
        );
    }
}
