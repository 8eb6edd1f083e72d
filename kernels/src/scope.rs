//! Memory scopes: which threads an atomic's ordering is promised to.
//!
//! PTX names a *scope* on every ordered memory operation: `.cta` (the threads of one block),
//! `.gpu` (every thread of this GPU) and `.sys` (every agent that can see the memory: other
//! GPUs and the host's CPU too). rustc cannot name one: every `core::sync::atomic` load,
//! store, exchange or fence stronger than `Relaxed` (and a `Relaxed` load or store) comes out
//! as `.sys`, the widest and dearest. A `.sys` fence waits until the writes before it are
//! visible beyond the GPU; a `.gpu` fence only until they are in the GPU's L2.
//!
//! The kernels use `.sys` (plain Rust atomics) only where the host reads or writes the memory
//! while a kernel runs: the fed launch's feed words, its per-chunk counters and the stop word.
//! Data that only the GPU's own threads share during a launch (the work-sharing region of
//! [`handoff`](crate::handoff), a winner flag the host reads after the launch) goes through
//! [`ScopedAtomic`] with [`Scope::Gpu`]. `warpsearch bench warp` measures what each scope
//! costs.
//!
//! On the CPU there is one scope: the twin is the same `core::sync::atomic` operation with
//! the same ordering, the scope ignored.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The threads an ordered memory operation is promised to (PTX's `.cta`, `.gpu`, `.sys`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `.cta`: the threads of the calling thread's block.
    Block,
    /// `.gpu`: every thread of this GPU.
    Gpu,
    /// `.sys`: every agent that sees the memory, the host and other GPUs included (what
    /// rustc emits for every Rust atomic).
    System,
}

