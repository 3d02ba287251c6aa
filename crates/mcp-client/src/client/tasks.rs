//! The 2025-11-25 task methods of [`Client`] (spec
//! `basic/utilities/tasks`): the state of a task, its outcome, the list of
//! tasks and their cancellation. A task is created by
//! [`Client::call_tool_as_task`].

use mcp_transport::RequestOptions;
use mcp_types::Request;
use mcp_types::tasks::{
    CancelTask, GetTask, GetTaskPayload, ListTasks, ListTasksResult, Task, TaskIdParams,
};
use mcp_types::tools::{CallTool, CallToolResult};

use crate::client::Client;
use crate::codec;
use crate::error::ClientError;
use crate::listing::Listing;
use crate::mrtr;

/// The method of [`Client::tool_task_result`].
const TASKS_RESULT: &str = GetTaskPayload::METHOD;

impl Client {
    /// `tasks/get`: the task's current state.
    ///
    /// Errors: as [`Client::request`]; needs `tasks`.
    pub async fn get_task(
        &self,
        task_id: impl Into<String>,
        options: RequestOptions,
    ) -> Result<Task, ClientError> {
        self.request::<GetTask>(task_params(task_id), options).await
    }

    /// `tasks/result` for a task-augmented `tools/call`: blocks until the
    /// task is terminal, then returns what `tools/call` would have. The
    /// wait is bounded by the timeout of `options` (the client's request
    /// timeout by default; [`RequestOptions::without_timeout`] to wait as
    /// long as the task runs).
    ///
    /// Errors: as [`Client::request`]; needs `tasks`.
    pub async fn tool_task_result(
        &self,
        task_id: impl Into<String>,
        options: RequestOptions,
    ) -> Result<CallToolResult, ClientError> {
        let params = codec::params(TASKS_RESULT, &task_params(task_id))?;
        let value = mrtr::send(&self.inner, TASKS_RESULT, params, options).await?;
        codec::decode_like::<CallTool>(
            TASKS_RESULT,
            value,
            self.session().protocol_version,
            self.transport().as_ref(),
        )
    }

    /// One page of `tasks/list`.
    ///
    /// Errors: as [`Client::request`]; needs `tasks.list`.
    pub async fn list_tasks(
        &self,
        cursor: Option<String>,
        options: RequestOptions,
    ) -> Result<ListTasksResult, ClientError> {
        self.list_page::<ListTasks>(cursor, options).await
    }

    /// Every task, following `nextCursor`.
    ///
    /// Entries that do not decode are left out and a listing that does not
    /// end is cut short, keeping what arrived (logged at warn; see
    /// [`Client::listing`]).
    ///
    /// Errors: the first page's, as [`Client::request`].
    pub async fn list_all_tasks(&self, options: RequestOptions) -> Result<Vec<Task>, ClientError> {
        self.tasks_listing(options).await.map(|l| l.items)
    }

    /// [`Client::list_all_tasks`] with the entries left out and why the
    /// listing stopped early, if it did.
    ///
    /// Errors: as [`Client::listing`].
    pub async fn tasks_listing(
        &self,
        options: RequestOptions,
    ) -> Result<Listing<Task>, ClientError> {
        self.listing::<ListTasks>(options).await
    }

    /// `tasks/cancel` (use this, not `notifications/cancelled`, for tasks).
    ///
    /// Errors: as [`Client::request`]; needs `tasks.cancel`.
    pub async fn cancel_task(
        &self,
        task_id: impl Into<String>,
        options: RequestOptions,
    ) -> Result<Task, ClientError> {
        self.request::<CancelTask>(task_params(task_id), options)
            .await
    }
}

fn task_params(task_id: impl Into<String>) -> TaskIdParams {
    TaskIdParams {
        task_id: task_id.into(),
        ..Default::default()
    }
}
