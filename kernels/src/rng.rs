//! A counter-based random number generator for kernels: SplitMix64.
//!
//! The state is a 64-bit counter advanced by the golden-ratio increment and each output is a
//! mix of the counter, so a stream keyed by `(seed, index)` is reproducible and independent of
//! how searches are spread over threads — the same search gets the same numbers on the GPU and
//! on the CPU. (cuRAND is not available to Rust kernels, and this needs no state beyond one
//! register pair.)

/// SplitMix64 (Steele, Lea, Flood 2014), keyed by a seed and a stream index.
#[derive(Clone, Copy, Debug)]
pub struct SplitMix64 {
    state: u64,
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

impl SplitMix64 {
    /// The stream number `stream` of the generator seeded with `seed`.
    #[inline(always)]
    pub fn new(seed: u64, stream: u64) -> SplitMix64 {
        let mut keyed = SplitMix64 {
            state: seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03),
        };
        // One round so that neighbouring streams do not start from neighbouring states.
        keyed.state = keyed.next_u64();
        keyed
    }

    /// The next 64 random bits.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound > 0`), by multiply-high (bias below 2⁻³² for small bounds).
    #[inline(always)]
    pub fn below(&mut self, bound: u32) -> u32 {
        (((self.next_u64() >> 32) * bound as u64) >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_output_of_seed_zero_matches_the_reference() {
        // Reference value of SplitMix64 from state 0: 0xE220A8397B1DCDAF.
        let mut raw = SplitMix64 { state: 0 };
        assert_eq!(raw.next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = SplitMix64::new(7, 3);
        let mut seen = [false; 10];
        for _ in 0..1000 {
            let x = rng.below(10);
            assert!(x < 10);
            seen[x as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
