//! What the reading commands say about bad lines, and the exit code that
//! follows: one rule, here, for every command (README, "Bad lines and exit
//! codes"; [`BAD_LINES_HELP`] in each command's `--help`).
//!
//! A bad line is a line that is not an event: not JSON, cut short, no
//! `type`, longer than `--max-line`. Every reading command reads on past
//! it and says it on stderr, in input order, as
//! `cctape: FILE:LINE: byte OFFSET, column COL: KIND: REASON`
//! ([`cctape::error::Described`], the library's one formatter): OFFSET is
//! where the line starts in its input (0-based), COL the byte within the
//! line where it stops being an event, so byte OFFSET+COL is the one to
//! look at. Then, by what the command prints ([`BadLine`]):
//!
//! - output made of events (`filter`, `fields`, `tree`, `export`): the bad
//!   line is missing from it, so it is an error as grep and ripgrep count
//!   one: the exit code is 2, even when lines were printed;
//! - output that judges the input and counts its bad lines (`verdict`'s and
//!   `watch`'s `bad_line` warnings, `check`'s `not_an_event` findings): the
//!   exit code is that judgement's;
//! - output that lists them itself (`stats`' errors, `filter --errors`):
//!   not said again, not an error.
//!
//! An input that could not be read, or broke off, is an error for every
//! command (exit 2). `-s`/`--no-messages` leaves out what is said about
//! inputs and lines (grep's `-s`), never the exit code; `-q` is only the
//! progress line. ripgrep says every error it meets; a bad line is said for
//! each line, so the first [`SAID_PER_INPUT`] of an input are said and the
//! rest counted in one line at its end: stderr stays readable and memory
//! bounded (a chunk read on the pool keeps at most that many messages),
//! and what is said never depends on `--jobs`.

use cctape::error::Error;

/// How many bad lines of one input are said, each with its position; the
/// others are counted in one message at the end of the input (as `stats`
/// lists the first 100 errors).
pub const SAID_PER_INPUT: u64 = 100;

/// What a command's output does with a bad line (see the module's doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadLine {
    /// Missing from the output: said, and an error (exit 2).
    Error,
    /// Counted in the output's judgement: said; the exit code is the
    /// judgement's.
    Counted,
    /// In the output with its position: not said, not an error.
    Listed,
}

/// What every `--help` paragraph on bad lines starts with.
macro_rules! bad_lines_are_said {
    () => {
        "\
Bad lines: a line that is not an event (not JSON, cut short, no type) is
said on stderr as `cctape: FILE:LINE: byte OFFSET, column COL: KIND: REASON`
(OFFSET where the line starts, COL the byte in it), the first 100 of each
input, and reading goes on"
    };
}

/// The paragraph of `--help` that states the rule, for the commands whose
/// output is made of events ([`BadLine::Error`]).
pub const BAD_LINES_HELP: &str = concat!(
    bad_lines_are_said!(),
    "; it is missing from the output, so the
exit code is 2, as grep and ripgrep exit after an error. -s leaves the
messages out."
);

/// The same paragraph for the commands whose output counts bad lines
/// ([`BadLine::Counted`]).
pub const BAD_LINES_COUNTED_HELP: &str = concat!(
    bad_lines_are_said!(),
    "; the output counts it, and the
exit code is the output's. -s leaves the messages out."
);

