//! Counting N-Queens solutions by border constellations: the symmetry is spent on the host, and
//! the GPU runs a plain, branch-free bitmap search with nothing to check at the leaves.
//!
//! Every solution has exactly one queen on each border line: row 0, row n−1, column 0 and
//! column n−1 (a corner queen sits on two of them). Their positions — the *constellation* —
//! are `(top, bottom, left, right)`: the columns of the queens in rows 0 and n−1 and the rows
//! of the queens in columns 0 and n−1. The 8 symmetries of the square map border lines to
//! border lines, so they map constellations to constellations, and a constellation has as
//! many completions as each of its images. Hence
//!
//! ```text
//! total = Σ over canonical constellations c of  |orbit(c)| · completions(c)
//! ```
//!
//! where *canonical* means lexicographically smallest in its orbit. Only one constellation in
//! each orbit is searched (≈ 1/8 of the tree), and the search of a constellation needs no
//! symmetry test anywhere. `unique` then follows from Burnside's lemma with the counts of
//! rotation-symmetric solutions, which a much smaller search finds ([`symmetric_counts`]):
//! `unique = (total + S180 + 2·S90) / 8` (no reflection fixes an N-Queens solution for n ≥ 2).
//!
//! The interior search fills the rows not on a border line, top to bottom, with the border
//! queens placed in advance: their columns are taken, and their diagonals are loaded into the
//! diagonal masks — including those of the queens *below* the current row, which is why the
//! masks are 64 bits wide (see [`Frontier`]). The rows of the side queens are skipped, so the
//! masks shift by 1, 2 or 3 rows between two interior rows: a 2-bit schedule per row.

use super::estimate::estimated_work;
use super::lookahead::spared;
use crate::bits::{add_if, low2_and_rest, lowest_bit, nor3, popc, split_lowest};
use crate::rng::SplitMix64;

/// Where board column 0 sits in [`Frontier::left`]: diagonals of queens below the current row
/// can be at negative columns there, and come onto the board as the search goes down.
const LEFT_OFFSET: u32 = 32;
const _: () = assert!(
    LEFT_OFFSET == 32,
    "Frontier::descend adds a column to left's high word"
);

/// The squares of the next row attacked by the queens placed so far (border queens included).
///
/// - `down`: columns taken.
/// - `left`: the diagonals that move one column right per row down, with column c at bit
///   c + 32 (a queen below the current row has its diagonal at a negative column).
/// - `right`: the diagonals that move one column left per row down, column c at bit c (a
///   queen below the current row has its diagonal beyond column n−1, up to bit 51).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Frontier {
    /// Diagonals moving right, column c at bit c + 32.
    pub left: u64,
    /// Diagonals moving left, column c at bit c.
    pub right: u64,
    /// Columns taken.
    pub down: u32,
}

impl Frontier {
    /// Columns among `mask` that no queen attacks. GPU: one `LOP3` and an `AND` (the high
    /// word of `left` is a register of its own).
    #[inline(always)]
    pub fn free(self, mask: u32) -> u32 {
        mask & !(self.down | (self.left >> LEFT_OFFSET) as u32 | self.right as u32)
    }

    /// The frontier `rows` rows further down after a queen at column mask `bit` in this row.
    /// GPU: two 64-bit ORs and two funnel shifts.
    #[inline(always)]
    pub fn place(self, bit: u32, rows: u32) -> Frontier {
        Frontier {
            left: (self.left | (bit as u64) << LEFT_OFFSET) << rows,
            right: (self.right | bit as u64) >> rows,
            down: self.down | bit,
        }
    }

    /// [`place`](Frontier::place) for the counter's inner loop, where `bit` is a free column:
    /// `down` takes it by an addition (GPU: `IMAD.IADD` on the multiply pipe, which the rest of
    /// the step leaves idle, rather than a `LOP3` on the integer pipe, which limits it).
    ///
    /// `rows` must be below 64 (it is 1, 2 or 3). The shifts are unchecked, so the compiler
    /// needs no proof of that: the counter computes `rows` on the multiply pipe
    /// ([`low2_and_rest`]), out of the compiler's sight.
    #[inline(always)]
    pub fn descend(self, bit: u32, rows: u32) -> Frontier {
        debug_assert!(rows < 64);
        // The word of `left` that holds the board (LEFT_OFFSET is 32) and the low word of
        // `right`, each plus `bit`.
        let (left_high, right_low) = ((self.left >> 32) as u32 + bit, self.right as u32 + bit);
        let (left, right) = (
            (left_high as u64) << 32 | self.left & 0xFFFF_FFFF,
            self.right & !0xFFFF_FFFF | right_low as u64,
        );
        // SAFETY: rows < 64 (the contract above).
        let (left, right) = unsafe { (left.unchecked_shl(rows), right.unchecked_shr(rows)) };
        Frontier {
            left,
            right,
            down: self.down + bit,
        }
    }

