//! Client configuration: identity, declared capabilities, handler, timeouts,
//! capability strictness and protocol version preference.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use mcp_transport::RequestOptions;
use mcp_types::Implementation;
use mcp_types::ProtocolVersion;
use mcp_types::lifecycle::{
    ClientCapabilities, ElicitationCapability, RootsCapability, SamplingCapability,
};
use serde_json::{Map, Value};

use crate::handler::{ClientHandler, NoopHandler};

/// Default timeout of the `initialize` request: 30 000 ms.
pub const DEFAULT_INITIALIZE_TIMEOUT: Duration = Duration::from_millis(30_000);

/// Default time the `server/discover` probe may go unanswered before
/// `initialize` is sent beside it (spec 2026-07-28 `basic/transports/stdio`
/// § Backward Compatibility: "a reasonable timeout"): 3 000 ms. The probe
/// is not abandoned then; see [`ClientOptions::discover_timeout`].
pub const DEFAULT_DISCOVER_TIMEOUT: Duration = Duration::from_millis(3_000);

/// Default cap on pages a `list_all_*` method fetches: 1 000 pages.
pub const DEFAULT_MAX_PAGES: usize = 1_000;

/// The most rounds a 2026-07-28 multi round-trip request may take
/// (`resultType: "input_required"` answered and retried) before the client
/// gives up: 8.
pub const DEFAULT_MAX_INPUT_ROUNDS: usize = 8;

/// Default debounce of the automatic tool-list refresh after
/// `notifications/tools/list_changed`: 200 ms.
pub const DEFAULT_REFRESH_DEBOUNCE: Duration = Duration::from_millis(200);

/// Which protocol revisions the client tries, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum VersionPreference {
    /// Either kind of revision (spec 2026-07-28 `basic/versioning` §
    /// Backward Compatibility): probe with `server/discover` (2026-07-28)
    /// first; a `DiscoverResult` or an error only a stateless server sends
    /// (`-32020`, `-32021`, `-32022`) keeps the stateless revision, any
    /// other error falls back to `initialize` with 2025-11-25 (accepting any
    /// older revision the server chooses). With no answer within
    /// [`ClientOptions::discover_timeout`], `initialize` goes out beside the
    /// open probe and the first answer decides; `initialize` refused with
    /// `-32022` means a stateless server.
    #[default]
    Auto,
    /// A handshake revision only: `initialize` with 2025-11-25, accepting
    /// any older supported revision the server answers with. No probe.
    Handshake,
    /// Exactly this revision: `initialize` with it for a handshake revision
    /// (the server must answer with the same), or `server/discover` without
    /// fallback for a stateless one.
    Only(ProtocolVersion),
}

impl std::str::FromStr for VersionPreference {
    type Err = String;

    /// `"auto"`, `"handshake"` ([`VersionPreference::Handshake`]),
    /// or a revision (`"2025-06-18"`, `"2026-07-28"`: [`VersionPreference::Only`]).
    /// The error names the accepted values.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(VersionPreference::Auto),
            "handshake" => Ok(VersionPreference::Handshake),
            _ => ProtocolVersion::parse(s)
                .map(VersionPreference::Only)
                .ok_or_else(|| {
                    let revisions: Vec<_> =
                        ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
                    format!(
                        "unknown protocol version {s:?}: expected auto, handshake or one of {}",
                        revisions.join(", ")
                    )
                }),
        }
    }
}

/// The modes of elicitation a client declares (spec 2025-11-25
/// `client/elicitation` § Capabilities): form mode (the server asks for
/// structured data, described by a schema, shown in the client) and URL
/// mode (the server sends the user to a URL, for what must not pass through
/// the client). Pass to [`ClientOptions::with_elicitation`].
///
/// ```
/// use mcp_client::ElicitationModes;
/// let both = ElicitationModes::form().with_url(true);
/// assert_eq!(both, ElicitationModes::form_and_url());
/// assert!(ElicitationModes::url().url && !ElicitationModes::url().form);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ElicitationModes {
    /// Form mode (`elicitation.form`).
    pub form: bool,
    /// URL mode (`elicitation.url`; from 2025-11-25).
    pub url: bool,
}

