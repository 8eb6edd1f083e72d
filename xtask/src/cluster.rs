//! `cargo xtask cluster-test`: the Slurm path of `deploy/slurm/`, run for real.
//!
//! Installs Slurm and MUNGE from Debian's packages when they are missing, starts a one-node
//! cluster on this machine (its own MUNGE key and socket, its own slurm.conf, state and ports
//! in a scratch folder: nothing of the system's configuration is touched), submits
//! `deploy/slurm/submit.sh -m 4 nqueens 16 --backend cpu` (an array of four CPU shards and a
//! merge job queued with `--dependency=afterok`), waits for the merge, and checks the merged
//! counts against OEIS. The daemons are stopped whatever happens.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::Result;

/// The count the shards add up to, and its known values (OEIS A000170, A002562).
const N: u32 = 16;
const SHARDS: u32 = 4;
const TOTAL: u64 = 14_772_512;
const UNIQUE: u64 = 1_846_955;

/// Debian's packages the test needs, and the programs they bring.
const PACKAGES: [&str; 4] = ["slurmctld", "slurmd", "slurm-client", "munge"];
const PROGRAMS: [&str; 6] = ["slurmctld", "slurmd", "munged", "sbatch", "squeue", "sinfo"];

/// How long the jobs may take (4 shards of a 2-second count, on a busy 2-core machine).
const JOBS_TIMEOUT: Duration = Duration::from_secs(300);

