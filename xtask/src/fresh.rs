//! `cargo xtask fresh-check`: the README's front door as a new user meets it.
//!
//! A machine that already has the kernels' pinned nightly cannot show that installing it
//! works, and CI runs on such a machine. So this check builds a rustup home that lacks the
//! nightly (hard links to every other toolchain, so it costs no disk and no download but the
//! nightly's), copies the working tree (tracked and untracked, not ignored) into a fresh folder
//! with a fresh target folder, and runs `cargo xtask run nqueens 12 --json` there. It fails
//! unless the nightly was installed, the binary carries the PTX, and the counts are right.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use warpsearch_builder::{Toolchain, rustup};

use crate::Result;

/// The size the check counts, and its known counts (OEIS A000170, A002562).
const N: u32 = 12;
const TOTAL: u64 = 14_200;
const UNIQUE: u64 = 1_787;

fn io(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> String {
    move |e| format!("{what}: {e}")
}

pub fn check(root: &Path) -> Result {
    let started = Instant::now();
    let toolchain = Toolchain::pinned_in(&root.join("kernels")).map_err(|e| e.to_string())?;
    let work = env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("fresh-check");
    if work.exists() {
        fs::remove_dir_all(&work).map_err(io(work.display()))?;
    }
    fs::create_dir_all(&work).map_err(io(work.display()))?;
    let home = work.join("rustup");
    copy_rustup_home_without(&current_rustup_home()?, &home, &toolchain.channel)?;
    let listed = rustup()
        .env("RUSTUP_HOME", &home)
        .args(["toolchain", "list"])
        .output()
        .map_err(io("rustup toolchain list"))?;
    let listed = String::from_utf8_lossy(&listed.stdout);
    if listed.contains(&toolchain.channel) {
        return Err(format!(
            "the fresh rustup home still lists {}",
            toolchain.channel
        ));
    }
    let tree = work.join("repo");
    copy_working_tree(root, &tree)?;
    eprintln!(
        "xtask: fresh-machine check: RUSTUP_HOME={} (no {}), CARGO_TARGET_DIR={}, `cargo xtask run nqueens {N} --json`",
        home.display(),
        toolchain.channel,
        work.join("target").display()
    );
    let mut command = Command::new("cargo");
    clear_overrides(&mut command);
    let output = command
        .current_dir(&tree)
        .env("RUSTUP_HOME", &home)
        .env("CARGO_TARGET_DIR", work.join("target"))
        .env("RUSTUP_AUTO_INSTALL", "0")
        .args(["xtask", "run", "nqueens", &N.to_string(), "--json"])
        .stderr(Stdio::inherit())
        .output()
        .map_err(io("cargo xtask run"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "fresh-machine check: `cargo xtask run nqueens {N}` failed ({}); output kept in {}",
            output.status,
            work.display()
        ));
    }
    let counts: serde_json::Value = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("fresh-machine check: not JSON ({e}): {stdout}"))?;
    if counts["total"] != TOTAL || counts["unique"] != UNIQUE || counts["known_match"] != true {
        return Err(format!(
            "fresh-machine check: wrong counts for N = {N}: {counts}"
        ));
    }
    let installed = rustup()
        .env("RUSTUP_HOME", &home)
        .args(["component", "list", "--installed", "--toolchain"])
        .arg(&toolchain.channel)
        .output()
        .map_err(io("rustup component list"))?;
    if !installed.status.success() {
        return Err(format!(
            "fresh-machine check: {} was not installed in the fresh rustup home",
            toolchain.channel
        ));
    }
    let info = Command::new(work.join("target/release/warpsearch"))
        .args(["info", "--json"])
        .output()
        .map_err(io("warpsearch info"))?;
    let info: serde_json::Value = serde_json::from_slice(&info.stdout)
        .map_err(|e| format!("fresh-machine check: `warpsearch info --json`: {e}"))?;
    if info["gpu_kernels"] != true {
        return Err(format!(
            "fresh-machine check: the binary carries no GPU kernels: {info}"
        ));
    }
    fs::remove_dir_all(&work).map_err(io(work.display()))?;
    eprintln!(
        "xtask: fresh-machine check passed in {:.0} s: {} installed, PTX embedded ({} bytes), N = {N}: {TOTAL} solutions, {UNIQUE} unique",
        started.elapsed().as_secs_f64(),
        toolchain.channel,
        info["ptx_bytes"]
    );
    Ok(())
}

