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
        Item::Record(r) => format!("record {} {:?} {}", r.line(), r.kind(), r.raw().len()),
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

/// A plain file read through the truncation-proof map
/// ([`ReadOptions::map`]) gives the items reading it gives; cut at byte
/// `cut` after item `after` while the map reads it, every event handed out
/// is one of the file's own lines, and the only errors are the file's own,
/// the cut line's and the shrinking. `bytes` is repeated up to the size
/// from which files are mapped (1 MiB), in a file modified an hour ago.
/// True when the cut file was mapped.
pub fn check_mapped(bytes: &[u8], after: usize, cut: usize) -> bool {
    use cctape::framing::Lines;
    use cctape::inputs::Sniffed;
    use cctape::sniff::FormatChoice;
    use cctape::source::Source;
    use std::time::{Duration, SystemTime};
    if bytes.is_empty() {
        return false;
    }
    let mut body = Vec::with_capacity((1 << 20) + bytes.len() + 1);
    while body.len() < 1 << 20 {
        body.extend_from_slice(bytes);
        if !bytes.ends_with(b"\n") {
            body.push(b'\n');
        }
    }
    let path = std::env::temp_dir().join(format!(
        "cctape-check-mapped-{}-{:?}.jsonl",
        std::process::id(),
        std::thread::current().id()
    ));
    let write = || {
        std::fs::write(&path, &body).expect("write");
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(SystemTime::now() - Duration::from_secs(3600)))
            .expect("mtime");
    };
    let read = |map: bool, during: &mut dyn FnMut(usize)| -> Vec<String> {
        let src = Source::open(&path).expect("open");
        let sniffed = Sniffed::new(src, FormatChoice::Auto);
        let mut got = Vec::new();
        let opts = ReadOptions {
            map,
            ..ReadOptions::default()
        };
        let end = sniffed.read(&opts, &mut |item: Item<'_, '_>| {
            let at = match &item {
                Item::Event(ev) => format!(" at {}", ev.offset()),
                _ => String::new(),
            };
            got.push(describe_item(&item) + &at);
            during(got.len());
            ControlFlow::Continue(())
        });
        got.push(format!(
            "end {:?} {} {:?}",
            end.counts,
            end.bytes,
            end.failure.map(|e| e.to_string())
        ));
        got
    };
    write();
    let plain = read(false, &mut |_| {});
    let mapped = read(true, &mut |_| {});
    assert_eq!(plain, mapped, "mapped and read differ");
    // Cut while the map reads it.
    write();
    // Cut after item `after` (1-based, so that a cut always happens).
    let after = 1 + after % plain.len();
    let cut = (cut % (body.len() + 1)) as u64;
    // Read ahead of the cut, a read buffer holds lines past it: only a map
    // is held to the cut (a file whose first bytes are all its text is
    // read, not mapped).
    let mut mapped = false;
    let got = read(true, &mut |n| {
        if n == 1 {
            let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
            mapped = maps.lines().any(|l| l.ends_with(&*path.to_string_lossy()));
        }
        if n == after {
            let f = std::fs::File::options()
                .write(true)
                .open(&path)
                .expect("open");
            f.set_len(cut).expect("truncate");
        }
    });
    let lines: std::collections::HashMap<u64, (u64, usize)> = Lines::new(&body)
        .map(|l| (l.number, (l.offset, l.bytes.len())))
        .collect();
    for (i, g) in got[..got.len() - 1].iter().enumerate() {
        if let Some(rest) = g.strip_prefix("event ") {
            let mut f = rest.split(' ');
            let number: u64 = f.next().and_then(|s| s.parse().ok()).expect("line");
            let len: usize = f.nth(1).and_then(|s| s.parse().ok()).expect("len");
            let offset: u64 = rest
                .rsplit(' ')
                .next()
                .and_then(|s| s.parse().ok())
                .expect("at");
            // The event (its JSON, without the line's blanks or CR) lies in
            // its own line of the file, and when it came after the cut,
            // before the cut.
            let own = lines.get(&number).copied();
            assert!(
                own.is_some_and(|(o, l)| o <= offset && offset + len as u64 <= o + l as u64),
                "not the file's own line: {g}"
            );
            assert!(
                !mapped || i < after || offset + len as u64 <= cut,
                "item {} past the cut at {cut}: {g}",
                i + 1
            );
        } else if !plain.contains(g) {
            assert!(
                g.contains("Truncated") || g.contains("the file shrank") || g.contains("Io"),
                "an error reading does not give: {g}"
            );
        }
    }
    let _ = std::fs::remove_file(&path);
    mapped
}
