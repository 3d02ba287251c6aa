//! `mcp ping`: pings each server.

use std::time::Instant;

use serde_json::json;

use super::{Session, print_json};
use crate::exit::{FAILURE, Failure, SUCCESS};
use crate::output;

impl Session {
    /// Pings each connected server (or `only`). A server that did not
    /// start (a rejected config entry, a failed start) is a failed row too:
    /// `ping` is a health check, and a dead server is what it is for.
    pub(super) async fn ping(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut rows = Vec::new();
        let mut failed = false;
        let (reached, not_started) = match only {
            Some(_) => (self.selected(only)?, Vec::new()),
            None => self.reachable(),
        };
        for (name, why) in not_started {
            failed = true;
            rows.push(json!({"name": name, "ok": false, "error": why}));
        }
        for (name, client) in reached {
            let start = Instant::now();
            match client.ping(Default::default()).await {
                Ok(()) => {
                    let ms = start.elapsed().as_millis() as u64;
                    rows.push(json!({"name": name, "ok": true, "ms": ms}));
                }
                Err(e) => {
                    failed = true;
                    rows.push(
                        json!({"name": name, "ok": false, "error": crate::exit::tidy(&crate::exit::error_chain(&e))}),
                    );
                }
            }
        }
        rows.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        if self.json {
            print_json(&rows)?;
        } else {
            for r in &rows {
                let name = r["name"].as_str().unwrap_or("");
                if r["ok"] == true {
                    output::line(&format!("{name}: ok ({} ms)", r["ms"]))?;
                } else {
                    output::line(&output::row(&format!(
                        "{name}: failed: {}",
                        r["error"].as_str().unwrap_or("")
                    )))?;
                }
            }
        }
        Ok(if failed { FAILURE } else { SUCCESS })
    }
}
