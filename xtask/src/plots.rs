//! The plots of docs/BENCHMARKS.md, drawn from the logs in results/ (`cargo xtask plots`
//! writes them to docs/img/plots/; `cargo xtask test` fails when a committed one differs from
//! what the logs give). Each plot names its logs; every value is read from them, none typed in.

use crate::{Result, root};
use plotters::prelude::*;
use regex::Regex;
use std::fs;

/// A run line of `scripts/bench-suite.sh`: its label, the wall seconds, the command's JSON.
struct Run {
    label: String,
    wall: f64,
    json: serde_json::Value,
}

fn read(log: &str) -> Result<String> {
    fs::read_to_string(root().join("results").join(log)).map_err(|e| format!("results/{log}: {e}"))
}

/// The `LABEL rc=0 wall=Ns {json}` lines of a log.
fn runs(log: &str) -> Result<Vec<Run>> {
    let line = Regex::new(r"^(.+?)\s+rc=0 wall=([0-9.]+)s (\{.*\})$").expect("a valid regex");
    let mut found = Vec::new();
    for text in read(log)?.lines() {
        if let Some(m) = line.captures(text) {
            let json = serde_json::from_str(&m[3]).map_err(|e| format!("results/{log}: {e}"))?;
            found.push(Run {
                label: m[1].trim().to_string(),
                wall: m[2].parse().unwrap_or(f64::NAN),
                json,
            });
        }
    }
    Ok(found)
}

/// The median of the runs labelled `label` in `log`, by `value`.
fn median_of(runs: &[Run], label: &str, value: impl Fn(&Run) -> Option<f64>) -> Result<f64> {
    let mut values: Vec<f64> = runs
        .iter()
        .filter(|r| r.label == label)
        .filter_map(value)
        .collect();
    if values.is_empty() {
        return Err(format!("no run labelled `{label}`"));
    }
    values.sort_by(f64::total_cmp);
    Ok(values[(values.len() - 1) / 2])
}

fn seconds(run: &Run) -> Option<f64> {
    run.json["seconds"].as_f64()
}

/// A point (x, y), with its low–high range when it has one.
type Point = (f64, f64, Option<(f64, f64)>);

/// A line of points.
struct Series {
    label: &'static str,
    colour: RGBColor,
    points: Vec<Point>,
}

const COLOURS: [RGBColor; 4] = [
    RGBColor(52, 101, 164),
    RGBColor(245, 121, 0),
    RGBColor(78, 154, 6),
    RGBColor(117, 80, 123),
];

/// An axis value as a reader writes it: 0.25, 6.4, 55, 2.6e15.
fn tidy(y: f64) -> String {
    if !(0.01..1e4).contains(&y) {
        format!("{y:.1e}")
    } else if y >= 10.0 {
        format!("{y:.0}")
    } else {
        format!("{y:.2}")
    }
}

/// A chart of `series` against a log-scale y axis.
fn log_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> Result<String> {
    let all = || series.iter().flat_map(|s| s.points.iter());
    let (mut x_min, mut x_max, mut y_min, mut y_max) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y, range) in all() {
        let (low, high) = range.unwrap_or((y, y));
        x_min = x_min.min(x);
        x_max = x_max.max(x);
        y_min = y_min.min(low.min(y));
        y_max = y_max.max(high.max(y));
    }
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (760, 440)).into_drawing_area();
        let fail = |e: &dyn std::fmt::Display| format!("drawing {title}: {e}");
        area.fill(&WHITE).map_err(|e| fail(&e))?;
        let mut chart = ChartBuilder::on(&area)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(
                (x_min - 0.5)..(x_max + 0.5),
                (y_min / 2.0..y_max * 2.0).log_scale(),
            )
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .x_labels((x_max - x_min) as usize + 2)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| tidy(*y))
            .draw()
            .map_err(|e| fail(&e))?;
        for s in series {
            let colour = s.colour;
            chart
                .draw_series(LineSeries::new(
                    s.points.iter().map(|&(x, y, _)| (x, y)),
                    colour.stroke_width(2),
                ))
                .map_err(|e| fail(&e))?
                .label(s.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour));
            chart
                .draw_series(
                    s.points
                        .iter()
                        .map(|&(x, y, _)| Circle::new((x, y), 4, colour.filled())),
                )
                .map_err(|e| fail(&e))?;
            for &(x, _, range) in &s.points {
                if let Some((low, high)) = range {
                    chart
                        .draw_series(LineSeries::new([(x, low), (x, high)], colour))
                        .map_err(|e| fail(&e))?;
                }
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| fail(&e))?;
        area.present().map_err(|e| fail(&e))?;
    }
    Ok(svg + "\n")
}

