//! The value encoding of the 2026-07-28 request-metadata headers
//! (`Mcp-Name`, `Mcp-Param-{Name}`; spec 2026-07-28 `basic/transports`
//! § Request Metadata, Value Encoding).
//!
//! A value that is plain header-safe ASCII (visible characters and inner
//! spaces, no leading or trailing whitespace) is sent as it is. Anything
//! else — non-ASCII text, control characters, leading or trailing
//! whitespace — and any plain value that itself looks like an encoded one
//! is sent as `=?base64?{Base64(UTF-8 bytes)}?=` (standard alphabet with
//! padding, lowercase markers). No I/O here.

/// The prefix of an encoded value.
pub const ENCODED_PREFIX: &str = "=?base64?";
/// The suffix of an encoded value.
pub const ENCODED_SUFFIX: &str = "?=";

/// `true` when `value` can go into a header as it is: only visible ASCII
/// and spaces (0x20–0x7E), no leading or trailing space or tab. The empty
/// string is plain.
pub fn is_plain(value: &str) -> bool {
    value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !value.starts_with([' ', '\t'])
        && !value.ends_with([' ', '\t'])
}

/// `true` when `value` has the shape of an encoded value.
fn looks_encoded(value: &str) -> bool {
    value.len() >= ENCODED_PREFIX.len() + ENCODED_SUFFIX.len()
        && value.starts_with(ENCODED_PREFIX)
        && value.ends_with(ENCODED_SUFFIX)
}

/// Encodes one request-metadata header value (see the module docs). The
/// result is always visible ASCII, so it is a valid HTTP field value.
///
/// ```
/// use mcp_transport_http::header_value::encode;
/// assert_eq!(encode("get_weather"), "get_weather");
/// assert_eq!(encode("Zürich"), "=?base64?WsO8cmljaA==?=");
/// assert_eq!(encode(" padded"), "=?base64?IHBhZGRlZA==?=");
/// ```
pub fn encode(value: &str) -> String {
    if is_plain(value) && !looks_encoded(value) {
        return value.to_owned();
    }
    let mut out = String::with_capacity(ENCODED_PREFIX.len() + value.len() * 4 / 3 + 6);
    out.push_str(ENCODED_PREFIX);
    base64_into(value.as_bytes(), &mut out);
    out.push_str(ENCODED_SUFFIX);
    out
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard Base64 (RFC 4648 § 4) with `=` padding.
fn base64_into(bytes: &[u8], out: &mut String) {
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let sextet = |shift: u32| char::from(ALPHABET[((n >> shift) & 0x3f) as usize]);
        out.push(sextet(18));
        out.push(sextet(12));
        out.push(if chunk.len() > 1 { sextet(6) } else { '=' });
        out.push(if chunk.len() > 2 { sextet(0) } else { '=' });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &[u8]) -> String {
        let mut out = String::new();
        base64_into(s, &mut out);
        out
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        assert_eq!(b64(b""), "");
        assert_eq!(b64(b"f"), "Zg==");
        assert_eq!(b64(b"fo"), "Zm8=");
        assert_eq!(b64(b"foo"), "Zm9v");
        assert_eq!(b64(b"foob"), "Zm9vYg==");
        assert_eq!(b64(b"fooba"), "Zm9vYmE=");
        assert_eq!(b64(b"foobar"), "Zm9vYmFy");
        assert_eq!(b64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn plain_values_are_sent_as_they_are() {
        for v in [
            "echo",
            "file:///a b/c.txt",
            "",
            "us-west1",
            "a=?b",
            "=?base64?",
        ] {
            assert_eq!(encode(v), v, "{v:?}");
        }
    }

    #[test]
    fn unsafe_values_are_base64_encoded() {
        assert_eq!(encode("日本"), "=?base64?5pel5pys?=");
        assert_eq!(encode("line\nbreak"), "=?base64?bGluZQpicmVhaw==?=");
        assert_eq!(encode("tab\there"), "=?base64?dGFiCWhlcmU=?=");
        assert_eq!(encode("trailing "), "=?base64?dHJhaWxpbmcg?=");
        assert_eq!(encode("\tlead"), "=?base64?CWxlYWQ=?=");
        assert_eq!(encode("del\u{7f}"), "=?base64?ZGVsfw==?=");
    }

    #[test]
    fn a_plain_value_that_looks_encoded_is_encoded_again() {
        assert_eq!(encode("=?base64?SGk=?="), "=?base64?PT9iYXNlNjQ/U0drPT89?=");
        assert_eq!(encode("=?base64??="), "=?base64?PT9iYXNlNjQ/Pz0=?=");
    }

    #[test]
    fn encoded_values_are_valid_header_values() {
        for v in ["Zürich", "\u{0}", " x ", "emoji 🚀", "=?base64?x?="] {
            let e = encode(v);
            assert!(http::HeaderValue::try_from(e.as_str()).is_ok(), "{e}");
            assert!(is_plain(&e));
        }
    }
}
