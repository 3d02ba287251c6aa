//! How the CLI answers server requests and shows server notifications.

use std::io::IsTerminal;
use std::sync::Arc;

use async_trait::async_trait;
use mcp_client::{ClientHandler, RequestContext};
use mcp_types::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcp_types::logging::LoggingMessageNotificationParams;
use mcp_types::resources::ResourceUriParams;
use mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_types::{ErrorCode, JsonRpcError};
use serde_json::Value;

use crate::follow::Heard;
use crate::form::{FormError, SchemaOrders};
use crate::ui::Ui;

/// One server's handler.
#[derive(Debug)]
pub(crate) struct CliHandler {
    server: String,
    ui: Arc<Ui>,
    interactive: bool,
    /// One form on the terminal at a time (shared by all servers).
    form_lock: Arc<tokio::sync::Mutex<()>>,
    /// The property order of each requested schema, as the server wrote it.
    orders: Arc<SchemaOrders>,
}

impl CliHandler {
    /// A handler for `server`. `allow_input`: false with `--no-input`;
    /// forms are shown only when stdin and stderr are terminals as well.
    /// `orders`: where the connection's tap keeps the written property
    /// order of each requested schema.
    pub(crate) fn new(
        server: &str,
        ui: Arc<Ui>,
        allow_input: bool,
        form_lock: Arc<tokio::sync::Mutex<()>>,
        orders: Arc<SchemaOrders>,
    ) -> Self {
        CliHandler {
            server: server.to_owned(),
            ui,
            interactive: allow_input
                && std::io::stdin().is_terminal()
                && std::io::stderr().is_terminal(),
            form_lock,
            orders,
        }
    }
}

/// How a log message's `data` is shown: a string as is, anything else as JSON.
pub(crate) fn log_text(data: &Value) -> String {
    match data {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[async_trait]
impl ClientHandler for CliHandler {
    async fn on_logging_message(&self, params: LoggingMessageNotificationParams) {
        if crate::follow::offer(&self.server, Heard::Log(params.clone())) {
            return;
        }
        let logger = params
            .logger
            .as_deref()
            .map(|l| format!(" {l}"))
            .unwrap_or_default();
        self.ui.line(&format!(
            "[{}{logger}] {}: {}",
            self.server,
            params.level,
            log_text(&params.data)
        ));
    }

    async fn on_resource_updated(&self, params: ResourceUriParams) {
        crate::follow::offer(&self.server, Heard::ResourceUpdated(params.uri));
    }

    async fn on_tools_list_changed(&self) {
        crate::follow::offer(&self.server, Heard::ListChanged("tools"));
    }

    async fn on_prompts_list_changed(&self) {
        crate::follow::offer(&self.server, Heard::ListChanged("prompts"));
    }

    async fn on_resources_list_changed(&self) {
        crate::follow::offer(&self.server, Heard::ListChanged("resources"));
    }

    async fn elicit(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        let form = match params {
            ElicitRequestParams::Form(form) => form,
            other => {
                self.ui.line(&format!(
                    "mcp: declined an elicitation request from {} (only form mode is supported): {}",
                    self.server,
                    other.message().unwrap_or("")
                ));
                return Ok(ElicitResult::new(ElicitAction::Decline));
            }
        };
        if !self.interactive {
            self.ui.line(&format!(
                "mcp: declined an elicitation request from {} (not interactive: stdin is not a terminal or --no-input): {}",
                self.server, form.message
            ));
            return Ok(ElicitResult::new(ElicitAction::Decline));
        }
        // Ctrl-C (or SIGTERM, SIGHUP) ends the command at once, whether this
        // form waits for its turn or is on the terminal: nothing waits for
        // the terminal read, which the runtime's shutdown leaves behind.
        let interrupted = self.ui.interrupted().clone();
        let _turn = tokio::select! {
            turn = self.form_lock.lock() => turn,
            () = interrupted.cancelled() => return Ok(ElicitResult::new(ElicitAction::Cancel)),
            () = ctx.cancel.cancelled() => return Ok(ElicitResult::new(ElicitAction::Cancel)),
        };
        let names: std::collections::BTreeSet<&str> = form
            .requested_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let order = self.orders.take(&self.server, &names);
        if order.is_none() && !names.is_empty() {
            tracing::debug!(server = %self.server, "the written property order was not read; the form asks in name order");
        }
        self.ui.pause();
        let server = self.server.clone();
        let task = tokio::task::spawn_blocking(move || {
            crate::form::fill(
                &server,
                &form.message,
                &form.requested_schema,
                order.as_deref(),
            )
        });
        let outcome = tokio::select! {
            joined = task => match joined {
                Ok(Ok(result)) => Ok(result),
                Ok(Err(FormError::Interrupted)) => {
                    self.ui.interrupt();
                    Ok(ElicitResult::new(ElicitAction::Cancel))
                }
                Ok(Err(FormError::Io(e))) => Err(JsonRpcError::new(ErrorCode::INTERNAL_ERROR, format!("terminal error: {e}"))),
                Err(e) => Err(JsonRpcError::new(ErrorCode::INTERNAL_ERROR, format!("form failed: {e}"))),
            },
            () = interrupted.cancelled() => {
                abandon_prompt();
                Ok(ElicitResult::new(ElicitAction::Cancel))
            }
            () = ctx.cancel.cancelled() => {
                abandon_prompt();
                self.ui.resume();
                self.ui.line("mcp: the server cancelled its question");
                return Ok(ElicitResult::new(ElicitAction::Cancel));
            }
        };
        self.ui.resume();
        outcome
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _ctx: RequestContext,
    ) -> Result<CreateMessageResult, JsonRpcError> {
        self.ui.line(&format!(
            "mcp: declined a sampling request from {} (the mcp command line has no model to sample with)",
            self.server
        ));
        // Spec `client/sampling` § Error Handling: a user rejection is code -1.
        Err(JsonRpcError::new(
            ErrorCode(-1),
            "User rejected sampling request: the mcp command line has no model to sample with",
        ))
    }
}

/// Gives the terminal back when a prompt is left running on its blocking
/// thread: `inquire` restores the mode only when its prompt returns, so the
/// raw mode it set (no echo, no canonical input) is undone here, and the
/// cursor is shown again on a fresh line.
fn abandon_prompt() {
    if let Err(e) = crossterm::terminal::disable_raw_mode() {
        tracing::debug!(error = %e, "cannot restore the terminal mode");
    }
    let _ = crossterm::execute!(std::io::stderr(), crossterm::cursor::Show);
    crate::output::err_line("");
}
