//! [`Utf8Bytes`]: UTF-8 text held in shared [`Bytes`], so that an event's
//! `data` and id can be slices of the chunk they arrived in.

use std::fmt;

use bytes::Bytes;

/// UTF-8 text in a [`Bytes`] buffer: an event's `data` or its last event ID.
///
/// The bytes are always valid UTF-8 (the parser applies WHATWG "UTF-8
/// decode": a value that is not valid UTF-8 is replaced, with U+FFFD for each
/// invalid sequence, by a new buffer). Text of up to
/// [`Utf8Bytes::INLINE_CAPACITY`] bytes (a typical event id) is stored
/// inline: copying it is cheaper than sharing. A longer value that lay
/// wholly inside one chunk given to
/// [`SseParser::feed_bytes`](super::SseParser::feed_bytes) is a slice of
/// that chunk: no copy, but it keeps the chunk's allocation alive for as
/// long as it lives. Copy it (`text.to_string()` or
/// `Bytes::copy_from_slice(text.as_bytes())`) to keep a small part of a
/// large chunk for long.
///
/// Cloning is cheap (a reference count, or a copy of the inline bytes).
/// Compare with `&str` directly:
///
/// ```
/// use mcp_transport_http::sse::Utf8Bytes;
///
/// let text = Utf8Bytes::from_static("{\"jsonrpc\":\"2.0\"}");
/// assert_eq!(text, "{\"jsonrpc\":\"2.0\"}");
/// assert_eq!(text.as_str(), "{\"jsonrpc\":\"2.0\"}");
/// assert_eq!(text.len(), 17);
/// ```
#[derive(Clone)]
pub struct Utf8Bytes(Repr);

/// Where the bytes are.
#[derive(Clone)]
enum Repr {
    /// Short text, in place: `bytes.0[..len]` (the bytes after `len` are
    /// unused).
    Inline { len: u8, bytes: InlineBuf },
    /// A shared buffer (possibly a slice of an input chunk).
    Shared(Bytes),
}

/// The inline bytes.
#[derive(Clone, Copy)]
struct InlineBuf([u8; Utf8Bytes::INLINE_CAPACITY]);

impl Utf8Bytes {
    /// Text up to this many bytes long is stored inline, without a shared
    /// buffer.
    pub const INLINE_CAPACITY: usize = 22;

    /// The empty text.
    pub const fn new() -> Self {
        Self(Repr::Inline {
            len: 0,
            bytes: InlineBuf([0; Self::INLINE_CAPACITY]),
        })
    }

    /// Text borrowed from a `'static` string, without a copy.
    pub const fn from_static(text: &'static str) -> Self {
        Self(Repr::Shared(Bytes::from_static(text.as_bytes())))
    }

    /// WHATWG "UTF-8 decode" of `bytes`: the same buffer when it is valid
    /// UTF-8 (checked with an ASCII fast path first), otherwise a new buffer
    /// with U+FFFD for each invalid sequence.
    pub fn decode(bytes: Bytes) -> Self {
        if is_utf8(&bytes) {
            Self(Repr::Shared(bytes))
        } else {
            Self::lossy(&bytes)
        }
    }

    /// WHATWG "UTF-8 decode" of `value`, kept inline when short, else as a
    /// slice of `chunk` (which must hold `value`) or, without a chunk, a
    /// copy.
    pub(super) fn decode_slice(value: &[u8], chunk: Option<&Bytes>) -> Self {
        if !is_utf8(value) {
            return Self::lossy(value);
        }
        if let Some(text) = chunk.and_then(|chunk| Self::inline_window(chunk, value)) {
            return text;
        }
        if let Some(text) = Self::inline(value) {
            return text;
        }
        match chunk.and_then(|chunk| slice_of(chunk, value)) {
            Some(slice) => Self(Repr::Shared(slice)),
            None => Self(Repr::Shared(Bytes::copy_from_slice(value))),
        }
    }

    /// `value` decoded with U+FFFD for invalid sequences, in a new buffer.
    fn lossy(value: &[u8]) -> Self {
        let text = String::from_utf8_lossy(value);
        Self::inline(text.as_bytes())
            .unwrap_or_else(|| Self(Repr::Shared(Bytes::from(text.into_owned()))))
    }

