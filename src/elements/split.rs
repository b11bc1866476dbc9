//! The resumable state machine that finds elements ([`Splitter`]): shared by
//! the three sources, it checks the array's punctuation and crosses each
//! element's strings and brackets.

use super::ElementSpan;
use crate::error::{Error, ErrorKind, Position};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What the splitter expects between values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Outside any array: a top-level `[` or `{`.
    Top,
    /// Just after `[`: an element or `]`.
    ArrayOpen,
    /// After an element: `,` or `]`.
    ArrayValue,
    /// After a comma: an element.
    ArrayComma,
}

/// One step of the splitter.
#[derive(Debug)]
pub(super) enum Step {
    /// An element was found.
    Element(Found),
    /// A problem outside any element, or an element past the maximum.
    Error(Error),
    /// The bytes given end before the next item.
    More,
    /// The input is over.
    Done,
}

/// An element found: `start..end` are absolute offsets.
#[derive(Clone, Copy, Debug)]
pub(super) struct Found {
    start: u64,
    end: u64,
    index: u64,
    line: u64,
    column: u64,
    complete: bool,
}

impl Found {
    /// Where it lies in a buffer that starts at absolute offset `base`.
    pub(super) fn span(self, base: u64) -> ElementSpan {
        ElementSpan {
            start: (self.start - base) as usize,
            end: (self.end - base) as usize,
            index: self.index,
            line: self.line,
            offset: self.start,
            column: self.column,
            complete: self.complete,
        }
    }
}

/// The resumable state machine shared by the three sources. It sees the
/// input through a window `buf` that starts at absolute offset `base`, and
/// keeps only absolute offsets, so that the decoder can drop bytes it no
/// longer needs between calls.
#[derive(Debug)]
pub(super) struct Splitter {
    /// Next byte to look at.
    pos: u64,
    mode: Mode,
    in_value: bool,
    value_start: u64,
    value_line: u64,
    /// Where the value in progress starts within its line.
    value_column: u64,
    depth: u64,
    /// One bit per open container up to 1024 levels: 1 for an object.
    kinds: [u64; 16],
    in_str: bool,
    esc: bool,
    scalar: bool,
    /// The value in progress is past the maximum (already reported).
    pub(super) oversize: bool,
    /// Skipping text at top level, to the next line that starts a value.
    junk: bool,
    /// Skipping text, and an LF was passed since the last look.
    junk_line_start: bool,
    /// LFs before this offset are counted in `line`.
    pub(super) counted: u64,
    pub(super) line: u64,
    line_start: u64,
    index: u64,
    bom_checked: bool,
    pub(super) max: usize,
    pub(super) finished: bool,
}

impl Splitter {
    pub(super) fn new(max: usize) -> Splitter {
        Splitter {
            pos: 0,
            mode: Mode::Top,
            in_value: false,
            value_start: 0,
            value_line: 0,
            value_column: 0,
            depth: 0,
            kinds: [0; 16],
            in_str: false,
            esc: false,
            scalar: false,
            oversize: false,
            junk: false,
            junk_line_start: false,
            counted: 0,
            line: 1,
            line_start: 0,
            index: 0,
            bom_checked: false,
            max: max.max(1),
            finished: false,
        }
    }

    /// The first absolute offset the splitter may still need.
    pub(super) fn keep_from(&self) -> u64 {
        if self.in_value && !self.oversize {
            self.value_start
        } else {
            self.pos
        }
    }

    /// Count the LFs up to `to` (which must be in the window).
    pub(super) fn count_lines(&mut self, buf: &[u8], base: u64, to: u64) {
        if to <= self.counted {
            return;
        }
        let from = (self.counted - base) as usize;
        let bytes = &buf[from..(to - base) as usize];
        if let Some(last) = memchr::memrchr(b'\n', bytes) {
            self.line += memchr::memchr_iter(b'\n', bytes).count() as u64;
            self.line_start = self.counted + last as u64 + 1;
        }
        self.counted = to;
    }

    /// Physical lines seen so far, as [`crate::framing`] counts them (LFs,
    /// plus one if bytes follow the last LF), once the window reaches `end`.
    pub(super) fn lines(&self, end: u64) -> u64 {
        self.line - 1 + u64::from(end > self.line_start)
    }

    /// A position at absolute offset `at`, on its physical line.
    fn position_at(&mut self, buf: &[u8], base: u64, at: u64) -> Position {
        self.count_lines(buf, base, at);
        let mut p = Position::new(self.line, self.line_start);
        p.column = Some(at - self.line_start);
        p
    }

    fn error(
        &mut self,
        buf: &[u8],
        base: u64,
        at: u64,
        kind: ErrorKind,
        why: &'static str,
    ) -> Step {
        let p = self.position_at(buf, base, at);
        Step::Error(Error::new(kind, p, why))
    }

