//! Splitting text into lexemes and sentences, and identifiers into name pieces.
//!
//! One pass over the characters, no regular expressions, no allocation per character. Every
//! slice is taken at a character boundary, so no input can make it panic.

/// What a lexeme is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A word: letters, digits and `_`, with `- . / @ + '` allowed between them
    /// (`github.create_issue`, `acme/web`, `bob@example.com`, `I've`, `3.5`) and `,` between
    /// digits (`1,200`).
    Word,
    /// The content of a quoted span: `"..."`, `“...”`, `` `...` ``, `«...»`, `'...'`.
    Quoted,
    /// A key-value separator: `:` or `=`.
    Sep,
    /// A clause break: `, ; | ( ) [ ] { } — –` or a free-standing `-`.
    Clause,
}

/// One lexeme: its kind, its byte span in the text (the content, for a quoted span) and the
/// sentence it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Lexeme {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
    pub sentence: usize,
}

/// A lexed text.
#[derive(Debug, Default)]
pub(super) struct Lexed {
    /// The lexemes, in text order.
    pub lexemes: Vec<Lexeme>,
    /// Per sentence: its byte span in the text and its range of lexemes.
    pub sentences: Vec<Sentence>,
}

/// One sentence: its byte span and its lexemes (`lexemes[first..end]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Sentence {
    pub start: usize,
    pub end: usize,
    pub first: usize,
    pub last: usize,
}

/// How far (in characters) a closing quote is looked for. A longer span is not a stated value,
/// and the bound keeps lexing linear on a long line of unmatched opening quotes.
const MAX_QUOTED: usize = 400;

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_connector(prev: char, c: char, next: char) -> bool {
    match c {
        '-' | '.' | '/' | '@' | '+' | '\'' | '\u{2019}' => is_word_char(prev) && is_word_char(next),
        ',' => prev.is_ascii_digit() && next.is_ascii_digit(),
        _ => false,
    }
}

fn is_sentence_end(c: char) -> bool {
    matches!(
        c,
        '.' | '!' | '?' | '\n' | '\u{2026}' | '\u{3002}' | '\u{FF01}' | '\u{FF1F}'
    )
}

fn is_clause_break(c: char) -> bool {
    matches!(
        c,
        ',' | ';'
            | '|'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '\u{2014}'
            | '\u{2013}'
            | '\u{3001}'
            | '\u{FF0C}'
    )
}

/// The closing quote for an opening one, if `c` opens a quote here.
fn closing_quote(prev: Option<char>, c: char, next: Option<char>) -> Option<char> {
    match c {
        '"' => Some('"'),
        '\u{201C}' => Some('\u{201D}'),
        '`' => Some('`'),
        '\u{00AB}' => Some('\u{00BB}'),
        // A single quote opens only at a word start ("it's" is an apostrophe, not a quote).
        '\'' | '\u{2018}'
            if !prev.is_some_and(is_word_char) && next.is_some_and(|n| !n.is_whitespace()) =>
        {
            Some(if c == '\'' { '\'' } else { '\u{2019}' })
        }
        _ => None,
    }
}

/// Splits `text` into lexemes and sentences.
pub(super) fn lex(text: &str) -> Lexed {
    let cs: Vec<(usize, char)> = text.char_indices().collect();
    let at = |k: usize| cs.get(k).map(|&(_, c)| c);
    let byte = |k: usize| cs.get(k).map_or(text.len(), |&(b, _)| b);
    let mut out = Lexed::default();
    let mut sentence_start = 0usize;
    let mut first_lexeme = 0usize;

    let close_sentence = |out: &mut Lexed, end: usize, start: &mut usize, first: &mut usize| {
        if out.lexemes.len() > *first {
            out.sentences.push(Sentence {
                start: *start,
                end,
                first: *first,
                last: out.lexemes.len(),
            });
            *first = out.lexemes.len();
        }
        *start = end;
    };

    let mut i = 0;
    while i < cs.len() {
        let (b, c) = cs[i];
        let sentence = out.sentences.len();
        if is_word_char(c) {
            let mut j = i + 1;
            loop {
                match (at(j), at(j + 1)) {
                    (Some(n), _) if is_word_char(n) => j += 1,
                    (Some(n), Some(nn)) if is_connector(cs[j - 1].1, n, nn) => j += 2,
                    _ => break,
                }
            }
            out.lexemes.push(Lexeme {
                kind: Kind::Word,
                start: b,
                end: byte(j),
                sentence,
            });
            i = j;
            continue;
        }
        let prev = i.checked_sub(1).and_then(at);
        if let Some(close) = closing_quote(prev, c, at(i + 1)) {
            let single = close == '\'' || close == '\u{2019}';
            let found = (i + 1..cs.len().min(i + 1 + MAX_QUOTED))
                .take_while(|&k| cs[k].1 != '\n')
                .find(|&k| cs[k].1 == close && (!single || !at(k + 1).is_some_and(is_word_char)));
            if let Some(k) = found {
                out.lexemes.push(Lexeme {
                    kind: Kind::Quoted,
                    start: b + c.len_utf8(),
                    end: cs[k].0,
                    sentence,
                });
                i = k + 1;
                continue;
            }
        }
        let kind = match c {
            ':' | '=' => Some(Kind::Sep),
            '-' if !prev.is_some_and(is_word_char) => Some(Kind::Clause),
            c if is_clause_break(c) => Some(Kind::Clause),
            _ => None,
        };
        if let Some(kind) = kind {
            out.lexemes.push(Lexeme {
                kind,
                start: b,
                end: b + c.len_utf8(),
                sentence,
            });
        } else if is_sentence_end(c) {
            close_sentence(
                &mut out,
                b + c.len_utf8(),
                &mut sentence_start,
                &mut first_lexeme,
            );
        }
        i += 1;
    }
    close_sentence(&mut out, text.len(), &mut sentence_start, &mut first_lexeme);
    out
}

