//! The era memory: the handshake revision a server answered with, so the
//! next start of the same server (a later `mcp` command, a host restart)
//! sends `initialize` at once instead of paying a `server/discover` probe
//! first (over Streamable HTTP a refused POST, over stdio one round trip, or
//! the probe's silence timeout for a server that ignores it).
//!
//! One small file per server, `era-<32 hex digits>.json`, named by the same
//! key as the tool cache ([`crate::cache::cache_key`]: the parts of the
//! configuration that decide which server it is, secrets hashed, never
//! stored). Only a handshake verdict reached with the automatic preference
//! is remembered, for [`ERA_TTL`]; a stateless verdict removes the file
//! (probing is how a modern server is found anyway). When a remembered
//! verdict proves wrong (the handshake fails: the server was upgraded and
//! refuses `initialize`), the file is removed and the server probed again
//! within the same startup timeout.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use mcp_types::ProtocolVersion;
use serde::{Deserialize, Serialize};

use crate::cache::{cache_key, read_bounded, write_atomically};
use crate::config::ServerConfig;

/// How long a remembered verdict is trusted: 24 h (86 400 s). After it the
/// server is probed again, so a server upgraded to 2026-07-28 that still
/// accepts `initialize` is found within a day.
pub const ERA_TTL_SECS: u64 = 86_400;

/// [`ERA_TTL_SECS`] as the name the module docs use.
pub const ERA_TTL: std::time::Duration = std::time::Duration::from_secs(ERA_TTL_SECS);

/// Largest era file read: 4 KiB (4 096 bytes).
const MAX_ERA_FILE_BYTES: u64 = 4 * 1024;

/// The format version in the file.
const FORMAT: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EraFile {
    format: u32,
    key: String,
    protocol_version: String,
    written_at_secs: u64,
}

/// The era memory in one directory (see the module docs).
#[derive(Debug, Clone)]
pub struct EraMemory {
    dir: PathBuf,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl EraMemory {
    /// A memory in `dir` (created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        EraMemory { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file for `config`.
    pub fn path_for(&self, config: &ServerConfig) -> PathBuf {
        self.dir.join(format!("era-{}.json", cache_key(config)))
    }

    /// The handshake revision `config`'s server answered with, when it was
    /// remembered less than [`ERA_TTL`] ago. A missing, old, oversized,
    /// unreadable or foreign file is `None` (logged at debug).
    pub fn recall(&self, config: &ServerConfig) -> Option<ProtocolVersion> {
        self.recall_with_age(config).map(|(version, _)| version)
    }

    /// [`EraMemory::recall`], with the verdict's age in seconds.
    fn recall_with_age(&self, config: &ServerConfig) -> Option<(ProtocolVersion, u64)> {
        let path = self.path_for(config);
        let bytes = read_bounded(&path, MAX_ERA_FILE_BYTES, "era")?;
        let file: EraFile = serde_json::from_slice(&bytes)
            .inspect_err(|e| tracing::debug!(path = %path.display(), error = %e, "corrupt era file; ignored"))
            .ok()?;
        let age = now_secs().checked_sub(file.written_at_secs)?;
        if file.format != FORMAT || file.key != cache_key(config) || age >= ERA_TTL_SECS {
            return None;
        }
        ProtocolVersion::parse(&file.protocol_version)
            .filter(|v| v.uses_handshake())
            .map(|v| (v, age))
    }

    /// Remembers `version` for `config` when it is a handshake revision
    /// (atomically: temp file + rename); forgets otherwise.
    ///
    /// A file that already holds `version` and was written less than half
    /// of [`ERA_TTL`] ago is left alone, so a start that confirms what was
    /// remembered writes nothing: that write (a temp file, then a rename
    /// over the old one) would be the only disk write of a start, and a
    /// rename can wait behind the system's write-back of other files.
    ///
    /// Errors: the I/O error (the caller logs it; the memory never fails a
    /// connection).
    pub fn remember(&self, config: &ServerConfig, version: ProtocolVersion) -> std::io::Result<()> {
        if !version.uses_handshake() {
            return self.forget(config);
        }
        if self
            .recall_with_age(config)
            .is_some_and(|(held, age)| held == version && age < ERA_TTL_SECS / 2)
        {
            return Ok(());
        }
        let file = EraFile {
            format: FORMAT,
            key: cache_key(config),
            protocol_version: version.as_str().to_owned(),
            written_at_secs: now_secs(),
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

    fn memory(tag: &str) -> EraMemory {
        EraMemory::new(mcp_tests::temp_path(&format!("era-{tag}")))
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
            let file = EraFile {
                format: FORMAT,
                key,
                protocol_version: version.into(),
                written_at_secs,
            };
            std::fs::write(m.path_for(&a), serde_json::to_vec(&file).unwrap()).unwrap();
        };
        write(now_secs() - ERA_TTL_SECS - 1, cache_key(&a), "2025-06-18");
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

    #[test]
    fn a_confirmed_fresh_verdict_is_not_written_again() {
        let m = memory("rewrite");
        let a = config(r#""a""#);
        let written_at = |m: &EraMemory| {
            let bytes = std::fs::read(m.path_for(&a)).unwrap();
            serde_json::from_slice::<EraFile>(&bytes)
                .unwrap()
                .written_at_secs
        };
        let backdate = |age: u64, version: &str| {
            let file = EraFile {
                format: FORMAT,
                key: cache_key(&a),
                protocol_version: version.into(),
                written_at_secs: now_secs() - age,
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
        backdate(ERA_TTL_SECS / 2 + 1, "2025-11-25");
        m.remember(&a, ProtocolVersion::V2025_11_25).unwrap();
        assert!(
            now_secs() - written_at(&m) < 600,
            "past half its lifetime the verdict is renewed"
        );
        let _ = std::fs::remove_dir_all(m.dir());
    }
}
