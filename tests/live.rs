//! Live pipelines (issue 24): `-F` following files through appends,
//! rotation, truncation, deletion and re-creation with no line lost or
//! doubled; checkpoints across a restart; folders that gain files; output
//! that reaches a pipe while the input is still live; each run's verdict
//! as it ends. The tests wait with generous timeouts and never time how
//! fast anything is (latency is measured by benches/live_latency.sh).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(30);

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cctape-live-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A running command whose stdout and stderr lines are collected.
struct Running {
    child: Child,
    out: Arc<Mutex<Vec<String>>>,
    err: Arc<Mutex<Vec<String>>>,
}

fn collect(r: impl std::io::Read + Send + 'static) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let l2 = Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { break };
            l2.lock().unwrap().push(line);
        }
    });
    lines
}

fn start(args: &[&str], dir: &Path) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = collect(child.stdout.take().unwrap());
    let err = collect(child.stderr.take().unwrap());
    Running { child, out, err }
}

/// A child that a failing test does not leave running.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Running {
    fn out(&self) -> Vec<String> {
        self.out.lock().unwrap().clone()
    }
    fn err(&self) -> Vec<String> {
        self.err.lock().unwrap().clone()
    }
    /// Wait until stdout has `n` lines matching `f`.
    fn wait_out(&self, n: usize, f: impl Fn(&str) -> bool) {
        self.wait(false, n, f);
    }
    /// Wait until stderr has `n` lines matching `f`.
    fn wait_err(&self, n: usize, f: impl Fn(&str) -> bool) {
        self.wait(true, n, f);
    }
    fn wait(&self, err: bool, n: usize, f: impl Fn(&str) -> bool) {
        let t = Instant::now();
        let lines = || if err { self.err() } else { self.out() };
        while lines().iter().filter(|l| f(l)).count() < n {
            if t.elapsed() > WAIT {
                let out = self.out();
                panic!(
                    "waited for {n} lines; stdout has {} (last {:?}), stderr {:?}",
                    out.len(),
                    out.last(),
                    self.err()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    /// SIGTERM, then the exit code and the lines.
    fn stop(mut self) -> (i32, Vec<String>, Vec<String>) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: signalling our own child by its pid.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let status = self.child.wait().unwrap();
        // The readers end with the pipes.
        std::thread::sleep(Duration::from_millis(100));
        (status.code().unwrap_or(-1), self.out(), self.err())
    }
}

fn event(n: usize) -> String {
    format!("{{\"type\":\"user\",\"n\":{n},\"session_id\":\"s\"}}")
}

fn append(path: &Path, from: usize, to: usize) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    // One write: a reader never sees half a line.
    let text: String = (from..to).map(|n| event(n) + "\n").collect();
    f.write_all(text.as_bytes()).unwrap();
}

fn numbers(lines: &[String]) -> Vec<usize> {
    lines
        .iter()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            v.get("n")?.as_u64().map(|n| n as usize)
        })
        .collect()
}

fn is_event(l: &str) -> bool {
    l.contains("\"n\":")
}

/// Appends, a rename (logrotate's create), a truncation (copytruncate),
/// a deletion and a re-creation, while `watch -F` runs: every line comes
/// out once, in order.
#[test]
fn watch_follows_through_rotation_truncation_and_deletion() {
    let d = tmp("rotate");
    let log = d.join("run.jsonl");
    append(&log, 0, 50);
    let w = start(
        &[
            "watch",
            "-q",
            "-F",
            "run.jsonl",
            "--poll",
            "50",
            "--idle",
            "200ms",
        ],
        &d,
    );
    w.wait_out(50, is_event);
    // Written and at once renamed away, then re-created: the old file is
    // read to its end before the new one.
    append(&log, 50, 100);
    std::fs::rename(&log, d.join("run.jsonl.1")).unwrap();
    append(&log, 100, 150);
    w.wait_out(150, is_event);
    // Truncated, then written again.
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&log)
        .unwrap();
    w.wait_err(1, |l| l.contains("truncated"));
    append(&log, 150, 200);
    w.wait_out(200, is_event);
    // Deleted, and back after a while.
    std::fs::remove_file(&log).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    append(&log, 200, 250);
    w.wait_out(250, is_event);
    let (code, out, err) = w.stop();
    let got = numbers(&out);
    // Every line exactly once, in order.
    assert_eq!(got, (0..250).collect::<Vec<_>>(), "stderr {err:?}");
    assert!(
        err.iter().any(|l| l.contains("run.jsonl: file truncated")),
        "{err:?}"
    );
    assert!(
        err.iter()
            .any(|l| l.contains("has become inaccessible") || l.contains("has been replaced")),
        "{err:?}"
    );
    // No result in the stream: the run's verdict, at the stop, is a
    // failure (exit 1), in JSON on a stderr that is not a terminal.
    assert_eq!(code, 1, "{err:?}");
    let verdict = err.iter().find(|l| l.starts_with('{')).expect("a verdict");
    let v: serde_json::Value = serde_json::from_str(verdict).unwrap();
    assert_eq!(v["verdict"], "no_result");
    assert_eq!(v["events"].as_u64(), Some(got.len() as u64));
}

