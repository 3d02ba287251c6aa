//! Tasks (spec 2025-11-25: `basic/utilities/tasks`, experimental; schema
//! `Task`, `TaskMetadata`, `TaskStatus`, `CreateTaskResult`, `GetTaskRequest`,
//! `GetTaskPayloadRequest`, `ListTasksRequest`, `CancelTaskRequest`,
//! `TaskStatusNotification`).
//!
//! A request carrying `task` ([`TaskMetadata`]) in its params is answered
//! with a [`CreateTaskResult`] instead of its usual result; the client then
//! polls `tasks/get` and fetches the payload with `tasks/result`, which it
//! decodes as the original method's result.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{Cursor, Meta, PaginatedParams, impl_paginated, open_enum};
use crate::method::{Notification, Request};

/// The `task` member of a task-augmented request's params (schema `TaskMetadata`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskMetadata {
    /// Requested time to keep the task's result, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

open_enum! {
    /// A task's state (schema `TaskStatus`).
    pub enum TaskStatus {
        /// Running.
        Working = "working",
        /// Waiting for the requester to answer an input request.
        InputRequired = "input_required",
        /// Finished; the payload is available through `tasks/result`.
        Completed = "completed",
        /// Failed.
        Failed = "failed",
        /// Cancelled.
        Cancelled = "cancelled",
    }
}

impl TaskStatus {
    /// `completed`, `failed` or `cancelled`: the task will not change again.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// A task (schema `Task`); also the result of `tasks/get` and `tasks/cancel`
/// and the params of `notifications/tasks/status` (which add `_meta`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Task id.
    pub task_id: String,
    /// Current state.
    pub status: TaskStatus,
    /// Human-readable status message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last update.
    pub last_updated_at: String,
    /// Time the result is kept after creation, in ms; `null` is unlimited.
    /// Always written (as `null` when `None`), as the schema requires.
    #[serde(default)]
    pub ttl: Option<u64>,
    /// Suggested polling interval, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
    /// Metadata (present on results and notifications).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of a task-augmented request (schema `CreateTaskResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// The created task.
    pub task: Task,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `tasks/get`, `tasks/result` and `tasks/cancel`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task id.
    pub task_id: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `tasks/list` (schema `ListTasksResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// This page of tasks.
    pub tasks: Vec<Task>,
    /// Cursor of the next page, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Entries of this page that did not decode and were left out (each
    /// logged once by the client); never on the wire. See
    /// [`crate::lenient`].
    #[serde(skip)]
    pub problems: Vec<crate::entry_problem::EntryProblem>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl_paginated!(ListTasksResult, tasks, Task, task_id);

/// Result of `tasks/result` (schema `GetTaskPayloadResult`): the original
/// request's result object, raw. Decode it as that method's `Result` type.
pub type GetTaskPayloadResult = Map<String, Value>;

/// `tasks/get` (either direction, 2025-11-25).
#[derive(Debug)]
pub enum GetTask {}

impl Request for GetTask {
    const METHOD: &'static str = "tasks/get";
    type Params = TaskIdParams;
    type Result = Task;
}

/// `tasks/result` (either direction, 2025-11-25).
#[derive(Debug)]
pub enum GetTaskPayload {}

impl Request for GetTaskPayload {
    const METHOD: &'static str = "tasks/result";
    type Params = TaskIdParams;
    type Result = GetTaskPayloadResult;
}

/// `tasks/list` (either direction, 2025-11-25).
#[derive(Debug)]
pub enum ListTasks {}

impl Request for ListTasks {
    const METHOD: &'static str = "tasks/list";
    type Params = PaginatedParams;
    type Result = ListTasksResult;
    fn set_problems(
        result: &mut ListTasksResult,
        problems: Vec<crate::entry_problem::EntryProblem>,
    ) {
        result.problems = problems;
    }
}

/// `tasks/cancel` (either direction, 2025-11-25).
#[derive(Debug)]
pub enum CancelTask {}

impl Request for CancelTask {
    const METHOD: &'static str = "tasks/cancel";
    type Params = TaskIdParams;
    type Result = Task;
}

/// `notifications/tasks/status` (either direction, 2025-11-25).
#[derive(Debug)]
pub enum TaskStatusNotification {}

impl Notification for TaskStatusNotification {
    const METHOD: &'static str = "notifications/tasks/status";
    type Params = Task;
}
