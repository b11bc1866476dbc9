//! What installing the tool needs: shell completions and man pages that name
//! every command, man pages that are valid roff (checked by groff itself),
//! and `-h` and `--help` that both show examples and tell a JSON path from a
//! file.
//!
//! The list of commands comes from `cctape --help`, the one place a user
//! reads it, not from the generators under test.

use std::process::{Command, Output, Stdio};

#[path = "support/run.rs"]
mod run;
use run::{cctape, commands};

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

/// `roff` typeset by groff as plain text; panics on any groff warning.
fn typeset(roff: &[u8]) -> String {
    let mut child = Command::new("groff")
        .args(["-man", "-Tascii", "-P-cbou", "-ww", "-rLL=200n"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("groff (Debian: apt-get install groff-base) typesets the man pages");
    let mut stdin = child.stdin.take().unwrap();
    let input = roff.to_vec();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(&input).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "groff failed");
    assert!(
        out.stderr.is_empty(),
        "groff warnings: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What bash offers for the words typed so far (the last one being
/// completed), by running the generated completion function.
fn bash_complete(script: &std::path::Path, words: &[&str]) -> Vec<String> {
    let words_q: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let program = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={cword}; _cctape cctape '{}' '{}'; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        words_q.join(" "),
        words[cword],
        words[cword - 1],
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(program)
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "bash: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completion_offers_every_command() {
    let dir = tempdir("bash");
    let file = dir.join("cctape.bash");
    std::fs::write(&file, stdout(&cctape(&["completions", "bash"]))).unwrap();
    let offered = bash_complete(&file, &["cctape", ""]);
    for c in commands() {
        assert!(offered.contains(&c), "{c} not offered: {offered:?}");
    }
    // Options of a command, and the shells of `completions`.
    assert_eq!(
        bash_complete(&file, &["cctape", "stats", "--b"]),
        ["--by", "--breakdown"]
    );
    assert_eq!(
        bash_complete(&file, &["cctape", "completions", "f"]),
        ["fish"]
    );
}

#[test]
fn every_shell_gets_completions_naming_every_command() {
    let commands = commands();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&cctape(&["completions", shell]));
        for c in &commands {
            assert!(script.contains(c.as_str()), "{shell}: {c} missing");
        }
    }
    let bad = cctape(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn man_page_is_valid_roff_naming_every_command() {
    let roff = cctape(&["man"]);
    let text = typeset(&stdout(&roff).into_bytes());
    assert!(text.contains("NAME"), "{text}");
    for c in commands() {
        assert!(
            text.contains(&format!("cctape-{c}(1)")),
            "cctape-{c}(1) in\n{text}"
        );
    }
    assert!(text.contains("Examples:"), "{text}");
}

#[test]
fn man_dir_writes_a_valid_page_per_command() {
    let dir = tempdir("man");
    let out = cctape(&["man", "--dir", dir.to_str().unwrap()]);
    stdout(&out);
    let mut pages: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    pages.sort();
    let mut expected: Vec<String> = commands()
        .iter()
        .map(|c| format!("cctape-{c}.1"))
        .chain(["cctape.1".to_owned()])
        .collect();
    expected.sort();
    assert_eq!(pages, expected);
    for c in commands() {
        let text = typeset(&std::fs::read(dir.join(format!("cctape-{c}.1"))).unwrap());
        assert!(
            text.contains(&format!("cctape {c}")),
            "synopsis of {c}:\n{text}"
        );
        assert!(text.contains("Examples:"), "examples of {c}:\n{text}");
        // The page printed on its own is the same page.
        assert_eq!(
            stdout(&cctape(&["man", &c])).into_bytes(),
            std::fs::read(dir.join(format!("cctape-{c}.1"))).unwrap()
        );
    }
    assert_eq!(cctape(&["man", "nosuch"]).status.code(), Some(2));
}

#[test]
fn short_and_long_help_both_show_examples() {
    for c in commands() {
        for flag in ["-h", "--help"] {
            let help = stdout(&cctape(&[&c, flag]));
            let examples = help
                .split("Examples:\n")
                .nth(1)
                .unwrap_or_else(|| panic!("cctape {c} {flag}: no examples\n{help}"));
            assert!(
                examples.lines().any(|l| l.contains(&format!("cctape {c}"))),
                "cctape {c} {flag}: no example runs it\n{examples}"
            );
        }
    }
    for flag in ["-h", "--help"] {
        assert!(stdout(&cctape(&[flag])).contains("Examples:\n"));
    }
}

#[test]
fn usage_line_tells_a_field_from_a_path() {
    let help = stdout(&cctape(&["fields", "-h"]));
    let usage = help.lines().find(|l| l.starts_with("Usage:")).unwrap();
    assert_eq!(
        usage,
        "Usage: cctape fields [OPTIONS] --field <FIELD> [PATH]..."
    );
}

fn tempdir(what: &str) -> Scratch {
    scratch(&format!("packaging-{what}"))
}

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::{Scratch, scratch};

#[test]
fn license_files_match_the_manifest() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("\nlicense = \"MIT OR Apache-2.0\"\n"));
    let mit = std::fs::read_to_string(root.join("LICENSE-MIT")).unwrap();
    assert!(mit.starts_with("MIT License\n\nCopyright (c) the cctape developers\n"));
    assert!(mit.contains("THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND"));
    let apache = std::fs::read_to_string(root.join("LICENSE-APACHE")).unwrap();
    assert!(
        apache.contains("Apache License\n                           Version 2.0, January 2004")
    );
    assert!(apache.contains("END OF TERMS AND CONDITIONS"));
}
