//! The word tables behind the narrative check: the mutating verbs and their inflections, a few
//! read verbs, the stopwords, and the plural rules. Tables, not a stemmer: every mapping is
//! written out so a reader can see exactly which words count.

use super::fasthash::{HashMap, HashSet};
use std::borrow::Cow;
use std::sync::LazyLock;

/// The 22 mutating verbs, in their base form.
pub(super) const MUTATING_VERBS: [&str; 22] = [
    "create", "update", "delete", "remove", "send", "write", "post", "insert", "set", "put",
    "patch", "publish", "destroy", "drop", "add", "edit", "upload", "merge", "close", "cancel",
    "approve", "revoke",
];

/// Inflected form -> base verb, for the mutating verbs. Base forms map to themselves through
/// [`MUTATING_VERBS`], so only the other forms are listed.
const MUTATING_FORMS: &[(&str, &str)] = &[
    ("created", "create"),
    ("creates", "create"),
    ("creating", "create"),
    ("updated", "update"),
    ("updates", "update"),
    ("updating", "update"),
    ("deleted", "delete"),
    ("deletes", "delete"),
    ("deleting", "delete"),
    ("removed", "remove"),
    ("removes", "remove"),
    ("removing", "remove"),
    ("sent", "send"),
    ("sends", "send"),
    ("sending", "send"),
    ("wrote", "write"),
    ("written", "write"),
    ("writes", "write"),
    ("writing", "write"),
    ("posted", "post"),
    ("posts", "post"),
    ("posting", "post"),
    ("inserted", "insert"),
    ("inserts", "insert"),
    ("inserting", "insert"),
    ("sets", "set"),
    ("setting", "set"),
    ("puts", "put"),
    ("putting", "put"),
    ("patched", "patch"),
    ("patches", "patch"),
    ("patching", "patch"),
    ("published", "publish"),
    ("publishes", "publish"),
    ("publishing", "publish"),
    ("destroyed", "destroy"),
    ("destroys", "destroy"),
    ("destroying", "destroy"),
    ("dropped", "drop"),
    ("drops", "drop"),
    ("dropping", "drop"),
    ("added", "add"),
    ("adds", "add"),
    ("adding", "add"),
    ("edited", "edit"),
    ("edits", "edit"),
    ("editing", "edit"),
    ("uploaded", "upload"),
    ("uploads", "upload"),
    ("uploading", "upload"),
    ("merged", "merge"),
    ("merges", "merge"),
    ("merging", "merge"),
    ("closed", "close"),
    ("closes", "close"),
    ("closing", "close"),
    ("cancelled", "cancel"),
    ("canceled", "cancel"),
    ("cancels", "cancel"),
    ("cancelling", "cancel"),
    ("canceling", "cancel"),
    ("approved", "approve"),
    ("approves", "approve"),
    ("approving", "approve"),
    ("revoked", "revoke"),
    ("revokes", "revoke"),
    ("revoking", "revoke"),
];

/// Inflected form -> base, for common read and run verbs. They never make a claim; they only
/// let "I listed the issues" mention `list_issues`.
const READ_FORMS: &[(&str, &str)] = &[
    ("listed", "list"),
    ("listing", "list"),
    ("searched", "search"),
    ("searches", "search"),
    ("searching", "search"),
    ("fetched", "fetch"),
    ("fetches", "fetch"),
    ("fetching", "fetch"),
    ("got", "get"),
    ("gets", "get"),
    ("getting", "get"),
    ("found", "find"),
    ("finds", "find"),
    ("finding", "find"),
    ("queried", "query"),
    ("querying", "query"),
    ("looked", "look"),
    ("checked", "check"),
    ("checking", "check"),
    ("opened", "open"),
    ("opening", "open"),
    ("retrieved", "retrieve"),
    ("retrieves", "retrieve"),
    ("retrieving", "retrieve"),
    ("loaded", "load"),
    ("loading", "load"),
    ("viewed", "view"),
    ("ran", "run"),
    ("running", "run"),
    ("called", "call"),
    ("calling", "call"),
    ("reading", "read"),
    ("described", "describe"),
    ("inspected", "inspect"),
    ("downloaded", "download"),
    ("validated", "validate"),
    ("verified", "verify"),
];

/// Irregular plurals -> singular.
const IRREGULAR_PLURALS: &[(&str, &str)] = &[
    ("people", "person"),
    ("children", "child"),
    ("men", "man"),
    ("women", "woman"),
    ("indices", "index"),
    ("matrices", "matrix"),
    ("vertices", "vertex"),
    ("caches", "cache"),
    ("movies", "movie"),
    ("cookies", "cookie"),
    ("ties", "tie"),
    ("lies", "lie"),
    ("pies", "pie"),
    ("criteria", "criterion"),
    ("statuses", "status"),
    ("viruses", "virus"),
    ("bonuses", "bonus"),
    ("campuses", "campus"),
    ("aliases", "alias"),
    ("biases", "bias"),
    ("buses", "bus"),
    ("analyses", "analysis"),
];

