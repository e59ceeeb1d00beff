//! What each recorded call shows it did: its actions (the verbs it performed) and the things
//! it touched (the words of its name, argument keys and, for calls that change state, argument
//! values). A claim is backed by a call whose actions include a verb of the claim's class and
//! whose words include a word of the claim's object.

use super::Vocab;
use super::fasthash::{HashMap, HashSet};
use super::lexicon::{
    action_noun, foreign_name_verb, is_base_mutating_verb, is_light_verb, is_read_verb,
    is_state_verb, normalize,
};
use super::tokenize::name_pieces;
use crate::trace::ToolCall;
use serde_json::Value;

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
];

/// How much argument text of one call is read for its words (bytes). A call's arguments
/// beyond this (a file's content, a long document) name no further action.
const VALUE_TEXT_LIMIT: usize = 64 * 1024;

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

/// Per call: what it did and what it touched.
pub(super) struct CallEvidence {
    /// Verb ids the call performed.
    pub actions: Vec<u32>,
    /// Word ids of its name and argument keys (and values, once read), sorted.
    pub words: Vec<u32>,
    /// True when the call changes state (overrides, then annotations, then its name).
    pub mutating: bool,
    /// False when the call is declared read-only (it backs no claim).
    pub can_back: bool,
    /// True when its argument values may carry actions (an executor) or things (a write).
    pub read_values: bool,
    values_read: bool,
    /// True when any object matches (a tool named in another language).
    any_object: bool,
}

/// The actions of a tool name: its leading verb (after any namespace words) and the verbs
/// joined to it by `or`/`and` (`create_or_update_file`); a light verb followed by an action
/// noun also performs that action (`make_payment` pays). A name that opens with a read verb or
/// a question (`get_cancel_policy`, `can_send_mms`) performs none.
pub(super) fn name_actions(pieces: &[(String, String)], vocab: &mut Vocab) -> (Vec<u32>, bool) {
    let mut foreign = false;
    let mut out = Vec::new();
    let verb_of = |norm: &str| {
        if is_state_verb(norm) {
            Some(norm.to_string())
        } else {
            foreign_name_verb(norm).map(str::to_string)
        }
    };
    let mut i = 0;
    while i < pieces.len() {
        let (lower, norm) = &pieces[i];
        if QUERY_PREFIXES.contains(&lower.as_str()) || is_read_verb(lower) || is_read_verb(norm) {
            return (out, false);
        }
        if verb_of(norm).is_some() {
            break;
        }
        i += 1;
    }
    while i < pieces.len() {
        let norm = &pieces[i].1;
        let Some(verb) = verb_of(norm) else { break };
        foreign |= !is_state_verb(norm);
        out.push(vocab.intern(&verb));
        if is_light_verb(norm) {
            if let Some(a) = pieces.get(i + 1).and_then(|(_, n)| action_noun(n)) {
                out.push(vocab.intern(a));
            }
        }
        match pieces.get(i + 1).map(|(l, _)| l.as_str()) {
            Some("or" | "and") => i += 2,
            _ => break,
        }
    }
    (out, foreign)
}

/// True when the name's words make the tool a generic executor.
pub(super) fn is_executor(pieces: &[(String, String)]) -> bool {
    pieces.iter().any(|(l, _)| EXECUTORS.contains(&l.as_str()))
}

/// The lowercase and normalized pieces of a name.
pub(super) fn pieces_of(name: &str) -> Vec<(String, String)> {
    let mut spans = Vec::new();
    name_pieces(name, &mut spans);
    spans
        .iter()
        .map(|&(a, b)| {
            let lower = name[a..b].to_lowercase();
            let norm = normalize(&lower).into_owned();
            (lower, norm)
        })
        .collect()
}

/// Facts shared by every call of one tool name.
pub(super) struct NameFacts {
    pub ids: Vec<u32>,
    pub actions: Vec<u32>,
    pub executor: bool,
    /// True when the name's verb is of another language (`crear_solicitud`): its other words
    /// cannot be compared with an English narrative, so any object matches.
    pub foreign: bool,
    /// True when the name says it writes: one of the 22 verbs as a word, a state-changing
    /// leading verb, or an executor.
    pub writes: bool,
}

