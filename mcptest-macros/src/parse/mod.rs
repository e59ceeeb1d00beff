//! Parsing: the attribute's arguments into [`Declared`], the item into [`AgentFn`]. Every
//! mistake is recorded with its span and parsing goes on, so one compile shows them all.

pub mod cursor;
mod item;
pub mod json;
mod matcher;
pub mod target;

pub use item::agent_fn;

use crate::messages::{self, unknown};
use mcptest_rules::gates::{self, MetricKind};
use mcptest_rules::mistakes::{self, Front, Mistake};
use mcptest_rules::names;

use crate::model::*;
use cursor::{Cursor, Errors, boolean, integer, split, string, tool};
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};

/// Parses the attribute's arguments.
pub fn attribute(args: TokenStream, errors: &mut Errors) -> Declared {
    let mut d = Declared::default();
    for entry in split(args) {
        let mut c = Cursor::new(entry, Span::call_site());
        let span = c.span();
        let Some(key) = c.ident() else {
            errors.at(span, unknown("key", &c.rest_span_text(), messages::KEYS));
            continue;
        };
        parse_entry(&key, &mut c, &mut d, errors);
    }
    d
}

fn once<T>(slot: &Option<T>, key: &Ident, errors: &mut Errors) -> bool {
    if slot.is_some() {
        errors.at(key.span(), messages::declared_twice(&key.to_string()));
        false
    } else {
        true
    }
}

