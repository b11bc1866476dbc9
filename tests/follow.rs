//! The library side of live pipelines: `RunReader::idle_for` hands a
//! finished run out while the stream is still open, `Follower` follows a
//! file as `tail -F` does, and a `Checkpoint` round-trips and says where
//! a bad one is wrong.

use cctape::follow::{Checkpoint, FollowOptions, FollowReader, Follower, Item, Position};
use cctape::run::{RunReader, Verdict};
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A stream fed through a channel whose reads time out, as a socket's do.
struct Timed(mpsc::Receiver<Vec<u8>>, Vec<u8>);

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.1.is_empty() {
            match self.0.recv_timeout(Duration::from_millis(10)) {
                Ok(b) => self.1 = b,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(std::io::ErrorKind::TimedOut.into());
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(0),
            }
        }
        let n = buf.len().min(self.1.len());
        buf[..n].copy_from_slice(&self.1[..n]);
        self.1.drain(..n);
        Ok(n)
    }
}

const RUN_A: &[u8] = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"a\"}\n\
{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"a\"}\n";

#[test]
fn idle_for_hands_a_run_out_while_the_stream_is_open() {
    let (tx, rx) = mpsc::channel();
    tx.send(RUN_A.to_vec()).unwrap();
    let mut runs = RunReader::new(Timed(rx, Vec::new())).idle_for(Duration::from_millis(50));
    // The sender is alive: the stream has not ended, yet the run comes.
    let a = runs.next().unwrap().unwrap();
    assert_eq!(
        (a.session_id.as_deref(), a.verdict),
        (Some("a"), Verdict::Success)
    );
    // A later line of the same session is a new run; the end hands it out.
    tx.send(b"{\"type\":\"user\",\"session_id\":\"a\"}\n".to_vec())
        .unwrap();
    drop(tx);
    let rest: Vec<_> = runs.map(Result::unwrap).collect();
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].verdict, Verdict::NoResult);
}

/// Without idle_for, a timed-out read ends the stream with an error (as
/// before): the run comes with it, not before.
#[test]
fn without_idle_for_a_timeout_is_an_error() {
    let (tx, rx) = mpsc::channel();
    tx.send(RUN_A.to_vec()).unwrap();
    let items: Vec<_> = RunReader::new(Timed(rx, Vec::new())).collect();
    drop(tx);
    assert_eq!(items.len(), 2);
    assert!(items[0].is_ok());
    assert!(items[1].is_err());
}

/// A run without a result is never idle: it waits for the end.
#[test]
fn idle_for_keeps_a_run_without_a_result() {
    let (tx, rx) = mpsc::channel();
    tx.send(b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"a\"}\n".to_vec())
        .unwrap();
    let mut runs = RunReader::new(Timed(rx, Vec::new())).idle_for(Duration::from_millis(20));
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        drop(tx);
    });
    let start = Instant::now();
    let a = runs.next().unwrap().unwrap();
    assert!(
        start.elapsed() >= Duration::from_millis(250),
        "came before the end"
    );
    assert_eq!(a.verdict, Verdict::NoResult);
    t.join().unwrap();
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("cctape-follow-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Only whole lines are handed out; a line's end written later completes
/// it; truncation starts again from the start; the positions are where the
/// lines handed out end.
#[test]
fn follower_hands_out_whole_lines_and_positions() {
    let d = tmp("lines");
    let p = d.join("a.jsonl");
    std::fs::write(&p, b"one\ntw").unwrap();
    let opts = FollowOptions {
        poll: Duration::from_millis(20),
        events: false,
        ..FollowOptions::default()
    };
    let mut f = Follower::new(std::slice::from_ref(&p), opts).unwrap();
    let mut got = Vec::new();
    let mut changes = Vec::new();
    let take = |f: &mut Follower, got: &mut Vec<u8>, changes: &mut Vec<String>| {
        while let Some(item) = f.next_item(Duration::from_millis(100)).unwrap() {
            match item {
                Item::Lines { bytes, .. } => got.extend_from_slice(bytes),
                Item::Change { change, .. } => changes.push(change.to_string()),
            }
        }
    };
    take(&mut f, &mut got, &mut changes);
    assert_eq!(got, b"one\n");
    let pos = f.checkpoint().get(&p).unwrap();
    assert_eq!(pos.offset, 4);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&p)
        .unwrap()
        .write_all(b"o\n")
        .unwrap();
    take(&mut f, &mut got, &mut changes);
    assert_eq!(got, b"one\ntwo\n");
    std::fs::write(&p, b"x\n").unwrap();
    take(&mut f, &mut got, &mut changes);
    assert_eq!(got, b"one\ntwo\nx\n");
    assert_eq!(changes, ["following", "file truncated"]);
    assert_eq!(f.checkpoint().get(&p).unwrap().offset, 2);
}

/// `FollowReader` with a read timeout: a read with no line fails with
/// TimedOut, then lines come through as they are written.
#[test]
fn follow_reader_times_out_then_reads() {
    let d = tmp("reader");
    let p = d.join("a.jsonl");
    std::fs::write(&p, b"").unwrap();
    let f = Follower::new(std::slice::from_ref(&p), FollowOptions::default()).unwrap();
    let mut r = FollowReader::new(f).read_timeout(Some(Duration::from_millis(50)));
    let mut buf = [0u8; 64];
    let e = r.read(&mut buf).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
    std::fs::write(&p, b"hello\n").unwrap();
    let t = Instant::now();
    let n = loop {
        match r.read(&mut buf) {
            Ok(n) => break n,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                assert!(t.elapsed() < Duration::from_secs(30));
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(&buf[..n], b"hello\n");
}

#[test]
fn checkpoint_round_trips_and_bad_ones_say_where() {
    let d = tmp("checkpoint");
    let p = d.join("cp.json");
    assert_eq!(Checkpoint::load(&p).unwrap(), Checkpoint::default());
    let mut c = Checkpoint::default();
    c.set(
        std::path::Path::new("runs/a.jsonl"),
        Position {
            dev: 1,
            ino: 2,
            offset: 3,
            replay: Some(1),
        },
    );
    c.save(&p).unwrap();
    assert_eq!(Checkpoint::load(&p).unwrap(), c);
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
    std::fs::write(
        &p,
        b"{\"files\":[{\"path\":\"a\",\"dev\":1,\"ino\":\"x\",\"offset\":0}]}",
    )
    .unwrap();
    let e = Checkpoint::load(&p).unwrap_err().to_string();
    assert!(e.contains("files[0].ino: expected a number"), "{e}");
    std::fs::write(&p, b"{\"files\":[").unwrap();
    let e = Checkpoint::load(&p).unwrap_err().to_string();
    assert!(e.contains("line 1 column"), "{e}");
}
