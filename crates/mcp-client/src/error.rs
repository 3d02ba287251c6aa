//! The client error type.
//!
//! One enum, each variant a fact; ask it questions
//! ([`is_timeout`](ClientError::is_timeout), [`server_error`](ClientError::server_error), …)
//! instead of matching strings. A JSON-RPC error the server answered with is
//! [`ClientError::Server`] (never hidden inside [`ClientError::Transport`]),
//! or, when it says the server could not send a server-initiated request in
//! the negotiated revision, [`ClientError::ServerRequestNotInRevision`];
//! [`ClientError::server_error`] gives it for both.
//!
//! Whose doing an error is can be told by its variant: the caller's or the
//! client's own state ([`ClientError::NotInitialized`],
//! [`ClientError::ArgumentsNotAnObject`], [`ClientError::InvalidArguments`],
//! …, nothing sent), the server's ([`ClientError::Server`] when it said so,
//! [`ClientError::ServerMisbehaved`] when it broke a rule), or neither: an
//! incompatibility ([`ClientError::VersionMismatch`],
//! [`ClientError::MethodNotInRevision`],
//! [`ClientError::CapabilityNotSupported`], [`ClientError::Incompatible`]).
//! [`ClientError::Protocol`] is the catch-all for the rest.
//!
//! `Display` describes this level only (what the client was doing); the
//! cause (the serde error, the transport's error) is the
//! [`source`](std::error::Error::source) and is never repeated in the text,
//! so a printer that walks the chain shows each level once.
//! [`ClientError::Transport`] is a pure wrapper: it displays as the
//! transport error it holds. [`ClientError::Server`] is the other way
//! round: the server's code and message are its reason, so its `Display`
//! shows them (the message cut to [`MAX_SERVER_MESSAGE_CHARS`] characters,
//! control characters escaped: a hostile server cannot act on a terminal
//! through it) and it has no `source`; the whole error object is
//! [`ClientError::server_error`].

use std::sync::Arc;

use mcp_transport::TransportError;
use mcp_types::{ErrorCode, JsonRpcError, ProtocolVersion};

use crate::client::skills::mismatch::SkillMismatch;
use crate::server_requests::SERVER_REQUESTS;

