//! `mcp login`, `mcp logout`, `mcp auth status|inspect|token`. None of
//! them starts a server; none prints a secret except `auth token`, whose
//! purpose it is (and never to a terminal without `--show`).

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use mcp_auth::{
    CallbackPort, DevicePrompt, LoginStatus, LoopbackBrowser, LoopbackHost, LoopbackOptions,
    NoInteraction, Notice, OAuth, Revocation,
};
use mcp_client::CancellationToken;
use mcp_manager::RemoteServer;
use mcp_manager::{McpConfig, RemoteKind, ServerConfig, TransportConfig};
use mcp_transport_http::FetchOptions;
use serde_json::json;
use tokio::sync::mpsc;

use super::{oauth_config, preregistered, store};
use crate::cli::{AuthCommand, Cli, Command, LoginArgs, LogoutArgs};
use crate::exit::{Failure, SUCCESS, error_chain};
use crate::output;
use crate::targets::DEFAULT_CONFIG;

/// A server to log in to: its name (config key, or the URL's host) and
/// its remote entry.
struct Target {
    name: String,
    remote: RemoteServer,
}

/// Runs an auth command; `None` for any other command.
pub(crate) async fn run(cli: &Cli, cancel: &CancellationToken) -> Option<Result<u8, Failure>> {
    if !matches!(
        cli.command,
        Command::Login(_) | Command::Logout(_) | Command::Auth { .. }
    ) {
        return None;
    }
    if let Err(f) = super::choose_store(
        cli.credential_store.as_deref(),
        store_setting(cli).as_deref(),
    )
    .await
    {
        return Some(Err(f));
    }
    let result = match &cli.command {
        Command::Login(args) => login(cli, args, cancel).await,
        Command::Logout(args) => logout(cli, args).await,
        Command::Auth {
            command: AuthCommand::Status { server },
        } => status(cli, server.as_deref()).await,
        Command::Auth {
            command: AuthCommand::Inspect { url },
        } => inspect(cli, url).await,
        Command::Auth {
            command: AuthCommand::Token { server, show },
        } => token(cli, server.as_deref(), *show, cli.account.as_deref()).await,
        _ => return None,
    };
    Some(result)
}

/// The configuration `--config` names, else `./.mcp.json` when it exists.
fn config_file(cli: &Cli) -> Option<PathBuf> {
    cli.config
        .clone()
        .or_else(|| Some(PathBuf::from(DEFAULT_CONFIG)).filter(|p| p.is_file()))
}

/// The configuration's `credentialStore`, whatever the target: a login
/// made by URL and a command run with `--url` use the same store. Counted
/// only when the file can be read; a broken file is reported by the
/// command that needs its servers.
pub(crate) fn store_setting(cli: &Cli) -> Option<String> {
    config_file(cli)
        .and_then(|file| McpConfig::from_file(file).ok())
        .and_then(|config| config.credential_store)
}

fn is_url(s: &str) -> bool {
    s.starts_with("https://") || s.starts_with("http://")
}

/// `server` (a config name or a URL), else `--url`.
///
/// Errors: neither given; an unknown name; a stdio entry.
fn target(cli: &Cli, server: Option<&str>) -> Result<Target, Failure> {
    let from_url = |url: &str| Target {
        name: url.to_owned(),
        remote: RemoteServer::new(url, RemoteKind::StreamableHttp),
    };
    let name = match (server, &cli.url) {
        (Some(s), _) if is_url(s) => return Ok(from_url(s)),
        (Some(s), _) => s,
        (None, Some(url)) => return Ok(from_url(url)),
        (None, None) => {
            return Err(Failure::new(
                "which server? give a name from the configuration or a URL",
            ));
        }
    };
    let Some(file) = config_file(cli) else {
        return Err(Failure::new(format!(
            "no server named {name:?}: there is no configuration (./{DEFAULT_CONFIG} or --config FILE); give its URL instead"
        )));
    };
    let config = McpConfig::from_file(&file).map_err(|e| Failure::new(error_chain(&e)))?;
    let Some(entry) = config.servers.get(name) else {
        if let Some(e) = config
            .errors
            .iter()
            .find(|e| e.server.as_deref() == Some(name))
        {
            return Err(Failure::new(e.to_string()));
        }
        let names: Vec<&str> = config.servers.keys().map(String::as_str).collect();
        return Err(Failure::new(format!(
            "no server named {name:?} in {} (have: {})",
            file.display(),
            names.join(", ")
        )));
    };
    match &entry.transport {
        TransportConfig::Remote(remote) => Ok(Target {
            name: name.to_owned(),
            remote: remote.clone(),
        }),
        _ => Err(Failure::new(format!(
            "server {name} runs over stdio: there is nothing to log in to"
        ))),
    }
}

