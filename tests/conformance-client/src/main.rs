//! The client that the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! drives, run by `cargo xtask conformance`.
//!
//! Invocation (by the suite): `conformance-client <server-url>` (the URL is the **last**
//! argument) with env `MCP_CONFORMANCE_SCENARIO=<scenario>`, optionally
//! `MCP_CONFORMANCE_PROTOCOL_VERSION=<revision>` (0.2 suites) and, for some scenarios,
//! `MCP_CONFORMANCE_CONTEXT=<json>`.
//!
//! This binary only **picks what to call** for a scenario; all protocol behaviour
//! (negotiation, Streamable HTTP, SSE resumption with `retry`/`Last-Event-ID`, answering
//! server requests, OAuth) is the libraries' (`mcp-client`, `mcp-transport-http`,
//! `mcp-auth`), which have no scenario special cases (skill verification included: the
//! driver only lists and loads skills and reads what a loaded skill lists). The pieces of
//! host behaviour here: a skill refused for failing verification is logged and skipped,
//! as a host tells its user and goes on; the elicitation handler (like a user who accepts a form without editing it, it answers
//! `accept` with each field's schema `default`, SEP-1034), and the OAuth host settings
//! every run gets: the redirect URI `http://localhost:3000/callback`, the suite's Client
//! ID Metadata Document URL, a pre-registered client when the context carries
//! `client_id` (and `client_secret`), and the headless user agent (the suite's
//! authorization endpoint redirects at once; nothing listens on the redirect URI).
//! When the context carries credentials for a grant without a person (a private key,
//! an ID token and its identity provider, a workload JWT, or a client secret in a
//! client-credentials scenario), that grant is configured instead (`grant_for`) and its
//! extension declared in the client's capabilities.
//!
//! Output: logs on stderr (`RUST_LOG`, default `info`), then a last stderr line
//! `conformance-client: ok` (exit 0) or `conformance-client: error: <error chain>`
//! (exit 1), which `cargo xtask conformance` reads from the suite's `stderr.txt`.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mcp_auth::{
    CallbackAssertion, ClientAuthentication, ConfidentialClient, Grant, HeadlessRedirect,
    IdentityProvider, MemoryStore, OAuth, OAuthConfig, PreregisteredClient, PrivateKey, Secret,
};
use mcp_client::{
    Client, ClientError, ClientHandler, ClientOptions, ElicitationModes, RequestContext,
    RequestOptions, VersionPreference,
};
use mcp_transport_http::{FetchOptions, Fetcher, HttpConfig, HttpMode, HttpTransport};
use mcp_types::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcp_types::skills::SKILLS_EXTENSION;
use mcp_types::{JsonRpcError, ProtocolVersion};
use serde_json::{Map, Value, json};

/// Whole-run limit, below the suite's 30 s per-scenario timeout so a hang reports an
/// error line instead of being killed silently.
const RUN_LIMIT: Duration = Duration::from_secs(25);

/// What to call after connecting, chosen from the scenario name and context.
#[derive(Debug, Clone, PartialEq)]
enum Plan {
    /// `tools/list` when the server advertises tools, nothing else.
    ListTools,
    /// `tools/list`, then these `tools/call`s in order.
    CallTools(Vec<(String, Value)>),
    /// `tools/list`, then call `echo_tool` passing `focal_tool`'s `inputSchema`, as
    /// received, as the `schema` argument (schema round-trip scenarios).
    EchoSchema { focal: String, echo: String },
    /// `tools/list`, then call every tool the client kept, with `{}` arguments (a host
    /// that offers all listed tools); a tool's error answer is logged, not fatal.
    CallEveryTool,
    /// Everything a server offers: tools (list, call the first), resources (list, read
    /// the first), prompts (list, get the first), each only if advertised.
    Exercise,
    /// `skills/list` and nothing more: a host builds its registry of skills from the
    /// listing and reads no file of a skill it has not loaded.
    ListSkills,
    /// `skills/list`, then load every listed skill as a host whose model asked for
    /// it: `load_skill` verifies `SKILL.md` against the entry, and only a verified
    /// skill's supporting files are read (each verified). A skill that fails
    /// verification is refused and logged, and the run goes on: that is the
    /// host's job done, not an error.
    LoadSkills,
}

