//! Finding the authorization server of an MCP server (spec
//! `basic/authorization` § Authorization Server Discovery), as one walk
//! that both the flow and [`inspect`](crate::inspect()) take: the
//! unauthenticated request and its challenge; Protected Resource Metadata
//! from the challenge's `resource_metadata` or the well-known URLs, its
//! `resource` checked against the server; then the authorization server's
//! metadata in the spec's order, its `issuer` compared as the exact
//! string; then PKCE `S256`. A server without Protected Resource Metadata
//! is treated as the 2025-03-26 revision says: the authorization base is
//! the MCP URL's origin, with `/authorize`, `/token` and `/register` when
//! it has no metadata either.
//!
//! A configured authorization server metadata URL replaces only the last
//! step: the document comes from there, and its `issuer` must still be one
//! the resource's metadata names (or, with none, on that URL's origin).
//!
//! The walk takes an [`Observer`]: `inspect` passes one and reports each
//! URL tried with its status and verdict, and each check; the flow passes
//! none. Every way the walk stops is a step the observer sees, so what
//! `inspect` shows is what the flow does.
//!
//! Nothing is cached: each authorization discovers anew, so a server that
//! moved to another authorization server is followed.
//!
//! The walk keeps its own time: each document (each URL tried) must
//! arrive whole within the per-document time, and the walk as a whole
//! within its own, so that a server that does not answer, or trickles its
//! answer, ends discovery with an error naming the URL well within the
//! request that needed it. The fetcher's own timeout covers one exchange
//! only, and is as long as a request's.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use http::header;
use mcp_transport_http::Fetcher;
use serde::de::DeserializeOwned;
use url::Url;

use crate::challenge::{oauth_challenge, parse_challenges};
use crate::config::{DISCOVERY_DOCUMENT_TIMEOUT, DISCOVERY_TIMEOUT};
use crate::error::{AuthError, MetadataProblem};
use crate::fetch::{check_url, get, is_json, post};
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

/// What the server asked for when called without a token: the
/// `resource_metadata` and `scope` of its 401 (or 403) challenge.
#[derive(Debug, Clone, Default)]
pub(crate) struct Probed {
    pub(crate) resource_metadata: Option<String>,
    pub(crate) scope: Option<String>,
}

/// Watches the walk: each request (what was looked for, the URL, the HTTP
/// status when one came back) and each check, with its verdict in a few
/// words and whether the flow goes on (`ok`) or stops there.
pub(crate) trait Observer: Send {
    fn step(
        &mut self,
        what: &str,
        url: Option<&str>,
        status: Option<u16>,
        verdict: String,
        ok: bool,
    );
}

/// The discovery walk: its requests go through the flow's fetcher; an
/// observer, when there is one, sees every step.
pub(crate) struct Walk<'a> {
    fetcher: &'a Fetcher,
    observer: Option<&'a mut dyn Observer>,
    /// The longest wait for one document.
    per_document: Duration,
    /// The whole walk's time, and when it runs out.
    whole: Duration,
    deadline: tokio::time::Instant,
}

/// Outcome of looking for one document at one URL.
enum Found<T> {
    Yes(T),
    /// Not there (404, another non-2xx): the caller decides what that
    /// means.
    No(u16),
}

/// What the metadata of the authorization server is looked up for.
enum Vouched<'l> {
    /// The resource's `authorization_servers`.
    Listed(&'l [String]),
    /// No resource metadata: the metadata URL's origin.
    Origin,
}

impl<'a> Walk<'a> {
    /// The flow's walk: nobody watches.
    pub(crate) fn new(fetcher: &'a Fetcher) -> Walk<'a> {
        Walk {
            fetcher,
            observer: None,
            per_document: DISCOVERY_DOCUMENT_TIMEOUT,
            whole: DISCOVERY_TIMEOUT,
            deadline: tokio::time::Instant::now() + DISCOVERY_TIMEOUT,
        }
    }

    /// The walk with `observer` watching every step.
    pub(crate) fn observed(fetcher: &'a Fetcher, observer: &'a mut dyn Observer) -> Walk<'a> {
        Walk {
            observer: Some(observer),
            ..Walk::new(fetcher)
        }
    }

