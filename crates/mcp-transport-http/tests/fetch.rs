//! The public `Fetcher`: plain requests on the transport's connector with
//! the body bounded, the whole exchange timed, and redirects returned, not
//! followed.

use std::time::Duration;

use bytes::Bytes;
use fault_http::{FaultServer, Part, Reply};
use http::Method;
use mcp_transport_http::{FetchError, FetchOptions, Fetcher, ProxySetting};

fn fetcher() -> Fetcher {
    Fetcher::new(FetchOptions::default().with_proxy(ProxySetting::None))
}

/// The request goes out as given (method, headers, body) and the reply
/// comes back whole, whatever its status.
#[tokio::test]
async fn requests_and_replies_pass_as_they_are() {
    let server = FaultServer::start(|r| {
        if r.method == Method::POST {
            Reply::status(400)
                .header("content-type", "application/json")
                .body(r#"{"error":"invalid_grant"}"#)
        } else {
            Reply::json(r#"{"issuer":"http://x"}"#)
        }
    })
    .await
    .unwrap();
    let got = fetcher()
        .fetch(
            http::Request::get(server.url("/.well-known/oauth-authorization-server"))
                .header("mcp-protocol-version", "2025-03-26")
                .body(Bytes::new())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(got.status(), 200);
    assert_eq!(&got.body()[..], br#"{"issuer":"http://x"}"#);
    let got = fetcher()
        .fetch(
            http::Request::post(server.url("/token"))
                .header("content-type", "application/x-www-form-urlencoded")
                .body(Bytes::from_static(b"grant_type=refresh_token"))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(got.status(), 400);
    assert_eq!(&got.body()[..], br#"{"error":"invalid_grant"}"#);
    let requests = server.requests();
    assert_eq!(
        requests[0].header("mcp-protocol-version"),
        Some("2025-03-26")
    );
    assert_eq!(requests[1].method, Method::POST);
    assert_eq!(&requests[1].body[..], b"grant_type=refresh_token");
}

/// A redirect is the reply, not followed, for every redirect status.
#[tokio::test]
async fn redirects_are_not_followed() {
    for status in [301, 302, 303, 307, 308] {
        let server = FaultServer::start(move |r| {
            if r.path() == "/authorize" {
                Reply::status(status).header("location", "http://localhost:3000/callback?code=c")
            } else {
                Reply::status(500)
            }
        })
        .await
        .unwrap();
        let got = fetcher()
            .fetch(
                http::Request::get(server.url("/authorize"))
                    .body(Bytes::new())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(got.status(), status);
        assert_eq!(
            got.headers().get("location").unwrap(),
            "http://localhost:3000/callback?code=c"
        );
        assert_eq!(server.requests().len(), 1, "{status}: nothing followed");
    }
}

/// A body over the bound, a server that never finishes, a refused
/// connection and a URL that is not http(s) are each their own error, and
/// none shows a query value.
#[tokio::test]
async fn failures_are_typed_and_redacted() {
    let server = FaultServer::start(|r| match r.path() {
        "/big" => Reply::json("x".repeat(2048)),
        _ => Reply::status(200).parts(vec![Part::bytes("{"), Part::pause_ms(5_000)]),
    })
    .await
    .unwrap();
    let small = Fetcher::new(
        FetchOptions::default()
            .with_proxy(ProxySetting::None)
            .with_max_body_bytes(1024)
            .with_timeout(Duration::from_millis(300)),
    );
    let get = |url: String| http::Request::get(url).body(Bytes::new()).unwrap();

    let err = small
        .fetch(get(server.url("/big?client_secret=s3cret")))
        .await
        .unwrap_err();
    assert!(
        matches!(err, FetchError::TooLarge { limit: 1024, .. }),
        "{err:?}"
    );

    let err = small
        .fetch(get(server.url("/slow?client_secret=s3cret")))
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err:?}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let err = small
        .fetch(get(format!(
            "http://127.0.0.1:{port}/x?client_secret=s3cret"
        )))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Network { .. }), "{err:?}");
    assert!(std::error::Error::source(&err).is_some());

    let err = small
        .fetch(get("ftp://example.com/x?client_secret=s3cret".into()))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::InvalidUrl { .. }), "{err:?}");

    for err in [
        small
            .fetch(get(server.url("/big?client_secret=s3cret")))
            .await
            .unwrap_err(),
        small
            .fetch(get(server.url("/slow?client_secret=s3cret")))
            .await
            .unwrap_err(),
    ] {
        let text = err.to_string();
        assert!(!text.contains("s3cret"), "{text}");
        assert!(text.contains("client_secret"), "{text}");
    }
}
