//! Servers as they are: one bad entry costs that entry, a listing that does
//! not end keeps what arrived, a missing member with an obvious empty
//! default takes it (handshake revisions only), a lone surrogate escape is
//! U+FFFD. Cases B31–B33 of `../shared/cases/catalogue-2.md`, and the kinds
//! behind them, several shapes each.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use mcp_client::testing::{MemoryPeer, memory_pair};
use mcp_client::{
    CallOptions, Client, ClientError, ClientOptions, ElicitationModes, Incomplete,
    VersionPreference,
};
use mcp_types::lenient::EntryProblem;
use serde_json::{Value, json};
use support::*;

/// The error and its sources, as a chain printer shows them: `Display`
/// of each level says its own part only.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The four list methods: method, member, a good entry named `name`.
const LISTS: [&str; 4] = [
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
];

fn member(method: &str) -> &'static str {
    match method {
        "tools/list" => "tools",
        "prompts/list" => "prompts",
        "resources/list" => "resources",
        _ => "resourceTemplates",
    }
}

fn good(method: &str, name: &str) -> Value {
    match method {
        "tools/list" => json!({"name": name, "inputSchema": {"type": "object"}}),
        "prompts/list" => json!({"name": name}),
        "resources/list" => json!({"uri": format!("test://{name}"), "name": name}),
        _ => json!({"uriTemplate": format!("test://{name}/{{id}}"), "name": name}),
    }
}

/// Entries that do not fit the schema, per method: (shape, entry, its name
/// as the problem should report it).
fn bad_entries(method: &str) -> Vec<(&'static str, Value, Option<&'static str>)> {
    let mut shapes = vec![
        ("a string", json!("bad"), None),
        ("null", Value::Null, None),
        ("an array", json!([1, 2]), None),
    ];
    shapes.extend(match method {
        "tools/list" => vec![
            (
                "missing name",
                json!({"inputSchema": {"type": "object"}}),
                None,
            ),
            ("missing inputSchema", json!({"name": "bad"}), Some("bad")),
            (
                "legacy parameters",
                json!({"name": "bad", "parameters": {"type": "object"}}),
                Some("bad"),
            ),
            (
                "name of the wrong type",
                json!({"name": 5, "inputSchema": {}}),
                None,
            ),
            (
                "annotations of the wrong type",
                json!({"name": "bad", "inputSchema": {}, "annotations": "x"}),
                Some("bad"),
            ),
        ],
        "prompts/list" => vec![
            ("missing name", json!({"description": "d"}), None),
            (
                "arguments of the wrong type",
                json!({"name": "bad", "arguments": "x"}),
                Some("bad"),
            ),
            (
                "argument without name",
                json!({"name": "bad", "arguments": [{"required": true}]}),
                Some("bad"),
            ),
        ],
        "resources/list" => vec![
            ("missing uri", json!({"name": "bad"}), Some("bad")),
            (
                "uri of the wrong type",
                json!({"uri": 7, "name": "bad"}),
                Some("bad"),
            ),
            (
                "size of the wrong type",
                json!({"uri": "test://x", "name": "bad", "size": "big"}),
                Some("bad"),
            ),
        ],
        _ => vec![
            ("missing uriTemplate", json!({"name": "bad"}), Some("bad")),
            (
                "legacy uri instead of uriTemplate",
                json!({"uri": "test://{id}", "name": "bad"}),
                Some("bad"),
            ),
            (
                "name of the wrong type",
                json!({"uriTemplate": "test://{id}", "name": []}),
                None,
            ),
        ],
    });
    shapes
}

/// A whole listing: the names of its items, its problems and why it
/// stopped early.
type Names = (Vec<String>, Vec<EntryProblem>, Option<Incomplete>);

