//! The token endpoint (OAuth 2.1 § 3.2): exchanging a code, refreshing,
//! client authentication by the registered or advertised method (`none`,
//! `client_secret_basic`, `client_secret_post`), and reading the answer
//! strictly: `access_token` and a `Bearer` `token_type` are required (or
//! `DPoP`, for a request that carried a DPoP proof).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http::{HeaderName, HeaderValue, header};
use mcp_transport_http::Fetcher;
use serde::Deserialize;
use url::form_urlencoded;

use crate::dpop::{
    DPOP_HEADER, DpopKey, NonceDemand, Nonces, ProofFor, nonce_of, origin, proof_header,
};
use crate::error::{AuthError, DpopProblem};
use crate::fetch::{is_json, post};
use crate::metadata::AuthorizationServerMetadata;
use crate::secret::{Secret, scrub};
use crate::store::{ClientRecord, TokenRecord};

/// The client authentication method for `client` at this server: the
/// registered one; else `none` without a secret; else the first of
/// `client_secret_basic`, `client_secret_post` the server lists (RFC 8414's
/// default when it lists none: `client_secret_basic`).
pub(crate) fn auth_method(client: &ClientRecord, metadata: &AuthorizationServerMetadata) -> String {
    if let Some(m) = &client.token_endpoint_auth_method {
        return m.clone();
    }
    if client.client_secret.is_none() {
        return "none".into();
    }
    let supported = metadata
        .token_endpoint_auth_methods_supported
        .clone()
        .unwrap_or_else(|| vec!["client_secret_basic".into()]);
    for m in ["client_secret_basic", "client_secret_post"] {
        if supported.iter().any(|s| s == m) {
            return m.into();
        }
    }
    if supported.iter().any(|s| s == "none") {
        return "none".into();
    }
    "client_secret_basic".into()
}

/// The form pairs and headers of a request to `url` (the token or the
/// revocation endpoint) with `params` and the client's authentication, by
/// the method [`auth_method`] picks.
///
/// Errors: `TokenResponse` when the credentials cannot go in a header.
#[allow(
    clippy::type_complexity,
    reason = "a pair of the two lists a request needs"
)]
pub(crate) fn authenticated<'a>(
    client: &'a ClientRecord,
    metadata: &AuthorizationServerMetadata,
    params: &[(&'a str, &'a str)],
    url: &str,
) -> Result<(Vec<(&'a str, String)>, Vec<(HeaderName, HeaderValue)>), AuthError> {
    let method = auth_method(client, metadata);
    let mut pairs: Vec<(&str, String)> =
        params.iter().map(|(k, v)| (*k, (*v).to_owned())).collect();
    let mut headers: Vec<(HeaderName, HeaderValue)> = Vec::new();
    let secret = client.client_secret.as_ref().map(Secret::expose);
    match (method.as_str(), secret) {
        ("client_secret_basic", Some(secret)) => {
            // RFC 6749 § 2.3.1: both parts form-encoded before base64.
            let id: String = form_urlencoded::byte_serialize(client.client_id.as_bytes()).collect();
            let pw: String = form_urlencoded::byte_serialize(secret.as_bytes()).collect();
            let basic = STANDARD.encode(format!("{id}:{pw}"));
            let mut value = HeaderValue::try_from(format!("Basic {basic}")).map_err(|_| {
                AuthError::TokenResponse {
                    url: url.to_owned(),
                    problem: "the client credentials cannot be sent in a header".into(),
                }
            })?;
            value.set_sensitive(true);
            headers.push((header::AUTHORIZATION, value));
        }
        ("client_secret_post", Some(secret)) => {
            pairs.push(("client_id", client.client_id.clone()));
            pairs.push(("client_secret", secret.to_owned()));
        }
        _ => pairs.push(("client_id", client.client_id.clone())),
    }
    Ok((pairs, headers))
}

/// `application/x-www-form-urlencoded` of `pairs`.
pub(crate) fn form(pairs: &[(&str, &str)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish()
}

#[derive(Deserialize)]
struct TokenBody {
    access_token: Option<String>,
    token_type: Option<String>,
    expires_in: Option<serde_json::Value>,
    refresh_token: Option<String>,
    scope: Option<String>,
}

#[derive(Deserialize)]
struct ErrorBody {
    error: Option<String>,
    error_description: Option<String>,
}

/// POSTs a token request with `params` (the grant's own) plus the client's
/// authentication, and reads the token response. `previous_refresh` is
/// kept when the response has no refresh token; `requested_scope` stands
/// for the granted scope when the response does not say.
///
/// Errors: `TokenRefused` (an OAuth error answer; `is_invalid_grant()`
/// tells a dead grant), `TokenResponse` (not a usable answer), `Fetch`,
/// `Dpop` (with `dpop`: see [`send_token_request`]).
#[allow(
    clippy::too_many_arguments,
    reason = "the request's parts, each different; a struct would only rename them"
)]
pub(crate) async fn request_token(
    fetcher: &Fetcher,
    metadata: &AuthorizationServerMetadata,
    client: &ClientRecord,
    params: &[(&str, &str)],
    secrets: &[&Secret],
    previous_refresh: Option<Secret>,
    requested_scope: Option<&str>,
    dpop: Option<&TokenDpop>,
) -> Result<TokenRecord, AuthError> {
    let url = metadata.token_endpoint.as_str();
    let (pairs, headers) = authenticated(client, metadata, params, url)?;
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut all_secrets: Vec<&Secret> = secrets.to_vec();
    if let Some(s) = &client.client_secret {
        all_secrets.push(s);
    }
    with_nonce_retry(|| {
        send_token_request(
            fetcher,
            url,
            &pairs,
            headers.clone(),
            &all_secrets,
            previous_refresh.clone(),
            requested_scope,
            dpop,
        )
    })
    .await
}

