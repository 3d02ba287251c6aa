//! SSE streams real servers sent (CRLF and lone-CR line ends split across
//! reads, a BOM, priming events, multi-line data, comments and
//! keep-alives), byte for byte, and the
//! chunk-boundary independence properties (checked against a plain,
//! whole-stream reference of the WHATWG algorithm).

use std::time::Duration;

use bytes::Bytes;
use proptest::prelude::*;

use super::{SseEnd, SseError, SseEvent, SseLimits, SseParser};

/// `INIT(<ID>)` of the catalogue with `<ID>` = 1.
const INIT_1: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"0.0.1"}}}"#;

type Output = Vec<Result<SseEvent, SseError>>;

/// Parses `chunks` with the zero-copy entry, [`SseParser::feed_bytes`].
fn parse_chunks(limits: SseLimits, chunks: &[&[u8]]) -> (Output, SseParser) {
    let mut parser = SseParser::new(limits);
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed_bytes(&Bytes::copy_from_slice(chunk), &mut out);
    }
    (out, parser)
}

/// Parses `chunks` with the copying entry, [`SseParser::feed`].
fn parse_slices(limits: SseLimits, chunks: &[&[u8]]) -> (Output, SseParser) {
    let mut parser = SseParser::new(limits);
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut out);
    }
    (out, parser)
}

fn event(event_type: &str, data: &str, id: &str, retry: Option<u64>) -> SseEvent {
    SseEvent {
        event_type: event_type.to_owned().into(),
        data: data.into(),
        last_event_id: id.into(),
        retry: retry.map(Duration::from_millis),
    }
}

/// Checks a catalogue case: whole, as the catalogue's writes, and cut at
/// every single byte boundary.
fn check_case(writes: &[&[u8]], expected: &[SseEvent], id: Option<&str>, retry: Option<u64>) {
    let limits = SseLimits::default();
    let whole: Vec<u8> = writes.concat();
    let expected: Output = expected.iter().cloned().map(Ok).collect();
    let mut splits: Vec<Vec<&[u8]>> = vec![writes.to_vec(), vec![&whole[..]]];
    for cut in 0..=whole.len() {
        let (a, b) = whole.split_at(cut);
        splits.push(vec![a, b]);
    }
    splits.push(whole.chunks(1).collect());
    for chunks in splits {
        let (out, mut parser) = parse_chunks(limits, &chunks);
        assert_eq!(out, expected, "chunks {chunks:?}");
        assert_eq!(parser.last_event_id(), id);
        assert_eq!(parser.retry(), retry.map(Duration::from_millis));
        assert_eq!(parser.finish(), SseEnd::Complete);
    }
}

#[test]
fn b01_a_crlf() {
    let a = format!("event: message\r\ndata: {INIT_1}\r\n\r\n");
    check_case(
        &[a.as_bytes()],
        &[event("message", INIT_1, "", None)],
        None,
        None,
    );
}

#[test]
fn b01_b_lone_cr() {
    let b = format!("data: {INIT_1}\r\r");
    check_case(
        &[b.as_bytes()],
        &[event("message", INIT_1, "", None)],
        None,
        None,
    );
}

#[test]
fn b01_c_crlf_split_across_reads_two_data_lines() {
    let write1: &[u8] = b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\r";
    let write2: &[u8] = b"\ndata: \"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"fake\",\"version\":\"0\"}}}\r\n\r\n";
    let data = "{\"jsonrpc\":\"2.0\",\"id\":1,\n\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"fake\",\"version\":\"0\"}}}";
    check_case(
        &[write1, write2],
        &[event("message", data, "", None)],
        None,
        None,
    );
}

#[test]
fn b01_d_bom_split_across_reads() {
    let write2 = [&b"\xBF"[..], format!("data: {INIT_1}\n\n").as_bytes()].concat();
    check_case(
        &[b"\xEF\xBB", &write2],
        &[event("message", INIT_1, "", None)],
        None,
        None,
    );
}

