//! `cctape export` replaces the previous export whole, or not at all (issue
//! 22, item 3): a full disk, a read-only folder, SIGKILL, SIGINT and SIGTERM
//! in the middle of an export each leave the previous export's files as
//! they were, byte for byte and readable (rows counted from each Parquet
//! footer), and every failure exits 2 with its reason. A staging folder a
//! killed export left is removed by the next one; files in a table's folder
//! that are not part files are kept.
//!
//! The full disk and the read-only folder are real: a 1 MiB tmpfs mounted in
//! a private mount namespace (`unshare -m` as root, `unshare -rm` as a
//! user), so nothing is left mounted whatever happens. Where no namespace
//! can be made the two tests print "skipped" and pass, unless `CI` is set.
//!
//! `CCTAPE_BIN=path` runs them against another binary (an older build, to
//! see them fail before the fix).
#![cfg(all(unix, feature = "parquet"))]

use parquet::file::reader::{FileReader, SerializedFileReader};
use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::{Scratch, scratch};

#[path = "support/stream_gen.rs"]
mod stream_gen;

fn bin() -> PathBuf {
    std::env::var_os("CCTAPE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_cctape").into())
}

fn run(args: &[&str], paths: &[&Path]) -> Output {
    Command::new(bin())
        .args(args)
        .args(paths)
        .stdin(Stdio::null())
        .output()
        .expect("run cctape")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The files of an export: each table's part files with their bytes and
/// the rows their footers count, and any other file by its path.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot {
    files: BTreeMap<String, (Vec<u8>, Option<i64>)>,
}

impl Snapshot {
    fn of(out: &Path) -> Snapshot {
        let mut files = BTreeMap::new();
        let mut stack = vec![out.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("read dir").flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let name = p.strip_prefix(out).unwrap().to_string_lossy().into_owned();
                let bytes = std::fs::read(&p).expect("read");
                let rows = name.ends_with(".parquet").then(|| footer_rows(&p));
                files.insert(name, (bytes, rows));
            }
        }
        Snapshot { files }
    }

    /// Rows of a table, from its part files' footers.
    fn rows(&self, table: &str) -> i64 {
        self.files
            .iter()
            .filter(|(n, _)| n.starts_with(&format!("{table}/")))
            .filter_map(|(_, (_, r))| *r)
            .sum()
    }

    fn parts(&self, table: &str) -> usize {
        self.files
            .keys()
            .filter(|n| n.starts_with(&format!("{table}/part-")))
            .count()
    }
}

/// The rows a Parquet file's footer counts (it fails on a file cut short).
fn footer_rows(p: &Path) -> i64 {
    let f = std::fs::File::open(p).expect("open");
    let r = SerializedFileReader::new(f)
        .unwrap_or_else(|e| panic!("{} is not a whole Parquet file: {e}", p.display()));
    r.metadata().file_metadata().num_rows()
}

