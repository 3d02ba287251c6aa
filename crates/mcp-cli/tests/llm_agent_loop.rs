//! The mcp-llm example `agent_loop` (crates/mcp-llm/examples/agent_loop.rs)
//! run in CI: a scripted stand-in model drives the agent loop over the demo
//! server (this package's `mcp serve-demo`) and server-everything in every
//! dialect — a refused call corrected, a sum, an image, an echo of a name
//! both servers offer, and a tool that reports an error.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../../mcp-llm/examples/agent_loop.rs"]
mod agent_loop;

use std::time::Duration;

use agent_loop::{ScriptedModel, demo_script, run_agent};
use mcp_llm::{CallStatus, Dialect, ToolsetOptions};
use mcp_manager::{Manager, ManagerOptions, McpConfig};
use mcp_tests::peers;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_loop_example_runs_over_the_demo_server_and_server_everything() {
    let Some((node, args)) =
        peers::require_command("server-everything", peers::everything_stdio_command())
    else {
        return;
    };
    let home = mcp_tests::temp_dir("llm-agent-loop");
    let env = json!({"HOME": home.display().to_string(), "XDG_CACHE_HOME": home.join(".cache").display().to_string()});
    let config = json!({"mcpServers": {
        "demo": {"command": env!("CARGO_BIN_EXE_mcp"), "args": ["serve-demo"], "env": env},
        "everything": {"command": node, "args": args, "env": env, "startupTimeout": 30000},
    }});
    let config = McpConfig::from_json(&config.to_string()).unwrap();
    let manager = Manager::start(
        config,
        ManagerOptions::new("agent-loop-test", "0.0.0").with_cache_dir(None),
    )
    .await;
    assert!(manager.wait_started(Duration::from_secs(60)).await);
    for dialect in Dialect::ALL {
        let mut model = ScriptedModel::new(dialect, demo_script());
        let transcript = run_agent(&manager, &mut model, ToolsetOptions::new(dialect), 20)
            .await
            .unwrap();
        assert_eq!(
            transcript.statuses,
            [
                CallStatus::InvalidArguments,
                CallStatus::Ok,
                CallStatus::Ok,
                CallStatus::Ok,
                CallStatus::ToolError
            ],
            "{dialect}: {}",
            transcript.answer
        );
        // What the model read, one note per result.
        let notes = &model.notes;
        assert_eq!(notes.len(), 5, "{dialect}: {notes:?}");
        assert!(
            notes[0].starts_with("error: ") && notes[0].contains("/a"),
            "{dialect}: {notes:?}"
        );
        assert_eq!(notes[1], "5", "{dialect}: {notes:?}");
        assert!(notes[3].contains("from the model"), "{dialect}: {notes:?}");
        assert!(
            notes[4].starts_with("error: ") && notes[4].contains("always fails"),
            "{dialect}: {notes:?}"
        );
        assert!(transcript.answer.contains("from the model"), "{dialect}");
        match dialect {
            Dialect::Anthropic | Dialect::OpenAiResponses => {
                assert_eq!(
                    (transcript.inline_images, transcript.media),
                    (1, 0),
                    "{dialect}"
                );
            }
            Dialect::OpenAiChat | Dialect::Gemini => {
                assert_eq!(
                    (transcript.inline_images, transcript.media),
                    (0, 1),
                    "{dialect}"
                );
                assert!(
                    notes[2].contains("image #0: image/png"),
                    "{dialect}: {notes:?}"
                );
            }
        }
    }
    manager.shutdown().await;
}
