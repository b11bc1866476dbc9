//! UTF-16 inputs (as Windows PowerShell 5.1's `>` writes a command's
//! output): told by a byte order mark, or without one by the NUL bytes of
//! ASCII text in UTF-16 ([`utf16_order`]), and handed out as UTF-8.

use std::io::{self, Read};

/// UTF-16 text told by its byte order mark, handed out as UTF-8 (as
/// ripgrep reads it): Windows PowerShell 5.1's `>` writes a command's output
/// as UTF-16LE. The decoding is std's `char::decode_utf16`; a lone
/// surrogate becomes U+FFFD. The mark itself is dropped.
/// `Some(big_endian)` when `head` starts with a UTF-16 byte order mark.
fn utf16_bom(head: &[u8]) -> Option<bool> {
    match head {
        [0xff, 0xfe, ..] => Some(false),
        [0xfe, 0xff, ..] => Some(true),
        _ => None,
    }
}

/// How many UTF-16 code units of ASCII text tell UTF-16 without a byte
/// order mark (six bytes: what [`super::Source::new`] reads first).
const UNMARKED_UNITS: usize = 3;

/// `Some(big_endian)` when `head` is UTF-16: it starts with a byte order
/// mark, or, without one (`iconv -t UTF-16LE`, .NET's `Encoding.Unicode`
/// without its preamble), with three code units of ASCII text (a printable
/// character, a tab or a line end) whose other byte is NUL: `{\0"\0t\0`
/// in little endian, `\0{\0"\0t` in big endian. Neither UTF-8 text nor
/// JSON holds NUL bytes, so this does not mistake them.
///
/// ```text
/// {"type" in UTF-16LE: 7b 00 22 00 74 00 ...   -> Some(false)
/// {"type" in UTF-16BE: 00 7b 00 22 00 74 ...   -> Some(true)
/// ```
pub(super) fn utf16_order(head: &[u8]) -> Option<bool> {
    if let Some(order) = utf16_bom(head) {
        return Some(order);
    }
    let units = head.get(..2 * UNMARKED_UNITS)?;
    let text = |b: u8| matches!(b, b'\t' | b'\n' | b'\r' | 0x20..=0x7e);
    let all = |f: &dyn Fn(&[u8]) -> bool| units.chunks_exact(2).all(f);
    if all(&|u| text(u[0]) && u[1] == 0) {
        Some(false)
    } else if all(&|u| u[0] == 0 && text(u[1])) {
        Some(true)
    } else {
        None
    }
}

