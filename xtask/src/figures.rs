//! Measured figures live in one place: docs/BENCHMARKS.md. Any other page (README.md, docs/
//! but for BENCHMARKS.md itself and the experiment logs in docs/notes/) that quotes a time, a
//! speed-up or a rate must link to BENCHMARKS.md in the same paragraph or table, so that a
//! reader can always find the measurement's date, commit, hardware and command, and so that
//! two pages cannot quietly disagree. Fenced code blocks (sample output) are exempt.

use crate::{Result, root};
use regex::Regex;
use std::fs;

/// A measured figure: a time (`0.83 s`, `22–40 s`, `7 min`, `35 ns`; not the plural `H100s`), a ratio (`4.5×`), or a rate
/// (`nodes/s`, `nodes a second`, `GB/s`). A `×` followed by a number or a GPU's name (a board
/// size `15×15`, a GPU count `2× H200`) is captured as `not` and is no figure.
const FIGURE: &str = r"(?x)
    \d (?:[\d.,·⁰¹²³⁴⁵⁶⁷⁸⁹]*) (?: \s? (?:ns|µs|ms|min) | \s (?:s|h)) \b
  | \d (?:[\d.,]*) \s? × (?P<not> \s? (?:\d | H100 | H200 | B200 | 5090 | A100))?
  | nodes/s | nodes\ a\ second | GB/s";

/// The first measured figure in `text`, if any.
fn first_figure(figure: &Regex, text: &str) -> Option<String> {
    figure
        .captures_iter(text)
        .find(|found| found.name("not").is_none())
        .and_then(|found| found.get(0))
        .map(|found| found.as_str().to_string())
}

/// Every paragraph or table outside code fences in `text` that quotes a figure without a link
/// to BENCHMARKS.md: (first line number, the figure).
pub fn unlinked_figures(text: &str) -> Vec<(usize, String)> {
    let figure = Regex::new(FIGURE).expect("the pattern is a valid regex");
    let mut found = Vec::new();
    let mut block: Vec<(usize, &str)> = Vec::new();
    let mut fenced = false;
    let mut check = |block: &mut Vec<(usize, &str)>| {
        let joined: String = block
            .iter()
            .map(|(_, line)| *line)
            .collect::<Vec<_>>()
            .join("\n");
        if !joined.contains("BENCHMARKS.md")
            && let (Some(hit), Some(&(line, _))) = (first_figure(&figure, &joined), block.first())
        {
            found.push((line, hit));
        }
        block.clear();
    };
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            check(&mut block);
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line.trim().is_empty() {
            check(&mut block);
        } else {
            block.push((index + 1, line));
        }
    }
    check(&mut block);
    found
}

/// Fails with every unlinked figure of README.md and docs/ (but BENCHMARKS.md and notes/).
pub fn check() -> Result {
    let mut pages = vec![root().join("README.md")];
    pages.extend(crate::learn::markdown_files(&root().join("docs"))?);
    let mut problems = Vec::new();
    for page in pages {
        let name = page
            .strip_prefix(root())
            .unwrap_or(&page)
            .display()
            .to_string();
        if name == "docs/BENCHMARKS.md" || name.starts_with("docs/notes/") {
            continue;
        }
        let text = fs::read_to_string(&page).map_err(|e| format!("{name}: {e}"))?;
        for (line, figure) in unlinked_figures(&text) {
            problems.push(format!("{name}:{line}: `{figure}`"));
        }
    }
    if problems.is_empty() {
        eprintln!("xtask: every measured figure in the docs links to docs/BENCHMARKS.md");
        return Ok(());
    }
    Err(format!(
        "these paragraphs quote a measured figure without a link to docs/BENCHMARKS.md, where \
         every figure lives once (put the figure there and link to it):\n{}",
        problems.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::unlinked_figures;

    #[test]
    fn a_figure_needs_a_link_in_its_paragraph() {
        let text = "N = 20 takes 0.83 s on one H100.\n\nIt is 4.5× the other program \
                    ([figures](BENCHMARKS.md#x)).\n\nA 15×15 board on 2× H200.\n\n\
                    ```text\n0.5 s\n```\n";
        assert_eq!(unlinked_figures(text), [(1, "0.83 s".to_string())]);
    }

    #[test]
    fn rates_and_ratios_count_as_figures() {
        assert_eq!(unlinked_figures("about 5·10¹¹ nodes/s")[0].1, "nodes/s");
        assert_eq!(unlinked_figures("a 2.6× gain")[0].1, "2.6×");
        assert!(unlinked_figures("rows 1 to 32, a 32×32 matrix").is_empty());
    }
}
