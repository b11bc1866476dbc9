//! `cctape stats` (and `verdict`) figures of issue 22, run as processes:
//! names that are not UTF-8 keyed by their bytes (item 7), sums that
//! saturate and costs beyond f64 (item 8), `--by model` columns that add
//! up to the agents' figures (item 13), and subagents in every grouping
//! (item 14).

#[path = "../examples/gentranscripts.rs"]
#[allow(dead_code)]
mod gentranscripts;
#[path = "support/scratch.rs"]
mod scratch;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `cctape args...`: its exit code and standard output.
fn cctape<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, Vec<u8>) {
    let out = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .arg("-q")
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), out.stdout)
}

/// `cctape stats args...`: its exit code and standard output.
fn stats<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, Vec<u8>) {
    let mut a: Vec<&std::ffi::OsStr> = vec!["stats".as_ref()];
    a.extend(args.iter().map(AsRef::as_ref));
    cctape(&a)
}

/// `cctape stats args...`'s JSON.
fn json<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Value {
    let (code, out) = stats(args);
    assert!(code == 0 || code == 1, "exit {code}");
    serde_json::from_slice(&out)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
}

/// One run: an init and a result with this output figure and cost.
fn run_of(session: &str, output: u64) -> String {
    format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"{session}\",\"model\":\"claude-sonnet-4-5\"}}\n\
         {{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"ok\",\"total_cost_usd\":0.5,\
         \"usage\":{{\"input_tokens\":1,\"output_tokens\":{output}}},\"session_id\":\"{session}\"}}\n"
    )
}

/// A transcript request record.
fn request(session: &str, id: &str, model: &str, output: u64, at: &str) -> String {
    format!(
        "{{\"sessionId\":\"{session}\",\"type\":\"assistant\",\"requestId\":\"r{id}\",\"timestamp\":\"{at}\",\
         \"message\":{{\"id\":\"m{id}\",\"model\":\"{model}\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"hi\"}}],\
         \"usage\":{{\"input_tokens\":1,\"output_tokens\":{output}}}}}}}\n"
    )
}

/// A scratch folder holding one transcript session, `-w-app/s1.jsonl`,
/// of these records.
fn session_of(tag: &str, records: &str) -> (scratch::Scratch, PathBuf) {
    let dir = scratch::scratch(tag);
    let t = dir.join("-w-app");
    std::fs::create_dir_all(&t).unwrap();
    let session = t.join("s1.jsonl");
    std::fs::write(&session, records).unwrap();
    (dir, session)
}

