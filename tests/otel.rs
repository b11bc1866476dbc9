//! `cctape otel`: the OTLP it writes and sends, checked against what
//! `cctape verdict --json` says of the same inputs (the real captures of
//! `../shared/realworld` and a generated transcript tree): spans per run
//! (one `invoke_agent` per run and per subagent, a `chat` per model call,
//! an `execute_tool` per tool call, ERROR on the failed ones), their
//! tokens, the metrics; ids that do not change from one reading to the
//! next; the files replaced atomically; retries, drops and an unreachable
//! receiver against small HTTP servers run by the test; and a real
//! receiver, Arize Phoenix, started by the test when it is installed.

use serde_json::Value as J;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../examples/gentranscripts.rs"]
mod gentranscripts;

#[path = "support/scratch.rs"]
mod scratch;

const REALWORLD: &str = "../shared/realworld";

fn cctape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run cctape")
}

/// A generated transcript tree (3 projects of 3 sessions, subagents
/// included), as tests/snapshots.rs makes it.
fn transcript_tree(dir: &Path) -> PathBuf {
    let opts = gentranscripts::Opts {
        projects: 3,
        sessions: 3,
        turns: 6,
        seed: 11,
    };
    gentranscripts::generate(dir, &opts).expect("generate a tree");
    dir.join(".claude/projects")
}

/// `verdict --json`'s records of the runs that have events.
fn verdicts(path: &Path) -> Vec<J> {
    let o = cctape(&["verdict", "--json", "-s", path.to_str().unwrap()]);
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<J>(l).unwrap())
        .filter(|r| r["events"].as_u64().unwrap_or(0) > 0)
        .collect()
}

fn attr<'a>(attrs: &'a J, key: &str) -> Option<&'a J> {
    attrs
        .as_array()?
        .iter()
        .find(|a| a["key"] == key)
        .map(|a| &a["value"])
}

fn attr_str<'a>(attrs: &'a J, key: &str) -> Option<&'a str> {
    attr(attrs, key)?["stringValue"].as_str()
}

/// An OTLP/JSON integer (a string, as the mapping writes 64-bit ones).
fn attr_int(attrs: &J, key: &str) -> u64 {
    attr(attrs, key)
        .and_then(|v| v["intValue"].as_str())
        .map_or(0, |s| s.parse().unwrap())
}

/// Each run's resource spans, in order, from `traces.jsonl`.
fn resource_spans(dir: &Path) -> Vec<J> {
    let text = std::fs::read_to_string(dir.join("traces.jsonl")).expect("traces.jsonl");
    text.lines()
        .flat_map(|l| {
            let v: J = serde_json::from_str(l).unwrap();
            v["resourceSpans"].as_array().unwrap().clone()
        })
        .collect()
}

fn spans_of(rs: &J) -> Vec<J> {
    rs["scopeSpans"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["spans"].as_array().unwrap().clone())
        .collect()
}

fn op(span: &J) -> &str {
    span["name"].as_str().unwrap().split(' ').next().unwrap()
}

fn tokens(v: &J, key: &str) -> u64 {
    v[key].as_u64().unwrap_or(0)
}

/// What a verdict record says the spans must be.
#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
struct Expect {
    agents: u64,
    chats: u64,
    tools: u64,
    tool_errors: u64,
    /// Output and cache-read tokens of the calls (chat spans).
    call_output: u64,
    call_cache_read: u64,
    /// The run's best output figure (its root span).
    run_output: u64,
}

