//! Messages built from this crate's types validate against the official
//! JSON schema of the revision they are sent in
//! (`../shared/spec/schema/<revision>/schema.json`), both as a
//! `JSONRPCMessage` and as the specific request / notification / result
//! definition. Ignored (with that reason) by a plain `cargo test`, since `../shared` may be
//! absent; `cargo xtask test` runs them when it is there.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::path::PathBuf;

use mcp_types::completion::{
    Complete, CompleteRequestParams, CompletionArgument, CompletionReference, PromptReference,
};
use mcp_types::content::{TextContent, ToolUseContent};
use mcp_types::discovery::Discover;
use mcp_types::elicitation::{ElicitAction, ElicitResult};
use mcp_types::input::{InputResponse, InputResponses};
use mcp_types::lifecycle::{
    ClientCapabilities, ElicitationCapability, Initialize, InitializeRequestParams, Initialized,
    Ping, RootsCapability, SamplingCapability,
};
use mcp_types::logging::{LoggingLevel, SetLevel, SetLevelRequestParams};
use mcp_types::notifications::{
    Cancelled, CancelledNotificationParams, ProgressNotification, ProgressNotificationParams,
    RootsListChanged,
};
use mcp_types::prompts::{GetPrompt, GetPromptRequestParams};
use mcp_types::resources::{ReadResource, ReadResourceRequestParams, ResourceUriParams, Subscribe};
use mcp_types::roots::{ListRootsResult, Root};
use mcp_types::sampling::{CreateMessageResult, SamplingContent, SamplingContentBlock, StopReason};
use mcp_types::subscriptions::{SubscriptionFilter, SubscriptionsListen, SubscriptionsParams};
use mcp_types::tasks::{GetTask, TaskIdParams};
use mcp_types::tools::{CallTool, CallToolRequestParams, ListTools};
use mcp_types::{
    EmptyParams, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Meta,
    Notification, Request, RequestId,
};
use mcp_types::{
    EmptyResult, Implementation, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION,
    PaginatedParams, Role,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

struct Schema {
    revision: &'static str,
    root: Value,
    defs_key: &'static str,
}

impl Schema {
    fn load(revision: &'static str) -> Option<Schema> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/spec/schema")
            .join(revision)
            .join("schema.json");
        let bytes = std::fs::read(&path).ok()?;
        let root: Value = serde_json::from_slice(&bytes).expect("schema.json is JSON");
        let defs_key = if root.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        Some(Schema {
            revision,
            root,
            defs_key,
        })
    }

    fn has(&self, def: &str) -> bool {
        self.root[self.defs_key].get(def).is_some()
    }

    /// Validates `instance` against definition `def`; panics with every error.
    fn check(&self, def: &str, instance: &Value) {
        let errors = self.errors(def, instance);
        assert!(
            errors.is_empty(),
            "{} {def}: {instance}\n  {}",
            self.revision,
            errors.join("\n  ")
        );
    }

    fn errors(&self, def: &str, instance: &Value) -> Vec<String> {
        assert!(self.has(def), "{} has no definition {def}", self.revision);
        let mut schema = self.root.clone();
        schema["$ref"] = Value::String(format!("#/{}/{def}", self.defs_key));
        let validator = jsonschema::validator_for(&schema).expect("schema compiles");
        validator
            .iter_errors(instance)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect()
    }
}

/// The schema of `revision`; a test that asked for it fails without it (these tests
/// are ignored unless asked for, so a missing file is not a skip but an error).
fn schema(revision: &'static str) -> Schema {
    Schema::load(revision).unwrap_or_else(|| {
        panic!("../shared/spec/schema/{revision}/schema.json is absent (the test needs ../shared)")
    })
}

fn request<R: Request>(id: i64, params: &R::Params) -> Value {
    let msg = JsonRpcMessage::Request(JsonRpcRequest {
        id: RequestId::Number(id),
        method: R::METHOD.into(),
        params: Some(serde_json::to_value(params).unwrap()),
    });
    serde_json::to_value(&msg).unwrap()
}

fn notification<N: Notification>(params: &N::Params) -> Value {
    let msg = JsonRpcMessage::Notification(JsonRpcNotification {
        method: N::METHOD.into(),
        params: Some(serde_json::to_value(params).unwrap()),
    });
    serde_json::to_value(&msg).unwrap()
}

fn response<T: Serialize>(id: RequestId, result: &T) -> Value {
    let msg = JsonRpcMessage::Response(JsonRpcResponse::result(
        id,
        serde_json::to_value(result).unwrap(),
    ));
    serde_json::to_value(&msg).unwrap()
}

fn check_message(s: &Schema, def: &str, msg: &Value) {
    s.check("JSONRPCMessage", msg);
    s.check(def, msg);
}

fn client_capabilities(revision: &str) -> ClientCapabilities {
    let mut caps = ClientCapabilities {
        roots: Some(RootsCapability {
            list_changed: Some(true),
            ..Default::default()
        }),
        sampling: Some(SamplingCapability::default()),
        ..Default::default()
    };
    if revision >= "2025-06-18" {
        caps.elicitation = Some(ElicitationCapability::default());
    }
    if revision >= "2025-11-25" {
        caps.elicitation = Some(ElicitationCapability {
            form: Some(Map::new()),
            url: Some(Map::new()),
            ..Default::default()
        });
        caps.sampling = Some(SamplingCapability {
            tools: Some(Map::new()),
            ..Default::default()
        });
    }
    caps
}

fn text_sampling_result() -> CreateMessageResult {
    CreateMessageResult {
        role: Role::Assistant,
        content: SamplingContent::Single(SamplingContentBlock::Text(TextContent::new("Paris"))),
        model: "m".into(),
        stop_reason: Some(StopReason::EndTurn),
        meta: None,
        extra: Map::new(),
    }
}

fn roots_result() -> ListRootsResult {
    ListRootsResult {
        roots: vec![Root {
            uri: "file:///work".into(),
            name: Some("work".into()),
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
#[ignore = "needs ../shared/spec beside the clone; cargo xtask test runs it when present"]
fn legacy_client_messages_validate() {
    for revision in LEGACY {
        let s = schema(revision);

        let init = InitializeRequestParams {
            protocol_version: revision.into(),
            capabilities: client_capabilities(revision),
            client_info: Implementation::new("mcp-client", "0.1.0"),
            ..Default::default()
        };
        check_message(&s, "InitializeRequest", &request::<Initialize>(1, &init));
        check_message(
            &s,
            "InitializedNotification",
            &notification::<Initialized>(&EmptyParams::default()),
        );
        check_message(
            &s,
            "PingRequest",
            &request::<Ping>(2, &EmptyParams::default()),
        );
        check_message(
            &s,
            "ListToolsRequest",
            &request::<ListTools>(3, &PaginatedParams::with_cursor(Some("c2".into()))),
        );
        let mut args = Map::new();
        args.insert("q".into(), json!("rust"));
        check_message(
            &s,
            "CallToolRequest",
            &request::<CallTool>(4, &CallToolRequestParams::new("search", Some(args))),
        );
        check_message(
            &s,
            "ReadResourceRequest",
            &request::<ReadResource>(
                5,
                &ReadResourceRequestParams {
                    uri: "file:///a".into(),
                    ..Default::default()
                },
            ),
        );
        check_message(
            &s,
            "SubscribeRequest",
            &request::<Subscribe>(6, &ResourceUriParams::new("file:///a")),
        );
        check_message(
            &s,
            "GetPromptRequest",
            &request::<GetPrompt>(
                7,
                &GetPromptRequestParams {
                    name: "p".into(),
                    ..Default::default()
                },
            ),
        );
        check_message(
            &s,
            "SetLevelRequest",
            &request::<SetLevel>(
                8,
                &SetLevelRequestParams {
                    level: LoggingLevel::Warning,
                    meta: None,
                    extra: Map::new(),
                },
            ),
        );
        let complete = CompleteRequestParams {
            reference: CompletionReference::Prompt(PromptReference {
                name: "p".into(),
                ..Default::default()
            }),
            argument: CompletionArgument {
                name: "a".into(),
                value: "x".into(),
                extra: Map::new(),
            },
            context: None,
            meta: None,
            extra: Map::new(),
        };
        check_message(&s, "CompleteRequest", &request::<Complete>(9, &complete));
        check_message(
            &s,
            "CancelledNotification",
            &notification::<Cancelled>(&CancelledNotificationParams::new(
                RequestId::Number(4),
                Some("timeout".into()),
            )),
        );
        let progress = ProgressNotificationParams {
            progress_token: RequestId::from("tok"),
            progress: 3.0,
            total: Some(10.0),
            message: None,
            meta: None,
            extra: Map::new(),
        };
        check_message(
            &s,
            "ProgressNotification",
            &notification::<ProgressNotification>(&progress),
        );
        check_message(
            &s,
            "RootsListChangedNotification",
            &notification::<RootsListChanged>(&EmptyParams::default()),
        );

        // Responses the client sends to server requests.
        let id = RequestId::from("srv-1");
        check_message(
            &s,
            "JSONRPCResponse",
            &response(id.clone(), &EmptyResult::default()),
        );
        s.check(
            "ListRootsResult",
            &serde_json::to_value(roots_result()).unwrap(),
        );
        check_message(
            &s,
            "JSONRPCResponse",
            &response(id.clone(), &roots_result()),
        );
        s.check(
            "CreateMessageResult",
            &serde_json::to_value(text_sampling_result()).unwrap(),
        );
        if s.has("ElicitResult") {
            let mut content = Map::new();
            content.insert("name".into(), json!("octocat"));
            let r = ElicitResult {
                content: Some(content),
                ..ElicitResult::new(ElicitAction::Accept)
            };
            s.check("ElicitResult", &serde_json::to_value(&r).unwrap());
            s.check(
                "ElicitResult",
                &serde_json::to_value(ElicitResult::new(ElicitAction::Decline)).unwrap(),
            );
        }
    }
}

#[test]
#[ignore = "needs ../shared/spec beside the clone; cargo xtask test runs it when present"]
fn tasks_and_sampling_tools_validate_2025_11_25() {
    let s = schema("2025-11-25");
    check_message(
        &s,
        "GetTaskRequest",
        &request::<GetTask>(
            1,
            &TaskIdParams {
                task_id: "t1".into(),
                ..Default::default()
            },
        ),
    );
    let mut input = Map::new();
    input.insert("city".into(), json!("Paris"));
    let r = CreateMessageResult {
        content: SamplingContent::Multiple(vec![SamplingContentBlock::ToolUse(ToolUseContent {
            id: "u1".into(),
            name: "weather".into(),
            input,
            ..Default::default()
        })]),
        stop_reason: Some(StopReason::ToolUse),
        ..text_sampling_result()
    };
    s.check("CreateMessageResult", &serde_json::to_value(&r).unwrap());
}

fn stateless_meta() -> Meta {
    let mut meta = Map::new();
    meta.insert(META_PROTOCOL_VERSION.into(), json!("2026-07-28"));
    meta.insert(
        META_CLIENT_INFO.into(),
        serde_json::to_value(Implementation::new("mcp-client", "0.1.0")).unwrap(),
    );
    meta.insert(
        META_CLIENT_CAPABILITIES.into(),
        serde_json::to_value(ClientCapabilities::default()).unwrap(),
    );
    meta
}

#[test]
#[ignore = "needs ../shared/spec beside the clone; cargo xtask test runs it when present"]
fn modern_client_messages_validate_2026_07_28() {
    let s = schema("2026-07-28");
    let meta = Some(stateless_meta());
    check_message(
        &s,
        "DiscoverRequest",
        &request::<Discover>(
            1,
            &EmptyParams {
                meta: meta.clone(),
                ..Default::default()
            },
        ),
    );
    check_message(
        &s,
        "ListToolsRequest",
        &request::<ListTools>(
            2,
            &PaginatedParams {
                meta: meta.clone(),
                ..Default::default()
            },
        ),
    );

    // A retried tools/call answering an elicitation and a sampling input request.
    let mut content = Map::new();
    content.insert("name".into(), json!("octocat"));
    let mut responses = InputResponses::new();
    responses.insert(
        "github_login".into(),
        InputResponse::Elicit(ElicitResult {
            content: Some(content),
            ..ElicitResult::new(ElicitAction::Accept)
        }),
    );
    responses.insert(
        "capital".into(),
        InputResponse::CreateMessage(text_sampling_result()),
    );
    responses.insert("roots".into(), InputResponse::ListRoots(roots_result()));
    s.check("InputResponses", &serde_json::to_value(&responses).unwrap());
    let call = CallToolRequestParams {
        input_responses: Some(responses),
        request_state: Some("opaque".into()),
        meta: meta.clone(),
        ..CallToolRequestParams::new("get_weather", None)
    };
    check_message(&s, "CallToolRequest", &request::<CallTool>(3, &call));

    let listen = SubscriptionsParams {
        notifications: SubscriptionFilter {
            tools_list_changed: Some(true),
            ..Default::default()
        },
        meta: meta.clone(),
        extra: Map::new(),
    };
    check_message(
        &s,
        "SubscriptionsListenRequest",
        &request::<SubscriptionsListen>(4, &listen),
    );
    check_message(
        &s,
        "CancelledNotification",
        &notification::<Cancelled>(&CancelledNotificationParams::new(
            RequestId::Number(3),
            None,
        )),
    );
}

/// The harness itself can fail: a message missing a required member is rejected.
#[test]
#[ignore = "needs ../shared/spec beside the clone; cargo xtask test runs it when present"]
fn invalid_messages_are_rejected() {
    let s = schema("2025-11-25");
    let bad =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}});
    assert!(!s.errors("CallToolRequest", &bad).is_empty());
    let old = schema("2024-11-05");
    let no_client_info = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2024-11-05", "capabilities": {}}});
    assert!(!old.errors("InitializeRequest", &no_client_info).is_empty());
    let m = schema("2026-07-28");
    // 2026-07-28 requests must carry the protocol version in _meta.
    let no_meta = request::<CallTool>(1, &CallToolRequestParams::new("x", None));
    assert!(!m.errors("CallToolRequest", &no_meta).is_empty());
}
