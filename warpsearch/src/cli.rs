//! Argument parsing (clap), output (human or `--json`), exit codes and Ctrl-C.

use clap::{Args, Parser, Subcommand};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use warpsearch::backend::{self, BackendChoice, Selected};
use warpsearch::gomoku::{self, Board, Color, Kind, Rule};
use warpsearch::nqueens::{self, FindOptions, Method};
use warpsearch::{Error, RunControl, selftest};

/// Exit status of a run stopped by Ctrl-C (128 + SIGINT), as shells expect.
const EXIT_INTERRUPTED: i32 = 130;
/// Exit status when standard output was closed (128 + SIGPIPE), as `yes | head` gives.
const EXIT_BROKEN_PIPE: i32 = 141;
/// Exit status of a command line that cannot be parsed.
const EXIT_USAGE: i32 = 2;
/// The most input `gomoku` reads: a position is a few KB at most.
const MAX_GOMOKU_INPUT: u64 = 1 << 20;

/// `println!` that returns a closed or full standard output as an error instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*).map_err(stdout_error)?
    }};
}

/// `eprintln!` that ignores a closed standard error instead of panicking.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

fn stdout_error(source: std::io::Error) -> Error {
    Error::Io {
        path: "standard output".into(),
        source,
    }
}

#[derive(Parser)]
#[command(
    name = "warpsearch",
    version,
    about = "Exhaustive combinatorial search on NVIDIA GPUs, with the same Rust kernels on every CPU core",
    long_about = "Exhaustive combinatorial search on NVIDIA GPUs, with the same Rust kernels on every CPU core.\n\n\
The kernels are written once in no_std Rust: compiled to PTX they run one search per GPU thread \
(or one board per warp); compiled natively they run on every core with rayon. With --backend auto \
(the default) the GPU is used when an NVIDIA driver and device are present, and a line on stderr says \
which backend ran and why.",
    after_help = "Examples:\n  warpsearch nqueens 18                 count all 18-queens solutions\n  \
warpsearch nqueens 12 --backend cpu --json\n  warpsearch selftest --backend gpu    check every warp primitive on the GPU\n  \
warpsearch bench nqueens --to 16      timing table"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count all solutions of the N-Queens problem (total and up to symmetry).
    #[command(
        long_about = "Count all solutions of the N-Queens problem: N queens on an N×N board, no two in a row, \
column or diagonal. Prints the total, the number unique up to rotation and reflection, the backend, the time, \
the nodes searched (queens placed) and whether the counts match the known values (OEIS A000170, A002562).\n\n\
The search uses the 8 symmetries of the board, so it visits about an eighth of the tree. N ranges over 1..=27."
    )]
    Nqueens(NqueensArgs),
    /// Run every warp primitive on the chosen backend and compare with a scalar reference.
    Selftest(SelftestArgs),
    /// Time a range of problem sizes and print a table.
    Bench(BenchArgs),
    /// Count every 2n-point configuration on the n×n grid with no three points on a line.
    #[command(
        long_about = "Count every configuration of 2n points on the n×n grid with no three points on any line \
(any slope): in total, up to the 8 symmetries of the square, and by symmetry class — iden (no symmetry), \
dia1 (one diagonal), ort1 (one mid-line), rot2 (180°), dia2 (both diagonals), rot4 (90°), ort2 (both \
mid-lines), full (all 8). Checked against the known values for n = 2..16.\n\n\
The search is depth-first over partial boards (known points, known-empty cells), one warp per board on the GPU and the same code on every CPU core: lines through every pair of points are marked empty, rows and columns with two points (or two cells left) are completed, to a fixpoint; it branches on the vulnerable cell nearest the centre, else on the row with the fewest options, and drops boards none of whose completions is its orbit's representative. n = 2..16; on an H100, n = 13 takes ≈ 2.5 s, n = 14 ≈ 22 s, n = 15 ≈ 280 s (docs/no3line.md).