    /// Columns of this row worth trying: the free ones, less those that would leave the next
    /// row to fill, `rows` further down (1, 2 or 3), with no free square ([`spared`]). On the
    /// row before last, each of them completes exactly one board.
    ///
    /// GPU: two funnel shifts bring the diagonals to the next row, two `LOP3`s give both rows'
    /// free columns, then [`spared`]; no branch.
    #[inline(always)]
    pub fn candidates(self, mask: u32, rows: u32) -> u32 {
        self.open(mask, 0) & spared(self.open(mask, rows), rows)
    }

    /// [`candidates`](Frontier::candidates) looking `AHEAD` rows down (1 or 2). With 2, the
    /// columns that would leave the row after the next with no free square are dropped too
    /// ([`spared`]). `shifts` holds the rows from this row to the next (bits 0..2) and
    /// from there to the one after (bits 2..4; 0 when the next row is the last, which is then
    /// tested twice, to the same result).
    ///
    /// A second row costs ≈ 20 more instructions a step and saves ≈ 1.25× the steps: a CPU
    /// core gains (1.54 → 1.37 s at n = 16), a GPU, bound by instruction issue, does not.
    #[inline(always)]
    pub fn candidates_ahead<const AHEAD: u32>(self, mask: u32, shifts: u32) -> u32 {
        let rows = shifts & 3;
        let near = self.candidates(mask, rows);
        if AHEAD < 2 {
            return near;
        }
        let far = rows + ((shifts >> 2) & 3);
        near & spared(self.open(mask, far), far)
    }

    /// The columns among `mask` of the row `rows` further down that no queen placed so far
    /// attacks (this row's when `rows` is 0).
    #[inline(always)]
    fn open(self, mask: u32, rows: u32) -> u32 {
        mask & nor3(
            self.down,
            ((self.left << rows) >> LEFT_OFFSET) as u32,
            (self.right >> rows) as u32,
        )
    }

    /// Queens placed so far (border queens included).
    #[inline(always)]
    pub fn queens(self) -> u32 {
        popc(self.down)
    }

    /// Adds the attacks of a queen at (`row`, `column`) as seen from row `from` (the queen may
    /// be above or below it; a diagonal that can never reach the board is left out).
    fn preload(&mut self, row: u32, column: u32, from: u32) {
        self.down |= 1 << column;
        let left = column as i32 + from as i32 - row as i32 + LEFT_OFFSET as i32;
        if (0..64).contains(&left) {
            self.left |= 1 << left;
        }
        let right = column as i32 + row as i32 - from as i32;
        if (0..64).contains(&right) {
            self.right |= 1 << right;
        }
    }
}

/// One unit of GPU work: a partial board of one canonical constellation, with the rows still
/// to fill, and the weight of its completions (the constellation's orbit size).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Job {
    /// The board at the next row to fill.
    pub frontier: Frontier,
    /// Rows to shift after placing a queen when `q` queens are placed: bits 2q..2q+2.
    pub schedule: u64,
    /// Solutions each completion stands for: 1, 2, 4 or 8.
    pub weight: u32,
}

impl Job {
    /// Words in a job's GPU layout.
    pub const WORDS: usize = 5;

    /// The job as the GPU reads it (`repr(C)`, little-endian): left, right, down, schedule,
    /// weight, one `u64` each (the two `u32` fields padded).
    pub fn to_words(self) -> [u64; Self::WORDS] {
        [
            self.frontier.left,
            self.frontier.right,
            self.frontier.down as u64,
            self.schedule,
            self.weight as u64,
        ]
    }
}

const _: () = assert!(core::mem::size_of::<Job>() == 8 * Job::WORDS);
const _: () = assert!(core::mem::offset_of!(Job, schedule) == 24);
const _: () = assert!(core::mem::offset_of!(Job, weight) == 32);

/// The positions of the border queens, and the symmetry facts the count needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Constellation {
    /// Board size.
    pub n: u32,
    /// Column of the queen in row 0.
    pub top: u32,
    /// Column of the queen in row n−1.
    pub bottom: u32,
    /// Row of the queen in column 0.
    pub left: u32,
    /// Row of the queen in column n−1.
    pub right: u32,
}

