//! What a run samples about this process and the processes it started,
//! from `/proc` (Linux): RSS, open file descriptors, threads, tokio tasks
//! alive, zombie children, live members of a process group.

use std::time::Instant;

use serde::Serialize;

/// The process's allocator: the system's, counting the bytes allocated and
/// not yet freed. RSS also holds what the allocator keeps after a free (its
/// arenas, the fragments of 1 MiB messages), which a short run cannot tell
/// from a leak; the live bytes are exact.
#[global_allocator]
static ALLOCATOR: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

/// One sample of this process.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Sample {
    /// Seconds since the run started.
    pub(crate) at_s: f64,
    /// Resident set size, KiB.
    pub(crate) rss_kib: u64,
    /// Heap bytes allocated and not yet freed, KiB.
    pub(crate) heap_kib: u64,
    /// Open file descriptors.
    pub(crate) fds: usize,
    /// Threads of this process.
    pub(crate) threads: usize,
    /// Tokio tasks alive in this runtime.
    pub(crate) tasks: usize,
    /// Requests in the pending table of the connection.
    pub(crate) pending: usize,
    /// Calls finished so far.
    pub(crate) done: u64,
}

impl Sample {
    /// Samples now.
    pub(crate) fn take(start: Instant, pending: usize, done: u64) -> Sample {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        Sample {
            at_s: start.elapsed().as_secs_f64(),
            rss_kib: field("VmRSS:"),
            heap_kib: u64::try_from(ALLOCATOR.allocated() / 1024).unwrap_or(u64::MAX),
            fds: std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count),
            threads: usize::try_from(field("Threads:")).unwrap_or(0),
            tasks: tokio::runtime::Handle::try_current()
                .map_or(0, |h| h.metrics().num_alive_tasks()),
            pending,
            done,
        }
    }
}

/// `(pid, ppid, pgid, state)` of every process, from `/proc/*/stat`.
fn processes() -> Vec<(u32, u32, u32, char)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The command name is in parentheses and may hold spaces.
            let rest = &stat[stat.rfind(')')? + 2..];
            let mut f = rest.split_whitespace();
            let state = f.next()?.chars().next()?;
            let ppid = f.next()?.parse().ok()?;
            let pgid = f.next()?.parse().ok()?;
            Some((pid, ppid, pgid, state))
        })
        .collect()
}

/// Zombie children of this process (exited, never reaped).
pub(crate) fn zombie_children() -> usize {
    let me = std::process::id();
    processes()
        .iter()
        .filter(|(_, ppid, _, state)| *ppid == me && *state == 'Z')
        .count()
}

/// Processes still alive (not zombies) in process group `pgid`.
pub(crate) fn alive_in_group(pgid: u32) -> usize {
    processes()
        .iter()
        .filter(|(_, _, g, state)| *g == pgid && *state != 'Z')
        .count()
}

/// Children of this process, alive or not.
pub(crate) fn children() -> usize {
    let me = std::process::id();
    processes()
        .iter()
        .filter(|(_, ppid, _, _)| *ppid == me)
        .count()
}

/// The pids of the children of `parent`.
pub(crate) fn children_of(parent: u32) -> Vec<u32> {
    processes()
        .iter()
        .filter(|(_, ppid, _, _)| *ppid == parent)
        .map(|(pid, ..)| *pid)
        .collect()
}
