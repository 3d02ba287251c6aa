//! `mcp tools --as DIALECT` and `mcp call --from-model DIALECT`: the tools
//! as a model sees them (mcp-llm's definitions), and a model's tool call
//! carried out with its result in the model's form.

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use mcp_client::RequestOptions;
use mcp_llm::{CallStatus, Dialect, ToolCall, Toolset, ToolsetOptions};
use serde_json::Value;

use super::{Session, print_json};
use crate::exit::{Failure, SUCCESS, TOOL_ERROR};

/// The longest a tool call may run while it keeps sending progress: one hour.
const MAX_CALL_TIME: Duration = Duration::from_secs(3600);

impl Session {
    /// The toolset of `only` (or of every started server) in `dialect`.
    async fn toolset(
        &self,
        only: Option<&str>,
        dialect: Dialect,
        strict: bool,
    ) -> Result<Toolset, Failure> {
        let mut tools = Vec::new();
        for (name, client) in self.selected(only)? {
            for tool in self.tool_list(name, client).await? {
                tools.push((name.to_owned(), Arc::new(tool)));
            }
        }
        Ok(Toolset::build(
            tools,
            ToolsetOptions::new(dialect).with_strict(strict),
        ))
    }

    /// `mcp tools --as DIALECT [--strict] [SERVER]`: the definitions as
    /// JSON on stdout; renamed tools, left-out tools and warnings on stderr.
    pub(super) async fn model_tools(
        &self,
        only: Option<&str>,
        dialect: Dialect,
        strict: bool,
    ) -> Result<u8, Failure> {
        let set = self.toolset(only, dialect, strict).await?;
        for r in set.renamed() {
            self.ui.line(&format!(
                "mcp: renamed: {} {} -> {}",
                r.server, r.tool, r.name
            ));
        }
        for l in set.left_out() {
            self.ui.line(&format!(
                "mcp: left out: {} {}: {}",
                l.server, l.tool, l.reason
            ));
        }
        for w in set.warnings() {
            self.ui
                .line(&format!("mcp: {} {}: {}", w.server, w.tool, w.message));
        }
        print_json(set.definitions())?;
        Ok(SUCCESS)
    }

    /// `mcp call --from-model DIALECT [--strict] [CALL-JSON]` (the JSON on
    /// stdin when not given, or given as `-`): the call routed by the
    /// definitions `mcp tools --as DIALECT` prints (of every server), its
    /// result printed in the dialect's form. Exit 0 when the tool
    /// succeeded, 1 when the result is an error (the tool's, or a call the
    /// model must fix: unknown name, bad arguments), 2 when the input is
    /// not JSON.
    pub(super) async fn model_call(
        &self,
        dialect: Dialect,
        strict: bool,
        words: &[String],
    ) -> Result<u8, Failure> {
        let text = match words {
            [] => read_stdin()?,
            [one] if one == "-" => read_stdin()?,
            [one] => one.clone(),
            _ => {
                return Err(Failure::new(
                    "usage: mcp call --from-model DIALECT ['CALL-JSON'] (one JSON argument, or the JSON on stdin)",
                ));
            }
        };
        let call: Value = serde_json::from_str(&text)
            .map_err(|e| Failure::new(format!("the tool call is not JSON: {e}")))?;
        let set = self.toolset(None, dialect, strict).await?;
        // The server's own timeout (`--timeout`, or its entry's), when the
        // call names one of the tools.
        let timeout = ToolCall::parse(dialect, &call)
            .ok()
            .and_then(|c| set.route(&c.name).map(|(s, _)| s.to_owned()))
            .and_then(|server| self.manager.client(&server))
            .map(|client| client.options().request_timeout);
        let ui = Arc::clone(&self.ui);
        let mut options = RequestOptions::default()
            .with_timeout_reset_on_progress(MAX_CALL_TIME)
            .with_cancel(self.cancel.clone())
            .with_progress(move |p| ui.progress(&p));
        if let Some(t) = timeout {
            options = options.with_timeout(t);
        }
        let outcome = set.call(&self.manager, &call, options).await;
        self.ui.finish();
        for m in &outcome.media {
            self.ui.line(&format!(
                "mcp: media #{} ({:?}, {}{}) was not shown to the model",
                m.index,
                m.kind,
                m.mime_type,
                m.uri
                    .as_deref()
                    .map(|u| format!(", {u}"))
                    .unwrap_or_default()
            ));
        }
        print_json(&outcome.result)?;
        Ok(match outcome.status {
            CallStatus::Ok => SUCCESS,
            _ => TOOL_ERROR,
        })
    }
}

fn read_stdin() -> Result<String, Failure> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| Failure::new(format!("cannot read the tool call from stdin: {e}")))?;
    Ok(text)
}
