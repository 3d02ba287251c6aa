//! Keeping secrets out of errors, logs and `Debug` output: URLs shown
//! without their credentials and query values, and every secret value the
//! connection sent (a sensitive static header, a credential from the auth
//! hook) taken out of what a server sends back before it is shown.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use http::{HeaderName, HeaderValue};
use mcp_transport::Redactor;

/// The replacement of a secret in text that is shown.
pub(crate) const HIDDEN: &str = "***";

/// Values shorter than this are not looked for: a secret that short is no
/// secret, and hiding every `1` or `abc` would make error bodies unreadable.
const MIN_SECRET_LEN: usize = 4;

/// How many of the auth hook's credentials are remembered (a connection
/// that refreshes its token for days sends many; a server echoes the one a
/// request carried, a recent one). The configured headers are always kept.
const MAX_REMEMBERED: usize = 32;

/// `true` for a configured header whose value is a secret: anything about
/// authorization, keys, tokens, secrets, passwords and cookies.
pub(crate) fn is_sensitive_name(name: &HeaderName) -> bool {
    let name = name.as_str();
    ["auth", "key", "token", "secret", "passw", "cookie"]
        .iter()
        .any(|word| name.contains(word))
}

/// Every secret value a connection sent, in each form a server may echo it
/// in, so that [`SentSecrets::scrub`] can take them out of an error body, a
/// challenge header or a hint before anything shows it.
///
/// A value is looked for whole (`Bearer abc…`) and by each of its
/// whitespace- or comma-separated words (the token alone), each as sent, as
/// it reads inside a JSON string (`/` escaped as `\/` too), and
/// percent-encoded.
#[derive(Default)]
pub(crate) struct SentSecrets {
    /// From the configured headers: never forgotten.
    fixed: Vec<String>,
    /// From the auth hook, oldest first, at most [`MAX_REMEMBERED`] values.
    recent: VecDeque<String>,
}

impl std::fmt::Debug for SentSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentSecrets")
            .field("fixed", &self.fixed.len())
            .field("recent", &self.recent.len())
            .finish()
    }
}

impl SentSecrets {
    /// Remembers a configured header's value for the connection's life.
    pub(crate) fn remember_fixed(&mut self, value: &HeaderValue) {
        let mut forms = Vec::new();
        forms_of(value, &mut forms);
        for form in forms {
            if !self.fixed.contains(&form) {
                self.fixed.push(form);
            }
        }
    }

    /// Remembers a value the auth hook had sent.
    pub(crate) fn remember(&mut self, value: &HeaderValue) {
        let mut forms = Vec::new();
        forms_of(value, &mut forms);
        for form in forms {
            if self.fixed.contains(&form) || self.recent.contains(&form) {
                continue;
            }
            if self.recent.len() == MAX_REMEMBERED {
                self.recent.pop_front();
            }
            self.recent.push_back(form);
        }
    }

    /// `text` with every remembered secret replaced by [`HIDDEN`]; longer
    /// forms first, so that `Bearer abc…` goes as a whole.
    pub(crate) fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut found: Vec<&str> = self
            .fixed
            .iter()
            .chain(self.recent.iter())
            .map(String::as_str)
            .filter(|form| text.contains(form))
            .collect();
        if found.is_empty() {
            return Cow::Borrowed(text);
        }
        found.sort_by_key(|form| std::cmp::Reverse(form.len()));
        let mut out = text.to_owned();
        for form in found {
            if out.contains(form) {
                out = out.replace(form, HIDDEN);
            }
        }
        Cow::Owned(out)
    }
}

/// The dispatcher's view of a connection's [`SentSecrets`]: what it shows
/// (an error response of a 2xx reply, a skipped message, a server's log
/// message, the wire tap) passes through the same scrub as the HTTP errors.
pub(crate) struct SecretsRedactor(pub(crate) Arc<Mutex<SentSecrets>>);

impl Redactor for SecretsRedactor {
    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let secrets = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match secrets.scrub(text) {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            Cow::Owned(hidden) => Cow::Owned(hidden),
        }
    }
}

