//! Pruning: a copy of a validated line with its long tool payloads cut
//! short, for consumers that read only ids, flags and prefixes of them.
//!
//! Tool results and tool inputs are most of the bytes of a transcript, and
//! building a tape unescapes every one of their strings. Folding runs needs
//! little of them: ids, `is_error`, the first bytes of a result (`Error: `,
//! `<tool_use_error>`, `[Request interrupted by user`), a task's status. A
//! pruned copy keeps the structure and every key but cuts each long string
//! of those payloads to its first `max` bytes (never inside an escape or a
//! UTF-8 character), so the tape of the copy is small and reads the same
//! for everything but the cut strings.
//!
//! Never cut, wherever they are: the strings of ids, names, statuses and
//! times that the run fold reads whole ([`KEEP_WHOLE`]: `session_id`,
//! `tool_use_id`, `timestamp`, ...), and a subagent's `handbackReport`
//! (kept in its summary). A cut string keeps its leading whitespace before
//! the `max` bytes are counted, since the fold looks for prefixes after
//! `trim_start` (`<tool_use_error>`, `[Request interrupted by user`).
//!
//! What is cut, by event:
//! - `user`: every string longer than `max` (tool results and their
//!   `tool_use_result`, replayed prompts);
//! - `assistant`: strings inside `message.content[*].input` and
//!   `wire_tool_inputs` (tool inputs such as a Write's file content); text
//!   and thinking blocks are kept whole;
//! - `system/hook_response`: every string (hook output);
//! - other events are not pruned.

use super::Scanned;
use super::raw::skip_value;
use super::simd::nav;
use super::validate::{skip_string, skip_ws};
use crate::event::EventKind;

/// Write a pruned copy of `s` into `out` (cleared first) and return true,
/// or return false when the event is not one that is pruned or nothing in
/// it is longer than `max` (then the raw line is as good).
///
/// The line must have been scanned in validated mode: the copy is built
/// from its bytes without checking them again.
pub fn prune_into(s: &Scanned<'_>, max: usize, out: &mut Vec<u8>) -> bool {
    let raw = s.raw();
    if raw.len() <= max {
        return false;
    }
    let rule = match s.kind() {
        EventKind::User | EventKind::SystemHookResponse => Rule::All,
        EventKind::Assistant => Rule::ToolInputs,
        _ => return false,
    };
    out.clear();
    out.reserve(max * 4);
    let start = skip_ws(raw, 0);
    match walk(raw, start, max, rule, out) {
        // The line was validated, so the walk ends at its last value; a
        // `None` would mean it was not, and then the raw line is used.
        Some(_) => out.len() < raw.len(),
        None => false,
    }
}

/// Keys whose values are copied whole even where strings are cut: what the
/// run fold reads in full from pruned events (ids, names, statuses, times,
/// a subagent's report).
pub(super) const KEEP_WHOLE: &[&[u8]] = &[
    b"type",
    b"subtype",
    b"session_id",
    b"uuid",
    b"parent_tool_use_id",
    b"timestamp",
    b"id",
    b"tool_use_id",
    b"name",
    b"status",
    b"hook_name",
    b"outcome",
    b"handbackReport",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Cut every long string.
    All,
    /// Cut only under `message.content[*].input` and `wire_tool_inputs`.
    ToolInputs,
    /// Under `message`: look for `content`.
    Message,
    /// Under `message.content`: each block's `input`.
    Blocks,
    /// Copy as is.
    Keep,
}

