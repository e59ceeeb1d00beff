//! Narrative-vs-trace divergence: does the agent's closing story match what it actually did?
//!
//! An agent ends a run by telling a person what it did ("I created the issue and notified the
//! team"). [`check_narrative`] reads that text and the recorded tool calls and reports where the
//! two disagree, in three categories ([`DivergenceCategory`]):
//!
//! * **claimed-but-absent**: the text claims an action no recorded call matches (it said it did
//!   something it never did);
//! * **present-but-unclaimed**: a recorded call the text never mentions (it did something it
//!   never told you about; a silent *mutating* call matters most);
//! * **arg-mismatch**: the text states an argument value that disagrees with the recorded call.
//!
//! The check is rule-based and model-free: the same text and trace give the same report on every
//! machine. Narration can only *fail* a run here, never pass one: the verdict on what happened
//! stays with the observable-evidence gates (`expect:`, `trajectory:`).
//!
//! # The rules
//!
//! * **Code blocks** (between ```` ``` ```` fences; an unclosed fence runs to the end) are
//!   code, not narration: a workflow file's "Deployment completed" claims nothing.
//! * **Sentences** end at `.`, `!`, `?` and line breaks. A hard-wrapped line goes on instead,
//!   as Markdown renders it: a break after a line of 60 bytes or more that is no heading or
//!   table row and ends inside its sentence (on a word, a comma, a closing bracket or quote),
//!   before a line that goes on in lowercase with no label of its own ("the PR has not\nbeen
//!   merged" is one sentence, and its negation holds; "issue #12: closed" on the next line is
//!   an item of its own). An abbreviation's dot ends no sentence inside its line ("open vs.
//!   closed phases", "e.g. `main`", "cf.", "i.e.", "approx.", "incl."); after `etc.` a capital
//!   opens the next sentence ("tables, etc. Then ...") and anything else goes on ("(`rental`,
//!   `payment`, etc.) was modified").
//! * **Tokens** are lowercase words. Text and tool names are split the same way: on every
//!   character that is not a letter or digit (`_ - . /` ...) and on camelCase, so `createIssue`,
//!   `create-issue` and `github.create_issue` all give `create`, `issue`. Verb forms map to
//!   their base from written-out tables (`created` -> `create`, `sent` -> `send`, `paid` ->
//!   `pay`), plural nouns to their singular (`issues` -> `issue`), on both sides. A narrative
//!   that is a JSON document (`{"message": "..."}`) is read as its string values.
//!
//! ## What is a claim
//!
//! A claim is an assertion that the agent **completed** an action that changes state, in this
//! run. The verbs are the documents' 22 ([`MUTATING_VERBS`]) and the other state-changing verbs
//! real closing messages use (book, transfer, charge, refund, upgrade, exchange, enable, reset,
//! grant, assign, escalate, ...; [`state_changing_verb`] tells which word is one). A clause is
//! the stretch of a sentence between clause breaks (`, ; : ( ) | -`) and the words `and`,
//! `but`, `or`, `so`, `that`, `which`, ... . A mention of such a verb is a claim when:
//!
//! 1. It is a **past form** ("cancelled", "sent", "set"), or the agent's own present
//!    progressive ("I'm transferring you now"). A base form is an offer, an instruction or an
//!    infinitive ("would you like me to cancel", "please restart", "unable to cancel"); a
//!    third-person form describes ("the script creates issues").
//! 2. Its sentence is not a **question** and not a **table row**, and it is not in the key of a
//!    `key: value` line ("Total charged: $580", "Changes made:"), unless the key opens with the
//!    verb and names a thing by its `#` number ("Created issue #51: \"Summary\"": what the
//!    agent did to that thing; the value is its title, which claims nothing). Nor is it an item of a list
//!    under a label whose head names code that acts when it runs (job, workflow, pipeline,
//!    trigger, function, procedure, script, hook, webhook, bot, automation): under
//!    "**Post-deployment Job:**", "- Closed deployment tracking issue" tells what the job does.
//!    Under "**Workflow Setup:**" the head is a setup, and the list is the agent's. Nor is it
//!    an item under a label that says what follows was checked ("Results Verified:",
//!    "Verification:", "Tests Conducted:"; a label that is itself an item holds the items
//!    indented deeper), nor an item under a label of what a thing contains ("The table
//!    contains:": its content), nor the observed line of a test report ("**Actual**: ✅ Comment
//!    posted"). A list item's number
//!    ("1. ") is no word and ends no sentence. A verb of
//!    change with no subject and no object right before `from` ("- Changed from Sequential
//!    Scans to Index Scans") tells that something changed, not what: like "processed", any
//!    write backs it; so does a change that names nothing changed ("Changes made", "the updates
//!    have been applied"). Sending the agent's own attempts or calls ("the first five attempts
//!    were sent without a request body") or applying a rule of reasoning or of a computation
//!    ("applied the criteria manually", "Optimization Techniques Applied", "floor of 0
//!    applied") is how it worked, not a claim, nor is what a call carries (a body, a key, a
//!    field, children), sent with nothing after the verb but a form of `be` or of seeming ("the
//!    base64 content I sent was malformed", "the content I sent seems to end abruptly") or
//!    sent with or without one ("sent with no `children` key"), nor a thing of the agent's
//!    request sent ("how I'm sending the request parameters"), nor a
//!    report, summary, script or analysis generated (what a read puts out: "Final
//!    verification report generated"), and what a call or a
//!    statement gave back, or a call that returned (named as a call or by its action), is no
//!    return of goods ("the script returned an error", "returned 12 rows", "every append call
//!    returned successfully", "all five creations returned without error").
//!    A passive of `write` followed by `as` and a quoted value tells how a thing is spelled
//!    ("the trigger key was written as "5pull_request""), not a write; so is a passive of
//!    `send` ("the heading text was sent as `**Summary**`"). What is sent with or
//!    without what a call carries (a body, payload, content, query, parameter) is the agent's
//!    own call ("sent with no body"); a listing, a write or an operation that returned is a
//!    call's answer; a refusal or an acceptance told with no doer and no object ("`INSERT` →
//!    rejected", "num_parts +1 → blocked"; also `accepted`, `declined`, `denied`, `refused`) is
//!    the system's, and so is a refusal of a call ("Blocked attempt to set `num_parts = 999`";
//!    "rejected the pull request" still claims); a participle joined by `and` to a present
//!    state tells the state ("pgvector - Installed and functioning properly"); a limit, a
//!    filter or a clause applied is how a query ran ("ORDER BY ... LIMIT was applied to the
//!    whole UNION"); a reference resolved to a value ("`main` resolved to `f348e76`") is no outcome;
//!    attempts made are the agent's calls ("three attempts were made"), and a way of working
//!    changed ("changed approach") is no change of stored state. Inside brackets, a
//!    participle with one noun and then `only`, or after a list item that opens with no verb,
//!    is a noun phrase: "(paid rentals only)", "(customers analysed, paid rentals, revenue)";
//!    "(created tables, added indexes)" claims. A participle after a
//!    verb of a state kept (`stays`, `remains`, `keeps`, `becomes`) is that state ("so it stays
//!    updated"), and one right after `state` or `status` that ends its clause is that field's
//!    value ("#49: state closed -> open"; "Status updated to Done" still claims); a bare
//!    participle listed in brackets beside an adjective of state is a value too ("by status
//!    (new, reviewed, closed)"). A heading of one word labels its section ("### Changed").
//! 3. Nothing before it in its clause **negates** it (`not`, `never`, `no`, `unable`,
//!    `cannot`, `failed`, any `n't`; a clause opened by `nor`: "neither merged nor closed"; a
//!    negation opening a listed subject: "No branches, files or PRs were created", "no branch,
//!    commit or PR", also past an aside on a member ("No views, indexes (beyond the PKs) or
//!    refreshes were created"); a negation before a list of participles: "not been updated, rebased or
//!    merged"; a negated subject before a list of participles: "No items opened, closed or
//!    commented on"; an object of none: "changed no data", "created nothing"; after `or` in a
//!    list a negation opens, a participle before a noun qualifies it: "with no trigger or
//!    scheduled job")
//!    or makes it **unreal**: a condition (`if`, `unless`,
//!    `once`, `whether`), a request or plan (`please`, `let`, `want`, `need`, `plan`, `try`),
//!    a recommendation (`recommend`, `suggest`), or, between its subject and it, a modal
//!    (`will`, `would`, `can`, `may`, `should`, `'ll`) or `to`, `able`, `eligible`, `ready`;
//!    a modal, `had` or `were` that opens the clause before its subject supposes or asks ("Had
//!    the calls been accepted, I would have ...", "Should the PR be merged, ..."); a
//!    participle right after a word of time or reason, with no subject, is a reduced clause
//!    ("no effect on `main` until merged", "when merged, it runs").
//! 4. It is not a **modifier**: not right after a determiner, possessive or preposition ("the
//!    cancelled flight", "policy for cancelled flights"); not a participle dated by what
//!    follows ("Created on May 12", "was made within the last 24 hours", "closed Weds"); not
//!    the value of a label ("Status: cancelled"); not a passive whose subject is `what` ("match
//!    what was linked there"), nor a clause that `what` opens before another subject ("what each
//!    step sent"); not after `vs` ("total vs migrated"); not one of the verbs a relative clause
//!    lists ("a transaction that deferred the constraint, set 999 and then restored 4"); not
//!    a reduced relative ("the $280 paid by
//!    card will be refunded", "with the refund applied", "the items scheduled after 6 PM");
//!    not a participle before its noun ("14 closed issues"), also when joined to an adjective
//!    of state that opens the noun's phrase ("every open and closed issue") or when so joined
//!    it ends its clause ("all issues, both open and closed"); not a count
//!    ("(172 blocked)", "200 migrated"); not under way ("new translations being added",
//!    "despite being highest paid"; "you are being transferred"
//!    is the agent's own act); not a bare participle on a `key: value` line ("Status: Active
//!    and properly configured"); not a `with` phrase and what `and` joins to it ("with all
//!    data maintained and business rules properly applied"). `already` or `previously` after a
//!    perfect auxiliary is no modifier ("I've already cancelled it" claims).
//! 5. Its **subject is the agent**: none (a bullet, a coordinated verb) or `I`/`we`. Another
//!    subject makes it someone else's action ("you cancelled it", "the airline cancelled your
//!    flight"). A **completed passive** ("your order has been cancelled", "the items were
//!    returned", "Order #W48 cancelled.") claims the action on its subject, unless `by` names
//!    another doer ("cancelled by the airline") or the verb is a refusal ("the insert was
//!    rejected", "the payment was declined": an answer to an attempt); a present passive ("the
//!    status is closed", "it gets updated often") describes a state unless it states completion
//!    ("is now cancelled", "your booking is confirmed"). A simple past passive that tells
//!    history is no claim either: a state found ("was already closed"), a date ("were
//!    transferred in 2023"), a clause of time ("the tag was removed when the release was
//!    published"), or inside one ("when the PR was merged"), or a clause of `where` that says
//!    which things or cases are meant ("any commit where that trailer was removed"). A relative clause does not hide a
//!    passive's subject ("the issue that was closed has been reopened" claims `reopen` on the
//!    issue); a headline passive whose subject opens with an article is a description ("The
//!    items scheduled ..."), one without is a claim ("Issue #27 closed"); a subject headed by a
//!    time noun ("... Day 2 have been removed") names when, not what. A verb coordinated with
//!    an earlier one, adverbs between them, shares its subject ("has been reopened and properly
//!    tagged"); so does one joined after a participle of any verb ("has been implemented and
//!    activated"), and it shares what made that one unreal ("if you'd like the report sorted
//!    differently or extended"). A negation opening a subject joined by `or` holds ("No
//!    inventory or FAQ entries were modified"), and a passive in a clause of reason is
//!    background ("failed because they were sent with no query").
//!
//! A hyphenated past whose first part tells how the act was done is its last part:
//! "squash-merged", "force-pushed", "re-created" claim; "half-written" and "well-documented"
//! are states. The plural of an `-ing` form is a noun ("findings", "settings").
//!
//! The **object** is the noun phrase after the verb up to a preposition, a naming participle
//! ("a block titled ...", "a page named ...") or the clause end, skipping determiners,
//! numbers, adverbs, emphasis and pronouns; code spans and quoted names count as its words.
//! A free-standing `+` or `&` ends a phrase ("Branch & Files Created"). A colon after it introduces its members, which count as its words too:
//! the rest of the sentence ("added two sections: Pricing and FAQ"), or, when the colon ends
//! its line ("I've set up the database:" above a list), the lines that follow (40 words at
//! most). Its **head** is its last plain word ("created a comprehensive
//! analysis" -> `analysis`; "Your reservation M20IZO" -> `reservation`). A passive claim's
//! object is its subject, read back through its prepositional phrases ("your flight from JFK
//! on May 24th" -> `flight`). A pronoun object ("transferred you") or a phrase of generic words
//! ("made the changes", "updated everything", "added the same way", "Deliverables Created")
//! leaves the verb alone, and a quality or condition of a system (performance, latency,
//! reliability, need, overhead, bottleneck, duplication, ...) or a capability it gains
//! (enforcement, validation, protection) makes the claim an outcome any write backs ("Dashboard Performance Restored", "Removed need for `COUNT(DISTINCT)`"). A
//! quoted name after `as` is the object's name too ("committed the results as `REPORT.md`");
//! `fine` tells how it went ("committed fine"). A participle that opens a bracketed aside
//! right after a noun, with words after it and no object of its own, tells what that noun
//! had done ("Updated current salary record (closed with to_date='2024-01-31')" claims `close`
//! on the record); alone in brackets it is a status mark ("❌ (blocked)"). A verb that ends a relative
//! clause of the agent, with a form of `be` after it, has the noun before that clause as its
//! object ("the payloads I sent were plain YAML" -> `payload`; "the tables that we created
//! were indexed" -> `table`).
//!
//! **Light verbs** take their action from an action noun in their object: "issued a refund"
//! claims `refund`, "processed the cancellation of your order" claims `cancel` on the order,
//! "your exchange request has been submitted" claims `exchange`: the action noun is the
//! object's head, or stands before a head that names the asking or the steps of an act
//! (request, process, procedure, transaction, operation, step, task); in "the Software
//! Deployment Process SOP is completed" it is part of a name. A vague one with no action
//! noun ("processed your request", "completed the steps") is backed by any call that changes
//! state; "made", "placed" or "confirmed" with nothing to check claim nothing. "I confirmed
//! your reservation" is a check; "your reservation is confirmed" claims the booking. The
//! object of an action noun is what its preposition names ("of your order"), not a place ("the
//! migration in the IT hub" names no object). A thing made into a state ("made each section
//! title bold", "made the repository public") is updated.
//!
//! "Here is what I changed" (the agent's verb after `what`) only says that something changed:
//! it is backed by any call that changes state. Verbs of telling someone (notify, invite) are
//! checked on the verb, their object being who was told. A possessive's `s` is no word
//! ("Maria's order" reads `maria`, `order`).
//!
//! A verb of motion told with a word of going on and no object ("moved on to the next table",
//! "pushed ahead with the plan") is the agent's progress and claims nothing; "pushed on
//! `main`" still pushes. Returning with nothing given back and no noun before it ("All three
//! returned without errors") is a call's answer; "returned the item" and "Order #W48
//! returned" name what was given back. A participle opening its clause before a noun and an
//! auxiliary written as a word ("Closed issues were read") qualifies that noun, the clause's
//! subject; "Updated employee 10001's salary" still claims (a possessive is no auxiliary).
//!
//! Identical claims (same verb, same head) count once (`claimed_actions` counts distinct
//! claims). A claim with no object that repeats the verb of a backed claim is that action told
//! again ("migrated all 200 customer records ... - Migrated from the provided table").
//!
//! ## What backs a claim
//!
//! Each recorded call shows **actions** and **words**. Its actions: the leading verb of its
//! name after any namespace words (`github_create_issue` creates; `get_cancel_policy` and
//! `can_send_mms` do nothing), verbs joined by `or`/`and` (`create_or_update_file`), the action
//! a light verb names (`make_payment` pays) or that the last word of a `create`/`add` name
//! names (`create_refund` refunds, `create_relations` links), verbs of common other languages
//! (`crear_solicitud` creates); for a call that writes, the action nouns and verbs of its
//! argument keys (`payment_id`: it paid, `assignee`: it assigned, `archived`: it archived); for
//! a generic executor (a name with an executor word and no specific verb of its own:
//! `execute_sql`, `run_command`, `execute_action`, `API-patch-page`, not
//! `API-create-a-comment`), the verbs written in their base form in its argument values
//! (`CREATE TABLE`, `INSERT INTO`, `ALTER ... ADD CONSTRAINT`, `archive_project`; an inflected
//! form such as `created_at` describes data, a verb after `_`, `-` or in camelCase is part of
//! a name (`col_order`), and a verb in a comment or a single-quoted literal is prose or data:
//! `-- check the salary before update`, `SELECT 'Tables created'`); for a call that writes or whose name names no
//! verb (`kubectl_rollout`), an argument value that is one such verb alone (`"state": "closed"`
//! closes, `"event": "APPROVE"` approves, `"subCommand": "restart"` restarts, and a flag set
//! on, `"archived": true`, archives; a verb inside a sentence of text does not count). `issue`
//! or `process` ending a name, their plurals anywhere, and a light verb in a key, are nouns
//! (`github_issue`, `issues_and_pull_requests`, `issue_key` issue nothing); a name whose first
//! verb reads (`API-retrieve-a-page`) is no executor. An executor's action named by its things
//! alone takes the verb of its category (`"category_name": "GITHUB_SEARCH"`, `"action_name":
//! "issues_and_pull_requests"`: a search, which does nothing). Its words: its name, its argument keys and, for a call that writes, its argument
//! values (the first 64 KiB of text). A claim's object word also matches the other words tools
//! name that thing by: issue, ticket, story, bug, subtask; description, body; repository, repo;
//! directory, folder, dir; branch, ref (`create_ref` on `refs/heads/x`); document, doc;
//! database, db; message, msg; pr, pull; event, meeting; email, mail; configuration, config; environment, env. A merge claim's object also matches a
//! pull request (what is merged is a pull request's branch and its changes: "merged the logging
//! improvements" by `merge_pull_request`), and a merge of a branch is also backed by an update
//! of it (a fast-forward: "merged develop into release" by `update_ref` on `heads/develop`).
//! Activating or enabling a workflow (or other code that acts when it runs) is also backed by
//! putting it in place: a merge, commit, push or created file. A row, record or entry closed is
//! also backed by an update of it (its end date), as is any thing whose name (the object's
//! head) a statement that updates holds ("closed employee 10001's current salary" by `UPDATE
//! salary SET to_date = ...`); results inserted are rows, backed by the insert that wrote them,
//! and data is a part of a data set ("changed real data" by an `UPDATE`);
//! publishing is also backed by creating, writing or posting the thing published ("Top Music
//! Charts Published" by `CREATE TABLE top_music_charts`). One given a value (assigned, set,
//! tagged, labelled, marked) by the insert or create that made it ("every record was assigned
//! SupportRepId 3" by its `INSERT`); a part sent (a column, a row, an entry) by adding it
//! where it is stored ("Sent the column again with its children" by
//! `API-patch-block-children`). Deploying is also backed by creating or installing
//! ("System components deployed" by `CREATE VIEW`), restoring also by updating ("restored
//! that test data" by the `UPDATE` that set the old values back), replacing also by creating ("so I
//! replaced it" by `DROP TABLE ...; CREATE TABLE ...`), swapping by updating ("completed the task
//! swap" by `API-patch-page`), and writing, saving, storing, exporting or
//! logging something to a place also by an update of the place ("wrote the findings to four
//! new tables"). A named thing transferred from
//! one holder to another is also backed by an update of it ("10 tasks transferred to Bob" by
//! `API-patch-page` setting each assignee; "transferred you to an agent" names no thing and
//! needs the transfer). A thing closed that the claim names by its number ("PR #24 was
//! closed") is also backed by a merge, when a write's text gives that number after a closing
//! keyword (close, fix or resolve, in any form: "**Resolves #24**" in the body of a pull
//! request): merging the change closed it. An update of a page or a
//! document also matches its blocks ("Toronto Guide page updated" by `update_a_block`); a
//! deletion does not.
//!
//! A generic executor that names its action under a key (`action`, `action_name`, `operation`,
//! `tool`, `function`, ...) does what that name says: `execute_action` with `"action_name":
//! "patch_page"` patches, with `"get_block_children"` reads, whatever its body holds; named
//! only for stored things (`patch_page`), it holds any kind of thing, as `API-patch-page` does.
//! An HTTP method before a read word names how a read is sent, not an action: `API-post-search`
//! and `post_database_query` create nothing (they still count as writes for the mutating rule
//! below). A JSON body passed as a string (`"body_schema": "{\"state\": \"closed\"}"`,
//! `"{\"archived\": true}"`) states its short values and its flags like any other value, and
//! `ORDER BY` / `GROUP BY` in a statement order nothing. A write that carries a list of new
//! objects (`"children": [{...}]`, `"files": [{...}]`) also appends them.
//!
//! A claim is **backed** by a call whose actions include a verb of the claim's **class** and
//! whose words include a word of the claim's object (any word, when the claim has none):
//!
//! | class | verbs |
//! |---|---|
//! | create | create, add, insert, append, post, put, write, upload, generate, make, register, file, attach, import, set, issue, provision |
//! | book | book, reserve, schedule, order, place, create, make, purchase, submit |
//! | update | update, modify, change, edit, set, patch, put, alter, amend, adjust, upgrade, downgrade, rename, move, replace, mark, reschedule, swap, configure, apply, toggle, assign, scale, transition, reopen |
//! | delete | delete, remove, drop, destroy, erase, purge, wipe, detach, unlink, uninstall, archive |
//! | cancel | cancel, revoke, void, terminate, withdraw, suspend, unsubscribe, deactivate, disable |
//! | send | send, notify, forward, post, reply, issue, share, invite, submit, publish |
//! | transfer | transfer, escalate, forward, move |
//! | money | refund, reimburse, credit, charge, pay, purchase, bill, debit |
//! | exchange | exchange, swap, replace, return |
//! | grant | grant, enable, assign, issue, share, add |
//! | enable / disable | enable, activate, toggle, resume, reactivate, unblock, unlock, restore / disable, deactivate, toggle, suspend, block, lock |
//! | reset | reset, restore, reboot, restart, revert |
//! | ship | merge, commit, push, publish, deploy |
//! | commit | commit, push, write, upload, update, configure (committing or pushing writes files: `create_or_update_file`, `push_files`; a pushed config file configures) |
//! | close | close, resolve, complete, archive, mark |
//! | others | approve, accept / reject, decline, block / refuel, add, renew, extend / link, attach, tag |
//!
//! A verb in several rows is backed by any of them. A migration is also backed by an insert,
//! import, create, alter or update (data or a schema written where it now lives: "the migration
//! has been completed" by `INSERT INTO customer ...`), one way only. A claim made with a verb
//! outside the documents' 22 that no call of its class backs is backed by a call that writes
//! and names a word of its object in its name or keys or, for a generic executor whose
//! statement changed state (an `INSERT`, not a `SELECT`), in its statement ("tagged the page"
//! by `API-patch-page`, "restored the orders" by `UPDATE orders ...`): the tables cannot list
//! every verb a write performs. A write's other values are free text and do not count here (a
//! comment that mentions the project archives nothing), with one exception: an outcome reached
//! through other writes, `resolve`, on an object of two words or more and no number, is backed
//! by a write whose string values name every word of its object ("resolved the MetaSep token
//! mapping bug" by a commit with the message "Fix MetaSep token mapping bug"; "infrastructure
//! conflicts resolved" by a pull request "Add CI infrastructure to resolve conflicts").
//! Verbs of money are checked on the verb alone (their object is an amount or a card), and so
//! are verbs of saying (send, post, reply, forward, share, publish) whose object names what was
//! said (an announcement, summary, recap, reminder, notice, note, update, memo, digest,
//! greeting, reply, response, confirmation, notification, alert or invitation: "posted the
//! release announcement" by `slack_post_message`), and so is a grant or revocation of a right
//! (access, permission, privilege, right: "granted read access" by `GRANT SELECT ...`). A verb
//! that adds or removes ("added a bag to your reservation", "inserted rows into `products`") is
//! also backed by a call that does it to its target (`INSERT INTO products`) or by an update of
//! its object or of its target. Words match exactly or, when nothing matches exactly, by prefix
//! ("bag" / "baggage", both at least 3 letters and neither holding a digit: a number or an
//! identifier such as `rev2024` is only itself). A tool named in another language matches any
//! object.
//!
//! **The narrative's own words.** When the object's head names a part of a document or a data
//! set, or the whole of what was built (entry, item, section, row, field, block, heading,
//! parent, child, layout, structure, value, system, workflow, setup, the options of a select
//! property: option, choice, tag, ...), or the object is a quoted title or a title in capitals
//! ("Created \"Q3 Goals\" as a toggleable section", "Created Packing Progress Summary", "The
//! Learning Metrics Dashboard has been created"), and no call's name or key names any word of
//! it, no call can be told apart by it: a call of the claim's class backs it. Creating such a
//! part also updates what holds it, so an update backs it too ("created a new heading block" by
//! `API-patch-block-children`). The members of a colon list name the things themselves and keep
//! the strict rule; so does a code span (a path or an identifier is what calls' values hold). A
//! quoted title anywhere in the object makes it a title ("Deleted \"Knitties\" project" by
//! `API-patch-page` with `archived`). A kind of thing no call names is backed by a call of its
//! class whose name names only a stored thing of any kind (page, block, child, record, row,
//! item, entry, object, node, entity: "added the new project" by `API-post-page` into a
//! database of projects), unless the object names its things by a list or an identifier; a tool
//! for one kind does not hold another ("created a reservation" is not backed by
//! `create_customer_profile`). A write or a verbless call that passes a statement (an argument
//! `sql`, `query`, `statement`, `command`, `cmd` or `script`: `apply_migration` with `CREATE
//! INDEX ...`) is read through it like a generic executor; a read's query is a question
//! (`search_documentation` with "how to create a page" creates nothing). Linking or tagging one
//! thing to another updates it ("linked the pull request to issue #27" by `update_issue`).
//!
//! ## Which calls write
//!
//! `readonly_tools` (never) and `mutating_tools` (always) win; then the server's own word, the
//! MCP annotations of the tool lists a cassette recorded (`readOnlyHint: true` is read-only;
//! `readOnlyHint: false` or `destructiveHint: true` writes; see [`ToolHints`]); then the name:
//! one of the 22 verbs as a word, a state-changing leading verb (`book_reservation`), or a
//! generic executor. A call declared read-only backs no claim, nor does a call the server
//! answered with an error (its result `is_error`): it did not do what it asked for. A claim
//! only such a call would back is claimed-but-absent, and its line names the call that tried
//! ("I created the file" after a `create_file` answered 404). The server's word decides: an
//! error written in a result the server did not mark as one is not read.
//!
//! ## Mentions and arguments
//!
//! * A call is **mentioned** when every token of its name with 3 or more characters appears
//!   anywhere in the text (all its tokens when none is that long), or when it backs a claim.
//! * **arg-mismatch**: for a claim with backing calls, in the claim's sentence, a word equal
//!   (case-insensitively) to one of those calls' argument keys, followed, after any `:`, `=`,
//!   `to` or stopwords, by a value (a word, a number or a quoted string; not a verb form such
//!   as "Created"; `from`, `of` or a conjunction after the key leads elsewhere: "labels from
//!   different categories" states no label, "opening a branch and a PR" no branch) that agrees with no backing call's value for that key. Comparison ignores
//!   case; numbers compare as numbers (`42.00` = `42`); an unquoted word agrees with a
//!   multi-word value when the sentence continues with that value (`title: Fix flaky CI`); an
//!   array agrees when one element does. Like is compared with like: a recorded number or
//!   identifier (`1`, `cus_19`) only with a stated word holding a digit ("priority Urgent"
//!   says nothing of `priority: 1`), a recorded boolean only with `true` or `false`. Objects
//!   and `null` are never compared.
//!
//! # Formula and gate
//!
//! ```text
//! divergence_score = min(1, flagged items / (recorded calls + claimed actions))   (0 when both are 0)
//! gate_passed      = no claimed-but-absent *mutating* action
//!                    and (max_divergence_score is none or divergence_score <= max_divergence_score)
//! ```
//!
//! A claim is mutating by construction (its verb changes state), with one exception: a claim
//! whose verb and a word of whose object belong to a name in `readonly_tools` is read-only
//! (with `readonly_tools: [post_search]`, "posted the search query" is not a write). Silent calls and
//! argument mismatches are reported and counted in the score, but fail the gate only through
//! `max_divergence_score`. A ceiling that is not a number (NaN) fails every run.
//!
//! # How to read it
//!
//! The five targets are `narrative.divergence_score`, `narrative.claimed_but_absent`,
//! `narrative.present_but_unclaimed`, `narrative.arg_mismatch` and `narrative.gate_passed`.
//! Each [`Divergence`] in `items` names its category, the words claimed, the call index and
//! tool, the argument key with the stated and the recorded value, and the sentence, so a person
//! can see which sentence disagrees with which call. When a claim matches several calls, an
//! arg-mismatch names the first of them that records the key (none of them agrees).
//!
//! `llm_assisted` is advisory: it is recorded in the report and never changes `gate_passed`.
//! This crate calls no model, so it adds no items here.
//!
//! # Known limits
//!
//! This is a rule-and-table check, not a meaning check. Pinned by the fixture corpus:
//!
//! * **Paraphrases** outside the tables are not understood: "I filed a ticket" claims nothing
//!   ("filed" is not read as a verb) and "got rid of the branch" does not match
//!   `delete_branch`.
//! * **Objects a tool's schema does not name**: "the Bluetooth Speaker was exchanged" is not
//!   backed by `modify_pending_order_items` (no word of the call says speaker).
//! * **No accent folding**: "resume" and "résumé" are different tokens.
//! * **Key words used as plain nouns** read the next word as a stated value ("the body explains
//!   the fix" states `body = explains`).
//! * A value stated **without its key** ("the weather in Fresno") is never compared.
//! * **What an executor wrote is read as what it touched**: an `execute_action` that creates an
//!   issue whose body tells of the `develop` branch backs "created the `develop` branch",
//!   though no call created one. Reading only an executor's short values would catch it, and
//!   would also flag content an agent wrote into a body ("added an impact assessment" to the
//!   issue it created), so the free text still counts.
//!
//! ```
//! use mcptest_core::eval::{check_narrative, NarrativeConfig};
//! use mcptest_core::trace::ToolCall;
//! use serde_json::json;
//!
//! let calls = vec![
//!     ToolCall::new("list_issues"),
//!     ToolCall::new("createIssue").with_args(json!({"title": "Fix flaky CI", "priority": "high"})),
//!     ToolCall::new("delete_branch").with_args(json!({"branch": "old"})),
//! ];
//! let text = "I listed the issues, created an issue with priority: low and sent the report.";
//! let report = check_narrative(text, &calls, &NarrativeConfig::default());
//!
//! assert_eq!(report.claimed_but_absent, 1);    // send_report: no such call
//! assert_eq!(report.present_but_unclaimed, 1); // delete_branch: never mentioned
//! assert_eq!(report.arg_mismatch, 1);          // priority low vs high
//! assert!(!report.gate_passed);                // a claimed-but-absent mutating action
//! assert_eq!(report.divergence_score, 0.6);    // 3 items / (3 calls + 2 claims)
//! ```

