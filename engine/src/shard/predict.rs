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
    /// Whether the sample's levels agree on the time a node ([`STEADY`]): the fit through
    /// the first and the last level, and through the first and the one before the last, lie
    /// within that much of each other. When they do not, the small levels' time is mostly that
    /// of their longest units (a GPU that a few chunks cannot keep busy to the end), and the
    /// predicted seconds are not to be trusted: a longer estimate samples larger levels.
    pub steady: bool,
}

/// How far apart the time a node fitted through the first and the last level, and through the
/// first and the one before it, may lie for a prediction to be [`Prediction::steady`].
/// nqueens-simple N = 21 on 2× H200, sampled for 6 s (7 chunks), predicted 97.6 s for a count
/// of 55.0 s: its first two levels took 0.97 and 0.89 s for 1.6 and 2.1·10¹¹ nodes.
pub const STEADY: f64 = 0.25;

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
            steady: calibration.steady,
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
    // The same fit without the last level: the levels agree when it gives about the same rate.
    let slope = |a: &Sample, b: &Sample| {
        (b.nodes > a.nodes).then(|| (b.seconds - a.seconds) / (b.nodes - a.nodes) as f64)
    };
    let steady = match levels {
        [first, .., before, last] if levels.len() >= 3 => {
            match (slope(first, before), slope(first, last)) {
                (Some(before), Some(last)) if before > 0.0 && last > 0.0 => {
                    (before / last - 1.0).abs() <= STEADY
                }
                _ => false,
            }
        }
        _ => false,
    };
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
        steady,
    }
}

/// The estimate a long run prints as its first line: the CLI's counts and every search run
/// through [`crate::kit`] decide alike when to estimate first and what to print.
pub mod preview {
    use super::Prediction;
    use crate::device::backend::Backend;
    use crate::error::{Error, Result};

    /// A run whose rough guess ([`rough_seconds`]) is below this many seconds runs without a
    /// preview: the guess errs high for the devices it knows, so that slower ones still get
    /// their estimate.
    pub const FROM_GUESS: f64 = 20.0;
    /// A preview is printed when the estimate says the run takes more than this many seconds.
    pub const ABOVE: f64 = 60.0;
    /// Seconds a preview's estimate aims at (a sample counts at least seven chunks whatever
    /// this says).
    pub const BUDGET: f64 = 2.0;

    /// A guess, from no work at all, of the seconds `nodes` nodes take on `backend`: `per_gpu`
    /// nodes a second on each GPU, `per_thread` on each CPU thread. It only decides whether
    /// to estimate before the run; what is printed is the estimate.
    pub fn rough_seconds(nodes: f64, backend: &Backend, per_gpu: f64, per_thread: f64) -> f64 {
        match backend {
            Backend::Gpu(gpus) => nodes / (per_gpu * gpus.len() as f64),
            Backend::Cpu(pool) => nodes / (per_thread * pool.current_num_threads() as f64),
        }
    }

    /// The first line of a run of `what` whose rough guess is `guess` seconds, of which this
    /// run does the share `share` (a shard: 1/M): when `guess · share` reaches
    /// [`FROM_GUESS`], runs `estimate(BUDGET)` and, when that says more than [`ABOVE`]
    /// seconds for this run, returns the line to print. `None` otherwise, and when the run is
    /// too small to estimate. Only a stop (`Error::Interrupted`) is an error.
    pub fn first_line(
        what: &str,
        guess: f64,
        share: f64,
        backend: &Backend,
        estimate: impl FnOnce(f64) -> Result<Prediction>,
    ) -> Result<Option<String>> {
        if guess * share < FROM_GUESS {
            return Ok(None);
        }
        let mut prediction = match estimate(BUDGET) {
            Ok(prediction) => prediction,
            Err(Error::Interrupted) => return Err(Error::Interrupted),
            // A run too small to estimate is too small to need it.
            Err(_) => return Ok(None),
        };
        if prediction.seconds * share <= ABOVE {
            return Ok(None);
        }
        for value in [
            &mut prediction.seconds,
            &mut prediction.seconds_low,
            &mut prediction.seconds_high,
        ] {
            *value *= share;
        }
        Ok(Some(line(what, &prediction, backend)))
    }

    /// "`what`: expected to take about 5.3 min on … (95 %: … – …), about … nodes; estimated
    /// in … s".
    pub fn line(what: &str, prediction: &Prediction, backend: &Backend) -> String {
        format!(
            "{what}: expected to take about {} on {} (95 %: {} – {}{}), about {:.3e} nodes; estimated in {}",
            duration(prediction.seconds),
            backend.describe(),
            duration(prediction.seconds_low),
            duration(prediction.seconds_high),
            if prediction.steady {
                String::new()
            } else {
                format!("; {UNSTEADY}")
            },
            prediction.nodes,
            seconds(prediction.sample_seconds)
        )
    }

