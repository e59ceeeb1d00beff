//! Which recorded calls back each claim.
//!
//! A claim is backed, first, by a call whose name or argument keys perform a verb of the
//! claim's class and hold a word of its object. Failing that, the argument values of the calls
//! that performed the class are read (for a generic executor, its values may also name the
//! action, and a write's one-word value may say what it did), and a value word counts; failing
//! that too, when the object holds a word no name or key holds, a word sharing a prefix with an
//! object word counts ("bag" / "baggage"). When no call's name or key names any word of the
//! object, the object is the narrative's own word: for a part or a title, a call of the class
//! backs it; for a kind of thing, a call of the class named only for stored things of any kind
//! (`API-post-page`) does. Last, a claim made with a verb outside the documents' 22 is backed
//! by a write that names a word of its object in its name, keys or the statement of an
//! executor that changed state, whatever its verb; and an outcome ("resolved the token
//! mapping bug") by a write whose text names every word of its object, when it has two words
//! or more and no number.
//!
//! Both rounds look words up in lists keyed by word id, built by counting sort and holding only
//! the words claims ask about, so a long trace costs one pass over its calls and no sorting.

use super::evidence::{Arena, CallEvidence, Pieces};
use super::lexicon::has_digit;
use super::tokenize::clip;
use super::{Vocab, string_values};
use crate::fasthash::{FastHasher, HashMap};
use crate::trace::ToolCall;
use std::hash::Hasher;

/// The shortest word that takes part in prefix kinship ("bag" / "baggage").
const MIN_KIN: usize = 3;

/// What one claim asks of the calls.
pub(super) struct Query<'q> {
    /// The verbs that perform the claimed action.
    pub class: &'q [u32],
    /// The object's word ids (any object when empty).
    pub object: &'q [u32],
    /// The head of the object, when it has one.
    pub head: Option<u32>,
    /// The target's word ids, for a verb that adds or removes ("to the reservation").
    pub target: &'q [u32],
    /// Backed by any state-changing call ("processed your request").
    pub vague: bool,
    /// Made with a verb outside the documents' 22: when no call of its class backs it, a
    /// call that writes and touches its object does ("tagged the page" by `API-patch-page`).
    pub any_write: bool,
    /// The object's head names a part of a document or a data set ("a new entry"), or the
    /// object is a title (quoted, or in capitals): when no call's name or key names a word of
    /// the object, a call of the class backs it.
    pub part: bool,
    /// The object names its things by their own names: a colon list of members or an
    /// identifier ("rev2024"), which the calls' values can be checked against.
    pub named_things: bool,
    /// The claim tells an outcome reached through other writes ("resolved the token mapping
    /// bug"): its object words as written, without the other words tools name them by, when
    /// a write's text may name them all.
    pub outcome: &'q [u32],
    /// Where the claim is first written ("PR #24 was closed"): the numbers it gives after `#`.
    pub written: Written<'q>,
}

/// Where a claim is first written: the text, the claim's span and the end of its sentence.
/// Its words with the reference after them ([`with_reference`]) are read only when a claim
/// of closing asks for its numbers.
#[derive(Clone, Copy)]
pub(super) struct Written<'q> {
    pub text: &'q str,
    pub start: usize,
    pub end: usize,
    pub sentence_end: usize,
}

impl<'q> Written<'q> {
    fn words(&self) -> &'q str {
        with_reference(self.text, self.start, self.end, self.sentence_end)
    }
}

/// Lists of `u32` keyed by small integers (word ids), stored contiguously.
struct Lists {
    offsets: Vec<u32>,
    values: Vec<u32>,
}

impl Lists {
    /// Groups `(key, value)` pairs by key (keys below `keys`), keeping their order.
    fn build(keys: usize, pairs: &[(u32, u32)]) -> Self {
        let mut offsets = vec![0u32; keys + 1];
        for &(k, _) in pairs {
            offsets[k as usize + 1] += 1;
        }
        for i in 0..keys {
            offsets[i + 1] += offsets[i];
        }
        let mut next = offsets.clone();
        let mut values = vec![0; pairs.len()];
        for &(k, v) in pairs {
            let slot = &mut next[k as usize];
            values[*slot as usize] = v;
            *slot += 1;
        }
        Lists { offsets, values }
    }

