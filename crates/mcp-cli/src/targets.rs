//! Which servers to talk to, as an [`McpConfig`] for `mcp-manager`: a
//! config file (parsed by the manager: `${VAR}` expansion, per-entry errors
//! with JSON paths), or a one-entry config built here for a `--stdio`,
//! `--url` or `--socket` server or the built-in demo server.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcp_manager::{McpConfig, RemoteKind, ServerConfig, TransportConfig};
use mcp_manager::{RemoteServer, SocketServer, StdioServer};

use crate::cli::Cli;
use crate::exit::{Failure, error_chain};

/// The config file used when no target is given and it exists.
pub(crate) const DEFAULT_CONFIG: &str = ".mcp.json";

/// The name of the built-in demo server.
pub(crate) const DEMO_NAME: &str = "demo";

/// Resolves the command line's target into a configuration. Bad entries of
/// a config file are in [`McpConfig::errors`] (the caller warns about them);
/// the good ones still run.
///
/// Errors: a config file that cannot be read or is not an `mcpServers`
/// document as a whole, a `--stdio` line that does not split, a malformed
/// `--header`, no path to this binary (demo).
pub(crate) fn resolve(cli: &Cli) -> Result<McpConfig, Failure> {
    if cli.listen.is_some() {
        return Err(Failure::new(
            "--listen is an option of serve-demo; to reach a server on a socket, use --socket",
        ));
    }
    if let Some(address) = &cli.socket {
        let server = SocketServer::new(address.clone());
        return Ok(one(ServerConfig::new(
            socket_name(address),
            TransportConfig::Socket(server),
        )));
    }
    if let Some(line) = &cli.stdio {
        let words = shell_words::split(line)
            .map_err(|e| Failure::new(format!("--stdio: cannot split {line:?}: {e}")))?;
        let Some((command, args)) = words.split_first() else {
            return Err(Failure::new("--stdio: empty command line"));
        };
        let name = stdio_name(command, args);
        return Ok(one(stdio_server(&name, command.clone(), args.to_vec())));
    }
    if let Some(url) = &cli.url {
        let headers = cli
            .headers
            .iter()
            .map(|h| parse_header(h))
            .collect::<Result<BTreeMap<_, _>, _>>()?;
        let kind = if cli.sse {
            RemoteKind::Sse
        } else {
            RemoteKind::StreamableHttp
        };
        let name = host_of(url);
        let mut remote = RemoteServer::new(url.clone(), kind).with_headers(headers);
        remote.oauth.account = cli.account.clone();
        return Ok(one(server(&name, TransportConfig::Remote(remote))));
    }
    let config = match &cli.config {
        Some(path) => Some(path.clone()),
        None => Some(PathBuf::from(DEFAULT_CONFIG)).filter(|p| p.is_file()),
    };
    let mut config = match config {
        Some(path) => McpConfig::from_file(&path).map_err(|e| Failure::new(error_chain(&e)))?,
        None => one(demo()?),
    };
    // `--account` over each remote entry's own `account`: the command line
    // names the login to use, as `mcp login --account` stored it.
    if let Some(account) = &cli.account {
        for entry in config.servers.values_mut() {
            if let TransportConfig::Remote(remote) = &mut entry.transport {
                remote.oauth.account = Some(account.clone());
            }
        }
    }
    Ok(config)
}

/// Commands that run the server named by their first argument that is not
/// an option (`npx -y @scope/server`, `uvx mcp-server-fetch`, `node a.js`).
const LAUNCHERS: [&str; 8] = [
    "npx", "pnpx", "bunx", "uvx", "node", "bun", "python", "python3",
];

