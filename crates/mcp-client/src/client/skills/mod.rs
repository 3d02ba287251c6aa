//! Skills over MCP (extension `io.modelcontextprotocol/skills`): the rules
//! are documented on [`LoadedSkill`], the public face of this module.

mod frontmatter;
// Named by `ClientError`, which sits below the skills' methods.
pub(crate) mod mismatch;
mod verify;

use mcp_transport::RequestOptions;
use mcp_types::skills::{
    GetSkill, GetSkillRequestParams, ListSkills, ListSkillsResult, Sha256Digest, Skill,
    SkillFrontmatter, SkillResource,
};

pub use mismatch::SkillMismatch;

use crate::client::Client;
use crate::error::ClientError;
use crate::listing::Listing;

impl Client {
    /// One page of `skills/list` (extension `io.modelcontextprotocol/skills`
    /// § Listing Skills). Reads no skill file. An entry that does not decode
    /// (no `resources`, a malformed digest, a frontmatter without `name` or
    /// `description`) is invalid: it is left out with one warning, on the
    /// page's `problems`.
    ///
    /// Errors: as [`Client::request`]; needs the server's
    /// `extensions["io.modelcontextprotocol/skills"]`.
    pub async fn list_skills(
        &self,
        cursor: Option<String>,
        options: RequestOptions,
    ) -> Result<ListSkillsResult, ClientError> {
        self.list_page::<ListSkills>(cursor, options).await
    }

    /// Every skill, following `nextCursor`; entries are de-duplicated by
    /// `uri`. An empty or partial listing does not mean the server has no
    /// other skills: [`Client::get_skill`] reaches one by its URI.
    ///
    /// Errors: the first page's, as [`Client::request`].
    pub async fn list_all_skills(
        &self,
        options: RequestOptions,
    ) -> Result<Vec<Skill>, ClientError> {
        self.skills_listing(options).await.map(|l| l.items)
    }