    fn get(&self, key: u32) -> &[u32] {
        let k = key as usize;
        match (self.offsets.get(k), self.offsets.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.values[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// The calls and their evidence, and what reading them needs.
pub(super) struct Trace<'x, 'a> {
    pub calls: &'a [ToolCall],
    pub evidence: &'x mut [CallEvidence],
    pub arena: &'x mut Arena,
    pub pieces: &'x mut Pieces<'a>,
    pub vocab: &'x mut Vocab<'a>,
}

/// The calls that back each query (sorted, no repeats; empty when none does).
#[inline(never)]
pub(super) fn backing_calls(
    queries: &[Query<'_>],
    update_class: &[u32],
    t: Trace<'_, '_>,
) -> Vec<Vec<usize>> {
    let Trace {
        calls,
        evidence,
        arena,
        pieces,
        vocab,
    } = t;
    let n_words = vocab.words.len();
    let mut wanted = vec![false; n_words];
    for q in queries.iter().filter(|q| !q.vague) {
        for &w in q.object.iter().chain(q.target) {
            wanted[w as usize] = true;
        }
    }

    // Round 1: names and keys.
    let mut named = vec![false; n_words];
    let mut word_calls = Vec::new();
    let mut action_calls = Vec::new();
    let mut writes = Vec::new();
    let mut any_object = Vec::new();
    for (i, e) in evidence.iter().enumerate() {
        let c = i as u32;
        for &w in e.words(arena) {
            named[w as usize] = true;
            if e.can_back && wanted[w as usize] {
                word_calls.push((w, c));
            }
        }
        if !e.can_back {
            continue;
        }
        if e.mutating {
            writes.push(i);
        }
        if e.any_object {
            any_object.push(c);
        }
        action_calls.extend(e.actions(arena).iter().map(|&a| (a, c)));
    }
    let by_word = Lists::build(n_words, &word_calls);
    let by_action = Lists::build(n_words, &action_calls);
    let by_name = |class: &[u32], object: &[u32], out: &mut Vec<usize>| {
        let performs = |c: u32| evidence[c as usize].performs_by_name(arena, class);
        if object.is_empty() {
            out.extend(performing(&by_action, class));
            return;
        }
        out.extend(
            any_object
                .iter()
                .filter(|&&c| performs(c))
                .map(|&c| c as usize),
        );
        for &o in object {
            out.extend(
                by_word
                    .get(o)
                    .iter()
                    .filter(|&&c| performs(c))
                    .map(|&c| c as usize),
            );
        }
    };
    let mut matched: Vec<Vec<usize>> = Vec::with_capacity(queries.len());
    let mut failed = Vec::new();
    for (qi, q) in queries.iter().enumerate() {
        let mut m = Vec::new();
        if q.vague {
            m.extend_from_slice(&writes);
        } else {
            by_name(q.class, q.object, &mut m);
            if !q.target.is_empty() {
                // Adding to or taking from the target: a call that does the claimed verb to
                // it ("inserted rows into products" by `INSERT INTO products`), or updates it.
                by_name(q.class, q.target, &mut m);
                by_name(update_class, q.target, &mut m);
            }
            if m.is_empty() {
                failed.push(qi);
            }
        }
        matched.push(m);
    }
    if !failed.is_empty() {
        // Closing by keyword, read when a claim first needs it.
        let (close, merge) = (vocab.id("close"), vocab.id("merge"));
        let mut closing: Option<Closing<'_>> = None;
        let deep = Deep::build(
            queries,
            &failed,
            update_class,
            &named,
            calls,
            evidence,
            arena,
            pieces,
            vocab,
        );
        for &qi in &failed {
            let q = &queries[qi];
            // Prefix kin only for object words no call names exactly.
            let unknown = q.object.iter().chain(q.target).any(|&o| !named[o as usize]);
            let m = &mut matched[qi];
            for kin in [false, true] {
                if kin && !unknown {
                    break;
                }
                deep.touching(q.class, q.object, kin, evidence, arena, m);
                if !q.target.is_empty() {
                    deep.touching(q.class, q.target, kin, evidence, arena, m);
                    deep.touching(update_class, q.target, kin, evidence, arena, m);
                }
                if !m.is_empty() {
                    break;
                }
            }
            if m.is_empty() && !q.object.is_empty() && q.object.iter().all(|&o| !named[o as usize])
            {
                // The narrative's own word: no call's name or key names it, so no call can be
                // told apart by it.
                if q.part {
                    // A part of what a call changed ("a new entry", "the parent", "a
                    // toggleable section"): a call that performed the verb backs it.
                    m.extend(performing(&by_action, q.class));
                    deep.touching(q.class, &[], false, evidence, arena, m);
                } else if !q.named_things {
                    // A kind, stored by a tool named only for stored things ("added the new
                    // project" by `API-post-page` into a database of projects, "archived the
                    // project" by `execute_action` running `patch_page` with `archived`).
                    m.extend(performing(&by_action, q.class).filter(|&c| evidence[c].container));
                    m.extend(
                        deep.containers
                            .iter()
                            .map(|&c| c as usize)
                            .filter(|&c| evidence[c].performs(arena, q.class)),
                    );
                }
            }
            if m.is_empty() && q.any_write && !q.object.is_empty() {
                // Exact words only, of the call's name and keys, or of an executor's
                // statement: a write's other values are free text (a comment that mentions
                // the project archives nothing).
                let writes = |c: usize| evidence[c].mutating;
                // An executor only when its statement changed state: a `SELECT` that names the
                // table wrote nothing.
                let executes = |c: usize| evidence[c].executor && evidence[c].acts_by_value();
                for &o in q.object {
                    m.extend(
                        by_word
                            .get(o)
                            .iter()
                            .map(|&c| c as usize)
                            .filter(|&c| writes(c)),
                    );
                    m.extend(deep.holding(o).filter(|&c| writes(c) && executes(c)));
                }
            }
            if m.is_empty()
                && !q.vague
                && let Some(head) = q.head.filter(|_| !q.object.is_empty())
                && close.is_some_and(|v| q.class.contains(&v))
            {
                // A stored row is closed by setting its end ("closed employee 10001's current
                // salary" by `UPDATE salary SET to_date = ...`): a statement that updates and
                // names the object's head exactly.
                m.extend(deep.holding(head).filter(|&c| {
                    evidence[c].runs_statement && evidence[c].performs(arena, update_class)
                }));
            }
            if m.is_empty() && q.outcome.len() >= 2 && !q.named_things {
                // What was resolved is named in the text of a write that did it: a commit
                // message, a pull request's body, a changed file ("Fix MetaSep token mapping").
                // Free text is weak evidence: it takes two words of the object or more ("resolved
                // the issue" is not backed by a note that mentions an issue), and not a thing
                // named by its number or identifier (a call that acts on it by that name does
                // it).
                for &c in &writes {
                    if let Some(args) = &calls[c].args
                        && names_every_word(args, q.outcome, pieces, vocab)
                    {
                        m.push(c);
                    }
                }
            }
            if m.is_empty()
                && !q.vague
                && let (Some(close), Some(merge)) = (close, merge)
                && q.class.contains(&close)
                && q.written.words().contains('#')
            {
                let closing =
                    closing.get_or_insert_with(|| Closing::read(&writes, calls, &by_action, merge));
                m.extend_from_slice(closing.backing(q));
            }
        }
    }
    for m in &mut matched {
        m.sort_unstable();
        m.dedup();
    }
    matched
}

/// The words that close an issue or a pull request named right after them when the change
/// that carries them is merged ("Resolves #24" in a pull request's body, "Fixes #12" in a
/// commit message): GitHub's closing keywords.
const CLOSING_KEYWORDS: &[&str] = &[
    "close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved",
];

/// The merges of a trace and the numbers its writes close by keyword ([`closing_numbers`]),
/// read once, when a claim first asks.
struct Closing<'c> {
    merges: Vec<usize>,
    numbers: Vec<&'c str>,
}

impl<'c> Closing<'c> {
    fn read(writes: &[usize], calls: &'c [ToolCall], by_action: &Lists, merge: u32) -> Self {
        let merges: Vec<usize> = performing(by_action, std::slice::from_ref(&merge)).collect();
        let mut numbers = Vec::new();
        if !merges.is_empty() {
            for s in writes
                .iter()
                .filter_map(|&c| calls[c].args.as_ref())
                .flat_map(string_values)
            {
                closing_numbers(clip(s, OUTCOME_TEXT), &mut numbers);
            }
        }
        Closing { merges, numbers }
    }

    /// For a claim of closing a thing named by its number ("PR #24 was closed"): the merges
    /// of the trace, when a write's text gives that number after a closing keyword
    /// ("**Resolves #24**"). Merging that change closed it; no call of its own did.
    fn backing(&self, q: &Query<'_>) -> &[usize] {
        let mut claimed = q.written.words().split('#').skip(1).map(reference_number);
        if claimed.any(|n| !n.is_empty() && self.numbers.contains(&n)) {
            &self.merges
        } else {
            &[]
        }
    }
}

/// The number a `#` reference gives: the digits right after the `#` (`after` starts there).
fn reference_number(after: &str) -> &str {
    &after[..after.bytes().take_while(u8::is_ascii_digit).count()]
}

/// The text of a claim (`start..end`) and, when it gives no `#` reference itself, up to the
/// first one after it in its sentence ("closed PR #24": the claim's text ends at its head).
fn with_reference(text: &str, start: usize, end: usize, sentence_end: usize) -> &str {
    let claim = text.get(start..end).unwrap_or("");
    if claim.contains('#') {
        return claim;
    }
    let rest = text.get(end..sentence_end.max(end)).unwrap_or("");
    match rest.find('#') {
        Some(at) => {
            let number = reference_number(&rest[at + 1..]);
            text.get(start..end + at + 1 + number.len())
                .unwrap_or(claim)
        }
        None => claim,
    }
}

/// Appends the numbers `text` gives after a closing keyword: `<keyword> #<number>`, with
/// spaces, emphasis or a colon between ("**Resolves #24**", "fixes: #7").
fn closing_numbers<'c>(text: &'c str, out: &mut Vec<&'c str>) {
    let mut from = 0;
    while let Some(at) = text[from..].find('#').map(|i| from + i) {
        from = at + 1;
        let number = reference_number(&text[at + 1..]);
        if number.is_empty() {
            continue;
        }
        // The word before the `#`, past spaces and emphasis.
        let before = text[..at].trim_end_matches([' ', '*', '_', ':']);
        let word_start = before
            .char_indices()
            .rev()
            .find(|(_, c)| !c.is_ascii_alphabetic())
            .map_or(0, |(i, c)| i + c.len_utf8());
        let word = &before[word_start..];
        if CLOSING_KEYWORDS
            .iter()
            .any(|k| k.eq_ignore_ascii_case(word))
        {
            out.push(number);
        }
    }
}

/// The most text of one call's string values read for an outcome's words.
const OUTCOME_TEXT: usize = 64 * 1024;

/// True when the string values of `args` (their first [`OUTCOME_TEXT`] bytes) hold every one of
/// the word ids `words` as a name piece, read as every other value is ([`Pieces::split`]):
/// "conflict" is in "Add CI infrastructure to resolve Conflicts", "meta" and "sep" in
/// "MetaSep", "bug" is not in "debug".
fn names_every_word<'a>(
    args: &'a serde_json::Value,
    words: &[u32],
    pieces: &mut Pieces<'a>,
    vocab: &mut Vocab<'a>,
) -> bool {
    let mut found = vec![false; words.len()];
    let mut left = words.len();
    let mut budget = OUTCOME_TEXT;
    let mut ps = Vec::new();
    for s in string_values(args) {
        let s = clip(s, budget);
        budget -= s.len();
        ps.clear();
        pieces.split(s, vocab, &mut ps);
        for p in &ps {
            for (i, &w) in words.iter().enumerate() {
                if !found[i] && w == p.id {
                    found[i] = true;
                    left -= 1;
                }
            }
        }
        if left == 0 || budget == 0 {
            break;
        }
    }
    left == 0
}

/// The calls whose name or keys performed a verb of `class` (a call once per verb it did).
fn performing<'l>(by_action: &'l Lists, class: &'l [u32]) -> impl Iterator<Item = usize> + 'l {
    class
        .iter()
        .flat_map(|&a| by_action.get(a).iter().map(|&c| c as usize))
}

/// The calls that performed a class some unbacked claim asks for, their argument values read,
/// indexed by the claim words they hold exactly or by prefix kin.
struct Deep {
    /// The calls read.
    calls: Vec<u32>,
    /// Of those, the ones that match any object.
    any_object: Vec<u32>,
    /// Of those, the ones named for stored things of any kind (`container`).
    containers: Vec<u32>,
    /// Claim word -> `call << 1 | kin`.
    by_word: Lists,
}

impl Deep {
    #[allow(clippy::too_many_arguments)]
    fn build<'a>(
        queries: &[Query<'_>],
        failed: &[usize],
        update_class: &[u32],
        named: &[bool],
        calls: &'a [ToolCall],
        evidence: &mut [CallEvidence],
        arena: &mut Arena,
        pieces: &mut Pieces<'a>,
        vocab: &mut Vocab<'a>,
    ) -> Self {
        // The words the unbacked claims ask about, and the verbs of their classes (a table by
        // word id: a call's actions are each looked up once, not compared with every verb of
        // every class).
        let mut wanted = vec![false; vocab.words.len()];
        let mut in_class = vec![false; vocab.words.len()];
        let mut kin_wanted = false;
        for &qi in failed {
            let q = &queries[qi];
            let target = if q.target.is_empty() {
                &[]
            } else {
                update_class
            };
            for &v in q.class.iter().chain(target) {
                in_class[v as usize] = true;
            }
            for &w in q.object.iter().chain(q.target) {
                wanted[w as usize] = true;
                kin_wanted |= !named[w as usize];
            }
        }
        let mut kin = KinWords::default();
        if kin_wanted {
            for (w, _) in wanted.iter().enumerate().filter(|(_, on)| **on) {
                kin.add(w as u32, vocab.word(w as u32));
            }
        }
        let mut relation = Relation {
            wanted,
            kin,
            memo: Vec::new(),
            out: Vec::new(),
        };
        let mut deep = Deep {
            calls: Vec::new(),
            any_object: Vec::new(),
            containers: Vec::new(),
            by_word: Lists::build(0, &[]),
        };
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            let e = &mut evidence[i];
            let performs = || {
                e.actions(arena)
                    .iter()
                    .any(|&a| in_class.get(a as usize).copied().unwrap_or(false))
            };
            // A call that writes, or whose name names no verb, may say in a one-word value
            // what it did (`update_issue` with `"state": "closed"`, a review with `"event":
            // "APPROVE"`, `kubectl_rollout` with `"subCommand": "restart"`).
            // Such a call is read in full only when one of those values is a verb of a class
            // some unbacked claim asks for.
            let states = e.verbless || e.mutating;
            if !e.can_back {
                continue;
            }
            if !(e.executor || performs()) {
                let asked = |v: u32| in_class.get(v as usize).copied().unwrap_or(false);
                if !(states && pieces.one_word_verb(call, vocab, asked)) {
                    continue;
                }
            }
            let c = i as u32;
            let mut read = |w: u32, vocab: &Vocab<'_>| {
                for &r in relation.of(w, vocab) {
                    pairs.push((r >> 1, (c << 1) | (r & 1)));
                }
            };
            for &w in e.words(arena) {
                read(w, vocab);
            }
            e.read_values(call, states, pieces, vocab, arena, &mut read);
            deep.calls.push(c);
            if e.any_object {
                deep.any_object.push(c);
            }
            if e.container {
                deep.containers.push(c);
            }
        }
        deep.by_word = Lists::build(vocab.words.len(), &pairs);
        deep
    }

