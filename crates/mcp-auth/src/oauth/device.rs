//! Device authorization (RFC 8628), for a machine without a browser: the
//! client asks the authorization server for a device code, the user opens
//! the verification URI on any other device and enters the user code, and
//! the client polls the token endpoint at the interval the server asks for
//! (`authorization_pending`: wait; `slow_down`: wait 5 s longer) until the
//! user has answered or the code expires. The RFC 8707 `resource` and the
//! scopes are those of an authorization code login.

use std::time::{Duration, SystemTime};

use serde::Deserialize;

use crate::error::{AuthError, MetadataProblem, ResponseProblem, store_error};
use crate::fetch::{check_url, is_json, post};
use crate::scope;
use crate::secret::{Secret, scrub};
use crate::store::{Record, StoreKey};
use crate::token::{DEVICE_GRANT, authenticated, form, request_token};

use super::session::LoginStatus;
use super::{OAuth, lock};

/// The longest wait between two polls, whatever the server asks: 60 s.
const MAX_INTERVAL: Duration = Duration::from_secs(60);

/// What the user must be told (RFC 8628 § 3.3): where to go and the code
/// to enter there. The device code itself is never shown.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DevicePrompt {
    /// The page where the user enters the code.
    pub verification_uri: String,
    /// The same page with the code filled in, when the server gives one.
    pub verification_uri_complete: Option<String>,
    /// The code the user enters (short-lived, meant to be read aloud).
    pub user_code: String,
    /// How long the code is valid.
    pub expires_in: Duration,
}

#[derive(Deserialize)]
struct DeviceResponse {
    device_code: String,
    user_code: String,
    #[serde(alias = "verification_url")]
    verification_uri: String,
    #[serde(default)]
    verification_uri_complete: Option<String>,
    expires_in: u64,
    #[serde(default)]
    interval: Option<u64>,
}