mod backing;
mod evidence;
mod grammar;
mod lexicon;
mod tokenize;

pub use evidence::ToolHint;

use crate::fasthash::{HashMap, HashSet, ShortTable, Text, same_bytes};
use crate::trace::{Run, ToolCall, split_wire_name};
use backing::{Query, Trace, Written, backing_calls};
use evidence::{Arena, Args, CallEvidence, NameFacts, Pieces};
use grammar::{Infos, NO_SPELLING, Phrases, QUOTED, RawClaim, WordInfo};
use lexicon::{has_digit, is_into_verb, is_stopword, normalize, verb_class};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt;
use std::hash::Hasher;
use std::rc::Rc;
use tokenize::{Kind, Lexed, Lexeme, lex, name_pieces};

/// The 22 mutating verbs of the documents, in their base form. A tool whose name contains one
/// as a whole token is mutating; claims are read with these and the other state-changing verbs
/// ([`state_changing_verb`]).
pub const MUTATING_VERBS: [&str; 22] = lexicon::MUTATING_VERBS;

/// The base of the state-changing verb a word is a form of (`"booked"` -> `book`), if the check
/// reads it as one: the 22 [`MUTATING_VERBS`] and the others real closing messages use
/// (book, transfer, charge, refund, upgrade, enable, reset, ...).
///
/// ```
/// use mcptest_core::eval::state_changing_verb;
/// assert_eq!(state_changing_verb("Cancelled"), Some("cancel"));
/// assert_eq!(state_changing_verb("transferred"), Some("transfer"));
/// assert_eq!(state_changing_verb("checked"), None);
/// ```
pub fn state_changing_verb(word: &str) -> Option<&'static str> {
    lexicon::mutating_base(&word.to_lowercase())
}