/// N-Queens on one H100: seconds and nodes a second against N (the table of BENCHMARKS'
/// "One H100").
fn nqueens_one_h100() -> Result<Vec<(&'static str, String)>> {
    let suite = "2026-11-24-h100-nqueens-final.log";
    let row = Regex::new(r"^\s*(\d+)\s+\d+\s+\d+\s+gpu\s+([0-9.]+)\s+(\d+)\s+([0-9.e]+)\s+ok$")
        .expect("a valid regex");
    let mut time = Vec::new();
    let mut rate = Vec::new();
    for line in read(suite)?.lines() {
        if let Some(m) = row.captures(line) {
            let n: f64 = m[1].parse().unwrap_or(0.0);
            if n >= 16.0 {
                time.push((n, m[2].parse().unwrap_or(f64::NAN), None));
                rate.push((n, m[4].parse().unwrap_or(f64::NAN), None));
            }
        }
    }
    let mut add = |run: &Run| {
        if let (Some(n), Some(s), Some(r)) = (
            run.json["n"].as_f64(),
            run.json["seconds"].as_f64(),
            run.json["nodes_per_second"].as_f64(),
        ) {
            time.push((n, s, None));
            rate.push((n, r, None));
        }
    };
    for run in runs(suite)? {
        add(&run);
    }
    // N = 23: one count, its JSON line on its own.
    for line in read("2026-11-24-h100-nqueens-23.log")?.lines() {
        if line.starts_with('{') {
            let json: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
            add(&Run {
                label: String::new(),
                wall: 0.0,
                json,
            });
        }
    }
    if time.len() != 8 {
        return Err(format!(
            "N-Queens on one H100: {} sizes read, 8 expected",
            time.len()
        ));
    }
    Ok(vec![
        (
            "nqueens-one-h100.svg",
            log_chart(
                "N-Queens, all solutions, one H100 (2026-11-24)",
                "N",
                "seconds",
                &[Series {
                    label: "warpsearch",
                    colour: COLOURS[0],
                    points: time,
                }],
            )?,
        ),
        (
            "nqueens-rate-one-h100.svg",
            log_chart(
                "N-Queens nodes a second, one H100 (2026-11-24)",
                "N",
                "nodes a second",
                &[Series {
                    label: "warpsearch",
                    colour: COLOURS[0],
                    points: rate,
                }],
            )?,
        ),
    ])
}

/// warpsearch beside ygch/n_queens and mvr/no-three-in-line on one H100, each program's own
/// time for N-Queens and the whole process (wall) for no-three-in-line.
fn beside_others() -> Result<(&'static str, String)> {
    let log = "2026-11-25-h100-beside-ygch-mvr.log";
    let ours = runs(log)?;
    let anchor = Regex::new(r"^anchor (\S+) (\d+) seconds=([0-9.]+)").expect("a valid regex");
    let text = read(log)?;
    let theirs = |program: &str, sizes: &[u32]| -> Vec<Point> {
        text.lines()
            .filter_map(|line| anchor.captures(line))
            .filter(|m| &m[1] == program)
            .filter_map(|m| {
                let n: u32 = m[2].parse().ok()?;
                sizes
                    .contains(&n)
                    .then(|| (f64::from(n), m[3].parse().unwrap_or(f64::NAN), None))
            })
            .collect()
    };
    let mine = |problem: &str, sizes: &[u32], wall: bool| -> Result<Vec<_>> {
        sizes
            .iter()
            .map(|n| {
                let label = format!("warpsearch {problem} {n}");
                let value = median_of(
                    &ours,
                    &label,
                    |r| if wall { Some(r.wall) } else { seconds(r) },
                )?;
                Ok((f64::from(*n), value, None))
            })
            .collect()
    };
    let series = [
        Series {
            label: "warpsearch N-Queens (own timer)",
            colour: COLOURS[0],
            points: mine("nqueens", &[20, 21], false)?,
        },
        Series {
            label: "ygch/n_queens (own timer)",
            colour: COLOURS[1],
            points: theirs("ygch-nqueens", &[20, 21]),
        },
        Series {
            label: "warpsearch no-three-in-line (wall)",
            colour: COLOURS[2],
            points: mine("no3line", &[13, 14], true)?,
        },
        Series {
            label: "mvr/no-three-in-line (wall)",
            colour: COLOURS[3],
            points: theirs("mvr-no3inline", &[13, 14]),
        },
    ];
    Ok((
        "beside-others-h100.svg",
        log_chart(
            "Beside other programs, one H100 (2026-11-25)",
            "N (N-Queens) or n (no-three-in-line)",
            "seconds",
            &series,
        )?,
    ))
}

