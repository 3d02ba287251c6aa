//! `mcp complete`: completion/complete for an argument of a prompt or resource template.

use std::collections::BTreeMap;

use mcp_types::completion::{
    CompleteRequestParams, CompletionArgument, CompletionContext, CompletionReference,
    PromptReference, ResourceTemplateReference,
};
use serde_json::Map;

use super::{Session, prefixed, print_json};
use crate::arguments::string_arguments;
use crate::exit::{Failure, SUCCESS};
use crate::output;

impl Session {
    pub(super) async fn complete(
        &self,
        words: &[String],
        context: &[String],
    ) -> Result<u8, Failure> {
        let (server, rest) = match words {
            [server, rest @ ..] if rest.len() == 4 => (Some(server.as_str()), rest),
            rest => (None, rest),
        };
        let [kind, reference, argument, value] = rest else {
            return Err(Failure::new(
                "usage: mcp complete [SERVER] prompt|resource REF ARG VALUE",
            ));
        };
        let context: BTreeMap<String, String> = string_arguments(context).map_err(Failure::new)?;
        // A prompt is found first: its reference names it as its server does
        // (REF may be its qualified name).
        let (name, client, reference) = match kind.as_str() {
            "prompt" => {
                let (name, client, prompt) = self.find_prompt(server, reference).await?;
                (
                    name,
                    client,
                    CompletionReference::Prompt(PromptReference {
                        name: prompt,
                        ..Default::default()
                    }),
                )
            }
            "resource" => {
                let c = self.selected(server)?;
                if c.len() > 1 {
                    return Err(Failure::new(
                        "several servers: name one, `mcp complete SERVER resource ...`",
                    ));
                }
                (
                    c[0].0,
                    c[0].1,
                    CompletionReference::Resource(ResourceTemplateReference {
                        uri: reference.clone(),
                        ..Default::default()
                    }),
                )
            }
            other => {
                return Err(Failure::new(format!(
                    "complete: expected \"prompt\" or \"resource\", got {other:?}"
                )));
            }
        };
        let params = CompleteRequestParams {
            reference,
            argument: CompletionArgument {
                name: argument.clone(),
                value: value.clone(),
                extra: Map::new(),
            },
            context: (!context.is_empty()).then(|| CompletionContext {
                arguments: Some(context),
                extra: Map::new(),
            }),
            meta: None,
            extra: Map::new(),
        };
        let result = client
            .complete(params, Default::default())
            .await
            .map_err(|e| prefixed(name, e))?;
        if self.json {
            print_json(&result)?;
        } else {
            for v in &result.completion.values {
                output::line(v)?;
            }
            // Silence would read as a failure that printed nothing; the note
            // goes to stderr, so stdout stays empty for scripts.
            if result.completion.values.is_empty() {
                self.ui.line("mcp: no completions");
            }
            if result.completion.has_more == Some(true) {
                self.ui.line(&format!(
                    "mcp: more completions available{}",
                    result
                        .completion
                        .total
                        .map(|t| format!(" ({t} in all)"))
                        .unwrap_or_default()
                ));
            }
        }
        Ok(SUCCESS)
    }
}
