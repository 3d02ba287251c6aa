//! OAuth for remote servers in the command line: where logins are stored
//! (a `FileStore`, `mcp_auth::FileStore::default_dir`), the flow every
//! command gives a remote server (it never opens a browser: a server that
//! needs a login is reported with the exact `mcp login` command to run),
//! and the commands that manage logins (`commands.rs`: `login`, `logout`,
//! `auth status|inspect|token`, and the login `mcp ui` starts from its
//! screens, said in its dialog); on a terminal, the one offer to log in
//! made by a command that met a server needing it (`offer.rs`).

mod commands;
mod offer;

use std::path::Path;
use std::sync::{Arc, OnceLock};

use mcp_auth::{
    AssertionSource, ClientAuthentication, ConfidentialClient, CredentialStore, EnvAssertion,
    FileAssertion, FileStore, Grant, IdentityProvider, MemoryStore, NoInteraction, OAuth,
    OAuthConfig, PreregisteredClient, Secret,
};
use mcp_manager::{GrantSetting, RemoteServer};
use mcp_manager::{ServerConfig, TransportConfig};

pub(crate) use commands::{login_for_explorer, run, store_setting};
pub(crate) use offer::run_offering_login;

use crate::exit::{Failure, error_chain};
use crate::targets::DEFAULT_CONFIG;

/// Where an authorization server would send the user back in a flow that
/// never asks anyone. Never listened on: no redirect ever arrives.
const NO_REDIRECT: &str = "http://127.0.0.1/callback";

/// The `client_name` registered with authorization servers.
const CLIENT_NAME: &str = "mcp command line";

/// The store chosen by [`choose_store`] for this run.
static STORE: OnceLock<Arc<dyn CredentialStore>> = OnceLock::new();

/// The file store at its default directory.
///
/// Errors: no directory for it (neither `MCP_CREDENTIALS_DIR`,
/// `XDG_CONFIG_HOME` nor `HOME`), or it cannot be created.
fn file_store() -> Result<FileStore, Failure> {
    let dir = FileStore::default_dir().ok_or_else(|| {
        Failure::new("no place for stored logins: set HOME, XDG_CONFIG_HOME or MCP_CREDENTIALS_DIR")
    })?;
    FileStore::new(dir).map_err(|e| Failure::new(error_chain(&e)))
}

/// Chooses the credential store of this run: `flag` (`--credential-store`,
/// else `MCP_CREDENTIAL_STORE`, as clap reads them), else `setting` (the
/// configuration's `credentialStore`), else `auto`: `file`; `keychain` (the OS
/// keychain, records beside it in the file store's directory; an error
/// when this mcp was built without it or none answers); `auto`, the
/// keychain when built in and answering, else files (with one warning
/// when a keychain was expected). Runs once; later calls keep the choice.
///
/// Errors: as [`file_store`]; `keychain` not available.
pub(crate) async fn choose_store(flag: Option<&str>, setting: Option<&str>) -> Result<(), Failure> {
    if STORE.get().is_some() {
        return Ok(());
    }
    let choice = flag.or(setting).unwrap_or("auto");
    let files = file_store()?;
    let chosen: Arc<dyn CredentialStore> = match choice {
        "file" => Arc::new(files),
        #[cfg(all(
            feature = "keychain",
            any(target_os = "linux", target_os = "macos", windows)
        ))]
        "keychain" => Arc::new(
            mcp_auth::KeychainStore::new(files)
                .await
                .map_err(|e| Failure::new(error_chain(&e)))?,
        ),
        #[cfg(not(all(
            feature = "keychain",
            any(target_os = "linux", target_os = "macos", windows)
        )))]
        "keychain" => {
            return Err(Failure::new(
                "this mcp was built without the OS keychain (cargo feature `keychain`); use --credential-store file",
            ));
        }
        #[cfg(all(
            feature = "keychain",
            any(target_os = "linux", target_os = "macos", windows)
        ))]
        _ => match mcp_auth::KeychainStore::new(files.clone()).await {
            Ok(k) => Arc::new(k),
            Err(e) => {
                crate::output::err_line(&format!(
                    "mcp: warning: the OS keychain is not available ({}); logins are stored in files in {}",
                    error_chain(&e),
                    files.dir().display()
                ));
                Arc::new(files)
            }
        },
        #[cfg(not(all(
            feature = "keychain",
            any(target_os = "linux", target_os = "macos", windows)
        )))]
        _ => Arc::new(files),
    };
    let _ = STORE.set(chosen);
    Ok(())
}