/// Staging folders left in `out`.
fn staging(out: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(out)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(".cctape-tmp-"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A previous export in `out` (three part files of events) and what it is.
fn previous_export(dir: &Path, out: &Path) -> Snapshot {
    let input = dir.join("previous.jsonl");
    std::fs::write(&input, stream_gen::stream(30, 3, 40, 7)).unwrap();
    let o = run(
        &["export", "-q", "--max-file-rows", "150", "--out"],
        &[out, &input],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let s = Snapshot::of(out);
    assert!(s.parts("events") >= 3, "{:?}", s.files.keys());
    assert!(s.rows("runs") == 30);
    s
}

#[test]
fn an_export_replaces_the_previous_one_and_keeps_other_files() {
    let dir = scratch("atomic-replace");
    let out = dir.join("out");
    let before = previous_export(&dir, &out);
    std::fs::write(out.join("events/README.txt"), "notes of mine\n").unwrap();
    std::fs::write(out.join("_SUCCESS"), "").unwrap();
    let input = dir.join("next.jsonl");
    std::fs::write(&input, stream_gen::stream(4, 2, 10, 8)).unwrap();
    let o = run(&["export", "-q", "--json", "--out"], &[&out, &input]);
    assert!(o.status.success(), "{}", stderr(&o));
    let after = Snapshot::of(&out);
    // One part file per table now: the three of the previous export are
    // gone, the files that are not part files stayed.
    assert_eq!(after.parts("events"), 1);
    assert_eq!(after.rows("runs"), 4);
    assert!(after.rows("events") < before.rows("events"));
    assert_eq!(after.files["events/README.txt"].0, b"notes of mine\n");
    assert!(after.files.contains_key("_SUCCESS"));
    assert!(staging(&out).is_empty(), "{:?}", staging(&out));
    // What --json says is where the files are.
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = j["tables"]["events"]["files"][0].as_str().unwrap();
    assert_eq!(Path::new(f), out.join("events/part-00000.parquet"));
}

/// Spawn an export of `inputs` then stdin, and wait until it has written
/// row groups of a part file into its staging folder (the stdin it reads
/// last is held open, so it cannot finish).
fn export_in_the_middle(out: &Path, inputs: &[PathBuf]) -> (std::process::Child, PathBuf) {
    let mut child = Command::new(bin())
        .args(["export", "-q", "--raw", "--row-group-rows", "50", "--out"])
        .arg(out)
        .args(inputs)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // A few lines on stdin, so that it has begun that input too.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&stream_gen::stream(1, 1, 10, 5)).unwrap();
    std::mem::forget(stdin);
    let start = Instant::now();
    loop {
        let partial = staging(out).into_iter().find_map(|s| {
            std::fs::read_dir(s.join("events"))
                .ok()?
                .flatten()
                .map(|e| e.path())
                .find(|p| p.metadata().is_ok_and(|m| m.len() > 4096))
        });
        if let Some(p) = partial {
            return (child, p);
        }
        if let Ok(Some(s)) = child.try_wait() {
            let mut err = String::new();
            let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err);
            panic!("the export ended before it was stopped ({s}): {err}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no part file appeared in a staging folder of {}",
            out.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn big_inputs(dir: &Path) -> Vec<PathBuf> {
    (0..2)
        .map(|i| {
            let p = dir.join(format!("big{i}.jsonl"));
            std::fs::write(&p, stream_gen::stream(400, 4, 400, 100 + i)).unwrap();
            p
        })
        .collect()
}

fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: signalling our own child.
    let r = unsafe { libc::kill(child.id() as i32, sig) };
    assert_eq!(r, 0);
}

fn wait(child: &mut std::process::Child) -> (std::process::ExitStatus, String) {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            let mut err = String::new();
            let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err);
            return (s, err);
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the export did not end after a signal");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_killed_export_keeps_the_previous_one_and_the_next_cleans_up() {
    let dir = scratch("atomic-kill");
    let out = dir.join("out");
    let before = previous_export(&dir, &out);
    let inputs = big_inputs(&dir);
    let (mut child, partial) = export_in_the_middle(&out, &inputs);
    signal(&child, libc::SIGKILL);
    let (status, _) = wait(&mut child);
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    // The previous export, whole: the same bytes, every footer readable.
    let stage = staging(&out);
    assert_eq!(stage.len(), 1, "the staging folder is left");
    let mut kept = Snapshot::of(&out);
    kept.files.retain(|n, _| !n.starts_with(".cctape-tmp-"));
    assert_eq!(kept, before);
    // What the killed export was writing has no .parquet name: no glob of
    // a table reads it, and it is not in a table's folder.
    let name = partial.file_name().unwrap().to_str().unwrap();
    assert!(name.ends_with(".parquet.partial"), "{name}");
    assert!(partial.starts_with(&stage[0]));
    // The next export removes it.
    let input = dir.join("next.jsonl");
    std::fs::write(&input, stream_gen::stream(3, 1, 10, 9)).unwrap();
    let o = run(&["export", "-q", "--out"], &[&out, &input]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(staging(&out).is_empty(), "{:?}", staging(&out));
    assert_eq!(Snapshot::of(&out).rows("runs"), 3);
    assert_eq!(
        stderr(&o),
        "",
        "nothing to say about a staging folder of ours"
    );
}

#[test]
fn sigint_and_sigterm_stop_the_export_and_keep_the_previous_one() {
    for (sig, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        let dir = scratch("atomic-signal");
        let out = dir.join("out");
        let before = previous_export(&dir, &out);
        let inputs = big_inputs(&dir);
        let (mut child, _) = export_in_the_middle(&out, &inputs);
        signal(&child, sig);
        let (status, err) = wait(&mut child);
        assert_eq!(status.code(), Some(2), "{name}: {status}: {err}");
        assert!(
            err.contains(&format!("export stopped by {name}"))
                && err.contains("keeps its previous export"),
            "{name}: {err}"
        );
        assert!(staging(&out).is_empty(), "{name}: {:?}", staging(&out));
        assert_eq!(Snapshot::of(&out), before, "{name}");
    }
}

#[test]
fn a_second_export_into_the_same_folder_fails_at_once() {
    let dir = scratch("atomic-lock");
    let out = dir.join("out");
    let before = previous_export(&dir, &out);
    // Another export holds the folder.
    let held = std::fs::File::open(&out).unwrap();
    held.try_lock().unwrap();
    let input = dir.join("previous.jsonl");
    let o = run(&["export", "-q", "--out"], &[&out, &input]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("another export is writing into this folder"),
        "{}",
        stderr(&o)
    );
    drop(held);
    assert_eq!(Snapshot::of(&out), before);
}

#[test]
fn a_table_path_that_is_not_a_folder_is_an_error_before_anything_is_written() {
    let dir = scratch("atomic-notdir");
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("runs"), "a file of mine").unwrap();
    let input = dir.join("in.jsonl");
    std::fs::write(&input, stream_gen::stream(2, 1, 10, 1)).unwrap();
    let o = run(&["export", "-q", "--out"], &[&out, &input]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not a folder"), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("runs")).unwrap(), b"a file of mine");
    assert!(!out.join("events").exists() && staging(&out).is_empty());
}

#[test]
fn a_stale_staging_folder_is_removed_but_what_is_not_ours_is_kept_and_said() {
    let dir = scratch("atomic-stale");
    let out = dir.join("out");
    let clean = out.join(".cctape-tmp-1-a");
    let odd = out.join(".cctape-tmp-2-b");
    for s in [&clean, &odd] {
        std::fs::create_dir_all(s.join("events")).unwrap();
        std::fs::write(s.join("events/part-00000.parquet.partial"), "PAR1 cut").unwrap();
        std::fs::write(s.join("events/part-00001.parquet"), "PAR1").unwrap();
    }
    std::fs::write(odd.join("events/mine.txt"), "keep me").unwrap();
    let input = dir.join("in.jsonl");
    std::fs::write(&input, stream_gen::stream(2, 1, 10, 1)).unwrap();
    let o = run(&["export", "-q", "--out"], &[&out, &input]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!clean.exists());
    assert_eq!(
        std::fs::read(odd.join("events/mine.txt")).unwrap(),
        b"keep me"
    );
    assert!(!odd.join("events/part-00000.parquet.partial").exists());
    assert!(
        stderr(&o).contains("mine.txt") && stderr(&o).contains("not written by cctape"),
        "{}",
        stderr(&o)
    );
}

/// How to make a private mount namespace here, if one can be made.
fn unshare() -> Option<Vec<&'static str>> {
    let probe = r#"d=$(mktemp -d) || exit 1; mount -t tmpfs -o size=1M tmpfs "$d"; r=$?; umount "$d" 2>/dev/null; rmdir "$d"; exit $r"#;
    [vec!["-m"], vec!["-r", "-m"]].into_iter().find(|args| {
        Command::new("unshare")
            .args(args)
            .args(["sh", "-c", probe])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

fn skip(why: &str) {
    println!("skipped: {why}");
    assert!(
        std::env::var_os("CI").is_none(),
        "{why}, and CI is set: this test must run in CI"
    );
}

/// Run `script` (sh) in a private mount namespace with a 1 MiB tmpfs on
/// `$M`; `$BIN` is cctape, `$HOST` a folder outside the tmpfs.
fn in_tmpfs(dir: &Scratch, script: &str, env: &[(&str, &Path)]) -> Option<()> {
    let Some(how) = unshare() else {
        skip("no mount namespace can be made here (unshare -m / -rm)");
        return None;
    };
    let m = dir.join("mnt");
    std::fs::create_dir_all(&m).unwrap();
    let full = format!("set -u\nmount -t tmpfs -o size=1M tmpfs \"$M\" || exit 99\n{script}");
    let mut cmd = Command::new("unshare");
    cmd.args(&how)
        .args(["sh", "-c", &full])
        .env("M", &m)
        .env("BIN", bin())
        .env("HOST", dir.as_ref() as &Path);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().expect("unshare");
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );
    Some(())
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

#[test]
fn a_full_disk_fails_with_the_reason_and_keeps_the_previous_export() {
    let dir = scratch("atomic-full");
    let small = dir.join("small.jsonl");
    std::fs::write(&small, stream_gen::stream(10, 2, 20, 3)).unwrap();
    // One large input (its rows go to a spill file), and many small ones
    // (their rows go straight to the part files): neither fits in 1 MiB.
    let large = dir.join("large.jsonl");
    std::fs::write(&large, stream_gen::stream_of_size(24 << 20, 300, 4)).unwrap();
    let many = dir.join("many");
    std::fs::create_dir(&many).unwrap();
    for i in 0..12 {
        std::fs::write(
            many.join(format!("{i:02}.jsonl")),
            stream_gen::stream(10, 10, 800, 40 + i),
        )
        .unwrap();
    }
    let script = r#"
"$BIN" export -q --out "$M/out" "$SMALL" || exit 98
cp -a "$M/out" "$HOST/before"
for case in large many; do
  if [ $case = large ]; then in="$LARGE"; else in="$MANY"; fi
  "$BIN" export -q --raw --out "$M/out" "$in" 2> "$HOST/$case.err"
  echo $? > "$HOST/$case.code"
  ls -A "$M/out" > "$HOST/$case.ls"
  df -k "$M" | tail -1 > "$HOST/$case.df"
done
cp -a "$M/out" "$HOST/after"
"#;
    let env: [(&str, &Path); 3] = [("SMALL", &small), ("LARGE", &large), ("MANY", &many)];
    if in_tmpfs(&dir, script, &env).is_none() {
        return;
    }
    let before = Snapshot::of(&dir.join("before"));
    assert!(before.rows("runs") == 10);
    for case in ["large", "many"] {
        let err = read(&dir.join(format!("{case}.err")));
        assert_eq!(
            read(&dir.join(format!("{case}.code"))).trim(),
            "2",
            "{case}: {err}"
        );
        assert!(
            err.contains("No space left on device") && err.contains("keeps its previous export"),
            "{case}: {err}"
        );
        // Nothing but the tables: the staging folder is gone.
        assert_eq!(
            read(&dir.join(format!("{case}.ls")))
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["events", "runs", "tools"],
            "{case}"
        );
    }
    assert_eq!(Snapshot::of(&dir.join("after")), before);
}

#[test]
fn a_read_only_folder_fails_with_the_reason_and_keeps_the_previous_export() {
    let dir = scratch("atomic-ro");
    let small = dir.join("small.jsonl");
    std::fs::write(&small, stream_gen::stream(10, 2, 20, 3)).unwrap();
    let script = r#"
"$BIN" export -q --out "$M/out" "$SMALL" || exit 98
cp -a "$M/out" "$HOST/before"
mount -o remount,ro "$M" || exit 97
"$BIN" export -q --out "$M/out" "$SMALL" 2> "$HOST/ro.err"
echo $? > "$HOST/ro.code"
cp -a "$M/out" "$HOST/after"
"#;
    if in_tmpfs(&dir, script, &[("SMALL", &small)]).is_none() {
        return;
    }
    let err = read(&dir.join("ro.err"));
    assert_eq!(read(&dir.join("ro.code")).trim(), "2", "{err}");
    assert!(
        err.contains("Read-only file system") && err.contains("nothing was changed there"),
        "{err}"
    );
    assert_eq!(
        Snapshot::of(&dir.join("after")),
        Snapshot::of(&dir.join("before"))
    );
}
