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

/// Whether `color` at (x, y) of `board` makes a five, by walking the four directions.
pub fn makes_five(board: &ArrayBoard, x: usize, y: usize, color: Color, rule: Rule) -> bool {
    if board[y][x].is_some() {
        return false;
    }
    let run = |dx: i64, dy: i64| {
        let mut length = 0;
        let (mut cx, mut cy) = (x as i64 + dx, y as i64 + dy);
        while (0..SIZE as i64).contains(&cx)
            && (0..SIZE as i64).contains(&cy)
            && board[cy as usize][cx as usize] == Some(color)
        {
            length += 1;
            cx += dx;
            cy += dy;
        }
        length
    };
    [(1, 0), (0, 1), (1, 1), (1, -1)]
        .iter()
        .any(|&(dx, dy)| rule.is_five(run(dx, dy) + 1 + run(-dx, -dy)))
}

/// The five points of `color`, row by row.
pub fn five_points(board: &ArrayBoard, color: Color, rule: Rule) -> Vec<(usize, usize)> {
    cells()
        .filter(|&(x, y)| makes_five(board, x, y, color, rule))
        .collect()
}

/// The four points of `color`, row by row: empty cells, not five points, where a stone gives
/// `color` a five point on one of the four lines through it whose five contains the stone.
pub fn four_points(board: &ArrayBoard, color: Color, rule: Rule) -> Vec<(usize, usize)> {
    let mut board = *board;
    cells()
        .filter(|&(x, y)| {
            if board[y][x].is_some() || makes_five(&board, x, y, color, rule) {
                return false;
            }
            board[y][x] = Some(color);
            let four = [(1i64, 0i64), (0, 1), (1, 1), (1, -1)]
                .iter()
                .any(|&(dx, dy)| {
                    (-5i64..=5).any(|k| {
                        let (qx, qy) = (x as i64 + k * dx, y as i64 + k * dy);
                        (0..SIZE as i64).contains(&qx)
                            && (0..SIZE as i64).contains(&qy)
                            && five_through(
                                &board,
                                qx as usize,
                                qy as usize,
                                (dx, dy),
                                (x, y),
                                color,
                                rule,
                            )
                    })
                });
            board[y][x] = None;
            four
        })
        .collect()
}

/// Whether `color` at the empty (qx, qy) makes a five along `direction` whose run contains
/// `through`.
fn five_through(
    board: &ArrayBoard,
    qx: usize,
    qy: usize,
    (dx, dy): (i64, i64),
    through: (usize, usize),
    color: Color,
    rule: Rule,
) -> bool {
    if board[qy][qx].is_some() {
        return false;
    }
    let mut run = vec![(qx, qy)];
    for sign in [1, -1] {
        let (mut cx, mut cy) = (qx as i64 + sign * dx, qy as i64 + sign * dy);
        while (0..SIZE as i64).contains(&cx)
            && (0..SIZE as i64).contains(&cy)
            && board[cy as usize][cx as usize] == Some(color)
        {
            run.push((cx as usize, cy as usize));
            cx += sign * dx;
            cy += sign * dy;
        }
    }
    rule.is_five(run.len()) && run.contains(&through)
}

fn cells() -> impl Iterator<Item = (usize, usize)> {
    (0..SIZE).flat_map(|y| (0..SIZE).map(move |x| (x, y)))
}

/// Whether `side` wins by continuous fours within `moves` attacker moves (the five included),
/// by the plain rules and brute force: the attacker wins on a five point; otherwise, with
/// moves to spare, it must block the defender's only five point (two: no VCF) or may play any
/// empty cell, and a cell counts when it leaves the attacker a five point (a four) and every
/// defender reply that takes one of those five points still loses. For tests of
/// [`super::vcf`]: slow, and independent of the tables.
pub fn vcf_within(board: &mut ArrayBoard, side: Color, rule: Rule, moves: u32) -> bool {
    if !five_points(board, side, rule).is_empty() {
        return true;
    }
    if moves <= 1 {
        return false;
    }
    let theirs = five_points(board, side.other(), rule);
    let candidates: Vec<(usize, usize)> = match theirs.len() {
        0 => cells().filter(|&(x, y)| board[y][x].is_none()).collect(),
        1 => theirs,
        _ => return false,
    };
    for (x, y) in candidates {
        board[y][x] = Some(side);
        let fives = five_points(board, side, rule);
        let wins = !fives.is_empty()
            && fives.iter().all(|&(bx, by)| {
                board[by][bx] = Some(side.other());
                let wins = vcf_within(board, side, rule, moves - 1);
                board[by][bx] = None;
                wins
            });
        board[y][x] = None;
        if wins {
            return true;
        }
    }
    false
}
