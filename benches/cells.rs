//! What 10,000 cells cost, next to 10,000 plain `#[test]` functions.
//!
//! ```text
//! cargo bench --bench cells
//! ```
//!
//! Builds the fixture crate (`tests/fixture/`, laid out by `tests/support/mod.rs`) with its
//! `scale` target (100 agents x 25 cassettes x 4 runs = 10,000 cells, 2 tool calls each) and
//! its `plain` target (10,000 empty `#[test]` functions), in the test profile a user's
//! `cargo test` builds them in, and times, per target:
//!
//! - listing: `--list --format terse`, the best of several runs;
//! - a full run with `--test-threads 2`, its wall time and that time per cell;
//! - one cell in its own process, as `cargo nextest` starts it (`--exact`, with
//!   `NEXTEST_EXECUTION_MODE=process-per-test`).
//!
//! Building the fixture is not timed (the first build of the plain target takes minutes).
//! Under `cargo test` this target only says how to run it, so that CI does not build the
//! 10,000-test fixture.

#[path = "../tests/support/mod.rs"]
#[allow(dead_code)]
mod support;

use std::process::Output;
use std::time::{Duration, Instant};

use support::{Fixture, text};

const CELLS: usize = 10_000;
/// Timed listings (and single-cell runs) per target; the best is reported.
const LISTINGS: usize = 5;
/// Timed full runs per target; the best is reported.
const RUNS: usize = 3;

struct Row {
    target: &'static str,
    listing: Duration,
    run: Duration,
    one: Duration,
}

/// The shortest of `n` timed runs of `f`, which checks each run's output.
fn best(n: usize, mut f: impl FnMut() -> Output, check: impl Fn(&Output)) -> Duration {
    (0..n)
        .map(|_| {
            let start = Instant::now();
            let out = f();
            let took = start.elapsed();
            check(&out);
            took
        })
        .min()
        .unwrap()
}

fn measure(f: &Fixture, target: &'static str, one: &str) -> Row {
    let listing = best(
        LISTINGS,
        || f.run(target, &["--list", "--format", "terse"], &[]),
        |out| {
            assert!(out.status.success(), "{}", text(out));
            let names = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| l.ends_with(": test"))
                .count();
            assert_eq!(names, CELLS, "{target} lists {names} names");
        },
    );
    let run = best(
        RUNS,
        || f.run(target, &["--test-threads", "2"], &[]),
        |out| {
            let t = text(out);
            assert!(out.status.success(), "{}", &t[..2000.min(t.len())]);
            assert!(
                String::from_utf8_lossy(&out.stdout).contains(&format!("{CELLS} passed")),
                "{target} did not pass {CELLS}"
            );
        },
    );
    let one = best(
        LISTINGS,
        || {
            f.run(
                target,
                &[one, "--exact", "--nocapture"],
                &[("NEXTEST_EXECUTION_MODE", "process-per-test")],
            )
        },
        |out| {
            assert!(out.status.success(), "{}", text(out));
            assert!(
                String::from_utf8_lossy(&out.stdout).contains("1 passed"),
                "{}",
                text(out)
            );
        },
    );
    Row {
        target,
        listing,
        run,
        one,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this target without it.
    if !std::env::args().any(|a| a == "--bench") {
        println!("cells: run with `cargo bench --bench cells`");
        return;
    }
    let f = Fixture::new(&["scale", "plain"]);
    let rows = [
        measure(&f, "scale", "a042::c17::run_3"),
        measure(&f, "plain", "t04217"),
    ];

    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    let us = |d: Duration| format!("{:.1} µs", d.as_secs_f64() * 1e6);
    let header = [
        "target (10,000 each)".to_string(),
        format!("listing (best of {LISTINGS})"),
        format!("full run, 2 threads (best of {RUNS})"),
        "per cell".to_string(),
        format!("one cell, own process (best of {LISTINGS})"),
    ];
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            [
                match r.target {
                    "scale" => "mcptest cells (scale)".to_string(),
                    _ => "plain #[test] (plain)".to_string(),
                },
                ms(r.listing),
                ms(r.run),
                us(r.run / CELLS as u32),
                ms(r.one),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            cells
                .iter()
                .map(|row| row[i].chars().count())
                .chain([header[i].chars().count()])
                .max()
                .unwrap()
        })
        .collect();
    let line = |row: &[String]| {
        let padded: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, w))| {
                let pad = w - cell.chars().count();
                if i == 0 {
                    format!("{cell}{}", " ".repeat(pad))
                } else {
                    format!("{}{cell}", " ".repeat(pad))
                }
            })
            .collect();
        println!("| {} |", padded.join(" | "));
    };
    line(&header);
    println!(
        "|{}|",
        widths
            .iter()
            .map(|w| "-".repeat(w + 2))
            .collect::<Vec<_>>()
            .join("|")
    );
    for row in &cells {
        line(row);
    }
}
