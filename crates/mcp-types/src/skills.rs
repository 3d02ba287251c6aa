//! Skills (extension `io.modelcontextprotocol/skills`, SEP-2640; spec page
//! `specification/stable/skills` of the extension): the capability, the
//! `Skill` entry with its manifest of files (`sha256:` digest and byte size
//! of each), `skills/list` and `skills/get`.
//!
//! A skill is a directory of files served as resources, minimally a
//! `SKILL.md` that begins with YAML frontmatter. Its entry carries that
//! frontmatter as a JSON object and, unless the skill is generated
//! (`"resources": "dynamic"`), the digest and size of every file, so a host
//! can check what it later reads with `resources/read`. The checks
//! themselves are the client's (`mcp_client`'s `load_skill`); this module
//! only says what the server sent.
//!
//! Decoding is strict inside an entry (a malformed digest, a missing
//! `resources` or a `frontmatter` without `name` / `description` make the
//! entry invalid, and the spec forbids loading an invalid entry) and lenient
//! across a listing: an invalid entry is left out of `skills/list` with one
//! warning, the others are kept (see [`crate::lenient`]).

use std::fmt;
use std::str::FromStr;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::base::{CacheScope, Cursor, Meta, PaginatedParams, ResultType, impl_paginated};
use crate::lifecycle::ServerCapabilities;
use crate::method::Request;

/// The extension's identifier, the key under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The file name of a skill's manifest, the last segment of its URI.
pub const SKILL_FILE: &str = "SKILL.md";

/// Resources per skill a host must accept (spec § Limits): 512 entries,
/// `SKILL.md` included.
pub const SKILL_MAX_RESOURCES: usize = 512;

/// Total file size per skill a host must accept (spec § Limits):
/// 16 MiB (16 777 216 bytes), the sum of `size` over its resources.
pub const SKILL_MAX_TOTAL_BYTES: u64 = 16 * 1024 * 1024;

/// The extension's settings under `capabilities.extensions` (spec
/// § Capability Negotiation). `{}` means supported with no optional feature.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsCapability {
    /// The server implements `resources/directory/read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory_read: Option<bool>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SkillsCapability {
    /// The skills settings `caps` declare, or `None` when the server did not
    /// declare the extension. A declaration whose settings are not an object
    /// (or do not decode) counts as `{}`: the key alone declares support.
    pub fn of(caps: &ServerCapabilities) -> Option<SkillsCapability> {
        let settings = caps.extensions.as_ref()?.get(SKILLS_EXTENSION)?;
        Some(serde_json::from_value(settings.clone()).unwrap_or_default())
    }
}

/// The SHA-256 digest of a file's raw bytes, written `sha256:{hex}` with 64
/// lowercase hexadecimal digits (spec § Integrity and Verification).
///
/// ```
/// use mcp_types::skills::Sha256Digest;
/// let text = format!("sha256:{}", "ab".repeat(32));
/// let digest: Sha256Digest = text.parse().unwrap();
/// assert_eq!(digest.to_string(), text);
/// assert_eq!(digest.as_bytes()[0], 0xab);
/// // Upper-case hex, another algorithm or another length are not digests.
/// assert!(format!("sha256:{}", "AB".repeat(32)).parse::<Sha256Digest>().is_err());
/// assert!("sha512:00".parse::<Sha256Digest>().is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sha256Digest([u8; 32]);

impl Sha256Digest {
    /// The digest whose bytes are `bytes` (what a SHA-256 hasher returns).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Sha256Digest(bytes)
    }

    /// The 32 bytes of the digest.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sha256:")?;
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A string that is not a `sha256:` digest (see [`Sha256Digest`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a digest is \"sha256:\" and 64 lowercase hexadecimal digits, not {found:?}{}",
    if *.cut { "…" } else { "" }
)]
pub struct DigestError {
    /// The start of the string found (at most 80 characters).
    pub found: String,
    /// `true` when `found` was cut.
    pub cut: bool,
}