fn parse_entry(key: &Ident, c: &mut Cursor, d: &mut Declared, errors: &mut Errors) {
    let name = key.to_string();
    match name.as_str() {
        "cassettes" => {
            if !once(&d.cassettes, key, errors) {
                return;
            }
            d.cassettes_written = true;
            let example = "cassettes = \"tests/cassettes/weather/*.json\"";
            if !c.eat_eq() {
                return errors.at(c.span(), messages::expected_eq(&name, example));
            }
            let span = c.span();
            let globs = match c.next() {
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket => {
                    let mut out = Vec::new();
                    for item in split(g.stream()) {
                        let mut ic = Cursor::new(item, g.span_close());
                        let s = ic.span();
                        match (ic.next().as_ref().and_then(string), ic.is_empty()) {
                            (Some(v), true) => out.push(v),
                            _ => errors.at(s, messages::wrong_type(&name, "glob strings", example)),
                        }
                    }
                    out
                }
                Some(t) => match string(&t) {
                    Some(v) => vec![v],
                    None => {
                        return errors.at(
                            span,
                            messages::wrong_type(&name, "a glob string or a list of them", example),
                        );
                    }
                },
                None => return errors.at(span, messages::expected_eq(&name, example)),
            };
            if end(c, errors, &name) {
                d.cassettes = Some((globs, key.span()));
            }
        }
        "runs" => {
            if !once(&d.runs, key, errors) {
                return;
            }
            if !c.eat_eq() {
                return errors.at(c.span(), messages::expected_eq(&name, "runs = 5"));
            }
            let span = c.span();
            match c.next().as_ref().and_then(integer::<u32>) {
                Some(0) => errors.at(span, mistakes::runs_zero()),
                Some(n) => {
                    if end(c, errors, &name) {
                        d.runs = Some((n, span));
                    }
                }
                None => errors.at(
                    span,
                    messages::wrong_type(&name, "a whole number", "runs = 5"),
                ),
            }
        }
        "snapshots" => {
            if !once(&d.snapshots, key, errors) {
                return;
            }
            if !c.eat_eq() {
                return errors.at(c.span(), messages::expected_eq(&name, "snapshots = false"));
            }
            let span = c.span();
            match c.next().as_ref().and_then(boolean) {
                Some(b) => {
                    if end(c, errors, &name) {
                        d.snapshots = Some(b);
                    }
                }
                None => errors.at(
                    span,
                    messages::wrong_type(&name, "`true` or `false`", "snapshots = false"),
                ),
            }
        }
        "trajectory" => {
            if !once(&d.trajectory, key, errors) {
                return;
            }
            let Some(g) = group_of(c, key, "trajectory(subsequence, [search, open])", errors)
            else {
                return;
            };
            if let Some(t) = trajectory(&g, errors) {
                d.trajectory = Some(t);
            }
        }
        "golden_path" => {
            if !once(&d.golden_path, key, errors) {
                return;
            }
            let Some(g) = group_of(c, key, "golden_path([search, open, summarize])", errors) else {
                return;
            };
            if let Some(gp) = golden_path(&g, errors) {
                d.golden_path = Some(gp);
            }
        }
        "axes" | "trajectory_axes" => {
            if !once(&d.axes, key, errors) {
                return;
            }
            let example = "axes(dependencies = [search -> open], order = [login -> search])";
            let Some(g) = group_of(c, key, example, errors) else {
                return;
            };
            if let Some(a) = axes(&g, errors) {
                d.axes = Some(a);
            }
        }
        "stability" | "reliability" => {
            let slot = if name == "stability" {
                &d.stability
            } else {
                &d.reliability
            };
            if !once(slot, key, errors) {
                return;
            }
            let example = if name == "stability" {
                "weakest_score >= 0.5"
            } else {
                "passhat_k >= 100"
            };
            let table = gates::gate(&name).expect("stability and reliability are gates");
            let mut comparisons = Vec::new();
            let mut pass_rate = PassRate::default();
            let settings: &[&str] = if name == "reliability" {
                messages::PASS_RATE_KEYS
            } else {
                &[]
            };
            if !c.is_empty() {
                let Some(g) = group_of(c, key, &format!("{name}({example})"), errors) else {
                    return;
                };
                for item in split(g.stream()) {
                    let mut ic = Cursor::new(item, g.span_close());
                    let is_setting = matches!(ic.peek(), Some(TokenTree::Ident(i)) if settings.contains(&i.to_string().as_str()));
                    if is_setting {
                        pass_rate_item(&mut ic, &mut pass_rate, errors);
                    } else if let Some(cmp) = comparison(&mut ic, table, settings, example, errors)
                    {
                        comparisons.push(cmp);
                    }
                }
            }
            if pass_rate.min_pass_rate.is_none()
                && (pass_rate.confidence.is_some() || pass_rate.inconclusive_fails)
            {
                errors.at(key.span(), mistakes::pass_rate_qualifiers(Front::Attribute));
            }
            let gate = Some(Gate {
                span: key.span(),
                comparisons,
                pass_rate,
            });
            if name == "stability" {
                d.stability = gate;
            } else {
                d.reliability = gate;
            }
        }
        "narrative" => {
            if !once(&d.narrative, key, errors) {
                return;
            }
            let mut n = Narrative {
                mutating_tools: vec![],
                readonly_tools: vec![],
                max_divergence_score: None,
                llm_assisted: None,
                comparisons: vec![],
            };
            if !c.is_empty() {
                let example = "narrative(mutating_tools = [run_job], claimed_but_absent <= 0)";
                let Some(g) = group_of(c, key, example, errors) else {
                    return;
                };
                for item in split(g.stream()) {
                    narrative_item(item, g.span_close(), &mut n, errors);
                }
            }
            d.narrative = Some(n);
        }
        "recovery" => {
            if !once(&d.recovery, key, errors) {
                return;
            }
            let Some(g) = group_of(c, key, "recovery(max_detection_ms = 3000)", errors) else {
                return;
            };
            if let Some(r) = recovery(key.span(), &g, errors) {
                d.recovery = Some(r);
            }
        }
        "inject" => {
            let example = "inject(name = \"hung-search\", kind = hang, tool = \"search\")";
            let Some(g) = group_of(c, key, example, errors) else {
                return;
            };
            if let Some(i) = inject(&g, errors) {
                d.inject.push(i);
            }
        }
        "expect" => {
            let Some(g) = group_of(
                c,
                key,
                "expect(\"tool_results[0].is_error\", exact(false))",
                errors,
            ) else {
                return;
            };
            if let Some(e) = expect(&g, errors) {
                d.expect.push(e);
            }
        }
        _ => errors.at(key.span(), unknown("key", &name, messages::KEYS)),
    }
}