/// A symmetry of the n×n square as a map of (row, column, n) to (row, column).
type CellMap = fn(u32, u32, u32) -> (u32, u32);

/// The index in [`SYMMETRIES`] of the reflection that turns the board upside down.
const UPSIDE_DOWN: usize = 5;

/// The 8 symmetries of the n×n square.
const SYMMETRIES: [CellMap; 8] = [
    |r, c, _| (r, c),
    |r, c, n| (c, n - 1 - r),
    |r, c, n| (n - 1 - r, n - 1 - c),
    |r, c, n| (n - 1 - c, r),
    |r, c, n| (r, n - 1 - c),
    |r, c, n| (n - 1 - r, c),
    |r, c, _| (c, r),
    |r, c, n| (n - 1 - c, n - 1 - r),
];

impl Constellation {
    /// The border queens as (row, column), duplicates (a corner queen) removed; the count.
    pub fn queens(&self) -> ([(u32, u32); 4], usize) {
        let n = self.n;
        let all = [
            (0, self.top),
            (n - 1, self.bottom),
            (self.left, 0),
            (self.right, n - 1),
        ];
        let mut out = [(0, 0); 4];
        let mut count = 0;
        for queen in all {
            if !out[..count].contains(&queen) {
                out[count] = queen;
                count += 1;
            }
        }
        (out, count)
    }

    /// True when the border queens attack no one another (which also makes each border line
    /// hold exactly one of them).
    pub fn is_valid(&self) -> bool {
        let (queens, count) = self.queens();
        let queens = &queens[..count];
        queens.iter().enumerate().all(|(i, &(r1, c1))| {
            queens[i + 1..]
                .iter()
                .all(|&(r2, c2)| r1 != r2 && c1 != c2 && r1 + c2 != r2 + c1 && r1 + c1 != r2 + c2)
        })
    }

    /// The constellation of the image of a solution under symmetry `g` (0..8).
    pub fn image(&self, g: usize) -> Constellation {
        let n = self.n;
        let (queens, count) = self.queens();
        let mut image = *self;
        for &(r, c) in &queens[..count] {
            let (r, c) = SYMMETRIES[g](r, c, n);
            if r == 0 {
                image.top = c;
            }
            if r == n - 1 {
                image.bottom = c;
            }
            if c == 0 {
                image.left = r;
            }
            if c == n - 1 {
                image.right = r;
            }
        }
        image
    }

    fn key(&self) -> (u32, u32, u32, u32) {
        (self.top, self.bottom, self.left, self.right)
    }

    /// `Some(orbit size)` when this constellation is the smallest of its orbit, else `None`.
    pub fn orbit_if_canonical(&self) -> Option<u32> {
        let mut fixed = 0;
        for g in 0..8 {
            let image = self.image(g);
            if image.key() < self.key() {
                return None;
            }
            fixed += (image == *self) as u32;
        }
        Some(8 / fixed)
    }

    /// The image of this constellation that the interior search runs on.
    ///
    /// Every image has as many completions, but not as large a search: the rows are filled
    /// from the top line towards the bottom one, and which border line the search ends on
    /// changes its steps by up to several times. (A mirror image's search is the mirror of the
    /// search, so the four rotations are the four sizes there are.)
    ///
    /// - With `probes` = 0, a fixed rule: the upside-down image, so that the search ends beside
    ///   the canonical form's top queen, the one nearest a corner; 1.6 times fewer steps than
    ///   the canonical form itself (n = 13..16, `docs/notes/nqueens-gpu.md`, commit 6c0c2c1).
    /// - Otherwise the rotation whose search Knuth's estimator, with `probes` random probes,
    ///   finds smallest ([`estimated_work`] on each of [`rotations`](Self::rotations), then
    ///   [`pick`](Self::pick)). The probes are seeded by the constellation, so the choice is
    ///   the same on every machine, and on the GPU (which can make the estimates for a whole
    ///   list at once). Measured over every canonical constellation at n = 14..16, 300 probes
    ///   take 1.069–1.072 times fewer steps than the fixed rule, against 1.072–1.076 for the
    ///   best image (`docs/notes/nqueens-gpu.md`, 2026-11-24, commit f1a832a).
    pub fn searched(&self, probes: u32) -> Constellation {
        if probes == 0 {
            return self.image(UPSIDE_DOWN);
        }
        let estimates = self.rotations().map(|(image, [seed, stream])| {
            image.start().map_or(0, |(frontier, schedule, _)| {
                let mut rng = SplitMix64::new(seed, stream);
                estimated_work(self.n, frontier, schedule, probes, &mut rng)
            })
        });
        self.pick(estimates)
    }

