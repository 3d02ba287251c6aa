//! `mcp log` and `mcp watch`: what the servers send, one line each, until
//! Ctrl-C (or until every followed server's connection has closed).

use std::collections::BTreeSet;

use mcp_client::{Client, Subscription, SubscriptionEvent};
use mcp_types::logging::LoggingLevel;
use mcp_types::subscriptions::SubscriptionFilter;
use serde_json::json;

use super::{Session, prefixed};
use crate::exit::{Failure, SUCCESS};
use crate::follow::{Followed, Heard};
use crate::output;

/// The levels `logging/setLevel` takes (spec `server/utilities/logging`).
const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

impl Session {
    /// `mcp log [SERVER] [--level LEVEL]`: sets the level on each server
    /// that offers logging (not in 2026-07-28, which has no
    /// `logging/setLevel`), then prints each `notifications/message`.
    pub(super) async fn log(&self, only: Option<&str>, level: Option<&str>) -> Result<u8, Failure> {
        let level = match level {
            Some(l) if LEVELS.contains(&l) => Some(LoggingLevel::from(l)),
            Some(l) => {
                return Err(Failure::new(format!(
                    "--level {l:?}: expected one of {}",
                    LEVELS.join(", ")
                )));
            }
            None => None,
        };
        let mut heard = crate::follow::start();
        let servers = self.selected(only)?;
        for (name, client) in &servers {
            if client.server_capabilities().logging.is_none() {
                self.ui.line(&format!(
                    "mcp: {name} does not declare logging; printing whatever it sends"
                ));
                continue;
            }
            let Some(level) = &level else {
                continue;
            };
            if client.protocol_version().is_stateless() {
                self.ui.line(&format!(
                    "mcp: {name}: {} has no logging/setLevel; printing what the server sends",
                    client.protocol_version()
                ));
                continue;
            }
            client
                .set_logging_level(level.clone(), Default::default())
                .await
                .map_err(|e| prefixed(name, e))?;
        }
        self.follow(&servers, &mut heard, Vec::new()).await
    }

    /// `mcp watch [SERVER] [URI…]`: subscribes to each URI (2026-07-28:
    /// one `subscriptions/listen` for them and the list changes; before:
    /// `resources/subscribe` each) and prints each update and list change.
    pub(super) async fn watch(&self, words: &[String]) -> Result<u8, Failure> {
        let (server, uris) = match words {
            [first, rest @ ..] if self.is_server(first) && !first.contains("://") => {
                (Some(first.as_str()), rest)
            }
            _ => (None, words),
        };
        let mut heard = crate::follow::start();
        let servers = self.selected(server)?;
        let mut listens = Vec::new();
        for (name, client) in &servers {
            if client.protocol_version().is_stateless() {
                let filter = SubscriptionFilter {
                    tools_list_changed: Some(true),
                    prompts_list_changed: Some(true),
                    resources_list_changed: Some(true),
                    resource_subscriptions: (!uris.is_empty()).then(|| uris.to_vec()),
                    ..Default::default()
                };
                let subscription = client
                    .listen(filter, Default::default())
                    .await
                    .map_err(|e| prefixed(name, e))?;
                let granted: BTreeSet<&String> = subscription
                    .granted()
                    .resource_subscriptions
                    .iter()
                    .flatten()
                    .collect();
                for uri in uris.iter().filter(|u| !granted.contains(u)) {
                    self.ui.line(&format!(
                        "mcp: {name}: the server did not grant updates of {uri}"
                    ));
                }
                listens.push(((*name).to_owned(), subscription));
                continue;
            }
            if !uris.is_empty() {
                let offered = client
                    .server_capabilities()
                    .resources
                    .is_some_and(|r| r.subscribe == Some(true));
                if !offered {
                    return Err(Failure::new(format!(
                        "{name} does not offer resource subscriptions (resources.subscribe)"
                    )));
                }
            }
            for uri in uris {
                client
                    .subscribe(uri.clone(), Default::default())
                    .await
                    .map_err(|e| prefixed(name, e))?;
            }
        }
        self.ui.line(&format!(
            "mcp: watching {} (Ctrl-C to stop)",
            if uris.is_empty() {
                "list changes".to_owned()
            } else {
                format!("{} and list changes", uris.join(", "))
            }
        ));
        self.follow(&servers, &mut heard, listens).await
    }

    /// Prints what is heard until every server's connection has closed;
    /// a 2026-07-28 subscription that ends is said on stderr.
    async fn follow(
        &self,
        servers: &[(&str, &Client)],
        heard: &mut tokio::sync::mpsc::UnboundedReceiver<Followed>,
        listens: Vec<(String, Subscription)>,
    ) -> Result<u8, Failure> {
        let mut closed = tokio::task::JoinSet::new();
        for (name, client) in servers {
            let name = (*name).to_owned();
            let done = client.closed();
            closed.spawn(async move { (name, done.await) });
        }
        let mut ended = tokio::task::JoinSet::new();
        for (name, mut subscription) in listens {
            // Held on a task of its own: its events reach the handler, and
            // its final event says why it ended.
            ended.spawn(async move {
                while let Some(event) = subscription.next().await {
                    if event.is_final() {
                        return (name, Some(event));
                    }
                }
                (name, None)
            });
        }
        loop {
            tokio::select! {
                Some((server, what)) = heard.recv() => self.print_heard(&server, &what)?,
                Some(Ok((name, event))) = ended.join_next() => {
                    let why = match event {
                        Some(SubscriptionEvent::Failed(e)) => e.to_string(),
                        Some(other) => format!("{other:?}"),
                        None => "ended".into(),
                    };
                    self.ui.line(&format!("mcp: {name}: the subscription ended: {why}"));
                }
                joined = closed.join_next() => match joined {
                    Some(Ok((name, reason))) => {
                        self.ui.line(&format!("mcp: {name}: connection closed: {reason}"));
                    }
                    Some(Err(e)) => tracing::debug!(error = %e, "a close watcher failed"),
                    None => return Ok(SUCCESS),
                },
            }
        }
    }

    fn print_heard(&self, server: &str, what: &Heard) -> Result<(), Failure> {
        if self.json {
            let value = match what {
                Heard::Log(p) => json!({
                    "server": server,
                    "event": "notifications/message",
                    "level": p.level,
                    "logger": p.logger,
                    "data": p.data,
                }),
                Heard::ResourceUpdated(uri) => json!({
                    "server": server,
                    "event": "notifications/resources/updated",
                    "uri": uri,
                }),
                Heard::ListChanged(list) => json!({
                    "server": server,
                    "event": format!("notifications/{list}/list_changed"),
                }),
            };
            return output::json_line(&value.to_string());
        }
        let line = match what {
            Heard::Log(p) => format!(
                "{server}  {}  {}{}",
                p.level,
                p.logger
                    .as_deref()
                    .map(|l| format!("{l}: "))
                    .unwrap_or_default(),
                crate::handler::log_text(&p.data)
            ),
            Heard::ResourceUpdated(uri) => format!("{server}  resources/updated  {uri}"),
            Heard::ListChanged(list) => format!("{server}  {list}/list_changed"),
        };
        output::line(&line)
    }
}
