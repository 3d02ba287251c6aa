//! Skipping a value as serde_json skips it (ignored members, `IgnoredAny`,
//! the text of a `RawValue`): grammar only, without a nesting limit and
//! without recursion.

use serde::de::{self, Visitor};
use serde_json::Error;

use super::{Deserializer, separator_expected};

impl<'de> Deserializer<'de> {
    /// Skips one value as serde_json's `ignore_value` does: its grammar is
    /// checked, not what it holds (any `\uXXXX`, numbers of any size), and
    /// nesting is followed on a heap stack, without a limit.
    pub(super) fn ignore_value(&mut self) -> Result<(), Error> {
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
    pub(super) fn raw_value<V: Visitor<'de>>(
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
}