fn expect_of(r: &J) -> Expect {
    let u = &r["usage"];
    let calls = |who: &str| &u[who]["figures"]["calls"];
    let tools = r["tools"].as_object().cloned().unwrap_or_default();
    Expect {
        agents: 1 + r["subagent_count"].as_u64().unwrap(),
        chats: tokens(&u["main"], "messages") + tokens(&u["subagents"], "messages"),
        tools: tools.values().map(|t| tokens(t, "calls")).sum(),
        tool_errors: tools
            .values()
            .map(|t| tokens(t, "errors") + tokens(t, "rejections"))
            .sum(),
        call_output: tokens(calls("main"), "output_tokens")
            + tokens(calls("subagents"), "output_tokens"),
        call_cache_read: tokens(calls("main"), "cache_read_input_tokens")
            + tokens(calls("subagents"), "cache_read_input_tokens"),
        run_output: tokens(&u["main"], "output_tokens") + tokens(&u["subagents"], "output_tokens"),
    }
}

/// What the spans of one run are, counted as [`Expect`] counts.
fn found_of(spans: &[J]) -> Expect {
    let mut e = Expect::default();
    for s in spans {
        let a = &s["attributes"];
        match op(s) {
            "invoke_agent" => {
                e.agents += 1;
                if s["parentSpanId"] == "" {
                    e.run_output = attr_int(a, "gen_ai.usage.output_tokens");
                }
            }
            "chat" => {
                e.chats += 1;
                e.call_output += attr_int(a, "gen_ai.usage.output_tokens");
                e.call_cache_read += attr_int(a, "gen_ai.usage.cache_read.input_tokens");
                // The convention's input count holds the cache parts.
                assert_eq!(
                    attr_int(a, "gen_ai.usage.input_tokens"),
                    attr_int(a, "cctape.usage.input_tokens")
                        + attr_int(a, "gen_ai.usage.cache_read.input_tokens")
                        + attr_int(a, "gen_ai.usage.cache_creation.input_tokens"),
                    "{s}"
                );
                assert!(attr_str(a, "gen_ai.request.model").is_some(), "{s}");
                assert!(attr_str(a, "gen_ai.response.model").is_some(), "{s}");
            }
            "execute_tool" => {
                e.tools += 1;
                assert!(attr_str(a, "gen_ai.tool.name").is_some(), "{s}");
                if s["status"]["code"] == 2 {
                    e.tool_errors += 1;
                    assert!(attr_str(a, "error.type").is_some(), "{s}");
                }
            }
            other => panic!("a span named {other}: {s}"),
        }
    }
    e
}

/// Each span's parent is in its trace, its end not before its start, and a
/// parent covers its children.
fn check_tree(spans: &[J]) {
    let by_id: HashMap<&str, &J> = spans
        .iter()
        .map(|s| (s["spanId"].as_str().unwrap(), s))
        .collect();
    let t = |s: &J, k: &str| s[k].as_str().unwrap().parse::<u64>().unwrap();
    let mut roots = 0;
    for s in spans {
        assert!(t(s, "endTimeUnixNano") >= t(s, "startTimeUnixNano"), "{s}");
        let p = s["parentSpanId"].as_str().unwrap();
        if p.is_empty() {
            roots += 1;
            continue;
        }
        let parent = by_id.get(p).unwrap_or_else(|| panic!("no parent for {s}"));
        assert_eq!(parent["traceId"], s["traceId"]);
        assert!(
            t(parent, "startTimeUnixNano") <= t(s, "startTimeUnixNano"),
            "{s}"
        );
        assert!(
            t(parent, "endTimeUnixNano") >= t(s, "endTimeUnixNano"),
            "{s}"
        );
    }
    assert_eq!(roots, 1, "one root span per run");
}