/// `--checkpoint`: stopped and started again, `fields -F` goes on where it
/// stopped, with what was written meanwhile, and no line twice; a file
/// replaced while it was stopped is read from its start.
#[test]
fn checkpoint_resumes_without_loss_or_doubles() {
    let d = tmp("checkpoint");
    let log = d.join("run.jsonl");
    let args = [
        "fields",
        "-F",
        "run.jsonl",
        "--checkpoint",
        "cp.json",
        "--poll",
        "50",
        "-f",
        "n",
        "--no-header",
    ];
    append(&log, 0, 20);
    let first = start(&args, &d);
    first.wait_out(20, |_| true);
    let (code, out1, err) = first.stop();
    assert_eq!(code, 0, "{err:?}");
    let cp: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("cp.json")).unwrap()).unwrap();
    let size = std::fs::metadata(&log).unwrap().len();
    assert_eq!(cp["files"][0]["offset"].as_u64(), Some(size));
    assert_eq!(cp["files"][0]["path"], "run.jsonl");
    // Written while nothing reads.
    append(&log, 20, 35);
    let second = start(&args, &d);
    second.wait_out(15, |_| true);
    append(&log, 35, 40);
    second.wait_out(20, |_| true);
    let (_, out2, _) = second.stop();
    let all: Vec<usize> = out1
        .iter()
        .chain(&out2)
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(all, (0..40).collect::<Vec<_>>());
    // Replaced while stopped: the new file from its start.
    std::fs::rename(&log, d.join("old.jsonl")).unwrap();
    append(&log, 100, 103);
    let third = start(&args, &d);
    third.wait_out(3, |_| true);
    let (_, out3, _) = third.stop();
    assert_eq!(out3, ["100", "101", "102"]);
}

