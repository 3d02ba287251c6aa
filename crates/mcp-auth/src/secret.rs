//! [`Secret`]: a string that never shows itself (tokens, codes, verifiers,
//! client secrets), and [`scrub`], which takes known secrets out of text a
//! server sent before it is shown.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A secret string: its `Debug` and `Display` print `***`. Read it with
/// [`expose`](Secret::expose) only where it goes on the wire.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value, for the one place it is sent.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Secret {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Secret {
        Secret(value.to_owned())
    }
}

/// `text` with every occurrence of each of `secrets` (of at least 4
/// characters) replaced by `***`: an authorization server that echoes a
/// code or a token back in an error description must not get it shown.
pub(crate) fn scrub(text: &str, secrets: &[&Secret]) -> String {
    let mut out = text.to_owned();
    for secret in secrets {
        let s = secret.expose();
        if s.len() >= 4 && out.contains(s) {
            out = out.replace(s, "***");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_never_shows_itself() {
        let s = Secret::new("tok-12345");
        assert_eq!(format!("{s:?}"), "Secret(***)");
        assert_eq!(s.to_string(), "***");
        assert_eq!(s.expose(), "tok-12345");
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"tok-12345\"");
    }

    #[test]
    fn scrub_hides_every_known_secret() {
        let a = Secret::new("code-abc");
        let b = Secret::new("xyz");
        let cases = [
            ("bad code code-abc!", "bad code ***!"),
            ("code-abc code-abc", "*** ***"),
            ("short xyz stays", "short xyz stays"),
            ("nothing", "nothing"),
        ];
        for (input, want) in cases {
            assert_eq!(scrub(input, &[&a, &b]), want);
        }
    }
}