    /// The calls read that hold claim word `w` exactly (not only by prefix kin).
    fn holding(&self, w: u32) -> impl Iterator<Item = usize> + '_ {
        self.by_word
            .get(w)
            .iter()
            .filter(|&&e| e & 1 == 0)
            .map(|&e| (e >> 1) as usize)
    }

    /// Appends the calls read that performed one of `class` and hold a word of `object`
    /// (exactly, or also by prefix kin when `kin`); every such call when `object` is empty.
    fn touching(
        &self,
        class: &[u32],
        object: &[u32],
        kin: bool,
        evidence: &[CallEvidence],
        arena: &Arena,
        out: &mut Vec<usize>,
    ) {
        let performs = |c: u32| evidence[c as usize].performs(arena, class);
        if object.is_empty() {
            out.extend(
                self.calls
                    .iter()
                    .filter(|&&c| performs(c))
                    .map(|&c| c as usize),
            );
            return;
        }
        out.extend(
            self.any_object
                .iter()
                .filter(|&&c| performs(c))
                .map(|&c| c as usize),
        );
        for &o in object {
            for &entry in self.by_word.get(o) {
                let c = entry >> 1;
                if (kin || entry & 1 == 0) && performs(c) {
                    out.push(c as usize);
                }
            }
        }
    }
}

