//! [`OAuth`] and the state it keeps between requests (which authorization
//! server issued the current token, the scopes asked for, step-up counts),
//! here; every method of them in the files of this folder, which build on
//! this one while it names none of them: the flow (`flow.rs`: stored
//! tokens, a whole authorization, the refresh, the client identity), the
//! grants without a person (`machine.rs`), how the flow uses DPoP
//! (`dpop_flow.rs`), the transport hook (`provider.rs`), the host's calls
//! (`session.rs`) and the device login (`device.rs`).

pub(crate) mod device;
mod dpop_flow;
mod flow;
mod machine;
mod provider;
pub(crate) mod session;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use mcp_transport_http::Fetcher;
use url::Url;

use crate::config::OAuthConfig;
use crate::discovery::Discovered;
use crate::dpop::DpopState;
use crate::error::AuthError;
use crate::fetch::check_url;
use crate::store::{CredentialStore, Revision, StoreKey};
use crate::user_agent::UserAgent;

/// The OAuth 2.1 client for one MCP server (spec `basic/authorization`).
/// Cheap to clone; [`provider`](OAuth::provider) plugs it into the HTTP
/// transport.
#[derive(Clone)]
pub struct OAuth {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) config: OAuthConfig,
    pub(crate) server: Url,
    pub(crate) fetcher: Fetcher,
    pub(crate) store: Arc<dyn CredentialStore>,
    pub(crate) agent: Arc<dyn UserAgent>,
    /// Held by whoever refreshes or authorizes: one flow at a time, the
    /// others wait and then find its token.
    pub(crate) flow: tokio::sync::Mutex<()>,
    pub(crate) state: Mutex<State>,
    /// DPoP keys and nonces.
    pub(crate) dpop: DpopState,
}

/// What the flow remembers between requests.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The tokens' key: the resource and the issuer of the last
    /// authorization (or refresh), or of the tokens found in the store.
    pub(crate) key: Option<StoreKey>,
    /// The scopes of the last authorization.
    pub(crate) scopes: Vec<String>,
    /// Step-up authorizations per operation.
    pub(crate) step_ups: HashMap<String, u32>,
    /// The authorization server of the last authorization, for refreshes.
    pub(crate) discovered: Option<Discovered>,
    /// The tokens (key and revision) obtained in answer to a refusal, and
    /// when: refused in their turn soon after, they show a server that
    /// rejects freshly issued tokens.
    pub(crate) answered: Option<(StoreKey, Revision, std::time::Instant)>,
    /// Tokens the server refused right after they were issued: refused
    /// again, the refusal fails at once, however long after.
    pub(crate) rejected: Option<(StoreKey, Revision)>,
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("server", &self.inner.server.as_str())
            .field("store", &self.inner.store)
            .field("user_agent", &self.inner.agent)
            .finish()
    }
}

pub(crate) fn lock(m: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl OAuth {
    /// The flow for `config.server_url`, storing credentials in `store` and
    /// taking the user through authorization with `agent`.
    ///
    /// Errors: `InsecureUrl` when the server URL or the redirect URI (when
    /// no [`Grant`](crate::Grant) is configured) is not
    /// an absolute https URL (or http on a loopback host, spec
    /// § Communication Security), or the Client ID Metadata Document URL is
    /// not https with a path (spec § Client ID Metadata Documents).
    pub fn new(
        config: OAuthConfig,
        store: Arc<dyn CredentialStore>,
        agent: Arc<dyn UserAgent>,
    ) -> Result<OAuth, AuthError> {
        let server = check_url("MCP server URL", &config.server_url)?;
        // A grant without a person never redirects.
        if config.grant.is_none() {
            check_url("redirect URI", &config.redirect_uri)?;
        }
        if let Some(url) = &config.auth_server_metadata_url {
            check_url("authorization server metadata URL", url)?;
        }
        if let Some(cimd) = &config.client_metadata_url {
            let ok =
                url::Url::parse(cimd).is_ok_and(|u| u.scheme() == "https" && u.path().len() > 1);
            if !ok {
                return Err(AuthError::InsecureUrl {
                    what: "client metadata document URL (https, with a path)",
                    url: cimd.clone(),
                });
            }
        }
        let fetcher = Fetcher::new(config.fetch.clone());
        Ok(OAuth {
            inner: Arc::new(Inner {
                config,
                server,
                fetcher,
                store,
                agent,
                flow: tokio::sync::Mutex::new(()),
                state: Mutex::new(State::default()),
                dpop: DpopState::default(),
            }),
        })
    }

    /// The fetcher the flow's requests go through (for a
    /// [`HeadlessRedirect`](crate::HeadlessRedirect) on the same settings).
    pub fn fetcher(&self) -> &Fetcher {
        &self.inner.fetcher
    }
}
