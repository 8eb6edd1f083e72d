//! Argument parsing (clap), output (human or `--json`), exit codes and Ctrl-C; each
//! subcommand's runner is in `commands/`.

use clap::{Args, Parser, Subcommand};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use warpsearch::backend::{self, BackendChoice, Selected};
use warpsearch::gomoku::engine::GameRule;
use warpsearch::gomoku::{self, Board, Color, Kind, Rule};
use warpsearch::nqueens::{self, FindOptions, Method};
use warpsearch::{Error, RunControl, selftest};

/// Exit status of a run stopped by Ctrl-C (128 + SIGINT), as shells expect.
const EXIT_INTERRUPTED: i32 = 130;
/// Exit status when standard output was closed (128 + SIGPIPE), as `yes | head` gives.
const EXIT_BROKEN_PIPE: i32 = 141;
/// Exit status of a command line that cannot be parsed.
const EXIT_USAGE: i32 = 2;
/// Exit status of `verify` when a recounted chunk differs from its file.
const EXIT_MISMATCH: i32 = warpsearch::verify::EXIT_DIFFERENT as i32;
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
The search uses the 8 symmetries of the board, so it visits about an eighth of the tree. N ranges over 1..=28 \
(known values up to 27; N = 28 has no published count). A count expected to take more than a minute first \
prints its estimate (--estimate alone prints only that; --no-estimate skips it)."
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
mid-lines), full (all 8). Checked against the known values for n = 2..20 (Flammenkamp's table).\n\n\
The search is depth-first over partial boards (known points, known-empty cells), one warp per board on the GPU and the same code on every CPU core: lines through every pair of points are marked empty, rows and columns with two points (or two cells left) are completed, to a fixpoint; it branches on the vulnerable cell nearest the centre, else on the cheapest row by a score table, or on a scored single cell when every row is wide, and drops boards none of whose completions is its orbit's representative. n = 2..32; on an H100, n = 13 takes ≈ 0.5 s, n = 14 ≈ 5 s, n = 15 ≈ 50 s, n = 16 ≈ 7½ min; sizes past 16 are runs for several GPUs or a cluster (--shard, --checkpoint; docs/no3line.md).

For the technique table: WARPSEARCH_NO3LINE_PRUNING=off (no symmetry pruning), WARPSEARCH_NO3LINE_BRANCHING=vulnerable (no scoring: vulnerable cells, then the row with the fewest options) or =rows (that row only), WARPSEARCH_NO3LINE_ROW_CHILDREN=pairs (a row's children complete it), WARPSEARCH_NO3LINE_IMAGES=partial (the 7 image comparisons on partial boards too, not only on complete ones), WARPSEARCH_NO3LINE_HANDOFF=off (no work sharing between warps), WARPSEARCH_NO3LINE_ENGINE=rows (the first, row-by-row search).",
        after_help = "--out format: one orbit per line, its lexicographically smallest image (rows compared in order \
as bit masks); the rows in order separated by spaces, each as the two 0-based columns of its points, e.g. `0,1 0,1`.\n\n\
Example:\n  warpsearch no3line 8 --out n8.txt --svg n8-svg"
    )]
    No3line(No3lineArgs),
    /// Threat points of a Gomoku position (any size 5..22, any rule); `gomoku vcf`, `vct`, `brain`, `match`.
    #[command(
        long_about = "Threat points of a Gomoku position: on 15×15 under freestyle and standard, found with \
the skew-ternary 15-line lookup tables; on any other size from 5 to 22 and under renju, with the engine's \
11-cell window tables (docs/gomoku-brain.md).\n\n\
For a color C and an empty cell p: p is a FIVE point if C at p makes a run through p of exactly 5 \
(standard; renju for black) or at least 5 (freestyle; renju for white); otherwise an OPEN-FOUR point if, \
after C at p, at least two empty cells of the same line would each make a five containing p. Under renju, \
black's forbidden points (overline, double four, double three by the RIF definition) are marked instead. \
x is the column from 0 at the left, y the row from 0 at the top.\n\n\
Input (FILE, or - for standard input):\n  \
a grid, one row a line: . empty, x black, o white (spaces between cells allowed), or\n  \
a move list, one `x,y` per line, black first, then alternating (Gomocup/Piskvork style), on a --size board.\n\n\
Subcommands: `gomoku vcf` searches a victory by continuous fours (one position, or --batch FILE of many); \
`gomoku vct` a victory by continuous threats; `gomoku brain` plays under a Gomocup manager (the Piskvork \
protocol); `gomoku match` plays two brains.",
        after_help = "Output marks: X/O black/white stones, F/f black five/open-four point, \
G/g white five/open-four point, * a point of both sides, # a renju point forbidden to black.\n\nExamples:\n  \
printf '7,7\\n0,0\\n8,7\\n0,1\\n9,7\\n0,2\\n' | warpsearch gomoku - --json\n  \
printf '10,10\\n0,0\\n11,10\\n0,1\\n12,10\\n' | warpsearch gomoku - --size 20 --rule renju"
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
size and partition (its fingerprint; files of an earlier version with this version's list are accepted), \
and cover every shard exactly once; anything else is an error that names the files.",
        after_help = "Example:\n  for k in 1 2 3 4; do warpsearch nqueens 16 --shard $k/4 --result s$k.json; done\n  warpsearch merge s*.json"
    )]
    Merge(MergeArgs),
    /// Recount a sample of a run's chunks (on other devices, or the CPU) and compare them.
    #[command(
        long_about = "Recount a sample of the chunks of a finished or checkpointed run and compare them chunk by \
chunk with the files. Result files (--result) and checkpoints (--checkpoint) keep every chunk's counts and the \
device that computed it, under a digest; a file that was edited or damaged is refused. The sample is drawn \
at random with --seed (printed, so it can be drawn again) from the chunks the files hold; run it on other \
GPUs, another machine or the CPU (--backend, --devices) to catch a faulty device. Each chunk that differs is \
named, with the file and the device that first computed it, and the exit status is 3. A sample of a fraction \
p of the chunks finds a device that computed k wrong chunks with probability about 1 − (1 − p)^k \
(docs/cluster.md).",
        after_help = "Examples:\n  warpsearch verify run.json                        1 % of its chunks, random seed\n  \
warpsearch verify s1.json s2.json --sample 5% --seed 7 --backend cpu\n  \
warpsearch verify run.json --chunks 0,17,200-203 --devices 1"
    )]
    Verify(VerifyArgs),
    /// Count the solutions of an exact-cover problem (Knuth's dlx1 format) and list some.
    #[command(
        long_about = "Count every solution of an exact-cover problem: choose options so that every primary item \
lies in exactly one chosen option and every secondary item in at most one (Knuth's Algorithm X). The problem is \
read in Knuth's dlx1 format: the first line names the items (up to 512, names of at most 8 characters), with \
`|` before the secondary ones; then one option a line, each a list of item names; lines beginning with `|` are \
comments. Prints the count and, with --limit K, the first K solutions (found by a second, independent search \
that must agree with the count). Runs on every CPU core in this version.",
        after_help = "Examples:\n  warpsearch cover problem.dlx --limit 3\n  \
warpsearch cover --example pentominoes-6x10 --json\n  \
warpsearch cover --example queens-8 --write-dlx1 queens8.dlx"
    )]
    Cover(CoverArgs),
}