/// Splits an identifier or a word into its name pieces: on every character that is not a letter
/// or a digit (`_ - . / @` ...), then on camelCase boundaries (`createIssue` -> `create`,
/// `Issue`; `HTTPServer` -> `HTTP`, `Server`; `userIDs` -> `user`, `IDs`). Case is kept.
pub(super) fn name_pieces(s: &str, out: &mut Vec<(usize, usize)>) {
    let mut run_start: Option<usize> = None;
    for (b, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        if c.is_alphanumeric() {
            run_start.get_or_insert(b);
        } else if let Some(start) = run_start.take() {
            camel_split(s, start, b, out);
        }
    }
}

fn camel_split(s: &str, start: usize, end: usize, out: &mut Vec<(usize, usize)>) {
    let part = &s[start..end];
    if part.is_ascii() && !part.bytes().skip(1).any(|b| b.is_ascii_uppercase()) {
        out.push((start, end));
        return;
    }
    let mut piece = 0;
    let mut chars = part.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((b, c)) = chars.next() {
        let Some(p) = prev.replace(c) else { continue };
        if !c.is_uppercase() {
            continue;
        }
        let mut ahead = chars.clone();
        let next = ahead.next().map(|(_, n)| n);
        let after = ahead.next().map(|(_, n)| n);
        // An acronym ends before its last capital when a lowercase word follows ("HTTPServer"),
        // but not before a plural `s` ("IDs").
        let plural_s = next == Some('s') && !after.is_some_and(char::is_lowercase);
        let boundary = p.is_lowercase()
            || p.is_ascii_digit()
            || (p.is_uppercase() && next.is_some_and(char::is_lowercase) && !plural_s);
        if boundary {
            out.push((start + piece, start + b));
            piece = b;
        }
    }
    if piece < part.len() {
        out.push((start + piece, end));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(s: &str) -> Vec<&str> {
        let mut v = Vec::new();
        name_pieces(s, &mut v);
        v.into_iter().map(|(a, b)| &s[a..b]).collect()
    }

    fn words(text: &str) -> Vec<(Kind, &str, usize)> {
        lex(text)
            .lexemes
            .iter()
            .map(|l| (l.kind, &text[l.start..l.end], l.sentence))
            .collect()
    }

    #[test]
    fn identifiers_split() {
        assert_eq!(pieces("createIssue"), ["create", "Issue"]);
        assert_eq!(pieces("create-issue"), ["create", "issue"]);
        assert_eq!(pieces("github.create_issue"), ["github", "create", "issue"]);
        assert_eq!(pieces("a/b_c"), ["a", "b", "c"]);
        assert_eq!(pieces("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(pieces("getUserIDs"), ["get", "User", "IDs"]);
        assert_eq!(pieces("oauth2Token"), ["oauth2", "Token"]);
        assert_eq!(pieces("__"), Vec::<&str>::new());
        assert_eq!(pieces("Créer_Problème"), ["Créer", "Problème"]);
    }

    #[test]
    fn lexemes_and_sentences() {
        let w = words("I created `create_issue` with title: \"Fix CI\". Then it's done, ok");
        assert_eq!(
            w,
            vec![
                (Kind::Word, "I", 0),
                (Kind::Word, "created", 0),
                (Kind::Quoted, "create_issue", 0),
                (Kind::Word, "with", 0),
                (Kind::Word, "title", 0),
                (Kind::Sep, ":", 0),
                (Kind::Quoted, "Fix CI", 0),
                (Kind::Word, "Then", 1),
                (Kind::Word, "it's", 1),
                (Kind::Word, "done", 1),
                (Kind::Clause, ",", 1),
                (Kind::Word, "ok", 1),
            ]
        );
        let l = lex("a. b\n\nc");
        assert_eq!(l.sentences.len(), 3);
        assert_eq!(words("acme/web, 1,200 and 3.5."), {
            vec![
                (Kind::Word, "acme/web", 0),
                (Kind::Clause, ",", 0),
                (Kind::Word, "1,200", 0),
                (Kind::Word, "and", 0),
                (Kind::Word, "3.5", 0),
            ]
        });
    }

    #[test]
    fn many_unclosed_quotes_stay_linear() {
        let text = "\u{201C}a ".repeat(50_000);
        let l = lex(&text);
        assert_eq!(l.lexemes.len(), 50_000);
    }

    #[test]
    fn unclosed_quotes_do_not_swallow() {
        let w = words("say \"hello and 'bye");
        assert_eq!(w.iter().filter(|(k, _, _)| *k == Kind::Word).count(), 4);
    }
}
