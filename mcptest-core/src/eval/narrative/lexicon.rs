//! The word tables behind the narrative check: the mutating verbs and their inflections, a few
//! read verbs, the stopwords, and the plural rules. Tables, not a stemmer: every mapping is
//! written out so a reader can see exactly which words count.

use crate::fasthash::{HashMap, Table};
use std::borrow::Cow;
use std::sync::LazyLock;

/// The 22 mutating verbs, in their base form.
pub(super) const MUTATING_VERBS: [&str; 22] = [
    "create", "update", "delete", "remove", "send", "write", "post", "insert", "set", "put",
    "patch", "publish", "destroy", "drop", "add", "edit", "upload", "merge", "close", "cancel",
    "approve", "revoke",
];

/// Every state-changing verb the check reads, one line per spelling: `base third-person past
/// past-participle gerund`. The first 22 bases are [`MUTATING_VERBS`] (the documents' verbs);
/// the rest are the other state-changing verbs real agents use in closing messages. A verb may
/// have several lines (British and American spellings).
const VERB_LINES: &str = "\
create creates created created creating
update updates updated updated updating
delete deletes deleted deleted deleting
remove removes removed removed removing
send sends sent sent sending
write writes wrote written writing
post posts posted posted posting
insert inserts inserted inserted inserting
set sets set set setting
put puts put put putting
patch patches patched patched patching
publish publishes published published publishing
destroy destroys destroyed destroyed destroying
drop drops dropped dropped dropping
add adds added added adding
edit edits edited edited editing
upload uploads uploaded uploaded uploading
merge merges merged merged merging
close closes closed closed closing
cancel cancels cancelled cancelled cancelling
cancel cancels canceled canceled canceling
approve approves approved approved approving
revoke revokes revoked revoked revoking
book books booked booked booking
reserve reserves reserved reserved reserving
schedule schedules scheduled scheduled scheduling
reschedule reschedules rescheduled rescheduled rescheduling
order orders ordered ordered ordering
purchase purchases purchased purchased purchasing
transfer transfers transferred transferred transferring
escalate escalates escalated escalated escalating
charge charges charged charged charging
refund refunds refunded refunded refunding
reimburse reimburses reimbursed reimbursed reimbursing
credit credits credited credited crediting
pay pays paid paid paying
grant grants granted granted granting
assign assigns assigned assigned assigning
upgrade upgrades upgraded upgraded upgrading
downgrade downgrades downgraded downgraded downgrading
reset resets reset reset resetting
restore restores restored restored restoring
enable enables enabled enabled enabling
disable disables disabled disabled disabling
activate activates activated activated activating
deactivate deactivates deactivated deactivated deactivating
reactivate reactivates reactivated reactivated reactivating
toggle toggles toggled toggled toggling
modify modifies modified modified modifying
change changes changed changed changing
alter alters altered altered altering
amend amends amended amended amending
adjust adjusts adjusted adjusted adjusting
rename renames renamed renamed renaming
move moves moved moved moving
replace replaces replaced replaced replacing
swap swaps swapped swapped swapping
archive archives archived archived archiving
commit commits committed committed committing
push pushes pushed pushed pushing
deploy deploys deployed deployed deploying
exchange exchanges exchanged exchanged exchanging
return returns returned returned returning
submit submits submitted submitted submitting
suspend suspends suspended suspended suspending
resume resumes resumed resumed resuming
terminate terminates terminated terminated terminating
void voids voided voided voiding
subscribe subscribes subscribed subscribed subscribing
unsubscribe unsubscribes unsubscribed unsubscribed unsubscribing
invite invites invited invited inviting
share shares shared shared sharing
block blocks blocked blocked blocking
unblock unblocks unblocked unblocked unblocking
lock locks locked locked locking
unlock unlocks unlocked unlocked unlocking
install installs installed installed installing
uninstall uninstalls uninstalled uninstalled uninstalling
configure configures configured configured configuring
register registers registered registered registering
generate generates generated generated generating
append appends appended appended appending
attach attaches attached attached attaching
detach detaches detached detached detaching
link links linked linked linking
unlink unlinks unlinked unlinked unlinking
tag tags tagged tagged tagging
reply replies replied replied replying
notify notifies notified notified notifying
forward forwards forwarded forwarded forwarding
revert reverts reverted reverted reverting
fork forks forked forked forking
reopen reopens reopened reopened reopening
mark marks marked marked marking
erase erases erased erased erasing
purge purges purged purged purging
wipe wipes wiped wiped wiping
import imports imported imported importing
migrate migrates migrated migrated migrating
provision provisions provisioned provisioned provisioning
allocate allocates allocated allocated allocating
refuel refuels refueled refueled refueling
refuel refuels refuelled refuelled refuelling
renew renews renewed renewed renewing
extend extends extended extended extending
reboot reboots rebooted rebooted rebooting
restart restarts restarted restarted restarting
scale scales scaled scaled scaling
transition transitions transitioned transitioned transitioning
apply applies applied applied applying
accept accepts accepted accepted accepting
reject rejects rejected rejected rejecting
decline declines declined declined declining
withdraw withdraws withdrew withdrawn withdrawing
resolve resolves resolved resolved resolving
issue issues issued issued issuing
process processes processed processed processing
make makes made made making
place places placed placed placing
complete completes completed completed completing
perform performs performed performed performing
execute executes executed executed executing
initiate initiates initiated initiated initiating
finalize finalizes finalized finalized finalizing
finalise finalises finalised finalised finalising
handle handles handled handled handling
confirm confirms confirmed confirmed confirming
";

