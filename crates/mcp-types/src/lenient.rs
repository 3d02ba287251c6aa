//! What this crate forgives in what servers send, and how. The rule of the
//! project: strict where the spec protects the user (ids, framing, tokens),
//! forgiving where a default is obvious, with one log line per thing
//! forgiven (the caller logs: this crate has no logger).
//!
//! Three kinds are forgiven, each written down once here and applied in
//! one place by the client:
//!
//! - **Lone UTF-16 surrogate escapes** (`"\ud83d"` with no low surrogate
//!   after it, a `"\udc00"` alone) read as U+FFFD, in every revision: see
//!   [`replace_lone_surrogates`]. Paired surrogates are their character.
//! - **A missing member with an obvious empty default**
//!   ([`DEFAULTED_MEMBERS`]), in the handshake revisions
//!   (2024-11-05 … 2025-11-25) only: under 2026-07-28 the revision's schema
//!   is followed as written. A member without which a result means nothing
//!   (a tool's `name`) is never defaulted.
//! - **One entry of a list result that does not decode** (tools, prompts,
//!   resources, resource templates, tasks, skills): the entry is dropped and
//!   described by an [`EntryProblem`] on the result; its siblings are kept
//!   ([`parse_result`]).
//!
//! All of it runs only after the strict parse failed, so a well-formed
//! result costs nothing extra.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use crate::entry_problem::EntryProblem;
use crate::method::Request;
use crate::raw::RawResult;
use crate::version::ProtocolVersion;