    /// `value` (valid UTF-8) inline, if it fits.
    fn inline(value: &[u8]) -> Option<Self> {
        let len = inline_len(value)?;
        let mut bytes = InlineBuf([0; Self::INLINE_CAPACITY]);
        bytes.0[..value.len()].copy_from_slice(value);
        Some(Self(Repr::Inline { len, bytes }))
    }

    /// `value` (valid UTF-8, lying in `chunk`) inline, if it fits, copied
    /// as the fixed-size window of `chunk` that starts with it, if the
    /// chunk is long enough: that copy is a few whole-word moves, where
    /// copying exactly `value.len()` bytes is a call to `memcpy` whose
    /// narrow stores stall the wide loads that move the result on at once.
    /// The bytes past `value` are never looked at.
    fn inline_window(chunk: &Bytes, value: &[u8]) -> Option<Self> {
        let len = inline_len(value)?;
        let start = value.as_ptr().addr().checked_sub(chunk.as_ptr().addr())?;
        let window = chunk.get(start..)?.first_chunk()?;
        Some(Self(Repr::Inline {
            len,
            bytes: InlineBuf(*window),
        }))
    }

    /// The text as bytes (valid UTF-8).
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => bytes.0.get(..usize::from(*len)).unwrap_or_default(),
            Repr::Shared(bytes) => bytes,
        }
    }

    /// The text as `&str`.
    ///
    /// This validates the bytes again (linear time, fast for ASCII): the
    /// crate has no `unsafe` to skip it. Prefer [`Utf8Bytes::as_bytes`] or
    /// [`Utf8Bytes::into_bytes`] to hand the text on (a JSON decoder checks
    /// UTF-8 itself). Because the bytes are valid UTF-8 by construction, the
    /// check cannot fail; if it somehow did, the result would be `""`.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    /// The text as a [`Bytes`] buffer (valid UTF-8): the shared buffer
    /// without a copy, or a copy of inline text.
    pub fn into_bytes(self) -> Bytes {
        match self.0 {
            Repr::Inline { .. } => Bytes::copy_from_slice(self.as_bytes()),
            Repr::Shared(bytes) => bytes,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Inline { len, .. } => usize::from(*len),
            Repr::Shared(bytes) => bytes.len(),
        }
    }

    /// True for the empty text.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Default for Utf8Bytes {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for Utf8Bytes {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Utf8Bytes {}

impl std::hash::Hash for Utf8Bytes {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

/// `value` as a slice of `chunk`, if it lies in it (`Bytes::slice_ref`
/// without its panics).
fn slice_of(chunk: &Bytes, value: &[u8]) -> Option<Bytes> {
    let start = value.as_ptr().addr().checked_sub(chunk.as_ptr().addr())?;
    let end = start.checked_add(value.len())?;
    (end <= chunk.len()).then(|| chunk.slice(start..end))
}

/// `value`'s length as the inline length, if it fits.
fn inline_len(value: &[u8]) -> Option<u8> {
    u8::try_from(value.len())
        .ok()
        .filter(|&len| usize::from(len) <= Utf8Bytes::INLINE_CAPACITY)
}

/// Whether `bytes` is valid UTF-8, with a fast path for ASCII.
fn is_utf8(bytes: &[u8]) -> bool {
    is_ascii(bytes) || std::str::from_utf8(bytes).is_ok()
}

/// `<[u8]>::is_ascii`, eight bytes at a time including the tail (the last
/// eight bytes are read again instead of one at a time), which the compiler
/// vectorises. The usual event `data` is a few hundred ASCII bytes.
fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let mut seen = 0u64;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        if let Some(word) = word.first_chunk::<8>() {
            seen |= u64::from_ne_bytes(*word);
        }
    }
    match bytes.last_chunk::<8>() {
        Some(last) => seen |= u64::from_ne_bytes(*last),
        None => {
            for &byte in words.remainder() {
                seen |= u64::from(byte);
            }
        }
    }
    seen & HIGH_BITS == 0
}

impl From<String> for Utf8Bytes {
    /// Takes the string's buffer, without a copy (short text is copied
    /// inline).
    fn from(text: String) -> Self {
        Self::inline(text.as_bytes()).unwrap_or_else(|| Self(Repr::Shared(Bytes::from(text))))
    }
}

impl From<&str> for Utf8Bytes {
    /// Copies the string.
    fn from(text: &str) -> Self {
        Self::decode_slice(text.as_bytes(), None)
    }
}

impl From<Utf8Bytes> for Bytes {
    fn from(text: Utf8Bytes) -> Self {
        text.into_bytes()
    }
}