/// A whole listing of `method`.
async fn listing(client: &Client, method: &str) -> Result<Names, ClientError> {
    Ok(match method {
        "tools/list" => {
            let l = client.tools_listing(Default::default()).await?;
            let names = l.items.iter().map(|t| t.name.clone()).collect();
            (names, l.problems, l.incomplete)
        }
        "prompts/list" => {
            let l = client.prompts_listing(Default::default()).await?;
            let names = l.items.iter().map(|t| t.name.clone()).collect();
            (names, l.problems, l.incomplete)
        }
        "resources/list" => {
            let l = client.resources_listing(Default::default()).await?;
            let names = l.items.iter().map(|t| t.name.clone()).collect();
            (names, l.problems, l.incomplete)
        }
        _ => {
            let l = client
                .resource_templates_listing(Default::default())
                .await?;
            let names = l.items.iter().map(|t| t.name.clone()).collect();
            (names, l.problems, l.incomplete)
        }
    })
}

/// Starts a listing of `method` on its own task.
fn spawn_listing(
    client: &Client,
    method: &'static str,
) -> tokio::task::JoinHandle<Result<Names, ClientError>> {
    let client = client.clone();
    tokio::spawn(async move { listing(&client, method).await })
}

#[tokio::test]
async fn one_bad_entry_does_not_lose_its_siblings() {
    let (client, mut peer) = connect_full().await;
    for method in LISTS {
        for (shape, bad, name) in bad_entries(method) {
            let task = spawn_listing(&client, method);
            let req = peer.expect_request(method).await;
            let entries = json!([good(method, "first"), bad, good(method, "last")]);
            peer.respond(&req.id, json!({ member(method): entries }))
                .await;
            let (names, problems, incomplete) = task.await.unwrap().unwrap_or_else(|e| {
                panic!("{method}, {shape}: the listing failed: {e}");
            });
            assert_eq!(names, ["first", "last"], "{method}, {shape}");
            assert!(incomplete.is_none(), "{method}, {shape}");
            assert_eq!(problems.len(), 1, "{method}, {shape}: {problems:?}");
            let p = &problems[0];
            assert_eq!(p.list, member(method), "{method}, {shape}");
            assert_eq!(p.index, 1, "{method}, {shape}");
            assert_eq!(p.name.as_deref(), name, "{method}, {shape}");
            assert!(!p.reason.is_empty(), "{method}, {shape}");
        }
    }
    // The message names the member that is missing.
    let task = spawn_listing(&client, "tools/list");
    let req = peer.expect_request("tools/list").await;
    peer.respond(
        &req.id,
        json!({"tools": [{"inputSchema": {}}, {"name": "x"}]}),
    )
    .await;
    let (names, problems, _) = task.await.unwrap().unwrap();
    assert!(names.is_empty());
    assert!(problems[0].reason.contains("`name`"), "{problems:?}");
    assert!(problems[1].reason.contains("`inputSchema`"), "{problems:?}");
    assert_eq!(
        problems[1].to_string(),
        format!("tools entry 1 (\"x\") left out: {}", problems[1].reason)
    );
}

#[tokio::test]
async fn one_page_keeps_its_good_entries_and_says_which_were_dropped() {
    let (client, mut peer) = connect_full().await;
    let task = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None, Default::default()).await }
    });
    let req = peer.expect_request("tools/list").await;
    peer.respond(
        &req.id,
        json!({"tools": [good("tools/list", "a"), {"name": "b"}], "nextCursor": "n"}),
    )
    .await;
    let page = task.await.unwrap().unwrap();
    assert_eq!(page.tools.len(), 1);
    assert_eq!(page.next_cursor.as_deref(), Some("n"));
    assert_eq!(page.problems.len(), 1);
    assert_eq!(page.problems[0].name.as_deref(), Some("b"));
    // What is wrong outside the entries still fails the page.
    let task = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None, Default::default()).await }
    });
    let req = peer.expect_request("tools/list").await;
    peer.respond(&req.id, json!({"tools": [{"name": "b"}], "nextCursor": 5}))
        .await;
    let err = task.await.unwrap().unwrap_err();
    assert!(matches!(err, ClientError::Decode { .. }), "{err:?}");
}

