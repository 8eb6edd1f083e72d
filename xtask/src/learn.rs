//! The teaching material's checks: the exercises (answers pass, blanks fail), the diagrams
//! drawn by running the CPU twins, and the GPU-only code blocks of `docs/` built to PTX.

use crate::{
    Result, blocks_stand_in_example, cargo, copy_out_of_the_repository, ensure_ptxas,
    fmt_clippy_test, json_line, root, status, target_dir, write_or_check,
};
use std::fs;
use std::path::{Path, PathBuf};

mod diagrams;

/// The exercises crate: clippy and its tests with the model answers, then the tests without
/// them, which must fail every one (an exercise whose test passes on `todo!()` checks nothing).
pub fn exercises_test() -> Result {
    status(
        cargo().args([
            "clippy",
            "-p",
            "exercises",
            "--all-targets",
            "--features",
            "solutions",
            "--",
            "-D",
            "warnings",
        ]),
        "exercises: cargo clippy --features solutions -D warnings",
    )?;
    status(
        cargo().args(["test", "-p", "exercises", "--features", "solutions"]),
        "exercises: cargo test --features solutions (the model answers pass)",
    )?;
    eprintln!("xtask: exercises: cargo test without the answers (every test must fail)");
    let output = cargo()
        .args(["test", "-p", "exercises", "--lib", "--no-fail-fast"])
        .output()
        .map_err(|e| format!("cargo test -p exercises: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let summary = text
        .lines()
        .find(|line| line.starts_with("test result:"))
        .unwrap_or("");
    let counts = |word: &str| -> Option<u32> {
        let before = summary.split(&format!(" {word}")).next()?;
        before.rsplit(' ').next()?.parse().ok()
    };
    match (counts("passed;"), counts("failed;")) {
        (Some(0), Some(failed)) if failed > 0 && !output.status.success() => {
            eprintln!("xtask: exercises: all {failed} tests fail on the blanks, as they should");
            Ok(())
        }
        _ => Err(format!(
            "exercises: without the answers every test should fail; got `{summary}`"
        )),
    }
}

/// Chapter 10's crate, examples/first-kernel, built as a learner builds it: copied to a folder
/// of its own outside the repository (its paths pointing at this clone), the builder fetching
/// what it needs. The chapter's blocks stand verbatim in its files, it is fmt- and
/// clippy-clean, its CPU test passes, its SASS is written on request, and its program's counts
/// agree with the CPU twin.
pub fn own_kernel_test() -> Result {
    let doc = "docs/learn/10-your-own-kernel.md";
    blocks_stand_in_example(doc, "first-kernel")?;
    let example = std::env::temp_dir().join("warpsearch-learner/first-kernel");
    copy_out_of_the_repository("first-kernel", &example)?;
    let in_example = |args: &[&str]| {
        let mut command = cargo();
        command
            .current_dir(&example)
            .args(args)
            .env("FIRST_KERNEL_REQUIRE_PTX", "1")
            .env("FIRST_KERNEL_SASS", "1");
        command
    };
    fmt_clippy_test(&in_example, "first-kernel (outside the repository)")?;
    let what = &format!("{}: cargo run --release -- --json", example.display());
    eprintln!("xtask: {what}");
    let output = in_example(&["run", "--quiet", "--release", "--", "--json"])
        .output()
        .map_err(|e| format!("{what}: {e}"))?;
    let (value, text) = json_line(&output, what)?;
    if !output.status.success() || value["agree"] != true {
        return Err(format!("{what}: the counts disagree: {text}"));
    }
    let sass = fs::read_dir(example.join("target/release/build"))
        .map_err(|e| format!("{}/target/release/build: {e}", example.display()))?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path().join("out/first_kernel.sm_80.sass"))
        .find(|path| path.is_file())
        .ok_or("first-kernel (outside the repository): FIRST_KERNEL_SASS=1 wrote no SASS")?;
    let sass = fs::read_to_string(&sass).map_err(|e| format!("{}: {e}", sass.display()))?;
    for instruction in ["SHFL.BFLY", "POPC", "RED.E.ADD"] {
        if !sass.contains(instruction) {
            return Err(format!(
                "first-kernel (outside the repository): its SASS lacks {instruction}, which {doc} shows"
            ));
        }
    }
    eprintln!(
        "xtask: first-kernel (outside the repository): {}",
        text.trim()
    );
    Ok(())
}

/// Writes the diagrams of `docs/learn/img/`, or (`check`) fails if a committed one differs
/// from what the code draws now.
pub fn diagrams(check: bool) -> Result {
    let folder = root().join("docs/learn/img");
    write_or_check(
        &folder,
        &diagrams::all()?,
        check,
        "diagrams",
        "the CPU twins",
    )
}

/// Every fenced block of `docs/` whose info string is `rust,ignore` shows GPU-only code:
/// each is put in a module of a generated `no_std` crate (target/doc-gpu-blocks), built to
/// PTX with the pinned nightly and assembled by ptxas for sm_80 and sm_90. A block must
/// therefore be whole items (a kernel and what it needs), not a fragment.
pub fn gpu_blocks() -> Result {
    let mut blocks = Vec::new();
    for doc in markdown_files(&root().join("docs"))? {
        let text = fs::read_to_string(&doc).map_err(|e| format!("{}: {e}", doc.display()))?;
        let name = doc
            .strip_prefix(root())
            .unwrap_or(&doc)
            .display()
            .to_string();
        for (index, code) in fenced(&text, "rust,ignore").into_iter().enumerate() {
            blocks.push((name.clone(), index + 1, code));
        }
    }
    let krate = target_dir().join("doc-gpu-blocks");
    let source = krate.join("src");
    fs::create_dir_all(&source).map_err(|e| format!("{}: {e}", source.display()))?;
    let kernels = root().join("kernels");
    let manifest = format!(
        "# Generated by `cargo xtask test` from the `rust,ignore` blocks of docs/.\n\
         [package]\nname = \"doc-gpu-blocks\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nkernels = {{ package = \"warpsearch-kernels\", path = {:?}, default-features = false }}\n\n\
         [workspace]\n\n[profile.ptx]\ninherits = \"release\"\npanic = \"abort\"\nlto = \"fat\"\ncodegen-units = 1\n",
        kernels.display().to_string()
    );
    write(&krate.join("Cargo.toml"), &manifest)?;
    let toolchain = fs::read_to_string(kernels.join("rust-toolchain.toml"))
        .map_err(|e| format!("kernels/rust-toolchain.toml: {e}"))?;
    write(&krate.join("rust-toolchain.toml"), &toolchain)?;
    let mut lib = String::from(
        "//! The GPU-only code blocks of docs/, one module each (generated).\n\
         #![no_std]\n#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)]\n\n",
    );
    for (doc, index, code) in &blocks {
        lib.push_str(&format!(
            "/// {doc}, GPU block {index}.\n#[allow(unused_imports, dead_code)]\nmod {} {{\n{code}}}\n\n",
            module_name(doc, *index)
        ));
    }
    write(&source.join("lib.rs"), &lib)?;
    eprintln!(
        "xtask: building the {} GPU-only blocks of docs/ to PTX",
        blocks.len()
    );
    let ptx = warpsearch_builder::Builder::new(&krate)
        .target_dir(krate.join("target"))
        .build()
        .map_err(|e| format!("the GPU-only blocks of docs/ do not build: {e}"))?;
    convergent_copy_has_one_barrier(&ptx)?;
    chapter_7_scopes_are_as_shown(&ptx)?;
    let ptxas = ensure_ptxas()?;
    for arch in ["sm_80", "sm_90"] {
        let output = std::process::Command::new(&ptxas)
            .arg(format!("-arch={arch}"))
            .args(["-v", "-o", "/dev/null"])
            .arg(&ptx)
            .output()
            .map_err(|e| format!("ptxas: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "ptxas -arch={arch} rejects the PTX of docs/' GPU blocks:\n{}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let report = String::from_utf8_lossy(&output.stderr);
        for line in warpsearch_builder::resource_lines(&report, arch) {
            eprintln!("xtask:   {line}");
        }
    }
    Ok(())
}

/// The body of kernel `name` in `ptx` (from its `.entry` to its closing brace).
fn entry_body<'a>(ptx: &'a str, name: &str) -> Result<&'a str> {
    let start = ptx
        .find(&format!(".entry {name}("))
        .ok_or_else(|| format!("the PTX of docs/ lacks the kernel {name}"))?;
    let body = &ptx[start..];
    Ok(&body[..body.find("\n}\n").unwrap_or(body.len())])
}

/// Chapter 7's tables: plain Rust atomics come out with system scope (`learn_rust_orderings`),
/// `kernels::scope` with the scope it names (`learn_gpu_orderings`).
fn chapter_7_scopes_are_as_shown(ptx: &Path) -> Result {
    let text = fs::read_to_string(ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
    for (kernel, scope) in [
        ("learn_rust_orderings", "sys"),
        ("learn_gpu_orderings", "gpu"),
    ] {
        let body = entry_body(&text, kernel)?;
        for operation in ["ld.acquire", "st.release", "fence.sc", "atom.acq_rel"] {
            let wanted = format!("{operation}.{scope}");
            if !body.contains(&wanted) {
                return Err(format!(
                    "{kernel}: no `{wanted}` in its PTX, as docs/learn/07-atomics.md says there is"
                ));
            }
        }
    }
    eprintln!("xtask: chapter 7's atomics come out with the scopes its tables show");
    Ok(())
}

/// Chapter 11's `learn_convergent_copy` (rust-lang/rust#137086's example) must keep its one
/// barrier: a toolchain whose MIR passes duplicate it into both sides of a branch again fails
/// here, before any kernel relies on it.
fn convergent_copy_has_one_barrier(ptx: &Path) -> Result {
    let text = fs::read_to_string(ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
    let body = entry_body(&text, "learn_convergent_copy")?;
    let barriers = body
        .lines()
        .filter(|line| {
            let line = line.trim_start();
            line.starts_with("bar.sync") || line.starts_with("barrier.sync")
        })
        .count();
    if barriers != 1 {
        return Err(format!(
            "learn_convergent_copy has {barriers} barriers in its PTX, not 1: this toolchain \
             moves convergent operations across branches (rust-lang/rust#137086)"
        ));
    }
    eprintln!("xtask: learn_convergent_copy keeps its one barrier (rust-lang/rust#137086)");
    Ok(())
}

fn write(path: &Path, text: &str) -> Result {
    // Rewrite only on change, so that cargo's fingerprint keeps the last build.
    if fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `docs/learn/03-votes.md`, block 2 → `docs_learn_03_votes_2`.
fn module_name(doc: &str, index: usize) -> String {
    let stem: String = doc
        .trim_end_matches(".md")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("{}_{index}", stem.to_lowercase())
}

/// The Markdown files under `folder`, sorted.
pub(crate) fn markdown_files(folder: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let entries = fs::read_dir(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            found.extend(markdown_files(&path)?);
        } else if path.extension().is_some_and(|e| e == "md") {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// The contents of the fenced blocks of `text` whose info string is exactly `info`.
pub fn fenced(text: &str, info: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match current.as_mut() {
            None if trimmed.starts_with("```") && trimmed[3..].trim() == info => {
                current = Some(String::new())
            }
            Some(_) if trimmed.starts_with("```") => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenced_finds_only_blocks_with_that_exact_info_string() {
        let text = "a\n```rust,ignore\nfn gpu() {}\n```\n```rust\nfn cpu() {}\n```\n```rust,ignore\nB\n```\n";
        assert_eq!(fenced(text, "rust,ignore"), ["fn gpu() {}\n", "B\n"]);
        assert_eq!(fenced(text, "rust"), ["fn cpu() {}\n"]);
    }

    #[test]
    fn module_names_are_identifiers() {
        assert_eq!(
            module_name("docs/learn/03-votes.md", 2),
            "docs_learn_03_votes_2"
        );
    }
}
