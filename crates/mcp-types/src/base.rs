//! Shared base types (spec: `basic/index`; schema `ProgressToken`, `Cursor`,
//! `_meta`, `Implementation`, `Icon`, `Annotations`, `Role`,
//! `PaginatedRequestParams`, `PaginatedResult`, `ResultType`,
//! `CacheableResult`).
//!
//! Also holds the two helpers every other module uses: `open_enum!`-style
//! string enums that keep unknown values, and the `type`-tagged union codec.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::jsonrpc::RequestId;

/// The `_meta` object: free-form, keys namespaced by their owner.
pub type Meta = Map<String, Value>;

/// A free-form JSON object (schema `JSONObject`), e.g. an empty capability `{}`.
pub type JsonObject = Map<String, Value>;

/// A progress token (schema `ProgressToken`: string or integer). It has the
/// same shape and equality rules as a [`RequestId`]: `1` and `"1"` differ.
pub type ProgressToken = RequestId;

/// Edits the `_meta` object of request params, creating `params` and
/// `_meta` as needed (spec: `basic/index` § `_meta`).
///
/// Returns the edited params. MCP params are always objects; params of any
/// other shape cannot carry `_meta` and come back unchanged as `Err` so the
/// caller can log it. A `_meta` that is not an object is left as it is.
///
/// ```
/// use serde_json::json;
/// let p = mcp_types::base::with_params_meta(Some(json!({"name": "x"})), |meta| {
///     meta.insert("progressToken".into(), json!(1));
/// });
/// assert_eq!(p, Ok(json!({"name": "x", "_meta": {"progressToken": 1}})));
/// ```
pub fn with_params_meta(
    params: Option<Value>,
    edit: impl FnOnce(&mut Meta),
) -> Result<Value, Value> {
    let mut obj = match params {
        Some(Value::Object(map)) => map,
        Some(other) => return Err(other),
        None => Map::new(),
    };
    let meta = obj
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        edit(meta);
    }
    Ok(Value::Object(obj))
}

/// An opaque pagination cursor (schema `Cursor`).
pub type Cursor = String;

/// `_meta` key (2026-07-28, schema `RequestMetaObject`): the protocol version of a request.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key (2026-07-28): the client's [`crate::lifecycle::ClientCapabilities`].
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key (2026-07-28): the client's [`Implementation`].
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key (2026-07-28): the [`crate::logging::LoggingLevel`] wanted for this request.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key (2026-07-28, schema `ResultMetaObject`): the server's [`Implementation`].
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key (2026-07-28): the subscription a notification belongs to.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key (2025-11-25, schema `RelatedTaskMetadata`): the task a message relates to.
pub const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// `_meta` key (all revisions, schema `RequestParams._meta.progressToken`).
pub const META_PROGRESS_TOKEN: &str = "progressToken";

/// Params of a request that takes none but the optional `_meta`
/// (schema `RequestParams`, e.g. `ping`, `roots/list`, `server/discover`).
/// For list requests see [`PaginatedParams`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of a notification that carries nothing but `_meta` (schema
/// `NotificationParams`), e.g. `notifications/initialized` and the
/// `list_changed` notifications.
pub type NotificationParams = EmptyParams;

/// An empty result, as `ping` returns (schema `EmptyResult`). In 2026-07-28
/// it also carries `resultType`, which lands in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of a paginated list request (schema `PaginatedRequestParams`):
/// `tools/list`, `resources/list`, `resources/templates/list`,
/// `prompts/list`, `tasks/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedParams {
    /// The `nextCursor` of the previous page; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PaginatedParams {
    /// Params asking for the page after `cursor` (`None`: the first page).
    pub fn with_cursor(cursor: Option<Cursor>) -> Self {
        PaginatedParams {
            cursor,
            ..Default::default()
        }
    }
}

/// A page of a list result (schema `PaginatedResult`). Lets a client walk
/// every page of `tools/list`, `resources/list`, … with one generic loop:
/// send [`PaginatedParams::with_cursor`] until [`Paginated::next_cursor`] is
/// `None`.
pub trait Paginated {
    /// The item type, e.g. [`crate::tools::Tool`].
    type Item;
    /// The cursor of the next page; `None` (or an empty string, which some
    /// servers send) means this is the last page.
    fn next_cursor(&self) -> Option<&str>;
    /// Takes the items of this page.
    fn into_items(self) -> Vec<Self::Item>;
    /// Takes the entries of this page that did not decode and were left
    /// out (see [`crate::lenient`]); none by default.
    fn take_problems(&mut self) -> Vec<crate::lenient::EntryProblem> {
        Vec::new()
    }
    /// What identifies an item within a listing (a tool's or prompt's
    /// `name`, a resource's `uri`, a template's `uriTemplate`, a task's
    /// `taskId`): a listing keeps the first item of each identity. `None`
    /// (the default) keeps every item.
    fn item_key(item: &Self::Item) -> Option<&str> {
        let _ = item;
        None
    }
}

