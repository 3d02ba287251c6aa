//! Every example of the 2026-07-28 schema
//! (`../shared/spec/schema/2026-07-28/examples/<TypeName>/*.json`) decodes
//! into the Rust type for `<TypeName>` and re-encodes to equal JSON.
//!
//! Types this crate deliberately does not model are listed in
//! [`NOT_MODELLED`] with a reason; a directory in neither table fails the test.
//! Ignored (with that reason) by a plain `cargo test`, since `../shared` may be absent;
//! `cargo xtask test` runs them when it is there.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::path::PathBuf;

use mcp_types::completion::{Complete, CompleteRequestParams, CompleteResult};
use mcp_types::content::{ContentBlock, ResourceContents};
use mcp_types::discovery::{Discover, DiscoverResult};
use mcp_types::elicitation::{Elicit, ElicitRequestParams, ElicitResult};
use mcp_types::errors::{MissingRequiredClientCapabilityData, UnsupportedProtocolVersionData};
use mcp_types::input::{InputRequests, InputRequiredOr, InputRequiredResult, InputResponses};
use mcp_types::lifecycle::{ClientCapabilities, ServerCapabilities};
use mcp_types::logging::{LoggingMessage, LoggingMessageNotificationParams};
use mcp_types::notifications::{
    Cancelled, CancelledNotificationParams, ProgressNotification, ProgressNotificationParams,
    PromptListChanged, ResourceListChanged, ToolListChanged,
};
use mcp_types::prompts::{
    GetPrompt, GetPromptRequestParams, GetPromptResult, ListPrompts, ListPromptsResult,
};
use mcp_types::resources::{
    ListResourceTemplates, ListResourceTemplatesResult, ListResources, ListResourcesResult,
    ReadResource, ReadResourceResult, Resource, ResourceUpdated, ResourceUriParams,
};
use mcp_types::roots::{ListRoots, ListRootsResult, Root};
use mcp_types::sampling::{
    CreateMessage, CreateMessageRequestParams, CreateMessageResult, ModelPreferences,
    SamplingContentBlock, SamplingMessage,
};
use mcp_types::subscriptions::{
    SubscriptionsAcknowledged, SubscriptionsListen, SubscriptionsListenResult,
};
use mcp_types::tools::{
    CallTool, CallToolRequestParams, CallToolResult, ListTools, ListToolsResult, Tool,
};
use mcp_types::{JsonRpcError, JsonRpcMessage, Notification, PaginatedParams, Request};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

type Check = fn(&Value) -> Result<Value, String>;

/// The examples directory; a test that asked for it fails without it (these tests are
/// ignored unless asked for, so a missing directory is not a skip but an error).
fn shared_examples() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/spec/schema/2026-07-28/examples");
    assert!(
        dir.is_dir(),
        "../shared/spec/schema/2026-07-28/examples is absent (the test needs ../shared)"
    );
    dir
}

fn roundtrip<T: DeserializeOwned + Serialize>(v: &Value) -> Result<(T, Value), String> {
    let t: T = serde_json::from_value(v.clone()).map_err(|e| format!("decode: {e}"))?;
    let out = serde_json::to_value(&t).map_err(|e| format!("encode: {e}"))?;
    Ok((t, out))
}

/// Decodes a plain schema type.
fn plain<T: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, String> {
    roundtrip::<T>(v).map(|(_, out)| out)
}

/// Replaces member `key` of an envelope object by its decoded-and-re-encoded `T`.
fn member<T: DeserializeOwned + Serialize>(v: &Value, key: &str) -> Result<Value, String> {
    let mut obj = v.as_object().ok_or("not an object")?.clone();
    if let Some(inner) = obj.get(key) {
        let out = plain::<T>(inner)?;
        obj.insert(key.to_owned(), out);
    }
    Ok(Value::Object(obj))
}

fn method_is(v: &Value, method: &str) -> Result<(), String> {
    match v.get("method").and_then(Value::as_str) {
        Some(m) if m == method => Ok(()),
        other => Err(format!("method {other:?}, expected {method:?}")),
    }
}

