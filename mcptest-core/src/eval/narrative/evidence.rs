//! What each recorded call shows it did: its actions (the verbs it performed) and the things
//! it touched (the words of its name, argument keys and, for calls that change state, argument
//! values). A claim is backed by a call whose actions include a verb of the claim's class and
//! whose words include a word of the claim's object.

use super::lexicon::{
    action_noun, foreign_name_verb, has_digit, is_base_mutating_verb, is_light_verb, is_read_verb,
    is_state_verb, is_stored_thing, normalize, verb_class,
};
use super::tokenize::{clip, name_pieces};
use super::{Vocab, lowered};
use crate::fasthash::{HashMap, ShortSlot, ShortTable, Text, same_bytes};
use crate::trace::ToolCall;
use serde_json::Value;
use std::borrow::Cow;

/// Name words that make a tool a generic executor: its arguments carry the action
/// (`execute_sql` with `CREATE TABLE ...`, `run_command`, `execute_action`).
const EXECUTORS: &[&str] = &[
    "execute", "exec", "run", "sql", "command", "cmd", "shell", "eval", "invoke", "perform",
    "mutate", "mutation", "graphql", "batch", "action", "script", "api",
];

/// Name words that open a question, not an action (`can_send_mms`, `is_enabled`).
const QUERY_PREFIXES: &[&str] = &[
    "can",
    "is",
    "has",
    "should",
    "does",
    "will",
    "calculate",
    "compute",
    "count",
    "show",
    "lookup",
    "think",
    "estimate",
    "preview",
    "track",
    "test",
    "ping",
    "echo",
    "browse",
    "discover",
];

/// How much argument text of one call is read for its words (bytes). A call's arguments
/// beyond this (a file's content, a long document) name no further action.
const VALUE_TEXT_LIMIT: usize = 64 * 1024;

/// The longest string value read as a status (`"closed"`, `"APPROVE"`, `"restart"`).
const STATUS_MAX: usize = 32;

/// The one piece of a string value that is a status: at most [`STATUS_MAX`] bytes, one name
/// piece (`spans`, from [`name_pieces`]), no digit. A status or a command word names what a
/// call did; a sentence of text or an identifier does not.
fn status_piece<'s>(value: &'s str, spans: &[(usize, usize)]) -> Option<&'s str> {
    match spans {
        [(a, b)] if value.len() <= STATUS_MAX && !has_digit(&value[*a..*b]) => Some(&value[*a..*b]),
        _ => None,
    }
}

/// The server's own word on a tool, from the MCP tool annotations a cassette recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToolHint {
    /// `readOnlyHint`: true when the tool does not change its environment.
    pub read_only: Option<bool>,
    /// `destructiveHint`: true when the tool may destroy or overwrite.
    pub destructive: Option<bool>,
}

impl ToolHint {
    /// What the hint says of writing: `Some(false)` for a read-only tool, `Some(true)` for one
    /// declared writing (`readOnlyHint: false` or `destructiveHint: true`), `None` when silent.
    pub fn mutating(&self) -> Option<bool> {
        match (self.read_only, self.destructive) {
            (Some(true), _) => Some(false),
            (Some(false), _) | (_, Some(true)) => Some(true),
            _ => None,
        }
    }
}

/// What one raw piece of a name, key or value says, computed once per distinct piece.
#[derive(Debug, Clone, Copy)]
pub(super) struct PieceFacts {
    /// The normalized word.
    pub id: u32,
    /// The state-changing verb it is (English base, or a known verb of another language).
    verb: Option<u32>,
    /// True when the verb came from another language.
    foreign: bool,
    /// A read verb or a question word: a name that opens with it performs nothing.
    read: bool,
    /// One of the 22 base verbs, as written.
    base22: bool,
    /// `or` / `and`.
    joiner: bool,
    /// A generic executor word.
    executor: bool,
    /// A light verb.
    light: bool,
    /// A verb of the update class (`update`, `patch`, `set`): it says that something changed,
    /// not what.
    updates: bool,
    /// `create` or `add`: with an action noun at the end of the name, it does that action
    /// (`create_refund` refunds, `create_relations` links).
    maker: bool,
    /// Written in its base form (`create`, not `created`) and, in an argument value, first in
    /// its identifier: a command (`CREATE TABLE`, `archive_project`), not a part of a name
    /// (`col_order` names a column, not an order).
    base_form: bool,
    /// A light verb tool names mostly use as a noun: `issue`, `process`.
    noun_first: bool,
    /// An HTTP method (`post`, `put`, `patch`): before a read word it names how a read is sent
    /// (`API-post-search`, `post_database_query`), not an action.
    method: bool,
    /// A word for any kind of thing a tool stores (`page`, `block`, `record`, `row`, `item`).
    container: bool,
    /// The verb an action noun names.
    action_noun: Option<u32>,
    /// True when the raw piece has 3 or more characters (a salient part of a name).
    pub long: bool,
}

impl PieceFacts {
    /// The state-changing verb the piece is, read in English (a verb of another language names
    /// only a tool's action).
    fn state_verb(&self) -> Option<u32> {
        self.verb.filter(|_| !self.foreign)
    }

    /// The facts of a piece that is no word of the lexicon.
    fn plain(id: u32, raw: &str) -> Self {
        PieceFacts {
            id,
            verb: None,
            foreign: false,
            read: false,
            base22: false,
            joiner: false,
            executor: false,
            light: false,
            updates: false,
            maker: false,
            base_form: false,
            noun_first: false,
            method: false,
            container: false,
            action_noun: None,
            long: raw.chars().nth(2).is_some(),
        }
    }
}

