//! Compiles a `no_std` kernel crate to PTX with the nightly it pins, from a `build.rs` or a
//! build driver, and installs that nightly robustly.
//!
//! The kernels are built by rustc's own `nvptx64-nvidia-cuda` backend. That needs a nightly
//! (`-Zbuild-std=core`), while the host crates build on stable, so the kernel crate names its
//! nightly in its own `rust-toolchain.toml` and this crate runs a nested
//! `rustup run <nightly> cargo rustc --target nvptx64-nvidia-cuda` in that crate's folder.
//!
//! Two things make that fragile, and both are handled here:
//! - A build script or `cargo xtask` runs under the cargo proxy, which sets `RUSTUP_TOOLCHAIN`
//!   (and the outer cargo sets `CARGO_*`, `RUSTC`, `RUSTFLAGS`, …). A child `rustup` or
//!   `cargo` that inherits them installs or uses the wrong toolchain, so every child started
//!   here gets a cleaned environment ([`rustup`]) and names its toolchain explicitly.
//! - A failed kernel build must not end in a panic and a backtrace: every failure is a
//!   [`BuildError`] whose message says the cause and the command that fixes it.
//!
//! ```no_run
//! // build.rs of a crate whose kernels live in ../my-kernels
//! let ptx = warpsearch_builder::Builder::new("../my-kernels").embed("kernels.ptx", false);
//! # let _ = ptx;
//! ```

pub mod tools;

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Oldest GPU architecture the PTX targets by default (Ampere).
pub const DEFAULT_TARGET_CPU: &str = "sm_80";

/// warpsearch's own kernels' `rust-toolchain.toml`: what a downstream kernel crate pins too.
pub const WARPSEARCH_TOOLCHAIN_FILE: &str = include_str!("../../kernels/rust-toolchain.toml");

/// The architectures [`Builder::embed`] also assembles native code (SASS, as cubins) for when
/// `ptxas` is available: Ampere (sm_80, sm_86), Ada (sm_89), Hopper (sm_90) and Blackwell
/// (sm_100, sm_120; skipped quietly by a `ptxas` too old to know them). A GPU with one of
/// these loads its cubin at once; any other GPU gets the PTX, which the driver compiles on the
/// machine's first run (about a second for warpsearch's kernels) and keeps in its cache.
pub const NATIVE_ARCHS: [&str; 6] = ["sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"];

/// Why the kernels could not be built. Each message names the cause and the fix.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// `rustup` is not on the PATH, so no pinned toolchain can be used or installed.
    #[error(
        "rustup was not found ({0}); the GPU kernels need rustup to run the pinned nightly: install rustup from https://rustup.rs"
    )]
    NoRustup(String),
    /// The pinned toolchain, or one of its components, is not installed.
    #[error("{what} is not installed; run `{fix}` (or `cargo xtask run …`, which installs it)")]
    Missing {
        /// The toolchain or component that is missing.
        what: String,
        /// The command that installs it.
        fix: String,
    },
    /// `rustup toolchain install` failed (no network, say).
    #[error("installing {toolchain} failed: {detail}; retry with `{fix}` when online")]
    InstallFailed {
        /// The toolchain.
        toolchain: String,
        /// The end of rustup's output, or why it could not start.
        detail: String,
        /// The command that installs it.
        fix: String,
    },
    /// The kernel crate did not compile to PTX: an error in the kernel's own code, which
    /// [`Builder::embed`] never turns into a quiet CPU-only build.
    #[error("compiling {krate} to PTX failed: {detail}")]
    Compile {
        /// The kernel crate's folder.
        krate: String,
        /// The first error lines of the compiler.
        detail: String,
        /// Everything the compiler printed, as it printed it.
        output: String,
    },
    /// A register limit names a kernel the PTX does not define.
    #[error("max_registers: the PTX has no entry function `{0}`")]
    NoSuchKernel(String),
    /// A configuration file could not be read or understood.
    #[error("{path}: {detail}")]
    Config {
        /// The file.
        path: String,
        /// What is wrong with it.
        detail: String,
    },
    /// Reading or writing a file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

/// A `rustup` command whose environment carries no toolchain override from the process that
/// starts it: `RUSTUP_TOOLCHAIN` (set by the cargo proxy), the outer cargo's `CARGO_*` settings
/// (`CARGO_HOME` is kept: it says where the registry is), `RUSTC*`, `RUSTDOC*` and `RUSTFLAGS`.
pub fn rustup() -> Command {
    let mut command = Command::new("rustup");
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy();
        let outer_cargo = key.starts_with("CARGO") && key != "CARGO_HOME";
        if outer_cargo
            || key.starts_with("RUSTC")
            || key.starts_with("RUSTDOC")
            || key == "RUSTFLAGS"
            || key == "RUSTUP_TOOLCHAIN"
        {
            command.env_remove(key.as_ref());
        }
    }
    command
}

