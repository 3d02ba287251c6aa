//! How [`OAuth`] answers the HTTP transport's auth hook: before a request,
//! the current access token (refreshed when it is about to expire); on a
//! 401, a retry when the refused token was already replaced, else a
//! refresh, else a whole authorization; on a 403 `insufficient_scope`, a
//! step-up authorization with the union of scopes, a bounded number of
//! times per operation.

use std::sync::Arc;

use async_trait::async_trait;
use http::{HeaderMap, HeaderValue};
use mcp_transport_http::{
    AuthChallenge, AuthDecision, AuthFailure, AuthProvider, Credential, OutgoingRequest,
};

use crate::challenge::{oauth_challenge, parse_challenges};
use crate::error::{AuthError, ResponseProblem};
use crate::state::{Inner, OAuth, lock};
use crate::token::expiring;

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
    /// about to expire. The credential's generation is the revision of the
    /// stored record it came from.
    async fn credential(&self) -> Result<Option<Credential>, AuthError> {
        let Some((_, tokens, revision)) = self.current_tokens().await? else {
            return Ok(None);
        };
        let (tokens, revision) = if expiring(&tokens, self.config.refresh_skew)
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
                Some((_, t, r)) => (t, r),
                None => return Ok(None),
            }
        } else {
            (tokens, revision)
        };
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
        let _flow = self.flow.lock().await;
        let values: Vec<&str> = challenge
            .headers
            .get_all(http::header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let challenges = parse_challenges(values);
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
            return self.authorize(resource_metadata, scope, true).await;
        }
        // 401.
        let current = self.current_tokens().await?.map(|(_, _, rev)| rev);
        let stale = match (challenge.sent_credential, current) {
            (Some(sent), Some(now)) => sent != now.0,
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
            && challenge.attempt == 0
            && self.refresh(current).await?
        {
            return Ok(());
        }
        self.authorize(resource_metadata, scope, false).await
    }
}

#[async_trait]
impl AuthProvider for OAuth {
    async fn prepare(
        &self,
        _request: &OutgoingRequest<'_>,
    ) -> Result<Option<Credential>, AuthFailure> {
        self.inner.credential().await.map_err(failure)
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