/// B31: every page answers with the same `nextCursor`. The listing stops
/// at the repeat, keeps the entries (once each) and says it may be
/// incomplete; for each list method.
#[tokio::test]
async fn b31_a_cursor_that_never_advances_keeps_what_was_listed() {
    let (client, mut peer) = connect_full().await;
    for method in LISTS {
        let task = spawn_listing(&client, method);
        for _ in 0..2 {
            let req = peer.expect_request(method).await;
            let entries = json!([good(method, "only_tool")]);
            peer.respond(
                &req.id,
                json!({ member(method): entries, "nextCursor": "abc" }),
            )
            .await;
        }
        let (names, problems, incomplete) = task.await.unwrap().unwrap();
        assert_eq!(names, ["only_tool"], "{method}");
        assert!(problems.is_empty());
        assert!(
            matches!(incomplete, Some(Incomplete::CursorRepeated { pages: 2 })),
            "{method}: {incomplete:?}"
        );
        assert!(
            peer.try_next().is_none(),
            "{method}: a third page was asked for"
        );
    }
    // `list_all_tools` returns the tools, and the cache has them, so a
    // call can find the tool.
    let task = tokio::spawn({
        let client = client.clone();
        async move { client.list_all_tools(Default::default()).await }
    });
    for _ in 0..2 {
        let req = peer.expect_request("tools/list").await;
        peer.respond(
            &req.id,
            json!({"tools": [good("tools/list", "only_tool")], "nextCursor": "abc"}),
        )
        .await;
    }
    assert_eq!(task.await.unwrap().unwrap().len(), 1);
    assert_eq!(client.cached_tools().unwrap()[0].name, "only_tool");
}

/// The page cap holds whatever the cursors are (each one new), and a page
/// that fails after the first ends the listing with what came before.
#[tokio::test]
async fn page_cap_and_failed_pages_keep_earlier_pages() {
    let options = legacy_options().with_max_pages(3);
    let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
    for method in LISTS {
        let task = spawn_listing(&client, method);
        for i in 0..3 {
            let req = peer.expect_request(method).await;
            let entries = json!([good(method, &format!("e{i}"))]);
            peer.respond(
                &req.id,
                json!({ member(method): entries, "nextCursor": format!("c{i}") }),
            )
            .await;
        }
        let (names, _, incomplete) = task.await.unwrap().unwrap();
        assert_eq!(names, ["e0", "e1", "e2"], "{method}");
        assert!(
            matches!(incomplete, Some(Incomplete::PageCap { pages: 3 })),
            "{method}: {incomplete:?}"
        );
        assert!(peer.try_next().is_none());

        let task = spawn_listing(&client, method);
        let req = peer.expect_request(method).await;
        let entries = json!([good(method, "kept")]);
        peer.respond(
            &req.id,
            json!({ member(method): entries, "nextCursor": "next" }),
        )
        .await;
        let req = peer.expect_request(method).await;
        peer.respond_error(
            &req.id,
            mcp_types::JsonRpcError::new(mcp_types::ErrorCode::INTERNAL_ERROR, "page 2 broke"),
        )
        .await;
        let (names, _, incomplete) = task.await.unwrap().unwrap();
        assert_eq!(names, ["kept"], "{method}");
        match incomplete {
            Some(Incomplete::PageFailed { pages: 1, error }) => {
                assert!(chain(&error).contains("page 2 broke"), "{error}")
            }
            other => panic!("{method}: {other:?}"),
        }

        // The first page failing still fails the listing.
        let task = spawn_listing(&client, method);
        let req = peer.expect_request(method).await;
        peer.respond_error(
            &req.id,
            mcp_types::JsonRpcError::new(mcp_types::ErrorCode::INTERNAL_ERROR, "down"),
        )
        .await;
        assert!(task.await.unwrap().is_err(), "{method}");
    }
}

