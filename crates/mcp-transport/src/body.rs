//! [`Body`]: the bytes of one outgoing message.

use std::fmt;
use std::ops::Deref;

use bytes::{Buf, Bytes};

/// The serialized bytes of one outgoing message ([`crate::Outgoing::body`]):
/// the buffer the dispatcher wrote it in, or shared [`Bytes`].
///
/// The buffer is kept as it was written (a request is written around its
/// params, so it starts some way into its buffer): a `Bytes` of it would
/// need a shared header allocated beside it, which a message written once
/// and dropped (stdio: a request alone in flight is written from the
/// caller's task) does not. [`Body::into_bytes`] makes that `Bytes` when a
/// transport needs one (HTTP's request body).
///
/// Cloning a body that is a buffer copies it: share it with
/// [`Body::into_bytes`] first when it is cloned more than once.
#[derive(Clone, Default)]
pub struct Body(Repr);

#[derive(Clone)]
enum Repr {
    Shared(Bytes),
    /// `buf[start..]`.
    Buffer {
        buf: Vec<u8>,
        start: usize,
    },
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Shared(Bytes::new())
    }
}

impl Body {
    /// The bytes of `buf` from `start` on (all of it when `start` is past
    /// its end: an empty body).
    pub fn from_buffer(buf: Vec<u8>, start: usize) -> Self {
        let start = start.min(buf.len());
        Body(Repr::Buffer { buf, start })
    }

    /// The bytes as [`Bytes`], without a copy (a buffer's `Bytes` takes
    /// its shared header then).
    pub fn into_bytes(self) -> Bytes {
        match self.0 {
            Repr::Shared(bytes) => bytes,
            Repr::Buffer { buf, start } => {
                let mut bytes = Bytes::from(buf);
                bytes.advance(start);
                bytes
            }
        }
    }

    /// Drops the first `n` bytes (all of them when `n` is past the end),
    /// e.g. what a short write took.
    pub fn advance(&mut self, n: usize) {
        match &mut self.0 {
            Repr::Shared(bytes) => bytes.advance(n.min(bytes.len())),
            Repr::Buffer { buf, start } => *start = start.saturating_add(n).min(buf.len()),
        }
    }
}

impl Deref for Body {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::Shared(bytes) => bytes,
            Repr::Buffer { buf, start } => buf.get(*start..).unwrap_or_default(),
        }
    }
}

impl AsRef<[u8]> for Body {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl From<Bytes> for Body {
    fn from(bytes: Bytes) -> Self {
        Body(Repr::Shared(bytes))
    }
}

impl From<Vec<u8>> for Body {
    fn from(buf: Vec<u8>) -> Self {
        Body::from_buffer(buf, 0)
    }
}

impl From<&'static [u8]> for Body {
    fn from(bytes: &'static [u8]) -> Self {
        Body(Repr::Shared(Bytes::from_static(bytes)))
    }
}

impl fmt::Debug for Body {
    /// The size only: a message may carry what is not shown (the wire tap
    /// shows messages, redacted).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Body").field("bytes", &self.len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_and_its_bytes_hold_the_same_bytes() {
        let mut body = Body::from_buffer(b"  {\"a\":1}".to_vec(), 2);
        assert_eq!(&body[..], b"{\"a\":1}");
        assert_eq!(body.clone().into_bytes(), Bytes::from_static(b"{\"a\":1}"));
        body.advance(2);
        assert_eq!(&body[..], b"a\":1}");
        body.advance(100);
        assert!(body.is_empty());
        assert!(Body::from_buffer(vec![1], 5).is_empty());
        let mut shared = Body::from(Bytes::from_static(b"xyz"));
        shared.advance(1);
        assert_eq!(&shared[..], b"yz");
        assert_eq!(shared.into_bytes(), Bytes::from_static(b"yz"));
        assert!(!format!("{:?}", Body::from(b"secret".to_vec())).contains("secret"));
    }
}