    /// The walk giving each document at most `per_document`, and itself
    /// (from now) at most `whole`.
    pub(crate) fn with_deadlines(mut self, per_document: Duration, whole: Duration) -> Self {
        self.per_document = per_document;
        self.whole = whole;
        self.deadline = tokio::time::Instant::now() + whole;
        self
    }

    /// `request` (the fetch of `what` at `url`), given up on when the
    /// document's time or the walk's runs out first. The fetcher's own
    /// timeout, when it comes first, is reported the same way. A failure is
    /// a step the observer sees.
    ///
    /// Errors: `Metadata` with `NoAnswer` or `DiscoveryTimeout`, naming
    /// `url`; the request's own.
    async fn timed<T>(
        &mut self,
        what: &'static str,
        url: &str,
        request: impl Future<Output = Result<T, AuthError>>,
    ) -> Result<T, AuthError> {
        let left = self
            .deadline
            .saturating_duration_since(tokio::time::Instant::now());
        let (budget, problem) = if left < self.per_document {
            (
                left,
                MetadataProblem::DiscoveryTimeout {
                    ms: millis(self.whole),
                },
            )
        } else {
            (
                self.per_document,
                MetadataProblem::NoAnswer {
                    ms: millis(self.per_document),
                },
            )
        };
        let problem = match tokio::time::timeout(budget, request).await {
            Ok(Err(AuthError::Fetch { source, .. })) if source.is_timeout() => {
                MetadataProblem::NoAnswer {
                    ms: millis(self.fetcher.options().timeout),
                }
            }
            Ok(Err(e)) => {
                self.note(what, Some(url), None, failed(&e), false);
                return Err(e);
            }
            Ok(Ok(response)) => return Ok(response),
            Err(_) => problem,
        };
        tracing::warn!(what, url = %crate::fetch::redacted(url), %problem, "discovery gave up on a document");
        self.note(what, Some(url), None, problem.to_string(), false);
        Err(AuthError::metadata(what, url, problem))
    }

    fn note(
        &mut self,
        what: &str,
        url: Option<&str>,
        status: Option<u16>,
        verdict: impl Into<String>,
        ok: bool,
    ) {
        if let Some(o) = self.observer.as_deref_mut() {
            o.step(what, url, status, verdict.into(), ok);
        }
    }

    /// `check_url`, the refusal seen as the step `what` at `url`.
    fn checked(&mut self, step: &str, what: &'static str, url: &str) -> Result<Url, AuthError> {
        check_url(what, url).inspect_err(|e| self.note(step, Some(url), None, e.to_string(), false))
    }

