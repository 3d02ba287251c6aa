//! Carries out what the state asks for: the servers' manager, calls,
//! reads, completions and subscriptions, each answered with an [`Event`].

use super::output::{call_output, failed, read_output, save_media};
use super::*;

/// Carries out what the state asks for, each on a task of its own whose
/// outcome comes back as an [`Event`].
pub(super) struct Runtime {
    /// The servers' manager: none until the first start, replaced by a
    /// reconnection.
    pub(super) manager: Arc<std::sync::Mutex<Option<Manager>>>,
    pub(super) config: McpConfig,
    pub(super) settings: ConnectSettings,
    /// When the explorer started (the wire pane's clock).
    pub(super) started: Instant,
    pub(super) events: Events,
    pub(super) questions: Arc<Questions>,
    pub(super) orders: Arc<ToolOrders>,
    /// The running call's cancellation.
    pub(super) call: Option<CancellationToken>,
    /// 2026-07-28 resource subscriptions (`subscriptions/listen`), by
    /// server and URI: dropping one ends it.
    pub(super) listens: Listens,
}

/// The held `subscriptions/listen` subscriptions, by server and URI.
pub(super) type Listens = Arc<std::sync::Mutex<BTreeMap<(String, String), Subscription>>>;

impl Runtime {
    pub(super) fn manager(&self) -> Option<Manager> {
        lock(&self.manager).clone()
    }

    /// Starts the servers on a manager of their own (after stopping
    /// `previous`, a reconnection), then reports each one.
    pub(super) fn start_servers(&mut self, previous: Option<Manager>) {
        let options = manager_options(
            &self.settings,
            &self.events,
            &self.questions,
            &self.orders,
            self.started,
        );
        let config = self.config.clone();
        let bound = crate::servers::start_bound(&config, &self.settings);
        let slot = Arc::clone(&self.manager);
        let events = self.events.clone();
        let orders = Arc::clone(&self.orders);
        tokio::spawn(async move {
            if let Some(previous) = previous {
                stop_manager(&previous).await;
            }
            let manager = Manager::start(config, options).await;
            *lock(&slot) = Some(manager.clone());
            manager.wait_started(bound).await;
            for server in crate::servers::snapshot(&manager) {
                let view = server_view(
                    &server.name,
                    &server.status,
                    server.client.as_ref(),
                    &orders,
                )
                .await;
                let _ = events.send(Event::Server(Box::new(view)));
            }
        });
    }

    fn client(&self, server: &str) -> Option<Client> {
        let client = self
            .manager()
            .and_then(|m| m.client(server))
            .filter(Client::is_connected);
        if client.is_none() {
            let _ = self
                .events
                .send(Event::Notice(format!("{server} is not connected")));
        }
        client
    }

