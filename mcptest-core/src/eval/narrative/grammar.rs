//! Reading claims out of a narrative: which mentions of a state-changing verb assert that the
//! agent completed that action in this run, and what the action was done to.
//!
//! The rules themselves are stated once, for users, in the module documentation of
//! `eval::narrative` ("What is a claim"); this module implements them. Each rule is a table of
//! words below and a position relative to the verb: [`read_claim`] reads back from the verb to
//! its clause's start (negation, modality, subject, auxiliaries) and ahead to its object,
//! [`finish`] resolves light verbs and generic objects. Every scan is bounded by [`REACH`]
//! lexemes, so a text without punctuation stays linear.

use super::lexicon::{
    Form, VerbForm, action_noun, has_digit, is_into_verb, is_light_verb, is_numeral, is_stopword,
    is_vague_verb, verb_form,
};
use super::tokenize::{Kind, Lexeme};
use crate::fasthash::{HashMap, Table};
use std::sync::LazyLock;

/// Words that end a clause for the rules above (besides punctuation).
const BOUNDARY: &[&str] = &[
    "and", "but", "or", "nor", "so", "then", "because", "since", "while", "whereas", "although",
    "though", "however", "that", "which", "who", "whom", "where", "plus", "when", "whenever",
    "after", "until", "before",
];

/// Words that open a clause of background time or of reason: a passive there says when or why
/// something happened to something, not what the agent did ("deleted when the PR was merged",
/// "failed because they were sent without a query").
const BACKGROUND: &[&str] = &[
    "when", "whenever", "after", "until", "while", "since", "before", "because",
];

/// Words that make a later verb in their clause unreal: modality, future, offers, plans,
/// conditions, purpose, requests.
const IRREALIS: &[&str] = &[
    "going",
    "gonna",
    "want",
    "wants",
    "wish",
    "wishes",
    "like",
    "need",
    "needs",
    "plan",
    "plans",
    "planning",
    "intend",
    "intends",
    "try",
    "trying",
    "tried",
    "attempt",
    "attempted",
    "attempting",
    "let",
    "lets",
    "please",
    "if",
    "unless",
    "whether",
    "once",
    "until",
    "hope",
    "expect",
    "expected",
    "awaiting",
    "pending",
    "require",
    "requires",
    "required",
    "recommend",
    "recommended",
    "suggest",
    "suggested",
    "should've",
    "would've",
    "could've",
    "ought",
];

/// Modal auxiliaries: they make a verb unreal between its subject and it ("I can cancel",
/// "it will be refunded"); before the subject they are something else ("May 24th").
const MODALS: &[&str] = &[
    "will", "would", "shall", "should", "can", "could", "may", "might", "must", "ought",
];

/// Words that make a verb unreal only between the verb and its subject ("unable to cancel",
/// "ready to be shipped"); earlier in the clause they are prepositions ("according to your
/// request, ...").
const NEAR_IRREALIS: &[&str] = &[
    "to", "able", "option", "options", "ready", "allowed", "about", "like", "eligible",
];

/// Words that negate a later verb in their clause.
const NEGATORS: &[&str] = &[
    "not", "no", "never", "nor", "neither", "unable", "cannot", "cant", "without", "fail", "fails",
    "failed", "failing", "nothing", "none", "nobody",
];

/// Subjects that are the agent.
const AGENT: &[&str] = &[
    "i", "we", "i've", "we've", "i’ve", "we’ve", "i'm", "we're", "i’m", "we’re",
];

/// The actions of the nouns for a change of any kind ("changes", "updates", "modifications",
/// "adjustments").
const CHANGES: &[&str] = &["change", "update", "modify", "adjust"];

/// Nouns for the agent's own tool calls: sending one is how the agent worked, not an action on
/// anything ("the first five attempts were sent without a request body", "I sent the same
/// request again"). A request that names its action still claims it ("your exchange request
/// has been submitted" claims the exchange).
const CALL_NOUNS: &[&str] = &[
    "attempt",
    "call",
    "payload",
    "retry",
    "request",
    "write",
    "operation",
];

/// What a call carries ("sent with no body", "sent without a SQL query"): a thing sent with or
/// without one of them is the agent's own call.
const CALL_PARTS: &[&str] = &[
    "body",
    "payload",
    "content",
    "query",
    "parameter",
    "argument",
    "header",
    // What a block or a record is written with ("column sent without children", "sent with no
    // `children` key").
    "children",
    "properties",
    "data",
    "key",
    "field",
];

/// Nouns that name the asking for an act or its steps: the action noun before one names the
/// act ("your exchange request", "the migration task", "the refund transaction").
const ACT_HEADS: &[&str] = &[
    "request",
    "process",
    "procedure",
    "transaction",
    "operation",
    "step",
    "task",
];

/// First parts of a hyphenated past that tell how the act was done ("squash-merged",
/// "force-pushed", "re-created", "bulk-updated").
const COMPOUND_MANNERS: &[&str] = &[
    "re", "pre", "squash", "force", "soft", "hard", "bulk", "batch", "mass", "fast", "double",
    "back", "cherry", "hot", "auto",
];

/// Nouns for a rule of reasoning: applying one is how the agent worked ("applied the criteria
/// manually", "applied all business rules correctly"), not an act on stored state.
const RULE_NOUNS: &[&str] = &[
    "rule",
    "criterion",
    "logic",
    "principle",
    "guideline",
    "policy",
    "heuristic",
    "convention",
    "practice",
    "technique",
    // Rules of a computation ("floor of 0 applied", "applied a 0.8 multiplier").
    "floor",
    "cap",
    "ceiling",
    "threshold",
    "multiplier",
    "factor",
    "weighting",
    "formula",
    // Rules of a query ("ORDER BY ... LIMIT was applied to the whole UNION", "applied a
    // filter on status").
    "limit",
    "filter",
    "clause",
];

/// Nouns for a way of working: changing one is how the agent worked ("then I changed approach
/// and split the data into five inserts"), not a change of stored state.
const WAY_NOUNS: &[&str] = &["approach", "strategy", "tactic", "method", "tack"];

/// Nouns for what a query or a read puts out for the reader: generating one is reading
/// ("Final verification report generated", "generated a remediation script as query output"),
/// not storing anything.
const OUTPUT_NOUNS: &[&str] = &[
    "report",
    "summary",
    "overview",
    "script",
    "analysis",
    "breakdown",
    "listing",
    "statistic",
    "insight",
    "chart",
    "recap",
];

/// Qualities, conditions and capabilities of a system, not things a tool stores: changing one
/// is an outcome of the writes that did it ("Dashboard performance restored", "removed the need for
/// `COUNT(DISTINCT)`"), which any of them backs. Not `security`: "Row Level Security enabled"
/// names a feature a statement turns on.
const QUALITY_NOUNS: &[&str] = &[
    "performance",
    "speed",
    "latency",
    "throughput",
    "scalability",
    "reliability",
    "stability",
    "availability",
    "consistency",
    "accuracy",
    "efficiency",
    "integrity",
    "usability",
    "readability",
    "maintainability",
    "need",
    "necessity",
    "overhead",
    "bottleneck",
    "duplication",
    "redundancy",
    "ambiguity",
    // Capabilities a system gains through the writes that build them ("Added enforcement"
    // by a function and its triggers, "added input validation").
    "enforcement",
    "validation",
    "protection",
];

/// Nouns for what a call or a statement gives back ("the query returned 12 rows", "returned an
/// error").
const RESULT_NOUNS: &[&str] = &[
    "error", "result", "row", "value", "response", "output", "record", "match", "hit", "count",
    "list",
];

/// Adjectives of the state a thing is in, which pair with a participle of the opposite state
/// before a noun: "every open and closed issue", "active or archived pages".
const STATE_ADJECTIVES: &[&str] = &[
    "open",
    "active",
    "inactive",
    "pending",
    "new",
    "old",
    "draft",
    "public",
    "private",
    "existing",
    "current",
    "unread",
    "valid",
    "invalid",
    "stale",
    "empty",
    "missing",
    "resolved",
    "unresolved",
    "outstanding",
    "upcoming",
    "past",
    "visible",
    "hidden",
    "locked",
];

/// Adjectives of a state a thing is made into ("made each section title bold", "made the
/// repository public"): with `make`, an update of the thing.
const RESULT_ADJECTIVES: &[&str] = &[
    "bold",
    "italic",
    "public",
    "private",
    "visible",
    "hidden",
    "required",
    "optional",
    "unique",
    "active",
    "inactive",
    "available",
    "unavailable",
    "default",
    "primary",
    "editable",
    "consistent",
    "uppercase",
    "lowercase",
    "nullable",
    "searchable",
    "accessible",
];

/// Verbs whose use without an object tells a change of state ("the plan changed from ... to
/// ..."), not an act on something.
const CHANGE_OF_STATE: &[&str] = &["change", "move", "transition"];

/// Answers to an attempt: in the passive ("Setting num_parts to 999 was rejected with an
/// error", "setting it to 4 was accepted", "the invalid transfer was blocked") or told bare,
/// with no doer and no object ("`INSERT` -> rejected", "num_parts +1 -> blocked"), they report
/// what the system did with the attempt, not an act of the agent. With an object they are the
/// agent's own acts ("Blocked user @spam").
const REFUSALS: &[&str] = &["reject", "decline", "accept", "block", "deny", "refuse"];

/// Auxiliaries of a completed passive (`has been cancelled`, `was cancelled`).
const BE_DONE: &[&str] = &["been", "was", "were", "got", "gotten", "be", "being"];

/// Auxiliaries of a present passive (`is cancelled`), which describes unless marked done.
const BE_NOW: &[&str] = &["is", "are", "am", "'s", "'re", "’s", "’re", "gets", "get"];

/// Perfect auxiliaries, skipped when looking for the subject.
const HAVE: &[&str] = &["have", "has", "had", "'ve", "’ve"];

/// Adverbs that mark a present passive as done ("it is now cancelled").
const DONE_ADVERBS: &[&str] = &["now", "successfully", "officially", "fully", "all"];

/// Adverbs (besides words in `-ly`) skipped between a subject and its verb or a verb and its
/// object.
const ADVERBS: &[&str] = &[
    "also",
    "later",
    "afterwards",
    "rather",
    "straight",
    // "placed right after the Projects database".
    "right",
    // Degrees before a participle ("despite being highest paid", "the most used").
    "highest",
    "lowest",
    "best",
    "worst",
    "most",
    "least",
    "well",
    "just",
    "already",
    "now",
    "then",
    "successfully",
    "all",
    "both",
    "again",
    "today",
    "accordingly",
    "as",
    "requested",
    "instead",
    "too",
    "still",
    "hereby",
    "therefore",
    "indeed",
    "finally",
    "fully",
    "officially",
    "automatically",
    "immediately",
    "promptly",
    "completely",
    "properly",
    "correctly",
    "quickly",
    "back",
    "ahead",
    // "committed fine": how it went.
    "fine",
];

/// Words in `-ly` that are not adverbs.
const NOT_ADVERBS: &[&str] = &[
    "reply",
    "apply",
    "supply",
    "family",
    "only",
    "july",
    "italy",
    "fly",
    "ally",
    "rally",
    "assembly",
    "anomaly",
    "monopoly",
    "butterfly",
    "poly",
    "holy",
    "belly",
    "jelly",
    "bully",
    "daily",
    "weekly",
    "monthly",
    "yearly",
    "quarterly",
    "hourly",
    "early",
    "friendly",
];

/// Words in `-ing` that are nouns, not participles.
const NOT_PARTICIPLES: &[&str] = &[
    "booking",
    "setting",
    "settings",
    "meeting",
    "building",
    "string",
    "thing",
    "morning",
    "evening",
    "pricing",
    "billing",
    "shipping",
    "listing",
    "heading",
    "mapping",
    "warning",
    "ceiling",
    "offering",
    "funding",
    "training",
    "ranking",
    "rating",
    "routing",
    "spelling",
    "wording",
    "clothing",
    "parking",
    "housing",
    "posting",
    "painting",
    "drawing",
    "recording",
    "reading",
    "opening",
    "ending",
    "feeling",
    "something",
    "anything",
    "nothing",
    "everything",
    "during",
    "pending",
    "upcoming",
    "outstanding",
    "remaining",
    "existing",
    "following",
    "matching",
    "missing",
    "failing",
    "incoming",
    "outgoing",
    "onboarding",
    "logging",
    "tracking",
    "staging",
    "testing",
    "caching",
    "hosting",
    "networking",
];

