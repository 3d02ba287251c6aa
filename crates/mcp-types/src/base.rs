//! Shared base types (spec: `basic/index`; schema `ProgressToken`, `Cursor`,
//! `_meta`, `Implementation`, `Icon`, `Annotations`, `Role`,
//! `PaginatedRequestParams`, `PaginatedResult`, `ResultType`,
//! `CacheableResult`).
//!
//! Also holds the helpers the type modules use for them: `open_enum!`
//! string enums that keep unknown values, `impl_paginated!`, and the compact
//! number serializers. The `type`-tagged union codec is in `de/tagged.rs`.

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
/// let p = mcp_types::with_params_meta(Some(json!({"name": "x"})), |meta| {
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
    fn take_problems(&mut self) -> Vec<crate::entry_problem::EntryProblem> {
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
            fn take_problems(&mut self) -> Vec<$crate::entry_problem::EntryProblem> {
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
