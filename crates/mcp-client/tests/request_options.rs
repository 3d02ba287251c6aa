//! `RequestOptions` work the same on every request method: a per-call
//! cancel token cancels it (with `notifications/cancelled`), a per-call
//! timeout bounds it, and default options keep the client's configured
//! timeout rather than replacing it with another number.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use mcp_client::{CancellationToken, Client, ClientError, RequestOptions};
use mcp_types::RequestId;
use mcp_types::completion::CompleteRequestParams;
use mcp_types::lifecycle::Ping;
use mcp_types::logging::LoggingLevel;
use serde_json::json;
use support::*;

type Call = Pin<Box<dyn Future<Output = Result<(), ClientError>> + Send>>;

/// One request method: its name, the method it sends, and a call of it
/// with the given options.
struct Method {
    name: &'static str,
    sends: &'static str,
    call: fn(Client, RequestOptions) -> Call,
}

fn complete_params() -> CompleteRequestParams {
    serde_json::from_value(json!({
        "ref": {"type": "ref/prompt", "name": "p"},
        "argument": {"name": "a", "value": "x"}
    }))
    .expect("complete params")
}

/// Every request method of the client (the listings that follow cursors
/// through their first page).
fn methods() -> Vec<Method> {
    macro_rules! m {
        ($name:expr, $sends:expr, |$c:ident, $o:ident| $body:expr) => {
            Method {
                name: $name,
                sends: $sends,
                call: |$c, $o| Box::pin(async move { $body.map(drop) }),
            }
        };
    }
    vec![
        m!("request", "ping", |c, o| c
            .request::<Ping>(Default::default(), o)
            .await),
        m!("request_raw", "x/y", |c, o| c
            .request_raw("x/y", None, o)
            .await),
        m!("ping", "ping", |c, o| c.ping(o).await),
        m!("list_tools", "tools/list", |c, o| c
            .list_tools(None, o)
            .await),
        m!("list_all_tools", "tools/list", |c, o| c
            .list_all_tools(o)
            .await),
        m!("tools_listing", "tools/list", |c, o| c
            .tools_listing(o)
            .await),
        m!("call_tool", "tools/call", |c, o| c
            .call_tool("t", (), o)
            .await),
        m!("call_tool_as_task", "tools/call", |c, o| c
            .call_tool_as_task("t", (), Default::default(), o)
            .await),
        m!("list_resources", "resources/list", |c, o| c
            .list_resources(None, o)
            .await),
        m!("list_all_resources", "resources/list", |c, o| c
            .list_all_resources(o)
            .await),
        m!("resources_listing", "resources/list", |c, o| c
            .resources_listing(o)
            .await),
        m!(
            "list_resource_templates",
            "resources/templates/list",
            |c, o| c.list_resource_templates(None, o).await
        ),
        m!(
            "list_all_resource_templates",
            "resources/templates/list",
            |c, o| c.list_all_resource_templates(o).await
        ),
        m!(
            "resource_templates_listing",
            "resources/templates/list",
            |c, o| c.resource_templates_listing(o).await
        ),
        m!("read_resource", "resources/read", |c, o| c
            .read_resource("file:///a", o)
            .await),
        m!("subscribe", "resources/subscribe", |c, o| c
            .subscribe("file:///a", o)
            .await),
        m!("unsubscribe", "resources/unsubscribe", |c, o| c
            .unsubscribe("file:///a", o)
            .await),
        m!("list_prompts", "prompts/list", |c, o| c
            .list_prompts(None, o)
            .await),
        m!("list_all_prompts", "prompts/list", |c, o| c
            .list_all_prompts(o)
            .await),
        m!("prompts_listing", "prompts/list", |c, o| c
            .prompts_listing(o)
            .await),
        m!("get_prompt", "prompts/get", |c, o| c
            .get_prompt("p", None, o)
            .await),
        m!("complete", "completion/complete", |c, o| c
            .complete(complete_params(), o)
            .await),
        m!("set_logging_level", "logging/setLevel", |c, o| c
            .set_logging_level(LoggingLevel::Info, o)
            .await),
        m!("get_task", "tasks/get", |c, o| c.get_task("t1", o).await),
        m!("tool_task_result", "tasks/result", |c, o| c
            .tool_task_result("t1", o)
            .await),
        m!("list_tasks", "tasks/list", |c, o| c
            .list_tasks(None, o)
            .await),
        m!("list_all_tasks", "tasks/list", |c, o| c
            .list_all_tasks(o)
            .await),
        m!("tasks_listing", "tasks/list", |c, o| c
            .tasks_listing(o)
            .await),
        m!("cancel_task", "tasks/cancel", |c, o| c
            .cancel_task("t1", o)
            .await),
    ]
}