/// Removes what the cargo proxy and the outer cargo set, so the child behaves as a shell would.
fn clear_overrides(command: &mut Command) {
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy();
        if (key.starts_with("CARGO") && key != "CARGO_HOME")
            || key.starts_with("RUSTC")
            || key.starts_with("RUSTDOC")
            || key.starts_with("RUSTUP_")
            || key == "RUSTFLAGS"
            || key.starts_with("WARPSEARCH_")
        {
            command.env_remove(key.as_ref());
        }
    }
}

fn current_rustup_home() -> Result<PathBuf> {
    if let Some(home) = env::var_os("RUSTUP_HOME") {
        return Ok(PathBuf::from(home));
    }
    env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".rustup"))
        .ok_or_else(|| "neither RUSTUP_HOME nor HOME is set".into())
}

/// A rustup home like `source` without the toolchain `channel`: settings copied, every other
/// toolchain hard-linked (`cp -al`: no disk used, and rustup replaces files rather than
/// writing into them, so the original is never changed).
fn copy_rustup_home_without(source: &Path, home: &Path, channel: &str) -> Result {
    let skip = |name: &str| name.starts_with(&format!("{channel}-")) || name == channel;
    fs::create_dir_all(home.join("toolchains")).map_err(io(home.display()))?;
    fs::create_dir_all(home.join("update-hashes")).map_err(io(home.display()))?;
    for entry in fs::read_dir(source).map_err(io(source.display()))? {
        let entry = entry.map_err(io(source.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        match name.as_str() {
            "toolchains" => {
                for toolchain in fs::read_dir(&path).map_err(io(path.display()))? {
                    let toolchain = toolchain.map_err(io(path.display()))?;
                    if skip(&toolchain.file_name().to_string_lossy()) {
                        continue;
                    }
                    let status = Command::new("cp")
                        .arg("-al")
                        .arg(toolchain.path())
                        .arg(home.join("toolchains"))
                        .status()
                        .map_err(io("cp -al"))?;
                    if !status.success() {
                        return Err(format!(
                            "cannot hard-link {} into {} (they must be on one file system)",
                            toolchain.path().display(),
                            home.display()
                        ));
                    }
                }
            }
            "update-hashes" => {
                for hash in fs::read_dir(&path).map_err(io(path.display()))? {
                    let hash = hash.map_err(io(path.display()))?;
                    if !skip(&hash.file_name().to_string_lossy()) {
                        fs::copy(
                            hash.path(),
                            home.join("update-hashes").join(hash.file_name()),
                        )
                        .map_err(io(hash.path().display()))?;
                    }
                }
            }
            _ if path.is_file() => {
                fs::copy(&path, home.join(&name)).map_err(io(path.display()))?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Copies the files git knows of or would add (tracked and untracked, not ignored), as a fresh
/// clone with the uncommitted changes would have them.
fn copy_working_tree(root: &Path, tree: &Path) -> Result {
    let listed = Command::new("git")
        .current_dir(root)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .map_err(io("git ls-files"))?;
    if !listed.status.success() {
        return Err("git ls-files failed: the fresh-machine check needs a git checkout".into());
    }
    for name in listed.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name);
        let from = root.join(name.as_ref());
        if !from.is_file() {
            continue; // deleted in the working tree
        }
        let to = tree.join(name.as_ref());
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(io(parent.display()))?;
        }
        fs::copy(&from, &to).map_err(io(from.display()))?;
    }
    Ok(())
}
