//! The one ordering of Claude Code versions (`2.1.41` before `2.1.238`),
//! used wherever versions are listed: `stats --by version`, `check`, a
//! transcript session's versions.
//!
//! Hand-written rather than the `semver` crate, which reads exactly three
//! numbers and no other text; versions in real files have two to four, and
//! `unknown` stands where none was written.

use std::cmp::Ordering;

/// Versions in semantic order: numbers compared as numbers (any count of
/// them), a pre-release before its release (`2.1.0-beta.2` before `2.1.0`,
/// identifiers compared as semver does), a build suffix (`+...`) ignored;
/// what is not a version (`unknown`) after every version, by its text.
///
/// ```
/// use cctape::version::version_order;
///
/// let mut v = vec!["unknown", "2.1.238", "2.1.41", "2.1.0", "2.1.0-beta.2"];
/// v.sort_by(|a, b| version_order(a, b));
/// assert_eq!(v, ["2.1.0-beta.2", "2.1.0", "2.1.41", "2.1.238", "unknown"]);
/// ```
pub fn version_order(a: &str, b: &str) -> Ordering {
    version_key(a).cmp(&version_key(b))
}

/// An ordering key: (not a version, numbers, no pre-release, pre-release
/// identifiers, text).
type VersionKey<'a> = (bool, Vec<u64>, bool, Vec<(bool, u64, &'a str)>, &'a str);

fn version_key(v: &str) -> VersionKey<'_> {
    let core = v.split_once('+').map_or(v, |c| c.0);
    let (nums, pre) = match core.split_once('-') {
        Some((n, p)) => (n, Some(p)),
        None => (core, None),
    };
    let nums: Option<Vec<u64>> = nums.split('.').map(|p| p.parse().ok()).collect();
    let Some(nums) = nums.filter(|n| !n.is_empty()) else {
        return (true, Vec::new(), false, Vec::new(), v);
    };
    // Semver: numeric identifiers before alphanumeric ones, numbers by
    // value, text by its bytes.
    let pre_ids = pre
        .map(|p| {
            p.split('.')
                .map(|id| match id.parse::<u64>() {
                    Ok(n) => (false, n, ""),
                    Err(_) => (true, 0, id),
                })
                .collect()
        })
        .unwrap_or_default();
    (false, nums, pre.is_none(), pre_ids, v)
}
