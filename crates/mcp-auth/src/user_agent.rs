//! The browser step of the authorization code flow, as a seam: a
//! [`UserAgent`] takes the authorization URL to the user and brings back
//! the parameters of the redirect. Bundled: [`NoInteraction`] (daemons and
//! background reconnects: "login needed") and [`HeadlessRedirect`] (GETs
//! the authorization URL without following redirects and reads
//! `Location`: for authorization servers that redirect at once, as test
//! servers and the conformance suite do).

use std::fmt;

use async_trait::async_trait;
use bytes::Bytes;
use mcp_transport_http::Fetcher;
use url::Url;

use crate::error::AuthError;

/// What the user agent is asked to do.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AuthorizationPrompt {
    /// The authorization URL to open (holds `state` and the PKCE
    /// challenge; no secret).
    pub url: String,
    /// The redirect URI the authorization server will send the user back
    /// to.
    pub redirect_uri: String,
    /// The `state` the authorization URL carries: a redirect with another
    /// one is not the answer to this request (not a secret).
    pub state: String,
    /// The authorization server's issuer: a redirect whose RFC 9207 `iss`
    /// differs is not from it.
    pub issuer: String,
    /// The authorization server advertises `iss` on its redirects: one
    /// without it is not from it.
    pub iss_required: bool,
}

impl AuthorizationPrompt {
    /// A prompt to send the user to `url`, coming back to `redirect_uri`
    /// with `state`, from `issuer` (which sends `iss` when `iss_required`).
    pub fn new(
        url: impl Into<String>,
        redirect_uri: impl Into<String>,
        state: impl Into<String>,
        issuer: impl Into<String>,
        iss_required: bool,
    ) -> AuthorizationPrompt {
        AuthorizationPrompt {
            url: url.into(),
            redirect_uri: redirect_uri.into(),
            state: state.into(),
            issuer: issuer.into(),
            iss_required,
        }
    }

    /// Why `params` cannot be the answer to this prompt (`state` or `iss`
    /// differs, or `iss` is missing where required), if they cannot. The
    /// flow checks them again; an agent uses this to refuse a stray
    /// redirect and keep waiting for the right one.
    pub fn mismatch(&self, params: &CallbackParams) -> Option<&'static str> {
        match params.get("state") {
            Some(s) if s == self.state => {}
            Some(_) => return Some("its state is not the one of this login"),
            None => return Some("it has no state"),
        }
        match params.get("iss") {
            Some(iss) if iss != self.issuer => {
                Some("its iss is not the authorization server's issuer")
            }
            None if self.iss_required => {
                Some("it has no iss, which this authorization server sends")
            }
            _ => None,
        }
    }
}

/// The parameters of the redirect back to the client (`code`, `state`,
/// `iss`, `error`, …), raw: the flow validates them. Their `Debug` output
/// shows names only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CallbackParams {
    params: Vec<(String, String)>,
}

impl CallbackParams {
    /// Parameters from `(name, value)` pairs.
    pub fn new(params: Vec<(String, String)>) -> CallbackParams {
        CallbackParams { params }
    }

    /// The parameters of the query of `url` (a full redirect URL).
    ///
    /// Errors: `None` when `url` is not an absolute URL.
    pub fn from_url(url: &str) -> Option<CallbackParams> {
        let url = Url::parse(url).ok()?;
        Some(CallbackParams::new(
            url.query_pairs().into_owned().collect(),
        ))
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl fmt::Debug for CallbackParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.params.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("CallbackParams")
            .field("names", &names)
            .finish()
    }
}

/// Takes the user through the authorization step.
#[async_trait]
pub trait UserAgent: Send + Sync + fmt::Debug {
    /// Sends the user to `prompt.url` and returns the parameters of the
    /// redirect to `prompt.redirect_uri`.
    ///
    /// Errors: [`AuthError::NeedsLogin`] when no user can be asked;
    /// [`AuthError::UserAgent`] when the step failed.
    async fn authorize(&self, prompt: &AuthorizationPrompt) -> Result<CallbackParams, AuthError>;

    /// Whether a user can be asked at all, checked once the authorization
    /// server is known and before anything is sent to it: an agent that
    /// can never ask anyone stops the flow there, so that no client is
    /// registered for a login that cannot happen. The default: `Ok(())`.
    ///
    /// Errors: [`AuthError::NeedsLogin`] when no user can be asked.
    fn available(&self) -> Result<(), AuthError> {
        Ok(())
    }
}

/// No user to ask: every authorization fails with
/// [`AuthError::NeedsLogin`] (a daemon, a background reconnect: no
/// browser tabs opened behind the user's back).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct NoInteraction {
    /// What the user should do, e.g. "run `mcp login github`".
    pub hint: String,
}