impl FromStr for Sha256Digest {
    type Err = DigestError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let refuse = || DigestError {
            found: s.chars().take(80).collect(),
            cut: s.chars().nth(80).is_some(),
        };
        let hex = s.strip_prefix("sha256:").ok_or_else(refuse)?.as_bytes();
        if hex.len() != 64 {
            return Err(refuse());
        }
        let digit = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        let mut bytes = [0u8; 32];
        for (byte, pair) in bytes.iter_mut().zip(hex.chunks_exact(2)) {
            let (Some(high), Some(low)) = (digit(pair[0]), digit(pair[1])) else {
                return Err(refuse());
            };
            *byte = high << 4 | low;
        }
        Ok(Sha256Digest(bytes))
    }
}

impl Serialize for Sha256Digest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Sha256Digest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(D::Error::custom)
    }
}

/// One file of a skill with the digest and size of its content (schema
/// `SkillResource`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillResource {
    /// Resource URI of the file (read with `resources/read`).
    pub uri: String,
    /// SHA-256 of the file's raw bytes.
    pub digest: Sha256Digest,
    /// Length of the file's raw content, in bytes (the bytes `digest` covers).
    pub size: u64,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `resources` of a skill entry: the complete list of its files, or
/// `"dynamic"` for generated content that has no stable digests (spec
/// § Resources). Any other value makes the entry invalid.
#[derive(Debug, Clone, PartialEq)]
pub enum SkillResources {
    /// Every file of the skill, `SKILL.md` included, each once.
    Listed(Vec<SkillResource>),
    /// Generated content: nothing to verify against.
    Dynamic,
}

impl SkillResources {
    /// The listed file at `uri` (`None` for `"dynamic"` or an unlisted URI).
    pub fn get(&self, uri: &str) -> Option<&SkillResource> {
        match self {
            SkillResources::Listed(files) => files.iter().find(|f| f.uri == uri),
            SkillResources::Dynamic => None,
        }
    }

    /// The listed files (none for `"dynamic"`).
    pub fn files(&self) -> &[SkillResource] {
        match self {
            SkillResources::Listed(files) => files,
            SkillResources::Dynamic => &[],
        }
    }

    /// `true` for `"dynamic"`.
    pub fn is_dynamic(&self) -> bool {
        matches!(self, SkillResources::Dynamic)
    }
}

/// The wire string of [`SkillResources::Dynamic`].
const DYNAMIC: &str = "dynamic";

impl Serialize for SkillResources {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillResources::Listed(files) => files.serialize(s),
            SkillResources::Dynamic => s.serialize_str(DYNAMIC),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Decided by the JSON type, never by trying shapes in turn.
        match Value::deserialize(d)? {
            Value::Array(files) => serde_json::from_value(Value::Array(files))
                .map(SkillResources::Listed)
                .map_err(D::Error::custom),
            Value::String(s) if s == DYNAMIC => Ok(SkillResources::Dynamic),
            other => Err(D::Error::custom(format!(
                "`resources` is an array of files or \"dynamic\", not {}",
                json_kind(&other)
            ))),
        }
    }
}

/// `"a string"`, `"an object"`, …: what a JSON value is, for messages.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "another string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A skill's `SKILL.md` frontmatter rendered as a JSON object (spec
/// § Frontmatter): `name` and `description` always, every other field the
/// author wrote in `other`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillFrontmatter {
    /// The skill's name (the last segment of its path).
    pub name: String,
    /// What the skill does and when to use it.
    pub description: String,
    /// Every other field (`license`, `metadata`, `allowed-tools`, …), as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl SkillFrontmatter {
    /// Every field as one JSON object, `name` and `description` included.
    pub fn to_map(&self) -> Map<String, Value> {
        let mut map = self.other.clone();
        map.insert("name".into(), Value::String(self.name.clone()));
        map.insert(
            "description".into(),
            Value::String(self.description.clone()),
        );
        map
    }
}