/// B32: a tool result with `structuredContent` and no `content`, from a
/// handshake-revision server: `content` is `[]`, the structured content is
/// returned and validated against the tool's `outputSchema`.
#[tokio::test]
async fn b32_structured_content_without_content() {
    let (client, mut peer) = connect_full().await;
    let schema = json!({"type":"object","properties":{"things":{"type":"array","items":{"type":"string"}}},"required":["things"],"additionalProperties":false});
    let listed = tokio::spawn({
        let client = client.clone();
        async move { client.list_all_tools(Default::default()).await }
    });
    let req = peer.expect_request("tools/list").await;
    peer.respond(
        &req.id,
        json!({"tools": [{"name": "things", "inputSchema": {"type": "object"}, "outputSchema": schema}]}),
    )
    .await;
    listed.await.unwrap().unwrap();
    for (structured, valid) in [
        (json!({"things": ["a", "b"]}), true),
        (json!({"things": [1]}), false),
    ] {
        let call = tokio::spawn({
            let client = client.clone();
            async move { client.call_tool("things", (), CallOptions::default()).await }
        });
        let req = peer.expect_request("tools/call").await;
        peer.respond(&req.id, json!({ "structuredContent": structured }))
            .await;
        let outcome = call.await.unwrap();
        if valid {
            let result = outcome.unwrap();
            assert!(result.content.is_empty());
            assert_eq!(
                result.structured_content,
                Some(json!({"things": ["a", "b"]}))
            );
        } else {
            assert!(
                matches!(outcome, Err(ClientError::InvalidStructuredContent { .. })),
                "{outcome:?}"
            );
        }
    }
}

/// The same for a task-augmented call: `tasks/result` holds what
/// `tools/call` would have returned, and is forgiven by its rules.
#[tokio::test]
async fn b32_a_task_result_with_structured_content_only() {
    let (client, mut peer) = connect_full().await;
    let result = tokio::spawn({
        let client = client.clone();
        async move { client.tool_task_result("t1", Default::default()).await }
    });
    let req = peer.expect_request("tasks/result").await;
    peer.respond(
        &req.id,
        json!({"structuredContent": {"things": ["a"]}, "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}}),
    )
    .await;
    let result = result.await.unwrap().unwrap();
    assert!(result.content.is_empty());
    assert_eq!(result.structured_content, Some(json!({"things": ["a"]})));
}

/// Missing members with an obvious empty default, one per method that has
/// one, under each handshake revision; members that carry meaning
/// still fail with a message naming them.
#[tokio::test]
async fn missing_members_take_their_empty_default_in_the_handshake_revision() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let (client, mut peer) = connect_with(legacy_options(), version, full_caps()).await;
        for method in LISTS {
            let task = spawn_listing(&client, method);
            let req = peer.expect_request(method).await;
            peer.respond(&req.id, json!({})).await;
            let (names, problems, _) = task
                .await
                .unwrap()
                .unwrap_or_else(|e| panic!("{version} {method}: {e}"));
            assert!(
                names.is_empty() && problems.is_empty(),
                "{version} {method}"
            );
        }
        let call = tokio::spawn({
            let client = client.clone();
            async move { client.call_tool("t", (), CallOptions::default()).await }
        });
        let req = peer.expect_request("tools/call").await;
        peer.respond(&req.id, json!({"isError": true})).await;
        let result = call.await.unwrap().unwrap();
        assert!(
            result.content.is_empty() && result.is_error == Some(true),
            "{version}"
        );

        let get = tokio::spawn({
            let client = client.clone();
            async move { client.get_prompt("p", None, Default::default()).await }
        });
        let req = peer.expect_request("prompts/get").await;
        peer.respond(&req.id, json!({"description": "d"})).await;
        let prompt = get.await.unwrap().unwrap();
        assert!(prompt.messages.is_empty(), "{version}");

        let read = tokio::spawn({
            let client = client.clone();
            async move { client.read_resource("test://x", Default::default()).await }
        });
        let req = peer.expect_request("resources/read").await;
        peer.respond(&req.id, json!({})).await;
        assert!(
            read.await.unwrap().unwrap().contents.is_empty(),
            "{version}"
        );

        // A member that carries meaning is not defaulted: the result or
        // the entry fails, naming it.
        let read = tokio::spawn({
            let client = client.clone();
            async move { client.read_resource("test://x", Default::default()).await }
        });
        let req = peer.expect_request("resources/read").await;
        peer.respond(&req.id, json!({"contents": [{"text": "no uri"}]}))
            .await;
        let err = read.await.unwrap().unwrap_err();
        assert!(chain(&err).contains("uri"), "{version}: {err}");
    }
}

