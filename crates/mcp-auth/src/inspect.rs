//! [`inspect`]: discovery for people, the tool for a broken server. Every
//! URL the flow would try (the unauthenticated request, each Protected
//! Resource Metadata URL, each authorization server metadata URL) is
//! fetched in the flow's order and reported with its status and a verdict,
//! and the checks the flow makes (resource, issuer, PKCE, a way to
//! register) are spelled out. Nothing is registered, nothing is stored.

use http::header;
use mcp_transport_http::{FetchOptions, Fetcher};
use serde::Serialize;
use url::Url;

use crate::challenge::{oauth_challenge, parse_challenges};
use crate::fetch::{check_url, get, is_json, post};
use crate::metadata::{
    AuthorizationServerMetadata, ProtectedResourceMetadata, as_metadata_urls, origin, prm_urls,
    resource_matches,
};

/// One request of the inspection, or one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct InspectStep {
    /// What was looked for ("the MCP server", "protected resource
    /// metadata", …).
    pub what: String,
    /// The URL fetched, when it was a request.
    pub url: Option<String>,
    /// The HTTP status, when one came back.
    pub status: Option<u16>,
    /// What it means, in a few words.
    pub verdict: String,
    /// `false` for a problem that stops (or would stop) the flow.
    pub ok: bool,
}

/// What [`inspect`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct InspectReport {
    /// The server inspected.
    pub server: String,
    /// Every request and check, in the flow's order.
    pub steps: Vec<InspectStep>,
    /// `true` when the flow could log in with what was found.
    pub usable: bool,
}

impl InspectReport {
    fn step(
        &mut self,
        what: &str,
        url: Option<&str>,
        status: Option<u16>,
        verdict: String,
        ok: bool,
    ) {
        self.steps.push(InspectStep {
            what: what.to_owned(),
            url: url.map(str::to_owned),
            status,
            verdict,
            ok,
        });
    }
}

/// Runs the discovery of `server_url` as the flow would and reports every
/// URL tried (see the module docs). Never fails: what went wrong is in
/// the report.
pub async fn inspect(server_url: &str, fetch: FetchOptions) -> InspectReport {
    let mut report = InspectReport {
        server: server_url.to_owned(),
        steps: Vec::new(),
        usable: false,
    };
    let server = match check_url("MCP server URL", server_url) {
        Ok(u) => u,
        Err(e) => {
            report.step(
                "the MCP server",
                Some(server_url),
                None,
                e.to_string(),
                false,
            );
            return report;
        }
    };
    let fetcher = Fetcher::new(fetch);
    let Ok(resource_metadata) = probe(&fetcher, &server, &mut report).await else {
        return report;
    };
    let mut candidates: Vec<String> = resource_metadata.into_iter().collect();
    for url in prm_urls(&server) {
        if !candidates.contains(&url) {
            candidates.push(url);
        }
    }
    let mut found: Option<ProtectedResourceMetadata> = None;
    for url in &candidates {
        if let Some(prm) = fetch_doc::<ProtectedResourceMetadata>(
            &fetcher,
            "protected resource metadata",
            url,
            &mut report,
        )
        .await
        {
            found = Some(prm);
            break;
        }
    }
    let (issuer, legacy) = match found {
        Some(prm) => {
            let matches = resource_matches(&prm.resource, &server);
            report.step(
                "resource check",
                None,
                None,
                if matches {
                    format!("resource {} identifies the server", prm.resource)
                } else {
                    format!(
                        "resource {} does not identify {server_url}: the flow stops here",
                        prm.resource
                    )
                },
                matches,
            );
            if !matches {
                return report;
            }
            match prm.authorization_servers.first() {
                Some(issuer) => (issuer.clone(), false),
                None => {
                    report.step(
                        "authorization servers",
                        None,
                        None,
                        "the metadata lists no authorization_servers".into(),
                        false,
                    );
                    return report;
                }
            }
        }
        None => {
            report.step(
                "protected resource metadata",
                None,
                None,
                "none found: the 2025-03-26 rules apply (metadata at the server's origin)".into(),
                true,
            );
            (origin(&server), true)
        }
    };
    let urls = if legacy {
        vec![format!("{issuer}/.well-known/oauth-authorization-server")]
    } else {
        as_metadata_urls(&issuer).unwrap_or_default()
    };
    let mut metadata = None;
    for url in &urls {
        if let Some(m) = fetch_doc::<AuthorizationServerMetadata>(
            &fetcher,
            "authorization server metadata",
            url,
            &mut report,
        )
        .await
        {
            metadata = Some(m);
            break;
        }
    }
    let metadata = match metadata {
        Some(m) => m,
        None if legacy => {
            report.step(
                "authorization server",
                None,
                None,
                format!("no metadata: the default endpoints {issuer}/authorize, /token, /register"),
                true,
            );
            AuthorizationServerMetadata::fallback(&issuer)
        }
        None => {
            report.step(
                "authorization server",
                None,
                None,
                format!("no metadata for {issuer} at any of its well-known URLs"),
                false,
            );
            return report;
        }
    };
    let issuer_ok = legacy || metadata.issuer == issuer;
    report.step(
        "issuer check",
        None,
        None,
        if issuer_ok {
            format!("issuer {} is the one looked up", metadata.issuer)
        } else {
            format!(
                "the metadata says issuer {:?}, not {issuer:?}: the flow refuses it",
                metadata.issuer
            )
        },
        issuer_ok,
    );
    let s256 = metadata.supports_s256();
    report.step(
        "PKCE",
        None,
        None,
        if s256 {
            "S256 advertised".into()
        } else {
            "S256 not advertised: the flow refuses to proceed".into()
        },
        s256,
    );
    let registration = if metadata.registration_endpoint.is_some() {
        "dynamic client registration offered"
    } else if metadata.client_id_metadata_document_supported {
        "client ID metadata documents accepted"
    } else {
        "no registration: a pre-registered client id is needed (--client-id)"
    };
    report.step("client registration", None, None, registration.into(), true);
    let extras = [
        ("token revocation", metadata.revocation_endpoint.is_some()),
        (
            "device authorization",
            metadata.device_authorization_endpoint.is_some(),
        ),
        (
            "iss on redirects",
            metadata.authorization_response_iss_parameter_supported,
        ),
    ];
    for (what, offered) in extras {
        report.step(
            what,
            None,
            None,
            if offered { "offered" } else { "not offered" }.into(),
            true,
        );
    }
    report.usable = issuer_ok && s256;
    report
}

