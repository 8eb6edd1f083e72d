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
    /// Whether each subtree was replaced by a board deep below it ([`DIVE_FROM`] on).
    pub dived: bool,
}

/// From this size on, a cross-check part's subtrees are too big to search twice (one n = 17
/// subtree of the GPU split can take the CPU hours): each is replaced by one board deep below
/// it (the private `dive`).
pub const DIVE_FROM: u32 = 17;

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
    let dived = n >= DIVE_FROM;
    let subtrees = if dived { dive(n, subtrees) } else { subtrees };
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
        dived,
    })
}

/// Each board of `subtrees` replaced by one node deep below it: a walk down its tree that
/// takes, at each level, the child a hash of (subtree, level) picks, until at most
/// `DIVE_UNKNOWN_PER_ROW · n` cells are unknown (or a node has no child). The walk is
/// deterministic, so the CPU and the GPU search the same boards; prefixes (the row search)
/// are kept as they are.
pub(crate) fn dive(n: u32, subtrees: Subtrees) -> Subtrees {
    let Subtrees::Boards(boards, techniques) = subtrees else {
        return subtrees;
    };
    let table = pair_table(n);
    let lines = PairLines::new(n, &table);
    let deep = boards
        .par_iter()
        .enumerate()
        .map(|(i, root)| {
            let mut board = *root;
            for level in 0u64.. {
                if shallow_enough(n, &board) {
                    break;
                }
                let children = settled_children(n, &lines, techniques, &board);
                if children.is_empty() {
                    break;
                }
                // A splitmix-style hash: any fixed, well-spread choice will do.
                let mut h = (i as u64) << 32 ^ level;
                h = (h ^ h >> 30).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                h = (h ^ h >> 27).wrapping_mul(0x94d0_49bb_1331_11eb);
                board = children[((h ^ h >> 31) % children.len() as u64) as usize];
            }
            board
        })
        .collect();
    Subtrees::Boards(deep, techniques)
}

/// A dived board has at most this many unknown cells per row ([`dive`]).
const DIVE_UNKNOWN_PER_ROW: u32 = 10;

/// Whether `board` has at most `DIVE_UNKNOWN_PER_ROW · n` unknown cells: where a dive stops.
fn shallow_enough(n: u32, board: &Cells) -> bool {
    let unknown: u32 = board
        .unknown()
        .to_array()
        .iter()
        .map(|u| u.count_ones())
        .sum();
    unknown <= DIVE_UNKNOWN_PER_ROW * n
}

/// The settled children of `board`.
fn settled_children(
    n: u32,
    lines: &PairLines,
    techniques: Techniques,
    board: &Cells,
) -> Vec<Cells> {
    let mut children = Vec::new();
    expand(n, lines, techniques, board, |_| {}, |c| children.push(*c));
    children
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample of the n = 17 tree as the GPU cross-check takes it (a split for an H100,
    /// 33,792 subtrees wanted; every 2000th), dived: the walk is deterministic, ends where it
    /// should, and the CPU searches the sample in seconds.
    #[test]
    fn dived_subtrees_of_17_are_deterministic_and_small() {
        let n = 17;
        let engine = engine();
        let part = Part::new(1, 2000).unwrap();
        let sample = || dive(n, split_search(n, 33_792, engine).subtrees.part(part));
        let (first, again) = (sample(), sample());
        let (Subtrees::Boards(boards, techniques), Subtrees::Boards(same, _)) = (&first, &again)
        else {
            panic!("the propagating search splits into boards");
        };
        assert!(boards.len() >= 5, "{} subtrees", boards.len());
        let words = |b: &[Cells]| b.iter().map(|c| (c.points, c.empty)).collect::<Vec<_>>();
        assert_eq!(words(boards), words(same));
        let table = pair_table(n);
        let lines = PairLines::new(n, &table);
        for board in boards {
            assert!(
                shallow_enough(n, board)
                    || settled_children(n, &lines, *techniques, board).is_empty()
            );
        }
        let pool = cpu_pool(Some(2)).unwrap();
        let start = Instant::now();
        let nodes = search_cpu(&pool, n, &first, &RunControl::quiet(), &|_| {}).unwrap();
        std::println!(
            "{} subtrees, {} nodes, {:.2} s",
            boards.len(),
            nodes.iter().sum::<u64>(),
            start.elapsed().as_secs_f64()
        );
    }
}