/// A folder given to -F: files a harness creates in it later are read
/// (the walk's names: a .txt file is not), and their verdicts come out as
/// each run ends (`verdict -F`).
#[test]
fn folder_discovers_new_files_and_verdicts_come_as_runs_end() {
    let d = tmp("folder");
    let runs = d.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let v = start(
        &[
            "verdict", "-F", "runs", "--poll", "50", "--idle", "200ms", "--json",
        ],
        &d,
    );
    std::thread::sleep(Duration::from_millis(200));
    let run = |id: &str, subtype: &str| {
        format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"{id}\"}}\n\
             {{\"type\":\"result\",\"subtype\":\"{subtype}\",\"is_error\":false,\"session_id\":\"{id}\"}}\n"
        )
    };
    std::fs::write(runs.join("a.jsonl"), run("a", "success")).unwrap();
    v.wait_out(1, |l| l.contains("\"session_id\":\"a\""));
    std::fs::create_dir_all(runs.join("later")).unwrap();
    std::fs::write(runs.join("later/b.jsonl"), run("b", "error_max_turns")).unwrap();
    std::fs::write(runs.join("notes.txt"), run("c", "success")).unwrap();
    v.wait_out(2, |l| l.starts_with('{'));
    std::thread::sleep(Duration::from_millis(500));
    let (code, out, err) = v.stop();
    let recs: Vec<serde_json::Value> = out
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let seen: Vec<(&str, &str)> = recs
        .iter()
        .map(|r| {
            (
                r["session_id"].as_str().unwrap(),
                r["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen, [("a", "success"), ("b", "max_turns")], "{err:?}");
    assert!(recs[1]["file"].as_str().unwrap().ends_with("later/b.jsonl"));
    // The record `verdict --json` prints for the same file.
    let whole = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(["verdict", "--json"])
        .arg(runs.join("a.jsonl"))
        .output()
        .unwrap();
    let mut w: serde_json::Value = serde_json::from_slice(&whole.stdout).unwrap();
    let mut live = recs[0].clone();
    w["file"] = serde_json::Value::Null;
    live["file"] = serde_json::Value::Null;
    assert_eq!(live, w);
    assert_eq!(code, 1, "a run failed");
}

/// `tail -F run.jsonl | cctape filter --type assistant`: rows come while
/// tail still runs (before, every row came when tail ended).
#[test]
fn filter_prints_rows_from_a_live_pipe() {
    let d = tmp("pipe");
    let log = d.join("run.jsonl");
    std::fs::write(&log, "").unwrap();
    let Ok(tail) = Command::new("tail")
        .args(["-F", "-n", "+1"])
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        assert!(std::env::var_os("CI").is_none(), "no tail");
        return;
    };
    let mut tail = Reaped(tail);
    let mut filter = Reaped(
        Command::new(env!("CARGO_BIN_EXE_cctape"))
            .args(["filter", "--type", "assistant"])
            .stdin(tail.0.stdout.take().unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let out = collect(filter.0.stdout.take().unwrap());
    let assistant = |i: usize| {
        format!(
            "{{\"type\":\"assistant\",\"message\":{{\"id\":\"m{i}\",\"content\":[]}},\"session_id\":\"s\"}}\n\
             {{\"type\":\"user\",\"session_id\":\"s\"}}\n"
        )
    };
    for i in 0..3 {
        let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        f.write_all(assistant(i).as_bytes()).unwrap();
        drop(f);
        let t = Instant::now();
        while out.lock().unwrap().len() <= i {
            assert!(t.elapsed() < WAIT, "row {i} did not come while tail ran");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    assert!(tail.0.try_wait().unwrap().is_none(), "tail still runs");
    drop(tail);
    let status = filter.0.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let rows = out.lock().unwrap().clone();
    assert_eq!(rows.len(), 3);
    assert!(rows[2].contains("\"m2\""));
}

/// `watch` on standard input prints a run's verdict once its result came
/// and the input was quiet for --idle, while the input is still open.
#[test]
fn watch_prints_each_verdict_while_the_input_stays_open() {
    let mut w = Reaped(
        Command::new(env!("CARGO_BIN_EXE_cctape"))
            .args(["watch", "-q", "--idle", "200ms"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let err = collect(w.0.stderr.take().unwrap());
    let mut stdin = w.0.stdin.take().unwrap();
    writeln!(
        stdin,
        "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"a\"}}\n\
         {{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"a\"}}"
    )
    .unwrap();
    stdin.flush().unwrap();
    let t = Instant::now();
    while err.lock().unwrap().is_empty() {
        assert!(t.elapsed() < WAIT, "no verdict while the input is open");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The next run's init closes run b at once, without waiting.
    writeln!(
        stdin,
        "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"b\"}}\n\
         {{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,\"session_id\":\"b\"}}\n\
         {{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"c\"}}"
    )
    .unwrap();
    stdin.flush().unwrap();
    let t = Instant::now();
    while err.lock().unwrap().len() < 2 {
        assert!(t.elapsed() < WAIT, "no verdict for b");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(stdin);
    let status = w.0.wait().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let lines = err.lock().unwrap().clone();
    let ids: Vec<String> = lines
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!(
                "{}:{}",
                v["session_id"].as_str().unwrap(),
                v["verdict"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(ids, ["a:success", "b:error", "c:no_result"]);
    assert_eq!(status.code(), Some(1));
}

/// `watch -F --checkpoint` stopped in the middle of a run: the lines it
/// passed through are not passed through again, and the run's verdict,
/// said once after the restart, counts the run whole (its start is read
/// again to fold it).
#[test]
fn watch_checkpoint_resumes_a_run_in_the_middle() {
    let d = tmp("watch-checkpoint");
    let log = d.join("run.jsonl");
    let args = [
        "watch",
        "-q",
        "-F",
        "run.jsonl",
        "--checkpoint",
        "cp.json",
        "--poll",
        "50",
        "--idle",
        "200ms",
    ];
    let lines = [
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"a\",\"n\":0}",
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"a\",\"n\":1}",
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"b\",\"n\":2}",
        "{\"type\":\"user\",\"session_id\":\"b\",\"n\":3}",
        "{\"type\":\"user\",\"session_id\":\"b\",\"n\":4}",
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"b\",\"n\":5}",
    ];
    let write = |from: usize, to: usize| {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap();
        let text: String = lines[from..to].iter().map(|l| format!("{l}\n")).collect();
        f.write_all(text.as_bytes()).unwrap();
    };
    write(0, 4);
    let first = start(&args, &d);
    first.wait_out(4, is_event);
    // Run a is over (b started); b is not.
    first.wait_err(1, |l| l.contains("\"session_id\":\"a\""));
    let (code, out1, err1) = first.stop();
    assert_eq!(code, 0, "{err1:?}");
    assert_eq!(
        err1.iter().filter(|l| l.starts_with('{')).count(),
        1,
        "{err1:?}"
    );
    let cp: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("cp.json")).unwrap()).unwrap();
    let b_start = lines[..2].iter().map(|l| l.len() as u64 + 1).sum::<u64>();
    assert_eq!(cp["files"][0]["replay"].as_u64(), Some(b_start), "{cp}");
    write(4, 6);
    let second = start(&args, &d);
    second.wait_err(1, |l| l.contains("\"session_id\":\"b\""));
    let (code, out2, err2) = second.stop();
    assert_eq!(code, 0, "{err2:?}");
    let all: Vec<usize> = numbers(&out1).into_iter().chain(numbers(&out2)).collect();
    assert_eq!(all, [0, 1, 2, 3, 4, 5]);
    let verdicts: Vec<serde_json::Value> = err2
        .iter()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(verdicts.len(), 1, "{err2:?}");
    assert_eq!(verdicts[0]["session_id"], "b");
    assert_eq!(verdicts[0]["verdict"], "success");
    assert_eq!(verdicts[0]["events"], 4, "the run read whole");
}
