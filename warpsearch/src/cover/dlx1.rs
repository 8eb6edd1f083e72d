//! Knuth's dlx1 input format: the first line names the items (a `|` before the secondary
//! ones), then one option a line, each a list of item names; a line that begins with `|` is a
//! comment. Blank lines are skipped.

use super::Problem;

/// Most items a problem may have (the tree's item sets are 512 bits).
pub const MAX_ITEMS: usize = 64 * kernels::cover::MAX_WORDS;
/// The longest item name dlx1 accepts.
pub const MAX_NAME: usize = 8;

/// What is wrong with a dlx1 text, and on which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong there.
    pub message: String,
}

fn error(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

/// Reads a problem in dlx1 format.
pub fn parse(text: &str) -> Result<Problem, ParseError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('|'));
    let Some((first, header)) = lines.next() else {
        return Err(error(
            text.lines().count().max(1),
            "no item line: the first line that is not a comment names the items",
        ));
    };
    let mut items: Vec<String> = Vec::new();
    let mut primary = None;
    for name in header.split_whitespace() {
        if name == "|" {
            if primary.is_some() {
                return Err(error(first, "a second `|` in the item line"));
            }
            primary = Some(items.len());
            continue;
        }
        check_name(first, name)?;
        if items.iter().any(|item| item == name) {
            return Err(error(first, format!("item {name:?} is named twice")));
        }
        items.push(name.to_string());
    }
    let primary = primary.unwrap_or(items.len());
    if primary == 0 {
        return Err(error(first, "no primary item (the items before `|`)"));
    }
    if items.len() > MAX_ITEMS {
        return Err(error(
            first,
            format!("{} items: at most {MAX_ITEMS} are supported", items.len()),
        ));
    }
    let index: std::collections::HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, name)| (name.as_str(), i))
        .collect();
    let mut options = Vec::new();
    let mut option_lines = Vec::new();
    for (line, text) in lines {
        let mut option: Vec<usize> = Vec::new();
        for name in text.split_whitespace() {
            if name.contains(':') {
                return Err(error(
                    line,
                    format!("{name:?}: colours (dlx2's `item:colour`) are not supported"),
                ));
            }
            let Some(&item) = index.get(name) else {
                return Err(error(
                    line,
                    format!("{name:?} is not an item of line {first}"),
                ));
            };
            if option.contains(&item) {
                return Err(error(line, format!("item {name:?} twice in one option")));
            }
            option.push(item);
        }
        options.push(option);
        option_lines.push(line);
    }
    let problem = Problem {
        items,
        primary,
        options,
        lines: option_lines,
    };
    problem
        .check()
        .map_err(|(line, message)| error(line, message))?;
    Ok(problem)
}

fn check_name(line: usize, name: &str) -> Result<(), ParseError> {
    if name.chars().count() > MAX_NAME {
        return Err(error(
            line,
            format!("item name {name:?} is longer than {MAX_NAME} characters"),
        ));
    }
    if name.contains(':') || name.contains('|') {
        return Err(error(
            line,
            format!("item name {name:?} contains `:` or `|`"),
        ));
    }
    Ok(())
}