#[derive(Args)]
struct CoverArgs {
    /// A dlx1 file, or - for standard input.
    #[arg(value_name = "FILE", conflicts_with = "example")]
    input: Option<String>,
    /// A built-in problem instead: pentominoes-6x10, -5x12, -4x15, -3x20, -8x8 (without
    /// its centre), sudoku-4x4, queens-N.
    #[arg(long, value_name = "NAME")]
    example: Option<String>,
    /// Print the first K solutions, each as its options (default none).
    #[arg(long, value_name = "K", default_value_t = 0)]
    limit: usize,
    /// Write the problem as dlx1 to FILE (a built-in one for other programs, say).
    #[arg(long, value_name = "FILE")]
    write_dlx1: Option<std::path::PathBuf>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct VerifyArgs {
    /// Result files or checkpoints of one run (shards of one count may be given together).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<std::path::PathBuf>,
    /// Recount this share of the chunks the files hold, drawn with --seed: 0.01 or 1%
    /// (default 1%, at least one chunk).
    #[arg(long, value_name = "P", conflicts_with = "chunks")]
    sample: Option<String>,
    /// Recount these chunks instead: indices and ranges, e.g. 0,17,200-203.
    #[arg(long, value_name = "LIST")]
    chunks: Option<String>,
    /// Seed of the sample (default: from the clock; it is printed).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct InfoArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct No3lineArgs {
    /// Grid size (2..=32; known values to compare up to 20).
    #[arg(value_name = "N")]
    n: u32,
    /// Write one canonical representative per orbit to FILE (format in --help).
    #[arg(long, value_name = "FILE")]
    out: Option<std::path::PathBuf>,
    /// Draw each representative as an SVG file in DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    svg: Option<std::path::PathBuf>,
    /// Run the same subtrees on the CPU and the GPU and compare them one by one (nodes
    /// searched below each, boards found); exit 1 on any difference. Needs a GPU. With K/M,
    /// only every M-th subtree from the K-th: a sample of a tree too big for the CPU (e.g.
    /// `no3line 17 --cross-check=1/1000`). From n = 17 on, each sampled subtree is replaced
    /// by one board deep below it (a fixed walk down to ≤ 10 unknown cells a row), so the
    /// CPU side takes seconds.
    #[arg(long, value_name = "K/M", num_args = 0..=1, require_equals = true,
          default_missing_value = "1/1", conflicts_with_all = ["out", "svg"])]
    cross_check: Option<String>,
    /// Predict the count instead of running it: its nodes and its time on the chosen devices,
    /// with 95 % ranges, from searching a growing sample of its chunks there for about
    /// SECONDS (default 6).
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, require_equals = true,
          default_missing_value = "6", conflicts_with_all = ["out", "svg", "cross_check"])]
    estimate: Option<f64>,
    /// Skip the estimate that a search expected to take more than a minute prints first (for
    /// timing runs: the estimate searches a sample of chunks, a few seconds).
    #[arg(long, conflicts_with = "estimate")]
    no_estimate: bool,
    #[command(flatten)]
    split: SplitArgs,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
