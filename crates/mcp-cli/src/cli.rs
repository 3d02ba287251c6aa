//! Command-line syntax (clap derive).

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use mcp_llm::Dialect;
use mcp_manager::VersionPreference;

const AFTER_HELP: &str = "\
Targets (first that applies):
  --config FILE        servers from an mcpServers JSON file (default: ./.mcp.json when it exists)
  --stdio \"CMD ARGS\"   one server started as a child process (split like a shell would)
  --url URL            one server over Streamable HTTP (--header K:V, repeatable)
  --socket PATH|HOST:PORT  one server listening on a Unix-domain socket or TCP port
                       (newline-delimited JSON-RPC, as over stdio)
  (none)               the built-in demo server `demo` (this binary re-run as `mcp serve-demo`)

Arguments of `call` and `prompt`: one JSON object, or key=value pairs. A value is parsed as
JSON when it parses (numbers, true/false, null, objects, arrays) and kept a string otherwise;
a property the tool's inputSchema types as \"string\" always stays a string.
Options (--json, --timeout, complete's --context, ...) may come anywhere, before or after the words;
after `--` every word is a word, so an argument that starts with `-` goes there:
  mcp call add a=2 b=3 --json        mcp call mytool -- -flag=1

Exit codes:
  0    success
  1    the tool ran and reported an error (isError: true)
  2    failure: usage, configuration, connection or protocol error (incl. unknown tool)
  130  interrupted (Ctrl-C); the call is cancelled and the server is sent notifications/cancelled
  143  terminated (SIGTERM), 129 hung up (SIGHUP): as Ctrl-C; the servers are shut down
  3    a remote server needs a login: the message names the `mcp login` command to run
  141  stdout was closed by the reader (e.g. `| head -1`); nothing more is printed

Examples:
  mcp tools
  mcp call echo message=hi
  mcp call add a=2 b=3
  mcp call countdown steps=10
  mcp tools --as anthropic            (the definitions a model is given; openai, openai-responses, gemini)
  mcp call --from-model openai '{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"add\",\"arguments\":\"{\\\"a\\\":2,\\\"b\\\":3}\"}}'
  mcp skills
  mcp skill pdf-processing --file references/FORMS.md
  mcp --stdio \"npx -y @modelcontextprotocol/server-everything\" tools
  mcp --url https://example.com/mcp --header \"Authorization: Bearer $TOKEN\" tools
  mcp login https://example.com/mcp      then   mcp --url https://example.com/mcp tools
  mcp login https://example.com/mcp --account work   then   mcp --url https://example.com/mcp --account work tools";

/// `mcp`: talk to Model Context Protocol servers from a terminal.
#[derive(Debug, Parser)]
// The version names the package: other programs install an `mcp` command
// too (the Python SDK's `mcp[cli]`, mcptools), and `mcp --version` tells
// which one a shell runs.
#[command(
    name = "mcp",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("CARGO_PKG_NAME"), ")"),
    about,
    after_help = AFTER_HELP
)]
pub(crate) struct Cli {
    /// An mcpServers configuration file (default: ./.mcp.json when it exists).
    #[arg(long, global = true, value_name = "FILE", conflicts_with_all = ["stdio", "url", "socket"])]
    pub config: Option<PathBuf>,

