//! A file's first bytes read to sniff it (`read_prefix`, into the thread's
//! kept buffer) and handed out again in front of the rest (`Prefixed`):
//! two inputs in turn, through reads of fuzzer-chosen sizes, some ending
//! in an error. Each comes back whole and in order, the prefix is a prefix
//! of it, and nothing of the first input is seen in the second.
#![no_main]

use cctape::inputs::{Prefixed, read_prefix};
use libfuzzer_sys::fuzz_target;
use std::io::{self, Read};

/// `data` a few bytes a read, then an error or its end.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
    fail: bool,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.data.is_empty() {
            return if self.fail { Err(io::Error::other("gone")) } else { Ok(0) };
        }
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn one(input: &[u8], step: usize, fail: bool, stream: bool) {
    let mut r = Trickle { data: input, step, fail };
    let p = read_prefix(&mut r, stream);
    assert!(input.starts_with(&p.bytes));
    let held = p.bytes.len();
    let errored = p.error.is_some();
    let mut out = Vec::new();
    let mut rd = Prefixed::new(p, r);
    let mut buf = [0u8; 4096];
    let mut failed = false;
    loop {
        match rd.read(&mut buf[..step.max(1).min(4096)]) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    // Every byte, in order; an error comes after them, once.
    assert_eq!(out, input, "held {held}");
    assert_eq!(failed, fail);
    if errored {
        assert!(fail);
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let step = 1 + (usize::from(data[0]) << 4 | usize::from(data[1] & 0x0f)) * 37;
    let flags = data[1] >> 4;
    let body = &data[4..];
    let cut = (usize::from(data[2]) << 8 | usize::from(data[3])).min(body.len());
    // Repeated so that a prefix can fill its 64 KiB.
    let times = 1 + usize::from(flags & 3) * 40;
    let first: Vec<u8> = body[..cut].repeat(times);
    let second = &body[cut..];
    one(&first, step, flags & 4 != 0, false);
    one(second, step, flags & 8 != 0, flags & 1 != 0);
});
