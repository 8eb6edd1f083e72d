//! Predicting a count before running it: count a growing, stratified sample of its chunks on
//! the devices that would run it, then scale. What `--estimate` prints.
//!
//! The chunks of a work list are not alike: its order follows the search's structure, so a
//! chunk taken from one end can be several times the average. The sample therefore grows in
//! levels spread over the whole list, each disjoint from the ones before: with `M` the largest
//! power of two not above the number of chunks, level 0 is chunk `M/2` (shard `M/2 + 1` of
//! `M`), level 1 the chunks `M/4` and `3M/4`, level 2 the odd multiples of `M/8`, … — after
//! `L` levels every multiple of `M/2^L` but 0 (chunk 0 also carries the host's own share of
//! the count, which the work list already knows). Levels are added until the sampling has
//! taken half the time budget, and at least three (seven chunks). How finely the caller cuts
//! its work list is a trade: fine chunks spread the sample over more of the list (better
//! nodes), coarse ones keep each level's launch large enough to fill the GPU (better time). Each level is a sample of
//! its own: the spread of their scaled node counts gives the range. The time is fitted as
//! `fixed + nodes × seconds-a-node` through the first and the last level, which calibrates
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
    /// Chunks counted, in all levels.
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
    /// Every level counted, first first: `[chunks, nodes, seconds]` (disjoint samples).
    pub samples: Vec<(u32, u128, f64)>,
    /// How the nodes were predicted: `"sample"` (counted chunks of the work list, scaled) or
    /// `"probes"` (Knuth's random probes of every start of the work list, for counts whose
    /// chunks are too large to count in the budget; the time per node is then calibrated on
    /// a smaller size, [`Prediction::calibrated_on`]).
    pub method: &'static str,
    /// The fitted seconds a node on these devices.
    pub seconds_per_node: f64,
    /// The fitted fixed cost of a launch (seconds).
    pub fixed_seconds: f64,
    /// With `"probes"`: the size whose counted sample gave the seconds a node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated_on: Option<u32>,
}

/// How far the time per node of a size may lie from that of the size it is calibrated on, in
/// a [`Prediction::from_probes`]: N-Queens on one H100 ran 5.27, 5.33 and 5.28·10¹¹ nodes/s at
/// N = 21, 22 and 23 (1 %), 4.85·10¹¹ at N = 20 (8 % below); docs/BENCHMARKS.md.
pub const RATE_DRIFT: f64 = 0.10;

impl Prediction {
    /// The prediction of a count whose nodes come from random probes — `nodes` with the
    /// standard error `error` — and whose time per node is `calibration`'s (a sampled
    /// prediction of size `calibrated_on` on the same devices). `setup` is what making this
    /// size's work list took; `sample_seconds` everything the prediction took. The time range
    /// adds [`RATE_DRIFT`] to the nodes' range.
    pub fn from_probes(
        chunks: u32,
        (nodes, error): (f64, f64),
        setup: Setup,
        calibration: &Prediction,
        calibrated_on: u32,
        sample_seconds: f64,
    ) -> Prediction {
        let (nodes_low, nodes_high) = ((nodes - 2.0 * error).max(0.0), nodes + 2.0 * error);
        let time = |nodes: f64| {
            setup.seconds + calibration.fixed_seconds + calibration.seconds_per_node * nodes
        };
        Prediction {
            chunks,
            sample_chunks: calibration.sample_chunks,
            sample_seconds,
            nodes,
            nodes_low,
            nodes_high,
            seconds: time(nodes),
            seconds_low: time(nodes_low) * (1.0 - RATE_DRIFT),
            seconds_high: time(nodes_high) * (1.0 + RATE_DRIFT),
            samples: calibration.samples.clone(),
            method: "probes",
            seconds_per_node: calibration.seconds_per_node,
            fixed_seconds: calibration.fixed_seconds,
            calibrated_on: Some(calibrated_on),
        }
    }
}

/// One counted level: its chunks, nodes and seconds.
#[derive(Clone, Copy, Debug)]
struct Sample {
    chunks: u32,
    nodes: u128,
    seconds: f64,
}

/// What making the work list took, a part of every run: its seconds, and the nodes the host
/// searched to make it (which no chunk holds).
#[derive(Clone, Copy, Debug, Default)]
pub struct Setup {
    /// Seconds.
    pub seconds: f64,
    /// Nodes.
    pub nodes: u128,
}

/// Fewest chunks a count must have to be estimated from a sample of them.
pub const MIN_CHUNKS: u32 = 16;

/// Fewest levels a prediction counts (1 + 2 + 4 = 7 chunks), whatever the budget: fewer
/// leave no spread to judge the range by.
pub const MIN_LEVELS: usize = 3;

