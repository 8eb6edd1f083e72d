//! `cargo xtask`: the project's build and test driver.
//!
//! ```text
//! cargo xtask run <args…>     release build, then run the warpsearch CLI with <args…>
//! cargo xtask test            fmt check, clippy -D warnings, cargo doc -D warnings, PTX build, ptxas (sm_80, sm_90), cargo test (release, ignored tests included)
//! cargo xtask ptx             write target/ptx/kernels.ptx, the ptxas -v reports, the cubins and their SASS (nvdisasm from PyPI)
//! cargo xtask bench <what>    release build, then `warpsearch bench <what>` (e.g. nqueens --to 16)
//! cargo xtask bench nqueens-baseline [N]   the plain C counter the CPU backend is measured against
//! cargo xtask bench gomoku                  criterion benchmarks of the Gomoku threat tables
//! cargo xtask fresh-check     the README's front door in a fresh copy, with a rustup home that lacks the pinned nightly
//! cargo xtask cluster-test    a one-node Slurm cluster here: deploy/slurm/ runs 4 CPU shards of nqueens 16 and merges them
//! cargo xtask kit-test        examples/nqueens-simple copied out of the repo as a user's crate (warpsearch_engine::kit): shards merged and verified, a SIGINT-stopped count resumed
//! cargo xtask bundle          the release binaries and scripts/bench-suite.sh into bundle/, to copy to a GPU machine
//! cargo xtask diagrams        draw docs/learn/img/*.svg by running the warp primitives' CPU twins (`test` checks them)
//! cargo xtask exercises       the exercises crate: the answers pass, the blanks fail every test
//! cargo xtask doc-gpu-blocks  the `rust,ignore` (GPU-only) blocks of docs/ built to PTX and checked by ptxas
//! cargo xtask own-kernel      examples/first-kernel (learning path chapter 10) built, tested and run as a learner would
//! cargo xtask figures         every measured figure in README.md and docs/ links to docs/BENCHMARKS.md
//! cargo xtask plots           draw docs/img/plots/*.svg from the logs in results/ (`test` checks them)
//! ```
//!
//! Every build it starts gets `WARPSEARCH_PTXAS` (NVIDIA's assembler from PyPI, in `.tools/`),
//! so the kernels are embedded as native code for the common GPUs besides the PTX.
//!
//! ```text
//! ```

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use warpsearch_builder::{Toolchain, tools};

mod cluster;
mod figures;
mod fresh;
mod learn;
mod plots;

/// Architectures the PTX must assemble for.
const PTXAS_ARCHS: [&str; 2] = ["sm_80", "sm_90"];

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("test") => test(),
        Some("ptx") => ptx().map(|_| ()),
        Some("bench") => bench(&args[1..]),
        Some("bundle") => bundle(),
        Some("fresh-check") => fresh::check(&root()),
        Some("cluster-test") => cluster_test(),
        Some("kit-test") => kit_test(),
        Some("diagrams") => learn::diagrams(false),
        Some("exercises") => learn::exercises_test(),
        Some("doc-gpu-blocks") => learn::gpu_blocks(),
        Some("own-kernel") => learn::own_kernel_test(),
        Some("figures") => figures::check(),
        Some("plots") => plots::plots(false),
        _ => Err("usage: cargo xtask <run ARGS…|test|ptx|bench WHAT [ARGS…]|bench nqueens-baseline [N]|bundle|fresh-check|cluster-test|kit-test|diagrams|exercises|doc-gpu-blocks|own-kernel|figures|plots>".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ is in the workspace root")
        .to_path_buf()
}

/// The build's target folder: `$CARGO_TARGET_DIR`, else `target/` in the workspace.
fn target_dir() -> PathBuf {
    env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from)
}

