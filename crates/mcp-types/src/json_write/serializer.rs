//! A `serde::Serializer` that writes compact JSON with this crate's
//! writer: strings through [`super::string`] (runs between escapes copied
//! whole: serde_json's serializer looks at every byte of a string, 2.6
//! times the instructions of a 100 KiB argument), numbers with
//! serde_json's own formatting. The output is what `serde_json::to_vec`
//! writes for the same value, byte for byte; so is what it accepts (map
//! keys that are strings, chars, integers, booleans or finite floats,
//! `serde_json::value::RawValue` written as it is).
//!
//! It reports the JSON type of the value it wrote, so a caller can check
//! the type of what it serialized without building it as a
//! `serde_json::Value` first.

use serde::ser::{self, Serialize};
use serde_json::Error;

use super::string;
use key::KeyWriter;
use raw::RawWriter;

mod key;
mod raw;

/// The name under which `serde_json::value::RawValue` serializes itself
/// (a struct with one field of that name holding its JSON text). A
/// serde_json internal; the test `raw_values_are_written_as_they_are`
/// fails if it changes.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The type of a JSON value, as JSON Schema names it: `null`, `boolean`,
/// `number`, `string`, `array`, `object`.
pub(crate) type JsonType = &'static str;

/// Writes `value` as compact JSON at the end of `out` and returns its
/// JSON type. On error, `out` holds part of the value.
///
/// Errors: what the value's `Serialize` reports, a map key that is not a
/// string, char, integer, boolean or finite float.
pub(crate) fn write<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> Result<JsonType, Error> {
    value.serialize(Writer { out })
}

/// The serializer; see the module docs.
pub(crate) struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