/// Reports tokens left over after an entry's value.
fn end(c: &Cursor, errors: &mut Errors, key: &str) -> bool {
    if c.is_empty() {
        true
    } else {
        errors.at(
            c.rest_span(),
            format!("unexpected tokens after `{key}`'s value: separate entries with `,`"),
        );
        false
    }
}

/// The parenthesized group after `key`, with nothing after it.
fn group_of(c: &mut Cursor, key: &Ident, example: &str, errors: &mut Errors) -> Option<Group> {
    let Some(g) = c.group(Delimiter::Parenthesis) else {
        errors.at(
            if c.is_empty() { key.span() } else { c.span() },
            messages::expected_group(&key.to_string(), example),
        );
        return None;
    };
    end(c, errors, &key.to_string()).then_some(g)
}

fn trajectory(g: &Group, errors: &mut Errors) -> Option<Trajectory> {
    let parts = split(g.stream());
    let mut parts = parts.into_iter();
    let Some(first) = parts.next() else {
        errors.at(g.span(), messages::missing_mode());
        return None;
    };
    let mut mc = Cursor::new(first, g.span_close());
    let span = mc.span();
    let mode = match mc.ident() {
        Some(m) if names::mode(&m.to_string()).is_some() && mc.is_empty() => m.to_string(),
        Some(m) if mc.is_empty() => {
            // The spellings an identifier can take (no `exact-sequence`).
            let words: Vec<&str> = names::MODE_SPELLINGS
                .iter()
                .copied()
                .filter(|w| !w.contains('-'))
                .collect();
            errors.at(span, unknown("match mode", &m.to_string(), &words));
            return None;
        }
        _ => {
            errors.at(span, messages::missing_mode());
            return None;
        }
    };
    let Some(list) = parts.next() else {
        errors.at(g.span_close(), messages::missing_calls());
        return None;
    };
    let mut lc = Cursor::new(list, g.span_close());
    let span = lc.span();
    let Some(calls) = lc.group(Delimiter::Bracket) else {
        errors.at(span, messages::missing_calls());
        return None;
    };
    if !lc.is_empty() {
        errors.at(lc.rest_span(), messages::missing_calls());
    }
    if let Some(extra) = parts.next() {
        let c = Cursor::new(extra, g.span_close());
        errors.at(c.rest_span(), messages::missing_calls());
    }
    let mut out = Vec::new();
    let mut ok = true;
    for item in split(calls.stream()) {
        match call(item, calls.span_close(), errors) {
            Some(c) => out.push(c),
            None => ok = false,
        }
    }
    ok.then_some(Trajectory { mode, calls: out })
}

fn call(item: TokenStream, end: Span, errors: &mut Errors) -> Option<Call> {
    let mut c = Cursor::new(item, end);
    let span = c.span();
    let Some(tool) = c.next().as_ref().and_then(tool) else {
        errors.at(span, messages::tool_name());
        return None;
    };
    let shape = match c.group(Delimiter::Parenthesis) {
        None => Shape::Any,
        Some(g) => shape(&g, errors)?,
    };
    if !c.is_empty() {
        errors.at(
            c.rest_span(),
            "unexpected tokens after a call: write `tool` or `tool(subset = {...})`, separated by `,`",
        );
        return None;
    }
    Some(Call { tool, shape })
}

