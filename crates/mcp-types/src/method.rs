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
    fn set_problems(result: &mut Self::Result, problems: Vec<crate::lenient::EntryProblem>) {
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

/// The method of every request this crate types, in both directions
/// (the schema's `ClientRequest` and `ServerRequest`), taken from each
/// request type's [`Request::METHOD`] so that a method name is written
/// once. Ordered with the most frequent first, for a linear search.
pub const REQUEST_METHODS: &[&str] = {
    use crate::{
        completion, discovery, elicitation, lifecycle, logging, prompts, resources, roots,
        sampling, skills, subscriptions, tasks, tools,
    };
    &[
        tools::CallTool::METHOD,
        tools::ListTools::METHOD,
        lifecycle::Ping::METHOD,
        lifecycle::Initialize::METHOD,
        discovery::Discover::METHOD,
        resources::ListResources::METHOD,
        resources::ReadResource::METHOD,
        resources::ListResourceTemplates::METHOD,
        resources::Subscribe::METHOD,
        resources::Unsubscribe::METHOD,
        prompts::ListPrompts::METHOD,
        prompts::GetPrompt::METHOD,
        completion::Complete::METHOD,
        logging::SetLevel::METHOD,
        tasks::GetTask::METHOD,
        tasks::ListTasks::METHOD,
        tasks::GetTaskPayload::METHOD,
        tasks::CancelTask::METHOD,
        subscriptions::SubscriptionsListen::METHOD,
        skills::ListSkills::METHOD,
        skills::GetSkill::METHOD,
        sampling::CreateMessage::METHOD,
        elicitation::Elicit::METHOD,
        roots::ListRoots::METHOD,
    ]
};
