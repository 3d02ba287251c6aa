//! The client's identity at an authorization server (spec
//! `basic/authorization` § Client Registration Approaches), in the spec's
//! order: a pre-registered client for that issuer, then a Client ID
//! Metadata Document where the server accepts one, then Dynamic Client
//! Registration (RFC 7591, with `application_type`). Registrations are
//! stored per issuer and never used with another.

use std::sync::Arc;

use mcp_transport_http::Fetcher;
use serde::Deserialize;
use serde_json::json;

use crate::config::{OAuthConfig, PreregisteredClient};
use crate::env_secret::from_env;
use crate::error::{AuthError, RegistrationProblem};
use crate::fetch::{is_json, post};
use crate::metadata::AuthorizationServerMetadata;
use crate::secret::Secret;
use crate::store::ClientRecord;
use crate::token::DEVICE_GRANT;

/// How a client identity was obtained (for logs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    Preregistered,
    MetadataDocument,
    Dynamic,
}

/// The configured client for `issuer`, if any: one restricted to that
/// issuer first, then one for any issuer.
pub(crate) fn preregistered<'a>(
    config: &'a OAuthConfig,
    issuer: &str,
) -> Option<&'a PreregisteredClient> {
    let exact = config
        .preregistered
        .iter()
        .find(|c| c.issuer.as_deref() == Some(issuer));
    let any = || config.preregistered.iter().find(|c| c.issuer.is_none());
    exact.or_else(any)
}

/// The identity of the pre-registered client `c`, its secret read now
/// from the variable it names, if it names one.
///
/// Errors: `SecretUnavailable` when that variable is not set or empty.
pub(crate) fn preregistered_record(c: &PreregisteredClient) -> Result<ClientRecord, AuthError> {
    let client_secret = match &c.client_secret_env {
        Some(var) => Some(from_env("client secret", var)?),
        None => c.client_secret.clone(),
    };
    Ok(ClientRecord {
        client_id: c.client_id.clone(),
        client_secret,
        token_endpoint_auth_method: c.token_endpoint_auth_method.clone(),
    })
}

/// The Client ID Metadata Document identity, when configured and accepted.
pub(crate) fn metadata_document(
    config: &OAuthConfig,
    metadata: &AuthorizationServerMetadata,
) -> Option<ClientRecord> {
    if !metadata.client_id_metadata_document_supported {
        return None;
    }
    let url = config.client_metadata_url.as_ref()?;
    Some(ClientRecord::new(url.clone(), None).with_token_endpoint_auth_method("none"))
}

/// The token endpoint authentication method to ask for at registration:
/// `none` (a public native client) when the server allows it or does not
/// say, else the first secret-based method it lists.
fn wanted_auth_method(metadata: &AuthorizationServerMetadata) -> &'static str {
    match &metadata.token_endpoint_auth_methods_supported {
        None => "none",
        Some(m) if m.iter().any(|m| m == "none") => "none",
        Some(m) if m.iter().any(|m| m == "client_secret_basic") => "client_secret_basic",
        Some(m) if m.iter().any(|m| m == "client_secret_post") => "client_secret_post",
        Some(_) => "none",
    }
}

#[derive(Deserialize)]
struct RegistrationResponse {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

#[derive(Deserialize)]
struct OAuthErrorBody {
    error: Option<String>,
}

/// Registers with the authorization server (RFC 7591).
///
/// Errors: `NoClient` without a registration endpoint; `Registration` when
/// the server refuses or answers something unusable; `Fetch`.
pub(crate) async fn register(
    fetcher: &Fetcher,
    config: &OAuthConfig,
    metadata: &AuthorizationServerMetadata,
) -> Result<ClientRecord, AuthError> {
    let Some(url) = metadata.registration_endpoint.as_deref() else {
        return Err(AuthError::NoClient {
            issuer: metadata.issuer.clone(),
            problem: "no pre-registered client for it, no Client ID Metadata Document \
                      accepted, and no registration endpoint"
                .into(),
        });
    };
    let mut grant_types = vec!["authorization_code", "refresh_token"];
    // A client that may also log in with a device code (RFC 8628), where
    // the server offers it and does not say it refuses the grant.
    let device_grant = metadata.device_authorization_endpoint.is_some()
        && metadata
            .grant_types_supported
            .as_ref()
            .is_none_or(|g| g.iter().any(|g| g == DEVICE_GRANT));
    if device_grant {
        grant_types.push(DEVICE_GRANT);
    }
    let body = json!({
        "client_name": config.client_name,
        "redirect_uris": [config.redirect_uri],
        "grant_types": grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": wanted_auth_method(metadata),
        "application_type": config.application_type,
    });
    let response = post(
        fetcher,
        "client registration",
        url,
        "application/json",
        Vec::new(),
        body.to_string(),
    )
    .await?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        let error = crate::metadata::read_json::<OAuthErrorBody>(response.body())
            .ok()
            .and_then(|b| b.error);
        return Err(AuthError::Registration {
            url: url.to_owned(),
            reason: RegistrationProblem::Refused { status, error },
            source: None,
        });
    }
    if !is_json(&response) {
        return Err(AuthError::Registration {
            url: url.to_owned(),
            reason: RegistrationProblem::NotJson { status },
            source: None,
        });
    }
    let parsed: RegistrationResponse =
        crate::metadata::read_json(response.body()).map_err(|e| AuthError::Registration {
            url: url.to_owned(),
            reason: RegistrationProblem::NotAResponse,
            // The answer may hold a client secret: what is wrong, never a
            // value.
            source: Some(Arc::from(Box::<dyn std::error::Error + Send + Sync>::from(
                crate::metadata::json_shape_error(&e),
            ))),
        })?;
    Ok(ClientRecord {
        client_id: parsed.client_id,
        client_secret: parsed.client_secret.map(Secret::new),
        token_endpoint_auth_method: parsed.token_endpoint_auth_method,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PreregisteredClient;

    #[test]
    fn preregistered_for_the_issuer_first_then_for_any() {
        let config = OAuthConfig::new("https://s/mcp", "http://localhost/cb")
            .with_preregistered(PreregisteredClient::new("any", None))
            .with_preregistered(PreregisteredClient::new("for-a", None).with_issuer("https://a"));
        assert_eq!(
            preregistered(&config, "https://a").unwrap().client_id,
            "for-a"
        );
        assert_eq!(
            preregistered(&config, "https://b").unwrap().client_id,
            "any"
        );
        let only_a = OAuthConfig::new("https://s/mcp", "http://localhost/cb")
            .with_preregistered(PreregisteredClient::new("for-a", None).with_issuer("https://a"));
        assert!(
            preregistered(&only_a, "https://b").is_none(),
            "never another issuer's"
        );
    }

    #[test]
    fn registration_asks_for_a_method_the_server_has() {
        let mut m = AuthorizationServerMetadata::fallback("https://a");
        let cases: [(Option<Vec<&str>>, &str); 5] = [
            (None, "none"),
            (Some(vec!["none"]), "none"),
            (Some(vec!["client_secret_basic"]), "client_secret_basic"),
            (Some(vec!["client_secret_post"]), "client_secret_post"),
            (Some(vec!["client_secret_post", "none"]), "none"),
        ];
        for (supported, want) in cases {
            m.token_endpoint_auth_methods_supported =
                supported.map(|v| v.into_iter().map(String::from).collect());
            assert_eq!(wanted_auth_method(&m), want);
        }
    }
}
