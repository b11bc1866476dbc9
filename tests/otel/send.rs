//! Sending: retries, drops and an unreachable receiver against small
//! HTTP servers run by the test, requests split by spans, and `watch
//! --otlp`.

use super::*;

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

/// Sent, a long run's spans are split as `--out` splits them: requests of
/// at most `--otlp-max-spans` spans, each span sent once, in order, and
/// the summary counts them all.
#[test]
fn requests_sent_hold_at_most_the_spans_asked_for() {
    use prost::Message;
    let rx = receiver(vec![], Duration::ZERO);
    let input = "corpus/streams/success-basic.jsonl";
    let o = cctape(&[
        "otel",
        "--otlp",
        &rx.url,
        "--signals",
        "traces",
        "--otlp-max-spans",
        "1",
        input,
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let dir = scratch::scratch("otel-sent-split");
    assert_eq!(
        cctape(&["otel", "-s", "--out", dir.to_str().unwrap(), input])
            .status
            .code(),
        Some(0)
    );
    let want: Vec<J> = resource_spans(&dir).iter().flat_map(spans_of).collect();
    assert!(want.len() >= 2, "{}", want.len());
    let reqs = rx.requests.lock().unwrap();
    let mut got = Vec::new();
    for (path, _, body) in reqs.iter() {
        assert_eq!(path, "/v1/traces");
        let req =
            cctape::otel::proto::tonic::collector::trace::v1::ExportTraceServiceRequest::decode(
                &body[..],
            )
            .unwrap();
        let spans: Vec<_> = req
            .resource_spans
            .iter()
            .flat_map(|r| &r.scope_spans)
            .flat_map(|s| &s.spans)
            .collect();
        assert_eq!(spans.len(), 1);
        got.push(spans[0].name.clone());
    }
    let names: Vec<&str> = want.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(got, names);
    assert!(
        stderr.contains(&format!("sent {} spans", want.len()))
            && stderr.contains(&format!("in {} requests", want.len())),
        "{stderr}"
    );
}