impl Writer<'_> {
    /// A number with serde_json's formatting (itoa, and its float format).
    fn number<N: Serialize>(self, n: N) -> Result<JsonType, Error> {
        serde_json::to_writer(&mut *self.out, &n)?;
        Ok("number")
    }

    /// A float: `null` when not finite, as serde_json writes it.
    fn float<N: Serialize>(self, n: N, finite: bool) -> Result<JsonType, Error> {
        if finite {
            self.number(n)
        } else {
            self.out.extend_from_slice(b"null");
            Ok("null")
        }
    }

    /// `{"variant":` before an enum variant's content.
    fn open_variant(&mut self, variant: &str) {
        self.out.push(b'{');
        string(self.out, variant);
        self.out.push(b':');
    }
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = JsonType;
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<JsonType, Error> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok("boolean")
    }

    fn serialize_i8(self, v: i8) -> Result<JsonType, Error> {
        self.number(v)
    }

    fn serialize_i16(self, v: i16) -> Result<JsonType, Error> {
        self.number(v)
    }

    fn serialize_i32(self, v: i32) -> Result<JsonType, Error> {
        self.number(v)
    }

    fn serialize_i64(self, v: i64) -> Result<JsonType, Error> {
        self.number(v)
    }

    fn serialize_i128(self, v: i128) -> Result<JsonType, Error> {
        self.number(v)
    }

    fn serialize_u8(self, v: u8) -> Result<JsonType, Error> {
        self.number(v)
    }

    fn serialize_u16(self, v: u16) -> Result<JsonType, Error> {
        self.number(v)
    }

    fn serialize_u32(self, v: u32) -> Result<JsonType, Error> {
        self.number(v)
    }

    fn serialize_u64(self, v: u64) -> Result<JsonType, Error> {
        self.number(v)
    }

    fn serialize_u128(self, v: u128) -> Result<JsonType, Error> {
        self.number(v)
    }

    fn serialize_f32(self, v: f32) -> Result<JsonType, Error> {
        self.float(v, v.is_finite())
    }

    fn serialize_f64(self, v: f64) -> Result<JsonType, Error> {
        self.float(v, v.is_finite())
    }

    fn serialize_char(self, v: char) -> Result<JsonType, Error> {
        string(self.out, v.encode_utf8(&mut [0u8; 4]));
        Ok("string")
    }

    fn serialize_str(self, v: &str) -> Result<JsonType, Error> {
        string(self.out, v);
        Ok("string")
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<JsonType, Error> {
        // As serde_json: an array of numbers.
        let mut seq = ser::Serializer::serialize_seq(self, Some(v.len()))?;
        for b in v {
            ser::SerializeSeq::serialize_element(&mut seq, b)?;
        }
        ser::SerializeSeq::end(seq)
    }

    fn serialize_none(self) -> Result<JsonType, Error> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<JsonType, Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<JsonType, Error> {
        self.out.extend_from_slice(b"null");
        Ok("null")
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<JsonType, Error> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<JsonType, Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<JsonType, Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<JsonType, Error> {
        self.open_variant(variant);
        value.serialize(Writer {
            out: &mut *self.out,
        })?;
        self.out.push(b'}');
        Ok("object")
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        self.out.push(b'[');
        Ok(Compound::new(self.out, Shape::Array))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.open_variant(variant);
        self.out.push(b'[');
        Ok(Compound::new(self.out, Shape::ArrayInVariant))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        self.out.push(b'{');
        Ok(Compound::new(self.out, Shape::Object))
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a>, Error> {
        if name == RAW_VALUE_TOKEN {
            return Ok(Compound::new(self.out, Shape::Raw("null")));
        }
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.open_variant(variant);
        self.out.push(b'{');
        Ok(Compound::new(self.out, Shape::ObjectInVariant))
    }
}

/// What a [`Compound`] is writing.
#[derive(Clone, Copy)]
enum Shape {
    Array,
    /// `[…]` inside `{"variant":…}`.
    ArrayInVariant,
    Object,
    /// `{…}` inside `{"variant":…}`.
    ObjectInVariant,
    /// A `RawValue`, written as it is; its JSON type once written.
    Raw(JsonType),
}

/// An array or object being written, member by member.
pub(crate) struct Compound<'a> {
    out: &'a mut Vec<u8>,
    shape: Shape,
    first: bool,
}

impl<'a> Compound<'a> {
    fn new(out: &'a mut Vec<u8>, shape: Shape) -> Self {
        Compound {
            out,
            shape,
            first: true,
        }
    }

    fn comma(&mut self) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.comma();
        value.serialize(Writer {
            out: &mut *self.out,
        })?;
        Ok(())
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.comma();
        string(self.out, key);
        self.out.push(b':');
        value.serialize(Writer {
            out: &mut *self.out,
        })?;
        Ok(())
    }

    fn close(self) -> Result<JsonType, Error> {
        Ok(match self.shape {
            Shape::Array => {
                self.out.push(b']');
                "array"
            }
            Shape::ArrayInVariant => {
                self.out.extend_from_slice(b"]}");
                "object"
            }
            Shape::Object => {
                self.out.push(b'}');
                "object"
            }
            Shape::ObjectInVariant => {
                self.out.extend_from_slice(b"}}");
                "object"
            }
            Shape::Raw(kind) => kind,
        })
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = JsonType;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }

    fn end(self) -> Result<JsonType, Error> {
        self.close()
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = JsonType;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }

    fn end(self) -> Result<JsonType, Error> {
        self.close()
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = JsonType;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }

    fn end(self) -> Result<JsonType, Error> {
        self.close()
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = JsonType;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }

    fn end(self) -> Result<JsonType, Error> {
        self.close()
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = JsonType;
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.comma();
        key.serialize(KeyWriter {
            out: &mut *self.out,
        })
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.out.push(b':');
        value.serialize(Writer {
            out: &mut *self.out,
        })?;
        Ok(())
    }

    fn end(self) -> Result<JsonType, Error> {
        self.close()
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = JsonType;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        if let Shape::Raw(_) = self.shape {
            let kind = value.serialize(RawWriter {
                out: &mut *self.out,
            })?;
            self.shape = Shape::Raw(kind);
            return Ok(());
        }
        self.member(key, value)
    }

    fn end(self) -> Result<JsonType, Error> {
        self.close()
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = JsonType;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.member(key, value)
    }

    fn end(self) -> Result<JsonType, Error> {
        self.close()
    }
}

#[cfg(test)]
mod tests;