    /// What follows a predicted time that is not [`Prediction::steady`].
    pub const UNSTEADY: &str = "its sample's levels disagree on the time a node, so this time is rough: a longer --estimate says more";

    /// A duration for a prediction: seconds below two minutes, then minutes, hours or days.
    pub fn duration(value: f64) -> String {
        match value {
            v if v < 120.0 => seconds(v),
            v if v < 7200.0 => format!("{:.1} min", v / 60.0),
            v if v < 172_800.0 => format!("{:.1} h", v / 3600.0),
            v => format!("{:.1} days", v / 86_400.0),
        }
    }

    /// Seconds with three decimals, or three significant digits below 0.1 s.
    pub fn seconds(value: f64) -> String {
        if value >= 0.1 || value == 0.0 {
            format!("{value:.3} s")
        } else {
            let digits = (2 - value.log10().floor() as i32).clamp(3, 9) as usize;
            format!("{value:.digits$} s")
        }
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
        assert!(p.steady, "{p:?}");
    }

    #[test]
    fn levels_slowed_by_their_longest_units_are_not_steady() {
        // The levels of nqueens-simple N = 21 on 2× H200: 1 chunk 0.97 s, 2 chunks 0.89 s,
        // 4 chunks 2.17 s — mostly the time of each level's longest units, not of its nodes.
        let tail = |shard: Shard| -> Result<(u128, f64)> {
            let chunks = shard.chunks(256).count();
            let seconds = match chunks {
                1 => 0.97,
                2 => 0.89,
                _ => 0.54 * chunks as f64,
            };
            Ok((1.6e11 as u128 * chunks as u128, seconds))
        };
        let p = predict(256, 2.0, Setup::default(), tail).unwrap();
        assert_eq!(p.samples.len(), 3);
        assert!(!p.steady, "{p:?}");
        let backend = crate::device::backend::Backend::Cpu(
            crate::device::backend::cpu_pool(Some(1)).unwrap(),
        );
        let line = preview::line("x", &p, &backend);
        assert!(
            line.contains("(95 %: ") && line.contains("; its sample's levels disagree"),
            "{line}"
        );
        assert!(!preview::UNSTEADY.starts_with(';'));
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

    fn sampled(seconds: f64) -> Result<Prediction> {
        let mut p = predict(
            256,
            0.3,
            Setup {
                seconds: 0.0,
                nodes: 0,
            },
            synthetic,
        )?;
        let scale = seconds / p.seconds;
        for value in [&mut p.seconds, &mut p.seconds_low, &mut p.seconds_high] {
            *value *= scale;
        }
        Ok(p)
    }

    #[test]
    fn a_preview_estimates_only_runs_that_may_be_long_and_prints_only_long_ones() {
        let backend = crate::device::backend::Backend::Cpu(
            crate::device::backend::cpu_pool(Some(1)).unwrap(),
        );
        let never = |_: f64| -> Result<Prediction> { panic!("estimated a short run") };
        assert_eq!(
            preview::first_line("x", 5.0, 1.0, &backend, never).unwrap(),
            None
        );
        // A guess of 100 s of which a shard does a tenth is a 10-s run: no estimate.
        assert_eq!(
            preview::first_line("x", 100.0, 0.1, &backend, never).unwrap(),
            None
        );
        assert_eq!(
            preview::first_line("x", 100.0, 1.0, &backend, |_| sampled(30.0)).unwrap(),
            None
        );
        let line = preview::first_line("costas 17", 100.0, 1.0, &backend, |budget| {
            assert_eq!(budget, preview::BUDGET);
            sampled(600.0)
        })
        .unwrap()
        .unwrap();
        assert!(
            line.starts_with("costas 17: expected to take about 10.0 min on CPU, 1 thread"),
            "{line}"
        );
        // A shard's line is its share of the whole.
        let line = preview::first_line("x", 1e4, 0.5, &backend, |_| sampled(600.0))
            .unwrap()
            .unwrap();
        assert!(line.contains("about 5.0 min"), "{line}");
        // Too small to estimate: nothing; a stop: the stop.
        let small = |_: f64| -> Result<Prediction> { Err(Error::InvalidArgument("small".into())) };
        assert_eq!(
            preview::first_line("x", 100.0, 1.0, &backend, small).unwrap(),
            None
        );
        let stop = |_: f64| -> Result<Prediction> { Err(Error::Interrupted) };
        assert!(matches!(
            preview::first_line("x", 100.0, 1.0, &backend, stop),
            Err(Error::Interrupted)
        ));
    }

    #[test]
    fn durations_read_in_the_unit_that_fits() {
        assert_eq!(preview::duration(59.5), "59.500 s");
        assert_eq!(preview::duration(600.0), "10.0 min");
        assert_eq!(preview::duration(3.0 * 3600.0), "3.0 h");
        assert_eq!(preview::duration(3.0 * 86_400.0), "3.0 days");
        assert_eq!(preview::seconds(0.0123), "0.0123 s");
    }
}