/// The per-check cache of piece facts, keyed by the raw piece.
#[derive(Default)]
pub(super) struct Pieces<'a> {
    facts: HashMap<Text<'a>, PieceFacts>,
    /// The facts of short pieces (eight bytes or fewer) ahead of `facts`: most pieces are short
    /// and repeat.
    short: ShortTable<PieceFacts, SHORT_PIECE_BITS>,
    spans: Vec<(usize, usize)>,
    /// Argument keys already split: their range in `key_facts`, and their number in order
    /// of first appearance.
    keys: HashMap<Text<'a>, (u32, u32, u32)>,
    key_facts: Vec<PieceFacts>,
    /// The keys of the latest call, by position, with their entry in `keys`.
    last_keys: Vec<(&'a str, (u32, u32, u32))>,
    lower: String,
    /// Reused buffers of `CallEvidence::read_values`.
    scratch: Vec<PieceFacts>,
    values: Vec<&'a Value>,
    /// The comments and quoted literals of the statement being split ([`prose_spans`]).
    prose: Vec<(usize, usize)>,
}

impl<'a> Pieces<'a> {
    /// A cache with room for `n` distinct pieces.
    pub(super) fn with_capacity(n: usize) -> Self {
        Pieces {
            facts: HashMap::with_capacity_and_hasher(n, Default::default()),
            ..Pieces::default()
        }
    }

    #[inline]
    fn facts(&mut self, raw: &'a str, vocab: &mut Vocab<'a>) -> PieceFacts {
        // Most pieces are short and seen before: found in the cache of short pieces, which
        // holds no piece with a digit.
        let slot = ShortTable::<PieceFacts, SHORT_PIECE_BITS>::slot(raw.as_bytes());
        match slot.and_then(|k| self.short.get(k)) {
            Some(f) => f,
            None => self.read_facts(raw, slot, vocab),
        }
    }

    /// The facts of a piece past the cache of short pieces (`slot`: its place there, when it
    /// is short).
    #[inline(never)]
    fn read_facts(
        &mut self,
        raw: &'a str,
        slot: Option<ShortSlot>,
        vocab: &mut Vocab<'a>,
    ) -> PieceFacts {
        if has_digit(raw) {
            // No word of the lexicon holds a digit: an id or a number is only itself, and
            // its word is all there is to know (ids are mostly unique: nothing to cache). One
            // the text does not hold (the text's words are all in the vocabulary by now) can
            // be neither mentioned nor claimed, and has no kin: it is the unknown word.
            let id = self.held_id(raw, vocab).unwrap_or_else(|| vocab.unknown());
            return PieceFacts::plain(id, raw);
        }
        let f = match self.facts.entry(Text(raw)) {
            std::collections::hash_map::Entry::Occupied(e) => *e.get(),
            std::collections::hash_map::Entry::Vacant(slot) => {
                let mut buf = std::mem::take(&mut self.lower);
                let (id, lower) = vocab.raw_piece(raw, &mut buf);
                let f = Self::facts_of(id, raw, lower, vocab);
                self.lower = buf;
                *slot.insert(f)
            }
        };
        if let Some(k) = slot {
            self.short.set(k, f);
        }
        f
    }

    /// The id of a piece with a digit (a number or an identifier, only ever itself) when the
    /// vocabulary holds it: by the time calls are read, every word of the text is there.
    fn held_id(&mut self, raw: &str, vocab: &Vocab<'a>) -> Option<u32> {
        vocab.id(lowered(raw, &mut self.lower))
    }

    fn facts_of(id: u32, raw: &str, lower: &str, vocab: &mut Vocab<'a>) -> PieceFacts {
        let norm = normalize(lower);
        let (verb, foreign) = if is_state_verb(&norm) {
            (Some(id), false)
        } else {
            match foreign_name_verb(&norm) {
                Some(v) => (Some(vocab.intern_borrowed(v)), true),
                None => (None, false),
            }
        };
        PieceFacts {
            id,
            verb,
            foreign,
            read: QUERY_PREFIXES.contains(&lower) || is_read_verb(lower) || is_read_verb(&norm),
            base22: is_base_mutating_verb(lower),
            joiner: matches!(lower, "or" | "and"),
            executor: EXECUTORS.contains(&lower),
            light: is_light_verb(&norm),
            updates: verb_class(&norm).contains(&"update"),
            maker: matches!(norm.as_ref(), "create" | "add"),
            base_form: norm.as_ref() == lower,
            noun_first: matches!(norm.as_ref(), "issue" | "process"),
            method: matches!(lower, "post" | "put" | "patch"),
            container: is_stored_thing(&norm),
            action_noun: action_noun(&norm).map(|a| vocab.intern_borrowed(a)),
            long: raw.chars().nth(2).is_some(),
        }
    }

    /// The facts of every piece of an argument key (keys repeat across calls: each is split
    /// once).
    fn key(&mut self, key: &'a str, vocab: &mut Vocab<'a>) -> (u32, u32, u32) {
        if let Some(&r) = self.keys.get(&Text(key)) {
            return r;
        }
        self.new_key(key, vocab)
    }

    /// The facts of the `position`-th argument key of a call: calls of one tool mostly write
    /// the same keys in the same order, so the key at that position in the previous call is
    /// compared first (bytes, inline) before the key is looked up.
    fn key_at(&mut self, position: usize, key: &'a str, vocab: &mut Vocab<'a>) -> (u32, u32, u32) {
        if let Some(&(k, r)) = self.last_keys.get(position)
            && same_bytes(k.as_bytes(), key.as_bytes())
        {
            return r;
        }
        let r = self.key(key, vocab);
        if position < self.last_keys.len() {
            self.last_keys[position] = (key, r);
        } else if position == self.last_keys.len() {
            self.last_keys.push((key, r));
        }
        r
    }

    #[cold]
    fn new_key(&mut self, key: &'a str, vocab: &mut Vocab<'a>) -> (u32, u32, u32) {
        let mut out = std::mem::take(&mut self.key_facts);
        let first = out.len() as u32;
        self.split(key, vocab, &mut out);
        let r = (first, out.len() as u32, self.keys.len() as u32);
        self.key_facts = out;
        self.keys.insert(Text(key), r);
        r
    }