impl ElicitationModes {
    /// Form mode only.
    pub const fn form() -> Self {
        ElicitationModes {
            form: true,
            url: false,
        }
    }

    /// URL mode only.
    pub const fn url() -> Self {
        ElicitationModes {
            form: false,
            url: true,
        }
    }

    /// Form and URL modes.
    pub const fn form_and_url() -> Self {
        ElicitationModes {
            form: true,
            url: true,
        }
    }

    /// These modes with form mode on or off.
    pub const fn with_form(mut self, on: bool) -> Self {
        self.form = on;
        self
    }

    /// These modes with URL mode on or off.
    pub const fn with_url(mut self, on: bool) -> Self {
        self.url = on;
        self
    }
}

/// How a [`crate::Client`] is set up. Build with [`ClientOptions::new`] and
/// the `with_*` methods.
///
/// ```
/// use std::time::Duration;
/// use mcp_client::{ClientOptions, VersionPreference};
/// let opts = ClientOptions::new("my-host", "1.0.0")
///     .with_title("My Host")
///     .with_roots(true)
///     .with_request_timeout(Duration::from_secs(10))
///     .with_version_preference(VersionPreference::Handshake);
/// assert!(opts.capabilities().roots.is_some());
/// assert!(opts.capabilities().sampling.is_none());
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct ClientOptions {
    /// `clientInfo` (name, version, title, …).
    pub client_info: Implementation,
    /// Answers server requests and receives notifications. Default: a
    /// handler that answers nothing but `ping`.
    pub handler: Arc<dyn ClientHandler>,
    /// Declared `roots` capability; `roots/list` reaches the handler only when set.
    pub roots: Option<RootsCapability>,
    /// Declared `sampling` capability; `sampling/createMessage` reaches the
    /// handler only when set (and `tools` in sampling only with `sampling.tools`).
    pub sampling: Option<SamplingCapability>,
    /// Declared `elicitation` capability (`form` and/or `url` modes).
    pub elicitation: Option<ElicitationCapability>,
    /// Declared `experimental` capabilities.
    pub experimental: Option<Map<String, Value>>,
    /// Declared extensions (`capabilities.extensions`: extension id →
    /// settings, `{}` for none), e.g.
    /// [`mcp_types::skills::SKILLS_EXTENSION`] for a host that uses skills.
    pub extensions: Option<Map<String, Value>>,
    /// The timeout of every request whose [`RequestOptions`] inherit it
    /// ([`mcp_transport::RequestTimeout::Inherit`], the default); default
    /// 30 000 ms.
    pub request_timeout: Duration,
    /// Timeout of `initialize` (default [`DEFAULT_INITIALIZE_TIMEOUT`]).
    pub initialize_timeout: Duration,
    /// How long the `server/discover` probe may go unanswered before
    /// `initialize` goes out too (default [`DEFAULT_DISCOVER_TIMEOUT`]). The
    /// probe itself stays open until `initialize_timeout`: whichever the
    /// server answers first decides the kind of revision, so a slow stateless server is not
    /// taken for a handshake-revision one; this only bounds how long one that
    /// ignores the probe waits for its handshake.
    pub discover_timeout: Duration,
    /// When `true` (default), a method whose server capability is missing
    /// fails with [`crate::ClientError::CapabilityNotSupported`] without a
    /// round trip; when `false` it is sent anyway.
    pub strict_capabilities: bool,
    /// Which revisions to negotiate (default [`VersionPreference::Auto`]).
    pub version: VersionPreference,
    /// Page cap for `list_all_*` (default [`DEFAULT_MAX_PAGES`]).
    pub max_pages: usize,
    /// Refresh the cached tool list after `notifications/tools/list_changed`
    /// (debounced by [`DEFAULT_REFRESH_DEBOUNCE`]; only when the server
    /// declared `tools.listChanged`). Default `false`.
    pub auto_refresh_tools: bool,
    /// Rounds of a 2026-07-28 multi round-trip request (input requests
    /// answered through the handler, then the request retried) before the
    /// client gives up with [`crate::ClientError::ServerMisbehaved`]
    /// ([`crate::error::ServerFault::TooManyInputRounds`]; default
    /// [`DEFAULT_MAX_INPUT_ROUNDS`]). Each round has its own timeout.
    pub max_input_rounds: usize,
    /// Check `tools/call` arguments against the tool's `inputSchema` before
    /// sending, for every call whose [`CallOptions::validate_arguments`] is
    /// on too (default `true`; only with the `schema-validation` feature).
    /// `false` turns the check off for the whole client.
    pub validate_arguments: bool,
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientOptions")
            .field("client_info", &self.client_info)
            .field("capabilities", &self.capabilities())
            .field("request_timeout", &self.request_timeout)
            .field("initialize_timeout", &self.initialize_timeout)
            .field("discover_timeout", &self.discover_timeout)
            .field("strict_capabilities", &self.strict_capabilities)
            .field("version", &self.version)
            .field("max_pages", &self.max_pages)
            .field("auto_refresh_tools", &self.auto_refresh_tools)
            .field("max_input_rounds", &self.max_input_rounds)
            .field("validate_arguments", &self.validate_arguments)
            .finish_non_exhaustive()
    }
}

