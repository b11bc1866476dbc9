//! The one reader (issue 23 item 6): an input read from a `Read`
//! ([`read_source`], through reads of chosen sizes), from memory
//! ([`read_slice`], as the command reads a chunk of a large file) and from
//! bytes pushed as they arrive (a decoder handing each line or element to
//! [`LineRead`], as `watch` does) gives the same items, in the same order.

use super::ShortReader;
use cctape::elements::ElementDecoder;
use cctape::framing::LineDecoder;
use cctape::inputs::{Item, LineRead, ReadOptions, read_slice, read_source, stream_source};
use cctape::json::ScanMode;
use cctape::sniff::{Format, Reading};
use std::ops::ControlFlow;

/// An item as text: what it is, where, and its bytes' length.
pub fn describe_item(item: &Item<'_, '_>) -> String {
    match item {
        Item::Event(ev) => format!("event {} {} {}", ev.line(), ev.raw_type(), ev.raw().len()),
        Item::Scanned(s) => format!(
            "scanned {} {} {}",
            s.position(),
            s.raw_type(),
            s.raw().len()
        ),
        Item::Record(r) => {
            let ev = r.event();
            format!("record {} {:?} {}", ev.line(), ev.kind(), ev.raw().len())
        }
        Item::NotEvents(shape) => format!("not events: {:?}", shape.describe()),
        Item::Error { error, bytes } => format!(
            "error {:?} {} {}: {:?}",
            error.kind(),
            error.position(),
            error.reason(),
            bytes.map(<[u8]>::len)
        ),
        _ => "other".to_string(),
    }
}

/// The items `read_source` gives for `bytes` read `sizes` at a time (see
/// [`ShortReader`]), and the format.
pub fn read_items(
    bytes: &[u8],
    sizes: &[usize],
    opts: &ReadOptions,
) -> (Vec<String>, Option<Format>) {
    let mut seen = Vec::new();
    let src = stream_source(ShortReader::new(bytes, sizes)).expect("a reader over memory opens");
    let end = read_source(src, opts, |item| {
        seen.push(describe_item(&item));
        ControlFlow::Continue(())
    });
    (seen, end.format)
}

/// The items of `bytes` pushed to a decoder `step` bytes at a time and
/// read by a [`LineRead`] for `format`, as `watch` reads them.
pub fn pushed_items(bytes: &[u8], format: Format, opts: &ReadOptions, step: usize) -> Vec<String> {
    let mut seen = Vec::new();
    let mut items = |item: Item<'_, '_>| {
        seen.push(describe_item(&item));
        ControlFlow::Continue(())
    };
    let mut taker = LineRead::new(opts, format);
    let step = step.max(1);
    let last = bytes.len().div_ceil(step).max(1) - 1;
    let chunks = bytes
        .chunks(step)
        .chain(bytes.is_empty().then_some(&[][..]));
    let reading = format.reading();
    if matches!(reading, Reading::StreamElements | Reading::LoggedElements) {
        let mut dec = ElementDecoder::with_max(opts.max_line);
        if reading == Reading::LoggedElements {
            dec = dec.logged();
        }
        for (i, chunk) in chunks.enumerate() {
            dec.push(chunk);
            if i == last {
                dec.finish();
            }
            while let Some(item) = dec.next_element() {
                let _ = match item {
                    Ok(el) => taker.element(&el, &mut items),
                    Err(e) => taker.framing_error(e, &mut items),
                };
            }
        }
    } else {
        let mut dec = LineDecoder::with_max_line(opts.max_line);
        for (i, chunk) in chunks.enumerate() {
            dec.push(chunk);
            if i == last {
                dec.finish();
            }
            while let Some(item) = dec.next_line() {
                let _ = match item {
                    Ok(l) => taker.line(&l, &mut items),
                    Err(e) => taker.framing_error(e, &mut items),
                };
            }
        }
    }
    let shown = &bytes[..bytes.len().min(cctape::inputs::SNIFF_BYTES)];
    let shown = match reading {
        Reading::StreamElements | Reading::LoggedElements | Reading::NotEvents => shown,
        _ => &[],
    };
    let _ = taker.finish(shown, &mut items);
    seen
}

/// The items of a line-read input read as one slice.
pub fn slice_read_items(bytes: &[u8], format: Format, opts: &ReadOptions) -> Vec<String> {
    let mut seen = Vec::new();
    let mut items = |item: Item<'_, '_>| {
        seen.push(describe_item(&item));
        ControlFlow::Continue(())
    };
    read_slice(bytes, (0, 1), opts, format, &mut items);
    seen
}

/// Every way of reading `bytes` (events, records, scanned lines; from a
/// `Read` of `step`-byte reads, pushed `step` bytes at a time, as one
/// slice) gives the items `read_source` gives over whole reads; lines
/// past `max_line` included. Bytes pushed or held are compared only when
/// the source would not decode them (compressed, UTF-16) nor end them at
/// an endless line. Returns how many items were compared.
pub fn check_one_reader(bytes: &[u8], step: usize, max_line: usize) -> usize {
    let mut n = 0;
    let base = ReadOptions {
        max_line,
        ..ReadOptions::default()
    };
    let records = ReadOptions {
        records: true,
        ..base
    };
    let scans = ReadOptions {
        scan: Some(ScanMode::Validated),
        ..base
    };
    // A `Read` ends at a run of bytes without an LF this long (the guard
    // against `/dev/zero`); memory and pushed bytes have a bound already.
    let runaway = (max_line.max(1) as u64).saturating_mul(cctape::inputs::RUNAWAY_FACTOR);
    let endless = bytes
        .split(|&b| b == b'\n')
        .any(|run| run.len() as u64 > runaway);
    // Bytes behind a compression magic or a UTF-16 byte order mark are
    // decoded by the source, which a `Read` has and bytes pushed do not.
    let report = cctape::source::EndReport::new();
    let plain = cctape::source::Source::new(bytes, cctape::source::SourceKind::Stream, &report)
        .is_ok_and(|s| s.compression() == cctape::source::Compression::None && !s.is_utf16());
    for opts in [base, records, scans] {
        let (want, format) = read_items(bytes, &[], &opts);
        let format = format.expect("memory is read");
        // Reads of another size may sniff another format only when the
        // first read is short of what the sniffer wants: compared then
        // only when the format agrees.
        let (short, short_format) = read_items(bytes, &[step.max(1)], &opts);
        if short_format == Some(format) {
            assert_eq!(short, want, "reads of {step} bytes, {opts:?}");
        }
        if endless || !plain {
            continue;
        }
        assert_eq!(
            pushed_items(bytes, format, &opts, step),
            want,
            "pushed {step} bytes at a time, {opts:?}"
        );
        if matches!(
            format.reading(),
            Reading::StreamLines | Reading::TranscriptLines
        ) {
            assert_eq!(
                slice_read_items(bytes, format, &opts),
                want,
                "one slice, {opts:?}"
            );
        }
        n += want.len();
    }
    n
}

/// [`check_one_reader`] on a fuzz input: its first byte chooses the step
/// (1 to 64 bytes), its second the maximum line (16 to 255 bytes, so that
/// lines past it come often; below 16 the default), the rest is the input.
pub fn check_one_reader_input(data: &[u8]) -> usize {
    let (head, body) = data.split_at(data.len().min(2));
    let step = head.first().map_or(1, |&b| usize::from(b % 64) + 1);
    let max_line = match head.get(1) {
        Some(&b) if b >= 16 => usize::from(b),
        _ => cctape::framing::DEFAULT_MAX_LINE,
    };
    check_one_reader(body, step, max_line)
}