/// How the narrative check is configured (the suite's `narrative:` block).
///
/// ```yaml
/// narrative:
///   mutating_tools: [run_job]      # always treat run_job as a write
///   readonly_tools: [post_search]  # never treat post_search as a write (wins over mutating_tools)
///   max_divergence_score: 0.25     # also fail when the score exceeds this
///   llm_assisted: false            # advisory only; never changes the gate
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NarrativeConfig {
    /// Tool names always treated as writes (`tool` or `server__tool`).
    pub mutating_tools: Vec<String>,
    /// Tool names never treated as writes; wins over `mutating_tools`.
    pub readonly_tools: Vec<String>,
    /// A ceiling on `divergence_score` (0 to 1): the gate also fails when the score exceeds it.
    pub max_divergence_score: Option<f64>,
    /// Ask for advisory, model-assisted signal on paraphrases. Recorded in the report; it never
    /// changes `gate_passed`, and this crate calls no model.
    pub llm_assisted: bool,
}

impl NarrativeConfig {
    /// The same configuration with these names forced to be writes.
    pub fn mutating_tools<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.mutating_tools = names.into_iter().map(Into::into).collect();
        self
    }

    /// The same configuration with these names forced to be read-only.
    pub fn readonly_tools<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.readonly_tools = names.into_iter().map(Into::into).collect();
        self
    }

    /// The same configuration with a ceiling on the divergence score.
    pub fn max_divergence_score(mut self, ceiling: f64) -> Self {
        self.max_divergence_score = Some(ceiling);
        self
    }

    /// The same configuration with the advisory flag set.
    pub fn llm_assisted(mut self, on: bool) -> Self {
        self.llm_assisted = on;
        self
    }

    /// Checks the values serde cannot: the ceiling must be a number from 0 to 1.
    pub fn validate(&self) -> Result<(), String> {
        match self.max_divergence_score {
            Some(c) if !(0.0..=1.0).contains(&c) => Err(format!(
                "max_divergence_score must be a number from 0 to 1 (the score's range), found {c}"
            )),
            _ => Ok(()),
        }
    }
}

/// The three kinds of divergence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DivergenceCategory {
    /// The text claims an action no recorded call matches.
    ClaimedButAbsent,
    /// A recorded call the text never mentions.
    PresentButUnclaimed,
    /// The text states an argument value the recorded call disagrees with.
    ArgMismatch,
}

impl DivergenceCategory {
    /// The name used in reports: `claimed-but-absent`, `present-but-unclaimed`, `arg-mismatch`.
    pub fn as_str(self) -> &'static str {
        match self {
            DivergenceCategory::ClaimedButAbsent => "claimed-but-absent",
            DivergenceCategory::PresentButUnclaimed => "present-but-unclaimed",
            DivergenceCategory::ArgMismatch => "arg-mismatch",
        }
    }
}

impl fmt::Display for DivergenceCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One place where the narrative and the trace disagree. Its line for a person is
/// [`message`](Divergence::message); serialized, the item carries it as `message`.
#[derive(Clone, Serialize, Deserialize)]
#[serde(into = "record::Divergence", from = "record::Divergence")]
pub struct Divergence {
    /// Which kind of divergence.
    pub category: DivergenceCategory,
    /// True when the action (claimed-but-absent) or the call (the other two) is a write.
    pub mutating: bool,
    /// The normalized action stem, `create_issue` (claimed-but-absent and arg-mismatch).
    pub action: Option<String>,
    /// The claim as written, `created the issues` (claimed-but-absent and arg-mismatch).
    pub claimed: Option<String>,
    /// The recorded call concerned (present-but-unclaimed and arg-mismatch).
    pub call_index: Option<usize>,
    /// That call's tool name.
    pub tool: Option<String>,
    /// The argument key, as recorded (arg-mismatch).
    pub arg_key: Option<String>,
    /// The value the text states (arg-mismatch).
    pub stated_value: Option<String>,
    /// The value the call recorded (arg-mismatch).
    pub recorded_value: Option<Value>,
    /// The sentence of the claim, trimmed (claimed-but-absent and arg-mismatch).
    pub sentence: Option<String>,
    message: Message,
}

/// A divergence's line for a person: written out, or (for a call the narrative never
/// mentions, the most common item of a long trace) told from the item's own fields when it is
/// read, so a report of a thousand silent calls holds no thousand copies of their names.
#[derive(Clone)]
enum Message {
    Text(String),
    Unmentioned,
    /// A claim no call backs, told from its `action` and `claimed` when read: `looked_for` is
    /// `None` for a vague claim, else whether the object head was looked for besides the verb
    /// ([`looked_for_words`]); `tried` is the failed call that does its verb, with its tool
    /// (boxed: it is rare, and every item holds a message).
    Absent {
        looked_for: Option<bool>,
        tried: Option<Box<(usize, String)>>,
    },
}

impl Divergence {
    /// The present-but-unclaimed item of call `index`, whose tool is `tool`.
    fn unmentioned(index: usize, tool: String, mutating: bool) -> Self {
        Divergence {
            category: DivergenceCategory::PresentButUnclaimed,
            mutating,
            action: None,
            claimed: None,
            call_index: Some(index),
            tool: Some(tool),
            arg_key: None,
            stated_value: None,
            recorded_value: None,
            sentence: None,
            message: Message::Unmentioned,
        }
    }

    /// One line a person can act on: "call #3 `create_issue` (a write) is never mentioned in
    /// the narrative", "the narrative claims \"sent the report\" (action `send_report`) but no
    /// recorded call did it: ...".
    pub fn message(&self) -> Cow<'_, str> {
        match &self.message {
            Message::Text(m) => Cow::Borrowed(m),
            Message::Unmentioned => Cow::Owned(unmentioned_message(
                self.call_index.unwrap_or(0),
                self.tool.as_deref().unwrap_or(""),
                self.mutating,
            )),
            Message::Absent { looked_for, tried } => {
                let action = self.action.as_deref().unwrap_or("");
                let mut line = absent_message(
                    self.claimed.as_deref().unwrap_or(""),
                    action,
                    !self.mutating,
                    looked_for_words(action, *looked_for),
                );
                if let Some(t) = tried {
                    failed_note(&mut line, t.0, &t.1);
                }
                Cow::Owned(line)
            }
        }
    }

    /// The item as a report writes it (its message written out).
    fn record(&self) -> record::Divergence {
        self.clone().into()
    }
}

/// Two items are equal when they say the same, however their messages are held.
impl PartialEq for Divergence {
    fn eq(&self, other: &Self) -> bool {
        self.record() == other.record()
    }
}

impl fmt::Debug for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.record(), f)
    }
}

mod record {
    use super::{DivergenceCategory, Message};
    use serde::{Deserialize, Serialize};
    use serde_json::Value;

    /// A [`Divergence`](super::Divergence) as a report writes it: every field, and its message
    /// written out. Its serialized form, and (under the same name) its `Debug` form.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    pub(super) struct Divergence {
        category: DivergenceCategory,
        mutating: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        action: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        claimed: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_index: Option<usize>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arg_key: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stated_value: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        recorded_value: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sentence: Option<String>,
        message: String,
    }

    impl From<super::Divergence> for Divergence {
        fn from(d: super::Divergence) -> Self {
            let message = d.message().into_owned();
            Divergence {
                category: d.category,
                mutating: d.mutating,
                action: d.action,
                claimed: d.claimed,
                call_index: d.call_index,
                tool: d.tool,
                arg_key: d.arg_key,
                stated_value: d.stated_value,
                recorded_value: d.recorded_value,
                sentence: d.sentence,
                message,
            }
        }
    }

    impl From<Divergence> for super::Divergence {
        fn from(r: Divergence) -> Self {
            super::Divergence {
                category: r.category,
                mutating: r.mutating,
                action: r.action,
                claimed: r.claimed,
                call_index: r.call_index,
                tool: r.tool,
                arg_key: r.arg_key,
                stated_value: r.stated_value,
                recorded_value: r.recorded_value,
                sentence: r.sentence,
                message: Message::Text(r.message),
            }
        }
    }
}

/// The verdict of [`check_narrative`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NarrativeReport {
    /// `min(1, flagged / (recorded calls + claimed actions))`, 0 when both are 0.
    pub divergence_score: f64,
    /// Count of claimed-but-absent items.
    pub claimed_but_absent: usize,
    /// Count of present-but-unclaimed items.
    pub present_but_unclaimed: usize,
    /// Count of arg-mismatch items.
    pub arg_mismatch: usize,
    /// True when no claimed-but-absent action is mutating and the score is within the ceiling.
    pub gate_passed: bool,
    /// Distinct claimed actions found in the text (the score's denominator, with the calls).
    pub claimed_actions: usize,
    /// Recorded calls (the score's denominator, with the claims).
    pub recorded_calls: usize,
    /// The advisory flag, as configured; it did not take part in the verdict.
    pub llm_assisted: bool,
    /// One line per failed gate condition; empty on a pass.
    pub reasons: Vec<String>,
    /// Every divergence: claimed-but-absent, then arg-mismatch (both in the order their claims
    /// first appear in the text), then present-but-unclaimed (in call order).
    pub items: Vec<Divergence>,
}

impl fmt::Display for NarrativeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "narrative: {} (divergence {:.3}; claimed-but-absent {}, present-but-unclaimed {}, \
             arg-mismatch {})",
            if self.gate_passed { "PASS" } else { "FAIL" },
            self.divergence_score,
            self.claimed_but_absent,
            self.present_but_unclaimed,
            self.arg_mismatch
        )?;
        for item in &self.items {
            write!(f, "\n  - {}: {}", item.category, item.message())?;
        }
        Ok(())
    }
}

/// The normalized tokens of `text`, in order: what the check compares. Useful to see why a
/// sentence did or did not match.
///
/// ```
/// use mcptest_core::eval::narrative_tokens;
/// assert_eq!(narrative_tokens("Created 2 Issues"), ["create", "2", "issue"]);
/// ```
pub fn narrative_tokens(text: &str) -> Vec<String> {
    let lexed = lex(text);
    let mut spans = Vec::new();
    let mut out = Vec::new();
    for l in &lexed.lexemes {
        if matches!(l.kind, Kind::Word | Kind::Quoted) {
            spans.clear();
            name_pieces(&text[l.start()..l.end()], &mut spans);
            out.extend(spans.iter().map(|&(a, b)| {
                normalize(&text[a + l.start()..b + l.start()].to_lowercase()).into_owned()
            }));
        }
    }
    out
}

/// The normalized tokens of a tool name (`createIssues` -> `create`, `issue`).
///
/// ```
/// use mcptest_core::eval::tool_name_tokens;
/// assert_eq!(tool_name_tokens("github.createIssues"), ["github", "create", "issue"]);
/// assert_eq!(tool_name_tokens("send-email"), ["send", "email"]);
/// ```
pub fn tool_name_tokens(name: &str) -> Vec<String> {
    let mut spans = Vec::new();
    name_pieces(name, &mut spans);
    spans
        .iter()
        .map(|&(a, b)| normalize(&name[a..b].to_lowercase()).into_owned())
        .collect()
}

