//! JSON written inside the attribute: checked here, token by token, so a mistake is an error
//! at the offending token; code generation then hands the same tokens to `serde_json::json!`.

use super::cursor::{Cursor, split};
use crate::messages;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::Lit;

/// Takes one JSON value from `c` and returns its tokens.
pub fn value(c: &mut Cursor) -> syn::Result<TokenStream> {
    let mark = c.mark();
    one(c)?;
    Ok(c.since(mark))
}

/// The whole of `stream` as one JSON value.
pub fn whole(stream: TokenStream, end: proc_macro2::Span) -> syn::Result<TokenStream> {
    let mut c = Cursor::new(stream, end);
    let v = value(&mut c)?;
    if !c.is_empty() {
        return Err(syn::Error::new(c.rest_span(), messages::json_trailing()));
    }
    Ok(v)
}

fn one(c: &mut Cursor) -> syn::Result<()> {
    let span = c.span();
    let err = |m: String| Err(syn::Error::new(span, m));
    let Some(tt) = c.next() else {
        return err(messages::json_value("nothing"));
    };
    match &tt {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
            object(g.stream(), g.span_close())
        }
        TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
            array(g.stream(), g.span_close())
        }
        TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
            whole(g.stream(), g.span()).map(drop)
        }
        TokenTree::Group(_) => err(messages::json_value("(...)")),
        TokenTree::Literal(_) => scalar(&tt),
        TokenTree::Punct(p) if p.as_char() == '-' => {
            let num = c.span();
            match c.next() {
                Some(t @ TokenTree::Literal(_))
                    if matches!(
                        super::cursor::literal(&t),
                        Some(Lit::Int(_) | Lit::Float(_))
                    ) =>
                {
                    scalar(&t)
                }
                _ => Err(syn::Error::new(num, messages::number())),
            }
        }
        TokenTree::Ident(i) if i == "true" || i == "false" || i == "null" => Ok(()),
        other => err(messages::json_value(&other.to_string())),
    }
}

fn scalar(tt: &TokenTree) -> syn::Result<()> {
    let span = tt.span();
    match super::cursor::literal(tt) {
        Some(Lit::Str(_)) => Ok(()),
        Some(Lit::Int(i)) if i.suffix().is_empty() => Ok(()),
        Some(Lit::Float(f)) if f.suffix().is_empty() => Ok(()),
        Some(Lit::Int(i)) => Err(syn::Error::new(
            span,
            messages::json_suffix(i.base10_digits()),
        )),
        Some(Lit::Float(f)) => Err(syn::Error::new(
            span,
            messages::json_suffix(f.base10_digits()),
        )),
        Some(Lit::Char(_)) => Err(syn::Error::new(span, messages::json_single_quotes())),
        _ => Err(syn::Error::new(span, messages::json_value(&tt.to_string()))),
    }
}

fn object(stream: TokenStream, end: proc_macro2::Span) -> syn::Result<()> {
    for member in split(stream) {
        let mut c = Cursor::new(member, end);
        let key_span = c.span();
        match c.next() {
            Some(t) if matches!(super::cursor::literal(&t), Some(Lit::Str(_))) => {}
            _ => return Err(syn::Error::new(key_span, messages::json_key())),
        }
        if !c.eat_alone(':') {
            return Err(syn::Error::new(c.span(), messages::json_colon()));
        }
        one(&mut c)?;
        if !c.is_empty() {
            return Err(syn::Error::new(c.rest_span(), messages::json_trailing()));
        }
    }
    Ok(())
}

fn array(stream: TokenStream, end: proc_macro2::Span) -> syn::Result<()> {
    for item in split(stream) {
        let mut c = Cursor::new(item, end);
        one(&mut c)?;
        if !c.is_empty() {
            return Err(syn::Error::new(c.rest_span(), messages::json_trailing()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;
    use quote::quote;

    fn check(ts: TokenStream) -> Result<(), String> {
        whole(ts, Span::call_site())
            .map(drop)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn accepts_json() {
        check(quote!({"city": "Sacramento", "days": [1, -2.5, true, null], "o": {}})).unwrap();
        check(quote!([])).unwrap();
        check(quote!("x")).unwrap();
    }

    #[test]
    fn refuses_what_is_not_json() {
        assert!(
            check(quote!({city: "x"}))
                .unwrap_err()
                .contains("keys are quoted strings")
        );
        assert!(
            check(quote!({"city" "x"}))
                .unwrap_err()
                .contains("expected `:`")
        );
        assert!(
            check(quote!({"a": True}))
                .unwrap_err()
                .contains("did you mean `true`")
        );
        assert!(check(quote!('x')).unwrap_err().contains("double quotes"));
        assert!(check(quote!(5u32)).unwrap_err().contains("no type suffix"));
        assert!(
            check(quote!({"a": 1 2}))
                .unwrap_err()
                .contains("after the JSON value")
        );
        assert!(check(quote!([x])).unwrap_err().contains("found `x`"));
    }
}
