//! End-to-end tests of the `warpsearch` binary: outputs, JSON, exit codes, bad input.
//! They run on any machine: GPU-only expectations are checked only when no driver is present.

use std::process::{Command, Output};

/// The binary, with the Gomoku table cache in a folder of the tests' own.
fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warpsearch"));
    command.env("WARPSEARCH_CACHE_DIR", test_cache_dir());
    command
}

fn test_cache_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("warpsearch-test-cache-{}", std::process::id()))
}

fn warpsearch(args: &[&str]) -> Output {
    command().args(args).output().expect("the binary runs")
}

/// Runs the binary with `input` on standard input.
fn warpsearch_with_input(input: &str, args: &[&str], cache: &std::path::Path) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command()
        .env("WARPSEARCH_CACHE_DIR", cache)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    if let Some(mut stdin) = child.stdin.take() {
        // The binary may exit before reading everything (a bad input); that is not an error here.
        let _ = stdin.write_all(input.as_bytes());
    }
    child.wait_with_output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_str(stdout(output).trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(output)))
}

fn driver_present() -> bool {
    // SAFETY: only probes whether the shared library can be loaded.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

#[test]
fn nqueens_json_has_the_documented_fields() {
    let output = warpsearch(&["nqueens", "10", "--backend", "cpu", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(value["n"], 10);
    assert_eq!(value["total"], 724);
    assert_eq!(value["unique"], 92);
    assert_eq!(value["backend"], "cpu");
    assert_eq!(value["known_match"], true);
    assert!(value["nodes"].as_u64().unwrap() > 0);
    assert!(value["seconds"].as_f64().unwrap() >= 0.0);
}

#[test]
fn nqueens_text_reports_counts_and_the_known_match() {
    let output = warpsearch(&["nqueens", "8", "--backend", "cpu"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains("8-queens: 92 solutions, 12 unique"), "{text}");
    assert!(text.contains("matches the known values"), "{text}");
    assert!(
        stderr(&output).contains("backend: CPU"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn out_of_range_n_is_a_clear_error() {
    for n in ["0", "29"] {
        let output = warpsearch(&["nqueens", n, "--backend", "cpu"]);
        assert_eq!(output.status.code(), Some(1), "N = {n}");
        assert!(
            stderr(&output).contains("N must be between 1 and 28"),
            "{}",
            stderr(&output)
        );
    }
    let output = warpsearch(&["nqueens", "many"]);
    assert_eq!(output.status.code(), Some(2), "clap rejects a non-number");
    for devices in ["", "0,,1", "gpu", "1,1", "x,2"] {
        let output = warpsearch(&["nqueens", "8", "--devices", devices, "--backend", "cpu"]);
        assert_eq!(output.status.code(), Some(2), "--devices {devices:?}");
        assert!(stderr(&output).contains("--devices"), "{}", stderr(&output));
    }
}

/// Naming GPUs asks for GPUs: on a machine without one (CI's), every index is an error that
/// says what the machine does show, whatever `--backend` says, and nothing is counted.
#[test]
fn named_gpus_that_are_not_there_are_an_error_never_a_cpu_run() {
    for backend in ["auto", "gpu"] {
        for devices in ["0", "3", "0,1"] {
            let output = warpsearch(&[
                "nqueens",
                "10",
                "--devices",
                devices,
                "--backend",
                backend,
                "--json",
            ]);
            assert_eq!(
                output.status.code(),
                Some(1),
                "--backend {backend} --devices {devices}"
            );
            let err = stderr(&output);
            assert!(err.contains("--devices names GPU"), "{err}");
            assert!(
                err.contains("no GPU can be used here") || err.contains("the driver shows"),
                "{err}"
            );
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(!stdout.contains("\"total\""), "no count: {stdout}");
            assert!(stdout.contains("\"error\""), "{stdout}");
        }
    }
    let output = warpsearch(&["nqueens", "8", "--devices", "0,1", "--backend", "cpu"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "--devices with --backend cpu"
    );
    assert!(
        stderr(&output).contains("--backend cpu"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn auto_backend_says_why_and_gpu_without_driver_fails_cleanly() {
    let output = warpsearch(&["nqueens", "6"]);
    assert!(output.status.success());
    assert!(stderr(&output).contains("(auto: "), "{}", stderr(&output));
    if !driver_present() {
        let output = warpsearch(&["nqueens", "6", "--backend", "gpu"]);
        assert_eq!(output.status.code(), Some(1));
        let err = stderr(&output);
        assert!(err.contains("error:") && !err.contains("panicked"), "{err}");
        let output = warpsearch(&["selftest", "--backend", "gpu", "--json"]);
        assert_eq!(output.status.code(), Some(1));
        assert!(json(&output)["error"].as_str().is_some());
    }
}

#[test]
fn selftest_passes_on_the_cpu() {
    let output = warpsearch(&[
        "selftest",
        "--backend",
        "cpu",
        "--json",
        "--warps",
        "64",
        "--seed",
        "9",
    ]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert_eq!(json(&output)["passed"], true);
    let text = stdout(&output);
    for primitive in [
        "transpose",
        "min_all",
        "inclusive_sum",
        "exclusive_sum",
        "compact.slot",
    ] {
        assert!(text.contains(primitive), "{primitive} is not in {text}");
    }
}

#[test]
fn find_one_writes_a_verified_solution() {
    let dir = std::env::temp_dir().join(format!("warpsearch-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("columns.txt");
    let output = warpsearch(&[
        "nqueens",
        "1000",
        "--one",
        "--method",
        "min-conflicts",
        "--seed",
        "3",
        "--out",
        file.to_str().unwrap(),
        "--json",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(
        (value["verified"].clone(), value["method"].clone()),
        (serde_json::json!(true), serde_json::json!("min-conflicts"))
    );
    assert!(value.get("columns").is_none(), "columns only with --print");
    let columns: Vec<u32> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    warpsearch::nqueens::verify(&columns).unwrap();
    assert_eq!(columns.len(), 1000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn find_one_prints_small_boards_and_rejects_impossible_ones() {
    let output = warpsearch(&["nqueens", "6", "--one", "--print"]);
    assert!(output.status.success());
    assert_eq!(
        stdout(&output).lines().filter(|l| l.contains('Q')).count(),
        6
    );
    let output = warpsearch(&["nqueens", "3", "--one"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no solution exists for N = 3"));
    let output = warpsearch(&[
        "nqueens",
        "20",
        "--one",
        "--out",
        "/nonexistent-dir/x/columns.txt",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("/nonexistent-dir/x/columns.txt"));
    let output = warpsearch(&["nqueens", "20", "--method", "min-conflicts"]);
    assert_eq!(output.status.code(), Some(2), "--method needs --one");
}

#[test]
fn help_teaches() {
    let output = warpsearch(&["--help"]);
    let text = stdout(&output);
    assert!(
        text.contains("Examples:") && text.contains("nqueens") && text.contains("selftest"),
        "{text}"
    );
    let output = warpsearch(&["nqueens", "--help"]);
    assert!(stdout(&output).contains("--backend"));
}

#[test]
fn gomoku_reads_both_formats_and_reports_threats() {
    let cache = test_cache_dir();
    let run = |input: &str, args: &[&str]| warpsearch_with_input(input, args, &cache);
    // Black: three in a row on row 7 (open three: two open-four points); white on the edge.
    let moves = "7,7\n0,0\n8,7\n0,1\n9,7\n0,2\n";
    let output = run(moves, &["gomoku", "-", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(value["rule"], "freestyle");
    assert_eq!(
        value["black"],
        serde_json::json!([{"x": 6, "y": 7, "kind": "open-four"}, {"x": 10, "y": 7, "kind": "open-four"}])
    );
    assert_eq!(value["white"], serde_json::json!([]));
    let mut grid = vec![". ".repeat(15); 15];
    grid[0] = "o . . . . . . . . . . . . . .".into();
    grid[1] = "o . . . . . . . . . . . . . .".into();
    grid[2] = "o . . . . . . . . . . . . . .".into();
    grid[7] = ". . . . . . . x x x . . . . .".into();
    let output = run(
        &grid.join("\n"),
        &["gomoku", "-", "--json", "--rule", "standard"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(json(&output)["black"], value["black"]);
    let output = run("3,3\n3,3\n", &["gomoku", "-"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("line 2"), "{}", stderr(&output));
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn no3line_counts_classes_and_writes_representatives() {
    let dir = std::env::temp_dir().join(format!("warpsearch-no3line-{}", std::process::id()));
    let out = dir.join("n6.txt");
    let svg = dir.join("svg");
    std::fs::create_dir_all(&dir).unwrap();
    let output = warpsearch(&[
        "no3line",
        "6",
        "--json",
        "--out",
        out.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(
        (value["total"].as_u64(), value["inequivalent"].as_u64()),
        (Some(50), Some(11))
    );
    assert_eq!(value["classes"]["rot4"], 3);
    assert_eq!(value["known_match"], true);
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count(), 11);
    assert!(lines.lines().all(|l| l.split(' ').count() == 6));
    assert_eq!(std::fs::read_dir(&svg).unwrap().count(), 11);
    let output = warpsearch(&["no3line", "1"]);
    assert_eq!(output.status.code(), Some(1));
    let output = warpsearch(&["no3line", "5", "--out", "/nonexistent-dir/x.txt"]);
    assert_eq!(output.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gomoku_keeps_its_table_on_disk_and_rebuilds_a_damaged_one() {
    let cache =
        std::env::temp_dir().join(format!("warpsearch-gomoku-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let moves = "7,7\n0,0\n8,7\n0,1\n9,7\n0,2\n";
    let args = ["gomoku", "-", "--json", "--rule", "standard"];
    let first = warpsearch_with_input(moves, &args, &cache);
    assert!(first.status.success(), "{}", stderr(&first));
    let files: Vec<_> = std::fs::read_dir(&cache).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "one table file, no temporary left");
    let file = files[0].path();
    assert!(file.to_string_lossy().contains("standard"));
    let second = warpsearch_with_input(moves, &args, &cache);
    assert_eq!(stdout(&second), stdout(&first));
    assert!(!stderr(&second).contains("cache"), "{}", stderr(&second));
    // A truncated file (a kill mid-copy, a full disk) is noticed in one line and rebuilt.
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    let third = warpsearch_with_input(moves, &args, &cache);
    assert_eq!(stdout(&third), stdout(&first));
    let note = stderr(&third);
    assert!(
        note.contains("not a valid table") && note.contains("rebuilt"),
        "{note}"
    );
    assert_eq!(note.lines().count(), 1, "{note}");
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
    std::fs::remove_dir_all(&cache).unwrap();
}

#[test]
fn thread_counts_far_above_the_cores_are_refused_at_once() {
    for threads in ["100000", "18446744073709551615"] {
        let started = std::time::Instant::now();
        let output = warpsearch(&["nqueens", "10", "--backend", "cpu", "--threads", threads]);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(stderr(&output).contains("--threads"), "{}", stderr(&output));
        assert!(started.elapsed().as_secs() < 10, "refused at once");
    }
    let output = warpsearch(&["nqueens", "10", "--backend", "cpu", "--threads", "1"]);
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn info_says_whether_the_gpu_kernels_are_embedded() {
    let output = warpsearch(&["info", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    let embedded = value["gpu_kernels"].as_bool().unwrap();
    assert_eq!(embedded, value["ptx_bytes"].as_u64().unwrap() > 0);
    // `cargo xtask test` builds with the PTX required: then it must be there.
    if option_env!("WARPSEARCH_REQUIRE_PTX").is_some() {
        assert!(embedded, "{value}");
        assert_eq!(value["ptx_target"], "sm_80");
    }
    if !driver_present() {
        assert!(value["gpu"].is_null());
        assert!(value["gpu_unavailable"].as_str().is_some());
    }
}

/// Sends SIGINT to a running child (as Ctrl-C does) and returns its output.
fn interrupt_after(mut child: std::process::Child, millis: u64) -> Output {
    std::thread::sleep(std::time::Duration::from_millis(millis));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    child.stdin.take();
    child.wait_with_output().expect("the child ends")
}

/// Sends SIGINT to `child` as soon as it has written its first line to stderr (the backend
/// line, written after the Ctrl-C handler is installed and before the work starts), so that
/// the signal lands during the work however fast the machine is.
fn interrupt_once_started(mut child: std::process::Child) -> Output {
    use std::io::{BufRead, Read};
    let mut errors = std::io::BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut text = String::new();
    errors.read_line(&mut text).expect("stderr reads");
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    errors.read_to_string(&mut text).expect("stderr reads");
    let mut output = child.wait_with_output().expect("the child ends");
    output.stderr = text.into_bytes();
    output
}

#[test]
fn a_closed_or_full_stdout_is_not_a_panic() {
    use std::process::Stdio;
    let cases: [&[&str]; 3] = [
        &["nqueens", "12", "--backend", "cpu"],
        &[
            "bench",
            "nqueens",
            "--from",
            "8",
            "--to",
            "12",
            "--backend",
            "cpu",
        ],
        &["no3line", "6", "--backend", "cpu"],
    ];
    for args in cases {
        // A reader that is gone before the first line (`| true`).
        let mut child = command()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(141),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!stderr(&output).contains("panicked"), "{}", stderr(&output));
        // A full device.
        if std::path::Path::new("/dev/full").exists() {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            let output = command().args(args).stdout(full).output().unwrap();
            assert_eq!(output.status.code(), Some(1), "{args:?}");
            assert!(
                stderr(&output).contains("standard output"),
                "{}",
                stderr(&output)
            );
            assert!(!stderr(&output).contains("panicked"), "{}", stderr(&output));
        }
    }
    let cache = std::env::temp_dir().join(format!("warpsearch-pipe-{}", std::process::id()));
    let mut child = command()
        .env("WARPSEARCH_CACHE_DIR", &cache)
        .args(["gomoku", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        let _ = stdin.write_all(b"7,7\n");
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(141), "{}", stderr(&output));
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn random_dfs_limits_below_n_are_refused_not_searched_forever() {
    for limit in ["7", "0"] {
        let output = warpsearch(&[
            "nqueens",
            "8",
            "--one",
            "--method",
            "random-dfs",
            "--limit",
            limit,
            "--backend",
            "cpu",
        ]);
        assert_eq!(output.status.code(), Some(1));
        assert!(stderr(&output).contains("--limit"), "{}", stderr(&output));
    }
}

#[test]
fn ctrl_c_stops_gomoku_and_selftest_without_a_result() {
    use std::process::Stdio;
    // selftest with its most warps on one thread runs for a few tenths of a second (0.28 s on
    // the development machine: a fixed 300 ms wait missed it); gomoku with an empty cache
    // builds its table first.
    // On a loaded machine the interrupt can come after the self-test passed (exit 0): then
    // it is tried again, a few times; every run that the interrupt reached must stop with 130.
    let mut reached = false;
    for _ in 0..4 {
        let child = command()
            .args([
                "selftest",
                "--warps",
                "65536",
                "--backend",
                "cpu",
                "--threads",
                "1",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = interrupt_once_started(child);
        if output.status.code() == Some(0) && stdout(&output).contains("passed") {
            continue;
        }
        assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
        assert!(!stdout(&output).contains("passed"), "{}", stdout(&output));
        reached = true;
        break;
    }
    assert!(
        reached,
        "the self-test passed before each of 4 interrupts reached it"
    );
    let cache = std::env::temp_dir().join(format!("warpsearch-ctrlc-{}", std::process::id()));
    let mut child = command()
        .env("WARPSEARCH_CACHE_DIR", &cache)
        .args(["gomoku", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin.write_all(b"7,7\n").unwrap();
    }
    let output = interrupt_after(child, 150);
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(!stdout(&output).contains("black"), "{}", stdout(&output));
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn selftest_warps_must_be_a_real_amount() {
    for warps in ["0", "4294967295"] {
        let output = warpsearch(&["selftest", "--warps", warps, "--backend", "cpu"]);
        assert_eq!(output.status.code(), Some(1), "{warps}");
        assert!(stderr(&output).contains("--warps"), "{}", stderr(&output));
        assert!(!stdout(&output).contains("passed"));
    }
}

#[test]
fn a_failed_run_leaves_an_existing_out_file_alone() {
    let dir = std::env::temp_dir().join(format!("warpsearch-keep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let keep = dir.join("keep.txt");
    std::fs::write(&keep, "precious\n").unwrap();
    let output = warpsearch(&[
        "no3line",
        "6",
        "--out",
        keep.to_str().unwrap(),
        "--svg",
        "/etc/passwd",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&keep).unwrap(), "precious\n");
    // No temporary file is left behind, and a successful run replaces the file whole.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    let output = warpsearch(&["nqueens", "8", "--one", "--out", keep.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&keep).unwrap().lines().count(), 8);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gpu_backend_for_a_cpu_only_method_is_an_error() {
    let output = warpsearch(&["nqueens", "8", "--one", "--backend", "gpu"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("CPU only"), "{}", stderr(&output));
}

#[test]
fn errors_follow_one_contract_with_and_without_json() {
    // Usage errors: one line on stderr, exit 2; with --json also one JSON object on stdout.
    for args in [
        &["nqueens"][..],
        &["nqueens", "x"],
        &["nqueens", "8", "--bogus"],
        &["bench", "random-dfs", "--from", "3"],
    ] {
        let output = warpsearch(args);
        let text = stderr(&output);
        assert_eq!(text.trim().lines().count(), 1, "{args:?}: {text}");
        assert!(text.starts_with("error: "), "{text}");
        assert!(stdout(&output).is_empty(), "{args:?}");
        let mut with_json = args.to_vec();
        with_json.push("--json");
        let output = warpsearch(&with_json);
        assert_eq!(stderr(&output).trim().lines().count(), 1, "{with_json:?}");
        let value = json(&output);
        assert!(value["error"].as_str().is_some(), "{value}");
        assert_eq!(value["exit_code"], output.status.code().unwrap());
    }
    assert_eq!(warpsearch(&["nqueens"]).status.code(), Some(2));
    // Run errors: the same, exit 1.
    let output = warpsearch(&["nqueens", "99", "--json"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(json(&output)["exit_code"], 1);
    assert_eq!(stderr(&output).trim().lines().count(), 1);
}

#[test]
fn gomoku_errors_name_the_column_and_input_is_capped() {
    let cache = test_cache_dir();
    let output = warpsearch_with_input("1,1\n  3, 99\n", &["gomoku", "-"], &cache);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("line 2, column 6"),
        "{}",
        stderr(&output)
    );
    let output = warpsearch_with_input("12345678901234567890123,1\n", &["gomoku", "-"], &cache);
    assert!(
        stderr(&output).contains("off the board"),
        "{}",
        stderr(&output)
    );
    let zeros = "\0".repeat(2 << 20);
    let output = warpsearch_with_input(&zeros, &["gomoku", "-"], &cache);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("KB of input"),
        "{}",
        stderr(&output)
    );
    if std::path::Path::new("/dev/zero").exists() {
        let output = warpsearch(&["gomoku", "/dev/zero"]);
        assert_eq!(output.status.code(), Some(1));
    }
}

#[test]
fn shards_merge_to_the_whole_count_and_bad_sets_are_named() {
    let dir = std::env::temp_dir().join(format!("warpsearch-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // N = 15 in 2 shards (N = 16 in 4 is the cluster test's, run by `cargo xtask test`).
    for k in 1..=2 {
        let output = warpsearch(&[
            "nqueens",
            "15",
            "--backend",
            "cpu",
            "--shard",
            &format!("{k}/2"),
            "--result",
            &file(&format!("f{k}.json")),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let output = warpsearch(&["merge", &file("f1.json"), &file("f2.json"), "--json"]);
    let value = json(&output);
    assert_eq!(
        (value["total"].as_u64(), value["unique"].as_u64()),
        (Some(2_279_184), Some(285_053))
    );
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let output = warpsearch(&[
            "nqueens",
            "14",
            "--backend",
            "cpu",
            "--shard",
            &shard,
            "--result",
            &file(&format!("s{k}.json")),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let output = warpsearch(&[
        "merge",
        &file("s1.json"),
        &file("s2.json"),
        &file("s3.json"),
        "--json",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(
        (value["total"].as_u64(), value["unique"].as_u64()),
        (Some(365_596), Some(45_752))
    );
    assert_eq!(value["known_match"], true);
    let output = warpsearch(&["merge", &file("s1.json"), &file("s3.json")]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("missing: 2/3"),
        "{}",
        stderr(&output)
    );
    let output = warpsearch(&[
        "merge",
        &file("s1.json"),
        &file("s1.json"),
        &file("s2.json"),
        &file("s3.json"),
    ]);
    assert!(stderr(&output).contains("twice"), "{}", stderr(&output));
    // A shard of another N (15, in 2 shards) beside the N = 14 ones: named.
    let output = warpsearch(&["merge", &file("s1.json"), &file("f2.json")]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("f2.json"), "{}", stderr(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_killed_with_sigkill_resumes_from_its_checkpoint_with_exact_counts() {
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("warpsearch-ck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checkpoint = dir.join("ck.json");
    let args = [
        "nqueens",
        "16",
        "--backend",
        "cpu",
        "--threads",
        "1",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
        "--checkpoint-every",
        "0",
        "--json",
    ];
    // Killed three times at different moments (the delays vary with the clock, so each run of
    // the test kills at other moments), each run resuming the last one's checkpoint.
    let jitter = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_millis() as u64
        % 200;
    let mut saved_before = 0;
    for delay in [100 + jitter, 250 + jitter, 50 + jitter] {
        let mut child = command()
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill it once the run is under way (its checkpoint exists: a resumed run rewrites
        // it at its first chunk), whatever it is doing then.
        let started = std::time::Instant::now();
        let modified = || {
            std::fs::metadata(&checkpoint)
                .and_then(|m| m.modified())
                .ok()
        };
        let before = modified();
        while modified() == before && started.elapsed().as_secs() < 20 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(delay));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let saved: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&checkpoint).unwrap()).unwrap();
        let done = saved["chunks"].as_array().unwrap().len();
        assert!(done >= saved_before && done < 256, "{done} chunks saved");
        saved_before = done;
    }
    let output = warpsearch(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(
        (value["total"].as_u64(), value["unique"].as_u64()),
        (Some(14_772_512), Some(1_846_955))
    );
    // A checkpoint of another size is refused.
    let output = warpsearch(&[
        "nqueens",
        "15",
        "--backend",
        "cpu",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("another size"),
        "{}",
        stderr(&output)
    );
    // A damaged checkpoint (cut short, as by a full disk) is refused, not trusted.
    let text = std::fs::read_to_string(&checkpoint).unwrap();
    std::fs::write(&checkpoint, &text[..text.len() / 2]).unwrap();
    let output = warpsearch(&args);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("not a warpsearch file"),
        "{}",
        stderr(&output)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no3line_shards_merge_to_the_known_classes() {
    let dir = std::env::temp_dir().join(format!("warpsearch-no3shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |k: u32| dir.join(format!("n{k}.json")).to_str().unwrap().to_string();
    let nine = |k: u32| {
        dir.join(format!("nine{k}.json"))
            .to_str()
            .unwrap()
            .to_string()
    };
    for k in 1..=3 {
        let output = warpsearch(&[
            "no3line",
            "9",
            "--backend",
            "cpu",
            "--shard",
            &format!("{k}/3"),
            "--result",
            &nine(k),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let output = warpsearch(&["merge", &nine(1), &nine(2), &nine(3), "--json"]);
    let value = json(&output);
    assert_eq!(
        (value["total"].as_u64(), value["inequivalent"].as_u64()),
        (Some(368), Some(51))
    );
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let output = warpsearch(&[
            "no3line",
            "8",
            "--backend",
            "cpu",
            "--shard",
            &shard,
            "--result",
            &file(k),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let output = warpsearch(&["merge", &file(1), &file(2), "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(
        (value["total"].as_u64(), value["inequivalent"].as_u64()),
        (Some(380), Some(57))
    );
    assert_eq!(value["known_match"], true);
    let output = warpsearch(&["no3line", "8", "--shard", "1/2", "--out", &file(3)]);
    assert_eq!(output.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A full disk under `--result` (`/dev/full`: every write fails with "No space left on
/// device"): the counts are printed, text and JSON, and the exit status says the file is
/// missing.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_under_result_costs_the_file_never_the_counts() {
    for json in [false, true] {
        let mut args = vec!["nqueens", "10", "--backend", "cpu", "--result", "/dev/full"];
        if json {
            args.push("--json");
        }
        let output = warpsearch(&args);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("No space left on device"),
            "{}",
            stderr(&output)
        );
        let text = stdout(&output);
        if json {
            let first: serde_json::Value =
                serde_json::from_str(text.lines().next().unwrap_or("")).unwrap();
            assert_eq!(first["total"], 724, "{text}");
        } else {
            assert!(text.contains("724"), "{text}");
        }
    }
}

/// A checkpoint that cannot be saved (its folder is a file, as a stand-in for a full disk):
/// one warning, and the count goes on to its end.
#[test]
fn a_checkpoint_that_cannot_be_saved_warns_once_and_the_count_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, "a file where the checkpoint's folder should be").unwrap();
    let checkpoint = blocker.join("ck.json");
    let output = warpsearch(&[
        "nqueens",
        "13",
        "--backend",
        "cpu",
        "--json",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
        "--checkpoint-every",
        "0",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(json(&output)["total"], 73712);
    let warnings = stderr(&output)
        .matches("could not save the checkpoint (")
        .count();
    assert_eq!(warnings, 1, "{}", stderr(&output));
}

/// `--estimate` predicts a count from a sample of its chunks: its nodes within its own range
/// of the real count's, for N-Queens and no-three-in-line, without running the count.
#[test]
fn an_estimate_predicts_the_nodes_of_the_count_it_stands_for() {
    let cases: [(&[&str], &[&str]); 2] = [
        (
            &[
                "nqueens",
                "14",
                "--estimate=30",
                "--backend",
                "cpu",
                "--json",
            ],
            &["nqueens", "14", "--backend", "cpu", "--json"],
        ),
        (
            &[
                "no3line",
                "10",
                "--estimate=30",
                "--backend",
                "cpu",
                "--json",
            ],
            &["no3line", "10", "--backend", "cpu", "--json"],
        ),
    ];
    for (estimate, count) in cases {
        let predicted = warpsearch(estimate);
        assert!(predicted.status.success(), "{}", stderr(&predicted));
        let predicted = json(&predicted);
        assert_eq!(predicted["estimate"], true);
        let real = json(&warpsearch(count))["nodes"].as_f64().unwrap();
        let (low, high) = (
            predicted["nodes_low"].as_f64().unwrap(),
            predicted["nodes_high"].as_f64().unwrap(),
        );
        let nodes = predicted["nodes"].as_f64().unwrap();
        assert!(
            (nodes / real - 1.0).abs() < 0.15,
            "{estimate:?}: {nodes} predicted, {real} counted"
        );
        assert!(low <= nodes && nodes <= high, "{predicted}");
        assert!(predicted["seconds"].as_f64().unwrap() > 0.0, "{predicted}");
        let chunks = predicted["chunks"].as_u64().unwrap();
        assert!(
            predicted["sample_chunks"].as_u64().unwrap() < chunks,
            "{predicted}"
        );
    }
}

/// What `--estimate` refuses: a board too small to sample, a shard, a budget that is not a
/// positive number of seconds.
#[test]
fn an_estimate_refuses_what_it_cannot_predict() {
    for args in [
        &["nqueens", "5", "--estimate", "--backend", "cpu"][..],
        &[
            "nqueens",
            "12",
            "--estimate",
            "--shard",
            "1/2",
            "--backend",
            "cpu",
        ],
        &["nqueens", "12", "--estimate=0", "--backend", "cpu"],
        &[
            "no3line",
            "10",
            "--estimate",
            "--out",
            "x.txt",
            "--backend",
            "cpu",
        ],
    ] {
        let output = warpsearch(args);
        assert_ne!(output.status.code(), Some(0), "{args:?}");
        assert!(!stderr(&output).contains("panicked"), "{}", stderr(&output));
    }
}

/// An honest run passes verify; a chunk count edited by hand is refused by verify and by
/// merge (its digest); a chunk that a faulty device got wrong (the file consistent, the count
/// not) is found by the recount, which names the chunk, the file and the device.
#[test]
fn verify_recounts_chunks_and_catches_edits_and_wrong_counts() {
    use warpsearch::nqueens::Partial;
    use warpsearch::shard::{ShardResult, digest, sum_of};
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let result = path("r.json");
    let output = warpsearch(&["nqueens", "12", "--backend", "cpu", "--result", &result]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let honest = warpsearch(&[
        "verify",
        &result,
        "--sample",
        "5%",
        "--seed",
        "3",
        "--backend",
        "cpu",
        "--json",
    ]);
    assert_eq!(honest.status.code(), Some(0), "{}", stderr(&honest));
    let report = json(&honest);
    assert_eq!(report["equal"], true);
    assert_eq!(report["seed"], 3);
    assert_eq!(report["chunks"].as_array().map(Vec::len), Some(13));
    let text: String = std::fs::read_to_string(&result).unwrap();
    let mut file: ShardResult<Partial> = serde_json::from_str(&text).unwrap();
    let chunk = file.chunks[7].index;
    // Edited by hand: refused, by name, before any recount.
    let mut edited: serde_json::Value = serde_json::from_str(&text).unwrap();
    edited["chunks"][7]["counts"]["solutions"] = 1.into();
    let edited_path = path("edited.json");
    std::fs::write(&edited_path, edited.to_string()).unwrap();
    for args in [
        vec!["verify", &edited_path, "--backend", "cpu"],
        vec!["merge", &edited_path],
    ] {
        let output = warpsearch(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&output).contains("edited.json") && stderr(&output).contains("refused"),
            "{}",
            stderr(&output)
        );
    }
    // A wrong count from a faulty device: the file is consistent, the recount differs.
    file.chunks[7].counts.solutions += 8;
    file.chunks[7].device = "GPU 3 (faulty)".into();
    file.counts = sum_of(&file.chunks);
    file.digest = digest(&file.partition, file.shard, &file.chunks, &file.counts).unwrap();
    let wrong_path = path("wrong.json");
    std::fs::write(&wrong_path, serde_json::to_string(&file).unwrap()).unwrap();
    let list = format!("{},{}", file.chunks[6].index, chunk);
    let output = warpsearch(&["verify", &wrong_path, "--chunks", &list, "--backend", "cpu"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(&format!("chunk {chunk} DIFFERS"))
            && text.contains("wrong.json")
            && text.contains("GPU 3 (faulty)")
            && text.contains("1 DIFFER"),
        "{text}"
    );
    // Chunks the files do not hold cannot be compared.
    let output = warpsearch(&["verify", &result, "--chunks", "999", "--backend", "cpu"]);
    assert_eq!(output.status.code(), Some(1));
}

/// N = 28 (no published count, nodes past 2⁶⁴) is accepted, and its estimate runs on the CPU
/// (random probes of every start, the time per node from a sample of N = 16): a prediction of
/// ≈ 3·10¹⁹ nodes, printed in full.
#[test]
fn nqueens_28_estimates_and_its_nodes_pass_64_bits() {
    let output = warpsearch(&[
        "nqueens",
        "28",
        "--estimate=1",
        "--backend",
        "cpu",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(value["method"], "probes");
    assert_eq!(value["calibrated_on"], 16);
    let nodes = value["nodes"].as_f64().unwrap();
    assert!((1e19..1e20).contains(&nodes), "{value}");
    assert!(nodes > u64::MAX as f64);
    assert!(value["seconds"].as_f64().unwrap() > 1e9, "{value}");
    assert!(
        value["nodes_low"].as_f64() <= Some(nodes) && value["nodes_high"].as_f64() >= Some(nodes)
    );
}

/// A count expected to take more than a minute prints its estimate as its first line (here
/// 19-queens on one CPU thread, stopped once the line is out); `--no-estimate` skips it.
#[test]
fn a_long_count_prints_its_estimate_first() {
    use std::io::BufRead;
    use std::process::Stdio;
    let mut child = command()
        .args(["nqueens", "19", "--backend", "cpu", "--threads", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        first.starts_with("19-queens: expected to take about") && first.contains("CPU, 1 thread"),
        "{first}"
    );
    // A short count prints no estimate.
    let output = warpsearch(&["nqueens", "10", "--backend", "cpu"]);
    assert!(!stdout(&output).contains("expected"), "{}", stdout(&output));
}

#[test]
fn gomoku_vcf_finds_checks_and_batches() {
    let cache = test_cache_dir();
    let run = |input: &str, args: &[&str]| warpsearch_with_input(input, args, &cache);
    // Black: a three on row 7 and one on column 9, each closed by White; black to move.
    let moves = "5,7\n4,7\n6,7\n9,3\n7,7\n0,0\n9,4\n0,2\n9,5\n0,4\n9,6\n0,6\n";
    let output = run(moves, &["gomoku", "vcf", "-", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(value["side"], "x");
    assert_eq!(value["vcf"], true);
    assert_eq!(value["moves"][0], serde_json::json!([9, 7]));
    assert_eq!(value["moves"].as_array().map(Vec::len), Some(3));
    assert!(value["nodes"].as_u64().is_some() && value["seconds"].as_f64().is_some());
    // White, asked for, has one too (on column 0); after two stones nobody has one, and the
    // search proves it.
    let output = run(moves, &["gomoku", "vcf", "-", "--json", "--side", "o"]);
    assert_eq!(json(&output)["vcf"], true);
    let output = run(
        "7,7\n7,8\n",
        &["gomoku", "vcf", "-", "--json", "--side", "o"],
    );
    let value = json(&output);
    assert_eq!(
        (value["vcf"].clone(), value["reason"].clone()),
        (false.into(), "none exists".into())
    );
    // A tight limit says so.
    let output = run(moves, &["gomoku", "vcf", "-", "--json", "--depth", "1"]);
    assert_eq!(json(&output)["reason"], "limit reached");
    // A finished game is an error.
    let output = run(
        "0,0\n1,1\n0,1\n1,2\n0,2\n1,3\n0,3\n1,4\n0,4\n",
        &["gomoku", "vcf", "-"],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("game is over"),
        "{}",
        stderr(&output)
    );

    // A batch: the move list on one line, a grid of 225 cells, a comment, a bad line.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut grid = vec![".".repeat(15); 15];
    grid[7] = "....xxx........".into();
    grid[0] = "o.o.o..........".into();
    let batch = format!(
        "# positions\n{}\n{}\n7,7 7,7\n",
        moves.trim().replace('\n', " "),
        grid.concat()
    );
    let file = dir.path().join("positions.txt");
    std::fs::write(&file, batch).expect("written");
    let path = file.to_string_lossy().into_owned();
    let output = run(
        "",
        &[
            "gomoku",
            "vcf",
            "--batch",
            &path,
            "--json",
            "--threads",
            "2",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "a bad line fails the batch");
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    assert_eq!(lines.len(), 4, "{}", stdout(&output));
    assert_eq!(
        (lines[0]["line"].clone(), lines[0]["vcf"].clone()),
        (2.into(), true.into())
    );
    // The grid: three stones each, black to move with an open three.
    assert_eq!(lines[1]["side"], "x", "{}", lines[1]);
    assert_eq!(
        lines[1]["vcf"], true,
        "an open three is a VCF: {}",
        lines[1]
    );
    assert!(
        lines[2]["error"]
            .as_str()
            .is_some_and(|e| e.contains("occupied") || e.contains("line"))
    );
    assert_eq!(lines[3]["positions"], 2, "positions searched");
    assert_eq!(lines[3]["vcf"], 2);
    assert_eq!(lines[3]["errors"], 1);
    let _ = std::fs::remove_dir_all(&cache);
}

/// `gomoku match` of two brains of this binary; its JSON summary.
fn gomoku_match(engines: [&str; 2], extra: &[&str]) -> serde_json::Value {
    let binary = env!("CARGO_BIN_EXE_warpsearch");
    let first = format!("{binary} gomoku brain {}", engines[0]);
    let second = format!("{binary} gomoku brain {}", engines[1]);
    let mut args = vec![
        "gomoku", "match", "--engine", &first, "--engine", &second, "--json",
    ];
    args.extend_from_slice(extra);
    let output = warpsearch(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    json(&output)
}

#[test]
fn the_brain_beats_a_random_mover_and_finishes_games_against_itself() {
    // Fixed nodes: the same games on every machine (the clock is only a forfeit limit).
    let against_random = gomoku_match(
        ["--nodes 20000 --quiet", "--random 7"],
        &[
            "--games",
            "4",
            "--turn-ms",
            "5000",
            "--openings",
            "balanced",
        ],
    );
    assert_eq!(against_random["score"]["wins"], 4, "{against_random}");
    assert_eq!(against_random["forfeits"], serde_json::json!([]));
    // A match it cannot play is refused before any game, not scored.
    for (extra, says) in [
        (["--games", "0", "--size", "15"], "at least one game"),
        (["--games", "2", "--size", "7"], "does not fit a 7x7 board"),
    ] {
        let mut args = vec![
            "gomoku",
            "match",
            "--engine",
            "a",
            "--engine",
            "b",
            "--turn-ms",
            "100",
            "--openings",
            "balanced",
        ];
        args.extend(extra);
        let output = warpsearch(&args);
        assert!(!output.status.success(), "{extra:?}");
        assert!(stderr(&output).contains(says), "{}", stderr(&output));
    }
    for (rule, size) in [
        ("freestyle", "15"),
        ("renju", "15"),
        ("freestyle", "20"),
        ("standard", "9"),
    ] {
        let itself = gomoku_match(
            ["--nodes 5000 --quiet", "--nodes 8000 --quiet"],
            &[
                "--games",
                "2",
                "--turn-ms",
                "5000",
                "--rule",
                rule,
                "--size",
                size,
            ],
        );
        assert_eq!(itself["score"]["games"], 2, "{itself}");
        assert_eq!(
            itself["forfeits"],
            serde_json::json!([]),
            "{rule} {size}: {itself}"
        );
    }
}

#[test]
fn the_brain_speaks_the_protocol_at_any_size_and_refuses_caro() {
    let cache = test_cache_dir();
    let output = warpsearch_with_input(
        "START 20\nINFO rule 4\nINFO timeout_turn 300\nBEGIN\nTURN 10,11\nINFO rule 8\nEND\n",
        &["gomoku", "brain", "--quiet"],
        &cache,
    );
    let lines: Vec<String> = stdout(&output).lines().map(str::to_string).collect();
    assert_eq!(lines[0], "OK");
    assert_eq!(lines[1], "10,10");
    assert!(lines[2].contains(','), "{lines:?}");
    assert!(
        lines[3].starts_with("ERROR") && lines[3].contains("caro"),
        "{lines:?}"
    );
    let output = warpsearch_with_input(
        "..........\n..........\n...xxx....\n...o......\n....o.....\n..........\n..........\n..........\n..........\n..........\n",
        &["gomoku", "vct", "-", "--json"],
        &cache,
    );
    let value = json(&output);
    assert_eq!(value["side"], "white");
    let output = warpsearch_with_input("xx\n", &["gomoku", "vct", "-"], &cache);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("not supported"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn threat_points_and_vcf_on_any_size_and_under_renju() {
    let cache = test_cache_dir();
    // 20×20: black's three in a row has two open-four points.
    let output = warpsearch_with_input(
        "10,10\n0,0\n11,10\n0,1\n12,10\n",
        &["gomoku", "-", "--size", "20", "--json"],
        &cache,
    );
    let value = json(&output);
    assert_eq!(value["width"], 20, "{value}");
    assert_eq!(
        value["black"],
        serde_json::json!([{"kind": "open-four", "x": 9, "y": 10}, {"kind": "open-four", "x": 13, "y": 10}])
    );
    // Renju: (7,7) would make two open threes for black, so it is forbidden; not under freestyle.
    let moves = "7,5\n0,0\n7,6\n0,2\n5,7\n0,4\n6,7\n0,6\n";
    let renju = json(&warpsearch_with_input(
        moves,
        &["gomoku", "-", "--rule", "renju", "--json"],
        &cache,
    ));
    let forbidden = serde_json::json!({"kind": "forbidden", "x": 7, "y": 7});
    let listed = |value: &serde_json::Value| value["black"].as_array().cloned().unwrap_or_default();
    assert!(listed(&renju).contains(&forbidden), "{renju}");
    let freestyle = json(&warpsearch_with_input(
        moves,
        &["gomoku", "-", "--json"],
        &cache,
    ));
    assert!(!listed(&freestyle).contains(&forbidden), "{freestyle}");
    // VCF on 20×20: an open three of black's wins by fours.
    let three = "5,5\n0,0\n6,6\n0,1\n7,7\n0,3\n";
    let value = json(&warpsearch_with_input(
        three,
        &["gomoku", "vcf", "-", "--size", "20", "--json"],
        &cache,
    ));
    assert_eq!(value["vcf"], true, "{value}");
    assert!(
        [serde_json::json!([4, 4]), serde_json::json!([8, 8])].contains(&value["first"]),
        "{value}"
    );
    // The same as a batch of two lines on 20×20 (a move list and a grid), on the CPU.
    let batch = cache.join("batch-20.txt");
    let grid = format!("{}x", ".".repeat(399));
    std::fs::write(&batch, format!("5,5 0,0 6,6 0,1 7,7 0,3\n{grid}\n")).unwrap();
    let output = warpsearch_with_input(
        "",
        &[
            "gomoku",
            "vcf",
            "--batch",
            batch.to_str().unwrap(),
            "--size",
            "20",
            "--json",
        ],
        &cache,
    );
    let last = stdout(&output)
        .lines()
        .last()
        .map(str::to_string)
        .unwrap_or_default();
    let summary: serde_json::Value = serde_json::from_str(&last).unwrap();
    assert_eq!(
        (summary["positions"].clone(), summary["vcf"].clone()),
        (2.into(), 1.into()),
        "{summary}"
    );
    // Bad input: a finished game, an occupied cell, a board too large.
    for (input, args, says) in [
        (
            "5,5\n0,0\n6,5\n0,1\n7,5\n0,2\n8,5\n0,3\n9,5\n",
            vec!["--size", "20"],
            "already over",
        ),
        ("5,5\n5,5\n", vec!["--size", "20"], "already taken"),
        ("5,5\n", vec!["--size", "30"], "not supported"),
    ] {
        let mut all = vec!["gomoku", "vcf", "-"];
        all.extend(args);
        let output = warpsearch_with_input(input, &all, &cache);
        assert!(!output.status.success(), "{input}");
        assert!(stderr(&output).contains(says), "{}", stderr(&output));
    }
}

#[test]
fn cover_counts_dlx1_input_lists_solutions_and_names_the_line_of_a_bad_option() {
    let cache = test_cache_dir();
    // Knuth's example: one solution, listed by its options.
    let knuth = "| Knuth's example\na b c d e f g\nc e\na d g\nb c f\na d f\nb g\nd e g\n";
    let output = warpsearch_with_input(knuth, &["cover", "-", "--limit", "5", "--json"], &cache);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(value["solutions"], 1);
    assert_eq!(
        value["listed"],
        serde_json::json!([["c e", "a d f", "b g"]])
    );
    let output = warpsearch(&["cover", "--example", "queens-8", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(json(&output)["solutions"], 92);
    let bad = warpsearch_with_input("a b\na b\nb z\n", &["cover", "-"], &cache);
    assert_eq!(bad.status.code(), Some(1), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("line 3"), "{}", stderr(&bad));
    assert!(!stderr(&bad).contains("panicked"));
}
