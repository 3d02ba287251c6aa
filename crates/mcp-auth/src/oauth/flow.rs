//! The authorization flow for one MCP server, on the state of
//! [`OAuth`](crate::OAuth) (`mod.rs`): finding the stored tokens, a
//! whole authorization (the unauthenticated probe, discovery, client
//! identity, the user agent, the code exchange), the refresh under the
//! store's lock, the client identity. The transport hook that drives it is
//! in `provider.rs`; the host's calls in `session.rs` and `device.rs`.

use crate::authorize::{AuthorizationRequest, authorization_url, validate_response};
use crate::discovery::{Discovered, Probed, Walk};
use crate::error::{AuthError, ResponseProblem, store_error};
use crate::metadata::resource_matches;
use crate::pkce::{Pkce, random_token};
use crate::registration::{self, Source};
use crate::scope;
use crate::store::{ClientRecord, Record, Revision, StoreError, StoreKey, TokenRecord};
use crate::token::{request_token, with_nonce_retry};
use crate::user_agent::AuthorizationPrompt;

use super::{Inner, lock};

impl Inner {
    /// A discovery walk on the flow's fetcher, with the configured
    /// deadlines (from now).
    pub(crate) fn walk(&self) -> Walk<'_> {
        Walk::new(&self.fetcher).with_deadlines(
            self.config.discovery_document_timeout,
            self.config.discovery_timeout,
        )
    }

    /// What the server asks for when called without a token: the
    /// discovery walk's first step.
    ///
    /// Errors: `Fetch` when the server cannot be reached.
    pub(crate) async fn probe(&self) -> Result<Probed, AuthError> {
        self.walk()
            .probe(&self.server, &self.config.client_name)
            .await
    }

    /// The stored tokens of this server and account, with their key and
    /// revision (the revision is the credential's generation: a refused
    /// request that carried another one was sent with tokens already
    /// replaced, here or by another process). The key of the last
    /// authorization is tried first, then the store is searched: tokens
    /// another process stored (`mcp login`) are found on the next request.
    pub(crate) async fn current_tokens(
        &self,
    ) -> Result<Option<(StoreKey, TokenRecord, Revision)>, AuthError> {
        let known = lock(&self.state).key.clone();
        if let Some(key) = known
            && let Some((Record::Tokens(t), rev)) =
                self.store.get(&key).await.map_err(store_error)?
        {
            return Ok(Some((key, t, rev)));
        }
        let Some((key, t, rev)) = self.find_tokens().await? else {
            return Ok(None);
        };
        let mut st = lock(&self.state);
        if st.key.as_ref() != Some(&key) {
            // Another authorization server's metadata does not apply.
            st.discovered = None;
        }
        st.key = Some(key.clone());
        Ok(Some((key, t, rev)))
    }

    /// The most recent tokens in the store for a resource that identifies
    /// this server, for this account.
    async fn find_tokens(&self) -> Result<Option<(StoreKey, TokenRecord, Revision)>, AuthError> {
        let mut best: Option<(StoreKey, TokenRecord, Revision)> = None;
        for key in self.store.keys().await.map_err(store_error)? {
            let StoreKey::Tokens {
                resource, account, ..
            } = &key
            else {
                continue;
            };
            if *account != self.config.account || !resource_matches(resource, &self.server) {
                continue;
            }
            let Some((Record::Tokens(t), rev)) = self.store.get(&key).await.map_err(store_error)?
            else {
                continue;
            };
            if best
                .as_ref()
                .is_none_or(|(_, b, _)| b.received_at < t.received_at)
            {
                best = Some((key, t, rev));
            }
        }
        Ok(best)
    }

    /// Runs a whole authorization (see `authorize_once`); when the
    /// authorization server refuses the registration it was made with as
    /// unknown, that registration is already forgotten and the
    /// authorization runs once more, with a new one.
    ///
    /// Errors: `ClientRejected` for a configured client, or for the new
    /// registration refused too (forgotten as well); the flow's others.
    pub(crate) async fn authorize(
        &self,
        resource_metadata: Option<&str>,
        challenge_scope: Option<&str>,
        step_up: bool,
    ) -> Result<(), AuthError> {
        match self
            .authorize_once(resource_metadata, challenge_scope, step_up)
            .await
        {
            Err(AuthError::ClientRejected {
                configured: false, ..
            }) => {
                self.authorize_once(resource_metadata, challenge_scope, step_up)
                    .await
            }
            other => other,
        }
    }

    /// Runs a whole authorization: discovery, client identity, the user
    /// agent, the code exchange; stores the tokens. `challenge_scope` and
    /// `resource_metadata` come from the refusal; `step_up` asks for the
    /// union with the scopes asked for before.
    async fn authorize_once(
        &self,
        resource_metadata: Option<&str>,
        challenge_scope: Option<&str>,
        step_up: bool,
    ) -> Result<(), AuthError> {
        let mut walk = self.walk();
        let discovered = walk
            .discover(
                &self.server,
                resource_metadata,
                self.config.auth_server_metadata_url.as_deref(),
            )
            .await?;
        if let Some(grant) = &self.config.grant {
            return self
                .authorize_with_grant(grant, discovered, challenge_scope, step_up)
                .await;
        }
        let metadata = &discovered.metadata;
        walk.require_pkce(metadata)?;
        let key = StoreKey::tokens(
            discovered.resource.clone(),
            metadata.issuer.clone(),
            self.config.account.clone(),
        );
        let stored = match self.store.get(&key).await.map_err(store_error)? {
            Some((Record::Tokens(t), rev)) => Some((t, rev)),
            _ => None,
        };
        let remembered = stored
            .as_ref()
            .and_then(|(t, _)| t.wanted_scope.as_deref().or(t.scope.as_deref()))
            .map(scope::split)
            .unwrap_or_default();
        let previous = scope::union(&lock(&self.state).scopes, &remembered);
        let wanted = if step_up {
            let more = challenge_scope.map(scope::split).unwrap_or_default();
            scope::union(&previous, &more)
        } else {
            let first = scope::initial(challenge_scope, discovered.prm_scopes.as_deref());
            scope::union(&scope::union(&first, &previous), &self.config.scopes)
        };
        // No client is registered for a login no one can give; a step-up
        // that cannot happen now is remembered for the next login.
        if let Err(e) = self.agent.available() {
            if step_up && let Some((mut t, rev)) = stored {
                t.wanted_scope = Some(wanted.join(" "));
                match self.store.put(&key, Record::Tokens(t), Some(rev)).await {
                    Ok(_) | Err(StoreError::Conflict) => {}
                    Err(e) => return Err(store_error(e)),
                }
            }
            return Err(e);
        }
        let client = self.client_for(&discovered).await?;
        let requested = scope::with_offline_access(
            wanted.clone(),
            metadata.scopes_supported.as_deref(),
            self.config.request_offline_access,
        );
        let scope_text = (!requested.is_empty()).then(|| requested.join(" "));
        let pkce = Pkce::generate();
        let state = random_token(24);
        let url = authorization_url(
            metadata,
            &AuthorizationRequest {
                client_id: &client.client_id,
                redirect_uri: &self.config.redirect_uri,
                code_challenge: &pkce.challenge,
                state: &state,
                resource: &discovered.resource,
                scope: scope_text.as_deref(),
            },
        )?;
        tracing::info!(issuer = %metadata.issuer, scopes = scope_text.as_deref().unwrap_or(""), step_up, "authorizing with the authorization server");
        let params = self
            .agent
            .authorize(&AuthorizationPrompt::new(
                url,
                self.config.redirect_uri.clone(),
                state.clone(),
                metadata.issuer.clone(),
                metadata.authorization_response_iss_parameter_supported,
            ))
            .await;
        let code = match params.and_then(|p| validate_response(&p, &state, metadata)) {
            Ok(code) => code,
            Err(e) => return Err(self.client_refused(e, &metadata.issuer, &client).await?),
        };
        let tokens = request_token(
            &self.fetcher,
            metadata,
            &client,
            &[
                ("grant_type", "authorization_code"),
                ("code", code.expose()),
                ("redirect_uri", &self.config.redirect_uri),
                ("code_verifier", pkce.verifier.expose()),
                ("resource", &discovered.resource),
            ],
            &[&code, &pkce.verifier],
            None,
            scope_text.as_deref(),
            self.token_dpop(metadata).await?.as_ref(),
        )
        .await;
        let mut tokens = match tokens {
            Ok(tokens) => tokens,
            Err(e) => return Err(self.client_refused(e, &metadata.issuer, &client).await?),
        };
        tokens.wanted_scope = Some(wanted.join(" ")).filter(|s| !s.is_empty());
        self.put_tokens(&key, tokens).await?;
        let mut st = lock(&self.state);
        st.key = Some(key);
        st.scopes = wanted;
        st.discovered = Some(discovered);
        Ok(())
    }

    /// Refreshes the current tokens (with `resource`, spec § Resource
    /// Parameter Implementation) unless they changed since they were read
    /// at revision `seen` (another request or process refreshed: theirs are
    /// used). Runs under the store's lock of the key, so processes that
    /// find the same expired token refresh it once. Keeps the refresh token
    /// when the answer has none. Only `invalid_grant` forgets the tokens.
    ///
    /// Returns `false` when there is nothing to refresh with.
    pub(crate) async fn refresh(&self, seen: Option<Revision>) -> Result<bool, AuthError> {
        let Some((key, _, _)) = self.current_tokens().await? else {
            return Ok(false);
        };
        let _held = self.store.lock(&key).await.map_err(store_error)?;
        // Read again under the lock: another process may have refreshed.
        let Some((key, tokens, revision)) = self.current_tokens().await? else {
            return Ok(false);
        };
        if seen.is_some_and(|seen| seen != revision) {
            tracing::debug!("the tokens were replaced meanwhile; using the new ones");
            return Ok(true);
        }
        let Some(refresh_token) = tokens.refresh_token.clone() else {
            // A grant without a person has no refresh token: it is run
            // again.
            let Some(grant) = &self.config.grant else {
                return Ok(false);
            };
            let discovered = self.discovered_for(&key).await?;
            let scope = tokens.wanted_scope.as_deref().or(tokens.scope.as_deref());
            let mut new = with_nonce_retry(|| self.grant_token(grant, &discovered, scope)).await?;
            new.wanted_scope = tokens.wanted_scope.clone();
            match self
                .store
                .put(&key, Record::Tokens(new), Some(revision))
                .await
            {
                Ok(_) | Err(StoreError::Conflict) => {}
                Err(e) => return Err(store_error(e)),
            }
            return Ok(true);
        };
        let discovered = self.discovered_for(&key).await?;
        let client = self.client_for(&discovered).await?;
        let result = request_token(
            &self.fetcher,
            &discovered.metadata,
            &client,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token.expose()),
                ("resource", &discovered.resource),
            ],
            &[&refresh_token, &tokens.access_token],
            Some(refresh_token.clone()),
            tokens.scope.as_deref(),
            self.token_dpop(&discovered.metadata).await?.as_ref(),
        )
        .await;
        match result {
            Ok(mut new) => {
                new.wanted_scope = tokens.wanted_scope.clone();
                match self
                    .store
                    .put(&key, Record::Tokens(new), Some(revision))
                    .await
                {
                    Ok(_) => {}
                    Err(StoreError::Conflict) => {
                        // Someone else stored newer tokens meanwhile: theirs
                        // stand (a rotated refresh token must not be lost).
                        tracing::debug!(
                            "tokens changed during the refresh; keeping the newer ones"
                        );
                    }
                    Err(e) => return Err(store_error(e)),
                }
                tracing::info!(issuer = %discovered.metadata.issuer, "access token refreshed");
                Ok(true)
            }
            Err(e) if e.is_invalid_grant() => {
                tracing::info!(issuer = %discovered.metadata.issuer, "the refresh token was refused (invalid_grant); forgetting the tokens");
                self.store.delete(&key).await.map_err(store_error)?;
                Ok(false)
            }
            Err(e) => {
                match self
                    .client_refused(e, &discovered.metadata.issuer, &client)
                    .await?
                {
                    AuthError::ClientRejected {
                        configured: false, ..
                    } => {
                        // The refresh token was issued to the forgotten
                        // client: it goes with it.
                        self.store.delete(&key).await.map_err(store_error)?;
                        Ok(false)
                    }
                    e => Err(e),
                }
            }
        }
    }

    /// What becomes of `e`, an error of a request `client` made to the
    /// authorization server `issuer`: when it says the server does not
    /// know the client (`invalid_client` from the token endpoint;
    /// `invalid_client` or `unauthorized_client` from the authorization
    /// endpoint), `ClientRejected`, and a registration (not a configured
    /// client) is forgotten so that no other authorization uses its id;
    /// else `e` as it is.
    ///
    /// Errors: `Store` when the registration cannot be forgotten.
    pub(crate) async fn client_refused(
        &self,
        e: AuthError,
        issuer: &str,
        client: &ClientRecord,
    ) -> Result<AuthError, AuthError> {
        let code = match &e {
            AuthError::TokenRefused {
                error: Some(code), ..
            } if code == "invalid_client" => code,
            AuthError::AuthorizationResponse {
                reason: ResponseProblem::Refused,
                error: Some(code),
            } if code == "invalid_client" || code == "unauthorized_client" => code,
            _ => return Ok(e),
        };
        let configured = registration::preregistered(&self.config, issuer)
            .is_some_and(|c| c.client_id == client.client_id)
            || self.config.client_metadata_url.as_ref() == Some(&client.client_id);
        if !configured {
            let key = StoreKey::client(issuer);
            if let Some((Record::Client(stored), _)) =
                self.store.get(&key).await.map_err(store_error)?
                && stored.client_id == client.client_id
            {
                self.store.delete(&key).await.map_err(store_error)?;
            }
            tracing::warn!(%issuer, error = %code, "the authorization server does not know the registered client; its registration is forgotten");
        }
        Ok(AuthError::ClientRejected {
            issuer: issuer.to_owned(),
            client_id: client.client_id.clone(),
            error: code.clone(),
            configured,
        })
    }

    /// The authorization server behind the tokens at `key`: the one of the
    /// last authorization in this process, else its metadata looked up
    /// again from the issuer the tokens were stored under (tokens another
    /// process obtained).
    pub(crate) async fn discovered_for(&self, key: &StoreKey) -> Result<Discovered, AuthError> {
        let StoreKey::Tokens {
            resource, issuer, ..
        } = key
        else {
            return Err(AuthError::Store {
                problem: "not a key of tokens".into(),
                source: None,
            });
        };
        if let Some(d) = lock(&self.state).discovered.clone()
            && &d.metadata.issuer == issuer
        {
            return Ok(d);
        }
        let metadata = self.walk().issuer_metadata(issuer).await?;
        let discovered = Discovered {
            resource: resource.clone(),
            prm_scopes: None,
            metadata,
        };
        lock(&self.state).discovered = Some(discovered.clone());
        Ok(discovered)
    }

    /// The client identity at the discovered authorization server: stored
    /// for its issuer, else pre-registered, else a metadata document, else
    /// registered now (and stored).
    pub(crate) async fn client_for(
        &self,
        discovered: &Discovered,
    ) -> Result<ClientRecord, AuthError> {
        let metadata = &discovered.metadata;
        let key = StoreKey::Client {
            issuer: metadata.issuer.clone(),
        };
        if let Some((Record::Client(c), _)) = self.store.get(&key).await.map_err(store_error)? {
            return Ok(c);
        }
        let (client, source) =
            if let Some(c) = registration::preregistered(&self.config, &metadata.issuer) {
                (
                    registration::preregistered_record(c)?,
                    Source::Preregistered,
                )
            } else if let Some(c) = registration::metadata_document(&self.config, metadata) {
                (c, Source::MetadataDocument)
            } else {
                (
                    registration::register(&self.fetcher, &self.config, metadata).await?,
                    Source::Dynamic,
                )
            };
        tracing::info!(issuer = %metadata.issuer, source = ?source, "client identity for the authorization server");
        if source == Source::Dynamic {
            match self
                .store
                .put(&key, Record::Client(client.clone()), None)
                .await
            {
                Ok(_) | Err(StoreError::Conflict) => {}
                Err(e) => return Err(store_error(e)),
            }
        }
        Ok(client)
    }

    /// Stores `tokens` at `key`, over whatever is there.
    pub(crate) async fn put_tokens(
        &self,
        key: &StoreKey,
        tokens: TokenRecord,
    ) -> Result<(), AuthError> {
        for _ in 0..3 {
            let current = self
                .store
                .get(key)
                .await
                .map_err(store_error)?
                .map(|(_, r)| r);
            match self
                .store
                .put(key, Record::Tokens(tokens.clone()), current)
                .await
            {
                Ok(_) => return Ok(()),
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(store_error(e)),
            }
        }
        Err(store_error(StoreError::Conflict))
    }
}
