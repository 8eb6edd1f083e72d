//! The diagrams of `docs/learn/`, drawn by running the CPU twins of the warp primitives: the
//! numbers and bits in each picture are what the code computes, and each picture's last row
//! is checked against the library function it illustrates, so a picture cannot disagree with
//! the code.

use crate::Result;
use kernels::warp::{LaneCounters, Lanes, TRANSPOSE_ROUNDS, lane_id, lanemask_lt};
use svg::Document;
use svg::Node;
use svg::node::element::{Line, Rectangle, Text};

/// Every diagram: (file name, SVG text).
pub fn all() -> Result<Vec<(&'static str, String)>> {
    Ok(vec![
        ("butterfly-sum.svg", butterfly_sum()?),
        ("scan-shuffle-up.svg", scan_shuffle_up()?),
        ("ballot-rank.svg", ballot_rank()?),
        ("transpose.svg", transpose()?),
        ("transpose-rounds.svg", transpose_rounds()?),
        ("column-counts.svg", column_counts()?),
        ("column-count-rounds.svg", column_count_rounds()?),
        ("nqueens-masks.svg", nqueens_masks()),
    ])
}

const INK: &str = "#222";
const FAINT: &str = "#bbb";
const ON: &str = "#3465a4";
const MARK: &str = "#f57900";

/// A drawing: an SVG document and the helpers the diagrams share.
struct Canvas {
    document: Document,
}

impl Canvas {
    fn new(width: u32, height: u32) -> Canvas {
        let background = Rectangle::new()
            .set("width", width)
            .set("height", height)
            .set("fill", "white");
        Canvas {
            document: Document::new()
                .set("viewBox", (0, 0, width, height))
                .set("width", width)
                .set("height", height)
                .set("font-family", "monospace")
                .add(background),
        }
    }

    fn text(&mut self, x: u32, y: u32, size: u32, anchor: &str, content: impl Into<String>) {
        let text = Text::new(content)
            .set("x", x)
            .set("y", y)
            .set("font-size", size)
            .set("text-anchor", anchor)
            .set("fill", INK);
        self.document.append(text);
    }

    fn cell(&mut self, x: u32, y: u32, size: u32, fill: &str) {
        let cell = Rectangle::new()
            .set("x", x)
            .set("y", y)
            .set("width", size)
            .set("height", size)
            .set("fill", fill)
            .set("stroke", FAINT)
            .set("stroke-width", 0.5);
        self.document.append(cell);
    }

    fn line(&mut self, from: (u32, u32), to: (u32, u32), colour: &str) {
        let line = Line::new()
            .set("x1", from.0)
            .set("y1", from.1)
            .set("x2", to.0)
            .set("y2", to.1)
            .set("stroke", colour)
            .set("stroke-width", 0.8);
        self.document.append(line);
    }

    fn finish(self) -> String {
        self.document.to_string() + "\n"
    }
}

/// Layout of the lane-per-column pictures: a label column, then 32 lanes.
const LEFT: u32 = 96;
const LANE: u32 = 24;
const ROW: u32 = 56;

fn lane_x(lane: usize) -> u32 {
    LEFT + lane as u32 * LANE + LANE / 2
}

/// Rows of per-lane numbers, one row a round, with a line from each lane to the lane it read.
fn rounds_picture(
    title: &str,
    rows: &[(String, [u32; 32])],
    sources: &[Vec<(usize, usize)>],
) -> String {
    let height = 60 + rows.len() as u32 * ROW;
    let mut canvas = Canvas::new(LEFT + 32 * LANE + 16, height);
    canvas.text(8, 20, 14, "start", title);
    for lane in 0..32 {
        canvas.text(lane_x(lane), 44, 10, "middle", format!("{lane}"));
    }
    canvas.text(8, 44, 10, "start", "lane");
    for (r, (label, values)) in rows.iter().enumerate() {
        let y = 70 + r as u32 * ROW;
        canvas.text(8, y, 12, "start", label.clone());
        for (lane, value) in values.iter().enumerate() {
            canvas.text(lane_x(lane), y, 11, "middle", format!("{value}"));
        }
        if r > 0 {
            for &(from, to) in &sources[r - 1] {
                canvas.line(
                    (lane_x(from), y - ROW + 6),
                    (lane_x(to), y - 14),
                    if from == to { FAINT } else { ON },
                );
            }
        }
    }
    canvas.finish()
}

