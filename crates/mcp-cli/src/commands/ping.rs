//! `mcp ping`: pings each server.

use std::time::Instant;

use serde_json::json;

use super::{Session, print_json};
use crate::exit::{FAILURE, Failure, SUCCESS};
use crate::output;

impl Session {
    pub(super) async fn ping(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut rows = Vec::new();
        let mut failed = false;
        for (name, client) in self.selected(only)? {
            let start = Instant::now();
            match client.ping().await {
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
        if self.json {
            print_json(&rows)?;
        } else {
            for r in &rows {
                let name = r["name"].as_str().unwrap_or("");
                if r["ok"] == true {
                    output::line(&format!("{name}: ok ({} ms)", r["ms"]))?;
                } else {
                    output::line(&format!(
                        "{name}: failed: {}",
                        r["error"].as_str().unwrap_or("")
                    ))?;
                }
            }
        }
        Ok(if failed { FAILURE } else { SUCCESS })
    }
}