/// A member with an empty default written as `null` (a nil slice in Go)
/// takes the default as a missing one does, in every method that has one.
#[tokio::test]
async fn null_members_take_their_empty_default_in_the_handshake_revision() {
    let (client, mut peer) = connect_with(legacy_options(), "2025-11-25", full_caps()).await;
    for method in LISTS {
        let task = spawn_listing(&client, method);
        let req = peer.expect_request(method).await;
        peer.respond(&req.id, json!({ member(method): null })).await;
        let (names, problems, _) = task
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("{method}: {e}"));
        assert!(names.is_empty() && problems.is_empty(), "{method}");
    }
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("t", (), CallOptions::default()).await }
    });
    let req = peer.expect_request("tools/call").await;
    peer.respond(&req.id, json!({"content": null})).await;
    assert!(call.await.unwrap().unwrap().content.is_empty());
    let get = tokio::spawn({
        let client = client.clone();
        async move { client.get_prompt("p", None, Default::default()).await }
    });
    let req = peer.expect_request("prompts/get").await;
    peer.respond(&req.id, json!({"messages": null})).await;
    assert!(get.await.unwrap().unwrap().messages.is_empty());
    let read = tokio::spawn({
        let client = client.clone();
        async move { client.read_resource("test://x", Default::default()).await }
    });
    let req = peer.expect_request("resources/read").await;
    peer.respond(&req.id, json!({"contents": null})).await;
    assert!(read.await.unwrap().unwrap().contents.is_empty());
}

/// `initialize` without `capabilities` or `serverInfo` connects, with none
/// and an empty info block, and so does one whose `serverInfo` lacks its
/// `name` or `version` (empty); without `protocolVersion` it fails.
#[tokio::test]
async fn initialize_without_capabilities_or_server_info_connects() {
    for result in [
        json!({"protocolVersion": "2025-11-25"}),
        json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "s", "version": "1"}}),
        json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
        json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "s"}}),
        json!({"protocolVersion": "2025-11-25", "serverInfo": {"version": "1", "title": "S"}}),
        json!({"protocolVersion": "2024-11-05", "serverInfo": {"name": "s", "version": null}}),
    ] {
        let (transport, mut peer) = memory_pair();
        let server = tokio::spawn({
            let result = result.clone();
            async move {
                let init = peer.expect_request("initialize").await;
                peer.respond(&init.id, result).await;
                peer
            }
        });
        let client = Client::connect(transport, legacy_options())
            .await
            .unwrap_or_else(|e| panic!("{result}: {e}"));
        drop(server.await.unwrap());
        assert!(client.server_capabilities().tools.is_none(), "{result}");
    }
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let init = peer.expect_request("initialize").await;
        peer.respond(&init.id, json!({"capabilities": {}})).await;
        peer
    });
    let err = Client::connect(transport, legacy_options())
        .await
        .unwrap_err();
    assert!(chain(&err).contains("protocolVersion"), "{err}");
    drop(server.await.unwrap());
}

fn discover_result() -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}, "prompts": {}},
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "1"}}
    })
}

async fn connect_stateless(options: ClientOptions) -> (Client, MemoryPeer) {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let probe = peer.expect_request("server/discover").await;
        peer.respond(&probe.id, discover_result()).await;
        peer
    });
    let client = Client::connect(
        transport,
        options.with_version_preference(VersionPreference::Auto),
    )
    .await
    .unwrap();
    (client, server.await.unwrap())
}

