//! Partial credit and edit scripts: how close a trajectory came, and what would make it pass.
//!
//! **Pairs.** A recorded call and a reference call pair up when the reference call accepts the
//! recorded one (same name, arguments of the pinned shape). Pairs are formed as the mode says:
//! in `strict` and `subsequence` they keep their order on both sides, and the longest such
//! alignment is taken (a longest common subsequence under "accepts", computed bit-parallel in
//! `O(n·m/64)`); in `unordered`, `superset` and `subset` they are a maximum one-to-one
//! matching (the same flow the verdict uses). Never greedy.
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
//! prefix and suffix; when that middle exceeds [`MAX_SCRIPT_CELLS`] pairs, a valid script that
//! may not be the shortest is given instead (positional in `strict`, greedy in `subsequence`),
//! and [`TraceValidation::edits_minimal`](super::TraceValidation::edits_minimal) says so.

use super::{ArgCheck, Classes, ExpectedCall, args_of, call_diffs};
use crate::diff::AssertionDiff;
use crate::json::canonical;
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
    classes: Classes,
    /// The class of each reference call.
    expected_class: Vec<usize>,
    calls: usize,
    words: usize,
}

/// A reusable bit row over the recorded calls.
pub(super) struct Row {
    bits: Vec<u64>,
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
            classes,
            expected_class,
            calls: recorded,
            words: recorded.div_ceil(64),
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
        let c = self.expected_class[i];
        if row.class == Some(c) {
            return;
        }
        row.bits.iter_mut().for_each(|w| *w = 0);
        for &d in &self.classes.edges[c] {
            for &j in &self.classes.recorded[d] {
                row.bits[j / 64] |= 1 << (j % 64);
            }
        }
        row.class = Some(c);
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
            // V' = (V + (V & M)) | (V & !M), with the carry running across words.
            let mut carry = 0u64;
            for (w, &m) in v.iter_mut().zip(&row.bits) {
                let u = *w & m;
                let (s1, c1) = w.overflowing_add(u);
                let (s2, c2) = s1.overflowing_add(carry);
                carry = u64::from(c1 || c2);
                *w = s2 | (*w & !m);
            }
        }
        let full = self.calls / 64;
        let mut zeros: usize = v[..full].iter().map(|w| w.count_zeros() as usize).sum();
        let rest = self.calls % 64;
        if rest > 0 {
            let mask = (1u64 << rest) - 1;
            zeros += (!v[full] & mask).count_ones() as usize;
        }
        zeros
    }
}

/// The shortest edit script for a failing ordered trajectory, and whether it is the shortest
/// (false only past [`MAX_SCRIPT_CELLS`]).
pub(super) fn edit_script(
    calls: &[ToolCall],
    expected: &[ExpectedCall],
    checks: &[ArgCheck<'_>],
    accepts: &Accepts,
    strict: bool,
) -> (Vec<EditStep>, bool) {
    let (n, m) = (expected.len(), calls.len());
    let ctx = Steps {
        calls,
        expected,
        checks,
    };
    let mut row = accepts.row();
    // In strict mode, the common prefix and suffix stay as they are.
    let (mut lo, mut hi_e, mut hi_r) = (0, n, m);
    if strict {
        while lo < n.min(m) && {
            accepts.fill(lo, &mut row);
            row.get(lo)
        } {
            lo += 1;
        }
        while hi_e > lo && hi_r > lo && {
            accepts.fill(hi_e - 1, &mut row);
            row.get(hi_r - 1)
        } {
            hi_e -= 1;
            hi_r -= 1;
        }
    }
    let (ne, nr) = (hi_e - lo, hi_r - lo);
    if (ne + 1).saturating_mul(nr + 1) > MAX_SCRIPT_CELLS {
        return (fallback(&ctx, accepts, strict), false);
    }
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
        accepts.fill(lo + i - 1, &mut row);
        cost[i * width] = i as u32;
        for j in 1..=nr {
            let hit = row.get(lo + j - 1);
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
    (steps, true)
}

/// A valid script that may not be the shortest: positional in strict mode, greedy earliest
/// match in subsequence mode.
fn fallback(ctx: &Steps<'_>, accepts: &Accepts, strict: bool) -> Vec<EditStep> {
    let (n, m) = (ctx.expected.len(), ctx.calls.len());
    let mut row = accepts.row();
    let mut steps = Vec::new();
    if strict {
        for k in 0..n.max(m) {
            match (k < n, k < m) {
                (true, true) => {
                    accepts.fill(k, &mut row);
                    if !row.get(k) {
                        steps.push(ctx.substitute(k, k));
                    }
                }
                (true, false) => steps.push(ctx.insert(k, m)),
                (false, true) => steps.push(ctx.delete(k)),
                (false, false) => {}
            }
        }
    } else {
        let mut next = 0;
        for i in 0..n {
            accepts.fill(i, &mut row);
            match (next..m).find(|&j| row.get(j)) {
                Some(j) => next = j + 1,
                None => steps.push(ctx.insert(i, next)),
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