    pub(super) fn perform(&mut self, action: Action) {
        let events = self.events.clone();
        match action {
            Action::CallTool {
                server,
                tool,
                arguments,
            } => {
                let Some(client) = self.client(&server) else {
                    let _ = events.send(Event::CallEnded);
                    return;
                };
                let token = CancellationToken::new();
                self.call = Some(token.clone());
                let progress = events.clone();
                let request = RequestOptions::default()
                    .with_cancel(token)
                    .with_progress(move |p| {
                        let _ = progress.send(Event::Progress(p));
                    })
                    .with_timeout_reset_on_progress(CALL_MAX);
                let has_output_schema = client.cached_tools().is_some_and(|t| {
                    t.iter()
                        .any(|t| t.name == tool && t.output_schema.is_some())
                });
                tokio::spawn(async move {
                    let outcome = client
                        .call_tool(&tool, Value::Object(arguments), request)
                        .await;
                    let output = call_output(&tool, outcome, has_output_schema);
                    let _ = events.send(Event::Output {
                        pane: Pane::Tools,
                        output,
                    });
                    let _ = events.send(Event::CallEnded);
                });
            }
            Action::CancelCall => {
                if let Some(token) = self.call.take() {
                    token.cancel();
                }
            }
            Action::ReadResource { server, uri } => {
                let Some(client) = self.client(&server) else {
                    return;
                };
                tokio::spawn(async move {
                    let outcome = client.read_resource(uri.clone(), Default::default()).await;
                    let _ = events.send(Event::Output {
                        pane: Pane::Resources,
                        output: read_output(&uri, outcome),
                    });
                });
            }
            Action::ReadTemplate {
                server,
                template,
                variables,
            } => {
                let Some(client) = self.client(&server) else {
                    return;
                };
                tokio::spawn(async move {
                    let t = ResourceTemplate {
                        uri_template: template.clone(),
                        ..Default::default()
                    };
                    let vars: Vec<(String, mcp_client::TemplateValue)> = variables
                        .into_iter()
                        .map(|(k, v)| (k, crate::handler::log_text(&v).into()))
                        .collect();
                    let outcome = client
                        .read_resource_template(&t, vars, Default::default())
                        .await;
                    let _ = events.send(Event::Output {
                        pane: Pane::Resources,
                        output: read_output(&template, outcome),
                    });
                });
            }
            Action::Subscribe { server, uri, on } => self.subscribe(server, uri, on),
            Action::GetPrompt {
                server,
                prompt,
                arguments,
            } => {
                let Some(client) = self.client(&server) else {
                    return;
                };
                tokio::spawn(async move {
                    let outcome = client
                        .get_prompt(prompt.clone(), Some(arguments), Default::default())
                        .await;
                    let output = match outcome {
                        Ok(r) => Output {
                            title: format!("{prompt} → messages"),
                            error: false,
                            lines: crate::render::prompt_result(&r)
                                .lines()
                                .map(str::to_owned)
                                .collect(),
                            scroll: 0,
                            ..Default::default()
                        },
                        Err(e) => failed(&format!("{prompt} → error"), &e),
                    };
                    let _ = events.send(Event::Output {
                        pane: Pane::Prompts,
                        output,
                    });
                });
            }
            Action::Complete {
                server,
                target,
                argument,
                value,
                context,
            } => {
                let Some(client) = self.manager().and_then(|m| m.client(&server)) else {
                    return;
                };
                let reference = match target {
                    FormTarget::Prompt { prompt, .. } => {
                        CompletionReference::Prompt(PromptReference {
                            name: prompt,
                            ..Default::default()
                        })
                    }
                    FormTarget::Template { template, .. } => {
                        CompletionReference::Resource(ResourceTemplateReference {
                            uri: template,
                            ..Default::default()
                        })
                    }
                    _ => return,
                };
                tokio::spawn(async move {
                    let params = CompleteRequestParams {
                        reference,
                        argument: CompletionArgument {
                            name: argument.clone(),
                            value,
                            extra: Map::new(),
                        },
                        context: (!context.is_empty()).then(|| CompletionContext {
                            arguments: Some(context),
                            extra: Map::new(),
                        }),
                        meta: None,
                        extra: Map::new(),
                    };
                    match client.complete(params, Default::default()).await {
                        Ok(r) => {
                            let _ = events.send(Event::Completions {
                                argument,
                                values: r.completion.values,
                            });
                        }
                        Err(e) => tracing::debug!(error = %e, "completion/complete failed"),
                    }
                });
            }
            Action::SaveMedia { stem, media } => {
                let notice = match save_media(&std::path::PathBuf::from("."), &stem, &media) {
                    Ok(names) => format!("saved {}", names.join(", ")),
                    Err(e) => format!("cannot save: {e}"),
                };
                let _ = events.send(Event::Notice(notice));
            }
            Action::SetLevel { server, level } => {
                let Some(client) = self.client(&server) else {
                    return;
                };
                tokio::spawn(async move {
                    let notice = match client
                        .set_logging_level(level.into(), Default::default())
                        .await
                    {
                        Ok(()) => format!("{server}: log level {level} (logging/setLevel)"),
                        Err(e) => format!("{server}: logging/setLevel: {e}"),
                    };
                    let _ = events.send(Event::Notice(notice));
                });
            }
            Action::Reconnect => {
                if let Some(call) = self.call.take() {
                    call.cancel();
                }
                lock(&self.listens).clear();
                let previous = lock(&self.manager).take();
                self.start_servers(previous);
            }
            Action::Refresh { server } => {
                let Some(manager) = self.manager() else {
                    return;
                };
                let orders = Arc::clone(&self.orders);
                tokio::spawn(async move {
                    let status = manager
                        .server_status(&server)
                        .unwrap_or(ServerStatus::Disabled);
                    let client = manager.client(&server);
                    let view = server_view(&server, &status, client.as_ref(), &orders).await;
                    let _ = events.send(Event::Server(Box::new(view)));
                });
            }
            Action::Answered {
                id,
                content,
                cancel,
            } => self.questions.answer(id, content, cancel),
        }
    }

    /// `resources/subscribe` (or unsubscribe); under 2026-07-28, which has
    /// none, a `subscriptions/listen` for the URI, held until unsubscribed.
    fn subscribe(&mut self, server: String, uri: String, on: bool) {
        let Some(client) = self.client(&server) else {
            return;
        };
        let events = self.events.clone();
        if client.protocol_version().is_stateless() {
            let key = (server.clone(), uri.clone());
            if !on {
                lock(&self.listens).remove(&key);
                let _ = events.send(Event::Subscribed { server, uri, on });
                return;
            }
            let filter = mcp_types::subscriptions::SubscriptionFilter {
                resource_subscriptions: Some(vec![uri.clone()]),
                ..Default::default()
            };
            let listens = Arc::clone(&self.listens);
            tokio::spawn(async move {
                match client.listen(filter, Default::default()).await {
                    Ok(subscription) => {
                        lock(&listens).insert(key, subscription);
                        let _ = events.send(Event::Subscribed { server, uri, on });
                    }
                    Err(e) => {
                        let _ = events.send(Event::Notice(format!(
                            "{server}: subscriptions/listen: {e}"
                        )));
                    }
                }
            });
            return;
        }
        tokio::spawn(async move {
            let outcome = if on {
                client.subscribe(uri.clone(), Default::default()).await
            } else {
                client.unsubscribe(uri.clone(), Default::default()).await
            };
            match outcome {
                Ok(()) => {
                    let _ = events.send(Event::Subscribed { server, uri, on });
                }
                Err(e) => {
                    let _ = events.send(Event::Notice(format!("{server}: {e}")));
                }
            }
        });
    }
}
