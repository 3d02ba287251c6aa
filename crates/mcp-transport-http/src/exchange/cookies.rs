//! The connection's cookie jar: what a browser, or curl with a jar, keeps
//! for the server's origin. A load balancer's sticky-session cookie set on
//! `initialize` must come back on every later request, or the next one
//! lands on another replica where the session is unknown.
//!
//! The storage rules (RFC 6265 § 5.3: `Domain` that does not domain-match
//! the request host refused, `Path`, `Expires` and `Max-Age`, `Secure` sent
//! only over https or to a loopback host, the matching of § 5.4) are
//! `cookie_store`'s. On top of them the jar is scoped to the origin of the
//! connection's URL: cookies are stored from, and sent to, that origin only
//! (scheme, host and port; RFC 6265 cookies ignore the port, this jar does
//! not), so a redirect to another origin or a legacy `endpoint` on another
//! origin never receives them. The jar lives as long as the transport and is
//! emptied when it closes; nothing is written to disk.
//!
//! Cookie values are credentials: never logged (only counts and the
//! reason a cookie was refused), and the `Cookie` header is marked
//! sensitive. [`CookieJar::attach`] is the one place a request gets its
//! cookies.

use std::sync::Mutex;

use cookie_store::{CookieStore, RawCookie};
use http::header::{COOKIE, SET_COOKIE};
use http::{HeaderMap, HeaderValue, Uri};

use crate::lock::lock;
use crate::url::same_origin;

/// The cookies of one connection, for the origin of `origin`.
pub(crate) struct CookieJar {
    origin: Uri,
    store: Mutex<CookieStore>,
}

impl std::fmt::Debug for CookieJar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CookieJar")
            .field("cookies", &lock(&self.store).iter_unexpired().count())
            .finish()
    }
}

impl CookieJar {
    /// An empty jar for the origin of `origin` (the connection's URL).
    pub(crate) fn new(origin: &Uri) -> CookieJar {
        CookieJar {
            origin: origin.clone(),
            store: Mutex::new(CookieStore::new()),
        }
    }

    /// The request URL as `cookie_store` takes it, when `target` is of the
    /// jar's origin.
    fn in_scope(&self, target: &Uri) -> Option<::url::Url> {
        if !same_origin(&self.origin, target) {
            return None;
        }
        ::url::Url::parse(&target.to_string()).ok()
    }

    /// Keeps the cookies that `headers` (a reply from `target`) set, when
    /// `target` is of the jar's origin; a cookie the storage rules refuse
    /// (a `Domain` of another host, say) is dropped with a debug line.
    pub(crate) fn store(&self, target: &Uri, headers: &HeaderMap, label: &str) {
        let mut set = headers.get_all(SET_COOKIE).iter().peekable();
        if set.peek().is_none() {
            return;
        }
        let Some(url) = self.in_scope(target) else {
            tracing::debug!(connection = %label, "cookies set by another origin ignored");
            return;
        };
        let mut store = lock(&self.store);
        for value in set {
            let parsed = value
                .to_str()
                .map_err(|_| "not visible ASCII".to_owned())
                .and_then(|text| RawCookie::parse(text).map_err(|e| e.to_string()))
                .and_then(|cookie| {
                    store
                        .insert_raw(&cookie, &url)
                        .map_err(|e| format!("{e:?}"))
                });
            if let Err(reason) = parsed {
                tracing::debug!(connection = %label, %reason, "a Set-Cookie was refused");
            }
        }
    }

    /// The `Cookie` header for a request to `target` (marked sensitive):
    /// `None` when `target` is of another origin or no stored cookie
    /// matches its host, path and scheme.
    pub(crate) fn header_for(&self, target: &Uri) -> Option<HeaderValue> {
        let store = lock(&self.store);
        // Most servers set no cookie: an empty jar matches nothing, and
        // the request's URL is not parsed for it (six allocations).
        store.iter_any().next()?;
        let url = self.in_scope(target)?;
        let pairs: Vec<String> = store
            .get_request_values(&url)
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        if pairs.is_empty() {
            return None;
        }
        let mut value = HeaderValue::try_from(pairs.join("; ")).ok()?;
        value.set_sensitive(true);
        Some(value)
    }

