//! `serde_json::value::RawValue`: JSON text written as it is.

use serde::ser::{self, Impossible, Serialize};
use serde_json::Error;

/// The JSON type of a value, as JSON Schema names it.
type JsonType = &'static str;

/// Writes the JSON text of a `RawValue` as it is, and tells its type
/// from its first byte (the text is JSON: serde_json checked it).
pub(super) struct RawWriter<'a> {
    pub(super) out: &'a mut Vec<u8>,
}

impl RawWriter<'_> {
    fn text(self, json: &str) -> JsonType {
        self.out.extend_from_slice(json.as_bytes());
        match json.trim_start().as_bytes().first() {
            Some(b'{') => "object",
            Some(b'[') => "array",
            Some(b'"') => "string",
            Some(b't' | b'f') => "boolean",
            Some(b'n') | None => "null",
            Some(_) => "number",
        }
    }
}

fn not_raw_json() -> Error {
    ser::Error::custom("a RawValue holds a string")
}

/// Methods of [`RawWriter`] for what a `RawValue` never holds.
macro_rules! not_raw {
    ($($name:ident($($ty:ty),*);)*) => {
        $(fn $name(self, $(_: $ty),*) -> Result<JsonType, Error> {
            Err(not_raw_json())
        })*
    };
}

impl ser::Serializer for RawWriter<'_> {
    type Ok = JsonType;
    type Error = Error;
    type SerializeSeq = Impossible<JsonType, Error>;
    type SerializeTuple = Impossible<JsonType, Error>;
    type SerializeTupleStruct = Impossible<JsonType, Error>;
    type SerializeTupleVariant = Impossible<JsonType, Error>;
    type SerializeMap = Impossible<JsonType, Error>;
    type SerializeStruct = Impossible<JsonType, Error>;
    type SerializeStructVariant = Impossible<JsonType, Error>;

    fn serialize_str(self, v: &str) -> Result<JsonType, Error> {
        Ok(self.text(v))
    }

    not_raw! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_f32(f32);
        serialize_f64(f64);
    }

    fn serialize_char(self, _v: char) -> Result<JsonType, Error> {
        Err(not_raw_json())
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result<JsonType, Error> {
        Err(not_raw_json())
    }

    fn serialize_none(self) -> Result<JsonType, Error> {
        Err(not_raw_json())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<JsonType, Error> {
        Err(not_raw_json())
    }

    fn serialize_unit(self) -> Result<JsonType, Error> {
        Err(not_raw_json())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<JsonType, Error> {
        Err(not_raw_json())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
    ) -> Result<JsonType, Error> {
        Err(not_raw_json())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Result<JsonType, Error> {
        Err(not_raw_json())
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<JsonType, Error> {
        Err(not_raw_json())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_raw_json())
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_raw_json())
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_raw_json())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_raw_json())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(not_raw_json())
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(not_raw_json())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_raw_json())
    }
}
