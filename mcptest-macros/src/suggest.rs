//! "Did you mean" for near misses (the same rule as `mcptest_core::suggest`, which this crate
//! cannot depend on: a proc-macro crate builds for the host and depends on nothing of ours).

/// The closest candidate to `word` by edit distance, when it is close enough to be a typo;
/// else the one candidate that has `word` as one of its `_`-separated parts (`weakest` ->
/// `weakest_score`).
pub fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    let close = candidates
        .iter()
        .map(|c| (levenshtein(word, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c);
    close.or_else(|| {
        let mut parts = candidates
            .iter()
            .filter(|c| word.len() >= 3 && c.split('_').any(|p| p == word));
        match (parts.next(), parts.next()) {
            (Some(one), None) => Some(*one),
            _ => None,
        }
    })
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_only() {
        let modes = ["strict", "subsequence", "unordered", "superset", "subset"];
        assert_eq!(did_you_mean("subsequnce", &modes), Some("subsequence"));
        assert_eq!(did_you_mean("banana", &modes), None);
        let metrics = ["score", "weakest_score", "tool_sequence_similarity"];
        assert_eq!(did_you_mean("weakest", &metrics), Some("weakest_score"));
        assert_eq!(
            did_you_mean("similarity", &metrics),
            Some("tool_sequence_similarity")
        );
    }
}
