//! WHATWG event-stream parser (HTML Living Standard, "Server-sent events":
//! "Parsing an event stream" and "Interpreting an event stream").
//!
//! Pure framing and interpretation, no I/O: the transport feeds the bytes of a
//! `text/event-stream` response body to an [`SseParser`] as they arrive and
//! gets back complete [`SseEvent`]s. MCP uses these streams for the Streamable
//! HTTP transport (a POST reply or the standalone GET stream) and for the
//! legacy HTTP+SSE transport.
//!
//! What the parser implements, exactly as WHATWG says:
//!
//! - line ends LF, CRLF and lone CR, also when a CRLF is split across two
//!   chunks (it is then one line end, not a blank line);
//! - one leading UTF-8 BOM (`EF BB BF`) is stripped at stream start, also when
//!   its bytes are split across chunks;
//! - `data` lines are joined with `"\n"`; exactly one U+0020 after the colon
//!   is removed; a line without a colon is a field name with an empty value;
//!   lines starting with `:` are comments (counted, see
//!   [`SseParser::comments_seen`]); `event` sets the event type (default
//!   `"message"`); `id` sets the last event ID unless the value holds a NUL;
//!   `retry` sets the reconnection time in ms if the value is only ASCII
//!   digits; other fields are ignored;
//! - a blank line dispatches the event, unless no `data` line was seen (then
//!   only the last event ID is updated); an event with one empty `data:` line
//!   *is* dispatched with data `""` (an MCP priming event, SEP-1699);
//! - the data is UTF-8 decoded after framing, so characters split across
//!   chunks are intact; invalid sequences become U+FFFD (WHATWG "UTF-8
//!   decode"). Data and ids are [`Utf8Bytes`]: shared buffers that are
//!   always valid UTF-8;
//! - an event still open at end of stream is discarded; [`SseParser::finish`]
//!   says whether that happened ([`SseEnd`]).
//!
//! Zero-copy: fed with [`SseParser::feed_bytes`] (a body chunk as
//! [`bytes::Bytes`]), an event whose single `data` line lies within one chunk
//! carries a slice of that chunk as its data, and the last event ID is a
//! slice too, shared by the parser and the events (only an `id` line changes
//! it). Only data split across chunks or spread over several `data` lines is
//! copied. [`SseParser::feed`] takes `&[u8]` and copies what it keeps.
//!
//! Bounded: an event (its accumulated data plus the line being read) may not
//! exceed [`SseLimits::max_event_size`] bytes (default 64 MiB). Past that the
//! parser yields [`SseError::EventTooLarge`] once, discards the event, skips to
//! the next blank line and then carries on. A comment line is counted but its
//! text is never kept, so it is not limited (a keep-alive line of any length
//! costs no memory and loses no event).
//!
//! # Example
//!
//! ```
//! use mcp_transport_http::sse::{SseEnd, SseLimits, SseParser};
//!
//! let mut parser = SseParser::new(SseLimits::default());
//! let mut out = Vec::new();
//! parser.feed(b"id: 7\r\ndata: {\"jsonrpc\":", &mut out);
//! assert!(out.is_empty()); // event not complete yet
//! parser.feed(b"\"2.0\"}\r\n\r\n: keep-alive\n\n", &mut out);
//! let event = out.remove(0).expect("within limits");
//! assert_eq!(event.event_type, "message");
//! assert_eq!(event.data, "{\"jsonrpc\":\"2.0\"}");
//! assert_eq!(parser.last_event_id(), Some("7"));
//! assert_eq!(parser.comments_seen(), 1);
//! assert_eq!(parser.finish(), SseEnd::Complete);
//! ```

mod error;
mod event;
mod interpret;
mod limits;
mod parser;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
mod text;

pub use error::SseError;
pub use event::{SseEnd, SseEvent};
pub use limits::SseLimits;
pub use parser::SseParser;
pub use text::Utf8Bytes;