fn shape(g: &Group, errors: &mut Errors) -> Option<Shape> {
    let mut c = Cursor::new(g.stream(), g.span_close());
    let span = c.span();
    let Some(word) = c.ident() else {
        errors.at(
            span,
            unknown("argument shape", &c.rest_span_text(), names::SHAPES),
        );
        return None;
    };
    let w = word.to_string();
    match w.as_str() {
        "any" | "ignore" => {
            if !c.is_empty() {
                errors.at(c.rest_span(), messages::shape_bare(&w));
                return None;
            }
            Some(if w == "any" {
                Shape::Any
            } else {
                Shape::Ignore
            })
        }
        "exact" | "subset" | "schema" => {
            if !c.eat_eq() {
                errors.at(c.span(), messages::shape_value(&w));
                return None;
            }
            let v = match json::value(&mut c) {
                Ok(v) => v,
                Err(e) => {
                    errors.push(e);
                    return None;
                }
            };
            if !c.is_empty() {
                errors.at(c.rest_span(), messages::json_trailing());
                return None;
            }
            Some(match w.as_str() {
                "exact" => Shape::Exact(v),
                "subset" => Shape::Subset(v),
                _ => Shape::Schema(v),
            })
        }
        _ => {
            errors.at(word.span(), unknown("argument shape", &w, names::SHAPES));
            None
        }
    }
}

fn tool_list(g: &Group, errors: &mut Errors) -> Vec<String> {
    let mut out = Vec::new();
    for item in split(g.stream()) {
        let mut c = Cursor::new(item, g.span_close());
        let span = c.span();
        match (c.next().as_ref().and_then(tool), c.is_empty()) {
            (Some(t), true) => out.push(t),
            _ => errors.at(span, messages::tool_name()),
        }
    }
    out
}

fn golden_path(g: &Group, errors: &mut Errors) -> Option<GoldenPath> {
    let mut parts = split(g.stream()).into_iter();
    let Some(first) = parts.next() else {
        errors.at(g.span(), messages::golden_needs_list());
        return None;
    };
    let mut fc = Cursor::new(first, g.span_close());
    let span = fc.span();
    let Some(list) = fc.group(Delimiter::Bracket).filter(|_| fc.is_empty()) else {
        errors.at(span, messages::golden_needs_list());
        return None;
    };
    let tools = tool_list(&list, errors);
    let mut flags: Vec<(String, bool)> = Vec::new();
    for part in parts {
        let mut c = Cursor::new(part, g.span_close());
        if let Some((word, value)) = flag(&mut c, "golden path flag", names::GOLDEN_FLAGS, errors) {
            if flags.iter().any(|(f, _)| *f == word) {
                errors.at(span, messages::declared_twice(&word));
            }
            flags.push((word, value));
        }
    }
    Some(GoldenPath { tools, flags })
}

/// `flag` or `flag = true|false`, the flag one of `known`.
fn flag(c: &mut Cursor, what: &str, known: &[&str], errors: &mut Errors) -> Option<(String, bool)> {
    let span = c.span();
    let Some(word) = c.ident() else {
        errors.at(span, unknown(what, &c.rest_span_text(), known));
        return None;
    };
    let w = word.to_string();
    if !known.contains(&w.as_str()) {
        errors.at(word.span(), unknown(what, &w, known));
        return None;
    }
    let value = if c.eat_eq() {
        let vs = c.span();
        match c.next().as_ref().and_then(boolean) {
            Some(b) => b,
            None => {
                errors.at(
                    vs,
                    messages::wrong_type(&w, "`true` or `false`", &format!("{w} = false")),
                );
                return None;
            }
        }
    } else {
        true
    };
    if !c.is_empty() {
        errors.at(c.rest_span(), format!("unexpected tokens after `{w}`"));
        return None;
    }
    Some((w, value))
}

