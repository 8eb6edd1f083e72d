//! Per-thread bit operations on `u32` words: the vocabulary of bitboard search.
//!
//! Most of these are plain Rust methods that LLVM lowers to a single PTX instruction; the
//! doc comment of each says which. `lop3` is the exception: PTX's three-input logic op has no
//! LLVM intrinsic, so the GPU form is inline assembly and the CPU form evaluates the truth
//! table with ordinary logic (constant-folded, since the table is a const generic).

/// Number of set bits.
///
/// GPU: `popc.b32` (SASS `POPC`). CPU: `popcnt` where the target has it.
#[inline(always)]
pub fn popc(x: u32) -> u32 {
    x.count_ones()
}

/// Index of the highest set bit, or `None` for zero ("find some set bit").
///
/// Computed as `31 - clz(x)`: GPU `clz.b32` + `sub` (SASS `FLO`), which is cheaper than `ffs`
/// (`brev` + `clz`) for visiting the bits of a mask from the top.
#[inline(always)]
pub fn highest_set_bit(x: u32) -> Option<u32> {
    if x == 0 {
        None
    } else {
        Some(31 - x.leading_zeros())
    }
}

/// The lowest set bit as a one-bit mask (`x & -x`); zero for zero.
///
/// GPU: `neg.s32` + `and.b32` (ptxas may fuse into one `LOP3`). The idiom that walks the
/// candidate squares of a bitmap search in increasing order.
#[inline(always)]
pub fn lowest_bit(x: u32) -> u32 {
    x & x.wrapping_neg()
}

/// Bits in reverse order (bit 0 ↔ bit 31).
///
/// GPU: `brev.b32` (SASS `BREV`). CPU: a shuffle-and-mask sequence LLVM emits for `bitreverse`.
#[inline(always)]
pub fn bit_reverse(x: u32) -> u32 {
    x.reverse_bits()
}

/// Any function of three inputs, bit by bit, given by its 8-entry truth table `LUT`.
///
/// `LUT` is indexed by `4·a + 2·b + c` of each bit position, the convention of PTX's
/// `lop3.b32 d, a, b, c, LUT` where `a`, `b`, `c` stand for `0xF0`, `0xCC`, `0xAA`: so the
/// table of an expression is that expression evaluated on those three constants
/// (`a & b | c` → `0xF0 & 0xCC | 0xAA = 0xEA`).
///
/// GPU: one `lop3.b32` with an immediate table (SASS `LOP3.LUT`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn lop3<const LUT: u8>(a: u32, b: u32, c: u32) -> u32 {
    let d: u32;
    // SAFETY: `lop3.b32` reads three registers and writes one; no memory, no side effects.
    unsafe {
        core::arch::asm!(
            "lop3.b32 {d}, {a}, {b}, {c}, {lut};",
            d = out(reg32) d,
            a = in(reg32) a,
            b = in(reg32) b,
            c = in(reg32) c,
            lut = const LUT,
            options(pure, nomem, nostack)
        );
    }
    d
}

/// CPU twin of the GPU `lop3`: the sum of the minterms selected by `LUT`.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lop3<const LUT: u8>(a: u32, b: u32, c: u32) -> u32 {
    let mut d = 0;
    let mut index = 0;
    while index < 8 {
        if LUT & (1 << index) != 0 {
            let sa = if index & 4 != 0 { a } else { !a };
            let sb = if index & 2 != 0 { b } else { !b };
            let sc = if index & 1 != 0 { c } else { !c };
            d |= sa & sb & sc;
        }
        index += 1;
    }
    d
}

/// Truth table of bitwise majority: a bit is set where at least two of the inputs have it.
pub const MAJ3: u8 = 0xE8;
/// Truth table of three-way exclusive or.
pub const XOR3: u8 = 0x96;
/// Truth table of three-way or.
pub const OR3: u8 = 0xFE;
/// Truth table of three-way nor: set where none of the inputs is.
pub const NOR3: u8 = 0x01;

/// Bitwise majority of three words: `(a & b) | (a & c) | (b & c)`. One `LOP3` on the GPU.
#[inline(always)]
pub fn maj3(a: u32, b: u32, c: u32) -> u32 {
    lop3::<MAJ3>(a, b, c)
}

/// Three-way exclusive or `a ^ b ^ c`. One `LOP3` on the GPU.
#[inline(always)]
pub fn xor3(a: u32, b: u32, c: u32) -> u32 {
    lop3::<XOR3>(a, b, c)
}