/// The entry for one skill (schema `Skill`), as `skills/list` and
/// `skills/get` return it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skill {
    /// Resource URI of the skill's `SKILL.md`, e.g.
    /// `skill://pdf-processing/SKILL.md`. With the server's identity it
    /// identifies the skill (names need not be unique).
    pub uri: String,
    /// The `SKILL.md` frontmatter.
    pub frontmatter: SkillFrontmatter,
    /// The skill's files with their digests, or `"dynamic"`.
    pub resources: SkillResources,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Skill {
    /// The skill's name (`frontmatter.name`).
    pub fn name(&self) -> &str {
        &self.frontmatter.name
    }

    /// The URI of the skill's root directory: [`Skill::uri`] without its
    /// last segment (`skill://pdf-processing` for
    /// `skill://pdf-processing/SKILL.md`), against which the skill's
    /// relative references resolve (spec § Relative References).
    pub fn root(&self) -> &str {
        match self.uri.rfind('/') {
            Some(i) if !self.uri[..i].ends_with('/') => &self.uri[..i],
            _ => &self.uri,
        }
    }

    /// The listed entry of `SKILL.md` itself (the file at [`Skill::uri`]);
    /// `None` when the entry is `"dynamic"` or does not list it.
    pub fn skill_file(&self) -> Option<&SkillResource> {
        self.resources.get(&self.uri)
    }
}

/// Result of `skills/list` (schema `ListSkillsResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// This page of skills.
    pub skills: Vec<Skill>,
    /// Cursor of the next page, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Result kind [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// How long the listing may be cached, in ms (a freshness hint, not an
    /// integrity property).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the cached listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Entries of this page that did not decode and were left out (each
    /// logged once by the client); never on the wire. See
    /// [`crate::lenient`].
    #[serde(skip)]
    pub problems: Vec<crate::entry_problem::EntryProblem>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl_paginated!(ListSkillsResult, skills, Skill, uri);

/// Params of `skills/get` (schema `GetSkillRequest.params`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSkillRequestParams {
    /// URI of the skill's `SKILL.md`.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `skills/get` (schema `GetSkillResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSkillResult {
    /// The skill's entry, as `skills/list` would give it.
    pub skill: Skill,
    /// Result kind [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// How long the entry may be taken as current, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the cached entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `skills/list` (client → server; only to a server that declared
/// [`SKILLS_EXTENSION`]).
#[derive(Debug)]
pub enum ListSkills {}

impl Request for ListSkills {
    const METHOD: &'static str = "skills/list";
    type Params = PaginatedParams;
    type Result = ListSkillsResult;
    fn set_problems(
        result: &mut ListSkillsResult,
        problems: Vec<crate::entry_problem::EntryProblem>,
    ) {
        result.problems = problems;
    }
}

/// `skills/get` (client → server): the entry of one skill by the URI of
/// its `SKILL.md`; an unknown URI is `-32602`.
#[derive(Debug)]
pub enum GetSkill {}