fn io(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> String {
    move |e| format!("{what}: {e}")
}

pub fn test(root: &Path, binary: &Path) -> Result {
    let started = Instant::now();
    install_slurm()?;
    let work = env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("cluster-test");
    if work.exists() {
        fs::remove_dir_all(&work).map_err(io(work.display()))?;
    }
    fs::create_dir_all(&work).map_err(io(work.display()))?;
    let cluster = Cluster::start(&work)?;
    let outcome = submit_and_check(root, binary, &cluster, &work);
    drop(cluster);
    let summary = outcome?;
    eprintln!(
        "xtask: cluster test passed in {:.0} s: {summary}",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Installs Slurm and MUNGE with apt-get (as root, or through `sudo -n`) when a program is
/// missing.
fn install_slurm() -> Result {
    let missing: Vec<&str> = PROGRAMS
        .iter()
        .copied()
        .filter(|program| which(program).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let mut command = if root {
        Command::new("apt-get")
    } else {
        let mut sudo = Command::new("sudo");
        sudo.args(["-n", "apt-get"]);
        sudo
    };
    command
        .args(["install", "-y", "--no-install-recommends"])
        .args(PACKAGES)
        .env("DEBIAN_FRONTEND", "noninteractive");
    crate::status(
        &mut command,
        &format!(
            "installing Slurm and MUNGE from Debian's packages ({} missing): apt-get install {}",
            missing.join(", "),
            PACKAGES.join(" ")
        ),
    )
    .map_err(|e| {
        format!("{e}\nxtask: the cluster test needs root or passwordless sudo to install them")
    })?;
    match PROGRAMS.iter().find(|program| which(program).is_none()) {
        Some(program) => Err(format!("{program} is still missing after installing Slurm")),
        None => Ok(()),
    }
}

fn which(program: &str) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// A one-node cluster: munged, slurmctld and slurmd with a private configuration.
struct Cluster {
    work: PathBuf,
    conf: PathBuf,
}

impl Cluster {
    fn start(work: &Path) -> Result<Cluster> {
        let munge = work.join("munge");
        fs::create_dir_all(&munge).map_err(io(munge.display()))?;
        let key = munge.join("munge.key");
        random_key(&key)?;
        set_mode(&munge, 0o700)?;
        set_mode(&key, 0o400)?;
        let socket = munge.join("munge.sock");
        let cluster = Cluster {
            work: work.to_path_buf(),
            conf: work.join("slurm.conf"),
        };
        // From here on, dropping `cluster` stops whatever was started.
        crate::status(
            Command::new(which("munged").unwrap_or_else(|| "munged".into()))
                .arg("--force")
                .arg(format!("--key-file={}", key.display()))
                .arg(format!("--socket={}", socket.display()))
                .arg(format!("--log-file={}", munge.join("munged.log").display()))
                .arg(format!("--pid-file={}", munge.join("munged.pid").display()))
                .arg(format!("--seed-file={}", munge.join("seed").display())),
            "starting munged (private key and socket)",
        )?;
        let node = node_line()?;
        let (controller_port, node_port) = (free_port()?, free_port()?);
        let w = work.display();
        let conf = format!(
            "# A one-node test cluster, written by `cargo xtask cluster-test`.\n\
             ClusterName=warpsearch-test\n\
             SlurmctldHost={host}(127.0.0.1)\n\
             SlurmUser=root\nSlurmdUser=root\n\
             AuthType=auth/munge\nCredType=cred/munge\n\
             AuthInfo=socket={socket}\n\
             SlurmctldPort={controller_port}\nSlurmdPort={node_port}\n\
             StateSaveLocation={w}/state\nSlurmdSpoolDir={w}/spool\n\
             SlurmctldPidFile={w}/slurmctld.pid\nSlurmdPidFile={w}/slurmd.pid\n\
             SlurmctldLogFile={w}/slurmctld.log\nSlurmdLogFile={w}/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n\
             SchedulerType=sched/backfill\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n\
             ReturnToService=2\nMpiDefault=none\n\
             {node}\n\
             PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            host = node.name,
            socket = socket.display(),
            node = node.line,
        );
        for dir in ["state", "spool"] {
            fs::create_dir_all(work.join(dir)).map_err(io(dir))?;
        }
        fs::write(&cluster.conf, conf).map_err(io(cluster.conf.display()))?;
        crate::status(cluster.command("slurmctld").arg("-i"), "starting slurmctld")?;
        crate::status(
            cluster.command("slurmd").args(["-N", &node.name]),
            "starting slurmd",
        )?;
        cluster.wait_until_idle()?;
        Ok(cluster)
    }

    /// A Slurm command that uses this cluster's configuration.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(which(program).unwrap_or_else(|| program.into()));
        command.env("SLURM_CONF", &self.conf);
        command
    }

    fn wait_until_idle(&self) -> Result {
        let started = Instant::now();
        loop {
            let output = self
                .command("sinfo")
                .args(["--noheader", "--format=%T"])
                .output()
                .map_err(io("sinfo"))?;
            let state = String::from_utf8_lossy(&output.stdout).trim().to_string();
            if state == "idle" {
                eprintln!("xtask: one-node Slurm cluster up (node idle)");
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(60) {
                return Err(format!(
                    "the test cluster's node is {state:?}, not idle, after 60 s; logs in {}",
                    self.work.display()
                ));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Job ids still queued or running.
    fn queued(&self) -> Result<Vec<String>> {
        let output = self
            .command("squeue")
            .args(["--noheader", "--format=%i %T"])
            .output()
            .map_err(io("squeue"))?;
        Ok(String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_string)
            .collect())
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.command("scancel").args(["--user=root"]).status();
        for daemon in ["slurmd", "slurmctld"] {
            stop_pid_file(&self.work.join(format!("{daemon}.pid")));
        }
        stop_pid_file(&self.work.join("munge/munged.pid"));
    }
}

fn stop_pid_file(file: &Path) {
    if let Ok(pid) = fs::read_to_string(file) {
        let pid = pid.trim();
        let _ = Command::new("kill").arg(pid).status();
        // Up to 5 s for a clean exit, then SIGKILL.
        for _ in 0..50 {
            if !Path::new(&format!("/proc/{pid}")).exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = Command::new("kill").args(["-9", pid]).status();
    }
}

/// This machine as a node: its short host name and the NodeName line `slurmd -C` reports.
struct Node {
    name: String,
    line: String,
}

fn node_line() -> Result<Node> {
    let output = Command::new(which("slurmd").unwrap_or_else(|| "slurmd".into()))
        .arg("-C")
        .output()
        .map_err(io("slurmd -C"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("NodeName="))
        .ok_or_else(|| format!("slurmd -C printed no NodeName line: {text}"))?;
    let name = line
        .split_whitespace()
        .next()
        .and_then(|w| w.strip_prefix("NodeName="))
        .unwrap_or("localhost")
        .to_string();
    // The reported memory would make jobs wait for it; the test asks for none.
    let line = line
        .split_whitespace()
        .filter(|w| !w.starts_with("RealMemory=") && !w.starts_with("UpTime="))
        .collect::<Vec<_>>()
        .join(" ");
    Ok(Node {
        name,
        line: format!("{line} NodeAddr=127.0.0.1 State=UNKNOWN"),
    })
}

fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(io("finding a port"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(io("finding a port"))
}

fn random_key(path: &Path) -> Result {
    use std::io::Read;
    let mut key = vec![0u8; 1024];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut key))
        .map_err(io("/dev/urandom"))?;
    fs::write(path, key).map_err(io(path.display()))
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(io(path.display()))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> Result {
    Ok(())
}

/// Submits the shards and the merge with deploy/slurm/submit.sh, waits for both, and checks
/// the merged counts. Returns a one-line summary.
fn submit_and_check(root: &Path, binary: &Path, cluster: &Cluster, work: &Path) -> Result<String> {
    let out = work.join("run");
    let submit = root.join("deploy/slurm/submit.sh");
    let output = Command::new("bash")
        .arg(&submit)
        .args(["-m", &SHARDS.to_string(), "-o"])
        .arg(&out)
        .args(["nqueens", &N.to_string(), "--backend", "cpu"])
        .env("SLURM_CONF", &cluster.conf)
        .env("WARPSEARCH", binary)
        .output()
        .map_err(io(submit.display()))?;
    let printed = String::from_utf8_lossy(&output.stdout).to_string();
    eprint!("{printed}");
    if !output.status.success() {
        return Err(format!(
            "{} failed: {}",
            submit.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let started = Instant::now();
    while !cluster.queued()?.is_empty() {
        if started.elapsed() > JOBS_TIMEOUT {
            return Err(format!(
                "the jobs did not finish in {} s; still queued: {:?}; logs in {}",
                JOBS_TIMEOUT.as_secs(),
                cluster.queued()?,
                out.join("logs").display()
            ));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let logs = out.join("logs");
    for k in 0..SHARDS {
        let log = logs.join(format!("shard-{k}.log"));
        let text = fs::read_to_string(&log).unwrap_or_default();
        eprintln!("xtask: {}:\n{}", log.display(), text.trim_end());
    }
    let merge_log = fs::read_to_string(logs.join("merge.log")).unwrap_or_default();
    eprintln!("xtask: merge job's log:\n{}", merge_log.trim_end());
    let merged = out.join("merged.json");
    let text = fs::read_to_string(&merged).map_err(|e| {
        format!(
            "{}: {e} (the merge job did not finish; logs in {})",
            merged.display(),
            logs.display()
        )
    })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", merged.display()))?;
    let total = value["total"].as_u64();
    let unique = value["unique"].as_u64();
    if total != Some(TOTAL) || unique != Some(UNIQUE) || value["known_match"] != true {
        return Err(format!(
            "the merged count is wrong: {text} (expected total {TOTAL}, unique {UNIQUE})"
        ));
    }
    Ok(format!(
        "{SHARDS} Slurm array tasks of `nqueens {N} --backend cpu` merged by a dependent job: {TOTAL} solutions, {UNIQUE} unique (OEIS)"
    ))
}