/// Three-way or `a | b | c`. One `LOP3` on the GPU, where the compiler may otherwise spend two
/// on it when one of the inputs is shared with another expression.
#[inline(always)]
pub fn or3(a: u32, b: u32, c: u32) -> u32 {
    lop3::<OR3>(a, b, c)
}

/// Three-way nor `!(a | b | c)`: the squares none of three attack masks covers. One `LOP3` on
/// the GPU.
#[inline(always)]
pub fn nor3(a: u32, b: u32, c: u32) -> u32 {
    lop3::<NOR3>(a, b, c)
}

/// The lowest set bit of `x` as a one-bit mask, and `x` without it: `(x & −x, x & (x − 1))`.
///
/// GPU: the rest first, by `add` and `and` (one `LOP3`, which also tells whether the rest is
/// zero, so a search's "was that the last candidate" test costs nothing), then the bit as
/// `x − rest` (`IMAD.IADD`, on the multiply pipe).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn split_lowest(x: u32) -> (u32, u32) {
    let rest = x & x.wrapping_sub(1);
    (x - rest, rest)
}

/// CPU twin of the GPU `split_lowest`: the usual order, the bit first (`blsi` where the
/// target has BMI1) and the rest by a subtraction; the x86 counter, short of registers, was
/// a few per cent slower with the GPU's order in the runs of 2026-11-24 (N = 16, one core).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn split_lowest(x: u32) -> (u32, u32) {
    let bit = lowest_bit(x);
    (bit, x - bit)
}

/// `sum + value` when `condition` holds, else `sum`.
///
/// GPU: `setp` and a predicated `@p add.u32` (SASS: the test, usually fused into the
/// instruction that made its input, and an `IADD` on the multiply pipe), not the `SEL` of a
/// select on the integer pipe that ptxas makes of `sum + if condition { value } else { 0 }`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn add_if(sum: u32, value: u32, condition: bool) -> u32 {
    let mut sum = sum;
    // SAFETY: register arithmetic only; no memory, no side effects.
    unsafe {
        core::arch::asm!(
            "{{",
            ".reg .pred p;",
            "setp.ne.u32 p, {c}, 0;",
            "@p add.u32 {s}, {s}, {v};",
            "}}",
            s = inout(reg32) sum,
            v = in(reg32) value,
            c = in(reg32) condition as u32,
            options(pure, nomem, nostack)
        );
    }
    sum
}

/// CPU twin of the GPU `add_if`: a plain conditional add.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn add_if(sum: u32, value: u32, condition: bool) -> u32 {
    sum + if condition { value } else { 0 }
}

/// `(x & 3, x >> 2)`: a 2-bit field and the fields above it.
///
/// GPU: `shr` for the rest, then the field as `x − 4·rest` by `mad.lo` (SASS `IMAD`, on the
/// multiply pipe) rather than an `and` (`LOP3`, on the integer pipe, which the N-Queens
/// counter's step fills first). In `asm!`, so that LLVM does not fold it back into the `and`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn low2_and_rest(x: u32) -> (u32, u32) {
    let (low, rest): (u32, u32);
    // SAFETY: register arithmetic only; no memory, no side effects.
    unsafe {
        core::arch::asm!(
            "shr.u32 {r}, {x}, 2;",
            "mad.lo.u32 {l}, {r}, -4, {x};",
            l = out(reg32) low,
            r = out(reg32) rest,
            x = in(reg32) x,
            options(pure, nomem, nostack)
        );
    }
    (low, rest)
}

/// CPU twin of the GPU `low2_and_rest`: a mask and a shift.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn low2_and_rest(x: u32) -> (u32, u32) {
    (x & 3, x >> 2)
}

/// Thirty-two small counters, one per bit position, kept *bit-sliced*: plane `k` holds bit
/// `k` of every position's count, so adding one to the positions of a mask is a ripple of
/// `and`/`xor` through the planes (two instructions a plane, no per-bit loop). Counts wrap at
/// 64; the board searches add at most one a point, and boards of up to 32×32 with an unknown
/// cell hold fewer than 64 points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlicedCounts {
    planes: [u32; 6],
}

impl SlicedCounts {
    /// The counters whose plane `k` is `planes[k]`.
    #[inline(always)]
    pub fn from_planes(planes: [u32; 6]) -> SlicedCounts {
        SlicedCounts { planes }
    }

