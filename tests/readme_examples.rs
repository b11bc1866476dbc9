//! The library's first examples (the README's and the crate's, both run as
//! doc tests) show the figure to trust: a run's best token figure with its
//! source, not a sum of the assistant events' `usage`, whose
//! `output_tokens` is a `message_start` placeholder (262 against 7,550 on
//! a real 2.1.41 capture; issue 22, item 16).

/// The Rust code blocks of a Markdown text, in order (fenced `rust`, or
/// bare as in doc comments).
fn rust_blocks(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    // The block being read: its language and its text.
    let mut cur: Option<(String, String)> = None;
    for line in md.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (cur.take(), fence) {
            (None, Some(lang)) => cur = Some((lang.trim().to_string(), String::new())),
            (None, None) => {}
            (Some((lang, text)), Some(_)) => {
                if lang.is_empty() || lang == "rust" {
                    out.push(text);
                }
            }
            (Some((lang, mut text)), None) => {
                text.push_str(line);
                text.push('\n');
                cur = Some((lang, text));
            }
        }
    }
    out
}

/// The doc comment of src/lib.rs as Markdown.
fn crate_doc() -> String {
    let src = std::fs::read_to_string("src/lib.rs").expect("src/lib.rs");
    src.lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l).to_string() + "\n")
        .collect()
}

fn sums_event_usage(code: &str) -> bool {
    code.contains(".usage()") && code.contains("output_tokens +=")
}

#[test]
fn the_first_examples_show_the_runs_figure_with_its_source() {
    let readme = std::fs::read_to_string("README.md").expect("README");
    let library = readme
        .split("## The library")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README's library section");
    for (what, md) in [("README", library.to_string()), ("src/lib.rs", crate_doc())] {
        let blocks = rust_blocks(&md);
        let first = blocks
            .first()
            .unwrap_or_else(|| panic!("{what}: no example"));
        assert!(first.contains("cctape::runs("), "{what}: {first}");
        assert!(
            first.contains("main.tokens.output_tokens") || first.contains("usage.main.tokens"),
            "{what}: the best figure: {first}"
        );
        assert!(first.contains("source"), "{what}: and its source: {first}");
        for b in &blocks {
            assert!(
                !sums_event_usage(b),
                "{what}: an example sums per-event usage:\n{b}"
            );
        }
    }
}
