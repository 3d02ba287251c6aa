//! The tool methods of [`Client`] (spec `server/tools`): listing, which
//! also fills the tool cache, and `tools/call` with its schema checks and
//! its task-augmented form (2025-11-25 `basic/utilities/tasks`).

use std::sync::Arc;

use mcp_transport::RequestOptions;
use mcp_types::Request;
use mcp_types::lenient::EntryProblem;
use mcp_types::tasks::{CreateTaskResult, TaskMetadata};
use mcp_types::tools::{
    CallTool, CallToolRequestParams, CallToolResult, ListTools, ListToolsResult, Tool,
};
use mcp_types::{ArgumentsError, RawParams};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::capabilities;
use crate::client::Client;
use crate::codec;
use crate::connection::pipeline::SendParams;
use crate::error::ClientError;
use crate::list_changes::ListKind;
use crate::listing::{Incomplete, Listing};
use crate::mrtr;
use crate::options::CallOptions;
use crate::request_metadata;
use crate::validation;

impl Client {
    /// One page of `tools/list` (spec `server/tools` § Listing Tools).
    ///
    /// Errors: as [`Client::request`]; needs the `tools` capability.
    ///
    /// Under 2026-07-28 over HTTP, tools whose `x-mcp-header` annotations
    /// are invalid are left out (logged at warn; spec `server/tools`).
    ///
    /// The page is returned as it arrived, even when a
    /// `tools/list_changed` arrived while it was in flight; its tools are
    /// then not recorded for schema validation (they may be as they were
    /// before the change).
    pub async fn list_tools(
        &self,
        cursor: Option<String>,
        options: RequestOptions,
    ) -> Result<ListToolsResult, ClientError> {
        let requested = self.inner.list_generation(ListKind::Tools);
        let mut page = self.list_page::<ListTools>(cursor, options).await?;
        if self.inner.uses_metadata_headers(&self.session()) {
            request_metadata::retain_valid_tools(&mut page.tools);
        }
        // Each tool is known from here on (schema validation, headers).
        let mut cache = self.inner.tools();
        for tool in &page.tools {
            cache.observe(tool, requested);
        }
        drop(cache);
        Ok(page)
    }

    /// Every tool, following `nextCursor`. Also replaces the cached tool
    /// list ([`Client::cached_tools`]) used for schema validation and, under
    /// 2026-07-28, for the `Mcp-Param-*` headers of `tools/call`. Tools with
    /// invalid `x-mcp-header` annotations are left out as in
    /// [`Client::list_tools`]. The cache holds one copy of the listing.
    ///
    /// Errors: the first page's, as [`Client::request`]; the
    /// cache is then left as it was.
    pub async fn list_all_tools(&self, options: RequestOptions) -> Result<Vec<Tool>, ClientError> {
        self.tools_listing(options).await.map(|l| l.items)
    }

    /// [`Client::list_all_tools`] with what was left out: the entries that
    /// did not decode and why the listing stopped early, if it did. The
    /// cache is replaced with the tools listed, even when incomplete.
    ///
    /// A `tools/list_changed` that arrives while the listing is in flight
    /// (the server may have answered from its state before the change)
    /// makes the client list once more, as [`Client::listing`] does; a
    /// listing overtaken that way is never offered by
    /// [`Client::cached_tools`].
    ///
    /// Errors: as [`Client::listing`].
    pub async fn tools_listing(
        &self,
        options: RequestOptions,
    ) -> Result<Listing<Tool>, ClientError> {
        self.inner.tools_listing(options).await
    }

    /// What the listing behind [`Client::cached_tools`] left out: the
    /// entries that did not decode, and why it stopped early if it did
    /// (see [`Client::tools_listing`]). Empty before any listing.
    pub fn cached_tools_left_out(&self) -> (Vec<EntryProblem>, Option<Incomplete>) {
        self.inner.tools().left_out()
    }

    /// The tool list from the last [`Client::list_all_tools`] (or automatic
    /// refresh), unless a `tools/list_changed` made it stale: one that
    /// arrived after that listing was requested, before or after its
    /// answer. `None` says: list again.
    pub fn cached_tools(&self) -> Option<Arc<Vec<Tool>>> {
        self.inner.tools().listed()
    }