    /// Run one server as a child process over stdio, e.g. "node server.js --flag".
    #[arg(
        long,
        global = true,
        value_name = "COMMAND LINE",
        conflicts_with = "url"
    )]
    pub stdio: Option<String>,

    /// Connect to one server over Streamable HTTP.
    #[arg(long, global = true, value_name = "URL")]
    pub url: Option<String>,

    /// Connect to one server listening on a socket: the PATH of a
    /// Unix-domain socket, or HOST:PORT of a TCP listener; it speaks
    /// newline-delimited JSON-RPC, as over stdio.
    #[arg(
        long,
        global = true,
        value_name = "PATH|HOST:PORT",
        conflicts_with_all = ["stdio", "url"]
    )]
    pub socket: Option<String>,

    /// serve-demo only: listen on a socket instead of stdin/stdout, a
    /// loopback HOST:PORT (127.0.0.1:0 picks a free port) or the PATH of a
    /// Unix-domain socket to create; the first line on stdout says where.
    #[arg(long, global = true, value_name = "PATH|HOST:PORT")]
    pub listen: Option<String>,

    /// Use the deprecated HTTP+SSE transport (2024-11-05) for --url.
    #[arg(long, global = true, requires = "url")]
    pub sse: bool,

    /// The account whose stored login a remote server is reached with, and
    /// that `login`, `logout` and `auth token` are about (two accounts at
    /// one server are two logins): for --url, and over each remote entry's
    /// own `account` in a configuration. Default: the entry's `account`,
    /// else "default".
    #[arg(long, global = true, value_name = "NAME")]
    pub account: Option<String>,

    /// An HTTP header for --url, "Name: value" (repeatable).
    #[arg(
        long = "header",
        short = 'H',
        global = true,
        value_name = "K:V",
        requires = "url"
    )]
    pub headers: Vec<String>,

    /// Print results as JSON (for scripts).
    #[arg(long, global = true)]
    pub json: bool,

    /// Show the JSON-RPC traffic and client logs on stderr.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,

    /// Per-request timeout in seconds, also each server's startup timeout (a
    /// call's timeout restarts on each progress notification, up to one hour);
    /// 0 is taken as 1, more than a week as a week.
    #[arg(long, global = true, value_name = "SECS", default_value_t = 60)]
    pub timeout: u64,

    /// Never prompt, even on a terminal: decline elicitation requests, and
    /// never offer to log in to a server that needs it (also MCP_NO_INPUT=1).
    #[arg(
        long,
        global = true,
        env = "MCP_NO_INPUT",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub no_input: bool,

    /// Which protocol revisions to negotiate: auto (probe 2026-07-28, then
    /// the handshake), handshake (the handshake revisions only), or one revision
    /// (e.g. 2025-06-18, 2026-07-28). A config entry's own protocolVersion wins.
    #[arg(long, global = true, value_name = "VERSION", value_parser = parse_version_preference)]
    pub protocol_version: Option<VersionPreference>,

    /// Seconds the server/discover probe may go unanswered before initialize
    /// goes out beside it (the probe stays open; the first answer decides);
    /// default 3. A config entry's own discoverTimeout wins.
    #[arg(long, global = true, value_name = "SECS")]
    pub discover_timeout: Option<f64>,

    /// Where logins are stored: auto (the OS keychain when this mcp was
    /// built with it and one answers, else files), keychain, or file.
    /// Default: MCP_CREDENTIAL_STORE, else the configuration's
    /// credentialStore, else auto.
    #[arg(
        long,
        global = true,
        value_name = "STORE",
        env = "MCP_CREDENTIAL_STORE",
        value_parser = ["auto", "keychain", "file"]
    )]
    pub credential_store: Option<String>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Each server: status, protocol revision, counts of tools/resources/prompts.
    Servers,
    /// List the tools (of SERVER, or of every server).
    Tools {
        /// Only this server.
        server: Option<String>,
        /// Print the tool definitions a model is given, as JSON, in the API's
        /// dialect: openai, openai-responses, anthropic or gemini (renamed and
        /// left-out tools are listed on stderr).
        #[arg(long = "as", value_name = "DIALECT", value_parser = parse_dialect)]
        as_dialect: Option<Dialect>,
        /// With --as openai or openai-responses: strict mode for every tool
        /// that has a strict form.
        #[arg(long, requires = "as_dialect")]
        strict: bool,
    },
    /// Call a tool: `call [SERVER] TOOL [JSON | key=value ...]`.
    #[command(
        override_usage = "mcp call [OPTIONS] [SERVER] <TOOL> [JSON | key=value ...] [-- ARGS...]\n       \
                          mcp call --from-model DIALECT [--strict] ['CALL-JSON' | -]"
    )]
    Call {
        /// The words: an optional server, the tool, its arguments.
        #[arg(help = "[SERVER] TOOL [JSON | key=value ...]; words after `--` are never options.")]
        #[arg(required_unless_present = "from_model", num_args = 1.., value_name = "WORDS")]
        words: Vec<String>,
        /// Carry out a model's tool call given in this dialect's JSON (openai,
        /// openai-responses, anthropic, gemini), as one argument or on stdin, and
        /// print the tool result in that dialect. Names are those `mcp tools
        /// --as DIALECT` prints.
        #[arg(long = "from-model", value_name = "DIALECT", value_parser = parse_dialect)]
        from_model: Option<Dialect>,
        /// With --from-model: the definitions were strict (`mcp tools --as ... --strict`).
        #[arg(long, requires = "from_model")]
        strict: bool,
    },
    /// List the resources and resource templates.
    Resources {
        /// Only this server.
        server: Option<String>,
    },
    /// Read a resource: `read [SERVER] URI`.
    #[command(override_usage = "mcp read [OPTIONS] [SERVER] <URI>")]
    Read {
        /// The words: an optional server, the resource URI.
        #[arg(help = "[SERVER] URI")]
        #[arg(required = true, num_args = 1.., value_name = "WORDS")]
        words: Vec<String>,
    },
    /// List the prompts.
    Prompts {
        /// Only this server.
        server: Option<String>,
    },
    /// Get a prompt: `prompt [SERVER] NAME [key=value ...]`.
    #[command(override_usage = "mcp prompt [OPTIONS] [SERVER] <NAME> [key=value ...]")]
    Prompt {
        /// The words: an optional server, the prompt name, its arguments.
        #[arg(help = "[SERVER] NAME [key=value ...]")]
        #[arg(required = true, num_args = 1.., value_name = "WORDS")]
        words: Vec<String>,
    },
    /// Complete an argument: `complete [SERVER] prompt NAME ARG VALUE` or
    /// `complete [SERVER] resource URI-TEMPLATE ARG VALUE` (`--context K=V`:
    /// arguments already given).
    #[command(
        override_usage = "mcp complete [OPTIONS] [SERVER] <prompt|resource> <REF> <ARG> <VALUE> [--context K=V ...]"
    )]
    Complete {
        /// The words: an optional server, the reference kind and name, the argument and its partial value.
        #[arg(
            help = "[SERVER] prompt|resource REF ARG VALUE (a VALUE starting with `-` goes after `--`)"
        )]
        #[arg(required = true, num_args = 1.., value_name = "WORDS")]
        words: Vec<String>,
        /// Already-chosen arguments, key=value (repeatable).
        #[arg(long = "context", value_name = "K=V")]
        context: Vec<String>,
    },
    /// List the skills (extension io.modelcontextprotocol/skills) of SERVER, or
    /// of every server; reads no skill file.
    Skills {
        /// Only this server.
        server: Option<String>,
    },
    /// Print a skill's SKILL.md, verified against its listed size, digest and
    /// frontmatter: `skill [SERVER] NAME [--file PATH]` (NAME: the skill's name or
    /// the URI of its SKILL.md).
    #[command(override_usage = "mcp skill [OPTIONS] [SERVER] <NAME> [--file PATH]")]
    Skill {
        /// The words: an optional server, the skill's name or URI.
        #[arg(help = "[SERVER] NAME (a skill's name, or the URI of its SKILL.md)")]
        #[arg(required = true, num_args = 1.., value_name = "WORDS")]
        words: Vec<String>,
        /// Print this file of the skill instead (a path relative to the skill, or
        /// its URI), read after SKILL.md verified and verified itself.
        #[arg(long, value_name = "PATH")]
        file: Option<String>,
    },
    /// Ping every server (or SERVER).
    Ping {
        /// Only this server.
        server: Option<String>,
    },
    /// Log in to a remote server (OAuth): `login SERVER|URL`. The browser
    /// opens on the authorization page (the URL is printed too); over SSH,
    /// paste the URL the browser ended on, or the code.
    #[command(
        override_usage = "mcp login [OPTIONS] <SERVER|URL>  (--device: a code entered on another device)"
    )]
    Login(LoginArgs),
    /// Forget the stored login of SERVER (or of every server with --all),
    /// revoking its tokens first with --revoke (RFC 7009, when offered).
    #[command(override_usage = "mcp logout [OPTIONS] <SERVER|URL|--all>")]
    Logout(LogoutArgs),
    /// Stored logins and discovery: `auth status [SERVER]`, `auth inspect
    /// URL`, `auth token SERVER`.
    Auth {
        /// What to do.
        #[command(subcommand)]
        command: AuthCommand,
    },
    /// An interactive explorer of the servers in the terminal: their
    /// status and capabilities, tools (a call form from the schema),
    /// resources, prompts, the JSON-RPC traffic and log messages.
    Ui,
    /// List the tasks (2025-11-25 tasks) of SERVER, or of every server.
    Tasks {
        /// Only this server.
        server: Option<String>,
    },
    /// A task: `task [SERVER] get|result|cancel ID` (`result` waits for
    /// the outcome as long as the task runs).
    #[command(override_usage = "mcp task [OPTIONS] [SERVER] <get|result|cancel> <ID>")]
    Task {
        /// The words: an optional server, the action, the task id.
        #[arg(help = "[SERVER] get|result|cancel ID")]
        #[arg(required = true, num_args = 1.., value_name = "WORDS")]
        words: Vec<String>,
    },
    /// Follow the servers' log messages (notifications/message), one line
    /// each, until Ctrl-C; --level sets the level first (logging/setLevel).
    Log {
        /// Only this server.
        server: Option<String>,
        /// debug, info, notice, warning, error, critical, alert or emergency.
        #[arg(long, value_name = "LEVEL")]
        level: Option<String>,
    },
    /// Follow resource updates of URIs and list changes, one line each,
    /// until Ctrl-C: `watch [SERVER] [URI ...]` (subscriptions/listen on
    /// 2026-07-28, resources/subscribe before).
    #[command(override_usage = "mcp watch [OPTIONS] [SERVER] [URI ...]")]
    Watch {
        /// The words: an optional server, the URIs.
        #[arg(help = "[SERVER] [URI ...]", value_name = "WORDS")]
        words: Vec<String>,
    },
    /// The connection checklist of SERVER or URL, each step with its verdict
    /// and time (name resolution, TCP, TLS and HTTP, the handshake,
    /// authorization discovery, the stored login), ending with the first
    /// failing step and what to do about it.
    #[command(override_usage = "mcp doctor [OPTIONS] [SERVER|URL]")]
    Doctor {
        /// A server of the configuration, or a URL (default: the one server
        /// of --url, --stdio or the configuration).
        target: Option<String>,
    },
    /// Run the built-in demo server on stdin/stdout (what the CLI starts when
    /// no target is given), or with --listen on a socket, one client per
    /// connection, until stopped.
    ServeDemo,
}