    /// The unauthenticated request to the MCP server (an `initialize`
    /// with `client_name` as its `clientInfo.name`): what its 401 (or 403)
    /// challenge names. A server that answers otherwise names nothing
    /// (discovery then uses the well-known URLs).
    ///
    /// Errors: `Fetch` when the server cannot be reached.
    pub(crate) async fn probe(
        &mut self,
        server: &Url,
        client_name: &str,
    ) -> Result<Probed, AuthError> {
        let what = "the MCP server";
        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": client_name, "version": "0"}}
        })
        .to_string();
        let accept = http::HeaderValue::from_static("application/json, text/event-stream");
        let request = post(
            self.fetcher,
            what,
            server.as_str(),
            "application/json",
            vec![(header::ACCEPT, accept)],
            body,
        );
        let response = self.timed(what, server.as_str(), request).await?;
        let status = response.status().as_u16();
        let values: Vec<&str> = response
            .headers()
            .get_all(header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let challenges = parse_challenges(values);
        let challenge = oauth_challenge(&challenges).filter(|_| status == 401 || status == 403);
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
        if challenge.is_none() {
            tracing::debug!(status, "no challenge to an unauthenticated request");
        }
        self.note(what, Some(server.as_str()), Some(status), verdict, true);
        Ok(Probed {
            resource_metadata: challenge
                .and_then(|c| c.resource_metadata())
                .map(str::to_owned),
            scope: challenge.and_then(|c| c.scope()).map(str::to_owned),
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
        &mut self,
        server: &Url,
        resource_metadata: Option<&str>,
        as_metadata_url: Option<&str>,
    ) -> Result<Discovered, AuthError> {
        if let Some(url) = as_metadata_url {
            self.checked(
                "authorization server metadata",
                "authorization server metadata URL",
                url,
            )?;
        }
        let mut candidates = Vec::new();
        if let Some(url) = resource_metadata {
            self.checked(
                "protected resource metadata",
                "protected resource metadata URL",
                url,
            )?;
            candidates.push(url.to_owned());
        }
        for url in prm_urls(server) {
            if !candidates.contains(&url) {
                candidates.push(url);
            }
        }
        let what = "protected resource metadata";
        let mut prm = None;
        for url in &candidates {
            match self
                .fetch_doc::<ProtectedResourceMetadata>(what, url, None)
                .await?
            {
                Found::Yes(doc) => {
                    prm = Some((url.clone(), doc));
                    break;
                }
                Found::No(status) => self.note(what, Some(url), Some(status), "not here", true),
            }
        }
        let Some((prm_url, prm)) = prm else {
            if let Some(url) = as_metadata_url {
                self.note(
                    what,
                    None,
                    None,
                    "none found: the configured authorization server metadata URL is used",
                    true,
                );
                let metadata = self.metadata_at(url, Vouched::Origin).await?;
                return Ok(Discovered {
                    resource: canonical_server_uri(server),
                    prm_scopes: None,
                    metadata,
                });
            }
            self.note(
                what,
                None,
                None,
                "none found: the 2025-03-26 rules apply (metadata at the server's origin)",
                true,
            );
            return self.discover_legacy(server).await;
        };
        let matches = resource_matches(&prm.resource, server);
        let verdict = if matches {
            format!("resource {} identifies the server", prm.resource)
        } else {
            format!(
                "resource {} does not identify {server}: the flow stops here",
                prm.resource
            )
        };
        self.note("resource check", None, None, verdict, matches);
        if !matches {
            return Err(AuthError::ResourceMismatch {
                resource: prm.resource,
                server: server.to_string(),
            });
        }
        // The server's first choice (RFC 9728 § 7.6 leaves the choice to the
        // client; the list is in its order of preference).
        let Some(issuer) = prm.authorization_servers.first().cloned() else {
            self.note(
                "authorization servers",
                None,
                None,
                "the metadata lists no authorization_servers",
                false,
            );
            return Err(AuthError::metadata(
                what,
                prm_url,
                MetadataProblem::NoAuthorizationServers,
            ));
        };
        self.checked("authorization server", "authorization server", &issuer)?;
        let metadata = match as_metadata_url {
            Some(url) => {
                self.metadata_at(url, Vouched::Listed(&prm.authorization_servers))
                    .await?
            }
            None => self.issuer_metadata(&issuer).await?,
        };
        Ok(Discovered {
            resource: prm.resource,
            prm_scopes: prm.scopes_supported,
            metadata,
        })
    }

    /// The metadata of `issuer`, from the first of its well-known URLs that
    /// has it; its `issuer` must be `issuer`, byte for byte.
    ///
    /// Errors: `Metadata` when none of its URLs has it, or `issuer` is not
    /// an absolute URL; `IssuerMismatch`; `InsecureUrl` for an endpoint;
    /// `Fetch`.
    pub(crate) async fn issuer_metadata(
        &mut self,
        issuer: &str,
    ) -> Result<AuthorizationServerMetadata, AuthError> {
        let what = "authorization server metadata";
        let Some(urls) = as_metadata_urls(issuer) else {
            self.note(
                "authorization server",
                Some(issuer),
                None,
                "the issuer is not an absolute URL",
                false,
            );
            return Err(AuthError::metadata(
                what,
                issuer,
                MetadataProblem::IssuerNotAUrl,
            ));
        };
        for url in &urls {
            match self
                .fetch_doc::<AuthorizationServerMetadata>(what, url, None)
                .await?
            {
                Found::Yes(metadata) => {
                    let same = metadata.issuer == issuer;
                    let verdict = if same {
                        format!("issuer {} is the one looked up", metadata.issuer)
                    } else {
                        format!(
                            "the metadata says issuer {:?}, not {issuer:?}: the flow refuses it",
                            metadata.issuer
                        )
                    };
                    self.note("issuer check", None, None, verdict, same);
                    if !same {
                        return Err(AuthError::IssuerMismatch {
                            expected: issuer.to_owned(),
                            got: metadata.issuer,
                            url: url.clone(),
                        });
                    }
                    self.check_endpoints(&metadata)?;
                    return Ok(metadata);
                }
                Found::No(status) => self.note(what, Some(url), Some(status), "not here", true),
            }
        }
        self.note(
            "authorization server",
            None,
            None,
            format!("no metadata for {issuer} at any of its well-known URLs"),
            false,
        );
        Err(AuthError::metadata(
            what,
            urls.last().cloned().unwrap_or_default(),
            MetadataProblem::NotFound { tried: urls.len() },
        ))
    }

    /// The authorization server metadata at the configured `url`. Its
    /// `issuer` must be one the resource listed or, when the resource
    /// published no metadata, have `url`'s origin: a configured URL never
    /// lets a document name an authorization server nobody vouched for.
    ///
    /// Errors: `Metadata` when there is no document there; `IssuerMismatch`;
    /// `InsecureUrl` for an endpoint; `Fetch`.
    async fn metadata_at(
        &mut self,
        url: &str,
        vouched: Vouched<'_>,
    ) -> Result<AuthorizationServerMetadata, AuthError> {
        let what = "authorization server metadata";
        let metadata = match self
            .fetch_doc::<AuthorizationServerMetadata>(what, url, None)
            .await?
        {
            Found::Yes(metadata) => metadata,
            Found::No(status) => {
                self.note(what, Some(url), Some(status), "no metadata here", false);
                return Err(AuthError::metadata(
                    what,
                    url,
                    MetadataProblem::Status(status),
                ));
            }
        };
        let origin_of = |u: &str| Url::parse(u).ok().map(|u| origin(&u));
        let (ok, expected) = match vouched {
            Vouched::Listed(servers) => (servers.contains(&metadata.issuer), servers.join(" or ")),
            Vouched::Origin => (
                origin_of(&metadata.issuer).is_some()
                    && origin_of(&metadata.issuer) == origin_of(url),
                origin_of(url)
                    .map(|o| format!("{o} (the metadata URL's origin)"))
                    .unwrap_or_default(),
            ),
        };
        let verdict = if ok {
            format!("issuer {} is one the resource vouches for", metadata.issuer)
        } else {
            format!(
                "the metadata says issuer {:?}, not {expected}: the flow refuses it",
                metadata.issuer
            )
        };
        self.note("issuer check", None, None, verdict, ok);
        if !ok {
            return Err(AuthError::IssuerMismatch {
                expected,
                got: metadata.issuer,
                url: url.to_owned(),
            });
        }
        self.checked(
            "authorization server",
            "authorization server",
            &metadata.issuer,
        )?;
        self.check_endpoints(&metadata)?;
        Ok(metadata)
    }

    /// The 2025-03-26 way: metadata at the MCP URL's origin, else (on a
    /// 404) the default endpoints there.
    async fn discover_legacy(&mut self, server: &Url) -> Result<Discovered, AuthError> {
        let what = "authorization server metadata";
        let base = origin(server);
        let url = format!("{base}/.well-known/oauth-authorization-server");
        tracing::debug!(server = %base, "no protected resource metadata; using the 2025-03-26 discovery");
        let metadata = match self
            .fetch_doc::<AuthorizationServerMetadata>(what, &url, Some("2025-03-26"))
            .await?
        {
            Found::Yes(metadata) => metadata,
            Found::No(404) => {
                self.note(what, Some(&url), Some(404), "not here", true);
                self.note(
                    "authorization server",
                    None,
                    None,
                    format!(
                        "no metadata: the default endpoints {base}/authorize, /token, /register"
                    ),
                    true,
                );
                AuthorizationServerMetadata::fallback(&base)
            }
            Found::No(status) => {
                self.note(
                    what,
                    Some(&url),
                    Some(status),
                    "neither metadata nor a 404 (the default endpoints need a 404)",
                    false,
                );
                return Err(AuthError::metadata(
                    what,
                    url,
                    MetadataProblem::Status(status),
                ));
            }
        };
        let verdict = if metadata.issuer == base {
            format!("issuer {} is the one looked up", metadata.issuer)
        } else {
            // The 2025-03-26 revision has no issuer rule; the metadata is
            // still the server's own.
            tracing::warn!(expected = %base, got = %metadata.issuer, "authorization server metadata issuer differs from the server's origin");
            format!(
                "issuer {} is not the server's origin {base}; the 2025-03-26 rules allow it",
                metadata.issuer
            )
        };
        self.note("issuer check", None, None, verdict, true);
        self.check_endpoints(&metadata)?;
        Ok(Discovered {
            resource: canonical_server_uri(server),
            prm_scopes: None,
            metadata,
        })
    }

    /// PKCE `S256` is advertised: without it the spec forbids an
    /// authorization code flow (§ Authorization Code Protection).
    ///
    /// Errors: `PkceUnsupported`.
    pub(crate) fn require_pkce(
        &mut self,
        metadata: &AuthorizationServerMetadata,
    ) -> Result<(), AuthError> {
        let s256 = metadata.supports_s256();
        let verdict = if s256 {
            "S256 advertised"
        } else {
            "S256 not advertised: the flow refuses to proceed"
        };
        self.note("PKCE", None, None, verdict, s256);
        if s256 {
            Ok(())
        } else {
            Err(AuthError::PkceUnsupported {
                issuer: metadata.issuer.clone(),
            })
        }
    }

    /// Every endpoint is https (or loopback http).
    fn check_endpoints(&mut self, metadata: &AuthorizationServerMetadata) -> Result<(), AuthError> {
        let step = "authorization server endpoints";
        self.checked(
            step,
            "authorization endpoint",
            &metadata.authorization_endpoint,
        )?;
        self.checked(step, "token endpoint", &metadata.token_endpoint)?;
        if let Some(r) = &metadata.registration_endpoint {
            self.checked(step, "registration endpoint", r)?;
        }
        Ok(())
    }

    /// GETs `url` and parses a JSON document of type `T` from a 2xx reply;
    /// a reply that is not one stops the walk.
    ///
    /// Errors: `Fetch` for a network failure; `Metadata` for a 2xx that is
    /// not the JSON document.
    async fn fetch_doc<T: DeserializeOwned>(
        &mut self,
        what: &'static str,
        url: &str,
        protocol_version: Option<&str>,
    ) -> Result<Found<T>, AuthError> {
        let request = get(self.fetcher, what, url, protocol_version);
        let response = self.timed(what, url, request).await?;
        let status = response.status();
        if !status.is_success() {
            tracing::debug!(what, url, status = status.as_u16(), "not found here");
            return Ok(Found::No(status.as_u16()));
        }
        let status = Some(status.as_u16());
        if !is_json(&response) {
            self.note(what, Some(url), status, "not JSON", false);
            return Err(AuthError::metadata(what, url, MetadataProblem::NotJson));
        }
        match crate::metadata::read_json(response.body()) {
            Ok(doc) => {
                self.note(what, Some(url), status, "found", true);
                Ok(Found::Yes(doc))
            }
            Err(e) => {
                // Metadata documents are public: the parser's words may be
                // shown whole.
                let verdict = format!("not a valid document: {e}");
                self.note(what, Some(url), status, verdict, false);
                Err(AuthError::Metadata {
                    what,
                    url: url.to_owned(),
                    reason: MetadataProblem::NotADocument,
                    source: Some(Arc::new(e)),
                })
            }
        }
    }
}

/// `d` in whole milliseconds.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Why a request of the walk failed, without repeating what it was for
/// (the step says that).
fn failed(e: &AuthError) -> String {
    match e {
        AuthError::Fetch { source, .. } => crate::error_chain_text(source),
        other => crate::error_chain_text(other),
    }
}
