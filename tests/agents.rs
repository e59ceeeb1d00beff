//! The example agents: three realistic agents over recorded cassettes, graded with no model in
//! the loop. Run them with `cargo test --test agents`; each cassette run is one test cell
//! (`weather::sacramento::claude-sonnet-4-5::run_1`, ...), and each cell's report is a
//! snapshot in `tests/snapshots/`.

use mcptest::prelude::*;

mod weather {
    /// "What is the weather in Sacramento?": one lookup in the right city, with the same
    /// arguments in every run. Run 3 also asks for the forecast, which the golden path
    /// tolerates and the tool-sequence similarity across runs allows.
    #[mcptest::agent(
        cassettes = "tests/cassettes/weather/*.json",
        runs = 3,
        trajectory(subsequence, [get_weather(subset = {"city": "Sacramento"})]),
        golden_path([get_weather], allow_extra_steps),
        stability(tool_sequence_similarity >= 0.6, argument_consistency >= 0.9),
        expect("tool_results[0].is_error", exact(false)),
        expect("tool_calls[0].args.units", exact("imperial")),
    )]
    fn sacramento() {}
}

mod triage {
    use super::*;

    /// "Triage the CI flake issue": read the issue, label it, and never claim a write the
    /// trace does not show (the narrative gate). The attribute names the cassettes; the
    /// builder declares the rest.
    #[mcptest::agent(
        cassettes = "tests/cassettes/triage/*.json",
        runs = 2,
        reliability(passhat_k >= 100),
    )]
    fn flaky_ci_issue() -> Agent {
        Agent::new()
            .trajectory(Trajectory::superset([
                call("get_issue").args_subset(json!({"repo": "acme/widgets", "issue": 412})),
                call("add_label").args_exact(json!({
                    "repo": "acme/widgets", "issue": 412, "label": "flaky-test"
                })),
            ]))
            .axes(Axes::default().order("get_issue", "add_label"))
            .narrative(
                Narrative::default()
                    .mutating_tools(["add_label", "create_comment"])
                    .max_claimed_but_absent(0),
            )
            .expect("tool_calls[*].name", not(contains(json!(["close_issue"]))))
    }
}

mod docs {
    /// "Find what the async book says about pinning": search, open the chapter, summarize it.
    /// Run 2 takes a detour through `std::pin` first; the golden path tolerates one detour
    /// (penalty at least 0.3) and the data still flows search -> open -> summarize.
    #[mcptest::agent(
        cassettes = "tests/cassettes/docs-research/*.json",
        runs = 3,
        trajectory(subsequence, [
            search(schema = {
                "type": "object",
                "required": ["q"],
                "properties": {"q": {"type": "string", "pattern": "pinning"}}
            }),
            open(subset = {"url": "https://rust-lang.github.io/async-book/04_pinning/01_chapter.html"}),
            summarize,
        ]),
        golden_path([search, open, summarize]),
        axes(dependencies = [search -> open, open -> summarize]),
        expect("golden_path.penalty", schema({"minimum": 0.3})),
        stability(tool_sequence_similarity >= 0.7),
        reliability(passhat_k >= 100),
    )]
    fn pinning_chapter() {}
}

mod rates {
    use super::*;

    /// Three passing runs cannot show a 90% pass rate: the reliability cell is inconclusive
    /// (it passes, as `inconclusive: fail` is not asked for), and its snapshot says how many
    /// runs would decide it.
    #[mcptest::agent(cassettes = "tests/cassettes/weather/*.json", runs = 3)]
    fn weather_pass_rate() -> Agent {
        Agent::new()
            .trajectory(Trajectory::subsequence([call("get_weather")]))
            .reliability(Reliability::default().min_pass_rate(0.9).confidence(0.95))
    }

    /// The same gate written in the attribute, with `inconclusive = fail` left out so the
    /// cell passes: a floor of 0.4 is met by three passes out of three (lower bound 0.438).
    #[mcptest::agent(
        cassettes = "tests/cassettes/weather/*.json",
        runs = 3,
        trajectory(subsequence, [get_weather]),
        reliability(min_pass_rate = 0.4, confidence = 0.95),
    )]
    fn weather_low_floor() {}
}

mcptest::main!();
