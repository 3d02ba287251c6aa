//! `inspect` observes the flow's own discovery walk: against the same
//! server, it asks for the same URLs in the same order (with the same
//! headers) as `OAuth::login`, and calls the server usable exactly when the
//! login gets through discovery; where the login stops, the report shows a
//! failed step.

mod common;

use common::*;
use fault_http::{Recorded, Reply};
use mcp_auth::{AuthError, InspectReport, inspect};
use serde_json::json;

/// A reply the scripted one is replaced with (`None`: the scripted one).
type Over = fn(&str, &Recorded) -> Option<Reply>;

fn none(_: &str, _: &Recorded) -> Option<Reply> {
    None
}

/// The scripted authorization server metadata of `base`, changed by `edit`.
fn as_metadata(base: &str, edit: impl FnOnce(&mut serde_json::Value)) -> Reply {
    let mut m = json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    });
    edit(&mut m);
    Reply::json(m.to_string())
}

fn cases() -> Vec<(&'static str, Script, Over)> {
    vec![
        ("a sound server", Script::default(), none),
        (
            "a 2025-03-26 server without any metadata",
            Script {
                legacy: true,
                ..Script::default()
            },
            none,
        ),
        (
            "a 2025-03-26 server whose metadata URL fails",
            Script {
                legacy: true,
                ..Script::default()
            },
            |_, r| {
                (r.path() == "/.well-known/oauth-authorization-server").then(|| Reply::status(500))
            },
        ),
        (
            "protected resource metadata that is not JSON",
            Script::default(),
            |_, r| {
                (r.path() == "/.well-known/oauth-protected-resource/mcp").then(|| {
                    Reply::status(200)
                        .header("content-type", "text/html")
                        .body("<html>sign in</html>")
                })
            },
        ),
        (
            "protected resource metadata that is not a document",
            Script::default(),
            |_, r| {
                (r.path() == "/.well-known/oauth-protected-resource/mcp")
                    .then(|| Reply::json(r#"{"authorization_servers":[]}"#))
            },
        ),
        (
            "a challenge naming an unreachable metadata URL",
            Script::default(),
            |_, r| {
                (r.path() == "/mcp" && r.header("authorization").is_none()).then(|| {
                    Reply::status(401).header(
                        "www-authenticate",
                        r#"Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource""#,
                    )
                })
            },
        ),
        (
            "an issuer that is not the one looked up",
            Script {
                issuer: Some("https://attacker.example.com".into()),
                ..Script::default()
            },
            none,
        ),
        (
            "authorization server metadata that is not JSON, then OpenID metadata",
            Script::default(),
            |base, r| match r.path() {
                "/.well-known/oauth-authorization-server" => Some(
                    Reply::status(200)
                        .header("content-type", "text/plain")
                        .body("hi"),
                ),
                "/.well-known/openid-configuration" => Some(as_metadata(base, |_| {})),
                _ => None,
            },
        ),
        (
            "a token endpoint over plain http",
            Script::default(),
            |base, r| {
                (r.path() == "/.well-known/oauth-authorization-server").then(|| {
                    as_metadata(base, |m| {
                        m["token_endpoint"] = json!("http://auth.example.com/token");
                    })
                })
            },
        ),
        ("no PKCE S256", Script::default(), |base, r| {
            (r.path() == "/.well-known/oauth-authorization-server").then(|| {
                as_metadata(base, |m| {
                    m["code_challenge_methods_supported"] = json!(["plain"]);
                })
            })
        }),
    ]
}

/// The requests of discovery (the unauthenticated request and every
/// well-known URL), as method, path and `MCP-Protocol-Version`.
fn discovery_requests(mock: &Mock) -> Vec<String> {
    mock.server
        .requests()
        .iter()
        .filter(|r| r.path() == "/mcp" || r.path().starts_with("/.well-known/"))
        .map(|r| {
            format!(
                "{} {} {}",
                r.method,
                r.path(),
                r.header("mcp-protocol-version").unwrap_or("-")
            )
        })
        .collect()
}

fn shown(report: &InspectReport) -> String {
    report
        .steps
        .iter()
        .map(|s| {
            format!(
                "{} {} {:?} {:?}: {}\n",
                if s.ok { "ok  " } else { "FAIL" },
                s.what,
                s.url,
                s.status,
                s.verdict
            )
        })
        .collect()
}

/// Every case is run; the test fails naming each one where inspect and
/// the login disagree.
#[tokio::test]
async fn inspect_takes_the_walk_the_login_takes() {
    let mut disagreements = Vec::new();
    for (name, script, over) in cases() {
        let login_mock = Mock::start_with(script.clone(), over).await;
        let login = login_mock.oauth(login_mock.config()).login().await;

        let inspect_mock = Mock::start_with(script, over).await;
        let report = inspect(&inspect_mock.url(), fetch_options()).await;
        let steps = shown(&report);

        let mut problems = Vec::new();
        let (asked, walked) = (
            discovery_requests(&inspect_mock),
            discovery_requests(&login_mock),
        );
        if asked != walked {
            problems.push(format!(
                "inspect asked for {asked:#?}, the login for {walked:#?}"
            ));
        }
        if report.usable != login.is_ok() {
            problems.push(format!(
                "usable is {} but the login gave {login:?}",
                report.usable
            ));
        }
        let failed = report.steps.iter().filter(|s| !s.ok).count();
        match &login {
            Ok(_) if failed != 0 => problems.push("a failed step".into()),
            Ok(_) => {}
            Err(e) => {
                if failed != 1 {
                    problems.push(format!("{e}: {failed} failed steps, not one"));
                }
                // The two servers differ in their port: URLs are compared
                // by what follows it.
                let last_url = report
                    .steps
                    .iter()
                    .rev()
                    .find_map(|s| s.url.as_deref())
                    .map(|u| u.replace(&inspect_mock.base, ""));
                if let AuthError::Metadata { url, .. } = e
                    && last_url.as_deref() != Some(&url.replace(&login_mock.base, ""))
                {
                    problems.push(format!(
                        "{e}: the report ends at {last_url:?}, not where the login stopped"
                    ));
                }
            }
        }
        if !problems.is_empty() {
            disagreements.push(format!("{name}:\n  {}\n{steps}", problems.join("\n  ")));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// The report of a sound server, step by step (what `mcp auth inspect`
/// prints).
#[tokio::test]
async fn a_sound_server_is_reported_step_by_step() {
    let mock = Mock::start(Script::default()).await;
    let report = inspect(&mock.url(), fetch_options()).await;
    let base = &mock.base;
    let want = format!(
        "ok   the MCP server Some(\"{base}/mcp\") Some(401): asks for authorization \
         (resource_metadata: {base}/.well-known/oauth-protected-resource/mcp, scope: none)\n\
         ok   protected resource metadata Some(\"{base}/.well-known/oauth-protected-resource/mcp\") Some(200): found\n\
         ok   resource check None None: resource {base}/mcp identifies the server\n\
         ok   authorization server metadata Some(\"{base}/.well-known/oauth-authorization-server\") Some(200): found\n\
         ok   issuer check None None: issuer {base} is the one looked up\n\
         ok   PKCE None None: S256 advertised\n\
         ok   client registration None None: dynamic client registration offered\n\
         ok   token revocation None None: not offered\n\
         ok   device authorization None None: not offered\n\
         ok   iss on redirects None None: not offered\n"
    );
    assert_eq!(shown(&report), want);
    assert!(report.usable);
    assert_eq!(report.server, mock.url());
}

/// A server URL the flow refuses is the one step of the report.
#[tokio::test]
async fn an_insecure_server_url_is_refused_before_any_request() {
    let report = inspect("http://example.com/mcp", fetch_options()).await;
    assert_eq!(report.steps.len(), 1, "{}", shown(&report));
    assert!(!report.steps[0].ok);
    assert!(
        report.steps[0].verdict.contains("must be https"),
        "{}",
        shown(&report)
    );
    assert!(!report.usable);
}
