use std::time::Duration;

use super::*;

fn env(name: &str) -> Option<String> {
    match name {
        "TOKEN" => Some("s3cret".into()),
        "HOST" => Some("example.com".into()),
        _ => None,
    }
}

fn parse(text: &str) -> McpConfig {
    McpConfig::from_json_with_env(text, &env).unwrap()
}

fn only_error(config: &McpConfig) -> &ConfigError {
    assert_eq!(config.errors.len(), 1, "{:?}", config.errors);
    &config.errors[0]
}

#[test]
fn stdio_and_remote_entries_parse() {
    let c = parse(
        r#"{"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "srv", "--token=${TOKEN}"],
               "env": {"API_KEY": "${TOKEN}", "PLAIN": "x"}, "cwd": "/tmp",
               "timeout": 1500, "startupTimeout": 2500},
        "remote": {"url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        "legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse", "disabled": true},
        "typed": {"type": "streamable-http", "url": "http://127.0.0.1:1/mcp"},
        "explicit": {"type": "stdio", "command": "cat", "autoApprove": ["x"]}
    }}"#,
    );
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    let fs = &c.servers["fs"];
    let TransportConfig::Stdio(s) = &fs.transport else {
        panic!("{fs:?}")
    };
    assert_eq!(s.command, "npx");
    assert_eq!(s.args, ["-y", "srv", "--token=s3cret"]);
    assert_eq!(s.env["API_KEY"], "s3cret");
    assert_eq!(s.cwd.as_deref(), Some(Path::new("/tmp")));
    assert_eq!(fs.timeout, Some(Duration::from_millis(1500)));
    assert_eq!(fs.startup_timeout, Some(Duration::from_millis(2500)));
    assert!(!fs.disabled);

    let TransportConfig::Remote(r) = &c.servers["remote"].transport else {
        panic!()
    };
    assert_eq!(r.url, "https://example.com/mcp");
    assert_eq!(r.kind, RemoteKind::StreamableHttp);
    assert_eq!(r.headers["Authorization"], "Bearer s3cret");

    let legacy = &c.servers["legacy"];
    assert!(legacy.disabled);
    assert_eq!(legacy.transport.kind_name(), "sse");
    assert_eq!(c.servers["typed"].transport.kind_name(), "http");
    assert_eq!(c.servers["explicit"].transport.kind_name(), "stdio");
}

#[test]
fn debug_output_hides_secrets() {
    let c = parse(
        r#"{"mcpServers": {
        "a": {"command": "x", "env": {"API_KEY": "${TOKEN}"}},
        "b": {"url": "https://user:pw@h/mcp?key=${TOKEN}", "headers": {"Authorization": "Bearer ${TOKEN}"}}
    }}"#,
    );
    let text = format!("{c:?}");
    assert!(!text.contains("s3cret"), "{text}");
    assert!(!text.contains("pw@"), "{text}");
    assert!(
        text.contains("API_KEY") && text.contains("Authorization"),
        "{text}"
    );
}