/// The form of a verb a word is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// `create`: the base (also the imperative and the infinitive).
    Base,
    /// `creates`.
    Third,
    /// `created`, `sent`, `written`: past tense or past participle.
    Past,
    /// `set`, `put`, `reset`: a form that is both the base and the past.
    BaseOrPast,
    /// `creating`.
    Gerund,
}

/// A verb a word is a form of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct VerbForm {
    /// The base verb.
    pub base: &'static str,
    /// Which form the word is.
    pub form: Form,
}

/// Verbs that name no action of their own when their object names one: "issued a refund" is a
/// refund, "processed the cancellation" a cancellation, "made a reservation" a booking.
const LIGHT_VERBS: &[&str] = &[
    "issue", "process", "make", "place", "complete", "perform", "execute", "initiate", "finalize",
    "finalise", "handle", "submit", "apply", "confirm",
];

/// Light verbs whose object, when it names no action, still says nothing checkable ("I've
/// processed your request", "completed the steps"): such a claim is backed by any call that
/// changes state.
const VAGUE_VERBS: &[&str] = &[
    "process", "complete", "perform", "execute", "initiate", "finalize", "finalise", "handle",
];

/// Nouns that name an action, and the verb they name ("a refund" -> `refund`).
const ACTION_NOUNS: &[(&str, &str)] = &[
    ("refund", "refund"),
    ("return", "return"),
    ("exchange", "exchange"),
    ("swap", "swap"),
    ("transfer", "transfer"),
    ("cancellation", "cancel"),
    ("cancelation", "cancel"),
    ("payment", "pay"),
    ("charge", "charge"),
    ("booking", "book"),
    ("book", "book"),
    ("reservation", "book"),
    ("purchase", "purchase"),
    ("order", "order"),
    ("upgrade", "upgrade"),
    ("downgrade", "downgrade"),
    ("change", "change"),
    ("update", "update"),
    ("modification", "modify"),
    ("adjustment", "adjust"),
    ("amendment", "amend"),
    ("deletion", "delete"),
    ("removal", "remove"),
    ("creation", "create"),
    ("addition", "add"),
    ("replacement", "replace"),
    ("renewal", "renew"),
    ("reset", "reset"),
    ("escalation", "escalate"),
    ("edit", "edit"),
    ("credit", "credit"),
    ("reimbursement", "reimburse"),
    ("suspension", "suspend"),
    ("termination", "terminate"),
    ("activation", "activate"),
    ("deactivation", "deactivate"),
    ("installation", "install"),
    ("registration", "register"),
    ("submission", "submit"),
    ("merge", "merge"),
    ("commit", "commit"),
    ("deployment", "deploy"),
    ("migration", "migrate"),
    ("assignment", "assign"),
    ("assignee", "assign"),
    ("invitation", "invite"),
    ("invitee", "invite"),
    ("attendee", "invite"),
    ("relation", "link"),
    ("relationship", "link"),
];

