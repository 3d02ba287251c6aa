//! A file's bytes out of a `resources/read` result, and their check
//! against the entry's `size` and `digest`. No I/O.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_types::content::ResourceContents;
use mcp_types::resources::ReadResourceResult;
use mcp_types::skills::{Sha256Digest, SkillResource};
use sha2::{Digest as _, Sha256};

use super::mismatch::SkillMismatch;

/// The raw bytes of `uri` in `result`, with their MIME type: the contents
/// item whose `uri` is `uri`, or the only item when there is one (a server
/// may spell the URI another way; the digest decides what it is). A `text`
/// item's bytes are its UTF-8; a `blob`'s are its base64 decoded.
///
/// Errors: [`SkillMismatch::Unreadable`] when no item is the file or a blob
/// is not base64.
pub(crate) fn content_bytes(
    uri: &str,
    result: ReadResourceResult,
) -> Result<(Vec<u8>, Option<String>), SkillMismatch> {
    let count = result.contents.len();
    let mut contents = result.contents.into_iter();
    let item = if count == 1 {
        contents.next()
    } else {
        contents.find(|c| c.uri() == uri)
    };
    let unreadable = |reason: String| SkillMismatch::Unreadable { reason };
    match item {
        Some(ResourceContents::Text(t)) => Ok((t.text.into_bytes(), t.mime_type)),
        Some(ResourceContents::Blob(b)) => STANDARD
            .decode(b.blob.as_bytes())
            .map(|bytes| (bytes, b.mime_type))
            .map_err(|e| unreadable(format!("the blob is not base64: {e}"))),
        None => Err(unreadable(format!(
            "the resources/read result holds {count} contents items, none for this URI"
        ))),
    }
}

/// Checks `bytes` against the entry's `size`, then its `digest` (the size
/// first: a length that differs fails without hashing).
///
/// Errors: [`SkillMismatch::Size`], [`SkillMismatch::Digest`].
pub(crate) fn check(listed: &SkillResource, bytes: &[u8]) -> Result<(), SkillMismatch> {
    let read = bytes.len() as u64;
    if read != listed.size {
        return Err(SkillMismatch::Size {
            listed: listed.size,
            read,
        });
    }
    let digest = sha256(bytes);
    if digest != listed.digest {
        return Err(SkillMismatch::Digest {
            listed: listed.digest,
            read: digest,
        });
    }
    Ok(())
}

/// SHA-256 of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> Sha256Digest {
    Sha256Digest::from_bytes(Sha256::digest(bytes).into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(bytes: &[u8]) -> SkillResource {
        SkillResource {
            uri: "skill://a/SKILL.md".into(),
            digest: sha256(bytes),
            size: bytes.len() as u64,
            extra: Default::default(),
        }
    }

    #[test]
    fn the_digest_of_a_known_text() {
        assert_eq!(
            sha256(b"abc").to_string(),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn size_first_then_digest() {
        let listed = entry(b"Skill body.");
        assert_eq!(check(&listed, b"Skill body."), Ok(()));
        assert!(matches!(
            check(&listed, b"Skill body.!"),
            Err(SkillMismatch::Size {
                listed: 11,
                read: 12
            })
        ));
        assert!(matches!(
            check(&listed, b"Evil body!!"),
            Err(SkillMismatch::Digest { .. })
        ));
    }

    #[test]
    fn bytes_come_from_the_item_of_the_uri() {
        let read =
            |v: serde_json::Value| -> ReadResourceResult { serde_json::from_value(v).unwrap() };
        let (bytes, mime) = content_bytes(
            "skill://a/x",
            read(json!({"contents": [
                {"uri": "skill://a/y", "text": "other"},
                {"uri": "skill://a/x", "blob": "aGk=", "mimeType": "application/octet-stream"}
            ]})),
        )
        .unwrap();
        assert_eq!(
            (bytes.as_slice(), mime.as_deref()),
            (&b"hi"[..], Some("application/octet-stream"))
        );
        let (bytes, _) = content_bytes(
            "skill://a/x",
            read(json!({"contents": [{"uri": "skill://A/x", "text": "é"}]})),
        )
        .unwrap();
        assert_eq!(bytes, "é".as_bytes());
        for bad in [
            json!({"contents": []}),
            json!({"contents": [{"uri": "u", "text": ""}, {"uri": "v", "text": ""}]}),
            json!({"contents": [{"uri": "skill://a/x", "blob": "not base64!"}]}),
        ] {
            assert!(matches!(
                content_bytes("skill://a/x", read(bad)),
                Err(SkillMismatch::Unreadable { .. })
            ));
        }
    }
}