/// The claim words a call's word answers: itself when a claim asks for it, and the claim words
/// it shares a prefix with (`r << 1 | 1`). Computed once per word.
struct Relation {
    wanted: Vec<bool>,
    kin: KinWords,
    /// Per word id: its range in `out` (`u32::MAX` when not computed yet).
    memo: Vec<(u32, u32)>,
    out: Vec<u32>,
}

impl Relation {
    fn of(&mut self, w: u32, vocab: &Vocab<'_>) -> &[u32] {
        let i = w as usize;
        if self.memo.len() <= i {
            self.memo
                .resize(vocab.words.len().max(i + 1), (u32::MAX, 0));
        }
        if self.memo[i].0 == u32::MAX {
            let first = self.out.len() as u32;
            if self.wanted.get(i).copied().unwrap_or(false) {
                self.out.push(w << 1);
            }
            self.kin.related(w, vocab, &mut self.out);
            self.memo[i] = (first, self.out.len() as u32);
        }
        let (a, b) = self.memo[i];
        &self.out[a as usize..b as usize]
    }
}

/// Claim words by their first [`MIN_KIN`] characters, for prefix kinship.
struct KinWords {
    /// Claim word ids by a hash of their first characters (a shared bucket is harmless:
    /// every candidate is checked by prefix).
    buckets: HashMap<u64, Vec<u32>>,
    /// The first bytes of those words: a word that begins otherwise has no kin, and is ruled
    /// out without hashing.
    first: [bool; 256],
}

