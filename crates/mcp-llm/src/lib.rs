#![doc = include_str!("../README.md")]
//!
//! # What is where
//! - [`Toolset`] ([`toolset`]): the definitions of every tool of some
//!   servers in one [`Dialect`], and the router back; calls; versions.
//! - [`names`]: the names a model sees (charset, length, collisions).
//! - [`definitions`]: the typed definitions per dialect.
//! - [`calls`]: a model's tool call read from the dialect's JSON.
//! - [`results`]: a `tools/call` result as the dialect's tool result, and
//!   the [`Media`] handed to the application.
//! - [`source`]: where tools come from and calls go ([`Manager`],
//!   [`Clients`], or an application's own [`ToolSource`]).
//! - [`check`]: a checker of each dialect's documented rules.
//!
//!
//! # Feature flags
//! - `schema-validation` (on by default): a model's arguments are checked
//!   against the tool's `inputSchema` before the call is sent (through
//!   `mcp-client`'s feature of that name, the `jsonschema` crate); refused
//!   arguments come back to the model as a tool-result error naming each
//!   violation. Without it, arguments are sent as the model wrote them.
//!
//! [`Manager`]: mcp_manager::Manager

pub mod calls;
pub mod check;
pub mod definitions;
pub mod names;
pub mod results;
mod schema;
pub mod source;
pub mod toolset;

pub use calls::{CallArguments, MalformedCall, ToolCall};
pub use check::{RuleViolation, check_definitions};
pub use definitions::{Definitions, GeminiSchema};
pub use mcp_client::RequestOptions;
pub use names::ServerPrefix;
pub use results::{Media, MediaKind, ToolResult};
pub use source::{CallFailure, Clients, ToolSource};
pub use toolset::{
    CallStatus, LeftOut, Renamed, ToolOutcome, Toolset, ToolsetOptions, Warning, tools_version,
};

/// A provider's tool-calling API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAI Chat Completions: `tools[].function`, `role: "tool"`
    /// messages.
    OpenAiChat,
    /// OpenAI Responses: `tools[]` of type `function`,
    /// `function_call_output` items.
    OpenAiResponses,
    /// Anthropic Messages: `tools[].input_schema`, `tool_result` blocks.
    Anthropic,
    /// Gemini: `functionDeclarations`, `functionResponse` parts.
    Gemini,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 4] = [
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
    ];

    /// Its name on the command line: `openai`, `openai-responses`,
    /// `anthropic`, `gemini`.
    pub fn label(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "openai",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
        }
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

impl std::str::FromStr for Dialect {
    type Err = String;

    /// Reads a [`label`](Dialect::label) (also `openai-chat`, `claude`).
    fn from_str(s: &str) -> Result<Dialect, String> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "openai" | "openai-chat" | "chat" => Dialect::OpenAiChat,
            "openai-responses" | "responses" => Dialect::OpenAiResponses,
            "anthropic" | "claude" => Dialect::Anthropic,
            "gemini" | "google" => Dialect::Gemini,
            _ => {
                return Err(format!(
                    "unknown dialect {s:?}: openai, openai-responses, anthropic or gemini"
                ));
            }
        })
    }
}

/// The crate README (its crates.io page): its example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