/// The paragraph for `stats`, whose report lists them ([`BadLine::Listed`]).
pub const BAD_LINES_LISTED_HELP: &str = "\
Bad lines: a line that is not an event (not JSON, cut short, no type) is
listed in the report's errors as `FILE:LINE: byte OFFSET, column COL: KIND:
REASON` (OFFSET where the line starts, COL the byte in it), the first 100
with their positions and every one counted, and reading goes on; it is not
said again on stderr, and the exit code is the report's.";

/// One bad line's message, without `cctape: `, ended by LF.
pub fn message(name: &str, e: &Error, out: &mut Vec<u8>) {
    use std::io::Write as _;
    let _ = writeln!(out, "{}", e.described(Some(name)));
}

/// The messages of one input as they reach the printer, piece after piece
/// in input order: the first [`SAID_PER_INPUT`] said, the rest counted.
#[derive(Debug, Default)]
pub struct Tally {
    told: u64,
    untold: u64,
}

impl Tally {
    /// Of `lines` (messages one a line) and `unsaid` more bad lines not
    /// written out, the part to say now.
    pub fn take<'a>(&mut self, lines: &'a [u8], unsaid: u64) -> &'a [u8] {
        let room = SAID_PER_INPUT.saturating_sub(self.told);
        let mut end = 0;
        let mut n = 0;
        for i in memchr::memchr_iter(b'\n', lines) {
            if n == room {
                break;
            }
            n += 1;
            end = i + 1;
        }
        let all = memchr::memchr_iter(b'\n', lines).count() as u64;
        self.told += n;
        self.untold += all - n + unsaid;
        &lines[..end]
    }

    /// At the end of the input: what is left unsaid, in one line.
    pub fn end(&mut self, name: &str) -> Option<String> {
        let (told, untold) = (self.told, self.untold);
        *self = Tally::default();
        (untold > 0).then(|| {
            format!(
                "{name}: {} more bad line{} not said ({} in all); \
                 `cctape filter --errors -n` prints every one",
                super::output::thousands(untold),
                if untold == 1 { "" } else { "s" },
                super::output::thousands(told + untold),
            )
        })
    }
}

/// What went wrong while reading, and the one rule that makes it the exit
/// code.
#[derive(Clone, Copy, Debug, Default)]
#[must_use = "the exit code comes from it"]
pub struct Trouble {
    /// An input (or a folder named or walked) could not be read, or broke
    /// off.
    pub unreadable: bool,
    /// Bad lines missing from the output ([`BadLine::Error`]).
    pub bad_lines: u64,
}

impl Trouble {
    /// Also `failed` (folders that could not be walked, said by
    /// [`super::expand`]).
    pub fn and(mut self, failed: bool) -> Trouble {
        self.unreadable |= failed;
        self
    }

    /// The exit code: 2 when an error occurred, whatever the command found
    /// (grep's and ripgrep's rule), else the command's own (`code`).
    pub fn exit_code(self, code: i32) -> i32 {
        if self.unreadable || self.bad_lines > 0 {
            2
        } else {
            code
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_hundred_of_an_input_are_said_whatever_the_pieces() {
        let lines: Vec<u8> = (0..70)
            .flat_map(|i| format!("m{i}\n").into_bytes())
            .collect();
        let mut t = Tally::default();
        assert_eq!(t.take(&lines, 0), &lines[..]);
        let second = t.take(&lines, 5);
        assert_eq!(second.iter().filter(|&&b| b == b'\n').count(), 30);
        assert!(second.ends_with(b"m29\n"));
        assert_eq!(t.take(b"x\n", 0), b"");
        let end = t.end("a.jsonl").expect("a count");
        assert_eq!(
            end,
            "a.jsonl: 46 more bad lines not said (146 in all); \
             `cctape filter --errors -n` prints every one"
        );
        assert_eq!(t.end("a.jsonl"), None, "reset for the next input");
    }

    #[test]
    fn the_help_says_the_number_said() {
        let n = format!("the first {SAID_PER_INPUT} of each");
        for h in [BAD_LINES_HELP, BAD_LINES_COUNTED_HELP] {
            assert!(h.replace('\n', " ").contains(&n), "{h}");
        }
        assert!(
            BAD_LINES_LISTED_HELP
                .contains(&format!("the first {}", cctape::stats::MAX_ERRORS_KEPT))
        );
    }

    #[test]
    fn an_error_makes_two_whatever_was_found() {
        let t = Trouble::default();
        assert_eq!((t.exit_code(0), t.exit_code(1)), (0, 1));
        let t = Trouble { bad_lines: 1, ..t };
        assert_eq!((t.exit_code(0), t.exit_code(1)), (2, 2));
        assert_eq!(Trouble::default().and(true).exit_code(0), 2);
    }
}