/// The one POST of every token request this crate makes, to an
/// authorization server's token endpoint or an identity provider's (RFC
/// 8693 token exchange): `pairs` form-encoded, with `headers` (client
/// authentication). Whatever every token request must carry is added
/// here.
///
/// Errors: `Fetch`.
pub(crate) async fn token_post(
    fetcher: &Fetcher,
    url: &str,
    pairs: &[(&str, &str)],
    headers: Vec<(HeaderName, HeaderValue)>,
) -> Result<http::Response<bytes::Bytes>, AuthError> {
    post(
        fetcher,
        "token request",
        url,
        "application/x-www-form-urlencoded",
        headers,
        form(pairs),
    )
    .await
}

/// The `error` and `error_description` of an OAuth error answer (RFC 6749
/// § 5.2), scrubbed of `secrets`; `None` when the answer is not JSON or
/// not such an object.
pub(crate) fn oauth_error_body(
    response: &http::Response<bytes::Bytes>,
    secrets: &[&Secret],
) -> Option<(Option<String>, Option<String>)> {
    if !is_json(response) {
        return None;
    }
    let b = crate::metadata::read_json::<ErrorBody>(response.body()).ok()?;
    Some((
        b.error.map(|e| scrub(&e, secrets)),
        b.error_description.map(|d| scrub(&d, secrets)),
    ))
}

