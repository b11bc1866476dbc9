//! What simd-json's errors mean for a line, and the rewrite of the lines it
//! rejects that JSON allows (lone surrogate escapes, numbers of any size).

use crate::error::{Error, ErrorKind, Position};
use crate::framing::Line;
use simd_json::ErrorType;

pub(super) fn map_error(e: &simd_json::Error, line: &Line<'_>) -> Error {
    let (kind, pos, reason) = error_parts(e, line);
    Error::new(kind, pos, reason)
}

/// What [`map_error`] says, unboxed.
pub(super) fn error_parts(
    e: &simd_json::Error,
    line: &Line<'_>,
) -> (ErrorKind, Position, &'static str) {
    let (kind, reason) = match e.error() {
        // Cut in the middle of a multi-byte character: the input ended, the
        // bytes before the cut are fine.
        ErrorType::InvalidUtf8 if !line.terminated && ends_mid_char(line.bytes) => (
            ErrorKind::Truncated,
            "the input ended in the middle of a line",
        ),
        ErrorType::InvalidUtf8 => (ErrorKind::InvalidUtf8, "invalid UTF-8"),
        ErrorType::DepthLimitExceeded => (
            ErrorKind::TooDeep,
            "nesting deeper than 1024 levels (the root object is level 1)",
        ),
        ErrorType::Eof | ErrorType::UnterminatedString | ErrorType::ExpectedMapEnd
            if !line.terminated =>
        {
            (
                ErrorKind::Truncated,
                "the input ended in the middle of a line",
            )
        }
        other => {
            let reason = reason_for(other);
            if !line.terminated {
                (
                    ErrorKind::Truncated,
                    "the input ended in the middle of a line",
                )
            } else {
                (ErrorKind::InvalidJson, reason)
            }
        }
    };
    let mut pos = line.position();
    // simd-json's index is not always the offending byte (0 for bad UTF-8,
    // a bad escape, a control character): read again on this rare path.
    let idx = e.index();
    pos.column = crate::column::error_column(line.bytes)
        .or_else(|| (idx <= line.bytes.len()).then_some(idx as u64))
        .filter(|_| !line.bytes.iter().all(|b| b.is_ascii_whitespace()));
    (kind, pos, reason)
}

/// True when `b` is valid UTF-8 but for an incomplete character at its end.
fn ends_mid_char(b: &[u8]) -> bool {
    match std::str::from_utf8(b) {
        Ok(_) => false,
        Err(e) => e.error_len().is_none(),
    }
}

fn reason_for(e: &ErrorType) -> &'static str {
    match e {
        ErrorType::Eof => "unexpected end of line",
        ErrorType::UnterminatedString => "expected a closing quote",
        ErrorType::ExpectedMapEnd => "expected `}` or `,`",
        ErrorType::ExpectedMapComma => "expected `,` or `}` after an object value",
        ErrorType::ExpectedObjectColon => "expected `:` after an object key",
        ErrorType::ExpectedObjectKey | ErrorType::KeyMustBeAString => {
            "expected a string key in an object"
        }
        ErrorType::ExpectedArrayComma => "expected `,` or `]` after an array element",
        ErrorType::ExpectedArrayContent | ErrorType::ExpectedObjectContent => "expected a value",
        ErrorType::InvalidEscape => "invalid escape in a string",
        ErrorType::InvalidUnicodeEscape => "invalid \\u escape in a string",
        ErrorType::InvalidUnicodeCodepoint => "invalid unicode code point in a string",
        ErrorType::InvalidNumber | ErrorType::InvalidExponent => "invalid number",
        ErrorType::TrailingData => "expected the end of the line after the JSON value",
        ErrorType::UnexpectedCharacter => "unexpected character",
        ErrorType::NoStructure => "expected a JSON value",
        ErrorType::ExpectedNull => "expected `null`",
        ErrorType::ExpectedTrue => "expected `true`",
        ErrorType::ExpectedFalse => "expected `false`",
        ErrorType::InputTooLarge => "line too large for the parser (4 GiB)",
        _ => "invalid JSON",
    }
}

/// Rewrites lone surrogate escapes to `\uFFFD` and out-of-range numbers to
/// placeholder strings of the same length (recording where they start).
/// Returns false when it found nothing to rewrite.
///
/// Only numbers where a value may stand are rewritten: a number in a key's
/// place must stay an error, not become a string key.
pub(super) fn repair_line(b: &mut [u8], bigs: &mut Vec<u32>, objects: &mut Vec<bool>) -> bool {
    let mut changed = false;
    let mut i = 0;
    let n = b.len();
    // Open containers (true for an object) and whether a key comes next;
    // the stack is the parser's, reused from line to line.
    objects.clear();
    let mut key_next = false;
    while i < n {
        match b[i] {
            b'{' => {
                objects.push(true);
                key_next = true;
                i += 1;
            }
            b'[' => {
                objects.push(false);
                key_next = false;
                i += 1;
            }
            b'}' | b']' => {
                objects.pop();
                key_next = false;
                i += 1;
            }
            b',' => {
                key_next = objects.last() == Some(&true);
                i += 1;
            }
            b'"' => {
                key_next = false;
                i += 1;
                while i < n {
                    match b[i] {
                        b'"' => break,
                        b'\\' if i + 1 < n && b[i + 1] == b'u' => {
                            let Some(cp) = hex4(b, i + 2) else {
                                i += 2;
                                continue;
                            };
                            if (0xD800..0xDC00).contains(&cp) {
                                let paired = i + 12 <= n
                                    && b[i + 6] == b'\\'
                                    && b[i + 7] == b'u'
                                    && hex4(b, i + 8)
                                        .is_some_and(|lo| (0xDC00..0xE000).contains(&lo));
                                if paired {
                                    i += 12;
                                    continue;
                                }
                                b[i + 2..i + 6].copy_from_slice(b"FFFD");
                                changed = true;
                            } else if (0xDC00..0xE000).contains(&cp) {
                                b[i + 2..i + 6].copy_from_slice(b"FFFD");
                                changed = true;
                            }
                            i += 6;
                        }
                        b'\\' => i += 2,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' if !key_next => {
                let start = i;
                let end = number_end(b, i);
                if end > start && number_out_of_range(&b[start..end]) && end - start >= 3 {
                    b[start] = b'"';
                    for c in &mut b[start + 1..end - 1] {
                        *c = b'0';
                    }
                    b[end - 1] = b'"';
                    bigs.push(start as u32);
                    changed = true;
                }
                i = end.max(start + 1);
            }
            _ => i += 1,
        }
    }
    changed
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    let mut v = 0u32;
    for &c in s {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// End of a JSON number token starting at `i`, or `i` when the grammar fails.
fn number_end(b: &[u8], mut i: usize) -> usize {
    let start = i;
    let digits = |b: &[u8], mut i: usize| {
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i - s)
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(b, i).0,
        _ => return start,
    }
    if b.get(i) == Some(&b'.') {
        let (j, n) = digits(b, i + 1);
        if n == 0 {
            return start;
        }
        i = j;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let (k, n) = digits(b, j);
        if n == 0 {
            return start;
        }
        i = k;
    }
    i
}

fn number_out_of_range(t: &[u8]) -> bool {
    let Ok(s) = std::str::from_utf8(t) else {
        return false;
    };
    let is_int = !t.iter().any(|&c| matches!(c, b'.' | b'e' | b'E'));
    if is_int {
        s.parse::<i64>().is_err() && s.parse::<u64>().is_err()
    } else {
        s.parse::<f64>().map(|f| !f.is_finite()).unwrap_or(false)
    }
}