impl OAuth {
    /// Logs in with device authorization (RFC 8628): discovery and client
    /// identity as [`login`](Self::login) does, then `show` is called once
    /// with what the user must do, and the token endpoint is polled until
    /// the user answers. The tokens are stored like any login's.
    ///
    /// Errors: `Metadata` when the authorization server offers no
    /// `device_authorization_endpoint`; `AuthorizationResponse` when the
    /// user refuses (`access_denied`) or the code expires
    /// (`expired_token`); the flow's other errors.
    pub async fn login_device(
        &self,
        show: &(dyn Fn(&DevicePrompt) + Send + Sync),
    ) -> Result<LoginStatus, AuthError> {
        let inner = &self.inner;
        let _flow = inner.flow.lock().await;
        let probed = inner.probe().await?;
        let discovered = inner
            .walk()
            .discover(
                &inner.server,
                probed.resource_metadata.as_deref(),
                inner.config.auth_server_metadata_url.as_deref(),
            )
            .await?;
        let metadata = &discovered.metadata;
        let endpoint = metadata
            .device_authorization_endpoint
            .clone()
            .ok_or_else(|| {
                AuthError::metadata(
                    "authorization server metadata",
                    metadata.issuer.clone(),
                    MetadataProblem::NoDeviceAuthorization,
                )
            })?;
        check_url("device authorization endpoint", &endpoint)?;
        let key = StoreKey::tokens(
            discovered.resource.clone(),
            metadata.issuer.clone(),
            inner.config.account.clone(),
        );
        let remembered = match inner.store.get(&key).await.map_err(store_error)? {
            Some((Record::Tokens(t), _)) => t
                .wanted_scope
                .or(t.scope)
                .map(|s| scope::split(&s))
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let first = scope::initial(probed.scope.as_deref(), discovered.prm_scopes.as_deref());
        let wanted = scope::union(&scope::union(&first, &remembered), &inner.config.scopes);
        let requested = scope::with_offline_access(
            wanted.clone(),
            metadata.scopes_supported.as_deref(),
            inner.config.request_offline_access,
        );
        let scope_text = (!requested.is_empty()).then(|| requested.join(" "));
        let client = inner.client_for(&discovered).await?;

        let mut params = vec![("resource", discovered.resource.as_str())];
        if let Some(s) = &scope_text {
            params.push(("scope", s.as_str()));
        }
        let (pairs, headers) = authenticated(&client, metadata, &params, &endpoint)?;
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let response = post(
            &inner.fetcher,
            "device authorization",
            &endpoint,
            "application/x-www-form-urlencoded",
            headers,
            form(&pairs),
        )
        .await?;
        let unusable = |problem: String| AuthError::TokenResponse {
            url: endpoint.clone(),
            problem,
        };
        if !response.status().is_success() {
            let text = String::from_utf8_lossy(response.body());
            let secrets: Vec<&Secret> = client.client_secret.iter().collect();
            let shown: String = scrub(&text, &secrets).chars().take(200).collect();
            return Err(unusable(format!(
                "the device authorization request was refused: HTTP {}: {shown}",
                response.status().as_u16()
            )));
        }
        if !is_json(&response) {
            return Err(unusable("the reply is not JSON".into()));
        }
        let device: DeviceResponse = crate::metadata::read_json(response.body())
            .map_err(|_| unusable("the reply is not a device authorization response".into()))?;
        let device_code = Secret::new(device.device_code);
        show(&DevicePrompt {
            verification_uri: device.verification_uri,
            verification_uri_complete: device.verification_uri_complete,
            user_code: device.user_code,
            expires_in: Duration::from_secs(device.expires_in),
        });
        let deadline = SystemTime::now() + Duration::from_secs(device.expires_in);
        let mut interval = Duration::from_secs(device.interval.unwrap_or(5)).min(MAX_INTERVAL);
        let tokens = loop {
            tokio::time::sleep(interval).await;
            let polled = request_token(
                &inner.fetcher,
                metadata,
                &client,
                &[
                    ("grant_type", DEVICE_GRANT),
                    ("device_code", device_code.expose()),
                    ("resource", &discovered.resource),
                ],
                &[&device_code],
                None,
                scope_text.as_deref(),
                inner.token_dpop(metadata).await?.as_ref(),
            )
            .await;
            match polled {
                Ok(tokens) => break tokens,
                Err(AuthError::TokenRefused { error: Some(e), .. })
                    if e == "authorization_pending" && SystemTime::now() < deadline => {}
                Err(AuthError::TokenRefused { error: Some(e), .. })
                    if e == "slow_down" && SystemTime::now() < deadline =>
                {
                    interval = (interval + Duration::from_secs(5)).min(MAX_INTERVAL);
                }
                Err(AuthError::TokenRefused { error: Some(e), .. })
                    if e == "authorization_pending" || e == "slow_down" || e == "expired_token" =>
                {
                    return Err(AuthError::AuthorizationResponse {
                        reason: ResponseProblem::Expired,
                        error: Some("expired_token".into()),
                    });
                }
                Err(AuthError::TokenRefused { error: Some(e), .. }) if e == "access_denied" => {
                    return Err(AuthError::AuthorizationResponse {
                        reason: ResponseProblem::UserRefused,
                        error: Some(e),
                    });
                }
                Err(e) => return Err(inner.client_refused(e, &metadata.issuer, &client).await?),
            }
        };
        let mut tokens = tokens;
        tokens.wanted_scope = Some(wanted.join(" ")).filter(|s| !s.is_empty());
        inner.put_tokens(&key, tokens).await?;
        {
            let mut st = lock(&inner.state);
            st.key = Some(key);
            st.scopes = wanted;
            st.discovered = Some(discovered);
        }
        drop(_flow);
        self.status().await?.ok_or_else(|| AuthError::Store {
            problem: "the tokens just stored are not found".into(),
            source: None,
        })
    }
}