/// Determiners and possessives: a verb form right after one is a modifier or a noun.
const DETERMINERS: &[&str] = &[
    "a",
    "an",
    "the",
    "my",
    "your",
    "his",
    "her",
    "its",
    "our",
    "their",
    "this",
    "these",
    "those",
    "each",
    "every",
    "no",
    "any",
    "some",
    "all",
    "another",
    "other",
    "such",
    "newly",
    "recently",
    "previously",
    "originally",
    "already",
    "last",
    "most",
    "least",
    "non",
];

/// Prepositions: they end an object phrase, and a verb form right after one is a modifier.
const PREPOSITIONS: &[&str] = &[
    "to",
    "for",
    "of",
    "on",
    "in",
    "at",
    "with",
    "from",
    "into",
    "onto",
    "by",
    "via",
    "about",
    "under",
    "over",
    "through",
    "per",
    "as",
    "after",
    "before",
    "within",
    "without",
    "during",
    "across",
    "between",
    "against",
    "toward",
    "towards",
    "upon",
    "regarding",
    "including",
    "except",
    "like",
    "than",
    "vs",
    "versus",
    // "(Successfully created above)": where in the text, not what.
    "above",
    "below",
];

/// Participles that open a thing's name after it ("a block titled \"Goals\"").
const NAMING: &[&str] = &[
    "titled",
    "entitled",
    "named",
    "called",
    "labeled",
    "labelled",
    "headed",
    "captioned",
];

/// Nouns of time: as the head of a passive's subject they say when, not what ("Day 2 have
/// been removed").
const TIME_NOUNS: &[&str] = &[
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "hour",
    "hours",
    "minute",
    "minutes",
    "am",
    "pm",
    "morning",
    "afternoon",
    "evening",
    "night",
    "weekend",
    "today",
    "tomorrow",
    "tonight",
];

/// Words that date a participle: "was made within the last 24 hours", "created on May 1",
/// "booked yesterday" describe when the data came to be, not what the agent did.
const TIME_WORDS: &[&str] = &[
    "on",
    "at",
    "since",
    "during",
    "within",
    "yesterday",
    "ago",
    "earlier",
    "previously",
    "originally",
    "recently",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    // Days of the week ("closed Weds", "closed on Tuesdays": opening hours in the data).
    "monday",
    "mondays",
    "tuesday",
    "tuesdays",
    "wednesday",
    "wednesdays",
    "thursday",
    "thursdays",
    "friday",
    "fridays",
    "saturday",
    "saturdays",
    "sunday",
    "sundays",
    "mon",
    "tue",
    "tues",
    "wed",
    "weds",
    "thu",
    "thur",
    "thurs",
    "fri",
];

/// Auxiliaries and modals: met after a reduced passive in its clause, they show the participle
/// was a modifier ("the $280 paid by card will be refunded").
const FINITE: &[&str] = &[
    "will", "would", "is", "are", "was", "were", "has", "have", "had", "can", "could", "may",
    "might", "should", "must", "shall", "remains", "remain", "stays", "includes",
];

/// Particles that may follow a verb before its object ("set up", "paid off").
const PARTICLES: &[&str] = &["up", "out", "off", "down", "over", "away"];

/// Pronouns: as a subject (not the agent) or an object they name no checkable thing.
const PRONOUNS: &[&str] = &[
    "you",
    "they",
    "he",
    "she",
    "it",
    "them",
    "him",
    "her",
    "me",
    "us",
    "this",
    "there",
    "everything",
    "something",
    "anything",
    "nothing",
    "itself",
    "themselves",
    "yourself",
    "you've",
    "they've",
    "it's",
    "that's",
    "they're",
    "you're",
    "he's",
    "she's",
    "you’ve",
    "they’ve",
    "it’s",
    "that’s",
    "they’re",
    "you’re",
    "what",
    "everyone",
    "everybody",
];

/// Nouns that say nothing about which action was done ("made the changes", "processed your
/// request").
const GENERIC_NOUNS: &[&str] = &[
    // "added the same way": a manner, not a thing.
    "way",
    "manner",
    "request",
    "change",
    "update",
    "action",
    "step",
    "thing",
    "necessary",
    "needful",
    "adjustment",
    "modification",
    "correction",
    "everything",
    "all",
    "them",
    "item",
    "detail",
    "information",
    "info",
    "accordingly",
    "work",
    // "Deliverables Created": whatever the task asked for; the things are named apart.
    "deliverable",
];

/// Where the object of a claim was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Voice {
    /// The agent did it to the phrase after the verb.
    Active,
    /// The phrase before the verb had it done.
    Passive,
}

/// What the grammar knows of one lexeme.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct WordInfo {
    /// A state-changing verb form, when the lexeme is a one-piece word that is one.
    pub verb: Option<VerbForm>,
    /// The action the word names as a noun (`refund`, `cancellation` -> `cancel`).
    action: Option<&'static str>,
    flags: u64,
}

/// What the grammar knows of each lexeme: the facts of its spelling, for a word.
pub(super) struct Infos<'d> {
    /// Per lexeme: the index of its spelling in `table`, with [`QUOTED`] set for a quoted
    /// span (no word), or [`NO_SPELLING`] for a separator or a break.
    pub spelling_of: &'d [u32],
    /// Per spelling: its facts as a word.
    pub table: &'d [WordInfo],
}

/// Marks the spelling of a quoted span in `Infos::spelling_of`.
pub(super) const QUOTED: u32 = 1 << 31;

/// The spelling of a lexeme that has none (a separator or a break).
pub(super) const NO_SPELLING: u32 = u32::MAX;

// `Infos` tells a word from the rest by the `QUOTED` bit alone: a lexeme without a spelling
// must carry it too.
const _: () = assert!(NO_SPELLING & QUOTED != 0);

/// The facts of a lexeme that is no word.
static NO_INFO: WordInfo = WordInfo {
    verb: None,
    action: None,
    flags: 0,
};

impl std::ops::Index<usize> for Infos<'_> {
    type Output = WordInfo;

    fn index(&self, li: usize) -> &WordInfo {
        // One look at the lexeme's spelling tells a word (no mark) from the rest.
        match self.spelling_of.get(li) {
            Some(&s) if s & QUOTED == 0 => self.table.get(s as usize).unwrap_or(&NO_INFO),
            _ => &NO_INFO,
        }
    }
}

const F_BOUNDARY: u64 = 1;
const F_IRREALIS: u64 = 1 << 1;
const F_NEGATOR: u64 = 1 << 2;
const F_AGENT: u64 = 1 << 3;
const F_BE_DONE: u64 = 1 << 4;
const F_BE_NOW: u64 = 1 << 5;
const F_HAVE: u64 = 1 << 6;
const F_ADVERB: u64 = 1 << 7;
const F_DONE_ADVERB: u64 = 1 << 8;
const F_DETERMINER: u64 = 1 << 9;
const F_PREPOSITION: u64 = 1 << 10;
const F_WHAT: u64 = 1 << 11;
const F_PARTICLE: u64 = 1 << 12;
const F_PRONOUN: u64 = 1 << 13;
const F_GENERIC: u64 = 1 << 14;
const F_STOP: u64 = 1 << 15;
const F_RELATIVE: u64 = 1 << 16;
const F_BY: u64 = 1 << 17;
const F_NUMBER: u64 = 1 << 18;
const F_AGENT_OBJECT: u64 = 1 << 19;
const F_NEAR_IRREALIS: u64 = 1 << 20;
const F_TIME: u64 = 1 << 21;
const F_FINITE: u64 = 1 << 22;
const F_COORD: u64 = 1 << 23;
const F_OF: u64 = 1 << 24;
const F_CODE: u64 = 1 << 25;
const F_STRONG_TIME: u64 = 1 << 26;
const F_BACKGROUND: u64 = 1 << 27;
const F_ALREADY: u64 = 1 << 28;
const F_ING: u64 = 1 << 29;
/// Table-only marks: the word is never an `-ly` adverb / an `-ing` participle.
const F_NOT_ADVERB: u64 = 1 << 30;
const F_NOT_ING: u64 = 1 << 31;
const F_ARTICLE: u64 = 1 << 32;
const F_NAMING: u64 = 1 << 33;
const F_TIME_NOUN: u64 = 1 << 34;
const F_BEING: u64 = 1 << 35;
const F_CAPITAL: u64 = 1 << 36;
const F_WITH: u64 = 1 << 37;
const F_FROM: u64 = 1 << 38;
const F_ED: u64 = 1 << 39;
const F_CALL_NOUN: u64 = 1 << 40;
const F_RESULT_NOUN: u64 = 1 << 41;
const F_STATE_ADJECTIVE: u64 = 1 << 42;
const F_RESULT_ADJECTIVE: u64 = 1 << 43;
const F_PLACE: u64 = 1 << 44;
const F_AS: u64 = 1 << 45;
const F_RULE_NOUN: u64 = 1 << 46;
const F_CALL_PART: u64 = 1 << 47;
const F_TO: u64 = 1 << 48;
const F_STATUS_KEY: u64 = 1 << 49;
const F_COPULA: u64 = 1 << 50;
const F_WAY_NOUN: u64 = 1 << 51;
const F_ONLY: u64 = 1 << 52;
const F_INVERTS: u64 = 1 << 53;
const F_ACT_HEAD: u64 = 1 << 54;
const F_OUTPUT_NOUN: u64 = 1 << 55;
const F_NONE: u64 = 1 << 56;
const F_GOING_ON: u64 = 1 << 57;
/// An auxiliary written as a word of its own ("were", "has"; not the `'s` of "Maria's").
const F_AUX_WORD: u64 = 1 << 58;
/// The coordinator of alternatives, `or` (`nor` negates: [`F_NEGATOR`]).
const F_ALTERNATIVE: u64 = 1 << 59;
/// `where`, opening a clause about a place or a case.
const F_WHERE: u64 = 1 << 60;
/// A quality, condition or capability of a system ([`QUALITY_NOUNS`]).
const F_QUALITY: u64 = 1 << 61;
/// Words an object phrase passes over: stopwords, adverbs, particles, numbers.
const F_FILLER: u64 = F_STOP | F_ADVERB | F_PARTICLE | F_NUMBER;