fn axes(g: &Group, errors: &mut Errors) -> Option<Axes> {
    let mut out = Axes::default();
    let mut seen: Vec<String> = Vec::new();
    for part in split(g.stream()) {
        let mut c = Cursor::new(part, g.span_close());
        let span = c.span();
        let Some(word) = c.ident() else {
            errors.at(
                span,
                unknown("axes key", &c.rest_span_text(), messages::AXES_KEYS),
            );
            continue;
        };
        let w = word.to_string();
        if !messages::AXES_KEYS.contains(&w.as_str()) {
            errors.at(word.span(), unknown("axes key", &w, messages::AXES_KEYS));
            continue;
        }
        if seen.contains(&w) {
            errors.at(word.span(), messages::declared_twice(&w));
            continue;
        }
        seen.push(w.clone());
        let example = format!("{w} = [search -> open]");
        if !c.eat_eq() {
            errors.at(c.span(), messages::expected_eq(&w, &example));
            continue;
        }
        let ls = c.span();
        let Some(list) = c.group(Delimiter::Bracket) else {
            errors.at(ls, messages::wrong_type(&w, "a list of edges", &example));
            continue;
        };
        end(&c, errors, &w);
        for e in split(list.stream()) {
            let mut ec = Cursor::new(e, list.span_close());
            let es = ec.span();
            let from = ec.next().as_ref().and_then(tool);
            let arrow = ec.eat_pair('-', '>');
            let to = ec.next().as_ref().and_then(tool);
            match (from, arrow, to, ec.is_empty()) {
                (Some(a), true, Some(b), true) => {
                    if w == "dependencies" {
                        out.dependencies.push((a, b));
                    } else {
                        out.order.push((a, b));
                    }
                }
                _ => errors.at(es, messages::edge()),
            }
        }
    }
    Some(out)
}

/// `metric OP number`, the metric one of `metrics` (or of `others`, reported by the caller).
fn comparison(
    c: &mut Cursor,
    table: &gates::Gate,
    settings: &[&str],
    example: &str,
    errors: &mut Errors,
) -> Option<Comparison> {
    let gate = table.key;
    let span = c.span();
    let Some(metric) = c.ident() else {
        errors.at(span, messages::comparison(gate, example));
        return None;
    };
    let m = metric.to_string();
    let Some(found) = table.metric(&m) else {
        // A near miss of a setting (`min_pass_rat`) is worded as one; anything else as the
        // rulebook's unknown metric, the words every front end prints.
        let message = match mcptest_rules::suggest::did_you_mean(&m, settings) {
            Some(_) => unknown(&format!("{gate} setting"), &m, settings),
            None => Mistake::UnknownMetric {
                target: format!("{gate}.{m}"),
                report: table.report.into(),
                metric: m.clone(),
            }
            .message(Front::Attribute),
        };
        errors.at(metric.span(), message);
        return None;
    };
    if found.kind == MetricKind::List {
        errors.at(metric.span(), messages::list_metric(gate, &m));
        return None;
    }
    let op = if c.eat_pair('>', '=') {
        Op::Ge
    } else if c.eat_pair('<', '=') {
        Op::Le
    } else if c.eat_pair('=', '=') {
        Op::Eq
    } else if c.eat_pair('!', '=') {
        Op::Ne
    } else if c.eat_alone('>') {
        Op::Gt
    } else if c.eat_alone('<') {
        Op::Lt
    } else if matches!(c.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '=')
        && matches!(c.peek2(), Some(TokenTree::Punct(p)) if matches!(p.as_char(), '>' | '<'))
    {
        let (written, meant) = match c.peek2() {
            Some(TokenTree::Punct(p)) if p.as_char() == '>' => ("=>", ">="),
            _ => ("=<", "<="),
        };
        errors.at(c.span(), messages::reversed_operator(written, meant));
        return None;
    } else {
        errors.at(c.span(), messages::comparison(gate, example));
        return None;
    };
    let value = number(c, errors)?;
    if !c.is_empty() {
        errors.at(c.rest_span(), messages::comparison(gate, example));
        return None;
    }
    if found.kind == MetricKind::Count && !value.integer {
        errors.at(value_span(&value), messages::integer_metric(gate, &m));
        return None;
    }
    Some(Comparison {
        metric: m,
        op,
        value,
    })
}

fn value_span(n: &Number) -> Span {
    n.tokens
        .clone()
        .into_iter()
        .last()
        .map_or_else(Span::call_site, |t| t.span())
}

