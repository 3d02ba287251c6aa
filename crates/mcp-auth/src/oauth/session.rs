//! What a host does with a login outside of requests: log in now
//! ([`OAuth::login`]), see what is stored ([`OAuth::status`],
//! [`logins`]), get a fresh access token for a script
//! ([`OAuth::access_token`]), log out with RFC 7009 revocation
//! ([`OAuth::logout`]). None of it returns or shows a secret except
//! `access_token`, whose purpose it is.

use std::time::SystemTime;

use serde::Serialize;

use crate::error::{AuthError, store_error};
use crate::fetch::post;
use crate::grant::{ConfidentialClient, Grant};
use crate::secret::{Secret, scrub};
use crate::store::{ClientRecord, CredentialStore, Record, StoreKey, TokenRecord};
use crate::token::{authenticated, expiring, form};

use super::machine::{Request, authenticate};
use super::{Inner, OAuth};

/// What is stored for one login: no secret. Times are absolute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LoginStatus {
    /// The resource (RFC 8707) the tokens are for.
    pub resource: String,
    /// The authorization server that issued them.
    pub issuer: String,
    /// The account they are stored under.
    pub account: String,
    /// The scopes granted (space-separated), when known.
    pub scope: Option<String>,
    /// The scopes the next login asks for, when more than were granted
    /// (a step-up no one could be asked for).
    pub wanted_scope: Option<String>,
    /// When the access token expires, if the server said.
    pub expires_at: Option<SystemTime>,
    /// Whether a refresh token is held (the login outlives the access
    /// token).
    pub refreshable: bool,
}

impl LoginStatus {
    fn new(key: &StoreKey, tokens: &TokenRecord) -> Option<LoginStatus> {
        let StoreKey::Tokens {
            resource,
            issuer,
            account,
        } = key
        else {
            return None;
        };
        Some(LoginStatus {
            resource: resource.clone(),
            issuer: issuer.clone(),
            account: account.clone(),
            scope: tokens.scope.clone(),
            wanted_scope: tokens
                .wanted_scope
                .clone()
                .filter(|w| Some(w) != tokens.scope.as_ref()),
            expires_at: tokens.expires_at,
            refreshable: tokens.refresh_token.is_some(),
        })
    }

    /// `true` when the access token's expiry has passed.
    pub fn expired(&self) -> bool {
        self.expires_at.is_some_and(|at| at <= SystemTime::now())
    }
}

/// Every login in `store` (tokens records), sorted by resource, issuer and
/// account. Records that cannot be read are left out (the store logs them).
///
/// Errors: `Store` when the store cannot be listed.
pub async fn logins(store: &dyn CredentialStore) -> Result<Vec<LoginStatus>, AuthError> {
    let mut out = Vec::new();
    for key in store.keys().await.map_err(store_error)? {
        if let Ok(Some((Record::Tokens(t), _))) = store.get(&key).await
            && let Some(status) = LoginStatus::new(&key, &t)
        {
            out.push(status);
        }
    }
    out.sort_by(|a, b| {
        (&a.resource, &a.issuer, &a.account).cmp(&(&b.resource, &b.issuer, &b.account))
    });
    Ok(out)
}

/// What [`OAuth::logout`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LogoutReport {
    /// The login that was removed.
    pub login: LoginStatus,
    /// What became of the tokens at the authorization server.
    pub revocation: Revocation,
}

/// Whether the tokens were revoked at the authorization server (RFC 7009).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Revocation {
    /// Not asked for: the tokens were only forgotten here.
    NotAsked,
    /// The authorization server offers no `revocation_endpoint`.
    NotOffered,
    /// The authorization server accepted the revocation.
    Revoked,
    /// The revocation failed (the tokens were forgotten here anyway).
    Failed(String),
    /// Not offered for this login: its grant (workload identity
    /// federation) has no client authentication, which a revocation
    /// request must carry (RFC 7009 § 2.1). The tokens were only forgotten
    /// here; they live until they expire.
    NoClientAuthentication,
}