    /// Adds one to the count of every position set in `mask`.
    ///
    /// GPU: six `and` + `xor` pairs (ptxas fuses each into a `LOP3`); the array stays in
    /// registers, as every index is a constant once the loop is unrolled.
    #[inline(always)]
    pub fn add(&mut self, mask: u32) {
        let mut carry = mask;
        for plane in &mut self.planes {
            let next = *plane & carry;
            *plane ^= carry;
            carry = next;
        }
    }

    /// The count at bit position `position` (0..32).
    #[inline(always)]
    pub fn get(&self, position: u32) -> u32 {
        let mut count = 0;
        for (k, plane) in self.planes.iter().enumerate() {
            count |= (plane >> position & 1) << k;
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lop3_reference(lut: u8, a: u32, b: u32, c: u32) -> u32 {
        (0..32).fold(0, |d, i| {
            let index = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
            d | (((lut as u32) >> index) & 1) << i
        })
    }

    proptest! {
        #[test]
        fn popc_counts_bits(x: u32) {
            prop_assert_eq!(popc(x), (0..32).filter(|i| x >> i & 1 == 1).count() as u32);
        }

        #[test]
        fn split_lowest_gives_the_lowest_bit_and_the_rest(x: u32) {
            let (bit, rest) = split_lowest(x);
            prop_assert_eq!(bit, if x == 0 { 0 } else { 1 << x.trailing_zeros() });
            prop_assert_eq!(bit | rest, x);
            prop_assert_eq!(bit & rest, 0);
        }

        #[test]
        fn add_if_adds_only_when_asked(sum in 0u32..1 << 31, value in 0u32..1 << 31, condition: bool) {
            prop_assert_eq!(add_if(sum, value, condition), if condition { sum + value } else { sum });
        }

        #[test]
        fn low2_and_rest_splits_off_the_low_field(x: u32) {
            let (low, rest) = low2_and_rest(x);
            prop_assert!(low < 4);
            prop_assert_eq!(rest * 4 + low, x);
        }

        #[test]
        fn highest_set_bit_is_top_bit(x: u32) {
            let reference = (0..32).rev().find(|i| x >> i & 1 == 1);
            prop_assert_eq!(highest_set_bit(x), reference);
        }

        #[test]
        fn sliced_counts_count_each_position(masks in proptest::collection::vec(any::<u32>(), 0..64)) {
            let mut counts = SlicedCounts::default();
            masks.iter().for_each(|&m| counts.add(m));
            for position in 0..32 {
                let expected = masks.iter().filter(|&&m| m >> position & 1 == 1).count() as u32;
                prop_assert_eq!(counts.get(position), expected % 64);
            }
        }

        #[test]
        fn lowest_bit_is_bottom_bit(x: u32) {
            let reference = (0..32).find(|i| x >> i & 1 == 1).map_or(0, |i| 1u32 << i);
            prop_assert_eq!(lowest_bit(x), reference);
        }

        #[test]
        fn bit_reverse_mirrors(x: u32) {
            let reference = (0..32).fold(0u32, |r, i| r | ((x >> i) & 1) << (31 - i));
            prop_assert_eq!(bit_reverse(x), reference);
        }

        #[test]
        fn lop3_matches_truth_table(a: u32, b: u32, c: u32) {
            prop_assert_eq!(maj3(a, b, c), lop3_reference(MAJ3, a, b, c));
            prop_assert_eq!(xor3(a, b, c), lop3_reference(XOR3, a, b, c));
            prop_assert_eq!(or3(a, b, c), a | b | c);
            prop_assert_eq!(nor3(a, b, c), !(a | b | c));
            prop_assert_eq!(lop3::<0x1E>(a, b, c), lop3_reference(0x1E, a, b, c));
            prop_assert_eq!(lop3::<0x00>(a, b, c), 0);
            prop_assert_eq!(lop3::<0xFF>(a, b, c), u32::MAX);
            prop_assert_eq!(lop3::<0xF0>(a, b, c), a);
            prop_assert_eq!(lop3::<0xEA>(a, b, c), a & b | c);
        }
    }

    #[test]
    fn maj3_is_majority() {
        for (a, b, c) in [
            (0, 0, 0),
            (u32::MAX, 0, 0),
            (u32::MAX, u32::MAX, 0),
            (0xF0F0, 0xFF00, 0x0FF0),
        ] {
            assert_eq!(maj3(a, b, c), (a & b) | (a & c) | (b & c));
        }
    }
}