    /// The facts of the pieces of an argument value that can relate to a claim, appended to
    /// `out`: a number or an identifier (a piece with a digit) that the vocabulary does not
    /// hold is skipped (no claim asks for it, and it has no kin), not added to it. Returns the
    /// state-changing verb the value is, when it is a status ([`status_piece`]).
    /// With `code`, the value is a statement an executor runs: a verb in one of its comments
    /// or quoted literals is prose or data, not a command (`-- check the salary before
    /// update`, `SELECT 'Tables created'`).
    fn split_value(
        &mut self,
        text: &'a str,
        code: bool,
        vocab: &mut Vocab<'a>,
        out: &mut Vec<PieceFacts>,
    ) -> Option<u32> {
        if (1..=8).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_lowercase()) {
            // A short word in small letters (`"high"`, `"closed"`): one piece, the whole of
            // it, and a status, as the full reading finds.
            let facts = self.facts(text, vocab);
            out.push(facts);
            return facts.state_verb();
        }
        self.split_value_in_full(text, code, vocab, out)
    }

    /// [`split_value`](Self::split_value) for any value.
    fn split_value_in_full(
        &mut self,
        text: &'a str,
        code: bool,
        vocab: &mut Vocab<'a>,
        out: &mut Vec<PieceFacts>,
    ) -> Option<u32> {
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        name_pieces(text, &mut spans);
        let mut prose = std::mem::take(&mut self.prose);
        prose.clear();
        if code {
            prose_spans(text, &mut prose);
        }
        let mut next_prose = 0;
        let status = status_piece(text, &spans).is_some();
        let first = out.len();
        for &(a, b) in &spans {
            let raw = &text[a..b];
            if has_digit(raw) {
                if let Some(id) = self.held_id(raw, vocab) {
                    out.push(PieceFacts::plain(id, raw));
                }
                continue;
            }
            let mut facts = self.facts(raw, vocab);
            // Joined to the piece before it by `_`, `-` or a capital, it is part of a name.
            facts.base_form &= !text[..a]
                .chars()
                .next_back()
                .is_some_and(|c| c == '_' || c == '-' || c.is_alphanumeric());
            // Spans and prose both run in text order: one walk finds the prose around a piece.
            while prose.get(next_prose).is_some_and(|&(_, end)| end <= a) {
                next_prose += 1;
            }
            facts.base_form &= prose.get(next_prose).is_none_or(|&(start, _)| start > a);
            out.push(facts);
        }
        self.spans = spans;
        self.prose = prose;
        // A status's one piece has no digit: it was read as a word, the last pushed.
        out.get(first)
            .filter(|_| status)
            .and_then(PieceFacts::state_verb)
    }

    /// True when some string among `call`'s argument values is a status ([`status_piece`])
    /// naming a state-changing verb `wanted` accepts (`"state": "closed"`). Longer values are
    /// passed over unsplit.
    pub(super) fn one_word_verb(
        &mut self,
        call: &'a ToolCall,
        vocab: &mut Vocab<'a>,
        wanted: impl Fn(u32) -> bool,
    ) -> bool {
        let Some(args) = &call.args else {
            return false;
        };
        let mut stack = std::mem::take(&mut self.values);
        stack.clear();
        stack.push(args);
        let mut found = false;
        // Bounded like `read_values`: a huge argument is not walked past this many values.
        let mut budget = 4096usize;
        while let Some(v) = stack.pop() {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                break;
            }
            match v {
                Value::String(s) if s.len() <= STATUS_MAX || is_json_object(s) => {
                    let short = Some(s.as_str()).filter(|s| s.len() <= STATUS_MAX);
                    found = short
                        .into_iter()
                        .chain(embedded_values(s))
                        .any(|text| self.names_status(text, vocab, &wanted));
                }
                Value::Array(xs) => stack.extend(xs.iter()),
                Value::Object(m) => {
                    // A flag set on (`"archived": true`) is read as its key, as `read_values`
                    // reads it.
                    found = m.iter().any(|(k, x)| {
                        *x == Value::Bool(true) && self.names_status(k, vocab, &wanted)
                    });
                    stack.extend(m.values());
                }
                _ => {}
            }
            if found {
                break;
            }
        }
        self.values = stack;
        found
    }

    /// True when `text` is a status ([`status_piece`]) naming a state-changing verb `wanted`
    /// accepts.
    fn names_status(
        &mut self,
        text: &'a str,
        vocab: &mut Vocab<'a>,
        wanted: impl Fn(u32) -> bool,
    ) -> bool {
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        name_pieces(text, &mut spans);
        let piece = status_piece(text, &spans);
        self.spans = spans;
        piece.is_some_and(|raw| self.facts(raw, vocab).state_verb().is_some_and(wanted))
    }

    /// The facts of every piece of `text`, appended to `out`.
    pub(super) fn split(
        &mut self,
        text: &'a str,
        vocab: &mut Vocab<'a>,
        out: &mut Vec<PieceFacts>,
    ) {
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        name_pieces(text, &mut spans);
        for &(a, b) in &spans {
            out.push(self.facts(&text[a..b], vocab));
        }
        self.spans = spans;
    }
}

/// The actions of a tool name: its leading verb (after any namespace words) and the verbs
/// joined to it by `or`/`and` (`create_or_update_file`); a light verb followed by an action
/// noun also performs that action (`make_payment` pays). A name that opens with a read verb or
/// a question (`get_cancel_policy`, `can_send_mms`) performs none. Appends them to `out`;
/// returns whether the verb is of another language.
fn name_actions(pieces: &[PieceFacts], out: &mut Vec<u32>) -> bool {
    let mut foreign = false;
    // `issue` or `process` ending a name is the thing, not the act (`github_issue`,
    // `kill_process`), as is its plural anywhere (`issues_and_pull_requests`); `kubectl_apply`
    // does apply.
    let last = pieces.len().saturating_sub(1);
    let Some(mut i) = pieces.iter().enumerate().position(|(k, p)| {
        p.read || (p.verb.is_some() && !(p.noun_first && (k == last || !p.base_form)))
    }) else {
        return false;
    };
    if pieces[i].read || sends_read(pieces, i) {
        return false;
    }
    while let Some(verb) = pieces.get(i).and_then(|p| p.verb) {
        foreign |= pieces[i].foreign;
        out.push(verb);
        if let Some(a) = pieces
            .get(i + 1)
            .and_then(|p| p.action_noun)
            .filter(|_| pieces[i].light)
        {
            out.push(a);
        } else if let Some(a) = pieces
            .last()
            .filter(|_| pieces[i].maker && i + 1 < pieces.len())
            .and_then(|p| p.action_noun)
        {
            // The thing made is an action: `create_refund` refunds, `add_assignee` assigns.
            out.push(a);
        }
        match pieces.get(i + 1) {
            Some(p) if p.joiner => i += 2,
            _ => break,
        }
    }
    foreign
}