/// The name a `--stdio` server goes by: the command's file name, or, for a
/// launcher, the package or script it runs (`@scope/server-x@1.2` →
/// `server-x`, `path/to/server.py` → `server`); a package's entry point is
/// named for the package's directory (`weather/dist/index.js` → `weather`).
fn stdio_name(command: &str, args: &[String]) -> String {
    let file_name = |path: &str| {
        Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    };
    let program = file_name(command).unwrap_or_else(|| "stdio".into());
    if !LAUNCHERS.contains(&program.as_str()) {
        return program;
    }
    let Some(target) = args.iter().find(|a| !a.starts_with('-')) else {
        return program;
    };
    // `@scope/name@version`: the version starts at an `@` that does not
    // begin a path component (`…/@scope/name/dist/index.js` has no version).
    let version_at = target
        .char_indices()
        .zip(target.chars().skip(1))
        .find(|((_, before), at)| *at == '@' && *before != '/')
        .map(|((i, before), _)| i + before.len_utf8());
    let unversioned = match version_at {
        Some(at) => &target[..at],
        None => target.as_str(),
    };
    let mut parts = unversioned.rsplit('/');
    let base = parts.next().unwrap_or(unversioned);
    let script = [".js", ".mjs", ".cjs", ".ts", ".py"]
        .iter()
        .find_map(|ext| base.strip_suffix(ext));
    let name = match script {
        // A package's entry point (`…/weather/dist/index.js`) says nothing
        // of the server: the package's directory does.
        Some(stem) if GENERIC_SCRIPTS.contains(&stem) => parts
            .find(|dir| !dir.is_empty() && !BUILD_DIRS.contains(dir))
            .unwrap_or(stem),
        Some(stem) => stem,
        None => base,
    };
    if name.is_empty() {
        program
    } else {
        name.to_owned()
    }
}

/// Script names that are a package's entry point rather than its name.
const GENERIC_SCRIPTS: [&str; 4] = ["index", "main", "cli", "__main__"];

/// Directories between a package and its entry point.
const BUILD_DIRS: [&str; 9] = [
    ".", "..", "dist", "build", "lib", "out", "src", "bin", "esm",
];

/// The demo server: this very binary, `mcp serve-demo`.
///
/// Errors: the path of the running binary is unknown.
pub(crate) fn demo() -> Result<ServerConfig, Failure> {
    let exe = std::env::current_exe().map_err(|e| {
        Failure::new(format!(
            "cannot locate the mcp binary for the demo server: {e}"
        ))
    })?;
    Ok(stdio_server(
        DEMO_NAME,
        exe.to_string_lossy().into_owned(),
        vec!["serve-demo".into()],
    ))
}

fn one(server: ServerConfig) -> McpConfig {
    let mut config = McpConfig::default();
    config.servers.insert(server.name.clone(), server);
    config
}

fn server(name: &str, transport: TransportConfig) -> ServerConfig {
    ServerConfig::new(name, transport)
}

fn stdio_server(name: &str, command: String, args: Vec<String>) -> ServerConfig {
    server(
        name,
        TransportConfig::Stdio(StdioServer::new(command).with_args(args)),
    )
}

fn parse_header(h: &str) -> Result<(String, String), Failure> {
    match h.split_once(':') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
        _ => Err(Failure::new(format!(
            "--header: expected \"Name: value\", got {:?}",
            h.split_once(':').map_or(h, |(k, _)| k)
        ))),
    }
}

/// The name a `--socket` server goes by: `HOST:PORT` as written, or a
/// socket file's name without its extension (`/run/mcp/weather.sock` →
/// `weather`).
fn socket_name(address: &str) -> String {
    if !address.contains('/') && address.rsplit_once(':').is_some() {
        return address.to_owned();
    }
    Path::new(address)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "socket".into())
}

fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = authority.rsplit('@').next().unwrap_or(authority);
    if host.is_empty() {
        "remote".into()
    } else {
        host.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn resolved(args: &[&str]) -> McpConfig {
        let cli = Cli::try_parse_from(["mcp"].iter().chain(args).copied()).unwrap();
        resolve(&cli).unwrap()
    }

    #[test]
    fn stdio_target_is_one_entry_named_for_what_it_runs() {
        let config = resolved(&["--stdio", "/usr/bin/node 'my server.js' --x", "tools"]);
        assert!(config.errors.is_empty());
        let s = &config.servers["my server"];
        let TransportConfig::Stdio(stdio) = &s.transport else {
            panic!("not stdio: {s:?}");
        };
        assert_eq!(stdio.command, "/usr/bin/node");
        assert_eq!(stdio.args, ["my server.js", "--x"]);
    }

    #[test]
    fn socket_target_is_one_entry_named_for_its_address() {
        let config = resolved(&["--socket", "127.0.0.1:7000", "tools"]);
        assert_eq!(
            config.servers["127.0.0.1:7000"].transport,
            TransportConfig::Socket(SocketServer::new("127.0.0.1:7000"))
        );
        let config = resolved(&["--socket", "/run/mcp/weather.sock", "tools"]);
        assert_eq!(config.servers["weather"].transport.kind_name(), "socket");
        let cli = Cli::try_parse_from(["mcp", "--listen", "127.0.0.1:0", "tools"]).unwrap();
        assert!(resolve(&cli).is_err());
        assert!(
            Cli::try_parse_from(["mcp", "--socket", "a:1", "--url", "http://h/", "tools"]).is_err()
        );
    }

    #[test]
    fn url_target_carries_headers_and_sse() {
        let config = resolved(&[
            "--url",
            "http://127.0.0.1:9/sse",
            "--sse",
            "-H",
            "X-Key: 1",
            "tools",
        ]);
        let s = &config.servers["127.0.0.1:9"];
        let TransportConfig::Remote(r) = &s.transport else {
            panic!("not remote: {s:?}");
        };
        assert_eq!(r.kind, RemoteKind::Sse);
        assert_eq!(r.headers.get("X-Key").map(String::as_str), Some("1"));
    }

    #[test]
    fn account_names_the_login_of_url_and_config_targets() {
        let remote = |config: &McpConfig, name: &str| match &config.servers[name].transport {
            TransportConfig::Remote(r) => r.clone(),
            other => panic!("not remote: {other:?}"),
        };
        let config = resolved(&[
            "--url",
            "https://h.example/mcp",
            "--account",
            "work",
            "tools",
        ]);
        assert_eq!(
            remote(&config, "h.example").oauth.account.as_deref(),
            Some("work")
        );
        let config = resolved(&["--url", "https://h.example/mcp", "tools"]);
        assert_eq!(remote(&config, "h.example").oauth.account, None);

        let dir = mcp_tests_free_dir();
        let file = dir.join("servers.json");
        std::fs::write(
            &file,
            r#"{"mcpServers": {"a": {"type": "http", "url": "https://a.example/mcp", "oauth": {"account": "home"}},
                "b": {"type": "http", "url": "https://b.example/mcp"}}}"#,
        )
        .unwrap();
        let path = file.to_str().unwrap();
        let config = resolved(&["--config", path, "tools"]);
        assert_eq!(remote(&config, "a").oauth.account.as_deref(), Some("home"));
        assert_eq!(remote(&config, "b").oauth.account, None);
        let config = resolved(&["--config", path, "tools", "--account", "work"]);
        assert_eq!(remote(&config, "a").oauth.account.as_deref(), Some("work"));
        assert_eq!(remote(&config, "b").oauth.account.as_deref(), Some("work"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A fresh directory of this test's own.
    fn mcp_tests_free_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "mcp-cli-targets-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn header_and_host_parsing() {
        assert_eq!(
            parse_header("Authorization: Bearer x").unwrap(),
            ("Authorization".into(), "Bearer x".into())
        );
        assert!(parse_header("novalue").is_err());
        assert_eq!(
            host_of("https://user:pw@example.com:8443/mcp?x=1"),
            "example.com:8443"
        );
    }

    #[test]
    fn stdio_servers_are_named_for_what_they_run() {
        let name = |line: &str| {
            let words = shell_words::split(line).unwrap();
            stdio_name(&words[0], &words[1..])
        };
        assert_eq!(
            name("npx -y @modelcontextprotocol/server-everything"),
            "server-everything"
        );
        assert_eq!(name("npx -y @scope/srv@1.2.3 --port 1"), "srv");
        assert_eq!(name("uvx mcp-server-fetch@2025.1"), "mcp-server-fetch");
        assert_eq!(name("/usr/bin/python3 -u path/to/server.py"), "server");
        assert_eq!(name("node build/index.js stdio"), "index");
        assert_eq!(
            name("node /home/u/weather-server/build/index.js"),
            "weather-server"
        );
        assert_eq!(
            name("node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio"),
            "server-everything"
        );
        assert_eq!(name("node ./dist/esm/main.mjs"), "main");
        assert_eq!(name("python3 tools/git_server/__main__.py"), "git_server");
        assert_eq!(name("python3 src/cli.py"), "cli");
        assert_eq!(name("bun run.ts"), "run");
        assert_eq!(name("/opt/bin/my-server --flag"), "my-server");
        assert_eq!(name("npx"), "npx");
        assert_eq!(name("npx -y"), "npx");
    }
}
