//! The tokio side (`cctape::aio`, feature `tokio`) against the blocking
//! readers: the same items, positions, counts, limits and errors whatever
//! the chunking and wherever the reader makes the task wait; and a real
//! child process that writes slowly, with events arriving before it has
//! written the rest.
//!
//! Run with `cargo test --features tokio --test aio`.

use cctape::aio::{AsyncEventReader, LineCodec};
use cctape::{Error, EventReader, Lines, Position};
use proptest::prelude::*;
use std::io::{self, Read};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};
use tokio_stream::StreamExt;
use tokio_util::codec::FramedRead;

/// An event or error as both readers see it, owned.
#[derive(Clone, Debug, PartialEq)]
enum Item {
    Event {
        kind: String,
        line: u64,
        offset: u64,
        raw: Vec<u8>,
    },
    Error {
        kind: &'static str,
        position: Position,
    },
}

fn item(r: Result<cctape::Event<'_>, Error>) -> Item {
    match r {
        Ok(ev) => Item::Event {
            kind: format!("{:?}", ev.kind()),
            line: ev.line(),
            offset: ev.offset(),
            raw: ev.raw().to_vec(),
        },
        Err(e) => error_item(&e),
    }
}

fn error_item(e: &Error) -> Item {
    Item::Error {
        kind: e.kind().name(),
        position: e.position(),
    }
}

/// Hands out `data` in the given chunk sizes (cycled), making the task wait
/// (`Pending`, woken at once) before the reads marked in `waits`, and ends
/// with an I/O error instead of EOF when `fail` is set.
struct Chunked {
    data: Vec<u8>,
    at: usize,
    chunks: Vec<usize>,
    waits: Vec<bool>,
    reads: usize,
    fail: bool,
}

impl Chunked {
    fn new(data: &[u8], chunks: &[usize], waits: &[bool], fail: bool) -> Chunked {
        Chunked {
            data: data.to_vec(),
            at: 0,
            chunks: chunks.to_vec(),
            waits: waits.to_vec(),
            reads: 0,
            fail,
        }
    }

    /// The next piece, or `None` at the end of the data.
    fn next_piece(&mut self, room: usize) -> Option<io::Result<&[u8]>> {
        if self.at == self.data.len() {
            if self.fail {
                return Some(Err(io::Error::other("the pipe broke")));
            }
            return None;
        }
        let want = self.chunks[self.reads % self.chunks.len()].max(1);
        self.reads += 1;
        let n = want.min(room).min(self.data.len() - self.at);
        let piece = &self.data[self.at..self.at + n];
        self.at += n;
        Some(Ok(piece))
    }
}

impl AsyncRead for Chunked {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let wait = this.waits.get(this.reads).copied().unwrap_or(false);
        if wait {
            this.waits[this.reads] = false;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        match this.next_piece(buf.remaining()) {
            None => Poll::Ready(Ok(())),
            Some(Err(e)) => Poll::Ready(Err(e)),
            Some(Ok(piece)) => {
                buf.put_slice(piece);
                Poll::Ready(Ok(()))
            }
        }
    }
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.next_piece(buf.len()) {
            None => Ok(0),
            Some(Err(e)) => Err(e),
            Some(Ok(piece)) => {
                buf[..piece.len()].copy_from_slice(piece);
                Ok(piece.len())
            }
        }
    }
}

/// The blocking reader's items and counts: the oracle.
fn sync_items(
    input: &[u8],
    fail: bool,
    read_size: usize,
    max_line: usize,
) -> (Vec<Item>, cctape::Counts) {
    let src = Chunked::new(input, &[7], &[], fail);
    let mut r = EventReader::with_capacity(src, read_size, max_line);
    let mut out = Vec::new();
    while let Some(x) = r.next_event() {
        out.push(item(x));
    }
    (out, r.counts())
}

