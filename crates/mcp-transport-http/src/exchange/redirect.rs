//! The redirect rule of an exchange, as a pure function (reqwest's
//! `redirect::Policy` is the model): a reply's status, the request's
//! method, the `Location`, where the hop went and the server's origin in;
//! follow (with or without credentials), stop, or refuse out.
//!
//! - 307 and 308 are followed keeping method, body and headers; 301, 302
//!   and 303 only on a GET (an MCP POST is never re-sent as a GET: that is
//!   an error naming the fix).
//! - At most `max` hops per exchange.
//! - Credentials (`Authorization`, cookies, the auth hook's headers) go
//!   only to the server's origin: once a hop leaves it, that hop and every
//!   later one of the exchange go without them, even one that comes back.
//! - Any other status (a 304, a 300 without a choice made) is the reply.

use http::{Method, StatusCode, Uri};

use crate::redact::redact_url;
use crate::url::{resolve, same_origin};

/// A reply to one hop, as the redirect rule sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hop<'a> {
    /// The reply's status.
    pub(crate) status: StatusCode,
    /// The request's method.
    pub(crate) method: &'a Method,
    /// The reply's `Location`, when it has one that is text.
    pub(crate) location: Option<&'a str>,
    /// The URL the hop went to (a relative `Location` resolves against it).
    pub(crate) from: &'a Uri,
    /// The URL the exchange started at: the server's origin.
    pub(crate) origin: &'a Uri,
    /// The hop carried credentials (every hop before it stayed on the
    /// origin).
    pub(crate) with_credentials: bool,
    /// Redirects followed so far in the exchange.
    pub(crate) followed: usize,
    /// The most redirects followed in one exchange.
    pub(crate) max: usize,
}

/// What to do about a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Redirect {
    /// Send the request to this URL, with the connection's credentials.
    Follow(Uri),
    /// Send the request to this URL without any credential.
    FollowWithoutCredentials(Uri),
    /// Not a redirect to follow: the reply stands.
    Stop,
    /// A redirect the exchange does not follow: it fails with this reason.
    Refuse(String),
}

