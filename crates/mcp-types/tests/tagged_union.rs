//! The `type`-tagged unions (`ContentBlock`, `SamplingContentBlock`,
//! `CompletionReference`): the discriminator may come first (streamed into
//! the variant) or anywhere else (members gathered first), with the same
//! result; an unknown one keeps the raw JSON; a missing, non-string or
//! repeated one is an error. Each case goes through the three decoders a
//! result meets: `serde_json::from_str`, this crate's own deserializer
//! (`RawResult::parse`) and `serde_json::from_value` (owned keys).
#![allow(missing_docs)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use bytes::Bytes;
use mcp_types::RawResult;
use mcp_types::completion::CompletionReference;
use mcp_types::content::ContentBlock;
use mcp_types::content::{AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent};
use mcp_types::sampling::SamplingContentBlock;
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Decodes `text` three ways; all three must agree on success, and on
/// failure all three must fail. Returns the result and the three errors'
/// messages.
fn decode<T: DeserializeOwned + PartialEq + std::fmt::Debug>(text: &str) -> Result<T, Vec<String>> {
    let by_serde_json = serde_json::from_str::<T>(text);
    let by_ours = RawResult::new(Bytes::copy_from_slice(text.as_bytes())).parse::<T>();
    let value: Value = serde_json::from_str(text).expect("test input is JSON");
    let from_value = serde_json::from_value::<T>(value);
    match (by_serde_json, by_ours, from_value) {
        (Ok(a), Ok(b), Ok(c)) => {
            assert_eq!(a, b, "ours differs from serde_json on {text}");
            assert_eq!(a, c, "from_value differs on {text}");
            Ok(a)
        }
        (Err(a), Err(b), Err(c)) => Err(vec![a.to_string(), b.to_string(), c.to_string()]),
        (a, b, c) => panic!("decoders disagree on {text}: {a:?} / {b:?} / {c:?}"),
    }
}

/// [`decode`] without `from_value`, for texts with a repeated member (which
/// parsing into a `Value` would already have merged).
fn decode_text<T: DeserializeOwned + std::fmt::Debug>(text: &str) -> Result<T, Vec<String>> {
    let by_serde_json = serde_json::from_str::<T>(text);
    let by_ours = RawResult::new(Bytes::copy_from_slice(text.as_bytes())).parse::<T>();
    match (by_serde_json, by_ours) {
        (Err(a), Err(b)) => Err(vec![a.to_string(), b.to_string()]),
        (a, b) => panic!("expected both to fail on {text}: {a:?} / {b:?}"),
    }
}

fn errors_mention(errors: &[String], needle: &str) {
    for e in errors {
        assert!(e.contains(needle), "{e:?} should mention {needle:?}");
    }
}

/// Every order of the members gives the same block as the usual order.
#[test]
fn the_discriminator_may_come_anywhere() {
    let orders = [
        r#"{"type":"text","text":"hi","annotations":{"priority":0.5},"_meta":{"k":1},"x-extra":[1,2]}"#,
        r#"{"text":"hi","type":"text","annotations":{"priority":0.5},"_meta":{"k":1},"x-extra":[1,2]}"#,
        r#"{"x-extra":[1,2],"_meta":{"k":1},"annotations":{"priority":0.5},"text":"hi","type":"text"}"#,
        // Escapes in keys and values: owned strings instead of borrowed ones.
        r#"{"t\u0079pe":"t\u0065xt","te\u0078t":"h\u0069","annotations":{"priority":0.5},"_meta":{"k":1},"x-extra":[1,2]}"#,
        r#"{"te\u0078t":"h\u0069","t\u0079pe":"t\u0065xt","annotations":{"priority":0.5},"_meta":{"k":1},"x-extra":[1,2]}"#,
    ];
    let expected: ContentBlock = decode(orders[0]).expect("valid");
    let ContentBlock::Text(text) = &expected else {
        panic!("a text block: {expected:?}")
    };
    assert_eq!(text.text, "hi");
    assert_eq!(text.meta.as_ref().and_then(|m| m.get("k")), Some(&json!(1)));
    assert_eq!(text.extra.get("x-extra"), Some(&json!([1, 2])));
    assert!(text.annotations.is_some());
    assert!(
        !text.extra.contains_key("type"),
        "the tag is not an extra member"
    );
    for order in orders {
        assert_eq!(
            decode::<ContentBlock>(order).expect("valid"),
            expected,
            "{order}"
        );
    }
    // And it writes back as it came, with the tag.
    let written = serde_json::to_value(&expected).expect("serializes");
    assert_eq!(written, serde_json::from_str::<Value>(orders[0]).unwrap());
}

