//! [`inspect`]: discovery for people, the tool for a broken server. It
//! takes the flow's own discovery walk (`discovery.rs`) with an observer:
//! every URL the flow tries (the unauthenticated request, each Protected
//! Resource Metadata URL, each authorization server metadata URL) is
//! reported with its status and a verdict, and so is each check the flow
//! makes (resource, issuer, PKCE); the walk stops where the flow would.
//! What the metadata offers besides (a way to register, revocation,
//! device authorization, `iss`) is listed after. Nothing is registered,
//! nothing is stored.

use mcp_transport_http::{FetchOptions, Fetcher};
use serde::Serialize;

use crate::discovery::{Observer, Walk};
use crate::error::AuthError;
use crate::fetch::check_url;
use crate::metadata::AuthorizationServerMetadata;

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

impl Observer for InspectReport {
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

/// Takes the flow's discovery walk for `server_url`, as a login would,
/// and reports every URL tried and every check (see the module docs).
/// Never fails: what went wrong is in the report.
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
    let walked: Result<(AuthorizationServerMetadata, bool), AuthError> = async {
        let mut walk = Walk::observed(&fetcher, &mut report);
        let probed = walk.probe(&server, "mcp-auth-inspect").await?;
        let discovered = walk
            .discover(&server, probed.resource_metadata.as_deref(), None)
            .await?;
        let pkce = walk.require_pkce(&discovered.metadata).is_ok();
        Ok((discovered.metadata, pkce))
    }
    .await;
    let Ok((metadata, pkce)) = walked else {
        // The walk stopped; its last step says why.
        return report;
    };
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
    report.usable = pkce;
    report
}
