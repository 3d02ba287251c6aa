//! Decoding of compressed replies (RFC 9110 § 8.4 `Content-Encoding`).
//!
//! Every request says what the client decodes ([`ACCEPT_ENCODING`]); a
//! reply coded with those codings (in any order, several stacked) is
//! decoded as it streams, so an SSE body stays incremental: the decoder
//! hands on whatever it could decode from the bytes that arrived. The
//! decoded size is bounded by whoever reads the body (a JSON body or an
//! SSE event by `max_event_bytes`, an error body by 4 KiB), so a
//! decompression bomb fails the one request that read it with
//! `MessageTooLarge`, as an oversized plain body does. A coding the client
//! does not decode leaves the body and its `Content-Encoding` as they are,
//! and the reader names it in its error.
//!
//! The codecs are `async-compression`'s (flate2, brotli, zstd): outside the
//! protocol, a well-kept crate rather than our own.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use async_compression::tokio::bufread::{
    BrotliDecoder, DeflateDecoder, GzipDecoder, ZlibDecoder, ZstdDecoder,
};
use bytes::Bytes;
use futures_util::stream::{self, Stream, StreamExt, TryStreamExt};
use http::header::{CONTENT_ENCODING, CONTENT_LENGTH};
use http::{HeaderMap, Response};
use http_body_util::BodyDataStream;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use tokio::io::{AsyncBufRead, AsyncRead};
use tokio_util::io::{ReaderStream, StreamReader};

/// The `Accept-Encoding` every request carries: exactly the codings
/// [`decode`] undoes.
pub(crate) const ACCEPT_ENCODING: &str = "gzip, deflate, br, zstd";

/// A boxed error of a reply body (hyper's, or the decoder's).
pub(crate) type BodyError = Box<dyn std::error::Error + Send + Sync>;

/// One content coding the client decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coding {
    Gzip,
    /// HTTP's `deflate` is the zlib format (RFC 9110 § 8.4.1.2); some
    /// servers send raw deflate under that name, as browsers tolerate: the
    /// first two bytes tell which.
    Deflate,
    Brotli,
    Zstd,
}

impl Coding {
    fn parse(name: &str) -> Option<Coding> {
        match name {
            "gzip" | "x-gzip" => Some(Coding::Gzip),
            "deflate" => Some(Coding::Deflate),
            "br" => Some(Coding::Brotli),
            "zstd" => Some(Coding::Zstd),
            _ => None,
        }
    }
}

/// The codings of `headers`' `Content-Encoding`, in the order they were
/// applied (`identity` dropped); `Err` with the list when one is not a
/// coding the client decodes.
fn codings(headers: &HeaderMap) -> Result<Vec<Coding>, String> {
    let names = crate::media::content_codings(headers);
    names
        .iter()
        .map(|n| Coding::parse(n).ok_or(()))
        .collect::<Result<Vec<_>, ()>>()
        .map_err(|()| names.join(", "))
}

/// Coded bytes, readable in buffered form.
type Coded = Pin<Box<dyn AsyncBufRead + Send>>;

/// A reply body: as it came, or being decoded.
pub(crate) struct ReplyBody {
    inner: Inner,
}

enum Inner {
    Plain(Incoming),
    /// Coded; the decoder is built on the first data so that an empty
    /// body (no bytes at all under a `Content-Encoding`) stays empty, and
    /// so that `deflate` can be told from raw deflate.
    Waiting {
        body: Option<Incoming>,
        codings: Vec<Coding>,
    },
    Decoding(Pin<Box<dyn Stream<Item = io::Result<Bytes>> + Send>>),
}

impl std::fmt::Debug for ReplyBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.inner {
            Inner::Plain(_) => "ReplyBody::Plain",
            Inner::Waiting { .. } => "ReplyBody::Waiting",
            Inner::Decoding(_) => "ReplyBody::Decoding",
        })
    }
}

/// Wraps `response` so that its body is decoded when its
/// `Content-Encoding` is one the client decodes (the header and
/// `Content-Length` then removed: they described the coded bytes).
/// Otherwise the response is unchanged.
pub(crate) fn decode(response: Response<Incoming>, label: &str) -> Response<ReplyBody> {
    let (mut parts, body) = response.into_parts();
    if !parts.headers.contains_key(CONTENT_ENCODING) {
        return Response::from_parts(
            parts,
            ReplyBody {
                inner: Inner::Plain(body),
            },
        );
    }
    let inner = match codings(&parts.headers) {
        Ok(codings) => {
            tracing::debug!(connection = %label, ?codings, "decoding a compressed reply");
            parts.headers.remove(CONTENT_ENCODING);
            parts.headers.remove(CONTENT_LENGTH);
            if codings.is_empty() {
                Inner::Plain(body)
            } else {
                Inner::Waiting {
                    body: Some(body),
                    codings,
                }
            }
        }
        Err(names) => {
            tracing::debug!(connection = %label, codings = %names, "reply in a coding the client does not decode");
            Inner::Plain(body)
        }
    };
    Response::from_parts(parts, ReplyBody { inner })
}