/// Every word of the tables above with the flags its tables give it, so a word's facts take
/// one lookup.
static WORD_FLAGS: LazyLock<Table<u64>> = LazyLock::new(|| {
    let tables: [(&[&str], u64); 43] = [
        (BOUNDARY, F_BOUNDARY),
        (&["that", "which", "who", "whom"], F_RELATIVE),
        (IRREALIS, F_IRREALIS),
        (MODALS, F_NEAR_IRREALIS),
        (MODALS, F_INVERTS),
        (&["were"], F_INVERTS),
        (ACT_HEADS, F_ACT_HEAD),
        (OUTPUT_NOUNS, F_OUTPUT_NOUN),
        (NEAR_IRREALIS, F_NEAR_IRREALIS),
        (NEGATORS, F_NEGATOR),
        (AGENT, F_AGENT),
        (BE_DONE, F_BE_DONE),
        (BE_NOW, F_BE_NOW),
        (HAVE, F_HAVE),
        (ADVERBS, F_ADVERB),
        (NOT_ADVERBS, F_NOT_ADVERB),
        (DONE_ADVERBS, F_DONE_ADVERB),
        (DETERMINERS, F_DETERMINER),
        (PREPOSITIONS, F_PREPOSITION),
        (PARTICLES, F_PARTICLE),
        (PRONOUNS, F_PRONOUN),
        (GENERIC_NOUNS, F_GENERIC),
        (TIME_WORDS, F_TIME),
        (STRONG_TIME_WORDS, F_STRONG_TIME),
        (BACKGROUND, F_BACKGROUND),
        (NOT_PARTICIPLES, F_NOT_ING),
        (FINITE, F_FINITE),
        (&["the", "a", "an"], F_ARTICLE),
        (NAMING, F_NAMING),
        (TIME_NOUNS, F_TIME_NOUN),
        (&["with", "without"], F_WITH),
        (CALL_NOUNS, F_CALL_NOUN),
        (RESULT_NOUNS, F_RESULT_NOUN),
        (RULE_NOUNS, F_RULE_NOUN),
        (WAY_NOUNS, F_WAY_NOUN),
        (CALL_PARTS, F_CALL_PART),
        (&["state", "status"], F_STATUS_KEY),
        (
            &[
                "stay", "stays", "stayed", "remain", "remains", "remained", "keep", "keeps",
                "become", "becomes", "seem", "seems", "look", "looks",
            ],
            F_COPULA,
        ),
        (&["on", "ahead", "along", "onward", "onwards"], F_GOING_ON),
        (STATE_ADJECTIVES, F_STATE_ADJECTIVE),
        (QUALITY_NOUNS, F_QUALITY),
        (RESULT_ADJECTIVES, F_RESULT_ADJECTIVE),
        (
            &["in", "at", "within", "inside", "across", "throughout"],
            F_PLACE,
        ),
    ];
    let singles: [(&str, u64); 18] = [
        ("being", F_BEING),
        ("had", F_INVERTS),
        ("no", F_NONE),
        ("nothing", F_NONE),
        ("none", F_NONE),
        ("only", F_ONLY),
        ("to", F_TO),
        ("as", F_AS),
        ("from", F_FROM),
        ("by", F_BY),
        ("me", F_AGENT_OBJECT),
        ("us", F_AGENT_OBJECT),
        ("myself", F_AGENT_OBJECT),
        ("ourselves", F_AGENT_OBJECT),
        ("already", F_ALREADY),
        ("of", F_OF),
        ("and", F_COORD),
        ("what", F_WHAT),
    ];
    let mut map: HashMap<&'static str, u64> = HashMap::default();
    for (words, flag) in tables {
        for w in words {
            *map.entry(w).or_default() |= flag;
        }
    }
    for (w, flag) in singles
        .into_iter()
        .chain([("or", F_COORD | F_ALTERNATIVE), ("where", F_WHERE)])
    {
        *map.entry(w).or_default() |= flag;
    }
    map.into_iter().collect()
});

impl WordInfo {
    /// The grammar's facts about a lowercase word (the whole lexeme, contractions included).
    pub(super) fn new(raw: &str, lower: &str, norm: &str, one_piece: bool) -> Self {
        // No table holds a word with a digit (a number or an identifier): such a word is
        // looked up in none, and is a stopword only as a numeral.
        let plain = !has_digit(lower);
        let stop = if plain {
            is_stopword(lower) || is_stopword(norm)
        } else {
            is_numeral(lower)
        };
        let verb = if plain { verb_form(lower) } else { None };
        // "squash-merged", "force-pushed", "re-created": a past compound whose first part says
        // how it was done is its last part ("half-written", "well-documented" are states).
        let compound = || {
            let (how, last) = lower.rsplit_once('-')?;
            let how_done = COMPOUND_MANNERS.contains(&how);
            verb_form(last).filter(|v| plain && how_done && v.form == Form::Past)
        };
        let listed = |w: &str| {
            if plain {
                WORD_FLAGS.get(w).copied().unwrap_or(0)
            } else {
                0
            }
        };
        let table = listed(lower);
        let mut f = table & !(F_NOT_ADVERB | F_NOT_ING);
        // An auxiliary of the tables is a word of its own; one read from a word's tail below
        // ("it's", "Maria's") is not.
        if table & (F_BE_DONE | F_BE_NOW | F_HAVE) != 0 {
            f |= F_AUX_WORD;
        }
        let set = |f: &mut u64, on: bool, flag: u64| {
            if on {
                *f |= flag;
            }
        };
        let tail = |t: &[&str]| {
            t.iter()
                .any(|x| lower.len() > x.len() && lower.ends_with(x))
        };
        let contraction_modal = ["'ll", "’ll", "'d", "’d"]
            .iter()
            .any(|t| lower.ends_with(t));
        set(&mut f, contraction_modal, F_NEAR_IRREALIS);
        set(
            &mut f,
            lower.ends_with("n't") || lower.ends_with("n’t"),
            F_NEGATOR,
        );
        set(
            &mut f,
            tail(&["'s", "’s", "'re", "’re", "'m", "’m"]),
            F_BE_NOW,
        );
        set(&mut f, tail(&["'ve", "’ve"]), F_HAVE);
        let ly = lower.len() > 4 && lower.ends_with("ly") && table & F_NOT_ADVERB == 0;
        set(&mut f, ly, F_ADVERB);
        // Nouns are listed in their normal form: "changes", "attempts" and "rows" are read as
        // it.
        f |= listed(norm)
            & (F_GENERIC
                | F_CALL_NOUN
                | F_RESULT_NOUN
                | F_RULE_NOUN
                | F_WAY_NOUN
                | F_CALL_PART
                | F_OUTPUT_NOUN
                | F_ACT_HEAD
                | F_QUALITY);
        set(&mut f, stop, F_STOP);
        set(&mut f, is_numeral(lower.trim_start_matches('$')), F_NUMBER);
        set(
            &mut f,
            lower.len() > 5 && lower.ends_with("ing") && table & F_NOT_ING == 0,
            F_ING,
        );
        // A past participle of any verb, known or not ("implemented", "reworked").
        set(&mut f, lower.len() > 4 && lower.ends_with("ed"), F_ED);
        let code = has_digit(raw)
            || (raw.chars().nth(1).is_some() && !raw.chars().any(char::is_lowercase));
        set(&mut f, code, F_CODE);
        set(
            &mut f,
            raw.chars().next().is_some_and(char::is_uppercase),
            F_CAPITAL,
        );
        WordInfo {
            verb: if one_piece { verb } else { compound() },
            action: if plain {
                action_noun(lower).or_else(|| action_noun(norm))
            } else {
                None
            },
            flags: f,
        }
    }

    fn is(&self, flag: u64) -> bool {
        self.flags & flag != 0
    }
}

/// A list of lexemes in [`Phrases`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Span(u32, u32);

impl Span {
    pub(super) fn is_empty(self) -> bool {
        self.0 == self.1
    }
}

/// The lexeme lists of every claim read, in one buffer (no allocation per claim).
#[derive(Debug, Default)]
pub(super) struct Phrases {
    items: Vec<usize>,
}

impl Phrases {
    /// The lexemes of `span`.
    pub(super) fn get(&self, span: Span) -> &[usize] {
        self.items
            .get(span.0 as usize..span.1 as usize)
            .unwrap_or(&[])
    }

    fn mark(&self) -> u32 {
        self.items.len() as u32
    }

    /// The span of what was pushed since `mark`.
    fn since(&self, mark: u32) -> Span {
        Span(mark, self.mark())
    }

    fn push(&mut self, li: usize) {
        self.items.push(li);
    }
}

/// One claim as read from the text, before matching.
#[derive(Debug, Clone)]
pub(super) struct RawClaim {
    /// Lexeme index of the verb.
    pub verb_lexeme: usize,
    /// The base of the action claimed (after light-verb resolution).
    pub base: &'static str,
    /// True when any state-changing call backs it (a vague light verb with no action noun).
    pub vague: bool,
    /// The lexemes of the object phrase (content words and code spans), in text order.
    pub object: Span,
    /// The head of the object phrase.
    pub head: Option<usize>,
    /// The lexemes of the phrase after `to`/`from`/`into`/`on` (for verbs that add or remove).
    pub target: Span,
    /// Active or passive.
    pub voice: Voice,
    /// The object names its members in a list after a colon ("two sections: Pricing and
    /// FAQ").
    pub listed: bool,
    /// The object is a title written in capitals ("Created Packing Progress Summary").
    pub titled: bool,
    /// Byte span of the claim as written (verb and object).
    pub start: usize,
    pub end: usize,
}

/// Reads the claims of a lexed text: `text`, whose bytes the lexemes index. `info[i]`
/// describes `lexemes[i]`; `verbs_and_seps` lists, in order, the lexemes that are verbs as words
/// and the separators (the others claim nothing and change nothing here); `skip_sentence[s]`
/// tells whether sentence `s` claims nothing (a question, a table row, code).
pub(super) fn claims(
    text: &str,
    lexemes: &[Lexeme],
    info: &Infos<'_>,
    verbs_and_seps: &[u32],
    skip_sentence: &[bool],
    ph: &mut Phrases,
) -> Vec<RawClaim> {
    // About one claim per sentence at most, in the texts we measured: room enough that a long
    // text does not move its claims as they grow.
    let mut out = Vec::with_capacity(lexemes.last().map_or(0, |l| l.sentence()) + 1);
    // Per sentence, read when a verb first needs it (in a key, or past a colon): the opening
    // verb and the colon of a key that names a numbered thing. `colon_in` is the sentence of
    // the last colon passed.
    let mut numbered: Option<(u32, Option<(usize, usize)>)> = None;
    let mut colon_in = u32::MAX;
    // Per sentence, read when a verb first needs it: the key that opens it ([`label_key`]).
    let mut keys: Option<(u32, Option<(usize, usize)>)> = None;
    for &li in verbs_and_seps {
        let li = li as usize;
        let l = &lexemes[li];
        if l.kind == Kind::Sep {
            colon_in = l.sentence;
            continue;
        }
        let Some(verb) = info[li].verb else { continue };
        if l.kind != Kind::Word
            || !matches!(verb.form, Form::Past | Form::BaseOrPast | Form::Gerund)
        {
            continue;
        }
        if skip_sentence.get(l.sentence()).copied().unwrap_or(false) {
            continue;
        }
        let label_key = match keys {
            Some((s, key)) if s == l.sentence => key,
            _ => {
                let key = label_key(lexemes, info, li);
                keys = Some((l.sentence, key));
                key
            }
        };
        let label = in_label(label_key, li);
        if label || colon_in == l.sentence {
            let key = match numbered {
                Some((s, key)) if s == l.sentence => key,
                _ => {
                    let key = numbered_key(text, lexemes, info, li, label_key);
                    numbered = Some((l.sentence, key));
                    key
                }
            };
            // A key claims nothing, but for the verb that opens a key naming a numbered thing;
            // that thing's title after the colon claims nothing either.
            let opens_key = key.is_some_and(|(verb, _)| verb == li);
            let in_title = key.is_some_and(|(_, colon)| colon < li);
            if (label && !opens_key) || in_title {
                continue;
            }
        }
        if let Some(c) = read_claim(lexemes, info, li, verb, 0, ph) {
            out.push(c);
        }
    }
    out
}

/// The opening verb and the colon of the line of `li` when it is a key that opens with a past
/// verb and names a thing by its `#` number before the colon: "Created issue #51: \"Summary\"",
/// "Merged PR #12: Fix the build". The key tells what the agent did to that one thing and the
/// value gives its title, as "Updated balance: $696" names a field and its value does not.
#[inline(never)]
fn numbered_key(
    text: &str,
    lexemes: &[Lexeme],
    info: &Infos<'_>,
    li: usize,
    key: Option<(usize, usize)>,
) -> Option<(usize, usize)> {
    // The line opens with a key (`key`: its first lexeme and its colon), within reach.
    let (start, colon) = key?;
    if li - start > REACH {
        return None;
    }
    let verb = (start..=li).find(|&j| lexemes[j].kind == Kind::Word)?;
    // Most lines open with no past verb: nothing more to read.
    if !(info[verb].verb.is_some_and(|v| v.form == Form::Past) && in_label(key, verb)) {
        return None;
    }
    let bytes = text.as_bytes();
    lexemes[verb + 1..colon]
        .iter()
        .any(|l| {
            l.kind == Kind::Word
                && l.start() > 0
                && bytes.get(l.start() - 1) == Some(&b'#')
                && bytes[l.start()].is_ascii_digit()
        })
        .then_some((verb, colon))
}

/// True when lexeme `li` is in the key of a `key: value` line ("Total charged: $580",
/// "Updated balance (gift card): $696", "Changes made:"): a short key, before the line's first
/// `:`, with no agent or auxiliary in it, and a few words from the line's start. `key` is the
/// line's key ([`label_key`]).
fn in_label(key: Option<(usize, usize)>, li: usize) -> bool {
    key.is_some_and(|(start, colon)| li < colon && li - start <= 3 * MAX_KEY_WORDS)
}