struct GomokuArgs {
    #[command(subcommand)]
    action: Option<GomokuAction>,
    /// The position: a file, or - for standard input.
    #[arg(value_name = "FILE|-", default_value = "-")]
    input: String,
    /// The rule. 15×15 freestyle and standard positions are read with the 15-line tables;
    /// renju and other sizes with the engine's window tables.
    #[arg(long, value_enum, default_value_t = gomoku::engine::GameRule::Freestyle)]
    rule: gomoku::engine::GameRule,
    /// The board side for a move list (a grid gives its own size): 5 to 22.
    #[arg(long, default_value_t = 15)]
    size: usize,
    /// Print one JSON object instead of the board.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum GomokuAction {
    /// Find a victory by continuous fours (VCF) in a position, or in a file of positions.
    #[command(
        long_about = "Find a victory by continuous fours (VCF): a win in which every attacker move makes a four, \
so that every defender move is forced. The attacker plays only four points of the threat tables; a defender \
block that itself makes a four must be answered first. A search that ends without reaching --depth or --nodes \
proves that no VCF exists.\n\n\
Input (FILE, or - for standard input): a grid of cells (. x o, one row a line) or a move list, one `x,y` \
a line, black first, on a --size board. The side to move defaults to the one whose turn it is by the stone \
counts (black first). Any side from 5 to 22 and --rule renju are solved by the engine's VCF, which reports the \
first move of the win; 15×15 freestyle and standard positions by the 15-line solver, which reports the whole \
sequence and proves when none exists.\n\n\
--batch FILE: one position a line, either a move list `x,y x,y …` (black first) or the size² cells of a grid \
(. x o, row by row); blank lines and lines starting with # are skipped. Every position is solved for the side \
whose turn it is, on every CPU core or on the GPU (--backend, --devices: one thread a position, the same \
search on both, so the answers are the same); one result a line, then a summary with positions a second. A \
batch searches at most 60 attacker moves deep.",
        after_help = "Examples:\n  \
printf '5,7\\n4,7\\n6,7\\n9,3\\n7,7\\n0,0\\n9,4\\n0,2\\n9,5\\n0,4\\n9,6\\n0,6\\n' | warpsearch gomoku vcf - --json\n  \
warpsearch gomoku vcf --batch positions.txt --json"
    )]
    Vcf(VcfArgs),
    /// A Gomocup brain: the Piskvork protocol on standard input and output (docs/gomoku-brain.md).
    #[command(
        long_about = "A Gomocup brain: speaks the Piskvork protocol on standard input and output (START, RECTSTART, \
BEGIN, TURN, BOARD … DONE, SWAP2BOARD, INFO, TAKEBACK, RESTART, END, ABOUT; anything else gets UNKNOWN). Boards \
from 5×5 to 22×22; rules 0 (freestyle), 1 (exactly five) and 4 (renju, black's forbidden points respected), \
applied as soon as INFO rule arrives; rule 8 (caro) is refused with ERROR. Each move: a five, a forced block, a \
VCF or VCT proof, else an iteratively deepened principal-variation search that uses the time INFO timeout_turn \
and time_left allow (never more). Under the Piskvork manager, run it through an executable named \
pbrain-warpsearch (docs/gomoku-brain.md).",
        after_help = "Examples:\n  printf 'START 20\\nINFO rule 4\\nBEGIN\\nEND\\n' | warpsearch gomoku brain\n  \
warpsearch gomoku brain --nodes 200000      # the same moves on every machine"
    )]
    Brain(BrainArgs),
    /// Plays two Piskvork brains against each other and prints the score with Elo.
    #[command(
        long_about = "Plays two Piskvork brains (any programs that speak the protocol on stdin/stdout) against \
each other. Every game starts both afresh, opens with an opening from --openings (each played twice, colours \
swapped), checks every move (on the board, on an empty cell, not a renju forbidden point) and its time, and \
scores a brain that answers late, exits or answers nonsense as the loser. The score of the first engine is \
printed with its Elo difference and a 95 % interval; --out writes every game's moves, one JSON object a line. \
Ctrl-C (or SIGTERM) stops the match: the games still in play are dropped, the ended ones scored.",
        after_help = "Examples:\n  \
warpsearch gomoku match --engine 'warpsearch gomoku brain' --engine ./pbrain-other --games 52 --turn-ms 1000\n  \
warpsearch gomoku match --engine A --engine B --turn-ms 1000,100 --rule renju --size 15 --concurrency 8 --out games.jsonl"
    )]
    Match(MatchArgs),
    /// Find a victory by continuous threats (fours and open threes) against every defence.
    #[command(
        long_about = "Find a VCT: a win in which every attacker move makes a four or an open three, against every \
defence (each cell that stops the threat, and the defender's own fours). Any board size (5 to 22) and rule \
(freestyle, standard, renju). Input: a grid of cells (. x o), one row a line, or a move list (`x,y` a line, \
black first) on a --size board; the side to move is the one whose turn it is by the stone counts (black first)."
    )]
    Vct(VctArgs),
}