/// The plan for `scenario`; `context` is `MCP_CONFORMANCE_CONTEXT` when given.
fn plan_for(scenario: &str, context: Option<&Value>) -> Plan {
    // A context listing tool calls says exactly what to call.
    if let Some(calls) = context
        .and_then(|c| c.get("toolCalls"))
        .and_then(Value::as_array)
    {
        let calls: Vec<(String, Value)> = calls
            .iter()
            .filter_map(|c| {
                let name = c.get("name")?.as_str()?.to_string();
                let args = c.get("arguments").cloned().unwrap_or_else(|| json!({}));
                Some((name, args))
            })
            .collect();
        if !calls.is_empty() {
            return Plan::CallTools(calls);
        }
    }
    let call = |name: &str, args: Value| Plan::CallTools(vec![(name.to_string(), args)]);
    match scenario {
        "initialize" => Plan::ListTools,
        "tools_call" => call("add_numbers", json!({"a": 5, "b": 3})),
        "elicitation-sep1034-client-defaults" => {
            call("test_client_elicitation_defaults", json!({}))
        }
        "sse-retry" => call("test_reconnection", json!({})),
        "json-schema-2020-12-preservation" => Plan::EchoSchema {
            focal: "json_schema_2020_12_tool".into(),
            echo: "json_schema_echo".into(),
        },
        // Every listed tool is one MRTR case (state echoed, no state, an
        // unrelated call, no resultType).
        "http-invalid-tool-headers" | "sep-2322-client-request-state" => Plan::CallEveryTool,
        "json-schema-ref-no-deref" => Plan::ListTools,
        "sep-2640-client-no-prefetch" => Plan::ListSkills,
        s if s.starts_with("sep-2640-client-verify-") => Plan::LoadSkills,
        // A host that lists the tools and uses one (step-up scenarios refuse the call).
        s if s.starts_with("auth/") => Plan::Exercise,
        _ => Plan::Exercise,
    }
}

/// Accepts every form elicitation with the schema's defaults filled in (a user who
/// submits the form unchanged); declines URL-mode elicitations (nothing to open here).
#[derive(Debug, Default)]
struct AcceptDefaults;

/// `{field: default}` for each property of a flat `requestedSchema` that has a `default`.
fn schema_defaults(schema: &Value) -> Map<String, Value> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .filter_map(|(k, p)| Some((k.clone(), p.get("default")?.clone())))
                .collect()
        })
        .unwrap_or_default()
}

#[async_trait]
impl ClientHandler for AcceptDefaults {
    async fn elicit(
        &self,
        params: ElicitRequestParams,
        _ctx: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        match params {
            ElicitRequestParams::Form(form) => {
                let content = schema_defaults(&form.requested_schema);
                tracing::info!(fields = ?content.keys().collect::<Vec<_>>(), "elicitation: accept with defaults");
                let mut result = ElicitResult::new(ElicitAction::Accept);
                result.content = Some(content);
                Ok(result)
            }
            other => {
                tracing::info!(message = ?other.message(), "elicitation: decline (not a form)");
                Ok(ElicitResult::new(ElicitAction::Decline))
            }
        }
    }
}

fn options() -> ClientOptions {
    let version = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .ok()
        .as_deref()
        .and_then(ProtocolVersion::parse)
    {
        // A stateless revision must be spoken as asked; for handshake revisions we offer
        // the newest and accept the server's choice, as any host would.
        Some(v) if v.is_stateless() => VersionPreference::Only(v),
        _ => VersionPreference::Handshake,
    };
    ClientOptions::new("mcp-rs-conformance-client", env!("CARGO_PKG_VERSION"))
        .with_handler(Arc::new(AcceptDefaults))
        .with_elicitation(ElicitationModes::form())
        .with_extension(SKILLS_EXTENSION, json!({}))
        .with_version_preference(version)
        // The scenarios judge what reaches the server: every call goes out
        // as the scenario gives it, even when it does not match the schema.
        .with_validate_arguments(false)
        .with_request_timeout(Duration::from_secs(20))
        .with_initialize_timeout(Duration::from_secs(20))
}

async fn call(client: &Client, name: &str, args: Value) -> Result<(), ClientError> {
    let args = match args {
        args @ (Value::Object(_) | Value::Null) => args,
        other => json!({ "value": other }),
    };
    let result = client
        .call_tool(name, args, RequestOptions::default())
        .await?;
    tracing::info!(tool = name, is_error = ?result.is_error, content = ?result.content, "tools/call result");
    Ok(())
}

