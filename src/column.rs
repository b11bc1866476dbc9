//! The column of a JSON error: the byte within the line where the line
//! stops being the start of any valid JSON text.
//!
//! The fast paths (the simd-json tape, the scanner) decide *whether* a line
//! is an event and *what kind* of error it has; where they stop is not
//! always the offending byte (simd-json reports an invalid UTF-8 byte, a bad
//! escape or a control character in a string at byte 0, a literal such as
//! `tru}` at its first letter). Bad lines are rare, so on that path alone
//! this module reads the line again with a plain grammar walk, one byte at a
//! time, without allocating, and says exactly where it went wrong. One
//! function serves the tape, the scanner and (through the scanner) the
//! element reader, so the three report the same column for the same line.

/// Nesting the readers accept (the root object is level 1).
const MAX_DEPTH: usize = 1024;

/// What a grammar walk over a line found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    /// One complete JSON value, with nothing but whitespace around it.
    Valid,
    /// A valid beginning that ends early (the line is cut).
    Incomplete,
    /// The byte at this index cannot continue any valid JSON text (or opens
    /// a level past [`MAX_DEPTH`]).
    Bad(usize),
}

/// The column to report for an error on the line `b`: the 0-based byte
/// that makes the line invalid, read in order (a byte that is not UTF-8
/// counts: JSON text is UTF-8), the line's length when it is a valid
/// beginning cut short, `None` when the line is blank or nothing is wrong
/// with it as JSON (a limit of the parser, not of JSON).
pub(crate) fn error_column(b: &[u8]) -> Option<u64> {
    if b.iter().all(|&c| is_ws(c)) {
        return None;
    }
    let utf8 = std::str::from_utf8(b).err().map(|e| e.valid_up_to());
    let at = match walk(b) {
        Walk::Valid => utf8,
        Walk::Incomplete => Some(utf8.unwrap_or(b.len())),
        Walk::Bad(at) => Some(utf8.map_or(at, |u| u.min(at))),
    };
    at.map(|a| a as u64)
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    i
}

/// Open containers as bits (1 for an object), without allocating.
struct Levels {
    bits: [u64; MAX_DEPTH / 64],
    len: usize,
}

impl Levels {
    fn push(&mut self, object: bool) -> bool {
        if self.len == MAX_DEPTH {
            return false;
        }
        let (w, bit) = (self.len / 64, self.len % 64);
        if object {
            self.bits[w] |= 1 << bit;
        } else {
            self.bits[w] &= !(1 << bit);
        }
        self.len += 1;
        true
    }

    fn top_is_object(&self) -> Option<bool> {
        let i = self.len.checked_sub(1)?;
        Some(self.bits[i / 64] >> (i % 64) & 1 == 1)
    }
}

/// A step that either moves on to a new index or ends the walk.
type Step = Result<usize, Walk>;

fn at_end(b: &[u8], i: usize) -> Result<u8, Walk> {
    b.get(i).copied().ok_or(Walk::Incomplete)
}

fn walk(b: &[u8]) -> Walk {
    match walk_steps(b) {
        Ok(()) => Walk::Valid,
        Err(w) => w,
    }
}

fn walk_steps(b: &[u8]) -> Result<(), Walk> {
    let mut levels = Levels {
        bits: [0; MAX_DEPTH / 64],
        len: 0,
    };
    let mut i = skip_ws(b, 0);
    loop {
        // A value starts at i.
        i = match at_end(b, i)? {
            open @ (b'{' | b'[') => {
                if !levels.push(open == b'{') {
                    return Err(Walk::Bad(i));
                }
                let j = skip_ws(b, i + 1);
                match (open, at_end(b, j)?) {
                    (b'{', b'}') | (b'[', b']') => {
                        levels.len -= 1;
                        j + 1
                    }
                    (b'{', _) => {
                        i = key(b, j)?;
                        continue;
                    }
                    _ => {
                        i = j;
                        continue;
                    }
                }
            }
            b'"' => string(b, i)?,
            b't' => literal(b, i, b"true")?,
            b'f' => literal(b, i, b"false")?,
            b'n' => literal(b, i, b"null")?,
            b'-' | b'0'..=b'9' => number(b, i)?,
            _ => return Err(Walk::Bad(i)),
        };
        // After a value: close levels until a comma starts the next value.
        loop {
            i = skip_ws(b, i);
            let Some(object) = levels.top_is_object() else {
                return if i == b.len() {
                    Ok(())
                } else {
                    Err(Walk::Bad(i))
                };
            };
            match at_end(b, i)? {
                b',' if object => {
                    i = key(b, skip_ws(b, i + 1))?;
                    break;
                }
                b',' => {
                    i = skip_ws(b, i + 1);
                    break;
                }
                b'}' if object => {
                    levels.len -= 1;
                    i += 1;
                }
                b']' if !object => {
                    levels.len -= 1;
                    i += 1;
                }
                _ => return Err(Walk::Bad(i)),
            }
        }
    }
}