#[test]
fn vscode_servers_key_is_accepted() {
    let c = parse(r#"{"servers": {"a": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}"#);
    assert!(c.servers.contains_key("a"));
}

#[test]
fn bad_entries_report_their_path_and_others_load() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"{"type": "carrier-pigeon", "url": "http://x/"}"#,
            "mcpServers.bad.type",
            "unknown type",
        ),
        (
            r#"{"type": "stdio"}"#,
            "mcpServers.bad.command",
            "missing \"command\"",
        ),
        (
            r#"{"type": "http"}"#,
            "mcpServers.bad.url",
            "missing \"url\"",
        ),
        (
            r#"{"args": ["x"]}"#,
            "mcpServers.bad",
            "missing \"command\" or \"url\"",
        ),
        (
            r#"{"url": "ftp://host/x"}"#,
            "mcpServers.bad.url",
            "bad URL",
        ),
        (r#"{"url": "not a url"}"#, "mcpServers.bad.url", "bad URL"),
        (
            r#"{"url": "/relative/mcp"}"#,
            "mcpServers.bad.url",
            "bad URL",
        ),
        (
            r#"{"command": 5}"#,
            "mcpServers.bad.command",
            "expected a string, found a number",
        ),
        (
            r#"{"command": "x", "args": "a b"}"#,
            "mcpServers.bad.args",
            "expected an array of strings",
        ),
        (
            r#"{"command": "x", "args": ["a", 2]}"#,
            "mcpServers.bad.args[1]",
            "found a number",
        ),
        (
            r#"{"command": "x", "env": {"K": true}}"#,
            "mcpServers.bad.env.K",
            "found a boolean",
        ),
        (
            r#"{"command": "x", "timeout": "5s"}"#,
            "mcpServers.bad.timeout",
            "milliseconds",
        ),
        (
            r#"{"command": "x", "startupTimeout": -1}"#,
            "mcpServers.bad.startupTimeout",
            "milliseconds",
        ),
        (
            r#"{"command": "x", "timeout": 0}"#,
            "mcpServers.bad.timeout",
            "> 0",
        ),
        (
            r#"{"command": "x", "disabled": "yes"}"#,
            "mcpServers.bad.disabled",
            "a boolean",
        ),
        (
            r#"{"command": "${NOT_SET_ANYWHERE}"}"#,
            "mcpServers.bad.command",
            "NOT_SET_ANYWHERE",
        ),
        (
            r#"{"command": "x", "env": {"K": "${UNSET_K}"}}"#,
            "mcpServers.bad.env.K",
            "UNSET_K",
        ),
        (
            r#"{"url": "http://h/", "headers": {"X": "${"}}"#,
            "mcpServers.bad.headers.X",
            "unterminated",
        ),
        (
            r#"{"url": "http://h/", "headers": {"Bad Name": "v"}}"#,
            "mcpServers.bad.headers[\"Bad Name\"]",
            "header name",
        ),
        (r#"{"command": ""}"#, "mcpServers.bad.command", "empty"),
        (
            r#"["x"]"#,
            "mcpServers.bad",
            "expected an object, found an array",
        ),
        (
            r#"{"type": 3, "command": "x"}"#,
            "mcpServers.bad.type",
            "expected a string",
        ),
    ];
    for (entry, path, what) in cases {
        let text = format!(r#"{{"mcpServers": {{"good": {{"command": "cat"}}, "bad": {entry}}}}}"#);
        let c = parse(&text);
        assert!(
            c.servers.contains_key("good"),
            "{entry}: good entry must load"
        );
        assert!(!c.servers.contains_key("bad"), "{entry}");
        let e = only_error(&c);
        assert_eq!(e.path, *path, "{entry}");
        assert_eq!(e.server.as_deref(), Some("bad"));
        let text = e.to_string();
        assert!(
            text.contains(what),
            "{entry}: {text:?} should mention {what:?}"
        );
        assert!(text.starts_with(path), "{text}");
    }
}

#[test]
fn odd_server_names_are_quoted_in_paths() {
    let c = parse(r#"{"mcpServers": {"my.server": {"url": 1}}}"#);
    assert_eq!(only_error(&c).path, r#"mcpServers["my.server"].url"#);
}

#[test]
fn whole_document_errors() {
    for (text, what) in [
        ("not json", "not valid JSON"),
        ("[]", "expected an object"),
        ("{}", "mcpServers"),
        (
            r#"{"mcpServers": []}"#,
            "expected an object, found an array",
        ),
    ] {
        let e = McpConfig::from_json_with_env(text, &env).unwrap_err();
        assert!(e.to_string().contains(what), "{text}: {e}");
        assert!(e.server.is_none());
    }
}

#[test]
fn later_files_win_entry_by_entry() {
    let user = parse(
        r#"{"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"},
        "c": {"command": "user-c"}, "d": {"type": "nope"}}}"#,
    );
    let project = parse(
        r#"{"mcpServers": {"a": {"command": "project-a"}, "c": {"command": 1},
        "d": {"command": "project-d"}}}"#,
    );
    let merged = user.merged_with(project);
    let cmd = |n: &str| match &merged.servers[n].transport {
        TransportConfig::Stdio(s) => s.command.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(cmd("a"), "project-a");
    assert_eq!(cmd("b"), "user-b");
    assert_eq!(cmd("d"), "project-d", "the user's broken d is shadowed");
    assert!(
        !merged.servers.contains_key("c"),
        "project's broken c shadows user's c"
    );
    assert_eq!(merged.errors.len(), 1, "{:?}", merged.errors);
    assert_eq!(merged.errors[0].path, "mcpServers.c.command");
}

