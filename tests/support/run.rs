//! Running the built `cctape` from tests: with arguments, with bytes on
//! stdin, and the list of commands `cctape --help` gives (the one place a
//! user reads it).
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// `cctape ARGS`, its output collected.
pub fn cctape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .output()
        .expect("run cctape")
}

/// `cctape ARGS` with `input` on stdin, written from another thread.
pub fn cctape_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cctape");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    out
}

/// The commands `cctape --help` lists, without `help` itself.
pub fn commands() -> Vec<String> {
    let o = cctape(&["--help"]);
    assert!(o.status.success(), "cctape --help failed");
    let help = String::from_utf8(o.stdout).expect("UTF-8 help");
    let section = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section")
        .split("\n\n")
        .next()
        .expect("the commands");
    let names: Vec<String> = section
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_owned)
        .collect();
    for expected in ["stats", "filter", "fields", "verdict", "completions", "man"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    names
}
