//! Against the reference `server-everything` (release 2025.11.25) over
//! stdio: every method it offers, with its real answers, including
//! `resources/list` pagination (100 resources, 10 per page). Skips (printing
//! why) when the peer is not installed (`tests/peers/setup.sh`), unless
//! `MCP_PEERS_REQUIRED=1`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mcp_client::{
    CallOptions, Client, ClientOptions, RequestOptions, TemplateValue, VersionPreference,
};
use mcp_tests::peers::{Everything, everything_stdio_command_of, require_command};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use mcp_types::logging::LoggingLevel;
use serde_json::json;
use support::*;

async fn connect(options: ClientOptions) -> Option<Client> {
    let (cmd, args) = require_command(
        "server-everything 2025.11.25",
        everything_stdio_command_of(Everything::V2025_11_25),
    )?;
    let transport = StdioTransport::spawn(
        StdioConfig::new(cmd)
            .with_args(args)
            .with_label("everything"),
    )
    .await
    .expect("spawn server-everything");
    Some(Client::connect(transport, options).await.expect("connect"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_method_against_server_everything() {
    let handler = recorder();
    // Auto: the discover probe is refused by this legacy server, then initialize.
    let options = ClientOptions::new("mcp-client-tests", "0.1.0")
        .with_version_preference(VersionPreference::Auto)
        .with_handler(handler.clone())
        .with_roots(true)
        .with_sampling(false);
    let Some(client) = connect(options).await else {
        return;
    };
    assert!(client.protocol_version().uses_handshake());
    assert_eq!(client.server_info().name, "example-servers/everything");
    assert!(client.instructions().is_some());

    client.ping(Default::default()).await.unwrap();
    client
        .set_logging_level(LoggingLevel::Debug, Default::default())
        .await
        .unwrap();

    // Tools.
    let tools = client.list_all_tools(Default::default()).await.unwrap();
    for name in [
        "echo",
        "add",
        "longRunningOperation",
        "sampleLLM",
        "structuredContent",
    ] {
        assert!(tools.iter().any(|t| t.name == name), "{name} listed");
    }
    let echo = client
        .call_tool(
            "echo",
            json!({"message": "hi"}).as_object().cloned(),
            CallOptions::default().with_validate_arguments(true),
        )
        .await
        .unwrap();
    assert_eq!(echo.content[0].as_text(), Some("Echo: hi"));
    let bad = client
        .call_tool(
            "add",
            json!({"a": "x"}).as_object().cloned(),
            CallOptions::default().with_validate_arguments(true),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(bad, mcp_client::ClientError::InvalidArguments { .. }),
        "{bad:?}"
    );
    let add = client
        .call_tool(
            "add",
            json!({"a": 2, "b": 3}).as_object().cloned(),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(add.content[0].as_text().unwrap().contains('5'));
    let weather = client
        .call_tool(
            "structuredContent",
            json!({"location": "Paris"}).as_object().cloned(),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(weather.structured_content.unwrap()["temperature"].is_number());

    // Progress, in order.
    let progress = Arc::new(Mutex::new(Vec::new()));
    let opts = RequestOptions::default().with_progress({
        let progress = progress.clone();
        move |p| progress.lock().unwrap().push(p.progress)
    });
    client
        .call_tool(
            "longRunningOperation",
            json!({"duration": 1, "steps": 3}).as_object().cloned(),
            opts,
        )
        .await
        .unwrap();
    assert_eq!(*progress.lock().unwrap(), vec![1.0, 2.0, 3.0]);

    // Sampling and roots go through the handler.
    let sampled = client
        .call_tool(
            "sampleLLM",
            json!({"prompt": "hello", "maxTokens": 10})
                .as_object()
                .cloned(),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(
        sampled.content[0].as_text().unwrap().contains("hello"),
        "{sampled:?}"
    );
    let roots = client
        .call_tool("listRoots", serde_json::json!({}), CallOptions::default())
        .await
        .unwrap();
    assert!(format!("{roots:?}").contains("file:///work"), "{roots:?}");
    assert!(
        handler
            .seen()
            .contains(&"sampling/createMessage".to_owned())
    );
    assert!(handler.seen().contains(&"roots/list".to_owned()));

    // Resources: 100, paged 10 at a time.
    let first = client
        .list_resources(None, Default::default())
        .await
        .unwrap();
    assert_eq!(first.resources.len(), 10);
    assert!(first.next_cursor.is_some());
    let all = client.list_all_resources(Default::default()).await.unwrap();
    assert_eq!(all.len(), 100);
    let read = client
        .read_resource(all[0].uri.clone(), Default::default())
        .await
        .unwrap();
    assert_eq!(read.contents.len(), 1);
    let templates = client
        .list_all_resource_templates(Default::default())
        .await
        .unwrap();
    assert!(!templates.is_empty());
    let via_template = client
        .read_resource_template(
            &templates[0],
            [("id", TemplateValue::from("2"))],
            Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(via_template.contents.len(), 1);
    client
        .subscribe(all[0].uri.clone(), Default::default())
        .await
        .unwrap();
    client
        .unsubscribe(all[0].uri.clone(), Default::default())
        .await
        .unwrap();

    // Prompts and completion.
    let prompts = client.list_all_prompts(Default::default()).await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "simple_prompt"));
    let simple = client
        .get_prompt("simple_prompt", None, Default::default())
        .await
        .unwrap();
    assert!(!simple.messages.is_empty());
    let complex = client
        .get_prompt(
            "complex_prompt",
            Some(BTreeMap::from([
                ("temperature".to_owned(), "0.7".to_owned()),
                ("style".to_owned(), "formal".to_owned()),
            ])),
            Default::default(),
        )
        .await
        .unwrap();
    assert!(complex.messages.len() >= 2);
    let completion = client
        .complete(
            serde_json::from_value(json!({
                "ref": {"type": "ref/prompt", "name": "complex_prompt"},
                "argument": {"name": "style", "value": "f"}
            }))
            .unwrap(),
            Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(completion.completion.values, vec!["formal", "friendly"]);

    // Capability gate: this server declares no tasks.
    assert!(
        client
            .list_tasks(None, Default::default())
            .await
            .unwrap_err()
            .is_capability_not_supported()
    );

    client.close().await.unwrap();
    assert!(!client.is_connected());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_preference_connects_without_a_probe() {
    let Some(client) = connect(legacy_options()).await else {
        return;
    };
    assert_eq!(
        client.protocol_version(),
        mcp_types::ProtocolVersion::V2025_11_25
    );
    client.close().await.unwrap();
}
