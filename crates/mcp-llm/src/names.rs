//! The names a model sees: one per tool across all servers, within the
//! dialect's character set and length, deterministic, reversible.
//!
//! A tool keeps its own name when that name is valid in the dialect and no
//! other server offers a tool of the same name. A name shared by several
//! servers becomes `server__tool` for each of them (or always, with
//! [`ServerPrefix::Always`]). The name is then reduced to the dialect's
//! character set (every other character becomes `_`) and, when longer
//! than the limit, cut.
//!
//! Disambiguation depends only on the set of `(server, tool)` pairs, never
//! on the order they were listed in, on the process or on the Rust
//! version:
//! 1. A name that had to be cut gets a suffix `_<8 hex digits>`, a stable
//!    hash (FNV-1a 64) of its server and tool, so that two long names with
//!    a common start stay apart and a cut name is recognisable.
//! 2. Among tools whose candidate names are equal, the one whose name
//!    needed no change keeps it (if several or none, the smallest
//!    `(server, tool)`); every other gets the suffix; on a further clash,
//!    16 digits, then a counter.

use std::collections::{BTreeMap, BTreeSet};

use crate::Dialect;

/// The character set and length a dialect allows in a tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameRules {
    /// Longest name, in bytes (names are ASCII).
    pub max_len: usize,
    /// Whether `.` and `:` are allowed after the first character (Gemini).
    pub dots_and_colons: bool,
    /// Whether the first character must be a letter or `_` (Gemini).
    pub letter_first: bool,
}

impl NameRules {
    /// The documented rules of `dialect` with the given length limit:
    /// OpenAI and Anthropic `^[a-zA-Z0-9_-]{1,N}$`; Gemini a letter or `_`,
    /// then `[a-zA-Z0-9_.:-]`, at most N.
    pub fn of(dialect: Dialect, max_len: usize) -> NameRules {
        let gemini = matches!(dialect, Dialect::Gemini);
        NameRules {
            max_len: max_len.max(MIN_MAX_LEN),
            dots_and_colons: gemini,
            letter_first: gemini,
        }
    }

    fn allowed(&self, c: char, first: bool) -> bool {
        if first && self.letter_first {
            return c.is_ascii_alphabetic() || c == '_';
        }
        c.is_ascii_alphanumeric()
            || c == '_'
            || c == '-'
            || (self.dots_and_colons && (c == '.' || c == ':'))
    }

    /// `true` when `name` is a valid tool name under these rules.
    pub fn is_valid(&self, name: &str) -> bool {
        !name.is_empty()
            && name.len() <= self.max_len
            && name
                .chars()
                .enumerate()
                .all(|(i, c)| self.allowed(c, i == 0))
    }

    /// `s` reduced to the character set: every other character becomes
    /// `_`; a first character that may not start a name gets a `_` before
    /// it; an empty name becomes `_`.
    pub fn sanitize(&self, s: &str) -> String {
        let mut out = String::with_capacity(s.len() + 1);
        for (i, c) in s.chars().enumerate() {
            if i == 0 && self.letter_first && !self.allowed(c, true) {
                out.push('_');
                if self.allowed(c, false) {
                    out.push(c);
                    continue;
                }
                continue;
            }
            out.push(if self.allowed(c, false) { c } else { '_' });
        }
        if out.is_empty() {
            out.push('_');
        }
        out
    }
}

/// The shortest length limit accepted: room for a short prefix and the
/// 16-digit suffix.
pub const MIN_MAX_LEN: usize = 24;

/// Between the server and the tool in a prefixed name: `__`.
pub const SEPARATOR: &str = "__";

/// When a tool's name carries its server's name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ServerPrefix {
    /// Only when another server offers a tool of the same name (default).
    #[default]
    WhenShared,
    /// Always `server__tool`.
    Always,
}

/// FNV-1a, 64 bits: fixed across Rust versions, platforms and processes
/// (the standard library's hasher is seeded per process).
pub(crate) fn fnv1a64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            // a byte that cannot occur in UTF-8 text
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

