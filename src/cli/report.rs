//! `cctape report --html FILE`: one self-contained HTML page of every run
//! read (charts inline as SVG, each with its numbers as a table; nothing
//! loaded from anywhere), made by the library ([`cctape::report::html`])
//! from the figures `stats` and `verdict` compute.
//!
//! The inputs are read once, as `cctape stats --by block` reads them (its
//! reading, with a tap that also groups each run by day, week and version
//! and keeps the failed runs and the runs with subagents). The page is
//! written atomically: a temporary file in FILE's folder, synced, renamed
//! over FILE, the folder synced; any failure leaves FILE as it was and
//! exits 2.

use super::Common;
use super::exec::{self, Piece};
use super::human::count;
use super::inputs::shown_path;
use super::output::human_bytes;
use super::project::Project;
use super::reading::{Costing, Days, ReadAs};
use super::stats::{Read, Reading, Tap, read};
use cctape::event::{Event, EventKind};
use cctape::report::html::{Page, ReportFigures, RunsSeen, render};
use cctape::report::{GroupBy, Grouping};
use cctape::run::RunSummary;
use cctape::time::{DayRange, Zone};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Arguments of `cctape report`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Write the page to FILE (`-`: standard output). FILE is replaced
    /// atomically: a temporary file in its folder, synced, then renamed
    /// over it.
    #[arg(long, value_name = "FILE", required = true)]
    html: PathBuf,
    /// The page's title.
    #[arg(long, value_name = "TEXT", default_value = "cctape report")]
    title: String,
    #[command(flatten)]
    project: Project,
    #[command(flatten)]
    days: Days,
    #[command(flatten)]
    read: ReadAs,
    #[command(flatten)]
    costing: Costing,
    #[command(flatten)]
    common: Common,
}

/// The report's tap on `stats`' reading: the runs by day, week and
/// version, the failed runs and those with subagents, and where the API
/// retries were.
struct ReportTap {
    seen: RunsSeen,
}

impl Tap for ReportTap {
    fn wants_calls(&self) -> bool {
        true
    }

    fn event(&mut self, ev: &Event<'_>) {
        if ev.kind() == EventKind::SystemApiRetry {
            self.seen.retry(ev.line(), ev.session_id());
        }
    }

    fn run(&mut self, p: &Piece<'_>, r: &RunSummary) {
        self.seen.add(p.input, p.name, r);
    }
}

/// Run the command: 0 when the page was written, 2 when an input could
/// not be read (the page is written all the same) or the page could not
/// be written.
pub fn run(args: &Args) -> i32 {
    let (prices, zone, range) = match (
        args.costing.prices(),
        args.costing.zone(),
        args.days.range(),
    ) {
        (Ok(p), Ok(z), Ok(r)) => (p, z, r),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            exec::note(&e);
            return 2;
        }
    };
    let grouping = Grouping {
        by: Some(GroupBy::Block),
        zone: zone.clone(),
        range,
    };
    let how = Reading {
        common: &args.common,
        read: &args.read,
        project: &args.project,
        no_event_runs: true,
    };
    let mut seen = RunsSeen::new(&zone, range);
    let tap = || new_tap(&zone, range);
    let Read {
        figures, trouble, ..
    } = read(&how, grouping, prices, false, tap, |t: ReportTap| {
        seen.merge(t.seen)
    });
    let figures = ReportFigures::finish(figures, seen);
    let page = Page {
        title: args.title.clone(),
        ..Page::default()
    };
    let html = match render(&figures, &page) {
        Ok(h) => h,
        Err(e) => {
            exec::note(&e);
            return 2;
        }
    };
    if args.html.as_os_str() == "-" {
        exec::write_out(&mut html.into_bytes());
    } else {
        if let Err(e) = write_atomic(&args.html, html.as_bytes()) {
            exec::note(&format!("writing {}: {e}", shown_path(&args.html)));
            return 2;
        }
        if !args.common.quiet {
            let all = &figures.stats.total.runs.all;
            exec::note(&format!(
                "wrote {} ({}): {}, {} failed",
                shown_path(&args.html),
                human_bytes(html.len() as u64),
                count(all.runs, "run", "runs"),
                all.failed()
            ));
        }
    }
    trouble.exit_code(0)
}

fn new_tap(zone: &Zone, range: DayRange) -> ReportTap {
    ReportTap {
        seen: RunsSeen::new(zone, range),
    }
}

/// Write `bytes` to `path` so that it is either the old file or the whole
/// new one: a new file beside it (same folder, so the rename stays on one
/// file system), written and synced, renamed over `path`, then the folder
/// synced so the rename survives a crash. The new file is created with
/// the usual mode (0666 less the umask), as the shell would create it.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Some(name) = path.file_name() else {
        return Err(Error::new(ErrorKind::InvalidInput, "not a file name"));
    };
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // A folder that cannot be synced (some file systems refuse) still has
    // the new file; any other failure is reported.
    match std::fs::File::open(dir).and_then(|d| d.sync_all()) {
        Err(e) if !matches!(e.kind(), ErrorKind::InvalidInput | ErrorKind::Unsupported) => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("cctape-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("r.html");
        std::fs::write(&f, b"old").unwrap();
        write_atomic(&f, b"new page").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new page");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "{left:?}");
        // A folder that does not exist: an error, nothing written.
        let e = write_atomic(&dir.join("no/such/r.html"), b"x").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
