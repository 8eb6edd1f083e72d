//! The command line of a search binary, ready-made: the flags every search needs
//! ([`RunArgs`], a clap `Args` struct to `#[command(flatten)]` into yours) and [`run`], which
//! chooses the backend (the CPU when the build has no kernel), handles Ctrl-C and progress,
//! runs the search on the [`search`] — whole, as one shard, resumable from a
//! checkpoint — writes the result file, prints your answer (text or one JSON line) and returns
//! the exit status. A search binary's `main` is then a few lines:
//!
//! ```no_run
//! # use warpsearch_engine::search::{Kernel, Search, UnitResults};
//! # use warpsearch_engine::shard::Partial;
//! # #[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
//! # struct Count(u64);
//! # impl Partial for Count { fn add(&mut self, o: &Self) { self.0 += o.0 } fn nodes(&self) -> u128 { self.0.into() } }
//! # struct Sevens;
//! # impl Search for Sevens {
//! #     type Partial = Count;
//! #     const UNIT_WORDS: usize = 1;
//! #     const RESULT_WORDS: usize = 1;
//! #     fn problem(&self) -> &str { "sevens" }
//! #     fn size(&self) -> u32 { 1000 }
//! #     fn units(&self) -> Vec<u64> { (0..10).collect() }
//! #     fn params(&self) -> Vec<u64> { vec![] }
//! #     fn run_unit(&self, unit: &[u64], result: &mut [u64]) {
//! #         result[0] = (unit[0] * 100..unit[0] * 100 + 100).filter(|i| i % 7 == 0).count() as u64;
//! #     }
//! #     fn partial(&self, results: &UnitResults) -> Count { Count(results.sum(0)) }
//! #     fn kernel(&self) -> Option<Kernel> { None }
//! # }
//! use clap::Parser;
//! use warpsearch_engine::kit::{self, Answer, RunArgs};
//!
//! /// Counts the numbers below 1000 divisible by 7.
//! #[derive(Parser)]
//! struct Args {
//!     #[command(flatten)]
//!     run: RunArgs,
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     let args = Args::parse();
//!     kit::run(&Sevens, &args.run, |count: &Count, seconds| Answer {
//!         json: serde_json::json!({ "count": count.0, "seconds": seconds }),
//!         text: format!("{} multiples of 7", count.0),
//!         ok: count.0 == 143,
//!     })
//! }
//! ```

