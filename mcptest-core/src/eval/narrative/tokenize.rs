//! Splitting text into lexemes and sentences, and identifiers into name pieces.
//!
//! One pass over the characters, no regular expressions, no allocation per character. Every
//! slice is taken at a character boundary, so no input can make it panic.

use super::lexicon::is_stopword;
use std::cell::RefCell;

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
    /// A clause break: `, ; | { } — –` or a free-standing `-`.
    Clause,
    /// An opening bracket, `(` or `[`: a clause break that opens an aside.
    Open,
    /// A closing bracket, `)` or `]`: a clause break that closes an aside.
    Close,
}

/// One lexeme: its kind, its byte span in the text (the content, for a quoted span) and the
/// sentence it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Lexeme {
    pub kind: Kind,
    pub start: u32,
    pub end: u32,
    pub sentence: u32,
}

impl Lexeme {
    /// The byte where it starts in the text (the content's, for a quoted span).
    pub fn start(&self) -> usize {
        self.start as usize
    }

    /// The byte just past it.
    pub fn end(&self) -> usize {
        self.end as usize
    }

    /// The index of its sentence.
    pub fn sentence(&self) -> usize {
        self.sentence as usize
    }
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
    /// Inside a fenced code block: code (a workflow file, a script), not narration. Its
    /// words still mention calls; it claims nothing.
    pub code: bool,
}

/// How far (in characters) a closing quote is looked for. A longer span is not a stated value,
/// and the bound keeps lexing linear on a long line of unmatched opening quotes.
const MAX_QUOTED: usize = 400;

#[inline]
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else {
        c.is_alphanumeric()
    }
}