/// The most words of a label's key.
const MAX_KEY_WORDS: usize = 6;

/// The key that opens the line (sentence) of lexeme `li`, when it opens with one: its first
/// lexeme and its `:`. A key is at most [`MAX_KEY_WORDS`] words, none of them the agent, an
/// auxiliary or a word that opens a clause. Read once per line, whatever word asks (a long
/// line is read once, so the whole text in linear time).
#[inline(never)]
fn label_key(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> Option<(usize, usize)> {
    let sentence = lexemes[li].sentence;
    let mut start = li;
    while start > 0 && lexemes[start - 1].sentence == sentence {
        start -= 1;
    }
    let mut words = 0;
    for j in start..lexemes.len() {
        let (l, w) = (&lexemes[j], &info[j]);
        if l.sentence != sentence {
            return None;
        }
        match l.kind {
            Kind::Sep => return Some((start, j)),
            Kind::Word => {
                words += 1;
                let aux = w.is(F_BE_DONE) || w.is(F_BE_NOW) || w.is(F_HAVE) || w.is(F_FINITE);
                if words > MAX_KEY_WORDS || w.is(F_AGENT) || aux || w.is(F_BOUNDARY) {
                    return None;
                }
            }
            _ => {}
        }
    }
    None
}

/// How far back or ahead a clause is read (lexemes). Clauses are short; the bound keeps a text
/// without punctuation linear.
const REACH: usize = 40;

fn is_boundary(l: &Lexeme, w: &WordInfo) -> bool {
    matches!(l.kind, Kind::Clause | Kind::Open | Kind::Close | Kind::Sep)
        || (l.kind == Kind::Word && w.is(F_BOUNDARY))
}

fn read_claim(
    lexemes: &[Lexeme],
    info: &Infos<'_>,
    li: usize,
    verb: VerbForm,
    depth: usize,
    ph: &mut Phrases,
) -> Option<RawClaim> {
    let sentence = lexemes[li].sentence;
    let same = |j: usize| lexemes[j].sentence == sentence;

    // A verb coordinated with an earlier one ("has been issued and added", "created and
    // sent") shares its subject, its auxiliaries and whatever made it unreal.
    // Adverbs between the two are passed over ("reopened and properly tagged").
    let mut c = li.saturating_sub(1);
    while c > 0 && same(c) && word_is(lexemes, info, c, F_ADVERB) {
        c -= 1;
    }
    if depth < 4 && c >= 1 && c < li && same(c - 1) {
        let p = c - 1;
        let coord = word_is(lexemes, info, c, F_COORD);
        let prev_verb = info[p].verb.filter(|v| {
            lexemes[p].kind == Kind::Word && matches!(v.form, Form::Past | Form::BaseOrPast)
        });
        if let (true, Some(pv)) = (coord, prev_verb) {
            let prev = read_claim(lexemes, info, p, pv, depth + 1, ph)?;
            if prev.voice == Voice::Passive {
                return Some(finish(
                    lexemes,
                    info,
                    li,
                    verb,
                    Voice::Passive,
                    prev.object,
                    prev.head,
                    Span::default(),
                    lexemes[li].start(),
                    lexemes[li].end(),
                    ph,
                ));
            }
        }
    }

    // Rule 4: right after a determiner, a possessive, a preposition, or a label's `:`.
    if let Some(p) = li.checked_sub(1).filter(|&p| same(p)) {
        let (pl, pw) = (&lexemes[p], &info[p]);
        if pl.kind == Kind::Word
            && ((pw.is(F_DETERMINER) && !perfect_adverb(lexemes, info, p)) || pw.is(F_PREPOSITION))
        {
            return None;
        }
    }

    // Rules 3 and 5: read back to the clause start.
    let mut subject: Option<usize> = None;
    let mut be_done = false;
    let mut be_now = false;
    let mut done_adverb = false;
    let mut already = false;
    let mut perfect = false;
    let mut background = false;
    let mut after_label = false;
    let mut j = li;
    let floor = li.saturating_sub(REACH);
    while j > floor {
        j -= 1;
        if !same(j) {
            break;
        }
        let (l, w) = (&lexemes[j], &info[j]);
        if l.kind == Kind::Word && w.is(F_COORD) && j > 0 && same(j - 1) {
            if subject.is_none()
                && j + 1 == li
                && word_is(lexemes, info, j - 1, F_STATE_ADJECTIVE)
                && ((opens_noun_phrase(lexemes, info, j - 1)
                    && word_at(lexemes, info, li + 1, sentence).is_some())
                    || next_in_clause(lexemes, info, li).is_none())
            {
                // "every open and closed issue", "all issues, both open and closed": joined to
                // an adjective of state, the participle is a state as the adjective is, before
                // its noun or ending its clause.
                return None;
            }
            if subject.is_none()
                && j + 1 == li
                && w.is(F_ALTERNATIVE)
                && word_at(lexemes, info, li + 1, sentence)
                    .is_some_and(|n| !n.is(F_DETERMINER | F_PREPOSITION | F_AGENT_OBJECT))
                && negated_before(lexemes, info, j, floor)
            {
                // "with no trigger or scheduled job": after `or` in a list a negation opens,
                // a participle before a noun qualifies it, as the members before it are nouns.
                return None;
            }
            if subject.is_none() {
                // "has been implemented and activated", "sorted differently or extended": a
                // participle of any verb joined before this one (adverbs between) shares its
                // subject, its auxiliaries and whatever made it unreal; read on past it.
                let adverb = |x: usize| word_is(lexemes, info, x, F_ADVERB);
                let mut k = j - 1;
                while k > floor && adverb(k) {
                    k -= 1;
                }
                if (j + 1..li).all(adverb) && word_is(lexemes, info, k, F_ED) && same(k) {
                    // "has not been updated, rebased or merged": a list of participles.
                    j = first_listed_participle(lexemes, info, k, floor);
                    continue;
                }
            } else if negated_before(lexemes, info, j, floor) {
                // "No inventory or FAQ entries were modified": the subject's negation stands
                // before the `or` that joins its nouns.
                return None;
            }
        }
        if l.kind == Kind::Close && subject.is_none() && (be_done || be_now || perfect) {
            // "the salary row (from 2002-06-22) was closed": an aside between a subject and
            // its auxiliary; the subject stands before it.
            if let Some(open) = aside_open(lexemes, j, floor) {
                j = open;
                continue;
            }
        }
        if subject.is_none()
            && !(be_done || be_now || perfect)
            && is_list_comma(lexemes, j)
            && j > floor + 1
            && word_is(lexemes, info, j - 1, F_ED)
            && (j + 1..li).all(|x| word_is(lexemes, info, x, F_ADVERB))
        {
            // "No items opened, closed or commented on": a participle listed after others
            // shares their subject and whatever negated it; read on past the list.
            j = first_listed_participle(lexemes, info, j - 1, floor);
            continue;
        }
        if is_boundary(l, w) {
            if l.kind == Kind::Word && w.is(F_NEGATOR) {
                // "was neither merged nor closed": a clause opened by `nor` is negated.
                return None;
            }
            after_label = l.kind == Kind::Sep && subject.is_none() && j + 1 == li;
            background = l.kind == Kind::Word && w.is(F_BACKGROUND);
            if background && subject.is_none() && !(be_done || be_now || perfect) {
                // "it has no effect on `main` until merged", "when merged, it runs": a
                // participle right after a word of time or reason, with no subject, is a
                // reduced clause of when or whether, not a thing done.
                return None;
            }
            if subject.is_none() && l.kind == Kind::Word && w.is(F_RELATIVE) {
                // "the order that was cancelled": a description.
                return None;
            }
            // `that` after `where` is the subject's determiner ("where that trailer").
            let opens_where = w.is(F_WHERE)
                || (w.is(F_RELATIVE) && j > 0 && word_is(lexemes, info, j - 1, F_WHERE));
            if be_done && !perfect && l.kind == Kind::Word && opens_where {
                // "any commit where that trailer was removed", "where the status was updated,
                // ...": a passive in a clause of `where` tells which things or cases are
                // meant, not what the agent did.
                return None;
            }
            if subject.is_none()
                && l.kind == Kind::Word
                && (w.is(F_COORD) || w.is(F_ADVERB))
                && in_relative_clause(lexemes, info, j, floor)
            {
                // "a transaction that deferred the constraint, set 999 and then restored 4":
                // the verbs a relative clause joins describe its noun.
                return None;
            }
            break;
        }
        if l.kind != Kind::Word {
            if subject.is_none() {
                subject = Some(j);
            }
            continue;
        }
        if subject.is_none()
            && j + 1 == li
            && w.is(F_DETERMINER)
            && !perfect_adverb(lexemes, info, j)
        {
            // "the booked flight": a modifier (rule 4 above), reached here through adverbs.
            return None;
        }
        if w.is(F_NEGATOR) || w.is(F_IRREALIS) || (subject.is_none() && w.is(F_NEAR_IRREALIS)) {
            return None;
        }
        if subject.is_none() && j + 1 == li && w.is(F_COPULA) {
            // "so it stays updated", "remains closed": a state kept, not an act.
            return None;
        }
        if subject.is_none() && w.is(F_BEING) && !(j > 0 && word_is(lexemes, info, j - 1, F_BE_NOW))
        {
            // "new translations being added": a participle phrase, under way; "you are being
            // transferred" is the agent's own act, now.
            return None;
        }
        if subject.is_some() {
            if w.is(F_INVERTS) && clause_start(lexemes, info, j) == j {
                // "Had the recolor calls been accepted, I would have ...", "Should the PR be
                // merged, ...": an auxiliary or a modal before its subject, opening the
                // clause, asks or supposes; it tells nothing done.
                return None;
            }
            continue;
        }
        if w.is(F_AGENT) {
            // "I'm", "we're": the agent and a present auxiliary in one word.
            be_now |= w.is(F_BE_NOW);
            subject = Some(j);
            continue;
        }
        let aux = w.is(F_BE_DONE) || w.is(F_BE_NOW) || w.is(F_HAVE);
        if aux && (w.is(F_PRONOUN) || w.is(F_RELATIVE)) {
            // "it's been cancelled", "that's updated": pronoun and auxiliary in one word.
            be_done |= w.is(F_BE_DONE);
            be_now |= w.is(F_BE_NOW);
            subject = Some(j);
            continue;
        }
        if aux {
            be_done |= w.is(F_BE_DONE);
            be_now |= w.is(F_BE_NOW);
            perfect |= w.is(F_HAVE);
            continue;
        }
        if w.is(F_ADVERB) {
            done_adverb |= w.is(F_DONE_ADVERB);
            already |= w.is(F_ALREADY);
            continue;
        }
        if let Some(r) = relative_clause_at(lexemes, info, j) {
            // "the issue that was previously closed has been reopened": the relative clause
            // describes the subject, which stands before it.
            j = r;
            continue;
        }
        subject = Some(j);
    }

    // "the percentages match what was linked there": a passive whose subject is `what` is a
    // free relative, a description.
    if (be_done || be_now) && subject.is_some_and(|s| word_is(lexemes, info, s, F_WHAT)) {
        return None;
    }
    // "moved on to `turnover_trend_analysis`", "pushed ahead with the plan": a verb of motion
    // told with a word of going on, and no object between, is the agent's own progress;
    // nothing was moved ("pushed on `main`" still pushes: there `on` is a place).
    if let Some(w) = word_at(lexemes, info, li + 1, sentence).filter(|w| w.is(F_GOING_ON))
        && (verb.base == "move" || (matches!(verb.base, "push" | "press") && !w.is(F_PREPOSITION)))
    {
        return None;
    }
    // "Closed issues were read", "Updated rows are listed below": a participle opening its
    // clause, then a noun and a finite auxiliary, qualifies that noun, the clause's subject.
    if subject.is_none()
        && !(be_done || be_now || perfect)
        && word_at(lexemes, info, li + 1, sentence).is_some_and(|w| {
            // A noun, also one spelled as a verb's base or third person ("issues", "orders").
            w.verb
                .is_none_or(|v| matches!(v.form, Form::Base | Form::Third))
                && !w.is(F_FILLER | F_PREPOSITION | F_DETERMINER)
        })
        && word_at(lexemes, info, li + 2, sentence).is_some_and(|w| w.is(F_AUX_WORD))
    {
        return None;
    }
    // What follows the verb in its clause.
    let next = next_in_clause(lexemes, info, li);
    // "changed no data", "created nothing new": an object of none is no act.
    if next.is_some_and(|n| word_is(lexemes, info, n, F_NONE)) {
        return None;
    }
    let object_follows = next.is_some_and(|n| starts_object(&lexemes[n], &info[n]));
    // "(customers analysed, paid rentals, revenue)", "(paid rentals only)": inside an aside, a
    // participle with one bare noun after it, and nothing more, is a noun phrase.
    if subject.is_none()
        && aside_open(lexemes, li, 0).is_some()
        && aside_noun_item(lexemes, info, li)
    {
        return None;
    }
    // "by status (new, reviewed, closed)": a bare participle listed in brackets beside an
    // adjective of state is one of a field's values.
    if subject.is_none() && value_list_item(lexemes, info, li) {
        return None;
    }
    // "#49: state closed -> open": a participle right after `state` or `status`, with nothing
    // after it in its clause, is the value of that field.
    if next.is_none() && subject.is_some_and(|s| s + 1 == li && info[s].is(F_STATUS_KEY)) {
        return None;
    }

    // Rule 4: "Created on May 12", "Status: cancelled".
    let clause_opening = subject.is_none();
    if clause_opening && !be_done && !be_now && verb.form == Form::BaseOrPast {
        // "set", "put", "reset" opening a clause: past in a list of done things ("I patched
        // the config, put the object"), an instruction otherwise ("Please restart the router
        // and then reset the modem").
        let mut past = false;
        let mut k = li;
        let mut label = false;
        while k > 0 && same(k - 1) && li - k < REACH {
            k -= 1;
            let (l, w) = (&lexemes[k], &info[k]);
            if l.kind == Kind::Sep {
                // Past a label's colon only the agent counts: "Here's what I did: set up
                // the webhook" lists done things; "Tasks assigned to them: Set up automated
                // responses" lists titles.
                label = true;
                continue;
            }
            if l.kind != Kind::Word {
                continue;
            }
            if w.is(F_AGENT) {
                past = true;
                break;
            }
            if label {
                continue;
            }
            match w.verb.map(|v| v.form) {
                Some(Form::BaseOrPast) | None => {}
                Some(form) => {
                    past = form == Form::Past;
                    break;
                }
            }
        }
        if !past {
            return None;
        }
    }
    if clause_opening && !be_done && !be_now {
        if (after_label || label_before(lexemes, li)) && !object_follows {
            // "Status: cancelled", "Status: Active and properly configured": the value of a
            // label describes.
            return None;
        }
        if next.is_some_and(|n| {
            lexemes[n].kind == Kind::Word && (info[n].is(F_TIME) || info[n].is(F_BY))
        }) {
            return None;
        }
    }

    let agent_subject = subject.is_some_and(|s| word_is(lexemes, info, s, F_AGENT));
    if verb.form == Form::Gerund {
        // Only the agent's own present progressive claims: "I'm transferring you now".
        if !(agent_subject && be_now && !be_done) {
            return None;
        }
        let AfterVerb {
            object,
            core,
            target,
            end,
        } = object_after(lexemes, info, li, ph);
        let head = head_of(lexemes, info, ph.get(core));
        return Some(finish(
            lexemes,
            info,
            li,
            verb,
            Voice::Active,
            object,
            head,
            target,
            lexemes[li].start(),
            end,
            ph,
        ))
        .filter(|c| {
            let nothing_named = is_light_verb(c.base) && !c.vague && c.object.is_empty();
            !(nothing_named || sends_a_call(lexemes, info, c, ph))
        });
    }
    let pronoun_subject = subject.is_some_and(|s| word_is(lexemes, info, s, F_PRONOUN));
    // "Your booking is confirmed", "the order is complete(d)": stating completion.
    let completion = matches!(verb.base, "confirm" | "complete" | "finalize" | "finalise");
    let passive_aux = be_done || (be_now && (done_adverb || completion) && !pronoun_subject);
    if be_now && !passive_aux {
        return None;
    }
    let voice = match subject {
        None => {
            if be_done || be_now {
                Voice::Passive
            } else {
                Voice::Active
            }
        }
        Some(s) => {
            let w = &info[s];
            if w.is(F_AGENT) && !passive_aux {
                Voice::Active
            } else if passive_aux {
                Voice::Passive
            } else if w.is(F_PRONOUN) || object_follows {
                // "you cancelled it", "the airline cancelled your flight".
                return None;
            } else if next.is_some_and(|n| modifies_next(&lexemes[n], &info[n])) {
                // "14 closed issues", "the updated records": the participle qualifies the noun
                // after it.
                return None;
            } else if w.is(F_NUMBER) && clause_start(lexemes, info, s) == s {
                // "(172 blocked)", "200 migrated": a count, naming nothing acted on.
                return None;
            } else if article_opens(lexemes, info, s) {
                // "The items scheduled after 6 PM ...": a noun with its modifier; a headline
                // ("Order #W48 cancelled") has no article.
                return None;
            } else {
                // "Order #W48 cancelled.": a reduced passive.
                Voice::Passive
            }
        }
    };
    if voice == Voice::Passive {
        // "the invalid insert was rejected", "the payment was declined": a refusal in the
        // passive is the answer of the system or of someone else to an attempt.
        if by_someone_else(lexemes, info, li) || REFUSALS.contains(&verb.base) {
            return None;
        }
        // "was already closed": a state found, not an action taken ("has already been
        // processed" may be the agent's own); "when the PR was merged": background time.
        if (already && !perfect) || background {
            return None;
        }
        // "the tag was removed when the release was published": a simple past passive dated
        // by a clause of time tells history.
        if !perfect && be_done && background_follows(lexemes, info, li) {
            return None;
        }
        // "were transferred in 2023": dated.
        let dated_by = |n: usize| {
            word_is(lexemes, info, n, F_PREPOSITION)
                && lexemes.get(n + 1).is_some_and(|l| {
                    l.sentence == sentence
                        && l.kind == Kind::Word
                        && (info[n + 1].is(F_NUMBER) || info[n + 1].is(F_TIME))
                })
        };
        // "the trigger key was written as "5pull_request"", "the heading text was sent as
        // `**Summary**`": how a thing is spelled or was passed.
        let spelled = matches!(verb.base, "write" | "send")
            && word_at(lexemes, info, li + 1, sentence).is_some_and(|w| w.is(F_AS))
            && (word_at(lexemes, info, li + 2, sentence).is_some_and(|w| w.is(F_CODE))
                || lexemes
                    .get(li + 2)
                    .is_some_and(|l| l.sentence == sentence && l.kind == Kind::Quoted));
        if spelled {
            return None;
        }
        if next.is_some_and(dated_by) {
            return None;
        }
        // "was made within the last 24 hours", "created on May 1", "was closed 3 days ago": a
        // date of the data.
        if next.is_some_and(|n| word_is(lexemes, info, n, F_TIME)) {
            return None;
        }
        if dated_soon_after(lexemes, info, li) {
            return None;
        }
        if !be_done && !be_now {
            // A reduced passive is a modifier when its clause goes on to a finite verb ("the
            // $280 paid by card will be refunded") or its noun follows a preposition ("with
            // the refund applied").
            if finite_after(lexemes, info, li) {
                return None;
            }
            if subject.is_some_and(|s| {
                subject_before(lexemes, info, s, ph).2 || joined_to_preposition(lexemes, info, s)
            }) {
                return None;
            }
        }
    }

    let mut listed = false;
    let titled;
    // "The payloads I sent were plain YAML": the verb of a relative clause whose object is the
    // noun before its subject.
    let relative = match voice {
        Voice::Active => relative_object(lexemes, info, li, subject),
        Voice::Passive => None,
    };
    let (object, head, target, end) = match (voice, relative) {
        (Voice::Active, Some(noun)) => {
            let first = ph.mark();
            ph.push(noun);
            titled = false;
            (
                ph.since(first),
                Some(noun),
                Span::default(),
                lexemes[li].end(),
            )
        }
        (Voice::Active, None) => {
            let after = object_after(lexemes, info, li, ph);
            if ph.get(after.core).is_empty()
                && !REFUSALS.contains(&verb.base)
                && opens_an_aside(lexemes, info, li)
            {
                // "Updated the current salary record (closed with to_date = '2024-01-31')": a
                // participle that opens an aside, with no object of its own, tells what the
                // noun before the bracket had done to it.
                let (np, head, _) = subject_before(lexemes, info, li - 2, ph);
                listed = false;
                titled = false;
                (np, head, after.target, lexemes[li].end())
            } else {
                let head = head_of(lexemes, info, ph.get(after.core));
                listed = ph.get(after.object).len() > ph.get(after.core).len();
                // "Created Packing Progress Summary": a title in capitals, as good as quoted.
                titled = in_capitals(lexemes, info, ph.get(after.core));
                (after.object, head, after.target, after.end)
            }
        }
        (Voice::Passive, _) => {
            let (np, head) = subject.map_or((Span::default(), None), |s| {
                let (np, head, _) = subject_before(lexemes, info, s, ph);
                if head.is_some_and(|h| info[h].is(F_TIME_NOUN)) {
                    // "... for Day 1 and Day 2 have been removed": a time names when, not
                    // what; the thing done stands further back.
                    return (Span::default(), None);
                }
                (np, head)
            });
            // "The Learning Metrics Dashboard has been created": a title, as in the active.
            titled = in_capitals(lexemes, info, ph.get(np));
            let target = object_after(lexemes, info, li, ph).target;
            (np, head, target, lexemes[li].end())
        }
    };
    let start = match voice {
        Voice::Passive => ph.get(object).first().map_or(lexemes[li].start(), |&f| {
            lexemes[f].start().min(lexemes[li].start())
        }),
        Voice::Active => lexemes[li].start(),
    };
    let mut claim = finish(
        lexemes, info, li, verb, voice, object, head, target, start, end, ph,
    );
    claim.listed = listed;
    claim.titled = titled;
    // Heads that make the verb no act on a thing: what a call or a statement gave back
    // ("returned an error", "returned 12 rows"), a call that returned, the agent's own calls,
    // sent ("the first five attempts were sent without a body"), and a rule of reasoning,
    // applied ("applied the criteria manually").
    let describes = match claim.base {
        // "Every append call returned successfully", "all five creations returned without
        // error": a call, named as a call or by its action, returns what it gives back.
        "return"
            if claim
                .head
                .or(head)
                .is_some_and(|h| lexemes[h].kind == Kind::Word && info[h].action.is_some()) =>
        {
            return None;
        }
        // "All three returned without errors", "it returned 200": returning, with no thing
        // given back and no noun before it, is what a call does when it answers (or going back
        // somewhere); a thing given back is named ("returned the item", "the items were
        // returned", "Order #W48 returned").
        "return"
            if claim.head.or(head).is_none()
                && (voice == Voice::Active || !(be_done || be_now)) =>
        {
            return None;
        }
        "return" => F_RESULT_NOUN | F_CALL_NOUN,
        // "three attempts were made": the agent's own calls, made.
        // "the base64 content I sent was malformed", "the content I sent seems to end
        // abruptly": what a call carries, sent with nothing after the verb but a form of `be` or
        // a verb of seeming, is the agent's call ("sent the new content to the page" still
        // claims).
        "send"
            if next.is_none_or(|n| word_is(lexemes, info, n, F_BE_DONE | F_BE_NOW | F_COPULA)) =>
        {
            F_CALL_NOUN | F_CALL_PART
        }
        _ if sends_a_call(lexemes, info, &claim, ph) => return None,
        "send" | "submit" | "post" | "make" => F_CALL_NOUN,
        "apply" => F_RULE_NOUN | F_WAY_NOUN,
        "change" | "switch" => F_WAY_NOUN,
        // "Final verification report generated": what a read puts out.
        "generate" | "produce" => F_OUTPUT_NOUN,
        _ => 0,
    };
    // The head as read, before a generic head ("request") is dropped.
    if describes != 0
        && claim
            .head
            .or(head)
            .is_some_and(|h| word_is(lexemes, info, h, describes))
    {
        return None;
    }
    // "`INSERT` into `lego_themes` → rejected": a refusal told with no doer and no object is
    // the system's answer ("Rejected PR #5" is the agent's).
    if REFUSALS.contains(&claim.base) && subject.is_none() && claim.object.is_empty() {
        return None;
    }
    // "Blocked attempt to set `num_parts = 999`", "the write was rejected": a refusal of a
    // call is the system's answer to it. A request is also a thing of its own ("rejected the
    // pull request").
    if REFUSALS.contains(&claim.base)
        && claim.head.is_some_and(|h| {
            word_is(lexemes, info, h, F_CALL_NOUN) && !word_is(lexemes, info, h, F_GENERIC)
        })
    {
        return None;
    }
    // "pgvector - Installed and functioning properly", "configured and active": a participle
    // joined to a present state tells the state the thing is in.
    if subject.is_none()
        && word_at(lexemes, info, li + 1, sentence).is_some_and(|w| w.is(F_COORD))
        && word_at(lexemes, info, li + 2, sentence)
            .is_some_and(|w| w.is(F_ING | F_STATE_ADJECTIVE) && w.verb.is_none())
    {
        return None;
    }
    // "sent with no body", "the bold update was sent with the block content wrapped in a
    // `type` key": what is sent with or without what a call carries is the agent's own call.
    // "I sent it with the new content" is the agent sending a thing it names.
    if claim.base == "send"
        && (voice == Voice::Passive || subject.is_none())
        && with_call_part(lexemes, info, li)
    {
        return None;
    }
    // "`main` head — resolved to `f348e76`": a reference resolved to what it names.
    if claim.base == "resolve"
        && word_at(lexemes, info, li + 1, sentence).is_some_and(|w| w.is(F_TO))
    {
        return None;
    }
    // "- Changed from Sequential Scans to Index Scans": a verb of change with no subject and
    // no object, right before `from`, is used without an object: it tells that something
    // changed, not what the agent changed. It says nothing checkable, as "processed" does.
    if voice == Voice::Active
        && subject.is_none()
        && claim.object.is_empty()
        && CHANGE_OF_STATE.contains(&claim.base)
        && next.is_some_and(|n| word_is(lexemes, info, n, F_FROM))
    {
        claim.vague = true;
    }
    // A light verb that names no action and no object claims nothing checkable ("made").
    if is_light_verb(claim.base) && !claim.vague && claim.object.is_empty() {
        return None;
    }
    // "Here's what each step sent": with another subject, a clause opened by `what` describes.
    if let Some(s) = subject.filter(|_| !agent_subject) {
        let mut k = s;
        while k > 0 && s - k < 3 && same(k - 1) && lexemes[k - 1].kind == Kind::Word {
            k -= 1;
            if info[k].is(F_WHAT) {
                return None;
            }
        }
    }
    // "Here's what I changed", "What we updated": the things done are named elsewhere (the
    // list that follows); the clause only says that something changed.
    if agent_subject && subject.is_some_and(|s| s > 0 && same(s - 1) && info[s - 1].is(F_WHAT)) {
        claim.vague = true;
    }
    Some(claim)
}

/// True when a claim of sending names a thing of the agent's own request ("how I'm sending the
/// request parameters", "sent the retry payload"): the call, not an act on stored state.
fn sends_a_call(lexemes: &[Lexeme], info: &Infos<'_>, claim: &RawClaim, ph: &Phrases) -> bool {
    matches!(claim.base, "send" | "submit")
        && ph
            .get(claim.object)
            .iter()
            .any(|&o| word_is(lexemes, info, o, F_CALL_NOUN))
}

/// True when the verb at `li` opens a bracketed aside right after a noun and words follow it
/// there ("record (closed with ...)"; a participle alone in brackets, "(blocked)", is a status
/// mark).
fn opens_an_aside(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> bool {
    li >= 2
        && lexemes
            .get(li + 1)
            .is_some_and(|n| n.sentence == lexemes[li].sentence && n.kind == Kind::Word)
        && lexemes[li - 1].kind == Kind::Open
        && lexemes[li - 2].sentence == lexemes[li].sentence
        && lexemes[li - 2].kind == Kind::Word
        && info[li - 2].verb.is_none()
        && !info[li - 2].is(F_STOP | F_PREPOSITION | F_BOUNDARY | F_PRONOUN | F_NUMBER)
}

/// What the grammar knows of lexeme `k` when it is a word of `sentence`.
fn word_at<'i>(
    lexemes: &[Lexeme],
    info: &'i Infos<'_>,
    k: usize,
    sentence: u32,
) -> Option<&'i WordInfo> {
    lexemes
        .get(k)
        .filter(|l| l.sentence == sentence && l.kind == Kind::Word)
        .map(|_| &info[k])
}