/// The toolchain a kernel crate pins in its `rust-toolchain.toml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// e.g. `nightly-2026-05-20`.
    pub channel: String,
    /// e.g. `rust-src`, `llvm-tools`.
    pub components: Vec<String>,
    /// The rustup profile to install with (`minimal` when the file names none).
    pub profile: String,
}

#[derive(serde::Deserialize)]
struct ToolchainFile {
    toolchain: ToolchainSection,
}

#[derive(serde::Deserialize)]
struct ToolchainSection {
    channel: String,
    #[serde(default)]
    components: Vec<String>,
    profile: Option<String>,
}

impl Toolchain {
    /// Reads `dir/rust-toolchain.toml`.
    pub fn pinned_in(dir: &Path) -> Result<Toolchain, BuildError> {
        let path = dir.join("rust-toolchain.toml");
        let text = fs::read_to_string(&path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => BuildError::Config {
                path: path.display().to_string(),
                detail: format!(
                    "missing: a kernel crate pins the nightly it is compiled with, in a file of \
                     its own folder holding (the nightly warpsearch's kernels are built with):\n{}",
                    WARPSEARCH_TOOLCHAIN_FILE
                        .lines()
                        .filter(|line| !line.starts_with('#'))
                        .collect::<Vec<_>>()
                        .join("\n")
                ),
            },
            _ => BuildError::Io {
                path: path.display().to_string(),
                source,
            },
        })?;
        Self::parse(&text).map_err(|detail| BuildError::Config {
            path: path.display().to_string(),
            detail,
        })
    }

    /// Parses the text of a `rust-toolchain.toml`.
    pub fn parse(text: &str) -> Result<Toolchain, String> {
        let file: ToolchainFile = toml::from_str(text).map_err(|e| e.to_string())?;
        let section = file.toolchain;
        if section.channel.trim().is_empty() {
            return Err("the [toolchain] channel is empty".into());
        }
        Ok(Toolchain {
            channel: section.channel,
            components: section.components,
            profile: section.profile.unwrap_or_else(|| "minimal".into()),
        })
    }

    /// The arguments of `rustup` that install this toolchain with its components.
    pub fn install_args(&self) -> Vec<String> {
        let mut args: Vec<String> = ["toolchain", "install", &self.channel, "--profile"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.push(self.profile.clone());
        for component in &self.components {
            args.push("--component".into());
            args.push(component.clone());
        }
        args.push("--no-self-update".into());
        args
    }

    /// The install command as a user would type it.
    pub fn install_command(&self) -> String {
        format!("rustup {}", self.install_args().join(" "))
    }

    /// Checks that the toolchain and every component it names are installed.
    pub fn check(&self) -> Result<(), BuildError> {
        let output = rustup()
            .args(["component", "list", "--installed", "--toolchain"])
            .arg(&self.channel)
            .output()
            .map_err(|e| BuildError::NoRustup(e.to_string()))?;
        if !output.status.success() {
            return Err(BuildError::Missing {
                what: format!("the toolchain {}", self.channel),
                fix: self.install_command(),
            });
        }
        let installed = String::from_utf8_lossy(&output.stdout);
        for component in &self.components {
            // Installed components carry their host triple: `llvm-tools-x86_64-unknown-linux-gnu`.
            let present = installed.lines().map(str::trim).any(|line| {
                line == component
                    || line
                        .strip_prefix(component.as_str())
                        .is_some_and(|rest| rest.starts_with('-') && rest.contains("-unknown-"))
            });
            if !present {
                return Err(BuildError::Missing {
                    what: format!("the component {component} of {}", self.channel),
                    fix: self.install_command(),
                });
            }
        }
        Ok(())
    }

    /// Installs the toolchain with its components (whatever toolchain override the calling
    /// process runs under), then checks that everything is there.
    pub fn install(&self) -> Result<(), BuildError> {
        let failed = |detail: String| BuildError::InstallFailed {
            toolchain: self.channel.clone(),
            detail,
            fix: self.install_command(),
        };
        let output = rustup()
            .args(self.install_args())
            .output()
            .map_err(|e| BuildError::NoRustup(e.to_string()))?;
        if !output.status.success() {
            return Err(failed(last_lines(&output.stderr, 4)));
        }
        self.check()
            .map_err(|e| failed(format!("rustup succeeded but {e}")))
    }

    /// Checks the toolchain and installs it when something is missing; true when it installed.
    pub fn ensure(&self) -> Result<bool, BuildError> {
        match self.check() {
            Ok(()) => Ok(false),
            Err(BuildError::NoRustup(why)) => Err(BuildError::NoRustup(why)),
            Err(_) => self.install().map(|()| true),
        }
    }
}

/// The last `count` non-empty lines of a command's output, joined by " | ".
fn last_lines(output: &[u8], count: usize) -> String {
    let text = String::from_utf8_lossy(output);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(count)..].join(" | ")
}