    /// [`Client::list_all_skills`] with the entries left out and why the
    /// listing stopped early, if it did.
    ///
    /// Errors: as [`Client::listing`].
    pub async fn skills_listing(
        &self,
        options: RequestOptions,
    ) -> Result<Listing<Skill>, ClientError> {
        self.listing::<ListSkills>(options).await
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`
    /// (extension § Getting a Skill), listed or not; the way to refresh a
    /// stale entry. Reads no skill file.
    ///
    /// Errors: as [`Client::request`]; a URI the server does not serve is
    /// [`ClientError::Server`] with `-32602`; needs the extension.
    pub async fn get_skill(
        &self,
        uri: impl Into<String>,
        options: RequestOptions,
    ) -> Result<Skill, ClientError> {
        let params = GetSkillRequestParams {
            uri: uri.into(),
            ..Default::default()
        };
        let result = self.request::<GetSkill>(params, options).await?;
        Ok(result.skill)
    }

    /// Loads the skill `entry` describes: reads its `SKILL.md` with
    /// `resources/read` and verifies it against `entry` (size, then
    /// SHA-256, then the YAML frontmatter field by field), as spec
    /// § Integrity and Verification requires before a host acts on it.
    /// Nothing else is read; supporting files come later through
    /// [`LoadedSkill::read_file`].
    ///
    /// `options` apply to the one read.
    ///
    /// Errors: [`ClientError::SkillVerification`] with the
    /// [`SkillMismatch`] (a `"dynamic"` entry, or one that does not list its
    /// own `SKILL.md`, fails before anything is read); otherwise as
    /// [`Client::read_resource`].
    pub async fn load_skill(
        &self,
        entry: &Skill,
        options: RequestOptions,
    ) -> Result<LoadedSkill, ClientError> {
        let failed = |mismatch| skill_failure(entry, &entry.uri, mismatch);
        if entry.resources.is_dynamic() {
            return Err(failed(SkillMismatch::Unverifiable));
        }
        let listed = entry
            .skill_file()
            .ok_or_else(|| failed(SkillMismatch::NotListed))?;
        let result = self.read_resource(entry.uri.clone(), options).await?;
        let (bytes, mime_type) = verify::content_bytes(&entry.uri, result).map_err(failed)?;
        verify::check(listed, &bytes).map_err(failed)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            failed(SkillMismatch::Unreadable {
                reason: format!("SKILL.md is not UTF-8: {e}"),
            })
        })?;
        let parsed = frontmatter::parse(&text)
            .map_err(|reason| failed(SkillMismatch::NoFrontmatter { reason }))?;
        if let Some((field, listed, file)) =
            frontmatter::first_difference(&entry.frontmatter.to_map(), &parsed.fields)
        {
            return Err(failed(SkillMismatch::Frontmatter {
                field,
                listed,
                file,
            }));
        }
        tracing::debug!(skill = %entry.uri, bytes = text.len(), "skill loaded and verified");
        Ok(LoadedSkill {
            client: self.clone(),
            entry: entry.clone(),
            text,
            body_start: parsed.body_start,
            mime_type,
        })
    }
}

/// [`ClientError::SkillVerification`] for `file` of `entry`.
fn skill_failure(entry: &Skill, file: &str, mismatch: SkillMismatch) -> ClientError {
    tracing::debug!(skill = %entry.uri, file, %mismatch, "skill failed verification; not used");
    ClientError::SkillVerification {
        skill: entry.uri.clone(),
        file: file.to_owned(),
        mismatch: Box::new(mismatch),
    }
}

/// A skill whose `SKILL.md` was read and verified against its entry
/// ([`Client::load_skill`]): the held entry of spec § The Acting Window,
/// through which its supporting files are read.
///
/// Cheap to clone the client it holds; the text is the verified file.
///
/// # Skills over MCP
///
/// Skills over MCP (extension `io.modelcontextprotocol/skills`, SEP-2640):
/// list a server's skills, load one, and read its files, each checked
/// against the skill's entry.
///
/// A skill is instructions an agent will follow, so the client never hands
/// out a byte of one that differs from what the server listed:
///
/// 1. [`Client::list_skills`] / [`Client::skills_listing`] (`skills/list`,
///    paginated like every listing) and [`Client::get_skill`] (`skills/get`,
///    a skill known only by its URI) give entries: the frontmatter and the
///    `sha256:` digest and byte size of every file. Listing reads no file
///    (spec § Lazy Retrieval: nothing is fetched on connection, listing or
///    approval).
/// 2. [`Client::load_skill`] reads `SKILL.md` (`resources/read`), checks its
///    size, then its digest, parses its YAML frontmatter and compares it
///    with the entry's field by field (spec § Verification on Read,
///    § Frontmatter Verification). Any difference is
///    [`ClientError::SkillVerification`] naming the field and both values
///    ([`SkillMismatch`]); nothing of the skill is returned. An entry whose
///    `resources` are `"dynamic"` has nothing to verify against and is not
///    loaded ([`SkillMismatch::Unverifiable`]; the spec lets a host decline).
/// 3. Only a [`LoadedSkill`] reads supporting files
///    ([`LoadedSkill::read_file`]), one at a time when asked, each checked
///    against its listed size and digest; a file the entry does not list is
///    refused without a request (spec § The Acting Window and the Held
///    Entry).
///
/// The checks prove the entry and the content agree; both come from the
/// same server, so a match is not a trust anchor (spec § Digests Are Not a
/// Trust Anchor). Skill content stays untrusted input for the host.
///
/// Every method needs the server to have declared the extension
/// (`capabilities.extensions["io.modelcontextprotocol/skills"]`); a host
/// that uses skills declares it too
/// ([`crate::ClientOptions::with_extension`] with
/// [`mcp_types::skills::SKILLS_EXTENSION`]).
///
/// Not built: `resources/directory/read`, loading `"dynamic"` skills, and a
/// cache of verified files (each [`LoadedSkill::read_file`] reads again).
#[derive(Debug, Clone)]
pub struct LoadedSkill {
    client: Client,
    entry: Skill,
    text: String,
    body_start: usize,
    mime_type: Option<String>,
}

impl LoadedSkill {
    /// The entry the skill was verified against (and its files will be).
    pub fn entry(&self) -> &Skill {
        &self.entry
    }

    /// The URI of its `SKILL.md`.
    pub fn uri(&self) -> &str {
        &self.entry.uri
    }

    /// The skill's name (`frontmatter.name`).
    pub fn name(&self) -> &str {
        self.entry.name()
    }

    /// The frontmatter: the entry's, which the file's equals.
    pub fn frontmatter(&self) -> &SkillFrontmatter {
        &self.entry.frontmatter
    }

    /// The whole verified `SKILL.md`, frontmatter included.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The instructions: `SKILL.md` after its closing `---` line.
    pub fn body(&self) -> &str {
        self.text.get(self.body_start..).unwrap_or_default()
    }

    /// The MIME type the server gave `SKILL.md`, if any.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// The supporting files the entry lists (every file but `SKILL.md`);
    /// none has been read.
    pub fn files(&self) -> impl Iterator<Item = &SkillResource> {
        self.entry
            .resources
            .files()
            .iter()
            .filter(|f| f.uri != self.entry.uri)
    }

    /// The URI a reference of the skill names: a URI (with `://`) as it is,
    /// a relative path resolved against the skill's root
    /// (`references/FORMS.md` → `skill://pdf-processing/references/FORMS.md`,
    /// spec § Relative References), with `.` and `..` segments applied;
    /// `None` when `..` leaves the root or nothing is named.
    pub fn resolve(&self, reference: &str) -> Option<String> {
        resolve(self.entry.root(), reference)
    }

    /// Reads the file `reference` names (see [`LoadedSkill::resolve`]) with
    /// `resources/read` and verifies it against the size and digest the
    /// entry lists for it. `SKILL.md` itself comes from what was loaded,
    /// without a request.
    ///
    /// Errors: [`ClientError::SkillVerification`]: [`SkillMismatch::NotListed`]
    /// for a file the entry does not list (nothing is sent), `Size`,
    /// `Digest` or `Unreadable` for content that is not what was listed
    /// (not returned); otherwise as [`Client::read_resource`].
    pub async fn read_file(
        &self,
        reference: &str,
        options: RequestOptions,
    ) -> Result<SkillFile, ClientError> {
        let uri = self.resolve(reference);
        let listed = uri.as_deref().and_then(|u| self.entry.resources.get(u));
        let (Some(uri), Some(listed)) = (uri.as_deref(), listed) else {
            let file = uri.as_deref().unwrap_or(reference);
            return Err(skill_failure(&self.entry, file, SkillMismatch::NotListed));
        };
        if uri == self.entry.uri {
            return Ok(SkillFile {
                uri: uri.to_owned(),
                mime_type: self.mime_type.clone(),
                bytes: self.text.as_bytes().to_vec(),
                digest: listed.digest,
            });
        }
        let result = self.client.read_resource(uri, options).await?;
        let failed = |mismatch| skill_failure(&self.entry, uri, mismatch);
        let (bytes, mime_type) = verify::content_bytes(uri, result).map_err(failed)?;
        verify::check(listed, &bytes).map_err(failed)?;
        Ok(SkillFile {
            uri: uri.to_owned(),
            mime_type,
            bytes,
            digest: listed.digest,
        })
    }
}

/// A file of a loaded skill, verified against its entry
/// ([`LoadedSkill::read_file`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SkillFile {
    /// Its resource URI.
    pub uri: String,
    /// The MIME type the server gave it, if any.
    pub mime_type: Option<String>,
    /// Its raw bytes (the UTF-8 of a `text` read, the decoded `blob`).
    pub bytes: Vec<u8>,
    /// Its SHA-256, as listed and as read.
    pub digest: Sha256Digest,
}

impl SkillFile {
    /// The bytes as text, when they are UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }

    /// Its size in bytes, as listed and as read.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }
}

/// `reference` resolved against the skill root `root` (see
/// [`LoadedSkill::resolve`]).
fn resolve(root: &str, reference: &str) -> Option<String> {
    if reference.contains("://") {
        return Some(reference.to_owned());
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in reference.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            s => segments.push(s),
        }
    }
    if segments.is_empty() {
        return None;
    }
    Some(format!("{root}/{}", segments.join("/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_resolve_against_the_skill_root() {
        let root = "skill://acme/billing/refunds";
        assert_eq!(
            resolve(root, "examples/email.md").as_deref(),
            Some("skill://acme/billing/refunds/examples/email.md")
        );
        assert_eq!(
            resolve(root, "./a/../b.md").as_deref(),
            Some("skill://acme/billing/refunds/b.md")
        );
        assert_eq!(
            resolve(root, "skill://other/SKILL.md").as_deref(),
            Some("skill://other/SKILL.md")
        );
        assert_eq!(resolve(root, "../x.md"), None);
        assert_eq!(resolve(root, "a/../../x.md"), None);
        assert_eq!(resolve(root, "."), None);
    }
}
