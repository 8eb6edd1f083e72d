//! Per-thread scratch arrays of `u32` words ("slabs"), such as a search's stack.
//!
//! On the CPU a slab is an ordinary array. On the GPU a thread's slab is a column of the
//! block's shared memory: word `i` of thread `t` sits at `(i · block_threads + t) · 4`, so when
//! the 32 lanes of a warp touch their own slabs — even at different depths `i` — each lane
//! hits its own bank (`t mod 32`) and the access takes one cycle, free of bank conflicts.

/// A thread's private array of `u32` words.
pub trait Slab {
    /// Word `index`.
    fn get(&self, index: u32) -> u32;
    /// Sets word `index` to `value`.
    fn set(&mut self, index: u32, value: u32);
    /// The words it holds, where it knows (the CPU twins check a walk's needs against it);
    /// `None` for the GPU's shared-memory slabs, whose size the launch sets.
    #[inline(always)]
    fn words(&self) -> Option<u32> {
        None
    }
}

/// A CPU slab of exactly the words a walk needs ([`crate::dfs::slab_words`]): unlike the
/// array slab, it does not wrap an index past its end but panics, saying which word and how
/// many it has — a search that descends past its `max_depth` writes there.
impl Slab for &mut [u32] {
    #[inline(always)]
    #[track_caller]
    fn get(&self, index: u32) -> u32 {
        match <[u32]>::get(self, index as usize) {
            Some(&word) => word,
            None => past_the_end(index, self.len()),
        }
    }
    #[inline(always)]
    #[track_caller]
    fn set(&mut self, index: u32, value: u32) {
        let len = self.len();
        match self.get_mut(index as usize) {
            Some(word) => *word = value,
            None => past_the_end(index, len),
        }
    }
    fn words(&self) -> Option<u32> {
        Some(self.len() as u32)
    }
}

#[cold]
#[track_caller]
fn past_the_end(index: u32, len: usize) -> ! {
    panic!(
        "slab word {index} is past the slab's {len} words (slab_words: the state, then one stack \
         level a depth up to max_depth): did the search descend deeper than its max_depth()?"
    )
}

/// The CPU slab: an array. Indices are taken modulo `N` — one `and` for the power-of-two
/// sizes used here (32 for counting, 128 for the randomised search) — which lets the
/// compiler drop the bounds check; the searches never index past their board size.
impl<const N: usize> Slab for [u32; N] {
    #[inline(always)]
    fn get(&self, index: u32) -> u32 {
        self[index as usize % N]
    }
    #[inline(always)]
    fn set(&mut self, index: u32, value: u32) {
        self[index as usize % N] = value;
    }
    #[inline(always)]
    fn words(&self) -> Option<u32> {
        Some(N as u32)
    }
}

/// A warp's private array of [`Lanes<u32>`](crate::warp::Lanes) words: word `i` holds one
/// value per lane (a warp-wide board, say, one row per lane).
pub trait LaneSlab {
    /// Word `index`.
    fn get(&self, index: u32) -> crate::warp::Lanes<u32>;
    /// Sets word `index` to `value`.
    fn set(&mut self, index: u32, value: crate::warp::Lanes<u32>);
}

/// CPU twin: an array of whole warps' words (indices modulo `N`, as for [`Slab`]).
#[cfg(not(target_arch = "nvptx64"))]
impl<const N: usize> LaneSlab for [crate::warp::Lanes<u32>; N] {
    #[inline(always)]
    fn get(&self, index: u32) -> crate::warp::Lanes<u32> {
        self[index as usize % N]
    }
    #[inline(always)]
    fn set(&mut self, index: u32, value: crate::warp::Lanes<u32>) {
        self[index as usize % N] = value;
    }
}

/// CPU twin of a stack too large for an array on the thread's stack: a borrowed slice of
/// whole warps' words (the caller sizes it; an index past the end panics).
#[cfg(not(target_arch = "nvptx64"))]
impl LaneSlab for &mut [crate::warp::Lanes<u32>] {
    #[inline(always)]
    fn get(&self, index: u32) -> crate::warp::Lanes<u32> {
        self[index as usize]
    }
    #[inline(always)]
    fn set(&mut self, index: u32, value: crate::warp::Lanes<u32>) {
        self[index as usize] = value;
    }
}