For the technique table: WARPSEARCH_NO3LINE_PRUNING=off (no symmetry pruning), WARPSEARCH_NO3LINE_BRANCHING=rows (no vulnerable cells), WARPSEARCH_NO3LINE_ENGINE=rows (the first, row-by-row search).",
        after_help = "--out format: one orbit per line, its lexicographically smallest image (rows compared in order \
as bit masks); the rows in order separated by spaces, each as the two 0-based columns of its points, e.g. `0,1 0,1`.\n\n\
Example:\n  warpsearch no3line 8 --out n8.txt --svg n8-svg"
    )]
    No3line(No3lineArgs),
    /// Threat points of a 15×15 Gomoku position (five and open-four points of both sides).
    #[command(
        long_about = "Threat points of a 15×15 Gomoku position, found with skew-ternary line lookup tables.\n\n\
For a color C and an empty cell p: p is a FIVE point if C at p makes a run through p of exactly 5 \
(standard) or at least 5 (freestyle); otherwise an OPEN-FOUR point if, after C at p, at least two \
empty cells of the same line would each make a five containing p. x is the column 0..14 from the \
left, y the row 0..14 from the top.\n\n\
Input (FILE, or - for standard input):\n  \
a grid of 15 lines of 15 cells: . empty, x black, o white (spaces between cells allowed), or\n  \
a move list, one `x,y` per line, black first, then alternating (Gomocup/Piskvork style).",
        after_help = "Output marks: X/O black/white stones, F/f black five/open-four point, \
G/g white five/open-four point, * a point of both sides.\n\nExample:\n  \
printf '7,7\\n0,0\\n8,7\\n0,1\\n9,7\\n0,2\\n' | warpsearch gomoku - --json"
    )]
    Gomoku(GomokuArgs),
    /// What this binary carries and sees: version, GPU kernels, the GPU or why none is usable.
    #[command(
        long_about = "What this binary carries and sees: its version, whether it embeds the GPU kernels \
(PTX; a build without the pinned nightly runs on the CPU only), the GPU it would use or why none is usable, \
and the CPU threads it would use."
    )]
    Info(InfoArgs),
    /// Add up the result files of a sharded count and check it like a whole run.
    #[command(
        long_about = "Add up the result files of a sharded count (`nqueens N --shard K/M --result FILE`) and \
print the answer as a whole run would, with the known-value check. The files must come from one problem, \
size, program version and partition (its fingerprint), and cover every shard exactly once; anything else \
is an error that names the files.",
        after_help = "Example:\n  for k in 1 2 3 4; do warpsearch nqueens 16 --shard $k/4 --result s$k.json; done\n  warpsearch merge s*.json"
    )]
    Merge(MergeArgs),
}