    /// The four rotations of this constellation, whose searches are its four sizes of search,
    /// each with the key of its probes' random stream (seed and stream of a [`SplitMix64`]).
    pub fn rotations(&self) -> [(Constellation, [u64; 2]); 4] {
        let seed = [self.n, self.top, self.bottom, self.left, self.right]
            .iter()
            .fold(0u64, |key, &x| key << 8 | x as u64);
        // SYMMETRIES[0..4] are the rotations.
        core::array::from_fn(|g| (self.image(g), [seed, g as u64]))
    }

    /// The rotation to search given the estimates of the [`rotations`](Self::rotations)' work,
    /// in their order: the smallest, the first on a tie (a rotation with no row to fill has the
    /// estimate 0: there is nothing to search).
    pub fn pick(&self, estimates: [u64; 4]) -> Constellation {
        let best = (0..4).min_by_key(|&g| (estimates[g], g)).unwrap_or(0);
        // Rotation g is SYMMETRIES[g] (see `rotations`).
        self.image(best)
    }

    /// The rows left to fill (not on a border line), in order, and how many.
    fn interior_rows(&self) -> ([u32; 32], usize) {
        let (queens, count) = self.queens();
        let mut rows = [0; 32];
        let mut len = 0;
        for row in 0..self.n {
            if !queens[..count].iter().any(|&(r, _)| r == row) {
                rows[len] = row;
                len += 1;
            }
        }
        (rows, len)
    }

    /// The board at the first interior row with the border queens loaded, the shift schedule,
    /// and the number of interior rows. `None` when no row is left to fill.
    pub fn start(&self) -> Option<(Frontier, u64, u32)> {
        let (rows, len) = self.interior_rows();
        if len == 0 {
            return None;
        }
        let (queens, count) = self.queens();
        let mut frontier = Frontier::default();
        for &(row, column) in &queens[..count] {
            frontier.preload(row, column, rows[0]);
        }
        let placed = count as u32;
        let mut schedule = 0u64;
        for j in 0..len.saturating_sub(1) {
            schedule |= ((rows[j + 1] - rows[j]) as u64) << (2 * (placed + j as u32));
        }
        Some((frontier, schedule, len as u32))
    }
}

/// Calls `visit(constellation, orbit size)` for every canonical constellation of board size
/// `n` (4..=32), in a fixed order.
pub fn for_each_canonical(n: u32, mut visit: impl FnMut(Constellation, u32)) {
    for top in 0..n {
        for bottom in 0..n {
            for left in 0..n {
                for right in 0..n {
                    let c = Constellation {
                        n,
                        top,
                        bottom,
                        left,
                        right,
                    };
                    if !c.is_valid() {
                        continue;
                    }
                    if let Some(orbit) = c.orbit_if_canonical() {
                        visit(c, orbit);
                    }
                }
            }
        }
    }
}

/// Rows to shift after placing a queen on a board with `queens` queens.
#[inline(always)]
fn shift(schedule: u64, queens: u32) -> u32 {
    (schedule >> (2 * queens)) as u32 & 3
}

/// Weighted solutions and nodes found by a [`Counter`] or a host split.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Solutions, each completion counted `weight` times: their sum is the total.
    pub solutions: u64,
    /// Queens placed (the last row's included).
    pub nodes: u64,
}

impl Found {
    /// Adds another tally.
    pub fn add(&mut self, other: &Found) {
        self.solutions += other.solutions;
        self.nodes += other.nodes;
    }
}

/// Expands a job on the host until at most `rows` rows (at least 2) are left to fill, calling
/// `emit` with every such partial board; the boards that end sooner are counted into the
/// returned tally (with the nodes of the expansion). Splitting to a number of rows left,
/// rather than a number of rows placed, makes jobs of constellations with fewer border rows
/// no bigger than the others: the GPU's stacks are as deep as the deepest job, and its last
/// jobs as long as the longest.
pub fn split(n: u32, job: Job, rows: u32, emit: &mut impl FnMut(Job)) -> Found {
    let mask = if n == 32 { u32::MAX } else { (1 << n) - 1 };
    let mut found = Found::default();
    expand(n, mask, job, rows.max(2), emit, &mut found);
    found
}

