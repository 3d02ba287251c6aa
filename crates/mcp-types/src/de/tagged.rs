//! The serde codec of the unions discriminated by one string member
//! (`ContentBlock`, `SamplingContentBlock`, `CompletionReference` by
//! `"type"`): the [`tagged_union!`] macro the type modules invoke and the
//! visitors it expands to. Generic over the `Deserializer`, so it serves
//! serde_json and this folder's deserializer alike.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// Serde codec for a union discriminated by one string member (usually
/// `"type"`). Decoding reads the discriminator and decodes the matching
/// struct from the other members; an unknown discriminator gives the
/// `Unknown(Value)` variant with the raw JSON (discriminator included); a
/// known one that does not decode is an error, and so is a discriminator
/// that is missing, not a string, or given twice. Encoding writes the struct
/// and adds the discriminator back.
///
/// When the discriminator is the first member (as servers write it) the
/// other members stream straight into the struct; otherwise they are
/// gathered into a map first ([`TaggedVisitor`]).
macro_rules! tagged_union {
    ($name:ident, $tag:literal, { $( $wire:literal => $variant:ident($ty:ty), )* }) => {
        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( $name::$variant(v) => $crate::de::tagged::serialize_tagged($tag, $wire, v, s), )*
                    $name::Unknown(v) => ::serde::Serialize::serialize(v, s),
                }
            }
        }

        impl $crate::de::tagged::TaggedUnion for $name {
            const NAME: &'static str = stringify!($name);
            const TAG: &'static str = $tag;

            fn is_known(wire: &str) -> bool {
                matches!(wire, $( $wire )|*)
            }

            fn from_members<'de, D: ::serde::Deserializer<'de>>(
                wire: &str,
                members: D,
            ) -> Result<Self, D::Error> {
                match wire {
                    $( $wire => <$ty as ::serde::Deserialize>::deserialize(members).map($name::$variant), )*
                    _ => Err(<D::Error as ::serde::de::Error>::custom("unknown discriminator")),
                }
            }

            fn unknown(members: ::serde_json::Map<String, ::serde_json::Value>) -> Self {
                $name::Unknown(::serde_json::Value::Object(members))
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_map($crate::de::tagged::TaggedVisitor::<$name>::new())
            }
        }
    };
}
pub(crate) use tagged_union;

/// What [`tagged_union!`] generates for a union: its name and discriminator,
/// and how to decode a variant.
pub(crate) trait TaggedUnion: Sized {
    /// The type's name, for errors.
    const NAME: &'static str;
    /// The discriminating member, e.g. `"type"`.
    const TAG: &'static str;
    /// Whether `wire` names a known variant.
    fn is_known(wire: &str) -> bool;
    /// The known variant `wire`, from the members other than the
    /// discriminator (a map).
    fn from_members<'de, D: serde::Deserializer<'de>>(
        wire: &str,
        members: D,
    ) -> Result<Self, D::Error>;
    /// The variant for an unknown discriminator: all members, as received.
    fn unknown(members: Map<String, Value>) -> Self;
}

/// The [`serde::de::Visitor`] of a [`tagged_union!`] type.
pub(crate) struct TaggedVisitor<T>(std::marker::PhantomData<T>);

impl<T> TaggedVisitor<T> {
    pub(crate) fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<'de, T: TaggedUnion> serde::de::Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} as a JSON object", T::NAME)
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<T, M::Error> {
        use serde::de::Error as _;
        let Some(first) = map.next_key::<Text<'de>>()? else {
            return Err(M::Error::custom(format_args!("missing \"{}\"", T::TAG)));
        };
        if first.0 == T::TAG {
            // The usual order: the other members stream into the variant.
            let Text(wire) = map.next_value_seed(TagValue::<T>::new())?;
            let rest = AfterTag::<M, T>::new(map);
            if T::is_known(&wire) {
                return T::from_members(&wire, serde::de::value::MapAccessDeserializer::new(rest))
                    .map_err(|e| M::Error::custom(format_args!("{} \"{wire}\": {e}", T::TAG)));
            }
            let mut members = gather(rest, Map::new())?;
            members.insert(T::TAG.to_owned(), Value::String(wire.into_owned()));
            return Ok(T::unknown(members));
        }
        // The discriminator comes later: gather every member first, in
        // order and repeats included, so that the variant sees what it
        // would have seen streamed.
        let mut members = vec![(first.0.into_owned(), map.next_value::<Value>()?)];
        let mut wire: Option<String> = None;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            if key == T::TAG {
                if wire.is_some() {
                    return Err(M::Error::custom(format_args!("duplicate \"{}\"", T::TAG)));
                }
                wire = Some(map.next_value_seed(TagValue::<T>::new())?.0.into_owned());
            } else {
                members.push((key.into_owned(), map.next_value::<Value>()?));
            }
        }
        let Some(wire) = wire else {
            return Err(M::Error::custom(format_args!("missing \"{}\"", T::TAG)));
        };
        if T::is_known(&wire) {
            let members = serde::de::value::MapDeserializer::new(members.into_iter());
            return T::from_members(&wire, members).map_err(|e: serde_json::Error| {
                M::Error::custom(format_args!("{} \"{wire}\": {e}", T::TAG))
            });
        }
        let mut members: Map<String, Value> = members.into_iter().collect();
        members.insert(T::TAG.to_owned(), Value::String(wire));
        Ok(T::unknown(members))
    }
}