/// The credential store of the command line: the one [`choose_store`]
/// chose, else the file store.
///
/// Errors: as [`file_store`].
pub(crate) fn store() -> Result<Arc<dyn CredentialStore>, Failure> {
    if let Some(s) = STORE.get() {
        return Ok(s.clone());
    }
    Ok(Arc::new(file_store()?))
}

/// The exact command that logs in to `config`'s server: by name with the
/// file it came from (`--config` unless it is `./.mcp.json`), by URL for a
/// `--url` target, with `--account` when the entry names the login's account
/// (its own `account`, or `--account` on the command line).
pub(crate) fn login_command(config: &ServerConfig, url: &str) -> String {
    let quote = |s: &str| shell_words::quote(s).into_owned();
    let mut command = match &config.source {
        Some(path) if path == Path::new(DEFAULT_CONFIG) => {
            format!("mcp login {}", quote(&config.name))
        }
        Some(path) => format!(
            "mcp --config {} login {}",
            quote(&path.to_string_lossy()),
            quote(&config.name)
        ),
        None => format!("mcp login {}", quote(url)),
    };
    if let TransportConfig::Remote(remote) = &config.transport
        && let Some(account) = &remote.oauth.account
    {
        command.push_str(&format!(" --account {}", quote(account)));
    }
    command
}

/// The pre-registered client of `remote`'s settings for a command that
/// talks to the server (not a login): its secret from the configuration,
/// or from the environment variable it names, read at each request that
/// needs it (as key files and tokens are), so a variable that is not set
/// fails those requests with `AuthError::SecretUnavailable` naming it.
pub(crate) fn configured_client(remote: &RemoteServer) -> Option<PreregisteredClient> {
    let id = remote.oauth.client_id.as_deref()?;
    Some(match &remote.oauth.client_secret_env {
        Some(var) => PreregisteredClient::new(id, None).with_client_secret_env(var.clone()),
        None => PreregisteredClient::new(id, remote.oauth.client_secret.clone().map(Secret::new)),
    })
}

/// The pre-registered client of `remote`'s settings for a login, with its
/// secret from the configuration or from the environment variable it names
/// (`client_id` and `secret_env` from the command line first), read now:
/// a login that could not redeem its code is refused before the browser.
///
/// Errors: the variable is named but not set.
pub(crate) fn preregistered(
    remote: &RemoteServer,
    client_id: Option<&str>,
    secret_env: Option<&str>,
) -> Result<Option<PreregisteredClient>, Failure> {
    let Some(id) = client_id.or(remote.oauth.client_id.as_deref()) else {
        return Ok(None);
    };
    let secret = match secret_env.or(remote.oauth.client_secret_env.as_deref()) {
        Some(var) => Some(std::env::var(var).map_err(|_| {
            Failure::new(format!(
                "the client secret's environment variable {var} is not set"
            ))
        })?),
        None => remote.oauth.client_secret.clone(),
    };
    Ok(Some(PreregisteredClient::new(id, secret.map(Secret::new))))
}

/// The OAuth configuration of `remote` (without a user agent's redirect).
pub(crate) fn oauth_config(
    remote: &RemoteServer,
    redirect_uri: &str,
    preregistered: Option<PreregisteredClient>,
) -> OAuthConfig {
    let mut config = OAuthConfig::new(remote.url.clone(), redirect_uri)
        .with_client_name(CLIENT_NAME)
        .with_scopes(remote.oauth.scopes.clone());
    if let Some(url) = &remote.oauth.auth_server_metadata_url {
        config = config.with_auth_server_metadata_url(url.clone());
    }
    if let Some(account) = &remote.oauth.account {
        config = config.with_account(account.clone());
    }
    if let Some(dpop) = remote.oauth.dpop {
        config = config.with_dpop(dpop);
    }
    if let Some(client) = preregistered {
        config = config.with_preregistered(client);
    }
    config
}