/// Words ending in `s` that are not plurals (or whose plural rule would mangle them).
const NOT_PLURAL: &[&str] = &[
    "as",
    "is",
    "us",
    "was",
    "has",
    "does",
    "goes",
    "its",
    "his",
    "hers",
    "ours",
    "yours",
    "theirs",
    "this",
    "thus",
    "yes",
    "plus",
    "minus",
    "news",
    "series",
    "species",
    "always",
    "perhaps",
    "whereas",
    "towards",
    "afterwards",
    "sometimes",
    "gas",
    "bus",
    "lens",
    "atlas",
    "canvas",
    "alias",
    "bias",
    "chaos",
    "kudos",
    "physics",
    "mathematics",
    "economics",
    "ethics",
    "politics",
    "logistics",
    "analytics",
    "diagnostics",
    "metadata",
    "less",
    "unless",
    "across",
    "previous",
    "various",
    "dns",
    "https",
    "aws",
    "gcs",
    "ios",
    "macos",
    "os",
    "s3",
];

/// Stopwords: never a claimed action's object. Articles, pronouns, auxiliaries, conjunctions,
/// prepositions, quantifiers, number words, a few filler adverbs, and `new`. Numerals are
/// stopwords too (see [`is_stopword`]).
const STOPWORDS: &[&str] = &[
    // articles and determiners
    "a",
    "an",
    "the",
    "this",
    "that",
    "these",
    "those",
    "each",
    "every",
    "all",
    "any",
    "some",
    "no",
    "another",
    "other",
    "others",
    "such",
    "same",
    "both",
    "either",
    "neither",
    "few",
    "several",
    "many",
    "much",
    "more",
    "most",
    "less",
    "least",
    "only",
    "own",
    // pronouns
    "i",
    "me",
    "my",
    "mine",
    "myself",
    "we",
    "us",
    "our",
    "ours",
    "ourselves",
    "you",
    "your",
    "yours",
    "yourself",
    "he",
    "him",
    "his",
    "she",
    "her",
    "hers",
    "it",
    "its",
    "itself",
    "they",
    "them",
    "their",
    "theirs",
    "themselves",
    "who",
    "whom",
    "whose",
    "which",
    "what",
    "something",
    "anything",
    "everything",
    "nothing",
    "someone",
    "anyone",
    "everyone",
    "somebody",
    "anybody",
    "everybody",
    "one",
    "ones",
    // auxiliaries, copulas and contraction tails
    "am",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "have",
    "has",
    "had",
    "having",
    "do",
    "does",
    "did",
    "will",
    "would",
    "shall",
    "should",
    "can",
    "could",
    "may",
    "might",
    "must",
    "ve",
    "ll",
    "re",
    "s",
    "t",
    "d",
    "m",
    "let",
    // conjunctions
    "and",
    "or",
    "but",
    "nor",
    "so",
    "then",
    "also",
    "yet",
    "if",
    "when",
    "while",
    "because",
    // prepositions and particles
    "to",
    "for",
    "of",
    "in",
    "on",
    "at",
    "by",
    "with",
    "from",
    "into",
    "onto",
    "about",
    "as",
    "up",
    "out",
    "over",
    "via",
    "per",
    "off",
    "under",
    "within",
    "without",
    "through",
    // filler adverbs
    "not",
    "just",
    "now",
    "already",
    "successfully",
    "again",
    "back",
    "here",
    "there",
    "too",
    "very",
    "still",
    "even",
    "finally",
    "then",
    "quickly",
    "properly",
    "correctly",
    // number words
    "zero",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "first",
    "second",
    "third",
    "last",
    "next",
    "once",
    "twice",
    // `new`
    "new",
];

/// Determiners: a mutating verb right after one of these is a noun ("the update", "a post").
/// `all` is here for the idiom "you're all set".
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "my", "your", "his", "her", "its", "our", "their", "this", "that", "these",
    "those", "each", "every", "no", "any", "some", "all",
];

/// Object pronouns: after a verb they stand for something named earlier, so "merged it and
/// closed the ticket" claims `merge` alone, not `merge_ticket`.
const OBJECT_PRONOUNS: &[&str] = &[
    "it",
    "them",
    "him",
    "her",
    "me",
    "us",
    "you",
    "itself",
    "themselves",
    "everything",
    "something",
    "anything",
    "nothing",
];

/// Conjunctions end a clause: the search for a claim's object stops there, so "the inventory is
/// updated and the card was charged" claims `update` alone, not `update_card`.
const CONJUNCTIONS: &[&str] = &[
    "and", "or", "but", "nor", "then", "so", "yet", "while", "because", "when", "if", "after",
    "before",
];

/// True when the lowercase word is a conjunction.
pub(super) fn is_conjunction(word: &str) -> bool {
    CONJUNCTIONS.contains(&word)
}

