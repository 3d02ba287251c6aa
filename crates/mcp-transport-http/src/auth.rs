//! The transport's side of the auth hook (`hook.rs`): the credential put
//! on each hop of an exchange, and the answer to a 401/403.

use bytes::Bytes;
use http::header::{AUTHORIZATION, COOKIE, SET_COOKIE, WWW_AUTHENTICATE};
use http::{HeaderMap, Method, Request, Response, StatusCode, Uri};
use http_body_util::Full;
use hyper::body::Incoming;
use mcp_transport::TransportError;

use crate::connection::{Connection, lock};
use crate::errors::header_text;
use crate::hook::{AuthChallenge, AuthDecision, MAX_AUTH_RETRIES, OutgoingRequest};
use crate::redact::redact_url;
use crate::request::RequestKind;
use crate::wire_rules::MCP_AUTH_SERVER;

/// What the exchange does with a reply after [`Connection::on_refusal`].
pub(crate) enum Refusal {
    /// Not the auth hook's business (not a 401/403, no provider, or the
    /// exchange asked the provider [`MAX_AUTH_RETRIES`] times already): the
    /// reply stands.
    NotHandled(Response<Incoming>),
    /// The provider asked for the request to be sent again.
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

    /// Asks the provider, if any, for the credential of `request` (one hop
    /// of an exchange whose kind is `kind`, after `attempt` auth retries)
    /// and puts its headers on it, marked sensitive. A cross-origin hop is
    /// never given one. Returns the credential's generation.
    ///
    /// Errors: [`TransportError::Auth`] when the provider refuses.
    pub(crate) async fn prepare_credential(
        &self,
        request: &mut Request<Full<Bytes>>,
        body: &Bytes,
        kind: &RequestKind,
        attempt: u32,
        cross_origin: bool,
    ) -> Result<Option<u64>, TransportError> {
        let Some(provider) = self.config.auth_provider.as_ref() else {
            return Ok(None);
        };
        if cross_origin {
            return Ok(None);
        }
        let outgoing = OutgoingRequest {
            method: request.method(),
            url: request.uri(),
            body,
            rpc_method: rpc_method(kind),
            attempt,
        };
        let credential = match provider.prepare(&outgoing).await {
            Ok(Some(credential)) => credential,
            Ok(None) => return Ok(None),
            Err(failure) => {
                let url = redact_url(&request.uri().to_string());
                tracing::debug!(connection = %self.label(), kind = %failure.kind, "the auth hook refused to prepare the request");
                return Err(failure.into_error(url, |t| self.scrub(t)));
            }
        };
        self.remember_secrets(&credential.headers);
        let headers = request.headers_mut();
        for name in credential.headers.keys() {
            headers.remove(name);
        }
        for (name, value) in credential.headers.iter() {
            let mut value = value.clone();
            value.set_sensitive(true);
            headers.append(name.clone(), value);
        }
        Ok(credential.generation)
    }

    /// The auth hook's answer to `response`, the reply to a hop sent to
    /// `target` with `method` that carried the credential `sent` (its
    /// generation). A 401 or 403, when a provider is configured and fewer
    /// than [`MAX_AUTH_RETRIES`] answers were given in this exchange
    /// (`attempt`, counted up here), goes to
    /// [`AuthProvider::on_unauthorized`].
    pub(crate) async fn on_refusal(
        &self,
        response: Response<Incoming>,
        target: &Uri,
        method: &Method,
        kind: &RequestKind,
        sent: Option<u64>,
        attempt: &mut u32,
    ) -> Refusal {
        let status = response.status();
        if !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return Refusal::NotHandled(response);
        }
        let Some(provider) = self.config.auth_provider.clone() else {
            return Refusal::NotHandled(response);
        };
        if *attempt >= MAX_AUTH_RETRIES {
            tracing::debug!(connection = %self.label(), status = status.as_u16(), attempts = *attempt, "refused again after the auth hook's last retry; reporting the refusal");
            return Refusal::NotHandled(response);
        }
        let mut headers = response.headers().clone();
        if let http::header::Entry::Occupied(mut cookies) = headers.entry(SET_COOKIE) {
            for value in cookies.iter_mut() {
                value.set_sensitive(true);
            }
        }
        let challenge = AuthChallenge {
            status: status.as_u16(),
            www_authenticate: header_text(&headers, WWW_AUTHENTICATE.as_str()),
            auth_server: header_text(&headers, MCP_AUTH_SERVER),
            url: redact_url(&target.to_string()),
            headers,
            sent_credential: sent,
            attempt: *attempt,
            method: method.clone(),
            rpc_method: rpc_method(kind).map(str::to_owned),
        };
        drop(response);
        *attempt += 1;
        match provider.on_unauthorized(&challenge).await {
            AuthDecision::Retry => Refusal::Retry,
            AuthDecision::RetryWith(extra) => {
                self.remember_secrets(&extra);
                let mut auth = lock(&self.auth_headers);
                for name in extra.keys() {
                    auth.remove(name);
                }
                for (name, value) in extra.iter() {
                    let mut value = value.clone();
                    value.set_sensitive(true);
                    auth.append(name.clone(), value);
                }
                drop(auth);
                Refusal::Retry
            }
            AuthDecision::Fail(failure) => {
                tracing::debug!(connection = %self.label(), status = challenge.status, kind = %failure.kind, "the auth hook gave up on a refusal");
                Refusal::Fail(failure.into_error(challenge.url, |t| self.scrub(t)))
            }
        }
    }
}

/// The JSON-RPC method a request of `kind` carries, if any.
fn rpc_method(kind: &RequestKind) -> Option<&str> {
    match kind {
        RequestKind::Post { method, .. } => method.as_deref(),
        RequestKind::Get { .. } | RequestKind::Delete => None,
    }
}
