//! Compact JSON writing, byte for byte as serde_json writes it: values,
//! members and strings with serde_json's escapes, and the escape scanner
//! ([`first_special`]) that finds the bytes a JSON string cannot hold as
//! they are. The envelope writers use it, and so does the deserializer
//! (`crate::de`), to find where a string ends. `serializer` is the same
//! writer as a `serde::Serializer`, for params written straight from a
//! caller's type.

use serde_json::{Map, Value};

pub(crate) mod serializer;

/// The JSON type of `value` as JSON Schema names it (`"null"`,
/// `"boolean"`, `"number"`, `"string"`, `"array"`, `"object"`; integers
/// are `"number"`), the names [`ArgumentsError::NotAnObject`] reports.
///
/// ```
/// use serde_json::json;
///
/// assert_eq!(mcp_types::json_type(&json!([1, 2])), "array");
/// assert_eq!(mcp_types::json_type(&json!(7)), "number");
/// ```
///
/// [`ArgumentsError::NotAnObject`]: crate::ArgumentsError::NotAnObject
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Writes `v` as compact JSON.
pub(crate) fn value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        // serde_json's own number formatting (itoa / ryu).
        Value::Number(n) => {
            let _ = serde_json::to_writer(&mut *out, n);
        }
        Value::String(s) => string(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                value(out, item);
            }
            out.push(b']');
        }
        Value::Object(map) => object(out, map),
    }
}

/// `,"k":v` (no comma before the first member).
pub(crate) fn member(out: &mut Vec<u8>, first: &mut bool, k: &str, v: &Value) {
    if !*first {
        out.push(b',');
    }
    *first = false;
    string(out, k);
    out.push(b':');
    value(out, v);
}

fn object(out: &mut Vec<u8>, map: &Map<String, Value>) {
    out.push(b'{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, k);
        out.push(b':');
        value(out, v);
    }
    out.push(b'}');
}

/// Bytes looked at per step of the escape scan.
const BLOCK: usize = 64;