/// A request envelope (possibly without `jsonrpc`/`id`, as input requests are).
fn request<R: Request>(v: &Value) -> Result<Value, String> {
    method_is(v, R::METHOD)?;
    member::<R::Params>(v, "params")
}

/// A notification envelope.
fn notification<N: Notification>(v: &Value) -> Result<Value, String> {
    method_is(v, N::METHOD)?;
    if v.get("id").is_some() {
        return Err("a notification has no id".into());
    }
    member::<N::Params>(v, "params")
}

/// A result response envelope, classified by [`JsonRpcMessage::from_value`].
fn response<T: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, String> {
    match JsonRpcMessage::from_value(v.clone()).map_err(|e| e.to_string())? {
        JsonRpcMessage::Response(r) if r.outcome.is_ok() => member::<T>(v, "result"),
        other => Err(format!("not a result response: {other:?}")),
    }
}

/// An error response envelope whose `data` decodes as `D`.
fn error_response<D: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, String> {
    let msg = JsonRpcMessage::from_value(v.clone()).map_err(|e| e.to_string())?;
    let JsonRpcMessage::Response(r) = &msg else {
        return Err("not a response".into());
    };
    let err = r.outcome.as_ref().err().ok_or("not an error response")?;
    let mut out = serde_json::to_value(&msg).map_err(|e| e.to_string())?;
    if let Some(data) = &err.data {
        out["error"]["data"] = plain::<D>(data)?;
    }
    Ok(out)
}

fn error_response_untyped(v: &Value) -> Result<Value, String> {
    error_response::<Value>(v)
}

fn content_block(v: &Value) -> Result<Value, String> {
    let (b, out) = roundtrip::<ContentBlock>(v)?;
    if matches!(b, ContentBlock::Unknown(_)) {
        return Err("decoded as Unknown".into());
    }
    Ok(out)
}

fn sampling_block(v: &Value) -> Result<Value, String> {
    let (b, out) = roundtrip::<SamplingContentBlock>(v)?;
    if matches!(b, SamplingContentBlock::Unknown(_)) {
        return Err("decoded as Unknown".into());
    }
    Ok(out)
}

fn text_contents(v: &Value) -> Result<Value, String> {
    match roundtrip::<ResourceContents>(v)? {
        (ResourceContents::Text(_), out) => Ok(out),
        _ => Err("expected text contents".into()),
    }
}

fn blob_contents(v: &Value) -> Result<Value, String> {
    match roundtrip::<ResourceContents>(v)? {
        (ResourceContents::Blob(_), out) => Ok(out),
        _ => Err("expected blob contents".into()),
    }
}

fn elicit_form(v: &Value) -> Result<Value, String> {
    match roundtrip::<ElicitRequestParams>(v)? {
        (ElicitRequestParams::Form(_), out) => Ok(out),
        (other, _) => Err(format!("expected form mode, got {other:?}")),
    }
}

fn elicit_url(v: &Value) -> Result<Value, String> {
    match roundtrip::<ElicitRequestParams>(v)? {
        (ElicitRequestParams::Url(_), out) => Ok(out),
        (other, _) => Err(format!("expected URL mode, got {other:?}")),
    }
}

fn input_required(v: &Value) -> Result<Value, String> {
    let (r, out) = roundtrip::<InputRequiredOr<Value>>(v)?;
    match r {
        InputRequiredOr::InputRequired(_) => plain::<InputRequiredResult>(v).and(Ok(out)),
        InputRequiredOr::Complete(_) => Err("expected input_required".into()),
    }
}

