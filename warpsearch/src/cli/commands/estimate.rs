//! `--estimate` of `nqueens` and `no3line`: what a count will take, before running it.

use crate::cli::output::*;
use crate::cli::*;
use warpsearch::predict::Prediction;

/// `--estimate=SECONDS` wants a positive budget and no shard flags (it predicts a whole run).
pub(crate) fn check_estimate(budget: f64, split: &SplitArgs) -> Result<(), Error> {
    if !(budget > 0.0 && budget.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "--estimate=SECONDS wants a positive number of seconds; got {budget}"
        )));
    }
    if split.wanted() {
        return Err(Error::InvalidArgument(
            "--estimate predicts the whole count; it does not combine with --shard, --result or --checkpoint".into(),
        ));
    }
    Ok(())
}

/// "3.2·10¹⁴"-style numbers are hard to type; this prints "3.20e14".
fn approx(value: f64) -> String {
    format!("{value:.3e}")
}

/// A duration for a prediction: seconds below two minutes, then minutes, hours or days.
fn duration(value: f64) -> String {
    match value {
        v if v < 120.0 => seconds(v),
        v if v < 7200.0 => format!("{:.1} min", v / 60.0),
        v if v < 172_800.0 => format!("{:.1} h", v / 3600.0),
        v => format!("{:.1} days", v / 86_400.0),
    }
}

/// Prints a prediction (text or JSON, with the backend it is calibrated on); exit status 0.
pub(crate) fn print_prediction(
    what: &str,
    prediction: &Prediction,
    backend: &warpsearch::Backend,
    json: bool,
) -> Result<i32, Error> {
    if json {
        let mut value =
            serde_json::to_value(prediction).map_err(|e| Error::Verification(e.to_string()))?;
        value["estimate"] = serde_json::json!(true);
        value["backend"] = serde_json::json!(backend.describe());
        out!("{value}");
        return Ok(0);
    }
    out!(
        "{what}: about {} nodes (95 %: {} – {}), about {} on {} ({} – {})",
        approx(prediction.nodes),
        approx(prediction.nodes_low),
        approx(prediction.nodes_high),
        duration(prediction.seconds),
        backend.describe(),
        duration(prediction.seconds_low),
        duration(prediction.seconds_high),
    );
    out!("  {}", how_predicted(prediction));
    Ok(0)
}

/// The line that says how a prediction was made.
fn how_predicted(prediction: &Prediction) -> String {
    match prediction.calibrated_on {
        Some(size) => format!(
            "nodes from random probes of every start of its work list; time per node from counting {} of the {} chunks of size {size} there ({} in all)",
            prediction.sample_chunks,
            prediction.chunks,
            seconds(prediction.sample_seconds)
        ),
        None => format!(
            "from counting {} of its {} chunks there ({} in all, the work list included)",
            prediction.sample_chunks,
            prediction.chunks,
            seconds(prediction.sample_seconds)
        ),
    }
}

/// The one line a long count prints first: what it expects to take.
fn preview_line(what: &str, prediction: &Prediction, backend: &warpsearch::Backend) -> String {
    format!(
        "{what}: expected to take about {} on {} (95 %: {} – {}), about {} nodes; estimated in {}",
        duration(prediction.seconds),
        backend.describe(),
        duration(prediction.seconds_low),
        duration(prediction.seconds_high),
        approx(prediction.nodes),
        seconds(prediction.sample_seconds)
    )
}

/// A count whose rough guess ([`rough_seconds`]) is below this is run without a preview: the
/// guess errs high for the GPUs it knows, so that slower ones still get their estimate.
const PREVIEW_FROM_GUESS: f64 = 20.0;
/// A preview is printed when the estimate says the run takes more than this.
const PREVIEW_ABOVE: f64 = 60.0;
/// Seconds a preview's estimate aims at (it counts at least seven chunks whatever this says).
const PREVIEW_BUDGET: f64 = 2.0;

/// A guess, from no work at all, of the seconds a count of `nodes` nodes takes on `backend`:
/// `per_gpu` nodes a second on each GPU (an H100's), `per_thread` on each CPU thread. It only
/// decides whether to estimate before the count; what is printed is the estimate.
pub(crate) fn rough_seconds(
    nodes: f64,
    backend: &warpsearch::Backend,
    per_gpu: f64,
    per_thread: f64,
) -> f64 {
    match backend {
        warpsearch::Backend::Gpu(gpus) => nodes / (per_gpu * gpus.len() as f64),
        warpsearch::Backend::Cpu(pool) => nodes / (per_thread * pool.current_num_threads() as f64),
    }
}

/// Before a count that may take more than a minute (its `guess`, [`rough_seconds`]): estimates
/// it with `estimate(budget)` and, when that says more than a minute, prints the estimate as
/// the first line (on stdout; on stderr with `--json`, whose stdout is one object). `share` is
/// the share of the count this run does (a shard: 1/M). Nothing when `skip` (`--no-estimate`)
/// or when the run resumes a checkpoint.
pub(crate) fn preview(
    what: &str,
    guess: f64,
    share: f64,
    skip: bool,
    json: bool,
    backend: &warpsearch::Backend,
    estimate: impl FnOnce(f64) -> Result<Prediction, Error>,
) -> Result<(), Error> {
    if skip || guess * share < PREVIEW_FROM_GUESS {
        return Ok(());
    }
    let mut prediction = match estimate(PREVIEW_BUDGET) {
        Ok(prediction) => prediction,
        Err(Error::Interrupted) => return Err(Error::Interrupted),
        // A count too small to estimate is too small to need it.
        Err(_) => return Ok(()),
    };
    if prediction.seconds * share <= PREVIEW_ABOVE {
        return Ok(());
    }
    for value in [
        &mut prediction.seconds,
        &mut prediction.seconds_low,
        &mut prediction.seconds_high,
    ] {
        *value *= share;
    }
    let line = preview_line(what, &prediction, backend);
    if json {
        note!("{line}");
    } else {
        out!("{line}");
    }
    Ok(())
}
