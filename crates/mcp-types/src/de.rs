//! A JSON deserializer for [`RawResult::parse`](crate::raw::RawResult::parse):
//! serde's data model over text that is already known to be UTF-8, with
//! strings scanned 64 bytes per step by the JSON writer's escape test
//! (vector code, no `unsafe`; short strings two 8-byte words first) rather
//! than eight bytes at a time. Measured (benchmarks): in a 100 KiB
//! `tools/call`, serde_json's string scan was the largest single cost of
//! the client (about 245 K instructions of 740 K; 564 K in all with this
//! deserializer).
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

use serde::de::{
    self, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, Unexpected, VariantAccess, Visitor,
};
use serde_json::Error;
use serde_json::de::StrRead;

use crate::json_write::first_special;

/// serde_json's recursion limit, kept so that the same texts are accepted:
/// at most `MAX_DEPTH - 1` arrays and objects open at once.
const MAX_DEPTH: u16 = 128;

/// The name serde_json gives the newtype it deserializes a `RawValue` from.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

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

    /// Parses the string whose opening quote is at `self.pos`.
    fn parse_str<'s>(&'s mut self) -> Result<Text<'de, 's>, Error> {
        self.pos += 1;
        let start = self.pos;
        let mut segment = start;
        let mut escaped = false;
        loop {
            let end = self.find_quote_or_backslash()?;
            if self.bytes()[end] == b'"' {
                self.pos = end + 1;
                let tail = &self.text[segment..end];
                if !escaped {
                    return Ok(Text::Borrowed(tail));
                }
                self.scratch.push_str(tail);
                return Ok(Text::Decoded(&self.scratch));
            }
            if !escaped {
                self.scratch.clear();
                escaped = true;
            }
            self.scratch.push_str(&self.text[segment..end]);
            self.pos = end + 1;
            self.parse_escape()?;
            segment = self.pos;
        }
    }

    /// The offset of the next `"` or `\` from `self.pos`; an unescaped
    /// control character before it, or no such byte, is an error.
    fn find_quote_or_backslash(&mut self) -> Result<usize, Error> {
        let bytes = self.bytes();
        let Some(i) = first_special(&bytes[self.pos..]) else {
            self.pos = bytes.len();
            return Err(self.error("EOF while parsing a string"));
        };
        let end = self.pos + i;
        match bytes[end] {
            b'"' | b'\\' => Ok(end),
            _ => {
                self.pos = end;
                Err(self.error("control character (\\u0000-\\u001F) found while parsing a string"))
            }
        }
    }

    /// Decodes the escape after a `\` (at `self.pos - 1`) into scratch.
    fn parse_escape(&mut self) -> Result<(), Error> {
        let Some(&b) = self.bytes().get(self.pos) else {
            return Err(self.error("EOF while parsing a string"));
        };
        self.pos += 1;
        if b == b'u' {
            return self.parse_unicode_escape();
        }
        let Some(c) = simple_escape(b) else {
            self.pos -= 1;
            return Err(self.error("invalid escape"));
        };
        self.scratch.push(char::from(c));
        Ok(())
    }

    /// `\uXXXX`, with the `\u` consumed. A surrogate pair is its character;
    /// a surrogate without its pair (a high one not followed by `\u` and a
    /// low one, or a low one alone) is U+FFFD, as `JSON.parse` and Python's
    /// `json.loads` read it (RFC 8259 § 8.2 leaves this open): JavaScript
    /// servers write them when they cut a string between the two halves, and
    /// one such character must not cost the whole message. The escape after
    /// an unpaired high surrogate is decoded on its own.
    fn parse_unicode_escape(&mut self) -> Result<(), Error> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                let after_high = self.pos;
                if !self.bytes()[self.pos..].starts_with(b"\\u") {
                    self.scratch.push(char::REPLACEMENT_CHARACTER);
                    return Ok(());
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    self.pos = after_high;
                    self.scratch.push(char::REPLACEMENT_CHARACTER);
                    return Ok(());
                }
                0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(second) - 0xDC00)
            }
            0xDC00..=0xDFFF => {
                self.scratch.push(char::REPLACEMENT_CHARACTER);
                return Ok(());
            }
            other => u32::from(other),
        };
        match char::from_u32(code) {
            Some(c) => {
                self.scratch.push(c);
                Ok(())
            }
            None => Err(self.error("invalid unicode code point")),
        }
    }

    fn hex4(&mut self) -> Result<u16, Error> {
        let Some(digits) = self.bytes().get(self.pos..self.pos + 4) else {
            self.pos = self.text.len();
            return Err(self.error("EOF while parsing a string"));
        };
        let mut n = 0u16;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.error("invalid escape")),
            };
            n = (n << 4) | u16::from(v);
        }
        self.pos += 4;
        Ok(n)
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

    /// Skips one value as serde_json's `ignore_value` does: its grammar is
    /// checked, not what it holds (any `\uXXXX`, numbers of any size), and
    /// nesting is followed on a heap stack, without a limit.
    fn ignore_value(&mut self) -> Result<(), Error> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            match self.peek()? {
                b'n' => self.expect_literal(b"null")?,
                b't' => self.expect_literal(b"true")?,
                b'f' => self.expect_literal(b"false")?,
                b'-' | b'0'..=b'9' => self.ignore_number()?,
                b'"' => self.ignore_str()?,
                b @ (b'[' | b'{') => {
                    self.pos += 1;
                    let close = if b == b'[' { b']' } else { b'}' };
                    if self.peek()? == close {
                        self.pos += 1;
                    } else {
                        open.push(close);
                        if close == b'}' {
                            self.ignore_key()?;
                        }
                        continue;
                    }
                }
                _ => return Err(self.error("expected value")),
            }
            // After a value: close what ends here, or take a comma.
            loop {
                let Some(&close) = open.last() else {
                    return Ok(());
                };
                match self.peek()? {
                    b',' => {
                        self.pos += 1;
                        if close == b'}' {
                            self.ignore_key()?;
                        }
                        break;
                    }
                    b if b == close => {
                        self.pos += 1;
                        open.pop();
                    }
                    _ => return Err(self.error(separator_expected(close))),
                }
            }
        }
    }

    /// A member name and its colon, skipped.
    fn ignore_key(&mut self) -> Result<(), Error> {
        if self.peek()? != b'"' {
            return Err(self.error("key must be a string"));
        }
        self.ignore_str()?;
        if self.peek()? != b':' {
            return Err(self.error("expected `:`"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Skips the string whose opening quote is at `self.pos`: escapes must
    /// be well formed, surrogates need not pair.
    fn ignore_str(&mut self) -> Result<(), Error> {
        self.pos += 1;
        loop {
            let end = self.find_quote_or_backslash()?;
            self.pos = end + 1;
            if self.bytes()[end] == b'"' {
                return Ok(());
            }
            match self.bytes().get(self.pos) {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.pos += 1,
                Some(b'u') => {
                    self.pos += 1;
                    self.hex4()?;
                }
                Some(_) => return Err(self.error("invalid escape")),
            }
        }
    }

    /// Skips the number at `self.pos`, checking its grammar only.
    fn ignore_number(&mut self) -> Result<(), Error> {
        let bytes = self.bytes();
        let digits = |mut i: usize| {
            while let Some(b'0'..=b'9') = bytes.get(i) {
                i += 1;
            }
            i
        };
        let mut i = self.pos + usize::from(bytes[self.pos] == b'-');
        i = match bytes.get(i) {
            Some(b'0') => i + 1,
            Some(b'1'..=b'9') => digits(i + 1),
            _ => return Err(self.error("invalid number")),
        };
        if bytes.get(i) == Some(&b'.') {
            let end = digits(i + 1);
            if end == i + 1 {
                return Err(self.error("invalid number"));
            }
            i = end;
        }
        if let Some(b'e' | b'E') = bytes.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = bytes.get(i) {
                i += 1;
            }
            let end = digits(i);
            if end == i {
                return Err(self.error("invalid number"));
            }
            i = end;
        }
        if let Some(b'0'..=b'9') = bytes.get(i) {
            // A second leading zero.
            return Err(self.error("invalid number"));
        }
        self.pos = i;
        Ok(())
    }

    /// A `RawValue`: the text of the value at `self.pos` (skipped as
    /// serde_json skips it), handed to serde_json.
    fn raw_value<V: Visitor<'de>>(
        &mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.skip_whitespace();
        let start = self.pos;
        self.ignore_value()?;
        let mut inner = serde_json::Deserializer::from_str(&self.text[start..self.pos]);
        de::Deserializer::deserialize_newtype_struct(&mut inner, name, visitor)
    }

    /// The byte string whose opening quote is at `self.pos`, as serde_json
    /// reads one for `deserialize_bytes`: control characters as they are,
    /// `\uXXXX` surrogates that do not pair as WTF-8.
    fn visit_byte_string<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        self.pos += 1;
        let bytes = self.bytes();
        let mut segment = self.pos;
        let mut escaped = false;
        loop {
            let Some(i) = memchr::memchr2(b'"', b'\\', &bytes[self.pos..]) else {
                self.pos = bytes.len();
                return Err(self.error("EOF while parsing a string"));
            };
            let end = self.pos + i;
            if !escaped && bytes[end] == b'"' {
                self.pos = end + 1;
                return visitor.visit_borrowed_bytes(&bytes[segment..end]);
            }
            if !escaped {
                self.raw.clear();
                escaped = true;
            }
            self.raw.extend_from_slice(&bytes[segment..end]);
            self.pos = end + 1;
            if bytes[end] == b'"' {
                return visitor.visit_bytes(&self.raw);
            }
            self.parse_raw_escape()?;
            segment = self.pos;
        }
    }

    /// Decodes the escape after a `\` into `raw`, surrogates allowed.
    fn parse_raw_escape(&mut self) -> Result<(), Error> {
        let Some(&b) = self.bytes().get(self.pos) else {
            return Err(self.error("EOF while parsing a string"));
        };
        self.pos += 1;
        if b == b'u' {
            return self.parse_raw_unicode_escape();
        }
        let Some(c) = simple_escape(b) else {
            self.pos -= 1;
            return Err(self.error("invalid escape"));
        };
        self.raw.push(c);
        Ok(())
    }

    /// `\uXXXX` into `raw`, with the `\u` consumed: a surrogate pair as its
    /// character, a surrogate without its pair as WTF-8.
    fn parse_raw_unicode_escape(&mut self) -> Result<(), Error> {
        let mut first = self.hex4()?;
        loop {
            if !(0xD800..=0xDBFF).contains(&first) {
                push_wtf8(&mut self.raw, u32::from(first));
                return Ok(());
            }
            match self.bytes().get(self.pos) {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'\\') => self.pos += 1,
                Some(_) => {
                    push_wtf8(&mut self.raw, u32::from(first));
                    return Ok(());
                }
            }
            match self.bytes().get(self.pos) {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'u') => self.pos += 1,
                Some(_) => {
                    // Another escape, not `\u`: it cannot recurse here.
                    push_wtf8(&mut self.raw, u32::from(first));
                    return self.parse_raw_escape();
                }
            }
            let second = self.hex4()?;
            if !(0xDC00..=0xDFFF).contains(&second) {
                push_wtf8(&mut self.raw, u32::from(first));
                first = second;
                continue;
            }
            let code = 0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(second) - 0xDC00);
            push_wtf8(&mut self.raw, code);
            return Ok(());
        }
    }
}