impl OAuth {
    /// Logs in now, whatever is stored: asks the server what it wants (an
    /// unauthenticated `initialize`, whose 401 names the resource metadata
    /// and the scope), then discovery, client identity and the user agent,
    /// as on a refused request. The scopes asked for are the challenge's
    /// (else the resource's), those of earlier logins and step-ups, and
    /// [`OAuthConfig::scopes`](crate::OAuthConfig::scopes).
    ///
    /// Errors: any of the flow's ([`AuthError`]).
    pub async fn login(&self) -> Result<LoginStatus, AuthError> {
        let inner = &self.inner;
        let _flow = inner.flow.lock().await;
        let probed = inner.probe().await?;
        inner
            .authorize(
                probed.resource_metadata.as_deref(),
                probed.scope.as_deref(),
                false,
            )
            .await?;
        self.status().await?.ok_or_else(|| AuthError::Store {
            problem: "the tokens just stored are not found".into(),
            source: None,
        })
    }

    /// The login stored for this server and account, if any.
    ///
    /// Errors: `Store`.
    pub async fn status(&self) -> Result<Option<LoginStatus>, AuthError> {
        Ok(self
            .inner
            .current_tokens()
            .await?
            .and_then(|(key, t, _)| LoginStatus::new(&key, &t)))
    }

    /// A valid access token for this server, refreshed first when it is
    /// about to expire (under the store's lock: once across processes).
    /// For scripts; keep it out of logs. A DPoP-bound token
    /// ([`TokenRecord::dpop_jkt`](crate::TokenRecord::dpop_jkt)) is returned
    /// as it is: a server accepts it only with a proof of the stored key,
    /// which only the transport's requests carry.
    ///
    /// Errors: `NeedsLogin` when nothing is stored, or the token expired
    /// and cannot be refreshed; the refresh's errors otherwise.
    pub async fn access_token(&self) -> Result<Secret, AuthError> {
        let inner = &self.inner;
        if inner.config.grant.is_some() {
            return self.grant_access_token().await;
        }
        let none = || AuthError::needs_login("no login is stored for this server");
        let (_, tokens, revision) = inner.current_tokens().await?.ok_or_else(none)?;
        if !expiring(&tokens, inner.config.refresh_skew) || tokens.refresh_token.is_none() {
            return usable(tokens);
        }
        let _flow = inner.flow.lock().await;
        if !inner.refresh(Some(revision)).await? {
            return Err(AuthError::needs_login(
                "the login expired and its refresh token was refused",
            ));
        }
        let (_, tokens, _) = inner.current_tokens().await?.ok_or_else(none)?;
        usable(tokens)
    }

    /// Forgets the stored login of this server and account, revoking its
    /// tokens first (RFC 7009: the refresh token, then the access token)
    /// when `revoke` and the authorization server offers it, authenticated
    /// as the client that obtained them (a grant without a person: the
    /// grant's client authentication; workload identity federation has
    /// none, so [`Revocation::NoClientAuthentication`]). The client
    /// registration is kept. `None`: nothing was stored.
    ///
    /// Errors: `Store`; a failed revocation is reported in the result, not
    /// as an error (the tokens are forgotten anyway).
    pub async fn logout(&self, revoke: bool) -> Result<Option<LogoutReport>, AuthError> {
        let inner = &self.inner;
        let _flow = inner.flow.lock().await;
        let Some((key, tokens, _)) = inner.current_tokens().await? else {
            return Ok(None);
        };
        let Some(login) = LoginStatus::new(&key, &tokens) else {
            return Ok(None);
        };
        let revocation = if revoke {
            match inner.revoke(&key, &tokens).await {
                Ok(r) => r,
                Err(e) => Revocation::Failed(crate::error_chain_text(&e)),
            }
        } else {
            Revocation::NotAsked
        };
        inner.store.delete(&key).await.map_err(store_error)?;
        Ok(Some(LogoutReport { login, revocation }))
    }
}

impl OAuth {
    /// [`access_token`](Self::access_token) for a flow with a
    /// [`Grant`](crate::Grant): the stored token, else (none stored, or
    /// about to expire) one the grant obtains now.
    async fn grant_access_token(&self) -> Result<Secret, AuthError> {
        let inner = &self.inner;
        match inner.current_tokens().await? {
            Some((_, tokens, _)) if !expiring(&tokens, inner.config.refresh_skew) => {
                return usable(tokens);
            }
            Some((_, _, revision)) => {
                let _flow = inner.flow.lock().await;
                inner.refresh(Some(revision)).await?;
            }
            None => {
                self.login().await?;
            }
        }
        match inner.current_tokens().await? {
            Some((_, tokens, _)) => usable(tokens),
            None => Err(AuthError::Store {
                problem: "the tokens just stored are not found".into(),
                source: None,
            }),
        }
    }
}