/// A number literal, optionally negative.
fn number(c: &mut Cursor, errors: &mut Errors) -> Option<Number> {
    let mark = c.mark();
    let span = c.span();
    let negative = c.eat_alone('-');
    let lit = c.next().as_ref().and_then(cursor::literal);
    let (value, integer) = match lit {
        Some(syn::Lit::Int(i)) if i.suffix().is_empty() => (i.base10_parse::<f64>().ok(), true),
        Some(syn::Lit::Float(f)) if f.suffix().is_empty() => (f.base10_parse::<f64>().ok(), false),
        _ => (None, false),
    };
    let Some(value) = value else {
        errors.at(span, messages::number());
        return None;
    };
    Some(Number {
        value: if negative { -value } else { value },
        integer,
        tokens: c.since(mark),
    })
}

fn narrative_item(item: TokenStream, end_span: Span, n: &mut Narrative, errors: &mut Errors) {
    let mut c = Cursor::new(item, end_span);
    let is_setting = matches!(c.peek(), Some(TokenTree::Ident(i)) if messages::NARRATIVE_KEYS.contains(&i.to_string().as_str()));
    if !is_setting {
        let example = "claimed_but_absent <= 0";
        let table = gates::gate("narrative").expect("narrative is a gate");
        if let Some(cmp) = comparison(&mut c, table, messages::NARRATIVE_KEYS, example, errors) {
            n.comparisons.push(cmp);
        }
        return;
    }
    let Some(word) = c.ident() else { return };
    let w = word.to_string();
    match w.as_str() {
        "mutating_tools" | "readonly_tools" => {
            let example = format!("{w} = [run_job]");
            if !c.eat_eq() {
                return errors.at(c.span(), messages::expected_eq(&w, &example));
            }
            let ls = c.span();
            let Some(list) = c.group(Delimiter::Bracket) else {
                return errors.at(
                    ls,
                    messages::wrong_type(&w, "a list of tool names", &example),
                );
            };
            if !end(&c, errors, &w) {
                return;
            }
            let tools = tool_list(&list, errors);
            if w == "mutating_tools" {
                n.mutating_tools.extend(tools);
            } else {
                n.readonly_tools.extend(tools);
            }
        }
        "max_divergence_score" => {
            if !c.eat_eq() {
                return errors.at(
                    c.span(),
                    messages::expected_eq(&w, "max_divergence_score = 0.25"),
                );
            }
            let Some(v) = number(&mut c, errors) else {
                return;
            };
            if !(0.0..=1.0).contains(&v.value) {
                return errors.at(value_span(&v), mistakes::unit_interval(&w, None));
            }
            if end(&c, errors, &w) {
                n.max_divergence_score = Some(v);
            }
        }
        _ => {
            let mut fc = Cursor::new(
                std::iter::once(TokenTree::Ident(word))
                    .chain(rest(&mut c))
                    .collect(),
                end_span,
            );
            if let Some((_, v)) = flag(&mut fc, "narrative setting", &["llm_assisted"], errors) {
                n.llm_assisted = Some(v);
            }
        }
    }
}

/// `min_pass_rate = 0.9`, `confidence = 0.95` or `inconclusive = fail` in `reliability(..)`.
fn pass_rate_item(c: &mut Cursor, p: &mut PassRate, errors: &mut Errors) {
    let Some(word) = c.ident() else { return };
    let w = word.to_string();
    let example = match w.as_str() {
        "min_pass_rate" => "min_pass_rate = 0.9",
        "confidence" => "confidence = 0.95",
        _ => "inconclusive = fail",
    };
    if !c.eat_eq() {
        return errors.at(c.span(), messages::expected_eq(&w, example));
    }
    if w == "inconclusive" {
        let span = c.span();
        let Some(v) = c.ident() else {
            return errors.at(span, messages::wrong_type(&w, "`fail` or `pass`", example));
        };
        match v.to_string().as_str() {
            "fail" => p.inconclusive_fails = true,
            "pass" => p.inconclusive_fails = false,
            other => {
                return errors.at(
                    v.span(),
                    unknown("`inconclusive` value", other, &["fail", "pass"]),
                );
            }
        }
        end(c, errors, &w);
        return;
    }
    let Some(v) = number(c, errors) else {
        return;
    };
    let ok = if w == "confidence" {
        v.value > 0.0 && v.value < 1.0
    } else {
        (0.0..=1.0).contains(&v.value)
    };
    if !ok {
        let what = if w == "confidence" {
            mistakes::confidence(None)
        } else {
            mistakes::pass_rate(None)
        };
        return errors.at(value_span(&v), what);
    }
    if end(c, errors, &w) {
        if w == "confidence" {
            p.confidence = Some(v.value);
        } else {
            p.min_pass_rate = Some(v.value);
        }
    }
}

