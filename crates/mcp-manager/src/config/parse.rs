//! One `mcpServers` entry from JSON into a [`ServerConfig`], with the JSON
//! path of whatever is wrong.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use mcp_client::VersionPreference;
use serde_json::{Map, Value};

use super::auth::parse_auth;
use super::fields::{EntryResult, check_url, join_key, wrong};
use super::{
    ConfigErrorKind, RemoteKind, RemoteServer, ServerConfig, SocketServer, StdioServer,
    TransportConfig, expand,
};

pub(super) fn parse_entry(
    name: &str,
    entry: &Value,
    path: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> EntryResult<ServerConfig> {
    if name.is_empty() {
        return Err((
            path.to_owned(),
            ConfigErrorKind::Invalid("empty server name".into()),
        ));
    }
    let obj = entry
        .as_object()
        .ok_or_else(|| wrong(path, "an object", entry))?;
    let field = |k: &str| join_key(path, k);
    let ty = match obj.get("type") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(v) => return Err(wrong(&field("type"), "a string", v)),
    };
    let disabled = match obj.get("disabled") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => return Err(wrong(&field("disabled"), "a boolean", v)),
    };
    let timeout = get_ms(obj, "timeout", &field("timeout"))?;
    let startup_timeout = get_ms(obj, "startupTimeout", &field("startupTimeout"))?;
    let discover_timeout = get_ms(obj, "discoverTimeout", &field("discoverTimeout"))?;
    let protocol_version = match obj.get("protocolVersion") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(
            s.parse::<VersionPreference>()
                .map_err(|why| (field("protocolVersion"), ConfigErrorKind::Invalid(why)))?,
        ),
        Some(v) => return Err(wrong(&field("protocolVersion"), "a string", v)),
    };

    enum Kind {
        Stdio,
        Remote(RemoteKind),
        Socket,
    }
    let kind = match ty {
        Some("stdio") => Kind::Stdio,
        Some("http" | "streamable-http" | "streamableHttp" | "streamable_http") => {
            Kind::Remote(RemoteKind::StreamableHttp)
        }
        Some("sse") => Kind::Remote(RemoteKind::Sse),
        Some("socket") => Kind::Socket,
        Some(other) => {
            return Err((
                field("type"),
                ConfigErrorKind::UnknownType(other.to_owned()),
            ));
        }
        None => match (obj.contains_key("command"), obj.contains_key("url")) {
            (true, _) => Kind::Stdio,
            (false, true) => Kind::Remote(RemoteKind::StreamableHttp),
            (false, false) if obj.contains_key("socket") => Kind::Socket,
            (false, false) => return Err((path.to_owned(), ConfigErrorKind::MissingCommandOrUrl)),
        },
    };
    let expand_at = |s: &str, p: &str| {
        expand::expand_variables(s, lookup).map_err(|e| (p.to_owned(), ConfigErrorKind::Expand(e)))
    };
    let transport = match kind {
        Kind::Stdio => {
            let command = match obj.get("command") {
                None | Some(Value::Null) => {
                    return Err((field("command"), ConfigErrorKind::MissingCommand));
                }
                Some(Value::String(s)) => expand_at(s, &field("command"))?,
                Some(v) => return Err(wrong(&field("command"), "a string", v)),
            };
            if command.trim().is_empty() {
                return Err((
                    field("command"),
                    ConfigErrorKind::Invalid("empty command".into()),
                ));
            }
            let args = match obj.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let p = format!("{}[{i}]", field("args"));
                        match v {
                            Value::String(s) => expand_at(s, &p),
                            other => Err(wrong(&p, "a string", other)),
                        }
                    })
                    .collect::<EntryResult<Vec<_>>>()?,
                Some(v) => return Err(wrong(&field("args"), "an array of strings", v)),
            };
            let env = string_map(obj.get("env"), &field("env"), &expand_at)?;
            let cwd = match obj.get("cwd") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(PathBuf::from(expand_at(s, &field("cwd"))?)),
                Some(v) => return Err(wrong(&field("cwd"), "a string", v)),
            };
            TransportConfig::Stdio(StdioServer {
                command,
                args,
                env,
                cwd,
            })
        }
        Kind::Socket => {
            let address = match obj.get("socket") {
                Some(Value::String(s)) => expand_at(s, &field("socket"))?,
                None | Some(Value::Null) => {
                    return Err((
                        field("socket"),
                        ConfigErrorKind::Invalid(
                            "a socket server needs \"socket\": PATH or HOST:PORT".into(),
                        ),
                    ));
                }
                Some(v) => return Err(wrong(&field("socket"), "a string", v)),
            };
            if address.trim().is_empty() {
                return Err((
                    field("socket"),
                    ConfigErrorKind::Invalid("empty socket address".into()),
                ));
            }
            TransportConfig::Socket(SocketServer { address })
        }
        Kind::Remote(kind) => {
            let url = match obj.get("url") {
                None | Some(Value::Null) => {
                    return Err((field("url"), ConfigErrorKind::MissingUrl));
                }
                Some(Value::String(s)) => expand_at(s, &field("url"))?,
                Some(v) => return Err(wrong(&field("url"), "a string", v)),
            };
            check_url(&url).map_err(|why| (field("url"), ConfigErrorKind::BadUrl(why)))?;
            let headers = string_map(obj.get("headers"), &field("headers"), &expand_at)?;
            for name in headers.keys() {
                if name.is_empty() || !name.bytes().all(is_token_byte) {
                    return Err((
                        join_key(&field("headers"), name),
                        ConfigErrorKind::Invalid(format!("{name:?} is not an HTTP header name")),
                    ));
                }
            }
            if kind == RemoteKind::Sse
                && matches!(protocol_version, Some(VersionPreference::Only(v)) if v.is_stateless())
            {
                return Err((
                    field("protocolVersion"),
                    ConfigErrorKind::Invalid(
                        "the HTTP+SSE transport carries only the handshake revisions (2024-11-05 … 2025-11-25)".into(),
                    ),
                ));
            }
            let (auth, oauth) = parse_auth(obj, path, &expand_at)?;
            TransportConfig::Remote(RemoteServer {
                url,
                kind,
                headers,
                auth,
                oauth,
            })
        }
    };
    Ok(ServerConfig {
        name: name.to_owned(),
        transport,
        timeout,
        startup_timeout,
        discover_timeout,
        protocol_version,
        disabled,
        source: None,
    })
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn get_ms(obj: &Map<String, Value>, key: &str, path: &str) -> EntryResult<Option<Duration>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(0) => Err((
                path.to_owned(),
                ConfigErrorKind::Invalid("must be > 0 ms".into()),
            )),
            Some(ms) => Ok(Some(Duration::from_millis(ms))),
            None => Err(wrong(path, "a positive integer (milliseconds)", v)),
        },
    }
}

fn string_map(
    value: Option<&Value>,
    path: &str,
    expand_at: &dyn Fn(&str, &str) -> EntryResult<String>,
) -> EntryResult<BTreeMap<String, String>> {
    match value {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                let p = join_key(path, k);
                match v {
                    Value::String(s) => Ok((k.clone(), expand_at(s, &p)?)),
                    other => Err(wrong(&p, "a string", other)),
                }
            })
            .collect(),
        Some(v) => Err(wrong(path, "an object of strings", v)),
    }
}