impl AsRef<[u8]> for Utf8Bytes {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl PartialEq<str> for Utf8Bytes {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Utf8Bytes {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<String> for Utf8Bytes {
    fn eq(&self, other: &String) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Utf8Bytes> for str {
    fn eq(&self, other: &Utf8Bytes) -> bool {
        other == self
    }
}

impl PartialEq<Utf8Bytes> for &str {
    fn eq(&self, other: &Utf8Bytes) -> bool {
        other == *self
    }
}

impl fmt::Debug for Utf8Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Utf8Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_text_keeps_its_buffer() {
        let chunk = Bytes::from_static("x café y".as_bytes());
        let slice = chunk.slice(2..7);
        let text = Utf8Bytes::decode(slice.clone());
        assert_eq!(text, "café");
        assert_eq!(text.as_bytes().as_ptr(), slice.as_ptr(), "no copy");
        assert_eq!(text.into_bytes(), slice);
        let long = Bytes::from("é".repeat(Utf8Bytes::INLINE_CAPACITY));
        let text = Utf8Bytes::decode_slice(&long[2..], Some(&long));
        assert_eq!(text.as_bytes().as_ptr(), long[2..].as_ptr(), "a slice");
        assert_eq!(text.len(), long.len() - 2);
        // Cut inside a character: decoded into a new buffer.
        let text = Utf8Bytes::decode_slice(&long[1..], Some(&long));
        assert!(text.as_str().starts_with('\u{FFFD}'));
        assert_ne!(text.as_bytes().as_ptr(), long[1..].as_ptr());
    }

    #[test]
    fn short_text_is_inline_and_equal_to_shared_text() {
        let chunk = Bytes::from_static(b"id: 12345");
        let inline = Utf8Bytes::decode_slice(&chunk[4..], Some(&chunk));
        assert!(matches!(inline.0, Repr::Inline { len: 5, .. }));
        assert_eq!(std::mem::size_of::<Utf8Bytes>(), 32);
        let shared = Utf8Bytes::decode(chunk.slice(4..));
        assert!(matches!(shared.0, Repr::Shared(_)));
        assert_eq!(inline, shared);
        assert_eq!(inline.as_str(), "12345");
        assert_eq!(inline.clone().into_bytes(), "12345");
        let state = std::hash::RandomState::new();
        use std::hash::BuildHasher;
        assert_eq!(state.hash_one(&inline), state.hash_one(&shared));
        let full = "x".repeat(Utf8Bytes::INLINE_CAPACITY);
        assert!(matches!(
            Utf8Bytes::from(full.as_str()).0,
            Repr::Inline { .. }
        ));
        let over = "x".repeat(Utf8Bytes::INLINE_CAPACITY + 1);
        assert!(matches!(Utf8Bytes::from(over.as_str()).0, Repr::Shared(_)));
        assert_eq!(Utf8Bytes::from(over.clone()), over);
    }

    #[test]
    fn invalid_sequences_become_replacement_characters() {
        let text = Utf8Bytes::decode(Bytes::from_static(b"a\xFFb\xE2\x80"));
        assert_eq!(text, "a\u{FFFD}b\u{FFFD}");
        let long = Utf8Bytes::decode_slice(&[0xFF; 30], None);
        assert_eq!(long, "\u{FFFD}".repeat(30));
        assert_eq!(text.as_str(), "a\u{FFFD}b\u{FFFD}");
        assert_eq!(format!("{text:?}"), "\"a\u{FFFD}b\u{FFFD}\"");
        assert_eq!(text.to_string(), "a\u{FFFD}b\u{FFFD}");
    }

    #[test]
    fn ascii_check_covers_every_byte() {
        for len in 0..40 {
            let mut bytes = vec![b'a'; len];
            assert!(is_ascii(&bytes));
            for at in 0..len {
                bytes[at] = 0x80;
                assert!(!is_ascii(&bytes), "len {len}, non-ASCII at {at}");
                bytes[at] = b'a';
            }
        }
    }

    #[test]
    fn conversions_and_comparisons() {
        assert!(Utf8Bytes::new().is_empty());
        assert_eq!(Utf8Bytes::from("é").len(), 2);
        assert_eq!(Utf8Bytes::from(String::from("id")), String::from("id"));
        assert_eq!("id", Utf8Bytes::from_static("id"));
        assert_ne!(Utf8Bytes::from_static("a"), "b");
    }
}
