//! Tasks (2025-11-25): task-augmented `tools/call`, `tasks/get`,
//! `tasks/result`, `tasks/list`, `tasks/cancel`.

mod support;

use mcp_types::tasks::{TaskMetadata, TaskStatus};
use serde_json::json;
use support::*;

fn task(status: &str) -> serde_json::Value {
    json!({"taskId": "t1", "status": status, "createdAt": "2025-11-25T00:00:00Z", "lastUpdatedAt": "2025-11-25T00:00:01Z", "ttl": 60000, "pollInterval": 100})
}

#[tokio::test]
async fn task_lifecycle() {
    let (client, mut peer) = connect_full().await;
    let c = client.clone();
    let flow = tokio::spawn(async move {
        let task = TaskMetadata {
            ttl: Some(60_000),
            ..Default::default()
        };
        let created = c
            .call_tool_as_task("slow", (), task, Default::default())
            .await?;
        let got = c
            .get_task(&created.task.task_id, Default::default())
            .await?;
        let result = c
            .tool_task_result(&created.task.task_id, Default::default())
            .await?;
        let listed = c.list_tasks(None, Default::default()).await?;
        let cancelled = c.cancel_task("t1", Default::default()).await?;
        Ok::<_, mcp_client::ClientError>((created, got, result, listed, cancelled))
    });
    let req = peer.expect_request("tools/call").await;
    assert_eq!(req.params.as_ref().unwrap()["task"], json!({"ttl": 60000}));
    peer.respond(&req.id, json!({"task": task("working")}))
        .await;
    let req = peer.expect_request("tasks/get").await;
    assert_eq!(req.params.as_ref().unwrap()["taskId"], "t1");
    peer.respond(&req.id, task("completed")).await;
    let req = peer.expect_request("tasks/result").await;
    peer.respond(&req.id, json!({"content": [{"type": "text", "text": "done"}], "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}})).await;
    let req = peer.expect_request("tasks/list").await;
    peer.respond(&req.id, json!({"tasks": [task("completed")]}))
        .await;
    let req = peer.expect_request("tasks/cancel").await;
    peer.respond(&req.id, task("cancelled")).await;
    let (created, got, result, listed, cancelled) = flow.await.unwrap().unwrap();
    assert_eq!(created.task.status, TaskStatus::Working);
    assert!(got.status.is_terminal());
    assert_eq!(result.content[0].as_text(), Some("done"));
    assert_eq!(listed.tasks.len(), 1);
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
}

#[tokio::test]
async fn tasks_need_2025_11_25() {
    let (client, mut peer) = connect_with(legacy_options(), "2025-06-18", full_caps()).await;
    let err = client.get_task("t", Default::default()).await.unwrap_err();
    assert!(
        matches!(err, mcp_client::ClientError::MethodNotInRevision { .. }),
        "{err:?}"
    );
    assert!(peer.try_next().is_none());
}
