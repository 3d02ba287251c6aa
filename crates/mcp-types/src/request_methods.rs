//! [`REQUEST_METHODS`]: the list built from the schema's request types,
//! above them all.

use crate::method::Request;

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