/// `otel --out DIR` over PATH, each run's spans against its verdict.
fn check_against_verdict(path: &Path, out: &Path) -> (usize, Expect) {
    let o = cctape(&[
        "otel",
        "-s",
        "--out",
        out.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let records = verdicts(path);
    let runs = resource_spans(out);
    assert_eq!(
        records.len(),
        runs.len(),
        "one resource per run with events"
    );
    let mut total = Expect::default();
    for (r, rs) in records.iter().zip(&runs) {
        let res = &rs["resource"]["attributes"];
        assert_eq!(
            attr_str(res, "cctape.input"),
            r["file"].as_str(),
            "the same run"
        );
        assert_eq!(attr_str(res, "session.id"), r["session_id"].as_str());
        assert_eq!(
            attr_str(res, "service.version"),
            r["claude_code_version"].as_str()
        );
        let spans = spans_of(rs);
        check_tree(&spans);
        let found = found_of(&spans);
        assert_eq!(found, expect_of(r), "{}", r["file"]);
        total.agents += found.agents;
        total.chats += found.chats;
        total.tools += found.tools;
        total.tool_errors += found.tool_errors;
        total.call_output += found.call_output;
    }
    // Metrics: one session per run; output tokens by model as verdict's
    // rows per model and role.
    let text = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    let mut sessions = 0;
    let mut output: u64 = 0;
    for l in text.lines() {
        let v: J = serde_json::from_str(l).unwrap();
        for rm in v["resourceMetrics"].as_array().unwrap() {
            for m in rm["scopeMetrics"][0]["metrics"].as_array().unwrap() {
                let points = m["sum"]["dataPoints"].as_array().unwrap();
                assert_eq!(m["sum"]["isMonotonic"], true);
                match m["name"].as_str().unwrap() {
                    "claude_code.session.count" => sessions += points.len(),
                    "claude_code.token.usage" => {
                        assert_eq!(m["unit"], "tokens");
                        for p in points {
                            if attr_str(&p["attributes"], "type") == Some("output") {
                                output += p["asInt"].as_str().unwrap().parse::<u64>().unwrap();
                            }
                        }
                    }
                    "claude_code.cost.usage" => assert_eq!(m["unit"], "USD"),
                    other => panic!("metric {other}"),
                }
            }
        }
    }
    assert_eq!(sessions, records.len());
    let by_role_output: u64 = records
        .iter()
        .flat_map(|r| {
            r["usage"]["by_role"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|row| tokens(&row, "output_tokens"))
        .sum();
    assert_eq!(output, by_role_output);
    (records.len(), total)
}

#[test]
fn out_dir_spans_are_verdicts_calls_on_real_captures() {
    let dir = scratch::scratch("otel-real");
    let (runs, total) = check_against_verdict(Path::new(REALWORLD), &dir.join("o"));
    // The captures have runs, calls, tool errors and subagents.
    assert!(runs > 100, "{runs}");
    assert!(total.chats > 500 && total.tools > 500, "{total:?}");
    assert!(total.tool_errors > 10, "{total:?}");
    assert!(total.agents > runs as u64, "{total:?}");
}

#[test]
fn out_dir_spans_are_verdicts_calls_on_a_transcript_tree() {
    let dir = scratch::scratch("otel-tree");
    let tree = transcript_tree(&dir);
    let (runs, total) = check_against_verdict(&tree, &dir.join("o"));
    assert_eq!(runs, 9, "{total:?}");
    assert!(total.chats > 9 && total.tools > 9, "{total:?}");
    assert!(total.agents > 9, "subagents: {total:?}");
}

/// The same archive gives the same bytes: ids, times and order do not
/// depend on the reading (`--jobs`) or on when it runs.
#[test]
fn ids_are_derived_from_the_events() {
    let dir = scratch::scratch("otel-ids");
    let (a, b) = (dir.join("a"), dir.join("b"));
    for (out, jobs) in [(&a, "1"), (&b, "0")] {
        let o = cctape(&[
            "otel",
            "-s",
            "-j",
            jobs,
            "--out",
            out.to_str().unwrap(),
            REALWORLD,
        ]);
        assert_eq!(o.status.code(), Some(0));
    }
    for f in ["traces.jsonl", "metrics.jsonl"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    // Trace ids are the session's: two runs of one session share one.
    let spans: Vec<J> = resource_spans(&a).iter().flat_map(spans_of).collect();
    let ids: HashSet<(&str, &str)> = spans
        .iter()
        .map(|s| {
            (
                s["traceId"].as_str().unwrap(),
                s["spanId"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(ids.iter().all(|(t, s)| t.len() == 32 && s.len() == 16));
    assert!(ids.len() > 1000, "{}", ids.len());
}

#[test]
fn out_dir_is_replaced_whole_or_not_at_all() {
    let dir = scratch::scratch("otel-atomic");
    let out = dir.join("o");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("traces.jsonl"), "old\n").unwrap();
    std::fs::write(out.join("keep.txt"), "mine\n").unwrap();
    let ok = "corpus/streams/success-basic.jsonl";
    let o = cctape(&["otel", "--out", out.to_str().unwrap(), ok]);
    assert_eq!(o.status.code(), Some(0));
    let text = std::fs::read_to_string(out.join("traces.jsonl")).unwrap();
    assert!(text.starts_with("{\"resourceSpans\""), "{text}");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["keep.txt", "metrics.jsonl", "traces.jsonl"]);
    // A folder that cannot be made: exit 2 with the reason, nothing left.
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let o = cctape(&["otel", "--out", file.join("sub").to_str().unwrap(), ok]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--out"),
        "{o:?}"
    );
    // Neither --out nor --otlp: a usage error.
    assert_eq!(cctape(&["otel", ok]).status.code(), Some(2));
}

/// A small OTLP/HTTP receiver: answers each request with the status the
/// script gives for its number (then 200), after `delay`; records the
/// requests' paths, content types and bodies.
/// A request received: its path, content type and body.
type Request = (String, String, Vec<u8>);

struct Receiver {
    url: String,
    requests: Arc<std::sync::Mutex<Vec<Request>>>,
    count: Arc<AtomicU64>,
}

fn receiver(script: Vec<u16>, delay: Duration) -> Receiver {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(std::sync::Mutex::new(Vec::new()));
    let count = Arc::new(AtomicU64::new(0));
    let (reqs, n) = (requests.clone(), count.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut r = BufReader::new(stream.try_clone().unwrap());
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let path = line.split(' ').nth(1).unwrap_or("").to_owned();
                let (mut len, mut ct) = (0usize, String::new());
                loop {
                    let mut h = String::new();
                    r.read_line(&mut h).unwrap();
                    let h = h.trim_end();
                    if h.is_empty() {
                        break;
                    }
                    let (k, v) = h.split_once(':').unwrap();
                    match k.to_ascii_lowercase().as_str() {
                        "content-length" => len = v.trim().parse().unwrap(),
                        "content-type" => ct = v.trim().to_owned(),
                        _ => {}
                    }
                }
                let mut body = vec![0; len];
                r.read_exact(&mut body).unwrap();
                let i = n.fetch_add(1, Ordering::SeqCst) as usize;
                std::thread::sleep(delay);
                let status = script.get(i).copied().unwrap_or(200);
                if status == 200 {
                    reqs.lock().unwrap().push((path, ct, body));
                }
                let reply =
                    format!("HTTP/1.1 {status} X\r\nContent-Length: 0\r\nRetry-After: 0\r\n\r\n");
                if stream.write_all(reply.as_bytes()).is_err() {
                    break;
                }
            }
        }
    });
    Receiver {
        url,
        requests,
        count,
    }
}

#[test]
fn retries_on_429_and_503_then_delivers() {
    let rx = receiver(vec![503, 429], Duration::ZERO);
    let o = cctape(&[
        "otel",
        "--otlp",
        &rx.url,
        "--signals",
        "traces",
        "corpus/streams/success-basic.jsonl",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("in 3 requests (2 retries)"), "{err}");
    let reqs = rx.requests.lock().unwrap();
    assert_eq!(reqs.len(), 1);
    let (path, ct, body) = &reqs[0];
    assert_eq!(
        (path.as_str(), ct.as_str()),
        ("/v1/traces", "application/x-protobuf")
    );
    // The body is an OTLP protobuf export request: decoded by the same
    // generated types, its spans are the JSON file's.
    use prost::Message;
    let req = cctape::otel::proto::tonic::collector::trace::v1::ExportTraceServiceRequest::decode(
        &body[..],
    )
    .unwrap();
    let spans: usize = req.resource_spans[0].scope_spans[0].spans.len();
    let dir = scratch::scratch("otel-retry");
    let o = cctape(&[
        "otel",
        "--out",
        dir.to_str().unwrap(),
        "corpus/streams/success-basic.jsonl",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(spans, spans_of(&resource_spans(&dir)[0]).len());
    assert!(spans >= 2, "{spans}");
}

#[test]
fn http_json_sends_traces_and_metrics() {
    let rx = receiver(vec![], Duration::ZERO);
    let o = cctape(&[
        "otel",
        "--otlp",
        &format!("{}/v1/traces", rx.url),
        "--otlp-protocol",
        "http/json",
        "corpus/streams/success-basic.jsonl",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let reqs = rx.requests.lock().unwrap();
    let paths: Vec<(&str, &str)> = reqs.iter().map(|r| (r.0.as_str(), r.1.as_str())).collect();
    assert_eq!(
        paths,
        [
            ("/v1/traces", "application/json"),
            ("/v1/metrics", "application/json")
        ]
    );
    let v: J = serde_json::from_slice(&reqs[1].2).unwrap();
    let names: Vec<&str> = v["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "claude_code.session.count",
            "claude_code.token.usage",
            "claude_code.cost.usage"
        ]
    );
}

#[test]
fn an_unreachable_receiver_exits_2_with_the_reason() {
    // A port nothing listens on: bound, then closed.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = cctape(&[
        "otel",
        "--otlp",
        &format!("http://127.0.0.1:{port}"),
        "--otlp-retries",
        "2",
        "corpus/streams/success-basic.jsonl",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("not delivered"), "{err}");
    assert!(
        err.contains(&format!("127.0.0.1:{port}/v1/traces")),
        "{err}"
    );
    assert!(err.contains("after 3 tries"), "{err}");
}

#[test]
fn a_slow_receiver_does_not_hold_up_the_reading_what_is_dropped_is_counted() {
    let rx = receiver(vec![], Duration::from_millis(300));
    let o = cctape(&[
        "otel",
        "--otlp",
        &rx.url,
        "--signals",
        "traces",
        "--otlp-batch",
        "1",
        "--otlp-queue",
        "1",
        REALWORLD,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    // Dropped + sent = every span; the count is said.
    let dropped = number_after(&err, "otlp: ");
    let sent = number_after(&err, "sent ");
    let total = number_after(&err, " runs, ");
    assert!(dropped > 0 && sent > 0, "{err}");
    assert_eq!(dropped + sent, total, "{err}");
    // Few requests reached the receiver: the reading did not wait for it.
    assert!(rx.count.load(Ordering::SeqCst) < 20, "{err}");
}

/// The number after the first `marker` in `text`.
fn number_after(text: &str, marker: &str) -> u64 {
    text.split(marker)
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after {marker:?} in {text}"))
}

/// Phoenix's command: `CCTAPE_PHOENIX`, else the venv .ci/run installs it
/// in, else `phoenix` on PATH.
fn phoenix() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CCTAPE_PHOENIX") {
        return Some(PathBuf::from(p));
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/phoenix-venv/bin/phoenix");
    if venv.exists() {
        return Some(venv);
    }
    let on_path = Command::new("phoenix")
        .arg("--help")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    on_path
        .is_ok_and(|s| s.success())
        .then(|| PathBuf::from("phoenix"))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A GET on Phoenix, the body as JSON.
fn get(port: u16, path: &str) -> Option<J> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).ok()?;
    let text = String::from_utf8_lossy(&resp);
    let (head, body) = text.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    serde_json::from_str(&body).ok()
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

/// Every span Phoenix holds in its default project.
fn phoenix_spans(port: u16) -> Vec<J> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/projects/default/spans?limit=1000&cursor={c}"),
            None => "/v1/projects/default/spans?limit=1000".to_owned(),
        };
        let Some(page) = get(port, &path) else {
            return out;
        };
        out.extend(page["data"].as_array().cloned().unwrap_or_default());
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => return out,
        }
    }
}

struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sends the real captures and a transcript tree to Arize Phoenix over
/// OTLP/HTTP protobuf, reads the spans back through its REST API, and
/// checks them against `verdict --json`: per trace the span counts, the
/// chat spans' tokens and the tool spans' error statuses; then sends again
/// and finds no span doubled.
#[test]
fn phoenix_receives_what_verdict_counts() {
    let dir = scratch::scratch("otel-phoenix");
    let tree = transcript_tree(&dir);
    // One that .ci/run started (`CCTAPE_PHOENIX_URL`, still booting
    // perhaps), else one of our own on free ports.
    let (port, _phoenix) = if let Ok(url) = std::env::var("CCTAPE_PHOENIX_URL") {
        let port = url
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .and_then(|p| p.parse::<u16>().ok())
            .unwrap_or_else(|| panic!("CCTAPE_PHOENIX_URL={url}: expected http://HOST:PORT"));
        (port, None)
    } else if let Some(bin) = phoenix() {
        let (port, grpc) = (free_port(), free_port());
        let log = std::fs::File::create(dir.join("phoenix.log")).unwrap();
        let child = Command::new(&bin)
            .arg("serve")
            .env("PHOENIX_WORKING_DIR", dir.join("work"))
            .env("PHOENIX_PORT", port.to_string())
            .env("PHOENIX_GRPC_PORT", grpc.to_string())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start phoenix");
        (port, Some(Killed(child)))
    } else {
        let why = "Arize Phoenix is not installed (pip install arize-phoenix, then set \
                   CCTAPE_PHOENIX to its `phoenix` command or CCTAPE_PHOENIX_URL to a running \
                   one; .ci/run does)";
        eprintln!("SKIPPED phoenix_receives_what_verdict_counts: {why}");
        assert!(
            std::env::var_os("CI").is_none(),
            "{why}, and CI is set: this test must run in CI"
        );
        return;
    };
    let started = Instant::now();
    while get(port, "/v1/projects/default/spans?limit=1").is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "phoenix did not answer on port {port}: {}",
            std::fs::read_to_string(dir.join("phoenix.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    // What it held before (a receiver started for the whole CI run holds
    // nothing else).
    let before = phoenix_spans(port).len();
    let inputs = [
        Path::new(REALWORLD).join("session-format"),
        tree.clone(),
        Path::new(REALWORLD).join("wave3"),
    ];
    let endpoint = format!("http://127.0.0.1:{port}");
    let send = || {
        let mut args = vec!["otel", "-s", "--otlp", &endpoint, "--signals", "traces"];
        let paths: Vec<&str> = inputs.iter().map(|p| p.to_str().unwrap()).collect();
        args.extend(paths);
        let o = cctape(&args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    send();
    // Expected per trace from verdict: runs sharing a trace (one session
    // read twice) are summed once per distinct span, so compare the traces
    // of one run only, and the totals against the JSON files' distinct spans.
    let mut by_trace: BTreeMap<String, Vec<Expect>> = BTreeMap::new();
    let mut unique: HashSet<(String, String)> = HashSet::new();
    for (k, p) in inputs.iter().enumerate() {
        let out = dir.join(format!("o{k}"));
        let o = cctape(&[
            "otel",
            "-s",
            "--out",
            out.to_str().unwrap(),
            p.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0));
        for (r, rs) in verdicts(p).iter().zip(resource_spans(&out)) {
            let spans = spans_of(&rs);
            let trace = spans[0]["traceId"].as_str().unwrap().to_owned();
            for s in &spans {
                unique.insert((trace.clone(), s["spanId"].as_str().unwrap().to_owned()));
            }
            by_trace.entry(trace).or_default().push(expect_of(r));
        }
    }
    // Phoenix writes what it received in the background: wait for it.
    let mut got = Vec::new();
    let waited = Instant::now();
    while waited.elapsed() < Duration::from_secs(240) {
        got = phoenix_spans(port);
        if got.len() >= before + unique.len() {
            break;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    assert_eq!(got.len(), before + unique.len(), "spans in phoenix");
    let mut found: BTreeMap<String, Expect> = BTreeMap::new();
    for s in &got {
        let trace = s["context"]["trace_id"].as_str().unwrap().to_owned();
        let e = found.entry(trace).or_default();
        let a = &s["attributes"];
        let int = |k: &str| a[k].as_u64().unwrap_or(0);
        match s["name"].as_str().unwrap().split(' ').next().unwrap() {
            "invoke_agent" => e.agents += 1,
            "chat" => {
                e.chats += 1;
                e.call_output += int("gen_ai.usage.output_tokens");
                e.call_cache_read += int("gen_ai.usage.cache_read.input_tokens");
            }
            "execute_tool" => {
                e.tools += 1;
                if s["status_code"] == "ERROR" {
                    e.tool_errors += 1;
                }
            }
            other => panic!("{other}"),
        }
        if s["parent_id"].is_null() {
            e.run_output = int("gen_ai.usage.output_tokens");
        }
    }
    let mut compared = 0;
    let mut tool_errors = 0;
    for (trace, runs) in &by_trace {
        if runs.len() != 1 {
            continue;
        }
        assert_eq!(found.get(trace), Some(&runs[0]), "trace {trace}");
        compared += 1;
        tool_errors += runs[0].tool_errors;
    }
    assert!(compared >= 15, "{compared} traces compared");
    assert!(tool_errors > 0, "tool errors among them");
    eprintln!(
        "phoenix: {} spans in {} traces received; {compared} traces equal to verdict's runs",
        got.len(),
        found.len()
    );
    // A second send of the same archive: the same ids, nothing doubled.
    send();
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(
        phoenix_spans(port).len(),
        before + unique.len(),
        "after a re-send"
    );
}

/// `cctape watch ARGS < input`.
fn watch(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .arg("watch")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(input).unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    child.wait_with_output().unwrap()
}

/// `watch --otlp`: the run that went through is sent when it ends, as
/// `otel` sends it.
#[test]
fn watch_sends_each_run_it_judged() {
    let rx = receiver(vec![], Duration::ZERO);
    let run = "corpus/streams/success-basic.jsonl";
    let o = watch(&["--otlp", &rx.url, "--signals", "traces"], run);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let reqs = rx.requests.lock().unwrap();
    assert_eq!(reqs.len(), 1);
    use prost::Message;
    let req = cctape::otel::proto::tonic::collector::trace::v1::ExportTraceServiceRequest::decode(
        &reqs[0].2[..],
    )
    .unwrap();
    let dir = scratch::scratch("otel-watch");
    let o = cctape(&["otel", "--out", dir.to_str().unwrap(), run]);
    assert_eq!(o.status.code(), Some(0));
    let want: Vec<String> = spans_of(&resource_spans(&dir)[0])
        .iter()
        .map(|s| s["spanId"].as_str().unwrap().to_owned())
        .collect();
    let got: Vec<String> = req.resource_spans[0].scope_spans[0]
        .spans
        .iter()
        .map(|s| s.span_id.iter().map(|b| format!("{b:02x}")).collect())
        .collect();
    assert_eq!(got, want, "the same spans, the same ids");
    // Unreachable: the verdict still printed, exit 2 with the reason.
    let o = watch(
        &["--otlp", "http://127.0.0.1:1", "--otlp-retries", "0"],
        run,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("not delivered") && err.contains("\"verdict\":\"success\""),
        "{err}"
    );
}