/// Two GPUs against one: the speed-up of each count on 2× H200 in one host.
fn scaling() -> Result<(&'static str, String)> {
    let speed_up = |log: &str, what: &str| -> Result<f64> {
        let runs = runs(log)?;
        let one = median_of(&runs, &format!("{what}, GPU 0"), seconds)?;
        let both = median_of(&runs, &format!("{what}, all GPUs"), seconds)?;
        Ok(one / both)
    };
    let nqueens = "2026-11-24-2x-h200-scale-lookahead.log";
    let no3line = "2026-11-23-2x-h200-scale-final.log";
    let series = [
        Series {
            label: "N-Queens N = 21, 22",
            colour: COLOURS[0],
            points: vec![
                (21.0, speed_up(nqueens, "nqueens 21")?, None),
                (22.0, speed_up(nqueens, "nqueens 22")?, None),
            ],
        },
        Series {
            label: "no-three-in-line n = 14, 15",
            colour: COLOURS[2],
            points: vec![
                (14.0, speed_up(no3line, "no3line 14")?, None),
                (15.0, speed_up(no3line, "no3line 15")?, None),
            ],
        },
    ];
    Ok((
        "scaling-2x-h200.svg",
        log_chart(
            "Two GPUs against one: speed-up, 2× H200 in one host (2026-11-23/24)",
            "N or n",
            "speed-up over GPU 0 alone",
            &series,
        )?,
    ))
}

/// The record projections: N-Queens N = 23..28 estimated on one H100, as days on eight H100s
/// scaling perfectly, with the estimates' 95 % ranges.
fn projections() -> Result<(&'static str, String)> {
    let runs = runs("2026-11-27-h100-estimates-23-28.log")?;
    let day = 86_400.0 * 8.0;
    let mut points = Vec::new();
    for n in 23..=28u32 {
        let run = runs
            .iter()
            .find(|r| r.label == format!("nqueens {n} --estimate"))
            .ok_or(format!("no estimate of N = {n}"))?;
        let at = |key: &str| run.json[key].as_f64().ok_or(format!("N = {n}: no {key}"));
        points.push((
            f64::from(n),
            at("seconds")? / day,
            Some((at("seconds_low")? / day, at("seconds_high")? / day)),
        ));
    }
    Ok((
        "projections-nqueens-8-h100.svg",
        log_chart(
            "N-Queens projected on 8 H100s, 95 % ranges (estimated on one H100, 2026-11-27)",
            "N",
            "days",
            &[Series {
                label: "warpsearch (one H100's estimate ÷ 8)",
                colour: COLOURS[0],
                points,
            }],
        )?,
    ))
}

/// Every plot: (file name, SVG).
fn all() -> Result<Vec<(&'static str, String)>> {
    let mut plots = nqueens_one_h100()?;
    plots.push(beside_others()?);
    plots.push(scaling()?);
    plots.push(projections()?);
    Ok(plots)
}

/// Writes the plots to docs/img/plots/, or (`check`) fails when a committed one differs.
pub fn plots(check: bool) -> Result {
    let folder = root().join("docs/img/plots");
    crate::write_or_check(&folder, &all()?, check, "plots", "the logs in results/")
}
