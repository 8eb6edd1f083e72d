//! Predicting a count before running it: count a growing, nested sample of its chunks on the
//! devices that would run it, then scale. What `--estimate` prints.
//!
//! The sample is shard `2/M` of the partition — the chunks `1, 1 + M, 1 + 2M, …`, a
//! systematic sample across the whole work list (chunk 0, which also carries the host's own
//! share of the count, is left out) — for `M` = the largest power of two not above the number
//! of chunks, then `M/2`, `M/4`, … until a sample takes a third of the time budget. Each
//! sample contains the one before, so the chunks it adds are a disjoint sample of their own:
//! the spread of those increments' scaled node counts gives the range. The time is fitted as
//! `fixed + nodes × seconds-a-node` through the first and the last sample, which calibrates
//! both the device's rate on this work and the cost of a launch, on the machine that will run
//! it.

use crate::error::{Error, Result};
use crate::shard::Shard;
use serde::Serialize;

/// What counting a sample of the chunks predicts of the whole count.
#[derive(Clone, Debug, Serialize)]
pub struct Prediction {
    /// Chunks of the whole count.
    pub chunks: u32,
    /// Chunks counted in the largest sample.
    pub sample_chunks: u32,
    /// Seconds the sampling took (every sample, and making the work list).
    pub sample_seconds: f64,
    /// Predicted nodes of the whole count.
    pub nodes: f64,
    /// Low end of the nodes' 95 % range.
    pub nodes_low: f64,
    /// High end of the nodes' 95 % range.
    pub nodes_high: f64,
    /// Predicted seconds of the whole count on these devices (the work list included).
    pub seconds: f64,
    /// Seconds at `nodes_low`.
    pub seconds_low: f64,
    /// Seconds at `nodes_high`.
    pub seconds_high: f64,
}

/// One counted sample: its chunks, nodes and seconds.
#[derive(Clone, Copy, Debug)]
struct Sample {
    chunks: u32,
    nodes: u64,
    seconds: f64,
}

/// What making the work list took, a part of every run: its seconds, and the nodes the host
/// searched to make it (which no chunk holds).
#[derive(Clone, Copy, Debug, Default)]
pub struct Setup {
    /// Seconds.
    pub seconds: f64,
    /// Nodes.
    pub nodes: u64,
}

/// Fewest chunks a count must have to be estimated from a sample of them.
pub const MIN_CHUNKS: u32 = 16;

/// Predicts a count of `chunks` chunks by counting samples of them with `count(shard)`
/// (returning the shard's nodes and seconds) until one takes `budget / 3` seconds.
pub fn predict(
    chunks: u32,
    budget: f64,
    setup: Setup,
    mut count: impl FnMut(Shard) -> Result<(u64, f64)>,
) -> Result<Prediction> {
    if chunks < MIN_CHUNKS {
        return Err(Error::InvalidArgument(format!(
            "this count is too small to estimate ({chunks} chunks, fewer than {MIN_CHUNKS}): run it, it takes a moment"
        )));
    }
    let started = std::time::Instant::now();
    let mut every = 1u32 << (31 - chunks.leading_zeros());
    let mut samples: Vec<Sample> = Vec::new();
    loop {
        let shard = Shard::new(2, every)?;
        let (nodes, seconds) = count(shard)?;
        samples.push(Sample {
            chunks: shard.chunks(chunks).count() as u32,
            nodes,
            seconds,
        });
        if seconds >= budget / 3.0 || every == 2 {
            break;
        }
        every /= 2;
    }
    Ok(scale(
        chunks,
        &samples,
        setup.seconds + started.elapsed().as_secs_f64(),
        setup,
    ))
}

