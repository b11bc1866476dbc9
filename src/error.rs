//! Errors: one small boxed type with a [`ErrorKind`] and a [`Position`].
//!
//! A per-line error is a value the stream continues past: the reader hands it
//! out and reads the next line as if nothing happened. Only
//! [`ErrorKind::Io`] ends a stream.

use std::fmt;

/// Where an error happened: the line and the byte offset of its start, both in
/// the input the line came from, and, when known, the byte within the line
/// where reading stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Position {
    /// 1-based line number (0 when the error is not tied to a line).
    pub line: u64,
    /// 0-based byte offset of the start of the line in its input.
    pub offset: u64,
    /// 0-based byte within the line of the offending byte, when known: the
    /// first byte at which the line stops being the start of valid JSON
    /// text (UTF-8 included), or the line's length when it is a valid
    /// beginning cut short.
    pub column: Option<u64>,
    /// For input read as JSON elements (an array, or objects one after
    /// another; see [`crate::elements`]): the 0-based index of the element
    /// the error is in.
    pub element: Option<u64>,
}

impl Position {
    /// A position at the start of line `line`, which starts at byte `offset`.
    pub fn new(line: u64, offset: u64) -> Position {
        Position {
            line,
            offset,
            column: None,
            element: None,
        }
    }

    /// The absolute byte offset of the error: the line's offset plus the
    /// column, or the line's offset when no column is known.
    pub fn byte(&self) -> u64 {
        self.offset + self.column.unwrap_or(0)
    }
}

/// A position as every printer of this crate says it: the line, the byte
/// offset of the line's start, then the column (the byte within the line),
/// as `line 14, byte 4605, column 60` (`byte 4665` of the input is the one
/// to look at); the element of a JSON array after them, `(element 3)`.
/// After an input's name ([`Described`]) the same reads
/// `run.jsonl:14: byte 4605, column 60`, as grep -n and compilers start a
/// line. For an I/O error the byte is where reading stopped.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_where(f, None, self, true)
    }
}

/// `line L, byte O[, column C][ (element E)]`, or with a name
/// `NAME:L: byte O[, column C][ (element E)]`: the one way a position is
/// written.
fn write_where(
    f: &mut fmt::Formatter<'_>,
    input: Option<&str>,
    p: &Position,
    column: bool,
) -> fmt::Result {
    match input {
        Some(name) => write!(f, "{name}:{}: byte {}", p.line, p.offset)?,
        None => write!(f, "line {}, byte {}", p.line, p.offset)?,
    }
    if let (Some(c), true) = (p.column, column) {
        write!(f, ", column {c}")?;
    }
    if let Some(e) = p.element {
        write!(f, " (element {e})")?;
    }
    Ok(())
}

/// An error as people read it, on one line: where (see [`Position`]'s
/// `Display`), its kind and what was expected or found. The library's
/// `Display` of [`Error`], the command line's messages on stderr and its
/// lists of errors, and the Python package's `LineError` all go through it,
/// so that a bad line is said one way everywhere:
///
/// ```
/// use cctape::error::{Described, Position};
///
/// let mut at = Position::new(14, 4605);
/// at.column = Some(60);
/// let d = Described {
///     input: Some("run.jsonl"),
///     position: at,
///     kind: "truncated",
///     reason: "the input ended in the middle of a line",
///     io: None,
/// };
/// assert_eq!(
///     d.to_string(),
///     "run.jsonl:14: byte 4605, column 60: truncated: the input ended in the middle of a line"
/// );
/// let d = Described { input: None, ..d };
/// assert!(d.to_string().starts_with("line 14, byte 4605, column 60: truncated"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Described<'a> {
    /// The input's name, first when given.
    pub input: Option<&'a str>,
    /// Where. Line 0 is not a line (an input that could not be opened):
    /// only the reason is said.
    pub position: Position,
    /// The kind's name ([`ErrorKind::name`]); the column is not said for
    /// `io`, whose byte is where reading stopped.
    pub kind: &'a str,
    /// What was expected or found.
    pub reason: &'a str,
    /// The I/O error behind it, said after the reason.
    pub io: Option<&'a std::io::Error>,
}

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let io = self.kind == ErrorKind::Io.name();
        if self.position.line == 0 && io {
            // Not tied to a line (the input could not be opened).
            if let Some(name) = self.input {
                write!(f, "{name}: ")?;
            }
            f.write_str(self.reason)?;
        } else {
            write_where(f, self.input, &self.position, !io)?;
            write!(f, ": {}: {}", self.kind, self.reason)?;
        }
        if let Some(e) = self.io {
            write!(f, ": {e}")?;
        }
        Ok(())
    }
}

/// What went wrong. Grows as the format does, so match with a wildcard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The line is not JSON; [`Error::reason`] says what the parser expected.
    InvalidJson,
    /// The line is not valid UTF-8.
    InvalidUtf8,
    /// The line is JSON but its root is not an object.
    NotAnObject,
    /// The root object has no `type`, or its `type` is not a string.
    MissingType,
    /// A top-level `type` or `subtype` is given twice with different values:
    /// ambiguous, so not guessed.
    DuplicateKey,
    /// Nesting goes past 1024 levels (the root object is level 1).
    TooDeep,
    /// The line is longer than the reader's maximum; the reader skipped to
    /// the next LF.
    LineTooLong,
    /// The input ended in the middle of a line (no final LF, and the bytes
    /// after the last LF are not a complete JSON object).
    Truncated,
    /// The underlying reader failed. This one ends the stream.
    Io,
}

