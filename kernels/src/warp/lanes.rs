//! The [`Lanes`] type: one value per lane of a warp.

#[cfg(not(target_arch = "nvptx64"))]
use crate::WARP_SIZE;
use core::ops::{Add, BitAnd, BitOr, BitXor, Not, Shl, Shr, Sub};

/// One value per lane of a warp.
///
/// GPU form: a transparent wrapper around this lane's value (a register).
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Lanes<T>(pub(crate) T);

/// One value per lane of a warp.
///
/// CPU form: all 32 lanes in an array, so that element-wise operations compile to vector code.
/// GPU form (`nvptx64`): a transparent wrapper around this lane's value, one register; the
/// other 31 values live in the other threads of the warp. `docs/learn/02-lanes.md` has the
/// table of what exists in which form.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lanes<T>(pub(crate) [T; WARP_SIZE]);

/// This lane's index 0..32 within its warp. GPU: `%laneid` (SASS `S2R SR_LANEID`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn lane_id() -> Lanes<u32> {
    unsafe extern "C" {
        #[link_name = "llvm.nvvm.read.ptx.sreg.laneid"]
        fn laneid() -> u32;
    }
    // SAFETY: reading a special register has no preconditions.
    Lanes(unsafe { laneid() })
}

/// This lane's index 0..32 within its warp. CPU twin: `[0, 1, …, 31]`.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lane_id() -> Lanes<u32> {
    Lanes(core::array::from_fn(|i| i as u32))
}

#[cfg(target_arch = "nvptx64")]
impl<T: Copy> Lanes<T> {
    /// The same value in every lane.
    #[inline(always)]
    pub fn splat(value: T) -> Self {
        Lanes(value)
    }

    /// Applies `f` to every lane's value.
    #[inline(always)]
    pub fn map<U: Copy>(self, mut f: impl FnMut(T) -> U) -> Lanes<U> {
        Lanes(f(self.0))
    }

    /// Combines two per-lane values lane by lane.
    #[inline(always)]
    pub fn zip_with<U: Copy, V: Copy>(
        self,
        other: Lanes<U>,
        mut f: impl FnMut(T, U) -> V,
    ) -> Lanes<V> {
        Lanes(f(self.0, other.0))
    }

    /// This lane's value (GPU only: the CPU form has 32 of them; code for both uses
    /// [`Lanes::for_each`] or [`Lanes::each_mut`] instead).
    #[inline(always)]
    pub fn mine(self) -> T {
        self.0
    }

