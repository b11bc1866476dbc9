//! LZ4 legacy frames (`lz4 -l`, magic `02 21 4C 18`; issue 22, item 4) are
//! read as `lz4 -dc` reads them: files made by the real `lz4` tool (one
//! frame, blocks of 8 MiB, frames concatenated, with modern frames too),
//! through the library and every reading command, and a cut file is an
//! error with its position after the events before it. Without the `lz4`
//! command the tests say so and pass, unless `CI` is set.

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::scratch;

/// True when the `lz4` command runs; under CI its absence fails.
fn have_lz4() -> bool {
    let ok = Command::new("lz4")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        println!("skipped: no lz4 command (apt-get install lz4)");
        assert!(std::env::var_os("CI").is_none(), "CI needs the lz4 command");
    }
    ok
}

fn lz4(args: &[&str], input: &Path, output: &Path) {
    let o = Command::new("lz4")
        .args(args)
        .args(["-q", "-f"])
        .arg(input)
        .arg(output)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// What `lz4 -dc` makes of `path`.
fn lz4_dc(path: &Path) -> Vec<u8> {
    let o = Command::new("lz4")
        .args(["-dc"])
        .arg(path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o.stdout
}

/// A stream of `n` events (a run: init, assistants and users, a result).
fn stream(n: usize) -> Vec<u8> {
    let mut out =
        br#"{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-4-5"}"#
            .to_vec();
    out.push(b'\n');
    for i in 0..n {
        out.extend_from_slice(
            format!(
                r#"{{"type":"assistant","message":{{"id":"msg_{i}","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"step {i}: {}"}}],"usage":{{"input_tokens":3,"output_tokens":{}}}}},"session_id":"s"}}"#,
                "x".repeat(i % 97),
                i % 11
            )
            .as_bytes(),
        );
        out.push(b'\n');
    }
    out.extend_from_slice(
        br#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"s"}"#,
    );
    out.push(b'\n');
    out
}

fn decoded(path: &Path) -> Vec<u8> {
    let s = cctape::source::Source::open(path).unwrap();
    assert_eq!(s.compression(), cctape::source::Compression::Lz4);
    let mut out = Vec::new();
    s.into_reader().read_to_end(&mut out).unwrap();
    out
}

fn stats(path: &Path) -> (Value, Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(["stats", "--json", "-q"])
        .arg(path)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&o.stdout).unwrap();
    (
        v,
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The figures of `stats --json` that do not name the file (its errors
/// and warnings do).
fn figures(v: &Value) -> Value {
    let mut v = v.clone();
    let o = v.as_object_mut().unwrap();
    o.remove("per_file");
    o.remove("errors");
    o.remove("warnings");
    v
}

#[test]
fn files_made_by_lz4_dash_l_read_as_lz4_dc_reads_them() {
    if !have_lz4() {
        return;
    }
    let dir = scratch("lz4-legacy");
    let small = dir.join("small.jsonl");
    std::fs::write(&small, stream(200)).unwrap();
    // Past 8 MiB: a legacy frame of several blocks.
    let big = dir.join("big.jsonl");
    std::fs::write(&big, stream(120_000)).unwrap();
    assert!(std::fs::metadata(&big).unwrap().len() > 17 << 20);
    let mut made: Vec<PathBuf> = Vec::new();
    for (src, args, name) in [
        (&small, &["-l"][..], "small.l.lz4"),
        (&small, &["-l", "-9"], "small.l9.lz4"),
        (&big, &["-l"], "big.l.lz4"),
        (&small, &[], "small.lz4"),
    ] {
        let out = dir.join(name);
        lz4(args, src, &out);
        made.push(out);
    }
    let legacy = std::fs::read(&made[0]).unwrap();
    assert_eq!(
        &legacy[..4],
        [0x02, 0x21, 0x4c, 0x18],
        "lz4 -l writes a legacy frame"
    );
    // Concatenated: two legacy frames; a legacy frame and a modern one.
    let two = dir.join("two.l.lz4");
    std::fs::write(&two, [legacy.clone(), legacy.clone()].concat()).unwrap();
    let mixed = dir.join("mixed.lz4");
    let modern = std::fs::read(&made[3]).unwrap();
    std::fs::write(
        &mixed,
        [legacy.clone(), modern.clone(), legacy.clone()].concat(),
    )
    .unwrap();
    made.extend([two, mixed]);
    for f in &made {
        let want = lz4_dc(f);
        assert!(decoded(f) == want, "{}", f.display());
        // Every command reads it as the plain bytes.
        let plain = dir.join("plain.jsonl");
        std::fs::write(&plain, &want).unwrap();
        let (a, code, err) = stats(f);
        let (b, _, _) = stats(&plain);
        assert_eq!(code, Some(0), "{}: {err}", f.display());
        assert_eq!(figures(&a), figures(&b), "{}", f.display());
        assert!(a["events"].as_u64().unwrap() > 200);
        assert_eq!(a["error_count"], 0);
    }
}

#[test]
fn a_cut_lz4_legacy_file_is_an_error_with_its_position_after_its_events() {
    if !have_lz4() {
        return;
    }
    let dir = scratch("lz4-legacy-cut");
    let src = dir.join("run.jsonl");
    let body = stream(20_000);
    std::fs::write(&src, &body).unwrap();
    let packed = dir.join("run.l.lz4");
    lz4(&["-l"], &src, &packed);
    let bytes = std::fs::read(&packed).unwrap();
    let cut = dir.join("cut.l.lz4");
    let at = bytes.len() / 2;
    std::fs::write(&cut, &bytes[..at]).unwrap();
    // `lz4 -dc` fails on it too.
    let o = Command::new("lz4")
        .args(["-dc"])
        .arg(&cut)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let (v, code, err) = stats(&cut);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "lz4: frame 1 (from compressed byte 0): the input ends inside it; stopped at compressed byte {at}"
        )),
        "{err}"
    );
    // The one block (all of it under 8 MiB) is cut: nothing decoded, the
    // error is the input's.
    assert_eq!(v["events"], 0);
    // A file of two frames cut in the second: the first frame's events are
    // read, then the error names the second frame and where it starts.
    let two = dir.join("two.l.lz4");
    let first = bytes.len();
    std::fs::write(&two, [&bytes[..], &bytes[..at]].concat()).unwrap();
    let (v, code, err) = stats(&two);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(v["events"], 20_002, "{err}");
    assert!(
        err.contains(&format!(
            "lz4: frame 2 (from compressed byte {first}): the input ends inside it"
        )),
        "{err}"
    );
}
