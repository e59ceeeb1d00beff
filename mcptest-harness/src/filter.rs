//! `--exact` on a node of the name tree selects (or skips) the whole subtree.
//!
//! An IDE's "Run Test" on an agent function sends `<agent path> --exact`. No cell has that
//! name (cells are `<agent>::<stem>::run_<i>`, ...), so libtest's rule would run nothing and
//! exit 0: a green run that checked nothing. Here, when an `--exact` filter (or `--skip`)
//! names no cell but is a `::`-prefix of some, it stands for every cell below it. A name that
//! is a cell keeps libtest's meaning; nextest only ever passes cell names, so it is unaffected.

use libtest_mimic::Arguments;

/// Rewrites `args` and returns which of `names` to keep, when `--exact` names a subtree.
pub(crate) fn expand_exact(args: &mut Arguments, names: &[String]) -> Option<Vec<bool>> {
    if !args.exact {
        return None;
    }
    let is_node = |x: &str| {
        let below = format!("{x}::");
        !names.iter().any(|n| n == x) && names.iter().any(|n| n.starts_with(&below))
    };
    let under = |n: &str, x: &str| {
        n.len() > x.len() + 2 && n.starts_with(x) && n[x.len()..].starts_with("::")
    };
    let mut keep = vec![true; names.len()];
    let mut changed = false;
    if let Some(x) = args.filter.clone()
        && is_node(&x)
    {
        for (k, n) in keep.iter_mut().zip(names) {
            *k = under(n, &x);
        }
        args.filter = None;
        changed = true;
    }
    let mut skips = Vec::new();
    for s in std::mem::take(&mut args.skip) {
        if is_node(&s) {
            for (k, n) in keep.iter_mut().zip(names) {
                if under(n, &s) {
                    *k = false;
                }
            }
            changed = true;
        } else {
            skips.push(s);
        }
    }
    args.skip = skips;
    changed.then_some(keep)
}

/// True when the agent `name` can hold a cell an `--exact` filter `x` selects: `x` is the
/// agent, a cell or cassette below it, or a module above it.
pub(crate) fn may_reach(name: &str, x: &str) -> bool {
    name == x
        || (x.starts_with(name) && x[name.len()..].starts_with("::"))
        || (name.starts_with(x) && name[x.len()..].starts_with("::"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        [
            "weather::sacramento::a::run_1",
            "weather::sacramento::a::run_2",
            "weather::sacramento::b::run_1",
            "weather::sacramento_more::a::run_1",
            "triage::a::run_1",
        ]
        .map(String::from)
        .to_vec()
    }

    fn args(a: &[&str]) -> Arguments {
        Arguments::from_iter(std::iter::once("bin").chain(a.iter().copied()))
    }

    #[test]
    fn an_agent_path_selects_its_cells_only() {
        let mut a = args(&["weather::sacramento", "--exact"]);
        let keep = expand_exact(&mut a, &names()).unwrap();
        assert_eq!(keep, [true, true, true, false, false]);
        assert_eq!(a.filter, None);
    }

    #[test]
    fn a_cell_name_keeps_libtest_meaning() {
        let mut a = args(&["weather::sacramento::a::run_1", "--exact"]);
        assert_eq!(expand_exact(&mut a, &names()), None);
        assert_eq!(a.filter.as_deref(), Some("weather::sacramento::a::run_1"));
        let mut a = args(&["weather::sacramento"]);
        assert_eq!(expand_exact(&mut a, &names()), None);
    }

    #[test]
    fn skip_of_a_subtree_and_cassette_nodes() {
        let mut a = args(&["weather", "--exact", "--skip", "weather::sacramento::a"]);
        let keep = expand_exact(&mut a, &names()).unwrap();
        assert_eq!(keep, [false, false, true, true, false]);
        assert!(a.skip.is_empty());
    }

    #[test]
    fn reachability_for_the_fast_path() {
        assert!(may_reach("weather::sacramento", "weather::sacramento"));
        assert!(may_reach(
            "weather::sacramento",
            "weather::sacramento::a::run_1"
        ));
        assert!(may_reach("weather::sacramento", "weather"));
        assert!(!may_reach(
            "weather::sacramento",
            "weather::sacramento_more"
        ));
        assert!(!may_reach(
            "weather::sacramento_more",
            "weather::sacramento"
        ));
    }
}