/// True when `call` counts as a write under `cfg`: `readonly_tools` names it (never), else
/// `mutating_tools` names it (always), else its name says so: one of the 22 base verbs as a
/// word, a state-changing verb leading the name (`book_reservation`, `transfer_to_agent`), or a
/// generic executor (`execute_sql`). [`check_narrative_with`] also reads the server's
/// annotations before the name.
///
/// ```
/// use mcptest_core::eval::{tool_is_mutating, NarrativeConfig};
/// use mcptest_core::trace::ToolCall;
/// let cfg = NarrativeConfig::default().mutating_tools(["run_job"]);
/// assert!(tool_is_mutating(&ToolCall::new("update_issue"), &cfg));
/// assert!(tool_is_mutating(&ToolCall::new("book_reservation"), &cfg));
/// assert!(!tool_is_mutating(&ToolCall::new("get_updates"), &cfg));
/// assert!(!tool_is_mutating(&ToolCall::new("get_order_details"), &cfg));
/// assert!(tool_is_mutating(&ToolCall::new("run_job"), &cfg));
/// ```
pub fn tool_is_mutating(call: &ToolCall, cfg: &NarrativeConfig) -> bool {
    let overrides = Overrides::new(cfg);
    let mut vocab = Vocab::default();
    let facts = NameFacts::new(
        &call.name,
        &mut Pieces::default(),
        &mut vocab,
        &mut Arena::default(),
    );
    overrides.mutating(call, None, facts.writes)
}

/// What the servers of a run said: the MCP annotations (`readOnlyHint`, `destructiveHint`) of
/// the tool lists a cassette recorded, and which calls they answered with an error. Without
/// annotations the name rule decides whether a call writes; a call answered with an error did
/// not do what it asked for, and backs no claim.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolHints {
    /// Per tool name: each server's hint (`None`: any server), in the order recorded.
    by_tool: HashMap<String, Vec<(Option<String>, ToolHint)>>,
    /// Per call index: true when its result is an error.
    failed: Vec<bool>,
}

impl ToolHints {
    /// No hints.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the hint of `server`'s tool `name` (`None`: any server).
    pub fn insert(&mut self, server: Option<&str>, name: &str, hint: ToolHint) {
        let servers = self.by_tool.entry(name.to_string()).or_default();
        match servers.iter_mut().find(|(s, _)| s.as_deref() == server) {
            Some((_, h)) => *h = hint,
            None => servers.push((server.map(str::to_string), hint)),
        }
    }

    /// Records that call `index` (its place in the run's calls) was answered with an error.
    pub fn mark_failed(&mut self, index: usize) {
        if self.failed.len() <= index {
            self.failed.resize(index + 1, false);
        }
        self.failed[index] = true;
    }

    /// True when call `index` was answered with an error ([`mark_failed`](Self::mark_failed)).
    pub fn failed(&self, index: usize) -> bool {
        self.failed.get(index).copied().unwrap_or(false)
    }

    /// The indices of the calls answered with an error, in order.
    pub fn failed_calls(&self) -> impl Iterator<Item = usize> + '_ {
        self.failed
            .iter()
            .enumerate()
            .filter_map(|(i, &f)| f.then_some(i))
    }

    /// The hints of a recorded run: every `tools/list` entry of its `mcp_exchanges`, each tool
    /// as `{"name": ..., "annotations": {"readOnlyHint": ..., "destructiveHint": ...}}` (a tool
    /// recorded as a plain name carries no hint), and the calls whose result `is_error`.
    pub fn from_run(run: &Run) -> Self {
        let mut hints = ToolHints::new();
        for (i, r) in run.trace.tool_results.iter().enumerate() {
            if r.is_error {
                hints.mark_failed(i);
            }
        }
        let Some(Value::Array(exchanges)) = run.extra.get("mcp_exchanges") else {
            return hints;
        };
        for x in exchanges {
            if x.get("method").and_then(Value::as_str) != Some("tools/list") {
                continue;
            }
            let server = x.get("server").and_then(Value::as_str);
            let Some(Value::Array(tools)) = x.get("tools") else {
                continue;
            };
            for t in tools {
                let (Some(name), Some(a)) = (
                    t.get("name").and_then(Value::as_str),
                    t.get("annotations").filter(|a| a.is_object()),
                ) else {
                    continue;
                };
                let hint = ToolHint {
                    read_only: a.get("readOnlyHint").and_then(Value::as_bool),
                    destructive: a.get("destructiveHint").and_then(Value::as_bool),
                };
                if hint != ToolHint::default() {
                    hints.insert(server, name, hint);
                }
            }
        }
        hints
    }

    /// The hint for a call: its server's tool first, then the tool as the first recorded list
    /// that names it says (under any server).
    pub fn get(&self, call: &ToolCall) -> Option<ToolHint> {
        if self.by_tool.is_empty() {
            return None;
        }
        let (wire_server, tool) = split_wire_name(&call.name);
        let server = call.server.as_deref().or(wire_server);
        let servers = self.by_tool.get(tool)?;
        server
            .and_then(|s| servers.iter().find(|(x, _)| x.as_deref() == Some(s)))
            .or_else(|| servers.first())
            .map(|(_, h)| *h)
    }

    /// True when no tool carries a hint (whatever calls failed).
    pub fn is_empty(&self) -> bool {
        self.by_tool.is_empty()
    }
}

/// Compares `text` (the agent's closing narrative) with the recorded `calls`. Pure and
/// deterministic; see the [module documentation](self) for the rules, the formula and the gate.
pub fn check_narrative(text: &str, calls: &[ToolCall], cfg: &NarrativeConfig) -> NarrativeReport {
    check_narrative_with(text, calls, cfg, &ToolHints::default())
}

/// [`check_narrative`] with what the servers said ([`ToolHints::from_run`]): a tool a server
/// declares read-only backs no claim and is no write; one it declares writing is a write
/// whatever its name (`readonly_tools` and `mutating_tools` still win); a call it answered with
/// an error backs no claim.
pub fn check_narrative_with(
    text: &str,
    calls: &[ToolCall],
    cfg: &NarrativeConfig,
    hints: &ToolHints,
) -> NarrativeReport {
    // A narrative written as a JSON document (`{"message": "..."}`) is read as its strings.
    let prose = json_prose(text);
    let text = prose.as_deref().unwrap_or(text);
    // Sized for the distinct words of a long narrative and of the calls' names, not for every
    // word: a text's vocabulary grows much more slowly than the text (10,000 words of a report
    // hold about 600 distinct ones, and 1,000 calls add few: their numbers and identifiers are
    // not words of it), and a map ten times too large spreads its few entries over memory the
    // check then has to fault in and miss in the cache.
    let mut vocab = Vocab::with_capacity(128 + text.len() / 128 + calls.len() / 8);
    let doc = Doc::new(text, &mut vocab);
    let overrides = Overrides::new(cfg);

    // Distinct tool names: their facts and whether the text mentions them.
    let mut name_ix: HashMap<Text<'_>, usize> = with_capacity(calls.len());
    // At most one per call; sized so they do not grow (and move) name by name.
    let mut names: Vec<NameInfo> = Vec::with_capacity(calls.len());
    let mut facts: Vec<NameFacts> = Vec::with_capacity(calls.len());
    let mut call_name = Vec::with_capacity(calls.len());
    // Calls share most pieces of their names (verbs, nouns): room for one new piece in two
    // calls, and the cache grows if they share fewer.
    let mut call_pieces = Pieces::with_capacity(calls.len() / 2);
    let mut arena = Arena::with_capacity(calls.len() * 16);
    // Sized for every top-level argument of every call: a long trace's arguments are not
    // copied as they grow.
    let arg_count = calls
        .iter()
        .map(|c| match &c.args {
            Some(Value::Object(m)) => m.len(),
            _ => 0,
        })
        .sum();
    let mut args = Args::with_capacity(calls.len(), arg_count);
    // Each call's name and arguments are read in one pass, while they are at hand.
    let mut evidence: Vec<CallEvidence> = Vec::with_capacity(calls.len());
    for (i, c) in calls.iter().enumerate() {
        let n = *name_ix.entry(Text(&c.name)).or_insert_with(|| {
            let f = NameFacts::new(&c.name, &mut call_pieces, &mut vocab, &mut arena);
            names.push(NameInfo::new(&f, &arena, &doc.in_text));
            facts.push(f);
            names.len() - 1
        });
        call_name.push(n);
        let f = &facts[n];
        let (mutating, declared_readonly) = overrides.declared(c, hints, f.writes);
        // A call declared read-only, or answered with an error, backs no claim.
        evidence.push(CallEvidence::new(
            c,
            f,
            mutating,
            !declared_readonly && !hints.failed(i),
            &mut call_pieces,
            &mut vocab,
            &mut arena,
            &mut args,
        ));
    }
    let readonly_ids: Vec<Vec<u32>> = cfg
        .readonly_tools
        .iter()
        .map(|r| vocab.name_ids(split_wire_name(r).1))
        .collect();

    // Claims, matched against the calls' evidence.
    let found = doc.claims(&mut vocab);
    let claims = &found.list;
    let update_class = vocab.class_ids("update");
    // Per claimed verb: the verbs that back it.
    let mut classes: HashMap<u32, Vec<u32>> = HashMap::default();
    for claim in claims {
        if classes.contains_key(&claim.verb) {
            continue;
        }
        let base = vocab.word(claim.verb).to_string();
        let mut class = vocab.class_ids(&base);
        class.extend(
            lexicon::one_way_class(&base)
                .iter()
                .map(|v| vocab.intern_borrowed(v)),
        );
        if is_into_verb(&base) {
            // Adding to or removing from something updates it ("added a bag" by
            // `update_reservation_baggages`).
            class.extend_from_slice(&update_class);
        }
        classes.insert(claim.verb, class);
    }
    // Each claim's object words, with the other words tools name those things by: one buffer,
    // a range per claim.
    let mut object_words: Vec<u32> = Vec::with_capacity(claims.len() * 4);
    let object_ranges: Vec<(usize, usize)> = claims
        .iter()
        .map(|claim| {
            let first = object_words.len();
            let words = &mut object_words;
            words.extend_from_slice(found.object(claim));
            if !found.object(claim).is_empty() {
                let extra = lexicon::action_synonyms(vocab.word(claim.verb));
                words.extend(extra.iter().map(|w| vocab.intern_borrowed(w)));
            }
            // Updating a part of a page updates the page ("Toronto Guide page updated" by
            // `update_a_block`).
            if let Some(h) = claim.head {
                let parts = lexicon::held_parts(vocab.word(h));
                if !parts.is_empty() && verb_class(vocab.word(claim.verb)).contains(&"update") {
                    words.extend(parts.iter().map(|w| vocab.intern_borrowed(w)));
                }
            }
            for &o in found.object(claim) {
                let synonyms = lexicon::object_synonyms(vocab.word(o));
                words.extend(
                    synonyms
                        .iter()
                        .map(|w| vocab.intern_borrowed(w))
                        .filter(|&w| w != o),
                );
            }
            (first, words.len())
        })
        .collect();
    // Some claims are also backed by other verbs, by what their object is
    // ([`lexicon::object_class`]): creating a part updates what holds it ("created a new heading
    // block" by `API-patch-block-children`), a branch merged forward is updated itself, and a
    // workflow is activated by putting it in place.
    let create = vocab.intern_borrowed("create");
    let own_class: Vec<Option<Vec<u32>>> = claims
        .iter()
        .map(|claim| {
            let class = classes.get(&claim.verb).map_or(&[][..], Vec::as_slice);
            let base = vocab.word(claim.verb);
            let mut extra: Vec<&'static str> =
                lexicon::object_class(base, found.object(claim).iter().map(|&o| vocab.word(o)))
                    .to_vec();
            if claim.loose && class.contains(&create) {
                extra.push("update");
            }
            if extra.is_empty() {
                return None;
            }
            let mut own = class.to_vec();
            for v in extra {
                if v == "update" {
                    own.extend_from_slice(&update_class);
                } else {
                    own.push(vocab.intern_borrowed(v));
                }
            }
            Some(own)
        })
        .collect();
    let queries: Vec<Query<'_>> = claims
        .iter()
        .zip(&object_ranges)
        .zip(&own_class)
        .map(|((claim, &(from, to)), own)| Query {
            class: own
                .as_deref()
                .or_else(|| classes.get(&claim.verb).map(Vec::as_slice))
                .unwrap_or(&[]),
            // A verb of money, of saying what was said or of telling someone is checked on
            // its verb alone.
            object: if claim.verb_alone(&vocab) {
                &[]
            } else {
                &object_words[from..to]
            },
            head: claim.head,
            target: found.target(claim),
            vague: claim.vague,
            any_write: !lexicon::is_base_mutating_verb(vocab.word(claim.verb)),
            part: claim.loose,
            named_things: claim.listed
                || found
                    .object(claim)
                    .iter()
                    .any(|&o| has_digit(vocab.word(o))),
            outcome: if lexicon::is_outcome_verb(vocab.word(claim.verb)) {
                found.object(claim)
            } else {
                &[]
            },
            written: Written {
                text: doc.text,
                start: claim.first.start,
                end: claim.first.end,
                sentence_end: doc.lexed.sentences[claim.first.sentence].end,
            },
        })
        .collect();
    let matched = backing_calls(
        &queries,
        &update_class,
        Trace {
            calls,
            evidence: &mut evidence,
            arena: &mut arena,
            pieces: &mut call_pieces,
            vocab: &mut vocab,
        },
    );
    // A claim with no object repeats a backed claim of its verb ("migrated all 200 customer
    // records ... - Migrated from the provided table"): the same action, told again.
    let mut matched = matched;
    let repeats: Vec<usize> = (0..claims.len())
        .filter(|&ci| {
            matched[ci].is_empty() && found.object(&claims[ci]).is_empty() && !claims[ci].vague
        })
        .collect();
    if !repeats.is_empty() {
        let mut backed_verb: HashMap<u32, usize> = HashMap::default();
        for (ci, claim) in claims.iter().enumerate() {
            if !matched[ci].is_empty() {
                backed_verb.entry(claim.verb).or_insert(ci);
            }
        }
        for ci in repeats {
            if let Some(&other) = backed_verb.get(&claims[ci].verb) {
                matched[ci] = matched[other].clone();
            }
        }
    }
    for m in &matched {
        for &i in m {
            names[call_name[i]].claimed = true;
        }
    }
    // Sized for the usual worst case (every claim absent, every call silent): a long trace
    // does not copy its report as it grows.
    let mut items = Vec::with_capacity(calls.len() + claims.len());
    // claimed-but-absent
    let mut gate_reasons = Vec::new();
    for (ci, (claim, m)) in claims.iter().zip(&matched).enumerate() {
        if !m.is_empty() {
            continue;
        }
        let object = found.object(claim);
        let readonly = !object.is_empty()
            && readonly_ids
                .iter()
                .any(|r| r.contains(&claim.verb) && object.iter().any(|o| r.contains(o)));
        let action = claim.action(&vocab);
        let claimed = doc.span_text(claim.first.start, claim.first.end);
        let sentence = doc.sentence_text(claim.first.sentence);
        // Whether the class's verb was looked for on the object head too (neither for a vague
        // claim, which any state-changing call backs), and a call that does the claimed verb but
        // was answered with an error (the claim tells of an attempt that failed). The line is
        // told from the item when it is read.
        let looked_for = (!claim.vague).then(|| claim.head.is_some() && !claim.verb_alone(&vocab));
        let tried = if claim.vague {
            None
        } else {
            let class = queries[ci].class;
            hints.failed_calls().find(|&i| {
                evidence
                    .get(i)
                    .is_some_and(|e| e.actions(&arena).iter().any(|a| class.contains(a)))
            })
        };
        if !readonly {
            let mut reason = absent_reason(&claimed, &action);
            if let Some(i) = tried {
                failed_note(&mut reason, i, &calls[i].name);
            }
            gate_reasons.push(reason);
        }
        items.push(Divergence {
            category: DivergenceCategory::ClaimedButAbsent,
            mutating: !readonly,
            action: Some(action),
            claimed: Some(claimed),
            call_index: None,
            tool: None,
            arg_key: None,
            stated_value: None,
            recorded_value: None,
            sentence: Some(sentence),
            message: Message::Absent {
                looked_for,
                tried: tried.map(|i| Box::new((i, calls[i].name.clone()))),
            },
        });
    }
    // arg-mismatch
    if !args.is_empty() {
        // Per sentence, computed when a claim first needs it: its argument statements (a key,
        // then its value), each numbered by what it says (key, quoting, statement as written;
        // the comparison ignores case, so one in another case is only a second number).
        // Per sentence, its statements' range in `said` (`u32::MAX` while not read).
        let mut said_at: Vec<(u32, u32)> = vec![(u32::MAX, 0); doc.lexed.sentences.len()];
        let mut said: Vec<Said> = Vec::new();
        let keys = doc.key_spellings(&args);
        let mut statements: HashMap<(u32, bool, Text<'_>, Text<'_>), u32> = HashMap::default();
        let mut max_words: Vec<Option<usize>> = vec![None; args.key_count()];
        // Verdicts by (claim, statement), and the mismatches reported, by their lowercase
        // statement (one item per statement whatever its case).
        let mut memo: HashMap<(usize, u32), Option<(usize, usize)>> = HashMap::default();
        let mut lower = String::new();
        let mut seen: HashSet<(usize, u32, bool, String)> = HashSet::default();
        for (ci, (claim, m)) in claims.iter().zip(&matched).enumerate() {
            if m.is_empty() {
                continue;
            }
            for occ in found.tellings(claim) {
                if said_at[occ.sentence].0 == u32::MAX {
                    let s = doc.lexed.sentences[occ.sentence];
                    let first = said.len() as u32;
                    for li in s.first..s.last {
                        let Some(key) = doc.key_facts(li, &keys).and_then(|(key, _)| key) else {
                            continue;
                        };
                        let Some(v) = doc.value_after(li, s.last, &keys) else {
                            continue;
                        };
                        let vl = &doc.lexed.lexemes[v];
                        let quoted = vl.kind == Kind::Quoted;
                        // A recorded value is compared with as many words of the statement as
                        // it has, so that many words decide the verdict.
                        let rest = if quoted {
                            (vl.start(), vl.start())
                        } else {
                            let max =
                                *max_words[key as usize].get_or_insert_with(|| args.max_words(key));
                            let r = first_words(&text[vl.start()..s.end], max);
                            (vl.start(), vl.start() + r.len())
                        };
                        let next = statements.len() as u32;
                        let id = *statements
                            .entry((
                                key,
                                quoted,
                                Text(&text[vl.start()..vl.end()]),
                                Text(&text[rest.0..rest.1]),
                            ))
                            .or_insert(next);
                        said.push(Said {
                            key,
                            id,
                            quoted,
                            stated: (vl.start(), vl.end()),
                            rest,
                        });
                    }
                    said_at[occ.sentence] = (first, said.len() as u32);
                }
                let (first, end) = said_at[occ.sentence];
                for st in &said[first as usize..end as usize] {
                    let key = st.key;
                    let quoted = st.quoted;
                    let stated = &text[st.stated.0..st.stated.1];
                    let rest = &text[st.rest.0..st.rest.1];
                    let verdict = *memo
                        .entry((ci, st.id))
                        .or_insert_with(|| disagreeing_call(m, &args, key, stated, quoted, rest));
                    let Some((call, arg)) = verdict else { continue };
                    lowercase_into(stated, &mut lower);
                    if !seen.insert((ci, key, quoted, lower.clone())) {
                        continue;
                    }
                    let recorded_arg = &args.of(call)[arg];
                    let (arg_key, recorded) = (args.key_text(recorded_arg), recorded_arg.2);
                    let action = claim.action(&vocab);
                    let claimed = doc.span_text(occ.start, occ.end);
                    items.push(Divergence {
                        category: DivergenceCategory::ArgMismatch,
                        mutating: evidence[call].mutating,
                        message: Message::Text(format!(
                            "the narrative states {arg_key} = \"{stated}\" for \"{claimed}\", but \
                             call #{call} `{}` recorded {arg_key} = {recorded}",
                            calls[call].name
                        )),
                        action: Some(action),
                        claimed: Some(claimed),
                        call_index: Some(call),
                        tool: Some(calls[call].name.clone()),
                        arg_key: Some(arg_key.to_string()),
                        stated_value: Some(stated.to_string()),
                        recorded_value: Some(recorded.clone()),
                        sentence: Some(doc.sentence_text(occ.sentence)),
                    });
                }
            }
        }
    }
    // present-but-unclaimed
    for (i, c) in calls.iter().enumerate() {
        let info = &names[call_name[i]];
        if info.mentioned || info.claimed {
            continue;
        }
        items.push(Divergence::unmentioned(
            i,
            c.name.clone(),
            evidence[i].mutating,
        ));
    }
    let count = |cat| {
        items
            .iter()
            .filter(|d: &&Divergence| d.category == cat)
            .count()
    };
    let claimed_but_absent = count(DivergenceCategory::ClaimedButAbsent);
    let present_but_unclaimed = count(DivergenceCategory::PresentButUnclaimed);
    let arg_mismatch = count(DivergenceCategory::ArgMismatch);
    let denominator = calls.len() + claims.len();
    let divergence_score = if denominator == 0 {
        0.0
    } else {
        (items.len() as f64 / denominator as f64).min(1.0)
    };
    if let Some(ceiling) = cfg.max_divergence_score {
        // A NaN ceiling fails closed.
        if ceiling.is_nan() || divergence_score > ceiling {
            gate_reasons.push(format!(
                "divergence score {divergence_score:.3} is above the ceiling {ceiling} \
                 (max_divergence_score): {} of {denominator} calls and claims disagree",
                items.len()
            ));
        }
    }
    NarrativeReport {
        divergence_score,
        claimed_but_absent,
        present_but_unclaimed,
        arg_mismatch,
        gate_passed: gate_reasons.is_empty(),
        claimed_actions: claims.len(),
        recorded_calls: calls.len(),
        llm_assisted: cfg.llm_assisted,
        reasons: gate_reasons,
        items,
    }
}

