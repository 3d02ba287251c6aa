//! The `serde::Deserializer` implementation: one method per type a
//! `Deserialize` asks for, each with serde_json's own rules for it.

use serde::de::{self, Visitor};
use serde_json::Error;

use super::Deserializer;
use super::access::{Elements, Members, UnitVariant, Variant};
use super::serde_json_internals::RAW_VALUE_TOKEN;

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
