//! A real receiver, Arize Phoenix, started by the test when it is
//! installed.

use super::*;

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
