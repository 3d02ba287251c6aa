//! Errors of a configuration file or entry: what is wrong, where (the file
//! and the JSON path), and for an unread file the I/O error's reason.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::expand::ExpandError;

/// An error in a configuration file or entry. Its `Display` names the
/// file, the JSON path and what is wrong, the operating system's reason
/// for an unread file included, so `println!("{e}")` says it all; its
/// [`source`](std::error::Error::source) goes on from there (no level is
/// said twice).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConfigError {
    /// The file, when loading from one.
    pub file: Option<PathBuf>,
    /// The server entry's name, when the error is about one entry.
    pub server: Option<String>,
    /// The JSON path of the faulty value, e.g. `mcpServers.foo.url` or
    /// `mcpServers.foo.args[1]` (`$` for the whole document).
    pub path: String,
    /// What is wrong.
    pub kind: ConfigErrorKind,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        write!(f, "{}: {}", self.path, self.kind)
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // The kind is this level's own text (Display above), so the chain
        // continues with what caused the kind, not the kind.
        self.kind.source()
    }
}

/// What is wrong in a configuration.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    /// The file could not be read: the operating system's reason, in the
    /// text (`cannot read the file: No such file or directory (os error 2)`).
    #[error("cannot read the file: {0}")]
    Read(Arc<std::io::Error>),
    /// The file is larger than [`MAX_CONFIG_BYTES`](super::MAX_CONFIG_BYTES).
    #[error("file larger than {limit} bytes")]
    #[non_exhaustive]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Json(String),
    /// Neither `mcpServers` nor `servers` is present.
    #[error("no \"mcpServers\" object")]
    NoServers,
    /// A value has the wrong JSON type.
    #[error("expected {expected}, found {found}")]
    #[non_exhaustive]
    WrongType {
        /// What was expected, e.g. `"a string"`.
        expected: &'static str,
        /// The JSON type found, e.g. `"a number"`.
        found: &'static str,
    },
    /// `type` names no known transport.
    #[error(
        "unknown type {0:?} (expected \"stdio\", \"http\", \"streamable-http\", \"sse\" or \"socket\")"
    )]
    UnknownType(String),
    /// A stdio entry without `command`.
    #[error("missing \"command\" (required for a stdio server)")]
    MissingCommand,
    /// A remote entry without `url`.
    #[error("missing \"url\" (required for an http or sse server)")]
    MissingUrl,
    /// Neither `command` nor `url` (nor `type`) says what the entry is.
    #[error("missing \"command\" or \"url\"")]
    MissingCommandOrUrl,
    /// `url` is not an absolute `http://` or `https://` URL.
    #[error("bad URL: {0}")]
    BadUrl(String),
    /// A value is out of range (e.g. a timeout of 0), or empty where it must not be.
    #[error("invalid value: {0}")]
    Invalid(String),
    /// `${…}` expansion failed.
    #[error(transparent)]
    Expand(#[from] ExpandError),
}

impl ConfigError {
    pub(super) fn whole(file: Option<&Path>, kind: ConfigErrorKind) -> Self {
        ConfigError {
            file: file.map(Path::to_path_buf),
            server: None,
            path: "$".into(),
            kind,
        }
    }
}