#[derive(Args)]
struct InfoArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct No3lineArgs {
    /// Grid size (2..=16).
    #[arg(value_name = "N")]
    n: u32,
    /// Write one canonical representative per orbit to FILE (format in --help).
    #[arg(long, value_name = "FILE")]
    out: Option<std::path::PathBuf>,
    /// Draw each representative as an SVG file in DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    svg: Option<std::path::PathBuf>,
    /// Run the same subtrees on the CPU and the GPU and compare them one by one (nodes
    /// searched below each, boards found); exit 1 on any difference. Needs a GPU.
    #[arg(long, conflicts_with_all = ["out", "svg"])]
    cross_check: bool,
    #[command(flatten)]
    split: SplitArgs,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct GomokuArgs {
    /// The position: a file, or - for standard input.
    #[arg(value_name = "FILE|-", default_value = "-")]
    input: String,
    /// Five or more wins (freestyle), or exactly five (standard).
    #[arg(long, value_enum, default_value_t = Rule::Freestyle)]
    rule: Rule,
    /// Print one JSON object instead of the board.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Clone)]
struct Common {
    /// Where to run: auto picks the GPU when one is usable, else the CPU.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// Threads for the CPU backend (default: every core).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// GPUs to use: `all` (every GPU the driver shows, after CUDA_VISIBLE_DEVICES) or
    /// indices such as `0,2`. Counts (nqueens, no3line) hand their work out to all of them;
    /// other commands use the first.
    #[arg(long, value_name = "all|I,J,…", default_value = "all")]
    devices: warpsearch::gpu::DeviceChoice,
    /// Print one JSON object on stdout instead of text (no progress bar).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct NqueensArgs {
    /// Board size: 1..=27 when counting; with --one up to 10⁹ (construct), 10⁸
    /// (min-conflicts) or 128 (random-dfs).
    #[arg(value_name = "N")]
    n: u32,
    /// Find one solution instead of counting them all.
    #[arg(long)]
    one: bool,
    /// With --one: how to find it (construct is O(N) and the default).
    #[arg(long, value_enum, default_value_t = Method::Construct, requires = "one")]
    method: Method,
    /// With --one: seed of min-conflicts and random-dfs (same seed, same solution).
    #[arg(long, default_value_t = 1, requires = "one")]
    seed: u64,
    /// With --one and random-dfs: queens one search may place before it restarts.
    #[arg(long, default_value_t = nqueens::find::DEFAULT_LIMIT, requires = "one")]
    limit: u32,
    /// With --one: draw the board (N ≤ 64), or include the columns in --json.
    #[arg(long, requires = "one")]
    print: bool,
    /// With --one: write the column of each row's queen to FILE, one per line (0-based).
    #[arg(long, value_name = "FILE", requires = "one")]
    out: Option<std::path::PathBuf>,
    #[command(flatten)]
    split: SplitArgs,
    #[command(flatten)]
    common: Common,
}

/// Running a count in shards and resumable pieces (docs/cluster.md).
#[derive(Args, Clone)]
struct SplitArgs {
    /// Count only shard K of M (1 ≤ K ≤ M) of a fixed, machine-independent partition; write
    /// it with --result and add the shards up with `warpsearch merge`.
    #[arg(long, value_name = "K/M")]
    shard: Option<String>,
    /// Write this run's result (counts, shard, partition fingerprint, seconds, backend) as
    /// JSON to FILE, for `warpsearch merge`.
    #[arg(long, value_name = "FILE")]
    result: Option<std::path::PathBuf>,
    /// Save progress to FILE (atomically) every --checkpoint-every seconds and on Ctrl-C;
    /// the same command with the same FILE resumes where it stopped, with exact counts.
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<std::path::PathBuf>,
    /// Seconds between two checkpoint saves.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 30,
        requires = "checkpoint"
    )]
    checkpoint_every: u64,
}

impl SplitArgs {
    fn wanted(&self) -> bool {
        self.shard.is_some() || self.result.is_some() || self.checkpoint.is_some()
    }
}