fn expand(n: u32, mask: u32, job: Job, rows: u32, emit: &mut impl FnMut(Job), found: &mut Found) {
    let frontier = job.frontier;
    let free = frontier.free(mask);
    if frontier.queens() == n - 1 {
        // The last row: each free column completes a board.
        found.solutions += popc(free) as u64 * job.weight as u64;
        found.nodes += popc(free) as u64;
        return;
    }
    if n - frontier.queens() <= rows {
        emit(job);
        return;
    }
    let mut candidates = free;
    while candidates != 0 {
        let bit = lowest_bit(candidates);
        candidates ^= bit;
        found.nodes += 1;
        let child = Job {
            frontier: frontier.place(bit, shift(job.schedule, frontier.queens())),
            ..job
        };
        expand(n, mask, child, rows, emit, found);
    }
}

/// Stack slots a [`Counter`] needs for a job with `rows` rows left to fill (at least two): one
/// per row but the last two. A level is kept only while it has three or more rows left (a
/// child on the row before last is counted, never stored), so the deepest stack holds the
/// rows from the job's first to the third-last.
pub const fn stack_levels(rows: u32) -> u32 {
    if rows > 3 { rows - 2 } else { 1 }
}

/// One level of a [`Counter`]'s stack: a board and the columns of its row still to try.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Level {
    /// The board at this level's row.
    pub frontier: Frontier,
    /// Columns not tried yet.
    pub candidates: u32,
}

/// A per-thread stack of [`Level`]s: an array on the CPU, shared memory on the GPU.
///
/// Levels are named by *position*, in the stack's own unit: the index in an array, the
/// shared-memory address on the GPU. Level `i` sits at `bottom() + i · SLOT`, so a [`Counter`]
/// that keeps its top as a position finds a level's address without a multiply a step.
pub trait LevelStack {
    /// The distance from one level's position to the next.
    const SLOT: u32;
    /// The position of level 0.
    fn bottom(&self) -> u32;
    /// The level at `position`.
    fn get(&self, position: u32) -> Level;
    /// Writes the whole level at `position`.
    #[inline(always)]
    fn set(&mut self, position: u32, level: Level) {
        self.set_if(position, level, true);
    }
    /// Writes the whole level at `position` if `keep` is true. The slot may lie one beyond the
    /// stack when `keep` is false, so a form that writes it anyway must have room there.
    fn set_if(&mut self, position: u32, level: Level, keep: bool);
    /// Pushes `level` on the stack whose top level lies below position `top` if `keep` is
    /// true; returns the position above the new top.
    #[inline(always)]
    fn push_if(&mut self, top: u32, level: Level, keep: bool) -> u32 {
        self.set_if(top, level, keep);
        top + keep as u32 * Self::SLOT
    }
    /// Writes only the candidates of the level at `position`.
    fn set_candidates(&mut self, position: u32, candidates: u32);
}

impl<const N: usize> LevelStack for [Level; N] {
    const SLOT: u32 = 1;
    #[inline(always)]
    fn bottom(&self) -> u32 {
        0
    }
    #[inline(always)]
    fn get(&self, index: u32) -> Level {
        self[index as usize % N]
    }
    /// The CPU twin writes whether or not the level is kept: the slot above the stack is
    /// never read before a push writes it, the index is taken modulo `N` (always in the
    /// array), and a store costs less than a branch the CPU would mispredict.
    #[inline(always)]
    fn set_if(&mut self, index: u32, level: Level, _keep: bool) {
        self[index as usize % N] = level;
    }
    #[inline(always)]
    fn set_candidates(&mut self, index: u32, candidates: u32) {
        self[index as usize % N].candidates = candidates;
    }
}

/// The depth-first search of one job, one queen placed per step and no other kind of step.
///
/// A step reads the top level, takes its lowest candidate (popping the level when that was its
/// last), and places it. The child's candidates are only the columns that leave the row after
/// it a free square (and with `AHEAD` = 2 the row after that too:
/// [`Frontier::candidates_ahead`]), so on the row before last each of them completes a board:
/// such a child is counted, any other is pushed when it has candidates. Every step runs the
/// same instructions, so the lanes of a warp stay in step whatever their boards (the design of
/// ygch/n_queens, here with the border queens preloaded and the rows of side queens skipped by
/// the schedule): the child's store to the slot above the live stack and the count are
/// predicated (no branch; [`LevelStack::push_if`], [`add_if`]).
///
/// The stack needs one slot per row the job leaves to fill but the last two
/// ([`stack_levels`]).
pub struct Counter<S: LevelStack, const AHEAD: u32> {
    mask: u32,
    n: u32,
    stack: S,
    /// The position above the top level ([`LevelStack::SLOT`] per level); the stack's
    /// [`bottom`](LevelStack::bottom) when idle.
    top: u32,
    /// Rows to shift after placing a queen with `q` queens on the board: bits 2q..2q+2.
    schedule: u64,
    weight: u32,
    /// What this counter has found over every job it ran.
    pub found: Found,
}

