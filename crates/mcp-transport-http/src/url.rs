//! Resolving a URL reference (a redirect `Location`, a legacy `endpoint`
//! event) against the URL it came from: RFC 3986 § 5.2, dot segments
//! removed (`../rpc/messages`, `./messages`), as WHATWG `new URL(url, base)`
//! and every browser do; the query is kept verbatim. The resolution is
//! iri-string's.

use http::Uri;
use iri_string::format::ToDedicatedString;
use iri_string::types::{UriAbsoluteStr, UriReferenceStr};

/// Resolves `reference` against `base`. Characters that may not appear in
/// a URI (a space, `|`, non-ASCII, a `%` not followed by two hex digits)
/// are percent-encoded first, as browsers do, rather than refused.
///
/// Errors: a description when the result is not a valid absolute URI. It
/// does not quote `reference`: the caller names it, as it may be shown
/// (its query may hold a secret).
pub(crate) fn resolve(base: &Uri, reference: &str) -> Result<Uri, String> {
    let reference = reference.trim();
    if reference.is_empty() {
        return Err("empty URL reference".into());
    }
    let escaped = escape_outside_uri(reference);
    let base_text = base.to_string();
    let base_uri = UriAbsoluteStr::new(&base_text)
        .map_err(|e| format!("base URL is not an absolute URI: {e}"))?;
    let reference_uri = UriReferenceStr::new(&escaped).map_err(|e| format!("invalid URL: {e}"))?;
    let resolved = reference_uri
        .resolve_against(base_uri)
        .try_to_dedicated_string()
        .map_err(|e| format!("cannot resolve it: {e}"))?;
    let uri: Uri = resolved
        .as_str()
        .parse()
        .map_err(|e| format!("invalid URL: {e}"))?;
    if uri.scheme().is_none() || uri.authority().is_none() {
        return Err("not an absolute URL".into());
    }
    Ok(uri)
}

/// `text` with every character outside the URI grammar (RFC 3986 § 2)
/// percent-encoded as UTF-8; a `%` that does not start a `%XX` triplet is
/// encoded too.
fn escape_outside_uri(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let is_triplet = |i: usize| {
        bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    };
    let allowed = |i: usize, b: u8| {
        b.is_ascii_alphanumeric()
            || b"-._~:/?#[]@!$&'()*+,;=".contains(&b)
            || (b == b'%' && is_triplet(i))
    };
    if bytes.iter().enumerate().all(|(i, &b)| allowed(i, b)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, &b) in bytes.iter().enumerate() {
        if allowed(i, b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `true` when `a` and `b` have the same scheme, host and port.
pub(crate) fn same_origin(a: &Uri, b: &Uri) -> bool {
    a.scheme_str().map(str::to_ascii_lowercase) == b.scheme_str().map(str::to_ascii_lowercase)
        && a.host().map(str::to_ascii_lowercase) == b.host().map(str::to_ascii_lowercase)
        && port_of(a) == port_of(b)
}

fn port_of(u: &Uri) -> Option<u16> {
    u.port_u16().or(match u.scheme_str() {
        Some("http") => Some(80),
        Some("https") => Some(443),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(base: &str, reference: &str) -> String {
        resolve(&base.parse().unwrap(), reference)
            .unwrap()
            .to_string()
    }

    #[test]
    fn references_resolve_and_queries_stay_opaque() {
        assert_eq!(
            r("http://h:1/sse", "/message?sessionId=a%2Fb"),
            "http://h:1/message?sessionId=a%2Fb"
        );
        assert_eq!(
            r("http://h:1/a/sse", "messages/?session_id=x"),
            "http://h:1/a/messages/?session_id=x"
        );
        assert_eq!(r("http://h:1/mcp", "/mcp/"), "http://h:1/mcp/");
        assert_eq!(r("https://h/mcp", "//other/x"), "https://other/x");
        assert_eq!(r("http://h/mcp", "http://o:2/mcp/"), "http://o:2/mcp/");
        assert_eq!(r("http://h/mcp", "?s=1"), "http://h/mcp?s=1");
        assert!(resolve(&"http://h/".parse().unwrap(), "").is_err());
    }

    /// RFC 3986 § 5.4's examples that apply to an http base (dot segments
    /// removed), and what servers send as legacy endpoints.
    #[test]
    fn dot_segments_are_removed() {
        let base = "http://a/b/c/d;p?q";
        for (reference, expected) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
            ("g?y/./x", "http://a/b/c/g?y/./x"),
        ] {
            assert_eq!(r(base, reference), expected, "{reference}");
        }
        assert_eq!(
            r("http://h:1/mcp/sse", "../rpc/messages?sessionId=x"),
            "http://h:1/rpc/messages?sessionId=x"
        );
        assert_eq!(
            r("http://h:1/mcp/sse", "./messages?sessionId=x"),
            "http://h:1/mcp/messages?sessionId=x"
        );
        assert_eq!(
            r("http://h:1/sse", "http://h:1/a/../messages"),
            "http://h:1/messages"
        );
    }

    /// The error of a reference that does not resolve does not quote it:
    /// its query may hold a secret.
    #[test]
    fn errors_do_not_quote_the_reference() {
        let base: Uri = "http://h/sse".parse().unwrap();
        assert_eq!(
            resolve(&base, "http://[::1/m?token=QSECRET").unwrap_err(),
            "invalid URL: invalid IRI: invalid host"
        );
    }

    #[test]
    fn characters_outside_uris_are_encoded() {
        assert_eq!(
            r("http://h/sse", "/m?s=a b|c%zz%41"),
            "http://h/m?s=a%20b%7Cc%25zz%41"
        );
        assert_eq!(r("http://h/sse", "/é"), "http://h/%C3%A9");
    }

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let a: Uri = "http://H:80/x".parse().unwrap();
        assert!(same_origin(&a, &"http://h/y".parse().unwrap()));
        assert!(!same_origin(&a, &"https://h/y".parse().unwrap()));
        assert!(!same_origin(&a, &"http://h:81/y".parse().unwrap()));
    }
}
