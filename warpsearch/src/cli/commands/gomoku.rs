//! `warpsearch gomoku`: threat points of a position.

use crate::cli::*;

pub(crate) fn run_gomoku(args: GomokuArgs, cancel: Arc<AtomicBool>) -> Result<i32, Error> {
    use std::io::Read as _;
    let io = |source| Error::Io {
        path: args.input.clone(),
        source,
    };
    let mut bytes = Vec::new();
    let limit = MAX_GOMOKU_INPUT + 1;
    if args.input == "-" {
        std::io::stdin().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(&args.input).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    }
    .map_err(io)?;
    if bytes.len() as u64 > MAX_GOMOKU_INPUT {
        return Err(Error::InvalidArgument(format!(
            "{}: more than {} KB of input; a position is a 15-line grid or a move list of at most 225 moves",
            args.input,
            MAX_GOMOKU_INPUT / 1024
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::InvalidArgument(format!(
            "{}: not UTF-8 text (byte {})",
            args.input,
            e.utf8_error().valid_up_to()
        ))
    })?;
    let position = gomoku::parse::parse(&text)
        .map_err(|e| Error::InvalidArgument(format!("{}: {e}", args.input)))?;
    // The table from the disk cache (or built and cached): a second call starts at once.
    let dir = gomoku::cache::default_dir();
    if let (_, Some(gomoku::cache::Outcome::BuiltWithoutCache(why))) =
        gomoku::table::Table::get_cached(args.rule, dir.as_deref())
    {
        note!("note: gomoku table cache: {why}");
    }
    let mut board = Board::new(args.rule);
    for (y, row) in position.iter().enumerate() {
        for (x, stone) in row.iter().enumerate() {
            if let Some(color) = stone {
                board
                    .make(x, y, *color)
                    .map_err(|e| Error::InvalidArgument(e.to_string()))?;
            }
        }
    }
    let [black, white] = board.both_threats();
    if cancel.load(Ordering::SeqCst) {
        return Err(Error::Interrupted);
    }
    if args.json {
        let list = |t: &gomoku::Threats| t.iter().collect::<Vec<_>>();
        out!(
            "{}",
            serde_json::json!({ "rule": args.rule, "black": list(&black), "white": list(&white) })
        );
        return Ok(0);
    }
    out!(
        "   {}",
        (0..15).map(|x| format!("{x:>3}")).collect::<String>()
    );
    for y in 0..15 {
        let row: String = (0..15)
            .map(|x| {
                let mark = match (board.get(x, y), black.at(x, y), white.at(x, y)) {
                    (Some(Color::Black), _, _) => 'X',
                    (Some(Color::White), _, _) => 'O',
                    (None, Some(_), Some(_)) => '*',
                    (None, Some(Kind::Five), None) => 'F',
                    (None, Some(Kind::OpenFour), None) => 'f',
                    (None, None, Some(Kind::Five)) => 'G',
                    (None, None, Some(Kind::OpenFour)) => 'g',
                    (None, None, None) => '.',
                };
                format!("  {mark}")
            })
            .collect();
        out!("{y:>2} {row}");
    }
    let describe = |name: &str, threats: &gomoku::Threats| -> String {
        let points: Vec<String> = threats
            .iter()
            .map(|t| {
                format!(
                    "({},{}) {}",
                    t.x,
                    t.y,
                    if t.kind == Kind::Five {
                        "five"
                    } else {
                        "open-four"
                    }
                )
            })
            .collect();
        format!(
            "{name}: {}",
            if points.is_empty() {
                "no threat points".to_string()
            } else {
                points.join(", ")
            }
        )
    };
    out!(
        "rule: {:?}. X/O stones; F/f black five/open-four point; G/g white; * both.",
        args.rule
    );
    out!("{}", describe("black", &black));
    out!("{}", describe("white", &white));
    Ok(0)
}
