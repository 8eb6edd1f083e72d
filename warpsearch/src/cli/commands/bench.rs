//! `warpsearch bench`: the timing tables of docs/BENCHMARKS.md.

use crate::cli::*;

pub(crate) fn run_bench(args: BenchArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    if let BenchProblem::RandomDfs = args.problem {
        if args.from.is_some() || args.to.is_some() {
            return Err(Error::InvalidArgument(
                "bench random-dfs times fixed cases (N = 40 and 100, Hennum's Table 1); --from/--to do not apply".into(),
            ));
        }
        return run_bench_random_dfs(args);
    }
    if let BenchProblem::Warp = args.problem {
        return run_bench_warp(args);
    }
    if let BenchProblem::Vcf = args.problem {
        return run_bench_vcf(args, cancel);
    }
    if let BenchProblem::Brain = args.problem {
        return run_bench_brain(args, cancel);
    }
    let (from, to) = (args.from.unwrap_or(8), args.to.unwrap_or(16));
    if from > to || args.repeat == 0 {
        return Err(Error::InvalidArgument(
            "need --from ≤ --to and --repeat ≥ 1".into(),
        ));
    }
    if let BenchProblem::No3line = args.problem {
        return run_bench_no3line(args, from, to, cancel);
    }
    nqueens::validate(from)?;
    nqueens::validate(to)?;
    let selected = select(&args.common)?;
    let control = RunControl::default().with_cancel(cancel);
    // Warm-up: the first launch pays for lazy driver set-up.
    nqueens::count_on(10, &selected.backend, &control)?;
    let mut rows = Vec::new();
    if !args.common.json {
        out!(
            "{:>3} {:>20} {:>19} {:>7} {:>10} {:>20} {:>14} {:>5}",
            "N",
            "total",
            "unique",
            "backend",
            "seconds",
            "nodes",
            "nodes/s",
            "known"
        );
    }
    let mut status = 0;
    for n in from..=to {
        let mut runs = Vec::new();
        for _ in 0..args.repeat {
            runs.push(nqueens::count_on(n, &selected.backend, &control)?);
        }
        let mut seconds: Vec<f64> = runs.iter().map(|c| c.seconds).collect();
        seconds.sort_by(f64::total_cmp);
        let median = seconds[seconds.len() / 2];
        let counts = &runs[0];
        if runs
            .iter()
            .any(|c| (c.total, c.unique) != (counts.total, counts.unique))
            || counts.known_match == Some(false)
        {
            status = 1;
        }
        let rate = counts.nodes as f64 / median.max(1e-9);
        let known = match counts.known_match {
            Some(true) => "ok",
            Some(false) => "WRONG",
            None => "-",
        };
        if !args.common.json {
            out!(
                "{:>3} {:>20} {:>19} {:>7} {:>10.4} {:>20} {:>14.3e} {:>5}",
                n,
                counts.total,
                counts.unique,
                counts.backend,
                median,
                counts.nodes,
                rate,
                known
            );
        }
        rows.push(serde_json::json!({
            "n": n, "total": counts.total, "unique": counts.unique, "backend": counts.backend,
            "seconds": median, "all_seconds": seconds, "nodes": counts.nodes, "nodes_per_second": rate.round(),
            "known_match": counts.known_match,
        }));
    }
    if args.common.json {
        out!(
            "{}",
            serde_json::json!({ "backend": selected.backend.describe(), "results": rows })
        );
    } else {
        out!("# {}", selected.backend.describe());
    }
    Ok(status)
}

