//! A large file read ahead on two cores is cut by `ChunkReader`: the
//! chunks, split into lines, must be the line reader's lines and errors in
//! the same order, with the same numbers and offsets, whatever the chunk
//! size, the maximum line, the read sizes (some interrupted) and an I/O
//! error at the end; the buffers are handed back with their old bytes, as
//! the command hands them back. Read without a line count
//! (`without_line_count`), the lines numbered by the LF-ended lines before
//! each chunk come out the same.
#![no_main]

use cctape::framing::{LineReader, Lines};
use cctape::source::ChunkReader;
use cctape_fuzz::checks::ShortReader;
use libfuzzer_sys::fuzz_target;
use std::io::{self, Read};

/// What a disk that went away gives after the data.
struct Gone;

impl Read for Gone {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::other("gone"))
    }
}

fn reader<'a>(input: &'a [u8], sizes: &'a [usize], fail: bool) -> Box<dyn Read + 'a> {
    let short = ShortReader::new(input, sizes);
    if fail {
        Box::new(short.chain(Gone))
    } else {
        Box::new(short)
    }
}

fn error(e: &cctape::error::Error, shift: u64) -> String {
    let p = e.position();
    format!("{:?} line {} byte {}", e.kind(), p.line + shift, p.offset)
}

fuzz_target!(|data: &[u8]| {
    let [a, b, c, d, body @ ..] = data else {
        return;
    };
    let target = usize::from(*a) % 64 + 1;
    // At least a BOM's length: the line reader waits for three bytes before
    // it tells whether the input starts with a BOM, so an input of one or
    // two bytes over a maximum below three, cut by an I/O error, is an I/O
    // error alone there, and a line past the maximum, then the I/O error,
    // here (found by this target; left: no maximum that small is of use).
    let max_line = usize::from(*b) % 46 + 3;
    let sizes = [usize::from(*c) % 17 + 1, 0, usize::from(*d) % 5 + 1];
    let fail = c & 0x80 != 0;
    let mut lines = LineReader::with_capacity(reader(body, &sizes, fail), 7, max_line);
    let mut want = Vec::new();
    while let Some(l) = lines.next_line() {
        want.push(match l {
            Ok(l) => format!("{} {} {:?}", l.number, l.offset, l.bytes),
            Err(e) => error(&e, 0),
        });
    }
    for counted in [true, false] {
        let r = ChunkReader::with_max_line(reader(body, &sizes, fail), target, max_line);
        let mut r = if counted { r } else { r.without_line_count() };
        let mut got = Vec::new();
        let mut spare: Vec<Vec<u8>> = Vec::new();
        // The LF-ended lines handed out: what an uncounted reader's
        // numbers are short of.
        let mut lfs = 0u64;
        let shift = |lfs: u64| if counted { 0 } else { lfs };
        while let Some(item) = r.next_chunk(spare.pop().unwrap_or_default()) {
            match item {
                Ok(chunk) => {
                    let first = chunk.first_line + shift(lfs);
                    let ls = if chunk.offset == 0 {
                        Lines::new(chunk.bytes())
                    } else {
                        Lines::with_start(chunk.bytes(), first, chunk.offset)
                    };
                    for l in ls {
                        lfs += u64::from(l.terminated);
                        got.push(if l.bytes.len() > max_line {
                            // Read apart, the chunk's reader reports it.
                            format!("LineTooLong line {} byte {}", l.number, l.offset)
                        } else {
                            format!("{} {} {:?}", l.number, l.offset, l.bytes)
                        });
                    }
                    spare.push(chunk.into_buffer());
                }
                Err(e) => got.push(error(&e, shift(lfs))),
            }
        }
        assert_eq!(got, want, "counted {counted}");
        assert_eq!(r.bytes_read(), lines.bytes_read(), "counted {counted}");
    }
});
