//! The flow's HTTP requests on the transport's [`Fetcher`]: GETting a JSON
//! document, POSTing a form or JSON, and the rule that every URL of the
//! flow is https, or http on a loopback host (spec `basic/authorization`
//! § Communication Security).

use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, header};
use mcp_transport_http::Fetcher;
use url::Url;

use crate::error::{AuthError, MetadataProblem};

/// `Ok` when `url` is https, or http to `localhost` or a loopback address.
pub(crate) fn check_url(what: &'static str, url: &str) -> Result<Url, AuthError> {
    let insecure = || AuthError::InsecureUrl {
        what,
        url: url.to_owned(),
    };
    let parsed = Url::parse(url).map_err(|_| insecure())?;
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if is_loopback(&parsed) => Ok(parsed),
        _ => Err(insecure()),
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// GETs `url` with `Accept: application/json` (and `MCP-Protocol-Version`
/// when given).
pub(crate) async fn get(
    fetcher: &Fetcher,
    what: &str,
    url: &str,
    protocol_version: Option<&str>,
) -> Result<Response<Bytes>, AuthError> {
    let mut builder = Request::builder()
        .method(Method::GET)
        .uri(url)
        .header(header::ACCEPT, "application/json");
    if let Some(v) = protocol_version {
        builder = builder.header("mcp-protocol-version", v);
    }
    send(fetcher, what, url, builder.body(Bytes::new())).await
}

/// POSTs `body` of `content_type` to `url`, with `headers`.
pub(crate) async fn post(
    fetcher: &Fetcher,
    what: &str,
    url: &str,
    content_type: &str,
    headers: Vec<(http::HeaderName, http::HeaderValue)>,
    body: String,
) -> Result<Response<Bytes>, AuthError> {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri(url)
        .header(header::ACCEPT, "application/json")
        .header(header::CONTENT_TYPE, content_type);
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    send(fetcher, what, url, builder.body(Bytes::from(body))).await
}

async fn send(
    fetcher: &Fetcher,
    what: &str,
    url: &str,
    request: Result<Request<Bytes>, http::Error>,
) -> Result<Response<Bytes>, AuthError> {
    let request = request.map_err(|e| AuthError::Metadata {
        what: "request URL",
        url: url.to_owned(),
        reason: MetadataProblem::Other(format!("cannot build the request for {what}")),
        source: Some(Arc::new(e)),
    })?;
    tracing::debug!(what, method = %request.method(), url = %redacted(url), "OAuth request");
    fetcher
        .fetch(request)
        .await
        .map_err(|source| AuthError::Fetch {
            what: what.to_owned(),
            source,
        })
}

/// `url` with its query values hidden, for logs.
pub(crate) fn redacted(url: &str) -> String {
    match Url::parse(url) {
        Ok(mut u) if u.query().is_some() => {
            let names: Vec<String> = u.query_pairs().map(|(k, _)| k.into_owned()).collect();
            let mut q = u.query_pairs_mut();
            q.clear();
            for n in names {
                q.append_pair(&n, "***");
            }
            drop(q);
            u.to_string()
        }
        Ok(u) => u.to_string(),
        Err(_) => "(invalid URL)".into(),
    }
}

/// `true` when the reply's `Content-Type` is JSON (`application/json` or
/// `+json`), or absent.
pub(crate) fn is_json(response: &Response<Bytes>) -> bool {
    match response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    {
        None => true,
        Some(ct) => {
            let essence = ct
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            essence == "application/json" || essence.ends_with("+json")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_or_loopback_only() {
        for ok in [
            "https://example.com/x",
            "http://localhost:3000/x",
            "http://LOCALHOST/x",
            "http://127.0.0.1:9/x",
            "http://127.9.9.9/x",
            "http://[::1]:8080/x",
        ] {
            assert!(check_url("u", ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://example.com/x",
            "http://localhost.evil.com/x",
            "http://10.0.0.1/x",
            "ftp://localhost/x",
            "not a url",
        ] {
            assert!(check_url("u", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn redacted_hides_query_values() {
        assert_eq!(
            redacted("https://a/authorize?state=s3&code_challenge=c"),
            "https://a/authorize?state=***&code_challenge=***"
        );
        assert_eq!(redacted("https://a/token"), "https://a/token");
    }
}
