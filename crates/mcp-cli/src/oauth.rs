//! OAuth for remote servers, as far as the command line goes today: a
//! server that wants a login is found out (discovery, spec
//! `basic/authorization`) and reported as such, with what to do, instead of
//! a bare 401. There is no interactive login step yet, so the flow's user
//! agent asks no one (`NoInteraction`) and tokens live for one run.

use std::sync::Arc;

use mcp_manager::ServerConfig;
use mcp_manager::TransportConfig;
use mcp_manager::mcp_auth::{MemoryStore, NoInteraction, OAuth, OAuthConfig};

/// Where an authorization server would send the user back. Never listened
/// on: the user agent asks no one, so no redirect ever arrives.
const REDIRECT_URI: &str = "http://127.0.0.1/callback";

/// The OAuth flow of a remote entry, unless it carries its own
/// `Authorization` header (the user chose that credential: its refusal is
/// shown as the server sent it).
pub(crate) fn flow_for(config: &ServerConfig) -> Option<OAuth> {
    let TransportConfig::Remote(remote) = &config.transport else {
        return None;
    };
    if remote
        .headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
    {
        return None;
    }
    let hint = format!(
        "server {:?} needs an OAuth login, which mcp cannot do yet; \
         pass a token instead: --header \"Authorization: Bearer <token>\" \
         (or \"headers\" in its config entry)",
        config.name
    );
    match OAuth::new(
        OAuthConfig::new(remote.url.clone(), REDIRECT_URI),
        Arc::new(MemoryStore::new()),
        Arc::new(NoInteraction::new(hint)),
    ) {
        Ok(flow) => Some(flow),
        Err(_) => {
            // An http URL off loopback: the flow refuses it (spec
            // § Communication Security); the server is reached without one.
            // (The error is not logged: it quotes the URL unredacted.)
            tracing::debug!(server = %config.name, "no OAuth flow for this server: its URL is not https or loopback");
            None
        }
    }
}