/// Implements [`Paginated`] for a list result with `next_cursor`, an item
/// field, a `problems` field and the item's identifying member.
macro_rules! impl_paginated {
    ($ty:ty, $field:ident, $item:ty, $key:ident) => {
        impl $crate::base::Paginated for $ty {
            type Item = $item;
            fn next_cursor(&self) -> Option<&str> {
                self.next_cursor.as_deref().filter(|c| !c.is_empty())
            }
            fn into_items(self) -> Vec<$item> {
                self.$field
            }
            fn take_problems(&mut self) -> Vec<$crate::lenient::EntryProblem> {
                ::std::mem::take(&mut self.problems)
            }
            fn item_key(item: &$item) -> Option<&str> {
                Some(&item.$key)
            }
        }
    };
}
pub(crate) use impl_paginated;

/// A string enum that keeps values this crate does not know in
/// `Other(String)`, so a newer peer's value never fails a whole message.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A value this crate does not know, kept verbatim.
            Other(String),
        }

        impl $name {
            /// The wire string.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $wire, )*
                    $name::Other(s) => s.as_str(),
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $( $wire => $name::$variant, )*
                    other => $name::Other(other.to_owned()),
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(d)?;
                Ok($name::from(s.as_ref()))
            }
        }
    };
}
pub(crate) use open_enum;

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
                    $( $name::$variant(v) => $crate::base::serialize_tagged($tag, $wire, v, s), )*
                    $name::Unknown(v) => ::serde::Serialize::serialize(v, s),
                }
            }
        }

        impl $crate::base::TaggedUnion for $name {
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
                d.deserialize_map($crate::base::TaggedVisitor::<$name>::new())
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

/// Serializes an `f64` as a JSON integer when it has no fractional part
/// (so `"progress": 50` round-trips as `50`, not `50.0`).
pub(crate) fn compact_f64<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64(*v)
    }
}

/// [`compact_f64`] for an optional field (use with `skip_serializing_if`).
pub(crate) fn compact_opt_f64<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => compact_f64(v, s),
        None => s.serialize_none(),
    }
}

/// Describes an MCP implementation, client or server (schema
/// `Implementation`; spec `basic/lifecycle` § Initialization). `title`
/// arrived in 2025-06-18; `description`, `icons` and `websiteUrl` in 2025-11-25.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Human-readable name [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Version string.
    pub version: String,
    /// Human-readable description [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Website URL [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Implementation {
    /// An implementation with a name and version only.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            ..Default::default()
        }
    }
}

/// An icon for display in a user interface (schema `Icon`, 2025-11-25 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// Icon URI: `https:` or `data:`. A client must check the scheme before fetching.
    pub src: String,
    /// MIME type, e.g. `image/png`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes, e.g. `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`: the background the icon is designed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The sender or recipient of a message (schema `Role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `"user"`.
    User,
    /// `"assistant"`.
    Assistant,
}

/// Display hints for content and resources (schema `Annotations`; in
/// 2024-11-05 the `Annotated.annotations` shape). `lastModified` arrived in
/// 2025-06-18.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the content is intended for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp of the last modification [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

open_enum! {
    /// The kind of a result (2026-07-28, schema `ResultType`): `"complete"`
    /// or `"input_required"` (see [`crate::input::InputRequiredResult`]).
    pub enum ResultType {
        /// `"complete"`: the request finished and this is its result.
        Complete = "complete",
        /// `"input_required"`: the server needs input requests answered first.
        InputRequired = "input_required",
    }
}

open_enum! {
    /// Who may reuse a cacheable result (2026-07-28, schema `CacheableResult.cacheScope`).
    pub enum CacheScope {
        /// `"private"`: only this client / user.
        Private = "private",
        /// `"public"`: any client of the server.
        Public = "public",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn open_enum_keeps_unknown() {
        let v: CacheScope = serde_json::from_value(json!("team")).unwrap();
        assert_eq!(v, CacheScope::Other("team".into()));
        assert_eq!(serde_json::to_value(&v).unwrap(), json!("team"));
        let v: ResultType = serde_json::from_value(json!("complete")).unwrap();
        assert_eq!(v, ResultType::Complete);
    }

    #[test]
    fn compact_numbers() {
        let a = Annotations {
            priority: Some(1.0),
            ..Default::default()
        };
        assert_eq!(serde_json::to_value(&a).unwrap(), json!({"priority": 1}));
        let a = Annotations {
            priority: Some(0.5),
            ..Default::default()
        };
        assert_eq!(serde_json::to_value(&a).unwrap(), json!({"priority": 0.5}));
    }
}
