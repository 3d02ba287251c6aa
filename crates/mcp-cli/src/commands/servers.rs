//! `mcp servers`: each server's status.

use mcp_manager::ServerStatus;
use serde_json::{Value, json};

use super::{Session, print_json};
use crate::exit::{FAILURE, Failure, SUCCESS};
use crate::output;

impl Session {
    /// Each server's status as the manager reports it: connected (revision,
    /// server info, counts from the manager's listings; `-` when the server
    /// lacks the capability; the error, not a count, when the listing
    /// failed), failed (why; a rejected config entry too) or disabled.
    pub(super) async fn servers_cmd(&self) -> Result<u8, Failure> {
        let mut rows = Vec::new();
        for s in &self.servers {
            let row = match (&s.status, &s.client) {
                (
                    ServerStatus::Connected {
                        revision,
                        tools,
                        prompts,
                        resources,
                    },
                    Some(c),
                ) => {
                    let n = c.negotiated();
                    let caps = &n.capabilities;
                    // A listing that failed has no count: its error stands
                    // in for it (`{"error": …}`), so 0 means "none listed".
                    let count = |declared: bool, method: &str, n: &usize| -> Value {
                        if !declared {
                            return Value::Null;
                        }
                        match s.listing_failures.iter().find(|f| f.method == method) {
                            Some(f) => json!({"error": crate::exit::tidy(&f.error)}),
                            None => json!(n),
                        }
                    };
                    json!({
                        "name": s.name,
                        "status": "connected",
                        "protocolVersion": revision.as_str(),
                        "serverInfo": {"name": n.server_info.name, "version": n.server_info.version},
                        "tools": count(caps.tools.is_some(), "tools/list", tools),
                        "resources": count(caps.resources.is_some(), "resources/list", resources),
                        "prompts": count(caps.prompts.is_some(), "prompts/list", prompts),
                    })
                }
                (ServerStatus::Disabled, _) => json!({"name": s.name, "status": "disabled"}),
                (ServerStatus::Failed { why }, _) => {
                    json!({"name": s.name, "status": "failed", "error": crate::exit::tidy(why)})
                }
                (ServerStatus::NeedsLogin { why }, _) => {
                    json!({"name": s.name, "status": "needs-login", "error": crate::exit::tidy(why)})
                }
                (other, _) => {
                    json!({"name": s.name, "status": "failed", "error": other.to_string()})
                }
            };
            rows.push(row);
        }
        // A config entry that was rejected never became a server, but it is
        // one the user configured: it is listed, as failed, in name order.
        for (name, why) in &self.rejected {
            rows.push(json!({"name": name, "status": "failed", "error": crate::exit::tidy(why)}));
        }
        rows.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        let failed = rows.iter().any(|r| r["status"] == "failed");
        let needs_login = rows.iter().any(|r| r["status"] == "needs-login");
        if self.json {
            print_json(&rows)?;
        } else {
            for row in &rows {
                let name = row["name"].as_str().unwrap_or("");
                match row["status"].as_str() {
                    Some(status @ ("failed" | "needs-login")) => {
                        let status = if status == "failed" {
                            "failed"
                        } else {
                            "needs login"
                        };
                        output::line(&output::row(&format!(
                            "{name}  {status}: {}",
                            row["error"].as_str().unwrap_or("")
                        )))?;
                        continue;
                    }
                    Some("disabled") => {
                        output::line(&format!("{name}  disabled"))?;
                        continue;
                    }
                    _ => {}
                }
                let count = |k: &str| match (&row[k], row[k]["error"].as_str()) {
                    (Value::Number(n), _) => n.to_string(),
                    (_, Some(error)) => format!("failed ({error})"),
                    _ => "-".to_owned(),
                };
                output::line(&output::one_line(&format!(
                    "{name}  connected  {}  {} {}  tools: {}  resources: {}  prompts: {}",
                    row["protocolVersion"].as_str().unwrap_or(""),
                    row["serverInfo"]["name"].as_str().unwrap_or(""),
                    row["serverInfo"]["version"].as_str().unwrap_or(""),
                    count("tools"),
                    count("resources"),
                    count("prompts"),
                )))?;
            }
        }
        Ok(if failed {
            FAILURE
        } else if needs_login {
            crate::exit::LOGIN_NEEDED
        } else {
            SUCCESS
        })
    }
}
