//! Media-type classification of a response's `Content-Type` (RFC 9110
//! § 8.3.1: type and subtype compare case-insensitively; parameters such as
//! `charset` do not change the type), and the other headers of a reply read
//! as text.

use http::HeaderMap;

/// What a response body is, as far as MCP cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Media {
    /// `application/json`.
    Json,
    /// `text/event-stream`.
    EventStream,
    /// Another type, lower-cased without parameters (for errors).
    Other(String),
    /// No `Content-Type` header.
    Missing,
}

/// Classifies a `Content-Type` value.
pub(crate) fn classify_value(value: &str) -> Media {
    let essence = value.split(';').next().unwrap_or_default().trim();
    // Compared without a lower-cased copy: one per reply otherwise.
    if essence.eq_ignore_ascii_case("application/json") {
        Media::Json
    } else if essence.eq_ignore_ascii_case("text/event-stream") {
        Media::EventStream
    } else if essence.is_empty() {
        Media::Missing
    } else {
        Media::Other(essence.to_ascii_lowercase())
    }
}

/// Classifies the `Content-Type` header of `headers`. A body that still
/// has a `Content-Encoding` other than `identity` is `Other`, named with its
/// encoding: replies in the codings the client decodes arrive here decoded
/// (their `Content-Encoding` removed), so one that still has it is in a
/// coding the client cannot read (an error naming the coding, not a parse
/// error).
pub(crate) fn classify(headers: &HeaderMap) -> Media {
    let media = match headers.get(http::header::CONTENT_TYPE) {
        None => Media::Missing,
        Some(v) => match v.to_str() {
            Ok(s) => classify_value(s),
            Err(_) => Media::Other(String::from_utf8_lossy(v.as_bytes()).into_owned()),
        },
    };
    let Some(encoding) = content_encoding(headers) else {
        return media;
    };
    let essence = match media {
        Media::Json => "application/json".to_owned(),
        Media::EventStream => "text/event-stream".to_owned(),
        Media::Other(other) => other,
        Media::Missing => "a body".to_owned(),
    };
    Media::Other(format!(
        "{essence} with Content-Encoding {encoding}: {NOT_DECODED}"
    ))
}

/// Why a coded body was not read.
pub(crate) const NOT_DECODED: &str = concat!(
    "not a coding this client decodes (it sent Accept-Encoding: ",
    "gzip, deflate, br, zstd",
    ")"
);

/// The content codings of a reply in the order they were applied,
/// lower-cased, `identity` left out.
pub(crate) fn content_codings(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(http::header::CONTENT_ENCODING)
        .iter()
        .flat_map(|v| {
            String::from_utf8_lossy(v.as_bytes())
                .split(',')
                .map(|c| c.trim().to_ascii_lowercase())
                .filter(|c| !c.is_empty() && c != "identity")
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The `Content-Encoding` of a reply, codings joined with `", "`, when it
/// is anything but `identity`.
pub(crate) fn content_encoding(headers: &HeaderMap) -> Option<String> {
    let codings = content_codings(headers);
    (!codings.is_empty()).then(|| codings.join(", "))
}

/// The value of header `name` of `headers` as text (bytes outside UTF-8
/// replaced), when present.
pub(crate) fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_and_case_are_ignored() {
        assert_eq!(
            classify_value("text/event-stream; charset=utf-8"),
            Media::EventStream
        );
        assert_eq!(
            classify_value("Text/Event-Stream;charset=UTF-8"),
            Media::EventStream
        );
        assert_eq!(
            classify_value("application/json; charset=\"utf-8\""),
            Media::Json
        );
        assert_eq!(classify_value(" APPLICATION/JSON "), Media::Json);
    }

    #[test]
    fn other_types_are_named() {
        assert_eq!(
            classify_value("text/html; charset=utf-8"),
            Media::Other("text/html".into())
        );
        assert_eq!(classify_value(""), Media::Missing);
        assert_eq!(classify(&HeaderMap::new()), Media::Missing);
    }

    #[test]
    fn the_named_codings_are_the_accepted_ones() {
        assert!(NOT_DECODED.contains(crate::decode::ACCEPT_ENCODING));
    }
}