/// True when piece `k` is an HTTP method that sends a read (a read word among the next two
/// pieces): `API-post-search`, `post_database_query`, a `POST` to `/v1/search`.
fn sends_read(pieces: &[PieceFacts], k: usize) -> bool {
    pieces[k].method && pieces[k + 1..].iter().take(2).any(|p| p.read)
}

/// Facts shared by every call of one tool name. Its word and action ids live in the shared
/// [`Arena`].
pub(super) struct NameFacts {
    /// Range in `Arena::ids`: the ids of the name's pieces, those of 3 or more characters first.
    ids: (u32, u32),
    /// How many of `ids` come from pieces of 3 or more characters.
    salient: u32,
    /// Range in `Arena::ids`: the verbs the name performs.
    actions: (u32, u32),
    pub executor: bool,
    /// True when the name's things are all words for any stored thing (`API-post-page`).
    pub container: bool,
    /// True when the name's verb is of another language (`crear_solicitud`): its other words
    /// cannot be compared with an English narrative, so any object matches.
    pub foreign: bool,
    /// True when the name says it writes: one of the 22 verbs as a word, a state-changing
    /// leading verb, or an executor.
    pub writes: bool,
    /// True when no word of the name is a verb, read or written (`kubectl_rollout`,
    /// `transition_issue`): what the call did is in its arguments.
    pub verbless: bool,
}

/// Word and action ids of every name and call, in one buffer (ranges name their parts), so
/// a trace of many calls costs no allocation per call.
#[derive(Default)]
pub(super) struct Arena {
    ids: Vec<u32>,
}

impl Arena {
    pub(super) fn with_capacity(n: usize) -> Self {
        Arena {
            ids: Vec::with_capacity(n),
        }
    }

    fn get(&self, (a, b): (u32, u32)) -> &[u32] {
        &self.ids[a as usize..b as usize]
    }

    /// Appends a copy of the range `a..b` of the arena (a few ids: copied one by one, not
    /// through a call to copy memory).
    fn push_copy(&mut self, (a, b): (u32, u32)) {
        for k in a as usize..b as usize {
            let id = self.ids[k];
            self.ids.push(id);
        }
    }

    fn push_range(&mut self, ids: impl IntoIterator<Item = u32>) -> (u32, u32) {
        let first = self.ids.len() as u32;
        self.ids.extend(ids);
        (first, self.ids.len() as u32)
    }
}

impl NameFacts {
    pub(super) fn new<'a>(
        name: &'a str,
        pieces: &mut Pieces<'a>,
        vocab: &mut Vocab<'a>,
        arena: &mut Arena,
    ) -> Self {
        let mut ps = std::mem::take(&mut pieces.scratch);
        ps.clear();
        pieces.split(name, vocab, &mut ps);
        // A generic executor names no specific action of its own: `execute_sql`,
        // `run_command`, `API-patch-page`, `batch_update` carry it in their arguments;
        // `API-create-a-comment` creates a comment, whatever its text says.
        let specific = ps
            .iter()
            .any(|p| p.verb.is_some() && !p.light && !p.updates && !p.foreign);
        // `API-retrieve-a-page` reads (`run_query` runs: an executor word is no read).
        let reads = ps
            .iter()
            .find(|p| !p.executor && (p.read || p.verb.is_some()))
            .is_some_and(|p| p.read);
        let executor = !specific && !reads && ps.iter().any(|p| p.executor);
        let container = names_only_stored_things(&ps);
        let base22 = ps.iter().any(|p| p.base22);
        let long = arena.push_range(ps.iter().filter(|p| p.long).map(|p| p.id));
        let all = arena.push_range(ps.iter().filter(|p| !p.long).map(|p| p.id));
        let first = arena.ids.len() as u32;
        let foreign = name_actions(&ps, &mut arena.ids);
        let actions = (first, arena.ids.len() as u32);
        let writes = base22 || actions.1 > actions.0 || executor;
        let verbless = actions.0 == actions.1 && !ps.iter().any(|p| p.read);
        pieces.scratch = ps;
        NameFacts {
            ids: (long.0, all.1),
            salient: long.1 - long.0,
            actions,
            executor,
            container,
            foreign,
            writes,
            verbless,
        }
    }

    /// The ids of the name's pieces.
    pub(super) fn ids<'r>(&self, arena: &'r Arena) -> &'r [u32] {
        arena.get(self.ids)
    }

    /// The ids of the name's pieces of 3 or more characters.
    pub(super) fn salient<'r>(&self, arena: &'r Arena) -> &'r [u32] {
        &self.ids(arena)[..self.salient as usize]
    }
}

