//! Finding the authorization server of an MCP server (spec
//! `basic/authorization` § Authorization Server Discovery): Protected
//! Resource Metadata from the challenge's `resource_metadata` or the
//! well-known URLs, its `resource` checked against the server; then the
//! authorization server's metadata in the spec's order, its `issuer`
//! compared as the exact string. A server without Protected Resource
//! Metadata is treated as the 2025-03-26 revision says: the authorization
//! base is the MCP URL's origin, with `/authorize`, `/token` and
//! `/register` when it has no metadata either.
//!
//! A configured authorization server metadata URL replaces only the last
//! step: the document comes from there, and its `issuer` must still be one
//! the resource's metadata names (or, with none, on that URL's origin).
//!
//! Nothing is cached: each authorization discovers anew, so a server that
//! moved to another authorization server is followed.

use mcp_transport_http::Fetcher;
use serde::de::DeserializeOwned;
use url::Url;

use crate::error::AuthError;
use crate::fetch::{check_url, get, is_json};
use crate::metadata::{
    AuthorizationServerMetadata, ProtectedResourceMetadata, as_metadata_urls, canonical_server_uri,
    origin, prm_urls, resource_matches,
};

/// What discovery found.
#[derive(Debug, Clone)]
pub(crate) struct Discovered {
    /// The RFC 8707 `resource` to send: the PRM `resource`, or the
    /// canonical server URI without PRM.
    pub(crate) resource: String,
    /// The PRM's `scopes_supported`.
    pub(crate) prm_scopes: Option<Vec<String>>,
    /// The authorization server's metadata (issuer checked).
    pub(crate) metadata: AuthorizationServerMetadata,
}

/// Outcome of looking for one document at one URL.
enum Found<T> {
    Yes(T),
    /// Not there (404, another non-2xx): try the next URL.
    No(u16),
}

/// GETs `url` and parses a JSON document of type `T` from a 2xx reply.
///
/// Errors: `Fetch` for a network failure; `Metadata` for a 2xx that is not
/// the JSON document.
async fn fetch_doc<T: DeserializeOwned>(
    fetcher: &Fetcher,
    what: &'static str,
    url: &str,
    protocol_version: Option<&str>,
) -> Result<Found<T>, AuthError> {
    let response = get(fetcher, what, url, protocol_version).await?;
    let status = response.status();
    if !status.is_success() {
        tracing::debug!(what, url, status = status.as_u16(), "not found here");
        return Ok(Found::No(status.as_u16()));
    }
    if !is_json(&response) {
        return Err(AuthError::Metadata {
            what,
            url: url.to_owned(),
            problem: "the reply is not JSON".into(),
        });
    }
    crate::metadata::read_json(response.body())
        .map(Found::Yes)
        .map_err(|e| AuthError::Metadata {
            what,
            url: url.to_owned(),
            problem: format!("not a valid document: {e}"),
        })
}

/// Discovers the authorization server for the MCP server at `server`,
/// starting from the challenge's `resource_metadata` URL when given;
/// `as_metadata_url`, when configured, is where the authorization
/// server's metadata is read.
///
/// Errors: `ResourceMismatch` (no authorization request may follow),
/// `IssuerMismatch`, `Metadata`, `InsecureUrl`, `Fetch`.
pub(crate) async fn discover(
    fetcher: &Fetcher,
    server: &Url,
    resource_metadata: Option<&str>,
    as_metadata_url: Option<&str>,
) -> Result<Discovered, AuthError> {
    if let Some(url) = as_metadata_url {
        check_url("authorization server metadata URL", url)?;
    }
    let mut candidates = Vec::new();
    if let Some(url) = resource_metadata {
        check_url("protected resource metadata URL", url)?;
        candidates.push(url.to_owned());
    }
    for url in prm_urls(server) {
        if !candidates.contains(&url) {
            candidates.push(url);
        }
    }
    let mut prm = None;
    for url in &candidates {
        if let Found::Yes(doc) = fetch_doc::<ProtectedResourceMetadata>(
            fetcher,
            "protected resource metadata",
            url,
            None,
        )
        .await?
        {
            prm = Some((url.clone(), doc));
            break;
        }
    }
    let Some((prm_url, prm)) = prm else {
        if let Some(url) = as_metadata_url {
            let metadata = metadata_at(fetcher, url, None).await?;
            return Ok(Discovered {
                resource: canonical_server_uri(server),
                prm_scopes: None,
                metadata,
            });
        }
        return discover_legacy(fetcher, server).await;
    };
    if !resource_matches(&prm.resource, server) {
        return Err(AuthError::ResourceMismatch {
            resource: prm.resource,
            server: server.to_string(),
        });
    }
    // The server's first choice (RFC 9728 § 7.6 leaves the choice to the
    // client; the list is in its order of preference).
    let Some(issuer) = prm.authorization_servers.first().cloned() else {
        return Err(AuthError::Metadata {
            what: "protected resource metadata",
            url: prm_url,
            problem: "it lists no authorization_servers".into(),
        });
    };
    check_url("authorization server", &issuer)?;
    let metadata = match as_metadata_url {
        Some(url) => metadata_at(fetcher, url, Some(&prm.authorization_servers)).await?,
        None => discover_as(fetcher, &issuer).await?,
    };
    Ok(Discovered {
        resource: prm.resource,
        prm_scopes: prm.scopes_supported,
        metadata,
    })
}

