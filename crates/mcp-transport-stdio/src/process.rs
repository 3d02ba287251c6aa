//! Starting and ending the server process: command lookup in the merged
//! `PATH` (a server started by name resolves against the `PATH` it will
//! run with), the process group, and group signals (so no grandchild
//! outlives the connection).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use mcp_transport::TransportError;

/// Finds `command` the way `execvp` would, but in `search_path` (the
/// merged environment's `PATH`, not the parent's): a command containing `/`
/// is used as is; otherwise the first executable file named `command` in a
/// `PATH` directory (an empty entry means the working directory).
///
/// Errors: [`TransportError::Spawn`] naming the command and the `PATH`
/// searched, with `NotFound` as its source.
pub(crate) fn resolve_command(
    command: &str,
    search_path: &OsStr,
    cwd: Option<&Path>,
) -> Result<PathBuf, TransportError> {
    if command.contains('/') {
        return Ok(PathBuf::from(command));
    }
    // The kind alone would read "entity not found"; say it as a shell would.
    let not_found = || {
        let source = std::io::Error::new(std::io::ErrorKind::NotFound, "command not found");
        spawn_error(command, search_path, source)
    };
    if command.is_empty() {
        return Err(not_found());
    }
    for dir in std::env::split_paths(search_path) {
        let dir = if dir.as_os_str().is_empty() {
            cwd.map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("."))
        } else {
            dir
        };
        let candidate = dir.join(command);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(not_found())
}

/// A [`TransportError::Spawn`] for `command`.
pub(crate) fn spawn_error(
    command: &str,
    search_path: &OsStr,
    source: std::io::Error,
) -> TransportError {
    TransportError::spawn(command, search_path.to_string_lossy(), source)
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// A signal for the server's process group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupSignal {
    Term,
    Kill,
}

/// Sends `signal` to process group `pgid` (the server's pid: it leads its own
/// group). Errors (e.g. the group is gone) are logged at debug.
#[cfg(unix)]
pub(crate) fn signal_group(pgid: u32, signal: GroupSignal) {
    use rustix::process::{Pid, Signal, kill_process_group};
    let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) else {
        return;
    };
    let sig = match signal {
        GroupSignal::Term => Signal::TERM,
        GroupSignal::Kill => Signal::KILL,
    };
    if let Err(e) = kill_process_group(pid, sig) {
        tracing::debug!(pgid, ?signal, error = %e, "signalling the process group failed");
    }
}

/// `true` while some process of group `pgid` exists (zombies included).
#[cfg(unix)]
pub(crate) fn group_alive(pgid: u32) -> bool {
    use rustix::process::{Pid, test_kill_process_group};
    i32::try_from(pgid)
        .ok()
        .and_then(Pid::from_raw)
        .is_some_and(|pid| test_kill_process_group(pid).is_ok())
}

#[cfg(not(unix))]
pub(crate) fn signal_group(_pgid: u32, _signal: GroupSignal) {}

#[cfg(not(unix))]
pub(crate) fn group_alive(_pgid: u32) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_sh_and_names_path_when_missing() {
        let path = std::env::var_os("PATH").unwrap_or_default();
        assert!(resolve_command("sh", &path, None).is_ok());
        let err =
            resolve_command("no-such-cmd-xyz", OsStr::new("/nope:/also-nope"), None).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("no-such-cmd-xyz"), "{text}");
        assert!(text.contains("/nope:/also-nope"), "{text}");
        assert!(matches!(err, TransportError::Spawn { .. }));
    }
}
