//! The error type's display, sources and questions.
use super::*;

#[test]
fn jsonrpc_errors_become_server_errors() {
    let e = ClientError::from_transport(
        "tools/list",
        TransportError::JsonRpc(JsonRpcError::method_not_found("tools/list")),
    );
    assert!(e.is_server_error());
    assert!(e.is_method_not_found());
    assert!(!e.is_timeout());
    let e = ClientError::from_transport(
        "x",
        TransportError::timeout(
            std::time::Duration::from_millis(5),
            mcp_transport::TimeoutPhase::Request,
        ),
    );
    assert!(e.is_timeout());
    assert!(e.server_error().is_none());
}

#[test]
fn display_names_both_versions() {
    let e = ClientError::VersionMismatch {
        ours: vec!["2025-11-25".into()],
        theirs: "1999-01-01".into(),
    };
    let s = e.to_string();
    assert!(s.contains("2025-11-25") && s.contains("1999-01-01"), "{s}");
}

/// `Display` says what the client was doing and never repeats its
/// source's text; the cause is the `source()`. Each variant that holds a
/// source, one table row each.
#[test]
fn display_leaves_the_cause_to_source() {
    use std::error::Error as _;
    let serde_error = || Arc::new(serde_json::from_str::<u8>("x").unwrap_err());
    let cases = [
        ClientError::Decode {
            method: "tools/list".into(),
            source: serde_error(),
        },
        ClientError::Encode {
            method: "tools/call".into(),
            source: serde_error(),
        },
        ClientError::SessionLost {
            method: "tools/call".into(),
            source: TransportError::session_expired(404, "the server forgot session abc"),
        },
        ClientError::InputRequest {
            method: "tools/call".into(),
            key: "k".into(),
            input_method: "sampling/createMessage".into(),
            error: Box::new(JsonRpcError::new(
                ErrorCode::INTERNAL_ERROR,
                "User rejected sampling request",
            )),
        },
        ClientError::ServerMisbehaved {
            method: "tools/call".into(),
            fault: ServerFault::TooManyInputRounds { rounds: 8 },
        },
        ClientError::Incompatible {
            method: "tools/call".into(),
            incompatibility: Incompatibility::ResultType("task".into()),
        },
    ];
    for error in &cases {
        let text = error.to_string();
        let source = error.source().expect("has a source").to_string();
        assert!(!source.is_empty(), "{error:?}");
        assert!(
            !text.contains(&source),
            "Display repeats the source: {text:?} contains {source:?}"
        );
    }
    // A pure wrapper shows what it wraps: the timeout is named.
    let timeout = ClientError::from_transport(
        "tools/call",
        TransportError::timeout(
            std::time::Duration::from_millis(500),
            mcp_transport::TimeoutPhase::Request,
        ),
    );
    assert!(timeout.to_string().contains("500 ms"), "{timeout}");
}

/// A server's error shows its code and message in `Display`, once
/// along the chain (it is no `source`), cut and with every character a
/// terminal acts on escaped.
#[test]
fn a_server_error_displays_its_code_and_message() {
    use std::error::Error as _;
    let e = ClientError::from_transport(
        "resources/read",
        TransportError::JsonRpc(JsonRpcError::new(
            ErrorCode::RESOURCE_NOT_FOUND,
            "Resource demo://nope not found",
        )),
    );
    assert_eq!(
        e.to_string(),
        "server answered resources/read with an error: MCP error -32002: Resource demo://nope not found"
    );
    assert!(e.source().is_none(), "shown once along the chain");
    assert_eq!(e.code(), Some(ErrorCode::RESOURCE_NOT_FOUND));

    let hostile = format!(
        "\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\r\nfake: ok \u{202e}txt.exe{}",
        "x".repeat(500)
    );
    let e = ClientError::from_transport(
        "tools/call",
        TransportError::JsonRpc(JsonRpcError::new(ErrorCode::INTERNAL_ERROR, hostile)),
    );
    let text = e.to_string();
    assert!(
        !text.chars().any(|c| c.is_control() || c == '\u{202e}'),
        "{text:?}"
    );
    assert!(
        text.contains(r"\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\u{d}\u{a}fake: ok \u{202e}txt.exe"),
        "{text}"
    );
    assert!(text.ends_with('…'), "{text}");
    let long = shown_server_text(&"x".repeat(500));
    assert_eq!(long, format!("{}…", "x".repeat(MAX_SERVER_MESSAGE_CHARS)));
    assert_eq!(shown_server_text(&"é".repeat(200)), "é".repeat(200));
}

/// The revision a method is missing from is the `ProtocolVersion`
/// itself, and displays as the spec writes it.
#[test]
fn method_not_in_revision_holds_the_revision() {
    let e = ClientError::MethodNotInRevision {
        method: "ping".into(),
        version: ProtocolVersion::V2026_07_28,
    };
    assert!(matches!(
        e,
        ClientError::MethodNotInRevision {
            version: ProtocolVersion::V2026_07_28,
            ..
        }
    ));
    assert_eq!(
        e.to_string(),
        "ping does not exist in protocol revision 2026-07-28"
    );
}

/// Whose doing an error is shows in its variant: the client's own state,
/// the server's misbehaviour, or what this client does not implement; the
/// server's text in an incompatibility is made safe to print.
#[test]
fn misuse_misbehaviour_and_incompatibility_are_told_apart() {
    use std::error::Error as _;
    let misuse = ClientError::NotInitialized {
        method: "tools/list".into(),
    };
    assert_eq!(
        misuse.to_string(),
        "tools/list was not sent: no protocol revision is negotiated yet"
    );
    assert!(misuse.source().is_none());
    assert!(misuse.server_fault().is_none() && misuse.incompatibility().is_none());

    let fault = ClientError::ServerMisbehaved {
        method: "prompts/get".into(),
        fault: ServerFault::MalformedInputRequired {
            member: "inputRequests",
            expected: "an object",
        },
    };
    assert_eq!(
        fault.to_string(),
        "the server misbehaved answering prompts/get"
    );
    assert_eq!(
        fault.source().map(ToString::to_string).as_deref(),
        Some("inputRequests of its input_required result is not an object")
    );
    assert!(fault.incompatibility().is_none());

    let hostile = ClientError::Incompatible {
        method: "tools/call".into(),
        incompatibility: Incompatibility::InputRequestMethod {
            key: "k\u{1b}[2J".into(),
            method: "x".repeat(300),
        },
    };
    let shown = hostile.source().expect("the incompatibility").to_string();
    assert!(!shown.chars().any(char::is_control), "{shown:?}");
    assert!(
        shown.starts_with(r#"input request "k\u{1b}[2J" of method "xxx"#),
        "{shown}"
    );
    assert!(shown.ends_with("…\""), "{shown}");
    assert!(hostile.server_fault().is_none());
}