/// Under 2026-07-28 the revision's schema is followed: no member is
/// defaulted (B32's result fails, naming `content`); a repeated cursor is
/// followed while it brings new entries, then stops.
#[tokio::test]
async fn the_stateless_revision_follows_its_schema() {
    let (client, mut peer) = connect_stateless(legacy_options()).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .call_tool(
                    "things",
                    (),
                    CallOptions::default().with_validate_arguments(false),
                )
                .await
        }
    });
    let req = peer.expect_request("tools/call").await;
    peer.respond(
        &req.id,
        json!({"resultType": "complete", "structuredContent": {"things": []}}),
    )
    .await;
    let err = call.await.unwrap().unwrap_err();
    assert!(matches!(err, ClientError::Decode { .. }), "{err:?}");
    assert!(chain(&err).contains("`content`"), "{err}");

    let task = spawn_listing(&client, "prompts/list");
    for (i, names) in [["a"], ["b"], ["b"]].iter().enumerate() {
        let req = peer.expect_request("prompts/list").await;
        let expected = (i > 0).then_some("same");
        assert_eq!(
            req.params
                .as_ref()
                .and_then(|p| p.get("cursor"))
                .and_then(Value::as_str),
            expected
        );
        peer.respond(
            &req.id,
            json!({"resultType": "complete", "prompts": [{"name": names[0]}], "nextCursor": "same"}),
        )
        .await;
    }
    let (names, _, incomplete) = task.await.unwrap().unwrap();
    assert_eq!(names, ["a", "b"]);
    assert!(
        matches!(incomplete, Some(Incomplete::CursorRepeated { pages: 3 })),
        "{incomplete:?}"
    );
}

/// B33: lone UTF-16 surrogate escapes read as U+FFFD, paired ones as their
/// character: in a result (the catalogue's bytes), a notification and a
/// server request.
#[tokio::test]
async fn b33_lone_surrogates_read_as_replacement_characters() {
    let handler = recorder();
    let options = legacy_options()
        .with_handler(handler.clone())
        .with_elicitation(ElicitationModes::form_and_url());
    let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
    let want = "bad high [\u{fffd}] bad low [\u{fffd}] good pair [\u{1f600}]";
    let escaped = r"bad high [\ud83d] bad low [\udc00] good pair [\ud83d\ude00]";
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("t", (), CallOptions::default()).await }
    });
    let req = peer.expect_request("tools/call").await;
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[{{"type":"text","text":"{escaped}"}}]}}}}"#,
        req.id
    );
    peer.send_raw(frame.as_bytes()).await;
    let result = call.await.unwrap().unwrap();
    assert_eq!(result.content[0].as_text(), Some(want));

    // Other shapes: a lone high before another escape, a lone low after
    // a pair, in a member name.
    let call = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .request_raw("tools/call", None, Default::default())
                .await
        }
    });
    let req = peer.expect_request("tools/call").await;
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"a":"\ud800\u0041","b":"\ud83d\ude00\udfff","\udc00":1}}}}"#,
        req.id
    );
    peer.send_raw(frame.as_bytes()).await;
    let value = call.await.unwrap().unwrap();
    assert_eq!(
        value,
        json!({"a": "\u{fffd}A", "b": "\u{1f600}\u{fffd}", "\u{fffd}": 1})
    );

    // A notification.
    let note = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{escaped}"}}}}"#
    );
    peer.send_raw(note.as_bytes()).await;
    let line = format!("log {}", json!(want));
    assert!(
        eventually(|| handler.seen().contains(&line)).await,
        "{:?}",
        handler.seen()
    );

    // A server request: answered, not refused as unreadable.
    let request = format!(
        r#"{{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{{"message":"{escaped}","requestedSchema":{{"type":"object","properties":{{}}}}}}}}"#
    );
    peer.send_raw(request.as_bytes()).await;
    let response = peer.expect_response(&"s1".to_owned().into()).await;
    assert!(response.outcome.is_ok(), "{response:?}");
    assert!(handler.seen().contains(&"elicit/form".to_owned()));
}
