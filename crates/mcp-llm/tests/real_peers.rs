//! The toolset over real servers: server-everything (Node) and two
//! instances of the Python SDK server (dotted names, deep `$ref`,
//! `Optional[...]` arguments, and the same tool names on two servers),
//! through a `Manager` and through a single `Client`. Every dialect's
//! definitions and results are checked by our rule checker and by the
//! providers' own SDK types (crates/mcp-llm/tests/oracle.py).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::path::Path;
use std::time::Duration;

use mcp_llm::{
    CallStatus, Clients, Dialect, GeminiSchema, RequestOptions, ToolResult, Toolset,
    ToolsetOptions, check_definitions,
};
use mcp_manager::{Manager, ManagerOptions, McpConfig};
use mcp_tests::peers;
use serde_json::{Value, json};

/// The servers: everything, py1 and py2 (each skipped with a message when
/// not installed; `None` when neither kind is).
async fn start(home: &Path) -> Option<(Manager, bool, bool)> {
    let mut servers = serde_json::Map::new();
    let env = json!({"HOME": home.display().to_string()});
    let everything = peers::require_command("server-everything", peers::everything_stdio_command());
    if let Some((program, args)) = &everything {
        servers.insert(
            "everything".into(),
            json!({"command": program, "args": args, "env": env, "startupTimeout": 30000}),
        );
    }
    let python = peers::require_command("python SDK server", peers::python_stdio_command());
    if let Some((program, args)) = &python {
        for name in ["py1", "py2"] {
            servers.insert(
                name.into(),
                json!({"command": program, "args": args, "env": env, "startupTimeout": 30000}),
            );
        }
    }
    if servers.is_empty() {
        return None;
    }
    let config = McpConfig::from_json(&json!({"mcpServers": servers}).to_string()).unwrap();
    assert!(config.errors.is_empty(), "{:?}", config.errors);
    let options = ManagerOptions::new("mcp-llm-tests", "0.0.0").with_cache_dir(None);
    let manager = Manager::start(config, options).await;
    assert!(manager.wait_started(Duration::from_secs(60)).await);
    for (name, status) in manager.status() {
        assert!(status.is_connected(), "{name}: {status}");
    }
    Some((manager, everything.is_some(), python.is_some()))
}

