//! A cursor over token trees, errors gathered across the whole attribute, and small readers
//! for literals.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use std::fmt::Display;
use syn::Lit;

/// Every error found so far; each keeps its own span.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    /// Adds an error at `span`.
    pub fn at(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Adds an error.
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    /// The combined error, if any.
    pub fn into_error(self) -> Option<syn::Error> {
        self.0
    }
}

/// Splits a stream at its top-level commas; empty pieces (a trailing comma) are dropped.
pub fn split(stream: TokenStream) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    for tt in stream {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                if !cur.is_empty() {
                    out.push(cur.drain(..).collect());
                }
            }
            _ => cur.push(tt),
        }
    }
    if !cur.is_empty() {
        out.push(cur.into_iter().collect());
    }
    out
}

/// A position in a list of token trees.
pub struct Cursor {
    tokens: Vec<TokenTree>,
    pos: usize,
    /// Where "missing" errors point when the tokens run out.
    end: Span,
}

impl Cursor {
    /// A cursor over `stream`; `end` is where an error about a missing token points.
    pub fn new(stream: TokenStream, end: Span) -> Self {
        Cursor {
            tokens: stream.into_iter().collect(),
            pos: 0,
            end,
        }
    }

    /// The next token, without taking it.
    pub fn peek(&self) -> Option<&TokenTree> {
        self.tokens.get(self.pos)
    }

    /// The token after the next one.
    pub fn peek2(&self) -> Option<&TokenTree> {
        self.tokens.get(self.pos + 1)
    }

    /// Takes the next token.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<TokenTree> {
        let t = self.tokens.get(self.pos).cloned();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    /// True when every token was taken.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.tokens.len()
    }

    /// The span of the next token, or the end span.
    pub fn span(&self) -> Span {
        self.peek().map_or(self.end, TokenTree::span)
    }

    /// The position, to collect the tokens taken since.
    pub fn mark(&self) -> usize {
        self.pos
    }

    /// The tokens taken since `mark`.
    pub fn since(&self, mark: usize) -> TokenStream {
        self.tokens[mark..self.pos].iter().cloned().collect()
    }

    /// Takes a `ch` punctuation that stands alone (not the start of `==`, `>=`, `->`).
    pub fn eat_alone(&mut self, ch: char) -> bool {
        match self.peek() {
            Some(TokenTree::Punct(p))
                if p.as_char() == ch && p.spacing() == proc_macro2::Spacing::Alone =>
            {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    /// Takes the two-character operator `ab`.
    pub fn eat_pair(&mut self, a: char, b: char) -> bool {
        match (self.peek(), self.peek2()) {
            (Some(TokenTree::Punct(p)), Some(TokenTree::Punct(q)))
                if p.as_char() == a
                    && p.spacing() == proc_macro2::Spacing::Joint
                    && q.as_char() == b =>
            {
                self.pos += 2;
                true
            }
            _ => false,
        }
    }

    /// Takes a group delimited by `d`.
    pub fn group(&mut self, d: Delimiter) -> Option<Group> {
        match self.peek() {
            Some(TokenTree::Group(g)) if g.delimiter() == d => {
                let g = g.clone();
                self.pos += 1;
                Some(g)
            }
            _ => None,
        }
    }

    /// Takes an identifier.
    pub fn ident(&mut self) -> Option<proc_macro2::Ident> {
        match self.peek() {
            Some(TokenTree::Ident(i)) => {
                let i = i.clone();
                self.pos += 1;
                Some(i)
            }
            _ => None,
        }
    }

    /// Takes an `=` that stands alone.
    pub fn eat_eq(&mut self) -> bool {
        self.eat_alone('=')
    }

    /// The next token as text (empty at the end), for messages.
    pub fn rest_span_text(&self) -> String {
        self.peek().map(ToString::to_string).unwrap_or_default()
    }

    /// Every remaining token, as one span (for "unexpected" errors).
    pub fn rest_span(&self) -> Span {
        let mut tokens = self.tokens[self.pos.min(self.tokens.len())..].iter();
        match tokens.next() {
            None => self.end,
            Some(first) => {
                let last = tokens.next_back().unwrap_or(first);
                first
                    .span()
                    .join(last.span())
                    .unwrap_or_else(|| first.span())
            }
        }
    }
}

/// The literal in `tt`, if it is one.
pub fn literal(tt: &TokenTree) -> Option<Lit> {
    match tt {
        TokenTree::Literal(l) => Some(Lit::new(l.clone())),
        TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
            let mut inner = g.stream().into_iter();
            match (inner.next(), inner.next()) {
                (Some(t), None) => literal(&t),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The string in `tt`, if it is a string literal.
pub fn string(tt: &TokenTree) -> Option<String> {
    match literal(tt) {
        Some(Lit::Str(s)) => Some(s.value()),
        _ => None,
    }
}

/// The whole number in `tt`, if it is an unsuffixed or suitably suffixed integer literal.
pub fn integer<N: std::str::FromStr>(tt: &TokenTree) -> Option<N>
where
    N::Err: Display,
{
    match literal(tt) {
        Some(Lit::Int(i)) => i.base10_parse().ok(),
        _ => None,
    }
}

/// `true` or `false`.
pub fn boolean(tt: &TokenTree) -> Option<bool> {
    match tt {
        TokenTree::Ident(i) if i == "true" => Some(true),
        TokenTree::Ident(i) if i == "false" => Some(false),
        _ => None,
    }
}

/// A tool name: an identifier or a string literal.
pub fn tool(tt: &TokenTree) -> Option<String> {
    match tt {
        TokenTree::Ident(i) => Some(i.to_string().trim_start_matches("r#").to_string()),
        other => string(other),
    }
}