/// Loads every listed skill; reads the supporting files of each one that verified.
/// A verification failure refuses that skill (logged); any other error fails the run.
async fn load_skills(client: &Client) -> Result<(), ClientError> {
    for entry in client.list_all_skills(RequestOptions::default()).await? {
        let skill = match client.load_skill(&entry, RequestOptions::default()).await {
            Ok(skill) => skill,
            Err(e) if e.is_skill_verification() => {
                tracing::info!(skill = %entry.uri, error = %chain(&e), "skill refused");
                continue;
            }
            Err(e) => return Err(e),
        };
        tracing::info!(skill = %skill.uri(), bytes = skill.text().len(), "skill loaded");
        let files: Vec<String> = skill.files().map(|f| f.uri.clone()).collect();
        for uri in files {
            match skill.read_file(&uri, RequestOptions::default()).await {
                Ok(file) => tracing::info!(%uri, bytes = file.size(), "skill file read"),
                Err(e) if e.is_skill_verification() => {
                    tracing::info!(%uri, error = %chain(&e), "skill file refused");
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// `Ok(None)` when the server did not advertise the capability (strict capabilities).
fn optional<T>(r: Result<T, ClientError>) -> Result<Option<T>, ClientError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(ClientError::CapabilityNotSupported { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The redirect URI of the OAuth flow (the suite's reference clients use the same).
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The Client ID Metadata Document URL the suite expects.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The grant without a person the context's credentials call for: a private key
/// (`private_key_pem`) is client credentials with `private_key_jwt`; an ID token
/// (`idp_id_token`) is enterprise-managed authorization; a workload JWT (`valid_jwt`)
/// is workload identity federation; a client secret is client credentials with
/// `client_secret_basic` when the scenario is one of client credentials (the same
/// context is a pre-registered client elsewhere). `None`: a person's login.
fn grant_for(
    scenario: &str,
    context: Option<&Value>,
) -> Result<Option<Grant>, mcp_auth::AuthError> {
    let text = |k: &str| context.and_then(|c| c.get(k)).and_then(Value::as_str);
    let fixed = |v: &str| {
        let v = v.to_owned();
        Arc::new(CallbackAssertion::new(
            "MCP_CONFORMANCE_CONTEXT",
            move || {
                let v = v.clone();
                async move { Ok(Secret::new(v)) }
            },
        ))
    };
    let secret_client = |id: &str| {
        text("client_secret").map(|s| {
            ConfidentialClient::new(id, ClientAuthentication::ClientSecretBasic(Secret::new(s)))
        })
    };
    if let (Some(id), Some(pem)) = (text("client_id"), text("private_key_pem")) {
        let mut key = PrivateKey::from_pem(pem)?;
        if let Some(alg) = text("signing_algorithm") {
            key = key.require_algorithm(alg)?;
        }
        let auth = ClientAuthentication::PrivateKeyJwt(Arc::new(key));
        return Ok(Some(Grant::ClientCredentials(ConfidentialClient::new(
            id, auth,
        ))));
    }
    if let (Some(id), Some(id_token)) = (text("client_id"), text("idp_id_token")) {
        let Some(client) = secret_client(id) else {
            return Ok(None);
        };
        let mut idp = match (text("idp_token_endpoint"), text("idp_issuer")) {
            (Some(url), _) => IdentityProvider::with_token_endpoint(url),
            (None, Some(issuer)) => IdentityProvider::with_issuer(issuer),
            (None, None) => return Ok(None),
        };
        if let Some(idp_client) = text("idp_client_id") {
            idp = idp.with_client(idp_client, None);
        }
        return Ok(Some(Grant::EnterpriseManaged {
            client,
            identity_provider: idp,
            id_token: fixed(id_token),
        }));
    }
    if let Some(jwt) = text("valid_jwt") {
        return Ok(Some(Grant::WorkloadIdentity {
            assertion: fixed(jwt),
        }));
    }
    if scenario.starts_with("auth/client-credentials")
        && let Some(client) = text("client_id").and_then(secret_client)
    {
        return Ok(Some(Grant::ClientCredentials(client)));
    }
    Ok(None)
}

/// The OAuth flow for `url`, as a host would configure it: the grant the context's
/// credentials call for, else a person's login with its redirect URI and metadata
/// document, a pre-registered client when the context gives one; an in-memory store.
fn oauth(
    url: &str,
    grant: Option<Grant>,
    context: Option<&Value>,
) -> Result<OAuth, mcp_auth::AuthError> {
    if let Some(grant) = grant {
        let config =
            OAuthConfig::for_grant(url, grant).with_client_name("mcp-rs-conformance-client");
        return OAuth::for_grant(config, Arc::new(MemoryStore::new()));
    }
    let mut config = OAuthConfig::new(url, REDIRECT_URI)
        .with_client_name("mcp-rs-conformance-client")
        .with_client_metadata_url(CLIENT_METADATA_URL);
    let text = |k: &str| context.and_then(|c| c.get(k)).and_then(Value::as_str);
    if let Some(id) = text("client_id") {
        let secret = text("client_secret").map(Secret::new);
        config = config.with_preregistered(PreregisteredClient::new(id, secret));
    }
    let agent = HeadlessRedirect::new(Fetcher::new(FetchOptions::default()));
    OAuth::new(config, Arc::new(MemoryStore::new()), Arc::new(agent))
}

/// What a run can fail with: the client's errors, or the scenario's own.
type RunError = Box<dyn std::error::Error + Send + Sync>;

async fn run(url: String, scenario: &str, context: Option<Value>) -> Result<(), RunError> {
    let plan = plan_for(scenario, context.as_ref());
    tracing::info!(%url, scenario, ?plan, "connecting");
    let mut config = HttpConfig::new(url.clone());
    // Credentials the client cannot use (a bad key) fail the run: a host says so.
    let grant = grant_for(scenario, context.as_ref())?;
    let mut options = options();
    if let Some(g) = &grant {
        // The grant's extension is declared in the client's capabilities.
        options = options.with_extension(g.extension(), json!({}));
    }
    match oauth(&url, grant, context.as_ref()) {
        Ok(oauth) => config = config.with_auth_provider(oauth.provider()),
        // A server URL the flow refuses (not https, not loopback): no OAuth for it.
        Err(e) => tracing::warn!(error = %e, "no OAuth for this server"),
    }
    let transport = HttpTransport::connect(config, HttpMode::Streamable).await?;
    let client = Client::connect(transport, options).await?;
    tracing::info!(version = %client.protocol_version(), server = ?client.server_info(), "connected");
    let outcome = async {
        match &plan {
            Plan::ListTools => {
                optional(client.list_all_tools(Default::default()).await)?;
            }
            Plan::CallTools(calls) => {
                client.list_all_tools(Default::default()).await?;
                for (name, args) in calls {
                    call(&client, name, args.clone()).await?;
                }
            }
            Plan::CallEveryTool => {
                for tool in client.list_all_tools(Default::default()).await? {
                    match call(&client, &tool.name, json!({})).await {
                        Err(ClientError::Server { .. }) | Ok(()) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            Plan::EchoSchema { focal, echo } => {
                let tools = client.list_all_tools(Default::default()).await?;
                let schema = tools
                    .iter()
                    .find(|t| &t.name == focal)
                    .map(|t| t.input_schema.clone())
                    .ok_or_else(|| format!("tools/list: the server did not list tool {focal:?}"))?;
                call(&client, echo, json!({ "schema": schema })).await?;
            }
            Plan::ListSkills => {
                let skills = client.list_all_skills(Default::default()).await?;
                let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
                tracing::info!(?uris, "skills listed");
            }
            Plan::LoadSkills => load_skills(&client).await?,
            Plan::Exercise => {
                if let Some(tools) = optional(client.list_all_tools(Default::default()).await)?
                    && let Some(t) = tools.first()
                {
                    call(&client, &t.name, json!({})).await?;
                }
                if let Some(resources) =
                    optional(client.list_all_resources(Default::default()).await)?
                    && let Some(r) = resources.first()
                {
                    client
                        .read_resource(r.uri.clone(), Default::default())
                        .await?;
                }
                if let Some(prompts) = optional(client.list_all_prompts(Default::default()).await)?
                    && let Some(p) = prompts.first()
                {
                    client
                        .get_prompt(p.name.clone(), None, Default::default())
                        .await?;
                }
            }
        }
        Ok::<(), RunError>(())
    }
    .await;
    let closed = client.close().await;
    outcome?;
    Ok(closed?)
}

/// Prints an error with its `source()` chain on one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("conformance-client: error: usage: conformance-client <server-url>");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(v) => Some(v),
            Err(e) => {
                eprintln!("conformance-client: error: MCP_CONFORMANCE_CONTEXT is not JSON: {e}");
                return ExitCode::FAILURE;
            }
        },
        Err(_) => None,
    };
    match tokio::time::timeout(RUN_LIMIT, run(url, &scenario, context)).await {
        Ok(Ok(())) => {
            eprintln!("conformance-client: ok");
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            eprintln!("conformance-client: error: {}", chain(e.as_ref()));
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!(
                "conformance-client: error: scenario {scenario:?} did not finish within {} s",
                RUN_LIMIT.as_secs()
            );
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_follow_the_scenario() {
        assert_eq!(plan_for("initialize", None), Plan::ListTools);
        assert_eq!(
            plan_for("tools_call", None),
            Plan::CallTools(vec![("add_numbers".into(), json!({"a": 5, "b": 3}))])
        );
        assert_eq!(plan_for("auth/metadata-default", None), Plan::Exercise);
        assert_eq!(plan_for("something-new", None), Plan::Exercise);
        assert_eq!(
            plan_for("sep-2322-client-request-state", None),
            Plan::CallEveryTool
        );
        assert_eq!(
            plan_for("sep-2640-client-no-prefetch", None),
            Plan::ListSkills
        );
        assert_eq!(
            plan_for("sep-2640-client-verify-digest", None),
            Plan::LoadSkills
        );
    }

    #[test]
    fn the_context_credentials_pick_the_grant() {
        let kind = |scenario: &str, ctx: Value| {
            grant_for(scenario, Some(&ctx))
                .unwrap()
                .map(|g| g.extension())
        };
        let pem = include_str!("../../../crates/mcp-auth/tests/keys/ec-p256.pem");
        assert_eq!(
            kind(
                "auth/client-credentials-jwt",
                json!({"client_id": "c", "private_key_pem": pem, "signing_algorithm": "ES256"})
            ),
            Some(mcp_auth::CLIENT_CREDENTIALS_EXTENSION)
        );
        let secret = json!({"client_id": "c", "client_secret": "s"});
        assert_eq!(
            kind("auth/client-credentials-basic", secret.clone()),
            Some(mcp_auth::CLIENT_CREDENTIALS_EXTENSION)
        );
        assert_eq!(kind("auth/pre-registration", secret), None);
        assert_eq!(
            kind(
                "auth/enterprise-managed-authorization",
                json!({"client_id": "c", "client_secret": "s", "idp_id_token": "a.b.c",
                       "idp_token_endpoint": "http://localhost:1/token", "idp_client_id": "i"})
            ),
            Some(mcp_auth::ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION)
        );
        assert_eq!(
            kind(
                "auth/wif-jwt-bearer",
                json!({"client_id": "w", "valid_jwt": "a.b.c"})
            ),
            Some(mcp_auth::WORKLOAD_IDENTITY_FEDERATION_EXTENSION)
        );
        assert_eq!(kind("auth/metadata-default", json!({})), None);
        // A key of the other algorithm is the run's error, not a silent fallback.
        assert!(
            grant_for(
                "auth/client-credentials-jwt",
                Some(
                    &json!({"client_id": "c", "private_key_pem": pem, "signing_algorithm": "RS256"})
                )
            )
            .is_err()
        );
    }

    #[test]
    fn context_tool_calls_win() {
        let ctx = json!({"toolCalls": [{"name": "t", "arguments": {"x": 1}}, {"name": "u"}]});
        assert_eq!(
            plan_for("http-custom-headers", Some(&ctx)),
            Plan::CallTools(vec![("t".into(), json!({"x": 1})), ("u".into(), json!({}))])
        );
    }

    #[test]
    fn defaults_come_from_the_schema() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "nodefault": {"type": "string"}
        }});
        let d = schema_defaults(&schema);
        assert_eq!(d.get("name"), Some(&json!("John Doe")));
        assert_eq!(d.get("age"), Some(&json!(30)));
        assert!(!d.contains_key("nodefault"));
        assert!(schema_defaults(&json!({})).is_empty());
    }
}