/// Copy the value at `b[i]` into `out`, pruned by `rule`, in one pass over
/// its bytes; returns the index just past it.
fn walk(b: &[u8], i: usize, max: usize, rule: Rule, out: &mut Vec<u8>) -> Option<usize> {
    match b.get(i)? {
        _ if rule == Rule::Keep => {
            let end = skip_value(b, i)?;
            out.extend_from_slice(b.get(i..end)?);
            Some(end)
        }
        b'{' => {
            out.push(b'{');
            let mut i = skip_ws(b, i + 1);
            if *b.get(i)? == b'}' {
                out.push(b'}');
                return Some(i + 1);
            }
            loop {
                // A key: copied as written.
                let (key_end, _) = skip_string(nav(), b, i + 1)?;
                let key = b.get(i + 1..key_end - 1)?;
                out.extend_from_slice(b.get(i..key_end)?);
                out.push(b':');
                i = skip_ws(b, key_end);
                i = skip_ws(b, i + 1); // past ':'
                let inner = match rule {
                    // An escaped key may spell one of them: keep it whole.
                    Rule::All if KEEP_WHOLE.contains(&key) || key.contains(&b'\\') => Rule::Keep,
                    Rule::All => Rule::All,
                    Rule::ToolInputs if key == b"wire_tool_inputs" => Rule::All,
                    Rule::ToolInputs if key == b"message" => Rule::Message,
                    Rule::Message if key == b"content" => Rule::Blocks,
                    Rule::Blocks if key == b"input" => Rule::All,
                    _ => Rule::Keep,
                };
                i = skip_ws(b, walk(b, i, max, inner, out)?);
                match b.get(i)? {
                    b',' => {
                        out.push(b',');
                        i = skip_ws(b, i + 1);
                    }
                    b'}' => {
                        out.push(b'}');
                        return Some(i + 1);
                    }
                    _ => return None,
                }
            }
        }
        b'[' => {
            out.push(b'[');
            let mut i = skip_ws(b, i + 1);
            if *b.get(i)? == b']' {
                out.push(b']');
                return Some(i + 1);
            }
            loop {
                i = skip_ws(b, walk(b, i, max, rule, out)?);
                match b.get(i)? {
                    b',' => {
                        out.push(b',');
                        i = skip_ws(b, i + 1);
                    }
                    b']' => {
                        out.push(b']');
                        return Some(i + 1);
                    }
                    _ => return None,
                }
            }
        }
        b'"' => {
            let (end, _) = skip_string(nav(), b, i + 1)?;
            let body = b.get(i + 1..end - 1)?;
            out.push(b'"');
            if rule == Rule::All {
                out.extend_from_slice(&body[..cut_point(body, max)]);
            } else {
                out.extend_from_slice(body);
            }
            out.push(b'"');
            Some(end)
        }
        _ => {
            let end = skip_value(b, i)?;
            out.extend_from_slice(b.get(i..end)?);
            Some(end)
        }
    }
}

/// The length of the longest prefix of the escaped string body `b` that is
/// at most `max` bytes past its leading whitespace and ends neither inside
/// an escape nor inside a UTF-8 character.
fn cut_point(b: &[u8], max: usize) -> usize {
    let lead = leading_space(b);
    let max = max.saturating_add(lead);
    if b.len() <= max {
        return b.len();
    }
    let mut i = lead;
    while i < max {
        if b[i] == b'\\' {
            let step = if b.get(i + 1) == Some(&b'u') { 6 } else { 2 };
            if i + step > max {
                break;
            }
            i += step;
        } else {
            i += 1;
        }
    }
    while i > 0 && i < b.len() && (b[i] & 0xC0) == 0x80 {
        i -= 1;
    }
    i
}

