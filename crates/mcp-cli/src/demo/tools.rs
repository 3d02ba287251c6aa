//! The demo server's tools (spec `server/tools`): `echo`, `add`, `countdown`,
//! `fail` and `ask_name`.

use std::time::Duration;

use mcp_types::content::ContentBlock;
use mcp_types::elicitation::{ElicitAction, ElicitRequestFormParams, ElicitResult};
use mcp_types::logging::LoggingLevel;
use mcp_types::tools::{CallToolRequestParams, CallToolResult, Tool};
use mcp_types::{ErrorCode, JsonRpcError, ProgressToken, ProtocolVersion};
use serde_json::{Map, Number, Value, json};

use super::host::ToolHost;
use super::params::{parse_params, to_value};

/// `countdown`: default number of steps.
pub(super) const DEFAULT_STEPS: u64 = 5;
/// `countdown`: maximum number of steps.
pub(super) const MAX_STEPS: u64 = 10_000;
/// `countdown`: default pause between two steps, in ms.
pub(super) const DEFAULT_INTERVAL_MS: u64 = 200;
/// `countdown`: maximum pause between two steps, in ms.
pub(super) const MAX_INTERVAL_MS: u64 = 60_000;

fn tool(name: &str, title: &str, description: &str, input_schema: Value) -> Tool {
    Tool {
        name: name.into(),
        title: Some(title.into()),
        description: Some(description.into()),
        input_schema,
        ..Default::default()
    }
}

/// The tools, as `tools/list` returns them.
pub(super) fn list() -> Vec<Tool> {
    vec![
        tool(
            "echo",
            "Echo",
            "Returns its message.",
            json!({
                "type": "object",
                "properties": { "message": { "type": "string", "description": "Text to echo" } },
                "required": ["message"]
            }),
        ),
        Tool {
            output_schema: Some(json!({
                "type": "object",
                "properties": { "sum": { "type": "number" } },
                "required": ["sum"]
            })),
            ..tool(
                "add",
                "Add",
                "Adds two numbers; the sum is also returned as structured content.",
                json!({
                    "type": "object",
                    "properties": {
                        "a": { "type": "number", "description": "First addend" },
                        "b": { "type": "number", "description": "Second addend" }
                    },
                    "required": ["a", "b"]
                }),
            )
        },
        tool(
            "countdown",
            "Countdown",
            "A long-running task: sends notifications/progress every interval_ms for `steps` \
             steps (when the request has a progressToken). Stops when cancelled.",
            json!({
                "type": "object",
                "properties": {
                    "steps": { "type": "integer", "minimum": 1, "maximum": MAX_STEPS,
                               "default": DEFAULT_STEPS, "description": "Number of steps" },
                    "interval_ms": { "type": "integer", "minimum": 0, "maximum": MAX_INTERVAL_MS,
                                     "default": DEFAULT_INTERVAL_MS,
                                     "description": "Pause between steps (ms)" }
                }
            }),
        ),
        tool(
            "fail",
            "Fail",
            "Always fails: returns a result with isError: true.",
            json!({ "type": "object", "properties": {} }),
        ),
        tool(
            "ask_name",
            "Ask name",
            "Asks the user for their name (elicitation/create, form mode) and greets them.",
            json!({ "type": "object", "properties": {} }),
        ),
    ]
}

fn text_result(text: impl Into<String>, is_error: bool) -> CallToolResult {
    CallToolResult {
        content: vec![ContentBlock::text(text)],
        is_error: is_error.then_some(true),
        ..Default::default()
    }
}

fn invalid(message: impl Into<String>) -> JsonRpcError {
    JsonRpcError::new(ErrorCode::INVALID_PARAMS, message)
}

fn number_arg(args: &Map<String, Value>, name: &str) -> Result<Number, JsonRpcError> {
    match args.get(name) {
        Some(Value::Number(n)) => Ok(n.clone()),
        Some(other) => Err(invalid(format!(
            "argument {name:?} must be a number, not {other}"
        ))),
        None => Err(invalid(format!("missing argument {name:?}"))),
    }
}

fn bounded_int(
    args: &Map<String, Value>,
    name: &str,
    default: u64,
    min: u64,
    max: u64,
) -> Result<u64, JsonRpcError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| {
                invalid(format!(
                    "argument {name:?} must be an integer in {min}..={max}"
                ))
            }),
    }
}

/// `a + b`, kept an integer when both are integers and the sum fits.
pub(super) fn add_numbers(a: &Number, b: &Number) -> Option<Number> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64())
        && let Some(sum) = x.checked_add(y)
    {
        return Some(Number::from(sum));
    }
    Number::from_f64(a.as_f64()? + b.as_f64()?)
}

