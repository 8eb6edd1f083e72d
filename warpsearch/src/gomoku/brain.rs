//! A Gomocup brain: the Piskvork protocol over stdin/stdout (written next).

/// The brain's state between protocol commands.
#[derive(Default)]
pub struct Brain {
    finished: bool,
}

impl Brain {
    /// A brain before START.
    pub fn new() -> Brain {
        Brain::default()
    }

    /// Handles one line of the protocol and returns the lines to answer.
    pub fn handle(&mut self, line: &str) -> Vec<String> {
        if line.trim().eq_ignore_ascii_case("END") {
            self.finished = true;
            return Vec::new();
        }
        vec![format!("UNKNOWN {}", line.trim())]
    }

    /// True after END.
    pub fn finished(&self) -> bool {
        self.finished
    }
}

/// Speaks the protocol: reads commands from `input` until END or its end, answers on `output`.
pub fn run(input: impl std::io::BufRead, mut output: impl std::io::Write) -> std::io::Result<()> {
    let mut brain = Brain::new();
    for line in input.lines() {
        for answer in brain.handle(&line?) {
            writeln!(output, "{answer}")?;
        }
        output.flush()?;
        if brain.finished() {
            break;
        }
    }
    Ok(())
}