/// `s` without the whitespace it opens with (as `str::trim_start`), read byte by byte while it
/// is ASCII: a sentence mostly opens with one space.
fn trim_start(s: &str) -> &str {
    let ascii = s
        .bytes()
        .position(|b| !b.is_ascii_whitespace() && b != 0x0B)
        .unwrap_or(s.len());
    match s.as_bytes().get(ascii) {
        Some(b) if !b.is_ascii() => s[ascii..].trim_start(),
        _ => &s[ascii..],
    }
}

/// True when a sentence asks: its last character other than whitespace is a question mark.
fn asks(sentence: &str) -> bool {
    match sentence
        .bytes()
        .rev()
        .find(|&b| !b.is_ascii_whitespace() && b != 0x0B)
    {
        Some(b'?') => true,
        Some(b) if !b.is_ascii() => sentence.trim_end().ends_with(['?', '\u{FF1F}']),
        _ => false,
    }
}

/// True when a sentence is an item of a Markdown list: `- `, `* `, `+ `, `• ` or `1. ` opens
/// it.
fn is_list_item(sentence: &str) -> bool {
    let t = trim_start(sentence);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        return t[digits..].starts_with(". ") || t[digits..].starts_with(") ");
    }
    ["- ", "* ", "+ ", "\u{2022} "]
        .iter()
        .any(|m| t.starts_with(m))
}

/// The head of a label, a sentence that ends with a `:`: the last word before the colon outside
/// brackets and quotes ("**Post-deployment Job (`post-deployment`):**" -> `Job`). The list under
/// a label whose head names an automation tells what the automation does when it runs, not what
/// the agent did ("Removed `in-progress` label", "Closed deployment tracking issue").
fn label_head<'t>(text: &'t str, lexemes: &[Lexeme]) -> Option<&'t str> {
    let (last, before) = lexemes.split_last()?;
    if last.kind != Kind::Sep || text.get(last.start()..last.end()) != Some(":") {
        return None;
    }
    let mut depth = 0usize;
    for l in before.iter().rev() {
        match l.kind {
            Kind::Close => depth += 1,
            Kind::Open => depth = depth.saturating_sub(1),
            Kind::Word if depth == 0 => return text.get(l.start()..l.end()),
            _ => {}
        }
    }
    None
}

/// True for a label's head that names an automation ("Job", "workflows", "Trigger").
fn names_automation(head: &str) -> bool {
    let mut lower = String::new();
    lexicon::is_automation_noun(&normalize(lowered(head, &mut lower)))
}

/// True for a line of a test report that tells what was observed ("**Actual**: ✅ Comment posted
/// successfully", beside "**Expected**: ..."): its first word is `Actual` or `Observed` and a
/// colon follows it.
fn observed_line(text: &str, lexemes: &[Lexeme]) -> bool {
    let mut words = lexemes.iter().filter(|l| l.kind != Kind::Clause);
    match (words.next(), words.next()) {
        (Some(w), Some(sep)) => {
            w.kind == Kind::Word
                && sep.kind == Kind::Sep
                && text.get(sep.start()..sep.end()) == Some(":")
                && text.get(w.start()..w.end()).is_some_and(|w| {
                    ["actual", "observed"]
                        .iter()
                        .any(|o| w.eq_ignore_ascii_case(o))
                })
        }
        _ => false,
    }
}

/// True for a label (its head `head`, its lexemes `lexemes`) whose list reports what was seen,
/// not what the agent did: it says what follows was checked ("Results Verified:",
/// "Verification:", "Checks:"), that checks were run ("Tests Conducted:"), or what a thing
/// contains ("The table contains:").
fn reports_observations(head: &str, text: &str, lexemes: &[Lexeme]) -> bool {
    is_check_word(head)
        || ["contains", "contain"]
            .iter()
            .any(|c| head.eq_ignore_ascii_case(c))
        || checks_done(head, text, lexemes)
}

/// True for a label whose head is `head` that says checks were run ("Tests Conducted:",
/// "Checks performed:"): a participle of doing after a check word.
fn checks_done(head: &str, text: &str, lexemes: &[Lexeme]) -> bool {
    const DONE: &[&str] = &[
        "conducted",
        "performed",
        "run",
        "executed",
        "done",
        "completed",
    ];
    if !DONE.iter().any(|d| head.eq_ignore_ascii_case(d)) {
        return false;
    }
    let mut words = lexemes
        .iter()
        .rev()
        .filter(|l| l.kind == Kind::Word)
        .filter_map(|l| text.get(l.start()..l.end()));
    words.next();
    words.next().is_some_and(is_check_word)
}

/// True for a word that says something was checked ("Verified", "checks", "tests").
fn is_check_word(word: &str) -> bool {
    const CHECK_WORDS: &[&str] = &[
        "verified",
        "verification",
        "verify",
        "confirmed",
        "validated",
        "validation",
        "checked",
        "checks",
        "test",
        "tests",
        "tested",
        "testing",
    ];
    CHECK_WORDS.iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// "call #3 `create_issue` (a write) is never mentioned in the narrative", built without the
/// formatting machinery (a long trace has one per call).
fn unmentioned_message(i: usize, name: &str, mutating: bool) -> String {
    let mut m = String::with_capacity(name.len() + 64);
    m.push_str("call #");
    push_decimal(&mut m, i);
    m.push_str(" `");
    m.push_str(name);
    m.push('`');
    if mutating {
        m.push_str(" (a write)");
    }
    m.push_str(" is never mentioned in the narrative");
    m
}

/// "the narrative claims \"sent the report\" (action `send_report`) but no recorded call did
/// it: none does `send` or a verb of its class to `report`", built in one allocation without
/// the formatting machinery (a long narrative can have one per claim). `looked_for` is the
/// claim's verb and the object head it was looked for on; `None` for a vague claim.
fn absent_message(
    claimed: &str,
    action: &str,
    readonly: bool,
    looked_for: Option<(&str, Option<&str>)>,
) -> String {
    const OPEN: &str = "the narrative claims \"";
    const READONLY: &str = "read-only ";
    const DID: &str = "`) but no recorded call did it: ";
    const VAGUE: &str = "none changes state";
    const DOES: &str = "none does `";
    const CLASS: &str = "` or a verb of its class";
    const TO: &str = " to `";
    let tail = match looked_for {
        None => VAGUE.len(),
        Some((verb, head)) => {
            DOES.len() + verb.len() + CLASS.len() + head.map_or(0, |h| TO.len() + h.len() + 1)
        }
    };
    let mut m = String::with_capacity(
        OPEN.len() + claimed.len() + 3 + READONLY.len() + 8 + action.len() + DID.len() + tail,
    );
    m.push_str(OPEN);
    m.push_str(claimed);
    m.push_str("\" (");
    if readonly {
        m.push_str(READONLY);
    }
    m.push_str("action `");
    m.push_str(action);
    m.push_str(DID);
    match looked_for {
        None => m.push_str(VAGUE),
        Some((verb, head)) => {
            m.push_str(DOES);
            m.push_str(verb);
            m.push_str(CLASS);
            if let Some(h) = head {
                m.push_str(TO);
                m.push_str(h);
                m.push('`');
            }
        }
    }
    m
}

/// The verb and the object head an absent claim was looked for on, read back from its action
/// (`send_report`: a verb, then `_` and the head when the head is another word; both are
/// pieces of letters and digits, [`Claim::action`]): `looked_for` says whether the head counts
/// (`None`: a vague claim). An action that is the verb alone has the verb as its head.
fn looked_for_words(action: &str, looked_for: Option<bool>) -> Option<(&str, Option<&str>)> {
    looked_for.map(|head| {
        let (verb, object) = action.split_once('_').unwrap_or((action, action));
        (verb, head.then_some(object))
    })
}

/// "claimed-but-absent mutating action `send_report` (\"sent the report\"): the trace has no
/// call that did it", the gate's reason for an absent claim, in one allocation.
fn absent_reason(claimed: &str, action: &str) -> String {
    const OPEN: &str = "claimed-but-absent mutating action `";
    const CLOSE: &str = "\"): the trace has no call that did it";
    let mut r = String::with_capacity(OPEN.len() + action.len() + 3 + claimed.len() + CLOSE.len());
    r.push_str(OPEN);
    r.push_str(action);
    r.push_str("` (\"");
    r.push_str(claimed);
    r.push_str(CLOSE);
    r
}

/// Appends to an absent claim's line that call `index` (`name`) does its verb and was answered
/// with an error: "; call #7 `create_file` does it and was answered with an error".
fn failed_note(line: &mut String, index: usize, name: &str) {
    line.push_str("; call #");
    push_decimal(line, index);
    line.push_str(" `");
    line.push_str(name);
    line.push_str("` does it and was answered with an error");
}

/// Appends `n` in decimal, without the formatting machinery.
fn push_decimal(out: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// The string values of a narrative that is a JSON object or array, one per line; `None` when
/// the text is not such a document or holds no string.
fn json_prose(text: &str) -> Option<String> {
    let t = text.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    let v: Value = serde_json::from_str(t).ok()?;
    let out: Vec<&str> = string_values(&v).collect();
    (!out.is_empty()).then(|| out.join("\n"))
}

/// The string values of a JSON value, nested ones included, in document order.
fn string_values(v: &Value) -> impl Iterator<Item = &str> {
    let mut stack = vec![v];
    std::iter::from_fn(move || {
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) => return Some(s.as_str()),
                Value::Array(xs) => stack.extend(xs.iter().rev()),
                Value::Object(m) => stack.extend(m.values().rev()),
                _ => {}
            }
        }
        None
    })
}