const TABLE: &[(&str, Check)] = &[
    ("AudioContent", content_block),
    ("BlobResourceContents", blob_contents),
    ("CallToolRequest", request::<CallTool>),
    ("CallToolRequestParams", plain::<CallToolRequestParams>),
    ("CallToolResult", plain::<CallToolResult>),
    (
        "CallToolResultResponse",
        response::<InputRequiredOr<CallToolResult>>,
    ),
    ("CancelledNotification", notification::<Cancelled>),
    (
        "CancelledNotificationParams",
        plain::<CancelledNotificationParams>,
    ),
    ("ClientCapabilities", plain::<ClientCapabilities>),
    ("CompleteRequest", request::<Complete>),
    ("CompleteRequestParams", plain::<CompleteRequestParams>),
    ("CompleteResult", plain::<CompleteResult>),
    ("CompleteResultResponse", response::<CompleteResult>),
    ("CreateMessageRequest", request::<CreateMessage>),
    (
        "CreateMessageRequestParams",
        plain::<CreateMessageRequestParams>,
    ),
    ("CreateMessageResult", plain::<CreateMessageResult>),
    ("DiscoverRequest", request::<Discover>),
    ("DiscoverResult", plain::<DiscoverResult>),
    ("DiscoverResultResponse", response::<DiscoverResult>),
    ("ElicitRequest", request::<Elicit>),
    ("ElicitRequestFormParams", elicit_form),
    ("ElicitRequestURLParams", elicit_url),
    ("ElicitResult", plain::<ElicitResult>),
    ("EmbeddedResource", content_block),
    ("GetPromptRequest", request::<GetPrompt>),
    ("GetPromptRequestParams", plain::<GetPromptRequestParams>),
    ("GetPromptResult", plain::<GetPromptResult>),
    (
        "GetPromptResultResponse",
        response::<InputRequiredOr<GetPromptResult>>,
    ),
    ("HeaderMismatchError", error_response_untyped),
    ("ImageContent", content_block),
    ("InputRequests", plain::<InputRequests>),
    ("InputRequiredResult", input_required),
    ("InputResponses", plain::<InputResponses>),
    ("InternalError", plain::<JsonRpcError>),
    ("InvalidParamsError", plain::<JsonRpcError>),
    ("ListPromptsRequest", request::<ListPrompts>),
    ("ListPromptsResult", plain::<ListPromptsResult>),
    ("ListPromptsResultResponse", response::<ListPromptsResult>),
    (
        "ListResourceTemplatesRequest",
        request::<ListResourceTemplates>,
    ),
    (
        "ListResourceTemplatesResult",
        plain::<ListResourceTemplatesResult>,
    ),
    (
        "ListResourceTemplatesResultResponse",
        response::<ListResourceTemplatesResult>,
    ),
    ("ListResourcesRequest", request::<ListResources>),
    ("ListResourcesResult", plain::<ListResourcesResult>),
    (
        "ListResourcesResultResponse",
        response::<ListResourcesResult>,
    ),
    ("ListRootsRequest", request::<ListRoots>),
    ("ListRootsResult", plain::<ListRootsResult>),
    ("ListToolsRequest", request::<ListTools>),
    ("ListToolsResult", plain::<ListToolsResult>),
    ("ListToolsResultResponse", response::<ListToolsResult>),
    ("LoggingMessageNotification", notification::<LoggingMessage>),
    (
        "LoggingMessageNotificationParams",
        plain::<LoggingMessageNotificationParams>,
    ),
    ("MethodNotFoundError", plain::<JsonRpcError>),
    (
        "MissingRequiredClientCapabilityError",
        error_response::<MissingRequiredClientCapabilityData>,
    ),
    ("ModelPreferences", plain::<ModelPreferences>),
    ("PaginatedRequestParams", plain::<PaginatedParams>),
    ("ParseError", plain::<JsonRpcError>),
    ("ProgressNotification", notification::<ProgressNotification>),
    (
        "ProgressNotificationParams",
        plain::<ProgressNotificationParams>,
    ),
    (
        "PromptListChangedNotification",
        notification::<PromptListChanged>,
    ),
    ("ReadResourceRequest", request::<ReadResource>),
    ("ReadResourceResult", plain::<ReadResourceResult>),
    (
        "ReadResourceResultResponse",
        response::<InputRequiredOr<ReadResourceResult>>,
    ),
    ("Resource", plain::<Resource>),
    ("ResourceLink", content_block),
    (
        "ResourceListChangedNotification",
        notification::<ResourceListChanged>,
    ),
    (
        "ResourceUpdatedNotification",
        notification::<ResourceUpdated>,
    ),
    (
        "ResourceUpdatedNotificationParams",
        plain::<ResourceUriParams>,
    ),
    ("Root", plain::<Root>),
    ("SamplingMessage", plain::<SamplingMessage>),
    ("ServerCapabilities", plain::<ServerCapabilities>),
    (
        "SubscriptionsAcknowledgedNotification",
        notification::<SubscriptionsAcknowledged>,
    ),
    ("SubscriptionsListenRequest", request::<SubscriptionsListen>),
    (
        "SubscriptionsListenResult",
        plain::<SubscriptionsListenResult>,
    ),
    (
        "SubscriptionsListenResultResponse",
        response::<SubscriptionsListenResult>,
    ),
    ("TextContent", content_block),
    ("TextResourceContents", text_contents),
    ("Tool", plain::<Tool>),
    (
        "ToolListChangedNotification",
        notification::<ToolListChanged>,
    ),
    ("ToolResultContent", sampling_block),
    ("ToolUseContent", sampling_block),
    (
        "UnsupportedProtocolVersionError",
        error_response::<UnsupportedProtocolVersionData>,
    ),
];

