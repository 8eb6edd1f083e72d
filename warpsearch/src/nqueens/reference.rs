//! A deliberately plain reference: enumerate every solution, then count the classes under the
//! 8 symmetries of the square by keeping each solution that is the smallest of its images.
//! Used for boards too small for the symmetry method and to cross-check it in tests.

/// The largest N the brute force accepts (it keeps every solution: N = 14 is 365,596 of them).
pub const MAX_BRUTE_FORCE_N: u32 = 14;

/// (total, unique, nodes) by brute force, for N ≤ [`MAX_BRUTE_FORCE_N`].
pub fn count_by_brute_force(n: u32) -> crate::Result<(u64, u64, u64)> {
    if n > MAX_BRUTE_FORCE_N {
        return Err(crate::Error::InvalidArgument(format!(
            "the brute-force reference handles N up to {MAX_BRUTE_FORCE_N}; got {n}"
        )));
    }
    Ok(brute_force(n))
}

fn brute_force(n: u32) -> (u64, u64, u64) {
    let n = n as usize;
    let mut columns = vec![0usize; n];
    let mut solutions = Vec::new();
    let mut nodes = 0;
    place(n, 0, &mut columns, &mut solutions, &mut nodes);
    let unique = solutions
        .iter()
        .filter(|s| images(s).iter().all(|image| *s <= image))
        .count();
    (solutions.len() as u64, unique as u64, nodes)
}

fn place(
    n: usize,
    row: usize,
    columns: &mut Vec<usize>,
    solutions: &mut Vec<Vec<usize>>,
    nodes: &mut u64,
) {
    if row == n {
        solutions.push(columns.clone());
        return;
    }
    for column in 0..n {
        let safe = (0..row).all(|r| columns[r] != column && columns[r].abs_diff(column) != row - r);
        if safe {
            *nodes += 1;
            columns[row] = column;
            place(n, row + 1, columns, solutions, nodes);
        }
    }
}

/// The 8 images of a solution (`s[row] = column`) under the symmetries of the square.
fn images(s: &[usize]) -> Vec<Vec<usize>> {
    let n = s.len();
    let rotate = |s: &[usize]| {
        // (row, col) → (col, n-1-row)
        let mut r = vec![0; n];
        for (row, &col) in s.iter().enumerate() {
            r[col] = n - 1 - row;
        }
        r
    };
    let mirror = |s: &[usize]| s.iter().map(|&c| n - 1 - c).collect::<Vec<_>>();
    let mut out = Vec::with_capacity(8);
    let mut current = s.to_vec();
    for _ in 0..4 {
        out.push(mirror(&current));
        out.push(current.clone());
        current = rotate(&current);
    }
    out
}