/// A key and its colon at `i`; returns where the value starts.
fn key(b: &[u8], i: usize) -> Step {
    if at_end(b, i)? != b'"' {
        return Err(Walk::Bad(i));
    }
    let j = skip_ws(b, string(b, i)?);
    if at_end(b, j)? != b':' {
        return Err(Walk::Bad(j));
    }
    Ok(skip_ws(b, j + 1))
}

/// A string at `i` (its opening quote); returns the index after it. Bytes
/// past ASCII are taken as they are: UTF-8 is judged apart.
fn string(b: &[u8], i: usize) -> Step {
    let mut j = i + 1;
    loop {
        match at_end(b, j)? {
            b'"' => return Ok(j + 1),
            b'\\' => match at_end(b, j + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => j += 2,
                b'u' => {
                    for k in j + 2..j + 6 {
                        if !at_end(b, k)?.is_ascii_hexdigit() {
                            return Err(Walk::Bad(k));
                        }
                    }
                    j += 6;
                }
                _ => return Err(Walk::Bad(j + 1)),
            },
            0..=0x1f => return Err(Walk::Bad(j)),
            _ => j += 1,
        }
    }
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Step {
    for (k, &want) in word.iter().enumerate() {
        if at_end(b, i + k)? != want {
            return Err(Walk::Bad(i + k));
        }
    }
    Ok(i + word.len())
}

fn digits(b: &[u8], mut j: usize) -> Step {
    if !at_end(b, j)?.is_ascii_digit() {
        return Err(Walk::Bad(j));
    }
    while b.get(j).is_some_and(u8::is_ascii_digit) {
        j += 1;
    }
    Ok(j)
}

/// A number of any size at `i`; returns the index after it.
fn number(b: &[u8], i: usize) -> Step {
    let mut j = i + usize::from(b[i] == b'-');
    j = if at_end(b, j)? == b'0' {
        j + 1
    } else {
        digits(b, j)?
    };
    if b.get(j) == Some(&b'.') {
        j = digits(b, j + 1)?;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        j += 1;
        if matches!(at_end(b, j)?, b'+' | b'-') {
            j += 1;
        }
        j = digits(b, j)?;
    }
    Ok(j)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(s: &[u8]) -> Option<u64> {
        error_column(s)
    }

    #[test]
    fn offending_bytes() {
        assert_eq!(col(b"not json"), Some(1));
        assert_eq!(col(b"{\"a\":tru}"), Some(8));
        assert_eq!(col(b"{\"a\":1,}"), Some(7));
        assert_eq!(col(b"{\"a\":\"\\q\"}"), Some(7));
        assert_eq!(col(b"{\"a\":\"\\u12G4\"}"), Some(10));
        assert_eq!(col(b"{\"a\":1} x"), Some(8));
        assert_eq!(col(b"{\"a\":[1 2]}"), Some(8));
        assert_eq!(col(b"{\"a\":-}"), Some(6));
        assert_eq!(col(b"{\"a\":01}"), Some(6));
        assert_eq!(col(b"{\"a\":1.e5}"), Some(7));
        assert_eq!(col(b"{\"a\":\"x\x01\"}"), Some(7));
        assert_eq!(col(b"{\"a\":{}"), Some(7), "cut: the end");
        assert_eq!(col(b"{\"a\":1}"), None, "nothing wrong");
        assert_eq!(col(b"   "), None, "blank");
        let deep = [b'['; MAX_DEPTH + 5];
        assert_eq!(col(&deep), Some(MAX_DEPTH as u64));
        assert_eq!(col(b"{\"a\":\"ab\xffc\"}"), Some(8), "not UTF-8");
        assert_eq!(col(b"{\"a\":\"ab\xc3"), Some(8), "cut inside a character");
        assert_eq!(col(b"{\"a\":\"\xff\",x}"), Some(6), "the first in order");
    }
}
