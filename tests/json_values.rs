//! Inputs named for what they are (issue 22, item 18): a JSON object that
//! is not an event (`{"splittable": false}`, a model's structured answer)
//! is JSON values, not "stream-json: readable as is"; UTF-16 without a
//! byte order mark is read as its text, not called cut lines with a
//! preview full of NULs. Every input is generated here.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::scratch;

fn cctape(args: &[&str], path: &Path) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&o.stderr));
    })
}

#[test]
fn json_objects_without_type_are_json_values_not_a_stream() {
    let dir = scratch("json-values");
    for (name, bytes) in [
        ("answer.jsonl", &b"{\"splittable\": false}"[..]),
        (
            "answers.jsonl",
            b"{\"splittable\": false}\n{\"children\": [\"a\", \"b\"]}\n",
        ),
        (
            "pretty.json",
            b"{\n  \"splittable\": false,\n  \"reason\": \"one change\"\n}\n",
        ),
        ("array.json", b"[{\"a\": 1}, {\"b\": 2}]\n"),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        let s = cctape(&["stats", "--json", "-q"], &p);
        let found = &s["inputs_without_events"];
        assert_eq!(found["count"], 1, "{name}");
        assert_eq!(found["inputs"][0]["format"], "json-values", "{name}: {s}");
        let v = cctape(&["verdict", "--json", "-q"], &p);
        let n = &v["no_events"];
        assert_eq!(n["format"], "json-values", "{name}");
        let advice = n["advice"].as_str().unwrap();
        assert!(!advice.contains("readable as is"), "{name}: {advice}");
        assert!(
            advice.contains("no object in it has a string `type`"),
            "{name}: {advice}"
        );
        assert!(advice.contains("not a stream"), "{name}: {advice}");
        let runs = cctape::runs(&p).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].events, 0);
    }
    // Objects that do have a `type` but are not valid: not JSON values.
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, b"{\"type\":\"user\",}\n").unwrap();
    let v = cctape(&["verdict", "--json", "-q"], &bad);
    assert_eq!(v["no_events"]["format"], "stream");
    let advice = v["no_events"]["advice"].as_str().unwrap();
    assert!(!advice.contains("readable as is"), "{advice}");
    assert!(advice.contains("no line of it is an event"), "{advice}");
}

/// `text` in UTF-16 without a byte order mark.
fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

#[test]
fn utf16_without_a_byte_order_mark_is_read_as_its_text() {
    let dir = scratch("utf16-unmarked");
    let run = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n\
{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"caf\u{e9} \u{1F600}\"}],\"usage\":{\"input_tokens\":1,\"output_tokens\":5}},\"session_id\":\"s\"}\n\
{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"s\"}\n";
    let plain = dir.join("plain.jsonl");
    std::fs::write(&plain, run).unwrap();
    let want = cctape(&["verdict", "--json", "-q"], &plain);
    for big_endian in [false, true] {
        let p = dir.join(format!("utf16-{big_endian}.jsonl"));
        std::fs::write(&p, utf16(run, big_endian)).unwrap();
        let s = cctape(&["stats", "--json", "-q"], &p);
        assert_eq!(s["events"], 3, "{s}");
        assert_eq!(s["error_count"], 0);
        assert_eq!(s["formats"]["stream"], 1);
        let v = cctape(&["verdict", "--json", "-q"], &p);
        assert_eq!(v["verdict"], "success");
        assert_eq!(v["usage"], want["usage"]);
        // filter prints the events as UTF-8.
        let o = Command::new(env!("CARGO_BIN_EXE_cctape"))
            .args(["filter", "-q"])
            .arg(&p)
            .output()
            .unwrap();
        let lines: Vec<Value> = String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[1]["message"]["content"][0]["text"],
            "caf\u{e9} \u{1F600}"
        );
        // A text output in UTF-16: one finding, its first line readable.
        let t = dir.join(format!("text-{big_endian}.txt"));
        std::fs::write(
            &t,
            utf16("API Error: Unable to connect to API\n", big_endian),
        )
        .unwrap();
        let v = cctape(&["verdict", "--json", "-q"], &t);
        assert_eq!(v["no_events"]["format"], "text");
        assert_eq!(
            v["no_events"]["first_line"],
            "API Error: Unable to connect to API"
        );
    }
}