/// "in 12 min", "expired 3 min ago", "no expiry".
fn expiry_text(at: Option<SystemTime>) -> String {
    let Some(at) = at else {
        return "no expiry given".into();
    };
    let minutes = |d: Duration| d.as_secs().div_ceil(60);
    match at.duration_since(SystemTime::now()) {
        Ok(left) if left.as_secs() < 120 => format!("expires in {} s", left.as_secs()),
        Ok(left) => format!("expires in {} min", minutes(left)),
        Err(e) => format!("expired {} min ago", minutes(e.duration())),
    }
}

fn unix_secs(at: Option<SystemTime>) -> Option<u64> {
    at.and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map(|d| d.as_secs())
}

/// One line about a login: no secret.
fn status_line(name: Option<&str>, s: &LoginStatus) -> String {
    let mut parts = Vec::new();
    if let Some(n) = name {
        parts.push(n.to_owned());
    }
    parts.push(s.resource.clone());
    parts.push(login_details(s));
    parts.join("  ")
}

/// What a login holds, after whom it is for: account, issuer, scopes,
/// expiry, refreshable. No secret.
fn login_details(s: &LoginStatus) -> String {
    let mut parts = Vec::new();
    parts.push(format!("account {}", s.account));
    parts.push(format!("issuer {}", s.issuer));
    parts.push(format!(
        "scopes {}",
        s.scope
            .as_deref()
            .filter(|x| !x.is_empty())
            .unwrap_or("(none)")
    ));
    if let Some(w) = &s.wanted_scope {
        parts.push(format!("next login asks for {w}"));
    }
    parts.push(expiry_text(s.expires_at));
    parts.push(if s.refreshable {
        "refreshable".into()
    } else {
        "not refreshable".into()
    });
    parts.join("  ")
}

/// The line a login ends with: the server once (its URL when it was named
/// by URL, else its name with the URL), then what the login holds.
fn logged_in_line(name: &str, s: &LoginStatus) -> String {
    logged_in_text(name, &s.resource, &login_details(s))
}

fn logged_in_text(name: &str, resource: &str, details: &str) -> String {
    if name == resource || mcp_auth::resource_identifies(resource, name) {
        format!("Logged in to {resource}: {details}")
    } else {
        format!("Logged in to {name} ({resource}): {details}")
    }
}

fn status_json(name: Option<&str>, s: &LoginStatus) -> serde_json::Value {
    json!({
        "server": name,
        "resource": s.resource,
        "issuer": s.issuer,
        "account": s.account,
        "scope": s.scope,
        "wanted_scope": s.wanted_scope,
        "expires_at": unix_secs(s.expires_at),
        "expired": s.expired(),
        "refreshable": s.refreshable,
    })
}

fn flow(remote: &RemoteServer, account: Option<&str>) -> Result<OAuth, Failure> {
    if remote.oauth.grant.is_machine()
        && let Some(grant) = super::machine_grant(remote)?
    {
        let mut config = oauth_config(remote, super::NO_REDIRECT, None).with_grant(grant);
        if let Some(a) = account {
            config = config.with_account(a);
        }
        return OAuth::for_grant(config, store()?).map_err(|e| Failure::new(e.to_string()));
    }
    let mut config = oauth_config(remote, super::NO_REDIRECT, super::configured_client(remote));
    if let Some(a) = account {
        config = config.with_account(a);
    }
    OAuth::new(
        config,
        store()?,
        Arc::new(NoInteraction::new("use `mcp login`")),
    )
    .map_err(|e| Failure::new(e.to_string()))
}

async fn login(cli: &Cli, args: &LoginArgs, cancel: &CancellationToken) -> Result<u8, Failure> {
    let done = log_in(cli, args, cancel).await?;
    output::line(&done)?;
    Ok(SUCCESS)
}

/// Logs in to `server` (a configuration name or a URL) as `mcp login
/// SERVER` does, for a command that offered it; the outcome is said on
/// stderr, where the offer was made.
///
/// Errors: as `mcp login`.
pub(crate) async fn login_offered(
    cli: &Cli,
    server: &str,
    cancel: &CancellationToken,
) -> Result<(), Failure> {
    let args = LoginArgs {
        server: Some(server.to_owned()),
        scopes: Vec::new(),
        no_browser: false,
        device: false,
        callback_port: None,
        client_id: None,
        client_secret_env: None,
        auth_server_metadata_url: None,
        login_timeout: crate::cli::DEFAULT_LOGIN_TIMEOUT_SECS,
    };
    let done = log_in(cli, &args, cancel).await?;
    output::err_line(&done);
    Ok(())
}

