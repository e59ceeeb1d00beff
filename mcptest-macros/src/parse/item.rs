//! The item under the attribute: a plain function with no parameters, returning nothing (an
//! empty body) or the builder.

use super::cursor::{Cursor, Errors};
use crate::messages;
use crate::model::AgentFn;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::parse::Parser;
use syn::{Attribute, ReturnType, Visibility};

/// Parses the function, recording every problem; `None` when it is not a function at all.
pub fn agent_fn(item: TokenStream, errors: &mut Errors) -> Option<AgentFn> {
    // Attributes and visibility, then the rest as tokens.
    let parsed = (|input: syn::parse::ParseStream| {
        let _attrs = input.call(Attribute::parse_outer)?;
        let _vis: Visibility = input.parse()?;
        let rest: TokenStream = input.parse()?;
        Ok(rest)
    })
    .parse2(item.clone());
    let rest = match parsed {
        Ok(rest) => rest,
        Err(_) => {
            errors.at(
                proc_macro2::Span::call_site(),
                messages::not_on_a_function(),
            );
            return None;
        }
    };
    let mut c = Cursor::new(rest, proc_macro2::Span::call_site());
    loop {
        match c.peek() {
            Some(TokenTree::Ident(i))
                if ["const", "async", "unsafe", "extern"].contains(&i.to_string().as_str()) =>
            {
                errors.at(i.span(), messages::fn_qualifier(&i.to_string()));
                c.next();
                if matches!(c.peek(), Some(TokenTree::Literal(_))) {
                    c.next(); // extern "C"
                }
            }
            _ => break,
        }
    }
    match c.ident() {
        Some(f) if f == "fn" => {}
        _ => {
            errors.at(c.span(), messages::not_on_a_function());
            return None;
        }
    }
    let Some(ident) = c.ident() else {
        errors.at(c.span(), messages::not_on_a_function());
        return None;
    };
    if let Some(TokenTree::Punct(p)) = c.peek()
        && p.as_char() == '<'
    {
        errors.at(p.span(), messages::fn_generics());
        return None;
    }
    let params = c.group(Delimiter::Parenthesis)?;
    if !params.stream().is_empty() {
        errors.at(params.span(), messages::fn_params());
    }
    // The return type: everything up to the body (or a where clause).
    let mut ret_tokens = Vec::new();
    let mut body = None;
    while let Some(tt) = c.next() {
        match &tt {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace && c.is_empty() => {
                body = Some(g.clone());
            }
            TokenTree::Ident(i) if i == "where" => {
                errors.at(i.span(), messages::fn_generics());
                return None;
            }
            _ => ret_tokens.push(tt),
        }
    }
    let body = body?;
    let ret: TokenStream = ret_tokens.into_iter().collect();
    let returns = match syn::parse2::<ReturnType>(ret.clone()) {
        Ok(ReturnType::Default) => None,
        Ok(ReturnType::Type(_, ty)) => Some(syn::spanned::Spanned::span(&ty)),
        Err(_) => Some(
            ret.into_iter()
                .next()
                .map_or_else(proc_macro2::Span::call_site, |t| t.span()),
        ),
    };
    if returns.is_none() && !body.stream().is_empty() {
        errors.at(body.span(), messages::ignored_body());
    }
    Some(AgentFn { ident, returns })
}
