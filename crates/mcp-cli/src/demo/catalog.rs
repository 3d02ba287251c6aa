//! The demo server's resource (`demo://readme`), prompt (`greet`) and
//! argument completion (spec `server/resources`, `server/prompts`,
//! `server/utilities/completion`).

use std::collections::BTreeMap;

use mcp_types::completion::{CompleteRequestParams, CompletionReference};
use mcp_types::content::{ContentBlock, ResourceContents, TextResourceContents};
use mcp_types::prompts::{
    GetPromptRequestParams, GetPromptResult, Prompt, PromptArgument, PromptMessage,
};
use mcp_types::resources::{ReadResourceResult, Resource, ResourceUriParams};
use mcp_types::{ErrorCode, JsonRpcError};
use serde_json::{Map, Value, json};

use super::params::{parse_params, to_value};

/// The URI of the demo's one resource.
pub(super) const README_URI: &str = "demo://readme";

/// The text of `demo://readme`.
pub(super) const README_TEXT: &str = "# mcp demo server\n\nBuilt into the `mcp` binary (`mcp serve-demo`). \
Tools: echo, add, countdown, fail, ask_name. Prompt: greet. This text is the resource demo://readme.\n";

/// Names that `completion/complete` offers for `greet`'s `name` argument.
pub(super) const NAMES: [&str; 6] = ["Ada", "Alan", "Barbara", "Edsger", "Grace", "Linus"];

/// The resources, as `resources/list` returns them.
pub(super) fn resources() -> Vec<Resource> {
    vec![Resource {
        uri: README_URI.into(),
        name: "readme".into(),
        title: Some("About the demo server".into()),
        mime_type: Some("text/markdown".into()),
        size: Some(README_TEXT.len() as u64),
        ..Default::default()
    }]
}

/// `resources/read`: `-32002` for an unknown URI.
pub(super) fn read_resource(params: Option<&Value>) -> Result<Value, JsonRpcError> {
    let p: ResourceUriParams = parse_params(params)?;
    if p.uri != README_URI {
        return Err(JsonRpcError {
            code: ErrorCode::RESOURCE_NOT_FOUND,
            message: "Resource not found".into(),
            data: Some(json!({ "uri": p.uri })),
        });
    }
    to_value(ReadResourceResult {
        contents: vec![ResourceContents::Text(TextResourceContents {
            uri: README_URI.into(),
            mime_type: Some("text/markdown".into()),
            text: README_TEXT.into(),
            ..Default::default()
        })],
        ..Default::default()
    })
}

/// The prompts, as `prompts/list` returns them.
pub(super) fn prompts() -> Vec<Prompt> {
    vec![Prompt {
        name: "greet".into(),
        title: Some("Greet someone".into()),
        description: Some("A prompt asking the model to greet a person by name.".into()),
        arguments: Some(vec![PromptArgument {
            name: "name".into(),
            description: Some("Who to greet".into()),
            required: Some(true),
            ..Default::default()
        }]),
        ..Default::default()
    }]
}

/// `prompts/get`: `-32602` for an unknown prompt or a missing argument.
pub(super) fn get_prompt(params: Option<&Value>) -> Result<Value, JsonRpcError> {
    let p: GetPromptRequestParams = parse_params(params)?;
    if p.name != "greet" {
        return Err(JsonRpcError::new(
            ErrorCode::INVALID_PARAMS,
            format!("unknown prompt {:?}", p.name),
        ));
    }
    let args: BTreeMap<String, String> = p.arguments.unwrap_or_default();
    let name = args
        .get("name")
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            JsonRpcError::new(
                ErrorCode::INVALID_PARAMS,
                "missing required argument \"name\"",
            )
        })?;
    to_value(GetPromptResult {
        description: Some(format!("Greeting for {name}")),
        messages: vec![PromptMessage {
            role: mcp_types::Role::User,
            content: ContentBlock::text(format!("Please greet {name} warmly, in one sentence.")),
            extra: Map::new(),
        }],
        ..Default::default()
    })
}

/// `completion/complete`: names for `greet`'s `name` starting with the
/// typed value (case-insensitive); nothing for anything else.
pub(super) fn complete(params: Option<&Value>) -> Result<Value, JsonRpcError> {
    let p: CompleteRequestParams = parse_params(params)?;
    let values: Vec<&str> = match &p.reference {
        CompletionReference::Prompt(r) if r.name == "greet" && p.argument.name == "name" => {
            let typed = p.argument.value.to_lowercase();
            NAMES
                .iter()
                .copied()
                .filter(|n| n.to_lowercase().starts_with(&typed))
                .collect()
        }
        _ => Vec::new(),
    };
    Ok(json!({
        "completion": { "values": values, "total": values.len(), "hasMore": false }
    }))
}