/// Every form of `value` worth looking for (see [`SentSecrets`]).
fn forms_of(value: &HeaderValue, out: &mut Vec<String>) {
    let text = String::from_utf8_lossy(value.as_bytes());
    let text = text.trim();
    let mut plain = vec![text.to_owned()];
    plain.extend(
        text.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|word| !word.is_empty() && *word != text && !is_auth_scheme(word))
            .map(str::to_owned),
    );
    for p in plain {
        if p.len() < MIN_SECRET_LEN {
            continue;
        }
        let json = serde_json::to_string(&p)
            .map(|quoted| quoted[1..quoted.len() - 1].to_owned())
            .unwrap_or_else(|_| p.clone());
        let json_slash = json.replace('/', "\\/");
        let percent = percent_encode(&p);
        for form in [p, json, json_slash, percent] {
            if !out.contains(&form) {
                out.push(form);
            }
        }
    }
}

/// `true` for the name of an HTTP authentication scheme (`Bearer`,
/// `DPoP`, …): the word before the credential is no secret, and hiding it
/// would blank it out of every error that names the scheme.
fn is_auth_scheme(word: &str) -> bool {
    ["bearer", "dpop", "basic", "digest", "negotiate", "token"]
        .iter()
        .any(|scheme| word.eq_ignore_ascii_case(scheme))
}