/// The login of `args`; returns the line that says so.
async fn log_in(
    cli: &Cli,
    args: &LoginArgs,
    cancel: &CancellationToken,
) -> Result<String, Failure> {
    let Target { name, mut remote } = target(cli, args.server.as_deref())?;
    if let Some(a) = &cli.account {
        remote.oauth.account = Some(a.clone());
    }
    for s in &args.scopes {
        if !remote.oauth.scopes.contains(s) {
            remote.oauth.scopes.push(s.clone());
        }
    }
    if let Some(url) = &args.auth_server_metadata_url {
        remote.oauth.auth_server_metadata_url = Some(url.clone());
    }
    if remote.oauth.grant.is_machine() {
        // `mcp login` is for people; a grant without a person runs on the
        // server's first request.
        return Err(Failure::new(format!(
            "{name} uses a grant without a person ({:?}): it needs no login; its token is obtained on the first request",
            remote.oauth.grant
        )));
    }
    let notice: Notice = Arc::new(|line: &str| output::err_line(line));
    if args.device {
        return login_device(name, &remote, args, &notice, cancel).await;
    }
    login_browser(name, &remote, args, notice, None, cancel).await
}

/// Logs in to `config`'s server as `mcp login NAME` (`--device` when
/// `device`) would, for `mcp ui`, which owns the terminal: what to do is
/// said through `notice`, a pasted redirect URL (or code) comes from
/// `paste`, and nothing is read from stdin or written to the terminal.
/// Returns the line that says who is logged in.
///
/// Errors: a server that is not remote or takes no login (a grant without
/// a person); as `mcp login`.
pub(crate) async fn login_for_explorer(
    config: &ServerConfig,
    device: bool,
    notice: Notice,
    paste: mpsc::Receiver<String>,
    cancel: &CancellationToken,
) -> Result<String, Failure> {
    let name = config.name.clone();
    let TransportConfig::Remote(remote) = &config.transport else {
        return Err(Failure::new(format!(
            "server {name} runs over stdio: there is nothing to log in to"
        )));
    };
    if remote.oauth.grant.is_machine() {
        return Err(Failure::new(format!(
            "{name} uses a grant without a person ({:?}): it needs no login",
            remote.oauth.grant
        )));
    }
    let args = LoginArgs {
        server: Some(name.clone()),
        scopes: Vec::new(),
        no_browser: false,
        device,
        callback_port: None,
        client_id: None,
        client_secret_env: None,
        auth_server_metadata_url: None,
        login_timeout: crate::cli::DEFAULT_LOGIN_TIMEOUT_SECS,
    };
    if device {
        return login_device(name, remote, &args, &notice, cancel).await;
    }
    login_browser(name, remote, &args, notice, Some(paste), cancel).await
}

/// The browser login (the loopback receiver): what to do said through
/// `notice`; a pasted answer read from `paste`, else from stdin.
async fn login_browser(
    name: String,
    remote: &RemoteServer,
    args: &LoginArgs,
    notice: Notice,
    paste: Option<mpsc::Receiver<String>>,
    cancel: &CancellationToken,
) -> Result<String, Failure> {
    let port = args.callback_port.or(remote.oauth.callback_port);
    let options = LoopbackOptions::default()
        .with_open_browser(!args.no_browser)
        .with_timeout(Duration::from_secs(args.login_timeout.max(1)))
        .with_port(port.map_or(CallbackPort::Ephemeral, CallbackPort::Fixed))
        // A fixed port is a pre-registered redirect URI, written with
        // `localhost` as the hosts that document it do.
        .with_host(if port.is_some() {
            LoopbackHost::Localhost
        } else {
            LoopbackHost::Ipv4
        });
    let agent = LoopbackBrowser::bind(options)
        .await
        .map_err(|e| Failure::new(format!("cannot log in to {name}: {e}")))?
        .with_notice(notice);
    let agent = match paste {
        Some(lines) => agent.with_paste(lines),
        None => agent.with_stdin_paste(),
    };
    let client = preregistered(
        remote,
        args.client_id.as_deref(),
        args.client_secret_env.as_deref(),
    )?;
    let config = oauth_config(remote, agent.redirect_uri(), client);
    let oauth =
        OAuth::new(config, store()?, Arc::new(agent)).map_err(|e| Failure::new(e.to_string()))?;
    let logged_in = tokio::select! {
        r = oauth.login() => r,
        () = cancel.cancelled() => return Err(Failure::interrupted()),
    };
    let status = logged_in
        .map_err(|e| Failure::new(format!("login to {name} failed: {}", error_chain(&e))))?;
    Ok(logged_in_line(&name, &status))
}

