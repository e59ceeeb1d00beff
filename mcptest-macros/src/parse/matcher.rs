//! Matchers inside `expect(...)`: `exact(false)`, `contains({"q": "rust"})`, `regex("^ok")`,
//! `not(m)`, `all(m, m)`, `any(m, m)`.

use super::cursor::{Cursor, Errors, split, string};
use super::json;
use crate::messages;
use crate::model::Matcher;
use mcptest_rules::names;
use proc_macro2::{Delimiter, Span, TokenStream};

/// A model-graded matcher met while parsing: where, and as written.
pub struct Graded {
    pub span: Span,
    pub word: String,
}

/// Parses the whole of `stream` as one matcher.
pub fn whole(
    stream: TokenStream,
    end: Span,
    errors: &mut Errors,
    graded: &mut Vec<Graded>,
) -> Option<Matcher> {
    let mut c = Cursor::new(stream, end);
    let m = one(&mut c, errors, graded)?;
    if !c.is_empty() {
        errors.at(c.rest_span(), messages::expect_shape());
        return None;
    }
    Some(m)
}

fn one(c: &mut Cursor, errors: &mut Errors, graded: &mut Vec<Graded>) -> Option<Matcher> {
    let span = c.span();
    let Some(name) = c.ident() else {
        errors.at(
            span,
            messages::unknown(
                "matcher",
                &c.peek().map(ToString::to_string).unwrap_or_default(),
                names::MATCHERS,
            ),
        );
        return None;
    };
    let word = name.to_string();
    let graded_key = names::model_graded(&word).filter(|_| !word.contains('-'));
    if !names::MATCHERS.contains(&word.as_str()) && graded_key.is_none() {
        errors.at(span, messages::unknown("matcher", &word, names::MATCHERS));
        return None;
    }
    let example = match word.as_str() {
        "regex" => "a pattern string: `regex(\"^get_\")`",
        "not" => "one matcher: `not(exact(true))`",
        "all" | "any" => "matchers separated by commas: `any(exact(1), exact(2))`",
        _ if graded_key.is_some() => {
            "its configuration as JSON: `llm_judge({\"rubric\": \"...\"})`"
        }
        _ => "one JSON value: `exact({\"city\": \"Sacramento\"})`",
    };
    let Some(args) = c.group(Delimiter::Parenthesis) else {
        errors.at(c.span(), messages::matcher_arg(&word, example));
        return None;
    };
    let inner = args.stream();
    let close = args.span_close();
    let arg_error = |errors: &mut Errors| {
        errors.at(args.span(), messages::matcher_arg(&word, example));
        None
    };
    if let Some(key) = graded_key {
        graded.push(Graded {
            span,
            word: word.clone(),
        });
        let config = if inner.is_empty() {
            quote::quote!({})
        } else {
            match json::whole(inner, close) {
                Ok(v) => v,
                Err(e) => {
                    errors.push(e);
                    return None;
                }
            }
        };
        return Some(Matcher::ModelGraded(key.to_string(), config));
    }
    match word.as_str() {
        "exact" | "contains" | "schema" => {
            if inner.is_empty() {
                return arg_error(errors);
            }
            match json::whole(inner, close) {
                Ok(v) => Some(match word.as_str() {
                    "exact" => Matcher::Exact(v),
                    "contains" => Matcher::Contains(v),
                    _ => Matcher::Schema(v),
                }),
                Err(e) => {
                    errors.push(e);
                    None
                }
            }
        }
        "regex" => {
            let mut a = Cursor::new(inner, close);
            match (a.next().as_ref().and_then(string), a.is_empty()) {
                (Some(p), true) => Some(Matcher::Regex(p)),
                _ => arg_error(errors),
            }
        }
        "not" => whole(inner, close, errors, graded).map(|m| Matcher::Not(Box::new(m))),
        _ => {
            let parts = split(inner);
            if parts.is_empty() {
                return arg_error(errors);
            }
            let mut ms = Vec::new();
            for p in parts {
                ms.push(whole(p, close, errors, graded));
            }
            let ms: Option<Vec<Matcher>> = ms.into_iter().collect();
            let ms = ms?;
            Some(if word == "all" {
                Matcher::All(ms)
            } else {
                Matcher::Any(ms)
            })
        }
    }
}