#[test]
fn b02_priming_events() {
    let w4 = format!("id: p-1\nevent: message\ndata: {INIT_1}\n\n");
    let writes: [&[u8]; 4] = [
        b"id: p-0\nretry: 2500\ndata:\n\n",
        b"id: p-0b\n\n",
        b"retry: soon\n\n",
        w4.as_bytes(),
    ];
    check_case(
        &writes,
        &[
            event("message", "", "p-0", Some(2500)),
            event("message", INIT_1, "p-1", None),
        ],
        Some("p-1"),
        Some(2500),
    );
    // The last event ID moves p-0 -> p-0b -> p-1 one write at a time.
    let mut parser = SseParser::default();
    let mut out = Vec::new();
    for (write, id) in writes.iter().zip(["p-0", "p-0b", "p-0b", "p-1"]) {
        parser.feed(write, &mut out);
        assert_eq!(parser.last_event_id(), Some(id));
    }
}

#[test]
fn b03_multi_line_data_and_single_space() {
    let writes: [&[u8]; 5] = [
        b"event: message\n",
        b"data: {\"jsonrpc\":\"2.0\",\n",
        b"data:\"id\":1,\n",
        b"data:  \"result\":{\"tools\":[]}}\n",
        b"\n",
    ];
    let data = "{\"jsonrpc\":\"2.0\",\n\"id\":1,\n \"result\":{\"tools\":[]}}";
    check_case(&writes, &[event("message", data, "", None)], None, None);
    // Without the final blank line the event is discarded at EOF.
    let (out, mut parser) = parse_chunks(SseLimits::default(), &writes[..4]);
    assert!(out.is_empty());
    assert_eq!(parser.finish(), SseEnd::IncompleteEventDiscarded);
}

#[test]
fn b04_comments_keep_alives_and_other_event_types() {
    let w6 = format!("x-unknown-field: 1\nevent: message\ndata: {INIT_1}\n\n");
    let writes: [&[u8]; 6] = [
        b": keep-alive\r\n\r\n",
        b": ping - 2025-01-01 00:00:00\r\n\r\n",
        b"event: ping\r\ndata: 2025-01-01 00:00:00\r\n\r\n",
        b"event: keepalive\ndata: {}\n\n",
        b"data: {\"type\":\"heartbeat\",\"ts\":1}\n\n",
        w6.as_bytes(),
    ];
    check_case(
        &writes,
        &[
            event("ping", "2025-01-01 00:00:00", "", None),
            event("keepalive", "{}", "", None),
            event("message", "{\"type\":\"heartbeat\",\"ts\":1}", "", None),
            event("message", INIT_1, "", None),
        ],
        None,
        None,
    );
    let (_, parser) = parse_chunks(SseLimits::default(), &writes);
    assert_eq!(parser.comments_seen(), 2);
}

/// The shared whole-stream model (`reference.rs`), as this crate's events.
fn reference(stream: &[u8]) -> (Vec<SseEvent>, String, Option<Duration>) {
    let (events, id, retry) = super::reference::reference(stream);
    let events = events
        .into_iter()
        .map(|e| SseEvent {
            event_type: e.event_type.into(),
            data: e.data.as_str().into(),
            last_event_id: e.last_event_id.as_str().into(),
            retry: e.retry,
        })
        .collect();
    (events, id, retry)
}

#[test]
fn the_reference_caps_are_the_parsers() {
    use super::interpret::{MAX_EVENT_ID_BYTES, MAX_EVENT_TYPE_BYTES};
    assert_eq!(super::reference::ID_CAP, MAX_EVENT_ID_BYTES);
    assert_eq!(super::reference::TYPE_CAP, MAX_EVENT_TYPE_BYTES);
    let stream = format!(
        "id: 1\nevent: {}\ndata: x\n\nid: {}\ndata: y\n\n",
        "e".repeat(257),
        "i".repeat(1025)
    );
    let (events, id, _) = reference(stream.as_bytes());
    assert_eq!(events[0].event_type, super::reference::OVERLONG_TYPE);
    assert_eq!(id, "1", "the over-long id is ignored");
    let (out, got_id, ..) = observe(SseLimits::default(), &[stream.as_bytes()]);
    assert_eq!(out, events.into_iter().map(Ok).collect::<Output>());
    assert_eq!(got_id.as_deref(), Some("1"));
}