#[derive(Args)]
struct MergeArgs {
    /// The shards' result files (written with --result), every shard exactly once.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<std::path::PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct SelftestArgs {
    /// Warps of random inputs to run.
    #[arg(long, default_value_t = 264)]
    warps: u32,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct BenchArgs {
    /// What to time.
    #[arg(value_enum)]
    problem: BenchProblem,
    /// Smallest size (default 8; not for random-dfs, whose cases are fixed).
    #[arg(long)]
    from: Option<u32>,
    /// Largest size (default 16; not for random-dfs).
    #[arg(long)]
    to: Option<u32>,
    /// Runs per size; the table shows the median.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    #[command(flatten)]
    common: Common,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum BenchProblem {
    /// N-Queens counting: N = --from..=--to.
    Nqueens,
    /// Randomised search for one N-Queens solution: the cases of Hennum's Table 1 (N = 40
    /// with 2048 searches, N = 100 with 16384), on the GPU, one CPU core and all cores.
    RandomDfs,
    /// No-three-in-line: n = --from..=--to (classes checked against the known values).
    No3line,
}

/// Runs the CLI and returns the process exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    // A first Ctrl-C (or SIGTERM) asks the search to stop cleanly; a second one exits at once.
    let _ = warpsearch::run::on_interrupt(cancel.clone());
    let json = match &cli.command {
        Command::Nqueens(a) => a.common.json,
        Command::Selftest(a) => a.common.json,
        Command::Bench(a) => a.common.json,
        Command::Gomoku(a) => a.json,
        Command::No3line(a) => a.common.json,
        Command::Info(a) => a.json,
        Command::Merge(a) => a.json,
    };
    let result = match cli.command {
        Command::Nqueens(args) => run_nqueens(args, cancel),
        Command::Selftest(args) => run_selftest(args, cancel),
        Command::Bench(args) => run_bench(args, cancel),
        Command::Gomoku(args) => run_gomoku(args, cancel),
        Command::No3line(args) => run_no3line(args, cancel),
        Command::Info(args) => run_info(args),
        Command::Merge(args) => run_merge(args),
    };
    match result {
        Ok(status) => status,
        Err(Error::Io { path, source })
            if path == "standard output" && source.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            // The reader went away (`| head`): nothing left to say to anyone.
            EXIT_BROKEN_PIPE
        }
        Err(error) => {
            let code = match error {
                Error::Interrupted => EXIT_INTERRUPTED,
                _ => 1,
            };
            report_error(&error.to_string(), code, json);
            code
        }
    }
}

/// The error contract: one line on stderr, `error: …`; with `--json`, also one object
/// `{"error": …, "exit_code": …}` on stdout, so a script reading stdout always gets JSON.
fn report_error(message: &str, code: i32, json: bool) {
    use std::io::Write as _;
    let line = message.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    let _ = writeln!(std::io::stderr(), "error: {line}");
    if json {
        let value = serde_json::json!({ "error": line, "exit_code": code });
        let _ = writeln!(std::io::stdout(), "{value}");
    }
}

/// A command line clap rejects: its first line and where to read more (exit 2); `--help` and
/// `--version` print as usual (exit 0).
fn usage_error(error: &clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        // Printing help can itself meet a closed pipe: nothing to do then.
        let _ = error.print();
        return 0;
    }
    if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = error.print();
        return EXIT_USAGE;
    }
    // clap's message is the text before its "Usage:" block, sometimes over several lines.
    let rendered = error.render().to_string();
    let message: Vec<&str> = rendered
        .lines()
        .take_while(|l| !l.starts_with("Usage:"))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect();
    let joined = message.join(" ");
    let first = match joined.trim_start_matches("error: ") {
        "" => "invalid command line",
        text => text,
    };
    let json = std::env::args().any(|a| a == "--json");
    report_error(
        &format!("{first} (see `warpsearch --help`)"),
        EXIT_USAGE,
        json,
    );
    EXIT_USAGE
}

/// The backend of a counting run: every GPU `--devices` names.
fn select(common: &Common) -> Result<Selected, Error> {
    let selected = backend::select(common.backend, common.threads, &common.devices)?;
    note!("{}", selected.reason);
    Ok(selected)
}

/// The backend of work that runs on one GPU: the first that `--devices` names.
fn select_one(common: &Common) -> Result<Selected, Error> {
    let first = common.devices.first_only();
    let selected = backend::select(common.backend, common.threads, &first)?;
    note!("{}", selected.reason);
    Ok(selected)
}

fn control(common: &Common, cancel: Arc<AtomicBool>) -> RunControl {
    RunControl::default()
        .with_cancel(cancel)
        .with_progress(!common.json)
}