/// GPU form: every lane keeps its own value of word `i` in its own shared-memory column, so a
/// warp-wide word costs one conflict-free `LDS`/`STS`.
#[cfg(target_arch = "nvptx64")]
impl LaneSlab for SharedSlab {
    #[inline(always)]
    fn get(&self, index: u32) -> crate::warp::Lanes<u32> {
        crate::warp::Lanes::this_lane(Slab::get(self, index))
    }
    #[inline(always)]
    fn set(&mut self, index: u32, value: crate::warp::Lanes<u32>) {
        Slab::set(self, index, value.mine());
    }
}

#[cfg(target_arch = "nvptx64")]
core::arch::global_asm!(
    "// Dynamic shared memory of every kernel in this module; its size is set at launch.",
    ".extern .shared .align 16 .b8 WARPSEARCH_SHARED[];"
);

/// This thread's column of the block's dynamic shared memory (GPU only).
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
pub struct SharedSlab {
    /// Shared-window address of word 0.
    base: u32,
    /// Bytes from one word to the next: `4 · block_threads`.
    stride: u32,
}

#[cfg(target_arch = "nvptx64")]
impl SharedSlab {
    /// The calling thread's slab in a 1-D block.
    ///
    /// # Safety
    /// The launch must provide at least `4 · words · block_threads` bytes of dynamic shared
    /// memory, no other code of the kernel may use it, and only indices below `words` may be
    /// passed to `get`/`set`.
    #[inline(always)]
    pub unsafe fn for_this_thread() -> Self {
        let shared: u32;
        // SAFETY: takes the address of the module's shared array; reads no memory.
        unsafe {
            core::arch::asm!(
                "mov.u32 {a}, WARPSEARCH_SHARED;",
                a = out(reg32) shared,
                options(pure, nomem, nostack)
            );
        }
        // SAFETY: special-register reads with no preconditions.
        let (thread, threads) = unsafe {
            (
                core::arch::nvptx::_thread_idx_x() as u32,
                core::arch::nvptx::_block_dim_x() as u32,
            )
        };
        SharedSlab {
            base: shared + 4 * thread,
            stride: 4 * threads,
        }
    }
}

#[cfg(target_arch = "nvptx64")]
impl Slab for SharedSlab {
    /// `ld.shared.u32` (SASS `LDS`).
    #[inline(always)]
    fn get(&self, index: u32) -> u32 {
        // SAFETY: in bounds by `for_this_thread`'s contract; the column is this thread's alone.
        unsafe { load_shared(self.base + index * self.stride) }
    }

    /// `st.shared.u32` (SASS `STS`).
    #[inline(always)]
    fn set(&mut self, index: u32, value: u32) {
        // SAFETY: in bounds by `for_this_thread`'s contract; the column is this thread's alone.
        unsafe { store_shared(self.base + index * self.stride, value) }
    }
}

/// `ld.shared.u32` at shared-window address `address`.
///
/// # Safety
/// `address` must be inside the block's dynamic shared memory, in words no other thread writes
/// meanwhile.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn load_shared(address: u32) -> u32 {
    let value: u32;
    // SAFETY: the caller's contract.
    unsafe {
        core::arch::asm!(
            "ld.shared.u32 {v}, [{a}];",
            v = out(reg32) value,
            a = in(reg32) address,
            options(pure, readonly, nostack)
        );
    }
    value
}

/// `st.shared.u32` of `value` at shared-window address `address`.
///
/// # Safety
/// As for [`load_shared`].
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn store_shared(address: u32, value: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        core::arch::asm!(
            "st.shared.u32 [{a}], {v};",
            a = in(reg32) address,
            v = in(reg32) value,
            options(nostack)
        );
    }
}

/// This thread's column of the block's dynamic shared memory in a block of exactly `THREADS`
/// threads (GPU only): [`SharedSlab`] with the stride known to the compiler, so that word
/// `i` is at `base + 4·THREADS·i` — a constant offset for a constant `i`, which ptxas folds
/// into the `LDS`/`STS` itself instead of computing each address with an `IMAD`.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
pub struct BlockSlab<const THREADS: u32> {
    /// Shared-window address of word 0.
    base: u32,
}