/// The metadata of `issuer`, from the first of its well-known URLs that
/// has it; its `issuer` must be `issuer`, byte for byte.
pub(crate) async fn discover_as(
    fetcher: &Fetcher,
    issuer: &str,
) -> Result<AuthorizationServerMetadata, AuthError> {
    let urls = as_metadata_urls(issuer).ok_or_else(|| AuthError::Metadata {
        what: "authorization server metadata",
        url: issuer.to_owned(),
        problem: "the issuer is not an absolute URL".into(),
    })?;
    let mut last = String::new();
    for url in &urls {
        last.clone_from(url);
        if let Found::Yes(metadata) = fetch_doc::<AuthorizationServerMetadata>(
            fetcher,
            "authorization server metadata",
            url,
            None,
        )
        .await?
        {
            if metadata.issuer != issuer {
                return Err(AuthError::IssuerMismatch {
                    expected: issuer.to_owned(),
                    got: metadata.issuer,
                    url: url.clone(),
                });
            }
            check_endpoints(&metadata)?;
            return Ok(metadata);
        }
    }
    Err(AuthError::Metadata {
        what: "authorization server metadata",
        url: last,
        problem: format!("none at any of its {} well-known URLs", urls.len()),
    })
}

/// The authorization server metadata at the configured `url`. Its `issuer`
/// must be one of `listed` (the resource's `authorization_servers`) or,
/// when the resource published none, have `url`'s origin: a configured URL
/// never lets a document name an authorization server nobody vouched for.
///
/// Errors: `Metadata` when there is no document there; `IssuerMismatch`;
/// `InsecureUrl` for an endpoint; `Fetch`.
async fn metadata_at(
    fetcher: &Fetcher,
    url: &str,
    listed: Option<&[String]>,
) -> Result<AuthorizationServerMetadata, AuthError> {
    let metadata = match fetch_doc::<AuthorizationServerMetadata>(
        fetcher,
        "authorization server metadata",
        url,
        None,
    )
    .await?
    {
        Found::Yes(metadata) => metadata,
        Found::No(status) => {
            return Err(AuthError::Metadata {
                what: "authorization server metadata",
                url: url.to_owned(),
                problem: format!("HTTP {status}"),
            });
        }
    };
    let vouched = match listed {
        Some(servers) => servers.contains(&metadata.issuer),
        None => {
            let origin_of = |u: &str| Url::parse(u).ok().map(|u| origin(&u));
            origin_of(&metadata.issuer).is_some() && origin_of(&metadata.issuer) == origin_of(url)
        }
    };
    if !vouched {
        let expected = match listed {
            Some(servers) => servers.join(" or "),
            None => Url::parse(url)
                .map(|u| format!("{} (the metadata URL's origin)", origin(&u)))
                .unwrap_or_default(),
        };
        return Err(AuthError::IssuerMismatch {
            expected,
            got: metadata.issuer,
            url: url.to_owned(),
        });
    }
    check_url("authorization server", &metadata.issuer)?;
    check_endpoints(&metadata)?;
    Ok(metadata)
}

/// The 2025-03-26 way: metadata at the MCP URL's origin, else the default
/// endpoints there.
async fn discover_legacy(fetcher: &Fetcher, server: &Url) -> Result<Discovered, AuthError> {
    let base = origin(server);
    let url = format!("{base}/.well-known/oauth-authorization-server");
    tracing::debug!(server = %base, "no protected resource metadata; using the 2025-03-26 discovery");
    let metadata = match fetch_doc::<AuthorizationServerMetadata>(
        fetcher,
        "authorization server metadata",
        &url,
        Some("2025-03-26"),
    )
    .await?
    {
        Found::Yes(metadata) => {
            if metadata.issuer != base {
                // The 2025-03-26 revision has no issuer rule; the metadata
                // is still the server's own.
                tracing::warn!(expected = %base, got = %metadata.issuer, "authorization server metadata issuer differs from the server's origin");
            }
            metadata
        }
        Found::No(404) => AuthorizationServerMetadata::fallback(&base),
        Found::No(status) => {
            return Err(AuthError::Metadata {
                what: "authorization server metadata",
                url,
                problem: format!("HTTP {status}"),
            });
        }
    };
    check_endpoints(&metadata)?;
    Ok(Discovered {
        resource: canonical_server_uri(server),
        prm_scopes: None,
        metadata,
    })
}

/// Every endpoint is https (or loopback http).
fn check_endpoints(metadata: &AuthorizationServerMetadata) -> Result<(), AuthError> {
    check_url("authorization endpoint", &metadata.authorization_endpoint)?;
    check_url("token endpoint", &metadata.token_endpoint)?;
    if let Some(r) = &metadata.registration_endpoint {
        check_url("registration endpoint", r)?;
    }
    Ok(())
}
