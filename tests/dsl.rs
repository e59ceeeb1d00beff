//! The attribute and the builder declare the same agents: each agent below is declared twice,
//! once with `#[mcptest::agent(...)]` and once with the builder, and the two specs must be
//! equal. Also: how the attribute and the returned builder combine.

use libtest_mimic::{Arguments, Failed, Trial};
use mcptest::core::spec::AgentSpec;
use mcptest::prelude::*;

#[mcptest::agent(
    cassettes = ["tests/cassettes/weather/*.json", "tests/cassettes/extra.json"],
    runs = 3,
    snapshots = false,
    trajectory(subsequence, [
        get_weather(subset = {"city": "Sacramento", "units": ["imperial", null, -1, 2.5, true]}),
        "get-forecast"(exact = {"days": 1}),
        search(schema = {"type": "object", "required": ["q"]}),
        open(ignore),
        summarize(any),
        login,
    ]),
    golden_path([get_weather, "get-forecast"], allow_extra_steps, penalize_backtracking = false,
                penalize_repeated_tools = false),
    axes(dependencies = [search -> open, open -> summarize], order = [login -> search]),
    stability(score >= 0.7, weakest_score >= 0.5, variance <= 0.05, tool_sequence_similarity >= 0.8,
              argument_consistency >= 0.9, early_divergence == 0, score > 0.1, variance < 1,
              weakest_score != 0, argument_consistency >= 1),
    narrative(mutating_tools = [run_job, "create-issue"], readonly_tools = [post_search],
              max_divergence_score = 0.25, llm_assisted, claimed_but_absent <= 0,
              present_but_unclaimed <= 2, arg_mismatch <= 1, divergence_score <= 0.5, gate_passed == 1),
    reliability(pass_at_k >= 100, passhat_k >= 60, graceful_degradation >= 50,
                variance_amplification <= 40, runs == 3),
    inject(name = "hung-search", kind = hang, tool = search, server = "docs"),
    inject(name = "slow-open", kind = slow, tool = "open", delay_ms = 4000),
    inject(name = "flaky", kind = recover_after, server = docs, failures = 2),
    inject(name = "stuck", kind = wedged),
    recovery(max_detection_ms = 3000, max_recovery_ms = 5000, require_clean_timeout),
    expect("tool_results[0].is_error", exact(false)),
    expect("tool_calls[*].name", not(contains(["delete_repo"]))),
    expect("tool_calls[0].args", all(schema({"type": "object"}), any(contains({"city": "Sacramento"}), regex("^x")))),
    expect("golden_path.penalty", schema({"minimum": 0.5})),
    expect("final_response", regex("71"), advisory),
    expect("final_response", llm_judge({"rubric": "states the temperature"}), advisory),
)]
fn everything() {}

