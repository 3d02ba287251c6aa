//! The default client (`VersionPreference::Auto`: probe `server/discover`,
//! fall back to `initialize`, and over HTTP to the legacy HTTP+SSE
//! transport) against every real peer on every transport it offers.
//!
//! What each peer must negotiate is pinned: the Python SDK (mcp 2.x) speaks
//! the stateless 2026-07-28 revision; server-everything speaks the handshake
//! revisions; its `sse` mode is only reachable through the legacy fallback.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_client::{
    Client, ClientHandler, ClientOptions, ElicitationModes, RequestContext, RequestOptions,
    VersionPreference,
};
use mcp_tests::peers::{self, EverythingHttp, PyOptions, PyTransport};
use mcp_transport_http::{HttpConfig, HttpTransport};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use mcp_types::ProtocolVersion;
use mcp_types::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use serde_json::{Value, json};

fn options() -> ClientOptions {
    ClientOptions::new("negotiation-test", "0.0.0")
}

/// Lists tools and calls `tool` with `arguments`; returns the first text block.
async fn exercise(client: &Client, tool: &str, arguments: Value) -> String {
    let tools = client
        .list_all_tools(Default::default())
        .await
        .expect("tools/list");
    assert!(tools.iter().any(|t| t.name == tool), "{tool} is listed");
    let result = client
        .call_tool(tool, arguments, RequestOptions::default())
        .await
        .expect("tools/call");
    assert!(!result.is_error.unwrap_or(false));
    serde_json::to_value(&result.content[0]).unwrap()["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

async fn http_client(url: &str) -> Client {
    let transport = HttpTransport::connect_auto(HttpConfig::new(url))
        .await
        .expect("transport");
    tokio::time::timeout(
        Duration::from_secs(30),
        Client::connect(transport, options()),
    )
    .await
    .expect("connect in time")
    .expect("connect")
}

#[tokio::test]
async fn python_streamable_http_negotiates_stateless_revision() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
        PyTransport::StreamableHttp,
        PyOptions::default(),
    )) else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(exercise(&client, "echo", json!({"text": "hi"})).await, "hi");
    client.close().await.unwrap();
}

#[tokio::test]
async fn python_stateless_json_negotiates() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
        PyTransport::StreamableHttp,
        PyOptions {
            json_response: true,
            stateless: true,
        },
    )) else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert_eq!(
        exercise(&client, "echo", json!({"text": "json"})).await,
        "json"
    );
    client.close().await.unwrap();
}