/// True when the word at `k` opens a noun phrase: what stands before it is no noun (the start
/// of its clause, a determiner, a preposition or a verb in `-ed`: "every open", "listed open").
/// After a noun it is that noun's complement ("kept #3 open").
fn opens_noun_phrase(lexemes: &[Lexeme], info: &Infos<'_>, k: usize) -> bool {
    let Some(p) = k.checked_sub(1) else {
        return true;
    };
    let (l, w) = (&lexemes[p], &info[p]);
    l.sentence != lexemes[k].sentence
        || l.kind != Kind::Word
        || is_boundary(l, w)
        || w.is(F_DETERMINER | F_PREPOSITION | F_ED)
}

/// The noun a relative clause with the agent as its subject stands after, when the verb at `li`
/// ends that clause and a form of `be` follows it: "the payloads (that) I sent were plain YAML"
/// -> `payloads`.
fn relative_object(
    lexemes: &[Lexeme],
    info: &Infos<'_>,
    li: usize,
    subject: Option<usize>,
) -> Option<usize> {
    let s = subject?;
    let sentence = lexemes[li].sentence;
    // A form of `be` or a verb of seeming ("the content I sent seems to end abruptly").
    let be_follows = word_at(lexemes, info, li + 1, sentence)
        .is_some_and(|w| w.is(F_BE_DONE | F_BE_NOW | F_COPULA) && !w.is(F_BEING | F_AGENT));
    if !be_follows || !info[s].is(F_AGENT) || s + 1 != li {
        return None;
    }
    let mut n = s.checked_sub(1)?;
    if word_is(lexemes, info, n, F_RELATIVE) {
        n = n.checked_sub(1)?;
    }
    let (l, w) = (&lexemes[n], &info[n]);
    (l.sentence == sentence
        && l.kind == Kind::Word
        && !w.is(F_STOP | F_PREPOSITION | F_BOUNDARY | F_PRONOUN)
        && w.verb.is_none())
    .then_some(n)
}