/// The decoded bytes of a compressed input, read as UTF-8 when they are
/// UTF-16 ([`utf16_order`]); true when they are. The first six bytes are
/// read to tell, and handed out again; an error reading them is handed
/// out where it happened, as the decoder would have.
pub(super) fn decoded_utf16<'a>(mut decoded: Box<dyn Read + 'a>) -> (Box<dyn Read + 'a>, bool) {
    let mut head = [0u8; 2 * UNMARKED_UNITS];
    let mut n = 0;
    let mut failed = None;
    while n < head.len() {
        match decoded.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    let order = utf16_order(&head[..n]);
    let whole = io::Cursor::new(head)
        .take(n as u64)
        .chain(FailOnce(failed))
        .chain(decoded);
    match order {
        Some(order) => (Box::new(Utf16::new(whole, order)), true),
        None => (Box::new(whole), false),
    }
}

/// A reader that returns its error once, then ends.
struct FailOnce(Option<io::Error>);

impl Read for FailOnce {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

pub(super) struct Utf16<R> {
    inner: R,
    big_endian: bool,
    /// Raw bytes read and not yet decoded (an odd byte, a high surrogate).
    raw: Vec<u8>,
    /// UTF-8 ready to hand out, from `out_at`.
    out: Vec<u8>,
    out_at: usize,
    bom_left: bool,
    eof: bool,
}

impl<R: Read> Utf16<R> {
    pub(super) fn new(inner: R, big_endian: bool) -> Utf16<R> {
        Utf16 {
            inner,
            big_endian,
            raw: Vec::new(),
            out: Vec::new(),
            out_at: 0,
            bom_left: true,
            eof: false,
        }
    }

    /// Decode what `raw` holds into `out`, keeping an odd last byte and a
    /// high surrogate at the end for the next read (unless the input ended).
    fn decode(&mut self) {
        let big_endian = self.big_endian;
        let unit = |b: &[u8]| {
            let pair = [b[0], b[1]];
            if big_endian {
                u16::from_be_bytes(pair)
            } else {
                u16::from_le_bytes(pair)
            }
        };
        let Utf16 { raw, out, .. } = self;
        let mut units = raw.len() / 2;
        if !self.eof && units > 0 && (0xd800..0xdc00).contains(&unit(&raw[2 * units - 2..])) {
            units -= 1;
        }
        let mut skip = 0;
        if self.bom_left && units > 0 {
            self.bom_left = false;
            skip = usize::from(unit(raw) == 0xfeff);
        }
        out.clear();
        self.out_at = 0;
        let mut utf8 = [0u8; 4];
        let decoded = raw[..2 * units].chunks_exact(2).map(unit).skip(skip);
        for c in char::decode_utf16(decoded) {
            let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
            out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        }
        raw.drain(..2 * units);
        if self.eof && !raw.is_empty() {
            // An odd byte at the very end: not a character.
            raw.clear();
            out.extend_from_slice(
                char::REPLACEMENT_CHARACTER
                    .encode_utf8(&mut utf8)
                    .as_bytes(),
            );
        }
    }
}

impl<R: Read> Read for Utf16<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_at == self.out.len() {
            if self.eof {
                return Ok(0);
            }
            let mut chunk = [0u8; 8 << 10];
            let n = loop {
                match self.inner.read(&mut chunk) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    r => break r?,
                }
            };
            self.raw.extend_from_slice(&chunk[..n]);
            self.eof = n == 0;
            self.decode();
        }
        let n = buf.len().min(self.out.len() - self.out_at);
        buf[..n].copy_from_slice(&self.out[self.out_at..self.out_at + n]);
        self.out_at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use crate::source::testing::{gzip, read_all, trickle, utf16};
    use crate::source::{Compression, EndReport, Source, SourceKind};

    #[test]
    fn utf16_with_a_byte_order_mark_reads_as_utf8() {
        // Surrogate pairs (emoji) and U+2028 across every read boundary,
        // past the 8 KiB the decoder reads at once.
        let text: String = (0..3000)
            .map(|i| {
                format!("{{\"type\":\"user\",\"n\":{i},\"t\":\"\u{1F600}a\u{2028}\u{e9}\"}}\n")
            })
            .collect();
        for big_endian in [false, true] {
            let mut bytes = if big_endian {
                vec![0xfe, 0xff]
            } else {
                vec![0xff, 0xfe]
            };
            bytes.extend(utf16(&text, big_endian));
            for step in [1, 3, 7, 4096, 1 << 20] {
                let src = trickle(&bytes, step);
                let s = Source::new(src, SourceKind::Stream, &EndReport::new()).unwrap();
                assert!(s.is_utf16());
                assert!(!s.is_plain_file());
                assert_eq!(s.compression(), Compression::None);
                let got = read_all(s.into_reader()).unwrap();
                assert!(
                    got == text.as_bytes(),
                    "big endian {big_endian}, step {step}"
                );
            }
            // A lone high surrogate at the end and an odd last byte become
            // U+FFFD each; nothing is lost before them.
            let mut cut = bytes.clone();
            let hi = if big_endian {
                [0xd8, 0x3d]
            } else {
                [0x3d, 0xd8]
            };
            cut.extend_from_slice(&hi);
            cut.push(b'x');
            let s = Source::new(&cut[..], SourceKind::Stream, &EndReport::new()).unwrap();
            let got = read_all(s.into_reader()).unwrap();
            assert_eq!(&got[..text.len()], text.as_bytes());
            assert_eq!(&got[text.len()..], "\u{FFFD}\u{FFFD}".as_bytes());
        }
        // No mark: bytes pass untouched.
        let s = Source::new(&b"{}\n"[..], SourceKind::Stream, &EndReport::new()).unwrap();
        assert!(!s.is_utf16());
    }

    #[test]
    fn utf16_compressed_reads_as_utf8_and_other_decoded_bytes_pass_untouched() {
        let text = "{\"type\":\"user\",\"t\":\"\u{1F600}\u{e9}\"}\n".repeat(500);
        let mut le = vec![0xff, 0xfe];
        le.extend(utf16(&text, false));
        let zst = zstd::encode_all(&le[..], 3).unwrap();
        for (packed, how) in [(gzip(&le), Compression::Gzip), (zst, Compression::Zstd)] {
            for step in [1, 5, 1 << 20] {
                let src = trickle(&packed, step);
                let s = Source::new(src, SourceKind::Stream, &EndReport::new()).unwrap();
                assert_eq!((s.compression(), s.is_utf16()), (how, true));
                assert!(read_all(s.into_reader()).unwrap() == text.as_bytes());
            }
        }
        // Without a mark, and shorter than one (one byte, none), the
        // decoded bytes are handed out whole.
        for body in [&b"{\"type\":\"user\"}\n"[..], b"x", b""] {
            let packed = gzip(body);
            let s = Source::new(&packed[..], SourceKind::Stream, &EndReport::new()).unwrap();
            assert!(!s.is_utf16());
            assert_eq!(read_all(s.into_reader()).unwrap(), body);
        }
        // Cut anywhere: what is handed out before the error (or the end) is
        // the text's start, but for one U+FFFD where a character was cut.
        let packed = gzip(&le);
        for cut in (0..packed.len()).step_by(7) {
            let Ok(s) = Source::new(&packed[..cut], SourceKind::Stream, &EndReport::new()) else {
                continue;
            };
            let mut got = Vec::new();
            let mut r = s.into_reader();
            let mut buf = [0u8; 333];
            while let Ok(n @ 1..) = r.read(&mut buf) {
                got.extend_from_slice(&buf[..n]);
            }
            let got = got.strip_suffix("\u{FFFD}".as_bytes()).unwrap_or(&got);
            assert!(text.as_bytes().starts_with(got), "cut at {cut}");
        }
        // A member cut inside its first bytes: the error is handed out by
        // the reader, as before the mark was looked for.
        let cut = gzip(b"{\"type\":\"user\"}\n");
        let s = Source::new(&cut[..12], SourceKind::Stream, &EndReport::new()).unwrap();
        assert!(read_all(s.into_reader()).is_err());
    }

    #[test]
    fn utf16_without_a_byte_order_mark_is_told_by_its_nuls_and_read() {
        let text: String = (0..2000)
            .map(|i| format!("{{\"type\":\"user\",\"n\":{i},\"t\":\"\u{1F600}\u{e9}\"}}\n"))
            .collect();
        for big_endian in [false, true] {
            let bytes = utf16(&text, big_endian);
            for step in [1, 2, 5, 4096, 1 << 20] {
                let src = trickle(&bytes, step);
                let s = Source::new(src, SourceKind::Stream, &EndReport::new()).unwrap();
                assert!(s.is_utf16(), "big endian {big_endian}");
                assert!(read_all(s.into_reader()).unwrap() == text.as_bytes());
            }
            // Compressed, too.
            let packed = gzip(&bytes);
            let s = Source::new(&packed[..], SourceKind::Stream, &EndReport::new()).unwrap();
            assert_eq!((s.compression(), s.is_utf16()), (Compression::Gzip, true));
            assert!(read_all(s.into_reader()).unwrap() == text.as_bytes());
            // Text too (a harness's text output), from its first bytes.
            let api = utf16("API Error: 500\n", big_endian);
            let s = Source::new(&api[..], SourceKind::Stream, &EndReport::new()).unwrap();
            assert_eq!(read_all(s.into_reader()).unwrap(), b"API Error: 500\n");
        }
        // What is not UTF-16 passes untouched: UTF-8 (no NUL), NULs alone,
        // binary data, a NUL pattern broken within three units.
        for bytes in [
            &b"{\"type\":\"user\"}\n"[..],
            b"\0\0\0\0\0\0\0\0",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
            b"{\0\"\0\xe9\x01",
            b"{\0\"\0",
        ] {
            let s = Source::new(bytes, SourceKind::Stream, &EndReport::new()).unwrap();
            assert!(!s.is_utf16(), "{bytes:?}");
            assert_eq!(read_all(s.into_reader()).unwrap(), bytes);
        }
    }
}