#[cfg(target_arch = "nvptx64")]
impl<const THREADS: u32> BlockSlab<THREADS> {
    /// The calling thread's slab.
    ///
    /// # Safety
    /// The launch must use blocks of exactly `THREADS` threads (1-D) and provide at least
    /// `4 · words · THREADS` bytes of dynamic shared memory, no other code of the kernel may
    /// use it, and only indices below `words` may be passed to `get`/`set`.
    #[inline(always)]
    pub unsafe fn for_this_thread() -> Self {
        // SAFETY: the same contract, with `THREADS` as the block's size.
        let slab = unsafe { SharedSlab::for_this_thread() };
        BlockSlab { base: slab.base }
    }
}

#[cfg(target_arch = "nvptx64")]
impl<const THREADS: u32> Slab for BlockSlab<THREADS> {
    /// `ld.shared.u32` (SASS `LDS`), at a constant offset from the level's address.
    #[inline(always)]
    fn get(&self, index: u32) -> u32 {
        // SAFETY: in bounds by `for_this_thread`'s contract; the column is this thread's alone.
        unsafe { load_shared(self.base + index * (4 * THREADS)) }
    }

    /// `st.shared.u32` (SASS `STS`).
    #[inline(always)]
    fn set(&mut self, index: u32, value: u32) {
        // SAFETY: in bounds by `for_this_thread`'s contract; the column is this thread's alone.
        unsafe { store_shared(self.base + index * (4 * THREADS), value) }
    }
}

/// A warp's private region of global memory as a [`LaneSlab`] (GPU only): word `i` of lane `l`
/// at `base[i·32 + l]`, so a warp-wide word is one coalesced 128-byte access. For stacks too
/// deep for shared memory, such as the propagating no-three-in-line search's pending boards.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
pub struct GlobalSlab {
    /// This lane's word 0.
    base: *mut u32,
}

#[cfg(target_arch = "nvptx64")]
impl GlobalSlab {
    /// The calling warp's slab starting at `region` (32 words a slab word; each lane
    /// offsets by its lane index).
    ///
    /// # Safety
    /// `region` must point to `32 · words` `u32`s of device memory that only this warp uses
    /// during the kernel, and only indices below `words` may be passed to `get`/`set`.
    #[inline(always)]
    pub unsafe fn for_this_warp(region: *mut u32) -> Self {
        let lane = crate::warp::lane_id().mine() as usize;
        // SAFETY: `lane < 32` stays inside the region by the contract above.
        GlobalSlab {
            base: unsafe { region.add(lane) },
        }
    }
}

#[cfg(target_arch = "nvptx64")]
impl LaneSlab for GlobalSlab {
    /// `ld.global.u32` (SASS `LDG`), coalesced across the warp.
    #[inline(always)]
    fn get(&self, index: u32) -> crate::warp::Lanes<u32> {
        // SAFETY: in bounds by `for_this_warp`'s contract; the region is this warp's alone.
        crate::warp::Lanes::this_lane(unsafe { *self.base.add(index as usize * 32) })
    }

    /// `st.global.u32` (SASS `STG`), coalesced across the warp.
    #[inline(always)]
    fn set(&mut self, index: u32, value: crate::warp::Lanes<u32>) {
        // SAFETY: in bounds by `for_this_warp`'s contract; the region is this warp's alone.
        unsafe { *self.base.add(index as usize * 32) = value.mine() };
    }
}

/// A per-thread stack of N-Queens [`Level`](crate::nqueens::constellation::Level)s in the
/// block's dynamic shared memory. Per warp and level, 768 bytes in three planes of 256: the
/// lanes' `left` words, their `right` words, then their `(down, candidates)` pairs, 8 bytes a
/// lane in each. A lane's level is then one address and three 64-bit accesses at fixed offsets
/// from it, and a warp's accesses run at full shared-memory bandwidth (no bank conflicts). A
/// level's position is its address, so the counter moves its top by adding 768 and needs no
/// multiply to find a level.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
pub struct SharedLevels {
    /// Shared-memory address of this lane's `left` word of level 0.
    base: u32,
}

