//! Multi round-trip requests (2026-07-28 `basic/patterns/mrtr`): input
//! requests answered through the `ClientHandler`, the retry's params, the
//! round cap, refusals, and `input_required` where it is not allowed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::Arc;

use async_trait::async_trait;
use mcp_client::testing::{MemoryPeer, memory_pair};
use mcp_client::{
    CallOptions, Client, ClientError, ClientHandler, ClientOptions, ElicitationModes,
    RequestContext,
};
use mcp_client::{Incompatibility, ServerFault};
use mcp_types::elicitation::{ElicitRequestParams, ElicitResult};
use mcp_types::roots::ListRootsResult;
use mcp_types::{ErrorCode, JsonRpcError, JsonRpcRequest, RequestId};
use serde_json::{Value, json};

#[derive(Debug)]
struct Roots;

#[async_trait]
impl ClientHandler for Roots {
    async fn list_roots(&self, ctx: RequestContext) -> Result<ListRootsResult, JsonRpcError> {
        assert_eq!(ctx.id, RequestId::String("where".into()));
        Ok(serde_json::from_value(json!({"roots": [{"uri": "file:///w"}]})).unwrap())
    }
}

async fn modern(options: ClientOptions) -> (Client, MemoryPeer) {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let probe = peer.expect_request("server/discover").await;
        peer.respond(
            &probe.id,
            json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                   "capabilities": {"tools": {}, "prompts": {}, "resources": {}}}),
        )
        .await;
        peer
    });
    let client = Client::connect(transport, options).await.unwrap();
    (client, server.await.unwrap())
}

fn input_required(requests: Value, state: Option<&str>) -> Value {
    let mut v = json!({"resultType": "input_required", "inputRequests": requests});
    if let Some(s) = state {
        v["requestState"] = json!(s);
    }
    v
}

/// `e` and each of its sources, joined with `": "`, as a host prints it.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

fn params(req: &JsonRpcRequest) -> &Value {
    req.params.as_ref().unwrap()
}

#[tokio::test]
async fn roots_input_is_answered_and_the_request_retried() {
    let (client, mut peer) = modern(
        ClientOptions::new("t", "1")
            .with_roots(false)
            .with_handler(Arc::new(Roots)),
    )
    .await;
    let server = tokio::spawn(async move {
        let first = peer.expect_request("resources/read").await;
        assert!(params(&first).get("inputResponses").is_none());
        peer.respond(
            &first.id,
            input_required(json!({"where": {"method": "roots/list"}}), Some("opaque-1")),
        )
        .await;
        let second = peer.expect_request("resources/read").await;
        assert_ne!(second.id, first.id, "a retry is a new request");
        let p = params(&second);
        assert_eq!(p["uri"], "file:///x");
        assert_eq!(p["requestState"], "opaque-1");
        assert_eq!(p["inputResponses"]["where"]["roots"][0]["uri"], "file:///w");
        assert_eq!(
            p["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        peer.respond(
            &second.id,
            json!({"resultType": "complete", "contents": [{"uri": "file:///x", "text": "done"}]}),
        )
        .await;
        peer
    });
    let read = client
        .read_resource("file:///x", Default::default())
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&read).unwrap()["contents"][0]["text"],
        "done"
    );
    server.await.unwrap();
}

#[tokio::test]
async fn state_only_rounds_retry_without_input_and_without_stale_state() {
    let (client, mut peer) = modern(ClientOptions::new("t", "1")).await;
    let server = tokio::spawn(async move {
        let first = peer.expect_request("prompts/get").await;
        peer.respond(
            &first.id,
            json!({"resultType": "input_required", "requestState": "s1"}),
        )
        .await;
        let second = peer.expect_request("prompts/get").await;
        assert_eq!(params(&second)["requestState"], "s1");
        assert!(params(&second).get("inputResponses").is_none());
        assert_eq!(params(&second)["name"], "p");
        peer.respond(
            &second.id,
            json!({"resultType": "complete", "messages": []}),
        )
        .await;
        peer
    });
    client
        .get_prompt("p", None, Default::default())
        .await
        .unwrap();
    server.await.unwrap();
}

