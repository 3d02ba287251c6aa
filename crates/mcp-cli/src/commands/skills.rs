//! `mcp skills` and `mcp skill`: the skills of servers that declare the
//! extension `io.modelcontextprotocol/skills`, listed, and one loaded and
//! printed only once it matches its entry (through `mcp-manager`, which
//! verifies with `mcp-client`).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_manager::ManagerError;
use mcp_types::skills::{Skill, SkillResources, SkillsCapability};
use serde_json::{Map, json};

use super::{Session, capped_list, prefixed, print_json};
use crate::exit::{Failure, SUCCESS, error_chain};
use crate::output;

impl Session {
    pub(super) async fn skills(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut json_out = Map::new();
        let mut groups = Vec::new();
        for (name, client) in self.selected(only)? {
            if SkillsCapability::of(&client.server_capabilities()).is_none() {
                groups.push((name, vec!["(no skills extension)".to_owned()]));
                continue;
            }
            let listing = self
                .manager
                .list_skills(name, Default::default())
                .await
                .map_err(failure)?;
            self.warn_left_out(
                name,
                "skills/list",
                &listing.problems,
                listing.incomplete.as_ref(),
            );
            groups.push((name, listing.items.iter().map(skill_line).collect()));
            json_out.insert(name.to_owned(), json!({"skills": listing.items}));
        }
        if self.json {
            print_json(&json_out)?;
        } else {
            self.print_grouped(&groups)?;
        }
        Ok(SUCCESS)
    }

    pub(super) async fn skill(&self, words: &[String], file: Option<&str>) -> Result<u8, Failure> {
        let (server, wanted) = match words {
            [server, wanted] => (Some(server.as_str()), wanted.as_str()),
            [wanted] => (None, wanted.as_str()),
            _ => return Err(Failure::new("usage: mcp skill [SERVER] NAME [--file PATH]")),
        };
        let (server, entry) = self.find_skill(server, wanted).await?;
        let skill = self
            .manager
            .load_skill(&server, &entry, Default::default())
            .await
            .map_err(failure)?;
        let Some(path) = file else {
            if self.json {
                print_json(&json!({
                    "server": server,
                    "uri": skill.uri(),
                    "frontmatter": skill.frontmatter(),
                    "mimeType": skill.mime_type(),
                    "text": skill.text(),
                }))?;
            } else {
                print_text(skill.text())?;
            }
            return Ok(SUCCESS);
        };
        let read = skill
            .read_file(path, Default::default())
            .await
            .map_err(|e| prefixed(&server, e))?;
        if self.json {
            let mut out = json!({
                "server": server,
                "uri": read.uri,
                "mimeType": read.mime_type,
                "size": read.size(),
                "digest": read.digest,
            });
            match read.text() {
                Some(text) => out["text"] = json!(text),
                None => out["blob"] = json!(STANDARD.encode(&read.bytes)),
            }
            print_json(&out)?;
            return Ok(SUCCESS);
        }
        let text = read.text().ok_or_else(|| {
            Failure::new(format!(
                "{}: {} is not text ({} bytes); --json prints it as base64",
                server,
                read.uri,
                read.size()
            ))
        })?;
        print_text(text)?;
        Ok(SUCCESS)
    }

    /// The skill `wanted` names: the listed entry whose name or URI it is,
    /// on `server` or on every server that declares the extension; a URI no
    /// listing has is asked for with `skills/get` when one server is
    /// concerned (a listing may be partial). Several matches are an error
    /// naming them: a name identifies no skill across servers, or even
    /// within one.
    async fn find_skill(
        &self,
        server: Option<&str>,
        wanted: &str,
    ) -> Result<(String, Skill), Failure> {
        let candidates = self.selected(server)?;
        let mut with_skills = Vec::new();
        let mut found = Vec::new();
        let mut names = Vec::new();
        for (name, client) in &candidates {
            if SkillsCapability::of(&client.server_capabilities()).is_none() {
                continue;
            }
            with_skills.push(*name);
            let listing = self
                .manager
                .list_skills(name, Default::default())
                .await
                .map_err(failure)?;
            self.warn_left_out(
                name,
                "skills/list",
                &listing.problems,
                listing.incomplete.as_ref(),
            );
            for skill in listing.items {
                names.push(skill.name().to_owned());
                if skill.name() == wanted || skill.uri == wanted {
                    found.push((name.to_string(), skill));
                }
            }
        }
        if with_skills.is_empty() {
            let which = server.map_or("no server".to_owned(), |s| format!("server {s}"));
            return Err(Failure::new(format!(
                "{which} declares the skills extension (io.modelcontextprotocol/skills)"
            )));
        }
        match found.len() {
            1 => return Ok(found.remove(0)),
            0 => {}
            _ => {
                let each: Vec<String> = found
                    .iter()
                    .map(|(server, skill)| format!("{server} {}", skill.uri))
                    .collect();
                return Err(Failure::new(format!(
                    "several skills are named {wanted:?}: {}; name one by SERVER and the URI of its SKILL.md",
                    each.join(", ")
                )));
            }
        }
        if let ([server], true) = (with_skills.as_slice(), wanted.contains("://")) {
            let entry = self
                .manager
                .get_skill(server, wanted, Default::default())
                .await
                .map_err(failure)?;
            return Ok((server.to_string(), entry));
        }
        names.sort();
        names.dedup();
        Err(Failure::new(format!(
            "no skill named {wanted:?} (have: {})",
            if names.is_empty() {
                "none".to_owned()
            } else {
                capped_list(&names)
            }
        )))
    }
}

/// `name  description  (uri, N files)` — `dynamic` for generated skills.
fn skill_line(skill: &Skill) -> String {
    let files = match &skill.resources {
        SkillResources::Listed(files) => format!("{} files", files.len()),
        SkillResources::Dynamic => "dynamic".to_owned(),
    };
    format!(
        "{}  {}  ({}, {files})",
        skill.name(),
        output::one_line(&skill.frontmatter.description),
        skill.uri
    )
}

/// Text as it is, with a final newline when it has none.
fn print_text(text: &str) -> Result<(), Failure> {
    if text.ends_with('\n') {
        output::text(text)
    } else {
        output::line(text)
    }
}

/// A manager error as the command's failure: a client's error prefixed with
/// its server, as the other commands print it.
fn failure(e: ManagerError) -> Failure {
    match (e.server(), e.client_error()) {
        (Some(server), Some(client)) => prefixed(server, client.clone()),
        _ => Failure::new(error_chain(&e)),
    }
}