fn cargo() -> Command {
    let mut command = Command::new(env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(root());
    let ptxas = ptxas_path();
    if env::var_os("WARPSEARCH_PTXAS").is_none() && ptxas.exists() {
        command.env("WARPSEARCH_PTXAS", ptxas);
    }
    command
}

fn status(command: &mut Command, what: &str) -> Result {
    eprintln!("xtask: {what}");
    let status = command.status().map_err(|e| format!("{what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// The nightly pinned in kernels/rust-toolchain.toml, with its components.
fn kernel_toolchain() -> Result<Toolchain> {
    Toolchain::pinned_in(&root().join("kernels")).map_err(|e| e.to_string())
}

/// Makes sure the pinned nightly and its components (rust-src, llvm-tools) are installed,
/// installing them when something is missing, and verifies the result.
fn ensure_nightly() -> Result {
    let toolchain = kernel_toolchain()?;
    if toolchain.check().is_ok() {
        return Ok(());
    }
    eprintln!(
        "xtask: installing {} (for the GPU kernels): {}",
        toolchain.channel,
        toolchain.install_command()
    );
    toolchain.install().map_err(|e| e.to_string())?;
    eprintln!("xtask: {} is installed and verified", toolchain.channel);
    Ok(())
}

/// [`ensure_nightly`] for commands that can go on without the GPU kernels: true when the PTX
/// can be required, else one warning and false (the build goes on CPU-only).
fn nightly_or_cpu_only() -> bool {
    match ensure_nightly() {
        Ok(()) => true,
        Err(why) => {
            eprintln!(
                "xtask: warning: {why}\nxtask: building without GPU kernels: this warpsearch runs on the CPU only"
            );
            false
        }
    }
}

/// Builds the release binary; with `require_ptx`, a PTX build failure is an error.
fn build_release(require_ptx: bool) -> Result<PathBuf> {
    let mut command = cargo();
    command.args(["build", "--release", "--package", "warpsearch"]);
    if require_ptx {
        command.env("WARPSEARCH_REQUIRE_PTX", "1");
    }
    status(&mut command, "building warpsearch (release)")?;
    Ok(target_dir().join("release/warpsearch"))
}

fn run(args: &[String]) -> Result {
    let with_ptx = nightly_or_cpu_only();
    if with_ptx && let Err(why) = ensure_ptxas() {
        eprintln!(
            "xtask: warning: {why}\nxtask: the kernels are embedded as PTX only (the driver compiles them on this machine's first GPU run)"
        );
    }
    let binary = build_release(with_ptx)?;
    let status = Command::new(binary)
        .args(args)
        .status()
        .map_err(|e| e.to_string())?;
    std::process::exit(status.code().unwrap_or(1));
}

fn bench(args: &[String]) -> Result {
    if args.first().map(String::as_str) == Some("nqueens-baseline") {
        return bench_baseline(args.get(1).map_or("16", String::as_str));
    }
    if args.first().map(String::as_str) == Some("gomoku") {
        return status(
            cargo().args(["bench", "--package", "warpsearch", "--bench", "gomoku"]),
            "criterion: gomoku",
        );
    }
    let mut full = vec!["bench".to_string()];
    full.extend_from_slice(args);
    run(&full)
}

fn test() -> Result {
    status(
        cargo().args(["fmt", "--all", "--", "--check"]),
        "cargo fmt --check",
    )?;
    figures::check()?;
    ensure_nightly()?;
    ensure_ptxas()?;
    let mut clippy = cargo();
    clippy
        .args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ])
        .env("WARPSEARCH_REQUIRE_PTX", "1");
    status(&mut clippy, "cargo clippy -D warnings")?;
    let mut doc = cargo();
    doc.args(["doc", "--no-deps", "--workspace"])
        .env("RUSTDOCFLAGS", "-D warnings")
        .env("WARPSEARCH_REQUIRE_PTX", "1");
    status(&mut doc, "cargo doc -D warnings")?;
    ptx()?;
    // Release, so that the exhaustive Gomoku table check (marked #[ignore] for debug runs)
    // can be included: it compares all 21.5 M table entries with the definitions (≈ 40 s).
    let mut tests = cargo();
    tests
        .args([
            "test",
            "--workspace",
            "--exclude",
            "exercises",
            "--release",
            "--",
            "--include-ignored",
        ])
        .env("WARPSEARCH_REQUIRE_PTX", "1");
    status(
        &mut tests,
        "cargo test --workspace --exclude exercises --release -- --include-ignored",
    )?;
    learn::exercises_test()?;
    learn::diagrams(true)?;
    plots::plots(true)?;
    learn::gpu_blocks()?;
    learn::own_kernel_test()?;
    example_test()?;
    if env::var_os("WARPSEARCH_SKIP_CLUSTER_TEST").is_some() {
        eprintln!("xtask: cluster test skipped (WARPSEARCH_SKIP_CLUSTER_TEST is set)");
    } else {
        cluster_test()?;
    }
    if env::var_os("WARPSEARCH_SKIP_FRESH_CHECK").is_some() {
        eprintln!("xtask: fresh-machine check skipped (WARPSEARCH_SKIP_FRESH_CHECK is set)");
        return Ok(());
    }
    fresh::check(&root())
}

/// The Costas example, built from its own manifest as a user would: fmt, clippy, its tests
/// (orders 1..=12 against OEIS on the CPU, the tutorial's code blocks against its files), and
/// its CLI's `--json` for order 12.
/// The examples, each its own workspace built as a user would: (folder, the prefix of its
/// build variables, a size to run, the JSON field and value it must print).
const EXAMPLES: [(&str, &str, &str, &str, u64); 4] = [
    ("costas", "COSTAS", "12", "count", 7852),
    ("nqueens-simple", "QUEENS", "12", "count", 14200),
    ("golomb", "GOLOMB", "12", "length", 85),
    ("langford", "LANGFORD", "12", "count", 108144),
];

/// The fenced blocks of a markdown text in these languages, in order.
fn code_blocks<'a>(text: &'a str, languages: &[&str]) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<(&'a str, Vec<&'a str>)> = None;
    for line in text.lines() {
        match (current.take(), line.strip_prefix("```")) {
            (None, Some(language)) => current = Some((language.trim(), Vec::new())),
            (Some((language, lines)), Some(_)) => {
                if languages.contains(&language) {
                    blocks.push(lines.join("\n"));
                }
            }
            (Some((language, mut lines)), None) => {
                lines.push(line);
                current = Some((language, lines));
            }
            (None, None) => {}
        }
    }
    blocks
}

