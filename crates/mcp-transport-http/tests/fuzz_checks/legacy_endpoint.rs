//! Fuzz check of the legacy HTTP+SSE endpoint resolution: the `endpoint`
//! event's data resolved against the SSE URL (`src/url.rs`, included by
//! path: `resolve` and `same_origin` are private), with the `url` crate
//! (WHATWG URL) as the reference model where the two standards agree.
//!
//! Input: byte 0 picks the SSE URL from [`BASES`]; the rest (made UTF-8 as
//! a lossy conversion does, as the event's data always is) is the
//! reference.
//!
//! Checks: no panic; a resolved endpoint is an absolute URI (scheme and
//! authority) that parses back to itself, resolves to itself again, and
//! is on the SSE URL's origin exactly when scheme, host and port agree; for
//! a relative reference of plain path and query characters (where RFC 3986
//! and WHATWG agree), the result is the `url` crate's join.

use http::Uri;

#[allow(
    dead_code,
    unreachable_pub,
    reason = "the file is included by path: the unit tests of the file use the rest, and its public items are the crate's API there"
)]
#[path = "../../src/url.rs"]
mod url_resolve;

use url_resolve::{resolve, same_origin};

/// SSE URLs the endpoint event is resolved against.
const BASES: [&str; 6] = [
    "http://127.0.0.1:3000/sse",
    "http://localhost:8080/a/b/sse?session=1",
    "https://mcp.example.com/v1/sse/",
    "http://h/",
    "https://h:8443/x/y/z",
    "http://[::1]:9000/mcp/sse",
];

/// A reference in which RFC 3986 resolution and WHATWG's join agree:
/// relative (no scheme, no authority), of unreserved path and query
/// characters only (no `%`, `\`, `#`, `:`, `@`, whitespace).
fn plain_relative(reference: &str) -> bool {
    !reference.is_empty()
        && !reference.starts_with("//")
        && reference
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._~?=&-".contains(&b))
}

/// Runs the check on one fuzz input (see the module docs).
pub(crate) fn check(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let base_text = BASES[usize::from(pick) % BASES.len()];
    let base: Uri = base_text.parse().expect("the bases are URIs");
    let reference = String::from_utf8_lossy(rest);
    let Ok(uri) = resolve(&base, &reference) else {
        return;
    };
    assert!(uri.scheme().is_some() && uri.authority().is_some(), "{uri}");
    let text = uri.to_string();
    let again: Uri = text.parse().expect("a resolved endpoint parses back");
    assert_eq!(again, uri);
    let twice = resolve(&base, &text).expect("a resolved endpoint resolves");
    assert_eq!(twice, uri, "resolving {text:?} again");
    let origin = uri.scheme_str().map(str::to_ascii_lowercase)
        == base.scheme_str().map(str::to_ascii_lowercase)
        && uri.host().map(str::to_ascii_lowercase) == base.host().map(str::to_ascii_lowercase)
        && uri.port_u16().or(match uri.scheme_str() {
            Some("http") => Some(80),
            Some("https") => Some(443),
            _ => None,
        }) == base.port_u16().or(match base.scheme_str() {
            Some("http") => Some(80),
            Some("https") => Some(443),
            _ => None,
        });
    assert_eq!(same_origin(&base, &uri), origin, "{base} vs {uri}");
    let reference = reference.trim();
    if plain_relative(reference) {
        let want = url::Url::parse(base_text)
            .and_then(|b| b.join(reference))
            .expect("WHATWG joins a plain relative reference");
        assert_eq!(text, want.as_str(), "{reference:?} against {base_text}");
    }
}
