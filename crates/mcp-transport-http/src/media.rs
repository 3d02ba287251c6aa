//! Media-type classification of a response's `Content-Type` (RFC 9110
//! § 8.3.1: type and subtype compare case-insensitively; parameters such as
//! `charset` do not change the type).

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
    let essence = value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "application/json" => Media::Json,
        "text/event-stream" => Media::EventStream,
        "" => Media::Missing,
        _ => Media::Other(essence),
    }
}

/// Classifies the `Content-Type` header of `headers`.
pub(crate) fn classify(headers: &HeaderMap) -> Media {
    match headers.get(http::header::CONTENT_TYPE) {
        None => Media::Missing,
        Some(v) => match v.to_str() {
            Ok(s) => classify_value(s),
            Err(_) => Media::Other(String::from_utf8_lossy(v.as_bytes()).into_owned()),
        },
    }
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
}
