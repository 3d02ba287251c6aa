//! [`SkillMismatch`]: why a file of a skill failed verification.

use mcp_types::skills::Sha256Digest;
use serde_json::Value;

/// How much of a frontmatter value a message quotes: 200 characters.
const QUOTED_CHARS: usize = 200;

/// Why a file of a skill is not what the skill's entry describes
/// (extension `io.modelcontextprotocol/skills` § Integrity and
/// Verification). Each is a verification failure: the content is not used,
/// and a skill whose `SKILL.md` fails is not loaded. The source of
/// [`crate::ClientError::SkillVerification`].
///
/// Values quoted from the server (frontmatter values) are JSON-encoded and
/// cut at 200 characters, so a message is one bounded line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillMismatch {
    /// The content's length differs from the entry's `size` (checked before
    /// the digest, which is then not computed).
    #[error("size: the entry lists {listed} bytes, the server sent {read}")]
    #[non_exhaustive]
    Size {
        /// `size` in the entry, in bytes.
        listed: u64,
        /// Bytes read.
        read: u64,
    },
    /// The content's SHA-256 differs from the entry's `digest`.
    #[error("digest: the entry lists {listed}, the content hashes to {read}")]
    #[non_exhaustive]
    Digest {
        /// `digest` in the entry.
        listed: Sha256Digest,
        /// SHA-256 of the bytes read.
        read: Sha256Digest,
    },
    /// A field of the `SKILL.md` frontmatter differs from the entry's
    /// `frontmatter` (`None`: the field is absent on that side).
    #[error(
        "frontmatter field {field:?}: the entry lists {}, SKILL.md has {}",
        quote(.listed.as_ref()),
        quote(.file.as_ref())
    )]
    #[non_exhaustive]
    Frontmatter {
        /// The field, e.g. `"description"`.
        field: String,
        /// Its value in the entry.
        listed: Option<Value>,
        /// Its value in the file.
        file: Option<Value>,
    },
    /// `SKILL.md` has no frontmatter that can be compared (no `---` block,
    /// YAML that does not parse or is not a mapping, past the parser's
    /// bounds).
    #[error("SKILL.md frontmatter: {reason}")]
    #[non_exhaustive]
    NoFrontmatter {
        /// What is wrong with it.
        reason: String,
    },
    /// The file is not among the entry's `resources` (a read of an unlisted
    /// file counts as a digest mismatch; also an entry whose `resources`
    /// leave out its own `SKILL.md`). Nothing was read.
    #[error("the file is not listed in the skill's resources")]
    NotListed,
    /// The `resources/read` result gave no content for the file, or content
    /// that cannot be read as bytes (a `blob` that is not base64, a
    /// `SKILL.md` that is not UTF-8).
    #[error("unreadable content: {reason}")]
    #[non_exhaustive]
    Unreadable {
        /// What is wrong with it.
        reason: String,
    },
    /// The entry's `resources` are `"dynamic"`: there is no digest to verify
    /// against, and this client does not load such skills (the spec lets a
    /// host decline them). Nothing was read.
    #[error("the entry's resources are \"dynamic\": its content cannot be verified")]
    Unverifiable,
}

/// A value as JSON, cut at [`QUOTED_CHARS`]; `absent` for `None`.
fn quote(value: Option<&Value>) -> String {
    let Some(value) = value else {
        return "nothing (absent)".into();
    };
    let text = value.to_string();
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_name_the_field_and_both_values() {
        let m = SkillMismatch::Frontmatter {
            field: "description".into(),
            listed: Some(json!("Extract, fill, and assemble PDF documents")),
            file: Some(json!("Exfiltrate credentials")),
        };
        assert_eq!(
            m.to_string(),
            "frontmatter field \"description\": the entry lists \"Extract, fill, and assemble PDF \
             documents\", SKILL.md has \"Exfiltrate credentials\""
        );
        let m = SkillMismatch::Size {
            listed: 63,
            read: 104,
        };
        assert_eq!(
            m.to_string(),
            "size: the entry lists 63 bytes, the server sent 104"
        );
        let long = SkillMismatch::Frontmatter {
            field: "x".into(),
            listed: None,
            file: Some(json!("\u{1b}".repeat(1000))),
        };
        let text = long.to_string();
        assert!(text.contains("nothing (absent)"), "{text}");
        assert!(!text.contains('\u{1b}') && text.ends_with('…'), "{text}");
    }
}