/// The unauthenticated request: its status and the challenge's
/// `resource_metadata`; `Err` when the server cannot be reached.
async fn probe(
    fetcher: &Fetcher,
    server: &Url,
    report: &mut InspectReport,
) -> Result<Option<String>, ()> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-auth-inspect","version":"0"}}}"#;
    let accept = http::HeaderValue::from_static("application/json, text/event-stream");
    let response = match post(
        fetcher,
        "the MCP server",
        server.as_str(),
        "application/json",
        vec![(header::ACCEPT, accept)],
        body.to_owned(),
    )
    .await
    {
        Ok(r) => r,
        Err(e) => {
            report.step(
                "the MCP server",
                Some(server.as_str()),
                None,
                failed(&e),
                false,
            );
            return Err(());
        }
    };
    let status = response.status().as_u16();
    let values: Vec<&str> = response
        .headers()
        .get_all(header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let challenges = parse_challenges(values);
    let challenge = oauth_challenge(&challenges);
    let resource_metadata = challenge
        .and_then(|c| c.resource_metadata())
        .map(str::to_owned);
    let verdict = match (status, challenge) {
        (401 | 403, Some(c)) => format!(
            "asks for authorization (resource_metadata: {}, scope: {})",
            c.resource_metadata().unwrap_or("none"),
            c.scope().unwrap_or("none")
        ),
        (401 | 403, None) => "refuses without a Bearer challenge".into(),
        (s, _) if (200..300).contains(&s) => "answers without authorization".into(),
        _ => "answers with an error".into(),
    };
    report.step(
        "the MCP server",
        Some(server.as_str()),
        Some(status),
        verdict,
        true,
    );
    Ok(resource_metadata)
}

/// GETs a JSON document of type `T` at `url`, reporting the request.
async fn fetch_doc<T: serde::de::DeserializeOwned>(
    fetcher: &Fetcher,
    what: &str,
    url: &str,
    report: &mut InspectReport,
) -> Option<T> {
    if let Err(e) = check_url("metadata URL", url) {
        report.step(what, Some(url), None, e.to_string(), false);
        return None;
    }
    let response = match get(fetcher, what, url, None).await {
        Ok(r) => r,
        Err(e) => {
            report.step(what, Some(url), None, failed(&e), false);
            return None;
        }
    };
    let status = response.status().as_u16();
    if !response.status().is_success() {
        report.step(what, Some(url), Some(status), "not here".into(), true);
        return None;
    }
    if !is_json(&response) {
        report.step(what, Some(url), Some(status), "not JSON".into(), false);
        return None;
    }
    match crate::metadata::read_json::<T>(response.body()) {
        Ok(doc) => {
            report.step(what, Some(url), Some(status), "found".into(), true);
            Some(doc)
        }
        Err(e) => {
            report.step(
                what,
                Some(url),
                Some(status),
                format!("not a valid document: {e}"),
                false,
            );
            None
        }
    }
}

/// Why a request of the inspection failed, without repeating what it was
/// for (the step says that).
fn failed(e: &crate::error::AuthError) -> String {
    match e {
        crate::error::AuthError::Fetch { source, .. } => crate::error_chain_text(source),
        other => crate::error_chain_text(other),
    }
}