/// Hennum's Table 1 on our hardware: the same cases on the GPU (when there is one), one CPU
/// core and all cores; the median of `--repeat` runs, each a fresh family of searches.
pub(crate) fn run_bench_no3line(
    args: BenchArgs,
    from: u32,
    to: u32,
    cancel: Arc<AtomicBool>,
) -> Result<i32, Error> {
    use warpsearch::no3line;
    no3line::validate(from)?;
    no3line::validate(to)?;
    let selected = select(&args.common)?;
    let control = RunControl::default().with_cancel(cancel);
    // Warm-up: the first launch pays for lazy driver set-up.
    no3line::enumerate_on(6, &selected.backend, &control, |_| {})?;
    if !args.common.json {
        out!(
            "{:>3} {:>9} {:>12} {:>7} {:>10} {:>16} {:>12} {:>5}",
            "n",
            "total",
            "inequivalent",
            "backend",
            "seconds",
            "nodes",
            "nodes/s",
            "known"
        );
    }
    let mut rows = Vec::new();
    let mut status = 0;
    for n in from..=to {
        let mut runs = Vec::new();
        for _ in 0..args.repeat {
            runs.push(no3line::enumerate_on(
                n,
                &selected.backend,
                &control,
                |_| {},
            )?);
        }
        let mut seconds: Vec<f64> = runs.iter().map(|c| c.seconds).collect();
        seconds.sort_by(f64::total_cmp);
        let median = seconds[seconds.len() / 2];
        let counts = &runs[0];
        if runs.iter().any(|c| c.classes != counts.classes) || counts.known_match == Some(false) {
            status = 1;
        }
        let rate = counts.nodes as f64 / median.max(1e-9);
        let known = match counts.known_match {
            Some(true) => "ok",
            Some(false) => "WRONG",
            None => "-",
        };
        if !args.common.json {
            out!(
                "{:>3} {:>9} {:>12} {:>7} {:>10.4} {:>16} {:>12.3e} {:>5}",
                n,
                counts.total,
                counts.inequivalent,
                counts.backend,
                median,
                counts.nodes,
                rate,
                known
            );
        }
        rows.push(serde_json::json!({
            "n": n, "total": counts.total, "inequivalent": counts.inequivalent,
            "classes": counts.classes, "backend": counts.backend, "seconds": median,
            "all_seconds": seconds, "nodes": counts.nodes, "nodes_per_second": rate.round(),
            "known_match": counts.known_match,
        }));
    }
    if args.common.json {
        out!(
            "{}",
            serde_json::json!({ "backend": selected.backend.describe(), "results": rows })
        );
    } else {
        out!("# {}", selected.backend.describe());
    }
    Ok(status)
}

pub(crate) fn run_bench_random_dfs(args: BenchArgs) -> Result<i32, Error> {
    let mut backends = Vec::new();
    if args.common.backend != BackendChoice::Cpu {
        match warpsearch::gpu::GpuDevice::open() {
            Ok(device) => backends.push((
                "gpu",
                warpsearch::Backend::Gpu(warpsearch::gpu::Gpus::one(device)),
            )),
            Err(e) if args.common.backend == BackendChoice::Gpu => return Err(e.into()),
            Err(e) => note!("no GPU column ({e})"),
        }
    }
    backends.push((
        "cpu-1",
        warpsearch::Backend::Cpu(backend::cpu_pool(Some(1))?),
    ));
    let all = backend::cpu_pool(args.common.threads)?;
    let label: &'static str =
        Box::leak(format!("cpu-{}", all.current_num_threads()).into_boxed_str());
    backends.push((label, warpsearch::Backend::Cpu(all)));
    let limit = nqueens::find::DEFAULT_LIMIT;
    let mut rows = Vec::new();
    if !args.common.json {
        out!(
            "{:>4} {:>9} {:>8} {:>12} {:>10} {:>10} {:>14}",
            "N",
            "searches",
            "backend",
            "shape",
            "seconds",
            "solutions",
            "placed"
        );
    }
    let mut status = 0;
    for (n, searches) in [(40u32, 2048u32), (100, 16384)] {
        // Per backend, (solutions, placed) of each seed: every backend runs the same searches,
        // so they must agree exactly.
        let mut outcomes: Vec<Vec<(u32, u64)>> = Vec::new();
        for (name, backend) in &backends {
            // Warm-up (module load, first launch), then the median of the runs.
            nqueens::random_dfs_batch(n, backend, 0, 0, searches.min(256), limit)?;
            let mut runs = Vec::new();
            for repeat in 0..args.repeat {
                runs.push(nqueens::random_dfs_batch(
                    n,
                    backend,
                    1 + repeat as u64,
                    0,
                    searches,
                    limit,
                )?);
            }
            outcomes.push(runs.iter().map(|r| (r.solutions, r.placed)).collect());
            // Solutions and queens placed of the first family (seed 1), the same searches on
            // every backend, so the rows compare; the time is the median over the families.
            let (solutions, placed) = (runs[0].solutions, runs[0].placed);
            runs.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
            let median = &runs[runs.len() / 2];
            if !args.common.json {
                out!(
                    "{:>4} {:>9} {:>8} {:>12} {:>10.4} {:>10} {:>14}",
                    n,
                    searches,
                    name,
                    median.shape,
                    median.seconds,
                    solutions,
                    placed
                );
            }
            rows.push(serde_json::json!({
                "n": n, "searches": searches, "backend": name, "seconds": median.seconds,
                "shape": median.shape, "seed": 1, "solutions": solutions, "placed": placed,
            }));
        }
        if outcomes.windows(2).any(|pair| pair[0] != pair[1]) {
            note!("error: the backends disagree on the same searches at N = {n}: {outcomes:?}");
            status = 1;
        }
    }
    if args.common.json {
        out!(
            "{}",
            serde_json::json!({ "limit": limit, "results": rows, "backends_agree": status == 0 })
        );
    }
    Ok(status)
}