/// [`token_post`] to the token endpoint `url` with `pairs` and `headers`
/// already holding the grant and the client's authentication, then reads
/// the token response as [`request_token`] does; `secrets` are scrubbed
/// from an error's text. With `dpop`, the request carries a DPoP proof
/// (retried once with the nonce the server asks for) and a `DPoP`
/// `token_type` is accepted: the token is bound to `dpop`'s key.
///
/// Errors: `TokenRefused`, `TokenResponse`, `Fetch`, `Dpop`.
#[allow(
    clippy::too_many_arguments,
    reason = "the request's parts, each different; a struct would only rename them"
)]
pub(crate) async fn send_token_request(
    fetcher: &Fetcher,
    url: &str,
    pairs: &[(&str, &str)],
    headers: Vec<(HeaderName, HeaderValue)>,
    all_secrets: &[&Secret],
    previous_refresh: Option<Secret>,
    requested_scope: Option<&str>,
    dpop: Option<&TokenDpop>,
) -> Result<TokenRecord, AuthError> {
    let response = match dpop {
        Some(dpop) => dpop.post(fetcher, url, pairs, headers).await?,
        None => token_post(fetcher, url, pairs, headers).await?,
    };
    let status = response.status().as_u16();
    if !response.status().is_success() {
        return Err(match oauth_error_body(&response, all_secrets) {
            Some((error, description)) => AuthError::TokenRefused {
                url: url.to_owned(),
                status,
                error,
                description,
            },
            None => AuthError::TokenRefused {
                url: url.to_owned(),
                status,
                error: None,
                description: Some("the reply is not a JSON OAuth error".into()),
            },
        });
    }
    let unusable = |problem: &str| AuthError::TokenResponse {
        url: url.to_owned(),
        problem: problem.to_owned(),
    };
    if !is_json(&response) {
        return Err(unusable("the reply is not JSON"));
    }
    let body: TokenBody = crate::metadata::read_json(response.body())
        .map_err(|_| unusable("the reply is not a JSON object of a token response"))?;
    let access_token = body
        .access_token
        .filter(|t| !t.is_empty())
        .ok_or_else(|| unusable("no access_token"))?;
    // RFC 9449 § 5: a server may issue a bearer token to a request with a
    // proof; a DPoP-bound one only to such a request.
    let dpop_jkt = match (body.token_type.as_deref(), dpop) {
        (Some(t), _) if t.eq_ignore_ascii_case("bearer") => None,
        (Some(t), Some(dpop)) if t.eq_ignore_ascii_case("dpop") => Some(dpop.thumbprint()),
        (Some(_), Some(_)) => return Err(unusable("token_type is neither Bearer nor DPoP")),
        (Some(_), None) => return Err(unusable("token_type is not Bearer")),
        (None, _) => return Err(unusable("no token_type")),
    };
    let expires_at = match body.expires_in {
        Some(serde_json::Value::Number(n)) => n
            .as_u64()
            .map(|s| SystemTime::now() + Duration::from_secs(s)),
        // Some servers send the number as a string.
        Some(serde_json::Value::String(s)) => s
            .trim()
            .parse::<u64>()
            .ok()
            .map(|s| SystemTime::now() + Duration::from_secs(s)),
        _ => None,
    };
    Ok(TokenRecord {
        access_token: Secret::new(access_token),
        refresh_token: body.refresh_token.map(Secret::new).or(previous_refresh),
        expires_at,
        received_at: Some(SystemTime::now()),
        scope: body.scope.or_else(|| requested_scope.map(str::to_owned)),
        wanted_scope: None,
        dpop_jkt,
    })
}

/// The DPoP side of a token request: the authorization server's key and
/// the nonces its origin gave.
#[derive(Debug, Clone)]
pub(crate) struct TokenDpop {
    pub(crate) key: Arc<DpopKey>,
    pub(crate) nonces: Arc<Nonces>,
}

impl TokenDpop {
    /// The thumbprint of the key a token issued to this request is bound
    /// to.
    pub(crate) fn thumbprint(&self) -> String {
        self.key.thumbprint().to_owned()
    }

    /// One [`token_post`] of `pairs` and `headers` to the token endpoint
    /// `url` with a fresh proof (no `ath`, no `content_digest`) carrying
    /// the nonce its origin gave last; the reply's `DPoP-Nonce` is
    /// remembered. A 400 `use_dpop_nonce` answer is returned as it is (it
    /// becomes `TokenRefused`, which [`with_nonce_retry`] sends once more,
    /// the request built anew) unless the server is looping or gave no
    /// nonce.
    ///
    /// Errors: `Fetch`; `Dpop` for a URL a proof cannot name, a nonce
    /// demanded again right after one was given
    /// ([`DpopProblem::NonceLoop`]) or demanded without one
    /// ([`DpopProblem::NonceMissing`]).
    pub(crate) async fn post(
        &self,
        fetcher: &Fetcher,
        url: &str,
        pairs: &[(&str, &str)],
        headers: Vec<(HeaderName, HeaderValue)>,
    ) -> Result<http::Response<Bytes>, AuthError> {
        let origin = origin(url).ok_or(AuthError::Dpop {
            problem: DpopProblem::BadUrl,
        })?;
        let nonce = self.nonces.for_proof(&origin);
        let proof = self.key.proof(&ProofFor {
            method: "POST",
            url,
            nonce: nonce.as_deref(),
            access_token: None,
            body: None,
        })?;
        let mut with_proof = headers;
        with_proof.push((HeaderName::from_static(DPOP_HEADER), proof_header(&proof)?));
        let response = token_post(fetcher, url, pairs, with_proof).await?;
        let demand = response.status() == http::StatusCode::BAD_REQUEST
            && is_nonce_demand(
                oauth_error_body(&response, &[])
                    .and_then(|(e, _)| e)
                    .as_deref(),
            );
        self.nonces
            .learn(&origin, nonce_of(response.headers()), demand);
        if demand && let NonceDemand::GiveUp(problem) = self.nonces.after_demand(&origin) {
            return Err(AuthError::Dpop { problem });
        }
        Ok(response)
    }
}