use crate::control::RunControl;
use crate::device::backend::{self, BackendChoice};
use crate::device::gpu::DeviceChoice;
use crate::error::{Error, GpuError};
use crate::run::search::{self, Search};
use crate::shard::{CheckpointFile, Shard, ShardResult, write_json_atomically};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The flags of a search binary: where it runs, which shard, files, output.
#[derive(clap::Args, Clone, Debug)]
pub struct RunArgs {
    /// Where to run: auto picks the GPU when one is usable and this build has the kernel,
    /// else every CPU core.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Threads for the CPU backend (default: every core).
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
    /// GPUs to use: `all`, or indices such as `0,2` (naming GPUs asks for a GPU run).
    #[arg(long, value_name = "all|I,J,…", default_value = "all")]
    pub devices: DeviceChoice,
    /// Run only shard K of M of a fixed, machine-independent partition; add the shards' result
    /// files up with `warpsearch merge`.
    #[arg(long, value_name = "K/M")]
    pub shard: Option<String>,
    /// Write this run's result (counts, shard, partition fingerprint) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub result: Option<PathBuf>,
    /// Save progress to FILE every --checkpoint-every seconds and on Ctrl-C; the same command
    /// with the same FILE resumes where it stopped.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Seconds between two checkpoint saves.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 30,
        requires = "checkpoint"
    )]
    pub checkpoint_every: u64,
    /// One JSON object on stdout instead of text (and no progress bar).
    #[arg(long)]
    pub json: bool,
    /// Instead of searching, print what this binary carries (its search's kernel: the PTX and
    /// the native architectures built beside it) and what it finds here (the GPU, the form
    /// the kernel loads as on it, the CPU threads), as `warpsearch info` does for the built-in
    /// searches.
    #[arg(long, conflicts_with_all = ["shard", "checkpoint", "result", "merge", "estimate", "verify"])]
    pub info: bool,
    /// Instead of searching, add up the result files of this search's shards (each written
    /// with --shard K/M --result FILE, every shard once) by the search's own rule, and print
    /// the answer. `warpsearch merge` adds numbers up field by field, which is right for
    /// counts; a search whose results combine otherwise (the shorter of two rulers) merges here.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["shard", "checkpoint", "result"])]
    pub merge: Vec<PathBuf>,
    /// Instead of searching, predict its nodes and its time on the chosen devices, with 95 %
    /// ranges, by running a sample of its chunks there for about SECONDS (default 6). With
    /// --probes: its nodes alone, from random paths through the tree (no device time); the
    /// same on a GPU that a sample of chunks could not fill (it says so).
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, require_equals = true,
          default_missing_value = "6",
          conflicts_with_all = ["shard", "checkpoint", "result", "merge"])]
    pub estimate: Option<f64>,
    /// With --estimate: predict the nodes from N random paths below random units instead
    /// (Knuth's estimator; the search's description must have a probe). More: a narrower
    /// range.
    #[arg(long, value_name = "N", requires = "estimate")]
    pub probes: Option<u64>,
    /// Skip the estimate that a run expected to take more than a minute prints first (for a
    /// search whose description has a probe; the estimate samples about 2 s).
    #[arg(long)]
    pub no_estimate: bool,
    /// The seed of --estimate's random paths and of --verify's sample (the same seed, the
    /// same estimate or sample).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Instead of searching, recount a sample of the chunks these result files or checkpoints
    /// of this search hold, on the chosen devices, and compare them chunk by chunk (as
    /// `warpsearch verify`): each chunk that differs is named with its file and the device
    /// that computed it, and the exit status is 3. Not for branch-and-bound searches.
    #[arg(long, value_name = "FILE", num_args = 1..,
          conflicts_with_all = ["shard", "checkpoint", "result", "merge", "estimate"])]
    pub verify: Vec<PathBuf>,
    /// With --verify: the share of the chunks to recount, drawn with --seed: 0.01 or 1%
    /// (default 1%, at least one chunk).
    #[arg(long, value_name = "P", requires = "verify")]
    pub sample: Option<String>,
    /// With --verify: recount these chunks instead, e.g. 0,17,200-203.
    #[arg(
        long,
        value_name = "LIST",
        requires = "verify",
        conflicts_with = "sample"
    )]
    pub chunks: Option<String>,
}

/// What a finished whole run prints: your search's answer.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The `--json` line (the kit adds `"backend"` when it is missing).
    pub json: serde_json::Value,
    /// The text line(s) otherwise.
    pub text: String,
    /// False when the answer is known to be wrong (a count that misses its known value): the
    /// exit status is then 1.
    pub ok: bool,
}

/// Exit status of a run stopped by Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Runs `search` as `args` say and prints the outcome: for a whole run `answer(counts,
/// seconds)`, for a shard its result (the same JSON as its `--result` file). Errors are one
/// `error: …` line on stderr (and `{"error": …}` on stdout with `--json`). Exit status: 0, 1
/// for an error or a wrong answer, 130 after Ctrl-C (progress kept in the checkpoint).
pub fn run<S: Search>(
    search: &S,
    args: &RunArgs,
    answer: impl FnOnce(&S::Partial, f64) -> Answer,
) -> ExitCode {
    match try_run(search, args, answer) {
        Ok(code) => code,
        Err(error) => {
            let code = match error {
                Error::Interrupted => EXIT_INTERRUPTED,
                _ => 1,
            };
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({ "error": error.to_string(), "exit_code": code })
                );
            }
            eprintln!("error: {error}");
            if matches!(error, Error::Interrupted) && args.checkpoint.is_some() {
                eprintln!("progress saved; run the same command again to resume");
            }
            ExitCode::from(code)
        }
    }
}

/// The backend `args` choose for `search` (auto without a kernel in this build: the CPU), the
/// reason on stderr.
fn select<S: Search>(search: &S, args: &RunArgs) -> Result<backend::Selected, Error> {
    let selected = backend::select_for(
        args.backend,
        args.threads,
        &args.devices,
        search.kernel().is_some_and(|k| !k.ptx.trim().is_empty()),
    )?;
    eprintln!("{}", selected.reason);
    Ok(selected)
}