impl ClientOptions {
    /// Options for a client called `name` at `version`, with no optional
    /// capabilities, a 30 000 ms request timeout and strict capabilities.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ClientOptions {
            client_info: Implementation::new(name, version),
            handler: Arc::new(NoopHandler),
            roots: None,
            sampling: None,
            elicitation: None,
            experimental: None,
            extensions: None,
            request_timeout: mcp_transport::DEFAULT_REQUEST_TIMEOUT,
            initialize_timeout: DEFAULT_INITIALIZE_TIMEOUT,
            discover_timeout: DEFAULT_DISCOVER_TIMEOUT,
            strict_capabilities: true,
            version: VersionPreference::Auto,
            max_pages: DEFAULT_MAX_PAGES,
            auto_refresh_tools: false,
            max_input_rounds: DEFAULT_MAX_INPUT_ROUNDS,
            validate_arguments: true,
        }
    }

    /// Sets `clientInfo.title`.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.client_info.title = Some(title.into());
        self
    }

    /// Sets the handler of server requests and notifications.
    pub fn with_handler(mut self, handler: Arc<dyn ClientHandler>) -> Self {
        self.handler = handler;
        self
    }

    /// Declares `roots` (answered by [`ClientHandler::list_roots`]);
    /// `list_changed`: the client will send `notifications/roots/list_changed`.
    pub fn with_roots(mut self, list_changed: bool) -> Self {
        self.roots = Some(RootsCapability {
            list_changed: list_changed.then_some(true),
            ..Default::default()
        });
        self
    }

    /// Declares `sampling` (answered by [`ClientHandler::create_message`]);
    /// `tools`: tool use in sampling is supported (2025-11-25).
    pub fn with_sampling(mut self, tools: bool) -> Self {
        self.sampling = Some(SamplingCapability {
            tools: tools.then(Map::new),
            ..Default::default()
        });
        self
    }

    /// Declares `elicitation` with the given modes (answered by
    /// [`ClientHandler::elicit`]; spec `client/elicitation` § Capabilities):
    /// `ElicitationModes::form()` is sent as `{"form": {}}` (2025-06-18,
    /// which has no modes, gets `{}`, meaning the same). Modes with neither
    /// form nor URL declare no elicitation.
    ///
    /// ```
    /// use mcp_client::{ClientOptions, ElicitationModes};
    /// let opts = ClientOptions::new("my-host", "1.0.0").with_elicitation(ElicitationModes::form());
    /// let declared = opts.capabilities().elicitation.unwrap();
    /// assert!(declared.supports_form() && !declared.supports_url());
    /// ```
    pub fn with_elicitation(mut self, modes: ElicitationModes) -> Self {
        self.elicitation = (modes.form || modes.url).then(|| ElicitationCapability {
            form: modes.form.then(Map::new),
            url: modes.url.then(Map::new),
            ..Default::default()
        });
        self
    }

    /// Declares the extension `id` with its `settings` (`json!({})` for
    /// none) under `capabilities.extensions` (spec 2026-07-28
    /// `basic/lifecycle` § Extension Negotiation). It is declared in every
    /// revision: handshake-revision servers that implement an extension read it
    /// there too, and others ignore a member they do not know.
    ///
    /// ```
    /// use mcp_client::ClientOptions;
    /// use mcp_types::skills::SKILLS_EXTENSION;
    /// let opts = ClientOptions::new("my-host", "1.0.0")
    ///     .with_extension(SKILLS_EXTENSION, serde_json::json!({}));
    /// assert!(opts.capabilities().extensions.unwrap().contains_key(SKILLS_EXTENSION));
    /// ```
    pub fn with_extension(mut self, id: impl Into<String>, settings: Value) -> Self {
        self.extensions
            .get_or_insert_with(Map::new)
            .insert(id.into(), settings);
        self
    }

    /// Sets the default per-request timeout.
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets the `initialize` timeout.
    pub fn with_initialize_timeout(mut self, timeout: Duration) -> Self {
        self.initialize_timeout = timeout;
        self
    }

    /// Sets the `server/discover` probe timeout.
    pub fn with_discover_timeout(mut self, timeout: Duration) -> Self {
        self.discover_timeout = timeout;
        self
    }

    /// Sets [`ClientOptions::strict_capabilities`].
    pub fn with_strict_capabilities(mut self, strict: bool) -> Self {
        self.strict_capabilities = strict;
        self
    }

    /// Sets the version preference.
    pub fn with_version_preference(mut self, version: VersionPreference) -> Self {
        self.version = version;
        self
    }

    /// Sets the page cap of `list_all_*`.
    pub fn with_max_pages(mut self, pages: usize) -> Self {
        self.max_pages = pages.max(1);
        self
    }

    /// Turns on the automatic tool-list refresh.
    pub fn with_auto_refresh_tools(mut self, on: bool) -> Self {
        self.auto_refresh_tools = on;
        self
    }

    /// Sets [`ClientOptions::validate_arguments`]: `false` sends every
    /// call's arguments unchecked.
    pub fn with_validate_arguments(mut self, on: bool) -> Self {
        self.validate_arguments = on;
        self
    }

    /// Sets [`ClientOptions::max_input_rounds`].
    pub fn with_max_input_rounds(mut self, rounds: usize) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// The `ClientCapabilities` this configuration declares.
    pub fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities {
            experimental: self.experimental.clone(),
            roots: self.roots.clone(),
            sampling: self.sampling.clone(),
            elicitation: self.elicitation.clone(),
            extensions: self.extensions.clone(),
            ..Default::default()
        }
    }

    /// The capabilities as declared to a server speaking `version`: members
    /// the revision does not know are left out (elicitation before
    /// 2025-06-18; elicitation modes and `sampling.tools` before 2025-11-25;
    /// `roots.listChanged` in 2026-07-28).
    pub fn capabilities_for(&self, version: ProtocolVersion) -> ClientCapabilities {
        let mut caps = self.capabilities();
        if !version.has_elicitation() {
            caps.elicitation = None;
        } else if version < ProtocolVersion::V2025_11_25 {
            // 2025-06-18: `{}` means form mode; URL mode does not exist.
            caps.elicitation = caps
                .elicitation
                .filter(|e| e.supports_form())
                .map(|_| ElicitationCapability::default());
        }
        if version < ProtocolVersion::V2025_11_25
            && let Some(s) = caps.sampling.as_mut()
        {
            s.tools = None;
            s.context = None;
        }
        if version.is_stateless()
            && let Some(r) = caps.roots.as_mut()
        {
            r.list_changed = None;
        }
        caps
    }
}