type Observed = (Output, Option<String>, Option<Duration>, u64, SseEnd);

/// Everything observable after parsing `chunks` (zero-copy entry) and
/// ending the stream.
fn observe(limits: SseLimits, chunks: &[&[u8]]) -> Observed {
    observe_with(parse_chunks, limits, chunks)
}

fn observe_with(
    parse: fn(SseLimits, &[&[u8]]) -> (Output, SseParser),
    limits: SseLimits,
    chunks: &[&[u8]],
) -> Observed {
    let (out, mut parser) = parse(limits, chunks);
    let id = parser.last_event_id().map(str::to_owned);
    let retry = parser.retry();
    let comments = parser.comments_seen();
    (out, id, retry, comments, parser.finish())
}

fn cut(stream: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    points.sort_unstable();
    let mut chunks = Vec::new();
    let mut start = 0;
    for point in points {
        chunks.push(stream[start..point].to_vec());
        start = point;
    }
    chunks.push(stream[start..].to_vec());
    chunks
}

/// Streams built from SSE-like pieces, so that fields, line ends, BOMs, NULs,
/// split UTF-8 and invalid bytes all show up often.
fn sse_stream() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(&b"data"[..]),
        Just(&b"data:"[..]),
        Just(&b"data: "[..]),
        Just(&b"event: "[..]),
        Just(&b"id: "[..]),
        Just(&b"id:\0"[..]),
        Just(&b"retry: "[..]),
        Just(&b"retry:12"[..]),
        Just(&b": c"[..]),
        Just(&b":"[..]),
        Just(&b" "[..]),
        Just(&b"x"[..]),
        Just(&b"9"[..]),
        Just(&b"\n"[..]),
        Just(&b"\r"[..]),
        Just(&b"\r\n"[..]),
        Just(&b"\n\n"[..]),
        Just(&b"\xEF\xBB\xBF"[..]),
        Just(&b"\xEF\xBB"[..]),
        Just(&b"\xC3\xA9"[..]),
        Just(&b"\xF0\x9F\x98\x80"[..]),
        Just(&b"\xFF"[..]),
    ];
    prop_oneof![
        4 => prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat()),
        1 => prop::collection::vec(any::<u8>(), 0..200),
    ]
}

/// A fixed corpus: the catalogue cases and a few hand-written streams.
fn corpus() -> Vec<Vec<u8>> {
    let mut corpus: Vec<Vec<u8>> = vec![
        format!("event: message\r\ndata: {INIT_1}\r\n\r\n").into_bytes(),
        format!("data: {INIT_1}\r\r").into_bytes(),
        b"\xEF\xBB\xBFid: p-0\nretry: 2500\ndata:\n\nid: p-0b\n\nretry: soon\n\n".to_vec(),
        b"event: message\ndata: {\"a\":\n\"id\":1,\ndata:  x\n\n: keep-alive\r\n\r\n".to_vec(),
        b"data: caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80\r\n\r\ndata: \xFF\xE2\x80\rid\r\r"
            .to_vec(),
        b"\xEF\xBB\ndata: a\r\n\rdata: b\n\r\nid: 1\0\ndata\n\ndata: tail".to_vec(),
        b"data: 0123456789abcdef\ndata: 0123456789\n\ndata: ok\r\n\r\n:comment\r\n".to_vec(),
    ];
    corpus.push(corpus.concat());
    corpus
}

