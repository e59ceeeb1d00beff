//! Partial credit and edit scripts: how close a trajectory came, and what would make it pass.
//!
//! **Pairs.** A recorded call and a reference call pair up when the reference call accepts the
//! recorded one (same name, arguments of the pinned shape). Pairs are formed as the mode says:
//! in `strict` and `subsequence` they keep their order on both sides, and the longest such
//! alignment is taken (a longest common subsequence under "accepts", computed bit-parallel in
//! `O(n·m/64)` with the recurrence the stability LCS uses); in `unordered`, `superset` and
//! `subset` they are a maximum one-to-one matching (the one the verdict uses: a greedy pairing
//! only when it already covers its side, else the flow over classes).
//!
//! **Credit.** With `matched` pairs, `R` recorded calls and `E` reference calls:
//!
//! ```text
//! precision = matched / R        (1.0 when R = 0)
//! recall    = matched / E        (1.0 when E = 0)
//! score     = 2·precision·recall / (precision + recall)   (0.0 when both are 0)
//! ```
//!
//! `score` is 1.0 exactly when every call on both sides is paired: the mode passes and nothing
//! is left over. Reference `[a, b, c]` against recorded `[a, x, c, d]` in `strict` pairs `a`
//! and `c`: precision 2/4 = 0.5, recall 2/3 = 0.667, score 0.571.
//!
//! **Edit script.** A failing ordered trajectory (`strict`, `subsequence`) also carries the
//! shortest list of [`EditStep`]s (insert a reference call, delete a recorded call, substitute
//! one recorded call by a reference call) that turns the recorded calls into a sequence that
//! passes. In `strict` every step costs 1 (a Levenshtein distance under "accepts"); in
//! `subsequence` recorded calls may stay unpaired, so deleting costs nothing and is never
//! listed, and the script has exactly `E − matched` steps. A substitution of a call by one of
//! the same name lists the argument diffs at JSON pointers into the recorded call.
//!
//! The script is computed by dynamic programming over the calls between the longest common
//! prefix and suffix (pairs that accept each other at both ends); when that middle exceeds [`MAX_SCRIPT_CELLS`] pairs, a valid script that
//! may not be the shortest is given instead (positional in `strict`, greedy in `subsequence`),
//! and [`TraceValidation::edits_minimal`](super::TraceValidation::edits_minimal) says so.

use super::{ArgCheck, Classes, ExpectedCall, args_of, call_diffs, call_passes, classes};
use crate::diff::AssertionDiff;
use crate::json::canonical;
use crate::matching::{lcs_of, lcs_step};
use crate::trace::ToolCall;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The largest middle region (reference calls × recorded calls) the shortest script is
/// computed for: 4 M pairs, 16 MB of working memory.
pub const MAX_SCRIPT_CELLS: usize = 4_000_000;

/// What one [`EditStep`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditOp {
    /// Add the reference call at `recorded_index` (before that recorded call; at the end when
    /// `None`).
    Insert,
    /// Remove the recorded call at `recorded_index`.
    Delete,
    /// Replace the recorded call at `recorded_index` by the reference call (a different tool,
    /// or the same tool with other arguments).
    Substitute,
}

impl EditOp {
    /// `insert`, `delete` or `substitute`.
    pub fn as_str(self) -> &'static str {
        match self {
            EditOp::Insert => "insert",
            EditOp::Delete => "delete",
            EditOp::Substitute => "substitute",
        }
    }
}

/// One step of an edit script that turns the recorded calls into a passing sequence.
///
/// Indices are into the recorded trace as it is (steps do not renumber each other).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditStep {
    /// What the step does.
    pub op: EditOp,
    /// The reference call inserted or substituted in (`None` for a deletion).
    pub expected_index: Option<usize>,
    /// The recorded call deleted or substituted; for an insertion, the recorded call it goes
    /// before (`None`: at the end).
    pub recorded_index: Option<usize>,
    /// For a substitution, what differs, at JSON pointers into the recorded call (`/name`,
    /// `/args/city`).
    pub diffs: Vec<AssertionDiff>,
    /// One line a person can act on.
    pub description: String,
}

impl fmt::Display for EditStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.description)?;
        for d in &self.diffs {
            write!(f, "\n    {d}")?;
        }
        Ok(())
    }
}