/// Options of one `tools/call` ([`crate::Client::call_tool`]): the
/// [`RequestOptions`] every request method takes, and what only a tool call
/// has, the schema checks, both on by default. Schemas are enforced only
/// with the `schema-validation` feature (on by default).
///
/// [`crate::Client::call_tool`] takes anything that converts into it, so a
/// plain [`RequestOptions`] does when the checks keep their defaults.
///
/// ```
/// use std::time::Duration;
/// use mcp_client::{CallOptions, RequestOptions};
/// let opts = CallOptions::from(
///     RequestOptions::default()
///         .with_timeout(Duration::from_secs(60))
///         .with_progress(|p| eprintln!("{}", p.progress)),
/// )
/// .with_validate_arguments(false);
/// assert!(opts.request.progress.is_some());
/// assert!(!opts.validate_arguments && opts.validate_output);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CallOptions {
    /// Timeout, cancellation, progress, as for every request. The default
    /// keeps the client's [`ClientOptions::request_timeout`].
    pub request: RequestOptions,
    /// Check `arguments` against the tool's `inputSchema` before sending
    /// (default `true`; also needs [`ClientOptions::validate_arguments`]).
    /// Arguments that do not match are refused with
    /// [`crate::ClientError::InvalidArguments`], naming each violation's
    /// path, and nothing is sent. The schema is the one of the current
    /// tool listing ([`crate::Client::list_all_tools`]; `tools/list` is not
    /// sent for it): when no current listing has the tool, or its schema
    /// does not compile (logged at warn, once per listing), the arguments
    /// are sent unchecked (logged at debug).
    pub validate_arguments: bool,
    /// Validate `structuredContent` against the tool's `outputSchema` when
    /// that schema is known from an earlier `tools/list`. Default `true`.
    pub validate_output: bool,
}

