//! The on-disk tool-list cache: the last `tools/list` of each server, so an
//! agent sees a slow server's tools before it has connected.
//!
//! One JSON file per server, `tools-<32 hex digits>.json`, named by a hash
//! of the parts of the server's configuration that decide which server it
//! is: its name, transport, command, args, cwd, URL, and the **names** (not
//! the values) of its env variables and headers. No secret value goes into
//! the file name or the file: the file holds the server name, that key, the
//! time it was written and the tools. (A command line or URL can itself
//! carry a secret; it is hashed, never stored.)
//!
//! Writes are atomic (temp file + rename). A file larger than
//! [`MAX_CACHE_FILE_BYTES`], unreadable or not matching the key is ignored
//! (logged at debug).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use mcp_types::tools::Tool;
use serde::{Deserialize, Serialize};

use crate::config::{ServerConfig, TransportConfig};
use crate::naming::fnv1a64;

/// Largest cache file read, in bytes: 8 MiB (8 388 608 bytes).
pub const MAX_CACHE_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// The format version in the file.
const FORMAT: u32 = 1;

/// The usual cache directory, for [`crate::ManagerOptions::with_cache_dir`]
/// (a manager caches nothing unless given one):
/// `$XDG_CACHE_HOME/mcp-client-stack/tools`, else
/// `$HOME/.cache/mcp-client-stack/tools`; `None` when neither is set.
pub fn default_cache_dir() -> Option<PathBuf> {
    Some(cache_base()?.join("tools"))
}

/// The usual directory of the revision memory ([`crate::revision_memory`]), for
/// [`crate::ManagerOptions::with_revision_dir`] (a manager keeps none on disk
/// unless given one): `$XDG_CACHE_HOME/mcp-client-stack/revisions`, else
/// `$HOME/.cache/mcp-client-stack/revisions`; `None` when neither is set.
pub fn default_revision_dir() -> Option<PathBuf> {
    Some(cache_base()?.join("revisions"))
}

/// `$XDG_CACHE_HOME/mcp-client-stack` (an absolute path), else
/// `$HOME/.cache/mcp-client-stack`.
fn cache_base() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("mcp-client-stack"))
}

/// The cache key of a server: 32 hex digits (see the module docs for what
/// goes into it).
pub fn cache_key(config: &ServerConfig) -> String {
    let mut parts: Vec<String> = vec![
        format!("v{FORMAT}"),
        config.name.clone(),
        config.transport.kind_name().to_owned(),
    ];
    match &config.transport {
        TransportConfig::Stdio(s) => {
            parts.push(s.command.clone());
            parts.push(format!("{}", s.args.len()));
            parts.extend(s.args.iter().cloned());
            parts.push(
                s.cwd
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
            );
            parts.extend(s.env.keys().map(|k| format!("env:{k}")));
        }
        TransportConfig::Socket(s) => parts.push(s.address.clone()),
        TransportConfig::Remote(r) => {
            parts.push(r.url.clone());
            parts.extend(
                r.headers
                    .keys()
                    .map(|k| format!("header:{}", k.to_ascii_lowercase())),
            );
        }
    }
    let bytes: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    let h1 = fnv1a64(&bytes);
    let mut salted = bytes.clone();
    salted.insert(0, b"second");
    let h2 = fnv1a64(&salted);
    format!("{h1:016x}{h2:016x}")
}

/// The file's contents: read with `T = Tool`, written from the tools as
/// the manager holds them (`T = Arc<Tool>`, borrowed: no copy).
#[derive(Debug, Serialize, Deserialize)]
struct CacheFile<T> {
    format: u32,
    server: String,
    key: String,
    #[serde(rename = "savedAtMs")]
    saved_at_ms: u64,
    tools: T,
}

/// A tool-list cache in one directory.
#[derive(Debug, Clone)]
pub struct ToolCache {
    dir: PathBuf,
}

impl ToolCache {
    /// A cache in `dir` (created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ToolCache { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file for `config`.
    pub fn path_for(&self, config: &ServerConfig) -> PathBuf {
        self.dir.join(format!("tools-{}.json", cache_key(config)))
    }

