//! The transport test kit (feature `testkit`): the contract every
//! [`Transport`] keeps for the protocol side, written once as checks a
//! transport author runs against their own transport.
//!
//! The author gives a [`Harness`]: a way to make a fresh transport
//! connected to a fresh [`Peer`] that the kit plays, message by message.
//! For a transport over a byte stream the kit's [`StreamPeer`] is that peer
//! (newline-delimited JSON over any `AsyncRead + AsyncWrite`: one end of a
//! socket pair, a `tokio::io::duplex`, a relay a child process connects
//! to); a transport with another wire (HTTP) adapts its own server to the
//! [`Peer`] trait.
//!
//! Each check holds one [`Rule`], named, with the spec section where there
//! is one; a broken rule is a [`Violation`] whose text names it. [`run`]
//! runs every check, each on a connection of its own, and returns a
//! [`Report`]:
//!
//! ```
//! # #[cfg(feature = "testkit")]
//! # async fn example<H: mcp_transport::testkit::Harness>(harness: H) {
//! use mcp_transport::testkit;
//! let report = testkit::run(&harness).await;
//! // In a test: fails with every broken rule named.
//! report.assert_passed();
//! # }
//! ```
//!
//! A difference a transport has by design is declared, with its reason, by
//! [`Kit::allow`]: the check still runs and its outcome is reported as
//! [`Outcome::Allowed`] instead of a failure.
//!
//! The checks, by rule name: `answered-by-id`, `notification-reaches-events`,
//! `server-request-answered-once`, `timeout-sends-cancelled`,
//! `dropped-request-cancels`, `close-rejects-pending`,
//! `peer-gone-fails-pending`, `malformed-frame-isolated`,
//! `oversized-frame-isolated`, `concurrent-requests`, `wire-tap-once`
//! (see [`Rule::ALL`]).
//!
//! The kit waits at most [`PROMPT`] for anything that should happen at once
//! and watches [`QUIET`] for a message that must not come (a second
//! answer), so a full run takes a few seconds.

mod checks;
mod peer;
mod wire;

use std::error::Error;
use std::fmt;
use std::time::Duration;

use async_trait::async_trait;

use crate::transport::Transport;

pub use checks::{
    check_answered_by_id, check_close_rejects_pending, check_concurrent_requests,
    check_dropped_request_cancels, check_malformed_frame_isolated,
    check_notification_reaches_events, check_oversized_frame_isolated,
    check_peer_gone_fails_pending, check_server_request_answered_once,
    check_timeout_sends_cancelled, check_wire_tap_once,
};
pub use peer::StreamPeer;

/// How long the kit waits for something the contract says happens at once
/// (a response, an event, a failed request after a close): 3 000 ms.
pub const PROMPT: Duration = Duration::from_millis(3_000);

/// How long the kit watches for a message that must not come (a second
/// answer, a second `notifications/cancelled`): 300 ms.
pub const QUIET: Duration = Duration::from_millis(300);

/// One rule of the transport contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Its short name, e.g. `close-rejects-pending`; every failure says it.
    pub name: &'static str,
    /// What it requires, in one sentence.
    pub statement: &'static str,
    /// The spec section it holds, when there is one (e.g.
    /// `basic/utilities/cancellation`).
    pub spec: Option<&'static str>,
}

impl Rule {
    /// A request is answered by its id, whatever the order of the replies.
    pub const ANSWERED_BY_ID: Rule = Rule {
        name: "answered-by-id",
        statement: "each request gets the response carrying its id, whatever order the peer answers in",
        spec: Some("basic/index § Responses"),
    };
    /// A notification from the peer reaches the transport's events.
    pub const NOTIFICATION_REACHES_EVENTS: Rule = Rule {
        name: "notification-reaches-events",
        statement: "a notification from the peer reaches the events receiver",
        spec: Some("basic/index § Notifications"),
    };
    /// A server request is answered exactly once.
    pub const SERVER_REQUEST_ANSWERED_ONCE: Rule = Rule {
        name: "server-request-answered-once",
        statement: "a request from the peer is answered exactly once, with its id: by the handler, or `{}` for ping and -32601 when nobody handles it",
        spec: Some("basic/index § Responses"),
    };
    /// A timeout fails the request and sends `notifications/cancelled`.
    pub const TIMEOUT_SENDS_CANCELLED: Rule = Rule {
        name: "timeout-sends-cancelled",
        statement: "a request that times out fails with Timeout and the peer gets one notifications/cancelled for its id; a late response is dropped",
        spec: Some("basic/utilities/cancellation"),
    };
    /// Dropping a request future cancels it.
    pub const DROPPED_REQUEST_CANCELS: Rule = Rule {
        name: "dropped-request-cancels",
        statement: "dropping a request's future sends one notifications/cancelled for its id (never for initialize) and leaves nothing pending",
        spec: Some("basic/utilities/cancellation"),
    };
    /// Close rejects every pending request and is idempotent.
    pub const CLOSE_REJECTS_PENDING: Rule = Rule {
        name: "close-rejects-pending",
        statement: "close() fails every pending request with Closed at once, fires one Closed event, and closing again is harmless",
        spec: Some("basic/lifecycle § Shutdown"),
    };
    /// The peer going away fails every pending request promptly.
    pub const PEER_GONE_FAILS_PENDING: Rule = Rule {
        name: "peer-gone-fails-pending",
        statement: "when the peer goes away every pending request fails promptly with a typed error, not at its timeout",
        spec: Some("basic/lifecycle § Shutdown"),
    };
    /// A malformed frame fails no other request.
    pub const MALFORMED_FRAME_ISOLATED: Rule = Rule {
        name: "malformed-frame-isolated",
        statement: "a frame that is not JSON-RPC is skipped; a malformed response fails only its own request (Malformed); everything else keeps working",
        spec: Some("basic/index § Messages"),
    };
    /// A frame over the size limit fails only its request.
    pub const OVERSIZED_FRAME_ISOLATED: Rule = Rule {
        name: "oversized-frame-isolated",
        statement: "a frame over the size limit fails only the request it answers (MessageTooLarge); everything else keeps working",
        spec: None,
    };
    /// Many tasks' concurrent requests each get their own answer.
    pub const CONCURRENT_REQUESTS: Rule = Rule {
        name: "concurrent-requests",
        statement: "requests sent at once from many tasks carry distinct ids and each gets its own answer; none is left pending",
        spec: Some("basic/index § Requests"),
    };
    /// The wire tap sees every message once, with secrets redacted.
    pub const WIRE_TAP_ONCE: Rule = Rule {
        name: "wire-tap-once",
        statement: "an installed wire tap sees every message sent and received exactly once, and no secret the connection sent",
        spec: None,
    };