impl<S: LevelStack, const AHEAD: u32> Counter<S, AHEAD> {
    /// An idle counter for board size `n` with `stack` as its stack.
    #[inline(always)]
    pub fn new(n: u32, stack: S) -> Self {
        Counter {
            mask: if n >= 32 { u32::MAX } else { (1 << n) - 1 },
            n,
            top: stack.bottom(),
            stack,
            schedule: 0,
            weight: 0,
            found: Found::default(),
        }
    }

    /// True when the loaded job is finished (or none was loaded).
    #[inline(always)]
    pub fn is_idle(&self) -> bool {
        self.top == self.stack.bottom()
    }

    /// Starts on `job`, which must have at least two rows left to fill ([`split`] emits only
    /// such jobs).
    #[inline(always)]
    pub fn load(&mut self, job: Job) {
        let queens = job.frontier.queens();
        let candidates = job
            .frontier
            .candidates_ahead::<AHEAD>(self.mask, (job.schedule >> (2 * queens)) as u32);
        // The counter's boards have the columns beyond the board taken, so that no step needs
        // the mask; `down` then counts 32 − n more queens, and the schedule moves up to match.
        let off_board = 32 - self.n;
        // SAFETY: 2·(32 − n) < 64 for n ≥ 1.
        self.schedule = unsafe { job.schedule.unchecked_shl(2 * off_board) };
        self.weight = job.weight;
        let frontier = Frontier {
            down: job.frontier.down | !self.mask,
            ..job.frontier
        };
        let bottom = self.stack.bottom();
        self.stack.set(
            bottom,
            Level {
                frontier,
                candidates,
            },
        );
        if queens + 2 == self.n {
            // The row before last: its candidates are the completions.
            self.found.nodes += 2 * popc(candidates) as u64;
            self.found.solutions += popc(candidates) as u64 * self.weight as u64;
            self.top = bottom;
        } else {
            self.top = bottom + (candidates != 0) as u32 * S::SLOT;
        }
    }

    /// Takes up to `budget` steps; returns false once the job is finished.
    ///
    /// A step places one queen, and its child is pushed only if the child has a candidate
    /// ([`Frontier::candidates`]: a column that leaves the row after it some free square). A
    /// child on the row before last is not pushed: each of its candidates completes a board
    /// (the last row has one free column, attacked or not), so its candidates are counted.
    #[inline(always)]
    pub fn advance(&mut self, budget: u32) -> bool {
        let schedule = self.schedule;
        // A level's depth is its number of queens, not its stack slot: a child takes the slot
        // of a parent whose last candidate it is. Queens here include the 32 − n columns
        // beyond the board (see `load`), so a parent of the row before last has 29.
        let before_last = 29;
        let mut top = self.top;
        let bottom = self.stack.bottom();
        let mut steps = 0;
        let mut solutions = 0u32;
        while steps < budget && top != bottom {
            steps += 1;
            let position = top - S::SLOT;
            let level = self.stack.get(position);
            let (bit, rest) = split_lowest(level.candidates);
            self.stack.set_candidates(position, rest);
            top -= (rest == 0) as u32 * S::SLOT;
            let queens = level.frontier.queens();
            // SAFETY: 2·queens < 64: a level that takes a step has at most 29 queens.
            let shifts = unsafe { schedule.unchecked_shr(2 * queens) } as u32;
            let (rows, later) = low2_and_rest(shifts);
            let child = level.frontier.descend(bit, rows);
            let candidates = child.candidates_ahead::<AHEAD>(u32::MAX, later);
            let counted = queens == before_last;
            solutions = add_if(solutions, popc(candidates), counted);
            let keep = !counted && candidates != 0;
            top = self.stack.push_if(
                top,
                Level {
                    frontier: child,
                    candidates,
                },
                keep,
            );
        }
        self.top = top;
        self.found.nodes += (steps + 2 * solutions) as u64;
        self.found.solutions += solutions as u64 * self.weight as u64;
        top != bottom
    }