    fn start_value(&mut self, buf: &[u8], base: u64, c: u8) {
        self.in_value = true;
        self.value_start = self.pos;
        self.count_lines(buf, base, self.pos);
        self.value_line = self.line;
        self.value_column = self.pos - self.line_start;
        self.depth = 0;
        self.in_str = false;
        self.esc = false;
        self.scalar = false;
        self.oversize = false;
        match c {
            b'{' | b'[' => {
                self.open(c == b'{');
                self.pos += 1;
            }
            b'"' => {
                self.in_str = true;
                self.pos += 1;
            }
            _ => self.scalar = true,
        }
    }

    fn open(&mut self, object: bool) {
        if let Some(w) = self.kinds.get_mut((self.depth / 64) as usize) {
            let bit = 1u64 << (self.depth % 64);
            if object {
                *w |= bit;
            } else {
                *w &= !bit;
            }
        }
        self.depth += 1;
    }

    /// Close a container with `b`; true when the element ends here: its
    /// last container closed, or a bracket of the wrong kind (the element
    /// ends at it, the layer above reports it invalid, and what follows is
    /// read as more elements instead of being swallowed).
    fn close(&mut self, b: u8) -> bool {
        let top = self.depth - 1;
        let was_object = self
            .kinds
            .get((top / 64) as usize)
            .map(|w| w & (1u64 << (top % 64)) != 0);
        if was_object.is_some_and(|o| o != (b == b'}')) {
            self.depth = 0;
            return true;
        }
        self.depth = top;
        top == 0
    }

    /// Scan the value in progress; its end when found.
    fn scan_value(&mut self, buf: &[u8], base: u64) -> Option<u64> {
        let end = base + buf.len() as u64;
        loop {
            if self.pos >= end {
                return None;
            }
            let rel = (self.pos - base) as usize;
            if self.esc {
                self.esc = false;
                self.pos += 1;
                continue;
            }
            if self.in_str {
                match memchr::memchr2(b'"', b'\\', &buf[rel..]) {
                    None => {
                        self.pos = end;
                        return None;
                    }
                    Some(i) => {
                        self.pos += i as u64 + 1;
                        if buf[rel + i] == b'\\' {
                            self.esc = true;
                        } else {
                            self.in_str = false;
                            if self.depth == 0 {
                                return Some(self.pos);
                            }
                        }
                    }
                }
                continue;
            }
            if self.scalar {
                let stop = buf[rel..].iter().position(|&b| {
                    matches!(
                        b,
                        b' ' | b'\t' | b'\r' | b'\n' | b',' | b']' | b'}' | b'[' | b'{' | b'"'
                    )
                });
                return match stop {
                    Some(i) => {
                        self.pos += i as u64;
                        Some(self.pos)
                    }
                    None => {
                        self.pos = end;
                        None
                    }
                };
            }
            // Inside a container, outside strings: only brackets and quotes
            // matter.
            let mut i = rel;
            let found = loop {
                let Some(&b) = buf.get(i) else {
                    break None;
                };
                match b {
                    b'"' => break Some(b),
                    b'{' | b'[' => self.open(b == b'{'),
                    b'}' | b']' if self.close(b) => break Some(b),
                    _ => {}
                }
                i += 1;
            };
            self.pos = base + i as u64;
            match found {
                None => return None,
                Some(b'"') => {
                    self.in_str = true;
                    self.pos += 1;
                }
                Some(_) => {
                    self.pos += 1;
                    return Some(self.pos);
                }
            }
        }
    }

    /// End the value in progress: its element, or nothing (`More`) for a
    /// value past the maximum, already reported.
    fn emit(&mut self, end: u64, complete: bool) -> Step {
        self.in_value = false;
        let index = self.index;
        self.index += 1;
        if self.mode != Mode::Top {
            self.mode = Mode::ArrayValue;
        }
        if self.oversize {
            return Step::More;
        }
        Step::Element(Found {
            start: self.value_start,
            end,
            index,
            line: self.value_line,
            column: self.value_column,
            complete,
        })
    }

    fn too_long(&mut self) -> Step {
        self.oversize = true;
        let mut p = Position::new(self.value_line, self.value_start);
        p.element = Some(self.index);
        Step::Error(Error::new(
            ErrorKind::LineTooLong,
            p,
            "JSON element longer than the maximum; skipped to its end",
        ))
    }