/// True when a verdict record has a warning with this code on this line.
fn warns(rec: &Value, code: &str, line: u64) -> bool {
    rec["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["code"] == code && w["line"] == line)
}

#[cfg(unix)]
fn os(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

/// `x\xff` and `x\xfe` are two files, two folders, two rows, shown with
/// their bytes escaped, in text, CSV and JSON (before: one row, U+FFFD).
#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_are_keyed_by_their_bytes() {
    let dir = scratch::scratch("stats-names");
    for (folder, file, session) in [
        (&b"p\xff"[..], &b"x\xff.jsonl"[..], "a"),
        (b"p\xfe", b"x\xfe.jsonl", "b"),
        (b"p\xfe", b"x\xff.jsonl", "c"),
    ] {
        let d = dir.join(os(folder));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(os(file)), run_of(session, 10)).unwrap();
    }
    // Transcripts in two project folders that differ in one byte.
    for (project, session) in [(&b"-w-\xff"[..], "s1"), (b"-w-\xfe", "s2")] {
        let d = dir.join("t").join(os(project));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join(format!("{session}.jsonl")),
            request(
                session,
                session,
                "claude-haiku-4-5",
                7,
                "2026-02-11T10:00:00Z",
            ),
        )
        .unwrap();
    }
    let base = dir.to_string_lossy().into_owned();
    let d = dir.to_path_buf();
    let files = json(&[
        d.as_os_str(),
        "--json".as_ref(),
        "--by".as_ref(),
        "file".as_ref(),
    ]);
    let keys: Vec<&str> = files["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    let want = |rel: &str| format!("{base}/{rel}");
    assert_eq!(
        keys,
        [
            want("p\\xfe/x\\xfe.jsonl"),
            want("p\\xfe/x\\xff.jsonl"),
            want("p\\xff/x\\xff.jsonl"),
            want("t/-w-\\xfe/s2.jsonl"),
            want("t/-w-\\xff/s1.jsonl"),
        ]
    );
    let per_file: Vec<&str> = files["per_file"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(per_file.len(), 5);
    assert!(per_file.contains(&want("p\\xff/x\\xff.jsonl").as_str()));
    // Each transcript session under its own file.
    assert!(
        files["per_file"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["runs"] == 1)
    );
    let projects = json(&[
        d.as_os_str(),
        "--json".as_ref(),
        "--by".as_ref(),
        "project".as_ref(),
    ]);
    let rows: Vec<(&str, u64)> = projects["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["key"].as_str().unwrap(), g["runs"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        rows,
        [
            ("-w-\\xfe", 1),
            ("-w-\\xff", 1),
            ("p\\xfe", 2),
            ("p\\xff", 1)
        ]
    );
    let (_, csv) = stats(&[
        d.as_os_str(),
        "--csv".as_ref(),
        "--by".as_ref(),
        "project".as_ref(),
    ]);
    let csv = String::from_utf8(csv).unwrap();
    assert!(
        csv.contains("\np\\xfe,2,") && csv.contains("\np\\xff,1,"),
        "{csv}"
    );
    // A file given twice is one row of both runs, in JSON.
    let one = dir.join(os(b"p\xff")).join(os(b"x\xff.jsonl"));
    let twice = json(&[
        one.as_os_str(),
        one.as_os_str(),
        "--json".as_ref(),
        "--by".as_ref(),
        "file".as_ref(),
    ]);
    let rows: Vec<(&str, u64)> = twice["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["key"].as_str().unwrap(), g["runs"].as_u64().unwrap()))
        .collect();
    assert_eq!(rows, [(want("p\\xff/x\\xff.jsonl").as_str(), 2)]);
    assert_eq!(twice["per_file"].as_array().unwrap().len(), 2);
    let (_, text) = stats(&[d.as_os_str(), "--by".as_ref(), "file".as_ref()]);
    let text = String::from_utf8(text).unwrap();
    assert!(!text.contains('\u{fffd}'), "{text}");
    for rel in [
        "p\\xfe/x\\xfe.jsonl",
        "p\\xfe/x\\xff.jsonl",
        "p\\xff/x\\xff.jsonl",
    ] {
        assert!(text.contains(&want(rel)), "{rel} in {text}");
    }
}

/// Token sums saturate at u64::MAX with a warning naming where, for
/// transcripts (before: they wrapped, u64::MAX + 2 = 1) as for streams
/// (before: saturated without a word).
#[test]
fn token_sums_saturate_with_a_warning_in_streams_and_transcripts() {
    let records = request(
        "s1",
        "1",
        "claude-haiku-4-5",
        u64::MAX,
        "2026-02-11T10:00:00Z",
    ) + &request("s1", "2", "claude-haiku-4-5", 2, "2026-02-11T10:01:00Z");
    let (dir, session) = session_of("stats-saturate", &records);
    let v = json(&[session.as_os_str(), "--json".as_ref()]);
    assert_eq!(v["usage"]["main"]["output_tokens"], u64::MAX);
    let w = &v["warnings"]["token_sum_saturated"];
    assert_eq!(w["count"], 1, "{v}");
    assert_eq!(w["first"]["file"], session.to_string_lossy().as_ref());
    assert_eq!(w["first"]["line"], 2);
    let (_, out) = cctape(&["verdict".as_ref(), "--json".as_ref(), session.as_os_str()]);
    let rec: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(rec["usage"]["main"]["output_tokens"], u64::MAX);
    assert!(warns(&rec, "token_sum_saturated", 2), "{rec}");
    // Two stream runs whose figures add up past u64::MAX.
    let a = dir.join("a.jsonl");
    std::fs::write(&a, run_of("a", u64::MAX - 1) + &run_of("b", 5)).unwrap();
    let v = json(&[a.as_os_str(), "--json".as_ref()]);
    assert_eq!(v["usage"]["main"]["output_tokens"], u64::MAX);
    assert_eq!(v["warnings"]["token_sum_saturated"]["count"], 1, "{v}");
    assert_eq!(
        v["warnings"]["token_sum_saturated"]["first"]["file"],
        a.to_string_lossy().as_ref()
    );
}

/// A cost no f64 holds (a price of 1e308) is not summed, counted in
/// `costs_not_summed` and said with its position, in `stats` and `verdict`
/// alike (before: $0 in stats with nothing said, null in verdict).
#[test]
fn a_cost_beyond_f64_is_not_summed_and_said_in_every_command() {
    let records = request(
        "s1",
        "1",
        "claude-haiku-4-5",
        10_000_000,
        "2026-02-11T10:00:00Z",
    );
    let (dir, session) = session_of("stats-cost", &records);
    let prices = dir.join("prices.json");
    std::fs::write(
        &prices,
        r#"{"models":[{"match":"claude-haiku-4-5","input":1e308,"output":1e308}]}"#,
    )
    .unwrap();
    let stream = dir.join("run.jsonl");
    std::fs::write(&stream, run_of("a", 3)).unwrap();
    let args = [
        session.as_os_str(),
        stream.as_os_str(),
        "--json".as_ref(),
        "--pricing".as_ref(),
        prices.as_os_str(),
    ];
    let v = json(&args);
    assert_eq!(v["costs_not_summed"], 1, "{v}");
    // The stream's cost alone.
    assert_eq!(v["total_cost_usd"], 0.5);
    let w = &v["warnings"]["unusual_number"];
    assert_eq!(
        (w["count"].as_u64(), &w["first"]["line"]),
        (Some(1), &Value::from(1))
    );
    assert_eq!(w["first"]["file"], session.to_string_lossy().as_ref());
    let (_, text) = stats(&[args[0], args[1], args[3], args[4]]);
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("(1 cost beyond f64 not summed)"), "{text}");
    let (_, out) = cctape(&[
        "verdict".as_ref(),
        "--json".as_ref(),
        "--pricing".as_ref(),
        prices.as_os_str(),
        session.as_os_str(),
    ]);
    let rec: Value = serde_json::from_slice(&out).unwrap();
    assert!(warns(&rec, "unusual_number", 1), "{rec}");
}

/// The four token counts of a group's JSON.
fn counts(v: &Value) -> [u64; 4] {
    [
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    ]
    .map(|k| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}")))
}

/// `--by model`: every run's best figure once, its source shown, the
/// token columns adding up to main plus subagents, and the main rows'
/// runs to every run (before: modelUsage, 910,861 output tokens over the
/// real captures against 863,719 for the agents).
#[test]
fn by_model_columns_add_up_to_main_plus_subagents() {
    let real = root().join("../shared/realworld");
    let mut args: Vec<PathBuf> = vec![root().join("corpus")];
    if real.is_dir() {
        args.extend([real.clone(), real.join("wave2")]);
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "../shared/realworld not found and CI is set"
        );
    }
    let mut a: Vec<&std::ffi::OsStr> = args.iter().map(|p| p.as_os_str()).collect();
    a.extend(["--json", "--by", "model"].map(std::ffi::OsStr::new));
    let v = json(&a);
    let usage = &v["usage"];
    let (main, subs) = (counts(&usage["main"]), counts(&usage["subagents"]));
    let mut sum = [0u64; 4];
    let mut main_runs = 0;
    for g in v["groups"].as_array().unwrap() {
        for (s, n) in sum.iter_mut().zip(counts(&g["tokens"])) {
            *s += n;
        }
        if g["role"] == "main" {
            main_runs += g["runs"].as_u64().unwrap();
        }
        let sources = g["by_model"][g["key"].as_str().unwrap()]["token_sources"]
            .as_object()
            .unwrap();
        assert!(!sources.is_empty(), "{g}");
    }
    let want: Vec<u64> = main.iter().zip(subs).map(|(a, b)| a + b).collect();
    assert_eq!(sum.to_vec(), want);
    assert_eq!(counts(&usage["all_models"]).to_vec(), want);
    assert_eq!(main_runs, v["runs"].as_u64().unwrap());
    assert!(v["runs"].as_u64().unwrap() > 10);
}