fn everything_by_builder() -> Agent {
    Agent::new()
        .cassettes([
            "tests/cassettes/weather/*.json",
            "tests/cassettes/extra.json",
        ])
        .runs(3)
        .snapshots(false)
        .trajectory(Trajectory::subsequence([
            call("get_weather").args_subset(
                json!({"city": "Sacramento", "units": ["imperial", null, -1, 2.5, true]}),
            ),
            call("get-forecast").args_exact(json!({"days": 1})),
            call("search").args_schema(json!({"type": "object", "required": ["q"]})),
            call("open").args_ignore(),
            call("summarize"),
            call("login"),
        ]))
        .golden_path(
            GoldenPath::new(["get_weather", "get-forecast"])
                .allow_extra_steps(true)
                .penalize_backtracking(false)
                .penalize_repeated_tools(false),
        )
        .axes(
            Axes::default()
                .dependency("search", "open")
                .dependency("open", "summarize")
                .order("login", "search"),
        )
        .stability(
            Stability::default()
                .min_score(0.7)
                .min_weakest_score(0.5)
                .max_variance(0.05)
                .min_similarity(0.8)
                .min_argument_consistency(0.9)
                .no_early_divergence()
                .expect("stability.score", schema(json!({"exclusiveMinimum": 0.1})))
                .expect("stability.variance", schema(json!({"exclusiveMaximum": 1})))
                .expect("stability.weakest_score", not(exact(0)))
                .min_argument_consistency(1.0),
        )
        .narrative(
            Narrative::default()
                .mutating_tools(["run_job", "create-issue"])
                .readonly_tools(["post_search"])
                .max_divergence_score(0.25)
                .llm_assisted(true)
                .max_claimed_but_absent(0)
                .max_present_but_unclaimed(2)
                .max_arg_mismatch(1)
                .expect(
                    "narrative.divergence_score",
                    schema(json!({"maximum": 0.5})),
                )
                .expect("narrative.gate_passed", exact(1)),
        )
        .reliability(
            Reliability::default()
                .min_pass_at_k(100)
                .min_passhat_k(60)
                .min_graceful_degradation(50)
                .max_variance_amplification(40)
                .expect("reliability.runs", exact(3)),
        )
        .inject(Fault::hang("hung-search").tool("search").server("docs"))
        .inject(Fault::slow("slow-open", 4000).tool("open"))
        .inject(Fault::recover_after("flaky", 2).server("docs"))
        .inject(Fault::wedged("stuck"))
        .recovery(
            Recovery::new(3000)
                .max_recovery_ms(5000)
                .require_clean_timeout(true),
        )
        .expect("tool_results[0].is_error", exact(false))
        .expect("tool_calls[*].name", not(contains(json!(["delete_repo"]))))
        .expect(
            "tool_calls[0].args",
            all([
                schema(json!({"type": "object"})),
                any([contains(json!({"city": "Sacramento"})), regex("^x")]),
            ]),
        )
        .expect("golden_path.penalty", schema(json!({"minimum": 0.5})))
        .advisory("final_response", regex("71"))
        .advisory(
            "final_response",
            Matcher::ModelGraded {
                kind: mcptest::core::matchers::ModelGradedKind::LlmJudge,
                config: json!({"rubric": "states the temperature"}),
            },
        )
}

#[mcptest::agent(cassettes = "a/*.json", trajectory(strict, [a, b]))]
fn mode_strict() {}
#[mcptest::agent(cassettes = "a/*.json", trajectory(exact_sequence, [a, b]))]
fn mode_exact_sequence() {}
#[mcptest::agent(cassettes = "a/*.json", trajectory(unordered, [a, b]))]
fn mode_unordered() {}
#[mcptest::agent(cassettes = "a/*.json", trajectory(superset, [a, b]))]
fn mode_superset() {}
#[mcptest::agent(cassettes = "a/*.json", trajectory(subset, [a, b]))]
fn mode_subset() {}

fn mode(t: fn(Vec<Call>) -> Trajectory) -> Agent {
    Agent::new()
        .cassettes(["a/*.json"])
        .trajectory(t(vec![call("a"), call("b")]))
}

/// Bare gates apply their defaults; the builder's empty gates do the same.
#[mcptest::agent(cassettes = "a/*.json", runs = 2, stability, narrative, reliability, golden_path([a]))]
fn defaults() {}

fn defaults_by_builder() -> Agent {
    Agent::new()
        .cassettes(["a/*.json"])
        .runs(2)
        .golden_path(["a"])
        .stability(Stability::default())
        .narrative(Narrative::default())
        .reliability(Reliability::default())
}

/// The attribute names the cassettes and runs; the returned builder adds the rest.
#[mcptest::agent(cassettes = "tests/cassettes/triage/*.json", runs = 2, reliability(passhat_k >= 100))]
fn combined() -> Agent {
    Agent::new()
        .trajectory(Trajectory::superset([call("add_label")]))
        .stability(Stability::default())
        .expect("tool_calls[0].name", exact("search_issues"))
}

fn combined_by_builder() -> Agent {
    Agent::new()
        .cassettes(["tests/cassettes/triage/*.json"])
        .runs(2)
        .reliability(Reliability::default().min_passhat_k(100))
        .trajectory(Trajectory::superset([call("add_label")]))
        .stability(Stability::default())
        .expect("tool_calls[0].name", exact("search_issues"))
}