/// `(precision, recall, score)` for `matched` pairs among `recorded` and `reference` calls.
pub(super) fn f1(matched: usize, recorded: usize, reference: usize) -> (f64, f64, f64) {
    let ratio = |n: usize| {
        if n == 0 {
            1.0
        } else {
            matched as f64 / n as f64
        }
    };
    let (p, r) = (ratio(recorded), ratio(reference));
    let score = if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    };
    (p, r, score)
}

/// Which recorded calls each reference call accepts, as bit rows filled on demand.
pub(super) struct Accepts {
    source: Source,
    calls: usize,
    words: usize,
}

/// Where the rows come from.
enum Source {
    /// One row per reference call, computed call by call (a small region).
    Dense(Vec<u64>),
    /// The classes of identical calls, and the class of each reference call.
    Classes(Classes, Vec<usize>),
}

/// A reusable bit row over the recorded calls.
pub(super) struct Row {
    bits: Vec<u64>,
    /// The class the row was last filled for (a class-backed source reuses it).
    class: Option<usize>,
}

impl Row {
    fn get(&self, j: usize) -> bool {
        self.bits[j / 64] >> (j % 64) & 1 == 1
    }
}

impl Accepts {
    pub(super) fn new(classes: Classes, reference: usize, recorded: usize) -> Self {
        let mut expected_class = vec![0; reference];
        for (c, members) in classes.expected.iter().enumerate() {
            for &i in members {
                expected_class[i] = c;
            }
        }
        Accepts {
            source: Source::Classes(classes, expected_class),
            calls: recorded,
            words: recorded.div_ceil(64),
        }
    }