/// Small example values: one digit a lane.
fn digits() -> Lanes<u32> {
    lane_id().map(|lane| (lane * 7 + 3) % 10)
}

/// The sum by five `shuffle_xor` rounds (`Lanes::sum`'s butterfly).
fn butterfly_sum() -> Result<String> {
    let mut x = digits();
    let mut rows = vec![("value".to_string(), x.to_array())];
    let mut sources = Vec::new();
    for s in [16, 8, 4, 2, 1] {
        x = x + x.shuffle_xor(s);
        rows.push((format!("+ xor {s}"), x.to_array()));
        sources.push((0..32).map(|lane| (lane ^ s as usize, lane)).collect());
    }
    if x.to_array() != [digits().sum(); 32] {
        return Err("the butterfly picture's last row is not Lanes::sum".into());
    }
    Ok(rounds_picture(
        "Lanes::sum: x = x + x.shuffle_xor(s) for s = 16, 8, 4, 2, 1 (every lane ends with the sum)",
        &rows,
        &sources,
    ))
}

/// The inclusive scan by five `shuffle_up` rounds (`Lanes::inclusive_sum`).
fn scan_shuffle_up() -> Result<String> {
    let mut x = digits();
    let mut rows = vec![("value".to_string(), x.to_array())];
    let mut sources = Vec::new();
    for d in [1, 2, 4, 8, 16] {
        let from_below = x.shuffle_up(d);
        let takes = lane_id().map(|lane| lane >= d);
        x = x + Lanes::select(takes, from_below, Lanes::splat(0));
        rows.push((format!("+ up {d}"), x.to_array()));
        sources.push(
            (d as usize..32)
                .map(|lane| (lane - d as usize, lane))
                .collect(),
        );
    }
    if x != digits().inclusive_sum() {
        return Err("the scan picture's last row is not Lanes::inclusive_sum".into());
    }
    Ok(rounds_picture(
        "Lanes::inclusive_sum: lanes at d or above add the lane d below, d = 1, 2, 4, 8, 16",
        &rows,
        &sources,
    ))
}

/// A vote, the ballot word, one lane's `lanemask_lt` and every lane's rank (`compact`).
fn ballot_rank() -> Result<String> {
    let flags = digits().map(|d| d % 3 == 0);
    let ballot = flags.ballot();
    let compaction = flags.compact();
    let focus = 19usize;
    let below = lanemask_lt().lane(focus);
    let mut canvas = Canvas::new(LEFT + 32 * LANE + 16, 320);
    canvas.text(
        8,
        20,
        14,
        "start",
        "ballot, lanemask_lt and rank: slot = popc(ballot & lanemask_lt) (Lanes<bool>::compact)",
    );
    for lane in 0..32 {
        canvas.text(lane_x(lane), 44, 10, "middle", format!("{lane}"));
    }
    canvas.text(8, 44, 10, "start", "lane");
    let rows: [(&str, u32); 3] = [("flag", ballot), ("ballot", ballot), ("lt(19)", below)];
    for (r, (label, word)) in rows.iter().enumerate() {
        let y = 56 + r as u32 * 40;
        canvas.text(8, y + 16, 12, "start", *label);
        for lane in 0..32 {
            let set = word >> lane & 1 == 1;
            let fill = match (r, set) {
                (2, true) => MARK,
                (_, true) => ON,
                _ => "white",
            };
            canvas.cell(lane_x(lane) - 9, y, 18, fill);
            if r == 1 {
                canvas.text(
                    lane_x(lane),
                    y + 13,
                    10,
                    "middle",
                    format!("{}", set as u32),
                );
            }
        }
    }
    let y = 56 + 3 * 40 + 16;
    canvas.text(8, y, 12, "start", "slot");
    let slots = compaction.slot.to_array();
    for (lane, slot) in slots.iter().enumerate() {
        if flags.lane(lane) {
            canvas.text(lane_x(lane), y, 11, "middle", format!("{slot}"));
        }
    }
    let rank = (ballot & below).count_ones();
    if rank != slots[focus] || compaction.count != ballot.count_ones() {
        return Err("the ballot picture disagrees with Lanes::compact".into());
    }
    canvas.text(
        8,
        y + 34,
        12,
        "start",
        "flag: one bool a lane; ballot: the same flags as one u32, bit l = lane l (vote.sync.ballot)",
    );
    canvas.text(
        8,
        y + 74,
        12,
        "start",
        format!(
            "lt(19): lanemask_lt in lane 19, the lanes below it; its slot = popc({ballot:#010x} & {below:#010x}) = {rank}"
        ),
    );
    canvas.text(
        8,
        y + 54,
        12,
        "start",
        format!(
            "count = popc(ballot) = {}: the flagged lanes write slots 0..={} with no gaps",
            compaction.count,
            compaction.count - 1
        ),
    );
    Ok(canvas.finish())
}

