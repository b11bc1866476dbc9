//! An input's first decoded bytes: read once to tell its format
//! ([`read_prefix`]), then handed out again in front of the rest
//! ([`Prefixed`]), in a buffer kept for the thread's next input.

use crate::framing::DEFAULT_READ_SIZE;
use crate::sniff::{Format, FormatChoice, SNIFF_BYTES, prefix_is_enough};
use std::io::{self, Read};

/// The first decoded bytes of an input, held to tell how it is read
/// ([`read_prefix`]), then handed out again in front of the rest
/// ([`Prefixed`]).
#[derive(Debug, Default)]
pub struct Prefix {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// True when they are all of the input: it ended (or a read failed)
    /// within them.
    pub whole: bool,
    /// The error met reading them, if one was: handed out after them.
    pub error: Option<io::Error>,
}

impl Prefix {
    /// The format the input is read as, as `choice` asks
    /// ([`FormatChoice::decide`]).
    pub fn decide(&self, choice: FormatChoice) -> Format {
        choice.decide(&self.bytes, self.whole)
    }

    /// The first [`SNIFF_BYTES`] of them, to say what an input without
    /// events looks like.
    pub fn shown(&self) -> Vec<u8> {
        self.bytes[..self.bytes.len().min(SNIFF_BYTES)].to_vec()
    }
}

/// Prefix buffers kept for the next input when one is read (at most one a
/// thread, at most [`SNIFF_BYTES`] and a little): a walk over many small
/// files reads each file's first bytes into the same written bytes.
const KEPT_PREFIX_MAX: usize = 2 * SNIFF_BYTES;

thread_local! {
    /// The buffer of this thread's last prefix, once read ([`Prefixed`]).
    static KEPT_PREFIX: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// `buf` kept for the next [`read_prefix`] when it is not too large.
fn keep_prefix(buf: Vec<u8>) {
    if buf.capacity() <= KEPT_PREFIX_MAX {
        // At thread exit the slot may be gone: the buffer is then freed.
        let _ = KEPT_PREFIX.try_with(|k| k.set(buf));
    }
}

/// Reads into `buf` until it is full or the input ends (what
/// `take(n).read_to_end` does, into bytes already written): the count read,
/// and that count or the error met after it.
fn fill(rdr: &mut dyn Read, buf: &mut [u8]) -> (usize, io::Result<usize>) {
    let mut n = 0;
    while n < buf.len() {
        match rdr.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (n, Err(e)),
        }
    }
    (n, Ok(n))
}