fn every_option() -> Vec<ToolsetOptions> {
    let mut out: Vec<ToolsetOptions> = Dialect::ALL
        .iter()
        .map(|d| ToolsetOptions::new(*d))
        .collect();
    out.push(ToolsetOptions::new(Dialect::OpenAiChat).with_strict(true));
    out.push(ToolsetOptions::new(Dialect::OpenAiResponses).with_strict(true));
    out.push(ToolsetOptions::new(Dialect::Gemini).with_gemini_schema(GeminiSchema::OpenApi));
    out.push(ToolsetOptions::new(Dialect::Gemini).with_gemini_inline_images(true));
    out
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

/// Runs the provider-SDK oracle on `definitions` and `results`; skips
/// (with a message) when the SDKs are not installed.
fn oracle(dir: &Path, label: &str, dialect: Dialect, definitions: &Value, results: &[ToolResult]) {
    let Some(python) = peers::python_bin() else {
        assert!(!peers::peers_required(), "the python venv is required");
        eprintln!("skipped: provider oracle (no tests/peers/.venv)");
        return;
    };
    let file = dir.join(format!("{label}.json"));
    let doc = json!({
        "dialect": dialect.label(),
        "definitions": definitions,
        "results": results.iter().map(ToolResult::to_json).collect::<Vec<_>>(),
    });
    std::fs::write(&file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(&file)
        .env("HOME", dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(3) {
        assert!(
            !peers::peers_required(),
            "provider SDKs not installed: {text}"
        );
        eprintln!("skipped: provider oracle: {text}");
        return;
    }
    assert!(
        out.status.success(),
        "{label}: the provider types refused our JSON:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("ok "), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_servers_through_every_dialect() {
    let home = mcp_tests::temp_dir("llm-real-peers");
    let Some((manager, everything, python)) = start(&home).await else {
        return;
    };
    for options in every_option() {
        let d = options.dialect;
        let label = format!(
            "{}{}{}{}",
            d.label(),
            if options.strict { "-strict" } else { "" },
            if options.gemini_schema == GeminiSchema::OpenApi {
                "-openapi"
            } else {
                ""
            },
            if options.gemini_inline_images {
                "-inline"
            } else {
                ""
            }
        );
        let set = Toolset::from_source(&manager, options.clone())
            .await
            .unwrap();
        let defs = set.definitions().to_json();
        let broken = check_definitions(d, &defs, 64);
        assert!(broken.is_empty(), "{label}: {broken:?}");
        assert!(set.left_out().is_empty(), "{label}: {:?}", set.left_out());
        let mut results = Vec::new();
        let mut call = async |name: &str, args: Value| {
            let name = name.to_owned();
            let out = set
                .call(
                    &manager,
                    &call_json(d, &name, args),
                    RequestOptions::default().with_timeout(Duration::from_secs(30)),
                )
                .await;
            results.push(out.result.clone());
            out
        };
        if python {
            // The same tool names on two servers: each gets its server's name.
            assert_eq!(set.route("py1__add"), Some(("py1", "add")));
            assert_eq!(set.route("py2__add"), Some(("py2", "add")));
            let out = call("py2__add", json!({"a": 2, "b": 3})).await;
            assert_eq!(out.status, CallStatus::Ok, "{label}: {:?}", out.result);
            assert_eq!(out.routed_to, Some(("py2".into(), "add".into())));
            assert!(
                out.result.text().contains('5'),
                "{label}: {}",
                out.result.text()
            );
            // A dotted name: kept by Gemini, reduced elsewhere, always routed.
            let dotted = set.name_of("py1", "files.read_text").unwrap().to_owned();
            assert_eq!(
                dotted.contains('.'),
                d == Dialect::Gemini,
                "{label}: {dotted}"
            );
            let args = if options.strict {
                json!({"path": "/x", "max_bytes": null, "encoding": "utf-8"})
            } else {
                json!({"path": "/x", "encoding": "utf-8"})
            };
            let out = call(&dotted, args).await;
            assert_eq!(out.status, CallStatus::Ok, "{label}: {:?}", out.result);
            assert!(
                out.result
                    .text()
                    .contains("read /x max_bytes=None encoding=utf-8"),
                "{label}: {}",
                out.result.text()
            );
            // A deep, recursive $ref schema.
            let person = set.name_of("py1", "describe_person").unwrap().to_owned();
            let mut args = json!({"person": {"name": "Ann", "address": {"street": "1 Main", "city": "Oslo"}, "friends": [{"name": "Bob", "address": {"street": "2 Side", "city": "Bergen"}}]}});
            if options.strict {
                args["note"] = Value::Null;
                args["person"]["address"]["zip"] = Value::Null;
                args["person"]["friends"][0]["friends"] = json!([]);
                args["person"]["friends"][0]["address"]["zip"] = Value::Null;
            }
            let out = call(&person, args).await;
            assert_eq!(out.status, CallStatus::Ok, "{label}: {:?}", out.result);
            assert!(
                out.result.text().contains("Ann lives in Oslo (1 friends)"),
                "{label}: {}",
                out.result.text()
            );
            // isError from the server.
            let out = call("py1__fail", json!({"message": "nope"})).await;
            assert_eq!(
                out.status,
                CallStatus::ToolError,
                "{label}: {:?}",
                out.result
            );
            assert!(
                out.result.is_error() && out.result.text().contains("nope"),
                "{label}: {:?}",
                out.result
            );
            // Arguments the schema refuses: validated by the client, nothing sent.
            let out = call("py1__add", json!({"a": "two", "b": 3})).await;
            assert_eq!(
                out.status,
                CallStatus::InvalidArguments,
                "{label}: {:?}",
                out.result
            );
            assert!(
                out.result.text().contains("/a"),
                "{label}: {}",
                out.result.text()
            );
        }
        if everything {
            let echo = set.name_of("everything", "echo").unwrap().to_owned();
            let out = call(&echo, json!({"message": "hi"})).await;
            assert_eq!(out.status, CallStatus::Ok, "{label}: {:?}", out.result);
            assert!(
                out.result.text().contains("hi"),
                "{label}: {}",
                out.result.text()
            );
            let out = call("get-tiny-image", json!({})).await;
            assert_eq!(out.status, CallStatus::Ok, "{label}: {:?}", out.result);
            let inline = matches!(d, Dialect::Anthropic | Dialect::OpenAiResponses)
                || options.gemini_inline_images;
            match inline {
                true => {
                    assert_eq!(out.result.inline_images(), 1, "{label}: {:?}", out.result);
                    assert!(out.media.is_empty());
                }
                false => {
                    assert_eq!(out.media.len(), 1, "{label}");
                    assert_eq!(out.media[0].mime_type, "image/png");
                    assert!(
                        !out.result
                            .to_json()
                            .to_string()
                            .contains(&out.media[0].data[..40]),
                        "{label}: base64 in the text"
                    );
                }
            }
            let out = call("get-structured-content", json!({"location": "Chicago"})).await;
            assert_eq!(out.status, CallStatus::Ok, "{label}: {:?}", out.result);
            assert!(
                out.result.text().contains("temperature"),
                "{label}: {}",
                out.result.text()
            );
            let out = call(
                "get-resource-reference",
                json!({"resourceType": "Text", "resourceId": 2}),
            )
            .await;
            assert_eq!(out.status, CallStatus::Ok, "{label}: {:?}", out.result);
            assert!(
                out.result.text().contains("[resource <"),
                "{label}: {}",
                out.result.text()
            );
            let out = call("get-resource-links", json!({"count": 2})).await;
            assert_eq!(out.status, CallStatus::Ok, "{label}: {:?}", out.result);
            assert!(
                out.result.text().contains("[resource link:"),
                "{label}: {}",
                out.result.text()
            );
        }
        let out = call("no_such_tool", json!({})).await;
        assert_eq!(out.status, CallStatus::UnknownName);
        oracle(&home, &label, d, &defs, &results);
    }

    // One client on its own: the same through `Clients`.
    if python {
        let client = manager.client("py1").unwrap();
        let source = Clients::one("py1", client);
        let set = Toolset::from_source(&source, ToolsetOptions::new(Dialect::Anthropic))
            .await
            .unwrap();
        assert_eq!(
            set.route("add"),
            Some(("py1", "add")),
            "one server: bare names"
        );
        let out = set
            .call(
                &source,
                &call_json(Dialect::Anthropic, "add", json!({"a": 1, "b": 2})),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(out.status, CallStatus::Ok, "{:?}", out.result);
        assert!(out.result.text().contains('3'));
        let out = set
            .call(
                &source,
                &call_json(Dialect::Anthropic, "add", json!({"a": 1})),
                RequestOptions::default(),
            )
            .await;
        assert_eq!(out.status, CallStatus::InvalidArguments, "{:?}", out.result);
    }
    manager.shutdown().await;
}

/// A call that outlives its timeout, and one cancelled: tool-result
/// errors, not failures of the agent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_and_cancellation_are_tool_result_errors() {
    let home = mcp_tests::temp_dir("llm-real-cancel");
    let Some(python) = peers::require_command("python SDK server", peers::python_stdio_command())
    else {
        return;
    };
    let env = json!({"HOME": home.display().to_string()});
    let config = McpConfig::from_json(
        &json!({"mcpServers": {"py": {"command": python.0, "args": python.1, "env": env}}})
            .to_string(),
    )
    .unwrap();
    let manager = Manager::start(
        config,
        ManagerOptions::new("mcp-llm-tests", "0.0.0").with_cache_dir(None),
    )
    .await;
    assert!(manager.wait_started(Duration::from_secs(60)).await);
    let set = Toolset::from_source(&manager, ToolsetOptions::new(Dialect::OpenAiChat))
        .await
        .unwrap();
    let out = set
        .call(
            &manager,
            &call_json(Dialect::OpenAiChat, "sleep", json!({"ms": 5000})),
            RequestOptions::default().with_timeout(Duration::from_millis(200)),
        )
        .await;
    assert_eq!(out.status, CallStatus::Failed, "{:?}", out.result);
    assert!(out.result.is_error());
    let cancel = mcp_client::CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let out = set
        .call(
            &manager,
            &call_json(Dialect::OpenAiChat, "sleep", json!({"ms": 5000})),
            RequestOptions::default().with_cancel(cancel),
        )
        .await;
    assert_eq!(out.status, CallStatus::Cancelled, "{:?}", out.result);
    // Progress reaches the caller's callback.
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = seen.clone();
    let out = set
        .call(
            &manager,
            &call_json(Dialect::OpenAiChat, "progress", json!({"steps": 3})),
            RequestOptions::default().with_progress(move |_| {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }),
        )
        .await;
    assert_eq!(out.status, CallStatus::Ok, "{:?}", out.result);
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 3);
    manager.shutdown().await;
}
