//! The accessors a visitor reads a compound value through: array
//! elements, object members, a member name (which may be read as a number
//! or a boolean, as serde_json reads keys), and the two shapes of an
//! externally tagged enum.

use serde::de::{
    self, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, Unexpected, VariantAccess, Visitor,
};
use serde_json::Error;

use super::serde_json_internals::RAW_VALUE_TOKEN;
use super::{Deserializer, Text, separator_expected};

/// The elements of an array, after its `[`.
pub(super) struct Elements<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    pub(super) first: bool,
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
pub(super) struct Members<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    pub(super) first: bool,
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
pub(super) struct Variant<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
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
pub(super) struct UnitVariant<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
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