/// Per call: what it did and what it touched (ranges in the [`Arena`]).
#[derive(Clone, Copy)]
pub(super) struct CallEvidence {
    /// Verb ids the call performed, by its name and (for a write) its argument keys.
    actions: (u32, u32),
    /// Verb ids among an executor's argument values (set when they are read).
    value_actions: (u32, u32),
    /// Word ids of its name and top-level argument keys (unsorted; may repeat).
    words: (u32, u32),
    /// True when the call changes state (overrides, then annotations, then its name).
    pub mutating: bool,
    /// False when the call is declared read-only (it backs no claim).
    pub can_back: bool,
    /// True when its name makes it a generic executor (its values carry actions).
    pub executor: bool,
    /// True when its argument values may carry actions (an executor) or things (a write).
    values_count: bool,
    /// True when any object matches (a tool named in another language).
    pub any_object: bool,
    /// True when its name names only a stored thing of any kind (`API-post-page`).
    pub container: bool,
    /// True when its name names no verb: a one-word argument value may say what it did.
    pub verbless: bool,
    /// True once its values are read, when it runs a statement (an executor that names no
    /// action: `execute_sql`), whose verbs are its actions.
    pub runs_statement: bool,
}

impl CallEvidence {
    /// Evidence from a call's name facts and its top-level argument keys; the call's
    /// arguments are added to `args`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new<'a>(
        call: &'a ToolCall,
        facts: &NameFacts,
        mutating: bool,
        can_back: bool,
        pieces: &mut Pieces<'a>,
        vocab: &mut Vocab<'a>,
        arena: &mut Arena,
        args: &mut Args<'a>,
    ) -> Self {
        let first = arena.ids.len();
        arena.push_copy(facts.ids);
        let args_first = args.args.len() as u32;
        if let Some(Value::Object(m)) = &call.args {
            for (position, (k, v)) in m.iter().enumerate() {
                let (a, b, raw) = pieces.key_at(position, k, vocab);
                arena.ids.extend(
                    pieces.key_facts[a as usize..b as usize]
                        .iter()
                        .map(|p| p.id),
                );
                args.push(raw, (a, b), k, v);
            }
        }
        args.ranges.push((args_first, args.args.len() as u32));
        let words_end = arena.ids.len();
        arena.push_copy(facts.actions);
        // A write's argument keys can name what it did (`payment_id`: it paid).
        if mutating {
            let (from, to) = args.ranges[args.ranges.len() - 1];
            for &(_, raw, _) in &args.args[from as usize..to as usize] {
                let (a, b) = args.raw_keys[raw as usize];
                for p in &pieces.key_facts[a as usize..b as usize] {
                    // A light verb names no action of its own: `issue_key` is the issue's.
                    if !p.foreign {
                        arena
                            .ids
                            .extend(p.action_noun.or(p.verb.filter(|_| !p.light)));
                    }
                }
            }
        }
        // A write or a verbless call that passes a statement (`apply_migration` with `query`,
        // a tool with `sql`) is read through it like a generic executor; a read's query is a
        // question (`search_documentation` with "how to create pages" creates nothing).
        let statement = (mutating || facts.verbless)
            && matches!(&call.args, Some(Value::Object(m)) if m.iter().any(|(k, v)| {
                v.is_string()
                    && (3..=9).contains(&k.len())
                    && STATEMENT_KEYS.iter().any(|s| s.eq_ignore_ascii_case(k))
            }));
        // A write that carries a list of new things adds them: `API-patch-block-children`
        // with `children`, `push_files` with `files` ("created a heading block", "created
        // `src/main.js`").
        // So does an executor's JSON body passed as a string (`"body_schema": "{\"children\":
        // [{...}]}"`).
        if mutating
            && let Some(Value::Object(m)) = &call.args
            && m.values().any(|v| match v {
                Value::String(text) => carries_object_list(text),
                v => is_object_list(v),
            })
        {
            arena.ids.push(vocab.intern_borrowed("append"));
        }
        CallEvidence {
            words: (first as u32, words_end as u32),
            actions: (words_end as u32, arena.ids.len() as u32),
            value_actions: (0, 0),
            mutating,
            can_back,
            executor: facts.executor || statement,
            values_count: can_back && (mutating || facts.executor || statement || facts.verbless),
            any_object: facts.foreign,
            container: facts.container,
            verbless: facts.verbless,
            runs_statement: false,
        }
    }

    /// Word ids of the call's name and top-level argument keys.
    pub(super) fn words<'r>(&self, arena: &'r Arena) -> &'r [u32] {
        arena.get(self.words)
    }

    /// True when the call can back claims and its name or keys performed one of `class`.
    pub(super) fn performs_by_name(&self, arena: &Arena, class: &[u32]) -> bool {
        self.can_back && arena.get(self.actions).iter().any(|a| class.contains(a))
    }

    /// True when the call can back claims and performed one of `class` (an executor's argument
    /// values included, once read).
    pub(super) fn performs(&self, arena: &Arena, class: &[u32]) -> bool {
        self.performs_by_name(arena, class)
            || (self.can_back
                && arena
                    .get(self.value_actions)
                    .iter()
                    .any(|a| class.contains(a)))
    }

    /// True when the call's argument values, once read, performed a state-changing verb (an
    /// executor's `INSERT INTO`, not its `SELECT`).
    pub(super) fn acts_by_value(&self) -> bool {
        self.value_actions.1 > self.value_actions.0
    }

    /// The verbs the call performed by its name and keys.
    pub(super) fn actions<'r>(&self, arena: &'r Arena) -> &'r [u32] {
        arena.get(self.actions)
    }

    /// Reads the words of the argument values (and nested keys), passing each to `word`; for
    /// an executor, records the state-changing verbs among them as actions, and with `states`
    /// the values that are one such verb alone (`"state": "closed"`: it closed). Done once per
    /// call, when a claim needs it.
    pub(super) fn read_values<'a>(
        &mut self,
        call: &'a ToolCall,
        states: bool,
        pieces: &mut Pieces<'a>,
        vocab: &mut Vocab<'a>,
        arena: &mut Arena,
        mut word: impl FnMut(u32, &Vocab<'a>),
    ) {
        if !self.values_count {
            return;
        }
        self.values_count = false;
        let Some(args) = &call.args else { return };
        let mut budget = VALUE_TEXT_LIMIT;
        let mut ps = std::mem::take(&mut pieces.scratch);
        ps.clear();
        // The top-level keys are read already (`new`); their values, and everything nested,
        // are read here.
        let mut stack = std::mem::take(&mut pieces.values);
        stack.clear();
        match args {
            Value::Object(m) => stack.extend(m.values().rev()),
            other => stack.push(other),
        }
        let mut status_verbs = Vec::new();
        let code = self.executor;
        let mut add = |text: &'a str, budget: &mut usize, ps: &mut Vec<PieceFacts>| {
            let text = clip(text, *budget);
            *budget -= text.len();
            pieces.split_value(text, code, vocab, ps)
        };
        while let Some(v) = stack.pop() {
            if budget == 0 {
                break;
            }
            match v {
                Value::String(s) => {
                    status_verbs.extend(add(s, &mut budget, &mut ps));
                    for value in embedded_values(s) {
                        status_verbs.extend(add(value, &mut budget, &mut ps));
                    }
                }
                Value::Array(xs) => stack.extend(xs.iter().rev()),
                Value::Object(m) => {
                    for (k, x) in m.iter().rev() {
                        // A flag set on (`"archived": true`) says what the write did, as a
                        // one-word value does.
                        let status = add(k, &mut budget, &mut ps);
                        if *x == Value::Bool(true) {
                            status_verbs.extend(status);
                        }
                        stack.push(x);
                    }
                }
                _ => {}
            }
        }
        for p in &ps {
            word(p.id, vocab);
        }
        let named = if self.executor {
            named_action(args, pieces, vocab)
        } else {
            None
        };
        if let Some((actions, container)) = named {
            // `execute_action` with `"action_name": "patch_page"` did what that name says
            // (and `get_block_children` read), whatever its body holds; a write's one-word
            // value still says what it did (`"state": "closed"`). Named for stored things, it
            // holds any kind of thing, as `API-patch-page` does.
            self.container |= container;
            let status = if actions.is_empty() {
                &[][..]
            } else {
                &status_verbs[..]
            };
            self.value_actions = arena.push_range(actions.iter().chain(status).copied());
        } else if self.executor {
            self.runs_statement = true;
            // Commands are written in the base form (`CREATE TABLE`, `archive_project`); an
            // inflected verb describes data (`created_at`, "was archived").
            // `post_search` or `post_database_query` as a value is a read sent by POST; `ORDER
            // BY` sorts.
            let by = vocab.id("by");
            self.value_actions = arena.push_range(
                ps.iter()
                    .enumerate()
                    .filter(|&(k, p)| {
                        p.base_form
                            && !sends_read(&ps, k)
                            && !(by.is_some() && ps.get(k + 1).map(|n| n.id) == by)
                    })
                    .filter_map(|(_, p)| p.state_verb()),
            );
        } else if states {
            self.value_actions = arena.push_range(status_verbs);
        }
        pieces.scratch = ps;
        pieces.values = stack;
    }
}