/// A fence of `ordering` (`SeqCst` or `AcqRel`; others are taken as `AcqRel`) at `scope`.
///
/// GPU: `fence.sc.{cta,gpu,sys}` or `fence.acq_rel.{cta,gpu,sys}`. CPU:
/// `core::sync::atomic::fence(ordering)`.
#[inline(always)]
pub fn fence_in(scope: Scope, ordering: Ordering) {
    #[cfg(target_arch = "nvptx64")]
    {
        macro_rules! fence {
            ($text:literal) => {
                // SAFETY: a fence reads and writes no memory of its own; it only orders this
                // thread's accesses.
                unsafe { core::arch::asm!($text, options(nostack)) }
            };
        }
        match (ordering, scope) {
            (Ordering::SeqCst, Scope::Block) => fence!("fence.sc.cta;"),
            (Ordering::SeqCst, Scope::Gpu) => fence!("fence.sc.gpu;"),
            (Ordering::SeqCst, Scope::System) => fence!("fence.sc.sys;"),
            (_, Scope::Block) => fence!("fence.acq_rel.cta;"),
            (_, Scope::Gpu) => fence!("fence.acq_rel.gpu;"),
            (_, Scope::System) => fence!("fence.acq_rel.sys;"),
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = scope;
        core::sync::atomic::fence(match ordering {
            Ordering::SeqCst => Ordering::SeqCst,
            _ => Ordering::AcqRel,
        });
    }
}

/// Rust's atomic words with the PTX scope named: `load_in`, `store_in` and
/// `compare_exchange_in` take a [`Scope`] beside the ordering.
///
/// Orderings: loads `Relaxed` or `Acquire` (anything else is taken as `Acquire`), stores
/// `Relaxed` or `Release` (else `Release`), exchanges `Relaxed` or `AcqRel` on success (else
/// `AcqRel`; the failure ordering follows the success one's load half).
pub trait ScopedAtomic {
    /// The word's value type.
    type Value: Copy;
    /// GPU: `ld.{relaxed,acquire}.<scope>`. CPU: `load(ordering)`.
    fn load_in(&self, scope: Scope, ordering: Ordering) -> Self::Value;
    /// GPU: `st.{relaxed,release}.<scope>`. CPU: `store(value, ordering)`.
    fn store_in(&self, scope: Scope, value: Self::Value, ordering: Ordering);
    /// The value before; the word holds `new` if that was `current`. GPU: one
    /// `atom.{relaxed,acq_rel}.<scope>.cas`. CPU: `compare_exchange(current, new, ordering, …)`.
    fn compare_exchange_in(
        &self,
        scope: Scope,
        current: Self::Value,
        new: Self::Value,
        ordering: Ordering,
    ) -> Result<Self::Value, Self::Value>;
}

macro_rules! scoped_atomic {
    ($atomic:ty, $value:ty, $width:literal, $reg:ident) => {
        impl ScopedAtomic for $atomic {
            type Value = $value;

            #[inline(always)]
            fn load_in(&self, scope: Scope, ordering: Ordering) -> $value {
                #[cfg(target_arch = "nvptx64")]
                {
                    let at = self.as_ptr();
                    let value: $value;
                    macro_rules! load {
                                        ($text:expr) => {
                                            // SAFETY: `at` is this atomic's own aligned word, valid for reads.
                                            unsafe {
                                                core::arch::asm!(
                                                    concat!($text, " {v}, [{a}];"),
                                                    v = out($reg) value,
                                                    a = in(reg64) at,
                                                    options(nostack),
                                                )
                                            }
                                        };
                                    }
                    match (ordering, scope) {
                        (Ordering::Relaxed, Scope::Block) => {
                            load!(concat!("ld.relaxed.cta", $width))
                        }
                        (Ordering::Relaxed, Scope::Gpu) => load!(concat!("ld.relaxed.gpu", $width)),
                        (Ordering::Relaxed, Scope::System) => {
                            load!(concat!("ld.relaxed.sys", $width))
                        }
                        (_, Scope::Block) => load!(concat!("ld.acquire.cta", $width)),
                        (_, Scope::Gpu) => load!(concat!("ld.acquire.gpu", $width)),
                        (_, Scope::System) => load!(concat!("ld.acquire.sys", $width)),
                    }
                    value
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let _ = scope;
                    self.load(match ordering {
                        Ordering::Relaxed => Ordering::Relaxed,
                        _ => Ordering::Acquire,
                    })
                }
            }

            #[inline(always)]
            fn store_in(&self, scope: Scope, value: $value, ordering: Ordering) {
                #[cfg(target_arch = "nvptx64")]
                {
                    let at = self.as_ptr();
                    macro_rules! store {
                                        ($text:expr) => {
                                            // SAFETY: `at` is this atomic's own aligned word, valid for writes.
                                            unsafe {
                                                core::arch::asm!(
                                                    concat!($text, " [{a}], {v};"),
                                                    a = in(reg64) at,
                                                    v = in($reg) value,
                                                    options(nostack),
                                                )
                                            }
                                        };
                                    }
                    match (ordering, scope) {
                        (Ordering::Relaxed, Scope::Block) => {
                            store!(concat!("st.relaxed.cta", $width))
                        }
                        (Ordering::Relaxed, Scope::Gpu) => {
                            store!(concat!("st.relaxed.gpu", $width))
                        }
                        (Ordering::Relaxed, Scope::System) => {
                            store!(concat!("st.relaxed.sys", $width))
                        }
                        (_, Scope::Block) => store!(concat!("st.release.cta", $width)),
                        (_, Scope::Gpu) => store!(concat!("st.release.gpu", $width)),
                        (_, Scope::System) => store!(concat!("st.release.sys", $width)),
                    }
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let _ = scope;
                    self.store(
                        value,
                        match ordering {
                            Ordering::Relaxed => Ordering::Relaxed,
                            _ => Ordering::Release,
                        },
                    )
                }
            }

            #[inline(always)]
            fn compare_exchange_in(
                &self,
                scope: Scope,
                current: $value,
                new: $value,
                ordering: Ordering,
            ) -> Result<$value, $value> {
                #[cfg(target_arch = "nvptx64")]
                {
                    let at = self.as_ptr();
                    let before: $value;
                    macro_rules! cas {
                                        ($text:expr) => {
                                            // SAFETY: `at` is this atomic's own aligned word, valid for reads
                                            // and writes.
                                            unsafe {
                                                core::arch::asm!(
                                                    concat!($text, " {b}, [{a}], {c}, {n};"),
                                                    b = out($reg) before,
                                                    a = in(reg64) at,
                                                    c = in($reg) current,
                                                    n = in($reg) new,
                                                    options(nostack),
                                                )
                                            }
                                        };
                                    }
                    match (ordering, scope) {
                        (Ordering::Relaxed, Scope::Block) => {
                            cas!(concat!("atom.relaxed.cta.cas", $width))
                        }
                        (Ordering::Relaxed, Scope::Gpu) => {
                            cas!(concat!("atom.relaxed.gpu.cas", $width))
                        }
                        (Ordering::Relaxed, Scope::System) => {
                            cas!(concat!("atom.relaxed.sys.cas", $width))
                        }
                        (_, Scope::Block) => cas!(concat!("atom.acq_rel.cta.cas", $width)),
                        (_, Scope::Gpu) => cas!(concat!("atom.acq_rel.gpu.cas", $width)),
                        (_, Scope::System) => cas!(concat!("atom.acq_rel.sys.cas", $width)),
                    }
                    if before == current {
                        Ok(before)
                    } else {
                        Err(before)
                    }
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let _ = scope;
                    let (success, failure) = match ordering {
                        Ordering::Relaxed => (Ordering::Relaxed, Ordering::Relaxed),
                        _ => (Ordering::AcqRel, Ordering::Acquire),
                    };
                    self.compare_exchange(current, new, success, failure)
                }
            }
        }
    };
}

scoped_atomic!(AtomicU32, u32, ".b32", reg32);
scoped_atomic!(AtomicU64, u64, ".b64", reg64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_twins_are_the_plain_atomic_operations() {
        for scope in [Scope::Block, Scope::Gpu, Scope::System] {
            let word = AtomicU64::new(5);
            word.store_in(scope, 7, Ordering::Release);
            assert_eq!(word.load_in(scope, Ordering::Acquire), 7, "{scope:?}");
            assert_eq!(
                word.compare_exchange_in(scope, 7, 9, Ordering::AcqRel),
                Ok(7)
            );
            assert_eq!(
                word.compare_exchange_in(scope, 7, 11, Ordering::Relaxed),
                Err(9),
                "a failed exchange returns the value it found and writes nothing"
            );
            assert_eq!(word.load_in(scope, Ordering::Relaxed), 9);
            fence_in(scope, Ordering::SeqCst);
            let small = AtomicU32::new(1);
            small.store_in(scope, 2, Ordering::Relaxed);
            assert_eq!(
                small.compare_exchange_in(scope, 2, 3, Ordering::AcqRel),
                Ok(2)
            );
            assert_eq!(small.load_in(scope, Ordering::Acquire), 3);
        }
    }
}