    /// Runs the loaded job to the end.
    #[inline(always)]
    pub fn run(&mut self) {
        while self.advance(1 << 20) {}
    }
}

/// The numbers of solutions fixed by the 180° rotation (`S180`, which includes the next) and
/// by the 90° rotation (`S90`), for Burnside's count of classes.
///
/// A 180°-symmetric solution is fixed by its queens in the top half: the queen (r, c) brings
/// (n−1−r, n−1−c), and for odd n the middle row holds the centre. So this search places pairs
/// from row 0 down to the middle — about the square root of the full tree — and tests each
/// result for the 90° symmetry. Only the top queens' attacks are kept: the new bottom queen
/// attacks an old bottom queen exactly when the new top queen attacks the old top one (the
/// rotation maps one pair to the other), and the new top queen attacks an old bottom queen
/// exactly when the new bottom queen attacks an old top one, which is a lookup of the top
/// queens' diagonals `n − 1 − 2r` rows further down.
pub fn symmetric_counts(n: u32) -> (u64, u64) {
    let mut total = (0, 0);
    for first in 0..n {
        let (s180, s90) = symmetric_counts_from(n, first);
        total = (total.0 + s180, total.1 + s90);
    }
    total
}

/// [`symmetric_counts`] restricted to the solutions whose row-0 queen is in column `first`
/// (the host runs the columns in parallel).
pub fn symmetric_counts_from(n: u32, first: u32) -> (u64, u64) {
    if n == 1 {
        return ((first == 0) as u64, (first == 0) as u64);
    }
    if first >= n {
        return (0, 0);
    }
    let mut columns = [0u32; 32];
    let mut found = (0, 0);
    let start = HalfBoard {
        n,
        row: 0,
        down: 0,
        left: 0,
        right: 0,
    };
    if start.candidates() & 1 << first != 0 {
        start.place(1 << first, &mut columns, &mut found);
    }
    found
}

/// The top half of a 180°-symmetric board: the masks of the top queens at row `row`.
#[derive(Clone, Copy)]
struct HalfBoard {
    n: u32,
    row: u32,
    /// Columns taken by both halves.
    down: u32,
    /// The top queens' diagonals at `row`, moving right per row down (64 bits: looked up far
    /// below, see [`HalfBoard::candidates`]).
    left: u64,
    /// The top queens' diagonals at `row`, moving left per row down.
    right: u32,
}

impl HalfBoard {
    /// Bits 0..n reversed: column c ↔ column n − 1 − c.
    fn mirror(&self, columns: u32) -> u32 {
        columns.reverse_bits() >> (32 - self.n)
    }

    /// Columns c where the pair (row, c), (n−1−row, n−1−c) can go.
    fn candidates(&self) -> u32 {
        let n = self.n;
        let mask = (1u32 << n) - 1;
        let below = n - 1 - 2 * self.row;
        let attacked_below =
            self.down | (self.left << below) as u32 | self.right.checked_shr(below).unwrap_or(0);
        let top = !(self.down | self.left as u32 | self.right);
        // The two queens of a pair share a column (c = n−1−c) or a diagonal (c = row or
        // c = n−1−row) in these columns.
        let own =
            1 << self.row | 1 << (n - 1 - self.row) | if n % 2 == 1 { 1 << (n / 2) } else { 0 };
        top & !self.mirror(attacked_below) & !own & mask
    }

    /// Places the pair at column mask `bit` of this row and searches on.
    fn place(self, bit: u32, columns: &mut [u32; 32], found: &mut (u64, u64)) {
        let n = self.n;
        columns[self.row as usize] = bit.trailing_zeros();
        columns[(n - 1 - self.row) as usize] = n - 1 - bit.trailing_zeros();
        let next = HalfBoard {
            n,
            row: self.row + 1,
            down: self.down | bit | self.mirror(bit),
            left: (self.left | bit as u64) << 1,
            right: (self.right | bit) >> 1,
        };
        if 2 * next.row + 1 >= n {
            // The top half is full; an odd board needs the centre free too.
            if n % 2 == 1 {
                let centre = 1 << (n / 2);
                if (next.down | next.left as u32 | next.right) & centre != 0 {
                    return;
                }
                columns[(n / 2) as usize] = n / 2;
            }
            found.0 += 1;
            let turned = (0..n).all(|r| columns[columns[r as usize] as usize] == n - 1 - r);
            found.1 += turned as u64;
            return;
        }
        let mut candidates = next.candidates();
        while candidates != 0 {
            let bit = lowest_bit(candidates);
            candidates ^= bit;
            next.place(bit, columns, found);
        }
    }
}