/// `s` with every byte but RFC 3986's unreserved ones percent-encoded (how
/// a server may echo a value in a URL it shows).
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `url` as it may be shown: any `user:password@` removed, and the value of
/// each query parameter replaced by `***` (servers take API keys and tokens
/// in the query: `?token=…`, `?api_key=…`; the names stay, for debugging).
/// A relative reference (a redirect's `Location`, a legacy `endpoint`, as
/// the server sent them) has its query hidden the same way.
pub(crate) fn redact_url(url: &str) -> String {
    // The authority, when there is one: after `scheme://`, or after the
    // `//` of a network-path reference.
    let (prefix, authority, tail) = match url.find("://") {
        Some(i) if is_scheme(&url[..i]) => split_authority(url, i + 3),
        _ if url.starts_with("//") => split_authority(url, 2),
        _ => ("", "", url),
    };
    let host = match authority.rfind('@') {
        Some(at) => &authority[at + 1..],
        None => authority,
    };
    let (before_fragment, fragment) = match tail.find('#') {
        Some(i) => tail.split_at(i),
        None => (tail, ""),
    };
    let (path, query) = match before_fragment.find('?') {
        Some(i) => (&before_fragment[..i], Some(&before_fragment[i + 1..])),
        None => (before_fragment, None),
    };
    let mut out = format!("{prefix}{host}{path}");
    if let Some(query) = query {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if !value.is_empty() => format!("{name}=***"),
                _ => pair.to_owned(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    out.push_str(fragment);
    out
}

/// `url` cut after its first `at` bytes (the scheme and `//`): that
/// prefix, the authority, and the rest.
fn split_authority(url: &str, at: usize) -> (&str, &str, &str) {
    let rest = &url[at..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    (&url[..at], &rest[..end], &rest[end..])
}

/// `true` for a URI scheme (RFC 3986 § 3.1: a letter, then letters,
/// digits, `+`, `-` or `.`).
fn is_scheme(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(values: &[&str]) -> SentSecrets {
        let mut s = SentSecrets::default();
        for v in values {
            s.remember(&HeaderValue::from_str(v).unwrap());
        }
        s
    }

    #[test]
    fn echoed_secrets_are_hidden_in_each_form() {
        let s = secrets(&["Bearer ab/c+d=e.f"]);
        for (echo, shown) in [
            ("denied for Bearer ab/c+d=e.f", "denied for ***"),
            ("token ab/c+d=e.f expired", "token *** expired"),
            (r#"{"m":"bad ab\/c+d=e.f"}"#, r#"{"m":"bad ***"}"#),
            ("see ?t=ab%2Fc%2Bd%3De.f", "see ?t=***"),
            ("nothing here", "nothing here"),
        ] {
            assert_eq!(s.scrub(echo), shown, "{echo}");
        }
    }

    #[test]
    fn short_values_are_not_looked_for_and_the_oldest_are_forgotten() {
        let s = secrets(&["x-1"]);
        assert_eq!(s.scrub("x-1 is fine"), "x-1 is fine");
        let mut s = SentSecrets::default();
        s.remember_fixed(&HeaderValue::from_static("fixed-secret"));
        for i in 0..100 {
            s.remember(&HeaderValue::from_str(&format!("tok-{i:04}")).unwrap());
        }
        assert_eq!(
            s.scrub("fixed-secret tok-0099 tok-0000"),
            "*** *** tok-0000"
        );
    }

    /// A token sent with every request stays remembered however many
    /// one-off values (each request's DPoP proof) are sent beside it; the
    /// scheme word before it is not taken for a secret.
    #[test]
    fn a_value_in_use_is_not_forgotten_and_the_scheme_is_no_secret() {
        let mut s = SentSecrets::default();
        for i in 0..100 {
            // One request's credential: the token, then its own proof.
            s.remember(&HeaderValue::from_static("DPoP at-secret-token"));
            s.remember(&HeaderValue::from_str(&format!("proof-{i:04}.sig")).unwrap());
            assert_eq!(
                s.scrub("echo at-secret-token"),
                "echo ***",
                "after request {i}"
            );
        }
        assert_eq!(
            s.scrub("DPoP error for at-secret-token, proof-0099.sig, proof-0000.sig"),
            "DPoP error for ***, ***, proof-0000.sig"
        );
        let s = secrets(&["Bearer abc-token", "Basic dXNlcjpwYXNz"]);
        assert_eq!(
            s.scrub("Bearer realm: abc-token; Basic realm, dXNlcjpwYXNz"),
            "Bearer realm: ***; Basic realm, ***"
        );
    }

    #[test]
    fn sensitive_names() {
        for name in [
            "authorization",
            "proxy-authorization",
            "x-api-key",
            "x-auth-token",
            "cookie",
            "x-client-secret",
            "x-password",
        ] {
            assert!(is_sensitive_name(&HeaderName::from_static(name)), "{name}");
        }
        for name in ["accept-language", "x-trace-id", "user-agent"] {
            assert!(!is_sensitive_name(&HeaderName::from_static(name)), "{name}");
        }
    }

    #[test]
    fn credentials_are_removed() {
        assert_eq!(redact_url("https://u:p@h:1/x?y=@"), "https://h:1/x?y=***");
        assert_eq!(redact_url("http://h/mcp"), "http://h/mcp");
        assert_eq!(redact_url("not a url"), "not a url");
    }

    #[test]
    fn query_values_are_hidden_and_names_kept() {
        assert_eq!(
            redact_url("http://127.0.0.1:1/mcp?token=QSECRET&mode=x&flag#frag"),
            "http://127.0.0.1:1/mcp?token=***&mode=***&flag#frag"
        );
        assert_eq!(
            redact_url("https://h/messages?sessionId=abc"),
            "https://h/messages?sessionId=***"
        );
        assert_eq!(redact_url("https://h/p?"), "https://h/p?");
        assert_eq!(redact_url("https://h?k=v"), "https://h?k=***");
    }

    /// What a server sends as a `Location` or an `endpoint` may be a
    /// relative reference: its query values are hidden too.
    #[test]
    fn relative_references_are_redacted() {
        for (shown, want) in [
            ("/new?token=QSECRET", "/new?token=***"),
            ("?token=QSECRET&x", "?token=***&x"),
            ("../m?sessionId=QSECRET#f", "../m?sessionId=***#f"),
            ("//u:QSECRET@other:1/mcp?k=QSECRET", "//other:1/mcp?k=***"),
            ("/cb?next=http://h/x", "/cb?next=***"),
            ("mcp", "mcp"),
        ] {
            assert_eq!(redact_url(shown), want, "{shown}");
        }
    }
}