    /// The relation computed call by call (for a small region), kept as dense rows.
    pub(super) fn direct(
        calls: &[ToolCall],
        expected: &[ExpectedCall],
        checks: &[ArgCheck<'_>],
    ) -> Self {
        let words = calls.len().div_ceil(64);
        let mut dense = vec![0u64; words * expected.len()];
        for (i, e) in expected.iter().enumerate() {
            for (j, c) in calls.iter().enumerate() {
                if call_passes(e, &checks[i], c) {
                    dense[i * words + j / 64] |= 1 << (j % 64);
                }
            }
        }
        Accepts {
            source: Source::Dense(dense),
            calls: calls.len(),
            words,
        }
    }

    fn row(&self) -> Row {
        Row {
            bits: vec![0; self.words],
            class: None,
        }
    }

    /// Fills `row` with the recorded calls reference call `i` accepts (kept when the previous
    /// fill was for the same class).
    fn fill(&self, i: usize, row: &mut Row) {
        match &self.source {
            Source::Dense(rows) => {
                row.bits
                    .copy_from_slice(&rows[i * self.words..(i + 1) * self.words]);
            }
            Source::Classes(classes, expected_class) => {
                let c = expected_class[i];
                if row.class == Some(c) {
                    return;
                }
                row.bits.iter_mut().for_each(|w| *w = 0);
                for &d in &classes.edges[c] {
                    for &j in &classes.recorded[d] {
                        row.bits[j / 64] |= 1 << (j % 64);
                    }
                }
                row.class = Some(c);
            }
        }
    }

    /// The length of the longest order-preserving alignment of reference calls to recorded
    /// calls that accept each other (bit-parallel LCS, Hyyrö's formulation).
    pub(super) fn longest_alignment(&self, reference: usize) -> usize {
        if self.calls == 0 || reference == 0 {
            return 0;
        }
        let mut v = vec![u64::MAX; self.words];
        let mut row = self.row();
        for i in 0..reference {
            self.fill(i, &mut row);
            lcs_step(&mut v, &row.bits);
        }
        lcs_of(&v, self.calls)
    }
}

/// What [`explain`] found for a failing ordered trajectory.
pub(super) struct Explained {
    /// The longest order-preserving alignment.
    pub matched: usize,
    /// The shortest edit script (or a valid one past [`MAX_SCRIPT_CELLS`]).
    pub edits: Vec<EditStep>,
    /// False when `edits` may not be the shortest.
    pub minimal: bool,
}

/// Middles up to this many pairs are compared call by call; larger ones through the classes
/// of identical calls (one comparison per pair of classes).
const DIRECT_PAIRS: usize = 1 << 14;

/// The pairs and the shortest edit script of a failing ordered trajectory.
///
/// A leading (or trailing) pair that accepts each other is a match in some longest alignment
/// and some shortest script, in both modes and for any "accepts" relation (swapping it into an
/// optimal alignment never costs more), so the common prefix and suffix are set aside and only
/// the middle is compared: a run that fails at one spot costs a pass over its ends.
pub(super) fn explain(
    calls: &[ToolCall],
    expected: &[ExpectedCall],
    checks: &[ArgCheck<'_>],
    strict: bool,
) -> Explained {
    let (n, m) = (expected.len(), calls.len());
    let accepts_at = |i: usize, j: usize| call_passes(&expected[i], &checks[i], &calls[j]);
    let (mut lo, mut hi_e, mut hi_r) = (0, n, m);
    while lo < n.min(m) && accepts_at(lo, lo) {
        lo += 1;
    }
    while hi_e > lo && hi_r > lo && accepts_at(hi_e - 1, hi_r - 1) {
        hi_e -= 1;
        hi_r -= 1;
    }
    let ends = lo + (n - hi_e);
    let (mid_calls, mid_expected, mid_checks) =
        (&calls[lo..hi_r], &expected[lo..hi_e], &checks[lo..hi_e]);
    let (ne, nr) = (mid_expected.len(), mid_calls.len());
    let accepts = if ne.saturating_mul(nr) <= DIRECT_PAIRS {
        Accepts::direct(mid_calls, mid_expected, mid_checks)
    } else {
        Accepts::new(classes(mid_calls, mid_expected, mid_checks), ne, nr)
    };
    let matched = ends + accepts.longest_alignment(ne);
    let ctx = Steps {
        calls,
        expected,
        checks,
    };
    let (edits, minimal) = if (ne + 1).saturating_mul(nr + 1) > MAX_SCRIPT_CELLS {
        (fallback(&ctx, lo, &accepts, ne, nr, strict), false)
    } else {
        (script(&ctx, lo, &accepts, ne, nr, strict), true)
    };
    Explained {
        matched,
        edits,
        minimal,
    }
}

/// The shortest script over the middle (`ne` reference calls and `nr` recorded calls starting
/// at `lo` on both sides).
fn script(
    ctx: &Steps<'_>,
    lo: usize,
    accepts: &Accepts,
    ne: usize,
    nr: usize,
    strict: bool,
) -> Vec<EditStep> {
    let (calls, expected) = (ctx.calls, ctx.expected);
    let mut row = accepts.row();
    let del = u32::from(strict);
    let width = nr + 1;
    // cost[i * width + j]: the cheapest edit of recorded lo..lo+j into reference lo..lo+i.
    let mut cost = vec![0u32; (ne + 1) * width];
    let mut ok = vec![0u64; (ne * nr).div_ceil(64).max(1)];
    let accepted = |ok: &[u64], i: usize, j: usize| {
        let k = i * nr + j;
        ok[k / 64] >> (k % 64) & 1 == 1
    };
    for (j, c) in cost[..width].iter_mut().enumerate() {
        *c = del * j as u32;
    }
    for i in 1..=ne {
        accepts.fill(i - 1, &mut row);
        cost[i * width] = i as u32;
        for j in 1..=nr {
            let hit = row.get(j - 1);
            if hit {
                let k = (i - 1) * nr + j - 1;
                ok[k / 64] |= 1 << (k % 64);
            }
            let diag = cost[(i - 1) * width + j - 1] + u32::from(!hit);
            let left = cost[i * width + j - 1] + del;
            let up = cost[(i - 1) * width + j] + 1;
            cost[i * width + j] = diag.min(left).min(up);
        }
    }
    let mut steps = Vec::new();
    let (mut i, mut j) = (ne, nr);
    while i > 0 || j > 0 {
        let here = cost[i * width + j];
        let (e, r) = ((lo + i).wrapping_sub(1), (lo + j).wrapping_sub(1));
        if i > 0 && j > 0 && accepted(&ok, i - 1, j - 1) && here == cost[(i - 1) * width + j - 1] {
            i -= 1;
            j -= 1;
        } else if i > 0
            && j > 0
            && here == cost[(i - 1) * width + j - 1] + 1
            && expected[e].name == calls[r].name
        {
            steps.push(ctx.substitute(e, r));
            i -= 1;
            j -= 1;
        } else if j > 0 && here == cost[i * width + j - 1] + del {
            if strict {
                steps.push(ctx.delete(r));
            }
            j -= 1;
        } else if i > 0 && here == cost[(i - 1) * width + j] + 1 {
            steps.push(ctx.insert(e, lo + j));
            i -= 1;
        } else {
            steps.push(ctx.substitute(e, r));
            i -= 1;
            j -= 1;
        }
    }
    steps.reverse();
    steps
}

/// A valid script that may not be the shortest, over the middle: positional in strict mode,
/// greedy earliest match in subsequence mode.
fn fallback(
    ctx: &Steps<'_>,
    lo: usize,
    accepts: &Accepts,
    ne: usize,
    nr: usize,
    strict: bool,
) -> Vec<EditStep> {
    let mut row = accepts.row();
    let mut steps = Vec::new();
    if strict {
        for k in 0..ne.max(nr) {
            match (k < ne, k < nr) {
                (true, true) => {
                    accepts.fill(k, &mut row);
                    if !row.get(k) {
                        steps.push(ctx.substitute(lo + k, lo + k));
                    }
                }
                (true, false) => steps.push(ctx.insert(lo + k, lo + nr)),
                (false, true) => steps.push(ctx.delete(lo + k)),
                (false, false) => {}
            }
        }
    } else {
        let mut next = 0;
        for i in 0..ne {
            accepts.fill(i, &mut row);
            match (next..nr).find(|&j| row.get(j)) {
                Some(j) => next = j + 1,
                None => steps.push(ctx.insert(lo + i, lo + next)),
            }
        }
    }
    steps
}

/// Builds the steps' texts.
struct Steps<'a> {
    calls: &'a [ToolCall],
    expected: &'a [ExpectedCall],
    checks: &'a [ArgCheck<'a>],
}