/// Subagents of transcripts in every grouping: each on the day (week,
/// month, block) of its first request, so that every grouping adds up to
/// `--by session` and the total (before: 0 on every day, week, month and
/// block row).
#[test]
fn subagents_add_up_in_every_grouping() {
    let dir = scratch::scratch("stats-subagents");
    let opts = gentranscripts::Opts {
        projects: 3,
        sessions: 4,
        turns: 6,
        seed: 7,
    };
    gentranscripts::generate(&dir, &opts).unwrap();
    let projects = dir.join(".claude/projects");
    let total = json(&[projects.as_os_str(), "--json".as_ref()])["subagents"]["count"]
        .as_u64()
        .unwrap();
    assert!(total > 0, "the tree has subagents");
    let sum = |by: &str, extra: &[&str]| -> u64 {
        let mut a: Vec<&std::ffi::OsStr> = vec![projects.as_os_str()];
        a.extend(["--json", "--by", by, "--timezone", "UTC"].map(std::ffi::OsStr::new));
        a.extend(extra.iter().map(std::ffi::OsStr::new));
        let v = json(&a);
        let rows: u64 = v["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["subagents"].as_u64().unwrap())
            .sum();
        assert_eq!(
            rows,
            v["subagents"]["count"].as_u64().unwrap(),
            "--by {by} {extra:?}"
        );
        rows
    };
    let sessions = sum("session", &[]);
    assert_eq!(sessions, total);
    for by in [
        "day", "week", "month", "block", "project", "file", "version", "model",
    ] {
        assert_eq!(sum(by, &[]), sessions, "--by {by}");
    }
    // A bound keeps the subagents with a request on a kept day, in every
    // grouping alike.
    for by in ["session", "day", "block"] {
        sum(by, &["--since", "2026-01-01", "--until", "2026-01-10"]);
    }
}