/// Examples of types kept as raw JSON on purpose. Each is still checked:
/// embedded as a property of an elicitation `requestedSchema`, it must
/// round-trip through [`ElicitRequestParams`] unchanged.
const NOT_MODELLED: &[(&str, &str)] = &[
    (
        "BooleanSchema",
        "elicitation primitive schemas stay raw JSON inside requestedSchema",
    ),
    (
        "NumberSchema",
        "elicitation primitive schemas stay raw JSON inside requestedSchema",
    ),
    (
        "StringSchema",
        "elicitation primitive schemas stay raw JSON inside requestedSchema",
    ),
    (
        "TitledMultiSelectEnumSchema",
        "elicitation enum schemas stay raw JSON inside requestedSchema",
    ),
    (
        "TitledSingleSelectEnumSchema",
        "elicitation enum schemas stay raw JSON inside requestedSchema",
    ),
    (
        "UntitledMultiSelectEnumSchema",
        "elicitation enum schemas stay raw JSON inside requestedSchema",
    ),
    (
        "UntitledSingleSelectEnumSchema",
        "elicitation enum schemas stay raw JSON inside requestedSchema",
    ),
];

fn read_examples(dir: &PathBuf) -> Vec<(String, PathBuf, Value)> {
    let mut out = Vec::new();
    let mut types: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    types.sort();
    for tdir in types.into_iter().filter(|p| p.is_dir()) {
        let name = tdir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(&tdir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "json"))
        {
            let v: Value = serde_json::from_slice(&std::fs::read(&f).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            out.push((name.clone(), f, v));
        }
    }
    out
}

#[test]
#[ignore = "needs ../shared/spec beside the clone; cargo xtask test runs it when present"]
fn every_example_roundtrips() {
    let dir = shared_examples();
    let examples = read_examples(&dir);
    assert!(
        examples.len() > 100,
        "expected the full example set, found {}",
        examples.len()
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, path, value) in &examples {
        if let Some((_, check)) = TABLE.iter().find(|(n, _)| n == name) {
            checked += 1;
            match check(value) {
                Ok(out) if &out == value => {}
                Ok(out) => failures.push(format!(
                    "{}: re-encoded differently\n  in:  {value}\n  out: {out}",
                    path.display()
                )),
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        } else if let Some((_, reason)) = NOT_MODELLED.iter().find(|(n, _)| n == name) {
            println!("not modelled: {name} ({reason})");
            let params = json!({
                "message": "m",
                "requestedSchema": {"type": "object", "properties": {"x": value}}
            });
            match plain::<ElicitRequestParams>(&params) {
                Ok(out) if out == params => {}
                other => {
                    failures.push(format!("{}: embedded round trip {other:?}", path.display()))
                }
            }
        } else {
            failures.push(format!(
                "{}: type {name} is in neither TABLE nor NOT_MODELLED",
                path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!("{checked} examples round-tripped");
}

#[test]
#[ignore = "needs ../shared/spec beside the clone; cargo xtask test runs it when present"]
fn table_names_exist_in_examples() {
    let dir = shared_examples();
    for (name, _) in TABLE.iter().map(|(n, c)| (n, c)) {
        assert!(
            dir.join(name).is_dir(),
            "TABLE names {name}, which has no examples"
        );
    }
}
