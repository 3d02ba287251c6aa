//! `mcp prompt`: gets a prompt.

use super::{Session, prefixed, print_json};
use crate::arguments::string_arguments;
use crate::exit::{Failure, SUCCESS};
use crate::output;
use crate::render;

impl Session {
    pub(super) async fn prompt(&self, words: &[String]) -> Result<u8, Failure> {
        let (server, rest) = self.split_server(words);
        let Some((prompt, arg_words)) = rest.split_first() else {
            return Err(Failure::new(
                "usage: mcp prompt [SERVER] NAME [key=value ...]",
            ));
        };
        let args = string_arguments(arg_words).map_err(Failure::new)?;
        let (name, client, prompt) = self.find_prompt(server, prompt).await?;
        let arguments = (!args.is_empty()).then_some(args);
        let result = client
            .get_prompt(prompt.as_str(), arguments, Default::default())
            .await
            .map_err(|e| prefixed(name, e))?;
        if self.json {
            print_json(&result)?;
        } else {
            if let Some(d) = &result.description {
                self.ui.line(d);
            }
            output::line(&render::prompt_result(&result))?;
        }
        Ok(SUCCESS)
    }
}