impl NameFacts {
    pub(super) fn new(name: &str, vocab: &mut Vocab) -> Self {
        let pieces = pieces_of(name);
        let ids = pieces.iter().map(|(_, n)| vocab.intern(n)).collect();
        let (actions, foreign) = name_actions(&pieces, vocab);
        let executor = is_executor(&pieces);
        let base22 = pieces.iter().any(|(l, _)| is_base_mutating_verb(l));
        NameFacts {
            ids,
            writes: base22 || !actions.is_empty() || executor,
            actions,
            executor,
            foreign,
        }
    }
}

impl CallEvidence {
    /// Evidence from a call's name facts and its top-level argument keys.
    pub(super) fn new(
        call: &ToolCall,
        facts: &NameFacts,
        mutating: bool,
        can_back: bool,
        key_ids: &mut HashMap<String, (Vec<u32>, Vec<u32>)>,
        vocab: &mut Vocab,
    ) -> Self {
        let mut words = facts.ids.clone();
        let mut actions = facts.actions.clone();
        if let Some(Value::Object(m)) = &call.args {
            for k in m.keys() {
                let (ids, key_actions) = key_ids.entry(k.clone()).or_insert_with(|| {
                    let pieces = pieces_of(k);
                    let ids = pieces.iter().map(|(_, n)| vocab.intern(n)).collect();
                    // A write's argument keys can name what it did (`payment_id`: it paid).
                    let acts = pieces
                        .iter()
                        .filter_map(|(_, n)| {
                            action_noun(n).or_else(|| is_state_verb(n).then_some(n.as_str()))
                        })
                        .map(|a| vocab.intern(a))
                        .collect::<Vec<u32>>();
                    (ids, acts)
                });
                words.extend_from_slice(ids);
                if mutating {
                    actions.extend_from_slice(key_actions);
                }
            }
        }
        words.sort_unstable();
        words.dedup();
        actions.sort_unstable();
        actions.dedup();
        CallEvidence {
            actions,
            words,
            mutating,
            can_back,
            read_values: can_back && (mutating || facts.executor),
            values_read: false,
            any_object: facts.foreign,
        }
    }

    /// Adds the words of the argument values (and nested keys), and for an executor the
    /// state-changing verbs among them as actions. Done once, on demand.
    pub(super) fn read_values(&mut self, call: &ToolCall, executor: bool, vocab: &mut Vocab) {
        if self.values_read || !self.read_values {
            return;
        }
        self.values_read = true;
        let Some(args) = &call.args else { return };
        let mut budget = VALUE_TEXT_LIMIT;
        let mut seen: HashSet<u32> = HashSet::default();
        let mut spans = Vec::new();
        let mut stack = vec![args];
        let mut add =
            |text: &str, budget: &mut usize, words: &mut Vec<u32>, actions: &mut Vec<u32>| {
                let text = clip(text, *budget);
                *budget -= text.len();
                spans.clear();
                name_pieces(text, &mut spans);
                for &(a, b) in &spans {
                    let lower = text[a..b].to_lowercase();
                    let norm = normalize(&lower);
                    let id = vocab.intern(&norm);
                    if seen.insert(id) {
                        words.push(id);
                        if executor && is_state_verb(&norm) {
                            actions.push(id);
                        }
                    }
                }
            };
        while let Some(v) = stack.pop() {
            if budget == 0 {
                break;
            }
            match v {
                Value::String(s) => add(s, &mut budget, &mut self.words, &mut self.actions),
                Value::Array(xs) => stack.extend(xs.iter().rev()),
                Value::Object(m) => {
                    for (k, x) in m.iter().rev() {
                        add(k, &mut budget, &mut self.words, &mut self.actions);
                        stack.push(x);
                    }
                }
                _ => {}
            }
        }
        self.words.sort_unstable();
        self.words.dedup();
        self.actions.sort_unstable();
        self.actions.dedup();
    }

    /// True when the call performed one of `class` on one of `object` (any object when empty).
    pub(super) fn backs(&self, class: &[u32], object: &[u32]) -> bool {
        self.can_back
            && self.actions.iter().any(|a| class.contains(a))
            && (object.is_empty()
                || self.any_object
                || object.iter().any(|o| self.words.binary_search(o).is_ok()))
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
fn clip(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