/// docs/tutorial-NAME.md shows examples/NAME's code in fenced blocks: each `rust` or `toml`
/// block must stand verbatim in one of the example's files (which this test builds and
/// runs), so a tutorial cannot drift from code that compiles.
fn tutorial_matches(name: &str) -> Result {
    blocks_stand_in_example(&format!("docs/tutorial-{name}.md"), name)
}

/// [`tutorial_matches`] for any page `doc` that shows examples/NAME's files.
fn blocks_stand_in_example(doc: &str, name: &str) -> Result {
    let text = fs::read_to_string(root().join(doc)).map_err(|e| format!("{doc}: {e}"))?;
    let example = root().join("examples").join(name);
    let files = [
        "Cargo.toml",
        "build.rs",
        "src/lib.rs",
        "src/main.rs",
        "kernels/Cargo.toml",
        "kernels/rust-toolchain.toml",
        "kernels/src/lib.rs",
    ];
    let sources: Vec<String> = files
        .iter()
        .map(|f| fs::read_to_string(example.join(f)).unwrap_or_default())
        .collect();
    let blocks = code_blocks(&text, &["rust", "toml"]);
    if blocks.len() < 3 {
        return Err(format!("{doc}: only {} code blocks found", blocks.len()));
    }
    for block in &blocks {
        if !sources.iter().any(|source| source.contains(block.as_str())) {
            return Err(format!(
                "this block of {doc} is in none of examples/{name}'s files:\n{block}"
            ));
        }
    }
    eprintln!(
        "xtask: {doc}: its {} code blocks stand in examples/{name}",
        blocks.len()
    );
    Ok(())
}

fn example_test() -> Result {
    for (name, prefix, size, field, expected) in EXAMPLES {
        tutorial_matches(name)?;
        let example = root().join("examples").join(name);
        let require = format!("{prefix}_REQUIRE_PTX");
        let in_example = |args: &[&str]| {
            let mut command = cargo();
            command.current_dir(&example).args(args).env(&require, "1");
            command
        };
        fmt_clippy_test(&in_example, &format!("examples/{name}"))?;
        let manifest = format!("examples/{name}/Cargo.toml");
        let what = format!("cargo run --release --manifest-path {manifest} -- {size} --json");
        eprintln!("xtask: {what}");
        let output = cargo()
            .args(["run", "--quiet", "--release", "--manifest-path", &manifest])
            .args(["--", size, "--json"])
            .env(&require, "1")
            .output()
            .map_err(|e| format!("{what}: {e}"))?;
        let (value, text) = json_line(&output, &what)?;
        if !output.status.success() || value[field] != expected || value["known_match"] != true {
            return Err(format!("{what}: expected {field} {expected}, got {text}"));
        }
        eprintln!("xtask: examples/{name}: {}", text.trim());
    }
    kit_test()
}