fn is_connector(prev: char, c: char, next: char) -> bool {
    match c {
        '-' | '.' | '/' | '@' | '+' | '&' | '\'' | '\u{2019}' => {
            is_word_char(prev) && is_word_char(next)
        }
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

/// Abbreviations whose dot ends no sentence inside a line ("open vs. closed phases", "e.g.
/// `main`", "cf. the log").
const ABBREVIATIONS: &[&str] = &[
    "vs", "e.g", "i.e", "eg", "ie", "cf", "approx", "incl", "esp", "viz", "resp", "w.r.t",
];

/// Abbreviations that end a list, and the sentence when a capital follows ("tables, views,
/// etc. Then ..."), not before a lowercase word, a number or a bracket ("(`rental`, `payment`,
/// etc.) was modified").
const LIST_ABBREVIATIONS: &[&str] = &["etc"];

/// The longest abbreviation of either list, in bytes: a longer word before a dot is passed
/// over without a look at the lists.
const LONGEST_ABBREVIATION: usize = longest(ABBREVIATIONS, longest(LIST_ABBREVIATIONS, 0));

/// The length of the longest of `words`, or `at_least` when that is longer.
const fn longest(words: &[&str], at_least: usize) -> usize {
    let mut max = at_least;
    let mut i = 0;
    while i < words.len() {
        if words[i].len() > max {
            max = words[i].len();
        }
        i += 1;
    }
    max
}

/// True when the `.` at byte `dot` closes an abbreviation written right before it, and the
/// sentence goes on: the line goes on after it, and, after `etc.`, with no capital.
fn abbreviation_dot(text: &str, lexemes: &[Lexeme], dot: usize) -> bool {
    let Some(word) = lexemes
        .last()
        .filter(|l| l.kind == Kind::Word && l.end() == dot)
        .map(|l| &text[l.start()..l.end()])
    else {
        return false;
    };
    // Every abbreviation is short: most words before a dot are passed over on their length.
    if word.len() > LONGEST_ABBREVIATION {
        return false;
    }
    let is = |list: &[&str]| list.iter().any(|a| a.eq_ignore_ascii_case(word));
    let strong = is(ABBREVIATIONS);
    if !strong && !is(LIST_ABBREVIATIONS) {
        return false;
    }
    let next = text[dot + 1..]
        .trim_start_matches([' ', '\t'])
        .chars()
        .next();
    match next {
        None | Some('\n' | '\r') => false,
        Some(c) => strong || !c.is_uppercase(),
    }
}

fn is_clause_break(c: char) -> bool {
    matches!(
        c,
        ',' | ';'
            | '|'
            | '{'
            | '}'
            | '\u{2014}'
            | '\u{2013}'
            // Free-standing (between words they connect): "59 original + 200 migrated",
            // "Branch & files created".
            | '+'
            | '&'
            | '\u{3001}'
            | '\u{FF0C}'
            // Arrows: "Mentioned @jonhoo → assigned to valid contributors".
            | '\u{2192}'
            | '\u{21D2}'
            | '\u{27A1}'
            | '\u{279C}'
            | '\u{27F6}'
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

/// The character that starts at byte `b` of `text` (a character boundary), if any. ASCII is
/// read straight from the byte.
#[inline]
fn char_at(text: &str, b: usize) -> Option<char> {
    let &byte = text.as_bytes().get(b)?;
    if byte < 0x80 {
        Some(char::from(byte))
    } else {
        text.get(b..)?.chars().next()
    }
}

#[inline]
fn push_lexeme(out: &mut Lexed, kind: Kind, start: usize, end: usize) {
    // Offsets fit in 32 bits: `lex` reads at most `u32::MAX` bytes.
    let sentence = out.sentences.len() as u32;
    out.lexemes.push(Lexeme {
        kind,
        start: start as u32,
        end: end as u32,
        sentence,
    });
}

/// Closes the sentence that ends at byte `end` (when it holds a lexeme) and starts the next.
fn close_sentence(out: &mut Lexed, end: usize, start: &mut usize, first: &mut usize, code: bool) {
    if out.lexemes.len() > *first {
        out.sentences.push(Sentence {
            start: *start,
            end,
            first: *first,
            last: out.lexemes.len(),
            code,
        });
        *first = out.lexemes.len();
    }
    *start = end;
}

/// True for the ASCII bytes of a word: letters, digits and `_`.
#[inline]
const fn is_ascii_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Eight copies of byte `b`.
const fn splat(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

/// The high bit of each byte of `v` (eight bytes read as one number, each below 0x80) that is
/// in `lo..=hi`: all eight range checks at once. `v + (0x80 - lo)` reaches a byte's high bit
/// exactly when the byte is at least `lo`, `v + (0x7f - hi)` exactly when it is above `hi`; with
/// every byte below 0x80, no sum carries into the next byte.
#[inline]
pub(super) const fn bytes_in(v: u64, lo: u8, hi: u8) -> u64 {
    v.wrapping_add(splat(0x80 - lo)) & !v.wrapping_add(splat(0x7f - hi)) & splat(0x80)
}

/// The high bit of each byte of `x` (eight bytes read as one number) that is an ASCII word
/// byte: a letter, a digit or `_`. Each test is a range check on all eight bytes at once; the
/// high bits are cleared first so no byte carries into the next, and a byte that had one (not
/// ASCII) is no word byte.
#[inline]
fn word_bytes(x: u64) -> u64 {
    const HIGH: u64 = splat(0x80);
    let v = x & !HIGH;
    let digit = bytes_in(v, b'0', b'9');
    // Setting bit 5 maps capitals onto small letters and nothing else onto them.
    let letter = bytes_in(v | splat(0x20), b'a', b'z');
    // A byte equal to `_` is a zero byte of t: adding 0x7f sets the high bit of every other.
    let t = v ^ splat(b'_');
    let under = !(t.wrapping_add(splat(0x7f)) | t);
    (digit | letter | under) & !x & HIGH
}

/// How many ASCII word bytes `bytes` opens with, and the byte after them (none at the end).
/// Eight bytes are classified at once, so a word costs one decision instead of one per byte,
/// and the byte that ends it is taken from the bytes already read.
#[inline]
fn ascii_word_run(bytes: &[u8]) -> (usize, Option<u8>) {
    let mut n = 0;
    while let Some(chunk) = bytes.get(n..).and_then(<[u8]>::first_chunk::<8>) {
        let x = u64::from_le_bytes(*chunk);
        let not_word = !word_bytes(x) & splat(0x80);
        if not_word != 0 {
            let at = not_word.trailing_zeros() / 8;
            return (n + at as usize, Some((x >> (8 * at)) as u8));
        }
        n += 8;
    }
    let n = n + bytes[n..].iter().take_while(|&&x| is_ascii_word(x)).count();
    (n, bytes.get(n).copied())
}

/// The byte just past a word that starts at `b` with `c`, and the character the caller has read
/// last: the word's own, or a space when the word ends at one (the caller reads it next).
/// Reads ASCII words of fewer than 16 bytes from `start`, pushing each as a word of sentence
/// `sentence`: most words of prose. Each is read from the bytes it opens, eight at a time;
/// words that end with one space are read one after another. Returns where the general path
/// goes on and the character before it there: past a word's space; at the punctuation that
/// ends a word (one that joins no word after it: "done.", "issue,"); or at a word this does
/// not read (longer, joined to the next by its punctuation, or beyond ASCII), from its start.
#[inline(never)]
fn word_run(bytes: &[u8], start: usize, sentence: u32, out: &mut Vec<Lexeme>) -> (usize, u8) {
    const HIGH: u64 = splat(0x80);
    let load = |at: usize| {
        bytes
            .get(at..)
            .and_then(<[u8]>::first_chunk::<8>)
            .map(|c| u64::from_le_bytes(*c))
    };
    let mut lexemes = std::mem::take(out);
    let mut p = start;
    let resume = loop {
        let Some(x) = load(p) else { break (p, b' ') };
        let other = !word_bytes(x) & HIGH;
        if other & 0x80 != 0 {
            // No word opens here.
            break (p, b' ');
        }
        let (len, end_byte) = if other != 0 {
            let len = (other.trailing_zeros() / 8) as usize;
            (len, (x >> (8 * len)) as u8)
        } else {
            let Some(y) = load(p + 8) else {
                break (p, b' ');
            };
            let other = !word_bytes(y) & HIGH;
            if other == 0 {
                break (p, b' ');
            }
            let len = (other.trailing_zeros() / 8) as usize;
            (8 + len, (y >> (8 * len)) as u8)
        };
        let end = p + len;
        if end_byte != b' ' {
            // Punctuation that may join this word to the next ("e.g", "1,200", "don't",
            // "read-only") when a word character follows it: the general path reads it.
            let joins = matches!(
                end_byte,
                b'-' | b'.' | b'/' | b'@' | b'+' | b'&' | b'\'' | b','
            ) && bytes
                .get(end + 1)
                .is_some_and(|&n| !n.is_ascii() || is_ascii_word(n));
            if joins || !end_byte.is_ascii() {
                break (p, b' ');
            }
        }
        lexemes.push(Lexeme {
            kind: Kind::Word,
            start: p as u32,
            end: end as u32,
            sentence,
        });
        if end_byte != b' ' {
            break (end, bytes[end - 1]);
        }
        p = end + 1;
    };
    *out = lexemes;
    resume
}

#[inline(always)]
fn word_end(text: &str, b: usize, c: char) -> (usize, char) {
    let bytes = text.as_bytes();
    let mut last = c;
    let mut j = b + c.len_utf8();
    loop {
        let (run, next) = ascii_word_run(&bytes[j..]);
        j += run;
        // Most words end at a space or the end of the text: nothing joins across either, and
        // the space that follows is what the caller reads next.
        if matches!(next, None | Some(b' ')) {
            return (j, ' ');
        }
        if run > 0 {
            last = char::from(bytes[j - 1]);
        }
        let Some(n) = char_at(text, j) else { break };
        if is_word_char(n) {
            last = n;
            j += n.len_utf8();
            continue;
        }
        let after = j + n.len_utf8();
        match char_at(text, after) {
            Some(nn) if is_connector(last, n, nn) => {
                last = nn;
                j = after + nn.len_utf8();
            }
            _ => break,
        }
    }
    (j, last)
}

/// How long (in bytes) a line is, at least, before a break after it can be a wrap.
const WRAP_WIDTH: usize = 60;

/// True when the line break at byte `nl` wraps a sentence instead of ending it: the line
/// before it is long ([`WRAP_WIDTH`] or more), is no heading or table row, and ends inside a
/// sentence (on a word, a comma, a closing bracket or quote, not on `.` `:` `!` `?`); the line
/// after it goes on in lowercase, with no label of its own ("...the PR has not\nbeen
/// merged"). Lines written as items ("done.", "branch: created", "- opened PR #3") keep their
/// breaks.
fn is_soft_break(text: &str, nl: usize) -> bool {
    let bytes = text.as_bytes();
    let line_start = bytes[..nl]
        .iter()
        .rposition(|&x| x == b'\n')
        .map_or(0, |p| p + 1);
    let line = text[line_start..nl].trim_end();
    if line.len() < WRAP_WIDTH || line.trim_start().starts_with(['#', '|', '>']) {
        return false;
    }
    let ends_inside = line.chars().next_back().is_some_and(|c| {
        c.is_alphanumeric() || matches!(c, ',' | ')' | ']' | '`' | '"' | '\'' | '\u{201D}')
    });
    if !ends_inside {
        return false;
    }
    let next = text[nl + 1..].trim_start_matches([' ', '\t']);
    if !next.as_bytes().first().is_some_and(u8::is_ascii_lowercase) {
        return false;
    }
    // "status: done": a line that opens with a label is an item of its own. A label names a
    // thing; one that opens with a function word goes on from the line before ("been merged:
    // two checks failed").
    let first_clause = next.split([',', ';', '.', '\n']).next().unwrap_or("");
    !first_clause.split_once(':').is_some_and(|(label, _)| {
        let mut words = label.split_whitespace();
        let opens_with_thing = words.next().is_some_and(|w| !is_stopword(w));
        opens_with_thing && words.count() < 4
    })
}

/// The byte of the quote that closes a span opened just before byte `from`: within
/// [`MAX_QUOTED`] characters, on the same line; a closing single quote is not followed by a
/// word character.
fn closing_at(text: &str, from: usize, close: char) -> Option<usize> {
    let single = close == '\'' || close == '\u{2019}';
    let mut k = from;
    for _ in 0..MAX_QUOTED {
        let c = char_at(text, k)?;
        if c == '\n' {
            return None;
        }
        let next = k + c.len_utf8();
        if c == close && !(single && char_at(text, next).is_some_and(is_word_char)) {
            return Some(k);
        }
        k = next;
    }
    None
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub(super) fn clip(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The most lexemes whose buffer is kept for the next text (1 MiB).
const KEPT_LEXEMES: usize = 1 << 16;

thread_local! {
    /// The buffers of the last narrative checked on this thread, kept for the next: a suite
    /// checks narrative after narrative, and a long one's buffers are large blocks that the
    /// allocator would otherwise hand back to the system and fault in again each time.
    static SPARE: RefCell<Lexed> = RefCell::new(Lexed::default());
}

/// Keeps `lexed`'s buffers for the next [`lex`] on this thread, unless they are larger than
/// [`KEPT_LEXEMES`] lexemes.
pub(super) fn recycle(mut lexed: Lexed) {
    if lexed.lexemes.capacity() <= KEPT_LEXEMES {
        lexed.lexemes.clear();
        lexed.sentences.clear();
        // During the thread's teardown there is nothing to keep them for.
        let _ = SPARE.try_with(|s| *s.borrow_mut() = lexed);
    }
}

/// Splits `text` into lexemes and sentences.
pub(super) fn lex(text: &str) -> Lexed {
    lex_with::<true>(text)
}

/// [`lex`], with the run of short ASCII words ([`word_run`]) read by the general path instead
/// when `RUNS` is false (the two agree; tests compare them). A constant, so the lexer itself
/// carries no test of it.
fn lex_with<const RUNS: bool>(text: &str) -> Lexed {
    // Lexemes keep 32-bit offsets: a text beyond 4 GiB is read up to there.
    let text = clip(text, u32::MAX as usize);
    let mut out = SPARE
        .try_with(|s| std::mem::take(&mut *s.borrow_mut()))
        .unwrap_or_default();
    out.lexemes.reserve(text.len() / 5 + 1);
    out.sentences.reserve(text.len() / 64 + 1);
    let mut sentence_start = 0usize;
    let mut first_lexeme = 0usize;
    let mut prev: Option<char> = None;
    let mut code = false;
    // True while only spaces stand between the start of the line and `b`.
    let mut fresh_line = true;
    let mut b = 0;
    while let Some(c) = char_at(text, b) {
        let next_b = b + c.len_utf8();
        if c == ' ' {
            // Most characters between words are spaces: nothing to decide.
            prev = Some(c);
            b = next_b;
            continue;
        }
        if c == '\n' && !code && is_soft_break(text, b) {
            // A hard-wrapped line goes on: the break is a space, as Markdown renders it.
            prev = Some(' ');
            fresh_line = false;
            b = next_b;
            continue;
        }
        let line_start = std::mem::replace(&mut fresh_line, c == '\n');
        if line_start && c.is_ascii_digit() {
            // "1. Created the table": the number of a list item is no word, and its dot ends
            // no sentence; the item is read as one sentence.
            let digits = text.as_bytes()[b..]
                .iter()
                .take_while(|x| x.is_ascii_digit())
                .count();
            if text.as_bytes()[b + digits..].starts_with(b". ") {
                prev = Some(' ');
                b += digits + 2;
                continue;
            }
        }
        if is_word_char(c) {
            let bytes = text.as_bytes();
            if RUNS && c.is_ascii() {
                // Most words are short and ASCII, and most follow a word and one space:
                // nothing stands between them to decide (no line start, quote or
                // punctuation), so they are read on together.
                let sentence = out.sentences.len() as u32;
                let (resume, before) = word_run(bytes, b, sentence, &mut out.lexemes);
                if resume > b {
                    prev = Some(char::from(before));
                    b = resume;
                    continue;
                }
            }
            let (end, last) = word_end(text, b, c);
            push_lexeme(&mut out, Kind::Word, b, end);
            prev = Some(last);
            // The space after a word is passed over here (it decides nothing).
            b = if bytes.get(end) == Some(&b' ') {
                end + 1
            } else {
                end
            };
            continue;
        }
        if c == '`' && text.as_bytes()[b..].starts_with(b"```") {
            // A fence opens or closes a code block (an unclosed one runs to the end, as
            // Markdown renders it); its sentences are marked as code.
            close_sentence(&mut out, b, &mut sentence_start, &mut first_lexeme, code);
            code = !code;
            b += 3;
            sentence_start = b;
            prev = Some('\n');
            continue;
        }
        if let Some(close) = closing_quote(prev, c, char_at(text, next_b))
            && let Some(k) = closing_at(text, next_b, close)
        {
            push_lexeme(&mut out, Kind::Quoted, next_b, k);
            prev = Some(close);
            b = k + close.len_utf8();
            continue;
        }
        let kind = match c {
            ':' | '=' => Some(Kind::Sep),
            '-' if !prev.is_some_and(is_word_char) => Some(Kind::Clause),
            '(' | '[' => Some(Kind::Open),
            ')' | ']' => Some(Kind::Close),
            c if is_clause_break(c) => Some(Kind::Clause),
            _ => None,
        };
        if let Some(kind) = kind {
            push_lexeme(&mut out, kind, b, next_b);
        } else if is_sentence_end(c) && !(c == '.' && abbreviation_dot(text, &out.lexemes, b)) {
            close_sentence(
                &mut out,
                next_b,
                &mut sentence_start,
                &mut first_lexeme,
                code,
            );
        }
        prev = Some(c);
        b = next_b;
    }
    close_sentence(
        &mut out,
        text.len(),
        &mut sentence_start,
        &mut first_lexeme,
        code,
    );
    out
}

/// The high bit of each byte of `x` that is an ASCII lowercase letter or digit.
#[inline]
fn lower_digit_bytes(x: u64) -> u64 {
    const HIGH: u64 = splat(0x80);
    (bytes_in(x & !HIGH, b'0', b'9') | bytes_in(x & !HIGH, b'a', b'z')) & !x
}

/// How many bytes `bytes` opens with that are ASCII lowercase letters or digits.
#[inline]
fn lower_digit_run(bytes: &[u8]) -> usize {
    let mut n = 0;
    while let Some(chunk) = bytes[n..].first_chunk::<8>() {
        let other = !lower_digit_bytes(u64::from_le_bytes(*chunk)) & splat(0x80);
        if other != 0 {
            return n + (other.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    // The last bytes, fewer than eight, one at a time.
    n + bytes[n..]
        .iter()
        .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        .count()
}

/// Splits an identifier or a word into its name pieces: on every character that is not a letter
/// or a digit (`_ - . / @` ...), then on camelCase boundaries (`createIssue` -> `create`,
/// `Issue`; `HTTPServer` -> `HTTP`, `Server`; `userIDs` -> `user`, `IDs`). Case is kept.
pub(super) fn name_pieces(s: &str, out: &mut Vec<(usize, usize)>) {
    let bytes = s.as_bytes();
    let n = bytes.len();
    let mut b = 0;
    while b < n {
        // Separators are skipped.
        let (alnum, width) = match bytes[b] {
            x if x.is_ascii() => (x.is_ascii_alphanumeric(), 1),
            _ => char_at(s, b).map_or((false, 1), |c| (c.is_alphanumeric(), c.len_utf8())),
        };
        if !alnum {
            b += width;
            continue;
        }
        // A run of letters and digits. It is one piece while it is ASCII with no capital
        // after its first letter (no camelCase to split): the usual identifier is read eight
        // bytes at a time.
        let start = b;
        let mut plain = width == 1;
        b += width;
        while b < n {
            // Lowercase letters and digits, eight at a time.
            b += lower_digit_run(&bytes[b..]);
            let Some(&x) = bytes.get(b) else { break };
            if x.is_ascii_uppercase() {
                plain = false;
                b += 1;
            } else if x.is_ascii() {
                break;
            } else {
                match char_at(s, b) {
                    Some(c) if c.is_alphanumeric() => {
                        plain = false;
                        b += c.len_utf8();
                    }
                    _ => break,
                }
            }
        }
        if is_possessive_s(s, start, b) {
            // "Maria's order": the `s` of a possessive is no piece.
            continue;
        }
        if plain {
            out.push((start, b));
        } else {
            camel_split(s, start, b, out);
        }
    }
}

/// True when `s[start..end]` is the `s` of a possessive: a lone `s` after an apostrophe that
/// follows a letter or a digit ("Maria's", "tomorrow’s").
#[inline]
fn is_possessive_s(s: &str, start: usize, end: usize) -> bool {
    // Nearly every piece is longer than one letter: decided by its length alone.
    if end != start + 1 || !matches!(s.as_bytes()[start], b's' | b'S') {
        return false;
    }
    let before = &s[..start];
    let Some(apostrophe) = before.chars().next_back() else {
        return false;
    };
    matches!(apostrophe, '\'' | '\u{2019}')
        && before[..before.len() - apostrophe.len_utf8()]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
}

fn camel_split(s: &str, start: usize, end: usize, out: &mut Vec<(usize, usize)>) {
    let part = &s[start..end];
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
            .map(|l| (l.kind, &text[l.start()..l.end()], l.sentence()))
            .collect()
    }

    #[test]
    fn a_fence_marks_its_sentences_as_code_and_keeps_their_words() {
        let text = "I added it:\n```yaml\nrun: deploy\n```\nDone. ```\nopen";
        let lexed = lex(text);
        let words: Vec<(&str, bool)> = lexed
            .sentences
            .iter()
            .flat_map(|s| {
                lexed.lexemes[s.first..s.last]
                    .iter()
                    .filter(|l| l.kind == Kind::Word)
                    .map(move |l| (&text[l.start()..l.end()], s.code))
            })
            .collect();
        assert_eq!(
            words,
            [
                ("I", false),
                ("added", false),
                ("it", false),
                ("yaml", true),
                ("run", true),
                ("deploy", true),
                ("Done", false),
                // An unclosed fence runs to the end.
                ("open", true),
            ]
        );
    }

    #[test]
    fn a_list_items_number_is_no_word_and_ends_no_sentence() {
        let text = "Done.\n1. Created the table\n  2. Added rows (3. 4)\n2024 was good. 5.5 hours";
        let got: Vec<(&str, usize)> = words(text).into_iter().map(|(_, w, s)| (w, s)).collect();
        assert_eq!(
            got,
            [
                ("Done", 0),
                ("Created", 1),
                ("the", 1),
                ("table", 1),
                ("Added", 2),
                ("rows", 2),
                ("(", 2),
                ("3", 2),
                // Not at the start of its line: a number, and its dot ends the sentence.
                ("4", 3),
                (")", 3),
                ("2024", 4),
                ("was", 4),
                ("good", 4),
                ("5.5", 5),
                ("hours", 5),
            ]
        );
    }

    #[test]
    fn an_abbreviations_dot_ends_no_sentence_inside_its_line() {
        let count = |t: &str| lex(t).sentences.len();
        assert_eq!(count("It splits open vs. closed phases."), 1);
        assert_eq!(count("Use a branch, e.g. `main`, i.e. the default."), 1);
        assert_eq!(
            count("Compare it with GitHub, cf. Figure 2 and E.g. this."),
            1
        );
        assert_eq!(
            count("No data (`rental`, `payment`, etc.) was modified."),
            1
        );
        assert_eq!(count("Tables, views, etc. were read."), 1);
        // After `etc.`, a capital opens the next sentence; a line break ends it.
        assert_eq!(count("Tables, views, etc. Then I stopped."), 2);
        assert_eq!(count("Tables, views, etc.\nthen I stopped."), 2);
        assert_eq!(count("It compares them vs.\nNext line."), 2);
        // A word that only ends like one is no abbreviation.
        assert_eq!(count("I closed the canvs. then left."), 2);
        assert_eq!(count("Done etc."), 1);
    }

    #[test]
    fn a_possessive_s_is_no_piece() {
        assert_eq!(pieces("Maria's"), ["Maria"]);
        assert_eq!(pieces("tomorrow\u{2019}s meeting"), ["tomorrow", "meeting"]);
        assert_eq!(pieces("USER'S key"), ["USER", "key"]);
        // Not after a letter or a digit, or not a lone `s`: kept.
        assert_eq!(pieces("'s"), ["s"]);
        assert_eq!(pieces("rock'n'roll"), ["rock", "n", "roll"]);
        assert_eq!(pieces("o'sullivan"), ["o", "sullivan"]);
        assert_eq!(pieces("s"), ["s"]);
    }

    #[test]
    fn word_runs_of_every_length() {
        for len in 0..20 {
            for tail in ["", " ", "-x", "é", ".", "_a b"] {
                let text = format!("{}{tail}", "a".repeat(len));
                let expect = text.bytes().take_while(|&b| is_ascii_word(b)).count();
                let after = text.as_bytes().get(expect).copied();
                assert_eq!(ascii_word_run(text.as_bytes()), (expect, after), "{text:?}");
            }
        }
    }

    #[test]
    fn word_bytes_agree_with_the_definition_for_every_byte() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut chunk = [b'a'; 10];
                chunk[at] = b;
                let expect = chunk.iter().take_while(|&&x| is_ascii_word(x)).count();
                let after = chunk.get(expect).copied();
                assert_eq!(
                    ascii_word_run(&chunk),
                    (expect, after),
                    "byte {b:#x} at {at}"
                );
            }
        }
    }

    proptest::proptest! {
        /// Short ASCII words read together are lexed as the general path lexes them, in any
        /// mix of words, spaces, punctuation, digits, quotes, line breaks and letters beyond
        /// ASCII.
        #[test]
        fn word_runs_lex_as_the_general_path(
            text in "([a-z]{1,5}|[A-Z][a-z]{0,12}|[0-9]{1,4}|[ ]{1,2}|[-.,/@+&':;!?()\"`_\n#|]|é|\u{2019}|e\\.g\\.|1,200|don't){0,40}"
        ) {
            let (fast, slow) = (lex_with::<true>(&text), lex_with::<false>(&text));
            proptest::prop_assert_eq!(fast.lexemes, slow.lexemes);
            proptest::prop_assert_eq!(fast.sentences, slow.sentences);
        }
    }

    #[test]
    fn lowercase_and_digit_runs_agree_with_the_definition() {
        let class = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        // Every byte at every place of a chunk and of the padded last bytes.
        for b in 0..=255u8 {
            for len in 1..20 {
                for at in 0..len {
                    let mut text = vec![b'q'; len];
                    text[at] = b;
                    let expect = text.iter().take_while(|&&x| class(x)).count();
                    assert_eq!(
                        lower_digit_run(&text),
                        expect,
                        "byte {b:#x} at {at} of {len}"
                    );
                }
            }
        }
        assert_eq!(lower_digit_run(b""), 0);
        assert_eq!(lower_digit_run(b"issue7_a"), 6);
        assert_eq!(lower_digit_run(b"createIssue"), 6);
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

    fn last_sentence_text(l: &Lexed, text: &str) -> String {
        let s = l.sentences.last().expect("a sentence");
        l.lexemes[s.first..s.last]
            .iter()
            .map(|x| &text[x.start()..x.end()])
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_hard_wrapped_line_goes_on_and_an_item_line_does_not() {
        let sentences = |t: &str| lex(t).sentences.len();
        let long = "I read the pull request and its review comments, but the pull request has not";
        assert!(long.len() >= WRAP_WIDTH);
        // A long line that ends inside its sentence, then lowercase: one sentence.
        assert_eq!(sentences(&format!("{long}\nbeen merged yet.")), 1);
        assert_eq!(
            sentences(&format!("{long}\n  been merged: two checks failed.")),
            1
        );
        // An item of its own: a short line, an ended sentence, a label, a capital, a heading,
        // a blank line, code.
        assert_eq!(sentences("nothing needed\nclosed issue #12"), 2);
        assert_eq!(sentences(&format!("{long}.\nbeen merged")), 2);
        assert_eq!(sentences(&format!("{long}\nissue #12: closed")), 2);
        assert_eq!(sentences(&format!("{long}\nBeen merged")), 2);
        assert_eq!(sentences(&format!("## {long}\nbeen merged")), 2);
        assert_eq!(sentences(&format!("{long}\n\nbeen merged")), 2);
        assert_eq!(sentences(&format!("```\n{long}\nbeen merged\n```")), 2);
        // A numbered item keeps its break, and its number is still no word.
        let l = lex(&format!("{long}\n1. merged"));
        assert_eq!(l.sentences.len(), 2);
        assert_eq!(
            &last_sentence_text(&l, &format!("{long}\n1. merged")),
            "merged"
        );
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
