//! `mcptest runs`: how many runs a pass rate needs, and what band a run count buys.
//!
//! Both numbers use the worst case of the normal-approximation (Wald) interval, p = 0.5, so
//! they hold whatever pass rate is observed: `N = ceil((z / half_width)^2 * 0.25)` and
//! `half_width = z * sqrt(0.25 / N)`.

use mcptest_core::eval::{try_confidence_band, try_recommend_runs};

/// `mcptest runs`.
#[derive(Debug, clap::Args)]
pub struct RunsArgs {
    /// The widest acceptable half-width of the pass-rate interval, as a fraction (0.05 = ±5
    /// percentage points).
    #[arg(long, value_name = "H", required_unless_present = "runs")]
    pub half_width: Option<f64>,
    /// The confidence level, strictly between 0 and 1 (0.90, 0.95 and 0.99 use the usual z).
    #[arg(long, value_name = "C", default_value_t = 0.95)]
    pub confidence: f64,
    /// Print the worst-case band that this many runs buy instead.
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
}

/// Runs `mcptest runs`; returns the exit code.
pub fn run(args: &RunsArgs) -> u8 {
    match text(args) {
        Ok(t) => {
            print!("{t}");
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

fn pct(x: f64) -> String {
    format!("{:.2}", x * 100.0)
}

fn text(args: &RunsArgs) -> Result<String, String> {
    let c = args.confidence;
    let conf = format!("{}%", pct(c).trim_end_matches('0').trim_end_matches('.'));
    let mut out = String::new();
    if let Some(h) = args.half_width {
        if h >= 1.0 {
            return Err(format!(
                "--half-width is a fraction of 1: write 0.05 for ±5 percentage points, not {h}"
            ));
        }
        let n = try_recommend_runs(h, c).map_err(|e| e.to_string())?;
        let band = try_confidence_band(n, c).map_err(|e| e.to_string())?;
        out.push_str(&format!(
            "recommended runs: {n} (a pass rate within ±{} points at {conf} confidence, \
             whatever the rate)\nworst-case band with {n} runs: ±{} points\n",
            pct(h),
            pct(band)
        ));
    }
    if let Some(n) = args.runs {
        let band = try_confidence_band(n, c).map_err(|e| e.to_string())?;
        out.push_str(&format!(
            "worst-case band with {n} runs: ±{} points at {conf} confidence\n",
            pct(band)
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documents_figures() {
        let a = RunsArgs {
            half_width: Some(0.05),
            confidence: 0.95,
            runs: None,
        };
        let t = text(&a).unwrap();
        assert!(t.contains("recommended runs: 385"), "{t}");
        assert!(t.contains("at 95% confidence"), "{t}");
        let b = RunsArgs {
            half_width: None,
            confidence: 0.95,
            runs: Some(100),
        };
        assert!(text(&b).unwrap().contains("±9.80 points"));
        let bad = RunsArgs {
            half_width: Some(5.0),
            confidence: 0.95,
            runs: None,
        };
        assert!(text(&bad).unwrap_err().contains("0.05"));
    }
}
