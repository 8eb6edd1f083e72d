//! docs/tutorial-golomb.md shows this example's code in fenced blocks. Each `rust` or `toml`
//! block must appear verbatim in one of the example's files (which CI builds and tests), so the
//! tutorial cannot drift from code that compiles.

use std::path::Path;

const FILES: [&str; 7] = [
    "Cargo.toml",
    "build.rs",
    "src/lib.rs",
    "src/main.rs",
    "kernels/Cargo.toml",
    "kernels/src/lib.rs",
    "tests/tutorial.rs",
];

/// The tutorial's code blocks of these languages, in order.
fn code_blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    for line in text.lines() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(language)) => current = Some((language.trim().to_string(), Vec::new())),
            (Some(_), Some(_)) => {
                if let Some((language, lines)) = current.take() {
                    blocks.push((language, lines.join("\n")));
                }
            }
            (Some((_, lines)), None) => lines.push(line),
            (None, None) => {}
        }
    }
    blocks
}

#[test]
fn every_code_block_of_the_tutorial_is_in_the_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tutorial = std::fs::read_to_string(root.join("../../docs/tutorial-golomb.md"))
        .expect("docs/tutorial-golomb.md is readable");
    let sources: Vec<String> = FILES
        .iter()
        .map(|f| std::fs::read_to_string(root.join(f)).unwrap_or_default())
        .collect();
    let blocks = code_blocks(&tutorial);
    let checked: Vec<_> = blocks
        .iter()
        .filter(|(language, _)| language == "rust" || language == "toml")
        .collect();
    assert!(
        checked.len() >= 5,
        "only {} code blocks found",
        checked.len()
    );
    for (language, block) in checked {
        assert!(
            sources.iter().any(|source| source.contains(block.as_str())),
            "this {language} block of docs/tutorial-golomb.md is in none of the example's files:\n{block}"
        );
    }
}