/// An error from [`crate::Client`].
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The transport failed: timeout, cancellation, closed connection, HTTP
    /// status, I/O, a malformed message. Never a JSON-RPC error response (see
    /// [`ClientError::Server`]).
    #[error(transparent)]
    Transport(TransportError),

    /// The server answered request `method` with a JSON-RPC error object
    /// (spec `basic/index` § Responses). Displays as `server answered
    /// <method> with an error: MCP error <code>: <message>` (the message
    /// bounded and escaped, see the module docs).
    #[error("server answered {method} with an error: {}", shown_server_error(.error))]
    #[non_exhaustive]
    Server {
        /// The method that was sent.
        method: String,
        /// The error object, as the server sent it (`data` included; only
        /// its code and message are displayed).
        error: JsonRpcError,
    },

    /// Version negotiation failed (spec `basic/lifecycle` § Version
    /// Negotiation): the server chose a revision this client does not speak,
    /// or no revision is common. The connection was closed.
    #[error("protocol version mismatch: client speaks {ours:?}, server answered {theirs:?}")]
    #[non_exhaustive]
    VersionMismatch {
        /// The revisions the client offered or accepts, newest first.
        ours: Vec<String>,
        /// What the server answered (a version, or the list it supports).
        theirs: String,
    },

    /// The server could not send the server-initiated request
    /// `server_request` (`elicitation/create`, `sampling/createMessage` or
    /// `roots/list`) while it handled `method`, because under protocol
    /// revision `version` (2026-07-28) a server sends no JSON-RPC requests:
    /// it asks for input only inside a multi round-trip result (spec
    /// 2026-07-28 `basic/patterns/mrtr`). A server written for the handshake
    /// revisions (the Python SDK's `ctx.elicit`, `ctx.session.create_message`)
    /// answers so with Invalid Request (`-32600`, "… no back-channel …");
    /// the [`crate::ClientHandler`] was never asked.
    ///
    /// What to do: connect to that server in a handshake revision
    /// ([`crate::VersionPreference::Handshake`], or
    /// [`crate::VersionPreference::Only`] with a handshake revision such as
    /// 2025-11-25), where the request reaches the handler. mcp-manager
    /// remembers this per server and connects it so from its next
    /// connection on. The server's error object is the `source` and
    /// [`ClientError::server_error`].
    #[error(
        "{method}: the server could not send {server_request} to this client: protocol revision \
         {version} has no server-initiated requests; connect to this server in a handshake revision \
         (VersionPreference::Handshake, or a handshake revision such as 2025-11-25 pinned) so that \
         its requests reach the ClientHandler"
    )]
    #[non_exhaustive]
    ServerRequestNotInRevision {
        /// The request the server was handling (`tools/call`, `prompts/get`, …).
        method: String,
        /// The server-initiated request it could not send.
        server_request: &'static str,
        /// The negotiated revision.
        version: ProtocolVersion,
        /// The server's error object, as it sent it.
        #[source]
        error: JsonRpcError,
    },

    /// The server did not declare the capability `method` needs (spec
    /// 2025-11-25 `basic/lifecycle` § Capability Negotiation); nothing was
    /// sent. Turn off [`crate::ClientOptions::strict_capabilities`] to send anyway.
    #[error("server does not declare the {capability:?} capability needed by {method}")]
    #[non_exhaustive]
    CapabilityNotSupported {
        /// The capability path, e.g. `"tools"` or `"resources.subscribe"`.
        capability: &'static str,
        /// The method that was not sent.
        method: String,
    },

    /// `method` does not exist in the negotiated revision (e.g. `ping` or
    /// `logging/setLevel` in 2026-07-28, tasks before 2025-11-25); nothing was sent.
    #[error("{method} does not exist in protocol revision {version}")]
    #[non_exhaustive]
    MethodNotInRevision {
        /// The method that was not sent.
        method: String,
        /// The negotiated revision.
        version: ProtocolVersion,
    },

    /// The `tools/call` arguments did not serialize to a JSON object (spec
    /// `server/tools`: `arguments` is an object); nothing was sent.
    #[error("arguments of tool {tool:?} are a JSON {found}, not an object")]
    #[non_exhaustive]
    ArgumentsNotAnObject {
        /// The tool name.
        tool: String,
        /// The JSON type they serialized to: `"array"`, `"string"`,
        /// `"number"` or `"boolean"`.
        found: &'static str,
    },

    /// The `tools/call` arguments do not match the tool's `inputSchema`
    /// (checked by default with the `schema-validation` feature, see
    /// [`crate::CallOptions::validate_arguments`]); nothing was sent. Each
    /// violation names where it is, so a caller (or a model) can fix the
    /// arguments and call again.
    #[error("arguments of tool {tool:?} do not match its inputSchema: {}", shown_violations(.violations))]
    #[non_exhaustive]
    InvalidArguments {
        /// The tool name.
        tool: String,
        /// Each violation (at most [`MAX_REPORTED_VIOLATIONS`]), in the
        /// order found.
        violations: Vec<SchemaViolation>,
    },

    /// The `structuredContent` of a `tools/call` result does not match the
    /// tool's `outputSchema` (or is missing though the tool declares one:
    /// one violation at the root).
    #[error("structuredContent of tool {tool:?} does not match its outputSchema: {}", shown_violations(.violations))]
    #[non_exhaustive]
    InvalidStructuredContent {
        /// The tool name.
        tool: String,
        /// Each violation (at most [`MAX_REPORTED_VIOLATIONS`]).
        violations: Vec<SchemaViolation>,
    },

    /// The result of `method` did not decode as its result type.
    #[error("cannot decode the result of {method}")]
    #[non_exhaustive]
    Decode {
        /// The method that was sent.
        method: String,
        /// The serde error.
        #[source]
        source: Arc<serde_json::Error>,
    },

    /// The params given for `method` could not be serialized.
    #[error("cannot encode the params of {method}")]
    #[non_exhaustive]
    Encode {
        /// The method.
        method: String,
        /// The serde error.
        #[source]
        source: Arc<serde_json::Error>,
    },

    /// The session was lost again right after re-initializing: the request
    /// failed with `SessionExpired` twice.
    #[error("session lost twice while sending {method}")]
    #[non_exhaustive]
    SessionLost {
        /// The method that was sent.
        method: String,
        /// The second `SessionExpired` error.
        #[source]
        source: TransportError,
    },

    /// A resource template could not be parsed or expanded (RFC 6570).
    #[error("invalid URI template {template:?}: {message}")]
    #[non_exhaustive]
    InvalidTemplate {
        /// The template.
        template: String,
        /// What is wrong.
        message: String,
    },

    /// A 2026-07-28 multi round-trip request (`resultType:
    /// "input_required"`) needed an input the [`crate::ClientHandler`]
    /// refused or could not give (e.g. sampling declined, or a capability
    /// this client did not declare). The request was abandoned (spec
    /// `basic/patterns/mrtr`: the server does not wait for a retry).
    #[error("{method}: input request {key:?} ({input_method}) was not answered")]
    #[non_exhaustive]
    InputRequest {
        /// The request that asked for input (`tools/call`, `prompts/get`, `resources/read`).
        method: String,
        /// The server-assigned key of the input request.
        key: String,
        /// The input request's method, e.g. `sampling/createMessage`.
        input_method: String,
        /// What the handler answered.
        #[source]
        error: Box<JsonRpcError>,
    },

    /// A file of a skill is not what the skill's entry describes (extension
    /// `io.modelcontextprotocol/skills` § Integrity and Verification): its
    /// size, digest or frontmatter differ, it is not listed, it cannot be
    /// read as bytes, or the entry is `"dynamic"`. The content was not used:
    /// a `SKILL.md` that fails leaves the skill unloaded, a supporting file
    /// that fails is not returned. The [`crate::SkillMismatch`]
    /// (the `source`) names the field and both values. To recover from a
    /// stale entry, fetch it again ([`crate::Client::get_skill`]).
    #[error("{}", skill_failed(.skill, .file))]
    #[non_exhaustive]
    SkillVerification {
        /// The URI of the skill's `SKILL.md`.
        skill: String,
        /// The URI of the file that failed (the skill's own for `SKILL.md`;
        /// the reference as given when it names no file of the skill).
        file: String,
        /// What differs (boxed: it is large).
        #[source]
        mismatch: Box<SkillMismatch>,
    },

    /// `method` was not sent: no protocol revision is negotiated yet. A
    /// local misuse (the client's own state), not the server's doing.
    #[error("{method} was not sent: no protocol revision is negotiated yet")]
    #[non_exhaustive]
    NotInitialized {
        /// The method that was not sent.
        method: String,
    },

    /// The server broke a rule of the protocol in its answer to `method`,
    /// or would not stop asking for input; what it did is the `source`
    /// ([`ServerFault`], also [`ClientError::server_fault`]). Nothing of
    /// the answer was used.
    #[error("the server misbehaved answering {method}")]
    #[non_exhaustive]
    ServerMisbehaved {
        /// The request the server answered.
        method: String,
        /// What it did.
        #[source]
        fault: ServerFault,
    },

    /// The server's answer to `method` needs something this client does
    /// not implement (e.g. a `resultType` of an extension it does not
    /// speak): an incompatibility, not a fault of either side. What is
    /// missing is the `source` ([`Incompatibility`], also
    /// [`ClientError::incompatibility`]).
    #[error("the server's answer to {method} needs what this client does not implement")]
    #[non_exhaustive]
    Incompatible {
        /// The request the server answered.
        method: String,
        /// What this client does not implement.
        #[source]
        incompatibility: Incompatibility,
    },

    /// A protocol error no other variant names (e.g. a negotiation that did
    /// not converge).
    #[error("protocol error in {method}: {message}")]
    #[non_exhaustive]
    Protocol {
        /// The method concerned.
        method: String,
        /// What happened.
        message: String,
    },
}