/// Groups of verbs that back one another: a claim made with any verb of a group is backed by a
/// call whose action is any verb of the same group ("changed the flight" by
/// `update_reservation_flights`, "posted a comment" by `add_comment`). A verb may sit in several
/// groups; a verb in none is backed by itself alone.
const VERB_CLASSES: &[&[&str]] = &[
    &[
        "create",
        "add",
        "insert",
        "append",
        "post",
        "put",
        "write",
        "upload",
        "generate",
        "make",
        "register",
        "file",
        "attach",
        "import",
        "set",
        "issue",
        "provision",
    ],
    &[
        "book", "reserve", "schedule", "order", "place", "create", "make", "purchase", "submit",
    ],
    &[
        "update",
        "modify",
        "change",
        "edit",
        "set",
        "patch",
        "put",
        "alter",
        "amend",
        "adjust",
        "upgrade",
        "downgrade",
        "rename",
        "move",
        "replace",
        "mark",
        "reschedule",
        "extend",
        "swap",
        "configure",
        "apply",
        "toggle",
        "assign",
        "scale",
        "transition",
        "reopen",
    ],
    &[
        "delete",
        "remove",
        "drop",
        "destroy",
        "erase",
        "purge",
        "wipe",
        "detach",
        "unlink",
        "uninstall",
        "archive",
    ],
    &[
        "cancel",
        "revoke",
        "void",
        // Cancelling a meeting or an order deletes it where the tool says so (`delete_event`).
        "delete",
        "terminate",
        "withdraw",
        "suspend",
        "unsubscribe",
        "deactivate",
        "disable",
    ],
    &[
        "send", "notify", "forward", "post", "reply", "issue", "share", "invite", "submit",
        "publish",
    ],
    &["transfer", "escalate", "forward", "move"],
    &[
        "refund",
        "reimburse",
        "credit",
        "charge",
        "pay",
        "purchase",
        "bill",
        "debit",
    ],
    &["exchange", "swap", "replace", "return"],
    &["grant", "enable", "assign", "issue", "share", "add"],
    &[
        "enable",
        "activate",
        "toggle",
        "resume",
        "reactivate",
        "unblock",
        "unlock",
        "restore",
    ],
    &[
        "disable",
        "deactivate",
        "toggle",
        "suspend",
        "block",
        "lock",
    ],
    &["reset", "restore", "reboot", "restart", "revert"],
    &["merge", "commit", "push", "publish", "deploy"],
    // Committing or pushing writes files: `create_or_update_file` commits, `push_files`
    // updates the files it pushes, and configures what those files set ("configured the
    // lint rules" by pushing `.eslintrc.json`).
    &["commit", "push", "write", "upload", "update", "configure"],
    // Closing an issue as cancelled or a duplicate records it `canceled`.
    &["close", "resolve", "complete", "archive", "mark", "cancel"],
    &["approve", "accept"],
    &["reject", "decline", "block"],
    &["refuel", "add", "renew", "extend"],
    &["link", "attach", "tag"],
];

/// Verbs of money: their object is an amount, a payer or a card ("charged $50 to your card"),
/// never the thing a tool names, so a call of their class backs them whatever the object.
const MONEY_VERBS: &[&str] = &[
    "charge",
    "pay",
    "refund",
    "credit",
    "reimburse",
    "bill",
    "debit",
];

/// Verbs of saying: their object is often what was said ("posted the release announcement",
/// "sent a reminder"), a genre no tool names.
const SAY_VERBS: &[&str] = &["send", "post", "reply", "forward", "share", "publish"];

/// Nouns that name what was said, not a thing a tool keeps: a verb of saying with one of them
/// as its object is checked on its verb alone.
const CONTENT_NOUNS: &[&str] = &[
    "announcement",
    "summary",
    "recap",
    "reminder",
    "notice",
    "note",
    "update",
    "memo",
    "digest",
    "greeting",
    "reply",
    "response",
    "confirmation",
    "notification",
    "alert",
    "invitation",
];

/// Verbs of telling someone: their object is who was told or asked ("notified the attendees",
/// "invited Sam"), a person no tool names.
const TELL_VERBS: &[&str] = &["notify", "invite"];

/// Nouns that name a right, the object of a grant or a revocation.
const RIGHT_NOUNS: &[&str] = &["access", "permission", "privilege", "right"];

