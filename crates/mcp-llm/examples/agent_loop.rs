//! An agent loop: a model is given the MCP servers' tools, calls them, reads
//! the results, corrects its own mistakes, and answers.
//!
//! The model here is a scripted stand-in ([`ScriptedModel`]) that reads the
//! definitions and results as JSON exactly as a provider's model would be
//! given them, so the loop runs without a provider account; a real agent
//! sends `toolset.definitions()` in its request's `tools` and the model's
//! tool calls to `toolset.call`, as `run_agent` does.
//!
//! Run it over servers of an `mcpServers` file:
//!
//! ```text
//! cargo run -p mcpio-llm --example agent_loop -- mcp.json [openai|openai-responses|anthropic|gemini]
//! ```
//!
//! The script expects a server with `add(a, b)` (e.g. `mcp serve-demo`) and
//! one with `get-tiny-image` (server-everything); `mcp-cli`'s test
//! `llm_agent_loop` runs it over both in CI.

use std::time::Duration;

use mcp_llm::{CallStatus, Dialect, RequestOptions, Toolset, ToolsetOptions};
use mcp_manager::{Manager, ManagerOptions, McpConfig};
use serde_json::{Value, json};

/// What a model answers: tool calls, or its final text.
#[derive(Debug)]
pub(crate) enum Turn {
    /// Tool calls, each in the dialect's JSON.
    ToolCalls(Vec<Value>),
    /// The final answer.
    Answer(String),
}

/// One step of the script: the tool the model wants (by the name its server
/// gave it) and the arguments it sends.
#[derive(Debug, Clone)]
pub(crate) struct Intent {
    /// The tool's own name; the model finds it among the definitions
    /// (bare, or after a `server__` prefix).
    pub(crate) tool: String,
    /// The arguments.
    pub(crate) arguments: Value,
}

/// A stand-in for a model: it follows a script of intents, picks each
/// tool's name from the definitions it is given, and reads each result; a
/// result that is an error about its arguments makes it retry once with the
/// corrected arguments it has for that step.
#[derive(Debug)]
pub(crate) struct ScriptedModel {
    dialect: Dialect,
    script: Vec<(Intent, Option<Value>)>,
    step: usize,
    retried: bool,
    calls: usize,
    /// What it read: one line per tool result.
    pub(crate) notes: Vec<String>,
}

impl ScriptedModel {
    /// A model following `script`: each intent, and the arguments to retry
    /// with when the first ones are refused.
    pub(crate) fn new(dialect: Dialect, script: Vec<(Intent, Option<Value>)>) -> ScriptedModel {
        ScriptedModel {
            dialect,
            script,
            step: 0,
            retried: false,
            calls: 0,
            notes: Vec::new(),
        }
    }