    /// The cached tools of `config`, if any.
    pub fn load(&self, config: &ServerConfig) -> Option<Vec<Tool>> {
        let path = self.path_for(config);
        let text = read_bounded(&path, MAX_CACHE_FILE_BYTES, "tool cache")?;
        match serde_json::from_slice::<CacheFile<Vec<Tool>>>(&text) {
            Ok(f)
                if f.format == FORMAT && f.key == cache_key(config) && f.server == config.name =>
            {
                Some(f.tools)
            }
            Ok(_) => {
                tracing::debug!(path = %path.display(), "tool cache file for another config; ignored");
                None
            }
            Err(e) => {
                tracing::debug!(path = %path.display(), error = %e, "corrupt tool cache file; ignored");
                None
            }
        }
    }

    /// Stores `tools` for `config`, atomically.
    ///
    /// Errors: the I/O error (the caller logs it; a cache failure never
    /// fails a connection).
    pub fn store(&self, config: &ServerConfig, tools: &[Arc<Tool>]) -> std::io::Result<()> {
        let file = CacheFile {
            format: FORMAT,
            server: config.name.clone(),
            key: cache_key(config),
            saved_at_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            tools: tools.iter().map(|t| &**t).collect::<Vec<&Tool>>(),
        };
        let bytes = serde_json::to_vec(&file).map_err(std::io::Error::other)?;
        write_atomically(&self.path_for(config), &bytes)
    }
}

/// The bytes of the file at `path` when it exists, is a regular file (a
/// symlink to one is followed), is at most `max` bytes and can be read;
/// `None` otherwise (logged at debug, naming `what`).
///
/// Nothing at the path can stall or flood the caller: it is opened without
/// blocking (a FIFO there would otherwise wait for a writer forever), its
/// type is checked on the open file, and at most `max + 1` bytes are read
/// whatever size it reports (a device such as `/dev/zero` reports 0).
pub(crate) fn read_bounded(path: &Path, max: u64, what: &str) -> Option<Vec<u8>> {
    use std::io::Read;
    let ignored = |why: &dyn std::fmt::Display| {
        tracing::debug!(path = %path.display(), "{what} file ignored: {why}");
    };
    let file = open_nonblocking(path)
        .inspect_err(|e| {
            if e.kind() != std::io::ErrorKind::NotFound {
                ignored(e);
            }
        })
        .ok()?;
    match file.metadata() {
        Ok(meta) if meta.is_file() => {}
        Ok(meta) => {
            ignored(&format_args!("not a regular file ({:?})", meta.file_type()));
            return None;
        }
        Err(e) => {
            ignored(&e);
            return None;
        }
    }
    let mut bytes = Vec::new();
    if let Err(e) = file.take(max.saturating_add(1)).read_to_end(&mut bytes) {
        ignored(&e);
        return None;
    }
    if bytes.len() as u64 > max {
        ignored(&format_args!("larger than {max} bytes"));
        return None;
    }
    Some(bytes)
}

/// Opens `path` for reading without waiting for a FIFO's writer (Unix:
/// `O_NONBLOCK`, which changes nothing for a regular file's reads).
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(std::fs::File::from(fd))
}