/// Verbs that add to or take from something: "added two bags to the reservation" is also an
/// update of the reservation, so an update of the target backs it. Linking or tagging one thing
/// to another is an update of it too ("linked the pull request to issue #27"), and writing
/// something to a place writes the place ("wrote the findings to four new tables").
const INTO_VERBS: &[&str] = &[
    "add", "insert", "append", "attach", "remove", "delete", "drop", "detach", "apply", "refuel",
    "link", "tag", "unlink", "write", "save", "store", "export", "log",
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

/// The tables above, indexed once (lookups are per distinct word, so this is the hot path).
struct Index {
    /// Every form of every state-changing verb -> (base, form).
    verbs: Table<VerbForm>,
    /// Base verb -> every verb of its groups (itself included), sorted and deduplicated.
    classes: Table<&'static [&'static str]>,
    action_nouns: Table<&'static str>,
    read: Table<&'static str>,
    read_bases: Table<()>,
    irregular: Table<&'static str>,
    not_plural: Table<()>,
    stop: Table<()>,
    parts: Table<()>,
}

static INDEX: LazyLock<Index> = LazyLock::new(|| {
    let mut verbs: HashMap<&'static str, VerbForm> = HashMap::default();
    for line in VERB_LINES.lines() {
        let forms: Vec<&'static str> = line.split_whitespace().collect();
        let [base, third, past, participle, gerund] = forms[..] else {
            continue;
        };
        let mut put = |word: &'static str, form: Form| {
            let entry = verbs.entry(word).or_insert(VerbForm { base, form });
            if entry.form != form
                && matches!(
                    (entry.form, form),
                    (Form::Base, Form::Past) | (Form::Past, Form::Base)
                )
            {
                entry.form = Form::BaseOrPast;
            }
        };
        put(base, Form::Base);
        put(third, Form::Third);
        put(past, Form::Past);
        put(participle, Form::Past);
        put(gerund, Form::Gerund);
    }
    let mut classes: HashMap<&'static str, Vec<&'static str>> = HashMap::default();
    for group in VERB_CLASSES {
        for v in *group {
            classes.entry(v).or_default().extend(group.iter().copied());
        }
    }
    for members in classes.values_mut() {
        members.sort_unstable();
        members.dedup();
    }
    Index {
        verbs: verbs.into_iter().collect(),
        // Built once for the life of the process.
        classes: classes
            .into_iter()
            .map(|(k, v)| (k, &*Box::leak(v.into_boxed_slice())))
            .collect(),
        action_nouns: ACTION_NOUNS.iter().copied().collect(),
        read: READ_FORMS.iter().copied().collect(),
        read_bases: READ_FORMS.iter().map(|(_, b)| *b).collect(),
        irregular: IRREGULAR_PLURALS.iter().copied().collect(),
        not_plural: NOT_PLURAL.iter().copied().collect(),
        stop: STOPWORDS.iter().copied().collect(),
        parts: PART_NOUNS.iter().copied().collect(),
    }
});

/// The state-changing verb a lowercase word is a form of, and which form, if any.
pub(super) fn verb_form(word: &str) -> Option<VerbForm> {
    INDEX.verbs.get(word).copied()
}

/// The base state-changing verb a lowercase word is a form of, if any.
pub(super) fn mutating_base(word: &str) -> Option<&'static str> {
    verb_form(word).map(|v| v.base)
}

/// True when the lowercase word is exactly one of the 22 base verbs.
pub(super) fn is_base_mutating_verb(word: &str) -> bool {
    MUTATING_VERBS.contains(&word)
}

/// True when the lowercase word is the base of a state-changing verb (the 22 and the others).
pub(super) fn is_state_verb(word: &str) -> bool {
    verb_form(word).is_some_and(|v| v.base == word)
}

/// True when the lowercase word is a read verb's base or form (`get`, `listed`, `checked`).
pub(super) fn is_read_verb(word: &str) -> bool {
    INDEX.read.contains(word) || INDEX.read_bases.contains(word)
}

/// The verbs that back a claim made with `base` (its groups; `base` alone when in none).
pub(super) fn verb_class(base: &str) -> &'static [&'static str] {
    INDEX.classes.get(base).copied().unwrap_or(&[])
}

/// True when `base` is a light verb (its object may name the action).
pub(super) fn is_light_verb(base: &str) -> bool {
    LIGHT_VERBS.contains(&base)
}

/// True when `base` is a vague completion verb (backed by any state-changing call).
pub(super) fn is_vague_verb(base: &str) -> bool {
    VAGUE_VERBS.contains(&base)
}