/// Where the bytes of an event's data and id live after `feed_bytes`.
#[test]
fn single_line_data_is_a_slice_of_the_chunk_and_the_rest_is_copied() {
    let within = |text: &super::Utf8Bytes, chunk: &Bytes| {
        let range = chunk.as_ptr_range();
        range.contains(&text.as_bytes().as_ptr())
    };
    let long_id = "i".repeat(40);
    let stream =
        format!("id: 7\ndata: {INIT_1}\n\nid: {long_id}\ndata: a\ndata: b\n\ndata: {INIT_1}\n\n");
    let chunk = Bytes::from(stream);
    let mut parser = SseParser::default();
    let mut out = Vec::new();
    parser.feed_bytes(&chunk, &mut out);
    let events: Vec<SseEvent> = out.into_iter().map(|e| e.expect("ok")).collect();
    assert_eq!(events.len(), 3);
    // One data line within the chunk: a slice of it; the short id is inline.
    assert_eq!(events[0].data, INIT_1);
    assert!(within(&events[0].data, &chunk));
    assert_eq!(events[0].last_event_id, "7");
    assert!(!within(&events[0].last_event_id, &chunk));
    // Two data lines: joined into a new buffer; a long id is a slice.
    assert_eq!(events[1].data, "a\nb");
    assert!(!within(&events[1].data, &chunk));
    assert_eq!(events[1].last_event_id, long_id.as_str());
    assert!(within(&events[1].last_event_id, &chunk));
    // The id is shared with later events and the parser, not copied.
    assert_eq!(
        events[2].last_event_id.as_bytes().as_ptr(),
        events[1].last_event_id.as_bytes().as_ptr()
    );
    assert_eq!(
        parser.last_event_id_text().as_bytes().as_ptr(),
        events[1].last_event_id.as_bytes().as_ptr()
    );
    // Handing the data on keeps the slice.
    let frame = events[0].data.clone().into_bytes();
    assert_eq!(frame.as_ptr(), events[0].data.as_bytes().as_ptr());

    // A data line split across chunks is copied, and still whole.
    let (head, tail) = chunk.split_at(20);
    let (head, tail) = (Bytes::copy_from_slice(head), Bytes::copy_from_slice(tail));
    let mut parser = SseParser::default();
    let mut out = Vec::new();
    parser.feed_bytes(&head, &mut out);
    parser.feed_bytes(&tail, &mut out);
    let first = out.remove(0).expect("ok");
    assert_eq!(first.data, INIT_1);
    assert!(!within(&first.data, &head) && !within(&first.data, &tail));
}

#[test]
fn fixed_corpus_is_independent_of_every_byte_boundary() {
    for limit in [usize::MAX, 24, 8, 0] {
        let limits = SseLimits::default().with_max_event_size(limit);
        for stream in corpus() {
            let whole = observe(limits, &[&stream]);
            assert_eq!(observe_with(parse_slices, limits, &[&stream]), whole);
            let bytes: Vec<&[u8]> = stream.chunks(1).collect();
            assert_eq!(
                observe(limits, &bytes),
                whole,
                "byte by byte, limit {limit}, {stream:?}"
            );
            for a in 0..=stream.len() {
                let (head, tail) = stream.split_at(a);
                assert_eq!(
                    observe(limits, &[head, tail]),
                    whole,
                    "cut at {a}, limit {limit}"
                );
                // Two cuts, to split the BOM and CRLF pairs in every way.
                for b in a..=stream.len().min(a + 4) {
                    let (mid, tail) = tail.split_at(b - a);
                    assert_eq!(observe(limits, &[head, mid, tail]), whole, "cuts {a},{b}");
                }
            }
            if limit == usize::MAX {
                let (events, id, retry) = reference(&stream);
                let (out, got_id, got_retry, _, _) = whole;
                assert_eq!(
                    out,
                    events.into_iter().map(Ok).collect::<Output>(),
                    "{stream:?}"
                );
                assert_eq!(got_id.unwrap_or_default(), id);
                assert_eq!(got_retry, retry);
            }
        }
    }
}

