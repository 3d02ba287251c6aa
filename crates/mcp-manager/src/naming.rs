//! Qualified names: one collision-free namespace over many servers.
//!
//! A tool `tool` of server `server` is named `server__tool`, sanitized to
//! what LLM tool APIs accept: `^[a-zA-Z0-9_-]{1,64}$` (every other
//! character becomes `_`; the result is cut to 64 bytes).
//!
//! Sanitizing and cutting can make two names equal. Disambiguation is
//! deterministic — it depends only on the set of names, never on the order
//! servers connected in:
//! 1. Items whose candidate name is unique keep it.
//! 2. In a group sharing one candidate, the member whose name needed no
//!    change (`server__tool` verbatim) keeps it — if several, the smallest
//!    `(server, key)`; if none, the smallest `(server, key)`.
//! 3. Every other member gets `<candidate cut to 55>_<8 hex digits>`, the
//!    digits a stable hash (FNV-1a 64, independent of Rust version and
//!    platform) of its server and key; on a further clash, 16 digits, then
//!    a counter.
//!
//! The table maps each qualified name back to its `(server, key)`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Longest qualified name, in bytes: 64.
pub const MAX_NAME_LEN: usize = 64;

/// Between the server and item parts of a qualified name: `__`.
pub const SEPARATOR: &str = "__";

/// `s` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `true` when `name` matches `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// FNV-1a, 64 bits: a stable hash (fixed across Rust versions and platforms).
pub(crate) fn fnv1a64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            // separator that cannot occur in UTF-8 text
            h ^= 0xff;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        for b in *part {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The candidate name before disambiguation, and whether it is verbatim.
fn candidate(server: &str, display: &str) -> (String, bool) {
    let raw = format!("{server}{SEPARATOR}{display}");
    let mut name = sanitize(&raw);
    name.truncate(MAX_NAME_LEN); // ASCII after sanitize: byte-safe
    let exact = name == raw;
    (name, exact)
}

/// A bijection between qualified names and `(server, key)` pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameTable {
    forward: BTreeMap<String, (String, String)>,
    reverse: HashMap<(String, String), String>,
}