#[test]
fn load_reads_files_and_records_sources() {
    let dir = mcp_tests::temp_dir("config-load");
    let user = dir.join("user.json");
    let project = dir.join("project.json");
    std::fs::write(
        &user,
        r#"{"mcpServers": {"a": {"command": "u"}, "b": {"command": "u"}}}"#,
    )
    .unwrap();
    std::fs::write(
        &project,
        r#"{"mcpServers": {"a": {"command": "p"}, "x": {"url": 5}}}"#,
    )
    .unwrap();
    let c = McpConfig::load(&[&user, &project]).unwrap();
    assert_eq!(c.servers["a"].source.as_deref(), Some(project.as_path()));
    assert_eq!(c.servers["b"].source.as_deref(), Some(user.as_path()));
    assert_eq!(c.errors[0].file.as_deref(), Some(project.as_path()));
    assert!(
        c.errors[0]
            .to_string()
            .starts_with(&project.display().to_string())
    );

    let missing = dir.join("missing.json");
    let e = McpConfig::load(&[&user, &missing]).unwrap_err();
    assert!(matches!(e.kind, ConfigErrorKind::Read(_)));
    assert!(e.to_string().contains("missing.json"), "{e}");
    let c = McpConfig::load_existing(&[&missing, &user]).unwrap();
    assert_eq!(c.servers.len(), 2);
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{").unwrap();
    let e = McpConfig::load_existing(&[&user, &bad]).unwrap_err();
    assert!(matches!(e.kind, ConfigErrorKind::Json(_)), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn redact_url_strips_credentials_and_query() {
    assert_eq!(redact_url("https://u:p@h:1/x?k=v"), "https://***@h:1/x?***");
    assert_eq!(redact_url("http://h/x"), "http://h/x");
}

#[test]
fn protocol_version_and_discover_timeout_are_read_per_entry() {
    use mcp_client::VersionPreference;
    use mcp_types::ProtocolVersion;
    let config = parse(
        r#"{"mcpServers": {
            "a": {"command": "x", "protocolVersion": "handshake", "discoverTimeout": 8000},
            "b": {"command": "x", "protocolVersion": "2025-06-18"},
            "c": {"url": "http://127.0.0.1:1/mcp", "protocolVersion": "auto"},
            "d": {"url": "http://127.0.0.1:1/sse", "type": "sse", "protocolVersion": "2025-03-26"},
            "e": {"command": "x"},
            "bad1": {"command": "x", "protocolVersion": "2027-01-01"},
            "bad2": {"command": "x", "protocolVersion": 2025},
            "bad3": {"url": "http://127.0.0.1:1/sse", "type": "sse", "protocolVersion": "2026-07-28"},
            "bad4": {"command": "x", "discoverTimeout": 0}
        }}"#,
    );
    let get = |n: &str| &config.servers[n];
    assert_eq!(
        get("a").protocol_version,
        Some(VersionPreference::Handshake)
    );
    assert_eq!(get("a").discover_timeout, Some(Duration::from_millis(8000)));
    assert_eq!(
        get("b").protocol_version,
        Some(VersionPreference::Only(ProtocolVersion::V2025_06_18))
    );
    assert_eq!(get("c").protocol_version, Some(VersionPreference::Auto));
    assert_eq!(
        get("d").protocol_version,
        Some(VersionPreference::Only(ProtocolVersion::V2025_03_26))
    );
    assert_eq!(get("e").protocol_version, None);
    assert_eq!(get("e").discover_timeout, None);
    let mut paths: Vec<_> = config.errors.iter().map(|e| e.path.clone()).collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "mcpServers.bad1.protocolVersion",
            "mcpServers.bad2.protocolVersion",
            "mcpServers.bad3.protocolVersion",
            "mcpServers.bad4.discoverTimeout"
        ]
    );
    assert!(
        config
            .errors
            .iter()
            .any(|e| e.to_string().contains("handshake revisions")),
        "{:?}",
        config.errors
    );
}