/// The first error lines of a compiler's output (or its last lines when none says "error").
fn first_errors(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    let errors: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("error"))
        .filter(|l| !l.trim().is_empty())
        .take(8)
        .collect();
    if errors.is_empty() {
        last_lines(output, 8)
    } else {
        errors.join(" | ")
    }
}

/// What [`Builder::embed`] put into `OUT_DIR`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Embedded {
    /// The PTX was built (or taken from the override variable) and written.
    Ptx(PathBuf),
    /// The PTX could not be built; an empty file was written and cargo was warned once.
    CpuOnly(String),
}

/// Compiles one kernel crate to PTX.
#[derive(Clone, Debug)]
pub struct Builder {
    krate: PathBuf,
    target_cpu: String,
    target_dir: Option<PathBuf>,
    env_prefix: String,
    register_limits: Vec<(String, u32)>,
    native_archs: Vec<String>,
    expected_frames: Vec<(String, u64)>,
}

impl Builder {
    /// A builder for the kernel crate in `krate` (the folder of its `Cargo.toml` and
    /// `rust-toolchain.toml`), relative to the current folder (a build script's is its
    /// package's folder).
    pub fn new(krate: impl Into<PathBuf>) -> Builder {
        Builder {
            krate: krate.into(),
            target_cpu: DEFAULT_TARGET_CPU.into(),
            target_dir: None,
            env_prefix: "WARPSEARCH".into(),
            register_limits: Vec::new(),
            native_archs: NATIVE_ARCHS.iter().map(|arch| arch.to_string()).collect(),
            expected_frames: Vec::new(),
        }
    }

    /// The architectures [`embed`](Self::embed) assembles cubins for besides the PTX
    /// ([`NATIVE_ARCHS`] by default; none: PTX only).
    pub fn native_archs(mut self, archs: &[&str]) -> Builder {
        self.native_archs = archs.iter().map(|arch| arch.to_string()).collect();
        self
    }

    /// Caps the registers of the entry function `kernel` at `count` (a PTX `.maxnreg`
    /// directive, what CUDA C's `__launch_bounds__` or `-maxrregcount` would ask): fewer
    /// registers a thread, more resident warps to hide memory latency — at the risk of
    /// spills, which the ptxas report shows. Applied to the PTX [`build`](Self::build)
    /// returns.
    pub fn max_registers(mut self, kernel: &str, count: u32) -> Builder {
        self.register_limits.push((kernel.into(), count));
        self
    }

    /// Says that the entry function `kernel` keeps a stack frame of up to `bytes` by design
    /// (an array a thread indexes at run time, such as a search's own stack, lives in local
    /// memory): such a frame is then no build warning. A larger frame, or any spill, still is.
    pub fn expect_stack_frame(mut self, kernel: &str, bytes: u64) -> Builder {
        self.expected_frames.push((kernel.into(), bytes));
        self
    }

    /// True when a line of [`resource_lines`] reports only a stack frame that
    /// [`expect_stack_frame`](Self::expect_stack_frame) allows for its kernel.
    fn is_expected(&self, line: &str) -> bool {
        let kernel = line.split(" (").next().unwrap_or_default();
        self.expected_frames.iter().any(|(name, bytes)| {
            name == kernel
                && bytes_of(line, "bytes stack frame") <= *bytes
                && bytes_of(line, "bytes spill stores") == 0
                && bytes_of(line, "bytes spill loads") == 0
        })
    }

    /// The GPU architecture the PTX targets (`sm_80` by default).
    pub fn target_cpu(mut self, arch: &str) -> Builder {
        self.target_cpu = arch.into();
        self
    }

    /// Where the nested cargo builds (by default `kernels/` in the outer build's target folder:
    /// `$CARGO_TARGET_DIR/kernels`, else found from the build script's `OUT_DIR`, else
    /// `target/kernels` beside the kernel crate).
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Builder {
        self.target_dir = Some(dir.into());
        self
    }

    /// The prefix of the environment variables [`Builder::embed`] reads: `<PREFIX>_PTX`
    /// (use this PTX file), `<PREFIX>_SKIP_PTX` (build CPU-only) and `<PREFIX>_REQUIRE_PTX`
    /// (fail instead of building CPU-only). `WARPSEARCH` by default.
    pub fn env_prefix(mut self, prefix: &str) -> Builder {
        self.env_prefix = prefix.into();
        self
    }

    /// The toolchain the kernel crate pins.
    pub fn toolchain(&self) -> Result<Toolchain, BuildError> {
        Toolchain::pinned_in(&self.krate)
    }