impl ErrorKind {
    /// The stable snake_case name used in JSON output (`invalid_json`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidJson => "invalid_json",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::NotAnObject => "not_an_object",
            ErrorKind::MissingType => "missing_type",
            ErrorKind::DuplicateKey => "duplicate_key",
            ErrorKind::TooDeep => "too_deep",
            ErrorKind::LineTooLong => "line_too_long",
            ErrorKind::Truncated => "truncated",
            ErrorKind::Io => "io",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error with its kind, its position and a short reason.
///
/// Boxed so that `Result<Event, Error>` stays two words wide.
pub struct Error(Box<Inner>);

struct Inner {
    kind: ErrorKind,
    position: Position,
    reason: &'static str,
    io: Option<std::io::Error>,
}

impl Error {
    /// A new error of `kind` at `position`, with a short reason (what was
    /// expected, or what was found).
    pub fn new(kind: ErrorKind, position: Position, reason: &'static str) -> Error {
        Error(Box::new(Inner {
            kind,
            position,
            reason,
            io: None,
        }))
    }

    /// An I/O error, at the position the reader had reached.
    pub(crate) fn io(err: std::io::Error, position: Position) -> Error {
        Error(Box::new(Inner {
            kind: ErrorKind::Io,
            position,
            reason: "read failed",
            io: Some(err),
        }))
    }

    /// An I/O error at `position`, with its own short reason (what the
    /// reader was doing, or why the input ended early).
    pub(crate) fn io_with(err: std::io::Error, position: Position, reason: &'static str) -> Error {
        Error(Box::new(Inner {
            kind: ErrorKind::Io,
            position,
            reason,
            io: Some(err),
        }))
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// Where it went wrong.
    pub fn position(&self) -> Position {
        self.0.position
    }

    /// A short description of what was expected or found.
    pub fn reason(&self) -> &'static str {
        self.0.reason
    }

    /// The I/O error behind an [`ErrorKind::Io`] error.
    pub fn io_error(&self) -> Option<&std::io::Error> {
        self.0.io.as_ref()
    }

    /// The same error at another position: how a layer that knows more of
    /// the input (the physical line inside a multi-line JSON element, the
    /// element's index) restates where a lower layer's error is.
    pub fn relocated(mut self, position: Position) -> Error {
        self.0.position = position;
        self
    }

    /// The same error `by` lines further on.
    pub(crate) fn shift_line(&mut self, by: u64) {
        self.0.position.line += by;
    }

    /// The same error told otherwise (its kind, position and reason from a
    /// reader that says more), in the same allocation.
    pub(crate) fn restated(
        mut self,
        kind: ErrorKind,
        position: Position,
        reason: &'static str,
    ) -> Error {
        self.0.kind = kind;
        self.0.position = position;
        self.0.reason = reason;
        self
    }

    /// True when the stream cannot go on after this error.
    pub fn is_fatal(&self) -> bool {
        self.0.kind == ErrorKind::Io
    }

    /// An input that could not be opened: an I/O error not tied to a line
    /// (position 0).
    pub fn open(err: std::io::Error) -> Error {
        Error(Box::new(Inner {
            kind: ErrorKind::Io,
            position: Position::default(),
            reason: "open failed",
            io: Some(err),
        }))
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("position", &self.0.position)
            .field("reason", &self.0.reason)
            .field("io", &self.0.io)
            .finish()
    }
}

impl Error {
    /// This error as people read it, after the name of its input when
    /// given (see [`Described`]).
    pub fn described<'a>(&'a self, input: Option<&'a str>) -> Described<'a> {
        Described {
            input,
            position: self.0.position,
            kind: self.0.kind.name(),
            reason: self.0.reason,
            io: self.0.io.as_ref(),
        }
    }
}

/// [`Described`] without an input name: `line 7, byte 1000, column 12:
/// invalid_json: expected a value`.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.described(None).fmt(f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .io
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_line_then_line_start_then_column() {
        let mut p = Position::new(7, 1000);
        p.column = Some(12);
        let e = Error::new(ErrorKind::InvalidJson, p, "expected a value");
        assert_eq!(
            e.to_string(),
            "line 7, byte 1000, column 12: invalid_json: expected a value"
        );
        assert_eq!(
            e.described(Some("a.jsonl")).to_string(),
            "a.jsonl:7: byte 1000, column 12: invalid_json: expected a value"
        );
        assert_eq!(e.kind(), ErrorKind::InvalidJson);
        assert!(!e.is_fatal());
        p.element = Some(3);
        assert_eq!(p.to_string(), "line 7, byte 1000, column 12 (element 3)");
        // An I/O error says where reading stopped, no column; an input
        // that could not be opened, only why.
        let io = || std::io::Error::other("gone");
        let broke = Error::io(io(), p);
        assert_eq!(
            broke.described(Some("a")).to_string(),
            "a:7: byte 1000 (element 3): io: read failed: gone"
        );
        let unopened = Error::open(io());
        assert_eq!(unopened.to_string(), "open failed: gone");
        assert_eq!(
            unopened.described(Some("a")).to_string(),
            "a: open failed: gone"
        );
    }

    #[test]
    fn result_of_error_is_small() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }
}