/// True when the lowercase word is an object pronoun.
pub(super) fn is_object_pronoun(word: &str) -> bool {
    OBJECT_PRONOUNS.contains(&word)
}

/// The tables above, indexed once (lookups are per distinct word, so this is the hot path).
struct Index {
    mutating: HashMap<&'static str, &'static str>,
    read: HashMap<&'static str, &'static str>,
    irregular: HashMap<&'static str, &'static str>,
    not_plural: HashSet<&'static str>,
    stop: HashSet<&'static str>,
}

static INDEX: LazyLock<Index> = LazyLock::new(|| Index {
    mutating: MUTATING_VERBS
        .iter()
        .map(|v| (*v, *v))
        .chain(MUTATING_FORMS.iter().copied())
        .collect(),
    read: READ_FORMS.iter().copied().collect(),
    irregular: IRREGULAR_PLURALS.iter().copied().collect(),
    not_plural: NOT_PLURAL.iter().copied().collect(),
    stop: STOPWORDS.iter().copied().collect(),
});

/// The base mutating verb a lowercase word is a form of, if any.
pub(super) fn mutating_base(word: &str) -> Option<&'static str> {
    INDEX.mutating.get(word).copied()
}

/// True when the lowercase word is exactly one of the 22 base verbs.
pub(super) fn is_base_mutating_verb(word: &str) -> bool {
    MUTATING_VERBS.contains(&word)
}

/// True when the lowercase word is a stopword or a numeral.
pub(super) fn is_stopword(word: &str) -> bool {
    INDEX.stop.contains(word) || is_numeral(word)
}

/// True when the lowercase word is a determiner.
pub(super) fn is_determiner(word: &str) -> bool {
    DETERMINERS.contains(&word)
}

/// True for a numeral (`42`, `3.5`, `1,200`): digits with at most `.`/`,` between them.
pub(super) fn is_numeral(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_digit())
        && word
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
}

/// The normal form of one lowercase token: a verb form becomes its base verb, a plural noun its
/// singular. Applied identically to narrative words and tool-name tokens.
pub(super) fn normalize(lower: &str) -> Cow<'_, str> {
    if let Some(b) = verb_base(lower) {
        return Cow::Borrowed(b);
    }
    let one = singular(lower);
    match verb_base(&one) {
        Some(b) => Cow::Borrowed(b),
        None => one,
    }
}

fn verb_base(word: &str) -> Option<&'static str> {
    mutating_base(word).or_else(|| INDEX.read.get(word).copied())
}

/// The singular of a lowercase word (the word itself when it is not a regular plural).
pub(super) fn singular(word: &str) -> Cow<'_, str> {
    if let Some(s) = INDEX.irregular.get(word) {
        return Cow::Borrowed(s);
    }
    if !word.ends_with('s') {
        return Cow::Borrowed(word);
    }
    let n = word.chars().count();
    if n < 3 || INDEX.not_plural.contains(word) || is_numeral(word) {
        return Cow::Borrowed(word);
    }
    // Not plurals: -ss (class, access), -us (status, bonus), -is (analysis, axis), -'s.
    if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return Cow::Borrowed(word);
    }
    if n > 4 && word.ends_with("ies") {
        return Cow::Owned(format!("{}y", &word[..word.len() - 3]));
    }
    for suffix in ["sses", "shes", "ches", "xes", "zes"] {
        if word.ends_with(suffix) && n > suffix.len() {
            return Cow::Borrowed(&word[..word.len() - 2]);
        }
    }
    Cow::Borrowed(&word[..word.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verb_forms_map_to_base() {
        for (form, base) in [
            ("created", "create"),
            ("creates", "create"),
            ("creating", "create"),
            ("sent", "send"),
            ("wrote", "write"),
            ("written", "write"),
            ("cancelled", "cancel"),
            ("canceled", "cancel"),
            ("set", "set"),
            ("setting", "set"),
            ("settings", "set"),
        ] {
            assert_eq!(normalize(form), base, "{form}");
        }
        // Every table entry maps to one of the 22.
        for (_, b) in MUTATING_FORMS {
            assert!(MUTATING_VERBS.contains(b), "{b}");
        }
    }

    #[test]
    fn plurals() {
        for (p, s) in [
            ("issues", "issue"),
            ("entries", "entry"),
            ("boxes", "box"),
            ("branches", "branch"),
            ("status", "status"),
            ("statuses", "status"),
            ("class", "class"),
            ("classes", "class"),
            ("this", "this"),
            ("analysis", "analysis"),
            ("caches", "cache"),
            ("databases", "database"),
            ("ids", "id"),
            ("is", "is"),
            ("2s", "2s"),
        ] {
            assert_eq!(singular(p), s, "{p}");
        }
    }

    #[test]
    fn numerals_are_stopwords() {
        assert!(is_stopword("42") && is_stopword("3.5") && is_stopword("1,200"));
        assert!(!is_stopword("v2") && !is_stopword("issue"));
    }
}