    /// Reads a value the caller knows to be equal in every lane (the result of a reduction
    /// or a broadcast). GPU: this lane's copy. CPU: lane 0's.
    #[inline(always)]
    pub fn uniform(self) -> T {
        self.0
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T: Copy> Lanes<T> {
    /// The same value in every lane.
    #[inline(always)]
    pub fn splat(value: T) -> Self {
        Lanes([value; WARP_SIZE])
    }

    /// Applies `f` to every lane's value.
    #[inline(always)]
    pub fn map<U: Copy>(self, f: impl FnMut(T) -> U) -> Lanes<U> {
        Lanes(self.0.map(f))
    }

    /// Combines two per-lane values lane by lane.
    #[inline(always)]
    pub fn zip_with<U: Copy, V: Copy>(
        self,
        other: Lanes<U>,
        mut f: impl FnMut(T, U) -> V,
    ) -> Lanes<V> {
        Lanes(core::array::from_fn(|i| f(self.0[i], other.0[i])))
    }

    /// Reads a value the caller knows to be equal in every lane (the result of a reduction
    /// or a broadcast). GPU: this lane's copy. CPU: lane 0's, and in debug builds a check
    /// that every lane holds the same (a value that differs is a bug the GPU would not show;
    /// the panic names the caller's line, not this one).
    #[inline(always)]
    #[track_caller]
    pub fn uniform(self) -> T
    where
        T: PartialEq + core::fmt::Debug,
    {
        debug_assert!(
            self.0.iter().all(|value| *value == self.0[0]),
            "uniform() of a value that differs between lanes: {:?}",
            self.0
        );
        self.0[0]
    }

    /// The whole warp as an array (CPU only).
    #[inline(always)]
    pub fn to_array(self) -> [T; WARP_SIZE] {
        self.0
    }

    /// A warp from an array, lane `i` from element `i` (CPU only).
    #[inline(always)]
    pub fn from_array(values: [T; WARP_SIZE]) -> Self {
        Lanes(values)
    }

    /// Lane `lane`'s value (CPU only; on the GPU use a shuffle).
    #[inline(always)]
    pub fn lane(self, lane: usize) -> T {
        self.0[lane % WARP_SIZE]
    }
}

impl<T: Copy> Lanes<T> {
    /// Per lane: `if self { a } else { b }`.
    #[inline(always)]
    pub fn select(condition: Lanes<bool>, a: Lanes<T>, b: Lanes<T>) -> Lanes<T> {
        condition
            .zip_with(a, |c, x| (c, x))
            .zip_with(b, |(c, x), y| if c { x } else { y })
    }
}

impl Lanes<u32> {
    /// Per lane: is the value non-zero?
    #[inline(always)]
    pub fn is_nonzero(self) -> Lanes<bool> {
        self.map(|x| x != 0)
    }

    /// Per lane: is the value equal to `other`'s?
    #[inline(always)]
    pub fn equals(self, other: Lanes<u32>) -> Lanes<bool> {
        self.zip_with(other, |a, b| a == b)
    }

    /// Per lane: number of set bits (`popc.b32` on the GPU).
    #[inline(always)]
    pub fn popc(self) -> Lanes<u32> {
        self.map(crate::bits::popc)
    }
}

macro_rules! lanewise_binary {
    ($($trait:ident :: $method:ident => $op:expr),* $(,)?) => {$(
        impl<T: Copy + $trait<Output = T>> $trait for Lanes<T> {
            type Output = Lanes<T>;
            #[inline(always)]
            fn $method(self, rhs: Lanes<T>) -> Lanes<T> {
                self.zip_with(rhs, $op)
            }
        }
    )*};
}

lanewise_binary! {
    BitAnd::bitand => |a, b| a & b,
    BitOr::bitor => |a, b| a | b,
    BitXor::bitxor => |a, b| a ^ b,
}

impl Add for Lanes<u32> {
    type Output = Lanes<u32>;
    /// Lane-wise wrapping addition.
    #[inline(always)]
    fn add(self, rhs: Lanes<u32>) -> Lanes<u32> {
        self.zip_with(rhs, u32::wrapping_add)
    }
}

impl Sub for Lanes<u32> {
    type Output = Lanes<u32>;
    /// Lane-wise wrapping subtraction.
    #[inline(always)]
    fn sub(self, rhs: Lanes<u32>) -> Lanes<u32> {
        self.zip_with(rhs, u32::wrapping_sub)
    }
}

impl<T: Copy + Not<Output = T>> Not for Lanes<T> {
    type Output = Lanes<T>;
    #[inline(always)]
    fn not(self) -> Lanes<T> {
        self.map(|a| !a)
    }
}

impl Shl<u32> for Lanes<u32> {
    type Output = Lanes<u32>;
    /// Lane-wise left shift by a uniform amount (`shl.b32`; amounts ≥ 32 give 0, as on the GPU).
    #[inline(always)]
    fn shl(self, amount: u32) -> Lanes<u32> {
        self.map(|a| a.checked_shl(amount).unwrap_or(0))
    }
}

impl Shr<u32> for Lanes<u32> {
    type Output = Lanes<u32>;
    /// Lane-wise logical right shift by a uniform amount (amounts ≥ 32 give 0, as on the GPU).
    #[inline(always)]
    fn shr(self, amount: u32) -> Lanes<u32> {
        self.map(|a| a.checked_shr(amount).unwrap_or(0))
    }
}

/// Per-lane state and per-lane side effects: the kernel glue that lets a whole kernel loop
/// (claim work, step every lane, write each lane's result, stop) be written once over
/// `Lanes` and run in CPU tests exactly as on the GPU. `T` need not be `Copy`: a lane's walk
/// with its stack, say. GPU: each method calls `f` once, on this lane's value (no
/// instruction of its own). CPU: `f` is called for lanes 0, 1, …, 31 in that order, which is
/// one of the orders the GPU's lanes may take.
#[cfg(target_arch = "nvptx64")]
impl<T> Lanes<T> {
    /// Lane `i` holds `f(i)`. GPU: `f` is called once, with this lane's id (`%laneid`).
    #[inline(always)]
    pub fn from_fn(mut f: impl FnMut(u32) -> T) -> Self {
        Lanes(f(lane_id().0))
    }

    /// Each lane's `f(&value)`, without giving the value up (`map` for state that is not
    /// `Copy`).
    #[inline(always)]
    pub fn map_ref<U>(&self, mut f: impl FnMut(&T) -> U) -> Lanes<U> {
        Lanes(f(&self.0))
    }

    /// Wraps this lane's own value as a warp-wide value (GPU only): the bridge from
    /// per-thread code to the collectives, for hand-written kernels. Code that should also run
    /// on the CPU keeps its per-lane state in a `Lanes<T>` from the start ([`Lanes::from_fn`],
    /// [`Lanes::each_mut`], [`Lanes::for_each`]) and never needs it.
    #[inline(always)]
    pub fn this_lane(value: T) -> Self {
        Lanes(value)
    }

    /// Changes each lane's value in place.
    #[inline(always)]
    pub fn each_mut(&mut self, mut f: impl FnMut(&mut T)) {
        f(&mut self.0)
    }

    /// Changes each lane's value in place, given that lane's value of `other`.
    #[inline(always)]
    pub fn each_mut_with<U>(&mut self, other: Lanes<U>, mut f: impl FnMut(&mut T, U)) {
        f(&mut self.0, other.0)
    }

    /// A side effect per lane (a write to memory, say): `f` gets each lane's value.
    #[inline(always)]
    pub fn for_each(self, mut f: impl FnMut(T)) {
        f(self.0)
    }
}

/// Per-lane state and per-lane side effects (see the GPU form). CPU: `f` is called for lanes
/// 0, 1, …, 31 in that order.
#[cfg(not(target_arch = "nvptx64"))]
impl<T> Lanes<T> {
    /// Lane `i` holds `f(i)`. CPU: `f` is called for lanes 0, 1, …, 31 in order.
    #[inline(always)]
    pub fn from_fn(mut f: impl FnMut(u32) -> T) -> Self {
        Lanes(core::array::from_fn(|i| f(i as u32)))
    }

    /// Each lane's `f(&value)`, without giving the value up (`map` for state that is not
    /// `Copy`).
    #[inline(always)]
    pub fn map_ref<U>(&self, mut f: impl FnMut(&T) -> U) -> Lanes<U> {
        Lanes(core::array::from_fn(|i| f(&self.0[i])))
    }

    /// Changes each lane's value in place.
    #[inline(always)]
    pub fn each_mut(&mut self, f: impl FnMut(&mut T)) {
        self.0.iter_mut().for_each(f)
    }

    /// Changes each lane's value in place, given that lane's value of `other`.
    #[inline(always)]
    pub fn each_mut_with<U>(&mut self, other: Lanes<U>, mut f: impl FnMut(&mut T, U)) {
        for (value, theirs) in self.0.iter_mut().zip(other.0) {
            f(value, theirs)
        }
    }

    /// A side effect per lane (a write to memory, say): `f` gets each lane's value.
    #[inline(always)]
    pub fn for_each(self, f: impl FnMut(T)) {
        self.0.into_iter().for_each(f)
    }
}

/// The GPU-only bridge, listed in the host's documentation (`cargo doc` builds the CPU form,
/// which lacks it): these exist only when compiling for `nvptx64`.
#[cfg(all(doc, not(target_arch = "nvptx64")))]
impl<T> Lanes<T> {
    /// **GPU only.** Wraps this thread's own value as a warp-wide value: the bridge from
    /// per-thread code to the collectives, for hand-written kernels. A CPU "thread" is the
    /// whole warp, so the CPU form has no "own" value to wrap; code for both keeps per-lane
    /// state in a `Lanes<T>` from the start ([`Lanes::from_fn`], [`Lanes::each_mut`]).
    pub fn this_lane(value: T) -> Self {
        let _ = value;
        unimplemented!("GPU only: not part of CPU builds")
    }

    /// **GPU only.** This thread's own value. The CPU form holds 32 of them; code for both
    /// uses [`Lanes::for_each`] or [`Lanes::each_mut`] instead.
    pub fn mine(self) -> T {
        unimplemented!("GPU only: not part of CPU builds")
    }
}

/// Runs `f` once for the whole warp: a write that one lane makes on behalf of all, such as
/// adding a warp's total to a global counter. GPU: lane 0 runs it, the others skip it (a
/// predicated branch); the warp goes on together. CPU: `f` runs once.
#[inline(always)]
pub fn on_one_lane(f: impl FnOnce()) {
    #[cfg(target_arch = "nvptx64")]
    if lane_id().0 != 0 {
        return;
    }
    f()
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "differs between lanes")]
    fn uniform_of_a_value_that_differs_between_lanes_fails_in_debug_builds() {
        lane_id().uniform();
    }

    /// The panic points at the line that called `uniform()` (`#[track_caller]`), where the
    /// mistake is, not into this file's `uniform`.
    #[test]
    fn uniform_s_panic_names_the_caller_s_line() {
        use std::sync::{Arc, Mutex};
        let lines = Arc::new(Mutex::new(std::vec::Vec::new()));
        let seen = Arc::clone(&lines);
        let previous = std::panic::take_hook();
        std::panic::set_hook(std::boxed::Box::new(move |info| {
            if let (Some(location), Ok(mut lines)) = (info.location(), seen.lock()) {
                lines.push(location.line());
            }
        }));
        let line = line!() + 1;
        let result = std::panic::catch_unwind(|| lane_id().uniform());
        std::panic::set_hook(previous);
        assert!(
            result.is_err(),
            "uniform() of lane ids must panic in a debug build"
        );
        let lines = lines.lock().map(|l| l.clone()).unwrap_or_default();
        assert!(
            lines.contains(&line),
            "panic lines {lines:?}, expected the caller's {line}"
        );
    }

    #[test]
    fn uniform_of_a_value_every_lane_holds_is_that_value() {
        assert_eq!(Lanes::splat(7u32).uniform(), 7);
    }
}
