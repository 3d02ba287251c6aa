//! Where `mcp` keeps logins: `--credential-store file` (or
//! `MCP_CREDENTIAL_STORE`, or the configuration's `credentialStore`, in
//! that order), `keychain` refused by a build without it, a credential
//! file that cannot be read reported with its path and left as it is, and
//! a credential directory that cannot be created reported with why.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use support::*;

#[test]
fn the_file_store_and_a_corrupt_file() {
    let dir = temp_dir("credential-store");
    let out = mcp_in(&dir, &["--credential-store", "file", "auth", "status"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout, "No stored login.\n");
    let credentials = dir.join(".credentials");
    let corrupt = credentials.join("tokens-0123.json");
    std::fs::write(&corrupt, b"{\"format\": 1, \"key\": tru").unwrap();
    let out = mcp_in(&dir, &["auth", "status"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stderr.contains(&corrupt.display().to_string()) && out.stderr.contains("unreadable"),
        "{out:?}"
    );
    assert_eq!(
        std::fs::read(&corrupt).unwrap(),
        b"{\"format\": 1, \"key\": tru",
        "left untouched"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A credential directory that cannot be created: the message says which
/// and why (the I/O error is the store error's cause).
#[cfg(unix)]
#[test]
fn a_store_that_cannot_be_created_says_why() {
    let dir = temp_dir("credential-store-broken");
    // A dangling link where the directory should be: creating it fails.
    std::os::unix::fs::symlink(dir.join("nowhere/at-all"), dir.join(".credentials")).unwrap();
    let out = mcp_in(&dir, &["--credential-store", "file", "auth", "status"]);
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr.contains("cannot create")
            && out.stderr.contains(".credentials")
            && out.stderr.contains("os error"),
        "{out:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(not(feature = "keychain"))]
#[test]
fn the_keychain_needs_a_build_with_it() {
    let out = mcp(&["--credential-store", "keychain", "auth", "status"]);
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr.contains("built without the OS keychain"),
        "{out:?}"
    );
}

/// `--credential-store` over `MCP_CREDENTIAL_STORE` over the
/// configuration's `credentialStore` over `auto`; `keychain` (refused by
/// this build) shows which one was taken.
#[cfg(not(feature = "keychain"))]
#[test]
fn the_flag_then_the_variable_then_the_setting() {
    let dir = temp_dir("credential-store-order");
    let status = |args: &[&str], vars: &[(&str, &str)]| {
        let mut all = args.to_vec();
        all.extend(["auth", "status"]);
        let out = mcp_in_env(&dir, &all, vars);
        let refused = out.stderr.contains("built without the OS keychain");
        assert_eq!(out.code, Some(if refused { 2 } else { 0 }), "{out:?}");
        if refused { "keychain" } else { "file" }
    };
    std::fs::write(
        dir.join(".mcp.json"),
        r#"{"credentialStore": "keychain", "mcpServers": {}}"#,
    )
    .unwrap();
    assert_eq!(status(&[], &[]), "keychain", "the setting over auto");
    let file_var = [("MCP_CREDENTIAL_STORE", "file")];
    assert_eq!(
        status(&[], &file_var),
        "file",
        "the variable over the setting"
    );
    let keychain_var = [("MCP_CREDENTIAL_STORE", "keychain")];
    assert_eq!(
        status(&["--credential-store", "file"], &keychain_var),
        "file",
        "the flag over the variable"
    );
    assert_eq!(
        status(&["--credential-store", "keychain"], &file_var),
        "keychain",
        "the flag over the variable"
    );
    std::fs::write(
        dir.join(".mcp.json"),
        r#"{"credentialStore": "file", "mcpServers": {}}"#,
    )
    .unwrap();
    assert_eq!(
        status(&[], &keychain_var),
        "keychain",
        "the variable over the setting"
    );
    assert_eq!(status(&[], &[]), "file", "the setting");
    let _ = std::fs::remove_dir_all(&dir);
}