impl NameTable {
    /// Builds the table for `items`: `(server, key, display)`, where `key`
    /// identifies the item within its server (tool or prompt name, resource
    /// URI) and `display` is the text its name is made from (the same, or
    /// a resource's name). A repeated `(server, key)` is kept once.
    pub fn build<'a>(items: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) -> NameTable {
        let mut groups: BTreeMap<String, Vec<(bool, &str, &str)>> = BTreeMap::new();
        let mut seen = BTreeSet::new();
        for (server, key, display) in items {
            if !seen.insert((server, key)) {
                continue;
            }
            let (name, exact) = candidate(server, display);
            groups.entry(name).or_default().push((exact, server, key));
        }
        let mut table = NameTable::default();
        let mut losers = Vec::new();
        for (name, mut members) in groups {
            // exact first, then by (server, key)
            members.sort_by(|a, b| (!a.0, a.1, a.2).cmp(&(!b.0, b.1, b.2)));
            let mut it = members.into_iter();
            if let Some((_, server, key)) = it.next() {
                table.insert(name.clone(), server, key);
            }
            losers.extend(it.map(|(_, s, k)| (name.clone(), s, k)));
        }
        losers.sort_by(|a, b| (a.1, a.2).cmp(&(b.1, b.2)));
        for (name, server, key) in losers {
            let h = fnv1a64(&[server.as_bytes(), key.as_bytes()]);
            let mut attempt = 0u32;
            let qualified = loop {
                let suffix = match attempt {
                    0 => format!("_{:08x}", h >> 32),
                    1 => format!("_{h:016x}"),
                    n => format!("_{h:016x}{n}"),
                };
                let mut prefix = name.clone();
                prefix.truncate(MAX_NAME_LEN - suffix.len());
                let q = prefix + &suffix;
                if !table.forward.contains_key(&q) {
                    break q;
                }
                attempt += 1;
            };
            table.insert(qualified, server, key);
        }
        table
    }

    fn insert(&mut self, qualified: String, server: &str, key: &str) {
        self.reverse
            .insert((server.to_owned(), key.to_owned()), qualified.clone());
        self.forward
            .insert(qualified, (server.to_owned(), key.to_owned()));
    }

    /// The `(server, key)` a qualified name stands for.
    pub fn resolve(&self, qualified: &str) -> Option<(&str, &str)> {
        self.forward
            .get(qualified)
            .map(|(s, k)| (s.as_str(), k.as_str()))
    }

    /// The qualified name of `(server, key)`.
    pub fn qualified(&self, server: &str, key: &str) -> Option<&str> {
        self.reverse
            .get(&(server.to_owned(), key.to_owned()))
            .map(String::as_str)
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.forward.len()
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.forward.is_empty()
    }

    /// All `(qualified, (server, key))`, sorted by qualified name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, (&str, &str))> {
        self.forward
            .iter()
            .map(|(q, (s, k))| (q.as_str(), (s.as_str(), k.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn build(items: &[(&str, &str)]) -> NameTable {
        NameTable::build(items.iter().map(|(s, k)| (*s, *k, *k)))
    }

    #[test]
    fn plain_names() {
        let t = build(&[("fs", "read_file"), ("git", "status")]);
        assert_eq!(t.qualified("fs", "read_file"), Some("fs__read_file"));
        assert_eq!(t.resolve("git__status"), Some(("git", "status")));
        assert_eq!(t.resolve("nope"), None);
    }

    #[test]
    fn sanitizing() {
        assert_eq!(sanitize("a.b/c d-é_9"), "a_b_c_d-__9");
        let t = build(&[("my server", "get.file")]);
        assert_eq!(
            t.qualified("my server", "get.file"),
            Some("my_server__get_file")
        );
    }

    #[test]
    fn collisions_are_disambiguated_verbatim_name_wins() {
        let items = [("a", "x.y"), ("a", "x_y"), ("a", "x y")];
        let t = build(&items);
        assert_eq!(
            t.qualified("a", "x_y"),
            Some("a__x_y"),
            "verbatim keeps the plain name"
        );
        let q1 = t.qualified("a", "x.y").unwrap();
        let q2 = t.qualified("a", "x y").unwrap();
        assert_ne!(q1, q2);
        assert!(
            q1.starts_with("a__x_y_") && q1.len() == "a__x_y_".len() + 8,
            "{q1}"
        );
        for (q, (s, k)) in t.iter() {
            assert!(is_valid_name(q), "{q}");
            assert_eq!(t.qualified(s, k), Some(q));
        }
        // same answer in any order
        let mut rev = items;
        rev.reverse();
        assert_eq!(build(&rev), t);
    }

    #[test]
    fn server_name_with_separator() {
        let t = build(&[("a__b", "c"), ("a", "b__c")]);
        assert_eq!(t.len(), 2);
        let q1 = t.qualified("a__b", "c").unwrap();
        let q2 = t.qualified("a", "b__c").unwrap();
        assert_ne!(q1, q2);
        assert!([q1, q2].contains(&"a__b__c"));
    }

    #[test]
    fn long_names_are_cut_and_disambiguated() {
        let long_a = format!("{}a", "t".repeat(80));
        let long_b = format!("{}b", "t".repeat(80));
        let t = build(&[("srv", &long_a), ("srv", &long_b)]);
        let qa = t.qualified("srv", &long_a).unwrap();
        let qb = t.qualified("srv", &long_b).unwrap();
        assert_ne!(qa, qb);
        assert!(qa.len() <= 64 && qb.len() <= 64);
        assert_eq!(t.resolve(qa), Some(("srv", long_a.as_str())));
        assert_eq!(t.resolve(qb), Some(("srv", long_b.as_str())));
    }

    #[test]
    fn hash_is_stable() {
        // pinned: a change would rename users' disambiguated tools
        assert_eq!(fnv1a64(&[b"a", b"b"]), fnv1a64(&[b"a", b"b"]));
        assert_eq!(fnv1a64(&[b""]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(&[b"a"]), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(fnv1a64(&[b"ab", b"c"]), fnv1a64(&[b"a", b"bc"]));
    }

    #[test]
    fn duplicates_kept_once() {
        let t = build(&[("s", "t"), ("s", "t")]);
        assert_eq!(t.len(), 1);
    }

    proptest! {
        #[test]
        fn always_valid_unique_and_reversible(
            items in proptest::collection::vec(("[a-z._ ]{1,6}", "\\PC{0,80}"), 0..30)
        ) {
            let refs: Vec<(&str, &str)> = items.iter().map(|(s, k)| (s.as_str(), k.as_str())).collect();
            let t = build(&refs);
            let distinct: BTreeSet<_> = refs.iter().collect();
            prop_assert_eq!(t.len(), distinct.len());
            for (s, k) in &refs {
                let q = t.qualified(s, k).unwrap();
                prop_assert!(is_valid_name(q), "{}", q);
                prop_assert_eq!(t.resolve(q), Some((*s, *k)));
            }
            let mut shuffled = refs.clone();
            shuffled.reverse();
            prop_assert_eq!(build(&shuffled), t);
        }
    }
}
