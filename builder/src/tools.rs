//! NVIDIA's command-line tools from their PyPI wheels: `ptxas` (PTX to native code) and
//! `nvdisasm` (native code to SASS). The wheels run without a GPU and without a CUDA install,
//! so a crate outside this repository gets native cubins with no manual step: the builder
//! fetches the pinned `ptxas` wheel into a per-user cache the first time it needs it.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One tool inside one pinned wheel.
#[derive(Clone, Copy, Debug)]
pub struct Wheel {
    /// What `pip download` is asked for.
    pub spec: &'static str,
    /// The wheel's file name, as a glob (the platform part varies).
    pub pattern: &'static str,
    /// The tool's path inside the wheel (and inside the folder it is extracted into).
    pub member: &'static str,
    /// The tool's name, for messages.
    pub name: &'static str,
}

/// `ptxas` of CUDA 12.9 (assembles the sm_80 … sm_120 code the kernels are built for).
pub const PTXAS: Wheel = Wheel {
    spec: "nvidia-cuda-nvcc-cu12==12.9.86",
    pattern: "nvidia_cuda_nvcc_cu12-*.whl",
    member: "nvidia/cuda_nvcc/bin/ptxas",
    name: "ptxas",
};

/// `nvdisasm` of CUDA 13.5: its 13.x build reads sm_80 and sm_90 cubins (there is no `-cu12`
/// wheel of it).
pub const NVDISASM: Wheel = Wheel {
    spec: "nvidia-cuda-nvdisasm==13.5.37",
    pattern: "nvidia_cuda_nvdisasm-*.whl",
    member: "nvidia/cu13/bin/nvdisasm",
    name: "nvdisasm",
};

/// Setting it (to anything) keeps the builder from fetching a wheel: it then uses a `ptxas`
/// it finds, or carries the PTX only.
pub const NO_FETCH: &str = "WARPSEARCH_NO_FETCH";

/// The per-user folder fetched tools are kept in: `WARPSEARCH_TOOLS_DIR`, else
/// `$XDG_CACHE_HOME/warpsearch/tools`, else `$HOME/.cache/warpsearch/tools`.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = env::var_os("WARPSEARCH_TOOLS_DIR") {
        return Some(PathBuf::from(dir));
    }
    let base = env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(base.join("warpsearch").join("tools"))
}

impl Wheel {
    /// Where the tool lies once fetched into `dir`.
    pub fn path_in(&self, dir: &Path) -> PathBuf {
        dir.join(self.member)
    }

    /// The tool in `dir`, downloaded (`python3 -m pip download`) and extracted the first time.
    /// The download and extraction go to a folder of this process and the tool is renamed into
    /// place, so that builds running at once never see half a file. The error says which step
    /// failed and why (no Python, no network, …).
    pub fn fetch_into(&self, dir: &Path) -> Result<PathBuf, String> {
        let path = self.path_in(dir);
        if path.is_file() {
            return Ok(path);
        }
        let scratch = dir.join(format!(".fetch-{}", std::process::id()));
        let result = self.fetch_via(&scratch, &path);
        let _ = fs::remove_dir_all(&scratch);
        result.map(|()| path)
    }

    fn fetch_via(&self, scratch: &Path, path: &Path) -> Result<(), String> {
        let wheels = scratch.join("wheels");
        fs::create_dir_all(&wheels).map_err(|e| format!("creating {}: {e}", wheels.display()))?;
        run(
            Command::new("python3")
                .args(["-m", "pip", "download", "--quiet", "--no-deps"])
                .args(["--only-binary=:all:", "-d"])
                .arg(&wheels)
                .arg(self.spec),
            &format!("downloading {} ({}) with pip", self.name, self.spec),
        )?;
        let extract = "import sys, zipfile, glob\n\
            wheel = glob.glob(sys.argv[1] + '/' + sys.argv[3])[0]\n\
            zipfile.ZipFile(wheel).extract(sys.argv[4], sys.argv[2])";
        run(
            Command::new("python3")
                .args(["-c", extract])
                .arg(&wheels)
                .arg(scratch)
                .args([self.pattern, self.member]),
            &format!("extracting {} from its wheel", self.name),
        )?;
        let extracted = self.path_in(scratch);
        make_executable(&extracted)?;
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .map_err(|e| format!("creating {}: {e}", parent.display()))?;
        }
        fs::rename(&extracted, path).map_err(|e| format!("moving {} into place: {e}", self.name))
    }
}

/// Runs `command`; the error names `what` and the command's last lines of stderr.
fn run(command: &mut Command, what: &str) -> Result<(), String> {
    let output = command.output().map_err(|e| format!("{what}: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last: Vec<&str> = stderr.lines().rev().take(2).collect();
    let last: Vec<&str> = last.into_iter().rev().collect();
    Err(format!("{what}: {} ({})", output.status, last.join(" / ")))
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("making {} executable: {e}", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fetched_tool_is_found_without_fetching_again() {
        let dir = env::temp_dir().join(format!("warpsearch-tools-test-{}", std::process::id()));
        let path = PTXAS.path_in(&dir);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "#!/bin/sh\n").unwrap();
        assert_eq!(PTXAS.fetch_into(&dir).unwrap(), path);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_fetch_says_which_step_and_leaves_nothing_behind() {
        // A requirement pip cannot parse (so no network is tried): pip (or python3 itself)
        // fails, and the scratch folder is gone.
        let missing = Wheel {
            spec: "not a requirement ==!",
            pattern: "none-*.whl",
            member: "bin/none",
            name: "none",
        };
        let dir = env::temp_dir().join(format!("warpsearch-tools-fail-{}", std::process::id()));
        let error = missing.fetch_into(&dir).unwrap_err();
        assert!(error.contains("downloading none"), "{error}");
        let left: Vec<_> = fs::read_dir(&dir)
            .map(|entries| entries.flatten().collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "{left:?}");
        let _ = fs::remove_dir_all(&dir);
    }
}
