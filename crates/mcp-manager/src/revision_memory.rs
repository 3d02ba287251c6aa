//! The revision memory: the handshake revision a server answered with, so the
//! next start of the same server (a later `mcp` command, a host restart)
//! sends `initialize` at once instead of paying a `server/discover` probe
//! first (over Streamable HTTP a refused POST, over stdio one round trip, or
//! the probe's silence timeout for a server that ignores it).
//!
//! One small file per server, `revision-<32 hex digits>.json`, named by the same
//! key as the tool cache ([`crate::cache::cache_key`]: the parts of the
//! configuration that decide which server it is, secrets hashed, never
//! stored). Only a handshake verdict reached with the automatic preference
//! is remembered, for [`REVISION_TTL`]; a stateless verdict removes the file
//! (probing is how a stateless server is found anyway). When a remembered
//! verdict proves wrong (the handshake fails: the server was upgraded and
//! refuses `initialize`), the file is removed and the server probed again
//! within the same startup timeout.
//!
//! A server that negotiated 2026-07-28 and then could not send a
//! server-initiated request in it (an elicitation, say: see
//! [`mcp_client::ClientError::ServerRequestNotInRevision`]) is remembered
//! too, as needing a handshake revision ([`RevisionMemory::remember_server_requests`],
//! for [`SERVER_REQUESTS_TTL`]): the manager learns that whenever a request
//! of that server's client fails so, and connects it in a handshake revision
//! from then on, in this process (a hint kept per server) and, with the memory on, in
//! the next.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use mcp_types::ProtocolVersion;
use serde::{Deserialize, Serialize};

use crate::cache::{cache_key, read_bounded, write_atomically};
use crate::config::ServerConfig;

/// How long a remembered verdict is trusted: 24 h (86 400 s). After it the
/// server is probed again, so a server upgraded to 2026-07-28 that still
/// accepts `initialize` is found within a day.
pub const REVISION_TTL_SECS: u64 = 86_400;

/// [`REVISION_TTL_SECS`] as the name the module docs use.
pub const REVISION_TTL: std::time::Duration = std::time::Duration::from_secs(REVISION_TTL_SECS);

/// How long a server is remembered as needing a handshake revision for its
/// server-initiated requests: 30 days (2 592 000 s). Connecting it so costs
/// nothing while it still accepts `initialize` (when it stops, the
/// handshake fails and the verdict is dropped at once); expiring sooner
/// would only fail one of its requests again.
pub const SERVER_REQUESTS_TTL_SECS: u64 = 30 * 86_400;

/// [`SERVER_REQUESTS_TTL_SECS`] as a duration.
pub const SERVER_REQUESTS_TTL: std::time::Duration =
    std::time::Duration::from_secs(SERVER_REQUESTS_TTL_SECS);

/// The handshake revision remembered for a server that needs a handshake
/// revision: the one the automatic preference's `initialize` offers (the server
/// may answer with an older one).
const HANDSHAKE_OFFERED: ProtocolVersion = ProtocolVersion::V2025_11_25;

/// Largest revision-memory file read: 4 KiB (4 096 bytes).
const MAX_REVISION_FILE_BYTES: u64 = 4 * 1024;

/// The format version in the file.
const FORMAT: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RevisionFile {
    format: u32,
    key: String,
    protocol_version: String,
    written_at_secs: u64,
    /// The server needs a handshake revision for its server-initiated
    /// requests (kept for [`SERVER_REQUESTS_TTL`], not replaced by an
    /// ordinary verdict). Absent in files written before it existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    server_requests: bool,
}

/// A verdict read back: the revision, its age in seconds, and whether it
/// was the server's requests that decided it.
struct Recalled {
    version: ProtocolVersion,
    age: u64,
    server_requests: bool,
}