impl Steps<'_> {
    fn recorded(&self, j: usize) -> String {
        let c = &self.calls[j];
        match &c.args {
            Some(a) => format!("recorded #{j} `{}` {}", c.name, short(a)),
            None => format!("recorded #{j} `{}`", c.name),
        }
    }

    fn insert(&self, i: usize, before: usize) -> EditStep {
        let e = &self.expected[i];
        let at = if before < self.calls.len() {
            format!("before recorded #{before} `{}`", self.calls[before].name)
        } else {
            "at the end".to_string()
        };
        EditStep {
            op: EditOp::Insert,
            expected_index: Some(i),
            recorded_index: (before < self.calls.len()).then_some(before),
            diffs: vec![],
            description: format!("insert {e} (reference #{i}) {at}"),
        }
    }

    fn delete(&self, j: usize) -> EditStep {
        EditStep {
            op: EditOp::Delete,
            expected_index: None,
            recorded_index: Some(j),
            diffs: vec![],
            description: format!("delete {}", self.recorded(j)),
        }
    }

    fn substitute(&self, i: usize, j: usize) -> EditStep {
        let e = &self.expected[i];
        let rec = &self.calls[j];
        let description = if e.name == rec.name {
            format!(
                "change the arguments of {} to match reference #{i} ({e})",
                self.recorded(j)
            )
        } else {
            format!("replace {} by {e} (reference #{i})", self.recorded(j))
        };
        let mut diffs = call_diffs(e, &self.checks[i], rec);
        if diffs.is_empty() {
            // Defensive: a substitution always changes something.
            diffs.push(AssertionDiff::new(
                "/args",
                None,
                Some(args_of(rec).clone()),
                "the arguments differ from the reference",
            ));
        }
        EditStep {
            op: EditOp::Substitute,
            expected_index: Some(i),
            recorded_index: Some(j),
            diffs,
            description,
        }
    }
}

fn short(v: &serde_json::Value) -> String {
    let s = canonical(v);
    if s.chars().count() <= 80 {
        s
    } else {
        let cut: String = s.chars().take(80).collect();
        format!("{cut}…")
    }
}