/// A 32×32 board at `(x, y)`: lane r is row r (top to bottom), bit c is column c (left to
/// right).
fn board(canvas: &mut Canvas, x: u32, y: u32, rows: [u32; 32], cell: u32, fill: &str) {
    for (r, row) in rows.iter().enumerate() {
        for c in 0..32 {
            let on = row >> c & 1 == 1;
            canvas.cell(
                x + c * cell,
                y + r as u32 * cell,
                cell,
                if on { fill } else { "white" },
            );
        }
    }
}

/// An asymmetric shape on a 32×32 board (lane = row): a stem, a foot, a block, a diagonal.
fn transpose_shape() -> Lanes<u32> {
    lane_id().map(|lane| {
        let stem = if (3..29).contains(&lane) { 1 << 4 } else { 0 };
        let foot = if lane == 28 { 0x001F_FFF0 } else { 0 };
        let block = if (6..11).contains(&lane) {
            0x07F0_0000
        } else {
            0
        };
        let diagonal = if lane % 2 == 0 {
            1 << (lane / 2 + 8)
        } else {
            0
        };
        stem | foot | block | diagonal
    })
}

/// An asymmetric shape and its transpose (`Lanes::transpose`).
fn transpose() -> Result<String> {
    let rows = transpose_shape();
    let turned = rows.transpose();
    for r in 0..32 {
        for c in 0..32 {
            if (rows.lane(r) >> c & 1) != (turned.lane(c) >> r & 1) {
                return Err("the transpose picture is not a transpose".into());
            }
        }
    }
    let cell = 9;
    let mut canvas = Canvas::new(2 * 32 * cell + 120, 32 * cell + 90);
    canvas.text(
        8,
        20,
        14,
        "start",
        "Lanes::transpose: bit c of lane r becomes bit r of lane c",
    );
    board(&mut canvas, 20, 50, rows.to_array(), cell, ON);
    board(
        &mut canvas,
        32 * cell + 100,
        50,
        turned.to_array(),
        cell,
        MARK,
    );
    canvas.text(
        20,
        44,
        11,
        "start",
        "rows: lane 0 at the top, bit 0 at the left",
    );
    canvas.text(32 * cell + 100, 44, 11, "start", "rows.transpose()");
    canvas.text(32 * cell + 60, 50 + 16 * cell, 20, "middle", "→");
    Ok(canvas.finish())
}

/// A sparse board: three pseudo-random bits a row, fewer in the lower half.
fn column_count_board() -> Lanes<u32> {
    let mut seed = 0x2545_F491u32;
    Lanes::from_fn(|lane| {
        let mut row = 0;
        for _ in 0..3 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            row |= 1 << (seed % 32);
        }
        if lane < 16 { row } else { row & 0x0F0F_F0F0 }
    })
}

