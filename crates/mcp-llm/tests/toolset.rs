//! The toolset over a scripted tool source: names, schemas, routing,
//! results and changes, in every dialect, without a server.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mcp_client::CallOptions;
use mcp_llm::{
    CallFailure, CallStatus, Dialect, GeminiSchema, RequestOptions, ToolSource, Toolset,
    ToolsetOptions, check_definitions,
};
use mcp_types::tools::{CallToolResult, Tool};
use serde_json::{Map, Value, json};

/// A call as the source saw it: server, tool, arguments.
type Seen = (String, String, Map<String, Value>);

/// Tools that can change, and calls answered from a script: the result is
/// chosen by the tool's name; every call is recorded.
#[derive(Default)]
struct Scripted {
    tools: Mutex<Vec<(String, Arc<Tool>)>>,
    calls: Mutex<Vec<Seen>>,
}

fn tool(name: &str, schema: Value) -> Arc<Tool> {
    Arc::new(
        serde_json::from_value(
            json!({"name": name, "description": format!("{name} tool"), "inputSchema": schema}),
        )
        .unwrap(),
    )
}

impl Scripted {
    fn new(tools: Vec<(&str, Arc<Tool>)>) -> Scripted {
        Scripted {
            tools: Mutex::new(tools.into_iter().map(|(s, t)| (s.to_owned(), t)).collect()),
            calls: Mutex::default(),
        }
    }
}

#[async_trait]
impl ToolSource for Scripted {
    async fn current_tools(&self) -> Result<Vec<(String, Arc<Tool>)>, String> {
        Ok(self.tools.lock().unwrap().clone())
    }