/// The byte spans of a statement's comments (`-- ...` to the line's end, `/* ... */`) and
/// single-quoted literals (`'...'`, `''` inside one), in text order, appended to `out`. An
/// unclosed one runs to the end. Dollar-quoted bodies (`$$ ... $$`) are code and are read
/// through.
fn prose_spans(text: &str, out: &mut Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let end = match bytes[i] {
            b'-' if bytes.get(i + 1) == Some(&b'-') => memchr_from(bytes, i + 2, b'\n'),
            b'/' if bytes.get(i + 1) == Some(&b'*') => text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |k| i + 2 + k + 2),
            b'\'' => {
                let mut k = i + 1;
                loop {
                    k = memchr_from(bytes, k, b'\'');
                    if bytes.get(k + 1) == Some(&b'\'') {
                        k += 2;
                        continue;
                    }
                    break (k + 1).min(bytes.len());
                }
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.push((i, end));
        i = end;
    }
}

/// The index of the first `b` in `bytes` at or after `from`, or the length.
fn memchr_from(bytes: &[u8], from: usize, b: u8) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.iter().position(|&x| x == b))
        .map_or(bytes.len(), |k| from + k)
}

/// True when `text` is written as a JSON object (its first character past JSON's whitespace,
/// which is ASCII, is `{`).
fn is_json_object(text: &str) -> bool {
    text.bytes().find(|b| !b.is_ascii_whitespace()) == Some(b'{')
}

/// True for a list of objects (`"children": [{"type": "heading_3"}]`): new things a write
/// carries.
fn is_object_list(v: &Value) -> bool {
    matches!(v, Value::Array(xs) if matches!(xs.first(), Some(Value::Object(_))))
}

/// True when `text` is a JSON object written as text whose top-level key for new things
/// (`children`, `files`, `items`, `rows`, `records`, `entries`, `blocks`) holds a list of
/// objects ([`is_object_list`]). Lists deeper down (a block's `rich_text`) or under other keys
/// (a query's `sorts`) add nothing; text that does not parse adds nothing.
fn carries_object_list(text: &str) -> bool {
    const NEW_THINGS: &[&str] = &[
        "children", "files", "items", "rows", "records", "entries", "blocks",
    ];
    if !is_json_object(text) {
        return false;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => m
            .iter()
            .any(|(k, v)| NEW_THINGS.contains(&k.as_str()) && is_object_list(v)),
        _ => false,
    }
}

/// The short words a JSON object written as text states (`"body_schema": "{\"state\":
/// \"closed\", \"archived\": true}"`): each string value that holds no quote or backslash and
/// at most [`STATUS_MAX`] bytes, and the key of each flag set on (`"archived": true`: a flag
/// set on says what a write did, as a one-word value does); none when `text` is no object.
/// Slices of `text`, so they are read like the call's other values, and may be statuses too.
fn embedded_values(text: &str) -> impl Iterator<Item = &str> {
    // Most values are no object: they are passed over before any search is set up.
    is_json_object(text)
        .then_some(text)
        .into_iter()
        .flat_map(|text| {
            text.match_indices("\":").filter_map(move |(at, _)| {
                let value = text[at + 2..].trim_start_matches(' ');
                if let Some(rest) = value.strip_prefix('"') {
                    let end = rest.find(['"', '\\'])?;
                    return (end <= STATUS_MAX && rest.as_bytes().get(end) == Some(&b'"'))
                        .then(|| &rest[..end]);
                }
                let after = value.strip_prefix("true")?;
                if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                    return None;
                }
                let open = text[..at].rfind('"')?;
                let key = &text[open + 1..at];
                (key.len() <= STATUS_MAX && !key.contains('\\')).then_some(key)
            })
        })
}