    /// The file name rustc gives the PTX: the crate's library name with `.s`.
    fn library_name(&self) -> Result<String, BuildError> {
        #[derive(serde::Deserialize)]
        struct Manifest {
            package: Package,
            lib: Option<Lib>,
        }
        #[derive(serde::Deserialize)]
        struct Package {
            name: String,
        }
        #[derive(serde::Deserialize)]
        struct Lib {
            name: Option<String>,
        }
        let path = self.krate.join("Cargo.toml");
        let text = fs::read_to_string(&path).map_err(|source| BuildError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let manifest: Manifest = toml::from_str(&text).map_err(|e| BuildError::Config {
            path: path.display().to_string(),
            detail: e.to_string(),
        })?;
        Ok(manifest
            .lib
            .and_then(|lib| lib.name)
            .unwrap_or(manifest.package.name)
            .replace('-', "_"))
    }

    /// The nested build's target folder, absolute: the nested cargo runs in the kernel
    /// crate's folder, while the caller reads the PTX from its own.
    fn resolved_target_dir(&self) -> PathBuf {
        let absolute = |path: PathBuf| {
            if path.is_absolute() {
                path
            } else {
                env::current_dir().map_or(path.clone(), |dir| dir.join(path))
            }
        };
        if let Some(dir) = &self.target_dir {
            return absolute(dir.clone());
        }
        if let Some(dir) = env::var_os("CARGO_TARGET_DIR") {
            return absolute(PathBuf::from(dir).join("kernels"));
        }
        // From a build script: the outer build's target folder, found above OUT_DIR
        // (`<target>/[<triple>/]<profile>/build/<package>-<hash>/out`), so that a crate used as
        // a dependency builds its kernels beside its user's build, not in its own source tree.
        if let Some(target) = env::var_os("OUT_DIR").and_then(|out| {
            PathBuf::from(out)
                .ancestors()
                .find(|dir| dir.file_name().is_some_and(|name| name == "build"))
                .and_then(Path::parent)
                .and_then(Path::parent)
                .map(Path::to_path_buf)
        }) {
            return absolute(target.join("kernels"));
        }
        let krate = absolute(self.krate.clone());
        krate
            .parent()
            .unwrap_or(Path::new("."))
            .join("target")
            .join("kernels")
    }

    /// Builds the PTX and returns the path of the file rustc wrote. Checks the toolchain first
    /// (it does not install it: see [`Toolchain::ensure`]).
    pub fn build(&self) -> Result<PathBuf, BuildError> {
        let toolchain = self.toolchain()?;
        toolchain.check()?;
        let target_dir = self.resolved_target_dir();
        let library = self.library_name()?;
        let mut cargo = rustup();
        cargo
            .current_dir(&self.krate)
            .args(["run", &toolchain.channel, "cargo", "rustc", "--quiet"])
            .args([
                "--lib",
                "--profile",
                "ptx",
                "--target",
                "nvptx64-nvidia-cuda",
                "-Zbuild-std=core",
                "--crate-type",
                "cdylib",
                "--target-dir",
            ])
            .arg(&target_dir)
            .args(["--", "--emit=asm", "-Zno-link"])
            .env(
                "CARGO_ENCODED_RUSTFLAGS",
                format!("-Ctarget-cpu={}", self.target_cpu),
            );
        let output = cargo
            .output()
            .map_err(|e| BuildError::NoRustup(e.to_string()))?;
        if !output.status.success() {
            return Err(BuildError::Compile {
                krate: self.krate.display().to_string(),
                detail: first_errors(&output.stderr),
                output: String::from_utf8_lossy(&output.stderr).into_owned(),
            });
        }
        let deps = target_dir
            .join("nvptx64-nvidia-cuda")
            .join("ptx")
            .join("deps");
        let emitted = deps.join(format!("{library}.s"));
        if self.register_limits.is_empty() {
            return Ok(emitted);
        }
        let io = |path: &Path| {
            let path = path.display().to_string();
            move |source| BuildError::Io { path, source }
        };
        let mut ptx = fs::read_to_string(&emitted).map_err(io(&emitted))?;
        for (kernel, count) in &self.register_limits {
            ptx = limit_registers(&ptx, kernel, *count)?;
        }
        let limited = deps.join(format!("{library}.ptx"));
        fs::write(&limited, ptx).map_err(io(&limited))?;
        Ok(limited)
    }

    /// The `ptxas` to assemble the PTX with (see [`find_tool`](Self::find_tool)).
    fn ptxas(&self) -> Result<PathBuf, String> {
        self.find_tool(tools::PTXAS, "PTXAS")
    }

    /// A tool of `wheel`: `<PREFIX>_<VAR>`, else `WARPSEARCH_<VAR>`, else the tool on the
    /// PATH, else in `$CUDA_HOME/bin` (or `$CUDA_PATH/bin`), else the pinned wheel's in the
    /// per-user cache ([`tools::cache_dir`]), fetched there the first time unless
    /// `WARPSEARCH_NO_FETCH` is set. Err: why there is none (for the one warning).
    fn find_tool(&self, wheel: tools::Wheel, var: &str) -> Result<PathBuf, String> {
        let own = [
            format!("{}_{var}", self.env_prefix),
            format!("WARPSEARCH_{var}"),
        ];
        for name in own.iter().map(String::as_str).chain([
            "CUDA_HOME",
            "CUDA_PATH",
            tools::NO_FETCH,
            "WARPSEARCH_TOOLS_DIR",
        ]) {
            println!("cargo:rerun-if-env-changed={name}");
        }
        for name in &own {
            if let Some(path) = env::var_os(name) {
                return Ok(PathBuf::from(path));
            }
        }
        let on_path = env::var_os("PATH").and_then(|path| {
            env::split_paths(&path)
                .map(|dir| dir.join(wheel.name))
                .find(|candidate| candidate.is_file())
        });
        let in_cuda = ["CUDA_HOME", "CUDA_PATH"].iter().find_map(|name| {
            let path = PathBuf::from(env::var_os(name)?)
                .join("bin")
                .join(wheel.name);
            path.is_file().then_some(path)
        });
        if let Some(path) = on_path.or(in_cuda) {
            return Ok(path);
        }
        let cache = tools::cache_dir()
            .ok_or("no cache folder (neither HOME nor WARPSEARCH_TOOLS_DIR is set)")?;
        let cached = wheel.path_in(&cache);
        if cached.is_file() {
            return Ok(cached);
        }
        if env::var_os(tools::NO_FETCH).is_some() {
            return Err(format!("none found, and {} is set", tools::NO_FETCH));
        }
        wheel.fetch_into(&cache).map_err(|why| {
            format!(
                "fetching the pinned wheel into {} failed: {why}",
                cache.display()
            )
        })
    }

    /// When `<PREFIX>_SASS` or `WARPSEARCH_SASS` is set: disassembles the target
    /// architecture's cubin with `nvdisasm` (found or fetched as `ptxas` is, through
    /// `<PREFIX>_NVDISASM` / `WARPSEARCH_NVDISASM`) into `<cubin without .cubin>.sass`, and
    /// names the file in one cargo warning line.
    fn write_sass(&self, cubin: &Path, arch: &str) {
        let names = [
            format!("{}_SASS", self.env_prefix),
            "WARPSEARCH_SASS".into(),
        ];
        for name in &names {
            println!("cargo:rerun-if-env-changed={name}");
        }
        if !names.iter().any(|name| env::var_os(name).is_some()) {
            return;
        }
        let sass = cubin.with_extension("sass");
        let written = self
            .find_tool(tools::NVDISASM, "NVDISASM")
            .and_then(|nvdisasm| {
                let output = Command::new(&nvdisasm)
                    .arg("-c")
                    .arg(cubin)
                    .output()
                    .map_err(|e| format!("{} did not run: {e}", nvdisasm.display()))?;
                if !output.status.success() {
                    return Err(format!("nvdisasm: {}", last_lines(&output.stderr, 3)));
                }
                fs::write(&sass, &output.stdout).map_err(|e| format!("{}: {e}", sass.display()))
            });
        match written {
            Ok(()) => println!("cargo:warning=SASS ({arch}): {}", sass.display()),
            Err(why) => println!("cargo:warning=no SASS ({arch}): {why}"),
        }
    }

    /// When `ptxas` is available, assembles the PTX into a cubin for each native architecture
    /// (beside `ptx`, as `<ptx>.<arch>.cubin`) and returns them. A kernel that uses local
    /// memory for the target architecture (a stack frame or spills: the first thing to look at
    /// in a slow kernel) is reported as a cargo warning with its registers, stack and spills;
    /// every kernel's line is printed when `<PREFIX>_PTX_STATS` or `WARPSEARCH_PTX_STATS` is
    /// set. Without `ptxas`, one warning says that the build carries PTX only.
    fn assemble_native(&self, ptx: &Path) -> Vec<(u32, PathBuf)> {
        println!("cargo:rerun-if-env-changed={}_PTXAS", self.env_prefix);
        let stats_names = [
            format!("{}_PTX_STATS", self.env_prefix),
            "WARPSEARCH_PTX_STATS".into(),
        ];
        for name in &stats_names {
            println!("cargo:rerun-if-env-changed={name}");
        }
        let all_stats = stats_names.iter().any(|name| env::var_os(name).is_some());
        let ptxas = match self.ptxas() {
            Ok(ptxas) => ptxas,
            Err(why) => {
                println!(
                    "cargo:warning=no ptxas ({why}; set {}_PTXAS or put ptxas on the PATH): the kernels are \
                     embedded as PTX only, which the driver compiles on each machine's first run",
                    self.env_prefix
                );
                return Vec::new();
            }
        };
        let mut archs = self.native_archs.clone();
        if !archs.contains(&self.target_cpu) {
            archs.insert(0, self.target_cpu.clone());
        }
        let mut cubins = Vec::new();
        for arch in archs {
            let Some(number) = arch.strip_prefix("sm_").and_then(|n| n.parse::<u32>().ok()) else {
                println!("cargo:warning=native_archs: `{arch}` is not of the form sm_NN");
                continue;
            };
            let cubin = ptx.with_extension(format!("{arch}.cubin"));
            let output = Command::new(&ptxas)
                .arg(format!("-arch={arch}"))
                .args(["-v", "-o"])
                .arg(&cubin)
                .arg(ptx)
                .output();
            let output = match output {
                Ok(output) => output,
                Err(e) => {
                    println!("cargo:warning=ptxas ({}) did not run: {e}", ptxas.display());
                    return cubins;
                }
            };
            let report = String::from_utf8_lossy(&output.stderr);
            if !output.status.success() {
                // An architecture newer than this ptxas: its GPUs take the PTX.
                if !report.contains("is not defined for option") {
                    println!(
                        "cargo:warning=ptxas -arch={arch} rejected the PTX: {}",
                        last_lines(&output.stderr, 3)
                    );
                }
                continue;
            }
            if arch == self.target_cpu {
                for line in resource_lines(&report, &arch) {
                    if all_stats || uses_local_memory(&line) && !self.is_expected(&line) {
                        println!("cargo:warning={line}");
                    }
                }
                self.write_sass(&cubin, &arch);
            }
            if self.native_archs.contains(&arch) {
                cubins.push((number, cubin));
            }
        }
        cubins
    }

    /// For a build script: writes the PTX to `$OUT_DIR/<file>` (include it with
    /// `include_str!(concat!(env!("OUT_DIR"), "/<file>"))`) and tells cargo when to rerun.
    ///
    /// Beside it, `$OUT_DIR/<file>.native.rs` holds the native cubins as a Rust expression of
    /// type `&[(u32, &[u8])]` — (architecture as a number, e.g. 90 for sm_90; the cubin) —
    /// empty without `ptxas`: `include!(concat!(env!("OUT_DIR"), "/<file>.native.rs"))`.
    ///
    /// When the PTX cannot be built, an empty file is written and cargo shows one warning
    /// with the cause and the fix, so the crate builds CPU-only; with `required` (or
    /// `<PREFIX>_REQUIRE_PTX` set) the build fails instead, with the same one-line message
    /// and no backtrace.
    pub fn embed(&self, file: &str, required: bool) -> Embedded {
        let prefix = &self.env_prefix;
        for suffix in ["PTX", "REQUIRE_PTX", "SKIP_PTX"] {
            println!("cargo:rerun-if-env-changed={prefix}_{suffix}");
        }
        println!("cargo:rerun-if-env-changed=CARGO_TARGET_DIR");
        for watched in ["src", "Cargo.toml", "rust-toolchain.toml"] {
            println!(
                "cargo:rerun-if-changed={}",
                self.krate.join(watched).display()
            );
        }
        // A kernel crate is compiled together with warpsearch-kernels (the primitives and the
        // skeleton) from the checkout this builder comes from: a change there changes its PTX.
        let primitives = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels");
        for watched in ["src", "Cargo.toml"] {
            println!(
                "cargo:rerun-if-changed={}",
                primitives.join(watched).display()
            );
        }
        let required = required || env::var_os(format!("{prefix}_REQUIRE_PTX")).is_some();
        let out = match env::var_os("OUT_DIR") {
            Some(dir) => PathBuf::from(dir).join(file),
            None => {
                let why = "Builder::embed runs only in a build script (no OUT_DIR)";
                println!("cargo::error={why}");
                return Embedded::CpuOnly(why.into());
            }
        };
        let result = if let Some(path) = env::var_os(format!("{prefix}_PTX")) {
            println!("cargo:rerun-if-changed={}", Path::new(&path).display());
            fs::copy(&path, &out)
                .map(|_| ())
                .map_err(|source| BuildError::Io {
                    path: format!("{prefix}_PTX={}", Path::new(&path).display()),
                    source,
                })
        } else if env::var_os(format!("{prefix}_SKIP_PTX")).is_some() {
            Err(BuildError::Config {
                path: format!("{prefix}_SKIP_PTX"),
                detail: "set, so the kernels are not built".into(),
            })
        } else {
            self.build().and_then(|ptx| {
                fs::copy(&ptx, &out)
                    .map(|_| ())
                    .map_err(|source| BuildError::Io {
                        path: ptx.display().to_string(),
                        source,
                    })
            })
        };
        let native = match &result {
            Ok(()) => self.assemble_native(&out),
            Err(_) => Vec::new(),
        };
        let table = PathBuf::from(format!("{}.native.rs", out.display()));
        if let Err(e) = fs::write(&table, native_table(&native)) {
            println!("cargo::error={}: {e}", table.display());
        }
        match result {
            Ok(()) => Embedded::Ptx(out),
            Err(BuildError::Compile { krate, output, .. }) => {
                // An error in the kernel's own code: fail loudly, with the compiler's messages
                // as it printed them (cargo shows a failed build script's stderr).
                eprintln!(
                    "error: the GPU kernel crate {krate} does not compile for nvptx64-nvidia-cuda:\n"
                );
                eprintln!("{output}");
                std::process::exit(1);
            }
            Err(error) if required => {
                // `cargo::error` fails the build with this one line: no backtrace, and (as the
                // script itself exits normally) no dump of the script's output.
                println!("cargo::error=GPU kernels not built: {error}");
                Embedded::CpuOnly(error.to_string())
            }
            Err(error) => {
                println!(
                    "cargo:warning=GPU kernels not built, so this build runs on the CPU only: {error}"
                );
                if let Err(e) = fs::write(&out, "") {
                    println!("cargo::error={}: {e}", out.display());
                }
                Embedded::CpuOnly(error.to_string())
            }
        }
    }
}

/// The Rust expression `&[(arch, include_bytes!(cubin)), …]` for [`Builder::embed`]'s
/// `<file>.native.rs`.
pub fn native_table(cubins: &[(u32, PathBuf)]) -> String {
    let mut table = String::from(
        "// Written by warpsearch-builder: (architecture, cubin) for each native architecture.\n&[\n",
    );
    for (arch, path) in cubins {
        let path = path.display().to_string();
        table.push_str(&format!(
            "    ({arch}, include_bytes!({path:?}) as &[u8]),\n"
        ));
    }
    table.push_str("]\n");
    table
}

/// `ptx` with the entry function `kernel` capped at `count` registers: a `.maxnreg`
/// directive between its parameter list and its body (replacing one already there).
pub fn limit_registers(ptx: &str, kernel: &str, count: u32) -> Result<String, BuildError> {
    let missing = || BuildError::NoSuchKernel(kernel.into());
    let entry = ptx.find(&format!(".entry {kernel}(")).ok_or_else(missing)?;
    let body = entry + ptx[entry..].find('{').ok_or_else(missing)?;
    let header = &ptx[entry..body];
    let header = match header.find(".maxnreg") {
        Some(at) => header[..at].trim_end().to_string(),
        None => header.trim_end().to_string(),
    };
    Ok(format!(
        "{}{header}\n.maxnreg {count}\n{}",
        &ptx[..entry],
        &ptx[body..]
    ))
}

/// True when a line of [`resource_lines`] reports a stack frame or spills (local memory).
pub fn uses_local_memory(line: &str) -> bool {
    [
        "bytes stack frame",
        "bytes spill stores",
        "bytes spill loads",
    ]
    .iter()
    .any(|what| bytes_of(line, what) > 0)
}

/// The number before `what` (such as "bytes stack frame") in a line of [`resource_lines`];
/// 0 when the line does not say.
fn bytes_of(line: &str, what: &str) -> u64 {
    line.split(what)
        .next()
        .filter(|before| before.len() < line.len())
        .and_then(|before| before.split([' ', ',', ';']).rfind(|w| !w.is_empty()))
        .and_then(|count| count.parse::<u64>().ok())
        .unwrap_or(0)
}

/// One line per entry function of a `ptxas -v` report: registers, stack frame and spills.
pub fn resource_lines(report: &str, arch: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut kernel: Option<String> = None;
    let mut stack = String::new();
    for line in report.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            kernel = rest.split('\'').next().map(str::to_string);
        } else if line.contains("Function properties for") {
            // A non-entry function's properties follow; only entries are reported.
            if !line.contains(kernel.as_deref().unwrap_or("\u{0}")) {
                kernel = None;
            }
        } else if line.contains("bytes stack frame") {
            stack = line.trim().to_string();
        } else if let (Some(name), true) = (&kernel, line.contains("Used")) {
            let used = line
                .split("Used")
                .nth(1)
                .map(|rest| format!("used{}", rest.trim_end()))
                .unwrap_or_default();
            lines.push(format!("{name} ({arch}): {used}; {stack}"));
            kernel = None;
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_limits_go_between_the_parameters_and_the_body() {
        let ptx = ".visible .entry a(\n\t.param .u32 a_0\n)\n{\n\tret;\n}\n\
                   .visible .entry b(\n\t.param .u32 b_0\n)\n{\n\tret;\n}\n";
        let limited = limit_registers(ptx, "b", 64).unwrap();
        assert_eq!(limited, ptx.replace("b_0\n)\n{", "b_0\n)\n.maxnreg 64\n{"));
        // A second limit replaces the first; an unknown kernel is an error.
        let again = limit_registers(&limited, "b", 48).unwrap();
        assert_eq!(again, ptx.replace("b_0\n)\n{", "b_0\n)\n.maxnreg 48\n{"));
        assert!(matches!(
            limit_registers(ptx, "c", 64),
            Err(BuildError::NoSuchKernel(_))
        ));
    }

    #[test]
    fn ptxas_reports_become_one_line_per_kernel() {
        let report = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'costas_count' for 'sm_90'\n\
ptxas info    : Function properties for costas_count\n\
    768 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 32 registers, used 0 barriers, 768 bytes cumulative stack size\n\
ptxas info    : Function properties for panic_fmt\n\
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
        assert_eq!(
            resource_lines(report, "sm_90"),
            [
                "costas_count (sm_90): used 32 registers, used 0 barriers, 768 bytes cumulative stack size; 768 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
            ]
        );
    }

    #[test]
    fn only_local_memory_is_a_warning() {
        let quiet = "nqueens (sm_80): used 44 registers, used 0 barriers, 400 bytes cmem[0]; 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads";
        assert!(!uses_local_memory(quiet));
        let frame = "vcf (sm_80): used 80 registers, 5680 bytes cumulative stack size; 5680 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads";
        assert!(uses_local_memory(frame));
        let spills = "k (sm_80): used 255 registers; 0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads";
        assert!(uses_local_memory(spills));
        // A frame the crate expects is quiet; a larger one, or spills, are not.
        let builder = Builder::new(".").expect_stack_frame("vcf", 5680);
        assert!(builder.is_expected(frame));
        assert!(
            !builder
                .is_expected(&frame.replace("5680 bytes stack frame", "5688 bytes stack frame"))
        );
        assert!(
            !builder.is_expected(&frame.replace("0 bytes spill stores", "8 bytes spill stores"))
        );
        assert!(!builder.is_expected(spills));
    }

    #[test]
    fn a_missing_toolchain_file_says_what_to_put_there() {
        let dir = std::env::temp_dir().join("warpsearch-builder-no-toolchain-file");
        let _ = fs::create_dir_all(&dir);
        let error = Toolchain::pinned_in(&dir).unwrap_err().to_string();
        assert!(error.contains("rust-toolchain.toml: missing"), "{error}");
        assert!(error.contains("channel = \"nightly-"), "{error}");
        assert!(error.contains("rust-src"), "{error}");
        let pinned = Toolchain::parse(WARPSEARCH_TOOLCHAIN_FILE).unwrap();
        assert!(error.contains(&pinned.channel), "{error}");
    }

    #[test]
    fn the_native_table_is_a_slice_of_architectures_and_included_cubins() {
        assert!(native_table(&[]).ends_with("&[\n]\n"));
        let table = native_table(&[(90, PathBuf::from("/out/k.sm_90.cubin"))]);
        assert!(
            table.contains("(90, include_bytes!(\"/out/k.sm_90.cubin\") as &[u8]),"),
            "{table}"
        );
    }

    #[test]
    fn parses_the_pinned_toolchain_with_components_and_profile() {
        let toolchain = Toolchain::parse(
            "[toolchain]\nchannel = \"nightly-2026-05-20\"\ncomponents = [\"rust-src\", \"llvm-tools\"]\nprofile = \"minimal\"\n",
        )
        .unwrap();
        assert_eq!(toolchain.channel, "nightly-2026-05-20");
        assert_eq!(toolchain.components, ["rust-src", "llvm-tools"]);
        assert_eq!(
            toolchain.install_command(),
            "rustup toolchain install nightly-2026-05-20 --profile minimal --component rust-src --component llvm-tools --no-self-update"
        );
    }

    #[test]
    fn a_file_without_a_channel_is_an_error_not_a_panic() {
        assert!(Toolchain::parse("[toolchain]\ncomponents = []\n").is_err());
        assert!(Toolchain::parse("channel = \"x\"").is_err());
        assert!(Toolchain::parse("[toolchain]\nchannel = \"\"\n").is_err());
    }

    #[test]
    fn the_child_rustup_inherits_no_toolchain_override() {
        // SAFETY: this test is the only code in this test binary that touches these variables.
        unsafe {
            env::set_var("RUSTUP_TOOLCHAIN", "stable");
            env::set_var("RUSTC", "/somewhere/rustc");
        }
        let command = rustup();
        let removed: Vec<_> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(key, _)| key.to_string_lossy().into_owned())
            .collect();
        assert!(removed.contains(&"RUSTUP_TOOLCHAIN".to_string()));
        assert!(removed.contains(&"RUSTC".to_string()));
        assert!(!removed.contains(&"CARGO_HOME".to_string()));
    }

    #[test]
    fn error_lines_are_extracted() {
        let out =
            b"   Compiling x\nwarning: w\nerror[E0425]: cannot find value\n --> src/lib.rs:1\n";
        assert_eq!(
            first_errors(out),
            "error[E0425]: cannot find value |  --> src/lib.rs:1"
        );
        assert_eq!(last_lines(b"a\n\nb\nc\n", 2), "b | c");
    }
}