    /// Every rule, in the order [`run`] checks them.
    pub const ALL: [Rule; 11] = [
        Rule::ANSWERED_BY_ID,
        Rule::NOTIFICATION_REACHES_EVENTS,
        Rule::SERVER_REQUEST_ANSWERED_ONCE,
        Rule::TIMEOUT_SENDS_CANCELLED,
        Rule::DROPPED_REQUEST_CANCELS,
        Rule::CLOSE_REJECTS_PENDING,
        Rule::PEER_GONE_FAILS_PENDING,
        Rule::MALFORMED_FRAME_ISOLATED,
        Rule::OVERSIZED_FRAME_ISOLATED,
        Rule::CONCURRENT_REQUESTS,
        Rule::WIRE_TAP_ONCE,
    ];
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.name)?;
        if let Some(spec) = self.spec {
            write!(f, " (spec {spec})")?;
        }
        write!(f, ": {}", self.statement)
    }
}

/// A rule the transport broke, and what the kit saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule.
    pub rule: Rule,
    /// What happened instead.
    pub detail: String,
}

impl Violation {
    pub(crate) fn new(rule: Rule, detail: impl Into<String>) -> Self {
        Violation {
            rule,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "transport contract rule {} broken: {}",
            self.rule, self.detail
        )
    }
}

impl Error for Violation {}

/// The error a [`Harness`] returns when it cannot make a connection.
pub type HarnessError = Box<dyn Error + Send + Sync>;

/// The far side of a connection, played by the kit.
///
/// Frames are whole messages without their framing: the peer adds and
/// removes it (a newline for a byte stream, an HTTP body or SSE event).
#[async_trait]
pub trait Peer: Send + 'static {
    /// The next message the transport sent, as its bytes; `None` once the
    /// transport's side of the connection ended. Must be cancel safe: the
    /// kit drops it when it stops waiting.
    async fn recv(&mut self) -> Option<Vec<u8>>;

    /// Delivers `frame` to the transport as one message (a frame may be
    /// anything, including bytes that are not JSON).
    ///
    /// Errors: the connection is gone.
    async fn send(&mut self, frame: &[u8]) -> std::io::Result<()>;

    /// Goes away as a real peer does: the connection ends from its side
    /// (a socket closed, a process exited, a server stopped).
    async fn hang_up(&mut self);
}

/// What the kit needs from a transport author: fresh connections and the
/// transport's limits.
#[async_trait]
pub trait Harness: Send + Sync {
    /// The transport under test.
    type Transport: Transport;
    /// The peer the kit plays for it.
    type Peer: Peer;

    /// A new transport, connected to a new peer. Nothing has been sent on
    /// it yet and its events are not taken.
    ///
    /// Errors: whatever kept the connection from being made.
    async fn connect(&self) -> Result<(Self::Transport, Self::Peer), HarnessError>;

    /// The largest frame the transports of [`connect`](Self::connect)
    /// accept, in bytes; `None` when it has no limit the kit can reach
    /// (the `oversized-frame-isolated` check is then skipped). Keep it
    /// small (a few KiB) in the harness: the kit sends one byte more.
    fn frame_limit(&self) -> Option<usize>;