/// Every variant of the three unions decodes in both orders.
#[test]
fn every_variant_in_both_orders() {
    let blocks = [
        json!({"type": "text", "text": "a"}),
        json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
        json!({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}),
        json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
        json!({"type": "resource", "resource": {"uri": "file:///a", "text": "t"}}),
    ];
    for block in &blocks {
        let first = block.to_string();
        let mut members = block.as_object().unwrap().clone();
        let tag = members.remove("type").unwrap();
        let mut last = serde_json::to_string(&members).unwrap();
        last.truncate(last.len() - 1);
        last.push_str(&format!(r#","type":{tag}}}"#));
        let a: ContentBlock = decode(&first).expect("valid");
        assert!(!matches!(a, ContentBlock::Unknown(_)), "{a:?}");
        assert_eq!(decode::<ContentBlock>(&last).expect("valid"), a, "{last}");
        assert_eq!(serde_json::to_value(&a).unwrap(), *block);
        let s: SamplingContentBlock = decode(&first).expect("valid");
        assert_eq!(decode::<SamplingContentBlock>(&last).expect("valid"), s);
    }
    for reference in [
        r#"{"type":"ref/prompt","name":"p"}"#,
        r#"{"name":"p","type":"ref/prompt"}"#,
        r#"{"type":"ref/resource","uri":"file:///{x}"}"#,
        r#"{"uri":"file:///{x}","type":"ref/resource"}"#,
    ] {
        let r: CompletionReference = decode(reference).expect("valid");
        assert!(!format!("{r:?}").starts_with("Unknown"), "{r:?}");
    }
}

/// An unknown discriminator keeps every member, the tag included, whatever
/// the order.
#[test]
fn an_unknown_discriminator_keeps_the_raw_json() {
    let raw = json!({"type": "hologram", "frames": [1, 2], "fps": 60});
    for text in [
        r#"{"type":"hologram","frames":[1,2],"fps":60}"#,
        r#"{"frames":[1,2],"type":"hologram","fps":60}"#,
        r#"{"frames":[1,2],"fps":60,"type":"hologram"}"#,
    ] {
        match decode::<ContentBlock>(text).expect("valid") {
            ContentBlock::Unknown(v) => assert_eq!(v, raw, "{text}"),
            other => panic!("expected Unknown, got {other:?}"),
        }
    }
}

/// A repeated discriminator is refused (as serde refuses a repeated field),
/// wherever the two are; so is a missing or non-string one, and a value
/// that is not an object.
#[test]
fn a_missing_repeated_or_non_string_discriminator_is_an_error() {
    for text in [
        r#"{"type":"text","text":"a","type":"text"}"#,
        r#"{"type":"text","type":"image","text":"a"}"#,
        r#"{"text":"a","type":"text","type":"text"}"#,
        r#"{"type":"hologram","x":1,"type":"hologram"}"#,
        r#"{"x":1,"type":"hologram","type":"text"}"#,
    ] {
        let errors = decode_text::<ContentBlock>(text).expect_err(text);
        errors_mention(&errors, r#"duplicate "type""#);
    }
    for text in [
        r#"{}"#,
        r#"{"text":"a"}"#,
        r#"{"text":"a","annotations":null}"#,
    ] {
        let errors = decode::<ContentBlock>(text).expect_err(text);
        errors_mention(&errors, r#"missing "type""#);
    }
    for text in [
        r#"{"type":1,"text":"a"}"#,
        r#"{"type":null,"text":"a"}"#,
        r#"{"type":{"a":"text"},"text":"a"}"#,
        r#"{"text":"a","type":["text"]}"#,
        r#"{"text":"a","type":true}"#,
    ] {
        let errors = decode::<ContentBlock>(text).expect_err(text);
        errors_mention(&errors, r#""type" must be a string"#);
    }
    for text in [r#""text""#, "[1]", "3", "null"] {
        let errors = decode::<ContentBlock>(text).expect_err(text);
        errors_mention(&errors, "ContentBlock as a JSON object");
    }
}

/// A known discriminator whose members do not fit the variant is an error
/// naming the variant, not an `Unknown` block.
#[test]
fn a_known_variant_that_does_not_decode_is_an_error() {
    for text in [
        r#"{"type":"text"}"#,
        r#"{"type":"text","text":5}"#,
        r#"{"text":5,"type":"text"}"#,
        r#"{"type":"image","data":"AAAA"}"#,
        r#"{"mimeType":"image/png","type":"image"}"#,
    ] {
        let errors = decode::<ContentBlock>(text).expect_err(text);
        for e in &errors {
            assert!(e.starts_with(r#"type ""#), "{e:?} should name the variant");
        }
    }
    // Inside a result, the error carries the offset where parsing stopped.
    let result = r#"{"content":[{"type":"text","text":"ok"},{"type":"text","text":false}]}"#;
    let e = RawResult::new(Bytes::from_static(result.as_bytes()))
        .parse::<mcp_types::tools::CallToolResult>()
        .expect_err("the second block is bad");
    assert!(e.to_string().contains("at byte"), "{e}");
}

/// A repeated member is treated the same whatever the order: a repeated
/// field of the variant is an error (as serde's derive makes it), a
/// repeated member it does not know keeps the last value.
#[test]
fn repeated_members_are_treated_alike_in_every_order() {
    for text in [
        r#"{"type":"text","text":"a","text":"b"}"#,
        r#"{"text":"a","text":"b","type":"text"}"#,
        r#"{"text":"a","type":"text","text":"b"}"#,
    ] {
        let errors = decode_text::<ContentBlock>(text).expect_err(text);
        errors_mention(&errors, "duplicate field `text`");
    }
    for text in [
        r#"{"type":"text","text":"a","x":1,"x":2}"#,
        r#"{"x":1,"x":2,"type":"text","text":"a"}"#,
        r#"{"x":1,"type":"text","x":2,"text":"a"}"#,
    ] {
        let by_ours = RawResult::new(Bytes::copy_from_slice(text.as_bytes()))
            .parse::<ContentBlock>()
            .expect(text);
        assert_eq!(
            serde_json::from_str::<ContentBlock>(text).expect(text),
            by_ours
        );
        let ContentBlock::Text(block) = by_ours else {
            panic!("a text block")
        };
        assert_eq!(block.extra.get("x"), Some(&json!(2)), "{text}");
    }
    for text in [
        r#"{"type":"hologram","x":1,"x":2}"#,
        r#"{"x":1,"x":2,"type":"hologram"}"#,
    ] {
        let block = serde_json::from_str::<ContentBlock>(text).expect(text);
        assert_eq!(
            block,
            ContentBlock::Unknown(json!({"type": "hologram", "x": 2}))
        );
    }
}

/// The plain codec, without streaming (a `Value` first, then the variant
/// from it): the oracle for texts without repeated members.
fn through_a_value(text: &str) -> Result<ContentBlock, ()> {
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(text) else {
        return Err(());
    };
    let tag = match map.get("type") {
        Some(Value::String(tag)) => tag.clone(),
        _ => return Err(()),
    };
    fn variant<T: DeserializeOwned>(map: Map<String, Value>) -> Result<T, ()> {
        serde_json::from_value(Value::Object(map)).map_err(|_| ())
    }
    let known = ["text", "image", "audio", "resource_link", "resource"];
    if known.contains(&tag.as_str()) {
        map.remove("type");
    }
    match tag.as_str() {
        "text" => variant::<TextContent>(map).map(ContentBlock::Text),
        "image" => variant::<ImageContent>(map).map(ContentBlock::Image),
        "audio" => variant::<AudioContent>(map).map(ContentBlock::Audio),
        "resource_link" => variant::<ResourceLink>(map).map(ContentBlock::ResourceLink),
        "resource" => variant::<EmbeddedResource>(map).map(ContentBlock::Resource),
        _ => Ok(ContentBlock::Unknown(Value::Object(map))),
    }
}

fn member_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("text".to_owned()),
        Just("data".to_owned()),
        Just("mimeType".to_owned()),
        Just("uri".to_owned()),
        Just("name".to_owned()),
        Just("resource".to_owned()),
        Just("annotations".to_owned()),
        Just("_meta".to_owned()),
        "[a-z]{1,3}",
    ]
}

fn member_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => "[a-zé\\\\\"]{0,6}".prop_map(Value::from),
        1 => Just(json!({"uri": "file:///a", "text": "t"})),
        1 => Just(json!({"priority": 0.5, "audience": ["user"]})),
        2 => common::json_value(|| "[a-z]{0,3}".boxed()),
    ]
}

fn tag_value() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(Some(json!("text"))),
        Just(Some(json!("image"))),
        Just(Some(json!("audio"))),
        Just(Some(json!("resource_link"))),
        Just(Some(json!("resource"))),
        Just(Some(json!("hologram"))),
        Just(Some(json!(5))),
        Just(Some(Value::Null)),
        Just(None),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Without repeated members, streaming gives exactly what going
    /// through a `Value` gave, wherever the tag is, by all three decoders.
    #[test]
    fn streaming_matches_the_value_codec(
        members in prop::collection::btree_map(member_name(), member_value(), 0..6),
        tag in tag_value(),
        at in any::<prop::sample::Index>(),
        escape_keys in any::<bool>(),
    ) {
        let mut entries: Vec<(String, Value)> =
            members.into_iter().filter(|(k, _)| k != "type").collect();
        if let Some(tag) = tag {
            entries.insert(at.index(entries.len() + 1), ("type".to_owned(), tag));
        }
        let body: Vec<String> = entries
            .iter()
            .map(|(k, v)| {
                let key = if escape_keys {
                    // The same key, escaped: an owned string, not borrowed.
                    k.chars().map(|c| format!("\\u{:04x}", u32::from(c))).collect()
                } else {
                    k.clone()
                };
                format!("\"{key}\":{v}")
            })
            .collect();
        let text = format!("{{{}}}", body.join(","));
        let expected = through_a_value(&text);
        match decode::<ContentBlock>(&text) {
            Ok(block) => prop_assert_eq!(Ok(block), expected, "{}", text),
            Err(errors) => prop_assert!(expected.is_err(), "{} -> {:?}", text, errors),
        }
    }
}