/// `--info` as JSON: the search, its kernel as built into the binary, the GPU and the form the
/// kernel loads as there (or why none is usable), the CPU threads.
pub fn info<S: Search>(search: &S, args: &RunArgs) -> serde_json::Value {
    let kernel = search.kernel().filter(|k| !k.ptx.trim().is_empty());
    let native: Vec<String> = kernel
        .map(|k| {
            k.native
                .iter()
                .map(|(arch, _)| format!("sm_{arch}"))
                .collect()
        })
        .unwrap_or_default();
    let target = kernel.and_then(|k| {
        k.ptx
            .lines()
            .find_map(|line| line.trim().strip_prefix(".target "))
            .map(|t| t.trim().to_string())
    });
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    let mut value = serde_json::json!({
        "problem": search.problem(),
        "size": search.size(),
        "version": env!("CARGO_PKG_VERSION"),
        "kernel": kernel.map(|k| k.name),
        "ptx_bytes": kernel.map(|k| k.ptx.len()),
        "ptx_target": target,
        "native_archs": native,
        "cpu_threads": threads,
    });
    match crate::device::gpu::GpuDevice::open() {
        Ok(device) => {
            value["gpu"] = device.describe().into();
            if let Some(k) = kernel {
                let loaded = device.module(&k.module()).and_then(|(module, form)| {
                    module
                        .load_function(k.name)
                        .map(|_| form)
                        .map_err(|e| GpuError::driver(format!("looking up kernel {}", k.name), e))
                });
                value["kernel_loaded_as"] = match loaded {
                    Ok(form) => form.to_string().into(),
                    Err(why) => format!("not loaded: {why}").into(),
                };
            }
        }
        Err(why) => value["gpu_unavailable"] = why.to_string().into(),
    }
    value
}