/// A configuration error's `Display` says why (`println!("{e}")` of an
/// unread file gives the operating system's reason too), and no level of
/// its chain repeats the text of its `source()`, so a chain printer shows
/// each fact once.
#[test]
fn config_errors_say_each_thing_once() {
    let missing = mcp_tests::temp_path("config-chain").join("missing.json");
    let unread = McpConfig::from_file(&missing).unwrap_err();
    let unset = only_error(&parse(r#"{"mcpServers": {"a": {"command": "${NOPE}"}}}"#)).clone();
    let syntax = only_error(&parse(r#"{"mcpServers": {"a": {"command": "${1X}"}}}"#)).clone();
    for (case, e, levels) in [
        ("unread file", &unread, 1),
        ("unset variable", &unset, 1),
        ("bad expression", &syntax, 1),
    ] {
        let mut chain = vec![e.to_string()];
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            chain.push(s.to_string());
            source = s.source();
        }
        assert_eq!(chain.len(), levels, "{case}: {chain:?}");
        for pair in chain.windows(2) {
            assert!(!pair[0].contains(&pair[1]), "{case}: {chain:?}");
        }
    }
    let reason = match &unread.kind {
        ConfigErrorKind::Read(io) => io.to_string(),
        other => panic!("{other:?}"),
    };
    assert!(
        unread
            .to_string()
            .ends_with(&format!("$: cannot read the file: {reason}")),
        "{unread}"
    );
    assert_eq!(crate::error_chain(&unread).matches(&reason).count(), 1);
    assert!(unset.to_string().contains("NOPE"), "{unset}");
}

fn remote<'c>(c: &'c McpConfig, name: &str) -> &'c RemoteServer {
    match &c.servers[name].transport {
        TransportConfig::Remote(r) => r,
        other => panic!("{other:?}"),
    }
}

/// `auth` and the OAuth settings under the spellings of Claude Code
/// (`oauth.clientId`, `callbackPort`, space-separated `scopes`), VS Code
/// (`oauth.clientId`), Cursor (`auth.CLIENT_ID`, `CLIENT_SECRET` with
/// `${env:…}`, `scopes` array) and our own (`auth` mode, `clientSecretEnv`,
/// `account`).
#[test]
fn oauth_fields_in_every_hosts_spelling() {
    let c = parse(
        r#"{"mcpServers": {
        "claude": {"type": "http", "url": "https://a.example/mcp",
                   "oauth": {"clientId": "cid", "callbackPort": 8976, "scopes": "read write"}},
        "vscode": {"type": "http", "url": "https://b.example/mcp", "oauth": {"clientId": "vid"}},
        "cursor": {"url": "https://c.example/mcp",
                   "auth": {"CLIENT_ID": "kid", "CLIENT_SECRET": "${env:TOKEN}", "scopes": ["mcp", "offline_access"]}},
        "ours": {"url": "https://d.example/mcp", "auth": "oauth",
                 "oauth": {"client_id": "oid", "clientSecretEnv": "MY_SECRET", "account": "work"}},
        "static": {"url": "https://e.example/mcp", "auth": "headers", "headers": {"X-Key": "k"}},
        "open": {"url": "https://f.example/mcp", "auth": "none"},
        "bearer": {"url": "https://g.example/mcp", "headers": {"authorization": "Bearer x"}},
        "plain": {"url": "https://h.example/mcp"},
        "bad-mode": {"url": "https://i.example/mcp", "auth": "kerberos"},
        "bad-port": {"url": "https://j.example/mcp", "oauth": {"callbackPort": 70000}}
    }}"#,
    );
    let claude = remote(&c, "claude");
    assert_eq!(claude.auth, AuthMode::Auto);
    assert_eq!(claude.oauth.client_id.as_deref(), Some("cid"));
    assert_eq!(claude.oauth.callback_port, Some(8976));
    assert_eq!(claude.oauth.scopes, ["read", "write"]);
    assert!(claude.wants_oauth());
    assert_eq!(remote(&c, "vscode").oauth.client_id.as_deref(), Some("vid"));
    let cursor = remote(&c, "cursor");
    assert_eq!(cursor.auth, AuthMode::OAuth);
    assert_eq!(cursor.oauth.client_id.as_deref(), Some("kid"));
    assert_eq!(cursor.oauth.client_secret.as_deref(), Some("s3cret"));
    assert_eq!(cursor.oauth.scopes, ["mcp", "offline_access"]);
    assert!(!format!("{cursor:?}").contains("s3cret"), "{cursor:?}");
    let ours = remote(&c, "ours");
    assert_eq!(ours.oauth.client_id.as_deref(), Some("oid"));
    assert_eq!(ours.oauth.client_secret_env.as_deref(), Some("MY_SECRET"));
    assert_eq!(ours.oauth.account.as_deref(), Some("work"));
    assert!(!remote(&c, "static").wants_oauth());
    assert!(!remote(&c, "open").wants_oauth());
    assert!(!remote(&c, "bearer").wants_oauth());
    assert!(remote(&c, "plain").wants_oauth());
    let paths: Vec<&str> = c.errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "mcpServers.bad-mode.auth",
            "mcpServers.bad-port.oauth.callbackPort"
        ]
    );
}

