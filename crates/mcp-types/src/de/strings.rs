//! Strings: text strings (escapes decoded, borrowed from the input when
//! they hold none, a lone surrogate read as U+FFFD) and byte strings (as
//! serde_json reads them for `deserialize_bytes`: WTF-8 for surrogates).

use serde::de::Visitor;
use serde_json::Error;

use super::{Deserializer, Text};
use crate::json_write::first_special;

impl<'de> Deserializer<'de> {
    /// Parses the string whose opening quote is at `self.pos`.
    pub(super) fn parse_str<'s>(&'s mut self) -> Result<Text<'de, 's>, Error> {
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
    pub(super) fn find_quote_or_backslash(&mut self) -> Result<usize, Error> {
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

    pub(super) fn hex4(&mut self) -> Result<u16, Error> {
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

    /// The byte string whose opening quote is at `self.pos`, as serde_json
    /// reads one for `deserialize_bytes`: control characters as they are,
    /// `\uXXXX` surrogates that do not pair as WTF-8.
    pub(super) fn visit_byte_string<V: Visitor<'de>>(
        &mut self,
        visitor: V,
    ) -> Result<V::Value, Error> {
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