/// A crate of its own checked as CI checks this workspace: `cargo fmt --check`, clippy with
/// warnings denied, and its tests (release), each command made by `in_crate(args)`.
fn fmt_clippy_test(in_crate: &dyn Fn(&[&str]) -> Command, label: &str) -> Result {
    status(
        &mut in_crate(&["fmt", "--all", "--", "--check"]),
        &format!("{label}: cargo fmt --check"),
    )?;
    status(
        &mut in_crate(&[
            "clippy",
            "--release",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
        &format!("{label}: cargo clippy -D warnings"),
    )?;
    status(
        &mut in_crate(&["test", "--release", "--workspace"]),
        &format!("{label}: cargo test --release --workspace"),
    )
}

/// Writes generated files (`drawn`: name and text) into `folder`, or (`check`) fails when a
/// committed one differs, telling the reader which `cargo xtask` command makes it again.
/// `what`: "diagrams" or "plots"; `from`: what they are drawn from, for the message.
fn write_or_check(
    folder: &Path,
    drawn: &[(&str, String)],
    check: bool,
    what: &str,
    from: &str,
) -> Result {
    if !check {
        fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    for (name, text) in drawn {
        let path = folder.join(name);
        if check {
            if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                return Err(format!(
                    "{} is not what {from} give now: run `cargo xtask {what}` and commit it",
                    path.display()
                ));
            }
        } else {
            fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    let shown = folder.strip_prefix(root()).unwrap_or(folder).display();
    let verb = if check {
        format!("match {from}")
    } else {
        "written".into()
    };
    eprintln!("xtask: {} {what} in {shown}/ {verb}", drawn.len());
    Ok(())
}

/// The files of examples/NAME copied to `crate_dir` (emptied first), with the paths that named
/// this repository's crates pointing into this clone instead: the example as a crate of a user's
/// own, in a folder of its own.
fn copy_out_of_the_repository(name: &str, crate_dir: &Path) -> Result {
    let example = root().join("examples").join(name);
    let _ = fs::remove_dir_all(crate_dir);
    let clone = root();
    let clone = clone.to_str().ok_or("the repository's path is not UTF-8")?;
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        "src/main.rs",
        "src/lib.rs",
        "kernels/Cargo.toml",
        "kernels/rust-toolchain.toml",
        "kernels/src/lib.rs",
    ] {
        let from = example.join(file);
        if file == "src/lib.rs" && !from.exists() {
            continue;
        }
        let text = fs::read_to_string(&from).map_err(|e| format!("{}: {e}", from.display()))?;
        let text = text
            .replace("\"../../../kernels\"", &format!("\"{clone}/kernels\""))
            .replace("\"../../engine\"", &format!("\"{clone}/engine\""))
            .replace("\"../../builder\"", &format!("\"{clone}/builder\""));
        let to = crate_dir.join(file);
        fs::create_dir_all(to.parent().ok_or("a file without a folder")?)
            .map_err(|e| e.to_string())?;
        fs::write(&to, text).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    Ok(())
}

/// The JSON line a command printed on stdout, and the text it was read from; `what` names the
/// command in the error when it is not JSON.
fn json_line(output: &std::process::Output, what: &str) -> Result<(serde_json::Value, String)> {
    let text = String::from_utf8_lossy(&output.stdout).to_string();
    let value =
        serde_json::from_str(text.trim()).map_err(|e| format!("{what} printed {text:?}: {e}"))?;
    Ok((value, text))
}

/// examples/nqueens-simple copied out of the repository, as a user's own crate that names a
/// clone's `warpsearch-engine`, `warpsearch-builder` and `warpsearch-kernels` by path: its kernel
/// crate, its build script and a `main` of at most 60 lines on `warpsearch_engine::kit`. Built in its own target folder; returns the binary.
fn downstream_crate() -> Result<PathBuf> {
    let crate_dir = env::temp_dir().join("warpsearch-downstream/nqueens-simple");
    copy_out_of_the_repository("nqueens-simple", &crate_dir)?;
    let main_lines = fs::read_to_string(crate_dir.join("src/main.rs"))
        .map_err(|e| e.to_string())?
        .lines()
        .count();
    if main_lines > 60 {
        return Err(format!(
            "the downstream crate's main.rs has {main_lines} lines; the kit should keep it to 60"
        ));
    }
    let target = target_dir().join("downstream");
    let mut build = cargo();
    build
        .current_dir(&crate_dir)
        .args(["build", "--release"])
        .env("CARGO_TARGET_DIR", &target)
        .env("QUEENS_REQUIRE_PTX", "1")
        // As a user's machine has it: no assembler named, so the builder finds or fetches its
        // own (its cache, else the pinned wheel), and `--info` below must show native code.
        .env_remove("WARPSEARCH_PTXAS");
    status(
        &mut build,
        &format!(
            "building a crate outside the repository ({}, main.rs {main_lines} lines)",
            crate_dir.display()
        ),
    )?;
    Ok(target.join("release/nqueens-simple"))
}

/// A search binary built on `warpsearch_engine::kit` by a crate outside the repository
/// ([`downstream_crate`]): three shards merged by `warpsearch merge`, and a count stopped by
/// SIGINT and resumed from its checkpoint.
fn kit_test() -> Result {
    let example = downstream_crate()?;
    let merge_binary = build_release(true)?;
    let dir = target_dir().join("kit-test");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    for k in 1..=3 {
        let file = dir.join(format!("shard-{k}.json"));
        let shard = format!("{k}/3");
        let mut command = Command::new(&example);
        command
            .args([
                "13",
                "--backend",
                "cpu",
                "--json",
                "--shard",
                &shard,
                "--result",
            ])
            .arg(&file);
        status(&mut command, &format!("nqueens-simple 13 --shard {shard}"))?;
        files.push(file);
    }
    let output = Command::new(&merge_binary)
        .args(["merge", "--json"])
        .args(&files)
        .output()
        .map_err(|e| format!("warpsearch merge: {e}"))?;
    let (value, text) = json_line(&output, "warpsearch merge")?;
    if !output.status.success() || value["counts"]["solutions"] != 73712 {
        return Err(format!(
            "merging nqueens-simple's shards: expected 73712, got {text}"
        ));
    }
    eprintln!(
        "xtask: nqueens-simple 13 in 3 shards, merged: {}",
        text.trim()
    );
    // The same shards merged by the search's own binary (`--merge`, the kit's rule).
    let output = Command::new(&example)
        .args(["13", "--json", "--merge"])
        .args(&files)
        .output()
        .map_err(|e| format!("nqueens-simple --merge: {e}"))?;
    let (value, text) = json_line(&output, "nqueens-simple --merge")?;
    if !output.status.success() || value["count"] != 73712 {
        return Err(format!(
            "nqueens-simple 13 --merge: expected 73712, got {text}"
        ));
    }
    // A fifth of the shards' chunks recounted by the kit's --verify, then one edited by hand.
    let output = Command::new(&example)
        .args([
            "13",
            "--backend",
            "cpu",
            "--json",
            "--sample",
            "20%",
            "--verify",
        ])
        .args(&files)
        .output()
        .map_err(|e| format!("nqueens-simple --verify: {e}"))?;
    let (value, text) = json_line(&output, "nqueens-simple --verify")?;
    if !output.status.success() || value["equal"] != true {
        return Err(format!(
            "nqueens-simple 13 --verify: expected equal, got {text}"
        ));
    }
    let edited = dir.join("edited.json");
    let shard_text = std::fs::read_to_string(&files[0]).map_err(|e| e.to_string())?;
    let mut shard: serde_json::Value =
        serde_json::from_str(&shard_text).map_err(|e| e.to_string())?;
    shard["chunks"][0]["counts"]["solutions"] = 1.into();
    std::fs::write(&edited, shard.to_string()).map_err(|e| e.to_string())?;
    let output = Command::new(&example)
        .args(["13", "--backend", "cpu", "--verify"])
        .arg(&edited)
        .output()
        .map_err(|e| format!("nqueens-simple --verify: {e}"))?;
    if output.status.code() != Some(1)
        || !String::from_utf8_lossy(&output.stderr).contains("refused")
    {
        return Err(format!(
            "nqueens-simple 13 --verify of an edited file: expected a refusal, got {} {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    println!(
        "xtask: nqueens-simple 13: 20 % of its chunks recounted by --verify, equal; an edited file refused"
    );
    // --info: the binary names its kernel and the PTX it carries.
    let output = Command::new(&example)
        .args(["13", "--info", "--json"])
        .output()
        .map_err(|e| format!("nqueens-simple --info: {e}"))?;
    let (value, text) = json_line(&output, "nqueens-simple --info")?;
    if !output.status.success()
        || !value["kernel"].is_string()
        || value["ptx_bytes"].as_u64().unwrap_or(0) == 0
        || !value["cpu_threads"].is_u64()
    {
        return Err(format!(
            "nqueens-simple 13 --info: expected its kernel, PTX and threads, got {text}"
        ));
    }
    let native = value["native_archs"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if !["sm_80", "sm_90"]
        .iter()
        .all(|arch| native.iter().any(|a| a == arch))
    {
        return Err(format!(
            "nqueens-simple 13 --info: a crate outside the repository should get native code for sm_80 and sm_90 with no manual step, got {text}"
        ));
    }
    println!("xtask: nqueens-simple --info: {}", text.trim());
    let checkpoint = dir.join("checkpoint.json");
    let start = || {
        let mut command = Command::new(&example);
        command
            .args(["16", "--backend", "cpu", "--json", "--checkpoint"])
            .arg(&checkpoint)
            .args(["--checkpoint-every", "1"]);
        command
    };
    let mut child = start()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("nqueens-simple 16: {e}"))?;
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SIGINT, as Ctrl-C sends it: the count (≈ 10 s on two cores) is stopped part-way.
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let stopped = child.wait().map_err(|e| e.to_string())?;
    if stopped.code() != Some(130) {
        return Err(format!(
            "nqueens-simple 16 after SIGINT: expected exit status 130 (stopped, progress saved), got {stopped}"
        ));
    }
    let output = start()
        .output()
        .map_err(|e| format!("nqueens-simple 16 (resumed): {e}"))?;
    let (value, text) = json_line(&output, "nqueens-simple 16 (resumed)")?;
    if !output.status.success() || value["count"] != 14772512 {
        return Err(format!(
            "nqueens-simple 16 resumed: expected 14772512, got {text}"
        ));
    }
    eprintln!(
        "xtask: nqueens-simple 16 stopped by SIGINT ({stopped}) and resumed from its checkpoint: {}",
        text.trim()
    );
    Ok(())
}

/// `cargo xtask cluster-test`: the release binary through deploy/slurm/ on a one-node cluster.
fn cluster_test() -> Result {
    let binary = build_release(false)?;
    cluster::test(&root(), &binary)
}

/// The plain C bitmap counter the CPU backend is compared with (benchmarks/nqueens_baseline.c),
/// built with gcc -O3 -march=native and run for one N.
fn bench_baseline(n: &str) -> Result {
    let binary = target_dir().join("nqueens_baseline");
    status(
        Command::new("gcc")
            .args(["-O3", "-march=native", "-o"])
            .arg(&binary)
            .arg(root().join("benchmarks/nqueens_baseline.c")),
        "building benchmarks/nqueens_baseline.c (gcc -O3 -march=native)",
    )?;
    status(
        Command::new(&binary).arg(n),
        &format!("plain recursive C bitmap counter, N = {n}, one core"),
    )
}

/// Builds the PTX, assembles it with ptxas for every target architecture, fails on spills or
/// local-memory stack frames, and writes the PTX and reports under target/ptx/.
fn ptx() -> Result<PathBuf> {
    ensure_nightly()?;
    let mut build = cargo();
    build
        .args(["build", "--package", "warpsearch"])
        .env("WARPSEARCH_REQUIRE_PTX", "1");
    status(&mut build, "building the PTX")?;
    let source = target_dir().join("kernels/nvptx64-nvidia-cuda/ptx/deps/kernels.ptx");
    let out_dir = target_dir().join("ptx");
    fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let ptx = out_dir.join("kernels.ptx");
    fs::copy(&source, &ptx).map_err(|e| format!("{}: {e}", source.display()))?;
    let ptxas = ensure_ptxas()?;
    for arch in PTXAS_ARCHS {
        let output = Command::new(&ptxas)
            .args([&format!("-arch={arch}"), "-v", "-o"])
            .arg(out_dir.join(format!("kernels.{arch}.cubin")))
            .arg(&ptx)
            .output()
            .map_err(|e| format!("running ptxas: {e}"))?;
        let report = String::from_utf8_lossy(&output.stderr).to_string();
        fs::write(out_dir.join(format!("ptxas-{arch}.txt")), &report).map_err(|e| e.to_string())?;
        if !output.status.success() {
            return Err(format!("ptxas -arch={arch} failed:\n{report}"));
        }
        check_ptxas_report(arch, &report)?;
    }
    write_sass(&out_dir);
    eprintln!(
        "xtask: PTX at {} (ptxas reports and SASS beside it)",
        ptx.display()
    );
    Ok(ptx)
}

/// kernels.ARCH.sass beside each cubin, by nvdisasm; without it (no network, say) a warning.
fn write_sass(out_dir: &Path) {
    let nvdisasm = match ensure_nvdisasm() {
        Ok(path) => path,
        Err(why) => {
            eprintln!("xtask: warning: no SASS written: {why}");
            return;
        }
    };
    for arch in PTXAS_ARCHS {
        let cubin = out_dir.join(format!("kernels.{arch}.cubin"));
        match Command::new(&nvdisasm).arg("-c").arg(&cubin).output() {
            Ok(output) if output.status.success() => {
                let sass = out_dir.join(format!("kernels.{arch}.sass"));
                if let Err(e) = fs::write(&sass, &output.stdout) {
                    eprintln!("xtask: warning: {}: {e}", sass.display());
                }
            }
            Ok(output) => eprintln!(
                "xtask: warning: nvdisasm {}: {}",
                cubin.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            ),
            Err(e) => eprintln!("xtask: warning: running nvdisasm: {e}"),
        }
    }
}

/// Kernels whose per-thread state lives in local memory, and why; for them only spills are
/// refused.
const LOCAL_MEMORY_KERNELS: &[(&str, &str)] = &[
    (
        "warpsearch_gomoku_vcf",
        "a VCF search's 60-level stack and its board's 72 line codes and pattern indices (≈ 3.5 KB a \
         thread): too much for registers, and in shared memory a block of 128 would take 450 KB",
    ),
    (
        "warpsearch_cover",
        "not yet removed: 56 bytes of the covered set (a [u64; 8] read and written per node; 168 \
         bytes before its loops took constant indices). The exact-cover kernel's next form \
         keeps it in registers or in the slab",
    ),
];

/// Every kernel must have no spills and no stack frame (nothing in local memory), but for the
/// stack frames of [`LOCAL_MEMORY_KERNELS`].
fn check_ptxas_report(arch: &str, report: &str) -> Result {
    let mut kernel = "?";
    let mut in_entry = false;
    for line in report.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            kernel = rest.split('\'').next().unwrap_or("?");
        }
        if line.contains("Function properties for") {
            in_entry = line.contains(kernel);
        }
        if line.contains("bytes stack frame") {
            let numbers: Vec<u64> = line
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
            let allowed = in_entry && LOCAL_MEMORY_KERNELS.iter().any(|(name, _)| *name == kernel);
            let spills = numbers.iter().skip(1).any(|&n| n != 0);
            if spills || (!allowed && numbers.iter().any(|&n| n != 0)) {
                return Err(format!(
                    "{kernel} on {arch} uses local memory: {}",
                    line.trim()
                ));
            }
        }
        if line.contains("Used") && line.contains("registers") {
            eprintln!(
                "xtask: {arch} {kernel}: {}",
                line.trim().trim_start_matches("ptxas info    : ")
            );
        }
    }
    Ok(())
}

/// Where [`ensure_ptxas`] puts ptxas.
fn ptxas_path() -> PathBuf {
    tools::PTXAS.path_in(&root().join(".tools"))
}

/// ptxas from the pinned PyPI wheel in .tools/, downloaded on first use.
fn ensure_ptxas() -> Result<PathBuf> {
    fetch_tool(tools::PTXAS)
}

/// nvdisasm (SASS from a cubin) from its pinned PyPI wheel in .tools/, downloaded on first use.
fn ensure_nvdisasm() -> Result<PathBuf> {
    fetch_tool(tools::NVDISASM)
}

/// `.tools/<the tool>`, fetched from its wheel the first time (the builder's own fetch, which a
/// crate outside this repository uses with a per-user cache instead).
fn fetch_tool(wheel: tools::Wheel) -> Result<PathBuf> {
    let tools = root().join(".tools");
    if !wheel.path_in(&tools).is_file() {
        eprintln!(
            "xtask: downloading {} ({}) into .tools/",
            wheel.name, wheel.spec
        );
    }
    wheel.fetch_into(&tools)
}

/// Prepares bundle/ (git-ignored), everything a GPU machine needs to run the benchmark
/// suites: the release binary (PTX and native code), the examples' binaries, and the
/// harness (scripts/*.sh, with its inputs scripts/*.txt). Copy the folder there and run
/// `bash bundle/bench-suite.sh SUITE`: that machine needs an NVIDIA driver, and no Rust, CUDA toolkit or network.
fn bundle() -> Result {
    ensure_nightly()?;
    ensure_ptxas()?;
    let binary = build_release(true)?;
    let bundle = root().join("bundle");
    fs::create_dir_all(&bundle).map_err(|e| e.to_string())?;
    // Nothing stale from an earlier bundle (scripts included); other files (such as other
    // programs to compare with) stay.
    for name in ["warpsearch"]
        .into_iter()
        .chain(EXAMPLES.map(|example| example.0))
    {
        let _ = fs::remove_file(bundle.join(name));
    }
    fs::copy(&binary, bundle.join("warpsearch")).map_err(|e| e.to_string())?;
    for (name, prefix, ..) in EXAMPLES {
        let mut example = cargo();
        example
            .current_dir(root().join("examples").join(name))
            .args(["build", "--release"])
            .env(format!("{prefix}_REQUIRE_PTX"), "1");
        status(&mut example, &format!("building examples/{name} (release)"))?;
        let binary = root()
            .join("examples")
            .join(name)
            .join("target/release")
            .join(name);
        fs::copy(&binary, bundle.join(name)).map_err(|e| format!("{}: {e}", binary.display()))?;
    }
    for entry in fs::read_dir(root().join("scripts")).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if let (Some(name), true) = (
            path.file_name(),
            path.extension().is_some_and(|e| e == "sh" || e == "txt"),
        ) {
            fs::copy(&path, bundle.join(name)).map_err(|e| e.to_string())?;
        }
    }
    eprintln!(
        "xtask: bundle/ is ready: copy it to a GPU machine and run `bash bundle/bench-suite.sh SUITE` there (suites: `bash bundle/bench-suite.sh`)"
    );
    Ok(())
}

#[cfg(test)]
mod tutorial_tests {
    #[test]
    fn generated_files_are_written_then_checked_and_a_changed_one_fails() {
        let folder = std::env::temp_dir().join(format!("xtask-write-check-{}", std::process::id()));
        let drawn = [("a.svg", "<svg/>\n".to_string())];
        super::write_or_check(&folder, &drawn, false, "plots", "the logs").unwrap();
        super::write_or_check(&folder, &drawn, true, "plots", "the logs").unwrap();
        std::fs::write(folder.join("a.svg"), "<svg>changed</svg>\n").unwrap();
        let error = super::write_or_check(&folder, &drawn, true, "plots", "the logs").unwrap_err();
        assert!(error.contains("run `cargo xtask plots`"), "{error}");
        let _ = std::fs::remove_dir_all(&folder);
    }

    #[test]
    fn every_tutorial_block_stands_in_its_example() {
        for (name, ..) in super::EXAMPLES {
            super::tutorial_matches(name).unwrap();
        }
    }

    #[test]
    fn a_block_that_is_in_no_file_is_found() {
        let text = "```rust\nfn nowhere() {}\n```\n```sh\nls\n```\n";
        assert_eq!(super::code_blocks(text, &["rust"]), ["fn nowhere() {}"]);
    }
}