/// How a server misbehaved ([`ClientError::ServerMisbehaved`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServerFault {
    /// It answered with `resultType: "input_required"` a request that
    /// cannot take input responses (only `tools/call`, `prompts/get` and
    /// `resources/read` can; spec 2026-07-28 `basic/patterns/mrtr`).
    #[error(
        "it asked for input (resultType \"input_required\") on a method that cannot take input responses"
    )]
    InputRequiredNotAllowed,
    /// A member of its `input_required` result has the wrong JSON type.
    #[error("{member} of its input_required result is not {expected}")]
    MalformedInputRequired {
        /// `inputRequests` or `requestState`.
        member: &'static str,
        /// What it must be: `an object`, `a string`.
        expected: &'static str,
    },
    /// Its `input_required` result has neither `inputRequests` nor
    /// `requestState`.
    #[error("its input_required result has neither inputRequests nor requestState")]
    EmptyInputRequired,
    /// An input request is not an object with a string `method`.
    #[error("input request \"{}\" has no method", shown_server_text(.key))]
    MalformedInputRequest {
        /// The input request's key.
        key: String,
    },
    /// It still asked for input after `rounds` rounds, the most the client
    /// takes ([`crate::ClientOptions::max_input_rounds`]).
    #[error("it still asked for input after {rounds} rounds")]
    TooManyInputRounds {
        /// The rounds answered.
        rounds: usize,
    },
    /// It ended a `subscriptions/listen` (with its response) before
    /// acknowledging it (spec 2026-07-28 `basic/subscriptions`).
    #[error("it ended the listen before acknowledging it")]
    ListenEndedUnacknowledged,
    /// It refused the version it had just named as supported, twice, so
    /// version negotiation could not settle on one (spec:
    /// `basic/lifecycle` § Version Negotiation).
    #[error("it refused the protocol version it had named as supported, twice")]
    NegotiationDidNotConverge,
}