/// How long a login waits for the browser by default: 300 s.
pub(crate) const DEFAULT_LOGIN_TIMEOUT_SECS: u64 = 300;

/// `mcp login`.
#[derive(Debug, clap::Args)]
pub(crate) struct LoginArgs {
    /// A server of the configuration, or a server URL (default: --url).
    /// The login is stored under --account.
    pub server: Option<String>,
    /// Ask for this scope too (repeatable), besides what the server asks
    /// for and what earlier logins and step-ups asked for.
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scopes: Vec<String>,
    /// Do not open a browser: print the URL only (and accept a paste).
    #[arg(long)]
    pub no_browser: bool,
    /// Log in with a code entered on another device (RFC 8628 device
    /// authorization), when the authorization server offers it.
    #[arg(long, conflicts_with_all = ["no_browser", "callback_port"])]
    pub device: bool,
    /// The loopback callback port (a pre-registered redirect URI
    /// http://localhost:PORT/callback; default: the entry's callbackPort,
    /// else any free port on 127.0.0.1).
    #[arg(long, value_name = "PORT")]
    pub callback_port: Option<u16>,
    /// A pre-registered client id (default: the entry's, else one is
    /// registered).
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// The environment variable holding the client's secret.
    #[arg(long, value_name = "VAR", requires = "client_id")]
    pub client_secret_env: Option<String>,
    /// Read the authorization server's metadata from this URL instead of
    /// discovering it (default: the entry's authServerMetadataUrl).
    #[arg(long, value_name = "URL")]
    pub auth_server_metadata_url: Option<String>,
    /// Seconds to wait for the browser (default 300).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_LOGIN_TIMEOUT_SECS)]
    pub login_timeout: u64,
}

