//! [`EntryProblem`]: an entry a list result left out, beneath both the
//! lenient parse that finds it and the request that records it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One entry of a list result that did not decode and was left out; its
/// siblings were kept. Found on the result (`problems` of
/// [`ListToolsResult`](crate::tools::ListToolsResult),
/// [`ListPromptsResult`](crate::prompts::ListPromptsResult),
/// [`ListResourcesResult`](crate::resources::ListResourcesResult),
/// [`ListResourceTemplatesResult`](crate::resources::ListResourceTemplatesResult),
/// [`ListTasksResult`](crate::tasks::ListTasksResult),
/// [`ListSkillsResult`](crate::skills::ListSkillsResult), set by their
/// request's [`Request::set_problems`](crate::Request::set_problems)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryProblem {
    /// The member holding the entries (`"tools"`, `"resourceTemplates"` …).
    pub list: String,
    /// The entry's position in that page's array, from 0.
    pub index: usize,
    /// The entry's `name` member when it has a string one, else its `uri`
    /// (a skill entry has no `name` of its own).
    pub name: Option<String>,
    /// Why it did not decode (serde's message, naming the member that is
    /// missing or of the wrong type).
    pub reason: String,
}

impl fmt::Display for EntryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} entry {}", self.list, self.index)?;
        if let Some(name) = &self.name {
            write!(f, " ({name:?})")?;
        }
        write!(f, " left out: {}", self.reason)
    }
}