/// `bench warp`: each warp reduction as the shuffle tree and as `redux.sync`.
pub(crate) fn run_bench_warp(args: BenchArgs) -> Result<i32, Error> {
    if args.from.is_some() || args.to.is_some() {
        return Err(Error::InvalidArgument(
            "bench warp times fixed chains of reductions; --from/--to do not apply".into(),
        ));
    }
    if args.common.backend == BackendChoice::Cpu || args.repeat == 0 {
        return Err(Error::InvalidArgument(
            "bench warp times GPU instructions: it needs the GPU (--backend auto or gpu) and --repeat ≥ 1".into(),
        ));
    }
    let device = warpsearch::gpu::GpuDevice::open()?;
    let timings = warpsearch::selftest::time_reductions(&device, args.repeat)?;
    let scopes = warpsearch::selftest::time_scopes(&device, args.repeat)?;
    let loads = warpsearch::selftest::time_loads(&device, args.repeat)?;
    if args.common.json {
        let value = serde_json::json!({
            "device": device.describe(),
            "reductions": timings,
            "scopes": scopes,
            "loads": loads,
        });
        out!("{value}");
        return Ok(0);
    }
    out!(
        "{} (median of {} launches each)",
        device.describe(),
        args.repeat
    );
    out!(
        "{:>9} {:>12} {:>12} {:>9} {:>16} {:>16}",
        "reduction",
        "tree ns",
        "redux ns",
        "speed-up",
        "tree /s",
        "redux /s"
    );
    for t in &timings {
        out!(
            "{:>9} {:>12.2} {:>12.2} {:>8.2}× {:>16.3e} {:>16.3e}",
            t.reduction,
            t.tree_ns,
            t.redux_ns,
            t.tree_ns / t.redux_ns,
            t.tree_per_second,
            t.redux_per_second
        );
    }
    out!(
        "ns: one round of a warp's chain of dependent reductions (latency); /s: reductions per second over the whole GPU"
    );
    out!("");
    out!(
        "{:>14} {:>10} {:>10} {:>10}",
        "memory scope",
        ".cta ns",
        ".gpu ns",
        ".sys ns"
    );
    for row in scopes.chunks(3) {
        out!(
            "{:>14} {:>10.1} {:>10.1} {:>10.1}",
            row[0].operation,
            row[0].ns,
            row[1].ns,
            row[2].ns
        );
    }
    out!(
        "ns: one round of a thread's chain on its own word, every thread of the GPU at once (a store is relaxed .gpu before the fence)"
    );
    out!("");
    out!(
        "{:>7} {:>17} {:>12}",
        "stride",
        "sectors a warp",
        "useful GB/s"
    );
    for t in &loads {
        out!(
            "{:>7} {:>17} {:>12.1}",
            t.stride,
            t.sectors_per_request,
            t.useful_gb_per_second
        );
    }
    out!(
        "a warp's 32 loads of 4-byte words, neighbouring lanes `stride` words apart, from a 512 MiB buffer; useful: the bytes asked for"
    );
    Ok(0)
}

