//! `mcp tools --as DIALECT` and `mcp call --from-model DIALECT`: the
//! definitions a model is given (checked against each dialect's documented
//! rules), renamed tools on stderr, and a model's tool call carried out,
//! given as an argument or on stdin, with its result in the dialect's form.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::io::Write;
use std::process::{Command, Stdio};

use mcp_llm::{Dialect, check_definitions};
use mcp_tests::peers;
use serde_json::{Value, json};
use support::*;

fn mcp_with_stdin(dir: &std::path::Path, args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(args)
        .current_dir(dir)
        .env_remove("MCP_LOG")
        .env("HOME", dir)
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("MCP_CREDENTIALS_DIR", dir.join(".credentials"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    finish(child)
}

/// The providers' own SDK types (crates/mcp-llm/tests/oracle.py, run with
/// the peers' venv) on `definitions` and `results`; skipped, saying so,
/// when the SDKs are not installed.
fn oracle(
    dir: &std::path::Path,
    label: &str,
    dialect: Dialect,
    definitions: &Value,
    results: &[Value],
) {
    let Some(python) = peers::python_bin() else {
        assert!(!peers::peers_required(), "the python venv is required");
        eprintln!("skipped: provider oracle (no tests/peers/.venv)");
        return;
    };
    let file = dir.join(format!("{label}.json"));
    let doc = json!({"dialect": dialect.label(), "definitions": definitions, "results": results});
    std::fs::write(&file, doc.to_string()).unwrap();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-llm/tests/oracle.py");
    let out = Command::new(python)
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
        "{label}: the provider types refused our JSON:\n{text}"
    );
}

#[test]
fn tools_as_every_dialect_over_the_demo_server() {
    let dir = temp_dir("model-tools");
    for dialect in Dialect::ALL {
        for strict in [false, true] {
            if strict && !matches!(dialect, Dialect::OpenAiChat | Dialect::OpenAiResponses) {
                continue;
            }
            let mut args = vec!["tools", "--as", dialect.label()];
            if strict {
                args.push("--strict");
            }
            let run = mcp_in(&dir, &args);
            assert_eq!(run.code, Some(0), "{args:?}: {run:?}");
            let defs: Value = serde_json::from_str(&run.stdout).unwrap();
            let broken = check_definitions(dialect, &defs, 64);
            assert!(broken.is_empty(), "{args:?}: {broken:?}");
            let text = defs.to_string();
            assert!(text.contains("\"add\""), "{args:?}: {text}");
            // A result of each dialect beside its definitions.
            let call = match dialect {
                Dialect::OpenAiChat => {
                    json!({"id": "c", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}})
                }
                Dialect::OpenAiResponses => {
                    json!({"type": "function_call", "call_id": "c", "name": "add", "arguments": "{\"a\": 1, \"b\": 2}"})
                }
                Dialect::Anthropic => {
                    json!({"type": "tool_use", "id": "c", "name": "add", "input": {"a": 1, "b": 2}})
                }
                Dialect::Gemini => {
                    json!({"functionCall": {"name": "add", "args": {"a": 1, "b": 2}}})
                }
            };
            let run = mcp_in(
                &dir,
                &["call", "--from-model", dialect.label(), &call.to_string()],
            );
            assert_eq!(run.code, Some(0), "{run:?}");
            let result: Value = serde_json::from_str(&run.stdout).unwrap();
            let label = format!(
                "demo-{}{}",
                dialect.label(),
                if strict { "-strict" } else { "" }
            );
            oracle(&dir, &label, dialect, &defs, &[result]);
        }
    }
    let run = mcp_in(&dir, &["tools", "--as", "cobol"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("unknown dialect"), "{}", run.stderr);
}

#[test]
fn renamed_tools_are_listed_on_stderr() {
    let Some((python, args)) =
        peers::require_command("python SDK server", peers::python_stdio_command())
    else {
        return;
    };
    let dir = temp_dir("model-renamed");
    let stdio = format!("{python} {}", args.join(" "));
    let run = mcp_in(&dir, &["--stdio", &stdio, "tools", "--as", "openai"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr.contains("renamed: ")
            && run.stderr.contains("files.read_text -> files_read_text"),
        "{}",
        run.stderr
    );
    let defs: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(defs.to_string().contains("\"files_read_text\""));
    // Gemini takes the dot: nothing renamed.
    let run = mcp_in(&dir, &["--stdio", &stdio, "tools", "--as", "gemini"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(!run.stderr.contains("renamed: "), "{}", run.stderr);
    // The renamed name routes back to the tool.
    let call = json!({"id": "c", "type": "function", "function": {"name": "files_read_text", "arguments": "{\"path\": \"/etc/x\"}"}});
    let run = mcp_in(
        &dir,
        &[
            "--stdio",
            &stdio,
            "call",
            "--from-model",
            "openai",
            &call.to_string(),
        ],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let result: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(result["tool_call_id"], "c");
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("read /etc/x"),
        "{result}"
    );
}

#[test]
fn call_from_model_as_an_argument_and_on_stdin() {
    let dir = temp_dir("model-call");
    let call = json!({"id": "call_7", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": 3}"}});
    let run = mcp_in(&dir, &["call", "--from-model", "openai", &call.to_string()]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let result: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        result,
        json!({"role": "tool", "tool_call_id": "call_7", "content": "5"})
    );

    let call =
        json!({"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 1}});
    let run = mcp_with_stdin(
        &dir,
        &["call", "--from-model", "anthropic"],
        &call.to_string(),
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let result: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(result["tool_use_id"], "toolu_1");
    assert_eq!(result["content"][0]["text"], "2");

    // A call the model must fix: a tool result saying so, exit 1.
    let call = json!({"functionCall": {"name": "nope", "args": {}}});
    let run = mcp_with_stdin(
        &dir,
        &["call", "--from-model", "gemini", "-"],
        &call.to_string(),
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    let result: Value = serde_json::from_str(&run.stdout).unwrap();
    let error = result["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap();
    assert!(error.contains("no tool is named \"nope\""), "{error}");
    let call = json!({"type": "function_call", "call_id": "c", "name": "add", "arguments": "{\"a\": \"x\"}"});
    let run = mcp_in(
        &dir,
        &[
            "call",
            "--from-model",
            "openai-responses",
            &call.to_string(),
        ],
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    let result: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        result["output"].as_str().unwrap().starts_with("Error: "),
        "{result}"
    );

    // Strict definitions make optional properties nullable: with --strict
    // the model's nulls are dropped before the call; without it the schema
    // refuses them.
    let call = json!({"id": "s", "type": "function", "function": {"name": "countdown", "arguments": "{\"steps\": 2, \"interval_ms\": null}"}});
    let run = mcp_in(
        &dir,
        &[
            "call",
            "--from-model",
            "openai",
            "--strict",
            &call.to_string(),
        ],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let run = mcp_in(&dir, &["call", "--from-model", "openai", &call.to_string()]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let result: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        result["content"].as_str().unwrap().contains("/interval_ms"),
        "{result}"
    );

    // Input that is not JSON at all: a usage failure.
    let run = mcp_in(&dir, &["call", "--from-model", "openai", "{not json"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("not JSON"), "{}", run.stderr);
}