/// The grant without a person `remote`'s settings name (`oauth.grant`),
/// or `None` for a person's login. The private key, the ID token or
/// workload JWT and the client secrets named by environment variable are
/// all read at each token request: a missing or bad one is that request's
/// typed error, naming the file or variable, so the server fails with it
/// rather than going on without a flow.
///
/// Errors: settings built by hand without what their grant needs (the
/// configuration's parser refuses such an entry).
pub(crate) fn machine_grant(remote: &RemoteServer) -> Result<Option<Grant>, Failure> {
    let settings = &remote.oauth;
    let creds = &settings.credentials;
    let source = || -> Option<Arc<dyn AssertionSource>> {
        match (&creds.token_file, &creds.token_env) {
            (Some(path), _) => Some(Arc::new(FileAssertion::new(path))),
            (None, Some(var)) => Some(Arc::new(EnvAssertion::new(var))),
            (None, None) => None,
        }
    };
    let client = || -> Result<Option<ConfidentialClient>, Failure> {
        let Some(id) = &settings.client_id else {
            return Ok(None);
        };
        let authentication = match (&creds.private_key_file, &settings.client_secret_env) {
            (Some(path), _) => ClientAuthentication::PrivateKeyJwtFile {
                path: path.into(),
                algorithm: creds.signing_algorithm.clone(),
            },
            (None, Some(var)) => ClientAuthentication::ClientSecretBasicEnv(var.clone()),
            (None, None) => match &settings.client_secret {
                Some(s) => ClientAuthentication::ClientSecretBasic(Secret::new(s.clone())),
                None => return Ok(None),
            },
        };
        Ok(Some(ConfidentialClient::new(id.clone(), authentication)))
    };
    // The configuration's parser has checked that each grant has what it
    // needs; a `None` below is a settings value built by hand.
    let incomplete = || Failure::new("the grant's settings are incomplete");
    Ok(Some(match settings.grant {
        GrantSetting::ClientCredentials => {
            Grant::ClientCredentials(client()?.ok_or_else(incomplete)?)
        }
        GrantSetting::EnterpriseManaged => {
            let mut idp = match (&creds.idp_token_endpoint, &creds.idp_issuer) {
                (Some(url), _) => IdentityProvider::with_token_endpoint(url.clone()),
                (None, Some(issuer)) => IdentityProvider::with_issuer(issuer.clone()),
                (None, None) => return Err(incomplete()),
            };
            if let Some(id) = &creds.idp_client_id {
                idp = match &creds.idp_client_secret_env {
                    Some(var) => idp.with_client_secret_env(id.clone(), var.clone()),
                    None => idp.with_client(id.clone(), None),
                };
            }
            Grant::EnterpriseManaged {
                client: client()?.ok_or_else(incomplete)?,
                identity_provider: idp,
                id_token: source().ok_or_else(incomplete)?,
            }
        }
        GrantSetting::WorkloadIdentity => Grant::WorkloadIdentity {
            assertion: source().ok_or_else(incomplete)?,
        },
        _ => return Ok(None),
    }))
}

/// The OAuth flow every command gives a remote entry that wants one (see
/// `RemoteServer::wants_oauth`: not one configured with its own
/// `Authorization` header or `auth: "headers"`/`"none"`). Its user agent
/// asks no one: a server that needs a login is reported with the command
/// that logs in. Logins come from the file store, so one made with `mcp
/// login` (in any terminal) is used, and refreshed once across processes.
pub(crate) fn flow_for(config: &ServerConfig) -> Option<OAuth> {
    let TransportConfig::Remote(remote) = &config.transport else {
        return None;
    };
    if !remote.wants_oauth() {
        return None;
    }
    let hint = format!(
        "run `{}`, then try again",
        login_command(config, &remote.url)
    );
    let store = store().unwrap_or_else(|f| {
        tracing::warn!(why = %f.message, "logins cannot be read; none is used");
        Arc::new(MemoryStore::new())
    });
    if remote.oauth.grant.is_machine() {
        let grant = match machine_grant(remote) {
            Ok(g) => g?,
            Err(f) => {
                tracing::warn!(server = %config.name, why = %f.message, "the configured grant is not used");
                return None;
            }
        };
        let flow = OAuth::for_grant(
            oauth_config(remote, NO_REDIRECT, None).with_grant(grant),
            store,
        );
        return match flow {
            Ok(flow) => Some(flow),
            Err(_) => {
                // As below: the URL is refused, and not logged unredacted.
                tracing::debug!(server = %config.name, "no OAuth flow for this server: its URL is not https or loopback");
                None
            }
        };
    }
    match OAuth::new(
        oauth_config(remote, NO_REDIRECT, configured_client(remote)),
        store,
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
