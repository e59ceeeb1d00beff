//! A direct pairing that settles most passing unordered, superset and subset verdicts without
//! building the class graph.
//!
//! Each call on the side the mode needs covered takes the first free call on the other side
//! that it pairs with. When every call is paired, no matching can pair more, so the pairing is
//! a maximum matching; when one is left over this says nothing (a greedy pairing can miss a
//! full matching, never invent one) and the class graph decides.
//!
//! Small traces scan the other side directly. Larger ones find candidates through chains of
//! calls with the same tool name, and for exact arguments the same name and arguments, so a
//! passing trace of thousands of calls costs a few hash lookups per call. A candidate that does
//! not pair is a wasted check; past a budget linear in the trace the pairing gives up, so no
//! input makes it quadratic.

use super::{ArgCheck, args_of, call_passes};
use crate::eval::ExpectedCall;
use crate::fasthash::{FastHasher, HashMap};
use crate::json::hash_value;
use crate::trace::ToolCall;
use serde_json::Value;
use std::hash::Hasher;

/// Traces with at most this many (reference, recorded) pairs scan directly.
const DIRECT_PAIRS: usize = 512;

/// A greedy pairing that covers every reference call (`cover_expected`, for unordered and
/// superset) or every recorded call (for subset), as `assignment[i]` = the recorded call paired
/// with reference call `i`; `None` when the greedy pairing leaves a call of that side over.
pub(super) fn cover(
    calls: &[ToolCall],
    expected: &[ExpectedCall],
    checks: &[ArgCheck<'_>],
    cover_expected: bool,
) -> Option<Vec<Option<usize>>> {
    let (n, m) = (expected.len(), calls.len());
    if (cover_expected && n > m) || (!cover_expected && m > n) {
        return None;
    }
    let mut assignment = vec![None; n];
    let covered = if n.saturating_mul(m) <= DIRECT_PAIRS {
        cover_directly(calls, expected, checks, cover_expected, &mut assignment)
    } else if cover_expected {
        cover_expected_side(calls, expected, checks, &mut assignment)
    } else {
        cover_recorded_side(calls, expected, checks, &mut assignment)
    };
    covered.then_some(assignment)
}

fn cover_directly(
    calls: &[ToolCall],
    expected: &[ExpectedCall],
    checks: &[ArgCheck<'_>],
    cover_expected: bool,
    assignment: &mut [Option<usize>],
) -> bool {
    let (n, m) = (expected.len(), calls.len());
    if cover_expected {
        let mut used = [false; DIRECT_PAIRS];
        (0..n).all(|i| {
            let found =
                (0..m).find(|&j| !used[j] && call_passes(&expected[i], &checks[i], &calls[j]));
            found
                .inspect(|&j| (used[j], assignment[i]) = (true, Some(j)))
                .is_some()
        })
    } else {
        (0..m).all(|j| {
            let found = (0..n).find(|&i| {
                assignment[i].is_none() && call_passes(&expected[i], &checks[i], &calls[j])
            });
            found.inspect(|&i| assignment[i] = Some(j)).is_some()
        })
    }
}

/// Every reference call takes a free recorded call: an exact reference through the chain of
/// recorded calls with its name and arguments, any other through the chain of its name.
fn cover_expected_side(
    calls: &[ToolCall],
    expected: &[ExpectedCall],
    checks: &[ArgCheck<'_>],
    assignment: &mut [Option<usize>],
) -> bool {
    let wants_args = checks.iter().any(|c| matches!(c, ArgCheck::Exact(_)));
    let wants_names = checks.iter().any(|c| !matches!(c, ArgCheck::Exact(_)));
    let mut by_name = Chains::new(if wants_names { calls.len() } else { 0 });
    let mut by_args = Chains::new(if wants_args { calls.len() } else { 0 });
    for (j, c) in calls.iter().enumerate().rev() {
        let name = name_key(&c.name);
        if wants_names {
            by_name.push_front(name, j);
        }
        if wants_args {
            by_args.push_front(args_key(name, args_of(c)), j);
        }
    }
    let mut used = vec![false; calls.len()];
    let mut budget = Budget::new(expected.len() + calls.len());
    expected
        .iter()
        .zip(checks)
        .enumerate()
        .all(|(i, (e, check))| {
            let name = name_key(&e.name);
            let (chains, key) = match check {
                ArgCheck::Exact(v) => (&mut by_args, args_key(name, v)),
                _ => (&mut by_name, name),
            };
            chains
                .take(key, &used, &mut budget, |j| {
                    call_passes(e, check, &calls[j])
                })
                .inspect(|&j| (used[j], assignment[i]) = (true, Some(j)))
                .is_some()
        })
}

/// Every recorded call takes a free reference call: first an exact reference with its name and
/// arguments, then any other reference of its name.
fn cover_recorded_side(
    calls: &[ToolCall],
    expected: &[ExpectedCall],
    checks: &[ArgCheck<'_>],
    assignment: &mut [Option<usize>],
) -> bool {
    let mut exact = Chains::new(expected.len());
    let mut other = Chains::new(expected.len());
    for (i, (e, check)) in expected.iter().zip(checks).enumerate().rev() {
        let name = name_key(&e.name);
        match check {
            ArgCheck::Exact(v) => exact.push_front(args_key(name, v), i),
            _ => other.push_front(name, i),
        }
    }
    let any_exact = !exact.is_empty();
    let mut used = vec![false; expected.len()];
    let mut budget = Budget::new(expected.len() + calls.len());
    calls.iter().enumerate().all(|(j, c)| {
        let name = name_key(&c.name);
        let passes = |i: usize| call_passes(&expected[i], &checks[i], c);
        let exactly = any_exact
            .then(|| exact.take(args_key(name, args_of(c)), &used, &mut budget, passes))
            .flatten();
        let found = exactly.or_else(|| other.take(name, &used, &mut budget, passes));
        found
            .inspect(|&i| (used[i], assignment[i]) = (true, Some(j)))
            .is_some()
    })
}

fn name_key(name: &str) -> u64 {
    let mut h = FastHasher::default();
    h.write(name.as_bytes());
    h.finish()
}

fn args_key(name: u64, args: &Value) -> u64 {
    name ^ hash_value(args).rotate_left(21)
}

/// How many failed candidate checks the pairing may still spend.
struct Budget(usize);

impl Budget {
    fn new(calls: usize) -> Self {
        Budget(2 * calls + 64)
    }
}

const END: u32 = u32::MAX;

/// Singly linked chains of item indices by key, in the order the items were pushed to the
/// front; a taken or used item is unlinked when a walk passes it, so each is passed once.
struct Chains {
    heads: HashMap<u64, u32>,
    next: Vec<u32>,
}

impl Chains {
    /// Chains for up to `items` items (none allocated for zero).
    fn new(items: usize) -> Self {
        let mut heads = HashMap::default();
        heads.reserve(items.min(1 << 16));
        Chains {
            heads,
            next: vec![END; items],
        }
    }

    fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    fn push_front(&mut self, key: u64, item: usize) {
        let head = self.heads.entry(key).or_insert(END);
        self.next[item] = *head;
        *head = item as u32;
    }

    /// Takes the first free item of `key`'s chain that `pairs` accepts; `None` when there is
    /// none or the budget of failed checks ran out.
    fn take(
        &mut self,
        key: u64,
        used: &[bool],
        budget: &mut Budget,
        mut pairs: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        let head = self.heads.get_mut(&key)?;
        let mut prev = END;
        let mut at = *head;
        while at != END {
            let item = at as usize;
            let after = self.next[item];
            if used[item] || pairs(item) {
                // Unlink it: used now, or used earlier through another chain.
                if prev == END {
                    *head = after;
                } else {
                    self.next[prev as usize] = after;
                }
                if !used[item] {
                    return Some(item);
                }
            } else {
                budget.0 = budget.0.checked_sub(1)?;
                prev = at;
            }
            at = after;
        }
        None
    }
}