/// The access token of `tokens`, unless it has expired.
fn usable(tokens: TokenRecord) -> Result<Secret, AuthError> {
    if tokens.expires_at.is_some_and(|at| at <= SystemTime::now()) {
        return Err(AuthError::needs_login(
            "the login expired and holds no refresh token",
        ));
    }
    Ok(tokens.access_token)
}

/// Whom a revocation request authenticates as: the client the tokens were
/// issued to.
enum Revoker {
    /// The stored registration or a pre-registered client (a person's
    /// login).
    Client(ClientRecord),
    /// The confidential client of a grant without a person, with the
    /// grant's own authentication.
    Grant(ConfidentialClient),
}

impl Inner {
    /// Revokes the refresh token, then the access token (RFC 7009 § 2.1),
    /// authenticated as the client that obtained them: for a grant without
    /// a person, the grant's client and its authentication; else the stored
    /// (or pre-registered) client. Never registers one. A workload identity
    /// grant has no client authentication, so nothing is asked of the
    /// authorization server.
    async fn revoke(&self, key: &StoreKey, tokens: &TokenRecord) -> Result<Revocation, AuthError> {
        let grant_client = match &self.config.grant {
            Some(Grant::WorkloadIdentity { .. }) => {
                return Ok(Revocation::NoClientAuthentication);
            }
            Some(Grant::ClientCredentials(client))
            | Some(Grant::EnterpriseManaged { client, .. }) => Some(client.clone()),
            None => None,
        };
        let discovered = self.discovered_for(key).await?;
        let metadata = &discovered.metadata;
        let Some(endpoint) = metadata.revocation_endpoint.clone() else {
            return Ok(Revocation::NotOffered);
        };
        crate::fetch::check_url("revocation endpoint", &endpoint)?;
        let revoker = match grant_client {
            Some(client) => Revoker::Grant(client),
            None => {
                let client_key = StoreKey::client(metadata.issuer.clone());
                match self.store.get(&client_key).await.map_err(store_error)? {
                    Some((Record::Client(c), _)) => Revoker::Client(c),
                    _ => match crate::registration::preregistered(&self.config, &metadata.issuer) {
                        Some(c) => Revoker::Client(crate::registration::preregistered_record(c)?),
                        None => {
                            return Ok(Revocation::Failed(
                                "no client identity is stored for the authorization server".into(),
                            ));
                        }
                    },
                }
            }
        };
        let mut order: Vec<(&Secret, &str)> = Vec::new();
        if let Some(r) = &tokens.refresh_token {
            order.push((r, "refresh_token"));
        }
        order.push((&tokens.access_token, "access_token"));
        for (token, hint) in order {
            let params = [("token", token.expose()), ("token_type_hint", hint)];
            let mut req = Request::default();
            match &revoker {
                Revoker::Client(client) => {
                    let (pairs, headers) = authenticated(client, metadata, &params, &endpoint)?;
                    req.pairs = pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                    req.headers = headers;
                    req.secrets.extend(client.client_secret.clone());
                }
                Revoker::Grant(client) => {
                    for (k, v) in params {
                        req.pair(k, v);
                    }
                    authenticate(&mut req, client, metadata)?;
                }
            }
            let pairs: Vec<(&str, &str)> = req
                .pairs
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let response = post(
                &self.fetcher,
                "token revocation",
                &endpoint,
                "application/x-www-form-urlencoded",
                req.headers,
                form(&pairs),
            )
            .await?;
            if !response.status().is_success() {
                let text = String::from_utf8_lossy(response.body());
                let mut secrets = vec![&tokens.access_token];
                secrets.extend(tokens.refresh_token.as_ref());
                secrets.extend(req.secrets.iter());
                let shown: String = scrub(&text, &secrets).chars().take(200).collect();
                return Ok(Revocation::Failed(format!(
                    "the revocation endpoint answered HTTP {}: {shown}",
                    response.status().as_u16()
                )));
            }
        }
        tracing::info!(issuer = %metadata.issuer, "tokens revoked");
        Ok(Revocation::Revoked)
    }
}