/// A string, borrowed from the input when it has no escapes.
struct Text<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(TextVisitor("a string"))
    }
}

/// Reads a string as [`Text`]; `.0` names it in errors.
struct TextVisitor(&'static str);

impl<'de> serde::de::Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(std::borrow::Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
        Ok(Text(std::borrow::Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Text<'de>, E> {
        Ok(Text(std::borrow::Cow::Owned(v)))
    }
}

/// The discriminator's value: a string, else the error `"type" must be a
/// string`.
struct TagValue<T>(std::marker::PhantomData<T>);

impl<T> TagValue<T> {
    fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<'de, T: TaggedUnion> serde::de::DeserializeSeed<'de> for TagValue<T> {
    type Value = Text<'de>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Text<'de>, D::Error> {
        use serde::de::Error as _;
        // Any value is read whole, so that the error is ours, not the
        // visitor's "invalid type".
        match d.deserialize_any(AnyText)? {
            Some(text) => Ok(text),
            None => Err(D::Error::custom(format_args!(
                "\"{}\" must be a string",
                T::TAG
            ))),
        }
    }
}

/// `Visitor` methods that take a scalar and give `Ok(None)`.
macro_rules! skip_scalars {
    ($( $method:ident: $ty:ty ),* $(,)?) => {
        $(
            fn $method<E>(self, _: $ty) -> Result<Self::Value, E> {
                Ok(None)
            }
        )*
    };
}

/// Any JSON value: `Some` text for a string, `None` (the value skipped)
/// for anything else.
struct AnyText;

impl<'de> serde::de::Visitor<'de> for AnyText {
    type Value = Option<Text<'de>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Text(std::borrow::Cow::Borrowed(v))))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Text(std::borrow::Cow::Owned(v.to_owned()))))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Text(std::borrow::Cow::Owned(v))))
    }

    // Any other scalar: not a string.
    skip_scalars!(
        visit_bool: bool,
        visit_i64: i64,
        visit_u64: u64,
        visit_i128: i128,
        visit_u128: u128,
        visit_f64: f64,
    );

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(None)
    }
}

/// The members after the discriminator, handed to the variant's struct; a
/// second discriminator is an error rather than an unknown member.
struct AfterTag<M, T> {
    map: M,
    union: std::marker::PhantomData<T>,
}

impl<M, T> AfterTag<M, T> {
    fn new(map: M) -> Self {
        Self {
            map,
            union: std::marker::PhantomData,
        }
    }
}

impl<'de, M: serde::de::MapAccess<'de>, T: TaggedUnion> serde::de::MapAccess<'de>
    for AfterTag<M, T>
{
    type Error = M::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, M::Error> {
        use serde::de::Error as _;
        use serde::de::IntoDeserializer as _;
        let Some(Text(key)) = self.map.next_key::<Text<'de>>()? else {
            return Ok(None);
        };
        if key == T::TAG {
            return Err(M::Error::custom(format_args!("duplicate \"{}\"", T::TAG)));
        }
        match key {
            std::borrow::Cow::Borrowed(key) => seed
                .deserialize(serde::de::value::BorrowedStrDeserializer::new(key))
                .map(Some),
            std::borrow::Cow::Owned(key) => seed.deserialize(key.into_deserializer()).map(Some),
        }
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, M::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// The remaining members of `map`, added to `members`.
fn gather<'de, M: serde::de::MapAccess<'de>>(
    mut map: M,
    mut members: Map<String, Value>,
) -> Result<Map<String, Value>, M::Error> {
    while let Some((key, value)) = map.next_entry::<String, Value>()? {
        members.insert(key, value);
    }
    Ok(members)
}

/// Serializes `value` (a struct) as a JSON object with `tag: wire` added.
pub(crate) fn serialize_tagged<T: Serialize, S: Serializer>(
    tag: &str,
    wire: &str,
    value: &T,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::Error as _;
    let mut v = serde_json::to_value(value).map_err(S::Error::custom)?;
    match &mut v {
        Value::Object(map) => {
            map.insert(tag.to_owned(), Value::String(wire.to_owned()));
        }
        _ => return Err(S::Error::custom("a tagged union variant must be an object")),
    }
    v.serialize(s)
}
