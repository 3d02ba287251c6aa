//! Faults the fuzz checks found, each pinned outside the fuzzer on the
//! input that showed it (the kept corpus holds it too).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use mcp_types::{DecodeError, JsonRpcMessage, RequestId, invalid_request};

/// A request whose member names or version are written with escapes is a
/// request to the decoder; the scan that answers an invalid one with
/// `-32600` reads the names the same way, so it is answered rather than
/// left without a response.
#[test]
fn an_invalid_request_with_escaped_member_names_is_still_a_request() {
    for frame in [
        br#"{"jsonrpc":"2.0","m\u0065thod":5,"id":2}"#.as_slice(),
        br#"{"jsonrp\u0063":"2.0","method":5,"id":2}"#,
        br#"{"jsonrpc":"2\u002e0","method":5,"\u0069d":2}"#,
    ] {
        assert_eq!(
            JsonRpcMessage::decode(frame),
            Err(DecodeError::BadMethod),
            "{}",
            String::from_utf8_lossy(frame)
        );
        assert_eq!(
            invalid_request(frame),
            Some(Some(RequestId::Number(2))),
            "{}",
            String::from_utf8_lossy(frame)
        );
    }
    // Escapes that spell another name stay another name.
    assert_eq!(
        invalid_request(br#"{"jsonrpc":"2.0","m\u0065thods":5,"id":2}"#),
        None
    );
}