/// The table of short pieces holds `1 << SHORT_PIECE_BITS` entries.
const SHORT_PIECE_BITS: u32 = 8;

/// Keys whose string value is a statement to run (`apply_migration` with `query`).
const STATEMENT_KEYS: &[&str] = &["sql", "query", "statement", "command", "cmd", "script"];

/// Keys under which a generic executor names the action it runs.
const ACTION_KEYS: &[&str] = &[
    "action",
    "action_name",
    "actionname",
    "operation",
    "operation_id",
    "operationid",
    "tool",
    "tool_name",
    "toolname",
    "function",
    "function_name",
];

/// Keys under which a generic executor names the group of actions its action belongs to.
const CATEGORY_KEYS: &[&str] = &["category", "category_name", "categoryname"];

/// The actions an executor's named action performs, when a top-level key of [`ACTION_KEYS`]
/// holds a name (`"action_name": "patch_page"` -> `patch`; `"get_block_children"` -> none: it
/// reads), and whether that name names only stored things of any kind (`patch_page`, as
/// `API-patch-page` does). A name of things alone takes the verb or read word of the category
/// the call names under [`CATEGORY_KEYS`] (`GITHUB_SEARCH`). `None` when neither has one.
fn named_action<'a>(
    args: &'a Value,
    pieces: &mut Pieces<'a>,
    vocab: &mut Vocab<'a>,
) -> Option<(Vec<u32>, bool)> {
    let Value::Object(m) = args else {
        return None;
    };
    let (ps, mut actions, mut reads) = name_verbs(name_under(m, ACTION_KEYS)?, pieces, vocab);
    // An action named by its things alone takes its verb from its category
    // (`"category_name": "GITHUB_SEARCH"`, `"action_name": "issues_and_pull_requests"`: a
    // search).
    if actions.is_empty()
        && !reads
        && let Some(category) = name_under(m, CATEGORY_KEYS)
    {
        (_, actions, reads) = name_verbs(category, pieces, vocab);
    }
    (!actions.is_empty() || reads).then_some((actions, names_only_stored_things(&ps)))
}

/// The pieces of `name`, the actions it names ([`name_actions`]) and whether it reads.
fn name_verbs<'a>(
    name: &'a str,
    pieces: &mut Pieces<'a>,
    vocab: &mut Vocab<'a>,
) -> (Vec<PieceFacts>, Vec<u32>, bool) {
    let mut ps = Vec::new();
    pieces.split(name, vocab, &mut ps);
    let mut actions = Vec::new();
    name_actions(&ps, &mut actions);
    let reads = ps.iter().any(|p| p.read);
    (ps, actions, reads)
}

/// The first name (at most 64 bytes, no whitespace) that a top-level key of `keys` holds.
fn name_under<'a>(m: &'a serde_json::Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    m.iter().find_map(|(k, v)| {
        let name = v.as_str()?;
        (keys.iter().any(|a| a.eq_ignore_ascii_case(k))
            && name.len() <= 64
            && !name.contains(char::is_whitespace))
        .then_some(name)
    })
}

/// True when a name's things, besides its verbs, read words, joiners and executor words, are
/// all words for any stored thing (`API-post-page`, `patch_page`), and it has one.
fn names_only_stored_things(ps: &[PieceFacts]) -> bool {
    let mut things = ps
        .iter()
        .filter(|p| p.verb.is_none() && !p.executor && !p.read && !p.joiner && p.long);
    things.clone().next().is_some() && things.all(|p| p.container)
}

/// Every call's top-level arguments, by key id (a key's lowercase text, numbered).
pub(super) struct Args<'a> {
    /// Lowercase argument key -> its id.
    keys: HashMap<Cow<'a, str>, u32>,
    /// Per distinct key as written (numbered by [`Pieces`]): its lowercase id and its range
    /// in `Pieces::key_facts`.
    raw: Vec<u32>,
    raw_keys: Vec<(u32, u32)>,
    /// Per distinct key as written: the key.
    raw_text: Vec<&'a str>,
    /// Per call: its range in `args`.
    ranges: Vec<(u32, u32)>,
    /// (key id, key's number as written, value), call after call: sixteen bytes an argument.
    args: Vec<(u32, u32, &'a Value)>,
    /// Bit `n` set when some lowercase key is `n` bytes long (bit 63: 63 or more).
    key_lengths: u64,
}

impl<'a> Args<'a> {
    /// Room for the top-level arguments (`args` of them) of `calls` calls.
    pub(super) fn with_capacity(calls: usize, args: usize) -> Self {
        Args {
            keys: HashMap::default(),
            raw: Vec::new(),
            raw_keys: Vec::new(),
            raw_text: Vec::new(),
            ranges: Vec::with_capacity(calls),
            args: Vec::with_capacity(args),
            key_lengths: 0,
        }
    }

