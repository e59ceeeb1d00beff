//! The `#[mcptest::agent]` attribute. Use it through the `mcptest` crate (`#[mcptest::agent]`):
//! the code it generates names `::mcptest::...` paths, so the facade is the only supported
//! entry point, and its documentation has the runnable examples.
//!
//! The crate is a switchboard: `parse` reads the attribute into a `model` (every mistake
//! recorded with its span, parsing goes on), `check` looks across entries, and `codegen`
//! writes the builder chain, the registration and the IDE stub. Every message lives in
//! `messages`; the rules every front end shares (targets, the gate table, names, the words of
//! shared mistakes) come from the rulebook crate, `mcptest-rules`.
#![forbid(unsafe_code)]

mod check;
mod codegen;
mod messages;
mod model;
mod parse;

use proc_macro::TokenStream;
use quote::quote;

/// Declares an agent: its cassettes and its gates. The harness behind `mcptest::main!()`
/// turns it into one test cell per cassette run (plus `stability` and `reliability` cells).
///
/// ```text
/// #[mcptest::agent(
///     cassettes = "tests/cassettes/search/*.json",       // or ["a/*.json", "b.json"]
///     runs = 3,                                           // cells run_1 ..= run_3
///     snapshots = false,                                  // default true
///     trajectory(subsequence, [search(subset = {"q": "rust"}), open, summarize(ignore)]),
///                                   // modes: strict exact_sequence subsequence unordered superset subset
///                                   // shapes: any ignore exact = J subset = J schema = J
///     golden_path([search, open, summarize], allow_extra_steps, penalize_backtracking = false),
///     axes(dependencies = [search -> open], order = [login -> search]),
///     stability(score >= 0.7, weakest_score >= 0.5, variance <= 0.05,
///               tool_sequence_similarity >= 0.8, argument_consistency >= 0.9, early_divergence == 0),
///     narrative(mutating_tools = [run_job], readonly_tools = [post_search],
///               max_divergence_score = 0.25, claimed_but_absent <= 0),
///     reliability(passhat_k >= 100),
///     inject(name = "hung-search", kind = hang, tool = search),
///     recovery(max_detection_ms = 3000, max_recovery_ms = 5000, require_clean_timeout),
///     expect("tool_results[0].is_error", exact(false)),
///     expect("tool_calls[*].name", not(contains(["delete_repo"]))),
///     expect("final_response", regex("71"), advisory),
/// )]
/// fn search_agent() {}
/// ```
///
/// Bare `stability`, `narrative` and `reliability` apply their default gates. Comparisons
/// take `>=`, `<=`, `>`, `<`, `==`, `!=`; matchers are `exact`, `contains`, `schema`, `regex`,
/// `not`, `all`, `any`. JSON is written as JSON and checked at compile time.
///
/// The function either has an empty body, or returns `mcptest::prelude::Agent` to declare
/// more with the builder (the two are merged; a gate declared in both is an error).
#[proc_macro_attribute]
pub fn agent(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(args.into(), item.into()).into()
}

fn expand(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let mut errors = parse::cursor::Errors::default();
    let agent_fn = parse::agent_fn(item.clone(), &mut errors);
    let declared = parse::attribute(args, &mut errors);
    if let Some(f) = &agent_fn {
        check::declaration(&declared, f, &mut errors);
    }
    match (agent_fn, errors.into_error()) {
        (Some(f), None) => codegen::expand(&declared, &f, item),
        (_, Some(e)) => {
            let e = e.to_compile_error();
            quote!(#e #[allow(dead_code)] #item)
        }
        (None, None) => {
            let e = syn::Error::new(
                proc_macro2::Span::call_site(),
                messages::not_on_a_function(),
            )
            .to_compile_error();
            quote!(#e #item)
        }
    }
}

#[cfg(test)]
mod corpus {
    //! The shared mistake corpus (`tests/mistakes/corpus.json` at the workspace root), through
    //! the attribute: every case it can express is a compile error in the rulebook's words.

    use proc_macro2::{TokenStream, TokenTree};

    /// Every string literal inside a `compile_error!` of `out`.
    fn compile_errors(out: TokenStream) -> Vec<String> {
        let mut found = Vec::new();
        let mut tokens = out.into_iter().peekable();
        while let Some(t) = tokens.next() {
            match t {
                TokenTree::Ident(i) if i == "compile_error" => {
                    tokens.next(); // `!`
                    if let Some(TokenTree::Group(g)) = tokens.next() {
                        for inner in g.stream() {
                            if let TokenTree::Literal(l) = inner
                                && let Ok(s) = syn::parse_str::<syn::LitStr>(&l.to_string())
                            {
                                found.push(s.value());
                            }
                        }
                    }
                }
                TokenTree::Group(g) => found.extend(compile_errors(g.stream())),
                _ => {}
            }
        }
        found
    }

    #[test]
    fn every_mistake_the_attribute_can_write_is_a_compile_error_in_the_rulebooks_words() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mistakes/corpus.json");
        let text = std::fs::read_to_string(path).expect("the mistake corpus");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("the corpus is JSON");
        let mut failures = Vec::new();
        let mut checked = 0;
        for case in doc["cases"].as_array().expect("cases") {
            let id = case["id"].as_str().unwrap();
            let words = case["words"].as_str().unwrap();
            let Some(attribute) = case["attribute"].as_str() else {
                assert!(
                    case["attribute_cannot"]
                        .as_str()
                        .is_some_and(|r| !r.is_empty()),
                    "{id}: no attribute form and no reason why"
                );
                continue;
            };
            let args: TokenStream =
                format!("cassettes = \"tests/cassettes/a/*.json\", {attribute}")
                    .parse()
                    .unwrap_or_else(|e| panic!("{id}: {e}"));
            let item: TokenStream = "fn agent() {}".parse().unwrap();
            let errors = compile_errors(super::expand(args, item));
            checked += 1;
            if !errors.iter().any(|e| e.contains(words)) {
                failures.push(format!(
                    "{id}: no compile error says {words:?}; got {errors:#?}"
                ));
            }
        }
        assert!(checked >= 15, "only {checked} cases");
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}