    /// `tools/call` (spec `server/tools` § Calling Tools). A tool-level
    /// failure (`isError: true`) is `Ok` with `is_error == Some(true)`.
    ///
    /// `arguments` is anything that serializes to a JSON object: a struct
    /// deriving `Serialize`, a `serde_json::Value` object (`json!({..})`), a
    /// map; `()`, `None` or `Value::Null` for no arguments. It is serialized
    /// once, before anything is sent.
    ///
    /// `options` is a [`CallOptions`], or a [`RequestOptions`] (timeout,
    /// cancellation, progress) as every other method takes.
    ///
    /// With the `schema-validation` feature (default), `arguments` are
    /// checked against the tool's `inputSchema` before anything is sent
    /// ([`CallOptions::validate_arguments`] and
    /// [`crate::ClientOptions::validate_arguments`], both on by default):
    /// arguments that do not match fail with
    /// [`ClientError::InvalidArguments`], which names the path of each
    /// violation. The schema is the tool's in the current listing
    /// ([`Client::list_all_tools`]; none is fetched for the check): a tool
    /// no current listing has, or whose schema does not compile, is called
    /// with its arguments unchecked. With [`CallOptions::validate_output`]
    /// (default), a result's `structuredContent` is checked against the
    /// tool's `outputSchema` when that is known from an earlier
    /// `tools/list` (skipped for `isError`).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), mcp_client::ClientError> {
    /// # use mcp_client::testing::memory_pair;
    /// # use mcp_client::{Client, ClientOptions, VersionPreference};
    /// # let (transport, mut peer) = memory_pair();
    /// # let server = tokio::spawn(async move {
    /// #     peer.handshake("2025-11-25", serde_json::json!({"tools": {}})).await;
    /// #     for _ in 0..2 {
    /// #         let call = peer.expect_request("tools/call").await;
    /// #         peer.respond(&call.id, serde_json::json!({"content": []})).await;
    /// #     }
    /// # });
    /// # let options = ClientOptions::new("t", "1").with_version_preference(VersionPreference::Handshake);
    /// # let client = Client::connect(transport, options).await?;
    /// use mcp_client::RequestOptions;
    /// #[derive(serde::Serialize)]
    /// struct Add { a: i64, b: i64 }
    /// client.call_tool("add", Add { a: 2, b: 3 }, RequestOptions::default()).await?;
    /// client.call_tool("add", serde_json::json!({"a": 2, "b": 3}), RequestOptions::default()).await?;
    /// // Not an object: refused before anything is sent.
    /// let refused = client.call_tool("add", [2, 3], RequestOptions::default()).await;
    /// assert!(matches!(refused, Err(mcp_client::ClientError::ArgumentsNotAnObject { .. })));
    /// # server.await.unwrap();
    /// # Ok(()) }
    /// ```
    ///
    /// Errors: [`ClientError::ArgumentsNotAnObject`],
    /// [`ClientError::Encode`] (`arguments` did not serialize),
    /// [`ClientError::InvalidArguments`],
    /// [`ClientError::InvalidStructuredContent`], else as [`Client::request`].
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl Serialize,
        options: impl Into<CallOptions>,
    ) -> Result<CallToolResult, ClientError> {
        let options = options.into();
        let input = if options.validate_arguments {
            self.input_validator(name)
        } else {
            None
        };
        let raw = self.inner.sends_raw(&self.session());
        if raw && input.is_none() {
            // The arguments are written straight into the request, once per
            // attempt: no copy of them is made or held while the tool runs.
            let value = self
                .inner
                .send(
                    CallTool::METHOD,
                    CallParams { name, arguments },
                    options.request,
                )
                .await?;
            return self.decode_call(name, value, options.validate_output);
        }
        let mut arguments = tool_arguments(name, arguments)?;
        if let Some(input) = &input {
            arguments = validation::check_arguments(name, input, arguments)?;
        }
        let params = call_tool_params(CallToolRequestParams::new(name, arguments))?;
        let value = if raw {
            // Checked, so held as a value; still written by our writer.
            self.inner
                .send(CallTool::METHOD, ValueParams(&params), options.request)
                .await?
        } else {
            mrtr::send(&self.inner, CallTool::METHOD, Some(params), options.request).await?
        };
        self.decode_call(name, value, options.validate_output)
    }

    /// The compiled `inputSchema` to check `name`'s arguments against:
    /// `None` when the client does not check arguments
    /// ([`crate::ClientOptions::validate_arguments`]), when no current
    /// listing has the tool (no listing yet, or a `tools/list_changed`
    /// since: the schema may have changed), or when its schema does not
    /// compile (warned once when compiled) or cannot be (no
    /// `schema-validation` feature).
    fn input_validator(&self, name: &str) -> validation::Compiled {
        if !self.inner.options.validate_arguments {
            return None;
        }
        let mut tools = self.inner.tools();
        if tools.listed().is_none() {
            tracing::debug!(tool = %name, "no current tools/list: arguments not checked against the inputSchema");
            return None;
        }
        match tools.compiled(name) {
            Some(validators) => validators.input,
            None => {
                tracing::debug!(tool = %name, "tool not in the current tools/list: arguments not checked against an inputSchema");
                None
            }
        }
    }

    /// A `tools/call` result, parsed and (with `validate_output`, unless
    /// `isError`) its `structuredContent` checked against the tool's cached
    /// `outputSchema`.
    fn decode_call(
        &self,
        name: &str,
        value: mcp_types::RawResult,
        validate_output: bool,
    ) -> Result<CallToolResult, ClientError> {
        let result = codec::decode::<CallTool>(
            value,
            self.session().protocol_version,
            self.transport().as_ref(),
        )?;
        if validate_output && result.is_error != Some(true) {
            let validators = self.inner.tools().compiled(name);
            if let Some(validators) = validators {
                validation::check_output(name, &validators, &result)?;
            }
        }
        Ok(result)
    }

    /// Task-augmented `tools/call` (2025-11-25 `basic/utilities/tasks`): the
    /// server answers at once with a task; poll [`Client::get_task`], then
    /// fetch the outcome with [`Client::tool_task_result`]. `task` is the
    /// request's `task` member (the requested time-to-live); `arguments` as
    /// in [`Client::call_tool`], checked as there unless
    /// [`crate::ClientOptions::validate_arguments`] is off.
    ///
    /// Errors: [`ClientError::CapabilityNotSupported`] (`tasks.requests.tools.call`)
    /// when strict; [`ClientError::ArgumentsNotAnObject`];
    /// [`ClientError::InvalidArguments`]; else as [`Client::request`].
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: impl Serialize,
        task: TaskMetadata,
        options: RequestOptions,
    ) -> Result<CreateTaskResult, ClientError> {
        let session = self.session();
        if self.inner.options.strict_capabilities {
            if !session.protocol_version.has_tasks() {
                return Err(ClientError::MethodNotInRevision {
                    method: "tools/call (task-augmented)".into(),
                    version: session.protocol_version,
                });
            }
            if !capabilities::supports_tool_tasks(&session.capabilities) {
                return Err(ClientError::CapabilityNotSupported {
                    capability: "tasks.requests.tools.call",
                    method: "tools/call".into(),
                });
            }
        }
        let mut arguments = tool_arguments(name, arguments)?;
        if let Some(input) = self.input_validator(name) {
            arguments = validation::check_arguments(name, &input, arguments)?;
        }
        let mut params = CallToolRequestParams::new(name, arguments);
        params.task = Some(task);
        let params = call_tool_params(params)?;
        let value = mrtr::send(&self.inner, CallTool::METHOD, Some(params), options).await?;
        codec::decode::<CallToolAsTask>(
            value,
            self.session().protocol_version,
            self.transport().as_ref(),
        )
    }
}

