//! B19: `env` is merged over the parent's environment, the command is
//! resolved in the merged PATH, and a missing command names the PATH.
//!
//! Catalogue cases: B19.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use mcp_transport::{Transport, TransportError};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use serde_json::json;
use support::*;

async fn env_of(t: &StdioTransport, name: &str) -> serde_json::Value {
    t.request("env", Some(&json!({"name": name})), within(5_000))
        .await
        .unwrap()
        .to_value()
        .unwrap()["value"]
        .clone()
}

#[tokio::test]
async fn env_is_merged_over_the_parent_environment() {
    let t = StdioTransport::spawn(fake(&[]).with_env("API_KEY", "x"))
        .await
        .unwrap();
    assert_eq!(env_of(&t, "API_KEY").await, "x");
    let parent_path = std::env::var("PATH").unwrap();
    assert_eq!(
        env_of(&t, "PATH").await,
        parent_path.as_str(),
        "PATH is inherited"
    );
    t.close().await.unwrap();
}

#[tokio::test]
async fn command_is_found_through_the_merged_path() {
    let dir = temp_path("bin");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(fake_server(), dir.join("fake-npx")).unwrap();
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap());
    let config = StdioConfig::new("fake-npx")
        .with_env("PATH", path.clone())
        .with_env("API_KEY", "x");
    let t = StdioTransport::spawn(config).await.unwrap();
    initialize(&t).await;
    assert_eq!(env_of(&t, "PATH").await, path.as_str());
    t.close().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn clean_env_gives_only_the_configured_variables() {
    let t = StdioTransport::spawn(fake(&[]).with_clean_env(true).with_env("ONLY", "1"))
        .await
        .unwrap();
    assert_eq!(env_of(&t, "ONLY").await, "1");
    assert!(env_of(&t, "PATH").await.is_null());
    t.close().await.unwrap();
}

#[tokio::test]
async fn a_missing_command_names_the_command_and_the_path_searched() {
    let config = StdioConfig::new("no-such-mcp-server-xyz")
        .with_env("PATH", "/nonexistent/a:/nonexistent/b");
    let err = StdioTransport::spawn(config).await.unwrap_err();
    match &err {
        TransportError::Spawn {
            command,
            path,
            source,
            ..
        } => {
            assert_eq!(command, "no-such-mcp-server-xyz");
            assert_eq!(path, "/nonexistent/a:/nonexistent/b");
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected Spawn, got {other:?}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("no-such-mcp-server-xyz") && text.contains("/nonexistent/a"),
        "{text}"
    );
}

/// One wording for a command that cannot start, whichever way it fails:
/// the command, the PATH searched when one was (not for a path), and the
/// reason as the source, readable on its own.
#[tokio::test]
async fn a_command_that_cannot_start_says_why_in_one_wording() {
    let dir = std::env::temp_dir().join(format!("mcp-spawn-words-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let not_executable = dir.join("not-executable");
    std::fs::write(&not_executable, "#!/bin/sh\n").unwrap();
    let not_executable = not_executable.to_str().unwrap().to_owned();
    let table: [(&str, &str, std::io::ErrorKind, &str); 3] = [
        (
            "no-such-mcp-server-xyz",
            "cannot start \"no-such-mcp-server-xyz\" (PATH searched: /nonexistent/a:/nonexistent/b)",
            std::io::ErrorKind::NotFound,
            "command not found",
        ),
        (
            "/nonexistent/a/server",
            "cannot start \"/nonexistent/a/server\"",
            std::io::ErrorKind::NotFound,
            "",
        ),
        (
            &not_executable,
            &format!("cannot start {not_executable:?}"),
            std::io::ErrorKind::PermissionDenied,
            "",
        ),
    ];
    for (command, text, kind, reason) in table {
        let config = StdioConfig::new(command).with_env("PATH", "/nonexistent/a:/nonexistent/b");
        let err = StdioTransport::spawn(config).await.unwrap_err();
        assert_eq!(err.to_string(), text, "{command}");
        let TransportError::Spawn { source: io, .. } = &err else {
            panic!("{command}: expected Spawn, got {err:?}");
        };
        assert_eq!(io.kind(), kind, "{command}");
        if !reason.is_empty() {
            assert_eq!(io.to_string(), reason, "{command}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