#[derive(Args)]
struct BrainArgs {
    /// Search this many nodes a move instead of using the clock: the same moves on every
    /// machine (INFO time limits are then ignored).
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Search threads (INFO thread_num from the manager overrides it).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// The most milliseconds a move may take, whatever the manager allows.
    #[arg(long, value_name = "MS")]
    max_ms: Option<u64>,
    /// No MESSAGE line (depth, score, nodes) before each move.
    #[arg(long)]
    quiet: bool,
    /// Play random cells next to stones, drawn from SEED (a sparring partner for tests).
    #[arg(long, value_name = "SEED")]
    random: Option<u64>,
}

#[derive(Args)]
struct MatchArgs {
    /// A brain's command (give it twice: the first engine's score is reported).
    #[arg(long = "engine", value_name = "CMD", num_args = 1, required = true)]
    engines: Vec<String>,
    /// Games in all (each opening is played twice, colours swapped).
    #[arg(long, default_value_t = 52)]
    games: usize,
    /// Milliseconds a move: one number for both, or A,B for each engine.
    #[arg(long, value_name = "MS[,MS]")]
    turn_ms: Option<String>,
    /// Milliseconds a game for each engine: one number or A,B.
    #[arg(long, value_name = "MS[,MS]")]
    match_ms: Option<String>,
    /// The rule.
    #[arg(long, value_enum, default_value_t = gomoku::engine::GameRule::Freestyle)]
    rule: gomoku::engine::GameRule,
    /// The board side (5 to 22).
    #[arg(long, default_value_t = 15)]
    size: usize,
    /// The openings: `classic` (the 26 classic three-stone openings, most of them won by black
    /// in freestyle), `balanced` (26 three-stone openings that Rapfi judges even), or a file
    /// with one opening a line, stones dx,dy from the centre, black first.
    #[arg(long, value_name = "classic|balanced|FILE", default_value = "classic")]
    openings: String,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Threads each engine is told to use (INFO thread_num): one number or A,B.
    #[arg(long, value_name = "T[,T]", default_value = "1")]
    threads: String,
    /// Milliseconds past its limit a brain may take before it forfeits.
    #[arg(long, value_name = "MS", default_value_t = 200)]
    grace_ms: u64,
    /// Milliseconds to wait before a brain that has just answered gets its next command
    /// (some brains drop a command that arrives at once).
    #[arg(long, value_name = "MS", default_value_t = 5)]
    settle_ms: u64,
    /// Write every game (moves, times, result) to FILE, one JSON object a line.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct VctArgs {
    /// The position: a file, or - for standard input.
    #[arg(value_name = "FILE|-", default_value = "-")]
    input: String,
    /// The rule.
    #[arg(long, value_enum, default_value_t = gomoku::engine::GameRule::Freestyle)]
    rule: gomoku::engine::GameRule,
    /// The board side for a move list (a grid gives its own size): 5 to 22.
    #[arg(long, default_value_t = 15)]
    size: usize,
    /// The most attacker threats in a sequence.
    #[arg(long, value_name = "MOVES", default_value_t = 6)]
    depth: u32,
    /// The most nodes searched.
    #[arg(long, value_name = "N", default_value_t = 2_000_000)]
    nodes: u64,
    /// Search by proof numbers (df-pn): the same wins within the same threats, found where the
    /// defender has the fewest answers first, usually in far fewer nodes than the default
    /// iterative deepening over the number of threats.
    #[arg(long)]
    proof_numbers: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The side a VCF is searched for: x (black) or o (white).
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Side {
    /// Black, who moves first.
    X,
    /// White.
    O,
}

#[derive(Args)]
struct VcfArgs {
    /// The position: a file, or - for standard input.
    #[arg(value_name = "FILE|-", default_value = "-")]
    input: String,
    /// Solve every position of FILE (one a line; - for standard input) instead.
    #[arg(long, value_name = "FILE", conflicts_with = "side")]
    batch: Option<String>,
    /// The rule. 15×15 freestyle and standard positions are solved by the 15-line VCF solver
    /// (CPU or GPU); renju and other sizes by the engine's VCF (CPU).
    #[arg(long, value_enum, default_value_t = gomoku::engine::GameRule::Freestyle)]
    rule: gomoku::engine::GameRule,
    /// The board side for move lists (a grid gives its own size): 5 to 22.
    #[arg(long, default_value_t = 15)]
    size: usize,
    /// The attacker (default: the side whose turn it is by the stone counts).
    #[arg(long, value_enum)]
    side: Option<Side>,
    /// The most attacker moves in a sequence, the five included.
    #[arg(long, value_name = "MOVES", default_value_t = 60)]
    depth: u32,
    /// The most attacker moves tried in all (per position).
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    nodes: u64,
    /// --backend, --threads and --devices choose where a --batch runs (one position runs
    /// on one CPU thread); --json prints one object (with --batch one a position, then the
    /// summary).
    #[command(flatten)]
    common: Common,
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
    /// Board size: 1..=28 when counting; with --one up to 10⁹ (construct), 10⁸
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
    /// Predict the count instead of running it: its nodes and its time on the chosen devices,
    /// with 95 % ranges, from counting a growing sample of its chunks there for about SECONDS
    /// (default 6; a sample takes up to a third of them, the samples together about two).
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, require_equals = true,
          default_missing_value = "6", conflicts_with = "one")]
    estimate: Option<f64>,
    /// Skip the estimate that a count expected to take more than a minute prints first (for
    /// timing runs: the estimate counts a sample of chunks, a few seconds).
    #[arg(long, conflicts_with = "estimate")]
    no_estimate: bool,
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
    /// Warp instructions on the GPU: the reductions add, min, max, and, or and xor as a
    /// five-shuffle tree and as one redux.sync, each in a chain of dependent rounds (both
    /// forms' results compared before a time is shown); a fence, an acquire load and a
    /// release store at each memory scope (.cta, .gpu, .sys); loads from a 512 MiB buffer
    /// at strides 1 to 32 words (coalesced against scattered; sums checked on the CPU).
    Warp,
    /// Gomoku VCF on random mid-game positions (20 to 40 stones, no four on the board, the
    /// side to move attacking): --repeat × 1,000 positions on one CPU thread and on every thread, verdicts
    /// compared; positions and nodes a second.
    Vcf,
    /// The Gomoku brain (`gomoku brain`) against itself: --repeat games from seeded four-stone
    /// openings, 50 ms a move; moves, nodes (VCF attacker moves tried and cells scored) and
    /// nodes a second.
    Brain,
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
        Command::Gomoku(a) => match &a.action {
            Some(GomokuAction::Vcf(vcf)) => vcf.common.json,
            Some(GomokuAction::Brain(_)) => false,
            Some(GomokuAction::Match(m)) => m.json,
            Some(GomokuAction::Vct(v)) => v.json,
            None => a.json,
        },
        Command::No3line(a) => a.common.json,
        Command::Info(a) => a.json,
        Command::Merge(a) => a.json,
        Command::Verify(a) => a.common.json,
        Command::Cover(a) => a.common.json,
    };
    let result = match cli.command {
        Command::Nqueens(args) => run_nqueens(args, cancel),
        Command::Selftest(args) => run_selftest(args, cancel),
        Command::Bench(args) => run_bench(args, cancel),
        Command::Gomoku(args) => run_gomoku(args, cancel),
        Command::No3line(args) => run_no3line(args, cancel),
        Command::Info(args) => run_info(args),
        Command::Merge(args) => run_merge(args),
        Command::Verify(args) => run_verify(args, cancel),
        Command::Cover(args) => run_cover(args, cancel),
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
    let selected = backend::select(
        common.backend,
        common.threads,
        &common.devices,
        &warpsearch::builtin::KERNELS,
    )?;
    note!("{}", selected.reason);
    Ok(selected)
}

/// The backend of work that runs on one GPU: the first that `--devices` names.
fn select_one(common: &Common) -> Result<Selected, Error> {
    let first = common.devices.first_only();
    let selected = backend::select(
        common.backend,
        common.threads,
        &first,
        &warpsearch::builtin::KERNELS,
    )?;
    note!("{}", selected.reason);
    Ok(selected)
}

fn control(common: &Common, cancel: Arc<AtomicBool>) -> RunControl {
    RunControl::default()
        .with_cancel(cancel)
        .with_progress(!common.json)
}
mod commands;
mod output;

use commands::bench::run_bench;
use commands::cover::run_cover;
use commands::gomoku::run_gomoku;
use commands::info::run_info;
use commands::no3line::run_no3line;
use commands::nqueens::run_nqueens;
use commands::selftest::run_selftest;
use commands::shards::run_merge;
use commands::verify::run_verify;
