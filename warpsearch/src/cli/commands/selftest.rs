//! `warpsearch selftest`: every warp primitive against a scalar reference.

use crate::cli::*;

pub(crate) fn run_selftest(args: SelftestArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    let selected = select_one(&args.common)?;
    let report = selftest::run(&selected.backend, args.warps, args.seed)?;
    if cancel.load(Ordering::SeqCst) {
        return Err(Error::Interrupted);
    }
    if args.common.json {
        let value = serde_json::json!({ "passed": report.passed(), "report": report });
        out!("{value}");
    } else {
        out!(
            "selftest on {} ({} warps, seed {})",
            report.backend,
            report.warps,
            args.seed
        );
        for check in &report.checks {
            match &check.first_mismatch {
                None => out!("  ok    {}", check.name),
                Some(first) => out!(
                    "  FAIL  {} ({} lanes differ; first: {first})",
                    check.name,
                    check.mismatches
                ),
            }
        }
        let failed = report.checks.iter().filter(|c| c.mismatches > 0).count();
        out!("{} passed, {failed} failed", report.checks.len() - failed);
    }
    Ok(if report.passed() { 0 } else { 1 })
}