/// The share of a count's time that the fewest levels of its sample take ([`MIN_LEVELS`]
/// levels of a list of `chunks` chunks: 7 of 256), to judge whether a sample fits a budget.
pub fn smallest_sample(chunks: u32) -> f64 {
    let top = 1u32 << (31 - chunks.max(1).leading_zeros());
    let sampled = (1u32 << MIN_LEVELS) - 1;
    f64::from(sampled.min(top)) / f64::from(chunks.max(1))
}

/// Predicts a count of `chunks` chunks by counting levels of samples of them with
/// `count(shard)` (returning the shard's nodes and seconds) until they have taken
/// `budget / 2` seconds (and at least [`MIN_LEVELS`] levels).
pub fn predict(
    chunks: u32,
    budget: f64,
    setup: Setup,
    mut count: impl FnMut(Shard) -> Result<(u128, f64)>,
) -> Result<Prediction> {
    if chunks < MIN_CHUNKS {
        return Err(Error::InvalidArgument(format!(
            "this count is too small to estimate ({chunks} chunks, fewer than {MIN_CHUNKS}): run it, it takes a moment"
        )));
    }
    let started = std::time::Instant::now();
    let top = 1u32 << (31 - chunks.leading_zeros());
    let mut levels: Vec<Sample> = Vec::new();
    let mut stride = top;
    while stride >= 2 {
        // The odd multiples of stride / 2: shard stride/2 + 1 of stride.
        let shard = Shard::new(stride / 2 + 1, stride)?;
        let (nodes, seconds) = count(shard)?;
        levels.push(Sample {
            chunks: shard.chunks(chunks).count() as u32,
            nodes,
            seconds,
        });
        let spent: f64 = levels.iter().map(|level| level.seconds).sum();
        if levels.len() >= MIN_LEVELS && spent >= budget / 2.0 {
            break;
        }
        stride /= 2;
    }
    Ok(scale(
        chunks,
        &levels,
        setup.seconds + started.elapsed().as_secs_f64(),
        setup,
    ))
}

/// The prediction from disjoint levels of samples.
fn scale(chunks: u32, levels: &[Sample], sample_seconds: f64, setup: Setup) -> Prediction {
    let sampled: u32 = levels.iter().map(|level| level.chunks).sum();
    let sampled_nodes: u128 = levels.iter().map(|level| level.nodes).sum();
    let per_chunk = |nodes: u128, count: u32| nodes as f64 * chunks as f64 / count as f64;
    let nodes = per_chunk(sampled_nodes, sampled);
    // A sandwich standard error of the chunk-weighted mean of the levels' estimates.
    let spread = levels
        .iter()
        .map(|level| (level.chunks as f64 * (per_chunk(level.nodes, level.chunks) - nodes)).powi(2))
        .sum::<f64>()
        .sqrt()
        / sampled as f64;
    let (nodes_low, nodes_high) = ((nodes - 2.0 * spread).max(0.0), nodes + 2.0 * spread);
    // Seconds = fixed + nodes × rate, through the first and the last level: the first (one
    // chunk) is mostly the launch's fixed cost, the last mostly work, so the line through them
    // is the least sensitive to the noise of either.
    let (first, last) = (levels[0], levels[levels.len() - 1]);
    let (fixed, rate) = if last.nodes > first.nodes && last.seconds > first.seconds {
        let rate = (last.seconds - first.seconds) / (last.nodes - first.nodes) as f64;
        let fixed = first.seconds - rate * first.nodes as f64;
        if fixed >= 0.0 {
            (fixed, rate)
        } else {
            (0.0, last.seconds / last.nodes as f64)
        }
    } else {
        let seconds: f64 = levels.iter().map(|level| level.seconds).sum();
        (0.0, seconds / sampled_nodes.max(1) as f64)
    };
    let time = |nodes: f64| setup.seconds + fixed + rate * nodes;
    let host = setup.nodes as f64;
    Prediction {
        chunks,
        sample_chunks: sampled,
        sample_seconds,
        nodes: host + nodes,
        nodes_low: host + nodes_low,
        nodes_high: host + nodes_high,
        seconds: time(nodes),
        seconds_low: time(nodes_low),
        seconds_high: time(nodes_high),
        samples: levels
            .iter()
            .map(|level| (level.chunks, level.nodes, level.seconds))
            .collect(),
        method: "sample",
        seconds_per_node: rate,
        fixed_seconds: fixed,
        calibrated_on: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A count whose chunk `c` has `1000 + 10·(c mod 7)` nodes, at a million nodes a second
    /// plus 0.05 s a launch.
    fn synthetic(shard: Shard) -> Result<(u128, f64)> {
        let nodes: u128 = shard.chunks(256).map(|c| 1000 + 10 * (c as u128 % 7)).sum();
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
        // Half the 0.3 s budget is 0.15 s: the three levels of 1, 2 and 4 chunks take 0.157 s.
        assert_eq!(p.sample_chunks, 7);
        assert_eq!(p.samples.len(), 3);
    }

    #[test]
    fn uneven_chunks_widen_the_range() {
        let lumpy = |shard: Shard| -> Result<(u128, f64)> {
            let nodes: u128 = shard
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
