//! "Did you mean": the one rule every front end uses to guess what a near miss meant.

/// The candidate `word` most likely meant, if any.
///
/// In order: the closest candidate by edit distance (a swap of two neighbouring characters
/// counts as one edit, so `modle` is one edit from `model`) when the distance is at most a
/// third of the word's length (at least 1); else the one candidate that `word` begins
/// (`weakest` -> `weakest_score`) or is one `_`-separated part of (`similarity` ->
/// `tool_sequence_similarity`), for words of three characters or more. Ties and several
/// possible parts give no guess rather than a wrong one.
///
/// ```
/// use mcptest_rules::suggest::did_you_mean;
/// let modes = ["strict", "subsequence", "unordered", "superset", "subset"];
/// assert_eq!(did_you_mean("subsequnce", &modes), Some("subsequence"));
/// assert_eq!(did_you_mean("weakest", &["score", "weakest_score"]), Some("weakest_score"));
/// assert_eq!(did_you_mean("banana", &modes), None);
/// ```
pub fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    let closest = candidates
        .iter()
        .map(|c| (distance(word, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d);
    if let Some((_, c)) = closest {
        return Some(c);
    }
    if word.chars().count() < 3 {
        return None;
    }
    let mut parts = candidates
        .iter()
        .filter(|c| c.starts_with(word) || c.split('_').any(|p| p == word));
    match (parts.next(), parts.next()) {
        (Some(one), None) => Some(*one),
        _ => None,
    }
}

/// `did you mean `X`? ` (with the trailing space) for a near miss, else nothing: the phrase
/// every "unknown ..." message puts before its list.
pub fn hint(word: &str, candidates: &[&str]) -> String {
    did_you_mean(word, candidates)
        .map(|s| format!("did you mean `{s}`? "))
        .unwrap_or_default()
}

/// Edit distance in Unicode scalar values, counting a swap of two neighbouring characters as
/// one edit (optimal string alignment).
///
/// ```
/// assert_eq!(mcptest_rules::suggest::distance("modle", "model"), 1);
/// assert_eq!(mcptest_rules::suggest::distance("café", "cafe"), 1);
/// ```
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: two back (for transpositions), one back, current.
    let mut two: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(two[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut two, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_prefixes_and_parts() {
        let modes = ["strict", "subsequence", "unordered", "superset", "subset"];
        assert_eq!(did_you_mean("subsequnce", &modes), Some("subsequence"));
        assert_eq!(did_you_mean("unorderd", &modes), Some("unordered"));
        assert_eq!(did_you_mean("banana", &modes), None);
        assert_eq!(did_you_mean("modle", &["model", "mode"]), Some("model"));
        let metrics = ["score", "weakest_score", "tool_sequence_similarity"];
        assert_eq!(did_you_mean("weakest", &metrics), Some("weakest_score"));
        assert_eq!(
            did_you_mean("similarity", &metrics),
            Some("tool_sequence_similarity")
        );
        // Two candidates hold the part: no guess.
        assert_eq!(did_you_mean("score", &["a_score_x", "b_score"]), None);
        // Too short to guess by part.
        assert_eq!(did_you_mean("to", &["tool_sequence"]), None);
        assert_eq!(hint("subsett", &modes), "did you mean `subset`? ");
        assert_eq!(hint("zzzzzz", &modes), "");
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("same", "same"), 0);
    }
}