/// `mcp logout`.
#[derive(Debug, clap::Args)]
pub(crate) struct LogoutArgs {
    /// A server of the configuration, or a server URL (default: --url).
    #[arg(conflicts_with = "all")]
    pub server: Option<String>,
    /// Every stored login.
    #[arg(long)]
    pub all: bool,
    /// Revoke the tokens at the authorization server first (RFC 7009).
    #[arg(long)]
    pub revoke: bool,
}

/// `mcp auth …`.
#[derive(Debug, Subcommand)]
pub(crate) enum AuthCommand {
    /// The stored logins (of SERVER, or all): issuer, account, scopes,
    /// expiry. Never a secret.
    Status {
        /// A server of the configuration, or a server URL.
        server: Option<String>,
    },
    /// Every discovery URL of URL's server, with its status and verdict.
    Inspect {
        /// The MCP server's URL.
        url: String,
    },
    /// Print a valid access token of SERVER (refreshed first when needed),
    /// for scripts. Refuses a terminal without --show.
    Token {
        /// A server of the configuration, or a server URL (default: --url).
        server: Option<String>,
        /// Print it even to a terminal.
        #[arg(long)]
        show: bool,
    },
}

fn parse_version_preference(s: &str) -> Result<VersionPreference, String> {
    s.parse()
}

fn parse_dialect(s: &str) -> Result<Dialect, String> {
    s.parse()
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// `mcp --version` names the package, so a user with several programs
    /// called `mcp` can tell ours.
    #[test]
    fn the_version_names_the_package() {
        let v = super::Cli::command().render_version();
        assert_eq!(
            v.trim(),
            format!("mcp {} (mcpio-cli)", env!("CARGO_PKG_VERSION"))
        );
    }
}