/// What this client does not implement ([`ClientError::Incompatible`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Incompatibility {
    /// A `resultType` other than `"complete"` and `"input_required"` (e.g.
    /// `"task"` of the tasks extension, which this client does not speak).
    #[error("result type \"{}\"", shown_server_text(.0))]
    ResultType(String),
    /// An input request of a method the client does not answer (it answers
    /// `elicitation/create`, `sampling/createMessage` and `roots/list`).
    #[error("input request \"{}\" of method \"{}\"", shown_server_text(.key), shown_server_text(.method))]
    InputRequestMethod {
        /// The input request's key.
        key: String,
        /// Its method.
        method: String,
    },
}

/// The most violations an [`ClientError::InvalidArguments`] or
/// [`ClientError::InvalidStructuredContent`] reports: 10.
pub const MAX_REPORTED_VIOLATIONS: usize = 10;

/// One way a JSON value fails a tool's JSON Schema: where, and what is
/// wrong. The message never holds the value itself (it says `value`: tool
/// arguments may be secrets); it may quote the schema (an `enum`'s members,
/// a property's name).
///
/// ```
/// use mcp_client::SchemaViolation;
/// let v = SchemaViolation::new("/zip", r#"value is not of type "string""#);
/// assert_eq!(v.to_string(), r#"/zip: value is not of type "string""#);
/// assert_eq!(SchemaViolation::new("", "x").to_string(), "(root): x");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaViolation {
    /// Where, as a JSON Pointer (RFC 6901) into the value checked: `""`
    /// for the value itself (the arguments object, `structuredContent`),
    /// `"/zip"` for its member `zip`, `"/items/0"` for an array's first
    /// element.
    pub path: String,
    /// What is wrong, e.g. `value is not of type "number"` or `"b" is a
    /// required property`.
    pub message: String,
}

impl SchemaViolation {
    /// A violation at `path` (a JSON Pointer) saying `message`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        SchemaViolation {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for SchemaViolation {
    /// `<path>: <message>`, `(root)` for the empty path; both made safe to
    /// print as a server's text is (the schema comes from the server).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        write!(
            f,
            "{}: {}",
            shown_server_text(path),
            shown_server_text(&self.message)
        )
    }
}