/// The shape of [`transpose`] after each of the five rounds (`Lanes::transpose_round`).
fn transpose_rounds() -> Result<String> {
    let mut states = vec![("rows".to_string(), transpose_shape())];
    for (s, low) in TRANSPOSE_ROUNDS {
        let last = states[states.len() - 1].1;
        states.push((format!("after round s = {s}"), last.transpose_round(s, low)));
    }
    if states[5].1 != transpose_shape().transpose() {
        return Err("the five rounds do not end in the transpose".into());
    }
    let cell = 5;
    let side = 32 * cell;
    let mut canvas = Canvas::new(3 * (side + 40) + 20, 2 * (side + 50) + 70);
    canvas.text(
        8,
        20,
        14,
        "start",
        "Lanes::transpose, round by round: lanes l and l ^ s swap their pair's",
    );
    canvas.text(
        8,
        38,
        14,
        "start",
        "off-diagonal s×s blocks (one shfl.sync.bfly, shifts and lop3s a round)",
    );
    for (i, (label, rows)) in states.iter().enumerate() {
        let (x, y) = panel(&mut canvas, i, side, label);
        let fill = if i == 5 { MARK } else { ON };
        board(&mut canvas, x, y, rows.to_array(), cell, fill);
    }
    Ok(canvas.finish())
}

/// Where panel `i` of a round-by-round picture goes (three a row, each `side` wide), with its
/// label written above it: the panel's top-left corner.
fn panel(canvas: &mut Canvas, i: usize, side: u32, label: &str) -> (u32, u32) {
    let (x, y) = (
        20 + (i as u32 % 3) * (side + 40),
        80 + (i as u32 / 3) * (side + 50),
    );
    canvas.text(x, y - 8, 11, "start", label);
    (x, y)
}

/// The sparse board of [`column_counts`] through the GPU counter's five butterfly rounds
/// (`LaneCounters::round`): each lane's counter for each column, shaded by its value.
fn column_count_rounds() -> Result<String> {
    let rows = column_count_board();
    let mut states = vec![(
        "each lane its own row".to_string(),
        LaneCounters::of_rows(rows),
    )];
    for s in [16, 8, 4, 2, 1] {
        let last = states[states.len() - 1].1;
        states.push((format!("after round s = {s}"), last.round(s)));
    }
    let last = states[5].1;
    let counts = rows.column_counts();
    if (0..32).any(|l| last.bit0.lane(l) != counts.bit0 || last.bit1.lane(l) != counts.bit1) {
        return Err("the five rounds do not end in column_counts in every lane".into());
    }
    let shades = ["white", "#c6d8ef", "#6f9bd1", "#204a87"];
    let cell = 5;
    let side = 32 * cell;
    let mut canvas = Canvas::new(3 * (side + 40) + 20, 2 * (side + 50) + 70);
    canvas.text(
        8,
        20,
        14,
        "start",
        "the column counter, round by round: lane l adds lane l ^ s's counters (saturated at 3)",
    );
    canvas.text(
        8,
        38,
        12,
        "start",
        "row = lane, column = bit; shade = 0, 1, 2, 3+; at the end every lane holds the warp's counts",
    );
    for (i, (label, counters)) in states.iter().enumerate() {
        let (x, y) = panel(&mut canvas, i, side, label);
        for lane in 0..32 {
            for c in 0..32 {
                let count =
                    (counters.bit1.lane(lane) >> c & 1) * 2 + (counters.bit0.lane(lane) >> c & 1);
                canvas.cell(
                    x + c * cell,
                    y + lane as u32 * cell,
                    cell,
                    shades[count as usize],
                );
            }
        }
    }
    Ok(canvas.finish())
}

