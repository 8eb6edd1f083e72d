//! `--estimate` of `nqueens` and `no3line`: what a count will take, before running it.

use crate::cli::output::*;
use crate::cli::*;
use warpsearch::predict::Prediction;
pub(crate) use warpsearch::predict::preview::rough_seconds;
use warpsearch::predict::preview::{self, duration};

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
    if !prediction.steady {
        out!("  {}", warpsearch::predict::preview::UNSTEADY);
    }
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

/// Before a count that may take more than a minute (its `guess`, [`rough_seconds`]): prints
/// the estimate as the first line when it says more than a minute
/// ([`warpsearch::predict::preview::first_line`]; on stdout, on stderr with `--json`, whose
/// stdout is one object). `share` is the share of the count this run does (a shard: 1/M).
/// Nothing when `skip` (`--no-estimate`) or when the run resumes a checkpoint.
pub(crate) fn preview(
    what: &str,
    guess: f64,
    share: f64,
    skip: bool,
    json: bool,
    backend: &warpsearch::Backend,
    estimate: impl FnOnce(f64) -> Result<Prediction, Error>,
) -> Result<(), Error> {
    if skip {
        return Ok(());
    }
    if let Some(line) = preview::first_line(what, guess, share, backend, estimate)? {
        if json {
            note!("{line}");
        } else {
            out!("{line}");
        }
    }
    Ok(())
}
