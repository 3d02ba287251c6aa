//! Resolving a URL reference (a redirect `Location`, a legacy `endpoint`
//! event) against the URL it came from (RFC 3986 § 5.2, without dot-segment
//! removal: the reference is treated as opaque, its query kept verbatim).

use http::Uri;

/// Resolves `reference` against `base`.
///
/// Errors: a description when the result is not a valid absolute URI.
pub(crate) fn resolve(base: &Uri, reference: &str) -> Result<Uri, String> {
    let reference = reference.trim();
    if reference.is_empty() {
        return Err("empty URL reference".into());
    }
    let scheme = base.scheme_str().unwrap_or("http");
    let authority = base.authority().map(|a| a.as_str()).unwrap_or_default();
    let has_scheme = reference.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    let absolute = if has_scheme {
        reference.to_owned()
    } else if reference.starts_with("//") {
        format!("{scheme}:{reference}")
    } else if reference.starts_with('/') {
        format!("{scheme}://{authority}{reference}")
    } else if reference.starts_with('?') {
        format!("{scheme}://{authority}{}{reference}", base.path())
    } else {
        let path = base.path();
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        let dir = if dir.is_empty() { "/" } else { dir };
        format!("{scheme}://{authority}{dir}{reference}")
    };
    let uri: Uri = absolute
        .parse()
        .map_err(|e| format!("invalid URL {reference:?}: {e}"))?;
    if uri.scheme().is_none() || uri.authority().is_none() {
        return Err(format!("URL {reference:?} is not absolute"));
    }
    Ok(uri)
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

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let a: Uri = "http://H:80/x".parse().unwrap();
        assert!(same_origin(&a, &"http://h/y".parse().unwrap()));
        assert!(!same_origin(&a, &"https://h/y".parse().unwrap()));
        assert!(!same_origin(&a, &"http://h:81/y".parse().unwrap()));
    }
}
