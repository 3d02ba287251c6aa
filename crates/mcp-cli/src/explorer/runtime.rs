//! Carries out what the state asks for: the servers' manager, calls,
//! reads, completions and subscriptions, each answered with an [`Event`].

use mcp_types::tasks::{Task, TaskMetadata, TaskStatus};

use super::output::{call_output, failed, read_output, save_media};
use super::*;

/// Follows the running tasks a server's listing brought.
fn follow_listed(tasks: &Tasks, client: Option<&Client>, view: &ServerView, events: &Events) {
    let Some(client) = client else {
        return;
    };
    for entry in &view.tasks {
        tasks.follow(
            client.clone(),
            view.name.clone(),
            entry.task.clone(),
            entry.tool.clone(),
            events.clone(),
        );
    }
}

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
    /// The tasks followed until they end.
    pub(super) tasks: Tasks,
    /// The login under way: where a pasted answer goes, and its stop.
    pub(super) login: Option<(mpsc::Sender<String>, CancellationToken)>,
}

/// How long between two `tasks/get` of a running task when it names no
/// `pollInterval`: 1 000 ms; a task's own is held to 250 ms … 5 000 ms.
const TASK_POLL: Duration = Duration::from_millis(1_000);

/// The running tasks the explorer follows (`tasks/get` at each task's
/// `pollInterval` until it ends, then `tasks/result` when it completed or
/// failed), each followed once; [`Tasks::stop`] ends every wait.
#[derive(Clone, Default)]
pub(super) struct Tasks {
    stop: CancellationToken,
    followed: Arc<std::sync::Mutex<std::collections::BTreeSet<(String, String)>>>,
}

impl Tasks {
    /// Ends every poll and wait (a reconnection, the explorer closing).
    pub(super) fn stop(&mut self) {
        self.stop.cancel();
        self.stop = CancellationToken::new();
        lock(&self.followed).clear();
    }

    /// Options for a task request that [`Tasks::stop`] ends.
    fn options(&self) -> RequestOptions {
        RequestOptions::default()
            .with_timeout(CALL_MAX)
            .with_cancel(self.stop.clone())
    }