/// The offset of the first byte of `bytes` that a JSON string cannot
/// hold as it is (below 0x20, `"` or `\\`), if any: two 8-byte words
/// first (most strings are short), then whole blocks are skipped with
/// [`block_needs_escape`] (four at a time once two were clean), then
/// the block that holds it is looked at a word at a time, the last few
/// bytes one by one. The writer finds escapes with it, and the reader
/// (`crate::de`) the end of a string.
pub(crate) fn first_special(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    // Most strings are short: two words before the first block.
    while i < 16 {
        let Some(word) = bytes.get(i..i + 8) else {
            break;
        };
        let word: [u8; 8] = word.try_into().ok()?;
        let special = word_specials(u64::from_le_bytes(word));
        if special != 0 {
            return Some(i + (special.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    // Blocks. After two clean ones in a row the run is likely long, so the
    // scan goes on four blocks at a time (one reduction per 256 bytes
    // rather than per 64). Only after two, and only once per call: text
    // with an escape every line or so (one short run per call) never pays
    // for a four-block step that stops early.
    let mut clean = 0;
    while let Some(block) = bytes.get(i..i + BLOCK) {
        if clean == 2 {
            while let Some(run) = bytes.get(i..i + 4 * BLOCK) {
                let run: &[u8; 4 * BLOCK] = run.try_into().ok()?;
                if block_needs_escape(run) {
                    break;
                }
                i += 4 * BLOCK;
            }
            clean += 1;
            continue;
        }
        let block: &[u8; BLOCK] = block.try_into().ok()?;
        if block_needs_escape(block) {
            break;
        }
        i += BLOCK;
        clean += 1;
    }
    // The rest, eight bytes per step.
    while let Some(word) = bytes.get(i..i + 8) {
        let word: [u8; 8] = word.try_into().ok()?;
        let special = word_specials(u64::from_le_bytes(word));
        if special != 0 {
            return Some(i + (special.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    bytes[i..]
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .map(|j| i + j)
}

/// The bytes of `w` (little-endian) that are below 0x20, `"` or `\\`,
/// each marked by its top bit. Marks above the lowest one may be
/// spurious (a borrow runs on from a marked byte), the lowest is exact.
#[inline(always)]
fn word_specials(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_in = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    control | zero_in(w ^ (ONES * u64::from(b'"'))) | zero_in(w ^ (ONES * u64::from(b'\\')))
}

/// `true` when one of the bytes needs an escape: below 0x20, `"` or
/// `\\`. Each byte maps to a value that is 0 exactly for those bytes
/// (`b - 0x1F` saturating, `b ^ b'"'`, `b ^ b'\\'`, the least of the
/// three), and the block needs an escape when the least of them is 0:
/// a shape the compiler turns into vector saturating-subtract, xor and
/// min (SSE2 on x86-64, NEON on aarch64) with one reduction per block,
/// without `unsafe`.
#[inline(always)]
fn block_needs_escape<const N: usize>(block: &[u8; N]) -> bool {
    let mut least = u8::MAX;
    for &b in block {
        least = least.min(b.saturating_sub(0x1F).min(b ^ b'"').min(b ^ b'\\'));
    }
    least == 0
}

/// Gives back the capacity of `out` beyond its length plus `room` when that
/// excess is large: a buffer grown by doubling (the last few bytes of a
/// message written after a long string double it) would otherwise keep up
/// to its own size again unused for as long as the message is queued or in
/// flight. Below 4 KiB, or an eighth of the length, of excess it is kept.
pub(crate) fn trim_excess(out: &mut Vec<u8>, room: usize) {
    let wanted = out.len().saturating_add(room);
    if out.capacity() - wanted.min(out.capacity()) > 4096 + out.len() / 8 {
        out.shrink_to(wanted);
    }
}

/// Bytes reserved past a string for what closes the message after it
/// (`}` of the arguments, the params and the request; a `,"k":v` or two).
const CLOSING_ROOM: usize = 32;

/// A JSON string with serde_json's escapes: `\\"`, `\\\\`, `\\b`, `\\t`,
/// `\\n`, `\\f`, `\\r`, other controls as `\\u00xx`; nothing else.
/// The runs between escapes are found with [`first_special`] and copied
/// whole.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    let mut rest = s.as_bytes();
    // Its quotes, and room for the few bytes that close a message after
    // it: a long string grows the buffer once, to about its size, and the
    // closing braces do not double it again (a transient copy of a 100 KiB
    // argument, then given back by `trim_excess`).
    out.reserve(rest.len() + 2 + CLOSING_ROOM);
    out.push(b'"');
    while let Some((run, special)) = first_special(rest).and_then(|at| rest.split_at_checked(at)) {
        out.extend_from_slice(run);
        let Some((&b, after)) = special.split_first() else {
            rest = special;
            break;
        };
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0C => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xF)],
                ]);
            }
        }
        rest = after;
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block path of the escape scan: every ASCII byte at every place
    /// of a string two 64-byte blocks long (and a bit), against serde_json.
    #[test]
    fn escape_scan_blocks_match_serde_json_for_every_byte_and_place() {
        for b in 0u8..0x80 {
            for at in 0..140 {
                let mut s = vec![b'x'; 140];
                s[at] = b;
                let s = String::from_utf8(s).unwrap();
                let mut ours = Vec::new();
                string(&mut ours, &s);
                assert_eq!(
                    String::from_utf8(ours).unwrap(),
                    serde_json::to_string(&s).unwrap(),
                    "byte {b:#04x} at {at}"
                );
            }
        }
    }

    /// A long string grows the buffer once, with room for the bytes that
    /// close the message after it: they do not double it again.
    #[test]
    fn a_long_string_leaves_room_for_the_message_to_close() {
        let mut out = Vec::with_capacity(384);
        out.extend_from_slice(&[b' '; 200]);
        string(&mut out, &"t".repeat(100 * 1024));
        let grown = out.capacity();
        out.extend_from_slice(b"}}}}");
        assert_eq!(out.capacity(), grown, "the closing bytes grew the buffer");
    }

    /// `first_special` (blocks, then words, then bytes) against a byte
    /// loop: every byte value, at every place of strings of many lengths,
    /// alone and with a second special byte after it (the word test can
    /// mark bytes past the first).
    #[test]
    fn first_special_finds_the_first_special_byte_everywhere() {
        let naive = |s: &[u8]| s.iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\');
        for len in [1, 7, 8, 9, 63, 64, 65, 71, 72, 140] {
            for b in 0..=u8::MAX {
                for at in 0..len {
                    for second in [None, Some(b'"'), Some(0x1F)] {
                        let mut s = vec![b'x'; len];
                        s[at] = b;
                        if let (Some(c), true) = (second, at + 1 < len) {
                            s[at + 1] = c;
                        }
                        assert_eq!(
                            first_special(&s),
                            naive(&s),
                            "byte {b:#04x} at {at} of {len}, then {second:?}"
                        );
                    }
                }
            }
        }
        // Long enough for the four-block steps, and the blocks and words
        // after them: a special at every place, with the bytes nearest to
        // the specials' values around.
        for len in [144, 145, 400, 401, 700, 1100] {
            for b in [
                0x00, 0x1F, 0x20, b'"', b'!', b'#', b'\\', b'[', b']', 0x7F, 0x80, 0xFF,
            ] {
                for at in 0..len {
                    let mut s = vec![b'x'; len];
                    s[at] = b;
                    assert_eq!(
                        first_special(&s),
                        naive(&s),
                        "byte {b:#04x} at {at} of {len}"
                    );
                }
            }
        }
        assert_eq!(first_special(b""), None);
    }
}