fn rest(c: &mut Cursor) -> Vec<TokenTree> {
    let mut out = Vec::new();
    while let Some(t) = c.next() {
        out.push(t);
    }
    out
}

fn recovery(span: Span, g: &Group, errors: &mut Errors) -> Option<Recovery> {
    let mut r = Recovery {
        span,
        max_detection_ms: 0,
        max_recovery_ms: None,
        require_clean_timeout: None,
    };
    let mut detection = false;
    let mut ok = true;
    for part in split(g.stream()) {
        let mut c = Cursor::new(part, g.span_close());
        let ks = c.span();
        let Some(word) = c.ident() else {
            errors.at(
                ks,
                unknown("recovery key", &c.rest_span_text(), messages::RECOVERY_KEYS),
            );
            ok = false;
            continue;
        };
        let w = word.to_string();
        match w.as_str() {
            "max_detection_ms" | "max_recovery_ms" => {
                let example = format!("{w} = 3000");
                if !c.eat_eq() {
                    errors.at(c.span(), messages::expected_eq(&w, &example));
                    ok = false;
                    continue;
                }
                let vs = c.span();
                match c.next().as_ref().and_then(integer::<u64>) {
                    Some(ms) if end(&c, errors, &w) => {
                        if w == "max_detection_ms" {
                            r.max_detection_ms = ms;
                            detection = true;
                        } else {
                            r.max_recovery_ms = Some(ms);
                        }
                    }
                    Some(_) => ok = false,
                    None => {
                        errors.at(
                            vs,
                            messages::wrong_type(&w, "milliseconds as a whole number", &example),
                        );
                        ok = false;
                    }
                }
            }
            "require_clean_timeout" => {
                let mut fc = Cursor::new(
                    std::iter::once(TokenTree::Ident(word))
                        .chain(rest(&mut c))
                        .collect(),
                    g.span_close(),
                );
                match flag(&mut fc, "recovery key", messages::RECOVERY_KEYS, errors) {
                    Some((_, v)) => r.require_clean_timeout = Some(v),
                    None => ok = false,
                }
            }
            _ => {
                errors.at(
                    word.span(),
                    unknown("recovery key", &w, messages::RECOVERY_KEYS),
                );
                ok = false;
            }
        }
    }
    if !detection && ok {
        errors.at(g.span(), messages::missing_detection());
        return None;
    }
    ok.then_some(r)
}

