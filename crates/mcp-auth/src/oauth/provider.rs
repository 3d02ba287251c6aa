//! How [`OAuth`] answers the HTTP transport's auth hook: before a request,
//! the current access token (refreshed when it is about to expire); on a
//! 401, a retry when the refused token was already replaced, else a
//! refresh, else a whole authorization, but never for a token issued
//! moments before (a server that rejects freshly issued tokens is
//! reported, not logged into again); on a 403 `insufficient_scope`, a
//! step-up authorization with the union of scopes, a bounded number of
//! times per operation; a `DPoP` refusal as `dpop_flow.rs` says, and every
//! reply's `DPoP-Nonce` learnt.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use async_trait::async_trait;
use http::{HeaderMap, HeaderValue};
use mcp_transport_http::{
    AuthChallenge, AuthDecision, AuthFailure, AuthProvider, Credential, IncomingResponse,
    OutgoingRequest,
};

use crate::challenge::{header_challenges, oauth_challenge};
use crate::error::{AuthError, ResponseProblem};
use crate::store::{Revision, StoreKey, TokenRecord};
use crate::token::expiring;

use super::dpop_flow::DpopRefusal;
use super::{Inner, OAuth, lock};

/// How long after they were issued tokens that the server refuses count
/// as freshly issued (see `Inner::freshly_issued`): a server that takes
/// a token for longer has shown that it accepts this kind of token, and a
/// later refusal (a revocation) calls for a refresh or a login as usual.
const FRESHLY_ISSUED: Duration = Duration::from_secs(60);

impl OAuth {
    /// The transport hook for this flow: put it in
    /// [`HttpConfig::with_auth_provider`](mcp_transport_http::HttpConfig::with_auth_provider).
    pub fn provider(&self) -> Arc<dyn AuthProvider> {
        Arc::new(self.clone())
    }
}

/// The hook's failure for `e`: its text is the reason, its cause (a
/// network error, say) the source; the text is not repeated in the chain.
fn failure(e: AuthError) -> AuthFailure {
    let failure = AuthFailure::new(e.kind(), e.to_string());
    match e.cause() {
        Some(cause) => failure.with_source(cause),
        None => failure,
    }
}

impl Inner {
    /// The header for the current token, refreshing it first when it is
    /// about to expire: `Bearer`, or for a DPoP-bound token `DPoP` with a
    /// fresh proof for `request`. The credential's generation is the
    /// revision of the stored record it came from.
    async fn credential(
        &self,
        request: &OutgoingRequest<'_>,
    ) -> Result<Option<Credential>, AuthError> {
        let Some((key, tokens, revision)) = self.current_tokens().await? else {
            return Ok(None);
        };
        let (key, tokens, revision) = if expiring(&tokens, self.config.refresh_skew)
            && (tokens.refresh_token.is_some() || self.config.grant.is_some())
        {
            let _flow = self.flow.lock().await;
            // Another request (or process) may have refreshed meanwhile:
            // `refresh` sees it and leaves the new tokens as they are.
            if let Err(e) = self.refresh(Some(revision)).await {
                // A transient failure keeps the tokens; the old one is sent
                // and the server decides.
                tracing::warn!(error = %e, "refreshing the access token ahead of expiry failed");
            }
            match self.current_tokens().await? {
                Some((k, t, r)) => (k, t, r),
                None => return Ok(None),
            }
        } else {
            (key, tokens, revision)
        };
        if let Some(jkt) = &tokens.dpop_jkt {
            let headers = self.dpop_headers(&key, &tokens, jkt, request).await?;
            return Ok(headers.map(|h| Credential::new(h).with_generation(revision.0)));
        }
        let mut value = HeaderValue::try_from(format!("Bearer {}", tokens.access_token.expose()))
            .map_err(|_| AuthError::TokenResponse {
            url: "(stored token)".into(),
            problem: "the access token cannot be sent in a header".into(),
        })?;
        value.set_sensitive(true);
        let mut headers = HeaderMap::new();
        headers.insert(http::header::AUTHORIZATION, value);
        Ok(Some(Credential::new(headers).with_generation(revision.0)))
    }