fn run_nqueens(args: NqueensArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    if args.one {
        return run_find_one(args, cancel);
    }
    nqueens::validate(args.n)?;
    if args.split.wanted() {
        return run_nqueens_shard(args, cancel);
    }
    let selected = select(&args.common)?;
    let counts = nqueens::count_on(args.n, &selected.backend, &control(&args.common, cancel))?;
    print_nqueens_counts(&counts, args.common.json)
}

/// Prints a count (text or JSON); exit status 1 when it does not match the known values.
fn print_nqueens_counts(counts: &nqueens::Counts, json: bool) -> Result<i32, Error> {
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
                None => "no known value to compare with",
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
fn print_device_shares(
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

/// The shard, the checkpoint and the result file of a sharded run, from the command line.
struct SplitPlan {
    shard: warpsearch::shard::Shard,
    checkpoint: Option<warpsearch::shard::CheckpointFile>,
    result: Option<AtomicOut>,
}

impl SplitPlan {
    fn new(split: &SplitArgs) -> Result<SplitPlan, Error> {
        use warpsearch::shard::{CheckpointFile, Shard};
        let shard = match &split.shard {
            Some(text) => Shard::parse(text)?,
            None => Shard::WHOLE,
        };
        Ok(SplitPlan {
            shard,
            checkpoint: split.checkpoint.clone().map(|path| CheckpointFile {
                path,
                every: std::time::Duration::from_secs(split.checkpoint_every),
            }),
            // Fail on an unwritable --result before the search, not after it.
            result: split.result.as_deref().map(AtomicOut::create).transpose()?,
        })
    }

    /// Says how to resume an interrupted run; writes the result file of a finished one.
    fn finish<P: serde::Serialize>(
        &mut self,
        outcome: Result<warpsearch::shard::ShardResult<P>, Error>,
    ) -> Result<(warpsearch::shard::ShardResult<P>, serde_json::Value), Error> {
        let result = match outcome {
            Err(Error::Interrupted) if self.checkpoint.is_some() => {
                note!("progress saved; run the same command again to resume");
                return Err(Error::Interrupted);
            }
            other => other?,
        };
        let value =
            serde_json::to_value(&result).map_err(|e| Error::Verification(e.to_string()))?;
        if let Some(mut file) = self.result.take() {
            file.line(format_args!("{value:#}"))?;
            file.commit()?;
        }
        Ok((result, value))
    }

    /// The line for a proper shard (a whole run prints its answer instead).
    fn report(&self, what: &str, value: &serde_json::Value, json: bool) -> Result<i32, Error> {
        if json {
            out!("{value}");
        } else {
            let chunks = value["partition"]["chunks"].as_u64().unwrap_or(0) as u32;
            out!(
                "{what} shard {}: {} chunks of {chunks} done in {}; add the shards up with `warpsearch merge FILES…`",
                self.shard,
                self.shard.chunks(chunks).count(),
                seconds(value["seconds"].as_f64().unwrap_or(0.0)),
            );
        }
        Ok(0)
    }
}

fn run_nqueens_shard(args: NqueensArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    let mut plan = SplitPlan::new(&args.split)?;
    let selected = select(&args.common)?;
    let outcome = nqueens::count_shard(
        args.n,
        &selected.backend,
        &control(&args.common, cancel),
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
        return print_nqueens_counts(&counts, args.common.json);
    }
    plan.report(&format!("{}-queens", args.n), &value, args.common.json)
}

fn run_no3line_shard(args: No3lineArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    use warpsearch::no3line;
    let mut plan = SplitPlan::new(&args.split)?;
    let selected = select(&args.common)?;
    let outcome = no3line::enumerate_shard(
        args.n,
        &selected.backend,
        &control(&args.common, cancel),
        plan.shard,
        plan.checkpoint.as_ref(),
    );
    let (result, value) = plan.finish(outcome)?;
    if plan.shard == warpsearch::shard::Shard::WHOLE {
        let mut counts = result
            .counts
            .counts(args.n, selected.backend.kind(), result.seconds);
        counts.devices = result.per_device;
        return print_no3line_counts(&counts, args.common.json);
    }
    plan.report(
        &format!("no-three-in-line n={}", args.n),
        &value,
        args.common.json,
    )
}

fn run_merge(args: MergeArgs) -> Result<i32, Error> {
    use warpsearch::shard::merge;
    // The first file says which problem; `merge` then checks that all agree.
    let problem = std::fs::read_to_string(&args.files[0])
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|value| value["partition"]["problem"].as_str().map(str::to_string))
        .unwrap_or_default();
    let backend_of = |backends: &[String]| match backends {
        [one] if one == "gpu" => "gpu",
        [_] => "cpu",
        _ => "mixed",
    };
    match problem.as_str() {
        "no3line" => {
            let (partition, counts, seconds, backends) =
                merge::<warpsearch::no3line::Partial>(&args.files)?;
            let counts = counts.counts(partition.n, backend_of(&backends), seconds);
            print_no3line_counts(&counts, args.json)
        }
        _ => {
            let (partition, counts, seconds, backends) = merge::<nqueens::Partial>(&args.files)?;
            if partition.problem != "nqueens" {
                return Err(Error::InvalidArgument(format!(
                    "{}: not a result of a sharded count",
                    args.files[0].display()
                )));
            }
            let counts = counts.counts(partition.n, backend_of(&backends), seconds);
            print_nqueens_counts(&counts, args.json)
        }
    }
}

fn run_find_one(args: NqueensArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
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

fn run_selftest(args: SelftestArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
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

fn run_bench(args: BenchArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    if let BenchProblem::RandomDfs = args.problem {
        if args.from.is_some() || args.to.is_some() {
            return Err(Error::InvalidArgument(
                "bench random-dfs times fixed cases (N = 40 and 100, Hennum's Table 1); --from/--to do not apply".into(),
            ));
        }
        return run_bench_random_dfs(args);
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
fn run_bench_no3line(
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

fn run_bench_random_dfs(args: BenchArgs) -> Result<i32, Error> {
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

fn run_no3line(args: No3lineArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    use warpsearch::no3line;
    no3line::validate(args.n)?;
    if args.split.wanted() {
        if args.out.is_some() || args.svg.is_some() || args.cross_check {
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
    if args.cross_check {
        let options = no3line::Options {
            backend: BackendChoice::Gpu,
            threads: args.common.threads,
            devices: args.common.devices.first_only(),
            control: control(&args.common, cancel),
        };
        let checked = no3line::cross_check(args.n, &options)?;
        if args.common.json {
            let value =
                serde_json::to_value(&checked).map_err(|e| Error::Verification(e.to_string()))?;
            out!("{value}");
        } else {
            out!(
                "no-three-in-line n={}: CPU and GPU agree on all {} subtrees ({} nodes, {} boards)",
                checked.n,
                group(checked.subtrees as u64),
                group(checked.nodes),
                group(checked.boards as u64)
            );
        }
        return Ok(0);
    }
    let selected = select(&args.common)?;
    let representatives = std::sync::Mutex::new(Vec::new());
    let keep = args.out.is_some() || args.svg.is_some();
    let counts = no3line::enumerate_part(
        args.n,
        &selected.backend,
        &control(&args.common, cancel),
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
fn print_no3line_counts(counts: &warpsearch::no3line::Counts, json: bool) -> Result<i32, Error> {
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
                None => "no known value to compare with",
            }
        );
    }
    Ok(if counts.known_match == Some(false) {
        1
    } else {
        0
    })
}

fn run_info(args: InfoArgs) -> Result<i32, Error> {
    let ptx = warpsearch::gpu::PTX;
    let kernels = warpsearch::gpu::has_kernels();
    let target = ptx
        .lines()
        .find_map(|line| line.trim().strip_prefix(".target "))
        .map(str::trim);
    let gpu = warpsearch::gpu::GpuDevice::open();
    let threads = rayon::current_num_threads();
    if args.json {
        let value = serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            "gpu_kernels": kernels,
            "ptx_bytes": ptx.len(),
            "ptx_target": target,
            "gpu": gpu.as_ref().ok().map(|d| d.describe()),
            "gpu_unavailable": gpu.as_ref().err().map(|e| e.to_string()),
            "cpu_threads": threads,
        });
        out!("{value}");
    } else {
        out!("warpsearch {}", env!("CARGO_PKG_VERSION"));
        if kernels {
            out!(
                "  GPU kernels: embedded ({} bytes of PTX for {})",
                ptx.len(),
                target.unwrap_or("?")
            );
        } else {
            out!("  GPU kernels: not built into this binary (CPU only)");
        }
        match &gpu {
            Ok(device) => out!("  GPU: {}", device.describe()),
            Err(why) => out!("  GPU: none usable: {why}"),
        }
        out!("  CPU: {threads} threads");
    }
    Ok(0)
}

fn run_gomoku(args: GomokuArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    use std::io::Read as _;
    let io = |source| Error::Io {
        path: args.input.clone(),
        source,
    };
    let mut bytes = Vec::new();
    let limit = MAX_GOMOKU_INPUT + 1;
    if args.input == "-" {
        std::io::stdin().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(&args.input).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    }
    .map_err(io)?;
    if bytes.len() as u64 > MAX_GOMOKU_INPUT {
        return Err(Error::InvalidArgument(format!(
            "{}: more than {} KB of input; a position is a 15-line grid or a move list of at most 225 moves",
            args.input,
            MAX_GOMOKU_INPUT / 1024
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::InvalidArgument(format!(
            "{}: not UTF-8 text (byte {})",
            args.input,
            e.utf8_error().valid_up_to()
        ))
    })?;
    let position = gomoku::parse::parse(&text)
        .map_err(|e| Error::InvalidArgument(format!("{}: {e}", args.input)))?;
    // The table from the disk cache (or built and cached): a second call starts at once.
    let dir = gomoku::cache::default_dir();
    if let (_, Some(gomoku::cache::Outcome::BuiltWithoutCache(why))) =
        gomoku::table::Table::get_cached(args.rule, dir.as_deref())
    {
        note!("note: gomoku table cache: {why}");
    }
    let mut board = Board::new(args.rule);
    for (y, row) in position.iter().enumerate() {
        for (x, stone) in row.iter().enumerate() {
            if let Some(color) = stone {
                board
                    .make(x, y, *color)
                    .map_err(|e| Error::InvalidArgument(e.to_string()))?;
            }
        }
    }
    let [black, white] = board.both_threats();
    if cancel.load(Ordering::SeqCst) {
        return Err(Error::Interrupted);
    }
    if args.json {
        let list = |t: &gomoku::Threats| t.iter().collect::<Vec<_>>();
        out!(
            "{}",
            serde_json::json!({ "rule": args.rule, "black": list(&black), "white": list(&white) })
        );
        return Ok(0);
    }
    out!(
        "   {}",
        (0..15).map(|x| format!("{x:>3}")).collect::<String>()
    );
    for y in 0..15 {
        let row: String = (0..15)
            .map(|x| {
                let mark = match (board.get(x, y), black.at(x, y), white.at(x, y)) {
                    (Some(Color::Black), _, _) => 'X',
                    (Some(Color::White), _, _) => 'O',
                    (None, Some(_), Some(_)) => '*',
                    (None, Some(Kind::Five), None) => 'F',
                    (None, Some(Kind::OpenFour), None) => 'f',
                    (None, None, Some(Kind::Five)) => 'G',
                    (None, None, Some(Kind::OpenFour)) => 'g',
                    (None, None, None) => '.',
                };
                format!("  {mark}")
            })
            .collect();
        out!("{y:>2} {row}");
    }
    let describe = |name: &str, threats: &gomoku::Threats| -> String {
        let points: Vec<String> = threats
            .iter()
            .map(|t| {
                format!(
                    "({},{}) {}",
                    t.x,
                    t.y,
                    if t.kind == Kind::Five {
                        "five"
                    } else {
                        "open-four"
                    }
                )
            })
            .collect();
        format!(
            "{name}: {}",
            if points.is_empty() {
                "no threat points".to_string()
            } else {
                points.join(", ")
            }
        )
    };
    out!(
        "rule: {:?}. X/O stones; F/f black five/open-four point; G/g white; * both.",
        args.rule
    );
    out!("{}", describe("black", &black));
    out!("{}", describe("white", &white));
    Ok(0)
}

/// An `--out` file written beside its final name and renamed over it only when the run
/// succeeds: an existing file is never truncated by a run that fails or is interrupted, and
/// a reader never sees half a file. (A path that exists and is not a regular file, such as
/// `/dev/stdout`, is written directly.)
struct AtomicOut {
    path: std::path::PathBuf,
    writer: std::io::BufWriter<Box<dyn std::io::Write>>,
    temp: Option<tempfile::TempPath>,
}

impl AtomicOut {
    /// Creates the temporary file now, so an unwritable place fails before the search.
    fn create(path: &std::path::Path) -> Result<AtomicOut, Error> {
        let io = |source| Error::Io {
            path: path.display().to_string(),
            source,
        };
        let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
        if special {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(io)?;
            return Ok(AtomicOut {
                path: path.to_path_buf(),
                writer: std::io::BufWriter::new(Box::new(file)),
                temp: None,
            });
        }
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => std::path::Path::new("."),
        };
        let (file, temp) = tempfile::Builder::new()
            .prefix(".warpsearch-")
            .tempfile_in(dir)
            .map_err(io)?
            .into_parts();
        Ok(AtomicOut {
            path: path.to_path_buf(),
            writer: std::io::BufWriter::new(Box::new(file)),
            temp: Some(temp),
        })
    }

    fn io(&self) -> impl Fn(std::io::Error) -> Error + '_ {
        |source| Error::Io {
            path: self.path.display().to_string(),
            source,
        }
    }

    /// Writes one line.
    fn line(&mut self, text: std::fmt::Arguments) -> Result<(), Error> {
        use std::io::Write as _;
        let result = writeln!(self.writer, "{text}");
        result.map_err(self.io())
    }

    /// Flushes, syncs and renames the file into place.
    fn commit(mut self) -> Result<(), Error> {
        use std::io::Write as _;
        let flushed = self.writer.flush();
        flushed.map_err(self.io())?;
        if let Some(temp) = self.temp.take() {
            let persisted = temp.persist(&self.path);
            persisted.map_err(|e| Error::Io {
                path: self.path.display().to_string(),
                source: e.error,
            })?;
        }
        Ok(())
    }
}

/// "1 solution", "14,200 solutions".
fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", group(count))
    }
}

/// A duration with three significant digits at least: "0.137 s", "0.000412 s".
fn seconds(value: f64) -> String {
    if value >= 0.1 || value == 0.0 {
        format!("{value:.3} s")
    } else {
        let digits = (2 - value.log10().floor() as i32).clamp(3, 9) as usize;
        format!("{value:.digits$} s")
    }
}

/// 1234567 → "1,234,567".
fn group(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// 1.23e9 → "1.23 G nodes/s".
fn per_second(rate: f64, unit: &str) -> String {
    let (scaled, prefix) = match rate {
        r if r >= 1e12 => (r / 1e12, "T"),
        r if r >= 1e9 => (r / 1e9, "G"),
        r if r >= 1e6 => (r / 1e6, "M"),
        r if r >= 1e3 => (r / 1e3, "k"),
        r => (r, ""),
    };
    format!("{scaled:.2} {prefix}{unit}/s")
}