/// The byte a one-letter escape (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`,
/// `\t`) stands for, from the letter after the backslash.
fn simple_escape(letter: u8) -> Option<u8> {
    Some(match letter {
        b'"' | b'\\' | b'/' => letter,
        b'b' => 0x08,
        b'f' => 0x0C,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        _ => return None,
    })
}

/// Appends code point `n` (at most U+10FFFF, maybe a surrogate) as UTF-8,
/// or WTF-8 for a surrogate.
fn push_wtf8(out: &mut Vec<u8>, n: u32) {
    match char::from_u32(n) {
        Some(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        // A surrogate: three bytes, as UTF-8 would write it.
        None => out.extend_from_slice(&[
            0xE0 | (n >> 12) as u8,
            0x80 | ((n >> 6) & 0x3F) as u8,
            0x80 | (n & 0x3F) as u8,
        ]),
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

/// serde_json's message without its ` at line L column C` suffix.
fn strip(e: &Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

/// Typed number methods: a number goes to serde_json's method of the same
/// name, anything else is of the wrong type.
macro_rules! numbers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.peek()? {
                b'-' | b'0'..=b'9' => {
                    self.number(visitor, |d, v| de::Deserializer::$method(d, v))
                }
                b => Err(self.invalid_type(b, &visitor)),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'n' => {
                self.expect_literal(b"null")?;
                visitor.visit_unit()
            }
            b't' => {
                self.expect_literal(b"true")?;
                visitor.visit_bool(true)
            }
            b'f' => {
                self.expect_literal(b"false")?;
                visitor.visit_bool(false)
            }
            b'"' => self.parse_str()?.visit(visitor),
            b'-' | b'0'..=b'9' => {
                self.number(visitor, |d, v| de::Deserializer::deserialize_any(d, v))
            }
            b'[' => {
                self.enter()?;
                let value = visitor.visit_seq(Elements {
                    de: self,
                    first: true,
                })?;
                self.leave(b']')?;
                Ok(value)
            }
            b'{' => {
                self.enter()?;
                let value = visitor.visit_map(Members {
                    de: self,
                    first: true,
                })?;
                self.leave(b'}')?;
                Ok(value)
            }
            _ => Err(self.error("expected value")),
        }
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b't' | b'f' => self.deserialize_any(visitor),
            b => Err(self.invalid_type(b, &visitor)),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'"' => self.deserialize_any(visitor),
            b => Err(self.invalid_type(b, &visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'n' => self.deserialize_any(visitor),
            b => Err(self.invalid_type(b, &visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'[' => self.deserialize_any(visitor),
            b => Err(self.invalid_type(b, &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'{' => self.deserialize_any(visitor),
            b => Err(self.invalid_type(b, &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.peek()? {
            b'[' | b'{' => self.deserialize_any(visitor),
            b => Err(self.invalid_type(b, &visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.ignore_value()?;
        visitor.visit_unit()
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.peek()? == b'n' {
            self.expect_literal(b"null")?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == RAW_VALUE_TOKEN {
            return self.raw_value(name, visitor);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.peek()? {
            b'"' => visitor.visit_enum(UnitVariant { de: self }),
            b'{' => {
                self.enter()?;
                let value = visitor.visit_enum(Variant { de: self })?;
                self.leave(b'}')?;
                Ok(value)
            }
            _ => Err(self.error("expected value")),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'"' => self.visit_byte_string(visitor),
            b'[' => self.deserialize_any(visitor),
            b => Err(self.invalid_type(b, &visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }
}

/// The elements of an array, after its `[`.
struct Elements<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: bool,
}

impl<'de> SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.de.peek()? {
            b']' => return Ok(None),
            b',' if !self.first => {
                self.de.pos += 1;
                if self.de.peek()? == b']' {
                    return Err(self.de.error("trailing comma"));
                }
            }
            _ if self.first => {}
            _ => return Err(self.de.error(separator_expected(b']'))),
        }
        self.first = false;
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// The members of an object, after its `{`.
struct Members<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: bool,
}

impl<'de> MapAccess<'de> for Members<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.de.peek()? {
            b'}' => return Ok(None),
            b',' if !self.first => {
                self.de.pos += 1;
                match self.de.peek()? {
                    b'}' => return Err(self.de.error("trailing comma")),
                    b'"' => {}
                    _ => return Err(self.de.error("key must be a string")),
                }
            }
            b'"' if self.first => {}
            _ if self.first => return Err(self.de.error("key must be a string")),
            _ => return Err(self.de.error(separator_expected(b'}'))),
        }
        self.first = false;
        seed.deserialize(Key { de: &mut *self.de }).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        if self.de.peek()? != b':' {
            return Err(self.de.error("expected `:`"));
        }
        self.de.pos += 1;
        seed.deserialize(&mut *self.de)
    }
}

/// An object's member name (its opening quote next): a string, or, for a
/// map keyed by numbers or booleans, the number or boolean it spells (as
/// serde_json reads keys).
struct Key<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

/// Number methods on a key: the key's characters, between its quotes,
/// must be the number itself (no escapes, no whitespace), read by
/// serde_json's method of the same name.
macro_rules! number_keys {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            let de = self.de;
            let Some(b'-' | b'0'..=b'9') = de.bytes().get(de.pos + 1) else {
                de.pos += 1;
                return Err(de.error("expected a number between the key's quotes"));
            };
            de.pos += 1;
            let value = de.number(visitor, |d, v| de::Deserializer::$method(d, v))?;
            if de.bytes().get(de.pos) != Some(&b'"') {
                return Err(de.error("expected `\"` after the number in the key"));
            }
            de.pos += 1;
            Ok(value)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.de.parse_str()?.visit(visitor)
    }

    number_keys! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    /// `"true"` or `"false"`, exactly.
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let de = self.de;
        let rest = &de.bytes()[de.pos + 1..];
        if rest.starts_with(b"true\"") {
            de.pos += 6;
            visitor.visit_bool(true)
        } else if rest.starts_with(b"false\"") {
            de.pos += 7;
            visitor.visit_bool(false)
        } else {
            let start = de.pos;
            let e = match de.parse_str()? {
                Text::Borrowed(s) | Text::Decoded(s) => {
                    <Error as de::Error>::invalid_type(Unexpected::Str(s), &visitor)
                }
            };
            Err(de::Error::custom(format!("{e} (key) at byte {start}")))
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == RAW_VALUE_TOKEN {
            return self.de.raw_value(name, visitor);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_enum(&mut *self.de, name, variants, visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.de.visit_byte_string(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.de.visit_byte_string(visitor)
    }

    serde::forward_to_deserialize_any! {
        char str string unit unit_struct seq tuple tuple_struct map struct identifier
        ignored_any
    }
}

/// An externally tagged enum written as `{"Variant": content}`, after its
/// `{`.
struct Variant<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

impl<'de> EnumAccess<'de> for Variant<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        // As serde_json: the name is read by the deserializer itself (a
        // derived enum asks for an identifier: a string).
        let variant = seed.deserialize(&mut *self.de)?;
        if self.de.peek()? != b':' {
            return Err(self.de.error("expected `:`"));
        }
        self.de.pos += 1;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        de::Deserialize::deserialize(&mut *self.de)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(&mut *self.de)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
    }
}

/// An enum written as a string: a unit variant's name.
struct UnitVariant<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

impl<'de> EnumAccess<'de> for UnitVariant<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let variant = seed.deserialize(&mut *self.de)?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for UnitVariant<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value, Error> {
        Err(de::Error::invalid_type(
            Unexpected::UnitVariant,
            &"newtype variant",
        ))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, Error> {
        Err(de::Error::invalid_type(
            Unexpected::UnitVariant,
            &"tuple variant",
        ))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Error> {
        Err(de::Error::invalid_type(
            Unexpected::UnitVariant,
            &"struct variant",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn both(text: &str) -> (Result<Value, Error>, Result<Value, Error>) {
        (from_str::<Value>(text), serde_json::from_str::<Value>(text))
    }

    #[test]
    fn agrees_with_serde_json_on_values() {
        for text in [
            r#"{"a":1,"b":[true,false,null],"c":"x\"y\\z\u00e9\ud83d\ude00","d":-0,"e":1.5e3}"#,
            "  [ ]  ",
            "{}",
            "-0",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1e308",
            "0.1",
            r#""\/\b\f\n\r\t""#,
            r#""é😀 plain""#,
        ] {
            let (ours, theirs) = both(text);
            let (ours, theirs) = (ours.unwrap(), theirs.unwrap());
            assert_eq!(ours, theirs, "{text}");
            // -0 and friends: compare the exact numbers too.
            assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
        }
    }

    /// serde_json refuses lone surrogate escapes in a string; we read each
    /// as U+FFFD, as `JSON.parse` does, and keep pairs.
    #[test]
    fn lone_surrogates_read_as_replacement_characters() {
        for (text, want) in [
            ("\"\\ud800\"", "\u{fffd}"),
            ("\"\\udc00x\"", "\u{fffd}x"),
            ("\"\\ud800\\u0041\"", "\u{fffd}A"),
            ("\"\\ud83d\\ud83d\\ude00\"", "\u{fffd}\u{1f600}"),
            ("\"a\\ud83d\"", "a\u{fffd}"),
            ("\"\\ud83d\\n\"", "\u{fffd}\n"),
            ("\"\\ud83d\\ude00\\udc00\"", "\u{1f600}\u{fffd}"),
        ] {
            assert!(serde_json::from_str::<String>(text).is_err(), "{text}");
            assert_eq!(from_str::<String>(text).unwrap(), want, "{text}");
            let value: serde_json::Value = from_str(text).unwrap();
            assert_eq!(value, want, "{text}");
        }
        // A broken second escape is still refused.
        assert!(from_str::<String>("\"\\ud800\\u12\"").is_err());
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for text in [
            "",
            "[1,]",
            "{\"a\":1,}",
            "[1 2]",
            "{\"a\" 1}",
            "{1:2}",
            "\"\\x\"",
            "\"a\u{1}b\"",
            "\"unterminated",
            "1e400",
            "01",
            "1.",
            "-",
            "nul",
            "truex",
            "[1] 2",
            "[",
            "{\"a\":1",
        ] {
            let (ours, theirs) = both(text);
            assert!(theirs.is_err(), "serde_json takes {text:?}");
            assert!(ours.is_err(), "we take {text:?}: {ours:?}");
        }
    }

    #[test]
    fn a_control_character_past_the_short_scan_is_refused_with_its_offset() {
        let text = format!("\"{}\u{7}{}\"", "a".repeat(100), "b".repeat(100));
        let e = from_str::<String>(&text).unwrap_err();
        assert!(e.to_string().contains("control character"), "{e}");
        assert!(e.to_string().ends_with("at byte 101"), "{e}");
    }

    #[test]
    fn long_strings_with_escapes_decode() {
        let s = format!(
            "{}\"\\{}\n{}",
            "x".repeat(70),
            "y".repeat(40),
            "é".repeat(50)
        );
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(from_str::<String>(&text).unwrap(), s);
    }

    #[test]
    fn unescaped_strings_are_borrowed() {
        let text = r#"{"k":"borrowed"}"#;
        #[derive(serde::Deserialize)]
        struct B<'a> {
            #[serde(borrow)]
            k: &'a str,
        }
        assert_eq!(from_str::<B<'_>>(text).unwrap().k, "borrowed");
    }

    #[test]
    fn nesting_is_limited_like_serde_json() {
        let ok = format!("{}{}", "[".repeat(127), "]".repeat(127));
        let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert!(from_str::<Value>(&ok).is_ok());
        assert!(serde_json::from_str::<Value>(&ok).is_ok());
        let e = from_str::<Value>(&deep).unwrap_err();
        assert!(e.to_string().contains("recursion limit"), "{e}");
        assert!(serde_json::from_str::<Value>(&deep).is_err());
        // A very deep text fails without exhausting the stack.
        let huge = "[".repeat(1_000_000);
        assert!(from_str::<Value>(&huge).is_err());
    }

    #[test]
    fn typed_errors_carry_the_offset() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct T {
            n: u8,
        }
        let e = from_str::<T>(r#"{"n":300}"#).unwrap_err();
        assert!(e.to_string().contains("300"), "{e}");
        assert!(e.to_string().contains("at byte"), "{e}");
        let e = from_str::<T>(r#"{"m":1}"#).unwrap_err();
        assert!(e.to_string().starts_with("missing field `n`"), "{e}");
    }

    #[test]
    fn enums_options_keys_and_raw_values() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        enum E {
            Unit,
            New(u32),
            Tuple(u8, u8),
            Struct { a: bool },
        }
        let v: Vec<E> =
            from_str(r#"["Unit",{"New":7},{"Tuple":[1,2]},{"Struct":{"a":true}},{"Unit":null}]"#)
                .unwrap();
        assert_eq!(
            v,
            [
                E::Unit,
                E::New(7),
                E::Tuple(1, 2),
                E::Struct { a: true },
                E::Unit
            ]
        );
        let o: Vec<Option<u8>> = from_str("[null, 3]").unwrap();
        assert_eq!(o, [None, Some(3)]);
        let m: std::collections::BTreeMap<u32, bool> =
            from_str(r#"{"1":true,"20":false}"#).unwrap();
        assert_eq!(m.into_iter().collect::<Vec<_>>(), [(1, true), (20, false)]);
        assert!(from_str::<std::collections::BTreeMap<u32, bool>>(r#"{"x":true}"#).is_err());
        #[derive(serde::Deserialize)]
        struct R {
            raw: Box<serde_json::value::RawValue>,
            after: u8,
        }
        let r: R = from_str(r#"{"raw": {"x": [1, "two"]} ,"after":5}"#).unwrap();
        assert_eq!(r.raw.get(), r#"{"x": [1, "two"]}"#);
        assert_eq!(r.after, 5);
        assert_eq!(
            from_str::<Value>(&json!({"k": [1, 2]}).to_string()).unwrap(),
            json!({"k": [1, 2]})
        );
    }
}
