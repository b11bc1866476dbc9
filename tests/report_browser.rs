//! `cctape report --html` in a real browser: headless Chromium renders the
//! page of the shipped corpus, of every real capture (all waves, then its
//! transcripts alone) and of a generated transcript tree; its screenshot
//! must be of the window's size and not blank, and the DOM it builds
//! (`--dump-dom`) must hold the totals, the per-model costs and the
//! failed-run count of `stats --json` (and `verdict --json`) for the same
//! inputs, and name nothing to load.
//!
//! Chromium is found at `$CHROMIUM`, else as `chromium` or
//! `chromium-browser` on the PATH (`.ci/run` installs Debian's
//! `chromium`). Missing, the test says "skipped" and passes, unless `CI` is
//! set: then it fails. Each run gets a new empty profile and no network
//! (every host resolves to nothing), so the page can load nothing even if
//! it tried.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/report_page.rs"]
mod page;

#[path = "support/scratch.rs"]
mod scratch;

#[allow(dead_code)]
#[path = "../examples/gentranscripts.rs"]
mod gentranscripts;

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 2000;

fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("CHROMIUM").map(PathBuf::from).or_else(|| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path).find_map(|d| {
            ["chromium", "chromium-browser"]
                .iter()
                .map(|n| d.join(n))
                .find(|p| p.is_file())
        })
    });
    if found.is_none() {
        println!("skipped: chromium not found (run .ci/run's install step, or set CHROMIUM)");
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium not found and CI is set: the browser test must run in CI"
        );
    }
    found
}

/// Chromium headless on `page` with a new empty profile and `extra`
/// arguments; its stdout. Killed after two minutes.
fn headless(bin: &Path, page: &Path, extra: &[String]) -> Vec<u8> {
    let profile = scratch::scratch("chromium-profile");
    let mut child = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut out).map(|_| out)
    });
    let mut stderr = child.stderr.take().unwrap();
    let errs = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut out);
        out
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!(
                "chromium did not finish in two minutes on {}",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = reader.join().unwrap().unwrap();
    let err = errs.join().unwrap();
    assert!(
        status.success(),
        "chromium: {status}\n{}",
        String::from_utf8_lossy(&err)
    );
    out
}

/// The screenshot is `WIDTH`×`HEIGHT` and not blank: many colours, and
/// a good share of pixels away from the page's background.
fn check_screenshot(png_path: &Path) {
    let file = std::fs::File::open(png_path).expect("a screenshot");
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    assert_eq!(
        (info.width, info.height),
        (WIDTH, HEIGHT),
        "screenshot size"
    );
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| &p[..3])
        .collect();
    let mut counts = std::collections::HashMap::new();
    for p in &pixels {
        *counts.entry(*p).or_insert(0u64) += 1;
    }
    let (background, most) = counts.iter().max_by_key(|(_, n)| **n).unwrap();
    let others = pixels.len() as u64 - most;
    assert!(
        counts.len() > 50,
        "{} colours only: blank? (background {background:?})",
        counts.len()
    );
    assert!(
        others * 100 > pixels.len() as u64 * 3,
        "only {others} of {} pixels are not the background {background:?}",
        pixels.len()
    );
}

/// Render the report of `args` (run in `cwd`) and check the screenshot
/// and the DOM.
fn in_browser(bin: &Path, cwd: &Path, args: &[&str]) {
    let tmp = scratch::scratch("report-browser");
    let html = tmp.join("report.html");
    let mut a = vec!["report", "--timezone", "UTC", "--html"];
    let html_arg = html.to_string_lossy().into_owned();
    a.push(&html_arg);
    a.extend(args);
    page::cctape(cwd, &a);
    let file = std::fs::read_to_string(&html).unwrap();
    page::loads_nothing(&file);
    let shot = tmp.join("shot.png");
    headless(
        bin,
        &html,
        &[
            format!("--screenshot={}", shot.display()),
            format!("--window-size={WIDTH},{HEIGHT}"),
        ],
    );
    check_screenshot(&shot);
    let dom = String::from_utf8(headless(bin, &html, &["--dump-dom".to_string()])).unwrap();
    assert!(
        dom.contains("id=\"totals\""),
        "the DOM has no totals: {dom:.400}"
    );
    page::loads_nothing(&dom);
    page::same_figures(&dom, &page::stats(cwd, args), &page::verdicts(cwd, args));
    // The charts are in the DOM as SVG, each followed by its table.
    for id in [
        "cost-by-day",
        "cost-by-block",
        "tokens-by-day",
        "verdicts-by-version",
    ] {
        let t = dom
            .find(&format!("<table id=\"{id}\""))
            .unwrap_or_else(|| panic!("{id}"));
        let svg = dom[..t].rfind("<svg").unwrap();
        assert!(dom[svg..t].contains("<rect"), "{id}: no bars");
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn corpus_in_a_browser() {
    let Some(bin) = chromium() else { return };
    in_browser(&bin, root(), &["corpus"]);
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn realworld_in_a_browser() {
    let Some(bin) = chromium() else { return };
    in_browser(&bin, root(), &["../shared/realworld"]);
    in_browser(
        &bin,
        root(),
        &[
            "../shared/realworld/session-format",
            "../shared/realworld/wave2/session-format",
        ],
    );
}

#[test]
fn generated_transcripts_in_a_browser() {
    let Some(bin) = chromium() else { return };
    let tmp = scratch::scratch("report-browser-tree");
    let opts = gentranscripts::Opts {
        projects: 4,
        sessions: 5,
        turns: 6,
        seed: 11,
    };
    gentranscripts::generate(&tmp, &opts).expect("generate a tree");
    in_browser(&bin, &tmp, &[".claude/projects"]);
}
