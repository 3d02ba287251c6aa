//! A JSON deserializer for [`RawResult::parse`](crate::raw::RawResult::parse):
//! serde's data model over text that is already known to be UTF-8, with
//! strings scanned 64 bytes per step by the JSON writer's escape test
//! (`crate::json_write::first_special`: vector code, no `unsafe`; short
//! strings two 8-byte words first) rather than eight bytes at a time, as
//! serde_json scans them. Strings are most of the bytes of a large result
//! (a 100 KiB `tools/call`), and scanning them is the largest single cost
//! of decoding one.
//!
//! It accepts and refuses the same texts as `serde_json::from_str` and
//! gives every `Deserialize` type the same calls, which the property tests
//! in `tests/de_properties.rs` check against serde_json itself:
//!
//! - strings: escapes decoded (`\uXXXX` with surrogate pairs; a lone
//!   surrogate is U+FFFD, where serde_json refuses the text: the one
//!   deliberate difference, see [`crate::lenient::replace_lone_surrogates`],
//!   which gives serde_json the same reading), unescaped control characters
//!   refused, borrowed from the input when they hold no escape;
//! - numbers: delimited here and converted by serde_json, so `-0`, integers
//!   past `u64`/`i64`, exponents and out-of-range values come out exactly
//!   as serde_json gives them;
//! - nesting: at most 128 arrays and objects deep, like serde_json's
//!   recursion limit (127 open at once), counted from the top of the
//!   parsed text;
//! - each typed method keeps serde_json's own rules, not just
//!   `deserialize_any`'s: a value of another type is an invalid-type
//!   error, numbers are converted by serde_json's method of the same name
//!   (`i128`/`u128` digit for digit, `f32` rounded as serde_json rounds
//!   it), byte strings take control characters and lone surrogates
//!   (WTF-8), map keys read as numbers or booleans are the key's own
//!   characters;
//! - ignored values (unknown members, `IgnoredAny`) and `RawValue`s are
//!   skipped as serde_json skips them: grammar only (lone surrogates and
//!   out-of-range numbers pass), without a nesting limit and without
//!   recursion;
//! - `serde_json::value::RawValue` members are handed to serde_json.
//!
//! Errors are `serde_json::Error`s whose message ends with the byte offset
//! where the text went wrong (`… at byte N`).
//!
//! Beyond its public API, this module rests on a few of serde_json's
//! internals (the private `RawValue` token, the shape of its error
//! messages, its recursion limit): [`serde_json_internals`] holds them, with
//! tests that name the difference if the serde_json in use behaves
//! otherwise. The root `Cargo.toml` bounds the serde_json versions for the
//! same reason.
//!
//! One concern per file: this one holds the entry point and the state the
//! others share (position, errors, nesting, numbers); `strings.rs` reads
//! strings and byte strings, `skip.rs` skips values (ignored members,
//! `RawValue`s), `methods.rs` is the `serde::Deserializer` implementation,
//! `access.rs` the sequence, map, key and enum accessors. `tagged.rs` is
//! not part of this deserializer: it is the serde codec of the
//! `type`-tagged unions (`tagged_union!`), which works with any
//! `Deserializer`.

mod access;
mod methods;
mod serde_json_internals;
mod skip;
mod strings;
pub(crate) mod tagged;
#[cfg(test)]
mod tests;

use serde::de::{self, Unexpected, Visitor};
use serde_json::Error;
use serde_json::de::StrRead;

use serde_json_internals::{MAX_DEPTH, strip};

/// Parses `text` (one JSON value, optionally surrounded by whitespace) as
/// `T`.
///
/// Errors: the text is not JSON, has something after its value, nests
/// deeper than 128, or is not a `T`.
pub(crate) fn from_str<'de, T: de::Deserialize<'de>>(text: &'de str) -> Result<T, Error> {
    let mut de = Deserializer {
        text,
        pos: 0,
        depth: MAX_DEPTH,
        scratch: String::new(),
        raw: Vec::new(),
    };
    let value = T::deserialize(&mut de).map_err(|e| de.locate(e))?;
    de.skip_whitespace();
    if de.pos < de.text.len() {
        return Err(de.error("trailing characters"));
    }
    Ok(value)
}

struct Deserializer<'de> {
    text: &'de str,
    /// Byte offset of the next unread byte.
    pos: usize,
    /// How many more arrays or objects may open.
    depth: u16,
    /// Decoded text of the last string that held an escape.
    scratch: String,
    /// Decoded bytes of the last byte string that held an escape.
    raw: Vec<u8>,
}

/// serde_json's deserializer over one number's text.
type Inner<'de> = serde_json::Deserializer<StrRead<'de>>;