/// A name with `suffix`, the name cut so the whole fits in `max_len`.
fn with_suffix(name: &str, suffix: &str, max_len: usize) -> String {
    let mut prefix = name.to_owned();
    // ASCII after sanitizing: any byte index is a char boundary.
    prefix.truncate(max_len.saturating_sub(suffix.len()));
    prefix + suffix
}

/// The model-visible name of each `(server, tool)`, as a map both ways.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Names {
    pub(crate) forward: BTreeMap<String, (String, String)>,
    pub(crate) reverse: BTreeMap<(String, String), String>,
}

impl Names {
    /// Names every `(server, tool)` of `items` (a repeated pair is named
    /// once).
    pub(crate) fn build<'a>(
        items: impl IntoIterator<Item = (&'a str, &'a str)>,
        rules: NameRules,
        prefix: ServerPrefix,
    ) -> Names {
        let pairs: BTreeSet<(&str, &str)> = items.into_iter().collect();
        let mut servers_of: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, tool) in &pairs {
            *servers_of.entry(tool).or_default() += 1;
        }
        // candidate -> members (verbatim, server, tool)
        let mut groups: BTreeMap<String, Vec<(bool, &str, &str)>> = BTreeMap::new();
        let mut cut = Vec::new();
        for &(server, tool) in &pairs {
            let shared = servers_of.get(tool).copied().unwrap_or(0) > 1;
            let base = if shared || prefix == ServerPrefix::Always {
                format!("{server}{SEPARATOR}{tool}")
            } else {
                tool.to_owned()
            };
            let mut name = rules.sanitize(&base);
            if name.len() > rules.max_len {
                name.truncate(rules.max_len);
                cut.push((name, server, tool));
                continue;
            }
            let verbatim = name == base;
            groups
                .entry(name)
                .or_default()
                .push((verbatim, server, tool));
        }
        let mut names = Names::default();
        let mut suffixed = cut;
        for (name, mut members) in groups {
            members.sort_by(|a, b| (!a.0, a.1, a.2).cmp(&(!b.0, b.1, b.2)));
            let mut it = members.into_iter();
            if let Some((_, server, tool)) = it.next() {
                names.insert(name.clone(), server, tool);
            }
            suffixed.extend(it.map(|(_, s, t)| (name.clone(), s, t)));
        }
        // Keepers are placed first, so a suffixed name never takes a
        // name a tool has by right; the order among suffixed ones is fixed.
        suffixed.sort_by(|a, b| (a.1, a.2).cmp(&(b.1, b.2)));
        for (name, server, tool) in suffixed {
            let h = fnv1a64(&[server.as_bytes(), tool.as_bytes()]);
            let mut attempt = 0u32;
            let unique = loop {
                let suffix = match attempt {
                    0 => format!("_{:08x}", h >> 32),
                    1 => format!("_{h:016x}"),
                    n => format!("_{h:016x}{n}"),
                };
                let q = with_suffix(&name, &suffix, rules.max_len);
                if !names.forward.contains_key(&q) {
                    break q;
                }
                attempt += 1;
            };
            names.insert(unique, server, tool);
        }
        names
    }

    fn insert(&mut self, name: String, server: &str, tool: &str) {
        self.reverse
            .insert((server.to_owned(), tool.to_owned()), name.clone());
        self.forward
            .insert(name, (server.to_owned(), tool.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn openai() -> NameRules {
        NameRules::of(Dialect::OpenAiChat, 64)
    }

    #[test]
    fn a_unique_valid_name_is_kept() {
        let n = Names::build(
            [("s", "echo"), ("t", "add")],
            openai(),
            ServerPrefix::WhenShared,
        );
        assert_eq!(n.reverse[&("s".into(), "echo".into())], "echo");
        assert_eq!(n.forward["add"], ("t".into(), "add".into()));
    }

    #[test]
    fn collision_across_two_servers_prefixes_both() {
        let n = Names::build(
            [("b", "echo"), ("a", "echo")],
            openai(),
            ServerPrefix::WhenShared,
        );
        assert_eq!(n.reverse[&("a".into(), "echo".into())], "a__echo");
        assert_eq!(n.reverse[&("b".into(), "echo".into())], "b__echo");
        assert_eq!(n.forward.len(), 2);
    }

    #[test]
    fn sanitizing_collisions_are_suffixed_deterministically() {
        // `a.b` and `a_b` both reduce to `a_b` in OpenAI's set; the
        // verbatim one keeps it, in whatever order they come.
        let one = Names::build(
            [("s", "a.b"), ("s", "a_b")],
            openai(),
            ServerPrefix::WhenShared,
        );
        let two = Names::build(
            [("s", "a_b"), ("s", "a.b")],
            openai(),
            ServerPrefix::WhenShared,
        );
        assert_eq!(one, two);
        assert_eq!(one.reverse[&("s".into(), "a_b".into())], "a_b");
        let other = &one.reverse[&("s".into(), "a.b".into())];
        assert!(other.starts_with("a_b_") && other.len() == 12, "{other}");
        // Gemini allows the dot: no collision there.
        let g = Names::build(
            [("s", "a.b"), ("s", "a_b")],
            NameRules::of(Dialect::Gemini, 64),
            ServerPrefix::WhenShared,
        );
        assert_eq!(g.reverse[&("s".into(), "a.b".into())], "a.b");
    }

    #[test]
    fn a_100_character_name_is_cut_with_a_stable_suffix() {
        let long = "x".repeat(100);
        let n = Names::build([("s", long.as_str())], openai(), ServerPrefix::WhenShared);
        let name = &n.reverse[&("s".into(), long.clone())];
        assert_eq!(name.len(), 64);
        assert!(openai().is_valid(name));
        // The suffix is FNV-1a of (server, tool): the same in every process.
        let h = fnv1a64(&[b"s", long.as_bytes()]);
        assert!(name.ends_with(&format!("_{:08x}", h >> 32)), "{name}");
        // Two long names with the same first 64 characters stay apart.
        let long2 = format!("{}y", "x".repeat(99));
        let n = Names::build(
            [("s", long.as_str()), ("s", long2.as_str())],
            openai(),
            ServerPrefix::WhenShared,
        );
        assert_eq!(n.forward.len(), 2);
        // Anthropic on request: 128 keeps it whole.
        let n = Names::build(
            [("s", long.as_str())],
            NameRules::of(Dialect::Anthropic, 128),
            ServerPrefix::WhenShared,
        );
        assert_eq!(n.reverse[&("s".into(), long.clone())], long);
    }

    #[test]
    fn fnv_is_the_published_function() {
        // FNV-1a 64 of "a" (the reference test vector).
        assert_eq!(fnv1a64(&[b"a"]), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn gemini_names_start_with_a_letter_or_underscore() {
        let r = NameRules::of(Dialect::Gemini, 64);
        assert_eq!(r.sanitize("1abc"), "_1abc");
        assert_eq!(r.sanitize("a/b:c.d"), "a_b:c.d");
        assert_eq!(r.sanitize("-x"), "_-x");
        assert!(r.is_valid("_1abc"));
        assert!(!r.is_valid("1abc"));
        let o = openai();
        assert_eq!(o.sanitize("get weather/now"), "get_weather_now");
        assert_eq!(o.sanitize(""), "_");
    }

    #[test]
    fn many_collisions_never_share_a_name() {
        let tools: Vec<String> = (0..50)
            .map(|i| format!("t{}", "/".repeat(i % 3 + 1)))
            .collect();
        let servers = ["a", "b", "c"];
        let items: Vec<(&str, &str)> = servers
            .iter()
            .flat_map(|s| tools.iter().map(move |t| (*s, t.as_str())))
            .collect();
        let n = Names::build(items.iter().copied(), openai(), ServerPrefix::Always);
        let distinct: BTreeSet<(&str, &str)> = items.iter().copied().collect();
        assert_eq!(n.forward.len(), distinct.len());
        assert!(n.forward.keys().all(|k| openai().is_valid(k)));
    }
}
