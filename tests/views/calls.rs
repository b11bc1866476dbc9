//! A visit without readings (`Visitor::readings`, as `check`'s and the
//! census's) against one with them ([`Calls`]).

use super::{Calls, FIELD_LINES, root};
use cctape::SliceEvents;

/// Every field of the hand-made lines, the reference's examples and lines
/// whose fields hold the wrong types (a number where a string goes, a
/// string where an array goes, null where null is not allowed, a string
/// holding escapes, content as a string and as blocks): a visit without
/// readings is told of each field what a visit with them is told.
#[test]
fn a_visit_without_readings_is_told_what_a_visit_with_them_is() {
    let wrong = br#"{"type":"assistant","message":{"id":7,"model":null,"content":"a\"b\u00e9","usage":{"input_tokens":"5","output_tokens":1.5,"cache_creation":[1]}},"parent_tool_use_id":3,"session_id":["s"]}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t\n1","content":[{"type":"text","text":"x\ty"},5,"z"],"is_error":"yes"}]},"tool_use_result":{"stdout":"a\\b","stderr":7,"interrupted":"no"}}
{"type":"user","message":{"content":"plain \"quoted\""},"tool_use_result":"Error: \u0041"}
{"type":"result","subtype":"success","is_error":null,"total_cost_usd":"1","modelUsage":{"m":{"costUSD":"x"},"n":3},"permission_denials":{"a":1},"usage":null}
{"type":"system","subtype":"init","tools":["Bash",4,"R\u00e9ad"],"mcp_servers":[{"name":1}],"model":{"x":1}}"#;
    let reference = std::fs::read(root().join("corpus/reference/examples.jsonl")).unwrap();
    let mut fields = 0;
    let mut absent_while_there = Vec::new();
    for input in [FIELD_LINES.trim().as_bytes(), &reference[..], &wrong[..]] {
        let mut events = SliceEvents::new(input);
        while let Some(item) = events.next_event() {
            let ev = item.unwrap();
            let view = ev.view();
            let with = Calls::of(&view, true);
            assert_eq!(with, Calls::of(&view, false), "line {}", ev.line());
            for (call, at, present) in &with {
                if *call == "field" {
                    fields += 1;
                    if at.ends_with(" true") && !present && std::ptr::eq(input, &wrong[..]) {
                        let key = at.trim_end_matches(" true");
                        absent_while_there.push(format!("{}:{key}", ev.line()));
                    }
                }
            }
        }
    }
    assert!(fields > 500, "{fields} fields visited");
    // The wrong-typed fields above, each told it does not read (null reads
    // as absent where the reference does not allow it; `tools`' 4 and
    // `modelUsage`'s 3 are elements skipped, not fields).
    assert_eq!(
        absent_while_there,
        [
            "1:session_id",
            "1:id",
            "1:model",
            "1:content",
            "1:input_tokens",
            "1:output_tokens",
            "1:cache_creation",
            "1:parent_tool_use_id",
            "2:is_error",
            "2:stderr",
            "2:interrupted",
            "4:is_error",
            "4:total_cost_usd",
            "4:usage",
            "4:costUSD",
            "4:permission_denials",
            "5:model",
            "5:name",
        ]
    );
}

/// Unknown fields are listed after the walk that finds the members met a
/// key no accessor reads, and whenever a key holds an escape (the walk
/// then leaves the reading to `get`): a known key written with an escape
/// is not unknown, an unknown one is still said.
#[test]
fn unknown_fields_are_said_whatever_their_keys_hold() {
    let unknown_of = |line: &[u8]| -> Vec<String> {
        let mut events = SliceEvents::new(line);
        let ev = events.next_event().unwrap().unwrap();
        let calls = Calls::of(&ev.view(), false);
        calls
            .into_iter()
            .filter(|(call, _, _)| *call == "unknown")
            .map(|(_, key, _)| key)
            .collect()
    };
    let plain = br#"{"type":"user","message":{"role":"user","content":"a"},"session_id":"s"}"#;
    assert!(unknown_of(plain).is_empty());
    let escaped_known =
        br#"{"type":"user","message":{"role":"user","content":"a"},"session\u005fid":"s"}"#;
    assert!(unknown_of(escaped_known).is_empty());
    let some = br#"{"type":"user","x\u0079z":1,"message":{"content":"a","w":2},"session\u005fid":"s","plain_new":true}"#;
    assert_eq!(unknown_of(some), ["w", "xyz", "plain_new"]);
    let nested_only = br#"{"type":"user","message":{"content":"a","w":2},"session_id":"s"}"#;
    assert_eq!(unknown_of(nested_only), ["w"]);
}
