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
    out!(
        "  from counting {} of its {} chunks there ({} in all, the work list included)",
        prediction.sample_chunks,
        prediction.chunks,
        seconds(prediction.sample_seconds)
    );
    Ok(0)
}