// ---------------------------------------------------------------------------------------------
// Vocabulary: normalized tokens interned as small integers.

/// An empty map with room for `n` entries.
fn with_capacity<K, V>(n: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(n, Default::default())
}

/// A vocabulary word: borrowed from the narrative, the calls or the lexicon when it is written
/// there as it is normalized, else owned.
#[derive(Clone)]
enum Word<'a> {
    Borrowed(&'a str),
    Owned(Rc<str>),
}

impl Word<'_> {
    fn as_str(&self) -> &str {
        match self {
            Word::Borrowed(s) => s,
            Word::Owned(s) => s,
        }
    }
}

impl std::borrow::Borrow<str> for Word<'_> {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl std::hash::Hash for Word<'_> {
    // The bytes alone (no terminator, unlike `str`'s hash): a map's keys are all words.
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write(self.as_str().as_bytes());
    }
}

impl PartialEq for Word<'_> {
    fn eq(&self, other: &Self) -> bool {
        same_bytes(self.as_str().as_bytes(), other.as_str().as_bytes())
    }
}

impl Eq for Word<'_> {}

/// Normalized words, each stored once and named by its index.
#[derive(Default)]
struct Vocab<'a> {
    ids: HashMap<Word<'a>, u32>,
    words: Vec<Word<'a>>,
    /// The id of the unknown word, once it has one.
    unknown: Option<u32>,
}

impl<'a> Vocab<'a> {
    fn with_capacity(n: usize) -> Self {
        Vocab {
            ids: with_capacity(n),
            words: Vec::with_capacity(n),
            unknown: None,
        }
    }

    /// The id of `word`, when it is in the vocabulary.
    fn id(&self, word: &str) -> Option<u32> {
        // The map's keys outlive `word`; read through a shorter-lived view of it.
        let ids: &HashMap<Word<'_>, u32> = &self.ids;
        ids.get(&Word::Borrowed(word)).copied()
    }

    fn intern(&mut self, word: &str) -> u32 {
        match self.id(word) {
            Some(id) => id,
            None => self.intern_word(Word::Owned(Rc::from(word))),
        }
    }

    /// [`intern`](Self::intern) without a copy of a word that lives as long as the vocabulary.
    fn intern_borrowed(&mut self, word: &'a str) -> u32 {
        self.intern_word(Word::Borrowed(word))
    }

    fn intern_word(&mut self, word: Word<'a>) -> u32 {
        let next = self.words.len() as u32;
        match self.ids.entry(word) {
            std::collections::hash_map::Entry::Occupied(e) => *e.get(),
            std::collections::hash_map::Entry::Vacant(e) => {
                self.words.push(e.key().clone());
                e.insert(next);
                next
            }
        }
    }

    /// The id of a raw piece's normal form, and the piece in lowercase: borrowed from the
    /// piece when it is written lowercase, else written into `lower` (a reused buffer).
    fn raw_piece<'s>(&mut self, raw: &'a str, lower: &'s mut String) -> (u32, &'s str)
    where
        'a: 's,
    {
        if has_uppercase(raw) {
            lowercase_into(raw, lower);
            let lower: &'s str = lower;
            return (self.intern(&normalize(lower)), lower);
        }
        let id = match normalize(raw) {
            Cow::Borrowed(w) => self.intern_borrowed(w),
            Cow::Owned(w) => self.intern(&w),
        };
        (id, raw)
    }

    fn name_ids(&mut self, name: &'a str) -> Vec<u32> {
        let mut spans = Vec::new();
        let mut lower = String::new();
        name_pieces(name, &mut spans);
        spans
            .iter()
            .map(|&(a, b)| self.raw_piece(&name[a..b], &mut lower).0)
            .collect()
    }

    /// The ids of the verbs that back a claim made with `base` (its class; itself when none).
    fn class_ids(&mut self, base: &str) -> Vec<u32> {
        let class = verb_class(base);
        if class.is_empty() {
            vec![self.intern(base)]
        } else {
            class.iter().map(|v| self.intern(v)).collect()
        }
    }

    /// The id that stands for every number or identifier of the calls that the text does not
    /// hold: no text word, claim or kin can equal it.
    fn unknown(&mut self) -> u32 {
        match self.unknown {
            Some(id) => id,
            None => {
                let id = self.intern_borrowed("\u{0}");
                self.unknown = Some(id);
                id
            }
        }
    }

    fn word(&self, id: u32) -> &str {
        self.words.get(id as usize).map_or("", Word::as_str)
    }
}

// ---------------------------------------------------------------------------------------------
// The narrative: lexemes, tokens, sentences.

struct Doc<'t> {
    text: &'t str,
    lexed: Lexed,
    /// The normalized word ids of the pieces of each spelling, spelling after spelling.
    toks: Vec<u32>,
    /// The distinct texts of the word and quoted lexemes.
    spellings: Vec<Spelling<'t>>,
    /// Per lexeme: the index of its spelling (`NO_SPELLING` for a separator or a break).
    spelling_of: Vec<u32>,
    /// Per spelling: what the grammar knows of it as a word.
    word_info: Vec<WordInfo>,
    /// Per sentence: true when it claims nothing (a question, a table row).
    no_claims: Vec<bool>,
    /// The lexemes that are verbs as words, and the separators, in order: all the grammar
    /// reads claims from.
    verbs_and_seps: Vec<u32>,
    /// Indexed by token id: true when the token occurs in the text.
    in_text: Vec<bool>,
}

/// The size of the cache of short spellings (as a power of two): larger than the distinct
/// words of most texts, small enough to clear for each check.
const SHORT_CACHE_BITS: u32 = 10;

/// What a word between an argument key and its value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filler {
    /// A word that may be the value.
    No,
    /// Passed over (`to`, `the`, `is`).
    Skip,
    /// Leads elsewhere: no value follows (`from`, `of`, `and`).
    Stop,
}

/// Per spelling of the narrative, what it is to the argument statements (the argument key it
/// names, and what it is as filler), filled in as statements are read.
struct KeySpellings<'x> {
    args: &'x Args<'x>,
    facts: Vec<OnceCell<(Option<u32>, Filler)>>,
}

/// One distinct text of the narrative's words and quoted spans: facts computed once however
/// often it occurs.
struct Spelling<'t> {
    text: &'t str,
    /// Its range in `Doc::toks`.
    toks: (u32, u32),
    /// True once `Doc::word_info` holds its facts as a word (computed when it first occurs as
    /// one).
    read_as_word: bool,
    /// True when its one piece is all of it (`issue`, not `create_issue` or `Maria's`).
    whole: bool,
}

/// Reads each word and quoted span of a narrative to its spelling (`Doc::spellings`), computing
/// a spelling's facts once, when it first occurs.
struct Speller<'t> {
    text: &'t str,
    toks: Vec<u32>,
    spellings: Vec<Spelling<'t>>,
    word_info: Vec<WordInfo>,
    /// Spellings by text, and a direct-mapped cache of the short ones ahead of it: the cached
    /// value is the spelling with [`READ_AS_WORD`] once its facts as a word are computed.
    by_text: HashMap<Text<'t>, u32>,
    short: ShortTable<u32, SHORT_CACHE_BITS>,
    /// Pieces of spellings of more than one piece, normalized once.
    seen: HashMap<Text<'t>, u32>,
    spans: Vec<(usize, usize)>,
    lower: String,
}

/// Marks a spelling in [`Speller::short`] whose facts as a word are computed.
const READ_AS_WORD: u32 = 1 << 31;
/// Marks a spelling in [`Speller::short`] that is a verb as a word.
const VERB: u32 = 1 << 30;

impl<'t> Speller<'t> {
    fn new(text: &'t str, lexemes: usize) -> Self {
        // Distinct spellings: a long text repeats its words (540 spellings in 10,210 lexemes
        // of a 10,000-word report): room for one in sixteen, and the maps grow if a text has
        // more (a map much larger than its entries spreads them over memory the check then
        // misses in the cache). Few spellings are of more than one piece (`create_issue`).
        let distinct = lexemes / 16 + 16;
        Speller {
            text,
            toks: Vec::with_capacity(distinct * 2),
            spellings: Vec::with_capacity(distinct),
            word_info: Vec::with_capacity(distinct),
            by_text: with_capacity(distinct),
            short: ShortTable::default(),
            seen: with_capacity(16),
            spans: Vec::new(),
            lower: String::new(),
        }
    }

    /// The spelling of the word `text[a..b]`, its facts as a word computed, and whether the
    /// word is a verb. Most words were seen before, and most are short: a short one is found
    /// in the cache by its bytes read as one number, with nothing more to do.
    #[inline]
    fn word(&mut self, bytes: &[u8], a: usize, b: usize, vocab: &mut Vocab<'t>) -> (u32, bool) {
        let slot = ShortTable::<u32, SHORT_CACHE_BITS>::slot(&bytes[a..b]);
        match slot.and_then(|k| self.short.get(k)) {
            Some(v) if v & READ_AS_WORD != 0 => (v & !(READ_AS_WORD | VERB), v & VERB != 0),
            _ => self.read_word(a, b, vocab),
        }
    }

    /// The spelling of the quoted span `text[a..b]` (its facts as a word are not needed).
    fn quoted(&mut self, a: usize, b: usize, vocab: &mut Vocab<'t>) -> u32 {
        self.spelling(&self.text[a..b], vocab)
    }

    /// A word past the cache: its spelling found or made, its facts as a word computed when
    /// they are not yet, and the cache filled.
    #[inline(never)]
    fn read_word(&mut self, a: usize, b: usize, vocab: &mut Vocab<'t>) -> (u32, bool) {
        let s = &self.text[a..b];
        let sp = self.spelling(s, vocab);
        let spelling = &mut self.spellings[sp as usize];
        if !spelling.read_as_word {
            spelling.read_as_word = true;
            let one_piece = spelling.toks.1 - spelling.toks.0 == 1;
            lowercase_into(s, &mut self.lower);
            // An ASCII spelling that is one whole piece was normalized as that piece (in
            // lowercase, as here): its word is its normal form.
            let norm = if spelling.whole && s.is_ascii() {
                Cow::Borrowed(vocab.word(self.toks[spelling.toks.0 as usize]))
            } else {
                normalize(&self.lower)
            };
            self.word_info[sp as usize] = WordInfo::new(s, &self.lower, &norm, one_piece);
        }
        let verb = self.word_info[sp as usize].verb.is_some();
        // (A text of more than 2^30 spellings caches none past them: their number would
        // reach the flags.)
        if let Some(k) = ShortTable::<u32, SHORT_CACHE_BITS>::slot(s.as_bytes())
            && sp < VERB
        {
            self.short
                .set(k, sp | READ_AS_WORD | if verb { VERB } else { 0 });
        }
        (sp, verb)
    }

    /// The spelling of `s`, made when it is new: word facts depend only on the raw text, so
    /// each spelling is read once (its pieces' ids stored once in `toks`), and each distinct
    /// piece normalized once.
    fn spelling(&mut self, s: &'t str, vocab: &mut Vocab<'t>) -> u32 {
        if let Some(&sp) = self.by_text.get(&Text(s)) {
            return sp;
        }
        let first = self.toks.len() as u32;
        self.spans.clear();
        name_pieces(s, &mut self.spans);
        // Most spellings are one piece, the whole of it: the spelling is read once (it is
        // looked up in `by_text` from now on), so its piece is normalized straight away
        // instead of through the cache of pieces.
        let whole = self.spans[..] == [(0, s.len())];
        if whole {
            self.toks.push(vocab.raw_piece(s, &mut self.lower).0);
        } else {
            for &(a, b) in &self.spans {
                let raw = &s[a..b];
                let lower = &mut self.lower;
                let id = *self
                    .seen
                    .entry(Text(raw))
                    .or_insert_with(|| vocab.raw_piece(raw, lower).0);
                self.toks.push(id);
            }
        }
        self.spellings.push(Spelling {
            text: s,
            toks: (first, self.toks.len() as u32),
            read_as_word: false,
            whole,
        });
        self.word_info.push(WordInfo::default());
        let sp = self.spellings.len() as u32 - 1;
        self.by_text.insert(Text(s), sp);
        sp
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Occurrence {
    sentence: usize,
    start: usize,
    end: usize,
}

/// An argument statement of a sentence ("title: \"Fix CI\"", "priority to high").
#[derive(Clone, Copy)]
struct Said {
    /// The argument key's id.
    key: u32,
    /// Its number among the distinct statements.
    id: u32,
    /// True when the value is a quoted span.
    quoted: bool,
    /// The byte spans of the stated value and of the words it is compared with.
    stated: (usize, usize),
    rest: (usize, usize),
}

struct Claim {
    /// The claimed action's verb id.
    verb: u32,
    /// The head of its object, when it has one.
    head: Option<u32>,
    /// Every word id of its object phrase (a call touching any of them backs it): its range
    /// in [`Claims::words`].
    object: (u32, u32),
    /// The word ids of the target phrase of a verb that adds or removes ("to the reservation"):
    /// its range in [`Claims::words`].
    target: (u32, u32),
    /// Backed by any state-changing call ("processed your request").
    vague: bool,
    /// The object is the narrative's own word for a part of what a call changed ("a new
    /// entry", [`lexicon::is_part_noun`]) or a title, quoted ("created \"Q3 goals\" as a
    /// section") or in capitals, not a list of members: a call of the class backs it when no
    /// call's name or key names a word of it.
    loose: bool,
    /// The object names its members in a list after a colon.
    listed: bool,
    /// Where it is first told, and the range in [`Claims::again`] of where it is told again.
    first: Occurrence,
    more: (u32, u32),
}

/// The claims of a narrative, and where each is told again, in one list (a claim told five
/// times holds no list of its own).
struct Claims {
    list: Vec<Claim>,
    again: Vec<Occurrence>,
    /// The claims' object and target word ids, a range per phrase.
    words: Vec<u32>,
}

impl Claims {
    /// The word ids of a claim's object phrase, sorted, without repeats.
    fn object<'c>(&'c self, claim: &Claim) -> &'c [u32] {
        &self.words[claim.object.0 as usize..claim.object.1 as usize]
    }