/// The revision memory in one directory (see the module docs).
#[derive(Debug, Clone)]
pub struct RevisionMemory {
    dir: PathBuf,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl RevisionMemory {
    /// A memory in `dir` (created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        RevisionMemory { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file for `config`.
    pub fn path_for(&self, config: &ServerConfig) -> PathBuf {
        self.dir
            .join(format!("revision-{}.json", cache_key(config)))
    }

    /// The handshake revision `config`'s server answered with, when it was
    /// remembered less than [`REVISION_TTL`] ago. A missing, old, oversized,
    /// unreadable or foreign file is `None` (logged at debug).
    ///
    /// A server remembered as needing a handshake revision for its
    /// server-initiated requests is recalled for [`SERVER_REQUESTS_TTL`].
    pub fn recall(&self, config: &ServerConfig) -> Option<ProtocolVersion> {
        self.recall_verdict(config).map(|r| r.version)
    }

    /// [`RevisionMemory::recall`], with the verdict's age and kind.
    fn recall_verdict(&self, config: &ServerConfig) -> Option<Recalled> {
        let path = self.path_for(config);
        let bytes = read_bounded(&path, MAX_REVISION_FILE_BYTES, "revision memory")?;
        let file: RevisionFile = serde_json::from_slice(&bytes)
            .inspect_err(|e| tracing::debug!(path = %path.display(), error = %e, "corrupt revision-memory file; ignored"))
            .ok()?;
        let age = now_secs().checked_sub(file.written_at_secs)?;
        let ttl = if file.server_requests {
            SERVER_REQUESTS_TTL_SECS
        } else {
            REVISION_TTL_SECS
        };
        if file.format != FORMAT || file.key != cache_key(config) || age >= ttl {
            return None;
        }
        ProtocolVersion::parse(&file.protocol_version)
            .filter(|v| v.uses_handshake())
            .map(|version| Recalled {
                version,
                age,
                server_requests: file.server_requests,
            })
    }

    /// Remembers `version` for `config` when it is a handshake revision
    /// (atomically: temp file + rename); forgets otherwise.
    ///
    /// A file that already holds `version` and was written less than half
    /// of [`REVISION_TTL`] ago is left alone, so a start that confirms what was
    /// remembered writes nothing: that write (a temp file, then a rename
    /// over the old one) would be the only disk write of a start, and a
    /// rename can wait behind the system's write-back of other files.
    ///
    /// A server remembered as needing a handshake revision for its
    /// server-initiated requests keeps that verdict when it answers with a
    /// handshake revision.
    ///
    /// Errors: the I/O error (the caller logs it; the memory never fails a
    /// connection).
    pub fn remember(&self, config: &ServerConfig, version: ProtocolVersion) -> std::io::Result<()> {
        if !version.uses_handshake() {
            return self.forget(config);
        }
        if self.recall_verdict(config).is_some_and(|held| {
            held.server_requests || (held.version == version && held.age < REVISION_TTL_SECS / 2)
        }) {
            return Ok(());
        }
        self.write(config, version, false)
    }

    /// Remembers that `config`'s server needs a handshake revision: under
    /// 2026-07-28 it could not send a server-initiated request
    /// ([`mcp_client::ClientError::ServerRequestNotInRevision`]). Recalled
    /// for [`SERVER_REQUESTS_TTL`] as a handshake verdict, so the automatic
    /// preference sends `initialize` at once; dropped, as any verdict, when
    /// that handshake fails.
    ///
    /// Errors: the I/O error (the caller logs it).
    pub fn remember_server_requests(&self, config: &ServerConfig) -> std::io::Result<()> {
        self.write(config, HANDSHAKE_OFFERED, true)
    }

    /// Writes a verdict (atomically: temp file + rename).
    fn write(
        &self,
        config: &ServerConfig,
        version: ProtocolVersion,
        server_requests: bool,
    ) -> std::io::Result<()> {
        let file = RevisionFile {
            format: FORMAT,
            key: cache_key(config),
            protocol_version: version.as_str().to_owned(),
            written_at_secs: now_secs(),
            server_requests,
        };
        let bytes = serde_json::to_vec(&file).map_err(std::io::Error::other)?;
        write_atomically(&self.path_for(config), &bytes)
    }

    /// Forgets what was remembered for `config` (a missing file is fine).
    ///
    /// Errors: the I/O error of removing an existing file.
    pub fn forget(&self, config: &ServerConfig) -> std::io::Result<()> {
        match std::fs::remove_file(self.path_for(config)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// What the manager knows, while it runs, about one server needing the
/// handshake revisions for its server-initiated requests: set by the handler the
/// manager installs when a request of that server's client fails with
/// [`mcp_client::ClientError::ServerRequestNotInRevision`], read when the
/// server next connects. With the revision memory on, the verdict is written to
/// it too, for the next process.
pub(crate) struct RevisionHint {
    config: ServerConfig,
    memory: Option<RevisionMemory>,
    handshake_only: AtomicBool,
}

impl RevisionHint {
    /// The hint of `config`'s server, writing to `memory` when there is one.
    pub(crate) fn new(config: ServerConfig, memory: Option<RevisionMemory>) -> Self {
        RevisionHint {
            config,
            memory,
            handshake_only: AtomicBool::new(false),
        }
    }

    /// `true` once the server was found to need a handshake revision.
    pub(crate) fn handshake_only(&self) -> bool {
        self.handshake_only.load(Ordering::SeqCst)
    }

    /// The server could not send `server_request` in the negotiated
    /// revision: its next connection uses a handshake revision.
    pub(crate) fn learn(&self, server_request: &str) {
        if self.handshake_only.swap(true, Ordering::SeqCst) {
            return;
        }
        tracing::info!(
            server = %self.config.name,
            %server_request,
            "the server could not send a server-initiated request in protocol revision 2026-07-28; it is connected in a handshake revision from its next connection on"
        );
        if let Some(memory) = &self.memory
            && let Err(e) = memory.remember_server_requests(&self.config)
        {
            tracing::debug!(server = %self.config.name, error = %e, "revision memory not written");
        }
    }

    /// The handshake revision did not hold (the server refused `initialize`):
    /// probe again.
    pub(crate) fn forget(&self) {
        self.handshake_only.store(false, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::McpConfig;

    fn config(args: &str) -> ServerConfig {
        let text = format!(r#"{{"mcpServers": {{"s": {{"command": "srv", "args": [{args}]}}}}}}"#);
        McpConfig::from_json_with_env(&text, &|_| None)
            .unwrap()
            .servers
            .remove("s")
            .unwrap()
    }

    fn memory(tag: &str) -> RevisionMemory {
        RevisionMemory::new(mcp_tests::temp_path(&format!("revision-{tag}")))
    }

    #[test]
    fn remembers_handshake_verdicts_per_server_and_forgets_stateless_ones() {
        let m = memory("verdicts");
        let (a, b) = (config(r#""a""#), config(r#""b""#));
        assert_eq!(m.recall(&a), None);
        m.remember(&a, ProtocolVersion::V2025_06_18).unwrap();
        assert_eq!(m.recall(&a), Some(ProtocolVersion::V2025_06_18));
        assert_eq!(m.recall(&b), None, "another command line is another server");
        m.remember(&a, ProtocolVersion::V2026_07_28).unwrap();
        assert_eq!(m.recall(&a), None, "a stateless verdict is not remembered");
        assert!(!m.path_for(&a).exists());
        m.forget(&b).unwrap();
        let _ = std::fs::remove_dir_all(m.dir());
    }

    #[test]
    fn old_foreign_and_broken_files_are_ignored() {
        let m = memory("files");
        let a = config(r#""a""#);
        std::fs::create_dir_all(m.dir()).unwrap();
        let write = |written_at_secs: u64, key: String, version: &str| {
            let file = RevisionFile {
                format: FORMAT,
                key,
                protocol_version: version.into(),
                written_at_secs,
                server_requests: false,
            };
            std::fs::write(m.path_for(&a), serde_json::to_vec(&file).unwrap()).unwrap();
        };
        write(
            now_secs() - REVISION_TTL_SECS - 1,
            cache_key(&a),
            "2025-06-18",
        );
        assert_eq!(m.recall(&a), None, "older than the TTL");
        write(now_secs() + 3_600, cache_key(&a), "2025-06-18");
        assert_eq!(m.recall(&a), None, "written in the future");
        write(now_secs(), "another".into(), "2025-06-18");
        assert_eq!(m.recall(&a), None, "another key");
        write(now_secs(), cache_key(&a), "2026-07-28");
        assert_eq!(m.recall(&a), None, "not a handshake revision");
        write(now_secs(), cache_key(&a), "1999-01-01");
        assert_eq!(m.recall(&a), None, "unknown revision");
        std::fs::write(m.path_for(&a), b"{not json").unwrap();
        assert_eq!(m.recall(&a), None, "corrupt");
        std::fs::write(m.path_for(&a), vec![b' '; 10_000]).unwrap();
        assert_eq!(m.recall(&a), None, "oversized");
        write(now_secs(), cache_key(&a), "2025-03-26");
        assert_eq!(m.recall(&a), Some(ProtocolVersion::V2025_03_26));
        let _ = std::fs::remove_dir_all(m.dir());
    }

    /// A server that needs a handshake revision for its server-initiated
    /// requests is recalled as a handshake verdict, for longer than an
    /// ordinary one, and an ordinary handshake verdict does not replace it;
    /// a stateless verdict (its handshake failed and it was probed again)
    /// does.
    #[test]
    fn a_server_that_needs_the_handshake_era_for_its_requests_is_remembered() {
        let m = memory("server-requests");
        let a = config(r#""a""#);
        m.remember_server_requests(&a).unwrap();
        assert_eq!(m.recall(&a), Some(ProtocolVersion::V2025_11_25));
        m.remember(&a, ProtocolVersion::V2025_06_18).unwrap();
        let held = m.recall_verdict(&a).unwrap();
        assert!(held.server_requests, "kept through an ordinary verdict");
        // Two days old: past the ordinary TTL, within its own.
        let bytes = std::fs::read(m.path_for(&a)).unwrap();
        let mut file: RevisionFile = serde_json::from_slice(&bytes).unwrap();
        file.written_at_secs = now_secs() - 2 * REVISION_TTL_SECS;
        std::fs::write(m.path_for(&a), serde_json::to_vec(&file).unwrap()).unwrap();
        assert_eq!(m.recall(&a), Some(ProtocolVersion::V2025_11_25));
        file.written_at_secs = now_secs() - SERVER_REQUESTS_TTL_SECS;
        std::fs::write(m.path_for(&a), serde_json::to_vec(&file).unwrap()).unwrap();
        assert_eq!(m.recall(&a), None, "expired");
        m.remember_server_requests(&a).unwrap();
        m.remember(&a, ProtocolVersion::V2026_07_28).unwrap();
        assert_eq!(m.recall(&a), None);
        // An ordinary file has no such member.
        m.remember(&a, ProtocolVersion::V2025_06_18).unwrap();
        let text = std::fs::read_to_string(m.path_for(&a)).unwrap();
        assert!(!text.contains("serverRequests"), "{text}");
        let _ = std::fs::remove_dir_all(m.dir());
    }

    #[test]
    fn a_confirmed_fresh_verdict_is_not_written_again() {
        let m = memory("rewrite");
        let a = config(r#""a""#);
        let written_at = |m: &RevisionMemory| {
            let bytes = std::fs::read(m.path_for(&a)).unwrap();
            serde_json::from_slice::<RevisionFile>(&bytes)
                .unwrap()
                .written_at_secs
        };
        let backdate = |age: u64, version: &str| {
            let file = RevisionFile {
                format: FORMAT,
                key: cache_key(&a),
                protocol_version: version.into(),
                written_at_secs: now_secs() - age,
                server_requests: false,
            };
            std::fs::write(m.path_for(&a), serde_json::to_vec(&file).unwrap()).unwrap();
        };
        m.remember(&a, ProtocolVersion::V2025_06_18).unwrap();
        backdate(600, "2025-06-18");
        m.remember(&a, ProtocolVersion::V2025_06_18).unwrap();
        assert!(
            now_secs() - written_at(&m) >= 600,
            "the same verdict, fresh: left alone"
        );
        m.remember(&a, ProtocolVersion::V2025_11_25).unwrap();
        assert!(
            now_secs() - written_at(&m) < 600,
            "another verdict is written"
        );
        assert_eq!(m.recall(&a), Some(ProtocolVersion::V2025_11_25));
        backdate(REVISION_TTL_SECS / 2 + 1, "2025-11-25");
        m.remember(&a, ProtocolVersion::V2025_11_25).unwrap();
        assert!(
            now_secs() - written_at(&m) < 600,
            "past half its lifetime the verdict is renewed"
        );
        let _ = std::fs::remove_dir_all(m.dir());
    }
}