/// The decoded stream of a coded body whose first data is `first`.
fn decoder(
    first: Bytes,
    rest: Incoming,
    codings: &[Coding],
) -> Pin<Box<dyn Stream<Item = io::Result<Bytes>> + Send>> {
    let raw = stream::once(async move { Ok::<Bytes, io::Error>(first) })
        .chain(BodyDataStream::new(rest).map_err(io::Error::other));
    let raw = StreamReader::new(raw);
    // The last coding applied is undone first; each further one reads the
    // previous decoder's output through a buffer.
    let mut order = codings.iter().rev();
    let Some(&outermost) = order.next() else {
        return Box::pin(ReaderStream::new(raw));
    };
    let mut decoded = decode_one(outermost, Box::pin(raw));
    for &coding in order {
        decoded = decode_one(coding, Box::pin(tokio::io::BufReader::new(decoded)));
    }
    Box::pin(ReaderStream::with_capacity(decoded, 16 * 1024))
}

/// A decoder of `coding` reading `input`.
fn decode_one(coding: Coding, input: Coded) -> Pin<Box<dyn AsyncRead + Send>> {
    match coding {
        Coding::Gzip => {
            let mut d = GzipDecoder::new(input);
            // A body of several gzip members is one body (RFC 1952 § 2.2).
            d.multiple_members(true);
            Box::pin(d)
        }
        Coding::Deflate => Box::pin(DeflateAuto::Undecided(Some(input))),
        Coding::Brotli => Box::pin(BrotliDecoder::new(input)),
        Coding::Zstd => Box::pin(ZstdDecoder::new(input)),
    }
}

/// `deflate` as zlib (the standard) or as raw deflate (what some servers
/// send), decided by the first two bytes: a zlib header has compression
/// method 8 and a 16-bit value divisible by 31 (RFC 1950 § 2.2).
enum DeflateAuto {
    Undecided(Option<Coded>),
    Zlib(Pin<Box<ZlibDecoder<Coded>>>),
    Raw(Pin<Box<DeflateDecoder<Coded>>>),
}

impl AsyncRead for DeflateAuto {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            match this {
                DeflateAuto::Zlib(d) => return d.as_mut().poll_read(cx, buf),
                DeflateAuto::Raw(d) => return d.as_mut().poll_read(cx, buf),
                DeflateAuto::Undecided(reader) => {
                    let Some(r) = reader.as_mut() else {
                        return Poll::Ready(Ok(()));
                    };
                    let head = match r.as_mut().poll_fill_buf(cx) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                        Poll::Ready(Ok(head)) => head,
                    };
                    let zlib = match head {
                        [] => true,
                        [cmf] => cmf & 0x0f == 8,
                        [cmf, flg, ..] => {
                            cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0
                        }
                    };
                    let Some(r) = reader.take() else {
                        return Poll::Ready(Ok(()));
                    };
                    *this = if zlib {
                        DeflateAuto::Zlib(Box::pin(ZlibDecoder::new(r)))
                    } else {
                        tracing::debug!(
                            "Content-Encoding deflate holds raw deflate (no zlib header); decoding it as such"
                        );
                        DeflateAuto::Raw(Box::pin(DeflateDecoder::new(r)))
                    };
                }
            }
        }
    }
}

impl Body for ReplyBody {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = self.get_mut();
        loop {
            match &mut this.inner {
                Inner::Plain(body) => {
                    return Pin::new(body)
                        .poll_frame(cx)
                        .map(|f| f.map(|r| r.map_err(Into::into)));
                }
                Inner::Decoding(stream) => {
                    return stream
                        .as_mut()
                        .poll_next(cx)
                        .map(|f| f.map(|r| r.map(Frame::data).map_err(Into::into)));
                }
                Inner::Waiting { body, codings } => {
                    let Some(b) = body.as_mut() else {
                        return Poll::Ready(None);
                    };
                    let first = match Pin::new(b).poll_frame(cx) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(None) => {
                            *body = None;
                            return Poll::Ready(None);
                        }
                        Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e.into()))),
                        Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                            Ok(data) if !data.is_empty() => data,
                            // Trailers or an empty chunk: nothing to decode yet.
                            _ => continue,
                        },
                    };
                    let Some(rest) = body.take() else {
                        return Poll::Ready(None);
                    };
                    let stream = decoder(first, rest, codings);
                    this.inner = Inner::Decoding(stream);
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            Inner::Plain(body) => body.is_end_stream(),
            Inner::Waiting { body, .. } => body.as_ref().is_none_or(Body::is_end_stream),
            Inner::Decoding(_) => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.inner {
            Inner::Plain(body) => body.size_hint(),
            _ => SizeHint::default(),
        }
    }
}
