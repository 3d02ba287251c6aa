//! The auth hook: every place where credentials meet a request, in one
//! file. The OAuth layer plugs in here.
//!
//! - Before each hop of an exchange, [`Connection::add_credentials`] puts
//!   the headers the hook returned on the request, and takes every
//!   credential off a hop that a redirect sent to another origin.
//! - When the server refuses with 401 or 403, [`Connection::on_refusal`]
//!   asks the configured [`AuthProvider`] what to do: send the request
//!   again with the headers it returns (once per exchange), or fail.
//!
//! The hook's header values are marked sensitive, so the `Debug` output of
//! a request or a header map shows them as `Sensitive`.

use std::fmt;

use async_trait::async_trait;
use http::header::{AUTHORIZATION, COOKIE, WWW_AUTHENTICATE};
use http::{HeaderMap, Response, StatusCode, Uri};
use hyper::body::Incoming;
use mcp_transport::TransportError;

use crate::connection::{Connection, lock};
use crate::errors::header_text;
use crate::redact::redact_url;
use crate::wire_rules::MCP_AUTH_SERVER;

/// What the server said when it refused a request with 401 or 403.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthChallenge {
    /// 401 or 403.
    pub status: u16,
    /// The `WWW-Authenticate` header, when present.
    pub www_authenticate: Option<String>,
    /// The `Mcp-Auth-Server` header, when present.
    pub auth_server: Option<String>,
    /// The URL that was refused, credentials removed.
    pub url: String,
}

/// A hook called when the server answers 401 or 403 (spec:
/// `basic/authorization`); the seam where OAuth plugs in.
///
/// When it returns headers (e.g. a fresh `Authorization: Bearer …`), they
/// are kept for every later request of this connection (replacing static
/// headers of the same name) and the refused request is sent again once.
/// When it returns `None`, the request fails with
/// [`TransportError::Http`].
#[async_trait]
pub trait AuthProvider: Send + Sync + fmt::Debug + 'static {
    /// Headers to retry with, or `None` to give up.
    async fn on_unauthorized(&self, challenge: &AuthChallenge) -> Option<HeaderMap>;
}

/// What the exchange does with a reply after [`Connection::on_refusal`].
pub(crate) enum Refusal {
    /// Not the auth hook's business (not a 401/403, no provider, or the
    /// provider already had its one try): the reply stands.
    NotHandled(Response<Incoming>),
    /// The provider returned headers: send the request again.
    Retry,
    /// The provider gave up: the exchange fails with this.
    Fail(TransportError),
}

impl Connection {
    /// Adds the headers the auth hook returned to `headers` (replacing
    /// configured headers of the same name). On a hop that a redirect sent
    /// to another origin (`cross_origin`), takes every credential off
    /// instead: `Authorization`, cookies and the hook's headers.
    pub(crate) fn add_credentials(&self, headers: &mut HeaderMap, cross_origin: bool) {
        let auth = lock(&self.auth_headers).clone();
        for (name, value) in auth.iter() {
            headers.insert(name.clone(), value.clone());
        }
        if cross_origin {
            headers.remove(AUTHORIZATION);
            headers.remove(COOKIE);
            for name in auth.keys() {
                headers.remove(name);
            }
        }
    }

    /// The auth hook's answer to `response`, the reply to a hop sent to
    /// `target`. A 401 or 403, when a provider is configured and `retried`
    /// is still `false`, goes to [`AuthProvider::on_unauthorized`]
    /// (`retried` is then set): headers it returns are kept for every later
    /// request of the connection and the request is sent again; `None`
    /// fails the exchange with `Http` (status and auth headers, no body).
    pub(crate) async fn on_refusal(
        &self,
        response: Response<Incoming>,
        target: &Uri,
        retried: &mut bool,
    ) -> Refusal {
        let status = response.status();
        if !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) || *retried {
            return Refusal::NotHandled(response);
        }
        let Some(provider) = self.config.auth_provider.clone() else {
            return Refusal::NotHandled(response);
        };
        *retried = true;
        let challenge = AuthChallenge {
            status: status.as_u16(),
            www_authenticate: header_text(response.headers(), WWW_AUTHENTICATE.as_str()),
            auth_server: header_text(response.headers(), MCP_AUTH_SERVER),
            url: redact_url(&target.to_string()),
        };
        drop(response);
        if let Some(mut extra) = provider.on_unauthorized(&challenge).await {
            for (_, v) in extra.iter_mut() {
                v.set_sensitive(true);
            }
            let mut auth = lock(&self.auth_headers);
            for (name, value) in extra.iter() {
                auth.insert(name.clone(), value.clone());
            }
            drop(auth);
            return Refusal::Retry;
        }
        // The provider gave up: report the refusal as it was.
        Refusal::Fail(TransportError::http(
            challenge.status,
            String::new(),
            challenge.www_authenticate,
            challenge.auth_server,
            None,
        ))
    }
}