/// The verb an action noun names (`refund` -> `refund`, `cancellation` -> `cancel`).
pub(super) fn action_noun(word: &str) -> Option<&'static str> {
    INDEX.action_nouns.get(word).copied()
}

/// True when `base` is a verb of money (its object is not checked).
pub(super) fn is_money_verb(base: &str) -> bool {
    MONEY_VERBS.contains(&base)
}

/// True when a claim of `base` on an object whose head is `head` (normalized) is checked on
/// its verb alone: a verb of money (its object is an amount or a card), a verb of saying
/// whose object names what was said ("posted the announcement"), a grant or revocation of
/// a right ("granted read access": what is granted is always a right), or a verb of telling
/// someone ("notified the attendees").
pub(super) fn verb_alone(base: &str, head: Option<&str>) -> bool {
    let head_in = |list: &[&str]| head.is_some_and(|h| list.contains(&h));
    is_money_verb(base)
        || (SAY_VERBS.contains(&base) && head_in(CONTENT_NOUNS))
        || (matches!(base, "grant" | "revoke") && head_in(RIGHT_NOUNS))
        || TELL_VERBS.contains(&base)
}

/// Words a tool may name a thing by, for the word a narrative uses: each group names one thing
/// (`create_issue` backs "created a ticket", `create_directory` "created a folder"). A word is
/// in one group at most.
const OBJECT_SYNONYMS: &[&[&str]] = &[
    &["issue", "ticket", "story", "bug", "subtask"],
    &["description", "body"],
    &["repository", "repo"],
    // A ref under `refs/heads/` is a branch (`create_ref` backs "Branch Created").
    &["branch", "ref"],
    &["directory", "folder", "dir"],
    &["document", "doc"],
    &["database", "db"],
    &["message", "msg"],
    &["pr", "pull"],
    &["event", "meeting"],
    &["email", "mail"],
    &["configuration", "config"],
    &["environment", "env"],
];

/// Nouns that name a part of a document or a data set, or the whole of what the calls built,
/// not a kind of thing a tool is named for: "added a new entry", "updated the parent",
/// "created a toggleable section", "the dashboard system has been created". A claim whose
/// object is one of them, when no call's name or key names any word of it, is the narrative's
/// own word for what a call of its class changed; and creating a part updates what holds it.
const PART_NOUNS: &[&str] = &[
    "system",
    "setup",
    "workflow",
    "process",
    "solution",
    "implementation",
    "infrastructure",
    "framework",
    "mechanism",
    "documentation",
    "entry",
    "item",
    "section",
    "subsection",
    "record",
    "row",
    // What an insert writes ("All results correctly inserted" by `INSERT INTO ... SELECT`),
    // and what a data set holds ("To test it I changed real data" by an `UPDATE`).
    "result",
    "data",
    "column",
    "cell",
    "field",
    "property",
    "attribute",
    "element",
    "block",
    "part",
    "segment",
    "heading",
    "header",
    "paragraph",
    "line",
    "bullet",
    "parent",
    "child",
    "node",
    "component",
    "content",
    "layout",
    "structure",
    // The tables of a design ("Schema created" by the `CREATE TABLE` statements of a migration).
    "schema",
    "value",
    "placeholder",
    // The choices of a select property ("created new tags" by `API-update-a-database`).
    "option",
    "choice",
    "tag",
    "callout",
    "divider",
    "reference",
    // How a part is written ("Pattern Applied", "the formatting was updated").
    "pattern",
    "format",
    "formatting",
    "numbering",
    "style",
    // What a heading or an item is written with ("made each section title bold", "replaced
    // the prefixes with emoji").
    "title",
    "prefix",
    "suffix",
    "icon",
    "emoji",
    // One instance of a thing held many times, or made again ("10 copies were added" by
    // `INSERT INTO inventory`, "any earlier versions were replaced" by `DROP TABLE IF EXISTS
    // ...; CREATE TABLE ...`).
    "copy",
    "instance",
    "version",
];

/// True when a normalized noun names a part of a document or a data set ([`PART_NOUNS`]).
pub(super) fn is_part_noun(word: &str) -> bool {
    INDEX.parts.contains(word)
}