/// The length of the escaped string body `b`'s leading whitespace, as
/// `str::trim_start` sees the decoded string: raw whitespace characters and
/// escapes of whitespace (`\n`, `\t`, `\u2028`, ...).
fn leading_space(b: &[u8]) -> usize {
    let mut i = 0;
    loop {
        let (c, len) = match b.get(i) {
            None => return i,
            Some(b'\\') => match b.get(i + 1) {
                Some(b'n') => ('\n', 2),
                Some(b't') => ('\t', 2),
                Some(b'r') => ('\r', 2),
                Some(b'f') => ('\u{c}', 2),
                Some(b'u') => {
                    let hex = b
                        .get(i + 2..i + 6)
                        .and_then(|h| std::str::from_utf8(h).ok());
                    match hex
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .and_then(char::from_u32)
                    {
                        Some(c) => (c, 6),
                        None => return i,
                    }
                }
                _ => return i,
            },
            Some(&x) if x < 0x80 => (x as char, 1),
            Some(_) => {
                let end = (i + 4).min(b.len());
                let s = match std::str::from_utf8(&b[i..end]) {
                    Ok(s) => s,
                    Err(e) => match std::str::from_utf8(&b[i..i + e.valid_up_to()]) {
                        Ok(s) => s,
                        Err(_) => return i,
                    },
                };
                match s.chars().next() {
                    Some(c) => (c, c.len_utf8()),
                    None => return i,
                }
            }
        };
        if !c.is_whitespace() {
            return i;
        }
        i += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::Lines;
    use crate::json::Scanner;

    fn pruned(src: &str, max: usize) -> Option<String> {
        let mut sc = Scanner::new();
        let line = Lines::new(src.as_bytes()).next().unwrap();
        let s = sc.scan(&line).unwrap();
        let mut out = Vec::new();
        prune_into(&s, max, &mut out).then(|| String::from_utf8(out).unwrap())
    }

    #[test]
    fn cuts_long_strings_of_user_events_and_keeps_the_rest() {
        let long = "x".repeat(100);
        let src = format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":"Error: {long}","is_error":true}}]}},"n":12345,"ok":null}}"#
        );
        let got = pruned(&src, 16).unwrap();
        let v: serde_json::Value = serde_json::from_str(&got).unwrap();
        assert_eq!(v["message"]["content"][0]["content"], "Error: xxxxxxxxx");
        assert_eq!(v["message"]["content"][0]["tool_use_id"], "toolu_1");
        assert_eq!(v["message"]["content"][0]["is_error"], true);
        assert_eq!(v["n"], 12345);
        assert!(v["ok"].is_null());
    }

    #[test]
    fn assistant_keeps_text_and_cuts_tool_inputs() {
        let long = "y".repeat(200);
        let src = format!(
            r#"{{"type":"assistant","message":{{"id":"m","content":[{{"type":"text","text":"{long}"}},{{"type":"tool_use","id":"t","name":"Write","input":{{"file_path":"/a","content":"{long}"}}}}]}},"wire_tool_inputs":{{"t":{{"content":"{long}"}}}}}}"#
        );
        let got = pruned(&src, 8).unwrap();
        let v: serde_json::Value = serde_json::from_str(&got).unwrap();
        assert_eq!(
            v["message"]["content"][0]["text"].as_str().unwrap().len(),
            200
        );
        assert_eq!(v["message"]["content"][1]["input"]["content"], "yyyyyyyy");
        assert_eq!(v["message"]["content"][1]["input"]["file_path"], "/a");
        assert_eq!(v["wire_tool_inputs"]["t"]["content"], "yyyyyyyy");
        assert_eq!(v["message"]["id"], "m");
    }

    #[test]
    fn never_cuts_inside_an_escape_or_a_character() {
        for max in 0..24 {
            let body = r#"ab\n\u00e9é😀\\\"cd"#;
            let n = cut_point(body.as_bytes(), max);
            assert!(n <= max);
            let piece = format!(
                "\"{}\"",
                std::str::from_utf8(&body.as_bytes()[..n]).unwrap()
            );
            assert!(
                serde_json::from_str::<String>(&piece).is_ok(),
                "{max}: {piece}"
            );
        }
    }

    #[test]
    fn other_events_and_short_lines_are_not_pruned() {
        assert!(
            pruned(
                r#"{"type":"result","result":"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}"#,
                4
            )
            .is_none()
        );
        assert!(pruned(r#"{"type":"user","x":"a"}"#, 400).is_none());
    }
}
