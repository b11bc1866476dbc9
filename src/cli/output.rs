//! Output helpers shared by commands: JSON to stdout, numbers for people.

/// Append one JSON value and a newline to a buffer.
pub fn write_json_value(v: &impl serde::Serialize, out: &mut Vec<u8>) {
    if serde_json::to_writer(&mut *out, v).is_ok() {
        out.push(b'\n');
    }
}

/// Write one JSON value and a newline to stdout.
pub fn print_json(v: &serde_json::Value) {
    let mut out = Vec::new();
    if serde_json::to_writer(&mut out, v).is_ok() {
        out.push(b'\n');
        super::exec::write_out(&mut out);
    }
}

/// CSV rows appended to a buffer, quoted where needed (RFC 4180: a field
/// with a comma, a quote or a line end is quoted, quotes doubled; a row of
/// one empty field is `""`).
///
/// Written by `csv-core`, the core of the `csv` crate: it writes into the
/// caller's buffer, so a row costs no allocation (the `csv` crate's
/// `Writer` owns its output and cannot hand each row over as it is made).
#[derive(Debug, Default)]
pub struct CsvRows {
    w: csv_core::Writer,
    fields: usize,
}

impl CsvRows {
    /// Append one field of the current row.
    pub fn field(&mut self, cell: &[u8], out: &mut Vec<u8>) {
        if self.fields > 0 {
            // A closing quote and the comma.
            Self::write(out, 4, |o| {
                let (_, n) = self.w.delimiter(o);
                n
            });
        }
        self.fields += 1;
        // The most a field can take: quotes around, every byte doubled.
        Self::write(out, 2 + 2 * cell.len(), |o| {
            let (_, _, n) = self.w.field(cell, o);
            n
        });
    }

    /// End the current row.
    pub fn end(&mut self, out: &mut Vec<u8>) {
        // A closing quote (or `""` for a row of one empty field) and LF.
        Self::write(out, 4, |o| {
            let (_, n) = self.w.terminator(o);
            n
        });
        self.fields = 0;
    }

    /// A whole row.
    pub fn row<T: AsRef<[u8]>>(&mut self, cells: &[T], out: &mut Vec<u8>) {
        for c in cells {
            self.field(c.as_ref(), out);
        }
        self.end(out);
    }

    /// Give `f` room for `most` bytes at the end of `out`; keep what it
    /// wrote.
    fn write(out: &mut Vec<u8>, most: usize, f: impl FnOnce(&mut [u8]) -> usize) {
        let start = out.len();
        out.resize(start + most, 0);
        let n = f(&mut out[start..]);
        out.truncate(start + n);
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes for people: `1.5 MiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }
}

/// Append `v` as compact JSON. Strings are re-escaped; numbers keep their
/// value (numbers beyond u64/f64 keep their original text).
pub fn write_json(v: &cctape::Value<'_>, out: &mut Vec<u8>) {
    use cctape::{Number, ValueKind};
    match v.kind() {
        ValueKind::Null => out.extend_from_slice(b"null"),
        ValueKind::Bool => out.extend_from_slice(if v.as_bool() == Some(true) {
            b"true"
        } else {
            b"false"
        }),
        ValueKind::Number => match v.number() {
            Some(Number::U64(n)) => out.extend_from_slice(n.to_string().as_bytes()),
            Some(Number::I64(n)) => out.extend_from_slice(n.to_string().as_bytes()),
            Some(Number::F64(f)) if f.is_finite() => {
                let s = f.to_string();
                out.extend_from_slice(s.as_bytes());
                if !s.contains(['.', 'e', 'E']) {
                    out.extend_from_slice(b".0");
                }
            }
            Some(Number::Big(s)) => out.extend_from_slice(s.as_bytes()),
            _ => out.extend_from_slice(b"null"),
        },
        ValueKind::String => write_json_str(v.as_str().unwrap_or_default(), out),
        ValueKind::Array => {
            out.push(b'[');
            for (i, e) in v.elements().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json(&e, out);
            }
            out.push(b']');
        }
        ValueKind::Object => {
            out.push(b'{');
            for (i, (k, e)) in v.entries().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_str(k, out);
                out.push(b':');
                write_json(&e, out);
            }
            out.push(b'}');
        }
    }
}

/// Append `s` as a JSON string literal.
pub fn write_json_str(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if esc.is_empty() {
            out.extend_from_slice(format!("\\u{b:04x}").as_bytes());
        } else {
            out.extend_from_slice(esc);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod json_tests {
    use super::*;
    use cctape::framing::Lines;
    use cctape::json::Scanner;

    #[test]
    fn writes_json_that_serde_reads_back_equal() {
        let src = r#"{"a":"x\"y\\z\n\u0001é","b":[1,-2,2.5,1e300,true,null],"c":{"d":{}},"big":18446744073709551616}"#.as_bytes();
        let mut p = Scanner::new();
        let line = Lines::new(src).next().unwrap();
        let root = p.validate(&line).unwrap();
        let mut out = Vec::new();
        write_json(&root, &mut out);
        let ours: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(
            r#"{"a":"x\"y\\z\n\u0001é","b":[1,-2,2.5,1e300,true,null],"c":{"d":{}},"big":18446744073709551616.0}"#,
        )
        .unwrap();
        assert_eq!(ours, theirs);
        assert!(
            String::from_utf8(out)
                .unwrap()
                .ends_with(r#""big":18446744073709551616}"#)
        );
    }
}