/// `mcp login --device`: the user code and where to enter it, said
/// through `notice`; the login goes on when the user has answered on
/// another device.
async fn login_device(
    name: String,
    remote: &RemoteServer,
    args: &LoginArgs,
    notice: &Notice,
    cancel: &CancellationToken,
) -> Result<String, Failure> {
    let client = preregistered(
        remote,
        args.client_id.as_deref(),
        args.client_secret_env.as_deref(),
    )?;
    let config = oauth_config(remote, super::NO_REDIRECT, client);
    let oauth = OAuth::new(
        config,
        store()?,
        Arc::new(NoInteraction::new("a device login asks no browser")),
    )
    .map_err(|e| Failure::new(e.to_string()))?;
    let show = |p: &DevicePrompt| {
        notice(&format!(
            "To log in, open {} on any device and enter the code {} (valid {} min).",
            p.verification_uri,
            p.user_code,
            p.expires_in.as_secs().div_ceil(60)
        ));
        if let Some(complete) = &p.verification_uri_complete {
            notice(&format!("Or open {complete} (the code filled in)."));
        }
        notice("Waiting for the answer…");
    };
    let logged_in = tokio::select! {
        r = oauth.login_device(&show) => r,
        () = cancel.cancelled() => return Err(Failure::interrupted()),
    };
    let status = logged_in
        .map_err(|e| Failure::new(format!("login to {name} failed: {}", error_chain(&e))))?;
    Ok(logged_in_line(&name, &status))
}

async fn logout(cli: &Cli, args: &LogoutArgs) -> Result<u8, Failure> {
    let mut targets = Vec::new();
    if args.all {
        for s in mcp_auth::logins(store()?.as_ref())
            .await
            .map_err(|e| Failure::new(error_chain(&e)))?
        {
            // A grant's token is revoked as the grant's client: the
            // configured entry it came from says who that is.
            let remote = granted_entry(cli, &s.resource, &s.account).unwrap_or_else(|| {
                RemoteServer::new(s.resource.clone(), RemoteKind::StreamableHttp)
            });
            targets.push((s.resource.clone(), remote, Some(s.account.clone())));
        }
    } else {
        let t = target(cli, args.server.as_deref())?;
        targets.push((t.name, t.remote, cli.account.clone()));
    }
    if targets.is_empty() {
        output::line("No stored login.")?;
        return Ok(SUCCESS);
    }
    for (name, remote, account) in targets {
        let oauth = flow(&remote, account.as_deref())?;
        let report = oauth
            .logout(args.revoke)
            .await
            .map_err(|e| Failure::new(format!("{name}: {}", error_chain(&e))))?;
        let Some(report) = report else {
            output::line(&format!("{name}: no stored login"))?;
            continue;
        };
        let revoked = match &report.revocation {
            Revocation::NotAsked => String::new(),
            Revocation::Revoked => "; tokens revoked at the authorization server".into(),
            Revocation::NotOffered => {
                "; the authorization server offers no revocation: its tokens live until they expire"
                    .into()
            }
            Revocation::Failed(why) => format!("; the revocation failed ({why})"),
            Revocation::NoClientAuthentication => {
                "; revocation is not offered for a workload identity grant (it has no client authentication): its tokens were only forgotten here and live until they expire"
                    .into()
            }
            _ => String::new(),
        };
        output::line(&format!(
            "Logged out of {name} (account {}, issuer {}){revoked}",
            report.login.account, report.login.issuer
        ))?;
    }
    Ok(SUCCESS)
}

/// The configuration's remote entry with a grant without a person whose
/// URL `resource` identifies and whose tokens are stored under `account`,
/// if any.
fn granted_entry(cli: &Cli, resource: &str, account: &str) -> Option<RemoteServer> {
    let config = McpConfig::from_file(config_file(cli)?).ok()?;
    config
        .servers
        .into_values()
        .find_map(|s| match s.transport {
            TransportConfig::Remote(r)
                if r.oauth.grant.is_machine()
                    && r.oauth
                        .account
                        .as_deref()
                        .unwrap_or(mcp_auth::DEFAULT_ACCOUNT)
                        == account
                    && mcp_auth::resource_identifies(resource, &r.url) =>
            {
                Some(r)
            }
            _ => None,
        })
}

