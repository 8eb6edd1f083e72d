//! `warpsearch nqueens`: counts (whole or sharded) and one solution.

use crate::cli::commands::{SplitPlan, check_estimate, preview, print_prediction, rough_seconds};
use crate::cli::output::*;
use crate::cli::*;

pub(crate) fn run_nqueens(args: NqueensArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    if args.one {
        return run_find_one(args, cancel);
    }
    nqueens::validate(args.n)?;
    if let Some(budget) = args.estimate {
        check_estimate(budget, &args.split)?;
        let selected = select(&args.common)?;
        let control = control(&args.common, cancel);
        let prediction = nqueens::estimate(args.n, &selected.backend, &control, budget)?;
        let what = format!("{}-queens", args.n);
        return print_prediction(&what, &prediction, &selected.backend, args.common.json);
    }
    if args.split.wanted() {
        return run_nqueens_shard(args, cancel);
    }
    let selected = select(&args.common)?;
    let control = control(&args.common, cancel);
    nqueens_preview(&args, &selected.backend, &control, 1.0)?;
    let counts = nqueens::count_on(args.n, &selected.backend, &control)?;
    print_nqueens_counts(&counts, args.common.json)
}

/// The estimate a count expected to take more than a minute prints first ([`preview`]), for
/// the share `share` of the count this run does.
fn nqueens_preview(
    args: &NqueensArgs,
    backend: &warpsearch::Backend,
    control: &RunControl,
    share: f64,
) -> Result<(), Error> {
    // N = 20 searches 3.98·10¹¹ nodes, each size ≈ 8.5 times more; an H100 counts
    // 5·10¹¹ nodes a second, a CPU thread ≈ 8·10⁷ (docs/BENCHMARKS.md).
    let nodes = 3.98e11 * 8.5f64.powi(args.n as i32 - 20);
    preview(
        &format!("{}-queens", args.n),
        rough_seconds(nodes, backend, 5e11, 8e7),
        share,
        args.no_estimate,
        args.common.json,
        backend,
        |budget| nqueens::estimate(args.n, backend, control, budget),
    )
}

/// Prints a count (text or JSON); exit status 1 when it does not match the known values.
pub(crate) fn print_nqueens_counts(counts: &nqueens::Counts, json: bool) -> Result<i32, Error> {
    let rate = counts.nodes as f64 / counts.seconds.max(1e-9);
    if json {
        let mut value =
            serde_json::to_value(counts).map_err(|e| Error::Verification(e.to_string()))?;
        value["nodes_per_second"] = serde_json::json!(rate.round());
        out!("{value}");
    } else {
        out!(
            "{}-queens: {}, {} unique",
            counts.n,
            plural(counts.total, "solution"),
            group(counts.unique)
        );
        out!(
            "  backend {} · {} · {} nodes · {}",
            counts.backend,
            seconds(counts.seconds),
            group(counts.nodes),
            per_second(rate, "nodes")
        );
        print_device_shares(&counts.devices, "jobs")?;
        out!(
            "  {}",
            match counts.known_match {
                Some(true) => "matches the known values (OEIS A000170, A002562)",
                Some(false) =>
                    "DOES NOT MATCH the known values (OEIS A000170, A002562): please report this",
                None => "no known value to check against",
            }
        );
    }
    Ok(if counts.known_match == Some(false) {
        1
    } else {
        0
    })
}

/// One line per GPU of a run spread over several (a one-GPU run needs none).
pub(crate) fn print_device_shares(
    shares: &[warpsearch::shard::DeviceShare],
    units: &str,
) -> Result<(), Error> {
    if shares.len() < 2 {
        return Ok(());
    }
    for share in shares {
        out!(
            "  {}: {} chunks, {} {units}, {} nodes, busy {}",
            share.device,
            share.chunks,
            group(share.units),
            group(share.nodes),
            seconds(share.seconds)
        );
    }
    Ok(())
}

pub(crate) fn run_nqueens_shard(args: NqueensArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    let mut plan = SplitPlan::new(&args.split)?;
    let selected = select(&args.common)?;
    let control = control(&args.common, cancel);
    if !plan.resumes() {
        nqueens_preview(&args, &selected.backend, &control, plan.share())?;
    }
    let outcome = nqueens::count_shard(
        args.n,
        &selected.backend,
        &control,
        plan.shard,
        plan.checkpoint.as_ref(),
    );
    let (result, value) = plan.finish(outcome)?;
    if plan.shard == warpsearch::shard::Shard::WHOLE {
        // One shard is the whole search: report it as a whole run.
        let mut counts = result
            .counts
            .counts(args.n, selected.backend.kind(), result.seconds);
        counts.devices = result.per_device;
        let code = print_nqueens_counts(&counts, args.common.json)?;
        plan.write_result(&value)?;
        return Ok(code);
    }
    let code = plan.report(&format!("{}-queens", args.n), &value, args.common.json)?;
    plan.write_result(&value)?;
    Ok(code)
}

pub(crate) fn run_find_one(args: NqueensArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    nqueens::check_n(args.n, args.method)?;
    let options = FindOptions {
        method: args.method,
        backend: args.common.backend,
        threads: args.common.threads,
        seed: args.seed,
        limit: args.limit,
        control: control(&args.common, cancel),
    };
    nqueens::find::check_options(args.n, &options)?;
    // Fail on an unwritable --out before the search, not after it.
    let mut out = args.out.as_deref().map(AtomicOut::create).transpose()?;
    let backend = if args.method == Method::RandomDfs {
        let selected = select_one(&args.common)?;
        Some(selected.backend)
    } else {
        None
    };
    let started = std::time::Instant::now();
    let columns = match &backend {
        Some(backend) => nqueens::find::find_one_on(args.n, backend, &options)?,
        None => nqueens::find_one(args.n, &options)?,
    };
    let seconds = started.elapsed().as_secs_f64();
    let backend_name = backend.as_ref().map_or("cpu", |b| b.kind());
    if let Some(mut file) = out.take() {
        for column in &columns {
            file.line(format_args!("{column}"))?;
        }
        file.commit()?;
    }
    if args.common.json {
        let mut value = serde_json::json!({
            "n": args.n, "method": nqueens::method_name(args.method), "backend": backend_name,
            "seconds": seconds, "verified": true,
        });
        if args.print {
            value["columns"] = serde_json::json!(columns);
        }
        out!("{value}");
    } else {
        out!(
            "{}-queens: found one solution with {} on the {backend_name} in {seconds:.3} s, verified (rows, columns, both diagonals)",
            args.n,
            nqueens::method_name(args.method)
        );
        if args.print {
            if args.n <= 64 {
                for &column in &columns {
                    let row: String = (0..args.n)
                        .map(|c| if c == column { " Q" } else { " ." })
                        .collect();
                    out!("{row}");
                }
            } else {
                note!("(--print draws boards up to N = 64; use --out or --json for the columns)");
            }
        }
        if let Some(path) = &args.out {
            out!("columns written to {}", path.display());
        }
    }
    Ok(0)
}
