//! Map keys: JSON keys are strings, and serde_json also takes chars,
//! integers, booleans and finite floats as keys, written in quotes.

use serde::ser::{self, Impossible, Serialize};
use serde_json::Error;

use crate::json_write::string;

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

/// Writes a map key: a string, or what serde_json also takes as one
/// (chars, integers, booleans, finite floats), in quotes.
pub(super) struct KeyWriter<'a> {
    pub(super) out: &'a mut Vec<u8>,
}

impl KeyWriter<'_> {
    /// `n` in quotes, formatted as serde_json formats it.
    fn quoted<N: Serialize>(self, n: N) -> Result<(), Error> {
        self.out.push(b'"');
        serde_json::to_writer(&mut *self.out, &n)?;
        self.out.push(b'"');
        Ok(())
    }
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out
            .extend_from_slice(if v { b"\"true\"" } else { b"\"false\"" });
        Ok(())
    }

    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.quoted(v)
    }

    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.quoted(v)
    }

    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.quoted(v)
    }

    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.quoted(v)
    }

    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.quoted(v)
    }

    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.quoted(v)
    }

    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.quoted(v)
    }

    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.quoted(v)
    }

    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.quoted(v)
    }

    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.quoted(v)
    }

    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(ser::Error::custom("float key must be finite"));
        }
        self.quoted(v)
    }

    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(ser::Error::custom("float key must be finite"));
        }
        self.quoted(v)
    }

    fn serialize_char(self, v: char) -> Result<(), Error> {
        string(self.out, v.encode_utf8(&mut [0u8; 4]));
        Ok(())
    }

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        string(self.out, v);
        Ok(())
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_none(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_a_string())
    }
}