/// The violations joined by `; `.
fn shown_violations(violations: &[SchemaViolation]) -> String {
    violations
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The most characters of a server's error message that
/// [`ClientError`]'s `Display` shows: 200; a longer one ends in `…`.
pub const MAX_SERVER_MESSAGE_CHARS: usize = 200;

/// `MCP error <code>: <message>` with the message made safe to print (see
/// [`shown_server_text`]).
fn shown_server_error(error: &JsonRpcError) -> String {
    format!(
        "MCP error {}: {}",
        error.code,
        shown_server_text(&error.message)
    )
}

/// Text from a server as an error's `Display` shows it: at most
/// [`MAX_SERVER_MESSAGE_CHARS`] characters (then `…`), and every character
/// a terminal acts on escaped as `\u{1b}`: controls (line breaks
/// included: an error is one line), and the bidirectional overrides and
/// isolates, which would reorder what is shown.
pub(crate) fn shown_server_text(text: &str) -> String {
    let acts_on_terminal =
        |c: char| c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    let mut out = String::with_capacity(text.len().min(MAX_SERVER_MESSAGE_CHARS * 2));
    for (i, c) in text.chars().enumerate() {
        if i == MAX_SERVER_MESSAGE_CHARS {
            out.push('…');
            break;
        }
        if acts_on_terminal(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// The server-initiated request a server's error says it could not send:
/// Invalid Request naming `elicitation/create`, `sampling/createMessage` or
/// `roots/list` (what a handshake-revision server answers under 2026-07-28,
/// e.g. the Python SDK's "Cannot send 'elicitation/create': this transport
/// context has no back-channel for server-initiated requests.").
fn unsendable_server_request(error: &JsonRpcError) -> Option<&'static str> {
    if error.code != ErrorCode::INVALID_REQUEST {
        return None;
    }
    SERVER_REQUESTS
        .into_iter()
        .find(|m| error.message.contains(m))
}

/// `skill U failed verification`, or `skill U: file F failed verification`.
fn skill_failed(skill: &str, file: &str) -> String {
    if skill == file {
        format!("skill {skill} failed verification")
    } else {
        format!("skill {skill}: file {file} failed verification")
    }
}

impl ClientError {
    /// Wraps a transport error for `method`: a JSON-RPC error response
    /// becomes [`ClientError::Server`].
    pub fn from_transport(method: &str, error: TransportError) -> Self {
        match error {
            TransportError::JsonRpc(error) => ClientError::Server {
                method: method.to_owned(),
                error,
            },
            other => ClientError::Transport(other),
        }
    }

    /// This error as it reads in a session of `version`: under a revision
    /// without server-initiated requests, a server's Invalid Request that
    /// names one it tried to send is
    /// [`ClientError::ServerRequestNotInRevision`]; anything else is left
    /// as it is.
    pub(crate) fn in_revision(self, version: ProtocolVersion) -> Self {
        match self {
            ClientError::Server { method, error } if version.is_stateless() => {
                match unsendable_server_request(&error) {
                    Some(server_request) => ClientError::ServerRequestNotInRevision {
                        method,
                        server_request,
                        version,
                        error,
                    },
                    None => ClientError::Server { method, error },
                }
            }
            other => other,
        }
    }

    pub(crate) fn decode(method: &str, source: serde_json::Error) -> Self {
        ClientError::Decode {
            method: method.to_owned(),
            source: Arc::new(source),
        }
    }

    pub(crate) fn encode(method: &str, source: serde_json::Error) -> Self {
        ClientError::Encode {
            method: method.to_owned(),
            source: Arc::new(source),
        }
    }

    /// The transport error, when this is [`ClientError::Transport`] or
    /// [`ClientError::SessionLost`].
    pub fn transport_error(&self) -> Option<&TransportError> {
        match self {
            ClientError::Transport(e) | ClientError::SessionLost { source: e, .. } => Some(e),
            _ => None,
        }
    }

    /// The JSON-RPC error the server answered with, for [`ClientError::Server`]
    /// and [`ClientError::ServerRequestNotInRevision`].
    pub fn server_error(&self) -> Option<&JsonRpcError> {
        match self {
            ClientError::Server { error, .. }
            | ClientError::ServerRequestNotInRevision { error, .. } => Some(error),
            _ => None,
        }
    }

    /// `true` for [`ClientError::ServerRequestNotInRevision`]: the server
    /// could not send a server-initiated request (an elicitation, say) in
    /// the negotiated revision; connecting to it in a handshake revision
    /// lets the request reach the [`crate::ClientHandler`].
    pub fn needs_handshake_revision(&self) -> bool {
        matches!(self, ClientError::ServerRequestNotInRevision { .. })
    }

    /// The JSON-RPC error code, for [`ClientError::Server`] and
    /// [`ClientError::ServerRequestNotInRevision`].
    pub fn code(&self) -> Option<ErrorCode> {
        self.server_error().map(|e| e.code)
    }

    /// `true` when the request timed out (`notifications/cancelled` was sent).
    pub fn is_timeout(&self) -> bool {
        self.transport_error()
            .is_some_and(TransportError::is_timeout)
    }

    /// `true` when the request was cancelled by the caller.
    pub fn is_cancelled(&self) -> bool {
        self.transport_error()
            .is_some_and(TransportError::is_cancelled)
    }

    /// `true` when the connection is closed.
    pub fn is_closed(&self) -> bool {
        self.transport_error()
            .is_some_and(TransportError::is_closed)
    }

    /// `true` when the session was lost (after the one re-initialization).
    pub fn is_session_lost(&self) -> bool {
        matches!(self, ClientError::SessionLost { .. })
            || self
                .transport_error()
                .is_some_and(TransportError::is_session_expired)
    }

    /// `true` when the server answered with a JSON-RPC error:
    /// [`ClientError::Server`] and [`ClientError::ServerRequestNotInRevision`].
    pub fn is_server_error(&self) -> bool {
        self.server_error().is_some()
    }

    /// `true` when the server answered `-32601 Method not found`.
    pub fn is_method_not_found(&self) -> bool {
        self.code() == Some(ErrorCode::METHOD_NOT_FOUND)
    }

    /// `true` for a missing server capability detected locally.
    pub fn is_capability_not_supported(&self) -> bool {
        matches!(self, ClientError::CapabilityNotSupported { .. })
    }

    /// The violations, for [`ClientError::InvalidArguments`] and
    /// [`ClientError::InvalidStructuredContent`].
    pub fn schema_violations(&self) -> Option<&[SchemaViolation]> {
        match self {
            ClientError::InvalidArguments { violations, .. }
            | ClientError::InvalidStructuredContent { violations, .. } => Some(violations),
            _ => None,
        }
    }

    /// `true` for [`ClientError::SkillVerification`]: a skill's file did not
    /// match its entry and was not used.
    pub fn is_skill_verification(&self) -> bool {
        matches!(self, ClientError::SkillVerification { .. })
    }

    /// What differs, for [`ClientError::SkillVerification`].
    pub fn skill_mismatch(&self) -> Option<&SkillMismatch> {
        match self {
            ClientError::SkillVerification { mismatch, .. } => Some(mismatch.as_ref()),
            _ => None,
        }
    }

    /// How the server misbehaved, for [`ClientError::ServerMisbehaved`].
    pub fn server_fault(&self) -> Option<&ServerFault> {
        match self {
            ClientError::ServerMisbehaved { fault, .. } => Some(fault),
            _ => None,
        }
    }

    /// What this client does not implement, for [`ClientError::Incompatible`].
    pub fn incompatibility(&self) -> Option<&Incompatibility> {
        match self {
            ClientError::Incompatible {
                incompatibility, ..
            } => Some(incompatibility),
            _ => None,
        }
    }

    /// `true` for [`ClientError::VersionMismatch`].
    pub fn is_version_mismatch(&self) -> bool {
        matches!(self, ClientError::VersionMismatch { .. })
    }

    /// `true` when the server said the resource does not exist: `-32002`
    /// (≤2025-11-25) or `-32602` (2026-07-28 moved it there; spec
    /// `server/resources` § Error Handling).
    pub fn is_resource_not_found(&self) -> bool {
        matches!(
            self.code(),
            Some(ErrorCode::RESOURCE_NOT_FOUND) | Some(ErrorCode::INVALID_PARAMS)
        )
    }
}

impl From<TransportError> for ClientError {
    fn from(e: TransportError) -> Self {
        ClientError::from_transport("", e)
    }
}

#[cfg(test)]
mod tests;
