//! The CPU and the GPU compared subtree by subtree.

use super::*;

/// What [`cross_check`] compared.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CrossCheck {
    /// Board size.
    pub n: u32,
    /// Subtrees (prefixes) searched by both backends.
    pub subtrees: usize,
    /// Nodes searched below them (equal on both).
    pub nodes: u64,
    /// Complete boards found (the same set on both).
    pub boards: usize,
}

/// Runs the same subtrees on the CPU and on the GPU and compares them one by one: the points
/// placed below every prefix, and the set of boards found. Any difference is an
/// [`Error::Verification`] naming the first differing subtree.
pub fn cross_check(n: u32, options: &Options) -> Result<CrossCheck> {
    validate(n)?;
    let gpus = crate::gpu::Gpus::open(&options.devices.first_only())?;
    let pool = cpu_pool(options.threads)?;
    let engine = engine();
    let target = subtree_target(n, &Backend::Gpu(gpus.clone()), engine)?;
    let split = split_search(n, target, engine);
    let subtrees = split.subtrees;
    let on_gpu = search_gpu(gpus.first(), n, &subtrees, &options.control)?;
    let on_cpu_boards = Mutex::new(Vec::new());
    let on_cpu_nodes = search_cpu(&pool, n, &subtrees, &options.control, &|rows| {
        if let Ok(mut boards) = on_cpu_boards.lock() {
            boards.push(rows.to_vec());
        }
    })?;
    if let Some(i) = (0..subtrees.len()).find(|&i| on_cpu_nodes[i] != on_gpu.nodes[i]) {
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
        nodes: on_cpu_nodes.iter().sum(),
        boards: cpu_boards.len(),
    })
}