    /// The word ids of a claim's target phrase, sorted, without repeats.
    fn target<'c>(&'c self, claim: &Claim) -> &'c [u32] {
        &self.words[claim.target.0 as usize..claim.target.1 as usize]
    }

    /// Every place claim `claim` is told, the first one first.
    fn tellings<'c>(&'c self, claim: &'c Claim) -> impl Iterator<Item = &'c Occurrence> + 'c {
        let (a, b) = claim.more;
        std::iter::once(&claim.first).chain(&self.again[a as usize..b as usize])
    }
}

impl Claim {
    /// True when the claim is checked on its verb alone ([`lexicon::verb_alone`]).
    fn verb_alone(&self, vocab: &Vocab<'_>) -> bool {
        lexicon::verb_alone(vocab.word(self.verb), self.head.map(|h| vocab.word(h)))
    }

    /// The claimed action as reported: its verb, then the head of its object when that is
    /// another word (`create_issue`). The verb (a word of the lexicon) holds no `_`, so the
    /// action reads back as verb and head ([`looked_for_words`]).
    fn action(&self, vocab: &Vocab<'_>) -> String {
        let verb = vocab.word(self.verb);
        debug_assert!(!verb.contains('_'), "a verb with `_`: {verb}");
        match self.head {
            Some(o) if o != self.verb => {
                let head = vocab.word(o);
                let mut s = String::with_capacity(verb.len() + 1 + head.len());
                s.push_str(verb);
                s.push('_');
                s.push_str(head);
                s
            }
            _ => verb.to_string(),
        }
    }
}

/// A checked narrative's lexeme buffers are kept for the next check on the thread.
impl Drop for Doc<'_> {
    fn drop(&mut self) {
        tokenize::recycle(std::mem::take(&mut self.lexed));
    }
}

impl<'t> Doc<'t> {
    #[inline(never)]
    fn new(text: &'t str, vocab: &mut Vocab<'t>) -> Self {
        let lexed = lex(text);
        let mut speller = Speller::new(text, lexed.lexemes.len());
        let mut spelling_of = Vec::with_capacity(lexed.lexemes.len());
        // The lexemes the grammar reads in turn: the words that are verbs, and the separators.
        let mut verbs_and_seps = Vec::with_capacity(lexed.lexemes.len() / 8 + 1);
        let bytes = text.as_bytes();
        for (li, l) in lexed.lexemes.iter().enumerate() {
            let sp = match l.kind {
                Kind::Word => {
                    let (sp, verb) = speller.word(bytes, l.start(), l.end(), vocab);
                    if verb {
                        verbs_and_seps.push(li as u32);
                    }
                    sp
                }
                Kind::Quoted => speller.quoted(l.start(), l.end(), vocab) | QUOTED,
                Kind::Sep => {
                    verbs_and_seps.push(li as u32);
                    NO_SPELLING
                }
                _ => NO_SPELLING,
            };
            spelling_of.push(sp);
        }
        let Speller {
            toks,
            spellings,
            word_info,
            ..
        } = speller;
        // Questions claim nothing, nor do table rows (cells describe data) or code, nor the
        // items listed under a label that names an automation (what a workflow's job does).
        // Nor do the items under a label that says they were checked ("Results Verified:",
        // "Tests Conducted:"): they report what a check saw; nor those under a label of what a
        // thing contains ("The table contains:"): they describe its content. Such a label may itself be an item; its list is the
        // items indented deeper. `verified` holds the least indentation of that list.
        let mut automation = false;
        let mut verified: Option<usize> = None;
        let no_claims = lexed
            .sentences
            .iter()
            .map(|s| {
                let t = text.get(s.start..s.end).unwrap_or("");
                let body = trim_start(t);
                let words = &lexed.lexemes[s.first..s.last];
                let listed = is_list_item(body);
                let head = label_head(text, words);
                let checked = head.is_some_and(|h| reports_observations(h, text, words));
                let under_check = if listed {
                    let indent = t.len() - t.trim_start_matches([' ', '\t']).len();
                    let under = verified.is_some_and(|v| indent >= v);
                    if !under {
                        verified = checked.then_some(indent + 1);
                    }
                    under
                } else {
                    automation = head.is_some_and(names_automation);
                    verified = checked.then_some(0);
                    false
                };
                s.code
                    || (listed && automation)
                    || under_check
                    || observed_line(text, words)
                    || asks(t)
                    || body.starts_with('|')
                    // "### Changed": a heading of one word labels the section below it.
                    || (body.starts_with('#') && words.len() == 1)
            })
            .collect();
        let mut in_text = vec![false; vocab.words.len()];
        for t in &toks {
            in_text[*t as usize] = true;
        }
        Doc {
            text,
            lexed,
            toks,
            spellings,
            spelling_of,
            word_info,
            no_claims,
            verbs_and_seps,
            in_text,
        }
    }

    /// What the grammar knows of each lexeme.
    fn infos(&self) -> Infos<'_> {
        Infos {
            spelling_of: &self.spelling_of,
            table: &self.word_info,
        }
    }

    /// The spelling index of lexeme `li`, when it has one (a word or a quoted span).
    fn spelling(&self, li: usize) -> Option<usize> {
        match self.spelling_of.get(li) {
            Some(&NO_SPELLING) | None => None,
            Some(&s) => Some((s & !QUOTED) as usize),
        }
    }

    fn lex_tokens(&self, li: usize) -> &[u32] {
        match self.spelling(li).and_then(|s| self.spellings.get(s)) {
            Some(sp) => &self.toks[sp.toks.0 as usize..sp.toks.1 as usize],
            None => &[],
        }
    }

    /// Appends the word ids of a phrase's lexemes to `out`, sorted, without repeats; returns
    /// their range there.
    fn phrase_ids(&self, lexemes: &[usize], out: &mut Vec<u32>) -> (u32, u32) {
        let start = out.len();
        for &li in lexemes {
            out.extend_from_slice(self.lex_tokens(li));
        }
        out[start..].sort_unstable();
        let mut kept = start;
        for i in start..out.len() {
            if kept == start || out[i] != out[kept - 1] {
                out[kept] = out[i];
                kept += 1;
            }
        }
        out.truncate(kept);
        (start as u32, kept as u32)
    }

    /// The claims of the text, one per distinct (verb, object head), in order of first
    /// appearance.
    fn claims(&self, vocab: &mut Vocab) -> Claims {
        let mut phrases = Phrases::default();
        let raw: Vec<RawClaim> = grammar::claims(
            self.text,
            &self.lexed.lexemes,
            &self.infos(),
            &self.verbs_and_seps,
            &self.no_claims,
            &mut phrases,
        );
        let mut out: Vec<Claim> = Vec::with_capacity(raw.len());
        let mut by_stem: HashMap<(u32, Option<u32>, bool), usize> = with_capacity(raw.len());
        // Claims told again, by claim: gathered into one list once all are read.
        let mut again: Vec<(u32, Occurrence)> = Vec::with_capacity(raw.len());
        let mut words: Vec<u32> = Vec::with_capacity(raw.len() * 4);
        for r in raw {
            let verb = vocab.intern(r.base);
            let head = r.head.and_then(|li| self.lex_tokens(li).last()).copied();
            let occ = Occurrence {
                sentence: self.lexed.lexemes[r.verb_lexeme].sentence(),
                start: r.start,
                end: r.end,
            };
            match by_stem.get(&(verb, head, r.vague)) {
                Some(&c) => again.push((c as u32, occ)),
                None => {
                    by_stem.insert((verb, head, r.vague), out.len());
                    // A part named by the narrative's own word, or a title (in capitals, as
                    // the grammar found, or quoted: not a code span, since a path or an
                    // identifier is what the calls' values hold); not the members of a list,
                    // which name the things themselves.
                    let title = |li: usize| {
                        let l = &self.lexed.lexemes[li];
                        l.kind == Kind::Quoted
                            && self.text.as_bytes().get(l.start().wrapping_sub(1)) != Some(&b'`')
                    };
                    let loose = !r.listed
                        && (r.titled
                            || phrases.get(r.object).iter().any(|&li| title(li))
                            || head.is_some_and(|h| lexicon::is_part_noun(vocab.word(h))));
                    out.push(Claim {
                        verb,
                        head,
                        object: self.phrase_ids(phrases.get(r.object), &mut words),
                        target: self.phrase_ids(phrases.get(r.target), &mut words),
                        vague: r.vague,
                        loose,
                        listed: r.listed,
                        first: occ,
                        more: (0, 0),
                    });
                }
            }
        }
        // Each claim's range of the list, in order of claims and, within one, of the text.
        let mut end = vec![0u32; out.len()];
        for &(c, _) in &again {
            end[c as usize] += 1;
        }
        let mut at = 0;
        for (claim, n) in out.iter_mut().zip(&mut end) {
            claim.more = (at, at);
            at += *n;
            *n = claim.more.0;
        }
        let mut list = vec![Occurrence::default(); again.len()];
        for (c, occ) in again {
            let next = &mut end[c as usize];
            list[*next as usize] = occ;
            *next += 1;
            out[c as usize].more.1 = *next;
        }
        Claims {
            list: out,
            again: list,
            words,
        }
    }

    /// What each spelling is to the argument statements of the text, read when a statement
    /// first asks ([`key_facts`](Self::key_facts)): only the sentences of backed claims are
    /// searched for statements, and they hold few of the text's spellings.
    fn key_spellings<'x>(&self, args: &'x Args<'x>) -> KeySpellings<'x> {
        KeySpellings {
            args,
            facts: vec![OnceCell::new(); self.spellings.len()],
        }
    }

    /// What spelling `sp` is to the argument statements: the argument key its lowercase text
    /// is, and whether it is filler between a key and its value (a stopword other than a
    /// numeral: `to`, `the`, `is`) or ends the search for one (`from`, `of`, a conjunction).
    fn spelling_key_facts(&self, sp: usize, args: &Args<'_>) -> (Option<u32>, Filler) {
        let text = self.spellings.get(sp).map_or("", |s| s.text);
        // In lowercase as `lowercase_into` writes it, borrowed when it already is.
        let lower: Cow<'_, str> = if !text.is_ascii() {
            Cow::Owned(text.chars().flat_map(char::to_lowercase).collect())
        } else if text.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(text.to_ascii_lowercase())
        } else {
            Cow::Borrowed(text)
        };
        let lower = lower.as_ref();
        // No stopword holds a digit: a number is no filler. "from" and "of" lead to another
        // thing ("labels from different categories", "status of the issue"), not to the
        // key's value, and a conjunction joins the key to another noun ("opening a branch and
        // a PR").
        let filler = if matches!(lower, "from" | "of" | "and" | "or" | "nor" | "but") {
            Filler::Stop
        } else if !has_digit(lower) && is_stopword(lower) {
            Filler::Skip
        } else {
            Filler::No
        };
        let key = if args.may_be_key(lower.len()) {
            args.key_id(lower)
        } else {
            None
        };
        (key, filler)
    }

    /// The spelling facts of word lexeme `li` ([`spelling_key_facts`](Self::spelling_key_facts)),
    /// read once per spelling.
    fn key_facts(&self, li: usize, keys: &KeySpellings<'_>) -> Option<(Option<u32>, Filler)> {
        if self.lexed.lexemes.get(li)?.kind != Kind::Word {
            return None;
        }
        let sp = self.spelling(li)?;
        let cell = keys.facts.get(sp)?;
        Some(*cell.get_or_init(|| self.spelling_key_facts(sp, keys.args)))
    }

    /// The value lexeme after key lexeme `li`: skips `:`/`=` and filler; stops at a clause
    /// break, the sentence end, or another argument key.
    fn value_after(
        &self,
        li: usize,
        sentence_end: usize,
        keys: &KeySpellings<'_>,
    ) -> Option<usize> {
        for lj in li + 1..sentence_end {
            match self.lexed.lexemes[lj].kind {
                Kind::Clause | Kind::Open | Kind::Close => return None,
                Kind::Sep => continue,
                Kind::Quoted => return Some(lj),
                Kind::Word => {
                    let (key, filler) = self.key_facts(lj, keys)?;
                    if key.is_some() {
                        return None;
                    }
                    match filler {
                        Filler::Skip => continue,
                        Filler::Stop => return None,
                        Filler::No => {}
                    }
                    // A verb form states no value ("Documentation Branch Created").
                    if self.infos()[lj].verb.is_some() {
                        return None;
                    }
                    return Some(lj);
                }
            }
        }
        None
    }

    fn span_text(&self, start: usize, end: usize) -> String {
        self.text.get(start..end).unwrap_or("").to_string()
    }

    fn sentence_text(&self, s: usize) -> String {
        const MAX: usize = 240;
        let Some(sent) = self.lexed.sentences.get(s) else {
            return String::new();
        };
        let t = self.text.get(sent.start..sent.end).unwrap_or("").trim();
        // A sentence of at most MAX bytes has at most MAX characters: only a longer one is
        // counted.
        if t.len() <= MAX || t.chars().count() <= MAX {
            t.to_string()
        } else {
            let mut s: String = t.chars().take(MAX).collect();
            s.push('\u{2026}');
            s
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tool names.

struct NameInfo {
    /// True when every salient token occurs in the text.
    mentioned: bool,
    /// True when a claim matched this name.
    claimed: bool,
}

impl NameInfo {
    /// A name is mentioned when every piece of 3 or more characters (every piece, when none is
    /// that long) occurs in the text.
    fn new(facts: &NameFacts, arena: &Arena, in_text: &[bool]) -> Self {
        let must = if facts.salient(arena).is_empty() {
            facts.ids(arena)
        } else {
            facts.salient(arena)
        };
        let seen = |id: &u32| in_text.get(*id as usize).copied().unwrap_or(false);
        NameInfo {
            mentioned: !must.is_empty() && must.iter().all(seen),
            claimed: false,
        }
    }
}

struct Overrides<'c> {
    readonly: HashSet<&'c str>,
    mutating: HashSet<&'c str>,
    readonly_wire: Vec<(&'c str, &'c str)>,
    mutating_wire: Vec<(&'c str, &'c str)>,
}

impl<'c> Overrides<'c> {
    fn new(cfg: &'c NarrativeConfig) -> Self {
        let split = |list: &'c [String]| {
            let mut plain = HashSet::default();
            let mut wire = Vec::new();
            for entry in list {
                match split_wire_name(entry) {
                    (Some(server), tool) => wire.push((server, tool)),
                    (None, tool) => {
                        plain.insert(tool);
                    }
                }
            }
            (plain, wire)
        };
        let (readonly, readonly_wire) = split(&cfg.readonly_tools);
        let (mutating, mutating_wire) = split(&cfg.mutating_tools);
        Overrides {
            readonly,
            mutating,
            readonly_wire,
            mutating_wire,
        }
    }

    /// True when the suite names no tool either way.
    fn is_empty(&self) -> bool {
        self.readonly.is_empty()
            && self.mutating.is_empty()
            && self.readonly_wire.is_empty()
            && self.mutating_wire.is_empty()
    }

    /// What `call` is declared as: whether it writes ([`mutating`](Self::mutating), with the
    /// server's annotation from `hints`), and whether it is declared read-only (by the suite,
    /// else by the server) without being forced a write. With no tool named by the suite and
    /// no annotation, a call is what its name says (`name_writes`), with nothing to look up.
    #[inline]
    fn declared(&self, call: &ToolCall, hints: &ToolHints, name_writes: bool) -> (bool, bool) {
        if self.is_empty() && hints.is_empty() {
            return (name_writes, false);
        }
        let hint = hints.get(call).and_then(|h| h.mutating());
        let mutating = self.mutating(call, hint, name_writes);
        (
            mutating,
            !mutating && (self.readonly(call) || hint == Some(false)),
        )
    }

    fn named(call: &ToolCall, plain: &HashSet<&str>, wire: &[(&str, &str)]) -> bool {
        plain.contains(call.name.as_str())
            || wire
                .iter()
                .any(|(s, t)| *t == call.name && call.server.as_deref() == Some(*s))
    }

    /// True when `readonly_tools` names the call.
    fn readonly(&self, call: &ToolCall) -> bool {
        Self::named(call, &self.readonly, &self.readonly_wire)
    }

    /// Whether the call writes: `readonly_tools`, then `mutating_tools`, then the server's
    /// annotation (`hint`), then the name rule (`name_writes`).
    fn mutating(&self, call: &ToolCall, hint: Option<bool>, name_writes: bool) -> bool {
        if self.readonly(call) {
            false
        } else if Self::named(call, &self.mutating, &self.mutating_wire) {
            true
        } else {
            hint.unwrap_or(name_writes)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Arguments.

/// The prefix of `text` that holds its first `n` words.
fn first_words(text: &str, n: usize) -> &str {
    let mut end = 0;
    for w in text.split_whitespace().take(n) {
        end = w.as_ptr() as usize - text.as_ptr() as usize + w.len();
    }
    &text[..end]
}

/// The first matched call (and its argument position) that records `key` with a value the
/// statement disagrees with, or `None` when some matched call agrees or none records the key.
fn disagreeing_call(
    matched: &[usize],
    args: &Args<'_>,
    key: u32,
    stated: &str,
    quoted: bool,
    rest: &str,
) -> Option<(usize, usize)> {
    let mut first = None;
    for &call in matched {
        let Some(pos) = args.of(call).iter().position(|a| a.0 == key) else {
            continue;
        };
        match agrees(args.of(call)[pos].2, stated, quoted, rest) {
            Some(true) => return None,
            Some(false) => {
                first = Some(first.map_or((call, pos), |f: (usize, usize)| f.min((call, pos))));
            }
            None => {}
        }
    }
    first
}

/// Whether a stated value agrees with a recorded one; `None` when they cannot be compared.
fn agrees(recorded: &Value, stated: &str, quoted: bool, rest: &str) -> Option<bool> {
    // Like is compared with like: a number or an identifier (`cus_1`, `PROJ-88`) is stated
    // only by words with a digit; "priority Urgent" says nothing of `priority: 1`, nor "a
    // customer record" of `customer: cus_1`.
    let identifier = |r: &str| has_digit(r) && !r.contains(char::is_whitespace);
    match recorded {
        Value::String(r) if identifier(r) && !has_digit(stated) => None,
        Value::String(r) => Some(same_words(r, stated) || (!quoted && starts_with_words(rest, r))),
        Value::Number(_) if !has_digit(stated) => None,
        Value::Bool(_) if !(eq_ci(stated, "true") || eq_ci(stated, "false")) => None,
        Value::Number(n) => {
            let plain: Cow<'_, str> = if stated.contains(',') {
                Cow::Owned(stated.chars().filter(|c| *c != ',').collect())
            } else {
                Cow::Borrowed(stated)
            };
            Some(match (plain.parse::<f64>(), n.as_f64()) {
                (Ok(x), Some(y)) => x == y,
                _ => eq_ci(&n.to_string(), stated),
            })
        }
        Value::Bool(b) => Some(eq_ci(stated, if *b { "true" } else { "false" })),
        Value::Array(xs) => {
            let mut comparable = false;
            for x in xs {
                match agrees(x, stated, quoted, rest) {
                    Some(true) => return Some(true),
                    Some(false) => comparable = true,
                    None => {}
                }
            }
            comparable.then_some(false)
        }
        Value::Null | Value::Object(_) => None,
    }
}

/// `s` in lowercase: itself when it has no capital, else written into `buf`.
fn lowered<'s>(s: &'s str, buf: &'s mut String) -> &'s str {
    if has_uppercase(s) {
        lowercase_into(s, buf);
        buf
    } else {
        s
    }
}

/// True when `s` has an uppercase letter. A word of up to eight bytes is read as one number;
/// a longer one byte by byte while it is ASCII. Characters are decoded only past the first
/// byte that is not ASCII.
fn has_uppercase(s: &str) -> bool {
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    if s.len() <= 8 {
        // Every byte is in `x` (some twice) and the rest is zero bytes, which are neither.
        let x = crate::fasthash::short_word(s.as_bytes());
        if x & HIGH == 0 {
            return tokenize::bytes_in(x, b'A', b'Z') != 0;
        }
    }
    match s
        .bytes()
        .position(|b| b.is_ascii_uppercase() || !b.is_ascii())
    {
        None => false,
        Some(i) => s[i..].chars().any(char::is_uppercase),
    }
}

/// Writes the lowercase of `s` into `buf`, reusing its allocation.
fn lowercase_into(s: &str, buf: &mut String) {
    buf.clear();
    if s.is_ascii() {
        buf.push_str(s);
        buf.make_ascii_lowercase();
    } else {
        buf.extend(s.chars().flat_map(char::to_lowercase));
    }
}

fn eq_ci(a: &str, b: &str) -> bool {
    a.chars()
        .flat_map(char::to_lowercase)
        .eq(b.chars().flat_map(char::to_lowercase))
}

fn trim_punct(w: &str) -> &str {
    w.trim_end_matches([
        '.', ',', ';', ':', '!', '?', ')', '"', '\'', '\u{201D}', '\u{2019}',
    ])
}

/// Same words, ignoring case, runs of whitespace and trailing punctuation on each word.
fn same_words(a: &str, b: &str) -> bool {
    let mut x = a.split_whitespace();
    let mut y = b.split_whitespace();
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if eq_ci(trim_punct(p), trim_punct(q)) => {}
            _ => return false,
        }
    }
}

