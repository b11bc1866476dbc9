//! ISO 8601 timestamps (`2026-10-03T15:29:17.247Z`) to milliseconds since
//! the Unix epoch: the run layer's name for [`crate::time::parse_millis`]
//! (jiff-based; the hand-written parser it replaces is gone).

/// Milliseconds since 1970-01-01T00:00:00Z for an RFC 3339 timestamp
/// (`YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)`); `None` if it is not one.
pub(crate) fn parse_millis(s: &str) -> Option<i64> {
    crate::time::parse_millis(s)
}