    /// Puts the jar's `Cookie` for `target` on `headers`: after a
    /// configured `Cookie` header, when there is one, as one header (RFC
    /// 6265 § 5.4: a single `Cookie` header). On a hop that a redirect sent
    /// to another origin (not `with_credentials`) a configured `Cookie` is
    /// taken off first: it is a credential of the server's origin.
    pub(crate) fn attach(&self, headers: &mut HeaderMap, target: &Uri, with_credentials: bool) {
        if !with_credentials {
            headers.remove(COOKIE);
        }
        let Some(stored) = self.header_for(target) else {
            return;
        };
        let joined = match headers.get(COOKIE) {
            Some(configured) => {
                let mut joined = configured.as_bytes().to_vec();
                joined.extend_from_slice(b"; ");
                joined.extend_from_slice(stored.as_bytes());
                match HeaderValue::from_bytes(&joined) {
                    Ok(mut v) => {
                        v.set_sensitive(true);
                        v
                    }
                    Err(_) => stored,
                }
            }
            None => stored,
        };
        headers.insert(COOKIE, joined);
    }

    /// Forgets every cookie (the transport closed).
    pub(crate) fn clear(&self) {
        lock(&self.store).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(cookies: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for c in cookies {
            headers.append(SET_COOKIE, HeaderValue::from_str(c).unwrap());
        }
        headers
    }

    fn uri(s: &str) -> Uri {
        s.parse().unwrap()
    }

    fn sent(jar: &CookieJar, target: &str) -> Option<String> {
        jar.header_for(&uri(target))
            .map(|v| v.to_str().unwrap().to_owned())
    }

    /// (why, jar origin and reply URL, `Set-Cookie` values, next request,
    /// the `Cookie` it carries).
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a str, Option<&'a str>);

    /// One row per rule: what the server at `from` sets, where the next
    /// request goes, and the `Cookie` it carries.
    #[test]
    fn cookies_follow_the_storage_and_matching_rules() {
        let cases: &[Case<'_>] = &[
            (
                "plain",
                "http://h.example/mcp",
                &["a=1"],
                "http://h.example/mcp",
                Some("a=1"),
            ),
            (
                "path of its own",
                "http://h.example/mcp",
                &["a=1; Path=/mcp"],
                "http://h.example/other",
                None,
            ),
            (
                "path prefix",
                "http://h.example/mcp",
                &["a=1; Path=/mcp"],
                "http://h.example/mcp/x",
                Some("a=1"),
            ),
            (
                "another origin's port",
                "http://h.example/mcp",
                &["a=1"],
                "http://h.example:8080/mcp",
                None,
            ),
            (
                "another scheme",
                "http://h.example/mcp",
                &["a=1"],
                "https://h.example/mcp",
                None,
            ),
            (
                "another host",
                "http://h.example/mcp",
                &["a=1"],
                "http://other.example/mcp",
                None,
            ),
            (
                "Domain of another host refused",
                "http://h.example/mcp",
                &["a=1; Domain=other.example"],
                "http://h.example/mcp",
                None,
            ),
            (
                "Domain of its parent kept",
                "http://mcp.h.example/mcp",
                &["a=1; Domain=h.example"],
                "http://mcp.h.example/mcp",
                Some("a=1"),
            ),
            (
                "Secure not over http",
                "http://h.example/mcp",
                &["a=1; Secure"],
                "http://h.example/mcp",
                None,
            ),
            (
                "Secure over https",
                "https://h.example/mcp",
                &["a=1; Secure"],
                "https://h.example/mcp",
                Some("a=1"),
            ),
            (
                "Secure over http to 127.0.0.1",
                "http://127.0.0.1:9/mcp",
                &["a=1; Secure"],
                "http://127.0.0.1:9/mcp",
                Some("a=1"),
            ),
            (
                "Secure over http to localhost",
                "http://localhost:9/mcp",
                &["a=1; Secure"],
                "http://localhost:9/mcp",
                Some("a=1"),
            ),
            (
                "Max-Age=0",
                "http://h.example/mcp",
                &["a=1; Max-Age=0"],
                "http://h.example/mcp",
                None,
            ),
            (
                "Expires in the past",
                "http://h.example/mcp",
                &["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT"],
                "http://h.example/mcp",
                None,
            ),
            (
                "Max-Age wins over Expires",
                "http://h.example/mcp",
                &["a=1; Max-Age=600; Expires=Wed, 21 Oct 2015 07:28:00 GMT"],
                "http://h.example/mcp",
                Some("a=1"),
            ),
            (
                "later replaces",
                "http://h.example/mcp",
                &["a=1", "a=2"],
                "http://h.example/mcp",
                Some("a=2"),
            ),
            (
                "two cookies",
                "http://h.example/mcp",
                &["a=1", "b=2"],
                "http://h.example/mcp",
                Some("a=1; b=2"),
            ),
            (
                "garbage ignored",
                "http://h.example/mcp",
                &["=", "a=1"],
                "http://h.example/mcp",
                Some("a=1"),
            ),
        ];
        for (why, origin, set, next, want) in cases {
            let jar = CookieJar::new(&uri(origin));
            jar.store(&uri(origin), &reply(set), "test");
            let mut got = sent(&jar, next);
            // The order of two cookies is not the jar's contract.
            if let Some(g) = &mut got {
                let mut parts: Vec<&str> = g.split("; ").collect();
                parts.sort_unstable();
                *g = parts.join("; ");
            }
            assert_eq!(got.as_deref(), *want, "{why}");
        }
    }

    #[test]
    fn a_later_expired_cookie_removes_it_and_close_clears_all() {
        let origin = uri("http://h.example/mcp");
        let jar = CookieJar::new(&origin);
        jar.store(&origin, &reply(&["a=1", "b=2"]), "test");
        jar.store(&origin, &reply(&["a=gone; Max-Age=0"]), "test");
        assert_eq!(sent(&jar, "http://h.example/mcp").as_deref(), Some("b=2"));
        jar.clear();
        assert_eq!(sent(&jar, "http://h.example/mcp"), None);
    }

    /// RFC 6265 § 5.3 step 6: a `Domain` the request host does not
    /// domain-match is not stored at all (not merely left unsent here).
    #[test]
    fn a_domain_of_another_host_is_refused() {
        for (origin, set) in [
            ("http://h.example/mcp", "a=1; Domain=other.example"),
            ("http://mcp.h.example/mcp", "a=1; Domain=x.h.example"),
            ("http://127.0.0.1:9/mcp", "a=1; Domain=localhost"),
            ("http://127.0.0.1:9/mcp", "a=1; Domain=0.0.1"),
        ] {
            let jar = CookieJar::new(&uri(origin));
            jar.store(&uri(origin), &reply(&[set]), "test");
            assert_eq!(lock(&jar.store).iter_any().count(), 0, "{origin} {set}");
        }
    }

    #[test]
    fn replies_of_another_origin_are_not_stored() {
        let jar = CookieJar::new(&uri("http://h.example/mcp"));
        jar.store(&uri("http://h.example:81/mcp"), &reply(&["a=1"]), "test");
        assert_eq!(sent(&jar, "http://h.example/mcp"), None);
    }

    #[test]
    fn a_configured_cookie_comes_first_in_one_header() {
        let origin = uri("http://h.example/mcp");
        let jar = CookieJar::new(&origin);
        let mut headers = HeaderMap::new();
        jar.attach(&mut headers, &origin, true);
        assert!(headers.get(COOKIE).is_none(), "empty jar");
        jar.store(&origin, &reply(&["lb=sticky-value"]), "test");
        headers.insert(COOKIE, HeaderValue::from_static("mine=1"));
        jar.attach(&mut headers, &origin, true);
        let all: Vec<_> = headers.get_all(COOKIE).iter().collect();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0], "mine=1; lb=sticky-value");
        assert!(all[0].is_sensitive());
        assert!(!format!("{jar:?}").contains("sticky"), "{jar:?}");
    }

    /// The `Cookie` a hop carries, by where it goes and whether the hops
    /// before it stayed on the server's origin.
    #[test]
    fn the_cookie_of_a_hop() {
        let origin = uri("http://h.example/mcp");
        let jar = CookieJar::new(&origin);
        jar.store(&origin, &reply(&["lb=1"]), "test");
        // (target, every hop so far on the origin, configured Cookie, sent)
        let cases: &[(&str, bool, Option<&str>, Option<&str>)] = &[
            ("http://h.example/mcp", true, None, Some("lb=1")),
            (
                "http://h.example/mcp",
                true,
                Some("mine=1"),
                Some("mine=1; lb=1"),
            ),
            ("http://other.example/mcp", false, Some("mine=1"), None),
            ("http://other.example/mcp", false, None, None),
            // Back on the origin after another one: the jar's cookies are
            // the origin's own, the configured one stays off.
            ("http://h.example/mcp", false, Some("mine=1"), Some("lb=1")),
        ];
        for (target, with_credentials, configured, want) in cases {
            let mut headers = HeaderMap::new();
            if let Some(c) = configured {
                headers.insert(COOKIE, HeaderValue::from_str(c).unwrap());
            }
            jar.attach(&mut headers, &uri(target), *with_credentials);
            let got = headers.get(COOKIE).map(|v| v.to_str().unwrap());
            assert_eq!(got, *want, "{target} {with_credentials} {configured:?}");
        }
    }
}
