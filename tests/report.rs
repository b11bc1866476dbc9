//! `cctape report --html`: the page's figures are those of `stats --json`
//! and `verdict --json` for the same inputs and flags (the shipped corpus,
//! every real capture, a generated transcript tree), it loads nothing, and
//! it is written atomically with every write error reported (exit 2).
//!
//! tests/report_browser.rs checks the same figures in the DOM a real
//! browser builds from the page.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[path = "support/report_page.rs"]
mod page;

#[path = "support/scratch.rs"]
mod scratch;

#[allow(dead_code)]
#[path = "../examples/gentranscripts.rs"]
mod gentranscripts;

use page::{chart_totals, group_figures, loads_nothing, same_figures, stats, verdicts};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `cctape report --timezone UTC ARGS --html OUT`: the exit code, stderr
/// and the page.
fn report(cwd: &Path, out: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .current_dir(cwd)
        .arg("report")
        .args(["--timezone", "UTC"])
        .args(args)
        .arg("--html")
        .arg(out)
        .env("TZ", "UTC")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .expect("run cctape");
    let html = std::fs::read_to_string(out).unwrap_or_default();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        html,
    )
}

/// The page for `args` in `cwd` against `stats` and `verdict` with the
/// same arguments, its charts' tables against `stats --by`.
fn check(cwd: &Path, args: &[&str]) -> String {
    let tmp = scratch::scratch("report");
    let (code, err, html) = report(cwd, &tmp.join("r.html"), args);
    assert!(matches!(code, Some(0 | 2)), "{code:?}: {err}");
    same_figures(&html, &stats(cwd, args), &verdicts(cwd, args));
    loads_nothing(&html);
    let by = |key: &str| {
        let mut a = vec!["--by", key];
        a.extend(args);
        stats(cwd, &a)
    };
    let cost = |g: &Value| g["total_cost_usd"].clone();
    let runs = |g: &Value| g["runs"].clone();
    let tokens = |g: &Value| {
        let t = &g["tokens"];
        let n: u64 = [
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ]
        .iter()
        .map(|k| t[k].as_u64().unwrap())
        .sum();
        Value::from(n)
    };
    let day = by("day");
    assert_eq!(
        chart_totals(&html, "cost-by-day"),
        group_figures(&day, &cost)
    );
    assert_eq!(
        chart_totals(&html, "tokens-by-day"),
        group_figures(&day, &tokens)
    );
    assert_eq!(
        chart_totals(&html, "cost-by-block"),
        group_figures(&by("block"), &cost)
    );
    assert_eq!(
        chart_totals(&html, "verdicts-by-version"),
        group_figures(&by("version"), &runs)
    );
    assert_eq!(
        chart_totals(&html, "verdicts-by-week"),
        group_figures(&by("week"), &runs)
    );
    html
}