impl Default for KinWords {
    fn default() -> Self {
        KinWords {
            buckets: HashMap::default(),
            first: [false; 256],
        }
    }
}

impl KinWords {
    fn add(&mut self, id: u32, word: &str) {
        if let Some(key) = kin_key(word) {
            self.buckets.entry(key).or_default().push(id);
            self.first[usize::from(word.as_bytes()[0])] = true;
        }
    }

    /// Appends `o << 1 | 1` for each claim word `o` other than `word` that begins it or that
    /// it begins (both at least [`MIN_KIN`] characters long).
    fn related(&self, id: u32, vocab: &Vocab<'_>, out: &mut Vec<u32>) {
        let word = vocab.word(id);
        match word.as_bytes().first() {
            Some(&b) if self.first[usize::from(b)] => {}
            _ => return,
        }
        let Some(bucket) = kin_key(word).and_then(|k| self.buckets.get(&k)) else {
            return;
        };
        for &o in bucket {
            let text = vocab.word(o);
            if o != id && (word.starts_with(text) || text.starts_with(word)) {
                out.push((o << 1) | 1);
            }
        }
    }
}

/// A hash of the first [`MIN_KIN`] characters of a word, when it has that many.
fn kin_key(word: &str) -> Option<u64> {
    // Kinship relates forms of a word ("bag" / "baggage"); a number or an identifier is only
    // itself ("48" is no kin of "481", nor `rev2024` of `rev2024b`).
    if has_digit(word) {
        return None;
    }
    let mut ends = word.char_indices().map(|(b, c)| b + c.len_utf8());
    let end = ends.nth(MIN_KIN - 1)?;
    let mut h = FastHasher::default();
    h.write(&word.as_bytes()[..end]);
    Some(h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outcomes_words_are_name_pieces_of_string_values() {
        let args = serde_json::json!({
            "message": "Fix MetaSep token mapping",
            "files": [{"path": "src/a.rs", "content": "Resolve the Conflicts"}],
            "n": 3
        });
        let debug = serde_json::json!({"m": "debug"});
        let long = serde_json::json!({"m": format!("{}\u{e9} bug", "x ".repeat(OUTCOME_TEXT / 2))});
        let short = serde_json::json!({"m": "bug"});
        let mut vocab = Vocab::with_capacity(16);
        let mut pieces = Pieces::with_capacity(16);
        let ids = |words: &[&str], vocab: &mut Vocab<'_>| -> Vec<u32> {
            words.iter().map(|w| vocab.intern(w)).collect()
        };
        let meta = ids(&["meta", "sep", "token", "mapping"], &mut vocab);
        let fix = ids(&["conflict", "fix"], &mut vocab);
        let path = ids(&["conflict", "path"], &mut vocab);
        let bug = ids(&["bug"], &mut vocab);
        let mut names =
            |args, words: &[u32]| names_every_word(args, words, &mut pieces, &mut vocab);
        assert!(names(&args, &meta));
        // Normalized plurals, in any value at any depth; a key is no value.
        assert!(names(&args, &fix));
        assert!(!names(&args, &path));
        // A word inside another word is not named: "bug" is not in "debug".
        assert!(!names(&debug, &bug));
        // Only the first OUTCOME_TEXT bytes are read: a word beyond them is not found, and a
        // cut inside a character does not panic.
        assert!(!names(&long, &bug));
        assert!(names(&short, &bug));
    }

    #[test]
    fn a_closing_keyword_names_the_number_after_it() {
        let numbers = |t: &'static str| {
            let mut out = Vec::new();
            closing_numbers(t, &mut out);
            out
        };
        assert_eq!(numbers("Prepares CI.\n\n**Resolves #24**"), ["24"]);
        assert_eq!(numbers("fixes: #24, closes #25 and #26"), ["24", "25"]);
        assert_eq!(numbers("Resolves #245"), ["245"]);
        // A word that does not close, no keyword, no number.
        assert!(numbers("Relates to #24").is_empty());
        assert!(numbers("#24 #").is_empty());
        assert!(numbers("Fixes #").is_empty());
        // Text before the `#` that is not ASCII is read by characters.
        assert!(numbers("é#24 ü#24").is_empty());
        assert_eq!(numbers("résolu. Fixed #7"), ["7"]);
    }

    #[test]
    fn a_claim_takes_the_reference_after_it_when_it_gives_none() {
        let t = "I closed PR #24 and #25 today. Then #26.";
        let claim = t.find(" #24").unwrap();
        let end = t.find('.').unwrap();
        // The claim's own text ends at its head: the first reference after it, in its sentence.
        assert_eq!(with_reference(t, 2, claim, end), "closed PR #24");
        // A reference of its own is all it takes; a later sentence gives none.
        assert_eq!(with_reference(t, 2, claim + 4, end), "closed PR #24");
        assert_eq!(with_reference("Closed it. See #3", 0, 9, 10), "Closed it");
        assert_eq!(reference_number("24**"), "24");
        assert_eq!(reference_number("x24"), "");
    }

    #[test]
    fn lists_group_by_key_in_order() {
        let l = Lists::build(4, &[(2, 10), (0, 11), (2, 12), (3, 13)]);
        assert_eq!(l.get(0), &[11]);
        assert_eq!(l.get(1), &[] as &[u32]);
        assert_eq!(l.get(2), &[10, 12]);
        assert_eq!(l.get(3), &[13]);
        // A key beyond the table holds nothing.
        assert_eq!(l.get(9), &[] as &[u32]);
    }

    #[test]
    fn kin_is_a_shared_prefix_of_three_characters() {
        let mut vocab = Vocab::default();
        let [bag, baggage, ba, bagg] =
            ["bag", "baggage", "ba", "bagg"].map(|w| vocab.intern_borrowed(w));
        let mut k = KinWords::default();
        for id in [bag, baggage, ba] {
            k.add(id, vocab.word(id));
        }
        let mut out = Vec::new();
        k.related(bagg, &vocab, &mut out);
        assert_eq!(out, vec![(bag << 1) | 1, (baggage << 1) | 1]);
        out.clear();
        // A word is not its own kin, and two-character words take no part.
        k.related(bag, &vocab, &mut out);
        assert_eq!(out, vec![(baggage << 1) | 1]);
        out.clear();
        k.related(ba, &vocab, &mut out);
        assert!(out.is_empty());
    }
}