/// A gate declared in both places is refused when the harness reads the declaration.
#[mcptest::agent(cassettes = "a/*.json", trajectory(strict, [a]))]
fn declared_twice() -> Agent {
    Agent::new().trajectory(Trajectory::strict([call("b")]))
}

/// A malformed pattern or schema in the attribute compiles (the attribute does not compile
/// them) and is refused when the harness reads the declaration, in the rulebook's words (the
/// corpus's `malformed-regex` and `malformed-schema`).
#[mcptest::agent(
    cassettes = "a/*.json",
    expect("tool_calls[0].name", regex("(")),
    expect("tool_calls[0].args", schema({"type": 5})),
)]
fn attribute_malformed() {}

/// What only the builder can get wrong is refused when the harness reads the declaration.
#[mcptest::agent(cassettes = "a/*.json")]
fn builder_mistakes() -> Agent {
    Agent::new()
        .stability(Stability::default().expect("stability.varianse", exact(0)))
        .expect("final_response", contains("done"))
        .expect("tool_calls[0", exact(1))
}

fn declared(function: &str) -> Result<AgentSpec, Vec<String>> {
    let entry = mcptest::__private::registered()
        .into_iter()
        .find(|e| e.function == function)
        .ok_or_else(|| vec![format!("no agent `{function}` is registered")])?;
    (entry.declare)()
}

fn same(function: &'static str, builder: fn() -> Agent) -> Trial {
    Trial::test(format!("attribute_equals_builder::{function}"), move || {
        let by_attribute = declared(function).map_err(|e| format!("{e:#?}"))?;
        let by_builder = builder().into_spec("").map_err(|e| e.to_string())?;
        if by_attribute == by_builder {
            Ok(())
        } else {
            Err(Failed::from(format!(
                "attribute:\n{by_attribute:#?}\nbuilder:\n{by_builder:#?}"
            )))
        }
    })
}

fn refused(function: &'static str, expected: &'static [&'static str]) -> Trial {
    Trial::test(format!("declaration_refused::{function}"), move || {
        let problems = match declared(function) {
            Ok(spec) => return Err(format!("accepted: {spec:#?}").into()),
            Err(p) => p.join("\n"),
        };
        for e in expected {
            if !problems.contains(e) {
                return Err(format!("missing `{e}` in:\n{problems}").into());
            }
        }
        Ok(())
    })
}

fn main() -> std::process::ExitCode {
    let trials = vec![
        same("everything", everything_by_builder),
        same("mode_strict", || mode(Trajectory::strict)),
        same("mode_exact_sequence", || mode(Trajectory::strict)),
        same("mode_unordered", || mode(Trajectory::unordered)),
        same("mode_superset", || mode(Trajectory::superset)),
        same("mode_subset", || mode(Trajectory::subset)),
        same("defaults", defaults_by_builder),
        same("combined", combined_by_builder),
        refused(
            "declared_twice",
            &["`trajectory` is declared both in #[mcptest::agent(...)] and in the returned Agent"],
        ),
        refused(
            "attribute_malformed",
            &["malformed regex", "malformed JSON Schema"],
        ),
        refused(
            "builder_mistakes",
            &[
                "`stability.varianse`: the stability report has no `varianse`; did you mean `stability.variance`?",
                "target `final_response` reads the model's narration",
                "bad target `tool_calls[0`",
                "a stability gate needs a sample",
            ],
        ),
        Trial::test("registration::names_and_places", || {
            let entry = mcptest::__private::registered()
                .into_iter()
                .find(|e| e.function == "combined")
                .ok_or("`combined` is not registered")?;
            if entry.name() != "combined"
                || entry.module_path != "dsl"
                || entry.file != "tests/dsl.rs"
            {
                return Err(format!("{entry:?}").into());
            }
            Ok(())
        }),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}