/// The names of the configuration's remote entries whose URL `resource`
/// identifies.
fn aliases(cli: &Cli, resource: &str) -> Vec<String> {
    let Some(config) = config_file(cli).and_then(|f| McpConfig::from_file(f).ok()) else {
        return Vec::new();
    };
    config
        .servers
        .values()
        .filter_map(|s| match &s.transport {
            TransportConfig::Remote(r) if mcp_auth::resource_identifies(resource, &r.url) => {
                Some(s.name.clone())
            }
            _ => None,
        })
        .collect()
}

async fn status(cli: &Cli, server: Option<&str>) -> Result<u8, Failure> {
    let logins: Vec<(Option<String>, LoginStatus)> = match server.or(cli.url.as_deref()) {
        Some(s) => {
            let t = target(cli, Some(s))?;
            let oauth = flow(&t.remote, cli.account.as_deref())?;
            let found = oauth
                .status()
                .await
                .map_err(|e| Failure::new(error_chain(&e)))?;
            found.map(|l| (Some(t.name), l)).into_iter().collect()
        }
        None => mcp_auth::logins(store()?.as_ref())
            .await
            .map_err(|e| Failure::new(error_chain(&e)))?
            .into_iter()
            .map(|l| {
                let names = aliases(cli, &l.resource);
                ((!names.is_empty()).then(|| names.join(",")), l)
            })
            .collect(),
    };
    if cli.json {
        let items: Vec<serde_json::Value> = logins
            .iter()
            .map(|(n, l)| status_json(n.as_deref(), l))
            .collect();
        output::json_line(&serde_json::to_string_pretty(&items).unwrap_or_default())?;
        return Ok(SUCCESS);
    }
    if logins.is_empty() {
        output::line(match server {
            Some(_) => "Not logged in.",
            None => "No stored login.",
        })?;
        return Ok(SUCCESS);
    }
    for (name, l) in &logins {
        output::line(&status_line(name.as_deref(), l))?;
    }
    Ok(SUCCESS)
}

async fn inspect(cli: &Cli, url: &str) -> Result<u8, Failure> {
    let report = mcp_auth::inspect(url, FetchOptions::default()).await;
    if cli.json {
        output::json_line(&serde_json::to_string_pretty(&report).unwrap_or_default())?;
    } else {
        for step in &report.steps {
            let mark = if step.ok { "ok  " } else { "FAIL" };
            let status = step
                .status
                .map(|s| format!(" HTTP {s}"))
                .unwrap_or_default();
            let url = step
                .url
                .as_deref()
                .map(|u| format!(" at {u}"))
                .unwrap_or_default();
            output::line(&format!(
                "{mark} {}{url}{status}: {}",
                step.what, step.verdict
            ))?;
        }
        output::line(if report.usable {
            "A login can proceed: `mcp login URL`."
        } else {
            "A login cannot proceed with what the server publishes (see FAIL above)."
        })?;
    }
    Ok(if report.usable {
        SUCCESS
    } else {
        crate::exit::FAILURE
    })
}

async fn token(
    cli: &Cli,
    server: Option<&str>,
    show: bool,
    account: Option<&str>,
) -> Result<u8, Failure> {
    if std::io::stdout().is_terminal() && !show {
        return Err(Failure::new(
            "refusing to print an access token to a terminal (pipe it, or pass --show)",
        ));
    }
    let t = target(cli, server)?;
    let oauth = flow(&t.remote, account)?;
    let token = oauth.access_token().await.map_err(|e| {
        let mut f = Failure::new(format!(
            "{}: {}; run `mcp login {}`",
            t.name,
            error_chain(&e),
            shell_words::quote(&t.name)
        ));
        f.code = crate::exit::LOGIN_NEEDED;
        f
    })?;
    output::line(token.expose())?;
    Ok(SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_names_its_server_once() {
        let details = "account default  issuer https://as.example  scopes (none)";
        let url = "https://mcp.example.com/mcp";
        assert_eq!(
            logged_in_text(url, url, details),
            format!("Logged in to {url}: {details}")
        );
        // The URL as typed and the resource as stored may differ in form.
        assert_eq!(
            logged_in_text("https://MCP.example.com/mcp", url, details),
            format!("Logged in to {url}: {details}")
        );
        assert_eq!(
            logged_in_text("github", url, details),
            format!("Logged in to github ({url}): {details}")
        );
    }
}