#[cfg(target_arch = "nvptx64")]
impl SharedLevels {
    /// Bytes a warp's level takes.
    pub const WARP_LEVEL_BYTES: u32 = 768;

    /// This thread's stack.
    ///
    /// # Safety
    /// The launch must provide `levels × 768` bytes of dynamic shared memory per warp of the
    /// block, and only the positions of levels below `levels` may be read or written.
    #[inline(always)]
    pub unsafe fn for_this_thread(levels: u32) -> Self {
        let shared: u32;
        // SAFETY: reads the address of the module's shared array; no memory is touched.
        unsafe {
            core::arch::asm!(
                "mov.u32 {a}, WARPSEARCH_SHARED;",
                a = out(reg32) shared,
                options(pure, nomem, nostack)
            );
        }
        // SAFETY: special-register read with no preconditions.
        let thread = unsafe { core::arch::nvptx::_thread_idx_x() } as u32;
        let (warp, lane) = (thread / 32, thread % 32);
        SharedLevels {
            base: shared + warp * levels * Self::WARP_LEVEL_BYTES + 8 * lane,
        }
    }
}

#[cfg(target_arch = "nvptx64")]
impl crate::nqueens::constellation::LevelStack for SharedLevels {
    const SLOT: u32 = Self::WARP_LEVEL_BYTES;
    /// The address of this lane's level 0: positions are shared-memory addresses.
    #[inline(always)]
    fn bottom(&self) -> u32 {
        self.base
    }
    /// Three `ld.shared.u64`/`ld.shared.v2.u32` at one address (SASS `LDS.64`).
    #[inline(always)]
    fn get(&self, position: u32) -> crate::nqueens::constellation::Level {
        let (left, right, down, candidates): (u64, u64, u32, u32);
        // SAFETY: inside this warp's region by `for_this_thread`'s contract.
        unsafe {
            core::arch::asm!(
                "ld.shared.u64 {l}, [{a}];",
                "ld.shared.u64 {r}, [{a}+256];",
                "ld.shared.v2.u32 {{{d}, {c}}}, [{a}+512];",
                l = out(reg64) left,
                r = out(reg64) right,
                d = out(reg32) down,
                c = out(reg32) candidates,
                a = in(reg32) position,
                options(pure, readonly, nostack)
            );
        }
        crate::nqueens::constellation::Level {
            frontier: crate::nqueens::constellation::Frontier { left, right, down },
            candidates,
        }
    }

    /// Three stores at one address, predicated on `keep` (`setp` and `@p st.shared`): a lane
    /// that does not keep the level writes nothing, so the slot may lie beyond the stack.
    #[inline(always)]
    fn set_if(&mut self, position: u32, level: crate::nqueens::constellation::Level, keep: bool) {
        // SAFETY: a kept level is inside this warp's region by `for_this_thread`'s contract; a
        // level not kept is not written.
        unsafe {
            core::arch::asm!(
                "{{",
                ".reg .pred keep;",
                "setp.ne.u32 keep, {k}, 0;",
                "@keep st.shared.u64 [{a}], {l};",
                "@keep st.shared.u64 [{a}+256], {r};",
                "@keep st.shared.v2.u32 [{a}+512], {{{d}, {c}}};",
                "}}",
                k = in(reg32) keep as u32,
                a = in(reg32) position,
                l = in(reg64) level.frontier.left,
                r = in(reg64) level.frontier.right,
                d = in(reg32) level.frontier.down,
                c = in(reg32) level.candidates,
                options(nostack)
            );
        }
    }

    /// One `st.shared.u32`.
    #[inline(always)]
    fn set_candidates(&mut self, position: u32, candidates: u32) {
        // SAFETY: inside this warp's region by `for_this_thread`'s contract.
        unsafe {
            core::arch::asm!(
                "st.shared.u32 [{a}+516], {c};",
                a = in(reg32) position,
                c = in(reg32) candidates,
                options(nostack)
            );
        }
    }
}