    async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Map<String, Value>,
        _options: CallOptions,
    ) -> Result<CallToolResult, CallFailure> {
        self.calls
            .lock()
            .unwrap()
            .push((server.into(), tool.into(), arguments.clone()));
        let result = match tool {
            "image" => json!({"content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]}),
            "fail" => json!({"content": [{"type": "text", "text": "it broke"}], "isError": true}),
            "refuse" => return Err(CallFailure::InvalidArguments("arguments of tool \"refuse\" do not match its inputSchema: /n: value is not of type integer".into())),
            _ => json!({"content": [{"type": "text", "text": format!("{server}/{tool}: {}", Value::Object(arguments))}]}),
        };
        Ok(serde_json::from_value(result).unwrap())
    }
}

fn call_json(dialect: Dialect, name: &str, args: Value) -> Value {
    let text = args.to_string();
    match dialect {
        Dialect::OpenAiChat => {
            json!({"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}})
        }
        Dialect::OpenAiResponses => {
            json!({"type": "function_call", "call_id": "call_1", "name": name, "arguments": text})
        }
        Dialect::Anthropic => {
            json!({"type": "tool_use", "id": "toolu_1", "name": name, "input": args})
        }
        Dialect::Gemini => json!({"functionCall": {"id": "g1", "name": name, "args": args}}),
    }
}

fn every_option() -> Vec<ToolsetOptions> {
    let mut out = Vec::new();
    for d in Dialect::ALL {
        out.push(ToolsetOptions::new(d));
    }
    out.push(ToolsetOptions::new(Dialect::OpenAiChat).with_strict(true));
    out.push(ToolsetOptions::new(Dialect::OpenAiResponses).with_strict(true));
    out.push(ToolsetOptions::new(Dialect::Gemini).with_gemini_schema(GeminiSchema::OpenApi));
    out
}

fn assert_rules_hold(set: &Toolset) {
    let o = set.options();
    let v = check_definitions(o.dialect, &set.definitions().to_json(), o.max_name_len);
    assert!(v.is_empty(), "{:?} strict={}: {v:?}", o.dialect, o.strict);
}

#[tokio::test]
async fn collision_across_two_servers() {
    let s = Scripted::new(vec![
        (
            "alpha",
            tool(
                "echo",
                json!({"type": "object", "properties": {"m": {"type": "string"}}}),
            ),
        ),
        (
            "beta",
            tool(
                "echo",
                json!({"type": "object", "properties": {"m": {"type": "string"}}}),
            ),
        ),
        ("beta", tool("solo", json!({"type": "object"}))),
    ]);
    for options in every_option() {
        let set = Toolset::from_source(&s, options).await.unwrap();
        assert_rules_hold(&set);
        assert_eq!(set.route("alpha__echo"), Some(("alpha", "echo")));
        assert_eq!(set.route("beta__echo"), Some(("beta", "echo")));
        assert_eq!(set.route("solo"), Some(("beta", "solo")));
        assert_eq!(set.renamed().len(), 2, "{:?}", set.renamed());
        let d = set.options().dialect;
        let out = set
            .call(
                &s,
                &call_json(d, "beta__echo", json!({"m": "x"})),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(out.status, CallStatus::Ok);
        assert_eq!(out.routed_to, Some(("beta".into(), "echo".into())));
        assert!(
            out.result.text().starts_with("beta/echo"),
            "{}",
            out.result.text()
        );
    }
}

#[tokio::test]
async fn a_100_character_tool_name() {
    let long = "a".repeat(100);
    let s = Scripted::new(vec![(
        "srv",
        tool(&long, json!({"type": "object", "properties": {}})),
    )]);
    for options in every_option() {
        let set = Toolset::from_source(&s, options).await.unwrap();
        assert_rules_hold(&set);
        let name = set.name_of("srv", &long).unwrap().to_owned();
        assert_eq!(name.len(), 64);
        assert_eq!(set.renamed()[0].name, name);
        // The same name in every build: nothing depends on the process.
        let again = Toolset::from_source(&s, set.options().clone())
            .await
            .unwrap();
        assert_eq!(again.name_of("srv", &long), Some(name.as_str()));
        let d = set.options().dialect;
        let out = set
            .call(
                &s,
                &call_json(d, &name, json!({})),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(out.status, CallStatus::Ok);
        assert_eq!(out.routed_to.unwrap().1, long);
    }
    // 128 on request (Anthropic's API limit): the name is whole.
    let set = Toolset::from_source(
        &s,
        ToolsetOptions::new(Dialect::Anthropic).with_max_name_len(128),
    )
    .await
    .unwrap();
    assert_eq!(set.name_of("srv", &long), Some(long.as_str()));
    assert!(set.renamed().is_empty());
}

#[tokio::test]
async fn a_ref_schema() {
    let schema = json!({
        "type": "object",
        "properties": {"person": {"$ref": "#/$defs/Person"}, "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}},
        "required": ["person"],
        "$defs": {
            "Person": {"type": "object", "properties": {"name": {"type": "string"}, "friends": {"type": "array", "items": {"$ref": "#/$defs/Person"}}, "age": {"type": "integer"}}, "required": ["name"]}
        }
    });
    let s = Scripted::new(vec![("p", tool("describe", schema))]);
    for options in every_option() {
        let set = Toolset::from_source(&s, options).await.unwrap();
        assert_rules_hold(&set);
        assert!(set.left_out().is_empty(), "{:?}", set.left_out());
        let defs = set.definitions().to_json().to_string();
        if set.options().gemini_schema == GeminiSchema::OpenApi
            && set.options().dialect == Dialect::Gemini
        {
            assert!(!defs.contains("\"$ref\""), "{defs}");
        } else {
            assert!(defs.contains("\"$ref\""), "{defs}");
        }
        // Strict: optional `age` and `note` are sent as null and dropped
        // before the call (the tool's schema does not take null for `age`).
        let d = set.options().dialect;
        let args = json!({"person": {"name": "Ann", "friends": [{"name": "Bob", "friends": [], "age": null}], "age": null}, "note": null});
        let out = set
            .call(
                &s,
                &call_json(d, "describe", args),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(out.status, CallStatus::Ok);
        let sent = s.calls.lock().unwrap().last().unwrap().2.clone();
        if set.options().strict {
            assert_eq!(
                Value::Object(sent),
                json!({"person": {"name": "Ann", "friends": [{"name": "Bob", "friends": []}]}, "note": null})
            );
        } else {
            assert_eq!(sent["person"]["age"], Value::Null);
        }
    }
    let strict = Toolset::from_source(
        &s,
        ToolsetOptions::new(Dialect::OpenAiChat).with_strict(true),
    )
    .await
    .unwrap();
    assert_eq!(
        strict.definitions().to_json()[0]["function"]["strict"],
        true,
        "{:?}",
        strict.warnings()
    );
}

#[tokio::test]
async fn a_tool_with_no_input_schema_properties() {
    let s = Scripted::new(vec![
        ("s", tool("ping", json!({"type": "object"}))),
        ("s", tool("bare", json!({}))),
    ]);
    for options in every_option() {
        let set = Toolset::from_source(&s, options).await.unwrap();
        assert_rules_hold(&set);
        assert_eq!(set.definitions().len(), 2);
        let d = set.options().dialect;
        let out = set
            .call(
                &s,
                &call_json(d, "ping", json!({})),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(out.status, CallStatus::Ok);
    }
    let set = Toolset::from_source(&s, ToolsetOptions::new(Dialect::OpenAiChat))
        .await
        .unwrap();
    assert_eq!(
        set.definitions().to_json()[0]["function"]["parameters"],
        json!({"type": "object", "properties": {}})
    );
    // OpenAI sends "" for no arguments; Gemini may leave `args` out.
    let out = set
        .call(
            &s,
            &json!({"id": "c", "function": {"name": "ping", "arguments": ""}}),
            RequestOptions::default(),
        )
        .await;
    assert_eq!(out.status, CallStatus::Ok);
}

#[tokio::test]
async fn an_image_result() {
    let s = Scripted::new(vec![("s", tool("image", json!({"type": "object"})))]);
    for d in Dialect::ALL {
        let set = Toolset::from_source(&s, ToolsetOptions::new(d))
            .await
            .unwrap();
        let out = set
            .call(
                &s,
                &call_json(d, "image", json!({})),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(out.status, CallStatus::Ok);
        let j = out.result.to_json();
        match d {
            Dialect::Anthropic => {
                assert_eq!(j["content"][0]["type"], "image");
                assert_eq!(j["content"][0]["source"]["media_type"], "image/png");
                assert!(out.media.is_empty());
            }
            Dialect::OpenAiResponses => {
                assert_eq!(j["output"][0]["type"], "input_image");
                assert!(out.media.is_empty());
            }
            Dialect::Gemini => {
                assert_eq!(out.media.len(), 1);
                assert!(out.result.text().contains("image #0"));
                // Asked for (newer models): inline data in `parts`.
                let inline = Toolset::from_source(
                    &s,
                    ToolsetOptions::new(d).with_gemini_inline_images(true),
                )
                .await
                .unwrap();
                let out = inline
                    .call(
                        &s,
                        &call_json(d, "image", json!({})),
                        RequestOptions::default(),
                    )
                    .await;
                assert!(out.media.is_empty());
                assert_eq!(
                    out.result.to_json()["functionResponse"]["parts"][0]["inlineData"]["mimeType"],
                    "image/png"
                );
            }
            Dialect::OpenAiChat => {
                assert_eq!(out.media.len(), 1);
                assert_eq!(out.media[0].mime_type, "image/png");
                assert!(
                    !j.to_string().contains("iVBORw0KGgo"),
                    "no base64 in the text: {j}"
                );
                assert!(out.result.text().contains("image #0"));
            }
        }
    }
}

#[tokio::test]
async fn an_is_error_result() {
    let s = Scripted::new(vec![("s", tool("fail", json!({"type": "object"})))]);
    for d in Dialect::ALL {
        let set = Toolset::from_source(&s, ToolsetOptions::new(d))
            .await
            .unwrap();
        let out = set
            .call(
                &s,
                &call_json(d, "fail", json!({})),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(out.status, CallStatus::ToolError);
        assert!(out.result.is_error());
        assert!(out.result.text().contains("it broke"));
        let j = out.result.to_json();
        match d {
            Dialect::Anthropic => assert_eq!(j["is_error"], true),
            Dialect::Gemini => assert_eq!(j["functionResponse"]["response"]["error"], "it broke"),
            Dialect::OpenAiChat => assert_eq!(j["content"], "Error: it broke"),
            Dialect::OpenAiResponses => assert_eq!(j["output"], "Error: it broke"),
        }
    }
}

#[tokio::test]
async fn malformed_calls_become_tool_result_errors() {
    let s = Scripted::new(vec![
        (
            "s",
            tool(
                "echo",
                json!({"type": "object", "properties": {"m": {"type": "string"}}}),
            ),
        ),
        (
            "s",
            tool(
                "refuse",
                json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            ),
        ),
    ]);
    for d in Dialect::ALL {
        let set = Toolset::from_source(&s, ToolsetOptions::new(d))
            .await
            .unwrap();
        let unknown = set
            .call(
                &s,
                &call_json(d, "nope", json!({})),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(unknown.status, CallStatus::UnknownName);
        assert!(unknown.result.is_error());
        assert!(
            unknown.result.text().contains("echo"),
            "names the tools: {}",
            unknown.result.text()
        );

        let refused = set
            .call(
                &s,
                &call_json(d, "refuse", json!({"n": "x"})),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(refused.status, CallStatus::InvalidArguments);
        assert!(
            refused.result.text().contains("/n"),
            "{}",
            refused.result.text()
        );

        let no_name = set
            .call(
                &s,
                &json!({"id": "x", "input": {}}),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(no_name.status, CallStatus::Malformed);
        assert!(no_name.result.is_error());
    }
    let set = Toolset::from_source(&s, ToolsetOptions::new(Dialect::OpenAiChat))
        .await
        .unwrap();
    for bad in ["{\"m\": ", "[1, 2]", "\"text\""] {
        let out = set
            .call(&s, &json!({"id": "c", "type": "function", "function": {"name": "echo", "arguments": bad}}), RequestOptions::default())
            .await;
        assert_eq!(out.status, CallStatus::InvalidArguments, "{bad}");
        assert_eq!(out.result.to_json()["tool_call_id"], "c");
    }
    // None of these reached the source.
    assert!(
        s.calls
            .lock()
            .unwrap()
            .iter()
            .all(|(_, t, _)| t == "refuse")
    );
}

#[tokio::test]
async fn stale_names_after_the_tools_changed() {
    let s = Scripted::new(vec![
        ("s", tool("old", json!({"type": "object"}))),
        (
            "s",
            tool(
                "kept",
                json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            ),
        ),
    ]);
    let set = Toolset::from_source(&s, ToolsetOptions::new(Dialect::Anthropic))
        .await
        .unwrap();
    assert!(set.is_current(&s).await);
    // The server's list changes: `old` goes, `kept` changes its schema, `new` comes.
    *s.tools.lock().unwrap() = vec![
        (
            "s".into(),
            tool(
                "kept",
                json!({"type": "object", "properties": {"b": {"type": "string"}}}),
            ),
        ),
        ("s".into(), tool("new", json!({"type": "object"}))),
    ];
    assert!(!set.is_current(&s).await);
    let fresh = Toolset::from_source(&s, ToolsetOptions::new(Dialect::Anthropic))
        .await
        .unwrap();
    assert_ne!(fresh.version(), set.version());
    for name in ["old", "kept", "new"] {
        let out = set
            .call(
                &s,
                &call_json(Dialect::Anthropic, name, json!({})),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(out.status, CallStatus::ToolsChanged, "{name}");
        assert!(
            out.result.text().contains("tools changed"),
            "{}",
            out.result.text()
        );
    }
    assert!(s.calls.lock().unwrap().is_empty());
    let out = fresh
        .call(
            &s,
            &call_json(Dialect::Anthropic, "new", json!({})),
            RequestOptions::default(),
        )
        .await;
    assert_eq!(out.status, CallStatus::Ok);
}

#[tokio::test]
async fn a_schema_with_no_object_form_is_left_out_and_the_rest_offered() {
    let s = Scripted::new(vec![
        ("s", tool("list", json!({"type": "array"}))),
        (
            "s",
            tool(
                "remote",
                json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json"}}}),
            ),
        ),
        ("s", tool("fine", json!({"type": "object"}))),
    ]);
    let set = Toolset::from_source(&s, ToolsetOptions::new(Dialect::OpenAiChat))
        .await
        .unwrap();
    assert_eq!(set.left_out().len(), 1);
    assert_eq!(set.left_out()[0].tool, "list");
    assert!(
        set.left_out()[0].reason.contains("array"),
        "{:?}",
        set.left_out()
    );
    assert_eq!(set.definitions().len(), 2);
    // The OpenAPI form cannot inline a remote $ref: that tool is left out too.
    let set = Toolset::from_source(
        &s,
        ToolsetOptions::new(Dialect::Gemini).with_gemini_schema(GeminiSchema::OpenApi),
    )
    .await
    .unwrap();
    let left: Vec<&str> = set.left_out().iter().map(|l| l.tool.as_str()).collect();
    assert_eq!(left, ["list", "remote"]);
    assert_eq!(set.definitions().len(), 1);
    // Strict: what has no strict form is offered non-strict with a warning.
    let s = Scripted::new(vec![
        (
            "s",
            tool(
                "free",
                json!({"type": "object", "properties": {"m": {"type": "object"}}}),
            ),
        ),
        (
            "s",
            tool(
                "ok",
                json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            ),
        ),
    ]);
    let set = Toolset::from_source(
        &s,
        ToolsetOptions::new(Dialect::OpenAiResponses).with_strict(true),
    )
    .await
    .unwrap();
    assert_rules_hold(&set);
    let defs = set.definitions().to_json();
    assert_eq!(defs[0]["name"], "free");
    assert_eq!(defs[0]["strict"], false);
    assert_eq!(defs[1]["strict"], true);
    assert_eq!(set.warnings().len(), 1);
    assert!(set.warnings()[0].message.contains("non-strict"));
}

#[tokio::test]
async fn the_same_tools_give_the_same_bytes_in_any_order() {
    let tools = vec![
        ("b", tool("x.y", json!({"type": "object"}))),
        ("a", tool("x_y", json!({"type": "object"}))),
        ("a", tool("x.y", json!({"type": "object"}))),
        ("c", tool(&"z".repeat(70), json!({"type": "object"}))),
    ];
    let mut reversed = tools.clone();
    reversed.reverse();
    for options in every_option() {
        let one = Toolset::from_source(&Scripted::new(tools.clone()), options.clone())
            .await
            .unwrap();
        let two = Toolset::from_source(&Scripted::new(reversed.clone()), options)
            .await
            .unwrap();
        assert_eq!(
            one.definitions().to_json().to_string(),
            two.definitions().to_json().to_string()
        );
        assert_eq!(one.version(), two.version());
        assert_rules_hold(&one);
    }
}

#[tokio::test]
async fn anthropic_property_keys_are_mapped_back() {
    let s = Scripted::new(vec![(
        "s",
        tool(
            "k",
            json!({"type": "object", "properties": {"file path": {"type": "string"}}}),
        ),
    )]);
    let set = Toolset::from_source(&s, ToolsetOptions::new(Dialect::Anthropic))
        .await
        .unwrap();
    assert_rules_hold(&set);
    let key = set.definitions().to_json()[0]["input_schema"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    assert!(key.starts_with("file_path_"), "{key}");
    let out = set
        .call(
            &s,
            &call_json(Dialect::Anthropic, "k", json!({key: "/tmp/x"})),
            RequestOptions::default(),
        )
        .await;
    assert_eq!(out.status, CallStatus::Ok);
    assert_eq!(s.calls.lock().unwrap()[0].2["file path"], "/tmp/x");
}