/// True when `text` begins with the words of `value` (ignoring case and trailing punctuation).
fn starts_with_words(text: &str, value: &str) -> bool {
    let mut t = text.split_whitespace();
    let mut any = false;
    for w in value.split_whitespace() {
        match t.next() {
            Some(tw) if eq_ci(trim_punct(tw), trim_punct(w)) => any = true,
            _ => return false,
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_values_are_read_in_document_order() {
        let v = serde_json::json!({"a": "x", "b": ["y", {"c": "z", "d": 1}], "e": true, "f": "w"});
        assert_eq!(string_values(&v).collect::<Vec<_>>(), ["x", "y", "z", "w"]);
        assert_eq!(string_values(&Value::Null).count(), 0);
    }

    #[test]
    fn uppercase_is_found_past_ascii_and_in_any_script() {
        for (s, upper) in [
            ("maria", false),
            ("Maria", true),
            ("issue12", false),
            ("createIssue", true),
            ("café", false),
            ("cafÉ", true),
            ("ÉTÉ", true),
            ("日本", false),
            ("", false),
        ] {
            assert_eq!(has_uppercase(s), upper, "{s}");
            assert_eq!(has_uppercase(s), s.chars().any(char::is_uppercase), "{s}");
            let mut buf = String::new();
            assert_eq!(lowered(s, &mut buf), s.to_lowercase(), "{s}");
        }
    }

    #[test]
    fn sentences_are_trimmed_and_read_as_std_trims_them() {
        for s in [
            "",
            " ",
            "  Created the issue.",
            "\t\x0B\x0C\r\n- item",
            "\u{00A0}\u{3000}Done?",
            "Really?\u{00A0}",
            "Why\u{FF1F}  ",
            "no question ",
            "?",
            " \u{2003}",
        ] {
            assert_eq!(trim_start(s), s.trim_start(), "{s:?}");
            assert_eq!(asks(s), s.trim_end().ends_with(['?', '\u{FF1F}']), "{s:?}");
        }
    }

    proptest::proptest! {
        /// Capitals are found as `char::is_uppercase` finds them, at every length and in any
        /// mix of ASCII and other letters.
        #[test]
        fn capitals_are_found_as_chars_find_them(s in "[a-zA-Z0-9_@\\[\\]`{}É日ßσΣ -]{0,20}") {
            proptest::prop_assert_eq!(has_uppercase(&s), s.chars().any(char::is_uppercase));
        }
    }

    proptest::proptest! {
        /// Read byte by byte, the trims agree with the standard ones on any text of spaces,
        /// question marks, letters and characters beyond ASCII.
        #[test]
        fn trims_agree_with_std(s in "[ \t\n\x0B\x0C\r\u{00A0}\u{2003}\u{3000}?\u{FF1F}aZé-]{0,12}") {
            proptest::prop_assert_eq!(trim_start(&s), s.trim_start());
            proptest::prop_assert_eq!(asks(&s), s.trim_end().ends_with(['?', '\u{FF1F}']));
        }
    }

    #[test]
    fn decimals_are_written_as_format_writes_them() {
        for n in [0, 7, 10, 99, 100, 1_234_567_890, usize::MAX] {
            let mut s = String::from("#");
            push_decimal(&mut s, n);
            assert_eq!(s, format!("#{n}"));
        }
    }

    #[test]
    fn list_items_and_automation_labels() {
        for item in ["- a", "  * a", "+ a", "\u{2022} a", "1. a", "12) a"] {
            assert!(is_list_item(item), "{item}");
        }
        for other in ["**Label:**", "-5 degrees", "1.5 hours", "plain text", ""] {
            assert!(!is_list_item(other), "{other}");
        }
        fn head(t: &str) -> Option<&str> {
            let l = lex(t);
            let s = l.sentences[0];
            label_head(t, &l.lexemes[s.first..s.last])
        }
        let label = |t: &str| head(t).is_some_and(names_automation);
        let checked = |t: &str| head(t).is_some_and(is_check_word);
        assert!(checked("- **✅ Results Verified**:"));
        assert!(checked("Verification (all green):"));
        assert!(!checked("Verified the results"));
        assert!(!checked("Results:"));
        assert!(label("**Post-deployment Job (`post-deployment`):**"));
        assert!(label("Trigger functions:"));
        assert!(label("The workflow [ci.yml]:"));
        // The head decides: a setup of a workflow is the agent's work.
        assert!(!label("**Workflow Setup:**"));
        assert!(!label("Actions taken:"));
        // No colon at the end: no label.
        assert!(!label("The deployment job: it runs on push"));
    }

    #[test]
    fn an_absent_claims_words_are_read_back_from_its_action() {
        assert_eq!(
            looked_for_words("send_report", Some(true)),
            Some(("send", Some("report")))
        );
        assert_eq!(
            looked_for_words("send_report", Some(false)),
            Some(("send", None))
        );
        // The verb alone: its head is the verb itself.
        assert_eq!(
            looked_for_words("close", Some(true)),
            Some(("close", Some("close")))
        );
        assert_eq!(looked_for_words("close", None), None);
    }

    /// An absent claim's line, told from its item when read, is the line the report writes, for
    /// a claim looked for on its head, on its verb alone, and a vague one.
    #[test]
    fn an_absent_claims_line_is_told_from_its_item() {
        let calls = [ToolCall::new("list_issues")];
        for (text, tail) in [
            (
                "I created an issue.",
                "none does `create` or a verb of its class to `issue`",
            ),
            ("I processed your request.", "none changes state"),
        ] {
            let r = check_narrative(text, &calls, &NarrativeConfig::default());
            let item = r
                .items
                .iter()
                .find(|d| d.category == DivergenceCategory::ClaimedButAbsent)
                .unwrap_or_else(|| panic!("{text}: {r}"));
            assert!(item.message().ends_with(tail), "{}", item.message());
            let written = serde_json::to_value(item).expect("serializes");
            assert_eq!(written["message"], item.message().as_ref());
            let back: Divergence = serde_json::from_value(written).expect("reads back");
            assert_eq!(&back, item);
        }
    }

    #[test]
    fn absent_messages_are_written_as_format_writes_them() {
        let (claimed, action) = ("sent the r\u{e9}port", "send_report");
        for readonly in [false, true] {
            for looked_for in [None, Some(("send", None)), Some(("send", Some("report")))] {
                let mut expect = format!(
                    "the narrative claims \"{claimed}\" ({}action `{action}`) but no recorded \
                     call did it: ",
                    if readonly { "read-only " } else { "" },
                );
                match looked_for {
                    None => expect.push_str("none changes state"),
                    Some((verb, head)) => {
                        expect.push_str(&format!("none does `{verb}` or a verb of its class"));
                        if let Some(h) = head {
                            expect.push_str(&format!(" to `{h}`"));
                        }
                    }
                }
                let m = absent_message(claimed, action, readonly, looked_for);
                assert_eq!(m, expect);
            }
        }
        assert_eq!(
            absent_reason(claimed, action),
            format!(
                "claimed-but-absent mutating action `{action}` (\"{claimed}\"): the trace has no \
                 call that did it"
            )
        );
    }
}