    /// A secret the transport sends with every message (an
    /// `Authorization` header value), which must never be shown; `None`
    /// when it sends none (the redaction half of `wire-tap-once` is then
    /// skipped).
    fn secret(&self) -> Option<String>;
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The rule held.
    Passed,
    /// The rule was broken.
    Failed(Violation),
    /// The rule was broken, and the harness declared why that is by design
    /// ([`Kit::allow`]).
    Allowed {
        /// What the check saw.
        violation: Violation,
        /// The declared reason.
        reason: String,
    },
    /// The check could not run for this transport (e.g. no frame limit).
    Skipped(String),
}

/// The outcome of every check of a [`run`].
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Each rule checked, with its outcome, in [`Rule::ALL`] order.
    pub outcomes: Vec<(Rule, Outcome)>,
}

impl Report {
    /// The broken rules (allowed ones excluded).
    pub fn failures(&self) -> Vec<&Violation> {
        self.outcomes
            .iter()
            .filter_map(|(_, o)| match o {
                Outcome::Failed(v) => Some(v),
                _ => None,
            })
            .collect()
    }

    /// `true` when no rule was broken (allowed ones excepted).
    pub fn passed(&self) -> bool {
        self.failures().is_empty()
    }

    /// `Ok` when every rule held (or was allowed), else every broken rule.
    ///
    /// Errors: [`KitFailure`], listing each violation.
    pub fn into_result(self) -> Result<Self, KitFailure> {
        let failures: Vec<Violation> = self.failures().into_iter().cloned().collect();
        if failures.is_empty() {
            Ok(self)
        } else {
            Err(KitFailure(failures))
        }
    }

    /// For tests: panics with every broken rule, named.
    ///
    /// # Panics
    /// When a rule was broken.
    #[allow(clippy::panic, reason = "an assertion helper for tests")]
    pub fn assert_passed(&self) {
        if !self.passed() {
            panic!("{self}");
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (rule, outcome) in &self.outcomes {
            match outcome {
                Outcome::Passed => writeln!(f, "passed  {}", rule.name)?,
                Outcome::Failed(v) => writeln!(f, "FAILED  {v}")?,
                Outcome::Allowed { violation, reason } => writeln!(
                    f,
                    "allowed {}: {} (allowed: {reason})",
                    rule.name, violation.detail
                )?,
                Outcome::Skipped(why) => writeln!(f, "skipped {}: {why}", rule.name)?,
            }
        }
        Ok(())
    }
}

/// The rules a [`run`] found broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KitFailure(pub Vec<Violation>);

impl fmt::Display for KitFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} transport contract rule(s) broken", self.0.len())?;
        for v in &self.0 {
            write!(f, "\n- {v}")?;
        }
        Ok(())
    }
}

impl Error for KitFailure {}

/// A run of the kit with the differences a transport declares.
#[derive(Debug, Clone, Default)]
pub struct Kit {
    allowed: Vec<(&'static str, String)>,
}

impl Kit {
    /// A kit that allows nothing.
    pub fn new() -> Self {
        Kit::default()
    }

    /// Declares that this transport breaks `rule` by design, for `reason`
    /// (said in the report).
    pub fn allow(mut self, rule: Rule, reason: impl Into<String>) -> Self {
        self.allowed.push((rule.name, reason.into()));
        self
    }

    /// Runs every check against `harness`, each on a connection of its own.
    pub async fn run<H: Harness>(&self, harness: &H) -> Report {
        let mut outcomes = Vec::with_capacity(Rule::ALL.len());
        for rule in Rule::ALL {
            let result = match rule.name {
                "answered-by-id" => check_answered_by_id(harness).await,
                "notification-reaches-events" => check_notification_reaches_events(harness).await,
                "server-request-answered-once" => check_server_request_answered_once(harness).await,
                "timeout-sends-cancelled" => check_timeout_sends_cancelled(harness).await,
                "dropped-request-cancels" => check_dropped_request_cancels(harness).await,
                "close-rejects-pending" => check_close_rejects_pending(harness).await,
                "peer-gone-fails-pending" => check_peer_gone_fails_pending(harness).await,
                "malformed-frame-isolated" => check_malformed_frame_isolated(harness).await,
                "oversized-frame-isolated" => match harness.frame_limit() {
                    Some(_) => check_oversized_frame_isolated(harness).await,
                    None => {
                        outcomes.push((
                            rule,
                            Outcome::Skipped("the harness declares no frame limit".into()),
                        ));
                        continue;
                    }
                },
                "concurrent-requests" => check_concurrent_requests(harness).await,
                _ => check_wire_tap_once(harness).await,
            };
            let outcome = match result {
                Ok(()) => Outcome::Passed,
                Err(violation) => match self.allowed.iter().find(|(name, _)| *name == rule.name) {
                    Some((_, reason)) => Outcome::Allowed {
                        violation,
                        reason: reason.clone(),
                    },
                    None => Outcome::Failed(violation),
                },
            };
            tracing::debug!(rule = rule.name, ?outcome, "transport kit check done");
            outcomes.push((rule, outcome));
        }
        Report { outcomes }
    }
}

/// Runs every check against `harness`, allowing nothing: [`Kit::run`] of
/// [`Kit::new`].
pub async fn run<H: Harness>(harness: &H) -> Report {
    Kit::new().run(harness).await
}
