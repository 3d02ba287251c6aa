//! Running a [`Grant`] without a person, on the state of
//! [`OAuth`](crate::OAuth): where the authorization code flow would run (on
//! the first refusal, after the same discovery), and again instead of a
//! refresh when its token expires. Every token request, the identity
//! provider's token exchange included, goes through
//! [`token_post`](crate::token::token_post).

use std::sync::Arc;

use http::{HeaderName, HeaderValue};

use crate::assertion::AssertionSource;
use crate::discovery::{Discovered, Walk};
use crate::env_secret::from_env;
use crate::error::{AuthError, ExchangeProblem};
use crate::fetch::is_json;
use crate::grant::{
    ClientAuthentication, ConfidentialClient, Grant, ID_JAG_TOKEN_TYPE, IdentityProvider,
    JWT_CLIENT_ASSERTION, exchange_pairs,
};
use crate::jwt::{PrivateKey, check_assertion, client_assertion_claims, now_secs};
use crate::scope;
use crate::secret::{Secret, scrub};
use crate::store::{ClientRecord, StoreKey, TokenRecord};
use crate::token::{
    authenticated, oauth_error_body, send_token_request, token_post, with_nonce_retry,
};

use super::{Inner, OAuth, lock};

/// A token (or revocation) request's form pairs, headers and the secrets
/// it holds.
#[derive(Default)]
pub(crate) struct Request {
    pub(crate) pairs: Vec<(String, String)>,
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
    pub(crate) secrets: Vec<Secret>,
}

impl Request {
    pub(crate) fn pair(&mut self, k: &str, v: impl Into<String>) {
        self.pairs.push((k.to_owned(), v.into()));
    }
}

/// Adds `client`'s authentication at an endpoint of the authorization
/// server of `metadata` (its token or revocation endpoint) to `req`: a
/// `private_key_jwt` assertion is made anew for each request.
pub(crate) fn authenticate(
    req: &mut Request,
    client: &ConfidentialClient,
    metadata: &crate::metadata::AuthorizationServerMetadata,
) -> Result<(), AuthError> {
    match &client.authentication {
        ClientAuthentication::ClientSecretBasic(secret)
        | ClientAuthentication::ClientSecretPost(secret) => {
            add_secret(req, client, metadata, secret.clone())?;
        }
        ClientAuthentication::ClientSecretBasicEnv(var)
        | ClientAuthentication::ClientSecretPostEnv(var) => {
            add_secret(req, client, metadata, from_env("client secret", var)?)?;
        }
        ClientAuthentication::PrivateKeyJwt(key) => sign_assertion(req, client, metadata, key)?,
        ClientAuthentication::PrivateKeyJwtFile { path, algorithm } => {
            let key = PrivateKey::from_pem_file(path)?;
            let key = match algorithm {
                Some(alg) => key.require_algorithm(alg)?,
                None => key,
            };
            sign_assertion(req, client, metadata, &key)?;
        }
    }
    Ok(())
}

/// Adds `client`'s id and `secret` by its `client_secret_basic` or
/// `client_secret_post` method to `req`.
fn add_secret(
    req: &mut Request,
    client: &ConfidentialClient,
    metadata: &crate::metadata::AuthorizationServerMetadata,
    secret: Secret,
) -> Result<(), AuthError> {
    let record = ClientRecord::new(client.client_id.clone(), Some(secret.clone()))
        .with_token_endpoint_auth_method(client.authentication.method());
    let (pairs, headers) = authenticated(&record, metadata, &[], &metadata.token_endpoint)?;
    req.pairs
        .extend(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)));
    req.headers.extend(headers);
    req.secrets.push(secret);
    Ok(())
}

/// Adds a client assertion signed with `key` (RFC 7523 § 2.2: `iss` =
/// `sub` = the client id, `aud` = the issuer) to `req`, after checking the
/// server accepts its algorithm.
fn sign_assertion(
    req: &mut Request,
    client: &ConfidentialClient,
    metadata: &crate::metadata::AuthorizationServerMetadata,
    key: &PrivateKey,
) -> Result<(), AuthError> {
    key.check_accepted(
        metadata
            .token_endpoint_auth_signing_alg_values_supported
            .as_deref(),
    )?;
    let claims = client_assertion_claims(&client.client_id, &metadata.issuer, now_secs());
    let jwt = key.sign(&claims)?;
    req.pair("client_assertion_type", JWT_CLIENT_ASSERTION);
    req.pair("client_assertion", jwt.expose());
    req.secrets.push(jwt);
    Ok(())
}

