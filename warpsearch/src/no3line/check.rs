//! The CPU and the GPU compared subtree by subtree.

use super::*;

/// What [`cross_check`] compared.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CrossCheck {
    /// Board size.
    pub n: u32,
    /// Subtrees (prefixes or start boards) searched by both backends.
    pub subtrees: usize,
    /// Which part of the split they were (every `of`-th from the `index`-th; 1/1: all).
    pub part: Part,
    /// Nodes searched below them (equal on both).
    pub nodes: u64,
    /// Complete boards found (the same set on both).
    pub boards: usize,
}

/// Runs the same subtrees on the CPU and on the GPU and compares them one by one: the points
/// placed below every prefix, and the set of boards found. Any difference is an
/// [`Error::Verification`] naming the first differing subtree.
pub fn cross_check(n: u32, options: &Options) -> Result<CrossCheck> {
    cross_check_part(n, options, Part::WHOLE)
}

/// [`cross_check`] on part `part` of the subtrees (every `part.of`-th, from the
/// `part.index`-th): for sizes whose whole tree the CPU cannot search, e.g. `n = 17` with
/// `1/2000`.
pub fn cross_check_part(n: u32, options: &Options, part: Part) -> Result<CrossCheck> {
    validate(n)?;
    Part::new(part.index, part.of)?;
    let gpus = crate::gpu::Gpus::open(&options.devices.first_only())?;
    let pool = cpu_pool(options.threads)?;
    let engine = engine();
    let target = subtree_target(n, &Backend::Gpu(gpus.clone()), engine)?;
    let split = split_search(n, target, engine);
    let subtrees = split.subtrees.part(part);
    let on_gpu = search_gpu(gpus.first(), n, &subtrees, &options.control)?;
    let on_cpu_boards = Mutex::new(Vec::new());
    let on_cpu_nodes = search_cpu(&pool, n, &subtrees, &options.control, &|rows| {
        if let Ok(mut boards) = on_cpu_boards.lock() {
            boards.push(rows.to_vec());
        }
    })?;
    if let Some(i) = (0..subtrees.len()).find(|&i| on_cpu_nodes[i] != on_gpu.nodes[i]) {
        let i = part.index as usize - 1 + i * part.of as usize;
        return Err(Error::Verification(format!(
            "subtree {i}: {} nodes on the CPU, {} on the GPU",
            on_cpu_nodes[i], on_gpu.nodes[i]
        )));
    }
    let mut cpu_boards = on_cpu_boards
        .into_inner()
        .map_err(|_| Error::Verification("a search thread panicked".into()))?;
    let mut gpu_boards = on_gpu.boards;
    cpu_boards.sort();
    gpu_boards.sort();
    if cpu_boards != gpu_boards {
        return Err(Error::Verification(format!(
            "the CPU found {} boards, the GPU {}, and the sets differ",
            cpu_boards.len(),
            gpu_boards.len()
        )));
    }
    Ok(CrossCheck {
        n,
        subtrees: subtrees.len(),
        part,
        nodes: on_cpu_nodes.iter().sum(),
        boards: cpu_boards.len(),
    })
}
