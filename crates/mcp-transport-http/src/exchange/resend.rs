//! The re-send rule of an exchange, as pure functions: what to do when a
//! request failed before any byte of its reply arrived, on a keep-alive
//! connection that had served a request before (the server closed the idle
//! connection as the request went out; some close each connection after
//! their response without saying `Connection: close`).
//!
//! The server may still have read and acted on the request before closing,
//! so only a request that is safe to send twice goes out once more, on a
//! fresh connection (curl and browsers re-send any; a `tools/call` may have
//! run). Once a server was seen doing it, a request that is not safe to
//! send twice goes out on a fresh connection from the start.

use super::request::RequestKind;

/// `true` for what may reach the server twice without a second effect: a
/// GET, the session DELETE, a response or notification, and every request
/// method of the client but `tools/call` (which runs a tool) and methods this
/// transport does not know.
pub(crate) fn safe_to_send_twice(kind: &RequestKind) -> bool {
    const REPEATABLE: [&str; 17] = [
        "initialize",
        "ping",
        "server/discover",
        "tools/list",
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "completion/complete",
        "logging/setLevel",
        "tasks/get",
        "tasks/result",
        "tasks/list",
        "tasks/cancel",
    ];
    match kind {
        RequestKind::Get { .. } | RequestKind::Delete => true,
        RequestKind::Post { method: None, .. } => true,
        RequestKind::Post {
            method: Some(method),
            ..
        } => method.starts_with("notifications/") || REPEATABLE.contains(&method.as_ref()),
    }
}

/// Which connection a request goes out on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Connect {
    /// The pool's: an idle keep-alive connection when there is one.
    Pooled,
    /// A new connection, kept by nobody afterwards.
    Fresh,
}

/// Where a request first goes out: on a new connection when it is not
/// `repeatable` and the server was seen closing idle connections as
/// requests went out (`server_closes_idle`), else on the pool's.
pub(crate) fn first_connection(repeatable: bool, server_closes_idle: bool) -> Connect {
    if !repeatable && server_closes_idle {
        Connect::Fresh
    } else {
        Connect::Pooled
    }
}

/// A failed send, as the re-send rule sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Failure {
    /// The request failed on a reused connection before any byte of its
    /// reply arrived.
    pub(crate) unanswered_on_reused: bool,
    /// The request is safe to send twice ([`safe_to_send_twice`]).
    pub(crate) repeatable: bool,
    /// This was already the re-send.
    pub(crate) resent: bool,
}

/// What to do about a failed send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resend {
    /// Send it once more, on a fresh connection.
    OnFreshConnection,
    /// Fail: it failed on a reused connection before any reply, but it may
    /// have run, so it is not sent again.
    MayHaveRun,
    /// Fail with the network error.
    No,
}

/// What the re-send rule says about `failure`: at most one re-send per
/// hop, only of a request that failed unanswered on a reused connection
/// and is safe to send twice.
pub(crate) fn after_failure(failure: Failure) -> Resend {
    if !failure.unanswered_on_reused || failure.resent {
        Resend::No
    } else if failure.repeatable {
        Resend::OnFreshConnection
    } else {
        Resend::MayHaveRun
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(method: &str) -> RequestKind {
        RequestKind::Post {
            method: Some(method.to_owned().into()),
            with_session: true,
            metadata: Vec::new(),
        }
    }

    #[test]
    fn what_is_safe_to_send_twice() {
        let cases: &[(RequestKind, bool)] = &[
            (
                RequestKind::Get {
                    last_event_id: None,
                },
                true,
            ),
            (RequestKind::Delete, true),
            (
                RequestKind::Post {
                    method: None,
                    with_session: true,
                    metadata: Vec::new(),
                },
                true,
            ),
            (post("initialize"), true),
            (post("tools/list"), true),
            (post("resources/read"), true),
            (post("tasks/cancel"), true),
            (post("notifications/initialized"), true),
            (post("notifications/cancelled"), true),
            (post("tools/call"), false),
            (post("sampling/createMessage"), false),
            (post("vendor/unknown"), false),
        ];
        for (kind, want) in cases {
            assert_eq!(safe_to_send_twice(kind), *want, "{kind:?}");
        }
    }

    #[test]
    fn which_connection_first() {
        for (repeatable, closes_idle, want) in [
            (true, false, Connect::Pooled),
            (true, true, Connect::Pooled),
            (false, false, Connect::Pooled),
            (false, true, Connect::Fresh),
        ] {
            assert_eq!(
                first_connection(repeatable, closes_idle),
                want,
                "{repeatable} {closes_idle}"
            );
        }
    }

    #[test]
    fn what_a_failure_leads_to() {
        // (unanswered on a reused connection, repeatable, already resent)
        for (unanswered_on_reused, repeatable, resent, want) in [
            (true, true, false, Resend::OnFreshConnection),
            (true, false, false, Resend::MayHaveRun),
            (true, true, true, Resend::No),
            (true, false, true, Resend::No),
            (false, true, false, Resend::No),
            (false, false, false, Resend::No),
            (false, true, true, Resend::No),
        ] {
            let failure = Failure {
                unanswered_on_reused,
                repeatable,
                resent,
            };
            assert_eq!(after_failure(failure), want, "{failure:?}");
        }
    }
}
