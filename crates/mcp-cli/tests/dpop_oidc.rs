//! `mcp --verbose call` against a server that takes DPoP-bound tokens only
//! (`oidc-provider` with DPoP on, protecting a TypeScript SDK MCP server
//! that checks every proof: `tests/peers/oidc_mcp.mjs` with `DPOP=1`), the
//! client authenticated by `private_key_jwt` from an `mcpServers` entry: the
//! call works with no configuration of DPoP (it is on when the
//! authorization server offers it), and neither a proof, a client
//! assertion nor the key shows in the verbose output; with `"dpop": false`
//! the server refuses the bearer token and the error says so.
//!
//! Skips, saying so, when node or `oidc-provider` is not installed (fails
//! under `MCP_PEERS_REQUIRED=1`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use mcp_tests::oidc::OidcPeers;
use serde_json::json;
use support::*;

const CLIENT_ID: &str = "mcp-cli-dpop";

fn key_path(name: &str) -> String {
    format!(
        "{}/../mcp-auth/tests/keys/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_uses_dpop_and_verbose_output_shows_no_proof() {
    let public_pem = std::fs::read_to_string(key_path("ec-p256.pub.pem")).unwrap();
    let private_pem = std::fs::read_to_string(key_path("ec-p256.pem")).unwrap();
    let machine = json!({"client_id": CLIENT_ID, "public_key_pem": public_pem});
    let Some(peers) = OidcPeers::start_with(
        600,
        &[("MACHINE_CLIENT", &machine.to_string()), ("DPOP", "1")],
    ) else {
        return;
    };
    let dir = temp_dir("dpop-oidc");
    let entry = |dpop: Option<bool>| {
        let mut oauth = json!({"grant": "client_credentials", "clientId": CLIENT_ID,
            "privateKeyFile": key_path("ec-p256.pem"), "signingAlgorithm": "ES256"});
        if let Some(on) = dpop {
            oauth["dpop"] = json!(on);
        }
        json!({"url": peers.mcp, "oauth": oauth})
    };
    let file = dir.join("servers.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {"bound": entry(None), "bearer": entry(Some(false))}}).to_string(),
    )
    .unwrap();
    let config = file.to_str().unwrap().to_owned();
    // Each run in a directory of its own: its own credential store (two
    // names of one server share stored tokens).
    let run_mcp = |name: &str, args: Vec<String>| {
        let dir = dir.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            mcp_in_env(&dir, &args, &[])
        })
    };

    let out = run_mcp(
        "bound",
        ["--verbose", "--config", &config, "call", "bound", "whoami"]
            .map(str::to_owned)
            .to_vec(),
    )
    .await
    .unwrap();
    let shown = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(out.code, Some(0), "{shown}");
    assert!(out.stdout.contains(CLIENT_ID), "{shown}");
    assert!(
        out.stderr.lines().count() > 3,
        "verbose output was written: {shown}"
    );
    // Proofs and client assertions are JWS: base64url of `{"` opens them.
    assert!(!shown.contains("eyJ"), "a JWS in the output: {shown}");
    for line in private_pem.lines().filter(|l| !l.starts_with("-----")) {
        assert!(!shown.contains(line), "the key in the output");
    }
    let stats = peers.stats().await;
    assert_eq!(stats["dpop_refused"], json!([]), "{stats}");
    assert!(stats["dpop_proofs"].as_u64().unwrap() >= 1, "{stats}");

    // DPoP turned off: a bearer token, which this server refuses.
    let out = run_mcp(
        "bearer",
        ["--config", &config, "call", "bearer", "whoami"]
            .map(str::to_owned)
            .to_vec(),
    )
    .await
    .unwrap();
    let shown = format!("{}{}", out.stdout, out.stderr);
    assert_ne!(out.code, Some(0), "{shown}");
    assert!(shown.contains("invalid_dpop_proof"), "{shown}");
    assert!(!shown.contains("eyJ"), "{shown}");
    let stats = peers.stats().await;
    assert!(
        stats["dpop_refused"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r == "the token is not presented with the DPoP scheme"),
        "{stats}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