    /// The next step on the window `buf` (absolute offset `base`), which
    /// holds everything from [`keep_from`](Splitter::keep_from) on; `eof`
    /// when no byte will follow the window.
    pub(super) fn step(&mut self, buf: &[u8], base: u64, eof: bool) -> Step {
        let end = base + buf.len() as u64;
        if !self.bom_checked {
            if base == 0 && buf.len() < BOM.len() && !eof && BOM.starts_with(buf) {
                return Step::More;
            }
            self.bom_checked = true;
            if base == 0 && buf.starts_with(BOM) {
                self.pos = BOM.len() as u64;
                self.counted = self.pos;
                self.line_start = self.pos;
            }
        }
        loop {
            if self.in_value {
                let done = self.scan_value(buf, base);
                let reached = done.unwrap_or(end);
                if !self.oversize && reached - self.value_start > self.max as u64 {
                    let s = self.too_long();
                    if let Some(e) = done {
                        self.emit(e, true);
                    } else if eof {
                        self.emit(end, false);
                        self.mode = Mode::Top;
                    }
                    return s;
                }
                let s = match done {
                    Some(e) => self.emit(e, true),
                    None if eof => {
                        // A scalar ends with the input; anything else was
                        // cut. A cut element is reported truncated, and the
                        // array it was in is not reported again.
                        let complete = self.scalar;
                        let s = self.emit(end, complete);
                        if !complete {
                            self.mode = Mode::Top;
                        }
                        s
                    }
                    None => return Step::More,
                };
                if let Step::Element(_) = s {
                    return s;
                }
                continue;
            }
            if self.junk && !self.junk_line_start {
                let rel = (self.pos - base) as usize;
                match memchr::memchr(b'\n', &buf[rel..]) {
                    Some(i) => {
                        self.pos += i as u64 + 1;
                        self.junk_line_start = true;
                    }
                    None => {
                        self.pos = end;
                        if !eof {
                            return Step::More;
                        }
                    }
                }
            }
            let rel = (self.pos - base) as usize;
            let ws = buf[rel..]
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
            let Some(ws) = ws else {
                self.pos = end;
                if !eof {
                    return Step::More;
                }
                return self.finish(buf, base);
            };
            self.pos += ws as u64;
            let c = buf[rel + ws];
            if self.junk {
                if matches!(c, b'{' | b'[') {
                    self.junk = false;
                } else {
                    self.junk_line_start = false;
                    continue;
                }
            }
            let at = self.pos;
            match self.mode {
                Mode::Top => match c {
                    b'[' => {
                        self.mode = Mode::ArrayOpen;
                        self.pos += 1;
                    }
                    b'{' => self.start_value(buf, base, c),
                    b']' | b'}' | b',' => {
                        self.pos += 1;
                        return self.error(
                            buf,
                            base,
                            at,
                            ErrorKind::InvalidJson,
                            "unexpected `]`, `}` or `,` outside any array or object",
                        );
                    }
                    _ => {
                        self.junk = true;
                        self.junk_line_start = false;
                        return self.error(
                            buf,
                            base,
                            at,
                            ErrorKind::InvalidJson,
                            "expected a JSON array or object (`[` or `{`): not JSON; reading again at the next \
                             line that starts with `[` or `{`",
                        );
                    }
                },
                Mode::ArrayOpen | Mode::ArrayComma if c == b']' => {
                    self.pos += 1;
                    let trailing = self.mode == Mode::ArrayComma;
                    self.mode = Mode::Top;
                    if trailing {
                        return self.error(
                            buf,
                            base,
                            at,
                            ErrorKind::InvalidJson,
                            "a comma before `]` (expected another element)",
                        );
                    }
                }
                Mode::ArrayOpen | Mode::ArrayComma if c == b',' || c == b'}' => {
                    self.pos += 1;
                    self.mode = Mode::ArrayComma;
                    return self.error(
                        buf,
                        base,
                        at,
                        ErrorKind::InvalidJson,
                        "expected an array element",
                    );
                }
                Mode::ArrayOpen | Mode::ArrayComma => self.start_value(buf, base, c),
                Mode::ArrayValue => match c {
                    b',' => {
                        self.mode = Mode::ArrayComma;
                        self.pos += 1;
                    }
                    b']' => {
                        self.mode = Mode::Top;
                        self.pos += 1;
                    }
                    _ => {
                        // Read on as if the comma were there.
                        self.mode = Mode::ArrayComma;
                        return self.error(
                            buf,
                            base,
                            at,
                            ErrorKind::InvalidJson,
                            "expected `,` or `]` after an array element",
                        );
                    }
                },
            }
        }
    }

    pub(super) fn finish(&mut self, buf: &[u8], base: u64) -> Step {
        let end = base + buf.len() as u64;
        self.count_lines(buf, base, end);
        if self.mode != Mode::Top {
            self.mode = Mode::Top;
            return self.error(
                buf,
                base,
                end,
                ErrorKind::Truncated,
                "the input ended inside a JSON array (no closing `]`)",
            );
        }
        self.finished = true;
        Step::Done
    }
}