/// What the redirect rule says about `hop`.
pub(crate) fn redirect(hop: &Hop<'_>) -> Redirect {
    if !hop.status.is_redirection() {
        return Redirect::Stop;
    }
    let code = hop.status.as_u16();
    let method = hop.method;
    let follow = matches!(code, 307 | 308) || (method == Method::GET && matches!(code, 301..=303));
    if !follow {
        if matches!(code, 301..=303) {
            return Redirect::Refuse(format!(
                "the server answered {method} {} with a {code} redirect to {}; \
                 an MCP {method} is never re-sent as a GET: configure the new URL \
                 (or have the server use 307/308)",
                redact_url(&hop.from.to_string()),
                hop.location
                    .map(redact_url)
                    .unwrap_or_else(|| "(no Location)".into())
            ));
        }
        return Redirect::Stop;
    }
    let Some(location) = hop.location else {
        return Redirect::Refuse(format!("HTTP {code} redirect without a Location header"));
    };
    if hop.followed + 1 > hop.max {
        return Redirect::Refuse(format!("more than {} redirects", hop.max));
    }
    let next = match resolve(hop.from, location) {
        Ok(next) => next,
        Err(e) => {
            let shown = redact_url(location);
            return Redirect::Refuse(format!("bad redirect Location {shown:?}: {e}"));
        }
    };
    if hop.with_credentials && same_origin(hop.origin, &next) {
        Redirect::Follow(next)
    } else {
        Redirect::FollowWithoutCredentials(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        s.parse().unwrap()
    }

    /// One row per rule: (status, method, Location, the hop's URL, it
    /// carried credentials, redirects followed so far) → decision. The
    /// origin is `http://h.example/mcp`; at most 5 redirects.
    #[test]
    fn what_a_reply_leads_to() {
        use Redirect::*;
        let follow = |u: &str| Follow(uri(u));
        let without = |u: &str| FollowWithoutCredentials(uri(u));
        let refuse = |why: &str| Refuse(why.to_owned());
        const O: &str = "http://h.example/mcp";
        const OTHER: &str = "http://other.example/mcp";
        let (get, post, delete) = (Method::GET, Method::POST, Method::DELETE);
        let post_302 = "the server answered POST http://h.example/mcp?k=*** with a 302 redirect \
                        to http://h.example/new?token=***; an MCP POST is never re-sent as a GET: \
                        configure the new URL (or have the server use 307/308)";
        let delete_303 = "the server answered DELETE http://h.example/mcp with a 303 redirect to \
                          (no Location); an MCP DELETE is never re-sent as a GET: configure the \
                          new URL (or have the server use 307/308)";
        let post_301 = "the server answered POST http://h.example/mcp with a 301 redirect to \
                        /new?token=***; an MCP POST is never re-sent as a GET: configure the \
                        new URL (or have the server use 307/308)";
        let bad = "bad redirect Location \"http://[::1\": invalid URL: invalid IRI: invalid host";
        let bad_secret = "bad redirect Location \"http://[::1/?token=***\": invalid URL: invalid \
                          IRI: invalid host";
        let (secret, port) = (
            "http://h.example/new?token=secret",
            "http://h.example:8080/mcp",
        );
        type Case<'a> = (
            u16,
            &'a Method,
            Option<&'a str>,
            &'a str,
            bool,
            usize,
            Redirect,
        );
        #[rustfmt::skip]
        let cases: Vec<Case<'_>> = vec![
            // Not a redirect to follow: the reply stands.
            (200, &post, None, O, true, 0, Stop),
            (401, &post, Some("/x"), O, true, 0, Stop),
            (304, &get, Some("/x"), O, true, 0, Stop),
            (300, &get, Some("/x"), O, true, 0, Stop),
            // 307/308 for every method; 301/302/303 for a GET only.
            (307, &post, Some("/mcp2"), O, true, 0, follow("http://h.example/mcp2")),
            (308, &delete, Some("/mcp2"), O, true, 0, follow("http://h.example/mcp2")),
            (301, &get, Some("mcp2"), O, true, 0, follow("http://h.example/mcp2")),
            (302, &get, Some("/a/../b"), O, true, 0, follow("http://h.example/b")),
            (303, &get, Some("/s"), O, true, 0, follow("http://h.example/s")),
            (302, &post, Some(secret), "http://h.example/mcp?k=v", true, 0, refuse(post_302)),
            (303, &delete, None, O, true, 0, refuse(delete_303)),
            (301, &post, Some("/new?token=secret"), O, true, 0, refuse(post_301)),
            (307, &post, None, O, true, 0, refuse("HTTP 307 redirect without a Location header")),
            (307, &post, Some("http://[::1"), O, true, 0, refuse(bad)),
            (307, &post, Some("http://[::1/?token=secret"), O, true, 0, refuse(bad_secret)),
            // At most 5 hops.
            (307, &post, Some("/x"), O, true, 4, follow("http://h.example/x")),
            (307, &post, Some("/x"), O, true, 5, refuse("more than 5 redirects")),
            // Another origin (scheme, host or port): without credentials.
            (307, &post, Some(OTHER), O, true, 0, without(OTHER)),
            (307, &post, Some("//other.example/mcp"), O, true, 0, without(OTHER)),
            (307, &post, Some("https://h.example/mcp"), O, true, 0, without("https://h.example/mcp")),
            (307, &post, Some(port), O, true, 0, without(port)),
            // The same origin spelled otherwise.
            (307, &post, Some("http://H.EXAMPLE:80/m"), O, true, 0, follow("http://H.EXAMPLE:80/m")),
            // Once without, every later hop too, back on the origin or not.
            (307, &post, Some(O), OTHER, false, 1, without(O)),
            (307, &post, Some("/x"), OTHER, false, 1, without("http://other.example/x")),
        ];
        for (status, method, location, from, with_credentials, followed, want) in cases {
            let hop = Hop {
                status: StatusCode::from_u16(status).unwrap(),
                method,
                location,
                from: &uri(from),
                origin: &uri(O),
                with_credentials,
                followed,
                max: 5,
            };
            assert_eq!(
                redirect(&hop),
                want,
                "{status} {method} {location:?} from {from} ({with_credentials}, {followed})"
            );
        }
    }

    /// `max` 0 turns following off: the first redirect is an error.
    #[test]
    fn no_redirects_allowed() {
        let from = uri("http://h.example/mcp");
        let hop = Hop {
            status: StatusCode::TEMPORARY_REDIRECT,
            method: &Method::POST,
            location: Some("/x"),
            from: &from,
            origin: &from,
            with_credentials: true,
            followed: 0,
            max: 0,
        };
        assert_eq!(
            redirect(&hop),
            Redirect::Refuse("more than 0 redirects".into())
        );
    }
}
