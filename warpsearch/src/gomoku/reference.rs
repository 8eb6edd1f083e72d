//! The brute-force reference: the definitions applied cell by cell on a plain array board,
//! walking the four directions from each cell. No line codes, no tables.

use super::line::{Cell, threats_by_definition};
use super::{Color, Kind, Rule, SIZE};

/// A plain board: `cells[y][x]`.
pub type ArrayBoard = [[Option<Color>; SIZE]; SIZE];

/// The threat kind of every cell for `color`, by the definitions.
pub fn threats(board: &ArrayBoard, color: Color, rule: Rule) -> [[Option<Kind>; SIZE]; SIZE] {
    let mut out = [[None; SIZE]; SIZE];
    let directions: [(i64, i64); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
    for (dx, dy) in directions {
        // Every line in this direction: start at cells whose predecessor is off the board.
        for y0 in 0..SIZE as i64 {
            for x0 in 0..SIZE as i64 {
                let inside =
                    |x: i64, y: i64| (0..SIZE as i64).contains(&x) && (0..SIZE as i64).contains(&y);
                if inside(x0 - dx, y0 - dy) {
                    continue;
                }
                let mut positions = Vec::new();
                let (mut x, mut y) = (x0, y0);
                while inside(x, y) {
                    positions.push((x as usize, y as usize));
                    x += dx;
                    y += dy;
                }
                let cells: Vec<Cell> = positions
                    .iter()
                    .map(|&(x, y)| board[y][x].map_or(Cell::Empty, Cell::Stone))
                    .collect();
                // The board's lines have at most 15 cells, so this never fails.
                let found = threats_by_definition(&cells, color, rule).unwrap_or_default();
                for (i, &(x, y)) in positions.iter().enumerate() {
                    let kind = if found.five >> i & 1 == 1 {
                        Some(Kind::Five)
                    } else if found.open_four >> i & 1 == 1 {
                        Some(Kind::OpenFour)
                    } else {
                        None
                    };
                    out[y][x] = out[y][x].max(kind);
                }
            }
        }
    }
    out
}
