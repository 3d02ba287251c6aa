//! The UTF-8 byte order mark (U+FEFF, bytes `EF BB BF`) that some writers
//! put before their text: .NET and Mono servers before their first line on
//! stdout, Windows editors at the start of a saved file, some HTTP
//! frameworks before a JSON body. RFC 8259 § 8.1 lets a JSON reader ignore
//! it, but `serde_json` refuses it, so every place where text enters the
//! stack (a transport's first bytes, a file read) strips it here, the one
//! place that decides how, and says so in one `tracing` warning.
//!
//! Only one mark, and only at the very start, is stripped: a mark anywhere
//! else is part of the text (and makes it invalid JSON, as it should).
//!
//! ```
//! use mcp_transport::bom::strip_bom;
//!
//! let text = b"\xEF\xBB\xBF{\"mcpServers\":{}}";
//! assert_eq!(strip_bom(text, &"servers.json"), b"{\"mcpServers\":{}}");
//! assert_eq!(strip_bom(b"{}", &"servers.json"), b"{}");
//! ```

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

/// The UTF-8 encoding of U+FEFF, the byte order mark: `EF BB BF`.
pub const UTF8_BOM: &[u8; 3] = b"\xEF\xBB\xBF";

/// `text` without one leading UTF-8 byte order mark. When there was one,
/// logs one warning naming `source` (a file's path, "the stdout of stdio
/// server X"), so call it once per stream or file, on its first bytes.
///
/// `source` must not hold a secret: it is logged as it is.
pub fn strip_bom<'a>(text: &'a [u8], source: &dyn fmt::Display) -> &'a [u8] {
    match text.strip_prefix(UTF8_BOM) {
        Some(rest) => {
            warn(source);
            rest
        }
        None => text,
    }
}

/// [`strip_bom`] for text already decoded (a file read as a `String`).
pub fn strip_bom_str<'a>(text: &'a str, source: &dyn fmt::Display) -> &'a str {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => {
            warn(source);
            rest
        }
        None => text,
    }
}

/// [`strip_bom`] for a source that starts many texts (each reply body of
/// an HTTP connection): strips the mark from every one, but warns only
/// while `warned` is `false`, and sets it.
pub fn strip_bom_once<'a>(
    text: &'a [u8],
    source: &dyn fmt::Display,
    warned: &AtomicBool,
) -> &'a [u8] {
    match text.strip_prefix(UTF8_BOM) {
        Some(rest) => {
            if !warned.swap(true, Ordering::Relaxed) {
                warn(source);
            }
            rest
        }
        None => text,
    }
}

fn warn(source: &dyn fmt::Display) {
    tracing::warn!(%source, "a UTF-8 byte order mark (EF BB BF) opened the text; skipped");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_one_leading_mark_only() {
        let source = "test";
        assert_eq!(strip_bom(b"\xEF\xBB\xBF{}", &source), b"{}");
        assert_eq!(strip_bom(b"\xEF\xBB\xBF", &source), b"");
        // A second mark is text.
        assert_eq!(
            strip_bom(b"\xEF\xBB\xBF\xEF\xBB\xBF{}", &source),
            b"\xEF\xBB\xBF{}"
        );
        // Not at the start: kept.
        assert_eq!(strip_bom(b" \xEF\xBB\xBF{}", &source), b" \xEF\xBB\xBF{}");
        // A mark's prefix is not a mark.
        assert_eq!(strip_bom(b"\xEF\xBB{}", &source), b"\xEF\xBB{}");
        assert_eq!(strip_bom(b"", &source), b"");
        assert_eq!(strip_bom_str("\u{feff}{}", &source), "{}");
        assert_eq!(strip_bom_str("\u{feff}\u{feff}", &source), "\u{feff}");
        assert_eq!(strip_bom_str("{}", &source), "{}");
    }

    #[test]
    fn strip_once_strips_every_time_and_sets_the_flag() {
        let warned = AtomicBool::new(false);
        assert_eq!(strip_bom_once(b"{}", &"c", &warned), b"{}");
        assert!(!warned.load(Ordering::Relaxed), "no mark, no warning");
        assert_eq!(strip_bom_once(b"\xEF\xBB\xBF{}", &"c", &warned), b"{}");
        assert!(warned.load(Ordering::Relaxed));
        assert_eq!(strip_bom_once(b"\xEF\xBB\xBF[]", &"c", &warned), b"[]");
    }
}