/// Lines longer than the parser's hand-over size (4 KiB), split across
/// chunks in many places: the joined buffer is handed on as the value, and
/// every result is still the whole stream's and the reference algorithm's.
#[test]
fn long_lines_split_across_chunks_match_the_whole_stream() {
    let mut stream = Vec::new();
    stream.extend_from_slice(b"data: ");
    stream.extend(std::iter::repeat_n(b'x', 5000));
    stream.extend_from_slice(b"\n\ndata: ");
    stream.extend(std::iter::repeat_n(b'y', 4090));
    stream.extend_from_slice(b"\xFF\xC3");
    stream.extend(std::iter::repeat_n(b'z', 10));
    stream.extend_from_slice(b"\r\ndata: short\r\n\r\n: ");
    stream.extend(std::iter::repeat_n(b'c', 6000));
    stream.extend_from_slice(b"\nid: 5\ndata: q\r\rdata: after\n\n");
    // Within the reference algorithm's rules (no id or type caps):
    let (events, id, retry) = reference(&stream);
    assert_eq!(events.len(), 4);
    assert_eq!(events[0].data.len(), 5000);
    assert!(events[1].data.as_str().contains('\u{FFFD}'));
    assert!(events[1].data.as_str().ends_with("\nshort"));
    let (out, got_id, got_retry, _, _) = observe(SseLimits::default(), &[&stream]);
    assert_eq!(out, events.into_iter().map(Ok).collect::<Output>());
    assert_eq!(got_id.unwrap_or_default(), id);
    assert_eq!(got_retry, retry);
    // Then past them: an over-long id is ignored, an over-long type replaced.
    stream.extend_from_slice(b"id: ");
    stream.extend(std::iter::repeat_n(b'i', 5000));
    stream.extend_from_slice(b"\nevent: ");
    stream.extend(std::iter::repeat_n(b'e', 5000));
    stream.extend_from_slice(b"\ndata: long id and type\n\n");
    let (out, got_id, ..) = observe(SseLimits::default(), &[&stream]);
    let last = out.last().cloned().map(|e| e.expect("within limits"));
    assert_eq!(
        last,
        Some(event("overlong-event-type", "long id and type", "5", None))
    );
    assert_eq!(got_id.as_deref(), Some("5"));
    for limit in [usize::MAX, 4095, 4096, 4097, 5006, 5007] {
        let limits = SseLimits::default().with_max_event_size(limit);
        let whole = observe(limits, &[&stream]);
        for step in [997, 4093, 4096, 4099, 8192] {
            for offset in [0, 1, 6, 4095] {
                let cuts: Vec<usize> = (offset..stream.len()).step_by(step).collect();
                let chunks = cut(&stream, &cuts);
                let chunks: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
                assert_eq!(
                    observe(limits, &chunks),
                    whole,
                    "step {step}+{offset}, limit {limit}"
                );
                assert_eq!(
                    observe_with(parse_slices, limits, &chunks),
                    whole,
                    "copying entry, step {step}+{offset}, limit {limit}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_cuts_give_the_same_result_as_the_whole_stream(
        stream in sse_stream(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        limit in prop_oneof![Just(usize::MAX), 0usize..64],
    ) {
        let limits = SseLimits::default().with_max_event_size(limit);
        let chunks = cut(&stream, &cuts);
        let chunks: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
        let whole = observe(limits, &[&stream]);
        prop_assert_eq!(observe(limits, &chunks), whole.clone());
        // The copying entry gives the same as the zero-copy one.
        prop_assert_eq!(observe_with(parse_slices, limits, &chunks), whole.clone());
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        prop_assert_eq!(observe(limits, &bytes), whole);
    }

    #[test]
    fn whole_stream_matches_the_reference_algorithm(stream in sse_stream()) {
        let (events, id, retry) = reference(&stream);
        let (out, got_id, got_retry, _, _) = observe(SseLimits::default(), &[&stream]);
        prop_assert_eq!(out, events.into_iter().map(Ok).collect::<Output>());
        prop_assert_eq!(got_id.unwrap_or_default(), id);
        prop_assert_eq!(got_retry, retry);
    }

    #[test]
    fn with_a_limit_every_dispatched_event_is_a_reference_event(
        stream in sse_stream(),
        limit in 0usize..64,
    ) {
        // Over-limit events are dropped whole: what does get through is, in
        // order, a subsequence of the unlimited result (type and data; the id
        // of a dropped event is dropped too), and each fits the limit.
        let (events, _, _) = reference(&stream);
        let (out, ..) = observe(SseLimits::default().with_max_event_size(limit), &[&stream]);
        let mut remaining = events.iter();
        for item in &out {
            match item {
                Ok(event) => {
                    // U+FFFD replaces at least one raw byte.
                    prop_assert!(event.data.as_str().chars().count() <= limit);
                    prop_assert!(remaining.any(|e| e.data == event.data && e.event_type == event.event_type));
                }
                Err(err) => prop_assert_eq!(err, &SseError::EventTooLarge { limit }),
            }
        }
    }
}