#[test]
fn auth_server_metadata_url_in_claude_codes_spelling() {
    let c = parse(
        r#"{"mcpServers": {
        "claude": {"url": "https://a.example/mcp",
                   "oauth": {"authServerMetadataUrl": "https://auth.example/.well-known/openid-configuration"}},
        "snake": {"url": "https://b.example/mcp",
                  "oauth": {"auth_server_metadata_url": "https://${HOST}/meta"}},
        "bad": {"url": "https://c.example/mcp", "oauth": {"authServerMetadataUrl": "ftp://x/meta"}}
    }}"#,
    );
    assert_eq!(
        remote(&c, "claude")
            .oauth
            .auth_server_metadata_url
            .as_deref(),
        Some("https://auth.example/.well-known/openid-configuration")
    );
    assert_eq!(
        remote(&c, "snake")
            .oauth
            .auth_server_metadata_url
            .as_deref(),
        Some("https://example.com/meta")
    );
    assert_eq!(
        only_error(&c).path,
        "mcpServers.bad.oauth.authServerMetadataUrl"
    );
}

#[test]
fn dpop_is_left_to_the_default_or_turned_off_or_on() {
    let c = parse(
        r#"{"mcpServers": {
        "default": {"url": "https://a.example/mcp"},
        "off": {"url": "https://b.example/mcp", "oauth": {"dpop": false}},
        "on": {"url": "https://c.example/mcp", "oauth": {"dpop": true}},
        "bad": {"url": "https://d.example/mcp", "oauth": {"dpop": "no"}}
    }}"#,
    );
    assert_eq!(remote(&c, "default").oauth.dpop, None);
    assert_eq!(remote(&c, "off").oauth.dpop, Some(false));
    assert_eq!(remote(&c, "on").oauth.dpop, Some(true));
    assert_eq!(only_error(&c).path, "mcpServers.bad.oauth.dpop");
}

