//! `warpsearch no3line`: configurations by class, sharded runs, CPU/GPU cross-checks.

use crate::cli::commands::{
    SplitPlan, check_estimate, preview, print_device_shares, print_prediction, rough_seconds,
};
use crate::cli::output::*;
use crate::cli::*;

pub(crate) fn run_no3line_shard(args: No3lineArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    use warpsearch::no3line;
    let mut plan = SplitPlan::new(&args.split)?;
    let selected = select(&args.common)?;
    let control = control(&args.common, cancel);
    if !plan.resumes() {
        no3line_preview(&args, &selected.backend, &control, plan.share())?;
    }
    let outcome = no3line::enumerate_shard(
        args.n,
        &selected.backend,
        &control,
        plan.shard,
        plan.checkpoint.as_ref(),
    );
    let (result, value) = plan.finish(outcome)?;
    if plan.shard == warpsearch::shard::Shard::WHOLE {
        let mut counts = result
            .counts
            .counts(args.n, selected.backend.kind(), result.seconds);
        counts.devices = result.per_device;
        let code = print_no3line_counts(&counts, args.common.json)?;
        plan.write_result(&value)?;
        return Ok(code);
    }
    let code = plan.report(
        &format!("no-three-in-line n={}", args.n),
        &value,
        args.common.json,
    )?;
    plan.write_result(&value)?;
    Ok(code)
}

/// The estimate a search expected to take more than a minute prints first ([`preview`]), for
/// the share `share` of the search this run does.
fn no3line_preview(
    args: &No3lineArgs,
    backend: &warpsearch::Backend,
    control: &RunControl,
    share: f64,
) -> Result<(), Error> {
    // n = 16 searches 1.24·10¹¹ nodes, each size ≈ 9 times more; an H100 searches
    // 2.9·10⁸ nodes a second, a CPU thread ≈ 3.5·10⁵ (docs/BENCHMARKS.md).
    let nodes = 1.24e11 * 9f64.powi(args.n as i32 - 16);
    preview(
        &format!("no-three-in-line n={}", args.n),
        rough_seconds(nodes, backend, 2.9e8, 3.5e5),
        share,
        args.no_estimate,
        args.common.json,
        backend,
        |budget| warpsearch::no3line::estimate(args.n, backend, control, budget),
    )
}

pub(crate) fn run_no3line(args: No3lineArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    use warpsearch::no3line;
    no3line::validate(args.n)?;
    if let Some(budget) = args.estimate {
        check_estimate(budget, &args.split)?;
        let selected = select(&args.common)?;
        let control = control(&args.common, cancel);
        let prediction = no3line::estimate(args.n, &selected.backend, &control, budget)?;
        let what = format!("no-three-in-line n={}", args.n);
        return print_prediction(&what, &prediction, &selected.backend, args.common.json);
    }
    if args.split.wanted() {
        if args.out.is_some() || args.svg.is_some() || args.cross_check.is_some() {
            return Err(Error::InvalidArgument(
                "--shard/--result/--checkpoint count classes only; they do not combine with --out, --svg or --cross-check".into(),
            ));
        }
        return run_no3line_shard(args, cancel);
    }
    let io = |path: &std::path::Path| {
        let path = path.display().to_string();
        move |source| Error::Io {
            path: path.clone(),
            source,
        }
    };
    // Fail on unwritable outputs before the search, not after it.
    let out = args.out.as_deref().map(AtomicOut::create).transpose()?;
    if let Some(dir) = &args.svg {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let probe = dir.join(".warpsearch-write-test");
        std::fs::write(&probe, b"").map_err(io(dir))?;
        std::fs::remove_file(&probe).map_err(io(dir))?;
    }
    if let Some(part) = &args.cross_check {
        let part = no3line::Part::parse(part)?;
        let options = no3line::Options {
            backend: BackendChoice::Gpu,
            threads: args.common.threads,
            devices: args.common.devices.first_only(),
            control: control(&args.common, cancel),
        };
        let checked = no3line::cross_check_part(args.n, &options, part)?;
        if args.common.json {
            let value =
                serde_json::to_value(&checked).map_err(|e| Error::Verification(e.to_string()))?;
            out!("{value}");
        } else {
            let which = if checked.part == no3line::Part::WHOLE {
                "all".to_string()
            } else {
                format!("part {}/{}:", checked.part.index, checked.part.of)
            };
            out!(
                "no-three-in-line n={}: CPU and GPU agree on {which} {} subtrees{} ({} nodes, {} boards)",
                checked.n,
                group(checked.subtrees as u64),
                if checked.dived {
                    ", each dived deep"
                } else {
                    ""
                },
                group(checked.nodes),
                group(checked.boards as u64)
            );
        }
        return Ok(0);
    }
    let selected = select(&args.common)?;
    let control = control(&args.common, cancel);
    no3line_preview(&args, &selected.backend, &control, 1.0)?;
    let representatives = std::sync::Mutex::new(Vec::new());
    let keep = args.out.is_some() || args.svg.is_some();
    let counts = no3line::enumerate_part(
        args.n,
        &selected.backend,
        &control,
        no3line::Part::WHOLE,
        |rows| {
            if keep
                && no3line::classify(rows).is_ok_and(|(canonical, _)| canonical)
                && let Ok(mut list) = representatives.lock()
            {
                list.push(rows.to_vec());
            }
        },
    )?;
    let mut representatives = representatives.into_inner().unwrap_or_default();
    representatives.sort();
    if let Some(mut file) = out {
        for rows in &representatives {
            file.line(format_args!("{}", no3line::format_line(rows)))?;
        }
        file.commit()?;
    }
    if let Some(dir) = &args.svg {
        for (i, rows) in representatives.iter().enumerate() {
            let path = dir.join(format!("no3line-{}-{:05}.svg", args.n, i + 1));
            std::fs::write(&path, no3line::svg(rows)?).map_err(io(&path))?;
        }
    }
    print_no3line_counts(&counts, args.common.json)
}

/// Prints a no-three-in-line count (text or JSON); exit status 1 when it does not match the
/// known values.
pub(crate) fn print_no3line_counts(
    counts: &warpsearch::no3line::Counts,
    json: bool,
) -> Result<i32, Error> {
    if json {
        let mut value =
            serde_json::to_value(counts).map_err(|e| Error::Verification(e.to_string()))?;
        value["nodes_per_second"] =
            serde_json::json!((counts.nodes as f64 / counts.seconds.max(1e-9)).round());
        out!("{value}");
    } else {
        let c = &counts.classes;
        out!(
            "no-three-in-line n={}: {}, {} up to symmetry",
            counts.n,
            plural(counts.total, "configuration"),
            group(counts.inequivalent)
        );
        out!(
            "  classes: iden {} dia1 {} ort1 {} rot2 {} dia2 {} rot4 {} ort2 {} full {}",
            c.iden,
            c.dia1,
            c.ort1,
            c.rot2,
            c.dia2,
            c.rot4,
            c.ort2,
            c.full
        );
        out!(
            "  backend {} · {} · {} nodes · {}",
            counts.backend,
            seconds(counts.seconds),
            group(counts.nodes),
            per_second(counts.nodes as f64 / counts.seconds.max(1e-9), "nodes")
        );
        print_device_shares(&counts.devices, "subtrees")?;
        out!(
            "  {}",
            match counts.known_match {
                Some(true) => "matches the known values",
                Some(false) => "DOES NOT MATCH the known values: please report this",
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