/// Answers an elicitation with the message it was given, after checking
/// the request's `_meta` reached the context.
#[derive(Debug)]
struct Echoes;

#[async_trait]
impl ClientHandler for Echoes {
    async fn elicit(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        assert_eq!(ctx.method, "elicitation/create");
        assert_eq!(ctx.meta, json!({"trace": 7}).as_object().cloned());
        let ElicitRequestParams::Form(form) = params else {
            panic!("a form elicitation, decoded: {params:?}");
        };
        Ok(
            serde_json::from_value(json!({"action": "accept", "content": {"said": form.message}}))
                .unwrap(),
        )
    }
}

/// An input request's params are decoded into the method's params type
/// (its `_meta` into the context); params that do not decode are Invalid
/// params, and the handler is not asked.
#[tokio::test]
async fn input_request_params_are_decoded_into_their_type() {
    let (client, mut peer) = modern(
        ClientOptions::new("t", "1")
            .with_elicitation(ElicitationModes::form())
            .with_sampling(false)
            .with_handler(Arc::new(Echoes)),
    )
    .await;
    let server = tokio::spawn(async move {
        let first = peer.expect_request("tools/call").await;
        let form = json!({"method": "elicitation/create", "params": {
            "message": "hello \u{e9}", "requestedSchema": {"type": "object", "properties": {}},
            "_meta": {"trace": 7}}});
        peer.respond(&first.id, input_required(json!({"k": form}), None))
            .await;
        let second = peer.expect_request("tools/call").await;
        assert_eq!(
            params(&second)["inputResponses"]["k"],
            json!({"action": "accept", "content": {"said": "hello \u{e9}"}})
        );
        // A sampling request without its messages.
        let bad = json!({"method": "sampling/createMessage", "params": {"maxTokens": 5}});
        peer.respond(&second.id, input_required(json!({"s": bad}), None))
            .await;
        peer
    });
    let err = client
        .call_tool("t", (), CallOptions::default())
        .await
        .unwrap_err();
    server.await.unwrap();
    match err {
        ClientError::InputRequest {
            key,
            input_method,
            error,
            ..
        } => {
            assert_eq!(
                (key.as_str(), input_method.as_str()),
                ("s", "sampling/createMessage")
            );
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{error:?}");
            assert!(error.message.contains("messages"), "{error:?}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// An input request of a method this client does not answer is an
/// incompatibility; one without a method is the server's fault. Neither
/// reaches the handler, and the request is abandoned.
#[tokio::test]
async fn unknown_and_malformed_input_requests_abandon_the_request() {
    let (client, mut peer) = modern(ClientOptions::new("t", "1").with_roots(false)).await;
    let server = tokio::spawn(async move {
        for request in [json!({"method": "vendor/ask"}), json!(["roots/list"])] {
            let call = peer.expect_request("tools/call").await;
            peer.respond(&call.id, input_required(json!({"k": request}), None))
                .await;
        }
        peer
    });
    let unknown = client
        .call_tool("t", (), CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        unknown.incompatibility(),
        Some(&Incompatibility::InputRequestMethod {
            key: "k".into(),
            method: "vendor/ask".into()
        }),
        "{unknown:?}"
    );
    let malformed = client
        .call_tool("t", (), CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        malformed.server_fault(),
        Some(&ServerFault::MalformedInputRequest { key: "k".into() }),
        "{malformed:?}"
    );
    let mut peer = server.await.unwrap();
    assert!(peer.try_next().is_none(), "nothing retried");
}

#[tokio::test]
async fn an_undeclared_input_request_abandons_the_request() {
    // No elicitation capability declared: the handler is never asked.
    let (client, mut peer) = modern(ClientOptions::new("t", "1")).await;
    let server = tokio::spawn(async move {
        let first = peer.expect_request("tools/call").await;
        peer.respond(
            &first.id,
            input_required(
                json!({"k": {"method": "elicitation/create", "params": {"message": "?", "requestedSchema": {"type": "object", "properties": {}}}}}),
                None,
            ),
        )
        .await;
        peer
    });
    let options = CallOptions::default();
    let err = client.call_tool("t", (), options).await.unwrap_err();
    let mut peer = server.await.unwrap();
    match err {
        ClientError::InputRequest {
            method,
            key,
            input_method,
            ..
        } => {
            assert_eq!(method, "tools/call");
            assert_eq!(key, "k");
            assert_eq!(input_method, "elicitation/create");
        }
        other => panic!("unexpected {other:?}"),
    }
    // Abandoned: nothing was retried.
    assert!(peer.try_next().is_none());
}

#[tokio::test]
async fn rounds_are_capped() {
    let (client, mut peer) = modern(ClientOptions::new("t", "1").with_max_input_rounds(2)).await;
    let server = tokio::spawn(async move {
        for _ in 0..3 {
            let req = peer.expect_request("tools/call").await;
            peer.respond(
                &req.id,
                json!({"resultType": "input_required", "requestState": "again"}),
            )
            .await;
        }
        peer
    });
    let err = client
        .call_tool("t", (), CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ClientError::ServerMisbehaved {
                fault: ServerFault::TooManyInputRounds { rounds: 2 },
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        error_chain(&err),
        "the server misbehaved answering tools/call: it still asked for input after 2 rounds"
    );
    let mut peer = server.await.unwrap();
    assert!(peer.try_next().is_none(), "no fourth request");
}

#[tokio::test]
async fn input_required_on_another_method_is_a_protocol_error() {
    let (client, mut peer) = modern(ClientOptions::new("t", "1")).await;
    let server = tokio::spawn(async move {
        let req = peer.expect_request("tools/list").await;
        peer.respond(
            &req.id,
            json!({"resultType": "input_required", "requestState": "x"}),
        )
        .await;
        peer
    });
    let err = client
        .list_tools(None, Default::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.server_fault(),
        Some(&ServerFault::InputRequiredNotAllowed),
        "{err:?}"
    );
    server.await.unwrap();
}

/// `resultType` belongs to 2026-07-28: there a type the method cannot have
/// fails the request; under a handshake revision the member is not looked
/// for, and the result decodes as usual.
#[tokio::test]
async fn result_type_is_checked_only_under_the_stateless_revision() {
    let (client, mut peer) = modern(ClientOptions::new("t", "1")).await;
    let client = Arc::new(client);
    let c = client.clone();
    let call = tokio::spawn(async move {
        c.call_tool("t", (), CallOptions::default().with_validate_output(false))
            .await
    });
    let req = peer.expect_request("tools/call").await;
    peer.respond(&req.id, json!({"resultType": "task", "content": []}))
        .await;
    let err = call.await.unwrap().expect_err("an unsupported resultType");
    assert_eq!(
        err.incompatibility(),
        Some(&Incompatibility::ResultType("task".into())),
        "{err:?}"
    );
    assert_eq!(
        error_chain(&err),
        "the server's answer to tools/call needs what this client does not implement: result type \"task\""
    );

    // An escaped value is read as JSON reads it: "compl\u0065te" is "complete".
    let c = client.clone();
    let call = tokio::spawn(async move {
        c.call_tool("t", (), CallOptions::default().with_validate_output(false))
            .await
    });
    let req = peer.expect_request("tools/call").await;
    let id = serde_json::to_string(&req.id).unwrap();
    peer.send_raw(
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"compl\u0065te","content":[]}}}}"#)
            .as_bytes(),
    )
    .await;
    call.await
        .unwrap()
        .expect("an escaped \"complete\" is complete");

    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        peer.handshake("2025-06-18", json!({"tools": {}})).await;
        peer
    });
    let options = ClientOptions::new("t", "1").with_version_preference(
        mcp_client::VersionPreference::Only(mcp_types::ProtocolVersion::V2025_06_18),
    );
    let client = Client::connect(transport, options).await.unwrap();
    let mut peer = server.await.unwrap();
    let call = tokio::spawn(async move {
        client
            .call_tool("t", (), CallOptions::default().with_validate_output(false))
            .await
    });
    let req = peer.expect_request("tools/call").await;
    peer.respond(
        &req.id,
        json!({"resultType": "task", "content": [{"type": "text", "text": "ok"}]}),
    )
    .await;
    let result = call
        .await
        .unwrap()
        .expect("decoded: no resultType before 2026-07-28");
    assert_eq!(result.content[0].as_text(), Some("ok"));
}