#[derive(serde::Deserialize)]
struct ExchangeBody {
    access_token: Option<String>,
    issued_token_type: Option<String>,
}

impl OAuth {
    /// The grant without a person this flow runs, if any (a host declares
    /// its [`extension`](Grant::extension) in the client's capabilities).
    pub fn grant(&self) -> Option<&Grant> {
        self.inner.config.grant.as_ref()
    }

    /// The flow for `config`, which carries a [`Grant`]: no person, so no
    /// user agent ([`NoInteraction`](crate::NoInteraction) stands in).
    ///
    /// Errors: as [`OAuth::new`](crate::OAuth::new); `NoClient` when
    /// `config` has no grant.
    pub fn for_grant(
        config: crate::OAuthConfig,
        store: Arc<dyn crate::CredentialStore>,
    ) -> Result<OAuth, AuthError> {
        if config.grant.is_none() {
            return Err(AuthError::NoClient {
                issuer: String::new(),
                problem: "OAuth::for_grant needs a configuration with a grant".into(),
            });
        }
        let agent = Arc::new(crate::NoInteraction::new(
            "this server's grant runs without a person; no login is needed",
        ));
        OAuth::new(config, store, agent)
    }
}

impl Inner {
    /// Runs the configured machine grant after discovery: the scopes as
    /// the authorization code flow picks them (no `offline_access`), the
    /// token stored like a login's.
    pub(crate) async fn authorize_with_grant(
        &self,
        grant: &Grant,
        discovered: Discovered,
        challenge_scope: Option<&str>,
        step_up: bool,
    ) -> Result<(), AuthError> {
        let key = StoreKey::tokens(
            discovered.resource.clone(),
            discovered.metadata.issuer.clone(),
            self.config.account.clone(),
        );
        let previous = lock(&self.state).scopes.clone();
        let wanted = if step_up {
            let more = challenge_scope.map(scope::split).unwrap_or_default();
            scope::union(&previous, &more)
        } else {
            let first = scope::initial(challenge_scope, discovered.prm_scopes.as_deref());
            scope::union(&scope::union(&first, &previous), &self.config.scopes)
        };
        let scope_text = (!wanted.is_empty()).then(|| wanted.join(" "));
        let mut tokens =
            with_nonce_retry(|| self.grant_token(grant, &discovered, scope_text.as_deref()))
                .await?;
        tokens.wanted_scope = scope_text;
        self.put_tokens(&key, tokens).await?;
        let mut st = lock(&self.state);
        st.key = Some(key);
        st.scopes = wanted;
        st.discovered = Some(discovered);
        Ok(())
    }

    /// A token from the authorization server of `discovered` by `grant`,
    /// asking for `scope`.
    ///
    /// Errors: `TokenRefused` (the authorization server's OAuth error, as
    /// it came), `TokenResponse`, `Key` (a key the server does not
    /// accept), `Assertion` (an ID token or workload JWT that is missing,
    /// not a JWT or expired: nothing was sent), `TokenExchange` (the
    /// identity provider refused or answered with something else), `Fetch`.
    pub(crate) async fn grant_token(
        &self,
        grant: &Grant,
        discovered: &Discovered,
        scope: Option<&str>,
    ) -> Result<TokenRecord, AuthError> {
        let metadata = &discovered.metadata;
        let mut req = Request::default();
        req.pair("grant_type", grant.grant_type());
        match grant {
            Grant::ClientCredentials(client) => authenticate(&mut req, client, metadata)?,
            Grant::EnterpriseManaged {
                client,
                identity_provider,
                id_token,
            } => {
                let id_jag = self
                    .exchange_for_id_jag(identity_provider, id_token.as_ref(), discovered, scope)
                    .await?;
                req.pair("assertion", id_jag.expose());
                req.secrets.push(id_jag);
                authenticate(&mut req, client, metadata)?;
            }
            Grant::WorkloadIdentity { assertion } => {
                let jwt = assertion.assertion("workload JWT").await?;
                check_assertion(
                    jwt.expose(),
                    "workload JWT",
                    &assertion.origin(),
                    now_secs(),
                )?;
                req.pair("assertion", jwt.expose());
                req.secrets.push(jwt);
            }
        }
        req.pair("resource", discovered.resource.as_str());
        if let Some(s) = scope {
            req.pair("scope", s);
        }
        tracing::info!(issuer = %metadata.issuer, grant_type = grant.grant_type(), "requesting a token without a person");
        let pairs: Vec<(&str, &str)> = req
            .pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let secrets: Vec<&Secret> = req.secrets.iter().collect();
        send_token_request(
            &self.fetcher,
            &metadata.token_endpoint,
            &pairs,
            req.headers,
            &secrets,
            None,
            scope,
            self.token_dpop(metadata).await?.as_ref(),
        )
        .await
    }

