//! How the flow uses DPoP (`dpop.rs`): the key of each authorization
//! server, read from the credential store or made and stored there; the
//! proof of a token request when the configuration allows it and the
//! server supports ES256; the `Authorization: DPoP` credential with a
//! fresh proof for every request of a bound token; nonces learnt from
//! every reply; and the answers to the resource server's `DPoP`
//! refusals (`use_dpop_nonce`: one retry with its nonce;
//! `invalid_dpop_proof`: a fresh authorization with a new key, once).

use std::sync::Arc;

use http::{HeaderMap, HeaderName, HeaderValue};
use mcp_transport_http::{AuthChallenge, IncomingResponse, OutgoingRequest};

use crate::challenge::{header_challenges, oauth_challenge};
use crate::dpop::{
    DPOP_ALGORITHM, DPOP_HEADER, DpopKey, NonceDemand, ProofFor, dpop_challenge, nonce_of, origin,
    proof_header,
};
use crate::error::{AuthError, DpopProblem, store_error};
use crate::metadata::AuthorizationServerMetadata;
use crate::store::{Record, Revision, StoreError, StoreKey, TokenRecord};
use crate::token::TokenDpop;

use super::Inner;

/// What a refusal of the resource server calls for, as far as DPoP goes.
#[derive(Debug)]
pub(crate) enum DpopRefusal {
    /// Not a DPoP matter: the usual answer to a refusal.
    NotDpop,
    /// Send the request again (a nonce learnt, or a token replaced).
    Retry,
    /// Give up.
    Fail(AuthError),
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Inner {
    /// The DPoP side of a token request to the server of `metadata`:
    /// `None` when DPoP is turned off or the server does not list ES256 in
    /// `dpop_signing_alg_values_supported`; else its key (made and stored
    /// on first use) and the nonces.
    ///
    /// Errors: `Store`; `Dpop` for a stored key that cannot be used.
    pub(crate) async fn token_dpop(
        &self,
        metadata: &AuthorizationServerMetadata,
    ) -> Result<Option<TokenDpop>, AuthError> {
        if !self.config.dpop {
            return Ok(None);
        }
        let supported = metadata
            .dpop_signing_alg_values_supported
            .as_deref()
            .is_some_and(|algs| algs.iter().any(|a| a == DPOP_ALGORITHM));
        if !supported {
            return Ok(None);
        }
        let key = self.dpop_key(&metadata.issuer, true).await?;
        Ok(key.map(|key| TokenDpop {
            key,
            nonces: self.dpop.nonces.clone(),
        }))
    }

    /// The DPoP key used with `issuer`: the one this process read, else
    /// the stored one, else (with `create`) a new one, stored (another
    /// process that stored one first wins, and its key is used).
    ///
    /// Errors: `Store`; `Dpop` for a stored key that cannot be used.
    pub(crate) async fn dpop_key(
        &self,
        issuer: &str,
        create: bool,
    ) -> Result<Option<Arc<DpopKey>>, AuthError> {
        if let Some(key) = lock(&self.dpop.keys).get(issuer) {
            return Ok(Some(key.clone()));
        }
        let store_key = StoreKey::dpop_key(issuer);
        for _ in 0..3 {
            let key = match self.store.get(&store_key).await.map_err(store_error)? {
                Some((Record::DpopKey(record), _)) => Arc::new(DpopKey::from_record(&record)?),
                Some(_) => {
                    return Err(AuthError::Dpop {
                        problem: DpopProblem::BadStoredKey("not a key record".into()),
                    });
                }
                None if !create => return Ok(None),
                None => {
                    let (key, record) = DpopKey::generate()?;
                    match self
                        .store
                        .put(&store_key, Record::DpopKey(record), None)
                        .await
                    {
                        Ok(_) => {
                            tracing::info!(%issuer, thumbprint = key.thumbprint(), "new DPoP key for the authorization server");
                            Arc::new(key)
                        }
                        Err(StoreError::Conflict) => continue,
                        Err(e) => return Err(store_error(e)),
                    }
                }
            };
            lock(&self.dpop.keys).insert(issuer.to_owned(), key.clone());
            return Ok(Some(key));
        }
        Err(store_error(StoreError::Conflict))
    }

    /// Forgets the DPoP key used with `issuer`, here and in the store.
    async fn forget_dpop_key(&self, issuer: &str) -> Result<(), AuthError> {
        lock(&self.dpop.keys).remove(issuer);
        self.store
            .delete(&StoreKey::dpop_key(issuer))
            .await
            .map_err(store_error)
    }

    /// The headers of `request` for the DPoP-bound `tokens` (stored at
    /// `key`, bound to the key of thumbprint `jkt`): `Authorization: DPoP
    /// <token>` and a fresh proof with `ath`, the origin's nonce and the
    /// body's digest. `None` when the key the token is bound to is gone
    /// (the request goes without, and its refusal starts a fresh
    /// authorization).
    ///
    /// Errors: `Store`, `Dpop`.
    pub(crate) async fn dpop_headers(
        &self,
        key: &StoreKey,
        tokens: &TokenRecord,
        jkt: &str,
        request: &OutgoingRequest<'_>,
    ) -> Result<Option<HeaderMap>, AuthError> {
        let StoreKey::Tokens { issuer, .. } = key else {
            return Ok(None);
        };
        let mut dpop_key = self.dpop_key(issuer, false).await?;
        if dpop_key.as_ref().is_some_and(|k| k.thumbprint() != jkt) {
            // Another process may have replaced the key since it was read.
            lock(&self.dpop.keys).remove(issuer.as_str());
            dpop_key = self.dpop_key(issuer, false).await?;
        }
        let Some(dpop_key) = dpop_key.filter(|k| k.thumbprint() == jkt) else {
            tracing::warn!(%issuer, "the DPoP key the access token is bound to is gone; the token cannot be used");
            return Ok(None);
        };
        let url = request.url.to_string();
        let origin = origin(&url).ok_or(AuthError::Dpop {
            problem: DpopProblem::BadUrl,
        })?;
        let nonce = self.dpop.nonces.for_proof(&origin);
        let proof = dpop_key.proof(&ProofFor {
            method: request.method.as_str(),
            url: &url,
            nonce: nonce.as_deref(),
            access_token: Some(tokens.access_token.expose()),
            body: Some(request.body),
        })?;
        let mut authorization =
            HeaderValue::try_from(format!("DPoP {}", tokens.access_token.expose())).map_err(
                |_| AuthError::TokenResponse {
                    url: "(stored token)".into(),
                    problem: "the access token cannot be sent in a header".into(),
                },
            )?;
        authorization.set_sensitive(true);
        let mut headers = HeaderMap::new();
        headers.insert(http::header::AUTHORIZATION, authorization);
        headers.insert(HeaderName::from_static(DPOP_HEADER), proof_header(&proof)?);
        Ok(Some(headers))
    }

    /// Learns the nonce of a reply of the resource server, and whether it
    /// demanded one (401 with a `DPoP` challenge `use_dpop_nonce`).
    pub(crate) fn observe_reply(&self, response: &IncomingResponse<'_>) {
        let Some(origin) = origin(&response.url.to_string()) else {
            return;
        };
        let nonce = nonce_of(response.headers);
        let demand = response.status == 401
            && dpop_challenge(response.headers)
                .is_some_and(|(error, _)| error.as_deref() == Some("use_dpop_nonce"));
        if nonce.is_some() || demand || response.status < 400 {
            self.dpop.nonces.learn(&origin, nonce, demand);
        }
    }

    /// The answer to a 401 with a `DPoP` challenge: `use_dpop_nonce` is
    /// sent again once with the nonce (already learnt by
    /// [`observe_reply`](Self::observe_reply)), a loop fails;
    /// `invalid_dpop_proof` starts a fresh authorization with a new key
    /// (a retry when the token was replaced meanwhile), and fails when the
    /// token of that authorization is refused the same way.
    pub(crate) async fn on_dpop_refusal(&self, challenge: &AuthChallenge) -> DpopRefusal {
        if challenge.status != 401 {
            return DpopRefusal::NotDpop;
        }
        let Some((error, description)) = dpop_challenge(&challenge.headers) else {
            return DpopRefusal::NotDpop;
        };
        match error.as_deref() {
            Some("use_dpop_nonce") => {
                let Some(origin) = origin(&challenge.url) else {
                    return DpopRefusal::Fail(AuthError::Dpop {
                        problem: DpopProblem::BadUrl,
                    });
                };
                match self.dpop.nonces.after_demand(&origin) {
                    NonceDemand::Retry => {
                        tracing::debug!(%origin, "the server asks for a DPoP nonce; sending the request once more with it");
                        DpopRefusal::Retry
                    }
                    NonceDemand::GiveUp(problem) => DpopRefusal::Fail(AuthError::Dpop { problem }),
                }
            }
            Some("invalid_dpop_proof") => {
                match self.after_invalid_proof(challenge, description).await {
                    Ok(()) => DpopRefusal::Retry,
                    Err(e) => DpopRefusal::Fail(e),
                }
            }
            _ => DpopRefusal::NotDpop,
        }
    }

    /// `invalid_dpop_proof` on a request that carried the tokens of
    /// revision `challenge.sent_credential`.
    async fn after_invalid_proof(
        &self,
        challenge: &AuthChallenge,
        description: Option<String>,
    ) -> Result<(), AuthError> {
        let _flow = self.flow.lock().await;
        let current = self.current_tokens().await?;
        let sent = challenge.sent_credential;
        if let (Some(sent), Some((_, _, now))) = (sent, &current)
            && sent != now.0
        {
            // Tokens replaced since the request went out: theirs are tried.
            return Ok(());
        }
        if sent.is_some() && *lock(&self.dpop.renewed) == sent {
            return Err(AuthError::Dpop {
                problem: DpopProblem::ProofRefused {
                    description: description.map(|d| self.scrub_tokens(&d, &current)),
                },
            });
        }
        tracing::warn!(
            "the server refuses the DPoP proof (invalid_dpop_proof); authorizing again with a new key"
        );
        if let Some((key, _, _)) = &current {
            if let StoreKey::Tokens { issuer, .. } = key {
                self.forget_dpop_key(issuer).await?;
            }
            self.store.delete(key).await.map_err(store_error)?;
        }
        let challenges = header_challenges(&challenge.headers);
        let oauth = oauth_challenge(&challenges);
        self.authorize(
            oauth.and_then(|c| c.resource_metadata()),
            oauth.and_then(|c| c.scope()),
            false,
        )
        .await?;
        let renewed = self
            .current_tokens()
            .await?
            .map(|(_, _, r): (_, _, Revision)| r.0);
        *lock(&self.dpop.renewed) = renewed;
        Ok(())
    }

    /// `text` with the current tokens hidden.
    fn scrub_tokens(
        &self,
        text: &str,
        current: &Option<(StoreKey, TokenRecord, Revision)>,
    ) -> String {
        match current {
            Some((_, t, _)) => {
                let mut secrets = vec![&t.access_token];
                secrets.extend(t.refresh_token.iter());
                crate::secret::scrub(text, &secrets)
            }
            None => text.to_owned(),
        }
    }
}