    /// The answer to a refusal.
    async fn on_refusal(&self, challenge: &AuthChallenge) -> Result<(), AuthError> {
        match self.on_dpop_refusal(challenge).await {
            DpopRefusal::NotDpop => {}
            DpopRefusal::Retry => return Ok(()),
            DpopRefusal::Fail(e) => return Err(e),
        }
        let _flow = self.flow.lock().await;
        let challenges = header_challenges(&challenge.headers);
        let oauth = oauth_challenge(&challenges);
        let resource_metadata = oauth.and_then(|c| c.resource_metadata());
        let scope = oauth.and_then(|c| c.scope());
        let error = oauth.and_then(|c| c.error());
        if challenge.status == 403 {
            if error != Some("insufficient_scope") {
                return Err(AuthError::AuthorizationResponse {
                    reason: ResponseProblem::Forbidden,
                    error: error.map(str::to_owned),
                });
            }
            let operation = challenge
                .rpc_method
                .clone()
                .unwrap_or_else(|| challenge.method.to_string());
            let attempts = {
                let mut st = lock(&self.state);
                let n = st.step_ups.entry(operation.clone()).or_insert(0);
                *n += 1;
                *n
            };
            if attempts > self.config.max_step_ups {
                return Err(AuthError::StepUpLimit {
                    attempts: attempts - 1,
                    operation,
                });
            }
            self.authorize(resource_metadata, scope, true).await?;
            return self.mark_answered().await;
        }
        // 401.
        let current = self.current_tokens().await?;
        let stale = match (challenge.sent_credential, &current) {
            (Some(sent), Some((_, _, now))) => sent != now.0,
            // Sent before any token existed (or after one was forgotten):
            // stale if there is one now (another refusal's login, or a
            // login in another process).
            (None, Some(_)) => true,
            (_, None) => false,
        };
        if stale {
            // A newer token arrived since this request went out.
            return Ok(());
        }
        if challenge.sent_credential.is_some()
            && let Some((key, tokens, revision)) = &current
            && self.freshly_issued(key, tokens, *revision)
        {
            // Only an authorization server the server did not name before
            // can issue a token it takes (it moved); the same one would
            // issue the same kind of token again.
            if !self.moved(key, resource_metadata).await {
                lock(&self.state).rejected = Some((key.clone(), *revision));
                let StoreKey::Tokens { issuer, .. } = key else {
                    return Err(AuthError::Store {
                        problem: "not a key of tokens".into(),
                        source: None,
                    });
                };
                return Err(AuthError::FreshTokenRejected {
                    server: self.server.to_string(),
                    issuer: issuer.clone(),
                    error: error.map(str::to_owned),
                });
            }
        } else if challenge.sent_credential.is_some()
            && self.refresh(current.map(|(_, _, rev)| rev)).await?
        {
            return self.mark_answered().await;
        }
        self.authorize(resource_metadata, scope, false).await?;
        self.mark_answered().await
    }

    /// `true` when the refused tokens at `key` (revision `revision`) were
    /// issued moments ago, so that their refusal is no reason for another
    /// login: refused before right after they were issued; obtained in
    /// answer to a refusal less than [`FRESHLY_ISSUED`] ago; or, with
    /// nothing to refresh them with, received less than that ago (a login
    /// just now, here or in another process). Never for an access token
    /// that has expired by its own `expires_in`, or is as close to it as a
    /// token is refreshed ahead of expiry (see `expiring`): a short-lived
    /// token is refused for its age, and a refresh, a new grant or a login
    /// renews it.
    fn freshly_issued(&self, key: &StoreKey, tokens: &TokenRecord, revision: Revision) -> bool {
        if expiring(tokens, self.config.refresh_skew) {
            return false;
        }
        let st = lock(&self.state);
        let this = |k: &StoreKey, r: &Revision| k == key && *r == revision;
        if st.rejected.as_ref().is_some_and(|(k, r)| this(k, r)) {
            return true;
        }
        if st
            .answered
            .as_ref()
            .is_some_and(|(k, r, at)| this(k, r) && at.elapsed() < FRESHLY_ISSUED)
        {
            return true;
        }
        let received_just_now = tokens.received_at.is_some_and(|at| {
            // A clock set back makes the token look fresh, not stale.
            SystemTime::now()
                .duration_since(at)
                .map_or(true, |age| age < FRESHLY_ISSUED)
        });
        tokens.refresh_token.is_none() && self.config.grant.is_none() && received_just_now
    }

    /// `true` when discovery (from the refusal's `resource_metadata`) now
    /// finds another resource or authorization server than the one that
    /// issued the tokens at `key`. A discovery that fails is logged and
    /// counts as no move: the refusal is what gets reported.
    async fn moved(&self, key: &StoreKey, resource_metadata: Option<&str>) -> bool {
        let StoreKey::Tokens {
            resource, issuer, ..
        } = key
        else {
            return false;
        };
        let found = self
            .walk()
            .discover(
                &self.server,
                resource_metadata,
                self.config.auth_server_metadata_url.as_deref(),
            )
            .await;
        match found {
            Ok(d) => &d.resource != resource || &d.metadata.issuer != issuer,
            Err(e) => {
                tracing::warn!(error = %e, "discovery after a refused fresh token failed");
                false
            }
        }
    }

    /// Remembers the current tokens as obtained in answer to a refusal.
    async fn mark_answered(&self) -> Result<(), AuthError> {
        if let Some((key, _, revision)) = self.current_tokens().await? {
            lock(&self.state).answered = Some((key, revision, Instant::now()));
        }
        Ok(())
    }
}

#[async_trait]
impl AuthProvider for OAuth {
    async fn prepare(
        &self,
        request: &OutgoingRequest<'_>,
    ) -> Result<Option<Credential>, AuthFailure> {
        self.inner.credential(request).await.map_err(failure)
    }

    fn observe(&self, response: &IncomingResponse<'_>) {
        self.inner.observe_reply(response);
    }

    async fn on_unauthorized(&self, challenge: &AuthChallenge) -> AuthDecision {
        match self.inner.on_refusal(challenge).await {
            Ok(()) => AuthDecision::Retry,
            Err(e) => {
                tracing::warn!(status = challenge.status, error = %e, "authorization failed");
                AuthDecision::Fail(failure(e))
            }
        }
    }
}
