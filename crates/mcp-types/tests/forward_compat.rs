//! Forward compatibility: content, members and enum values from newer peers
//! are kept, not rejected (cases B23 and B29 of `../shared/cases/catalogue.md`).

use mcp_types::content::ContentBlock;
use mcp_types::lifecycle::{ClientCapabilities, InitializeResult, ServerCapabilities};
use mcp_types::logging::{LoggingLevel, LoggingMessageNotificationParams};
use mcp_types::tools::{CallToolResult, ListToolsResult, Tool};
use mcp_types::{JsonRpcMessage, Paginated};
use serde_json::{Value, json};

/// B29: a tool result with `resource_link`, `audio` and an unknown
/// `hologram` block parses; known blocks are typed, the unknown one is kept
/// raw, `structuredContent` is preserved, and the result re-encodes unchanged.
#[test]
fn b29_unknown_content_type_is_kept() {
    let wire = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[
   {"type":"text","text":"ok"},
   {"type":"resource_link","uri":"file:///data/r.txt","name":"r.txt","mimeType":"text/plain"},
   {"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},
   {"type":"hologram","frames":[1,2,3],"annotations":{"audience":["user"]}}
  ],"structuredContent":{"ok":true},"isError":false}}"#;
    let JsonRpcMessage::Response(resp) = JsonRpcMessage::decode(wire).unwrap() else {
        panic!("not a response");
    };
    let raw = resp.outcome.unwrap();
    let result: CallToolResult = serde_json::from_value(raw.clone()).unwrap();
    assert_eq!(result.content.len(), 4);
    assert_eq!(result.content[0].as_text(), Some("ok"));
    match &result.content[1] {
        ContentBlock::ResourceLink(l) => {
            assert_eq!(l.uri, "file:///data/r.txt");
            assert_eq!(l.mime_type.as_deref(), Some("text/plain"));
        }
        other => panic!("expected resource_link, got {other:?}"),
    }
    assert!(matches!(&result.content[2], ContentBlock::Audio(a) if a.mime_type == "audio/wav"));
    match &result.content[3] {
        ContentBlock::Unknown(v) => {
            assert_eq!(
                v,
                &json!({"type":"hologram","frames":[1,2,3],"annotations":{"audience":["user"]}})
            );
        }
        other => panic!("expected Unknown, got {other:?}"),
    }
    assert_eq!(result.content[3].type_name(), "hologram");
    assert_eq!(result.structured_content, Some(json!({"ok": true})));
    assert_eq!(result.is_error, Some(false));
    assert_eq!(serde_json::to_value(&result).unwrap(), raw);
}

/// A known content type with a bad shape is an error, not silently Unknown.
#[test]
fn known_content_type_with_bad_shape_is_an_error() {
    let bad = json!({"content":[{"type":"text","text":42}]});
    assert!(serde_json::from_value::<CallToolResult>(bad).is_err());
}

/// Unknown members anywhere a `_meta`-carrying type or capability sits
/// survive a decode/encode round trip.
#[test]
fn unknown_members_round_trip() {
    let init = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {
            "tools": {"listChanged": true, "futureFlag": 1},
            "resources": {"subscribe": true},
            "newFeature": {"x": [1, 2]},
            "experimental": {"vendor/thing": {}}
        },
        "serverInfo": {"name": "s", "version": "1", "futureInfo": "y"},
        "_meta": {"vendor/trace": "abc"},
        "futureTop": {"nested": true}
    });
    let parsed: InitializeResult = serde_json::from_value(init.clone()).unwrap();
    assert_eq!(
        parsed.capabilities.extra.get("newFeature"),
        Some(&json!({"x": [1, 2]}))
    );
    assert_eq!(
        parsed.extra.get("futureTop"),
        Some(&json!({"nested": true}))
    );
    assert_eq!(serde_json::to_value(&parsed).unwrap(), init);

    let tools = json!({
        "tools": [{
            "name": "t",
            "inputSchema": {"type": "object", "$defs": {"a": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/a"}}, "additionalProperties": false},
            "outputSchema": {"type": "object", "unevaluatedProperties": false},
            "futureMember": [true]
        }],
        "nextCursor": "page-2",
        "futureListMember": 3
    });
    let parsed: ListToolsResult = serde_json::from_value(tools.clone()).unwrap();
    assert_eq!(parsed.next_cursor(), Some("page-2"));
    assert_eq!(serde_json::to_value(&parsed).unwrap(), tools);
    let items: Vec<Tool> = parsed.into_items();
    assert_eq!(items[0].input_schema["additionalProperties"], json!(false));

    let caps = json!({"roots": {}, "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}, "later": {}});
    let parsed: ClientCapabilities = serde_json::from_value(caps.clone()).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), caps);
    let parsed: ServerCapabilities =
        serde_json::from_value(json!({"tasks": {"list": {}, "requests": {"tools": {"call": {}}}}}))
            .unwrap();
    assert!(
        parsed
            .tasks
            .and_then(|t| t.requests)
            .and_then(|r| r.tools)
            .is_some()
    );
}

/// B23: `notifications/message` with level `"verbose"` is delivered leniently.
#[test]
fn b23_unknown_logging_level_is_lenient() {
    let wire = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"verbose","data":{"x":1}}}"#;
    let JsonRpcMessage::Notification(n) = JsonRpcMessage::decode(wire).unwrap() else {
        panic!("not a notification");
    };
    let params: LoggingMessageNotificationParams =
        serde_json::from_value(n.params.clone().unwrap()).unwrap();
    assert_eq!(params.level, LoggingLevel::Other("verbose".into()));
    assert_eq!(params.level.severity(), None);
    assert_eq!(params.data, json!({"x": 1}));
    assert_eq!(serde_json::to_value(&params).unwrap(), n.params.unwrap());
    let known: LoggingLevel = serde_json::from_value(Value::from("warning")).unwrap();
    assert_eq!(known, LoggingLevel::Warning);
    assert_eq!(known.severity(), Some(3));
}