/// Words for any kind of thing a tool stores, as a tool's name uses them: a tool named only by
/// them (`API-post-page`, `insert_row`, `API-patch-block-children`) holds whatever kind the
/// narrative names ("added the new project" to a database of projects). The narrative-side
/// counterpart is [`PART_NOUNS`].
const STORED_THINGS: &[&str] = &[
    "page", "block", "child", "record", "row", "item", "entry", "object", "node", "entity",
];

/// True when a normalized word of a tool name names any kind of stored thing
/// ([`STORED_THINGS`]).
pub(super) fn is_stored_thing(word: &str) -> bool {
    STORED_THINGS.contains(&word)
}

/// The words for the thing a normalized noun names, itself among them ([`OBJECT_SYNONYMS`]);
/// empty for a noun no group holds.
pub(super) fn object_synonyms(word: &str) -> &'static [&'static str] {
    OBJECT_SYNONYMS
        .iter()
        .find(|g| g.contains(&word))
        .copied()
        .unwrap_or(&[])
}

/// The other words a claim of `base` may find its object by, where the action makes them one:
/// what is merged is a pull request's branch and its changes ("merged the feature branch",
/// "merged the logging improvements" by `merge_pull_request`).
pub(super) fn action_synonyms(base: &str) -> &'static [&'static str] {
    match base {
        "merge" => &["pr", "pull"],
        _ => &[],
    }
}

/// Tool-name verbs of other languages, for the action of a tool named in them
/// (`crear_solicitud` creates). Only tool names read this table; a narrative's words do not.
const FOREIGN_NAME_VERBS: &[(&str, &str)] = &[
    ("crear", "create"),
    ("criar", "create"),
    ("creer", "create"),
    ("créer", "create"),
    ("erstellen", "create"),
    ("actualizar", "update"),
    ("atualizar", "update"),
    ("aktualisieren", "update"),
    ("modificar", "modify"),
    ("modifier", "modify"),
    ("eliminar", "delete"),
    ("borrar", "delete"),
    ("excluir", "delete"),
    ("apagar", "delete"),
    ("supprimer", "delete"),
    ("löschen", "delete"),
    ("enviar", "send"),
    ("envoyer", "send"),
    ("senden", "send"),
    ("cancelar", "cancel"),
    ("annuler", "cancel"),
    ("stornieren", "cancel"),
    ("agregar", "add"),
    ("añadir", "add"),
    ("adicionar", "add"),
    ("ajouter", "add"),
    ("hinzufügen", "add"),
    ("reservar", "book"),
    ("réserver", "book"),
    ("buchen", "book"),
    ("registrar", "register"),
    ("asignar", "assign"),
    ("pagar", "pay"),
    ("payer", "pay"),
    ("reembolsar", "refund"),
    ("rembourser", "refund"),
    ("transferir", "transfer"),
    ("transférer", "transfer"),
];

/// The English base of a tool-name verb of another language, if the table has it.
pub(super) fn foreign_name_verb(word: &str) -> Option<&'static str> {
    FOREIGN_NAME_VERBS
        .iter()
        .find(|(w, _)| *w == word)
        .map(|(_, b)| *b)
}

/// Verbs a claim of `base` is also backed by, beyond its class, where the backing goes one way
/// only: migrating data or a schema writes it where it now lives ("the migration has been
/// completed" by `INSERT INTO customer ...`), while a migration call does not back every
/// insert; deploying something creates it where it runs.
pub(super) fn one_way_class(base: &str) -> &'static [&'static str] {
    match base {
        "migrate" => &["insert", "import", "create", "alter", "update"],
        // Replacing a stored thing makes a new one in its place ("the first table had the
        // wrong columns, so I replaced it" by `DROP TABLE ...; CREATE TABLE ...`); updating
        // is in its class already.
        "replace" => &["update", "create", "overwrite"],
        // Swapping things between holders changes each ("completed the task swap" by
        // `API-patch-page` setting each assignee).
        "swap" => &["update", "patch", "modify", "edit"],
        // Deploying puts a thing in place: "System components deployed" by `CREATE VIEW ...`.
        "deploy" => &["create", "install"],
        // Restoring data sets it back ("restored that test data the same way" by an `UPDATE`
        // that sets the old values).
        "restore" => &["update", "set", "revert", "reset"],
        // Publishing puts out a thing made for it ("Top Music Charts Published" by `CREATE
        // TABLE top_music_charts`, "timeline published in `MERGE_TIMELINE.txt`" by writing the
        // file).
        "publish" => &["create", "write", "post"],
        _ => &[],
    }
}

