//! Bounded readers of a reply body: a whole JSON body up to the event
//! limit, and the start of an error body up to a size and a deadline.

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use mcp_transport::TransportError;
use tokio::time::Instant;

use crate::decode::ReplyBody;

/// Reads at most `limit` bytes of `body`, until it ends, fails or `until`
/// passes; `true` when there was more (or the time ran out first).
pub(crate) async fn read_limited(
    mut body: ReplyBody,
    limit: usize,
    until: Instant,
) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    loop {
        let Ok(next) = tokio::time::timeout_at(until, body.frame()).await else {
            tracing::debug!(
                bytes = out.len(),
                "error body still arriving at its deadline; keeping what arrived"
            );
            return (out, true);
        };
        let Some(frame) = next else { break };
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => {
                // A connection cut, or a compressed body that does not
                // decode: the error shows what arrived before it.
                tracing::debug!(bytes = out.len(), error = %e, "error body failed; keeping what arrived");
                break;
            }
        };
        if let Ok(data) = frame.into_data() {
            let room = limit - out.len();
            if data.len() > room {
                out.extend_from_slice(&data[..room]);
                return (out, true);
            }
            out.extend_from_slice(&data);
        }
    }
    (out, false)
}

/// Reads a whole body of at most `limit` bytes. A body that arrives in one
/// frame is returned as that frame's bytes (no copy); a longer one is
/// gathered once, into a buffer sized from `Content-Length` when the
/// server sent it.
///
/// Errors: `MessageTooLarge` past the limit; `Io` when the body fails.
pub(crate) async fn read_bounded(
    mut body: ReplyBody,
    limit: usize,
) -> Result<Bytes, TransportError> {
    let expected = usize::try_from(hyper::body::Body::size_hint(&body).lower()).unwrap_or(limit);
    let mut first: Option<Bytes> = None;
    let mut out = BytesMut::new();
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            TransportError::Io(Arc::new(std::io::Error::other(format!(
                "reading the response body: {e}"
            ))))
        })?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total += data.len();
        if total > limit {
            return Err(TransportError::message_too_large(limit));
        }
        match first.take() {
            None if out.is_empty() => first = Some(data),
            None => out.extend_from_slice(&data),
            Some(earlier) => {
                out.reserve(expected.min(limit).max(total));
                out.extend_from_slice(&earlier);
                out.extend_from_slice(&data);
            }
        }
    }
    Ok(match first {
        Some(only) => only,
        None => out.freeze(),
    })
}
