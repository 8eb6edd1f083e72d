//! Configurations as text and as SVG pictures.

use super::*;

/// One line of the `--out` format: the rows in order, separated by spaces, each as the two
/// columns of its points (0-based), e.g. `0,1 0,1` for the only 2×2 configuration.
pub fn format_line(rows: &[u32]) -> String {
    rows.iter()
        .map(|&row| {
            let columns: Vec<String> = (0..32)
                .filter(|c| row >> c & 1 == 1)
                .map(|c: u32| c.to_string())
                .collect();
            columns.join(",")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An SVG drawing of a configuration: the grid's cells and its points.
pub fn svg(rows: &[u32]) -> Result<String> {
    check_configuration(rows)?;
    let n = rows.len();
    let cell = 24;
    let size = n * cell + 2 * cell;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{size}\" height=\"{size}\" viewBox=\"0 0 {size} {size}\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    for i in 0..=n {
        let p = cell + i * cell;
        let end = cell + n * cell;
        out +=
            &format!("<line x1=\"{cell}\" y1=\"{p}\" x2=\"{end}\" y2=\"{p}\" stroke=\"#bbb\"/>\n");
        out +=
            &format!("<line x1=\"{p}\" y1=\"{cell}\" x2=\"{p}\" y2=\"{end}\" stroke=\"#bbb\"/>\n");
    }
    for (r, &row) in rows.iter().enumerate() {
        for c in (0..n).filter(|&c| row >> c & 1 == 1) {
            let (x, y) = (cell + c * cell + cell / 2, cell + r * cell + cell / 2);
            out += &format!(
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"{}\" fill=\"#1f4e9c\"/>\n",
                cell / 3
            );
        }
    }
    Ok(out + "</svg>\n")
}