#[test]
fn credential_store_setting_merges_later_file_first() {
    let c = parse(r#"{"credentialStore": "file", "mcpServers": {}}"#);
    assert_eq!(c.credential_store.as_deref(), Some("file"));
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    let unset = parse(r#"{"mcpServers": {}}"#);
    assert_eq!(unset.credential_store, None);
    let bad = parse(r#"{"credentialStore": "vault", "mcpServers": {}}"#);
    assert_eq!(bad.credential_store, None);
    assert_eq!(only_error(&bad).path, "credentialStore");
    let keychain = parse(r#"{"credentialStore": "keychain", "mcpServers": {}}"#);
    assert_eq!(
        c.clone().merged_with(keychain).credential_store.as_deref(),
        Some("keychain")
    );
    assert_eq!(
        c.merged_with(unset).credential_store.as_deref(),
        Some("file"),
        "a later file that does not say keeps the earlier setting"
    );
}

/// A file saved with a UTF-8 byte order mark (Windows editors do) is read;
/// a mark anywhere but at the start is still an error.
#[test]
fn a_byte_order_mark_opening_a_file_is_skipped() {
    let dir = mcp_tests::temp_dir("config-bom");
    let file = dir.join("servers.json");
    std::fs::write(
        &file,
        "\u{feff}{\"mcpServers\": {\"a\": {\"command\": \"srv\"}}}\r\n",
    )
    .unwrap();
    let config = McpConfig::from_file(&file).unwrap();
    assert!(config.errors.is_empty(), "{:?}", config.errors);
    assert_eq!(config.servers.len(), 1);
    let late = dir.join("late.json");
    std::fs::write(&late, " \u{feff}{\"mcpServers\": {}}").unwrap();
    let e = McpConfig::from_file(&late).unwrap_err();
    assert!(
        matches!(e.kind, ConfigErrorKind::Json(_)),
        "a mark after the start is not skipped: {e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The grants without a person in an `oauth` object: each with what it
/// needs, and an entry missing it refused at parse time, naming the
/// member.
#[test]
fn machine_grants_in_the_oauth_object() {
    let c = parse(
        r#"{"mcpServers": {
        "cc-secret": {"url": "https://a.example/mcp",
                      "oauth": {"grant": "client_credentials", "clientId": "m1", "clientSecretEnv": "CC_SECRET"}},
        "cc-key": {"url": "https://b.example/mcp",
                   "oauth": {"grant": "client_credentials", "clientId": "m2",
                             "privateKeyFile": "/keys/m2.pem", "signingAlgorithm": "ES256"}},
        "ema": {"url": "https://c.example/mcp",
                "oauth": {"grant": "enterprise_managed", "clientId": "m3", "clientSecretEnv": "S",
                          "tokenFile": "/run/id_token", "idpTokenEndpoint": "https://idp.example/token",
                          "idpClientId": "idp-m3"}},
        "wif": {"url": "https://d.example/mcp",
                "oauth": {"grant": "workload_identity", "tokenEnv": "WORKLOAD_JWT"}},
        "person": {"url": "https://e.example/mcp", "oauth": {"grant": "authorization_code"}},
        "no-client": {"url": "https://f.example/mcp", "oauth": {"grant": "client_credentials"}},
        "no-token": {"url": "https://g.example/mcp", "oauth": {"grant": "workload_identity"}},
        "no-idp": {"url": "https://h.example/mcp",
                   "oauth": {"grant": "enterprise_managed", "clientId": "x", "clientSecretEnv": "S",
                             "tokenEnv": "T"}},
        "bad-grant": {"url": "https://i.example/mcp", "oauth": {"grant": "password"}},
        "bad-alg": {"url": "https://j.example/mcp",
                    "oauth": {"grant": "client_credentials", "clientId": "x",
                              "privateKeyFile": "/k.pem", "signingAlgorithm": "HS256"}}
    }}"#,
    );
    let cc = remote(&c, "cc-secret");
    assert_eq!(cc.oauth.grant, GrantSetting::ClientCredentials);
    assert!(cc.oauth.grant.is_machine() && cc.wants_oauth());
    assert_eq!(cc.oauth.client_secret_env.as_deref(), Some("CC_SECRET"));
    let key = remote(&c, "cc-key");
    assert_eq!(
        key.oauth.credentials.private_key_file.as_deref(),
        Some("/keys/m2.pem")
    );
    assert_eq!(
        key.oauth.credentials.signing_algorithm.as_deref(),
        Some("ES256")
    );
    let ema = remote(&c, "ema");
    assert_eq!(ema.oauth.grant, GrantSetting::EnterpriseManaged);
    assert_eq!(
        ema.oauth.credentials.token_file.as_deref(),
        Some("/run/id_token")
    );
    assert_eq!(
        ema.oauth.credentials.idp_token_endpoint.as_deref(),
        Some("https://idp.example/token")
    );
    assert_eq!(
        ema.oauth.credentials.idp_client_id.as_deref(),
        Some("idp-m3")
    );
    let wif = remote(&c, "wif");
    assert_eq!(wif.oauth.grant, GrantSetting::WorkloadIdentity);
    assert_eq!(
        wif.oauth.credentials.token_env.as_deref(),
        Some("WORKLOAD_JWT")
    );
    assert_eq!(
        remote(&c, "person").oauth.grant,
        GrantSetting::AuthorizationCode
    );
    let errors: Vec<(&str, String)> = c
        .errors
        .iter()
        .map(|e| (e.path.as_str(), e.to_string()))
        .collect();
    let paths: Vec<&str> = errors.iter().map(|(p, _)| *p).collect();
    assert_eq!(
        paths,
        [
            "mcpServers.bad-alg.oauth.signingAlgorithm",
            "mcpServers.bad-grant.oauth.grant",
            "mcpServers.no-client.oauth.grant",
            "mcpServers.no-idp.oauth.grant",
            "mcpServers.no-token.oauth.grant",
        ]
    );
    assert!(errors[2].1.contains("clientId"), "{:?}", errors[2]);
    assert!(errors[3].1.contains("idpTokenEndpoint"), "{:?}", errors[3]);
    assert!(
        errors[4].1.contains("tokenFile or tokenEnv"),
        "{:?}",
        errors[4]
    );
}