/// The prediction from nested samples (each containing the one before).
fn scale(chunks: u32, samples: &[Sample], sample_seconds: f64, setup: Setup) -> Prediction {
    let last = samples[samples.len() - 1];
    let nodes = last.nodes as f64 * chunks as f64 / last.chunks as f64;
    // The increments: disjoint samples, each scaled to the whole.
    let mut increments = Vec::new();
    let mut before = Sample {
        chunks: 0,
        nodes: 0,
        seconds: 0.0,
    };
    for sample in samples {
        let added = sample.chunks - before.chunks;
        if added > 0 {
            let scaled =
                sample.nodes.saturating_sub(before.nodes) as f64 * chunks as f64 / added as f64;
            increments.push((added as f64, scaled));
        }
        before = *sample;
    }
    // A sandwich standard error of the chunk-weighted mean of the increments' estimates.
    let weight: f64 = increments.iter().map(|(w, _)| w).sum();
    let spread: f64 = increments
        .iter()
        .map(|(w, e)| (w * (e - nodes)).powi(2))
        .sum::<f64>()
        .sqrt()
        / weight;
    let (nodes_low, nodes_high) = ((nodes - 2.0 * spread).max(0.0), nodes + 2.0 * spread);
    // Seconds = fixed + nodes × rate, through the first and the last sample: the first (one
    // chunk or a few) is mostly the launch's fixed cost, the last mostly work, so the line
    // through them is the least sensitive to the noise of either.
    let first = samples[0];
    let (fixed, rate) = if last.nodes > first.nodes && last.seconds > first.seconds {
        let rate = (last.seconds - first.seconds) / (last.nodes - first.nodes) as f64;
        let fixed = first.seconds - rate * first.nodes as f64;
        if fixed >= 0.0 {
            (fixed, rate)
        } else {
            (0.0, last.seconds / last.nodes as f64)
        }
    } else {
        (0.0, last.seconds / last.nodes.max(1) as f64)
    };
    let time = |nodes: f64| setup.seconds + fixed + rate * nodes;
    let host = setup.nodes as f64;
    Prediction {
        chunks,
        sample_chunks: last.chunks,
        sample_seconds,
        nodes: host + nodes,
        nodes_low: host + nodes_low,
        nodes_high: host + nodes_high,
        seconds: time(nodes),
        seconds_low: time(nodes_low),
        seconds_high: time(nodes_high),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A count whose chunk `c` has `1000 + 10·(c mod 7)` nodes, at a million nodes a second
    /// plus 0.05 s a launch.
    fn synthetic(shard: Shard) -> Result<(u64, f64)> {
        let nodes: u64 = shard.chunks(256).map(|c| 1000 + 10 * (c as u64 % 7)).sum();
        Ok((nodes, 0.05 + nodes as f64 * 1e-6))
    }

    #[test]
    fn a_prediction_scales_the_sample_and_separates_launch_cost_from_rate() {
        let whole: u64 = (0..256).map(|c| 1000 + 10 * (c % 7)).sum();
        let setup = Setup {
            seconds: 0.5,
            nodes: 7,
        };
        let p = predict(256, 0.3, setup, synthetic).unwrap();
        let whole = whole + 7;
        assert!((p.nodes / whole as f64 - 1.0).abs() < 0.01, "{p:?}");
        assert!(
            p.nodes_low <= whole as f64 && whole as f64 <= p.nodes_high,
            "{p:?}"
        );
        let seconds = 0.5 + 0.05 + whole as f64 * 1e-6;
        assert!((p.seconds / seconds - 1.0).abs() < 0.01, "{p:?}");
        // A third of the 0.3 s budget is 0.1 s: 64 chunks (0.05 + 0.066 s) are enough.
        assert_eq!(p.sample_chunks, 64);
    }

    #[test]
    fn uneven_chunks_widen_the_range() {
        let lumpy = |shard: Shard| -> Result<(u64, f64)> {
            let nodes: u64 = shard
                .chunks(256)
                .map(|c| if c % 16 == 1 { 100_000 } else { 10 })
                .sum();
            Ok((nodes, nodes as f64 * 1e-6))
        };
        let p = predict(256, 1e9, Setup::default(), lumpy).unwrap();
        let even = predict(256, 1e9, Setup::default(), synthetic).unwrap();
        assert!(
            (p.nodes_high - p.nodes_low) / p.nodes
                > (even.nodes_high - even.nodes_low) / even.nodes,
            "{p:?} {even:?}"
        );
    }

    #[test]
    fn too_few_chunks_is_an_error_not_a_guess() {
        assert!(predict(MIN_CHUNKS - 1, 1.0, Setup::default(), synthetic).is_err());
    }
}