/// True when `base` adds to or takes from a target (an update of the target backs it).
pub(super) fn is_into_verb(base: &str) -> bool {
    INTO_VERBS.contains(&base)
}

/// Verbs of an outcome reached through other writes: a problem is resolved by committing a
/// fix or merging a pull request, which name it in their text.
const OUTCOME_VERBS: &[&str] = &["resolve"];

/// True when `base` tells an outcome reached through other writes ([`OUTCOME_VERBS`]).
pub(super) fn is_outcome_verb(base: &str) -> bool {
    OUTCOME_VERBS.contains(&base)
}

/// Nouns for code that acts when it runs: a label headed by one introduces what that code
/// does ("**Post-deployment Job:**"), not what the agent did.
const AUTOMATION_NOUNS: &[&str] = &[
    "job",
    "workflow",
    "pipeline",
    "trigger",
    "function",
    "procedure",
    "script",
    "hook",
    "webhook",
    "bot",
    "automation",
];

/// True when a normalized noun names code that acts when it runs ([`AUTOMATION_NOUNS`]).
pub(super) fn is_automation_noun(word: &str) -> bool {
    AUTOMATION_NOUNS.contains(&word)
}

/// The words tools name the parts of a normalized noun by, when changing a part changes the
/// whole: a page's content is its blocks ("updated the Toronto Guide page" by
/// `update_a_block`). Only an update reads them: deleting a block deletes no page.
pub(super) fn held_parts(word: &str) -> &'static [&'static str] {
    match word {
        "page" | "document" | "doc" => &["block", "child"],
        _ => &[],
    }
}

/// Things that name a line of commits.
const BRANCH_NOUNS: &[&str] = &["branch", "ref", "head"];

/// The verbs that also back a claim of `base` on an object of these normalized words, by what
/// the object is: a branch merged into another moves that one forward (a fast-forward by
/// `update_ref`), and code that acts when it runs is activated or enabled by putting it in
/// place ("the deployment workflow has been activated" by merging the pull request that adds
/// it), and a thing transferred from one holder to another is changed itself ("10 tasks
/// transferred to Bob" by updating each task's assignee). `update` stands for the whole update
/// class. A row, record or entry closed is closed by an update of it (its end date or state);
/// one given a value may have been given it as it was made.
pub(super) fn object_class<'w>(
    base: &str,
    mut object: impl Iterator<Item = &'w str>,
) -> &'static [&'static str] {
    match base {
        "merge" if object.any(|w| BRANCH_NOUNS.contains(&w)) => &["update"],
        "activate" | "enable" if object.any(is_automation_noun) => {
            &["merge", "commit", "push", "create", "write", "update"]
        }
        // Only a named thing: "transferred you to an agent" is the transfer itself.
        "transfer" if object.next().is_some() => &["update"],
        // A row or record is closed by setting its end ("the salary row was closed with
        // `to_date = '2024-01-31'`").
        "close" if object.any(is_part_noun) => &["update"],
        // A value given to new rows or entries is given as they are made ("every record was
        // assigned SupportRepId 3" by the `INSERT` that made them).
        "assign" | "set" | "tag" | "label" | "mark" | "categorize" | "flag"
            if object.any(is_part_noun) =>
        {
            &["insert", "create", "add", "post"]
        }
        // A part sent to where it is stored is added there ("Sent the column again with its
        // children" by `API-patch-block-children`, "sent the new rows" by an `INSERT`).
        "send" if object.any(is_part_noun) => &["append", "add", "insert", "create", "update"],
        _ => &[],
    }
}

/// True when the lowercase word is a stopword or a numeral.
pub(super) fn is_stopword(word: &str) -> bool {
    INDEX.stop.contains(word) || is_numeral(word)
}

/// True for a numeral (`42`, `3.5`, `1,200`): digits with at most `.`/`,` between them.
pub(super) fn is_numeral(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_digit())
        && word
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
}

/// True when `word` holds an ASCII digit: a number or an identifier (`42`, `v2`, `issue12`),
/// which no table holds and which is only itself.
pub(super) fn has_digit(word: &str) -> bool {
    word.bytes().any(|b| b.is_ascii_digit())
}