/// A client pinned to 2024-11-05 over Streamable HTTP (as an old client, or
/// a server that answers with that revision, leaves it): the Python SDK
/// assigns a session at `initialize` and refuses every request without it.
#[tokio::test]
async fn python_streamable_http_keeps_its_session_under_2024_11_05() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
        PyTransport::StreamableHttp,
        PyOptions::default(),
    )) else {
        return;
    };
    let transport = HttpTransport::connect_auto(HttpConfig::new(peer.url()))
        .await
        .expect("transport");
    let pinned = options().with_version_preference(mcp_client::VersionPreference::Only(
        ProtocolVersion::V2024_11_05,
    ));
    let client = tokio::time::timeout(Duration::from_secs(30), Client::connect(transport, pinned))
        .await
        .expect("connect in time")
        .expect("connect");
    assert_eq!(client.protocol_version(), ProtocolVersion::V2024_11_05);
    assert_eq!(
        exercise(&client, "echo", json!({"text": "old"})).await,
        "old"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn python_sse_falls_back_to_legacy_transport() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
        PyTransport::Sse,
        PyOptions::default(),
    )) else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert!(client.protocol_version().uses_handshake());
    assert_eq!(
        exercise(&client, "echo", json!({"text": "legacy"})).await,
        "legacy"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn everything_streamable_http_negotiates_handshake_revision() {
    let Some(peer) =
        peers::skip_if_missing(peers::spawn_everything_http(EverythingHttp::StreamableHttp))
    else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert!(client.protocol_version().uses_handshake());
    assert_eq!(
        exercise(&client, "echo", json!({"message": "x"})).await,
        "Echo: x"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn everything_sse_falls_back_to_legacy_transport() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_everything_http(EverythingHttp::Sse))
    else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert!(client.protocol_version().uses_handshake());
    assert_eq!(
        exercise(&client, "echo", json!({"message": "y"})).await,
        "Echo: y"
    );
    client.close().await.unwrap();
}

async fn stdio_client(command: String, arguments: Vec<String>) -> (Client, Duration) {
    let transport = StdioTransport::spawn(StdioConfig::new(command).with_args(arguments))
        .await
        .expect("spawn");
    let start = Instant::now();
    let client = tokio::time::timeout(
        Duration::from_secs(30),
        Client::connect(transport, options()),
    )
    .await
    .expect("connect in time")
    .expect("connect");
    (client, start.elapsed())
}

#[tokio::test]
async fn everything_stdio_refuses_the_probe_and_falls_back_without_waiting() {
    let Some((command, arguments)) = peers::everything_stdio_command() else {
        return;
    };
    let (client, took) = stdio_client(command, arguments).await;
    assert!(client.protocol_version().uses_handshake());
    // The probe's 3 s timeout must not be what ended it: the server answers it.
    assert!(took < Duration::from_millis(2_900), "connect took {took:?}");
    assert_eq!(
        exercise(&client, "echo", json!({"message": "z"})).await,
        "Echo: z"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn python_stdio_negotiates_stateless_revision() {
    let Some((command, arguments)) = peers::python_stdio_command() else {
        return;
    };
    let (client, _) = stdio_client(command, arguments).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(exercise(&client, "echo", json!({"text": "s"})).await, "s");
    client.close().await.unwrap();
}

/// Answers every form elicitation with `{"name": "Rusty"}` and records the messages.
#[derive(Debug, Default)]
struct NameGiver {
    asked: Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl ClientHandler for NameGiver {
    async fn elicit(
        &self,
        params: ElicitRequestParams,
        _ctx: RequestContext,
    ) -> Result<ElicitResult, mcp_types::JsonRpcError> {
        let message = serde_json::to_value(&params).unwrap()["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        self.asked.lock().unwrap().push(message);
        let mut result = ElicitResult::new(ElicitAction::Accept);
        result.content = json!({"name": "Rusty"}).as_object().cloned();
        Ok(result)
    }
}

fn modern_options(handler: Arc<NameGiver>) -> ClientOptions {
    options()
        .with_handler(handler)
        .with_elicitation(ElicitationModes::form())
}

fn first_text(v: impl serde::Serialize) -> String {
    let v = serde_json::to_value(v).unwrap();
    v["content"][0]["text"]
        .as_str()
        .or_else(|| v["messages"][0]["content"]["text"].as_str())
        .or_else(|| v["contents"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// Everything a 2026-07-28 client does against the Python SDK server:
/// tools/call (plain, with an x-mcp-header parameter, ASCII and not),
/// prompts/get, resources/read (static and from a template), progress
/// (when the reply can carry it) and a multi round-trip elicitation.
async fn exercise_modern(client: &Client, handler: &NameGiver, expect_progress: bool) {
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let tools = client
        .list_all_tools(Default::default())
        .await
        .expect("tools/list");
    for name in ["echo", "route", "progress", "ask_name"] {
        assert!(tools.iter().any(|t| t.name == name), "{name} is listed");
    }
    let call = |tool: &'static str, arguments: Value| async move {
        let result = client
            .call_tool(tool, arguments, RequestOptions::default())
            .await
            .unwrap_or_else(|e| panic!("tools/call {tool}: {e:?}"));
        assert!(!result.is_error.unwrap_or(false), "{tool}: {result:?}");
        first_text(&result)
    };
    assert_eq!(call("echo", json!({"text": "hi"})).await, "hi");
    // Mcp-Param-Region: plain, then one that needs the base64 form.
    assert_eq!(
        call("route", json!({"region": "eu-west", "text": "a"})).await,
        "eu-west:a"
    );
    assert_eq!(
        call("route", json!({"region": "Zürich ", "text": "b"})).await,
        "Zürich :b"
    );
    // Mcp-Name with characters that need encoding, on prompts/get.
    let mut prompt_args = BTreeMap::new();
    prompt_args.insert("name".to_owned(), "Ada".to_owned());
    let prompt = client
        .get_prompt("greet", Some(prompt_args), Default::default())
        .await
        .expect("prompts/get");
    assert_eq!(first_text(&prompt), "Say hello to Ada.");
    let read = client
        .read_resource("peer://static/greeting", Default::default())
        .await
        .expect("resources/read");
    assert_eq!(first_text(&read), "hello from py_server");
    let templates = client
        .list_all_resource_templates(Default::default())
        .await
        .expect("templates");
    let template = templates
        .iter()
        .find(|t| t.uri_template == "peer://echo/{text}")
        .expect("the echo template is listed");
    let read = client
        .read_resource_template(
            template,
            [("text", mcp_client::TemplateValue::from("abc"))],
            Default::default(),
        )
        .await
        .expect("resources/read of a template URI");
    assert_eq!(first_text(&read), "abc");

    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options =
        RequestOptions::default().with_progress(move |p| sink.lock().unwrap().push(p.progress));
    let result = client
        .call_tool("progress", json!({"steps": 3, "delay_ms": 5}), options)
        .await
        .expect("progress tool");
    assert_eq!(first_text(&result), "done 3");
    if expect_progress {
        assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0]);
    }

    let greeting = call("ask_name", json!({})).await;
    assert_eq!(greeting, "hello Rusty (state asked-once)");
    assert_eq!(
        *handler.asked.lock().unwrap(),
        vec!["What is your name?".to_owned()]
    );
}

async fn modern_http(options: PyOptions, expect_progress: bool) {
    let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
        PyTransport::StreamableHttp,
        options,
    )) else {
        return;
    };
    let handler = Arc::new(NameGiver::default());
    let transport = HttpTransport::connect_auto(HttpConfig::new(peer.url()))
        .await
        .expect("transport");
    let client = tokio::time::timeout(
        Duration::from_secs(30),
        Client::connect(transport, modern_options(handler.clone())),
    )
    .await
    .expect("connect in time")
    .expect("connect");
    exercise_modern(&client, &handler, expect_progress).await;
    assert_eq!(
        client.transport().session_id(),
        None,
        "no Mcp-Session-Id in 2026-07-28"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn python_streamable_http_sse_full_modern_surface() {
    modern_http(PyOptions::default(), true).await;
}

#[tokio::test]
async fn python_streamable_http_json_full_modern_surface() {
    // JSON replies cannot carry progress notifications.
    modern_http(
        PyOptions {
            json_response: true,
            stateless: false,
        },
        false,
    )
    .await;
}

#[tokio::test]
async fn python_stdio_full_modern_surface() {
    let Some((command, arguments)) = peers::python_stdio_command() else {
        return;
    };
    let handler = Arc::new(NameGiver::default());
    let transport = StdioTransport::spawn(StdioConfig::new(command).with_args(arguments))
        .await
        .expect("spawn");
    let client = tokio::time::timeout(
        Duration::from_secs(30),
        Client::connect(transport, modern_options(handler.clone())),
    )
    .await
    .expect("connect in time")
    .expect("connect");
    exercise_modern(&client, &handler, true).await;
    client.close().await.unwrap();
}

/// The Python SDK's server that speaks both kinds of revision over stdio, whose `elicit_name` tool
/// sends `elicitation/create` as a request (`ctx.elicit`): under 2026-07-28
/// it cannot, and the call fails with the typed error that says to connect
/// in a handshake revision, the handler never asked; connected so, the
/// request reaches the handler and the tool greets the name.
#[tokio::test]
async fn python_stdio_server_request_needs_a_handshake_revision() {
    let Some((command, arguments)) = peers::python_stdio_command() else {
        return;
    };
    let connect = |preference: VersionPreference, handler: Arc<NameGiver>| {
        let (command, arguments) = (command.clone(), arguments.clone());
        async move {
            let transport = StdioTransport::spawn(StdioConfig::new(command).with_args(arguments))
                .await
                .expect("spawn");
            let options = modern_options(handler).with_version_preference(preference);
            tokio::time::timeout(Duration::from_secs(30), Client::connect(transport, options))
                .await
                .expect("connect in time")
                .expect("connect")
        }
    };
    let handler = Arc::new(NameGiver::default());
    let client = connect(VersionPreference::Auto, handler.clone()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let e = client
        .call_tool("elicit_name", json!({}), RequestOptions::default())
        .await
        .expect_err("the server cannot send its request");
    assert!(e.needs_handshake_revision(), "{e:?}");
    assert!(
        e.to_string().contains("elicitation/create")
            && e.to_string().contains("handshake revision"),
        "{e}"
    );
    assert!(handler.asked.lock().unwrap().is_empty(), "never asked");
    client.close().await.unwrap();

    let client = connect(VersionPreference::Handshake, handler.clone()).await;
    assert!(client.protocol_version().uses_handshake());
    let result = client
        .call_tool("elicit_name", json!({}), RequestOptions::default())
        .await
        .expect("tools/call");
    assert_eq!(first_text(&result), "hello Rusty");
    assert_eq!(
        *handler.asked.lock().unwrap(),
        vec!["Your name?".to_owned()]
    );
    client.close().await.unwrap();
}

/// `subscriptions/listen` against the Python SDK: the acknowledgement
/// grants what was asked, the subscription stays open (no timeout), and
/// dropping it (HTTP: the response stream is closed; stdio:
/// `notifications/cancelled`) leaves the connection usable, also for a
/// second listen.
async fn listen_then_drop(client: &Client) {
    use mcp_types::subscriptions::SubscriptionFilter;
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        resource_subscriptions: Some(vec!["test://greeting".into()]),
        ..Default::default()
    };
    for _ in 0..2 {
        let mut subscription = tokio::time::timeout(
            Duration::from_secs(10),
            client.listen(filter.clone(), Default::default()),
        )
        .await
        .expect("acknowledged in time")
        .expect("listen");
        assert!(
            subscription.id().is_some(),
            "the ack carries the subscription id"
        );
        assert_eq!(subscription.granted().tools_list_changed, Some(true));
        assert_eq!(
            subscription.granted().resource_subscriptions,
            Some(vec!["test://greeting".to_owned()])
        );
        // Nothing published: no event, and the listen is not ended.
        let quiet = tokio::time::timeout(Duration::from_millis(300), subscription.next()).await;
        assert!(quiet.is_err(), "unexpected event {quiet:?}");
        drop(subscription);
        assert_eq!(
            exercise(client, "echo", json!({"text": "after"})).await,
            "after"
        );
    }
}

#[tokio::test]
async fn python_streamable_http_subscriptions_listen() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
        PyTransport::StreamableHttp,
        PyOptions::default(),
    )) else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    listen_then_drop(&client).await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn python_stdio_subscriptions_listen() {
    let Some((command, arguments)) = peers::python_stdio_command() else {
        return;
    };
    let (client, _) = stdio_client(command, arguments).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    listen_then_drop(&client).await;
    client.close().await.unwrap();
}