impl Request for GetSkill {
    const METHOD: &'static str = "skills/get";
    type Params = GetSkillRequestParams;
    type Result = GetSkillResult;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn digest(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    #[test]
    fn an_entry_round_trips() {
        let wire = json!({
            "uri": "skill://acme/billing/refunds/SKILL.md",
            "frontmatter": {"name": "refunds", "description": "d", "license": "MIT",
                            "metadata": {"version": "2"}},
            "resources": [
                {"uri": "skill://acme/billing/refunds/SKILL.md", "digest": digest('a'), "size": 10},
                {"uri": "skill://acme/billing/refunds/x.md", "digest": digest('b'), "size": 0}
            ]
        });
        let skill: Skill = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(skill.name(), "refunds");
        assert_eq!(skill.root(), "skill://acme/billing/refunds");
        assert_eq!(skill.skill_file().unwrap().size, 10);
        assert_eq!(skill.frontmatter.to_map()["license"], json!("MIT"));
        assert_eq!(serde_json::to_value(&skill).unwrap(), wire);
        let dynamic: Skill = serde_json::from_value(json!({
            "uri": "skill://daily/SKILL.md",
            "frontmatter": {"name": "daily", "description": "d"},
            "resources": "dynamic"
        }))
        .unwrap();
        assert!(dynamic.resources.is_dynamic());
        assert_eq!(dynamic.skill_file(), None);
    }

    #[test]
    fn invalid_entries_do_not_decode() {
        let good = json!({"uri": "skill://a/SKILL.md", "digest": digest('a'), "size": 1});
        for (what, entry) in [
            (
                "no resources",
                json!({"uri": "u", "frontmatter": {"name": "a", "description": "d"}}),
            ),
            (
                "resources of another string",
                json!({"uri": "u", "frontmatter": {"name": "a", "description": "d"}, "resources": "static"}),
            ),
            (
                "no description",
                json!({"uri": "u", "frontmatter": {"name": "a"}, "resources": [good]}),
            ),
            (
                "upper-case digest",
                json!({"uri": "u", "frontmatter": {"name": "a", "description": "d"},
                       "resources": [{"uri": "u", "digest": digest('A'), "size": 1}]}),
            ),
            (
                "negative size",
                json!({"uri": "u", "frontmatter": {"name": "a", "description": "d"},
                       "resources": [{"uri": "u", "digest": digest('a'), "size": -1}]}),
            ),
        ] {
            assert!(
                serde_json::from_value::<Skill>(entry).is_err(),
                "{what} decoded"
            );
        }
    }

    #[test]
    fn the_capability_is_read_from_extensions() {
        let caps: ServerCapabilities = serde_json::from_value(json!({
            "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": true}}
        }))
        .unwrap();
        assert_eq!(
            SkillsCapability::of(&caps).unwrap().directory_read,
            Some(true)
        );
        let caps: ServerCapabilities =
            serde_json::from_value(json!({"extensions": {"io.modelcontextprotocol/skills": true}}))
                .unwrap();
        assert_eq!(
            SkillsCapability::of(&caps),
            Some(SkillsCapability::default())
        );
        assert_eq!(SkillsCapability::of(&ServerCapabilities::default()), None);
    }

    /// One invalid entry of a listing costs that entry, named by its `uri`.
    #[test]
    fn a_listing_keeps_its_valid_entries() {
        let page = json!({"skills": [
            {"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
             "resources": "dynamic"},
            {"uri": "skill://b/SKILL.md", "frontmatter": {"name": "b", "description": "d"},
             "resources": [{"uri": "skill://b/SKILL.md", "digest": "md5:00", "size": 1}]},
            {"uri": "skill://c/SKILL.md", "frontmatter": {"name": "c", "description": "d"}}
        ], "nextCursor": "n"});
        let raw = crate::RawResult::new(bytes::Bytes::from(page.to_string()));
        for version in crate::ProtocolVersion::ALL {
            let (result, forgiven) =
                crate::lenient::parse_result::<ListSkills>(version, &raw).unwrap();
            assert_eq!(result.skills.len(), 1);
            assert_eq!(result.next_cursor.as_deref(), Some("n"));
            assert_eq!(result.problems, forgiven.dropped);
            let named: Vec<_> = result.problems.iter().map(|p| p.name.as_deref()).collect();
            assert_eq!(
                named,
                [Some("skill://b/SKILL.md"), Some("skill://c/SKILL.md")]
            );
            assert!(
                result.problems[0].reason.contains("sha256"),
                "{:?}",
                result.problems
            );
            assert!(
                result.problems[1].reason.contains("resources"),
                "{:?}",
                result.problems
            );
        }
    }

    #[test]
    fn digest_errors_quote_a_bounded_start() {
        let long = "x".repeat(500);
        let e = long.parse::<Sha256Digest>().unwrap_err();
        assert!(e.cut && e.found.len() == 80, "{e:?}");
        assert!(e.to_string().ends_with("…"), "{e}");
    }
}