/// The first decoded bytes of an input, as many as tell its format
/// ([`prefix_is_enough`]): [`SNIFF_BYTES`] of a file (or a decompressor)
/// at once, or of a stream (a pipe, a terminal) no more than it takes to
/// hold its first complete line that opens JSON, so that a live writer is
/// not waited for; more (up to [`crate::sniff::MAX_HELD`]) while they hold
/// text only, so that a warning or a cut line first does not decide. A
/// read error is kept, to be met after these bytes ([`Prefixed`]).
pub fn read_prefix(rdr: &mut dyn Read, stream: bool) -> Prefix {
    // A file's first read goes into the buffer the thread's last prefix
    // left ([`KEPT_PREFIX`]): its bytes are already written, so nothing is
    // zeroed (`read_to_end` through a reader without `read_buf` zeroed 64
    // KiB a file: 26M of the 1,197M instructions of `stats` over the
    // 418-file transcript tree; issue 23 item 9).
    let mut buf: Vec<u8> = if stream {
        Vec::new()
    } else {
        KEPT_PREFIX.try_with(|k| k.take()).unwrap_or_default()
    };
    let mut first = !stream;
    loop {
        // A file's first bytes at once; then, and from a stream, what one
        // read gives.
        let want = if first {
            SNIFF_BYTES
        } else {
            DEFAULT_READ_SIZE.min(SNIFF_BYTES)
        };
        // The kept buffer's old bytes are room to read into: sized without
        // zeroing what was written before (`resize` zeroes only past them).
        let before = if first { 0 } else { buf.len() };
        let room = want.min(crate::sniff::MAX_HELD - before);
        buf.resize(before + room, 0);
        let (n, got) = if first {
            fill(rdr, &mut buf)
        } else {
            loop {
                match rdr.read(&mut buf[before..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Ok(n) => break (n, Ok(n)),
                    Err(e) => break (0, Err(e)),
                }
            }
        };
        buf.truncate(before + n);
        match got {
            // A file's first read stops short only at its end.
            Ok(0) => {
                return Prefix {
                    bytes: buf,
                    whole: true,
                    error: None,
                };
            }
            Ok(n) if first && n < room => {
                return Prefix {
                    bytes: buf,
                    whole: true,
                    error: None,
                };
            }
            Ok(_) => {}
            Err(e) => {
                return Prefix {
                    bytes: buf,
                    whole: true,
                    error: Some(e),
                };
            }
        }
        first = false;
        if prefix_is_enough(&buf) {
            return Prefix {
                bytes: buf,
                whole: false,
                error: None,
            };
        }
    }
}

/// The sniffed prefix ([`read_prefix`]), then the error met while reading
/// it, if one was, then the rest of the input. Once read, the prefix's
/// buffer is kept for the thread's next [`read_prefix`].
///
/// When the prefix is the whole input (its end was read), `inner` is not
/// read again: a small file costs no read past the one that met its end.
#[derive(Debug)]
pub struct Prefixed<R> {
    prefix: Vec<u8>,
    pos: usize,
    error: Option<io::Error>,
    ended: bool,
    inner: R,
}

impl<R: Read> Prefixed<R> {
    /// `prefix` as [`read_prefix`] gave it, then `inner`.
    pub fn new(prefix: Prefix, inner: R) -> Prefixed<R> {
        Prefixed {
            ended: prefix.whole && prefix.error.is_none(),
            prefix: prefix.bytes,
            pos: 0,
            error: prefix.error,
            inner,
        }
    }
}

impl<R: Read> Read for Prefixed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos < self.prefix.len() {
            let n = buf.len().min(self.prefix.len() - self.pos);
            buf[..n].copy_from_slice(&self.prefix[self.pos..self.pos + n]);
            self.pos += n;
            if self.pos == self.prefix.len() {
                keep_prefix(std::mem::take(&mut self.prefix));
                self.pos = 0;
            }
            return Ok(n);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.ended {
            return Ok(0);
        }
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader handing out `data` a few bytes at a time, then `fail` (an
    /// error) or its end.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
        fail: bool,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.data.is_empty() {
                return if self.fail {
                    Err(io::Error::other("disk gone"))
                } else {
                    Ok(0)
                };
            }
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn all_of(p: Prefix, rest: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let r = Prefixed::new(p, rest).read_to_end(&mut out);
        assert!(r.is_ok());
        out
    }

    #[test]
    fn a_file_prefix_is_read_whole_through_short_reads_into_a_kept_buffer() {
        // A large file first: its prefix fills the buffer, which is kept.
        let big: Vec<u8> = b"{\"type\":\"user\"}\n".repeat(SNIFF_BYTES / 16 + 10);
        let mut r = Trickle {
            data: &big,
            step: 7000,
            fail: false,
        };
        let p = read_prefix(&mut r, false);
        assert_eq!(
            (p.bytes.len(), p.whole, p.error.is_none()),
            (SNIFF_BYTES, false, true)
        );
        assert_eq!(all_of(p, r.data), big);
        // A small file next, in the kept buffer: its bytes only, none of
        // the last file's.
        let small = b"{\"type\":\"result\"}\n";
        let mut r = Trickle {
            data: small,
            step: 3,
            fail: false,
        };
        let p = read_prefix(&mut r, false);
        assert_eq!((&p.bytes[..], p.whole), (&small[..], true));
        assert_eq!(all_of(p, b""), small);
    }

    #[test]
    fn a_prefix_that_is_the_whole_input_reads_nothing_after_it() {
        // Its end was read: what comes after it (a file grown since, or
        // a terminal's next line after Ctrl-D) is not read.
        let mut r = Trickle {
            data: b"{\"type\":\"result\"}\n",
            step: 100,
            fail: false,
        };
        let p = read_prefix(&mut r, false);
        assert!(p.whole);
        assert_eq!(
            all_of(p, b"{\"type\":\"user\"}\n"),
            b"{\"type\":\"result\"}\n"
        );
        // Not the whole input: the rest follows.
        let big: Vec<u8> = b"{\"type\":\"user\"}\n".repeat(SNIFF_BYTES / 16 + 1);
        let mut r = Trickle {
            data: &big,
            step: 1 << 20,
            fail: false,
        };
        let p = read_prefix(&mut r, false);
        assert!(!p.whole);
        assert_eq!(all_of(p, r.data), big);
    }

    #[test]
    fn bytes_read_before_an_error_are_kept_and_the_error_comes_after_them() {
        let mut r = Trickle {
            data: b"{\"type\":\"user\"}\n{\"ty",
            step: 5,
            fail: true,
        };
        let p = read_prefix(&mut r, false);
        assert_eq!(&p.bytes[..], b"{\"type\":\"user\"}\n{\"ty");
        assert!(p.whole);
        assert_eq!(
            p.error.as_ref().map(|e| e.to_string()),
            Some("disk gone".into())
        );
        let mut rd = Prefixed::new(p, &b""[..]);
        let mut out = vec![0u8; 64];
        let mut got = Vec::new();
        let err = loop {
            match rd.read(&mut out) {
                Ok(0) => break None,
                Ok(n) => got.extend_from_slice(&out[..n]),
                Err(e) => break Some(e),
            }
        };
        assert_eq!(&got[..], b"{\"type\":\"user\"}\n{\"ty");
        assert_eq!(err.map(|e| e.to_string()), Some("disk gone".into()));
    }
}