/// `--info` as text, from [`info`]'s JSON.
fn info_text(value: &serde_json::Value) -> String {
    let text = |key: &str| value[key].as_str().unwrap_or("?").to_string();
    let mut lines = vec![format!(
        "{} {} (warpsearch {})",
        text("problem"),
        value["size"],
        text("version")
    )];
    if value["kernel"].is_null() {
        lines.push("  GPU kernel: none built into this binary (CPU only)".into());
    } else {
        lines.push(format!(
            "  GPU kernel: {} ({} bytes of PTX for {})",
            text("kernel"),
            value["ptx_bytes"],
            text("ptx_target")
        ));
        let native: Vec<&str> = value["native_archs"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        lines.push(if native.is_empty() {
            "  native code: none (built without ptxas): every GPU compiles the PTX on its machine's first run".into()
        } else {
            format!(
                "  native code: {} (other GPUs compile the PTX on their machine's first run)",
                native.join(", ")
            )
        });
    }
    if value["gpu"].is_string() {
        let loaded = value["kernel_loaded_as"]
            .as_str()
            .map(|form| format!("; kernel loaded as {form}"))
            .unwrap_or_default();
        lines.push(format!("  GPU: {}{loaded}", text("gpu")));
    } else {
        lines.push(format!("  GPU: none usable: {}", text("gpu_unavailable")));
    }
    lines.push(format!("  CPU: {} threads", value["cpu_threads"]));
    lines.join("\n")
}

/// A flag that Ctrl-C (or SIGTERM) raises, for the run's cancellation.
fn stop_on_interrupt() -> Result<Arc<AtomicBool>, Error> {
    let stop = Arc::new(AtomicBool::new(false));
    crate::control::on_interrupt(stop.clone())?;
    Ok(stop)
}

/// `--estimate`: a sample run on the chosen devices, or with `--probes` Knuth's random paths
/// (also when a sample could not fill the GPU: [`search::sample_underfills`]).
fn estimate<S: Search>(search: &S, args: &RunArgs, budget: f64) -> Result<ExitCode, Error> {
    let selected = match args.probes {
        Some(_) => None,
        None => {
            if !(budget > 0.0 && budget.is_finite()) {
                return Err(Error::InvalidArgument(format!(
                    "--estimate=SECONDS wants a positive number of seconds; got {budget}"
                )));
            }
            Some(select(search, args)?)
        }
    };
    let underfilled = match &selected {
        Some(selected) => {
            let units = (search.units().len() / S::UNIT_WORDS.max(1)) as u64;
            search::sample_underfills(search, &selected.backend, units)?
        }
        None => None,
    };
    let mut value = match (&selected, underfilled) {
        (Some(selected), None) => {
            let control = RunControl::quiet().with_cancel(stop_on_interrupt()?);
            let prediction = search::predict(search, &selected.backend, &control, budget)?;
            if !args.json {
                println!(
                    "{} {}: about {:.3e} nodes (95 %: {:.3e} – {:.3e}), about {:.3} s on {} ({:.3} – {:.3} s)",
                    search.problem(),
                    search.size(),
                    prediction.nodes,
                    prediction.nodes_low,
                    prediction.nodes_high,
                    prediction.seconds,
                    selected.backend.describe(),
                    prediction.seconds_low,
                    prediction.seconds_high
                );
                println!(
                    "  from running {} of its {} chunks there ({:.3} s in all)",
                    prediction.sample_chunks, prediction.chunks, prediction.sample_seconds
                );
                if !prediction.steady {
                    println!("  {}", crate::shard::predict::preview::UNSTEADY);
                }
            }
            let mut value = serde_json::to_value(&prediction)
                .map_err(|e| Error::Verification(e.to_string()))?;
            value["backend"] = selected.backend.describe().into();
            value
        }
        _ => {
            let probes = args.probes.unwrap_or(PREVIEW_PROBES);
            let estimate = search::estimate(search, probes, args.seed)?;
            if !args.json {
                println!(
                    "{} {}: about {:.3e} nodes (95 % range {:.3e} to {:.3e}; {} probes below {} {}, seed {})",
                    search.problem(),
                    search.size(),
                    estimate.nodes,
                    estimate.low,
                    estimate.high,
                    estimate.probes,
                    estimate.units,
                    // A search that expands its list probes below the roots it expands.
                    if S::EXPANDS { "roots" } else { "units" },
                    args.seed
                );
                if let Some((units, lanes)) = underfilled {
                    println!("  {}", no_time(units, lanes));
                }
            }
            let mut value =
                serde_json::to_value(&estimate).map_err(|e| Error::Verification(e.to_string()))?;
            value["seed"] = args.seed.into();
            if let Some((units, lanes)) = underfilled {
                value["no_time"] = no_time(units, lanes).into();
            }
            value
        }
    };
    if args.json {
        value["estimate"] = true.into();
        value["problem"] = search.problem().into();
        value["size"] = search.size().into();
        println!("{value}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Probes a preview makes for its rough guess of the nodes (no device time), and an
/// `--estimate` whose sample could not fill the GPU.
const PREVIEW_PROBES: u64 = 256;

/// Why an estimate on a GPU gives no time ([`search::sample_underfills`]).
fn no_time(units: u64, lanes: u64) -> String {
    format!(
        "no time estimate: a sample of chunks of {units} units would not fill this GPU's {lanes} lanes, and a launch that does not fill it lasts as long as its longest unit"
    )
}
/// The rough guess's nodes a second on one GPU: below the fastest search on the skeleton
/// (nqueens-simple, 2.7·10¹¹ on an H100; docs/BENCHMARKS.md), so that slower searches still
/// get their estimate.
const GUESS_PER_GPU: f64 = 1e11;
/// The rough guess's nodes a second on one CPU thread.
const GUESS_PER_THREAD: f64 = 3e7;

/// The estimate a run expected to take more than a minute prints first (on stdout; on stderr
/// with `--json`): Knuth's probes guess the nodes without device time, and when that guess
/// may pass a minute a sample of about two seconds on the chosen devices predicts the time
/// ([`crate::shard::predict::preview`]). Nothing for a search without a probe or with a bound.
fn preview<S: Search>(
    search: &S,
    backend: &crate::device::backend::Backend,
    control: &RunControl,
    shard: Shard,
    args: &RunArgs,
) -> Result<(), Error> {
    use crate::shard::predict::preview;
    let Ok(rough) = search::estimate(search, PREVIEW_PROBES, args.seed) else {
        return Ok(());
    };
    let guess = preview::rough_seconds(rough.nodes, backend, GUESS_PER_GPU, GUESS_PER_THREAD);
    let what = format!("{} {}", search.problem(), search.size());
    let share = 1.0 / f64::from(shard.of);
    if guess * share < preview::FROM_GUESS {
        return Ok(());
    }
    // Where a sample cannot time the run, the probes' nodes are what there is to say.
    let underfilled = search::sample_underfills(search, backend, rough.units).unwrap_or(None);
    let line = match underfilled {
        Some((units, lanes)) => (guess * share > preview::ABOVE).then(|| {
            format!(
                "{what}: about {:.3e} nodes (95 %: {:.3e} – {:.3e}, from {} random probes); {}",
                rough.nodes * share,
                rough.low * share,
                rough.high * share,
                rough.probes,
                no_time(units, lanes)
            )
        }),
        None => preview::first_line(&what, guess, share, backend, |budget| {
            search::predict(search, backend, control, budget)
        })?,
    };
    match (line, args.json) {
        (Some(line), true) => eprintln!("{line}"),
        (Some(line), false) => println!("{line}"),
        (None, _) => {}
    }
    Ok(())
}

/// `--verify FILES…`: recounts a sample of the files' chunks and compares them.
fn verify<S: Search>(search: &S, args: &RunArgs) -> Result<ExitCode, Error> {
    let held = crate::shard::verify::Held::<S::Partial>::read(&args.verify)?;
    if held.partition.problem != search.problem() || held.partition.n != search.size() {
        return Err(Error::InvalidArgument(format!(
            "{}: chunks of {} {}, not of {} {}",
            args.verify[0].display(),
            held.partition.problem,
            held.partition.n,
            search.problem(),
            search.size()
        )));
    }
    let plan = held.plan(args.sample.as_deref(), args.chunks.as_deref(), args.seed)?;
    let control = RunControl::quiet()
        .with_cancel(stop_on_interrupt()?)
        .with_progress(!args.json);
    let selected = select(search, args)?;
    let backend = selected.backend.describe();
    eprintln!("{}", held.announce(&plan, &backend));
    let report = held.recount(&plan, &backend, |chunks| {
        search::recount(search, &selected.backend, &control, chunks)
    })?;
    if args.json {
        let value =
            serde_json::to_value(&report).map_err(|e| Error::Verification(e.to_string()))?;
        println!("{value}");
    } else {
        for line in report.lines() {
            println!("{line}");
        }
    }
    Ok(if report.equal {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::shard::verify::EXIT_DIFFERENT)
    })
}

fn try_run<S: Search>(
    search: &S,
    args: &RunArgs,
    answer: impl FnOnce(&S::Partial, f64) -> Answer,
) -> Result<ExitCode, Error> {
    if args.info {
        let value = info(search, args);
        if args.json {
            println!("{value}");
        } else {
            println!("{}", info_text(&value));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(budget) = args.estimate {
        return estimate(search, args, budget);
    }
    if !args.verify.is_empty() {
        return verify(search, args);
    }
    if !args.merge.is_empty() {
        let (partition, counts, seconds, _) = crate::shard::merge::<S::Partial>(&args.merge)?;
        if partition.problem != search.problem() || partition.n != search.size() {
            return Err(Error::InvalidArgument(format!(
                "{}: shards of {} {}, not of {} {}",
                args.merge[0].display(),
                partition.problem,
                partition.n,
                search.problem(),
                search.size()
            )));
        }
        let Answer { json, text, ok } = answer(&counts, seconds);
        match args.json {
            true => println!("{json}"),
            false => println!("{text}"),
        }
        return Ok(if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    let shard = match &args.shard {
        Some(text) => Shard::parse(text)?,
        None => Shard::WHOLE,
    };
    let stop = stop_on_interrupt()?;
    let control = RunControl::quiet()
        .with_cancel(stop.clone())
        .with_progress(!args.json);
    let selected = select(search, args)?;
    let resuming = args.checkpoint.as_ref().is_some_and(|path| path.exists());
    if !args.no_estimate && !resuming {
        let quiet = RunControl::quiet().with_cancel(stop);
        preview(search, &selected.backend, &quiet, shard, args)?;
    }
    let checkpoint = args.checkpoint.clone().map(|path| CheckpointFile {
        path,
        every: Duration::from_secs(args.checkpoint_every),
    });
    let result: ShardResult<S::Partial> = search::run(
        search,
        &selected.backend,
        &control,
        shard,
        checkpoint.as_ref(),
    )?;
    // The answer is printed before the result file is written: a full disk must not lose a
    // finished count.
    let ok = if shard != Shard::WHOLE {
        let value =
            serde_json::to_value(&result).map_err(|e| Error::Verification(e.to_string()))?;
        if args.json {
            println!("{value}");
        } else {
            println!(
                "{} shard {shard} done in {:.3} s; add the shards up with `warpsearch merge FILES…`",
                search.problem(),
                result.seconds
            );
        }
        true
    } else {
        let Answer { mut json, text, ok } = answer(&result.counts, result.seconds);
        if args.json {
            if let Some(object) = json.as_object_mut() {
                object
                    .entry("backend")
                    .or_insert_with(|| selected.backend.kind().into());
            }
            println!("{json}");
        } else {
            println!("{text}");
        }
        ok
    };
    if let Some(path) = &args.result
        && let Err(error) = write_json_atomically(path, &result)
    {
        // The answer is out already (stdout keeps its one JSON line); the status says the
        // file is missing.
        eprintln!("error: {error}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