/// `bench vcf`: random positions solved by the single-position solver on one thread, and as
/// a batch on one thread, every thread and the GPU; the batch's answers must agree everywhere.
fn run_bench_vcf(args: BenchArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    use gomoku::{batch::Batch, vcf};
    if args.from.is_some() || args.to.is_some() {
        return Err(Error::InvalidArgument(
            "bench vcf draws its own positions (--repeat × 10,000); --from/--to do not apply"
                .into(),
        ));
    }
    let rule = Rule::Freestyle;
    gomoku::table::Table::get(rule);
    let mut random = kernels::rng::SplitMix64::new(2026, 32);
    // Positions without a four on the board for either side: each needs a search, not a look.
    let wanted = args.repeat.max(1) as usize * 10_000;
    let mut positions: Vec<(Board, Color)> = Vec::with_capacity(wanted);
    while positions.len() < wanted {
        let stones = 12 + random.below(25) as usize;
        let board = vcf::random_position(rule, &mut random, stones);
        if board.both_threats().iter().all(|t| t.five_count() == 0) {
            let side = vcf::side_to_move(&board);
            positions.push((board, side));
        }
    }
    let limits = vcf::Limits::default();
    let control = RunControl::quiet().with_cancel(cancel.clone());
    let mut rows = Vec::new();
    let row = |what: String, seconds: f64, nodes: u64, wins: usize| {
        serde_json::json!({"what": what, "positions": positions.len(), "with_vcf": wins,
            "seconds": seconds, "positions_per_second": positions.len() as f64 / seconds,
            "nodes": nodes, "nodes_per_second": nodes as f64 / seconds})
    };
    // The single-position solver (transposition table, move ordering) on one thread.
    let started = std::time::Instant::now();
    let (mut nodes, mut wins) = (0, 0);
    for (board, side) in &positions {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let report =
            vcf::search(board, *side, limits).map_err(|e| Error::Verification(e.to_string()))?;
        nodes += report.nodes;
        wins += usize::from(matches!(report.verdict, vcf::Verdict::Win(_)));
    }
    rows.push(row(
        "solver, 1 CPU thread".into(),
        started.elapsed().as_secs_f64(),
        nodes,
        wins,
    ));
    let batch = Batch::new(rule, &positions, limits.depth, limits.nodes);
    let mut backends = vec![
        warpsearch::Backend::Cpu(backend::cpu_pool(Some(1))?),
        warpsearch::Backend::Cpu(backend::cpu_pool(args.common.threads)?),
    ];
    let selected = select(&args.common)?;
    if let warpsearch::Backend::Gpu(_) = selected.backend {
        backends.push(selected.backend);
    }
    let mut first: Option<Vec<gomoku::batch::Answer>> = None;
    for backend in &backends {
        // A first, untimed solve of a few positions loads the kernel and the table.
        let warm = Batch::new(rule, &positions[..64], limits.depth, limits.nodes);
        warm.solve(backend, &control)?;
        let started = std::time::Instant::now();
        let answers = batch.solve(backend, &control)?;
        let seconds = started.elapsed().as_secs_f64();
        if let Some(first) = &first
            && *first != answers
        {
            return Err(Error::Verification(format!(
                "bench vcf: the batch on {} gave other answers than on one CPU thread",
                backend.describe()
            )));
        }
        let nodes = answers.iter().map(|a| a.nodes).sum();
        let wins = answers.iter().filter(|a| a.verdict == "vcf").count();
        rows.push(row(
            format!("batch, {}", backend.describe()),
            seconds,
            nodes,
            wins,
        ));
        first = Some(answers);
    }
    if args.common.json {
        out!(
            "{}",
            serde_json::json!({"bench": "vcf", "rule": rule, "rows": rows})
        );
    } else {
        out!(
            "{:<44} {:>9} {:>9} {:>9} {:>13} {:>11} {:>10}",
            "",
            "positions",
            "with VCF",
            "seconds",
            "positions/s",
            "nodes",
            "nodes/s"
        );
        for row in &rows {
            let count = |key: &str| row[key].as_u64().unwrap_or(0);
            let real = |key: &str| row[key].as_f64().unwrap_or(0.0);
            out!(
                "{:<44} {:>9} {:>9} {:>9.3} {:>13.0} {:>11} {:>10.3e}",
                row["what"].as_str().unwrap_or(""),
                count("positions"),
                count("with_vcf"),
                real("seconds"),
                real("positions_per_second"),
                count("nodes"),
                real("nodes_per_second")
            );
        }
    }
    Ok(0)
}

