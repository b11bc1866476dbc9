//! Inputs: `--jobs 1` against `--jobs 2`, directories, gzip, zstd and
//! stdin read alike, unreadable files skipped with exit 2, UTF-16 captures
//! and binary files, and `-g/--glob` choosing what a walk reads.

use std::io::Write;

use crate::run::{cctape, cctape_stdin};
use crate::{STREAMS, big_file, json, stdout, stream, temp_dir};

#[test]
fn jobs_1_and_jobs_2_give_identical_output() {
    let dir = temp_dir("jobs");
    let big = big_file(&dir);
    let big = big.to_str().expect("path");
    for args in [
        vec!["stats", "--json"],
        vec!["filter", "--type", "result"],
        vec!["filter", "--errors"],
        vec!["fields", "-f", "@line", "-f", "@kind", "-f", "uuid"],
    ] {
        let mut one = args.clone();
        one.extend(["-j", "1", big, STREAMS]);
        let mut two = args.clone();
        two.extend(["-j", "2", big, STREAMS]);
        let a = cctape(&one);
        let b = cctape(&two);
        assert_eq!(a.status.code(), b.status.code(), "{args:?}");
        assert!(!a.stdout.is_empty(), "{args:?} printed nothing");
        assert!(a.stdout == b.stdout, "{args:?}: --jobs 1 and 2 differ");
    }
    // The chunked read keeps true line numbers: the mixed-bad errors sit at
    // the same lines in every copy, and the count is 400 times one copy's.
    let s = json(&cctape(&["stats", "--json", "-j", "2", big]));
    let one = json(&cctape(&["stats", "--json", STREAMS]));
    assert_eq!(
        s["events"].as_u64().unwrap(),
        400 * one["events"].as_u64().unwrap()
    );
    assert_eq!(
        s["error_count"].as_u64().unwrap(),
        400 * one["error_count"].as_u64().unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stats_of_many_runs_in_one_file_cut_between_runs_equal_one_job() {
    let dir = temp_dir("runs");
    let big = big_file(&dir);
    // Make every copy's sessions distinct, so the file is cut between runs.
    let src = std::fs::read(&big).expect("read");
    let one = src.len() / 400;
    let mut body = Vec::with_capacity(src.len() + 400 * 4096);
    let mut copy = 0;
    for line in src.split_inclusive(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line)
            .replace("\"session_id\":\"", &format!("\"session_id\":\"c{copy}-"));
        body.extend_from_slice(text.as_bytes());
        if body.len() / one.max(1) > copy {
            copy += 1;
        }
    }
    let p = dir.join("runs.jsonl");
    std::fs::write(&p, &body).expect("write");
    let p = p.to_str().expect("path");
    let a = cctape(&["stats", "--json", "-j", "1", p]);
    let b = cctape(&["stats", "--json", "-j", "2", p]);
    assert!(a.stdout == b.stdout, "--jobs 1 and 2 differ");
    let v = json(&a);
    assert!(v["runs"].as_u64().unwrap_or(0) > 400, "{}", v["runs"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn directories_compressed_files_and_stdin_read_the_same_events() {
    let dir = temp_dir("inputs");
    let src = std::fs::read(stream("two-subagents.jsonl")).expect("read");
    let nested = dir.join("a/b");
    std::fs::create_dir_all(&nested).expect("mkdir");
    std::fs::write(nested.join("plain.jsonl"), &src).expect("write");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&src).expect("gzip");
    // Named .log.gz; compression is told by the bytes, not the name.
    std::fs::write(dir.join("a/run.log.gz"), gz.finish().expect("gzip")).expect("write");
    std::fs::write(
        dir.join("a/run.ndjson.zst"),
        zstd::encode_all(&src[..], 3).expect("zstd"),
    )
    .expect("write");
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(&src).expect("xz");
    std::fs::write(dir.join("a/s1.jsonl.xz"), xz.finish().expect("xz")).expect("write");
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(&src).expect("bzip2");
    std::fs::write(dir.join("a/s2.jsonl.bz2"), bz.finish().expect("bzip2")).expect("write");
    let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
    lz.write_all(&src).expect("lz4");
    std::fs::write(dir.join("a/s3.jsonl.lz4"), lz.finish().expect("lz4")).expect("write");
    // Not picked up by the walk.
    std::fs::write(dir.join("a/notes.txt"), b"not a stream").expect("write");
    let out = cctape(&["stats", "--json", dir.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["files"], 6);
    let per_file = v["per_file"].as_array().expect("per_file");
    let names: Vec<&str> = per_file
        .iter()
        .map(|f| f["file"].as_str().expect("name"))
        .collect();
    for (i, end) in [
        "a/b/plain.jsonl",
        "a/run.log.gz",
        "a/run.ndjson.zst",
        "a/s1.jsonl.xz",
        "a/s2.jsonl.bz2",
        "a/s3.jsonl.lz4",
    ]
    .iter()
    .enumerate()
    {
        assert!(names[i].ends_with(end), "{names:?}");
    }
    let oracle = src.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count() as u64;
    assert_eq!(per_file[0]["events"].as_u64(), Some(oracle));
    for f in per_file {
        assert_eq!(f["by_type"], per_file[0]["by_type"], "{}", f["file"]);
        assert_eq!(f["bytes"].as_u64(), Some(src.len() as u64), "{}", f["file"]);
        assert_eq!(f["error_count"], 0, "{}", f["file"]);
    }
    let via_stdin = json(&cctape_stdin(&["stats", "--json", "-"], &src));
    assert_eq!(via_stdin["by_type"], per_file[0]["by_type"]);
    for name in [
        "a/run.log.gz",
        "a/s1.jsonl.xz",
        "a/s2.jsonl.bz2",
        "a/s3.jsonl.lz4",
    ] {
        let packed = std::fs::read(dir.join(name)).expect("read");
        let piped = json(&cctape_stdin(&["stats", "--json"], &packed));
        assert_eq!(piped["by_type"], per_file[0]["by_type"], "{name} on stdin");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unreadable_input_is_reported_and_skipped_with_exit_2() {
    let out = cctape(&[
        "stats",
        "--json",
        "/nonexistent/cctape.jsonl",
        &stream("success-basic.jsonl"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/cctape.jsonl"), "{err}");
    let v = json(&out);
    assert_eq!(v["per_file"][1]["events"], 12);
    assert_eq!(v["per_file"][0]["errors"][0]["kind"], "io");
}

#[test]
fn utf16_captures_read_as_their_utf8_text_and_binary_files_are_one_finding() {
    let dir = temp_dir("utf16");
    let src = std::fs::read_to_string(stream("two-subagents.jsonl")).expect("read");
    // Windows PowerShell 5.1's `>` writes UTF-16LE with a byte order mark.
    let mut le = vec![0xff, 0xfe];
    let mut be = vec![0xfe, 0xff];
    for u in src.encode_utf16() {
        le.extend_from_slice(&u.to_le_bytes());
        be.extend_from_slice(&u.to_be_bytes());
    }
    std::fs::write(dir.join("a.jsonl"), &src).expect("write");
    std::fs::write(dir.join("b-le.jsonl"), &le).expect("write");
    std::fs::write(dir.join("c-be.jsonl"), &be).expect("write");
    let out = cctape(&["stats", "--json", dir.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    let per_file = v["per_file"].as_array().expect("per_file");
    assert_eq!(per_file.len(), 3);
    let lines = src.lines().filter(|l| !l.trim().is_empty()).count() as u64;
    for f in per_file {
        assert_eq!(f["events"].as_u64(), Some(lines), "{}", f["file"]);
        assert_eq!(f["by_type"], per_file[0]["by_type"], "{}", f["file"]);
        assert_eq!(f["error_count"], 0, "{}", f["file"]);
    }
    // The lines printed are the UTF-8 text, byte for byte.
    let le_lines = cctape(&[
        "filter",
        "--type",
        "assistant",
        &dir.join("b-le.jsonl").to_string_lossy(),
    ]);
    let utf8_lines = cctape(&[
        "filter",
        "--type",
        "assistant",
        &dir.join("a.jsonl").to_string_lossy(),
    ]);
    assert!(!utf8_lines.stdout.is_empty());
    assert!(le_lines.stdout == utf8_lines.stdout);
    let piped = json(&cctape_stdin(&["stats", "--json"], &be));
    assert_eq!(piped["by_type"], per_file[0]["by_type"]);

    // A binary file (NUL bytes, not JSON) is one finding with no preview;
    // a stream whose first line is an event stays a stream whatever follows.
    let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    png.extend_from_slice(&[0u8; 300]);
    std::fs::write(dir.join("d.json"), &png).expect("write");
    let mut nul_later = src.clone().into_bytes();
    nul_later.extend_from_slice(b"\x00\x00\x00\n");
    std::fs::write(dir.join("e.jsonl"), &nul_later).expect("write");
    let v = json(&cctape(&[
        "stats",
        "--json",
        &dir.join("d.json").to_string_lossy(),
        &dir.join("e.jsonl").to_string_lossy(),
    ]));
    let formats: Vec<&str> = v["per_file"]
        .as_array()
        .expect("per_file")
        .iter()
        .map(|f| f["format"].as_str().expect("format"))
        .collect();
    assert_eq!(formats, ["binary", "stream"]);
    assert_eq!(v["per_file"][1]["events"].as_u64(), Some(lines));
    assert_eq!(v["per_file"][1]["error_count"], 1);
    let human = cctape(&["stats", &dir.join("d.json").to_string_lossy()]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("d.json: binary\n"), "{text}");
    assert!(!text.contains("PNG"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-g/--glob` and `--iglob` choose what a walk reads, as ripgrep's do: a
/// `!` glob passes over files and whole folders, any other glob makes the
/// walk read only what matches (whatever its name), the last glob that
/// matches wins, a glob with a `/` is matched from the walked folder, and
/// files named on the command line are always read. A bad glob is a usage
/// error.
#[test]
fn globs_choose_what_a_walk_reads_as_ripgrep() {
    let dir = temp_dir("globs");
    let run = |id: &str| {
        format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"{id}\"}}\n\
             {{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"{id}\"}}\n"
        )
    };
    let files = [
        "a/run1.jsonl",
        "a/run2.jsonl",
        "a/notes.txt",
        "b/node_modules/dep.jsonl",
        "b/run3.JSONL",
        "c/out.txt",
    ];
    for (i, f) in files.iter().enumerate() {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, run(&format!("s{i}"))).expect("write");
    }
    let root = dir.to_str().expect("path");
    let read = |args: &[&str], paths: &[&str]| -> Vec<String> {
        let mut all = vec!["stats", "--json", "-q"];
        all.extend_from_slice(args);
        all.extend_from_slice(paths);
        let v = json(&cctape(&all));
        v["per_file"]
            .as_array()
            .expect("per_file")
            .iter()
            .map(|f| {
                let name = f["file"].as_str().expect("name");
                name.strip_prefix(root)
                    .map_or(name, |n| n.trim_start_matches('/'))
                    .to_owned()
            })
            .collect()
    };
    let jsonl = [
        "a/run1.jsonl",
        "a/run2.jsonl",
        "b/node_modules/dep.jsonl",
        "b/run3.JSONL",
    ];
    assert_eq!(read(&[], &[root]), jsonl);
    assert_eq!(
        read(&["-g", "!node_modules"], &[root]),
        ["a/run1.jsonl", "a/run2.jsonl", "b/run3.JSONL"]
    );
    assert_eq!(
        read(&["-g", "*.txt"], &[root]),
        ["a/notes.txt", "c/out.txt"]
    );
    assert_eq!(
        read(&["-g", "*.jsonl", "-g", "!run1*"], &[root]),
        ["a/run2.jsonl", "b/node_modules/dep.jsonl"]
    );
    assert_eq!(
        read(&["-g", "!run1*", "-g", "*.jsonl"], &[root]),
        ["a/run1.jsonl", "a/run2.jsonl", "b/node_modules/dep.jsonl"]
    );
    assert_eq!(
        read(&["-g", "*.jsonl"], &[root]),
        ["a/run1.jsonl", "a/run2.jsonl", "b/node_modules/dep.jsonl"]
    );
    assert_eq!(
        read(&["--iglob", "*.jsonl"], &[root]),
        [
            "a/run1.jsonl",
            "a/run2.jsonl",
            "b/node_modules/dep.jsonl",
            "b/run3.JSONL"
        ]
    );
    assert_eq!(
        read(&["--glob", "a/*"], &[root]),
        ["a/notes.txt", "a/run1.jsonl", "a/run2.jsonl"]
    );
    let named = dir.join("a/run1.jsonl");
    let named = named.to_str().expect("path");
    assert_eq!(
        read(&["-g", "!*.jsonl"], &[named, root]),
        ["a/run1.jsonl", "b/run3.JSONL"]
    );
    // The same choice in every command: filter lists what stats reads.
    let listed = cctape(&[
        "filter",
        "-l",
        "--type",
        "result",
        "-g",
        "!node_modules",
        "-g",
        "!*.txt",
        root,
    ]);
    assert_eq!(stdout(&listed).lines().count(), 3);
    let bad = cctape(&["stats", "-g", "[a", root]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("glob `[a`"));
}
