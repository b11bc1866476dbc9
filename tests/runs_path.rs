//! `cctape::runs(path)` (issue 15): the runs of a file whatever its format
//! and compression are the records `cctape verdict --json` prints for it,
//! field for field, on real captures of ../shared/realworld (both folders:
//! stream-json lines, JSON array and pretty captures, a session transcript,
//! text), and on gzip and zstd copies of them.
//!
//! Without ../shared/realworld the tests that need it print "skipped" and
//! pass, unless `CI` is set.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::scratch;

#[path = "support/realworld_present.rs"]
mod realworld_present;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The captures read, from both folders and every format the sniffer
/// tells apart (relative to ../shared/realworld).
const FILES: &[&str] = &[
    "charlieyou__claude-agent-sdk-gleam__test-fixtures-real4.ndjson",
    "charlieyou__claude-agent-sdk-gleam__test-fixtures-real4.pretty.json",
    "uspark-hq__uspark__spec-claude-code-output.pretty.json",
    "DilanDoshi__wake__testdata-stream-api-error-auth.jsonl",
    "TomOfekKafka__ThePerfectSnake__claude-stream@4873604.jsonl",
    "unidentified__native-cost-test__error_max_turns-result.jsonl",
    "unidentified__probe-session-resume-2.1.195__resume2.jsonl",
    "wave2/jedarden__spaxel__.beads-traces-spaxel-40tl-stdout.txt@03f7656.json",
    "wave2/jedarden__spaxel__.beads-traces-spaxel-40tl-stdout.txt@03f7656.ndjson",
    "wave2/TomOfekKafka__ThePerfectSnake__claude-output.json@2edbbc9.jsonl",
    "wave2/SimonErich__obers_ui__.broins-tmp-drivers-claude-last_raw_stream@6c4481b.jsonl",
    "wave2/session-format/presmihaylov__ccagent__services-fixtures-clean_poem_haiku_session@63d2a4c.jsonl",
];

fn realworld() -> Option<PathBuf> {
    let d = root().join("../shared/realworld");
    if d.is_dir() {
        return Some(d);
    }
    println!("skipped: ../shared/realworld is missing");
    assert!(
        std::env::var_os("CI").is_none(),
        "../shared/realworld is missing, and CI is set: this test must run in CI"
    );
    None
}

/// `cctape verdict --json FILE`'s records.
fn verdict_records(path: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(["verdict", "--json"])
        .arg(path)
        .output()
        .expect("run cctape");
    assert!(out.status.code().is_some_and(|c| c < 2), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A record without what only the CLI adds: the file's name and the
/// finding beside the run (`transcript`, `no_events`).
fn run_part(mut v: Value) -> Value {
    let o = v.as_object_mut().unwrap();
    for k in ["file", "transcript", "no_events"] {
        o.remove(k);
    }
    v
}

/// The library's runs of `path` are the CLI's records for it.
fn same_as_verdict(path: &Path) -> Vec<cctape::run::RunSummary> {
    let runs = cctape::runs(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let records = verdict_records(path);
    assert_eq!(runs.len(), records.len(), "{}", path.display());
    for (r, rec) in runs.iter().zip(records) {
        // Both sides through the same text and parser (serde_json's float
        // reading without `float_roundtrip` can be one ulp off).
        let lib: Value = serde_json::from_str(&r.to_json().to_string()).unwrap();
        let (lib, cli) = (run_part(lib), run_part(rec));
        let differ: Vec<_> = cli
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, v)| lib.get(k.as_str()) != Some(v))
            .map(|(k, v)| format!("{k}: cli {v}, lib {}", lib[k.as_str()]))
            .collect();
        assert!(differ.is_empty(), "{}: {differ:#?}", path.display());
        assert_eq!(lib, cli, "{}", path.display());
    }
    runs
}

#[test]
fn runs_of_a_path_are_verdicts_records() {
    let Some(rw) = realworld() else { return };
    let mut formats = std::collections::BTreeSet::new();
    for f in FILES {
        let path = rw.join(f);
        let prefix = std::fs::read(&path).unwrap();
        formats.insert(cctape::sniff::sniff_format(&prefix[..prefix.len().min(64 << 10)]).name());
        let runs = same_as_verdict(&path);
        assert!(!runs.is_empty(), "{f}");
    }
    // Every shape was met: lines, an array, pretty JSON, a transcript.
    for want in ["stream", "json-array", "json-pretty", "transcript"] {
        assert!(formats.contains(want), "no {want} among {formats:?}");
    }
}

/// `runs` reads through the library's one reader (`inputs::read_path`):
/// every file of the shipped corpus and of wave3 (a harness's text
/// output, a JSON value that is not an event, server tools, newer system
/// subtypes) gives the CLI's records.
#[test]
fn runs_of_every_corpus_file_and_wave3_capture_are_verdicts_records() {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["reference", "run", "streams"] {
        for e in std::fs::read_dir(root().join("corpus").join(dir)).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    let corpus = files.len();
    if let Some(rw) = realworld() {
        for e in std::fs::read_dir(rw.join("wave3")).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
        assert_eq!(files.len() - corpus, 5, "wave3 holds five captures");
    }
    files.sort();
    assert!(corpus > 40, "{corpus} corpus files");
    for f in &files {
        let runs = same_as_verdict(f);
        assert!(!runs.is_empty(), "{}", f.display());
    }
}

#[test]
fn runs_of_text_and_empty_inputs_are_verdicts_records() {
    let dir = scratch("runs-text");
    let text = dir.join("out.txt");
    std::fs::write(&text, "working on it\nError: Reached max turns (30)\n").unwrap();
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let runs = same_as_verdict(&text);
    assert_eq!(runs[0].verdict, cctape::run::Verdict::MaxTurns);
    let runs = same_as_verdict(&empty);
    assert_eq!(runs[0].verdict, cctape::run::Verdict::StartupFailure);
}

#[test]
fn runs_of_gzip_and_zstd_copies_are_the_plain_files() {
    use std::io::Write;
    let Some(rw) = realworld() else { return };
    let dir = scratch("runs-compressed");
    for f in [FILES[0], FILES[2], FILES[4], FILES[7]] {
        let src = rw.join(f);
        let bytes = std::fs::read(&src).unwrap();
        let plain = cctape::runs(&src).unwrap();
        let gz = dir.join("copy.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&bytes).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        // Told by magic bytes, not by name.
        let zst = dir.join("copy.jsonl");
        std::fs::write(&zst, zstd::encode_all(&bytes[..], 3).unwrap()).unwrap();
        for copy in [&gz, &zst] {
            let runs = same_as_verdict(copy);
            assert_eq!(runs, plain, "{f} as {}", copy.display());
        }
    }
}

#[test]
fn bad_lines_are_counted_not_a_failure_and_a_cut_stream_is() {
    let dir = scratch("runs-bad");
    let path = dir.join("mixed.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"system","subtype":"init","session_id":"s1","model":"m"}"#,
            "\nnot json\n{\"type\":\n",
            r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"s1"}"#,
            "\n"
        ),
    )
    .unwrap();
    let runs = same_as_verdict(&path);
    assert_eq!(runs[0].bad_lines, 2);
    // A gzip stream cut in the middle fails the call, with where.
    let whole = {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&std::fs::read(&path).unwrap().repeat(50))
            .unwrap();
        enc.finish().unwrap()
    };
    let cut = dir.join("cut.gz");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let e = cctape::runs(&cut).unwrap_err();
    assert_eq!(e.kind(), cctape::ErrorKind::Io, "{e}");
    let e = cctape::runs(dir.join("absent.jsonl")).unwrap_err();
    assert_eq!(e.kind(), cctape::ErrorKind::Io, "{e}");
}