    /// Adds one argument of the latest call: `raw` numbers its key as written.
    fn push(&mut self, raw: u32, pieces: (u32, u32), key: &'a str, value: &'a Value) {
        let raw = raw as usize;
        if raw >= self.raw.len() {
            let lower: Cow<'a, str> = if super::has_uppercase(key) {
                Cow::Owned(key.to_lowercase())
            } else {
                Cow::Borrowed(key)
            };
            let next = self.keys.len() as u32;
            // Lengths of 63 bytes and more share one bit.
            self.key_lengths |= 1u64 << lower.len().min(63);
            let id = *self.keys.entry(lower).or_insert(next);
            self.raw.resize(raw + 1, u32::MAX);
            self.raw_keys.resize(raw + 1, (0, 0));
            self.raw_text.resize(raw + 1, "");
            self.raw[raw] = id;
            self.raw_keys[raw] = pieces;
            self.raw_text[raw] = key;
        }
        self.args.push((self.raw[raw], raw as u32, value));
    }

    /// The key of argument `arg` (from [`of`](Self::of)) as the call recorded it.
    pub(super) fn key_text(&self, arg: &(u32, u32, &'a Value)) -> &'a str {
        self.raw_text[arg.1 as usize]
    }

    /// True when no call has an argument.
    pub(super) fn is_empty(&self) -> bool {
        self.args.is_empty()
    }

    /// The most words a recorded string value of key `key` has.
    pub(super) fn max_words(&self, key: u32) -> usize {
        self.args
            .iter()
            .filter(|a| a.0 == key)
            .map(|a| value_words(a.2))
            .max()
            .unwrap_or(0)
    }

    /// How many distinct keys (by lowercase text) the calls record: key ids are below it.
    pub(super) fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// False when no key (in lowercase) is `len` bytes long: a word of that length is none.
    pub(super) fn may_be_key(&self, len: usize) -> bool {
        self.key_lengths & (1u64 << len.min(63)) != 0
    }

    /// The id of a lowercase key.
    pub(super) fn key_id(&self, lower: &str) -> Option<u32> {
        self.keys.get(lower).copied()
    }

    /// The arguments of call `i`.
    pub(super) fn of(&self, i: usize) -> &[(u32, u32, &'a Value)] {
        let (a, b) = self.ranges[i];
        &self.args[a as usize..b as usize]
    }
}

/// How many words `s` has, as `split_whitespace` counts them: byte by byte when it is ASCII.
fn word_count(s: &str) -> usize {
    if !s.is_ascii() {
        return s.split_whitespace().count();
    }
    // The ASCII characters `char::is_whitespace` accepts.
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r');
    let mut count = 0;
    let mut in_word = false;
    for b in s.bytes() {
        let word = !space(b);
        count += usize::from(word && !in_word);
        in_word = word;
    }
    count
}

/// The most words a string in `v` has (an array's strings included).
pub(super) fn value_words(v: &Value) -> usize {
    match v {
        Value::String(s) => word_count(s),
        Value::Array(xs) => xs.iter().map(value_words).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose(text: &str) -> Vec<&str> {
        let mut spans = Vec::new();
        prose_spans(text, &mut spans);
        spans.into_iter().map(|(a, b)| &text[a..b]).collect()
    }

    proptest::proptest! {
        /// A short value in small letters read on its own way gives the pieces, and the
        /// status, that the full reading gives, in code or not.
        #[test]
        fn short_values_split_as_in_full(text in "[a-z]{1,8}|closed|merged|s|set|approve", code: bool) {
            let (mut a, mut b) = (Pieces::default(), Pieces::default());
            let (mut va, mut vb) = (Vocab::default(), Vocab::default());
            let (mut pa, mut pb) = (Vec::new(), Vec::new());
            let fast = a.split_value(&text, code, &mut va, &mut pa);
            let full = b.split_value_in_full(&text, code, &mut vb, &mut pb);
            let word = |v: &Vocab<'_>, p: &PieceFacts| (v.word(p.id).to_string(), format!("{:?}", PieceFacts { id: 0, ..*p }));
            proptest::prop_assert_eq!(fast.map(|v| va.word(v).to_string()), full.map(|v| vb.word(v).to_string()));
            proptest::prop_assert_eq!(
                pa.iter().map(|p| word(&va, p)).collect::<Vec<_>>(),
                pb.iter().map(|p| word(&vb, p)).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn words_are_counted_as_split_whitespace_counts_them() {
        for s in [
            "",
            " ",
            "one",
            " Item  number 12 ",
            "a\tb\nc\x0Bd\x0Ce\rf",
            "caf\u{e9} ouvert",
            "a\u{a0}b\u{2003}c",
            "x\u{85}y",
        ] {
            assert_eq!(word_count(s), s.split_whitespace().count(), "{s:?}");
        }
    }

    #[test]
    fn a_statement_s_comments_and_literals_are_prose() {
        assert_eq!(
            prose("-- check before update\nSELECT 'it''s done', x FROM t /* create */ WHERE y"),
            ["-- check before update", "'it''s done'", "/* create */"]
        );
        // Dollar-quoted bodies are code; their own literals are still prose.
        assert_eq!(
            prose("CREATE FUNCTION f() AS $$ BEGIN UPDATE t SET a = 'x'; END $$"),
            ["'x'"]
        );
        // Unclosed ones run to the end; nothing is read twice.
        assert_eq!(prose("SELECT 'open"), ["'open"]);
        assert_eq!(prose("SELECT 1 -- tail"), ["-- tail"]);
        assert_eq!(prose("a /* b"), ["/* b"]);
        assert!(prose("UPDATE t SET a = 1").is_empty());
        assert!(prose("").is_empty());
    }

    #[test]
    fn a_json_body_carries_new_things_under_its_own_keys_only() {
        assert!(carries_object_list(
            r#"{"children": [{"type": "heading_3", "heading_3": {"rich_text": []}}]}"#
        ));
        assert!(carries_object_list(
            r#" {"parent": {"id": "p\"1"}, "files": [ {"path": "a.yml"} ]}"#
        ));
        // A list deeper down, a list under another key, a list of strings, and text that is
        // no JSON object, or no JSON at all, add nothing.
        for text in [
            r#"{"heading_3": {"rich_text": [{"text": {"content": "x"}}]}}"#,
            r#"{"sorts": [{"property": "Date"}]}"#,
            r#"{"children": ["a", "b"]}"#,
            r#"[{"children": [{}]}]"#,
            r#"{"children": [{"type": "#,
            "children: [{}]",
        ] {
            assert!(!carries_object_list(text), "{text}");
        }
    }
}
