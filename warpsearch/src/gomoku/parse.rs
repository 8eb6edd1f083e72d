//! Reading positions: a 15×15 grid or a Gomocup/Piskvork move list.
//!
//! - **Grid**: 15 lines of 15 cells, `.` empty, `x` black, `o` white (either case); spaces
//!   between cells are allowed; blank lines before/after are ignored. Stone counts must fit
//!   alternating play with black first: as many black as white stones, or one more.
//! - **Move list**: one move `x,y` per line (0-based column, row; spaces allowed), black first,
//!   then alternating. Blank lines and lines starting with `#` are ignored.

use super::{Color, GomokuError, SIZE};

/// A parsed position: the stones, in a plain array (`cells[y][x]`).
pub type Position = [[Option<Color>; SIZE]; SIZE];

/// Parses either format (a line with a comma means a move list).
pub fn parse(text: &str) -> Result<Position, GomokuError> {
    if text.lines().any(|l| l.contains(',')) {
        parse_moves(text)
    } else {
        parse_grid(text)
    }
}

fn error(line: usize, column: usize, message: impl std::fmt::Display) -> GomokuError {
    GomokuError::Parse(format!("line {line}, column {column}: {message}"))
}

/// Parses the grid format.
pub fn parse_grid(text: &str) -> Result<Position, GomokuError> {
    let mut position = [[None; SIZE]; SIZE];
    let rows: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    if rows.len() != SIZE {
        return Err(GomokuError::Parse(format!(
            "a grid needs {SIZE} rows of {SIZE} cells; found {} non-empty lines",
            rows.len()
        )));
    }
    let (mut black, mut white) = (0, 0);
    for (y, (line_number, line)) in rows.iter().enumerate() {
        let mut x = 0;
        for (column, c) in line.chars().enumerate().map(|(i, c)| (i + 1, c)) {
            let stone = match c {
                ' ' | '\t' => continue,
                '.' => None,
                'x' | 'X' => Some(Color::Black),
                'o' | 'O' => Some(Color::White),
                other => {
                    return Err(error(
                        *line_number,
                        column,
                        format!("unknown cell {other:?} (use . x o)"),
                    ));
                }
            };
            if x == SIZE {
                return Err(error(
                    *line_number,
                    column,
                    format!("more than {SIZE} cells in a row"),
                ));
            }
            match stone {
                Some(Color::Black) => black += 1,
                Some(Color::White) => white += 1,
                None => {}
            }
            position[y][x] = stone;
            x += 1;
        }
        if x != SIZE {
            return Err(error(
                *line_number,
                line.chars().count() + 1,
                format!("{x} cells in this row; {SIZE} needed"),
            ));
        }
    }
    if black != white && black != white + 1 {
        return Err(GomokuError::Parse(format!(
            "{black} black and {white} white stones cannot come from alternating play with black first"
        )));
    }
    Ok(position)
}

/// Parses the move-list format.
pub fn parse_moves(text: &str) -> Result<Position, GomokuError> {
    let mut position = [[None; SIZE]; SIZE];
    let mut color = Color::Black;
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        // 1-based character columns of the two coordinates in the line as written.
        let indent = line.chars().count() - line.trim_start().chars().count();
        let mut parts = trimmed.split(',');
        let (Some(xs), Some(ys), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(error(
                line_number,
                indent + 1,
                format!("expected a move `x,y`, found {trimmed:?}"),
            ));
        };
        let leading = |s: &str| s.chars().count() - s.trim_start().chars().count();
        let x_column = indent + leading(xs) + 1;
        let y_column = indent + xs.chars().count() + 1 + leading(ys) + 1;
        let coordinate = |s: &str, column: usize| -> Result<i128, GomokuError> {
            let s = s.trim();
            s.parse::<i128>().map_err(|e| {
                let why = match e.kind() {
                    std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                        format!("{s} is off the board (coordinates are 0..=14)")
                    }
                    _ => format!("{s:?} is not a number"),
                };
                error(line_number, column, why)
            })
        };
        let x = coordinate(xs, x_column)?;
        let y = coordinate(ys, y_column)?;
        let on_board = |v: i128| (0..SIZE as i128).contains(&v);
        if !on_board(x) || !on_board(y) {
            let column = if on_board(x) { y_column } else { x_column };
            return Err(error(line_number, column, GomokuError::OffBoard { x, y }));
        }
        let (x, y) = (x as usize, y as usize);
        if position[y][x].is_some() {
            return Err(error(
                line_number,
                x_column,
                format!("cell ({x}, {y}) is played twice"),
            ));
        }
        position[y][x] = Some(color);
        color = color.other();
    }
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn grid_and_moves_agree() {
        let mut grid = vec![". ".repeat(SIZE); SIZE];
        grid[7] = ". . . x o x . . . . . . . . .".into();
        let from_grid = parse(&grid.join("\n")).unwrap();
        let from_moves = parse("3,7\n4,7\n5,7\n").unwrap();
        assert_eq!(from_grid, from_moves);
    }

    #[test]
    fn errors_name_line_and_column() {
        let mut grid = vec![".".repeat(SIZE); SIZE];
        grid[2] = "......?........".into();
        let message = parse(&grid.join("\n")).unwrap_err().to_string();
        assert!(message.contains("line 3, column 7"), "{message}");
        assert!(
            parse("1,1\n1,1\n")
                .unwrap_err()
                .to_string()
                .contains("line 2")
        );
        assert!(
            parse("1,15\n")
                .unwrap_err()
                .to_string()
                .contains("off the board")
        );
        assert!(
            parse("a,1\n")
                .unwrap_err()
                .to_string()
                .contains("not a number")
        );
        grid[2] = "xx.............".into();
        assert!(
            parse(&grid.join("\n"))
                .unwrap_err()
                .to_string()
                .contains("alternating")
        );
        assert!(
            parse(&grid[..14].join("\n"))
                .unwrap_err()
                .to_string()
                .contains("15 rows")
        );
    }

    #[test]
    fn move_list_errors_name_the_real_column() {
        let message = parse("1,1\n  3, 99\n").unwrap_err().to_string();
        assert!(message.contains("line 2, column 6"), "{message}");
        let message = parse("7,x\n").unwrap_err().to_string();
        assert!(
            message.contains("column 3") && message.contains("not a number"),
            "{message}"
        );
        let message = parse("12345678901234567890123,1\n")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("off the board") && message.contains("column 1"),
            "{message}"
        );
        let message = parse("0,0\n5,5\n 0,0\n").unwrap_err().to_string();
        assert!(
            message.contains("line 3, column 2") && message.contains("twice"),
            "{message}"
        );
    }

    proptest! {
        #[test]
        fn parser_never_panics(text in "[.xXoO ,0-9#\\n\\t-]{0,400}") {
            let _ = parse(&text);
        }

        #[test]
        fn parser_never_panics_on_any_text(text in "\\PC{0,300}") {
            let _ = parse(&text);
        }
    }
}