fn is_nonce_demand(error: Option<&str>) -> bool {
    error == Some("use_dpop_nonce")
}

/// Runs `attempt`, one token request built anew each time (a client
/// assertion or an ID-JAG is good for one request only), and once more
/// when the authorization server answered it 400 `use_dpop_nonce` (RFC
/// 9449 § 8: the nonce it sent is in the next proof). A second such answer
/// is a nonce loop.
///
/// Errors: `attempt`'s; `Dpop` ([`DpopProblem::NonceLoop`]) for a nonce
/// demanded again after the retry.
pub(crate) async fn with_nonce_retry<F, Fut>(mut attempt: F) -> Result<TokenRecord, AuthError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<TokenRecord, AuthError>>,
{
    let nonce_demand = |r: &Result<TokenRecord, AuthError>| match r {
        Err(AuthError::TokenRefused {
            status: 400,
            error,
            url,
            ..
        }) if is_nonce_demand(error.as_deref()) => Some(url.clone()),
        _ => None,
    };
    let first = attempt().await;
    let Some(url) = nonce_demand(&first) else {
        return first;
    };
    tracing::debug!(%url, "the authorization server asks for a DPoP nonce; sending the token request once more with it");
    let second = attempt().await;
    match nonce_demand(&second) {
        Some(url) => Err(AuthError::Dpop {
            problem: DpopProblem::NonceLoop {
                origin: origin(&url).unwrap_or(url),
            },
        }),
        None => second,
    }
}

/// The grant type of device authorization (RFC 8628 § 3.4).
pub(crate) const DEVICE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// `true` when the access token of `tokens` should be refreshed before
/// use: its expiry is less than `skew` away, or less than half its
/// lifetime when that is shorter (a token that lives 30 s is not refreshed
/// at once because the skew is 60 s). A token without an expiry never is.
pub(crate) fn expiring(tokens: &TokenRecord, skew: Duration) -> bool {
    let Some(expires_at) = tokens.expires_at else {
        return false;
    };
    let lifetime = tokens
        .received_at
        .and_then(|r| expires_at.duration_since(r).ok());
    let margin = lifetime.map_or(skew, |l| skew.min(l / 2));
    expires_at <= SystemTime::now() + margin
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_auth_method_choice() {
        let mut m = AuthorizationServerMetadata::fallback("https://a");
        let public = ClientRecord::new("id", None);
        let confidential = ClientRecord::new("id", Some(Secret::new("s")));
        let cases: Vec<(&ClientRecord, Option<Vec<&str>>, &str)> = vec![
            (&public, None, "none"),
            (&public, Some(vec!["client_secret_basic"]), "none"),
            (&confidential, None, "client_secret_basic"),
            (
                &confidential,
                Some(vec!["client_secret_post"]),
                "client_secret_post",
            ),
            (&confidential, Some(vec!["none"]), "none"),
            (
                &confidential,
                Some(vec!["client_secret_post", "client_secret_basic"]),
                "client_secret_basic",
            ),
        ];
        for (client, supported, want) in cases {
            m.token_endpoint_auth_methods_supported =
                supported.map(|v| v.into_iter().map(String::from).collect());
            assert_eq!(auth_method(client, &m), want);
        }
        let registered = confidential
            .clone()
            .with_token_endpoint_auth_method("client_secret_post");
        m.token_endpoint_auth_methods_supported = None;
        assert_eq!(auth_method(&registered, &m), "client_secret_post");
    }

    #[test]
    fn form_encoding() {
        assert_eq!(
            form(&[("a", "b c"), ("resource", "https://x/mcp?q=1&r")]),
            "a=b+c&resource=https%3A%2F%2Fx%2Fmcp%3Fq%3D1%26r"
        );
    }
}