/// The peer's next message is `notifications/cancelled` for `id`.
async fn expect_cancelled(peer: &mut mcp_client::testing::MemoryPeer, id: &RequestId, what: &str) {
    let note = peer.expect_notification("notifications/cancelled").await;
    let params = note.params.expect("cancelled params");
    assert_eq!(
        params["requestId"],
        serde_json::to_value(id).unwrap(),
        "{what}"
    );
}

/// A per-call cancel token cancels any request method: it fails as
/// cancelled and the server is told once.
#[tokio::test]
async fn a_cancel_token_cancels_every_method() {
    let (client, mut peer) = connect_full().await;
    for method in methods() {
        let token = CancellationToken::new();
        let options = RequestOptions::default().with_cancel(token.clone());
        let call = tokio::spawn((method.call)(client.clone(), options));
        let req = peer.expect_request(method.sends).await;
        token.cancel();
        let err = call.await.unwrap().unwrap_err();
        assert!(err.is_cancelled(), "{}: {err:?}", method.name);
        expect_cancelled(&mut peer, &req.id, method.name).await;
    }
}

/// A per-call timeout bounds any request method, whatever the client's
/// configured timeout.
#[tokio::test(start_paused = true)]
async fn a_per_call_timeout_bounds_every_method() {
    let options = legacy_options().with_request_timeout(Duration::from_secs(3600));
    let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
    for method in methods() {
        let options = RequestOptions::default().with_timeout(Duration::from_millis(200));
        let call = tokio::spawn((method.call)(client.clone(), options));
        let req = peer.expect_request(method.sends).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let err = call.await.unwrap().unwrap_err();
        assert!(err.is_timeout(), "{}: {err:?}", method.name);
        expect_cancelled(&mut peer, &req.id, method.name).await;
    }
}

/// Default options keep the client's configured timeout, on every method
/// (never a fixed 30 s in its place): with a 200 ms client
/// timeout every method times out well before 30 s; with
/// `without_timeout` none does.
#[tokio::test(start_paused = true)]
async fn default_options_inherit_the_clients_timeout() {
    let options = legacy_options().with_request_timeout(Duration::from_millis(200));
    let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
    for method in methods() {
        let call = tokio::spawn((method.call)(client.clone(), RequestOptions::default()));
        let req = peer.expect_request(method.sends).await;
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(
            call.is_finished(),
            "{}: still waiting after 5 s",
            method.name
        );
        let err = call.await.unwrap().unwrap_err();
        assert!(err.is_timeout(), "{}: {err:?}", method.name);
        expect_cancelled(&mut peer, &req.id, method.name).await;

        let call = tokio::spawn((method.call)(
            client.clone(),
            RequestOptions::default().without_timeout(),
        ));
        let req = peer.expect_request(method.sends).await;
        tokio::time::sleep(Duration::from_secs(3600)).await;
        assert!(
            !call.is_finished(),
            "{}: without_timeout ended",
            method.name
        );
        call.abort();
        expect_cancelled(&mut peer, &req.id, method.name).await;
    }
}

/// Cancelling a whole listing while a later page is in flight fails the
/// listing as cancelled (the caller asked for nothing), where a later
/// page failing otherwise keeps the pages before it.
#[tokio::test]
async fn cancelling_a_listing_on_a_later_page_fails_it() {
    let (client, mut peer) = connect_full().await;
    let token = CancellationToken::new();
    let call = tokio::spawn({
        let client = client.clone();
        let options = RequestOptions::default().with_cancel(token.clone());
        async move { client.prompts_listing(options).await }
    });
    let req = peer.expect_request("prompts/list").await;
    peer.respond(
        &req.id,
        json!({"prompts": [{"name": "a"}], "nextCursor": "2"}),
    )
    .await;
    let req = peer.expect_request("prompts/list").await;
    token.cancel();
    let err = call.await.unwrap().unwrap_err();
    assert!(err.is_cancelled(), "{err:?}");
    expect_cancelled(&mut peer, &req.id, "prompts_listing").await;
}