/// `bench brain`: self-play games of the engine from the classic openings, 50 ms a move, one
/// thread; its nodes a second and the depth it reaches.
fn run_bench_brain(args: BenchArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    use gomoku::engine::{self, Board, GameRule, Limits, Table, Think};
    use std::time::{Duration, Instant};
    if args.from.is_some() || args.to.is_some() {
        return Err(Error::InvalidArgument(
            "bench brain plays --repeat games; --from/--to do not apply".into(),
        ));
    }
    let openings = engine::matches::classic_openings();
    let table = Table::new(64);
    let (mut moves, mut nodes, mut seconds, mut fives, mut depths) =
        (0u64, 0u64, 0.0f64, 0u32, 0u64);
    let games = args.repeat.max(1);
    for game in 0..games {
        let mut board = Board::new(15, 15, GameRule::Freestyle)
            .map_err(|e| Error::Verification(e.to_string()))?;
        for &(dx, dy) in &openings[game as usize % openings.len()] {
            let color = board.side_to_move();
            board.place(board.cell((7 + dx) as usize, (7 + dy) as usize), color);
        }
        table.clear();
        loop {
            if cancel.load(Ordering::Relaxed) {
                return Err(Error::Interrupted);
            }
            let started = Instant::now();
            let options = Think {
                limits: Limits {
                    deadline: Some(started + Duration::from_millis(50)),
                    ..Limits::default()
                },
                ..Think::default()
            };
            let Some(outcome) = engine::think(&board, &options, &table) else {
                break; // a full board
            };
            seconds += started.elapsed().as_secs_f64();
            nodes += outcome.nodes;
            depths += u64::from(outcome.depth);
            moves += 1;
            let color = board.side_to_move();
            board.place(outcome.best, color);
            if board.wins_at(outcome.best) {
                fives += 1;
                break;
            }
        }
    }
    let rate = if seconds > 0.0 {
        nodes as f64 / seconds
    } else {
        0.0
    };
    let depth = depths as f64 / moves.max(1) as f64;
    if args.common.json {
        out!(
            "{}",
            serde_json::json!({"bench": "brain", "games": games, "ended_with_five": fives, "moves": moves,
                "nodes": nodes, "seconds": seconds, "nodes_per_second": rate, "ms_per_move": 50,
                "mean_depth": depth})
        );
    } else {
        out!(
            "{games} games ({fives} ended with a five), {moves} moves at 50 ms: {nodes} nodes in {seconds:.2} s of thinking, {rate:.3e} nodes/s, mean depth {depth:.1}"
        );
    }
    Ok(0)
}