/// The params of a plain `tools/call` (no task, no `_meta` of its own),
/// written from the caller's `arguments` at each attempt.
struct CallParams<'a, A> {
    name: &'a str,
    arguments: A,
}

impl<A: Serialize> SendParams for CallParams<'_, A> {
    fn value(&self) -> Option<&Value> {
        None
    }

    fn write(&self) -> Result<Option<RawParams>, ClientError> {
        // The arguments written straight from the caller's type into the
        // request's buffer by our writer (no `Value` of them: a map node,
        // its keys and a copy of each string; long strings are copied
        // whole between escapes). Nothing of them is held while the
        // response is awaited.
        match RawParams::tool_call(self.name, &self.arguments) {
            Ok(raw) => Ok(Some(raw)),
            Err(ArgumentsError::NotAnObject { found }) => Err(ClientError::ArgumentsNotAnObject {
                tool: self.name.to_owned(),
                found,
            }),
            Err(ArgumentsError::Serialize(e)) => Err(ClientError::encode(CallTool::METHOD, e)),
            Err(e) => Err(ClientError::encode(
                CallTool::METHOD,
                serde::ser::Error::custom(e),
            )),
        }
    }
}

/// The params of a `tools/call` already built as a value (its arguments
/// were checked), written by our writer at each attempt.
struct ValueParams<'a>(&'a Value);

