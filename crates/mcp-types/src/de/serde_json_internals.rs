//! What the deserializer takes from serde_json beyond its public API, in
//! one place: the name of the private newtype a `RawValue` is
//! deserialized through, serde_json's recursion limit, and the shape of its
//! error messages (a positioned error ends with ` at line L column C`; an
//! error made with `de::Error::custom` or `invalid_type` has no position,
//! `line() == 0`). None of these is promised by serde_json's semver, so
//! the root `Cargo.toml` bounds the serde_json versions, and the tests
//! below fail, naming the internal, when the serde_json in use differs.

use serde_json::Error;

/// serde_json's recursion limit, kept so that the same texts are accepted:
/// at most `MAX_DEPTH - 1` arrays and objects open at once.
pub(super) const MAX_DEPTH: u16 = 128;

/// The name serde_json gives the newtype it deserializes a `RawValue` from.
pub(super) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// serde_json's message without its ` at line L column C` suffix.
pub(super) fn strip(e: &Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

/// These tests check serde_json itself, not our code: each fails with a
/// message that names the internal the deserializer relies on, so that a
/// serde_json release that changed it is recognised at once (rather than
/// through a disagreement in the property tests far from the cause).
#[cfg(test)]
mod tests {
    use serde::de::{self, Deserialize, Visitor};
    use serde_json::Value;
    use serde_json::value::RawValue;

    use super::*;

    /// Says which serde_json internal changed and what depends on it.
    fn changed(what: &str, consequence: &str) -> String {
        format!(
            "the serde_json in use is not the one mcp-types' deserializer (src/de) was \
             written against: {what}. {consequence} Check the serde_json version range in \
             the root Cargo.toml and adapt src/de/serde_json_internals.rs."
        )
    }

    /// A deserializer that only records the name of the newtype struct it
    /// is asked for.
    struct NewtypeName<'a>(&'a mut Option<&'static str>);

    impl<'de> de::Deserializer<'de> for NewtypeName<'_> {
        type Error = de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a newtype struct"))
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = Some(name);
            Err(de::Error::custom("name recorded"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct seq tuple tuple_struct map
            struct enum identifier ignored_any
        }
    }

    #[test]
    fn raw_value_is_deserialized_through_the_token_we_recognise() {
        let mut boxed = None;
        let _ = Box::<RawValue>::deserialize(NewtypeName(&mut boxed));
        let mut borrowed = None;
        let _ = <&RawValue>::deserialize(NewtypeName(&mut borrowed));
        for (what, name) in [("Box<RawValue>", boxed), ("&RawValue", borrowed)] {
            assert_eq!(
                name,
                Some(RAW_VALUE_TOKEN),
                "{}",
                changed(
                    &format!(
                        "{what} no longer asks for the newtype struct {RAW_VALUE_TOKEN:?} \
                         (it asked for {name:?})"
                    ),
                    "A RawValue in a type parsed with RawResult::parse would no longer \
                     decode."
                )
            );
        }
    }

    #[test]
    fn positioned_errors_end_with_line_and_column() {
        for text in ["[1,", "{\"a\" 1}", "\"\\x\"", "01", "[1] 2"] {
            let e = serde_json::from_str::<Value>(text).unwrap_err();
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            let message = e.to_string();
            assert!(
                e.line() > 0 && message.ends_with(&suffix),
                "{}",
                changed(
                    &format!(
                        "its error for {text:?} reads {message:?}, not \"… at line L column C\""
                    ),
                    "The deserializer's error messages would carry serde_json's position \
                     text instead of their own byte offset."
                )
            );
            assert_eq!(
                strip(&e),
                message[..message.len() - suffix.len()],
                "{}",
                changed(
                    &format!(
                        "its position suffix is not where strip() looks for it in {message:?}"
                    ),
                    "The deserializer's messages for bad numbers would lose text or keep \
                     serde_json's position."
                )
            );
        }
    }

    #[test]
    fn errors_made_by_custom_and_invalid_type_have_no_position() {
        let custom = <Error as de::Error>::custom("plain");
        let invalid = <Error as de::Error>::invalid_type(de::Unexpected::Bool(true), &"a string");
        for e in [custom, invalid] {
            assert!(
                e.line() == 0 && e.column() == 0 && !e.to_string().contains(" at line "),
                "{}",
                changed(
                    &format!("an error made by de::Error has a position: {e:?}"),
                    "The deserializer tells its own errors (to which it adds a byte \
                     offset) from serde_json's positioned ones by line() == 0."
                )
            );
        }
    }

    #[test]
    fn the_recursion_limit_is_max_depth() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let depth = usize::from(MAX_DEPTH);
        let within = serde_json::from_str::<Value>(&nested(depth - 1));
        let past = serde_json::from_str::<Value>(&nested(depth));
        assert!(
            within.is_ok()
                && past
                    .as_ref()
                    .is_err_and(|e| e.to_string().starts_with("recursion limit exceeded")),
            "{}",
            changed(
                &format!(
                    "its recursion limit is no longer {MAX_DEPTH} ({} nested arrays: \
                     {within:?}; {depth}: {past:?})",
                    depth - 1
                ),
                "The deserializer would accept or refuse other texts than \
                 serde_json::from_str."
            )
        );
    }
}
