//! A file's first bytes read to sniff it (`read_prefix`, into the thread's
//! kept buffer) and handed out again in front of the rest (`Prefixed`):
//! two inputs in turn, through reads of fuzzer-chosen sizes (some
//! interrupted), some ending in an error. Each comes back whole and in
//! order, the prefix is a prefix of it, and nothing of the first input is
//! seen in the second.
#![no_main]

use cctape::inputs::{Prefixed, read_prefix};
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

fn one(input: &[u8], step: usize, fail: bool, stream: bool) {
    // Reads of `step` bytes, an interrupted read, half a step, in turn.
    let sizes = [step, 0, step / 2 + 1];
    let short = ShortReader::new(input, &sizes);
    let mut r: Box<dyn Read + '_> = if fail {
        Box::new(short.chain(Gone))
    } else {
        Box::new(short)
    };
    let p = read_prefix(&mut *r, stream);
    assert!(input.starts_with(&p.bytes));
    let held = p.bytes.len();
    let errored = p.error.is_some();
    let mut out = Vec::new();
    let mut rd = Prefixed::new(p, r);
    let mut buf = [0u8; 4096];
    let mut failed = false;
    loop {
        match rd.read(&mut buf[..step.clamp(1, 4096)]) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
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
