//! Compile-time ties between a method name, its params and its result.
//!
//! A client decodes a response by the method it sent — `R::Result` for a
//! request `R` — never by trying result shapes in order.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A request type: method name, params type and result type.
///
/// Implemented by uninhabited marker types, e.g. [`crate::tools::CallTool`].
pub trait Request {
    /// The method name on the wire, e.g. `"tools/call"`.
    const METHOD: &'static str;
    /// The `params` object. `()` is not used: parameterless requests take
    /// an [`crate::base::EmptyParams`]-like type with only optional `_meta`.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
    /// The `result` object.
    type Result: Serialize + DeserializeOwned + Send + Sync + 'static;

    /// Records on `result` the entries of a list result that were dropped
    /// because they did not decode ([`crate::lenient::parse_result`]). The
    /// default does nothing: only the list results (tools, prompts,
    /// resources, resource templates, tasks, skills) have a `problems`
    /// member, and their requests set it.
    fn set_problems(result: &mut Self::Result, problems: Vec<crate::entry_problem::EntryProblem>) {
        let _ = (result, problems);
    }
}

/// A notification type: method name and params type.
pub trait Notification {
    /// The method name on the wire, e.g. `"notifications/progress"`.
    const METHOD: &'static str;
    /// The `params` object.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
}