    /// The names in the definitions, as the model reads them.
    fn names(&self, definitions: &Value) -> Vec<String> {
        let list = match self.dialect {
            Dialect::Gemini => definitions
                .get(0)
                .and_then(|t| t.get("functionDeclarations"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            _ => definitions.as_array().cloned().unwrap_or_default(),
        };
        list.iter()
            .filter_map(|d| {
                d.get("function")
                    .unwrap_or(d)
                    .get("name")
                    .and_then(Value::as_str)
            })
            .map(str::to_owned)
            .collect()
    }

    fn call_json(&mut self, name: &str, arguments: &Value) -> Value {
        self.calls += 1;
        let id = format!("call_{}", self.calls);
        match self.dialect {
            Dialect::OpenAiChat => {
                json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
            }
            Dialect::OpenAiResponses => {
                json!({"type": "function_call", "call_id": id, "name": name, "arguments": arguments.to_string()})
            }
            Dialect::Anthropic => {
                json!({"type": "tool_use", "id": id, "name": name, "input": arguments})
            }
            Dialect::Gemini => json!({"functionCall": {"id": id, "name": name, "args": arguments}}),
        }
    }

    /// The model's next turn, given the definitions and the last results
    /// (each as the dialect's tool-result JSON, with how many images it
    /// carried inline).
    pub(crate) fn respond(
        &mut self,
        definitions: &Value,
        results: &[(Value, bool, usize)],
    ) -> Turn {
        for (result, is_error, images) in results {
            let text = result_text(self.dialect, result);
            let inline = if *images > 0 {
                format!(" [+{images} image(s) seen]")
            } else {
                String::new()
            };
            self.notes.push(format!(
                "{}{text}{inline}",
                if *is_error { "error: " } else { "" }
            ));
            if *is_error
                && !self.retried
                && let Some((intent, Some(fixed))) = self.script.get(self.step).cloned()
            {
                self.retried = true;
                let name = self.pick(definitions, &intent.tool);
                return Turn::ToolCalls(vec![self.call_json(&name, &fixed)]);
            }
        }
        if !results.is_empty() {
            self.step += 1;
            self.retried = false;
        }
        match self.script.get(self.step).cloned() {
            Some((intent, _)) => {
                let name = self.pick(definitions, &intent.tool);
                Turn::ToolCalls(vec![self.call_json(&name, &intent.arguments)])
            }
            None => Turn::Answer(self.notes.join("\n")),
        }
    }

    /// The name of `tool` among the definitions: itself, or `server__tool`
    /// (the first such, as a model would pick); the bare name when none.
    fn pick(&self, definitions: &Value, tool: &str) -> String {
        let names = self.names(definitions);
        names
            .iter()
            .find(|n| *n == tool)
            .or_else(|| names.iter().find(|n| n.ends_with(&format!("__{tool}"))))
            .cloned()
            .unwrap_or_else(|| tool.to_owned())
    }
}

/// The text of a tool result in `dialect`'s JSON, as a model reads it.
pub(crate) fn result_text(dialect: Dialect, result: &Value) -> String {
    match dialect {
        Dialect::OpenAiChat => result["content"].as_str().unwrap_or_default().to_owned(),
        Dialect::OpenAiResponses => match &result["output"] {
            Value::String(s) => s.clone(),
            Value::Array(items) => items
                .iter()
                .filter_map(|i| i["text"].as_str())
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        },
        Dialect::Anthropic => result["content"]
            .as_array()
            .map(|b| {
                b.iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default(),
        Dialect::Gemini => {
            let r = &result["functionResponse"]["response"];
            r["output"]
                .as_str()
                .or_else(|| r["error"].as_str())
                .unwrap_or_default()
                .to_owned()
        }
    }
}

/// What the loop did.
#[derive(Debug, Default)]
pub(crate) struct Transcript {
    /// The model's final answer.
    pub(crate) answer: String,
    /// How each call ended, in order.
    pub(crate) statuses: Vec<CallStatus>,
    /// How many media (images, audio, blobs) the application was handed.
    pub(crate) media: usize,
    /// How many images the model saw inline.
    pub(crate) inline_images: usize,
}

/// The loop: definitions out, calls in, results back, until the model
/// answers (at most `max_turns` turns). The definitions are made again
/// when the servers' tools change.
pub(crate) async fn run_agent(
    manager: &Manager,
    model: &mut ScriptedModel,
    options: ToolsetOptions,
    max_turns: usize,
) -> Result<Transcript, String> {
    let mut toolset = Toolset::from_source(manager, options.clone()).await?;
    for l in toolset.left_out() {
        eprintln!("left out: {} {}: {}", l.server, l.tool, l.reason);
    }
    let mut transcript = Transcript::default();
    let mut results: Vec<(Value, bool, usize)> = Vec::new();
    for _ in 0..max_turns {
        if !toolset.is_current(manager).await {
            toolset = Toolset::from_source(manager, options.clone()).await?;
        }
        let definitions = toolset.definitions().to_json();
        match model.respond(&definitions, &results) {
            Turn::Answer(text) => {
                transcript.answer = text;
                return Ok(transcript);
            }
            Turn::ToolCalls(calls) => {
                results.clear();
                for call in calls {
                    let outcome = toolset
                        .call(
                            manager,
                            &call,
                            RequestOptions::default().with_timeout(Duration::from_secs(30)),
                        )
                        .await;
                    transcript.statuses.push(outcome.status.clone());
                    transcript.media += outcome.media.len();
                    let images = outcome.result.inline_images();
                    transcript.inline_images += images;
                    results.push((outcome.result.to_json(), outcome.result.is_error(), images));
                }
            }
        }
    }
    Err(format!("no answer after {max_turns} turns"))
}

/// The script the example follows: a wrong call corrected, a sum, an
/// image, an echo of a name two servers share, and a tool that fails.
pub(crate) fn demo_script() -> Vec<(Intent, Option<Value>)> {
    vec![
        (
            Intent {
                tool: "add".into(),
                arguments: json!({"a": "two", "b": 3}),
            },
            Some(json!({"a": 2, "b": 3})),
        ),
        (
            Intent {
                tool: "get-tiny-image".into(),
                arguments: json!({}),
            },
            None,
        ),
        (
            Intent {
                tool: "echo".into(),
                arguments: json!({"message": "from the model"}),
            },
            None,
        ),
        (
            Intent {
                tool: "fail".into(),
                arguments: json!({}),
            },
            None,
        ),
    ]
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: agent_loop MCP.JSON [DIALECT]")?;
    let dialect: Dialect = args.next().as_deref().unwrap_or("anthropic").parse()?;
    let config = McpConfig::from_json(&std::fs::read_to_string(path)?)?;
    let manager = Manager::start(config, ManagerOptions::new("agent-loop", "0.1.0")).await;
    manager.wait_started(Duration::from_secs(60)).await;
    let mut model = ScriptedModel::new(dialect, demo_script());
    let transcript = run_agent(&manager, &mut model, ToolsetOptions::new(dialect), 20).await;
    manager.shutdown().await;
    let transcript = transcript?;
    println!("{}", transcript.answer);
    println!(
        "calls: {:?}; media handed over: {}; images seen: {}",
        transcript.statuses, transcript.media, transcript.inline_images
    );
    Ok(())
}