/// Members of a result that, when a handshake-revision server (2024-11-05 …
/// 2025-11-25) leaves them out, decode as the default given here (JSON
/// text): `(method, member, default)`.
///
/// Each is a list or an object whose absence can only mean "none": the
/// entries of a listing, the content of a tool result (a tool that
/// answers with `structuredContent` alone), the messages of a prompt, the
/// contents of a read, the capabilities of `initialize`, and its
/// `serverInfo` (or its `name` or `version` alone, written
/// `serverInfo.name`), which nothing in the protocol depends on. Members that
/// carry meaning (a tool's `name` or `inputSchema`, a resource's `uri`, a
/// result's `protocolVersion`) are not here: a result or an entry without
/// them fails, with serde's message naming the member.
///
/// Under 2026-07-28 none of this applies: that revision's schema is
/// followed as written.
pub const DEFAULTED_MEMBERS: &[(&str, &str, &str)] = &[
    ("initialize", "capabilities", "{}"),
    ("initialize", "serverInfo", r#"{"name":"","version":""}"#),
    ("initialize", "serverInfo.name", r#""""#),
    ("initialize", "serverInfo.version", r#""""#),
    ("tools/list", "tools", "[]"),
    ("tools/call", "content", "[]"),
    ("prompts/list", "prompts", "[]"),
    ("prompts/get", "messages", "[]"),
    ("resources/list", "resources", "[]"),
    ("resources/templates/list", "resourceTemplates", "[]"),
    ("resources/read", "contents", "[]"),
    ("tasks/list", "tasks", "[]"),
    ("skills/list", "skills", "[]"),
];

/// The list methods whose entries are decoded one by one when the whole
/// result does not decode: `(method, member holding the entries)`.
pub const LIST_ENTRIES: &[(&str, &str)] = &[
    ("tools/list", "tools"),
    ("prompts/list", "prompts"),
    ("resources/list", "resources"),
    ("resources/templates/list", "resourceTemplates"),
    ("tasks/list", "tasks"),
    ("skills/list", "skills"),
];

/// What [`parse_result`] forgave to decode a result.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forgiven {
    /// Members that were missing and took their default
    /// ([`DEFAULTED_MEMBERS`]).
    pub defaulted: Vec<&'static str>,
    /// Entries left out of a list result (also set on the result itself).
    pub dropped: Vec<EntryProblem>,
}

impl Forgiven {
    /// `true` when nothing was forgiven.
    pub fn is_empty(&self) -> bool {
        self.defaulted.is_empty() && self.dropped.is_empty()
    }
}

/// Parses the result of request `R`, received under `version`, as
/// `R::Result`, forgiving what this module lists for `R::METHOD` (a
/// `tasks/result` holding a tool result is parsed as
/// [`CallTool`](crate::tools::CallTool)'s). The strict parse
/// ([`RawResult::parse`]) runs first; only when it fails is the result
/// read again as a tree, the missing members filled in (handshake revisions
/// only) and, for a list method, each entry tried on its own so that the
/// ones that decode are kept. Dropped entries are set on a list result's
/// `problems` ([`Request::set_problems`]) and returned, with the defaulted members, for the caller to
/// log.
///
/// Errors: the strict parse's error when the bytes are not JSON or nothing
/// here applies; otherwise the error of the result with what could be
/// forgiven, forgiven (e.g. a `nextCursor` that is not a string).
pub fn parse_result<R: Request>(
    version: ProtocolVersion,
    raw: &RawResult,
) -> Result<(R::Result, Forgiven), serde_json::Error> {
    let method = R::METHOD;
    let strict = match raw.parse::<R::Result>() {
        Ok(value) => return Ok((value, Forgiven::default())),
        Err(e) => e,
    };
    let Ok(Value::Object(mut members)) = raw.parse::<Value>() else {
        return Err(strict);
    };
    let mut forgiven = Forgiven::default();
    if version.uses_handshake() {
        for &(m, member, default) in DEFAULTED_MEMBERS {
            // `null` is how many servers write an empty list (a nil slice
            // in Go): it gets the default as a missing member does.
            if m != method {
                continue;
            }
            // `parent.child`: a member of an object member, defaulted
            // only when that object is there.
            let (object, key) = match member.split_once('.') {
                Some((parent, child)) => match members.get_mut(parent) {
                    Some(Value::Object(inner)) => (inner, child),
                    _ => continue,
                },
                None => (&mut members, member),
            };
            if object.get(key).is_none_or(Value::is_null) {
                let Ok(default) = serde_json::from_str::<Value>(default) else {
                    continue;
                };
                object.insert(key.to_owned(), default);
                forgiven.defaulted.push(member);
            }
        }
    }
    let list = LIST_ENTRIES
        .iter()
        .find(|(m, _)| *m == method)
        .map(|&(_, member)| member);
    // (Only an array is split; anything else stays for the parse to refuse.)
    if let Some(member) = list
        && let Some(Value::Array(_)) = members.get(member)
        && let Some(Value::Array(entries)) = members.remove(member)
    {
        let kept = split_entries::<R::Result>(member, entries, &members, &mut forgiven.dropped);
        members.insert(member.to_owned(), Value::Array(kept));
    }
    if forgiven.is_empty() {
        return Err(strict);
    }
    let mut value: R::Result = serde_json::from_value(Value::Object(members))?;
    if !forgiven.dropped.is_empty() {
        R::set_problems(&mut value, forgiven.dropped.clone());
    }
    Ok((value, forgiven))
}

/// Tries each entry alone, as the one entry of a result with the other
/// members as they are, so an entry is judged by the same rules as in the
/// whole result without knowing its Rust type.
fn split_entries<T: DeserializeOwned>(
    member: &str,
    entries: Vec<Value>,
    rest: &Map<String, Value>,
    dropped: &mut Vec<EntryProblem>,
) -> Vec<Value> {
    let mut kept = Vec::with_capacity(entries.len());
    let mut trial = rest.clone();
    for (index, entry) in entries.into_iter().enumerate() {
        trial.insert(member.to_owned(), Value::Array(vec![entry]));
        let outcome = serde_json::from_value::<T>(Value::Object(trial.clone()));
        let Some(Value::Array(mut one)) = trial.remove(member) else {
            continue;
        };
        let Some(entry) = one.pop() else { continue };
        match outcome {
            Ok(_) => kept.push(entry),
            Err(e) => dropped.push(EntryProblem {
                list: member.to_owned(),
                index,
                name: ["name", "uri"]
                    .iter()
                    .find_map(|k| entry.get(*k).and_then(Value::as_str))
                    .map(str::to_owned),
                reason: e.to_string(),
            }),
        }
    }
    kept
}

/// Rewrites each `\uXXXX` escape of a lone UTF-16 surrogate inside a JSON
/// string as `\ufffd` (U+FFFD REPLACEMENT CHARACTER), leaving paired
/// surrogates, every other escape and everything outside strings as it is.
/// The text keeps its length (both escapes are six bytes).
///
/// "Lone" is what `JSON.parse` and Python's `json.loads` would have to
/// decide: a high surrogate (`\ud800`–`\udbff`) not directly followed by
/// `\u` and a low surrogate (`\udc00`–`\udfff`), or a low surrogate not
/// directly preceded by a high one. After a lone high surrogate the next
/// escape is read on its own (it may start a pair).
///
/// serde_json refuses lone surrogates in a `String`; callers that parse
/// with it retry with this rewrite when a parse fails, so the text reads
/// as this crate's own deserializer reads it in the first place.
///
/// Returns `None` when the text holds no lone surrogate escape (nothing to
/// retry). Malformed text is scanned as far as it goes; the parse then
/// reports it.
pub fn replace_lone_surrogates(text: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    let mut in_string = false;
    while i < text.len() {
        let b = text[i];
        if !in_string {
            in_string = b == b'"';
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' => match escape_unit(text, i) {
                Some(0xD800..=0xDBFF) => {
                    if let Some(0xDC00..=0xDFFF) = escape_unit(text, i + 6) {
                        i += 12;
                    } else {
                        replace_at(&mut out, text, i);
                        i += 6;
                    }
                }
                Some(0xDC00..=0xDFFF) => {
                    replace_at(&mut out, text, i);
                    i += 6;
                }
                Some(_) => i += 6,
                // `\"`, `\\` and the other one-letter escapes.
                None => i += 2,
            },
            _ => i += 1,
        }
    }
    out
}

/// The code unit of a `\uXXXX` escape starting at `at` (the backslash).
fn escape_unit(text: &[u8], at: usize) -> Option<u16> {
    let esc = text.get(at..at + 6)?;
    if esc[0] != b'\\' || esc[1] != b'u' {
        return None;
    }
    let mut n = 0u16;
    for &d in &esc[2..] {
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        n = (n << 4) | u16::from(v);
    }
    Some(n)
}

fn replace_at(out: &mut Option<Vec<u8>>, text: &[u8], at: usize) {
    let buf = out.get_or_insert_with(|| text.to_vec());
    buf[at..at + 6].copy_from_slice(b"\\ufffd");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{CallTool, ListTools};

    fn fixed(text: &str) -> String {
        match replace_lone_surrogates(text.as_bytes()) {
            Some(out) => String::from_utf8(out).unwrap(),
            None => text.to_owned(),
        }
    }

    #[test]
    fn lone_surrogates_are_rewritten_and_pairs_kept() {
        for (text, want) in [
            // high alone, before a quote, a letter, another escape
            (r#""\ud83d""#, r#""\ufffd""#),
            (r#""\ud83dx""#, r#""\ufffdx""#),
            (r#""\ud83d\n""#, r#""\ufffd\n""#),
            // high followed by a non-low escape: that one is kept
            (r#""\ud83d\u0041""#, r#""\ufffd\u0041""#),
            // two highs then a low: the first is lone, the second pairs
            (r#""\ud83d\ud83d\ude00""#, r#""\ufffd\ud83d\ude00""#),
            // low alone, low after a pair
            (r#""\udc00""#, r#""\ufffd""#),
            (r#""\ud83d\ude00\ude00""#, r#""\ud83d\ude00\ufffd""#),
            // upper-case hex, keys as well as values
            (r#"{"\uD800":"\uDFFF"}"#, r#"{"\ufffd":"\ufffd"}"#),
            // the catalogue's text
            (
                r#""bad high [\ud83d] bad low [\udc00] good pair [\ud83d\ude00]""#,
                r#""bad high [\ufffd] bad low [\ufffd] good pair [\ud83d\ude00]""#,
            ),
        ] {
            assert_eq!(fixed(text), want, "{text}");
            let value: Value = serde_json::from_str(&fixed(text)).unwrap();
            assert!(value.to_string().len() > 1);
        }
    }

    fn raw(text: &str) -> RawResult {
        RawResult::new(bytes::Bytes::copy_from_slice(text.as_bytes()))
    }

    #[test]
    fn entries_are_dropped_one_by_one_and_the_rest_is_kept() {
        let v = ProtocolVersion::V2025_11_25;
        let (r, forgiven) = parse_result::<ListTools>(
            v,
            &raw(r#"{"tools":[{"name":"a","inputSchema":{}},{"name":"b"},7],"nextCursor":"n"}"#),
        )
        .unwrap();
        assert_eq!(r.tools.len(), 1);
        assert_eq!(r.next_cursor.as_deref(), Some("n"));
        assert_eq!(r.problems, forgiven.dropped);
        assert_eq!(
            (r.problems[0].index, r.problems[0].name.as_deref()),
            (1, Some("b"))
        );
        assert_eq!(
            (r.problems[1].index, r.problems[1].name.as_deref()),
            (2, None)
        );
        // A list member that is neither an array nor null (null is the
        // empty default), or a bad member beside the entries, still fails
        // the result.
        let (r, forgiven) = parse_result::<ListTools>(v, &raw(r#"{"tools":null}"#)).unwrap();
        assert!(r.tools.is_empty());
        assert_eq!(forgiven.defaulted, ["tools"]);
        for text in [
            r#"{"tools":{"name":"a"}}"#,
            r#"{"tools":[{"name":"a","inputSchema":{}}],"nextCursor":5}"#,
            "[]",
            "not json",
        ] {
            assert!(parse_result::<ListTools>(v, &raw(text)).is_err(), "{text}");
        }
    }

    #[test]
    fn defaults_apply_in_the_handshake_era_only() {
        let text = raw(r#"{"structuredContent":{"a":1}}"#);
        for v in ProtocolVersion::ALL {
            let parsed = parse_result::<CallTool>(v, &text);
            if v.uses_handshake() {
                let (r, forgiven) = parsed.unwrap();
                assert!(r.content.is_empty());
                assert_eq!(forgiven.defaulted, ["content"]);
            } else {
                assert!(parsed.unwrap_err().to_string().contains("`content`"));
            }
        }
    }

    #[test]
    fn nothing_to_rewrite_is_none() {
        for text in [
            r#""plain""#,
            r#""\ud83d\ude00""#,
            // an escaped backslash followed by letters is not an escape
            r#""\\ud83d""#,
            r#""\"\ud83d\ude00""#,
            // outside strings nothing is touched
            r#"[1, 2, {"a": null}]"#,
            // truncated or malformed: left to the parser
            r#""\ud8"#,
            r#""\uZZZZ""#,
        ] {
            assert_eq!(replace_lone_surrogates(text.as_bytes()), None, "{text}");
        }
    }
}
