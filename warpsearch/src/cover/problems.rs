//! Exact-cover problems made in code: pentomino packings, Sudoku, N-Queens. Each is a
//! [`Problem`], and [`Problem::to_dlx1`] writes it for other programs.

use super::Problem;

/// The twelve pentominoes, each as its five cells (row, column), named as usual.
const PENTOMINOES: [(char, [(i32, i32); 5]); 12] = [
    ('F', [(0, 1), (0, 2), (1, 0), (1, 1), (2, 1)]),
    ('I', [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]),
    ('L', [(0, 0), (1, 0), (2, 0), (3, 0), (3, 1)]),
    ('N', [(0, 1), (1, 1), (2, 0), (2, 1), (3, 0)]),
    ('P', [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]),
    ('T', [(0, 0), (0, 1), (0, 2), (1, 1), (2, 1)]),
    ('U', [(0, 0), (0, 2), (1, 0), (1, 1), (1, 2)]),
    ('V', [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]),
    ('W', [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)]),
    ('X', [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)]),
    ('Y', [(0, 1), (1, 0), (1, 1), (2, 1), (3, 1)]),
    ('Z', [(0, 0), (0, 1), (1, 1), (2, 1), (2, 2)]),
];

/// The distinct orientations (rotations and reflections) of a shape, each moved to row 0 and
/// column 0 and sorted.
fn orientations(cells: &[(i32, i32)]) -> Vec<Vec<(i32, i32)>> {
    let mut found: Vec<Vec<(i32, i32)>> = Vec::new();
    for k in 0..8 {
        let mut shape: Vec<(i32, i32)> = cells
            .iter()
            .map(|&(r, c)| {
                let (r, c) = if k & 4 != 0 { (r, -c) } else { (r, c) };
                match k & 3 {
                    0 => (r, c),
                    1 => (c, -r),
                    2 => (-r, -c),
                    _ => (-c, r),
                }
            })
            .collect();
        let (r0, c0) = (
            shape.iter().map(|p| p.0).min().unwrap_or(0),
            shape.iter().map(|p| p.1).min().unwrap_or(0),
        );
        for p in shape.iter_mut() {
            *p = (p.0 - r0, p.1 - c0);
        }
        shape.sort_unstable();
        if !found.contains(&shape) {
            found.push(shape);
        }
    }
    found
}

/// The twelve pentominoes packed into a `rows` × `columns` box without the cells `holes`
/// (row, column): the items are the cells (`r.c`, row by row) and the twelve pieces, all
/// primary; an option is one piece in one place. 6×10 has 9,356 solutions (2,339 up to the box's
/// symmetries), 5×12 4,040, 4×15 1,472, 3×20 8, and 8×8 without its centre 520.
pub fn pentominoes(rows: usize, columns: usize, holes: &[(usize, usize)]) -> Problem {
    let mut items: Vec<String> = Vec::new();
    let mut cell = vec![vec![None; columns]; rows];
    for (r, row) in cell.iter_mut().enumerate() {
        for (c, slot) in row.iter_mut().enumerate() {
            if !holes.contains(&(r, c)) {
                *slot = Some(items.len());
                items.push(format!("{r}.{c}"));
            }
        }
    }
    let cells = items.len();
    items.extend(PENTOMINOES.iter().map(|(name, _)| name.to_string()));
    let mut options = Vec::new();
    for (piece, (_, shape)) in PENTOMINOES.iter().enumerate() {
        let piece = cells + piece;
        for orientation in orientations(shape) {
            for r in 0..rows as i32 {
                for c in 0..columns as i32 {
                    let placed: Option<Vec<usize>> = orientation
                        .iter()
                        .map(|&(dr, dc)| {
                            let (r, c) = (r + dr, c + dc);
                            let inside =
                                r >= 0 && c >= 0 && (r as usize) < rows && (c as usize) < columns;
                            inside.then(|| cell[r as usize][c as usize]).flatten()
                        })
                        .collect();
                    if let Some(cells) = placed {
                        options.push(std::iter::once(piece).chain(cells).collect());
                    }
                }
            }
        }
    }
    let primary = items.len();
    let lines = (2..options.len() + 2).collect();
    Problem {
        items,
        primary,
        options,
        lines,
    }
}

/// A Sudoku of `k²` × `k²` cells (k = 2 or 3) as exact cover: `grid` lists the cells row by row,
/// a digit 1..=k² for a given, `.` or `0` for an empty cell (other characters are skipped).
/// Items (all primary): a cell filled (`pRC`), a digit in a row (`rRD`), a column (`cCD`)
/// and a box (`bBD`); an option is one digit in one cell. The empty 4×4 grid has 288
/// solutions.
///
/// # Errors
/// A grid whose cell count is not 16 or 81, or with a digit out of range.
pub fn sudoku(grid: &str) -> Result<Problem, String> {
    let cells: Vec<u32> = grid
        .chars()
        .filter_map(|ch| match ch {
            '.' => Some(0),
            d => d.to_digit(10),
        })
        .collect();
    let k = match cells.len() {
        16 => 2,
        81 => 3,
        n => return Err(format!("a Sudoku of 16 or 81 cells, not {n}")),
    };
    let n = k * k;
    if let Some(&bad) = cells.iter().find(|&&d| d as usize > n) {
        return Err(format!("digit {bad} in a {n}×{n} Sudoku"));
    }
    let mut items = Vec::new();
    for kind in ['p', 'r', 'c', 'b'] {
        for a in 0..n {
            for b in 0..n {
                items.push(if kind == 'p' {
                    format!("p{a}{b}")
                } else {
                    format!("{kind}{a}{}", b + 1)
                });
            }
        }
    }
    let mut options = Vec::new();
    for r in 0..n {
        for c in 0..n {
            let given = cells[r * n + c] as usize;
            for d in 1..=n {
                if given != 0 && given != d {
                    continue;
                }
                let b = r / k * k + c / k;
                options.push(vec![
                    r * n + c,
                    n * n + r * n + d - 1,
                    2 * n * n + c * n + d - 1,
                    3 * n * n + b * n + d - 1,
                ]);
            }
        }
    }
    let primary = items.len();
    let lines = (2..options.len() + 2).collect();
    Ok(Problem {
        items,
        primary,
        options,
        lines,
    })
}

/// N-Queens as exact cover: rows and columns primary (`rI`, `cJ`), the diagonals secondary
/// (`aK` for r + c, `bK` for r − c + n − 1); an option is one queen. Its counts are A000170.
pub fn queens(n: usize) -> Problem {
    let mut items: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
    items.extend((0..n).map(|j| format!("c{j}")));
    let primary = items.len();
    let diagonals = (2 * n).saturating_sub(1);
    items.extend((0..diagonals).map(|k| format!("a{k}")));
    items.extend((0..diagonals).map(|k| format!("b{k}")));
    let mut options = Vec::new();
    for r in 0..n {
        for c in 0..n {
            options.push(vec![
                r,
                n + c,
                2 * n + r + c,
                2 * n + diagonals + r + n - 1 - c,
            ]);
        }
    }
    let lines = (2..options.len() + 2).collect();
    Problem {
        items,
        primary,
        options,
        lines,
    }
}