#[test]
fn corpus_page_has_the_figures_of_stats_and_verdict() {
    let html = check(root(), &["corpus"]);
    // The corpus has no URL anywhere: the page names none at all.
    assert!(!html.contains("http:") && !html.contains("https:"));
    // The first failed run's timeline is open, with its calls as a table.
    assert!(html.contains("<details id=\"timeline-0\""), "no timeline");
    assert!(html.contains("id=\"timeline-0-calls\""));
    assert!(html.contains("<svg "), "no chart");
    assert!(html.contains("id=\"subagent-tree\""));
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn realworld_pages_have_the_figures_of_stats_and_verdict() {
    // Every wave, streams and transcripts together, then the transcripts
    // alone.
    check(root(), &["../shared/realworld"]);
    let sessions = [
        "../shared/realworld/session-format",
        "../shared/realworld/wave2/session-format",
    ];
    let html = check(root(), &sessions);
    // A failed session's timeline draws its API requests as a stream's
    // model calls (the turns and subagent lanes) and lists each in its
    // table: as many rows as its run counts messages, main and subagents'.
    let failed: Vec<Value> = verdicts(root(), &sessions)
        .into_iter()
        .filter(|v| v["ok"] == false)
        .collect();
    assert!(!failed.is_empty());
    let messages: u64 = failed
        .iter()
        .map(|v| {
            let u = &v["usage"];
            u["main"]["messages"].as_u64().unwrap() + u["subagents"]["messages"].as_u64().unwrap()
        })
        .sum();
    assert!(messages > 0);
    let rows = html.matches("<td class=\"t\">model call</td>").count() as u64;
    assert_eq!(rows, messages);
}

/// A failed session's API retries (`system/api_error` records) are drawn
/// on its timeline's retries lane and listed in its table at their lines,
/// as many as `verdict --json` counts, in time order.
#[test]
fn a_failed_sessions_retries_are_listed() {
    let tmp = scratch::scratch("report-retries");
    let dir = tmp.join("p");
    std::fs::create_dir_all(&dir).unwrap();
    let rec = |t: &str, body: &str| {
        format!(
            r#"{{"sessionId":"s1","timestamp":"2026-03-01T10:00:{t}Z","isSidechain":false,{body}}}"#
        )
    };
    let retry = |t: &str, attempt: u32| {
        rec(
            t,
            &format!(
                r#""type":"system","subtype":"api_error","level":"error","error":{{"status":529}},"retryAttempt":{attempt},"maxRetries":10,"retryInMs":500"#
            ),
        )
    };
    let lines = [
        rec(
            "00",
            r#""type":"user","message":{"role":"user","content":"hi"}"#,
        ),
        // Out of time order: the later retry's record comes first.
        retry("09", 2),
        retry("05", 1),
        rec(
            "20",
            r#""type":"assistant","isApiErrorMessage":true,"error":"overloaded","message":{"id":"m1","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 529"}],"usage":{"input_tokens":0,"output_tokens":0}}"#,
        ),
    ];
    std::fs::write(dir.join("s1.jsonl"), lines.join("\n") + "\n").unwrap();
    let html = check(&tmp, &["p"]);
    let v = &verdicts(&tmp, &["p"])[0];
    assert_eq!(v["ok"], false);
    assert_eq!(v["api_retries"]["count"], 2);
    let rows: Vec<&str> = html
        .split("<td class=\"t\">API retry</td><td>")
        .skip(1)
        .map(|r| &r[..r.find('<').unwrap()])
        .collect();
    assert_eq!(rows, ["3", "2"]);
}

fn generated() -> scratch::Scratch {
    let tmp = scratch::scratch("report-tree");
    let opts = gentranscripts::Opts {
        projects: 3,
        sessions: 4,
        turns: 6,
        seed: 11,
    };
    gentranscripts::generate(&tmp, &opts).expect("generate a tree");
    tmp
}

#[test]
fn generated_tree_and_its_flags_match_stats() {
    let tmp = generated();
    check(&tmp, &[".claude/projects"]);
    // Days kept, another zone, a glob, a project: the same as stats with
    // the same flags.
    check(
        &tmp,
        &[
            "--since",
            "2026-01-20",
            "--until",
            "20260201",
            ".claude/projects",
        ],
    );
    check(&tmp, &["-g", "!**/subagents/**", ".claude/projects"]);
    let project = std::fs::read_dir(tmp.join(".claude/projects"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .min()
        .unwrap();
    let html = check(&tmp, &["--project", &project, ".claude/projects"]);
    // Only that project's sessions: as many runs as its folder alone gives.
    let alone = stats(&tmp, &[&format!(".claude/projects/{project}")]);
    assert!(html.contains(&format!(
        "id=\"total-runs\" data-value=\"{}\"",
        alone["runs"]
    )));
    let tz = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .current_dir(&*tmp)
        .args([
            "report",
            "--timezone",
            "Pacific/Kiritimati",
            ".claude/projects",
        ])
        .args(["--html", "-"])
        .output()
        .unwrap();
    let kiritimati = String::from_utf8(tz.stdout).unwrap();
    let s: Value = serde_json::from_slice(&page::cctape(
        &tmp,
        &[
            "stats",
            "--json",
            "--by",
            "day",
            "--timezone",
            "Pacific/Kiritimati",
            ".claude/projects",
        ],
    ))
    .unwrap();
    assert_eq!(
        chart_totals(&kiritimati, "cost-by-day"),
        group_figures(&s, &|g: &Value| g["total_cost_usd"].clone())
    );
}

#[test]
fn write_errors_exit_2_and_leave_the_old_page() {
    let tmp = scratch::scratch("report-write");
    // A folder that does not exist.
    let missing = tmp.join("no/such/r.html");
    let (code, err, _) = report(root(), &missing, &["corpus"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("writing ") && err.contains("r.html"), "{err}");
    assert!(!missing.exists());
    // A folder that cannot be written: the old page stays, no temporary
    // file is left.
    #[cfg(unix)]
    if !is_root() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tmp.join("ro");
        std::fs::create_dir(&dir).unwrap();
        let page = dir.join("r.html");
        std::fs::write(&page, "old").unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        let (code, err, html) = report(root(), &page, &["corpus"]);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(code, Some(2), "{err}");
        assert_eq!(html, "old");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    }
    // Standard output that cannot be written.
    if Path::new("/dev/full").exists() {
        let full = std::fs::File::create("/dev/full").unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_cctape"))
            .args(["report", "corpus", "--html", "-"])
            .current_dir(root())
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("No space left"));
    }
    // A page written over an old one replaces it whole, leaving nothing
    // beside it.
    let page = tmp.join("r.html");
    std::fs::write(&page, "old").unwrap();
    let (code, err, html) = report(root(), &page, &["corpus"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
    let names: Vec<_> = std::fs::read_dir(&*tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "ro")
        .collect();
    assert_eq!(names, ["r.html"]);
    // The runs and failed runs stats counts.
    let st = stats(root(), &["corpus"]);
    let runs = st["runs"].as_u64().unwrap();
    let v = &st["verdicts"];
    let failed = runs - v["success"].as_u64().unwrap() - v["ended"].as_u64().unwrap_or(0);
    assert!(
        err.contains("wrote ") && err.contains(&format!("{runs} runs, {failed} failed")),
        "{err}"
    );
}

/// Root writes anywhere: the read-only folder case cannot fail for it.
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}