/// Handles `tools/call`. An unknown tool or bad arguments are protocol
/// errors (`-32602`); a tool that fails returns `isError: true`.
pub(super) async fn call(
    server: &impl ToolHost,
    params: Option<&Value>,
) -> Result<Value, JsonRpcError> {
    let p: CallToolRequestParams = parse_params(params)?;
    let args = p.arguments.unwrap_or_default();
    let progress_token = p
        .meta
        .as_ref()
        .and_then(|m| m.get("progressToken"))
        .and_then(ProgressToken::from_value);
    let result = match p.name.as_str() {
        "echo" => match args.get("message") {
            Some(Value::String(s)) => text_result(s.clone(), false),
            Some(other) => {
                return Err(invalid(format!(
                    "\"message\" must be a string, not {other}"
                )));
            }
            None => return Err(invalid("missing argument \"message\"")),
        },
        "add" => {
            let a = number_arg(&args, "a")?;
            let b = number_arg(&args, "b")?;
            let sum =
                add_numbers(&a, &b).ok_or_else(|| invalid("the sum is not a finite number"))?;
            CallToolResult {
                content: vec![ContentBlock::text(sum.to_string())],
                structured_content: Some(json!({ "sum": sum })),
                ..Default::default()
            }
        }
        "countdown" => {
            let steps = bounded_int(&args, "steps", DEFAULT_STEPS, 1, MAX_STEPS)?;
            let interval = bounded_int(
                &args,
                "interval_ms",
                DEFAULT_INTERVAL_MS,
                0,
                MAX_INTERVAL_MS,
            )?;
            countdown(
                server,
                progress_token,
                steps,
                Duration::from_millis(interval),
            )
            .await
        }
        "fail" => text_result("This tool always fails (a demo of isError).", true),
        "ask_name" => ask_name(server).await,
        other => return Err(invalid(format!("unknown tool {other:?}"))),
    };
    to_value(result)
}

async fn countdown(
    server: &impl ToolHost,
    token: Option<ProgressToken>,
    steps: u64,
    interval: Duration,
) -> CallToolResult {
    server
        .log(
            LoggingLevel::Info,
            json!(format!("countdown: {steps} steps")),
        )
        .await;
    for step in 1..=steps {
        tokio::time::sleep(interval).await;
        if let Some(token) = &token {
            server
                .notify(
                    "notifications/progress",
                    json!({
                        "progressToken": token,
                        "progress": step,
                        "total": steps,
                        "message": format!("step {step} of {steps}"),
                    }),
                )
                .await;
        }
    }
    text_result(format!("Countdown finished after {steps} steps."), false)
}

async fn ask_name(server: &impl ToolHost) -> CallToolResult {
    if !server.client_supports_form_elicitation() {
        return text_result(
            "The client did not declare the elicitation capability; cannot ask for a name.",
            true,
        );
    }
    let form = ElicitRequestFormParams {
        // `mode` exists from 2025-11-25 on.
        mode: server
            .version()
            .filter(|v| *v >= ProtocolVersion::V2025_11_25)
            .map(|_| "form".to_owned()),
        message: "What is your name?".into(),
        requested_schema: json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "title": "Name", "description": "Your name" }
            },
            "required": ["name"]
        }),
        task: None,
        meta: None,
        extra: Map::new(),
    };
    let params = match serde_json::to_value(&form) {
        Ok(params) => params,
        Err(e) => return text_result(format!("internal error: {e}"), true),
    };
    let outcome = server.request("elicitation/create", params).await;
    let answer = match outcome.and_then(|v| {
        serde_json::from_value::<ElicitResult>(v).map_err(|e| {
            JsonRpcError::new(
                ErrorCode::INVALID_PARAMS,
                format!("bad elicitation result: {e}"),
            )
        })
    }) {
        Ok(answer) => answer,
        Err(e) => return text_result(format!("Elicitation failed: {}", e.message), true),
    };
    match answer.action {
        ElicitAction::Accept => {
            match answer
                .content
                .as_ref()
                .and_then(|c| c.get("name"))
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                Some(name) => text_result(format!("Hello, {name}!"), false),
                None => text_result("No name given (empty)", false),
            }
        }
        ElicitAction::Decline => text_result("No name given (declined)", false),
        ElicitAction::Cancel => text_result("No name given (cancelled)", false),
        ElicitAction::Other(a) => text_result(format!("No name given ({a})"), false),
    }
}