impl Default for CallOptions {
    fn default() -> Self {
        CallOptions::from(RequestOptions::default())
    }
}

impl From<RequestOptions> for CallOptions {
    /// `request` with the default checks (arguments and output validated).
    fn from(request: RequestOptions) -> Self {
        CallOptions {
            request,
            validate_arguments: true,
            validate_output: true,
        }
    }
}

impl CallOptions {
    /// Sets [`CallOptions::request`].
    pub fn with_request(mut self, request: RequestOptions) -> Self {
        self.request = request;
        self
    }

    /// Sets [`CallOptions::validate_arguments`].
    pub fn with_validate_arguments(mut self, on: bool) -> Self {
        self.validate_arguments = on;
        self
    }

    /// Sets [`CallOptions::validate_output`].
    pub fn with_validate_output(mut self, on: bool) -> Self {
        self.validate_output = on;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each combination of modes declares what it names, as the spec
    /// writes it (2025-11-25 `client/elicitation` § Capabilities); neither
    /// declares no elicitation at all (`{}` would mean form mode).
    #[test]
    fn elicitation_modes_declare_what_they_name() {
        let declared = |modes: ElicitationModes| {
            ClientOptions::new("t", "1")
                .with_elicitation(modes)
                .capabilities()
                .elicitation
                .map(|e| serde_json::to_value(e).unwrap_or_default())
        };
        assert_eq!(
            declared(ElicitationModes::form()),
            Some(serde_json::json!({"form": {}}))
        );
        assert_eq!(
            declared(ElicitationModes::url()),
            Some(serde_json::json!({"url": {}}))
        );
        assert_eq!(
            declared(ElicitationModes::form_and_url()),
            Some(serde_json::json!({"form": {}, "url": {}}))
        );
        assert_eq!(declared(ElicitationModes::default()), None);
        assert_eq!(declared(ElicitationModes::form().with_form(false)), None);
    }
}