fn inject(g: &Group, errors: &mut Errors) -> Option<Inject> {
    let mut name = None;
    let mut kind: Option<String> = None;
    let mut tool_name = None;
    let mut server = None;
    let mut delay_ms = None;
    let mut failures = None;
    let mut ok = true;
    for part in split(g.stream()) {
        let mut c = Cursor::new(part, g.span_close());
        let ks = c.span();
        let Some(word) = c.ident() else {
            errors.at(
                ks,
                unknown("inject key", &c.rest_span_text(), messages::INJECT_KEYS),
            );
            ok = false;
            continue;
        };
        let w = word.to_string();
        if !messages::INJECT_KEYS.contains(&w.as_str()) {
            errors.at(
                word.span(),
                unknown("inject key", &w, messages::INJECT_KEYS),
            );
            ok = false;
            continue;
        }
        if !c.eat_eq() {
            errors.at(c.span(), messages::expected_eq(&w, &format!("{w} = ...")));
            ok = false;
            continue;
        }
        let vs = c.span();
        let Some(v) = c.next() else {
            errors.at(vs, messages::expected_eq(&w, &format!("{w} = ...")));
            ok = false;
            continue;
        };
        if !end(&c, errors, &w) {
            ok = false;
            continue;
        }
        let bad = |errors: &mut Errors, wanted: &str, example: &str| {
            errors.at(vs, messages::wrong_type(&w, wanted, example));
        };
        match w.as_str() {
            "name" => match string(&v) {
                Some(s) => name = Some(s),
                None => {
                    bad(errors, "a string", "name = \"hung-search\"");
                    ok = false;
                }
            },
            "kind" => match &v {
                TokenTree::Ident(i) if names::FAULT_KINDS.contains(&i.to_string().as_str()) => {
                    kind = Some(i.to_string());
                }
                other => {
                    errors.at(
                        vs,
                        unknown("fault kind", &other.to_string(), names::FAULT_KINDS),
                    );
                    ok = false;
                }
            },
            "tool" | "server" => match tool(&v) {
                Some(s) if w == "tool" => tool_name = Some(s),
                Some(s) => server = Some(s),
                None => {
                    bad(errors, "a name", &format!("{w} = \"search\""));
                    ok = false;
                }
            },
            "delay_ms" => match integer::<u64>(&v) {
                Some(n) => delay_ms = Some(n),
                None => {
                    bad(errors, "a whole number", "delay_ms = 4000");
                    ok = false;
                }
            },
            _ => match integer::<u32>(&v) {
                Some(n) => failures = Some(n),
                None => {
                    bad(errors, "a whole number", "failures = 2");
                    ok = false;
                }
            },
        }
    }
    if !ok {
        return None;
    }
    let (Some(name), Some(kind)) = (name.clone(), kind.clone()) else {
        let missing = if name.is_none() { "name" } else { "kind" };
        errors.at(g.span(), messages::inject_missing(missing));
        return None;
    };
    if kind == "slow" && delay_ms.is_none() {
        errors.at(g.span(), messages::inject_needs("slow", "delay_ms"));
        return None;
    }
    if kind == "recover_after" && failures.is_none() {
        errors.at(
            g.span(),
            messages::inject_needs("recover_after", "failures"),
        );
        return None;
    }
    Some(Inject {
        name,
        kind,
        tool: tool_name,
        server,
        delay_ms: delay_ms.unwrap_or(0),
        failures: failures.unwrap_or(0),
    })
}

fn expect(g: &Group, errors: &mut Errors) -> Option<Expect> {
    let parts = split(g.stream());
    if !(2..=3).contains(&parts.len()) {
        errors.at(g.span(), messages::expect_shape());
        return None;
    }
    let mut tc = Cursor::new(parts[0].clone(), g.span_close());
    let ts = tc.span();
    let target = match (tc.next().as_ref().and_then(string), tc.is_empty()) {
        (Some(t), true) => t,
        _ => {
            errors.at(ts, messages::expect_shape());
            return None;
        }
    };
    let advisory = match parts.get(2) {
        None => false,
        Some(p) => {
            let mut fc = Cursor::new(p.clone(), g.span_close());
            let fs = fc.span();
            match (fc.ident(), fc.is_empty()) {
                (Some(i), true) if i == "advisory" => true,
                (Some(i), _) => {
                    errors.at(i.span(), messages::expect_flag(&i.to_string()));
                    return None;
                }
                _ => {
                    errors.at(fs, messages::expect_shape());
                    return None;
                }
            }
        }
    };
    let mut graded = Vec::new();
    let matcher = matcher::whole(parts[1].clone(), g.span_close(), errors, &mut graded);
    if !advisory {
        for gm in &graded {
            let m = Mistake::ModelGraded {
                key: gm.word.clone(),
            };
            errors.at(gm.span, m.message(Front::Attribute));
        }
    }
    if let Some(p) = target::problem(&target, advisory, None) {
        errors.at(ts, p);
        return None;
    }
    let matcher = matcher?;
    (advisory || graded.is_empty()).then_some(Expect {
        target,
        span: ts,
        matcher,
        advisory,
    })
}
