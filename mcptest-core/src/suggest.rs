//! "Did you mean" suggestions for unknown names.

/// The closest candidate to `word` by edit distance, when it is close enough to be a typo.
pub fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (levenshtein(word, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Edit distance in Unicode scalar values, counting a swap of two neighbouring characters as
/// one edit (optimal string alignment), so `modle` is one edit from `model`.
pub fn levenshtein(a: &str, b: &str) -> usize {
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
    fn suggests_close_names_only() {
        let modes = ["strict", "subsequence", "unordered", "superset", "subset"];
        assert_eq!(did_you_mean("subsequnce", &modes), Some("subsequence"));
        assert_eq!(did_you_mean("unorderd", &modes), Some("unordered"));
        assert_eq!(did_you_mean("banana", &modes), None);
        assert_eq!(levenshtein("café", "cafe"), 1);
        assert_eq!(levenshtein("modle", "model"), 1);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(did_you_mean("modle", &["model", "mode"]), Some("model"));
    }
}