    /// Follows `task` of `server` until it ends, unless it is followed
    /// already or has ended.
    fn follow(
        &self,
        client: Client,
        server: String,
        task: Task,
        tool: Option<String>,
        events: Events,
    ) {
        let key = (server.clone(), task.task_id.clone());
        if task.status.is_terminal() || !lock(&self.followed).insert(key.clone()) {
            return;
        }
        let tasks = self.clone();
        tokio::spawn(async move {
            let mut task = task;
            loop {
                let wait = task
                    .poll_interval
                    .map_or(TASK_POLL, |ms| Duration::from_millis(ms.clamp(250, 5_000)));
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = tasks.stop.cancelled() => break,
                }
                match client.get_task(task.task_id.clone(), tasks.options()).await {
                    Ok(t) => task = t,
                    Err(e) if e.is_cancelled() => break,
                    Err(e) => {
                        let _ = events.send(Event::Notice(format!(
                            "{server}: tasks/get {}: {e}",
                            task.task_id
                        )));
                        break;
                    }
                }
                let _ = events.send(Event::Task {
                    server: server.clone(),
                    task: Box::new(task.clone()),
                    tool: None,
                });
                if task.status.is_terminal() {
                    if task.status != TaskStatus::Cancelled {
                        tasks
                            .fetch_result(&client, &server, &task.task_id, tool.as_deref(), &events)
                            .await;
                    }
                    break;
                }
            }
            lock(&tasks.followed).remove(&key);
        });
    }

    /// `tasks/result` of `task_id`, reported as its outcome (nothing when
    /// the wait was stopped).
    async fn fetch_result(
        &self,
        client: &Client,
        server: &str,
        task_id: &str,
        tool: Option<&str>,
        events: &Events,
    ) {
        let outcome = client.tool_task_result(task_id, self.options()).await;
        if matches!(&outcome, Err(e) if e.is_cancelled()) && self.stop.is_cancelled() {
            return;
        }
        let title = tool.map_or_else(|| format!("task {task_id}"), str::to_owned);
        let _ = events.send(Event::TaskResult {
            server: server.to_owned(),
            task_id: task_id.to_owned(),
            output: call_output(&title, outcome, false),
        });
    }
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
        let tasks = self.tasks.clone();
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
                follow_listed(&tasks, server.client.as_ref(), &view, &events);
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
                as_task: true,
            } => self.call_as_task(server, tool, arguments),
            Action::CallTool {
                server,
                tool,
                arguments,
                as_task: false,
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
            Action::TaskResult {
                server,
                task_id,
                tool,
            } => {
                let Some(client) = self.client(&server) else {
                    return;
                };
                let tasks = self.tasks.clone();
                tokio::spawn(async move {
                    tasks
                        .fetch_result(&client, &server, &task_id, tool.as_deref(), &events)
                        .await;
                    // Its state after the wait.
                    if let Ok(task) = client.get_task(task_id, tasks.options()).await {
                        let _ = events.send(Event::Task {
                            server,
                            task: Box::new(task),
                            tool: None,
                        });
                    }
                });
            }
            Action::CancelTask { server, task_id } => {
                let Some(client) = self.client(&server) else {
                    return;
                };
                let options = self.tasks.options();
                tokio::spawn(async move {
                    match client.cancel_task(task_id.clone(), options).await {
                        Ok(task) => {
                            let _ = events.send(Event::Notice(format!(
                                "task {task_id}: {} (tasks/cancel)",
                                app::status_word(&task.status)
                            )));
                            let _ = events.send(Event::Task {
                                server,
                                task: Box::new(task),
                                tool: None,
                            });
                        }
                        Err(e) => {
                            let _ = events.send(Event::Notice(format!(
                                "{server}: tasks/cancel {task_id}: {e}"
                            )));
                        }
                    }
                });
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
                self.tasks.stop();
                lock(&self.listens).clear();
                let previous = lock(&self.manager).take();
                self.start_servers(previous);
            }
            Action::Refresh { server } => {
                let Some(manager) = self.manager() else {
                    return;
                };
                let orders = Arc::clone(&self.orders);
                let tasks = self.tasks.clone();
                tokio::spawn(async move {
                    let status = manager
                        .server_status(&server)
                        .unwrap_or(ServerStatus::Disabled);
                    let client = manager.client(&server);
                    let view = server_view(&server, &status, client.as_ref(), &orders).await;
                    follow_listed(&tasks, client.as_ref(), &view, &events);
                    let _ = events.send(Event::Server(Box::new(view)));
                });
            }
            Action::Answered {
                id,
                content,
                cancel,
            } => self.questions.answer(id, content, cancel),
            Action::Login { server, device } => self.log_in(server, device),
            Action::LoginPaste { text } => {
                if let Some((paste, _)) = &self.login
                    && paste.try_send(text).is_err()
                {
                    let _ = events.send(Event::LoginNotice(
                        "the login is no longer waiting for a paste".into(),
                    ));
                }
            }
            Action::CancelLogin => self.stop_login(),
        }
    }

    /// Logs in to `server` as `mcp login` would, what it says shown in
    /// the login dialog (never printed on the terminal the explorer draws
    /// on); the outcome comes back as [`Event::LoginEnded`].
    fn log_in(&mut self, server: String, device: bool) {
        self.stop_login();
        let events = self.events.clone();
        let Some(config) = self.config.servers.get(&server).cloned() else {
            let _ = events.send(Event::LoginEnded(Err(format!(
                "{server} is not in the configuration"
            ))));
            return;
        };
        let (paste, pasted) = mpsc::channel(4);
        let stop = CancellationToken::new();
        self.login = Some((paste, stop.clone()));
        let said = events.clone();
        let notice: mcp_auth::Notice = Arc::new(move |line: &str| {
            let _ = said.send(Event::LoginNotice(line.to_owned()));
        });
        tokio::spawn(async move {
            let outcome =
                crate::auth::login_for_explorer(&config, device, notice, pasted, &stop).await;
            if stop.is_cancelled() {
                return;
            }
            let _ = events.send(Event::LoginEnded(
                outcome.map_err(|f| crate::exit::tidy(&f.message)),
            ));
        });
    }

    /// Stops the login under way, if any.
    pub(super) fn stop_login(&mut self) {
        if let Some((_, stop)) = self.login.take() {
            stop.cancel();
        }
    }

    /// A task-augmented `tools/call`: the task it created joins the Tasks
    /// pane and is followed there; the Tools pane says so.
    fn call_as_task(&mut self, server: String, tool: String, arguments: Map<String, Value>) {
        let events = self.events.clone();
        let Some(client) = self.client(&server) else {
            let _ = events.send(Event::CallEnded);
            return;
        };
        let token = CancellationToken::new();
        self.call = Some(token.clone());
        let request = RequestOptions::default().with_cancel(token);
        let tasks = self.tasks.clone();
        tokio::spawn(async move {
            let created = client
                .call_tool_as_task(
                    &tool,
                    Value::Object(arguments),
                    TaskMetadata::default(),
                    request,
                )
                .await;
            let output = match created {
                Ok(created) => {
                    let task = created.task;
                    let id = task.task_id.clone();
                    let _ = events.send(Event::Task {
                        server: server.clone(),
                        task: Box::new(task.clone()),
                        tool: Some(tool.clone()),
                    });
                    let status = app::status_word(&task.status);
                    tasks.follow(client, server, task, Some(tool.clone()), events.clone());
                    Output {
                        title: format!("{tool} → task {id}"),
                        lines: vec![
                            format!("runs as task {id} ({status})"),
                            "7 Tasks follows it: Enter there shows its result, c cancels it".into(),
                        ],
                        ..Default::default()
                    }
                }
                Err(e) => call_output(&tool, Err(e), false),
            };
            let _ = events.send(Event::Output {
                pane: Pane::Tools,
                output,
            });
            let _ = events.send(Event::CallEnded);
        });
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