impl NoInteraction {
    /// An agent whose error says `hint`.
    pub fn new(hint: impl Into<String>) -> NoInteraction {
        NoInteraction { hint: hint.into() }
    }
}

impl NoInteraction {
    /// The error of every authorization.
    fn needs_login(&self) -> AuthError {
        AuthError::NeedsLogin {
            hint: if self.hint.is_empty() {
                "this server needs an interactive login".into()
            } else {
                self.hint.clone()
            },
        }
    }
}

#[async_trait]
impl UserAgent for NoInteraction {
    async fn authorize(&self, _prompt: &AuthorizationPrompt) -> Result<CallbackParams, AuthError> {
        Err(self.needs_login())
    }

    fn available(&self) -> Result<(), AuthError> {
        Err(self.needs_login())
    }
}

/// GETs the authorization URL without following redirects and reads the
/// redirect's `Location`: for an authorization server that redirects back
/// at once (no login page), as test servers and the conformance suite's
/// do. Nothing listens on the redirect URI.
#[derive(Debug, Clone)]
pub struct HeadlessRedirect {
    fetcher: Fetcher,
}

impl HeadlessRedirect {
    /// An agent that sends its GET with `fetcher`.
    pub fn new(fetcher: Fetcher) -> HeadlessRedirect {
        HeadlessRedirect { fetcher }
    }
}

#[async_trait]
impl UserAgent for HeadlessRedirect {
    async fn authorize(&self, prompt: &AuthorizationPrompt) -> Result<CallbackParams, AuthError> {
        let request = http::Request::get(prompt.url.as_str())
            .body(Bytes::new())
            .map_err(|_| AuthError::UserAgent {
                problem: "the authorization URL is not a valid request URL".into(),
            })?;
        let response = self
            .fetcher
            .fetch(request)
            .await
            .map_err(|source| AuthError::Fetch {
                what: "the authorization endpoint".into(),
                source,
            })?;
        if !response.status().is_redirection() {
            // An authorization server that does not know the client (or
            // its redirect URI) answers itself instead of redirecting
            // (RFC 6749 § 4.1.2.1); its OAuth error code is the answer.
            if let Some(error) = oauth_error_code(&response) {
                return Err(AuthError::AuthorizationResponse {
                    reason: crate::error::ResponseProblem::Refused,
                    error: Some(error),
                });
            }
            return Err(AuthError::UserAgent {
                problem: format!(
                    "the authorization endpoint answered HTTP {}, not a redirect",
                    response.status().as_u16()
                ),
            });
        }
        let location = response
            .headers()
            .get(http::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| AuthError::UserAgent {
                problem: "the authorization endpoint's redirect has no Location".into(),
            })?;
        let base = Url::parse(&prompt.url).map_err(|_| AuthError::UserAgent {
            problem: "the authorization URL is not absolute".into(),
        })?;
        let target = base.join(location).map_err(|_| AuthError::UserAgent {
            problem: "the redirect Location is not a URL".into(),
        })?;
        let expected = Url::parse(&prompt.redirect_uri).map_err(|_| AuthError::UserAgent {
            problem: "the redirect URI is not absolute".into(),
        })?;
        if target.origin() != expected.origin() || target.path() != expected.path() {
            return Err(AuthError::UserAgent {
                problem: "the authorization endpoint redirected elsewhere than the redirect URI"
                    .into(),
            });
        }
        Ok(CallbackParams::new(
            target.query_pairs().into_owned().collect(),
        ))
    }
}

/// The `error` of a JSON OAuth error answer (RFC 6749 § 5.2 shape), when
/// `response` is one and the code is a plain token (no secret can be in
/// one: it is shown as it is).
fn oauth_error_code(response: &http::Response<Bytes>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct ErrorBody {
        error: String,
    }
    if !crate::fetch::is_json(response) {
        return None;
    }
    let body: ErrorBody = crate::metadata::read_json(response.body()).ok()?;
    let plain = !body.error.is_empty()
        && body.error.len() <= 64
        && body
            .error
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    plain.then_some(body.error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callback_params_hide_values() {
        let p = CallbackParams::from_url("http://localhost:3000/callback?code=c0de-secret&state=s")
            .unwrap();
        assert_eq!(p.get("code"), Some("c0de-secret"));
        assert_eq!(p.get("state"), Some("s"));
        assert_eq!(p.get("iss"), None);
        assert!(!format!("{p:?}").contains("c0de-secret"));
        assert!(CallbackParams::from_url("no").is_none());
    }
}
