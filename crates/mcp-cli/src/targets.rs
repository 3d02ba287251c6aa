//! Which servers to talk to: a config file, one `--stdio` or `--url`
//! server, or the built-in demo server.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli::Cli;
use crate::exit::Failure;

/// The config file used when no target is given and it exists.
pub const DEFAULT_CONFIG: &str = ".mcp.json";

/// The name of the built-in demo server.
pub const DEMO_NAME: &str = "demo";

/// How to reach one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A child process over stdio.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables.
        env: Vec<(String, String)>,
        /// Working directory.
        cwd: Option<PathBuf>,
    },
    /// A remote server.
    Http {
        /// The endpoint URL.
        url: String,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// The 2024-11-05 HTTP+SSE transport instead of Streamable HTTP.
        sse: bool,
    },
}

/// One server to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    /// Its name (config key, `demo`, or derived from the command/URL).
    pub name: String,
    /// How to reach it.
    pub endpoint: Endpoint,
}

/// Resolves the command line's target into server specs.
///
/// Errors: an unreadable or invalid config file, a `--stdio` line that does
/// not split, a malformed `--header`.
pub fn resolve(cli: &Cli) -> Result<Vec<ServerSpec>, Failure> {
    if let Some(line) = &cli.stdio {
        let words = shell_words::split(line)
            .map_err(|e| Failure::new(format!("--stdio: cannot split {line:?}: {e}")))?;
        let Some((command, args)) = words.split_first() else {
            return Err(Failure::new("--stdio: empty command line"));
        };
        let name = Path::new(command)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "stdio".into());
        return Ok(vec![ServerSpec {
            name,
            endpoint: Endpoint::Stdio {
                command: command.clone(),
                args: args.to_vec(),
                env: Vec::new(),
                cwd: None,
            },
        }]);
    }
    if let Some(url) = &cli.url {
        let headers = cli
            .headers
            .iter()
            .map(|h| parse_header(h))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(vec![ServerSpec {
            name: host_of(url),
            endpoint: Endpoint::Http {
                url: url.clone(),
                headers,
                sse: cli.sse,
            },
        }]);
    }
    let config = match &cli.config {
        Some(path) => Some(path.clone()),
        None => Some(PathBuf::from(DEFAULT_CONFIG)).filter(|p| p.is_file()),
    };
    match config {
        Some(path) => load_config(&path),
        None => Ok(vec![demo()?]),
    }
}

/// The demo server: this very binary, `mcp serve-demo`.
pub fn demo() -> Result<ServerSpec, Failure> {
    let exe = std::env::current_exe().map_err(|e| {
        Failure::new(format!(
            "cannot locate the mcp binary for the demo server: {e}"
        ))
    })?;
    Ok(ServerSpec {
        name: DEMO_NAME.into(),
        endpoint: Endpoint::Stdio {
            command: exe.to_string_lossy().into_owned(),
            args: vec!["serve-demo".into()],
            env: Vec::new(),
            cwd: None,
        },
    })
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

/// Largest config file read: 4 MiB.
const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// Reads an `mcpServers` file (Claude Desktop / Cursor / VS Code shape).
/// Disabled entries are skipped. Values are used as written (no `${VAR}`
/// expansion here).
///
/// Errors: unreadable file, not JSON, no `mcpServers`/`servers` object, or
/// an entry with neither `command` nor `url`.
pub fn load_config(path: &Path) -> Result<Vec<ServerSpec>, Failure> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| Failure::new(format!("{shown}: {e}")))?;
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(Failure::new(format!(
            "{shown}: larger than {MAX_CONFIG_BYTES} bytes"
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| Failure::new(format!("{shown}: {e}")))?;
    parse_config(&text).map_err(|e| Failure::new(format!("{shown}: {e}")))
}

/// Parses the text of an `mcpServers` file; see [`load_config`].
pub fn parse_config(text: &str) -> Result<Vec<ServerSpec>, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let servers = doc
        .get("mcpServers")
        .or_else(|| doc.get("servers"))
        .and_then(Value::as_object)
        .ok_or("no \"mcpServers\" object")?;
    let mut specs = Vec::new();
    for (name, entry) in servers {
        if entry.get("disabled").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let strings = |key: &str| -> Vec<(String, String)> {
            entry
                .get(key)
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                        .collect()
                })
                .unwrap_or_default()
        };
        let endpoint = if let Some(command) = entry.get("command").and_then(Value::as_str) {
            Endpoint::Stdio {
                command: command.to_owned(),
                args: entry
                    .get("args")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default(),
                env: strings("env"),
                cwd: entry.get("cwd").and_then(Value::as_str).map(PathBuf::from),
            }
        } else if let Some(url) = entry.get("url").and_then(Value::as_str) {
            Endpoint::Http {
                url: url.to_owned(),
                headers: strings("headers"),
                sse: entry.get("type").and_then(Value::as_str) == Some("sse"),
            }
        } else {
            return Err(format!(
                "server {name:?} has neither \"command\" nor \"url\""
            ));
        };
        specs.push(ServerSpec {
            name: name.clone(),
            endpoint,
        });
    }
    Ok(specs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stdio_http_and_skips_disabled() {
        let specs = parse_config(
            r#"{"mcpServers": {
                "a": {"command": "node", "args": ["s.js", "stdio"], "env": {"K": "V"}},
                "b": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"X": "1"}},
                "c": {"url": "http://127.0.0.1:1/sse", "type": "sse", "disabled": true}
            }}"#,
        )
        .unwrap();
        assert_eq!(specs.len(), 2);
        assert_eq!(
            specs[0].endpoint,
            Endpoint::Stdio {
                command: "node".into(),
                args: vec!["s.js".into(), "stdio".into()],
                env: vec![("K".into(), "V".into())],
                cwd: None
            }
        );
        assert!(
            matches!(&specs[1].endpoint, Endpoint::Http { sse: false, headers, .. } if headers.len() == 1)
        );
    }

    #[test]
    fn rejects_bad_files() {
        assert!(parse_config("[]").is_err());
        assert!(parse_config("{\"mcpServers\": {\"x\": {}}}").is_err());
        assert!(parse_config("nope").is_err());
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
}
