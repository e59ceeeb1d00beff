//! Code generation: the declaration becomes a chain of `mcptest::prelude::Agent` builder
//! calls, so the attribute and the builder cannot disagree; the function is registered with
//! the harness, and an IDE stub gives it a "Run Test" lens.

use crate::messages;
use crate::model::*;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// The user's function, untouched, plus its registration and IDE stub.
pub fn expand(d: &Declared, f: &AgentFn, item: TokenStream) -> TokenStream {
    let ident = &f.ident;
    let name = ident.to_string();
    let chain = chain(d);
    let user = match f.returns {
        Some(span) => {
            quote_spanned!(span=> ::mcptest::__private::AgentReturn::into_agent(#ident()))
        }
        None => quote!(::mcptest::__private::AgentReturn::into_agent(#ident())),
    };
    let misuse = messages::misplaced_test_target();
    quote! {
        #item

        // The harness runs this agent; in a harness = false build rustc drops `#[test]` items,
        // so this stub only gives IDEs their "Run Test" lens on the function.
        #[test]
        #[allow(dead_code, unexpected_cfgs)]
        fn #ident() {
            #[cfg(not(rust_analyzer))]
            ::core::compile_error!(#misuse);
        }

        const _: () = {
            fn __mcptest_declare() -> ::mcptest::__private::Declaration {
                ::mcptest::__private::declare(#chain, #user)
            }
            ::mcptest::__private::inventory::submit! {
                ::mcptest::__private::AgentEntry {
                    module_path: ::core::module_path!(),
                    function: #name,
                    file: ::core::file!(),
                    line: ::core::line!(),
                    declare: __mcptest_declare,
                }
            }
        };
    }
}

fn json(tokens: &TokenStream) -> TokenStream {
    quote!(::mcptest::__private::serde_json::json!(#tokens))
}

fn float(v: f64) -> TokenStream {
    let lit = Literal::f64_unsuffixed(v.abs());
    if v < 0.0 { quote!(-#lit) } else { quote!(#lit) }
}

/// `Agent::new().cassettes(..).runs(..)...` for everything the attribute declares.
fn chain(d: &Declared) -> TokenStream {
    let p = quote!(::mcptest::prelude);
    let mut out = quote!(#p::Agent::new());
    if let Some((globs, _)) = &d.cassettes {
        out.extend(quote!(.cassettes([#(#globs),*])));
    }
    if let Some((n, _)) = d.runs {
        out.extend(quote!(.runs(#n)));
    }
    if let Some(b) = d.snapshots {
        out.extend(quote!(.snapshots(#b)));
    }
    if let Some(t) = &d.trajectory {
        let mode = format_ident!("{}", t.mode);
        let calls = t.calls.iter().map(|c| {
            let tool = &c.tool;
            let shape = match &c.shape {
                Shape::Any => quote!(),
                Shape::Ignore => quote!(.args_ignore()),
                Shape::Exact(v) => {
                    let v = json(v);
                    quote!(.args_exact(#v))
                }
                Shape::Subset(v) => {
                    let v = json(v);
                    quote!(.args_subset(#v))
                }
                Shape::Schema(v) => {
                    let v = json(v);
                    quote!(.args_schema(#v))
                }
            };
            quote!(#p::call(#tool) #shape)
        });
        out.extend(quote!(.trajectory(#p::Trajectory::#mode([#(#calls),*]))));
    }
    if let Some(g) = &d.golden_path {
        let tools = &g.tools;
        let mut path = quote!(#p::GoldenPath::new([#(#tools),*]));
        for (flag, value) in &g.flags {
            let flag = format_ident!("{}", flag);
            path = quote!(#p::GoldenPathExt::#flag(#path, #value));
        }
        out.extend(quote!(.golden_path(#path)));
    }
    if let Some(a) = &d.axes {
        let mut axes = quote!(#p::Axes::default());
        for (x, y) in &a.dependencies {
            axes.extend(quote!(.dependency(#x, #y)));
        }
        for (x, y) in &a.order {
            axes.extend(quote!(.order(#x, #y)));
        }
        out.extend(quote!(.axes(#axes)));
    }
    if let Some(g) = &d.stability {
        let calls = g.comparisons.iter().map(|c| comparison("stability", c));
        out.extend(quote!(.stability(#p::Stability::default() #(#calls)*)));
    }
    if let Some(n) = &d.narrative {
        let mut gate = quote!(#p::Narrative::default());
        if !n.mutating_tools.is_empty() {
            let t = &n.mutating_tools;
            gate.extend(quote!(.mutating_tools([#(#t),*])));
        }
        if !n.readonly_tools.is_empty() {
            let t = &n.readonly_tools;
            gate.extend(quote!(.readonly_tools([#(#t),*])));
        }
        if let Some(v) = &n.max_divergence_score {
            let v = float(v.value);
            gate.extend(quote!(.max_divergence_score(#v)));
        }
        if let Some(b) = n.llm_assisted {
            gate.extend(quote!(.llm_assisted(#b)));
        }
        for c in &n.comparisons {
            gate.extend(comparison("narrative", c));
        }
        out.extend(quote!(.narrative(#gate)));
    }
    if let Some(g) = &d.reliability {
        let calls = g.comparisons.iter().map(|c| comparison("reliability", c));
        let mut rate = TokenStream::new();
        if let Some(v) = g.pass_rate.min_pass_rate {
            let v = float(v);
            rate.extend(quote!(.min_pass_rate(#v)));
        }
        if let Some(v) = g.pass_rate.confidence {
            let v = float(v);
            rate.extend(quote!(.confidence(#v)));
        }
        if g.pass_rate.inconclusive_fails {
            rate.extend(quote!(.inconclusive_fails()));
        }
        out.extend(quote!(.reliability(#p::Reliability::default() #rate #(#calls)*)));
    }
    if let Some(r) = &d.recovery {
        let ms = r.max_detection_ms;
        let mut budget = quote!(#p::Recovery::new(#ms));
        if let Some(ms) = r.max_recovery_ms {
            budget.extend(quote!(.max_recovery_ms(#ms)));
        }
        if let Some(b) = r.require_clean_timeout {
            budget.extend(quote!(.require_clean_timeout(#b)));
        }
        out.extend(quote!(.recovery(#budget)));
    }
    for f in &d.inject {
        let name = &f.name;
        let mut fault = match f.kind.as_str() {
            "slow" => {
                let ms = f.delay_ms;
                quote!(#p::Fault::slow(#name, #ms))
            }
            "recover_after" => {
                let n = f.failures;
                quote!(#p::Fault::recover_after(#name, #n))
            }
            kind => {
                let kind = format_ident!("{}", kind);
                quote!(#p::Fault::#kind(#name))
            }
        };
        if let Some(t) = &f.tool {
            fault.extend(quote!(.tool(#t)));
        }
        if let Some(s) = &f.server {
            fault.extend(quote!(.server(#s)));
        }
        out.extend(quote!(.inject(#fault)));
    }
    for e in &d.expect {
        let target = &e.target;
        let m = matcher(&e.matcher);
        out.extend(if e.advisory {
            quote!(.advisory(#target, #m))
        } else {
            quote!(.expect(#target, #m))
        });
    }
    out
}

fn matcher(m: &Matcher) -> TokenStream {
    let p = quote!(::mcptest::prelude);
    match m {
        Matcher::Exact(v) => {
            let v = json(v);
            quote!(#p::exact(#v))
        }
        Matcher::Contains(v) => {
            let v = json(v);
            quote!(#p::contains(#v))
        }
        Matcher::Schema(v) => {
            let v = json(v);
            quote!(#p::schema(#v))
        }
        Matcher::Regex(r) => quote!(#p::regex(#r)),
        Matcher::Not(m) => {
            let m = matcher(m);
            quote!(#p::not(#m))
        }
        Matcher::All(ms) => {
            let ms = ms.iter().map(matcher);
            quote!(#p::all([#(#ms),*]))
        }
        Matcher::Any(ms) => {
            let ms = ms.iter().map(matcher);
            quote!(#p::any([#(#ms),*]))
        }
        Matcher::ModelGraded(key, config) => {
            let config = json(config);
            quote!(::mcptest::__private::model_graded(#key, #config))
        }
    }
}

/// The builder method a comparison maps to: a named bound when there is one (so the attribute
/// and the builder build the same assertion), else a general assertion on the metric.
fn comparison(gate: &str, c: &Comparison) -> TokenStream {
    let float_method = match (gate, c.metric.as_str(), c.op) {
        ("stability", "score", Op::Ge) => Some("min_score"),
        ("stability", "weakest_score", Op::Ge) => Some("min_weakest_score"),
        ("stability", "variance", Op::Le) => Some("max_variance"),
        ("stability", "tool_sequence_similarity", Op::Ge) => Some("min_similarity"),
        ("stability", "argument_consistency", Op::Ge) => Some("min_argument_consistency"),
        _ => None,
    };
    if let Some(m) = float_method {
        let m = format_ident!("{}", m);
        let v = float(c.value.value);
        return quote!(.#m(#v));
    }
    if (gate, c.metric.as_str(), c.op) == ("stability", "early_divergence", Op::Eq)
        && c.value.value == 0.0
    {
        return quote!(.no_early_divergence());
    }
    let count_method = match (gate, c.metric.as_str(), c.op) {
        ("narrative", "claimed_but_absent", Op::Le) => Some("max_claimed_but_absent"),
        ("narrative", "present_but_unclaimed", Op::Le) => Some("max_present_but_unclaimed"),
        ("narrative", "arg_mismatch", Op::Le) => Some("max_arg_mismatch"),
        ("reliability", "pass_at_k", Op::Ge) => Some("min_pass_at_k"),
        ("reliability", "passhat_k", Op::Ge) => Some("min_passhat_k"),
        ("reliability", "graceful_degradation", Op::Ge) => Some("min_graceful_degradation"),
        ("reliability", "variance_amplification", Op::Le) => Some("max_variance_amplification"),
        _ => None,
    };
    if let (Some(m), true) = (
        count_method,
        c.value.value >= 0.0 && c.value.value <= f64::from(u32::MAX),
    ) {
        let m = format_ident!("{}", m);
        let v = Literal::u32_unsuffixed(c.value.value as u32);
        return quote!(.#m(#v));
    }
    let p = quote!(::mcptest::prelude);
    let target = format!("{gate}.{}", c.metric);
    let v = &c.value.tokens;
    let bound = |key: &str| {
        let j = json(&quote!({ #key: #v }));
        quote!(#p::schema(#j))
    };
    let m = match c.op {
        Op::Ge => bound("minimum"),
        Op::Le => bound("maximum"),
        Op::Gt => bound("exclusiveMinimum"),
        Op::Lt => bound("exclusiveMaximum"),
        Op::Eq => {
            let j = json(v);
            quote!(#p::exact(#j))
        }
        Op::Ne => {
            let j = json(v);
            quote!(#p::not(#p::exact(#j)))
        }
    };
    quote!(.expect(#target, #m))
}