/// A string as parsed: straight from the input, or decoded into scratch.
enum Text<'de, 's> {
    Borrowed(&'de str),
    Decoded(&'s str),
}

impl<'de> Text<'de, '_> {
    /// Visits the string, borrowed from the input when it can be.
    #[inline]
    fn visit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Text::Borrowed(s) => visitor.visit_borrowed_str(s),
            Text::Decoded(s) => visitor.visit_str(s),
        }
    }
}

impl<'de> Deserializer<'de> {
    fn bytes(&self) -> &'de [u8] {
        self.text.as_bytes()
    }

    fn error(&self, msg: &str) -> Error {
        de::Error::custom(format!("{msg} at byte {}", self.pos))
    }

    /// Adds the offset to an error raised without one (by a visitor).
    fn locate(&self, e: Error) -> Error {
        if e.line() == 0 && !has_offset(&e.to_string()) {
            de::Error::custom(format!("{e} at byte {}", self.pos))
        } else {
            e
        }
    }

    fn skip_whitespace(&mut self) {
        let bytes = self.bytes();
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The next byte that is not whitespace, not consumed.
    #[inline]
    fn peek(&mut self) -> Result<u8, Error> {
        // Compact JSON: no whitespace to skip.
        if let Some(&b) = self.bytes().get(self.pos)
            && b > b' '
        {
            return Ok(b);
        }
        self.skip_whitespace();
        self.bytes()
            .get(self.pos)
            .copied()
            .ok_or_else(|| self.error("EOF while parsing a value"))
    }

    fn expect_literal(&mut self, literal: &'static [u8]) -> Result<(), Error> {
        if self.bytes()[self.pos..].starts_with(literal) {
            self.pos += literal.len();
            Ok(())
        } else {
            Err(self.error("expected value"))
        }
    }

    /// The text of the number at `self.pos` (consumed): the longest run of
    /// bytes a JSON number can hold; serde_json checks its grammar.
    fn number_text(&mut self) -> &'de str {
        let bytes = self.bytes();
        let start = self.pos;
        let mut end = start;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = bytes.get(end) {
            end += 1;
        }
        self.pos = end;
        &self.text[start..end]
    }

    /// Hands the number at `self.pos` to serde_json's deserializer method
    /// `method` (the one the caller was asked for), so that its value is
    /// exactly serde_json's.
    fn number<V, F>(&mut self, visitor: V, method: F) -> Result<V::Value, Error>
    where
        V: Visitor<'de>,
        F: FnOnce(&mut Inner<'de>, V) -> Result<V::Value, Error>,
    {
        let start = self.pos;
        let text = self.number_text();
        let mut inner = serde_json::Deserializer::from_str(text);
        let value = method(&mut inner, visitor).and_then(|v| inner.end().map(|()| v));
        value.map_err(|e| {
            if e.line() == 0 {
                // The visitor refused the number's type: not positioned.
                e
            } else {
                de::Error::custom(format!("{} (number `{text}`) at byte {start}", strip(&e)))
            }
        })
    }

    /// Consumes one nesting level, or fails past the limit.
    fn enter(&mut self) -> Result<(), Error> {
        match self.depth.checked_sub(1).filter(|&d| d > 0) {
            Some(d) => {
                self.depth = d;
                self.pos += 1;
                Ok(())
            }
            None => Err(self.error("recursion limit exceeded")),
        }
    }

    fn leave(&mut self, close: u8) -> Result<(), Error> {
        self.depth += 1;
        match self.peek()? {
            b if b == close => {
                self.pos += 1;
                Ok(())
            }
            b',' => Err(self.error("trailing characters")),
            _ => Err(self.error(separator_expected(close))),
        }
    }

    /// The error for a value (starting with `b`, at `self.pos`) that the
    /// method asked for cannot be: serde_json's invalid-type error.
    fn invalid_type(&self, b: u8, exp: &dyn de::Expected) -> Error {
        let unexpected = match b {
            b'n' => Unexpected::Unit,
            b't' => Unexpected::Bool(true),
            b'f' => Unexpected::Bool(false),
            b'"' => Unexpected::Other("string"),
            b'[' => Unexpected::Seq,
            b'{' => Unexpected::Map,
            b'-' | b'0'..=b'9' => Unexpected::Other("number"),
            _ => return self.error("expected value"),
        };
        let e: Error = de::Error::invalid_type(unexpected, exp);
        self.error(&e.to_string())
    }
}

/// `true` when `message` ends with ` at byte N`, as this module's errors do.
fn has_offset(message: &str) -> bool {
    match message.rfind(" at byte ") {
        Some(i) => {
            let digits = &message[i + " at byte ".len()..];
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// The error text for a byte that is neither `,` nor `close`.
#[inline]
fn separator_expected(close: u8) -> &'static str {
    if close == b']' {
        "expected `,` or `]`"
    } else {
        "expected `,` or `}`"
    }
}
