//! Maximum bipartite matching between *classes* of interchangeable items, and the
//! bit-parallel longest-common-subsequence step the ordered comparisons share.
//!
//! Items on each side are grouped into classes (two items are in one class when every edge
//! treats them alike: identical expected calls, identical recorded calls). The matching is then
//! a maximum flow over the class graph with the class sizes as capacities, solved by Dinic's
//! algorithm: polynomial in the number of classes, and independent of how many identical items
//! repeat. Ten thousand calls to one tool form one class, not ten thousand nodes.

use std::collections::VecDeque;

/// A class graph: `left[c]` items in left class `c`, `right[d]` in right class `d`, and
/// `edges[c]` the right classes that left class `c` may be matched to.
pub(crate) struct ClassGraph {
    pub left: Vec<usize>,
    pub right: Vec<usize>,
    pub edges: Vec<Vec<usize>>,
}

struct Arc {
    to: usize,
    cap: usize,
    rev: usize,
}

/// Solves the matching; returns, for each left class, `(right class, count)` pairs.
pub(crate) fn max_class_matching(g: &ClassGraph) -> Vec<Vec<(usize, usize)>> {
    let nl = g.left.len();
    let nr = g.right.len();
    let source = nl + nr;
    let sink = source + 1;
    let mut arcs: Vec<Vec<Arc>> = (0..nl + nr + 2).map(|_| Vec::new()).collect();
    let add = |arcs: &mut Vec<Vec<Arc>>, a: usize, b: usize, cap: usize| {
        let ra = arcs[b].len();
        let rb = arcs[a].len();
        arcs[a].push(Arc {
            to: b,
            cap,
            rev: ra,
        });
        arcs[b].push(Arc {
            to: a,
            cap: 0,
            rev: rb,
        });
    };
    for (c, &n) in g.left.iter().enumerate() {
        add(&mut arcs, source, c, n);
    }
    for (d, &n) in g.right.iter().enumerate() {
        add(&mut arcs, nl + d, sink, n);
    }
    for (c, list) in g.edges.iter().enumerate() {
        for &d in list {
            add(&mut arcs, c, nl + d, usize::MAX / 4);
        }
    }

    let n = arcs.len();
    let mut level = vec![usize::MAX; n];
    let mut iter = vec![0usize; n];
    loop {
        level.iter_mut().for_each(|l| *l = usize::MAX);
        level[source] = 0;
        let mut q = VecDeque::from([source]);
        while let Some(u) = q.pop_front() {
            for a in &arcs[u] {
                if a.cap > 0 && level[a.to] == usize::MAX {
                    level[a.to] = level[u] + 1;
                    q.push_back(a.to);
                }
            }
        }
        if level[sink] == usize::MAX {
            break;
        }
        iter.iter_mut().for_each(|i| *i = 0);
        while push(&mut arcs, &level, &mut iter, source, sink) > 0 {}
    }

    (0..nl)
        .map(|c| {
            arcs[c]
                .iter()
                .filter(|a| a.to >= nl && a.to < nl + nr)
                .filter_map(|a| {
                    // Flow on a forward arc = capacity of its reverse arc.
                    let flow = arcs[a.to][a.rev].cap;
                    (flow > 0).then_some((a.to - nl, flow))
                })
                .collect()
        })
        .collect()
}

/// Finds one blocking-flow augmenting path with an explicit stack (no recursion, so long
/// chains cannot overflow); returns the amount pushed.
fn push(
    arcs: &mut [Vec<Arc>],
    level: &[usize],
    iter: &mut [usize],
    source: usize,
    sink: usize,
) -> usize {
    // Path of (node, arc index) taken so far.
    let mut path: Vec<(usize, usize)> = Vec::new();
    let mut u = source;
    loop {
        if u == sink {
            let amount = path.iter().map(|&(v, i)| arcs[v][i].cap).min().unwrap_or(0);
            for &(v, i) in &path {
                arcs[v][i].cap -= amount;
                let (to, rev) = (arcs[v][i].to, arcs[v][i].rev);
                arcs[to][rev].cap += amount;
            }
            return amount;
        }
        let mut advanced = false;
        while iter[u] < arcs[u].len() {
            let a = &arcs[u][iter[u]];
            if a.cap > 0 && level[a.to] == level[u] + 1 {
                path.push((u, iter[u]));
                u = a.to;
                advanced = true;
                break;
            }
            iter[u] += 1;
        }
        if !advanced {
            // Dead end: retreat one step and skip the arc that led here.
            match path.pop() {
                Some((v, i)) => {
                    iter[v] = i + 1;
                    u = v;
                }
                None => return 0,
            }
        }
    }
}