/// Opens `path` for reading (outside Unix there are no FIFOs in the file
/// system to wait on).
#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// Writes `bytes` to `path` atomically (a temp file beside it, then a
/// rename), creating its directory first.
///
/// Errors: the I/O error (the caller logs it; an on-disk memory never fails
/// a connection).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::McpConfig;

    fn config(json: &str) -> ServerConfig {
        let c = McpConfig::from_json_with_env(
            &format!(r#"{{"mcpServers": {{"s": {json}}}}}"#),
            &|_| None,
        )
        .unwrap();
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        c.servers["s"].clone()
    }

    fn tool(name: &str) -> Tool {
        serde_json::from_value(serde_json::json!({"name": name, "inputSchema": {"type": "object"}}))
            .unwrap()
    }

    #[test]
    fn key_ignores_secret_values_but_not_identity() {
        let a = config(r#"{"command": "srv", "env": {"TOKEN": "one"}}"#);
        let b = config(r#"{"command": "srv", "env": {"TOKEN": "two"}}"#);
        let c = config(r#"{"command": "srv", "args": ["--x"], "env": {"TOKEN": "one"}}"#);
        assert_eq!(cache_key(&a), cache_key(&b));
        assert_ne!(cache_key(&a), cache_key(&c));
        let h1 = config(r#"{"url": "http://h/mcp", "headers": {"Authorization": "Bearer one"}}"#);
        let h2 = config(r#"{"url": "http://h/mcp", "headers": {"Authorization": "Bearer two"}}"#);
        let h3 = config(r#"{"url": "http://h/other"}"#);
        assert_eq!(cache_key(&h1), cache_key(&h2));
        assert_ne!(cache_key(&h1), cache_key(&h3));
        assert_eq!(cache_key(&a).len(), 32);
    }

    #[test]
    fn round_trip_without_secrets_on_disk() {
        let dir = mcp_tests::temp_path("cache-rt");
        let cache = ToolCache::new(&dir);
        let c = config(
            r#"{"command": "srv", "args": ["--api-key=topsecret"], "env": {"TOKEN": "hunter2"}}"#,
        );
        assert!(cache.load(&c).is_none());
        cache
            .store(&c, &[tool("a").into(), tool("b").into()])
            .unwrap();
        let got = cache.load(&c).unwrap();
        assert_eq!(
            got.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        let path = cache.path_for(&c);
        let text = std::fs::read_to_string(&path).unwrap();
        for secret in ["hunter2", "topsecret", "TOKEN"] {
            assert!(!text.contains(secret), "{secret} in {text}");
            assert!(!path.display().to_string().contains(secret));
        }
        // another config does not see it
        let other = config(r#"{"command": "srv2"}"#);
        assert!(cache.load(&other).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn corrupt_file_is_ignored() {
        let dir = mcp_tests::temp_path("cache-corrupt");
        let cache = ToolCache::new(&dir);
        let c = config(r#"{"command": "srv"}"#);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(cache.path_for(&c), b"{not json").unwrap();
        assert!(cache.load(&c).is_none());
        cache.store(&c, &[tool("x").into()]).unwrap();
        assert_eq!(cache.load(&c).unwrap().len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// What sits at a cache path is read only when it is a regular file,
    /// and never more than the bound, whatever size it reports; nothing
    /// there makes the read wait.
    #[cfg(unix)]
    #[test]
    fn only_a_regular_file_within_the_bound_is_read_and_nothing_blocks() {
        let dir = mcp_tests::temp_path("cache-kinds");
        std::fs::create_dir_all(&dir).unwrap();
        let regular = dir.join("regular.json");
        std::fs::write(&regular, b"{}").unwrap();
        assert_eq!(
            read_bounded(&regular, 2, "test").as_deref(),
            Some(&b"{}"[..])
        );
        assert_eq!(read_bounded(&regular, 1, "test"), None, "over the bound");
        assert_eq!(read_bounded(&dir.join("missing"), 10, "test"), None);
        assert_eq!(read_bounded(&dir, 10, "test"), None, "a directory");
        // A file whose reported size (0) is not its length: the bound holds.
        let proc_file = dir.join("status.json");
        std::os::unix::fs::symlink("/proc/self/status", &proc_file).unwrap();
        if std::fs::metadata(&proc_file).is_ok_and(|m| m.len() == 0) {
            assert_eq!(read_bounded(&proc_file, 16, "test"), None);
        }
        // A FIFO with no writer: opening it for reading would wait forever.
        let fifo = dir.join("fifo.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.as_ref().is_ok_and(|s| s.success()), "mkfifo: {made:?}");
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || tx.send(read_bounded(&path, 10, "test")));
        let got = rx.recv_timeout(std::time::Duration::from_secs(10));
        if got.is_err() {
            // Let the stuck reader go before failing.
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
        }
        assert_eq!(got, Ok(None), "a FIFO is not read (and not waited on)");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