/// Solutions up to symmetry from the weighted total and the symmetric counts: each class of
/// 8 boards is 8 solutions, of 4 when 180°-symmetric, of 2 when 90°-symmetric. In `u128`,
/// as every total of the host (N = 28's nodes pass 2⁶⁴).
pub fn classes(total: u128, s180: u64, s90: u64) -> u128 {
    (total + s180 as u128 + 2 * s90 as u128) / 8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nqueens::KNOWN;

    /// (total, unique) by every form of the count: one and two rows of look-ahead, the fixed
    /// image and the image chosen by estimate; they must agree.
    fn count(n: u32, rows: u32) -> (u64, u64) {
        let one = count_looking_ahead::<1>(n, rows, 0);
        for (other, form) in [
            (count_looking_ahead::<2>(n, rows, 0), "two rows"),
            (count_looking_ahead::<1>(n, rows, 16), "estimated image"),
        ] {
            assert_eq!(other, one, "n = {n}, rows = {rows}, {form}");
        }
        one
    }

    fn count_looking_ahead<const AHEAD: u32>(n: u32, rows: u32, probes: u32) -> (u64, u64) {
        let mut found = Found::default();
        let mut counter = Counter::<_, AHEAD>::new(n, [Level::default(); 32]);
        for_each_canonical(n, |c, orbit| {
            let Some((frontier, schedule, _)) = c.searched(probes).start() else {
                // Every queen is on the border (n ≤ 4): one solution per constellation.
                found.solutions += orbit as u64;
                return;
            };
            let job = Job {
                frontier,
                schedule,
                weight: orbit,
            };
            let host = split(n, job, rows, &mut |job| {
                counter.load(job);
                counter.run();
            });
            found.add(&host);
        });
        found.add(&counter.found);
        let (s180, s90) = symmetric_counts(n);
        (
            found.solutions,
            classes(found.solutions.into(), s180, s90) as u64,
        )
    }

    #[test]
    fn totals_and_classes_match_the_known_values_wherever_the_host_split_stops() {
        for n in 4..=12 {
            let expected = KNOWN[n as usize - 1];
            // From splitting to the last two rows to not splitting at all.
            for rows in 2..=n {
                assert_eq!(count(n, rows), expected, "n = {n}, rows = {rows}");
            }
        }
        assert_eq!(count(13, 9), KNOWN[12]);
    }

    #[test]
    fn symmetric_counts_match_brute_force_for_small_boards() {
        // S180 and S90 by brute force over all solutions.
        for n in 4..=10u32 {
            let mut columns = [0u32; 10];
            let (mut s180, mut s90) = (0, 0);
            fn all(n: u32, row: u32, columns: &mut [u32; 10], f: &mut impl FnMut(&[u32])) {
                if row == n {
                    f(&columns[..n as usize]);
                    return;
                }
                for c in 0..n {
                    let ok = (0..row).all(|r| {
                        let d = columns[r as usize];
                        d != c && d + row != c + r && d + r != c + row
                    });
                    if ok {
                        columns[row as usize] = c;
                        all(n, row + 1, columns, f);
                    }
                }
            }
            all(n, 0, &mut columns, &mut |s| {
                let m = s.len() as u32;
                s180 += (0..m).all(|r| s[(m - 1 - r) as usize] == m - 1 - s[r as usize]) as u64;
                s90 += (0..m).all(|r| s[s[r as usize] as usize] == m - 1 - r) as u64;
            });
            assert_eq!(symmetric_counts(n), (s180, s90), "n = {n}");
        }
    }

    #[test]
    fn orbits_of_canonical_constellations_cover_every_constellation_once() {
        for n in 5..=9 {
            let mut covered = 0;
            for_each_canonical(n, |_, orbit| covered += orbit);
            let mut all = 0;
            for t in 0..n {
                for b in 0..n {
                    for l in 0..n {
                        for r in 0..n {
                            let c = Constellation {
                                n,
                                top: t,
                                bottom: b,
                                left: l,
                                right: r,
                            };
                            all += c.is_valid() as u32;
                        }
                    }
                }
            }
            assert_eq!(covered, all, "n = {n}");
        }
    }
}