/// A line as (bytes, number, offset, terminated), or the position of a
/// line past the maximum.
type Frame = Result<(Vec<u8>, u64, u64, bool), Position>;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// One line of a generated input.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => (0u64..1_000_000).prop_map(|n| format!(
            r#"{{"type":"assistant","message":{{"usage":{{"output_tokens":{n}}}}}}}"#
        )
        .into_bytes()),
        2 => Just(br#"{"type":"system","subtype":"init","session_id":"s"}"#.to_vec()),
        1 => Just(br#"{"type":"result","subtype":"success","is_error":false}"#.to_vec()),
        1 => Just(b"{\"type\":\"user\"}\r".to_vec()),
        1 => Just(b"not json".to_vec()),
        1 => Just(b"[1,2]".to_vec()),
        1 => Just(br#"{"foo":1}"#.to_vec()),
        1 => Just(b" \t ".to_vec()),
        1 => Just(Vec::new()),
        1 => (0usize..400).prop_map(|k| format!(r#"{{"type":"x","pad":"{}"}}"#, "a".repeat(k)).into_bytes()),
        1 => Just("{\"type\":\"user\",\"t\":\"\u{2028}\u{2029}\"}".as_bytes().to_vec()),
        1 => Just(b"{\"type\":\"user\",\"bad\":\"\xff\"}".to_vec()),
    ]
}

/// A generated input: lines joined by LF, maybe a BOM, maybe no final LF,
/// maybe cut inside its last line.
fn input() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(line(), 0..24),
        any::<bool>(),
        any::<bool>(),
        0usize..20,
    )
        .prop_map(|(lines, bom, final_lf, cut)| {
            let mut out = Vec::new();
            if bom {
                out.extend_from_slice(b"\xEF\xBB\xBF");
            }
            for l in &lines {
                out.extend_from_slice(l);
                out.push(b'\n');
            }
            if !final_lf {
                out.pop();
                let keep = out.len().saturating_sub(cut);
                out.truncate(keep);
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn async_reader_gives_what_the_blocking_reader_gives(
        input in input(),
        chunks in prop::collection::vec(1usize..40, 1..8),
        waits in prop::collection::vec(any::<bool>(), 0..40),
        read_size in 1usize..64,
        max_line in prop_oneof![Just(cctape::framing::DEFAULT_MAX_LINE), 40usize..300],
        fail in any::<bool>(),
    ) {
        let (want, want_counts) = sync_items(&input, fail, read_size, max_line);
        // The lending reader.
        let (got, counts) = runtime().block_on(async {
            let src = Chunked::new(&input, &chunks, &waits, fail);
            let mut r = AsyncEventReader::with_capacity(src, read_size, max_line);
            let mut out = Vec::new();
            while let Some(x) = r.next_event().await {
                out.push(item(x));
            }
            (out, r.counts())
        });
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(counts, want_counts);
        // The stream.
        let (got, counts) = runtime().block_on(async {
            let src = Chunked::new(&input, &chunks, &waits, fail);
            let mut s = AsyncEventReader::with_capacity(src, read_size, max_line)
                .into_stream(|ev| item(Ok(ev)));
            let mut out = Vec::new();
            while let Some(x) = s.next().await {
                out.push(x.unwrap_or_else(|e| error_item(&e)));
            }
            (out, s.reader().counts())
        });
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(counts, want_counts);
        if fail {
            let last = want.last().cloned();
            prop_assert!(matches!(last, Some(Item::Error { kind: "io", .. })), "{:?}", last);
        }
    }

    #[test]
    fn codec_gives_the_lines_of_the_whole_input(
        input in input(),
        chunks in prop::collection::vec(1usize..40, 1..8),
        waits in prop::collection::vec(any::<bool>(), 0..40),
        max_line in prop_oneof![Just(cctape::framing::DEFAULT_MAX_LINE), 40usize..300],
    ) {
        // The oracle: the slice iterator over the whole input, with lines
        // past the maximum replaced by their error's position.
        let want: Vec<Frame> = Lines::new(&input)
            .map(|l| {
                if l.bytes.len() > max_line {
                    Err(l.position())
                } else {
                    Ok((l.bytes.to_vec(), l.number, l.offset, l.terminated))
                }
            })
            .collect();
        let got = runtime().block_on(async {
            let src = Chunked::new(&input, &chunks, &waits, false);
            let mut frames = FramedRead::new(src, LineCodec::with_max_line(max_line));
            let mut out = Vec::new();
            while let Some(frame) = frames.next().await {
                out.push(match frame.expect("no I/O error") {
                    Ok(l) => Ok((l.bytes.to_vec(), l.number, l.offset, l.terminated)),
                    Err(e) => {
                        assert_eq!(e.kind(), cctape::ErrorKind::LineTooLong);
                        Err(e.position())
                    }
                });
            }
            out
        });
        prop_assert_eq!(got, want);
    }
}

#[test]
fn codec_lines_parse_as_the_blocking_reader_reads_them() {
    let input = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/streams/mixed-bad.jsonl"),
    )
    .unwrap();
    let (want, _) = sync_items(&input, false, 64, cctape::framing::DEFAULT_MAX_LINE);
    let got = runtime().block_on(async {
        let mut frames = FramedRead::new(&input[..], LineCodec::new());
        let mut parser = cctape::json::Scanner::new();
        let mut out = Vec::new();
        while let Some(frame) = frames.next().await {
            let line = frame.unwrap().unwrap();
            let line = line.as_line();
            if !line.is_blank() {
                out.push(item(cctape::event::parse_event(&mut parser, &line)));
            }
        }
        out
    });
    assert_eq!(got, want);
    assert!(want.iter().any(|i| matches!(i, Item::Error { .. })));
}

/// A real child process writes a stream slowly: a line, then nothing until
/// the test answers on its stdin (so the first event must arrive while the
/// child is still waiting), then the rest in pieces cut inside lines, with
/// pauses between them.
#[test]
fn events_from_a_child_process_arrive_as_it_writes() {
    let script = r#"
printf '{"type":"system","subtype":"init","session_id":"s1"}\n'
read go
printf '{"type":"assistant","message":{"usage":'
sleep 0.05
printf '{"output_tokens":7}}}\nnot js'
sleep 0.05
printf 'on\n\n{"type":"result","subtype":"success","is_error":false}'
"#;
    let whole = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\"}\n\
{\"type\":\"assistant\",\"message\":{\"usage\":{\"output_tokens\":7}}}\nnot json\n\n\
{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false}";
    let (want, want_counts) = sync_items(whole, false, 1 << 16, cctape::framing::DEFAULT_MAX_LINE);
    // A watchdog, not a speed limit: a reader that loses bytes would wait
    // for a line that never comes while the child waits for us.
    let watchdog = std::time::Duration::from_secs(120);
    let run = async {
        use tokio::io::AsyncWriteExt;
        let mut child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh");
        let mut stdin = child.stdin.take().unwrap();
        let mut events = AsyncEventReader::new(child.stdout.take().unwrap());
        let mut out = Vec::new();
        // The child waits for us: the first event came through on its own.
        out.push(item(events.next_event().await.expect("the first line")));
        assert!(
            child.try_wait().unwrap().is_none(),
            "the child is still waiting"
        );
        stdin.write_all(b"go\n").await.unwrap();
        drop(stdin);
        while let Some(x) = events.next_event().await {
            out.push(item(x));
        }
        (out, events.counts(), child.wait().await.unwrap())
    };
    let (got, counts, status) = runtime()
        .block_on(async { tokio::time::timeout(watchdog, run).await })
        .expect("the child's stream was read within the watchdog's time");
    assert!(status.success());
    assert_eq!(got, want);
    assert_eq!(counts, want_counts);
    assert_eq!(
        (
            counts.lines,
            counts.blank_lines,
            counts.events,
            counts.errors
        ),
        (5, 1, 3, 1)
    );
}