    /// The ID-JAG for the authorization server of `discovered`, from the
    /// identity provider's token exchange (RFC 8693) of the ID token.
    async fn exchange_for_id_jag(
        &self,
        idp: &IdentityProvider,
        id_token: &dyn AssertionSource,
        discovered: &Discovered,
        scope: Option<&str>,
    ) -> Result<Secret, AuthError> {
        let token = id_token.assertion("ID token").await?;
        check_assertion(token.expose(), "ID token", &id_token.origin(), now_secs())?;
        let url = match (&idp.token_endpoint, &idp.issuer) {
            (Some(url), _) => url.clone(),
            (None, Some(issuer)) => {
                Walk::new(&self.fetcher)
                    .issuer_metadata(issuer)
                    .await?
                    .token_endpoint
            }
            (None, None) => {
                return Err(AuthError::TokenExchange {
                    url: String::new(),
                    problem: ExchangeProblem::NotIdJag(
                        "no identity provider token endpoint or issuer is configured".into(),
                    ),
                });
            }
        };
        crate::fetch::check_url("identity provider token endpoint", &url)?;
        let pairs = exchange_pairs(
            token.expose(),
            &discovered.metadata.issuer,
            &discovered.resource,
            scope,
            idp.client_id.as_deref(),
        );
        let mut headers = Vec::new();
        let from_variable = match (&idp.client_secret, &idp.client_secret_env) {
            (None, Some(var)) => Some(from_env("identity provider client secret", var)?),
            _ => None,
        };
        let mut secrets = vec![&token];
        if let (Some(id), Some(secret)) = (
            &idp.client_id,
            idp.client_secret.as_ref().or(from_variable.as_ref()),
        ) {
            let record = ClientRecord::new(id.clone(), Some(secret.clone()))
                .with_token_endpoint_auth_method("client_secret_basic");
            let (_, h) = authenticated(&record, &discovered.metadata, &[], &url)?;
            headers = h;
            secrets.push(secret);
        }
        tracing::info!(identity_provider = %url, audience = %discovered.metadata.issuer, "exchanging the ID token for an ID-JAG");
        let response = token_post(&self.fetcher, &url, &pairs, headers).await?;
        let status = response.status().as_u16();
        let fail = |problem| AuthError::TokenExchange {
            url: url.clone(),
            problem,
        };
        let not_json = |response: &http::Response<bytes::Bytes>| ExchangeProblem::NotJson {
            status,
            content_type: response
                .headers()
                .get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned(),
        };
        if !response.status().is_success() {
            return Err(fail(match oauth_error_body(&response, &secrets) {
                Some((error, description)) => ExchangeProblem::Refused {
                    status,
                    error,
                    description,
                },
                None => not_json(&response),
            }));
        }
        if !is_json(&response) {
            return Err(fail(not_json(&response)));
        }
        let body: ExchangeBody = crate::metadata::read_json(response.body()).map_err(|_| {
            fail(ExchangeProblem::NotIdJag(
                "the reply is not a JSON object of a token exchange response".into(),
            ))
        })?;
        match body.issued_token_type.as_deref() {
            Some(ID_JAG_TOKEN_TYPE) => {}
            Some(other) => {
                return Err(fail(ExchangeProblem::NotIdJag(format!(
                    "issued_token_type is {:?}",
                    scrub(other, &secrets)
                ))));
            }
            None => {
                return Err(fail(ExchangeProblem::NotIdJag(
                    "no issued_token_type".into(),
                )));
            }
        }
        body.access_token
            .filter(|t| !t.is_empty())
            .map(Secret::new)
            .ok_or_else(|| fail(ExchangeProblem::NotIdJag("no access_token".into())))
    }
}