/// Expands a class matching into item pairs: `left_items[c]` and `right_items[d]` list the item
/// indexes of each class; returns `assignment[left item] = Some(right item)`.
pub(crate) fn expand(
    flows: &[Vec<(usize, usize)>],
    left_items: &[Vec<usize>],
    right_items: &[Vec<usize>],
    left_len: usize,
) -> Vec<Option<usize>> {
    let mut assignment = vec![None; left_len];
    let mut right_next = vec![0usize; right_items.len()];
    for (c, list) in flows.iter().enumerate() {
        let mut left_next = 0;
        for &(d, count) in list {
            for _ in 0..count {
                let l = left_items[c][left_next];
                let r = right_items[d][right_next[d]];
                left_next += 1;
                right_next[d] += 1;
                assignment[l] = Some(r);
            }
        }
    }
    assignment
}

/// Groups items into classes: items with equal `key(index)` (a name and a hash) are compared
/// with `same` against each class's first member, so a hash collision never merges unequal
/// items. Returns the members of each class, in first-seen order.
pub(crate) fn group<'a, T>(
    items: &'a [T],
    key: impl Fn(usize) -> (&'a str, u64),
    same: impl Fn(&T, &T) -> bool,
) -> Vec<Vec<usize>> {
    let mut index: std::collections::HashMap<(&str, u64), Vec<usize>> =
        std::collections::HashMap::with_capacity(items.len());
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let bucket = index.entry(key(i)).or_default();
        match bucket.iter().find(|&&c| same(&items[members[c][0]], item)) {
            Some(&c) => members[c].push(i),
            None => {
                bucket.push(members.len());
                members.push(vec![i]);
            }
        }
    }
    members
}

/// One step of Hyyrö's bit-parallel LCS recurrence for a symbol whose match mask over the
/// other sequence is `mask`: `U = V & M; V = (V + U) | (V & !M)`, the addition carrying across
/// words. Shared by the stability LCS (symbol equality) and the trajectory's longest alignment (a
/// reference call "accepts" a recorded call).
pub(crate) fn lcs_step(v: &mut [u64], mask: &[u64]) {
    let mut carry = 0u64;
    for (w, &m) in v.iter_mut().zip(mask) {
        let u = *w & m;
        let (sum, c1) = w.overflowing_add(u);
        let (sum, c2) = sum.overflowing_add(carry);
        carry = u64::from(c1 | c2);
        *w = sum | (*w & !m);
    }
}

/// The LCS length a finished `V` holds: the zero bits among its first `len` bits.
pub(crate) fn lcs_of(v: &[u64], len: usize) -> usize {
    let ones: usize = v
        .iter()
        .enumerate()
        .map(|(w, &bits)| {
            let in_use = len.saturating_sub(w * 64).min(64);
            let mask = if in_use == 64 {
                u64::MAX
            } else {
                (1u64 << in_use) - 1
            };
            (bits & mask).count_ones() as usize
        })
        .sum();
    len - ones
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_around_a_greedy_trap() {
        // left 0 may take right 0 or 1; left 1 only right 0. Greedy 0->0 would strand left 1.
        let g = ClassGraph {
            left: vec![1, 1],
            right: vec![1, 1],
            edges: vec![vec![0, 1], vec![0]],
        };
        let flows = max_class_matching(&g);
        let a = expand(&flows, &[vec![0], vec![1]], &[vec![0], vec![1]], 2);
        assert_eq!(a, vec![Some(1), Some(0)]);
    }

    #[test]
    fn respects_class_capacities() {
        let g = ClassGraph {
            left: vec![3],
            right: vec![2],
            edges: vec![vec![0]],
        };
        let total: usize = max_class_matching(&g)[0].iter().map(|&(_, n)| n).sum();
        assert_eq!(total, 2);
    }
}
