//! Builds the `kernels` crate to PTX with the nightly pinned in `kernels/rust-toolchain.toml`
//! and hands it to the crate as `$OUT_DIR/kernels.ptx`.
//!
//! - `WARPSEARCH_PTX=/path/file.ptx`: embed that file instead of building.
//! - `WARPSEARCH_REQUIRE_PTX=1`: fail the build when the PTX cannot be built (`cargo xtask`
//!   sets it); otherwise the crate is built CPU-only with a warning and an empty PTX.
//!
//! The nested cargo runs in its own target directory (`target/kernels`), so it neither
//! waits on the outer build's lock nor is thrown away by `cargo clean -p warpsearch`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Oldest GPU architecture the PTX targets (Ampere): see docs/toolchain.md.
const PTX_TARGET_CPU: &str = "sm_80";

fn main() {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir
        .parent()
        .expect("warpsearch/ lives in the workspace root")
        .to_path_buf();
    let kernels = workspace.join("kernels");
    let out =
        PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("kernels.ptx");
    for var in [
        "WARPSEARCH_PTX",
        "WARPSEARCH_REQUIRE_PTX",
        "WARPSEARCH_SKIP_PTX",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed={}", kernels.join("src").display());
    println!(
        "cargo:rerun-if-changed={}",
        kernels.join("Cargo.toml").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        kernels.join("rust-toolchain.toml").display()
    );

    let result = if let Some(path) = env::var_os("WARPSEARCH_PTX") {
        println!("cargo:rerun-if-changed={}", Path::new(&path).display());
        fs::copy(&path, &out)
            .map(|_| ())
            .map_err(|e| format!("cannot copy WARPSEARCH_PTX: {e}"))
    } else if env::var_os("WARPSEARCH_SKIP_PTX").is_some() {
        Err("WARPSEARCH_SKIP_PTX is set".to_string())
    } else {
        build_ptx(&workspace, &kernels, &out)
    };
    if let Err(reason) = result {
        if env::var_os("WARPSEARCH_REQUIRE_PTX").is_some() {
            panic!("building the GPU kernels failed: {reason}");
        }
        println!(
            "cargo:warning=GPU kernels not built ({reason}); this warpsearch runs on the CPU only. `cargo xtask run …` installs the pinned nightly and builds them."
        );
        fs::write(&out, "").expect("OUT_DIR is writable");
    }
}

/// The toolchain named in `kernels/rust-toolchain.toml`.
fn pinned_toolchain(kernels: &Path) -> Result<String, String> {
    let text = fs::read_to_string(kernels.join("rust-toolchain.toml"))
        .map_err(|e| format!("kernels/rust-toolchain.toml: {e}"))?;
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("channel"))
        .filter_map(|rest| rest.split('"').nth(1))
        .map(str::to_string)
        .next()
        .ok_or_else(|| "kernels/rust-toolchain.toml names no channel".to_string())
}

fn build_ptx(workspace: &Path, kernels: &Path, out: &Path) -> Result<(), String> {
    let toolchain = pinned_toolchain(kernels)?;
    let target_dir = workspace.join("target").join("kernels");
    let mut cargo = Command::new("rustup");
    cargo
        .current_dir(kernels)
        .args(["run", &toolchain, "cargo", "rustc", "--quiet"])
        .args([
            "--package",
            "warpsearch-kernels",
            "--lib",
            "--profile",
            "ptx",
            "--target",
            "nvptx64-nvidia-cuda",
            "-Zbuild-std=core",
            "--crate-type",
            "cdylib",
            "--target-dir",
        ]);
    cargo
        .arg(&target_dir)
        .args(["--", "--emit=asm", "-Zno-link"]);
    // The outer cargo's settings must not leak into the nested build for another target.
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("CARGO_")
            || key.starts_with("RUSTC")
            || key.starts_with("RUSTDOC")
            || key == "RUSTFLAGS"
            || key == "RUSTUP_TOOLCHAIN"
        {
            cargo.env_remove(key.as_ref());
        }
    }
    cargo.env(
        "CARGO_ENCODED_RUSTFLAGS",
        format!("-Ctarget-cpu={PTX_TARGET_CPU}"),
    );
    let output = cargo
        .output()
        .map_err(|e| format!("cannot run rustup: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(12)
            .collect::<Vec<_>>()
            .join(" | ");
        return Err(format!(
            "`rustup run {toolchain} cargo rustc --target nvptx64-nvidia-cuda` failed: {last}"
        ));
    }
    let ptx = target_dir
        .join("nvptx64-nvidia-cuda")
        .join("ptx")
        .join("deps")
        .join("kernels.s");
    fs::copy(&ptx, out)
        .map(|_| ())
        .map_err(|e| format!("{}: {e}", ptx.display()))
}