/// A sparse board and its per-column counts saturated at 3 (`Lanes::column_counts`).
fn column_counts() -> Result<String> {
    let rows = column_count_board();
    let counts = rows.column_counts();
    let cell = 16;
    let (x, y) = (110, 40);
    let mut canvas = Canvas::new(x + 32 * cell + 60, y + 32 * cell + 7 * 24 + 40);
    canvas.text(
        8,
        22,
        14,
        "start",
        "Lanes::column_counts: lanes with each bit, saturated at 3, as two bit-planes",
    );
    board(&mut canvas, x, y, rows.to_array(), cell, ON);
    let below = y + 32 * cell + 24;
    canvas.text(8, below, 12, "start", "count");
    for c in 0..32 {
        let by_hand = (0..32)
            .filter(|&r| rows.lane(r) >> c & 1 == 1)
            .count()
            .min(3) as u32;
        if counts.get(c) != by_hand {
            return Err(format!(
                "column {c}: the picture's count differs from column_counts"
            ));
        }
        canvas.text(
            x + c * cell + cell / 2,
            below,
            11,
            "middle",
            format!("{}", counts.get(c)),
        );
    }
    let planes = [
        ("bit1", counts.bit1),
        ("bit0", counts.bit0),
        ("zero()", counts.zero()),
        ("one()", counts.one()),
        ("two()", counts.two()),
        ("three+", counts.three_or_more()),
    ];
    for (i, (label, word)) in planes.iter().enumerate() {
        let top = below + 12 + i as u32 * 24;
        canvas.text(8, top + 12, 12, "start", *label);
        for c in 0..32 {
            let fill = if word >> c & 1 == 1 { MARK } else { "white" };
            canvas.cell(x + c * cell, top, cell, fill);
        }
    }
    Ok(canvas.finish())
}

/// The bitmap N-Queens step of the CUDA article, on 8×8: after queens in rows 0–3, the
/// three attack masks row 4 inherits and the columns left for it.
fn nqueens_masks() -> String {
    let n = 8u32;
    let queens = [0u32, 4, 7, 5];
    let (mut left, mut down, mut right) = (0u32, 0u32, 0u32);
    for &column in &queens {
        let bit = 1 << column;
        // The masks the next row inherits: diagonals move one column a row.
        left = (left | bit) << 1;
        down |= bit;
        right = (right | bit) >> 1;
    }
    let full = (1 << n) - 1;
    let free = full & !(left | down | right);
    let cell = 30;
    let (x, y) = (20, 50);
    let mut canvas = Canvas::new(x + n * cell + 330, y + n * cell + 60);
    canvas.text(
        8,
        22,
        14,
        "start",
        "N-Queens bitmaps: row 4 may take free = ~(left | down | right)",
    );
    for r in 0..n {
        for c in 0..n {
            let fill = if r < 4 && queens[r as usize] == c {
                INK
            } else if r == 4 && free >> c & 1 == 1 {
                MARK
            } else if r == 4 {
                FAINT
            } else {
                "white"
            };
            canvas.cell(x + c * cell, y + r * cell, cell, fill);
        }
    }
    let masks = [
        ("left  (<< 1 a row)", left & full),
        ("down", down),
        ("right (>> 1 a row)", right),
        ("free", free),
    ];
    let strip = x + n * cell + 30;
    for (i, (label, word)) in masks.iter().enumerate() {
        let top = y + i as u32 * 56;
        let columns: Vec<String> = (0..n)
            .filter(|c| word >> c & 1 == 1)
            .map(|c| c.to_string())
            .collect();
        canvas.text(
            strip,
            top + 12,
            12,
            "start",
            format!("{label}: columns {}", columns.join(", ")),
        );
        for c in 0..n {
            let fill = if word >> c & 1 == 1 {
                if i == 3 { MARK } else { ON }
            } else {
                "white"
            };
            canvas.cell(strip + c * 20, top + 20, 20, fill);
        }
    }
    canvas.text(
        x,
        y + n * cell + 24,
        11,
        "start",
        "column c is bit c, drawn left to right (so << 1 moves a bit one column right);",
    );
    canvas.text(
        x,
        y + n * cell + 42,
        11,
        "start",
        "queens in black, row 4's attacked columns grey, its choices orange",
    );
    canvas.finish()
}