/// The normal form of one lowercase token: a verb form becomes its base verb, a plural noun its
/// singular. Applied identically to narrative words and tool-name tokens.
/// A word that holds a digit (`v2`, `issue12`, `3.5`) is an identifier or a number: no table
/// holds one, and it is kept as it is.
pub(super) fn normalize(lower: &str) -> Cow<'_, str> {
    if has_digit(lower) {
        return Cow::Borrowed(lower);
    }
    if let Some(b) = verb_base(lower) {
        return Cow::Borrowed(b);
    }
    let one = singular(lower);
    // The plural of an `-ing` form is a noun: "findings", "settings", "mappings".
    if lower.ends_with("ings") {
        return one;
    }
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
            // The plural of an `-ing` form is a noun.
            ("settings", "setting"),
            ("findings", "finding"),
        ] {
            assert_eq!(normalize(form), base, "{form}");
        }
        // Every base of the 22 has its line, and every line has five forms.
        for v in MUTATING_VERBS {
            assert_eq!(mutating_base(v), Some(v), "{v}");
        }
        for line in VERB_LINES.lines() {
            assert_eq!(line.split_whitespace().count(), 5, "{line}");
        }
        assert_eq!(verb_form("set").map(|v| v.form), Some(Form::BaseOrPast));
        assert_eq!(verb_form("created").map(|v| v.form), Some(Form::Past));
        assert_eq!(verb_form("written").map(|v| v.form), Some(Form::Past));
        assert_eq!(verb_form("creates").map(|v| v.form), Some(Form::Third));
        assert_eq!(mutating_base("booked"), Some("book"));
        assert_eq!(mutating_base("paid"), Some("pay"));
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
    fn no_table_word_holds_a_digit() {
        // `normalize` and the piece facts skip every table for a word with a digit.
        let mut words: Vec<&str> = VERB_LINES.split_whitespace().collect();
        words.extend(MUTATING_VERBS);
        words.extend(LIGHT_VERBS.iter().chain(VAGUE_VERBS).chain(MONEY_VERBS));
        words.extend(INTO_VERBS.iter().chain(NOT_PLURAL).chain(STOPWORDS));
        words.extend(VERB_CLASSES.iter().flat_map(|c| c.iter()));
        for (a, b) in ACTION_NOUNS
            .iter()
            .chain(READ_FORMS)
            .chain(IRREGULAR_PLURALS)
            .chain(FOREIGN_NAME_VERBS)
        {
            words.extend([*a, *b]);
        }
        for w in words {
            assert!(!w.bytes().any(|b| b.is_ascii_digit()), "{w}");
        }
        assert_eq!(normalize("issues2"), "issues2");
        assert_eq!(normalize("issues"), "issue");
    }

    #[test]
    fn noun_and_verb_tables_hold_normal_forms() {
        // They are compared with normalized words: a table word that normalizes to another
        // word would never match.
        let nouns = CONTENT_NOUNS
            .iter()
            .chain(RIGHT_NOUNS)
            .chain(PART_NOUNS)
            .chain(STORED_THINGS)
            .chain(AUTOMATION_NOUNS)
            .chain(BRANCH_NOUNS)
            .chain(OBJECT_SYNONYMS.iter().flat_map(|g| g.iter()));
        for w in nouns {
            assert_eq!(normalize(w), *w, "{w}");
        }
        // The verbs checked alone are state-changing bases.
        for v in SAY_VERBS
            .iter()
            .chain(TELL_VERBS)
            .chain(["grant", "revoke"].iter())
        {
            assert!(is_state_verb(v), "{v}");
        }
        // A word names one thing: it is in one synonym group at most.
        for (i, g) in OBJECT_SYNONYMS.iter().enumerate() {
            for w in *g {
                assert_eq!(object_synonyms(w), *g, "{w}");
                assert!(
                    OBJECT_SYNONYMS[i + 1..].iter().all(|h| !h.contains(w)),
                    "{w}"
                );
            }
        }
        assert_eq!(object_synonyms("folder"), ["directory", "folder", "dir"]);
        assert!(object_synonyms("reservation").is_empty());
    }

    #[test]
    fn numerals_are_stopwords() {
        assert!(is_stopword("42") && is_stopword("3.5") && is_stopword("1,200"));
        assert!(!is_stopword("v2") && !is_stopword("issue"));
    }
}
