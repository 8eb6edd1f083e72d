//! `warpsearch cover`: exact cover from a dlx1 file (or a built-in problem).

use crate::cli::*;
use warpsearch::cover::{self, Problem, dlx1, problems};

/// Most bytes of a dlx1 input (64 MiB).
const MOST_INPUT: u64 = 64 << 20;

pub(crate) fn run_cover(args: CoverArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    let (problem, source) = match (&args.input, &args.example) {
        (Some(input), None) => (read_problem(input)?, input.clone()),
        (None, Some(example)) => (built_in(example)?, example.clone()),
        _ => {
            return Err(Error::InvalidArgument(
                "give a dlx1 FILE (or - for standard input), or --example NAME".into(),
            ));
        }
    };
    if let Some(path) = &args.write_dlx1 {
        std::fs::write(path, problem.to_dlx1()).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
    }
    if args.common.backend == BackendChoice::Gpu
        && warpsearch::builtin::has_kernels()
        && !cover::runs_on_gpu(&problem)
    {
        return Err(Error::InvalidArgument(format!(
            "{source}: a lane's part of this search does not fit the GPU's shared memory ({} items, solutions of up to {} options): use --backend cpu",
            problem.items.len(),
            problem.data()[4]
        )));
    }
    let selected = backend::select_for(
        args.common.backend,
        args.common.threads,
        &args.common.devices.first_only(),
        cover::runs_on_gpu(&problem),
    )?;
    note!("{}", selected.reason);
    let control = control(&args.common, cancel);
    let started = std::time::Instant::now();
    let counts = cover::count(&problem, &selected.backend, &control)?;
    let seconds = started.elapsed().as_secs_f64();
    let shown = cover::solutions(&problem, args.limit);
    if args.limit > 0 && shown.len() as u64 != counts.solutions.min(args.limit as u64) {
        return Err(Error::Verification(format!(
            "the count found {} solutions, the listing {} (limit {})",
            counts.solutions,
            shown.len(),
            args.limit
        )));
    }
    let names = |solution: &Vec<usize>| -> Vec<String> {
        solution
            .iter()
            .map(|&o| {
                let items: Vec<&str> = problem.options[o]
                    .iter()
                    .map(|&i| problem.items[i].as_str())
                    .collect();
                items.join(" ")
            })
            .collect()
    };
    if args.common.json {
        let listed: Vec<Vec<String>> = shown.iter().map(names).collect();
        let value = serde_json::json!({
            "input": source,
            "items": problem.items.len(),
            "primary": problem.primary,
            "options": problem.options.len(),
            "solutions": counts.solutions,
            "nodes": counts.nodes,
            "backend": selected.backend.kind(),
            "seconds": seconds,
            "listed": listed,
        });
        out!("{value}");
    } else {
        out!(
            "{source}: {} items ({} primary), {} options: {} solutions ({seconds:.3} s, {} nodes)",
            problem.items.len(),
            problem.primary,
            problem.options.len(),
            counts.solutions,
            counts.nodes
        );
        for (k, solution) in shown.iter().enumerate() {
            out!("solution {}:", k + 1);
            for option in names(solution) {
                out!("  {option}");
            }
        }
    }
    Ok(0)
}

fn read_problem(input: &str) -> Result<Problem, Error> {
    use std::io::Read as _;
    let io = |source| Error::Io {
        path: input.to_string(),
        source,
    };
    let mut bytes = Vec::new();
    if input == "-" {
        std::io::stdin()
            .take(MOST_INPUT + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(input).and_then(|f| f.take(MOST_INPUT + 1).read_to_end(&mut bytes))
    }
    .map_err(io)?;
    if bytes.len() as u64 > MOST_INPUT {
        return Err(Error::InvalidArgument(format!(
            "{input}: more than {} MiB of input",
            MOST_INPUT >> 20
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::InvalidArgument(format!(
            "{input}: not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    dlx1::parse(&text).map_err(|e| Error::InvalidArgument(format!("{input}: {e}")))
}

/// The problems `--example` names.
fn built_in(name: &str) -> Result<Problem, Error> {
    let centre = [(3, 3), (3, 4), (4, 3), (4, 4)];
    let problem = match name {
        "pentominoes-6x10" => problems::pentominoes(6, 10, &[]),
        "pentominoes-5x12" => problems::pentominoes(5, 12, &[]),
        "pentominoes-4x15" => problems::pentominoes(4, 15, &[]),
        "pentominoes-3x20" => problems::pentominoes(3, 20, &[]),
        "pentominoes-8x8" => problems::pentominoes(8, 8, &centre),
        "sudoku-4x4" => problems::sudoku(&".".repeat(16)).map_err(Error::InvalidArgument)?,
        _ => match name.strip_prefix("queens-").map(str::parse::<usize>) {
            Some(Ok(n)) if (1..=32).contains(&n) => problems::queens(n),
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "--example {name:?}: one of {}",
                    EXAMPLES.join(", ")
                )));
            }
        },
    };
    Ok(problem)
}

/// The names `--example` takes.
pub(crate) const EXAMPLES: [&str; 7] = [
    "pentominoes-6x10",
    "pentominoes-5x12",
    "pentominoes-4x15",
    "pentominoes-3x20",
    "pentominoes-8x8 (without its centre 2×2)",
    "sudoku-4x4",
    "queens-N (N = 1..32)",
];
