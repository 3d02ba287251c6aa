//! Fuzz check of the request-metadata header value encoding
//! (`header_value::encode`, spec 2026-07-28 `basic/transports` § Value
//! Encoding) and of the decoding a server applies to it, with the `base64`
//! crate as the reference Base64.
//!
//! Input: the value (bytes that are not UTF-8 are replaced, as a lossy
//! conversion does, so every input tests a string).
//!
//! Checks: no panic; the encoded value is always a valid HTTP field value
//! of visible ASCII; a value sent as it is was plain and did not look
//! encoded; any other value is `=?base64?…?=` whose middle the reference
//! decodes to the value's UTF-8 bytes; decoding the encoded value as a
//! server does gives the value back.

use base64::Engine as _;
use mcp_transport_http::header_value::{ENCODED_PREFIX, ENCODED_SUFFIX, encode, is_plain};

/// What a server does with a received value: an encoded one is decoded
/// (the reference Base64), any other is taken as it is.
fn server_decode(value: &str) -> Option<String> {
    let inner = value
        .strip_prefix(ENCODED_PREFIX)
        .and_then(|v| v.strip_suffix(ENCODED_SUFFIX));
    match inner {
        Some(b64) if value.len() >= ENCODED_PREFIX.len() + ENCODED_SUFFIX.len() => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            String::from_utf8(bytes).ok()
        }
        _ => Some(value.to_owned()),
    }
}

/// Runs the check on one fuzz input (see the module docs).
pub(crate) fn check(data: &[u8]) {
    let value = String::from_utf8_lossy(data);
    let encoded = encode(&value);
    assert!(is_plain(&encoded), "not plain: {encoded:?}");
    assert!(
        http::HeaderValue::from_str(&encoded).is_ok(),
        "not a field value: {encoded:?}"
    );
    if encoded == value {
        assert!(is_plain(&value));
        assert!(
            !(value.starts_with(ENCODED_PREFIX)
                && value.ends_with(ENCODED_SUFFIX)
                && value.len() >= ENCODED_PREFIX.len() + ENCODED_SUFFIX.len()),
            "a value that looks encoded went as it is: {value:?}"
        );
    } else {
        let inner = encoded
            .strip_prefix(ENCODED_PREFIX)
            .and_then(|v| v.strip_suffix(ENCODED_SUFFIX))
            .unwrap_or_else(|| panic!("neither plain nor encoded: {encoded:?}"));
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(inner)
            .unwrap_or_else(|e| panic!("the reference refuses {inner:?}: {e}"));
        assert_eq!(bytes, value.as_bytes());
    }
    assert_eq!(
        server_decode(&encoded).as_deref(),
        Some(&*value),
        "a server reads back another value"
    );
}