impl SendParams for ValueParams<'_> {
    fn value(&self) -> Option<&Value> {
        None
    }

    fn write(&self) -> Result<Option<RawParams>, ClientError> {
        Ok(Some(RawParams::from_value(self.0)))
    }
}

/// The `arguments` of a `tools/call` as a JSON object, `None` for none
/// (`null`).
///
/// Errors: [`ClientError::Encode`] when they do not serialize,
/// [`ClientError::ArgumentsNotAnObject`] when they are not an object.
fn tool_arguments(
    tool: &str,
    arguments: impl Serialize,
) -> Result<Option<Map<String, Value>>, ClientError> {
    match serde_json::to_value(arguments).map_err(|e| ClientError::encode(CallTool::METHOD, e))? {
        Value::Null => Ok(None),
        Value::Object(map) => Ok(Some(map)),
        other => Err(ClientError::ArgumentsNotAnObject {
            tool: tool.to_owned(),
            found: mcp_types::json_type(&other),
        }),
    }
}

/// `tools/call` params as a JSON object, with the `arguments` map moved in
/// rather than serialized again: a large argument map is not copied.
///
/// Errors: [`ClientError::Encode`] when the params do not serialize.
fn call_tool_params(mut params: CallToolRequestParams) -> Result<Value, ClientError> {
    let arguments = params.arguments.take();
    let plain = params.task.is_none()
        && params.input_responses.is_none()
        && params.request_state.is_none()
        && params.meta.is_none()
        && params.extra.is_empty();
    if plain {
        // The usual call: `name` and `arguments` moved in, nothing serialized.
        let mut map = Map::new();
        map.insert("name".to_owned(), Value::String(params.name));
        if let Some(arguments) = arguments {
            map.insert("arguments".to_owned(), Value::Object(arguments));
        }
        return Ok(Value::Object(map));
    }
    let mut value =
        serde_json::to_value(&params).map_err(|e| ClientError::encode(CallTool::METHOD, e))?;
    if let Some(arguments) = arguments {
        let Value::Object(map) = &mut value else {
            return Err(ClientError::encode(
                CallTool::METHOD,
                serde::ser::Error::custom("tools/call params did not serialize to an object"),
            ));
        };
        map.insert("arguments".to_owned(), Value::Object(arguments));
    }
    Ok(value)
}

/// `tools/call` with a `task` member: answered by a [`CreateTaskResult`]
/// instead of the tool's result (spec: `basic/utilities/tasks`), so it is
/// decoded as its own request.
enum CallToolAsTask {}

impl Request for CallToolAsTask {
    const METHOD: &'static str = CallTool::METHOD;
    type Params = CallToolRequestParams;
    type Result = CreateTaskResult;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The moved-in `arguments` give the same JSON as serializing the
    /// whole params, with and without arguments and with other members.
    #[test]
    fn call_tool_params_match_serialization() {
        let mut arguments = Map::new();
        arguments.insert("text".into(), Value::String("x".repeat(1024)));
        arguments.insert("n".into(), Value::from(3));
        let mut with_task = CallToolRequestParams::new("echo", Some(arguments.clone()));
        with_task.request_state = Some("opaque".into());
        with_task.extra.insert("z".into(), Value::Bool(true));
        // Each member other than name and arguments on its own: the
        // serialized path, not the plain one.
        let mut with_meta = CallToolRequestParams::new("echo", Some(arguments.clone()));
        with_meta.meta = Some(Map::from_iter([("k".to_owned(), Value::from(1))]));
        let mut with_extra = CallToolRequestParams::new("echo", None);
        with_extra.extra.insert("z".into(), Value::Null);
        let mut with_state = CallToolRequestParams::new("echo", None);
        with_state.request_state = Some("s".into());
        let mut with_task_only = CallToolRequestParams::new("echo", None);
        with_task_only.task = Some(Default::default());
        for params in [
            CallToolRequestParams::new("echo", Some(arguments)),
            CallToolRequestParams::new("echo", Some(Map::new())),
            CallToolRequestParams::new("echo", None),
            with_task,
            with_meta,
            with_extra,
            with_state,
            with_task_only,
        ] {
            let expected = serde_json::to_value(&params).expect("serializes");
            let built = call_tool_params(params).expect("builds");
            assert_eq!(built, expected);
        }
    }
}