/// A reader that gives its bytes, then an I/O error.
struct FailsAfter<'a>(&'a [u8]);

impl std::io::Read for FailsAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() {
            return Err(std::io::Error::other("disk gone"));
        }
        let n = buf.len().min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn run_reader_is_an_iterator_of_the_same_runs_with_the_io_error_last() {
    use cctape::run::{RunReader, runs_of_slice};
    let Some(rw) = realworld() else { return };
    // Several captures one after the other: a log appended to.
    let mut log = Vec::new();
    for f in [FILES[0], FILES[3], FILES[4], FILES[5], FILES[6]] {
        log.extend(std::fs::read(rw.join(f)).unwrap());
        if !log.ends_with(b"\n") {
            log.push(b'\n');
        }
    }
    let whole = runs_of_slice(&log);
    assert!(whole.len() >= 5, "{}", whole.len());
    let iterated: Vec<_> = RunReader::new(&log[..]).collect::<Result<_, _>>().unwrap();
    assert_eq!(iterated, whole);
    // A long log of short runs, each its own session: with idle_after the
    // first runs come out before the end is read, and the runs are the same.
    let mut long = Vec::new();
    for i in 0..3000 {
        long.extend(format!(
            concat!(
                r#"{{"type":"system","subtype":"init","session_id":"s{i}","model":"m"}}"#,
                "\n",
                r#"{{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.5,"session_id":"s{i}"}}"#,
                "\n"
            ),
            i = i
        ).bytes());
    }
    let mut rr = RunReader::new(&long[..]).idle_after(10);
    let first = rr.next().unwrap().unwrap();
    assert!(rr.counts().lines < 6000, "{:?}", rr.counts());
    let mut early = vec![first];
    early.extend(rr.map(Result::unwrap));
    let key = |r: &cctape::RunSummary| r.last_result.as_ref().map(|l| l.line);
    early.sort_by_key(key);
    let mut sorted = runs_of_slice(&long);
    sorted.sort_by_key(key);
    assert_eq!(early.len(), 3000);
    assert_eq!(early, sorted);
    // An I/O error is the last item, after the runs read before it.
    let items: Vec<_> = RunReader::new(FailsAfter(&log)).collect();
    let (last, runs) = items.split_last().unwrap();
    let e = last.as_ref().unwrap_err();
    assert_eq!(e.kind(), cctape::ErrorKind::Io, "{e}");
    assert_eq!(runs.len(), whole.len());
    assert!(runs.iter().all(Result::is_ok));
}