/// True when the verb at `li` is followed, in its clause, by `with` or `without` and, within
/// three words, by what a call carries ("sent without a SQL query").
fn with_call_part(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> bool {
    let sentence = lexemes[li].sentence;
    let has = |j: usize, flag: u64| word_at(lexemes, info, j, sentence).is_some_and(|w| w.is(flag));
    (li + 1..li + 3)
        .find(|&j| has(j, F_WITH))
        .is_some_and(|w| (w + 1..w + 5).any(|j| has(j, F_CALL_PART)))
}

/// True when lexeme `k` is a word with `flag`.
fn word_is(lexemes: &[Lexeme], info: &Infos<'_>, k: usize, flag: u64) -> bool {
    lexemes[k].kind == Kind::Word && info[k].is(flag)
}

/// The first of the participles listed with commas before the participle at `k` ("updated,
/// rebased" before "or merged"), in its sentence and no further back than `floor`; `k` itself
/// when none is.
fn first_listed_participle(lexemes: &[Lexeme], info: &Infos<'_>, k: usize, floor: usize) -> usize {
    let sentence = lexemes[k].sentence;
    let mut k = k;
    while k >= floor + 2
        && is_list_comma(lexemes, k - 1)
        && word_is(lexemes, info, k - 2, F_ED)
        && lexemes[k - 2].sentence == sentence
    {
        k -= 2;
    }
    k
}

/// True when lexeme `k` is a one-character break written right after a word, as a comma that
/// separates the members of a list is ("branches, files").
fn is_list_comma(lexemes: &[Lexeme], k: usize) -> bool {
    let l = &lexemes[k];
    l.kind == Kind::Clause
        && l.end() == l.start() + 1
        && k > 0
        && lexemes[k - 1].kind == Kind::Word
        && lexemes[k - 1].end() == l.start()
}

/// True when the participle at `li` is followed by one content word and then by the end of its
/// item (a break, a bracket, the sentence end, or `only`): "paid rentals," "paid rentals only)".
fn aside_noun_item(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> bool {
    let sentence = lexemes[li].sentence;
    let noun = word_at(lexemes, info, li + 1, sentence).is_some_and(|w| {
        !w.is(F_STOP | F_DETERMINER | F_NUMBER | F_PREPOSITION | F_PRONOUN) && w.verb.is_none()
    });
    if !noun {
        return false;
    }
    let only = word_at(lexemes, info, li + 2, sentence).is_some_and(|w| w.is(F_ONLY));
    let item_ends = lexemes.get(li + 2).is_none_or(|after| {
        after.sentence != sentence || matches!(after.kind, Kind::Clause | Kind::Close | Kind::Sep)
    });
    // "(paid rentals only)"; or an item of a list of nouns: the item before it opens with no
    // verb ("customers analysed, paid rentals"). In "(created tables, added indexes)" the items
    // are acts.
    only || (item_ends && noun_item_before(lexemes, info, li))
}

/// True when the verbs listed before the `and`, `or` or `then` at `j` in its sentence, in the
/// past, open with a relative pronoun: `that`, `which` or `who` stands right before the first
/// of them (adverbs between).
fn in_relative_clause(lexemes: &[Lexeme], info: &Infos<'_>, j: usize, floor: usize) -> bool {
    let sentence = lexemes[j].sentence;
    let mut k = j;
    while k > floor + 1 {
        k -= 1;
        let l = &lexemes[k];
        if l.sentence != sentence || l.kind == Kind::Sep {
            return false;
        }
        // A verb the lexicon holds, or any word in `-ed` ("deferred").
        let past = l.kind == Kind::Word
            && (info[k].is(F_ED)
                || info[k]
                    .verb
                    .is_some_and(|v| matches!(v.form, Form::Past | Form::BaseOrPast)));
        if past {
            let mut p = k - 1;
            while p > floor && word_is(lexemes, info, p, F_ADVERB) {
                p -= 1;
            }
            if lexemes[p].sentence != sentence {
                return false;
            }
            if word_is(lexemes, info, p, F_RELATIVE) {
                return true;
            }
            // A verb listed after another ("deferred the constraint, set 999"): the chain goes
            // on to the verb before it.
            let listed = is_list_comma(lexemes, p) || (word_is(lexemes, info, p, F_COORD));
            if !listed {
                return false;
            }
            k = p;
        }
    }
    false
}

/// True when the word at `li` is a whole item of a list in brackets ("(new, reviewed, closed)")
/// and another item of that list is an adjective of state alone: a list of a field's values.
fn value_list_item(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> bool {
    let Some(open) = aside_open(lexemes, li, li.saturating_sub(REACH)) else {
        return false;
    };
    let sentence = lexemes[li].sentence;
    let is_break = |k: usize| matches!(lexemes[k].kind, Kind::Clause | Kind::Open | Kind::Close);
    let alone = |k: usize| {
        k > 0
            && is_break(k - 1)
            && lexemes.get(k + 1).is_some_and(|n| n.sentence == sentence)
            && is_break(k + 1)
    };
    if !alone(li) {
        return false;
    }
    let mut k = open + 1;
    while k < lexemes.len() && k - open <= REACH && lexemes[k].sentence == sentence {
        match lexemes[k].kind {
            Kind::Close => return false,
            Kind::Word if k != li && info[k].is(F_STATE_ADJECTIVE) && alone(k) => return true,
            _ => {}
        }
        k += 1;
    }
    false
}

/// True when the item of an aside's list that ends right before the break at `li - 1` opens
/// with a word that is no state-changing verb.
fn noun_item_before(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> bool {
    let Some(comma) = li.checked_sub(1) else {
        return false;
    };
    if lexemes[comma].kind != Kind::Clause {
        return false;
    }
    let sentence = lexemes[li].sentence;
    let mut start = None;
    for k in (0..comma).rev() {
        let l = &lexemes[k];
        if l.sentence != sentence {
            return false;
        }
        if matches!(l.kind, Kind::Open | Kind::Clause) {
            start = Some(k + 1);
            break;
        }
    }
    let Some(start) = start.filter(|&s| s < comma) else {
        return false;
    };
    lexemes[start].kind == Kind::Word && info[start].verb.is_none()
}

/// The bracket, in the sentence of lexeme `at` and no further back than `floor`, that opens an
/// aside still open at `at`: the one a bracket closing at `at` closes, or the one `at` stands
/// inside.
fn aside_open(lexemes: &[Lexeme], at: usize, floor: usize) -> Option<usize> {
    let sentence = lexemes[at].sentence;
    let mut depth = 0usize;
    for k in (floor..at).rev() {
        let l = &lexemes[k];
        if l.sentence != sentence {
            return None;
        }
        match l.kind {
            Kind::Close => depth += 1,
            Kind::Open if depth == 0 => return Some(k),
            Kind::Open => depth -= 1,
            _ => {}
        }
    }
    None
}

/// True when a phrase is a title in capitals: two words or more, each a word written with a
/// capital (a determiner before them aside: "The Learning Metrics Dashboard"), none code.
fn in_capitals(lexemes: &[Lexeme], info: &Infos<'_>, phrase: &[usize]) -> bool {
    let words = phrase
        .iter()
        .skip_while(|&&o| word_is(lexemes, info, o, F_DETERMINER));
    words.clone().count() >= 2
        && words
            .into_iter()
            .all(|&o| word_is(lexemes, info, o, F_CAPITAL) && !info[o].is(F_CODE))
}

/// Resolves a light verb, drops generic objects, and builds the claim.
#[allow(clippy::too_many_arguments)]
fn finish(
    lexemes: &[Lexeme],
    info: &Infos<'_>,
    li: usize,
    verb: VerbForm,
    voice: Voice,
    mut object: Span,
    mut head: Option<usize>,
    target: Span,
    start: usize,
    end: usize,
    ph: &mut Phrases,
) -> RawClaim {
    let mut base = verb.base;
    let mut vague = false;
    if base == "confirm" && voice == Voice::Active {
        // "I confirmed your reservation": a check; only "X is confirmed" states completion.
        object = Span::default();
    } else if is_light_verb(base) {
        // The head first, then, when the head names the asking or the steps of an act, the
        // words before it ("exchange request" names an exchange, "the migration task" a
        // migration; "the Software Deployment Process SOP" names a document).
        let words = ph.get(object);
        let modifiers_name_it = words
            .last()
            .is_some_and(|&h| word_is(lexemes, info, h, F_ACT_HEAD));
        let action = words
            .iter()
            .rev()
            .take(if modifiers_name_it { words.len() } else { 1 })
            .find_map(|&o| action_noun_of(lexemes, info, o));
        match action {
            Some(action) => {
                base = action;
                // "processed the cancellation of your order": the order is the object.
                object = match voice {
                    Voice::Active => of_phrase(lexemes, info, li, ph),
                    Voice::Passive => Span::default(),
                };
                head = head_of(lexemes, info, ph.get(object));
                // "Changes made", "the updates have been applied": a change that names
                // nothing changed says nothing checkable, as "processed" does.
                vague = object.is_empty() && CHANGES.contains(&action);
            }
            // "made each section title bold", "made the repository public": a thing made into
            // a state is updated; the adjective is the state, the noun before it the object.
            None if base == "make"
                && voice == Voice::Active
                && object.1 - object.0 >= 2
                && head == ph.get(object).last().copied()
                && head.is_some_and(|h| info[h].is(F_RESULT_ADJECTIVE)) =>
            {
                base = "update";
                object = Span(object.0, object.1 - 1);
                head = head_of(lexemes, info, ph.get(object));
            }
            None if is_vague_verb(base) => vague = true,
            // "confirmed the details": a check, not an action.
            None if base == "confirm" => object = Span::default(),
            None => {}
        }
    }
    if !object.is_empty() && head.is_some_and(|h| word_is(lexemes, info, h, F_QUALITY)) && !vague {
        // "restored performance", "Removed need for COUNT(DISTINCT)": an outcome of the writes.
        vague = true;
        object = Span::default();
    }
    if ph
        .get(object)
        .iter()
        .all(|&o| word_is(lexemes, info, o, F_GENERIC))
    {
        object = Span::default();
    }
    if object.is_empty() {
        head = None;
    }
    let target = if is_into_verb(base) {
        target
    } else {
        Span::default()
    };
    RawClaim {
        verb_lexeme: li,
        base,
        vague,
        head,
        object,
        target,
        voice,
        listed: false,
        titled: false,
        start,
        end: end.max(lexemes[li].end()),
    }
}

/// Words that date what precedes them wherever they stand in the next few words ("3 days
/// ago", "in the last week", "earlier today").
const STRONG_TIME_WORDS: &[&str] = &[
    "ago",
    "yesterday",
    "last",
    "earlier",
    "previously",
    "originally",
    "recently",
];

/// True when a strong time word follows `li` within four lexemes of its clause.
fn dated_soon_after(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> bool {
    let sentence = lexemes[li].sentence;
    for j in li + 1..lexemes.len().min(li + 5) {
        let (l, w) = (&lexemes[j], &info[j]);
        if l.sentence != sentence || is_boundary(l, w) {
            return false;
        }
        if l.kind == Kind::Word && w.is(F_STRONG_TIME) {
            return true;
        }
    }
    false
}

/// True when a word of background time (`when`, `after`, ...) follows `li` in its sentence.
fn background_follows(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> bool {
    let sentence = lexemes[li].sentence;
    (li + 1..lexemes.len().min(li + 1 + REACH))
        .take_while(|&j| lexemes[j].sentence == sentence)
        .any(|j| word_is(lexemes, info, j, F_BACKGROUND))
}

/// True when lexeme `j` is an adverb of time that the determiner table holds ("the already
/// cancelled flight") standing after a perfect auxiliary: "I've already cancelled it", "has
/// previously updated" tell what the agent did.
fn perfect_adverb(lexemes: &[Lexeme], info: &Infos<'_>, j: usize) -> bool {
    let w = &info[j];
    (w.is(F_ALREADY) || w.is(F_ADVERB))
        && j > 0
        && lexemes[j - 1].sentence == lexemes[j].sentence
        && word_is(lexemes, info, j - 1, F_HAVE)
}

/// The relative pronoun that opens a relative clause ending at the participle `j` ("that was
/// previously closed", "which were archived"), passing back over adverbs and auxiliaries.
fn relative_clause_at(lexemes: &[Lexeme], info: &Infos<'_>, j: usize) -> Option<usize> {
    info[j]
        .verb
        .filter(|v| matches!(v.form, Form::Past | Form::BaseOrPast))?;
    let sentence = lexemes[j].sentence;
    let mut k = j;
    while k > 0 && j - k < 6 {
        k -= 1;
        let (l, w) = (&lexemes[k], &info[k]);
        if l.sentence != sentence || l.kind != Kind::Word {
            return None;
        }
        if w.is(F_RELATIVE) {
            return (k < j - 1).then_some(k);
        }
        if !(w.is(F_ADVERB) || w.is(F_BE_DONE) || w.is(F_BE_NOW) || w.is(F_HAVE)) {
            return None;
        }
    }
    None
}

/// True when the lexeme after a participle is a noun it qualifies: a content word that is no
/// preposition, time word or conjunction, and no past verb form of a list of actions.
fn modifies_next(l: &Lexeme, w: &WordInfo) -> bool {
    l.kind == Kind::Word
        && !(w.is(F_PREPOSITION) || w.is(F_BY) || w.is(F_TIME) || w.is(F_COORD))
        && !w
            .verb
            .is_some_and(|v| matches!(v.form, Form::Past | Form::BaseOrPast))
}

/// True when a `:` stands earlier in the sentence of `li`: it is on a `key: value` line.
fn label_before(lexemes: &[Lexeme], li: usize) -> bool {
    let sentence = lexemes[li].sentence;
    let mut k = li;
    while k > 0 && li - k < REACH {
        k -= 1;
        let l = &lexemes[k];
        if l.sentence != sentence {
            return false;
        }
        if l.kind == Kind::Sep {
            return true;
        }
    }
    false
}

/// True when the clause of `s` follows `and`/`or` and the clause before that ends in a
/// `with` phrase with no finite verb: "with all data integrity maintained and business rules
/// properly applied".
fn joined_to_preposition(lexemes: &[Lexeme], info: &Infos<'_>, s: usize) -> bool {
    let cs = clause_start(lexemes, info, s);
    if cs < 2 || lexemes[cs - 1].sentence != lexemes[s].sentence {
        return false;
    }
    let (l, w) = (&lexemes[cs - 1], &info[cs - 1]);
    if !(l.kind == Kind::Word && w.is(F_COORD)) {
        return false;
    }
    let end = cs - 2;
    // The last `with` of the clause before, with no finite verb after it.
    let start = clause_start(lexemes, info, end);
    let Some(with) = (start..end)
        .rev()
        .find(|&k| word_is(lexemes, info, k, F_WITH))
    else {
        return false;
    };
    !(with..=end)
        .any(|k| lexemes[k].kind == Kind::Word && (info[k].is(F_FINITE) || info[k].is(F_HAVE)))
}

/// The first lexeme of the clause `li` stands in.
fn clause_start(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> usize {
    let sentence = lexemes[li].sentence;
    let mut k = li;
    while k > 0 && li - k < REACH {
        let (l, w) = (&lexemes[k - 1], &info[k - 1]);
        if l.sentence != sentence || is_boundary(l, w) {
            break;
        }
        k -= 1;
    }
    k
}

/// True when an article (`the`, `a`, `an`) stands in the clause before `s`.
fn article_opens(lexemes: &[Lexeme], info: &Infos<'_>, s: usize) -> bool {
    (clause_start(lexemes, info, s)..=s).any(|k| word_is(lexemes, info, k, F_ARTICLE))
}

/// True when a finite verb or modal follows `li` in its clause.
fn finite_after(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> bool {
    let sentence = lexemes[li].sentence;
    for j in li + 1..lexemes.len().min(li + 1 + REACH) {
        let (l, w) = (&lexemes[j], &info[j]);
        if l.sentence != sentence || is_boundary(l, w) {
            return false;
        }
        if l.kind == Kind::Word && (w.is(F_FINITE) || w.is(F_IRREALIS)) {
            return true;
        }
    }
    false
}

/// The action an object head names, when it is an action noun (`refund`, `cancellation`).
fn action_noun_of(lexemes: &[Lexeme], info: &Infos<'_>, head: usize) -> Option<&'static str> {
    (lexemes[head].kind == Kind::Word)
        .then_some(info[head].action)
        .flatten()
}

/// The next lexeme after `li` in its clause, skipping adverbs and particles.
fn next_in_clause(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> Option<usize> {
    let sentence = lexemes[li].sentence;
    for j in li + 1..lexemes.len().min(li + 1 + REACH) {
        let (l, w) = (&lexemes[j], &info[j]);
        if l.sentence != sentence || is_boundary(l, w) {
            return None;
        }
        if l.kind == Kind::Word && (w.is(F_ADVERB) || w.is(F_PARTICLE)) {
            continue;
        }
        return Some(j);
    }
    None
}

/// True when a lexeme can start a direct object: a quoted name, a number, a determiner or
/// pronoun, or a content word (not a preposition or another verb form).
fn starts_object(l: &Lexeme, w: &WordInfo) -> bool {
    match l.kind {
        Kind::Quoted => true,
        Kind::Word => !w.is(F_PREPOSITION) && !w.is(F_BY) && w.verb.is_none(),
        _ => false,
    }
}

/// True when the words before the coordinator at `j`, back to the clause start, are a noun
/// phrase that a negation opens ("No inventory or ...", "Neither the page nor ..."): no verb
/// among them.
fn negated_before(lexemes: &[Lexeme], info: &Infos<'_>, j: usize, floor: usize) -> bool {
    let sentence = lexemes[j].sentence;
    let mut k = j;
    while k > floor {
        k -= 1;
        let (l, w) = (&lexemes[k], &info[k]);
        // "No branches, files or PRs were created": the members of a list are one subject, and
        // a verb's bare form among them is a noun ("no branch, commit or PR").
        if is_list_comma(lexemes, k) {
            continue;
        }
        // "No views, indexes (beyond the PKs) or refreshes": an aside on one member is passed
        // over.
        if l.kind == Kind::Close
            && let Some(open) = aside_open(lexemes, k, floor)
        {
            k = open;
            continue;
        }
        let verb = w
            .verb
            .is_some_and(|v| !matches!(v.form, Form::Base | Form::Third));
        if l.sentence != sentence || is_boundary(l, w) || (l.kind == Kind::Word && verb) {
            return false;
        }
        if l.kind == Kind::Word && w.is(F_NEGATOR) {
            return true;
        }
    }
    false
}

/// True when a passive verb is followed (over adverbs) by `by` and a doer other than the
/// agent ("cancelled by the airline"; not "by me", "by $50", "by updating").
fn by_someone_else(lexemes: &[Lexeme], info: &Infos<'_>, li: usize) -> bool {
    let sentence = lexemes[li].sentence;
    let Some(j) = (li + 1..lexemes.len().min(li + 4))
        .find(|&j| !(word_is(lexemes, info, j, F_ADVERB) && lexemes[j].sentence == sentence))
    else {
        return false;
    };
    if lexemes[j].sentence != sentence || lexemes[j].kind != Kind::Word || !info[j].is(F_BY) {
        return false;
    }
    for k in j + 1..lexemes.len().min(j + 6) {
        let (l2, w2) = (&lexemes[k], &info[k]);
        if l2.sentence != sentence || is_boundary(l2, w2) {
            return false;
        }
        if l2.kind == Kind::Word && w2.is(F_DETERMINER) {
            continue;
        }
        return l2.kind == Kind::Word
            && !w2.is(F_AGENT_OBJECT)
            && !w2.is(F_NUMBER)
            && w2.verb.is_none();
    }
    false
}

/// What follows an active verb.
struct AfterVerb {
    /// The object phrase, with the members of a list it introduces.
    object: Span,
    /// The object phrase alone, where its head is.
    core: Span,
    /// The phrase after its first preposition.
    target: Span,
    /// The byte end of the object as written.
    end: usize,
}

/// The object and target phrases after the active verb at `li`.
fn object_after(lexemes: &[Lexeme], info: &Infos<'_>, li: usize, ph: &mut Phrases) -> AfterVerb {
    let sentence = lexemes[li].sentence;
    // Object words all come before the first preposition, target words after it: the two
    // lists are consecutive in `ph`.
    let first = ph.mark();
    let mut middle = None;
    let mut end = lexemes[li].end();
    let mut in_target = false;
    let mut started = false;
    for j in li + 1..lexemes.len().min(li + 1 + REACH) {
        let (l, w) = (&lexemes[j], &info[j]);
        if l.sentence != sentence {
            break;
        }
        if started && !in_target && l.kind == Kind::Sep {
            // "added three sections: Goals, Timeline and Owners": the list after the colon
            // names the object's members; they are its words too (the head stays).
            let core = ph.since(first);
            list_members(lexemes, info, j, ph);
            return AfterVerb {
                object: ph.since(first),
                core,
                target: ph.since(ph.mark()),
                end,
            };
        }
        if is_boundary(l, w) {
            break;
        }
        match l.kind {
            Kind::Quoted => {
                ph.push(j);
                if !in_target {
                    end = l.end();
                    started = true;
                }
            }
            Kind::Word => {
                if ends_phrase(lexemes, info, j) {
                    break;
                }
                // "a block titled \"Goals\"", "a page named Q3": the participle opens the
                // thing's name; the thing is what came before.
                if started && !in_target && w.is(F_NAMING) {
                    break;
                }
                // "a comment summarising the timeout": a participle after the noun opens a
                // clause of its own ("the shipping address": before it, a modifier).
                if started && !in_target && w.is(F_ING) && !w.is(F_CAPITAL) {
                    break;
                }
                // "Assigned sequentially starting from 60": after an adverb, a participle opens
                // a phrase of manner; the verb has no object.
                if !started
                    && !in_target
                    && w.is(F_ING)
                    && j > li + 1
                    && word_is(lexemes, info, j - 1, F_ADVERB)
                {
                    break;
                }
                if started
                    && !in_target
                    && w.is(F_AS)
                    && lexemes
                        .get(j + 1)
                        .is_some_and(|n| n.sentence == sentence && n.kind == Kind::Quoted)
                {
                    // "committed the results as `REPORT.md`": a quoted name given after `as`
                    // is the name the object now has; its words are the object's too.
                    ph.push(j + 1);
                    break;
                }
                if w.is(F_PREPOSITION) || w.is(F_BY) {
                    if in_target {
                        break;
                    }
                    in_target = true;
                    middle = Some(ph.mark());
                    continue;
                }
                if !started && !in_target && w.is(F_PRONOUN) {
                    // "transferred you to ...": the pronoun is the object; nothing to check.
                    if !w.is(F_DETERMINER) {
                        let none = ph.since(ph.mark());
                        return AfterVerb {
                            object: none,
                            core: none,
                            target: none,
                            end: l.end(),
                        };
                    }
                }
                if w.is(F_FILLER) {
                    continue;
                }
                ph.push(j);
                if !in_target {
                    end = l.end();
                    started = true;
                }
            }
            _ => {}
        }
    }
    let middle = middle.unwrap_or(ph.mark());
    AfterVerb {
        object: Span(first, middle),
        core: Span(first, middle),
        target: ph.since(middle),
        end,
    }
}

/// Pushes the content words and quoted spans of the list that the colon at lexeme `colon`
/// introduces: the rest of its sentence, or, when the colon ends its line ("I've set up the
/// schema:" above a bulleted list), the lines that follow; at most [`REACH`] lexemes. Commas,
/// `and` and prepositions between members are passed over.
fn list_members(lexemes: &[Lexeme], info: &Infos<'_>, colon: usize, ph: &mut Phrases) {
    let sentence = lexemes[colon].sentence;
    let from = colon + 1;
    let inline = lexemes.get(from).is_some_and(|l| l.sentence == sentence);
    for j in from..lexemes.len().min(from + REACH) {
        let (l, w) = (&lexemes[j], &info[j]);
        if inline && l.sentence != sentence {
            break;
        }
        let content = match l.kind {
            Kind::Quoted => true,
            Kind::Word => !w.is(F_FILLER | F_PRONOUN | F_PREPOSITION | F_BY),
            Kind::Sep | Kind::Clause | Kind::Open | Kind::Close => false,
        };
        if content {
            ph.push(j);
        }
    }
}

/// The phrase after the first preposition following `li`, in its clause ("the cancellation of
/// your order", "a refund for order #W1"); none when that preposition tells a place ("the
/// migration in the IT hub").
fn of_phrase(lexemes: &[Lexeme], info: &Infos<'_>, li: usize, ph: &mut Phrases) -> Span {
    let sentence = lexemes[li].sentence;
    let first = ph.mark();
    let mut inside = false;
    for j in li + 1..lexemes.len().min(li + 1 + REACH) {
        let (l, w) = (&lexemes[j], &info[j]);
        if l.sentence != sentence || is_boundary(l, w) {
            break;
        }
        match l.kind {
            Kind::Word if w.is(F_PREPOSITION) => {
                // "completed the migration in the IT hub": where, not what it was done to.
                if inside || w.is(F_PLACE) {
                    break;
                }
                inside = true;
            }
            Kind::Word if inside && !(w.is(F_STOP) || w.is(F_NUMBER) || w.verb.is_some()) => {
                ph.push(j)
            }
            Kind::Quoted if inside => ph.push(j),
            _ => {}
        }
    }
    ph.since(first)
}

/// The subject phrase that ends at `s`, read back through its prepositional phrases ("your
/// flight from JFK to SFO on May 24th", "a refund of $38"): its lexemes in text order, its head
/// (the main word of the first phrase), and whether the clause opens with a preposition (then
/// it is a prepositional phrase, not a subject: "with the refund applied").
fn subject_before(
    lexemes: &[Lexeme],
    info: &Infos<'_>,
    s: usize,
    ph: &mut Phrases,
) -> (Span, Option<usize>, bool) {
    let sentence = lexemes[s].sentence;
    let mut out = Vec::new();
    let mut phrase: Vec<usize> = Vec::new();
    let mut head = None;
    let mut last_was_prep = false;
    let mut j = s + 1;
    let floor = s.saturating_sub(REACH);
    while j > floor {
        j -= 1;
        let (l, w) = (&lexemes[j], &info[j]);
        if l.sentence != sentence || is_boundary(l, w) {
            break;
        }
        match l.kind {
            Kind::Quoted => {
                phrase.push(j);
                last_was_prep = false;
            }
            Kind::Word => {
                // A gerund left of the head is a verb ("booking ... and returning on May 25 in
                // economy"); as the head it is a noun ("your flight booking").
                let gerund = w.verb.is_some_and(|v| v.form == Form::Gerund)
                    && !(j > 0 && word_is(lexemes, info, j - 1, F_DETERMINER))
                    && !(phrase.is_empty() && out.is_empty());
                if w.is(F_PRONOUN) || ends_phrase(lexemes, info, j) || gerund {
                    break;
                }
                if w.is(F_PREPOSITION) || w.is(F_BY) {
                    // The phrase read so far hangs on this preposition; the subject is before it.
                    out.append(&mut phrase);
                    last_was_prep = true;
                    continue;
                }
                if w.is(F_STOP) || w.is(F_NUMBER) || w.is(F_ADVERB) {
                    continue;
                }
                phrase.push(j);
                last_was_prep = false;
            }
            _ => break,
        }
    }
    if !phrase.is_empty() {
        head = head_of(lexemes, info, &phrase);
    }
    out.append(&mut phrase);
    out.sort_unstable();
    out.dedup();
    let first = ph.mark();
    ph.items.extend_from_slice(&out);
    (ph.since(first), head, last_was_prep)
}

/// True when word `j` is a verb that ends a noun phrase: a past form not right after a
/// determiner. Other verb forms inside a phrase are nouns ("a GitHub issue", "the order
/// updates", "your booking").
fn ends_phrase(lexemes: &[Lexeme], info: &Infos<'_>, j: usize) -> bool {
    let past = info[j]
        .verb
        .is_some_and(|v| matches!(v.form, Form::Past | Form::BaseOrPast));
    let after_det = j > 0 && word_is(lexemes, info, j - 1, F_DETERMINER);
    past && !after_det
}

/// The head of a phrase (lexemes in any order): its last plain word, passing over codes and
/// identifiers (`M20IZO`, `#W48`, `ID`) unless it has nothing else.
pub(super) fn head_of(lexemes: &[Lexeme], info: &Infos<'_>, phrase: &[usize]) -> Option<usize> {
    phrase
        .iter()
        .copied()
        .filter(|&j| lexemes[j].kind == Kind::Word && !info[j].is(F_CODE))
        .max()
        .or_else(|| phrase.iter().copied().max())
}

#[cfg(test)]
mod tests {
    use super::super::lexicon::normalize;
    use super::*;

    #[test]
    fn nouns_read_in_their_normal_form_are_listed_in_it() {
        // `WordInfo::new` looks these up by a word's normal form: an entry that normalizes to
        // another word would never match.
        for w in GENERIC_NOUNS
            .iter()
            .chain(CALL_NOUNS)
            .chain(RESULT_NOUNS)
            .chain(RULE_NOUNS)
            .chain(QUALITY_NOUNS)
        {
            assert_eq!(normalize(w), *w, "{w}");
        }
    }

    #[test]
    fn no_flagged_word_holds_a_digit() {
        // `WordInfo::new` looks a word with a digit up in no table.
        assert!(WORD_FLAGS.keys().all(|w| !has_digit(w)));
    }
}
