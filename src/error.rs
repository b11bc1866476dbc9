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

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, byte {}", self.line, self.byte())?;
        if let Some(e) = self.element {
            write!(f, " (element {e})")?;
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
    pub fn io(err: std::io::Error, position: Position) -> Error {
        Error(Box::new(Inner {
            kind: ErrorKind::Io,
            position,
            reason: "read failed",
            io: Some(err),
        }))
    }

    /// An I/O error at `position`, with its own short reason (what the
    /// reader was doing, or why the input ended early).
    pub fn io_with(err: std::io::Error, position: Position, reason: &'static str) -> Error {
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

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.position.line == 0 && self.0.kind == ErrorKind::Io {
            // Not tied to a line (the input could not be opened).
            write!(f, "{}", self.0.reason)?;
        } else {
            write!(f, "{}: {}: {}", self.0.position, self.0.kind, self.0.reason)?;
        }
        if let Some(io) = &self.0.io {
            write!(f, ": {io}")?;
        }
        Ok(())
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
    fn display_names_line_and_absolute_byte() {
        let mut p = Position::new(7, 1000);
        p.column = Some(12);
        let e = Error::new(ErrorKind::InvalidJson, p, "expected a value");
        assert_eq!(
            e.to_string(),
            "line 7, byte 1012: invalid_json: expected a value"
        );
        assert_eq!(e.kind(), ErrorKind::InvalidJson);
        assert!(!e.is_fatal());
    }

    #[test]
    fn result_of_error_is_small() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }
}
