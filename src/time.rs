//! Time: RFC 3339 timestamps to instants, instants to days in a time zone.
//!
//! This module owns how cctape reads a `timestamp` field and which day an
//! instant belongs to. Days are local days (the system's time zone) unless
//! a [`Zone`] names another; the zone rules come from the tz database through
//! [jiff](https://docs.rs/jiff), not from hand-written offsets (a fixed
//! offset is wrong for half the year wherever summer time is kept).
//!
//! A timestamp that is not a date (`"not a date"`, `"<TIMESTAMP>"`, a date
//! without a time) is no instant and no day: callers count such records
//! apart instead of inventing a day from the first ten characters.
//!
//! ```
//! use cctape::time::{Day, Zone, parse_millis};
//!
//! let utc = Zone::utc();
//! // 23:30 at UTC-05:00 is 04:30 the next day in UTC.
//! let ms = parse_millis("2026-03-01T23:30:00-05:00").unwrap();
//! assert_eq!(Day::of_millis(ms, &utc).to_string(), "2026-03-02");
//! let paris = Zone::named("Europe/Paris").unwrap();
//! assert_eq!(Day::of_timestamp("2026-07-01T22:30:00Z", &paris).unwrap().to_string(), "2026-07-02");
//! assert_eq!(Day::of_timestamp("not a date", &utc), None);
//! ```

use std::fmt;

/// A time zone: UTC, the system's, or one named in the tz database.
///
/// Cloning is cheap (the zone's rules are shared).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zone {
    tz: jiff::tz::TimeZone,
    name: Option<String>,
}

/// A time zone name that the tz database does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownZone {
    name: String,
}

impl fmt::Display for UnknownZone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown time zone `{}` (expected an IANA name such as `UTC`, `Europe/Paris` or \
             `America/New_York`)",
            self.name
        )
    }
}

impl std::error::Error for UnknownZone {}

/// The tz database jiff opens first when `TZDIR` is not set.
const ZONEINFO: &str = "/usr/share/zoneinfo";

/// The system's zone in the common cases, read as jiff reads it but
/// without opening jiff's database: `TZ` an IANA name (`UTC`,
/// `Europe/Paris`, `:America/New_York`), or `TZ` unset and
/// `/etc/localtime` a link into `/usr/share/zoneinfo`. The zone is that
/// name's file under `/usr/share/zoneinfo`, as jiff's database would give
/// it. Opening the database walks every folder of the tz tree: 3.4 million
/// instructions and 40 system calls, two thirds of what `cctape verdict`
/// costs on a one-line input (measured with callgrind). `None` for every
/// other case (`TZDIR`, a POSIX rule such as `EST5EDT`, a path, a name with
/// digits such as `Etc/GMT+5`, a file that does not parse), which jiff then
/// reads.
fn system_by_name(
    tz: Option<&std::ffi::OsStr>,
    tzdir: bool,
    localtime_link: impl FnOnce() -> Option<std::path::PathBuf>,
) -> Option<jiff::tz::TimeZone> {
    if tzdir {
        return None;
    }
    let name = match tz {
        Some(tz) => {
            let tz = tz.to_str()?;
            let name = tz.strip_prefix(':').unwrap_or(tz);
            // A digit or a comma may make it a POSIX rule, which jiff
            // reads first.
            if name.bytes().any(|b| b.is_ascii_digit() || b == b',') {
                return None;
            }
            name.to_owned()
        }
        None => {
            let target = localtime_link()?;
            let target = target.to_str()?;
            let at = target.rfind("/usr/share/zoneinfo/")?;
            target[at + "/usr/share/zoneinfo/".len()..].to_owned()
        }
    };
    let plain = |c: &str| {
        !c.is_empty()
            && c != ".."
            && c != "."
            && c.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'.'))
    };
    if !name.split('/').all(plain) || name.starts_with("posix/") || name.starts_with("right/") {
        return None;
    }
    let data = std::fs::read(std::path::Path::new(ZONEINFO).join(&name)).ok()?;
    jiff::tz::TimeZone::tzif(&name, &data).ok()
}

impl Zone {
    /// UTC.
    pub fn utc() -> Zone {
        Zone {
            tz: jiff::tz::TimeZone::UTC,
            name: Some("UTC".to_owned()),
        }
    }

    /// The system's time zone (`TZ`, then `/etc/localtime`); UTC when it
    /// cannot be found. Read as they are at the call, not from jiff's
    /// cache of an earlier call: a long-lived process (Python, after
    /// `os.environ["TZ"] = ...; time.tzset()`) gets the zone a command
    /// started now would get.
    pub fn system() -> Zone {
        let tz = system_by_name(
            std::env::var_os("TZ").as_deref(),
            std::env::var_os("TZDIR").is_some(),
            || std::fs::read_link("/etc/localtime").ok(),
        )
        .unwrap_or_else(|| {
            jiff::tz::reset_system_time_zone_cache();
            jiff::tz::TimeZone::try_system().unwrap_or(jiff::tz::TimeZone::UTC)
        });
        let name = tz.iana_name().map(str::to_owned);
        Zone { tz, name }
    }

    /// The zone named `name` in the tz database (`Europe/Paris`, `UTC`).
    pub fn named(name: &str) -> Result<Zone, UnknownZone> {
        match jiff::tz::TimeZone::get(name) {
            Ok(tz) => Ok(Zone {
                tz,
                name: Some(name.to_owned()),
            }),
            Err(_) => Err(UnknownZone {
                name: name.to_owned(),
            }),
        }
    }

    /// The zone's IANA name, when it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

/// Milliseconds since 1970-01-01T00:00:00Z for an RFC 3339 timestamp
/// (`2026-10-03T15:29:17.247Z`, `2026-10-03T17:29:17+02:00`); a timestamp
/// without an offset is read as UTC. `None` when it is not a timestamp.
///
/// ```
/// use cctape::time::parse_millis;
/// assert_eq!(parse_millis("1970-01-01T00:00:01.5Z"), Some(1500));
/// assert_eq!(parse_millis("1970-01-01T02:00:00+02:00"), Some(0));
/// assert_eq!(parse_millis("yesterday"), None);
/// ```
pub fn parse_millis(s: &str) -> Option<i64> {
    // A cheap shape check first: most callers feed every `timestamp` field
    // through here, and jiff's error path builds a message.
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || !b[0].is_ascii_digit() {
        return None;
    }
    if let Some(ms) = utc_millis(b) {
        return Some(ms);
    }
    jiff_millis(s)
}

/// The timestamps Claude Code writes (`2026-10-03T15:29:17.247Z`, or
/// without the milliseconds), read without jiff's general parser: it cost
/// about 700 instructions a timestamp, the most of any field the folds read
/// (callgrind, `stats` on the archive corpus). Anything else (another
/// offset, more digits, a leap second, a year outside 1000 to 9998) is left
/// to jiff, and the two agree on every string this accepts (tested).
#[inline]
fn utc_millis(b: &[u8]) -> Option<i64> {
    let ms = match b.len() {
        24 if b[19] == b'.' && b[23] == b'Z' => digits(b, 20, 3)?,
        20 if b[19] == b'Z' => 0,
        _ => return None,
    };
    if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, m, d) = (digits(b, 0, 4)?, digits(b, 5, 2)?, digits(b, 8, 2)?);
    let (hh, mm, ss) = (digits(b, 11, 2)?, digits(b, 14, 2)?, digits(b, 17, 2)?);
    if !(1000..=9998).contains(&y) || !(1..=12).contains(&m) || hh > 23 || mm > 59 || ss > 59 {
        return None;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if d < 1 || d > month_days[(m - 1) as usize] {
        return None;
    }
    // Days since 1970-01-01 in the proleptic Gregorian calendar, counted
    // from March so that the leap day ends a year.
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000 + ms)
}

/// The number written in `n` ASCII digits at `at`.
#[inline(always)]
fn digits(b: &[u8], at: usize, n: usize) -> Option<i64> {
    let mut v = 0i64;
    for &c in b.get(at..at + n)? {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(c - b'0');
    }
    Some(v)
}

/// [`parse_millis`] by jiff's parsers: any RFC 3339 timestamp, or a civil
/// date and time read as UTC.
fn jiff_millis(s: &str) -> Option<i64> {
    if let Ok(ts) = s.parse::<jiff::Timestamp>() {
        return Some(ts.as_millisecond());
    }
    // No offset: UTC, as the stream's own timestamps always are.
    let dt = s.parse::<jiff::civil::DateTime>().ok()?;
    let ts = dt.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
    Some(ts.as_millisecond())
}

/// An instant (milliseconds since the Unix epoch) as an RFC 3339 timestamp
/// in UTC with milliseconds, the way Claude Code writes them; `None` out of
/// range.
///
/// ```
/// use cctape::time::{format_millis, parse_millis};
/// assert_eq!(format_millis(1500).as_deref(), Some("1970-01-01T00:00:01.500Z"));
/// let t = "2026-10-03T15:29:17.247Z";
/// assert_eq!(format_millis(parse_millis(t).unwrap()).as_deref(), Some(t));
/// ```
pub fn format_millis(millis: i64) -> Option<String> {
    let ts = jiff::Timestamp::from_millisecond(millis).ok()?;
    Some(ts.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
}

/// Five-hour billing blocks, as ccusage's `blocks` report makes them (the
/// windows in which a Claude subscription's usage limits are counted):
/// instants in time order, a block starting at the UTC hour of its first
/// instant, and a new block whenever an instant is more than five hours
/// after its block's start or after the instant before it. Each block is
/// keyed by its start (`2026-01-05T19:00:00.000Z`, ccusage's block `id`).
///
/// ```
/// use cctape::time::{Blocks, parse_millis};
/// let t = |s: &str| parse_millis(s).unwrap();
/// let blocks = Blocks::new(vec![
///     t("2026-01-05T19:40:00Z"),
///     t("2026-01-05T23:59:00Z"),
///     t("2026-01-06T00:41:00Z"), // past 19:00 + 5h: a new block at 00:00
///     t("2026-01-06T09:00:00Z"), // more than 5h after the last: another
/// ]);
/// let key = |s: &str| blocks.block_of(t(s)).map(|b| b.to_string());
/// assert_eq!(key("2026-01-05T23:59:00Z").as_deref(), Some("2026-01-05T19:00:00.000Z"));
/// assert_eq!(key("2026-01-06T00:41:00Z").as_deref(), Some("2026-01-06T00:00:00.000Z"));
/// assert_eq!(key("2026-01-06T09:00:00Z").as_deref(), Some("2026-01-06T09:00:00.000Z"));
/// assert_eq!(blocks.len(), 3);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Blocks {
    /// Each block's start and its last instant, in time order.
    spans: Vec<(i64, i64)>,
}

/// A block's start, printed as ccusage prints its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockStart(i64);

impl fmt::Display for BlockStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match format_millis(self.0) {
            Some(s) => f.write_str(&s),
            None => write!(f, "{}", self.0),
        }
    }
}

impl BlockStart {
    /// The start, in milliseconds since the Unix epoch.
    pub fn millis(self) -> i64 {
        self.0
    }

    /// The block that starts at `millis` (a key printed by `Display`,
    /// parsed back with [`parse_millis`]).
    pub(crate) fn at(millis: i64) -> BlockStart {
        BlockStart(millis)
    }
}

/// A block's length: five hours.
pub(crate) const BLOCK_MILLIS: i64 = 5 * 3_600_000;

impl Blocks {
    /// The blocks of these instants (in any order).
    pub fn new(mut instants: Vec<i64>) -> Blocks {
        instants.sort_unstable();
        let mut spans: Vec<(i64, i64)> = Vec::new();
        for t in instants {
            match spans.last_mut() {
                Some((start, last)) if t - *start <= BLOCK_MILLIS && t - *last <= BLOCK_MILLIS => {
                    *last = t;
                }
                _ => spans.push((t - t.rem_euclid(3_600_000), t)),
            }
        }
        Blocks { spans }
    }

    /// How many blocks there are.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when there is no block.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The last instant of the block that starts at `block` (ccusage's
    /// `actualEndTime`); `None` for no such block.
    pub(crate) fn last_instant(&self, block: BlockStart) -> Option<i64> {
        let i = self
            .spans
            .binary_search_by_key(&block.0, |&(start, _)| start)
            .ok()?;
        Some(self.spans[i].1)
    }

    /// The block an instant falls in: for one of the instants the blocks
    /// were made of, its own block (where a block ends on the instant the
    /// next starts, the earlier); for another, the block that started last
    /// before it, while within five hours of its start; else none.
    pub fn block_of(&self, t: i64) -> Option<BlockStart> {
        let after = self.spans.partition_point(|&(start, _)| start <= t);
        let j = after.checked_sub(1)?;
        if j > 0 && t <= self.spans[j - 1].1 {
            return Some(BlockStart(self.spans[j - 1].0));
        }
        let (start, _) = self.spans[j];
        (t - start <= BLOCK_MILLIS).then_some(BlockStart(start))
    }
}

/// A calendar day (proleptic Gregorian), printed `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day {
    year: i16,
    month: i8,
    day: i8,
}

impl Day {
    /// The day `millis` (since the Unix epoch) falls on in `zone`.
    pub fn of_millis(millis: i64, zone: &Zone) -> Day {
        let ts = jiff::Timestamp::from_millisecond(millis).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let d = zone.tz.to_datetime(ts).date();
        Day {
            year: d.year(),
            month: d.month(),
            day: d.day(),
        }
    }

    /// The day an RFC 3339 timestamp falls on in `zone`; `None` when it is
    /// not a timestamp.
    pub fn of_timestamp(s: &str, zone: &Zone) -> Option<Day> {
        parse_millis(s).map(|ms| Day::of_millis(ms, zone))
    }

    /// The year.
    pub fn year(&self) -> i16 {
        self.year
    }

    /// The month, 1 to 12.
    pub fn month(&self) -> i8 {
        self.month
    }

    /// The day of the month, 1 to 31.
    pub fn day(&self) -> i8 {
        self.day
    }

    /// The Monday of this day's ISO 8601 week (the key of ccusage's
    /// `weekly` report).
    ///
    /// ```
    /// use cctape::time::{Day, Zone};
    /// // 2026-01-01 was a Thursday; its week began on Monday 2025-12-29.
    /// let thursday = Day::of_timestamp("2026-01-01T12:00:00Z", &Zone::utc()).unwrap();
    /// assert_eq!(thursday.week_start().to_string(), "2025-12-29");
    /// assert_eq!(thursday.week_start().week_start(), thursday.week_start());
    /// ```
    pub fn week_start(&self) -> Day {
        let Ok(d) = jiff::civil::Date::new(self.year, self.month, self.day) else {
            return *self;
        };
        let back = i64::from(d.weekday().to_monday_zero_offset());
        match d.checked_sub(jiff::Span::new().days(back)) {
            Ok(m) => Day {
                year: m.year(),
                month: m.month(),
                day: m.day(),
            },
            Err(_) => *self,
        }
    }

    /// `YYYY-MM`: the key of ccusage's `monthly` report.
    pub(crate) fn month_key(&self) -> String {
        format!("{:04}-{:02}", self.year, self.month)
    }
}

impl fmt::Display for Day {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Day {
    /// The day a date names: `YYYY-MM-DD` (ISO 8601) or `YYYYMMDD` (as
    /// ccusage's `--since` takes it); `None` when it is neither or no such
    /// day exists (`2026-02-30`).
    ///
    /// ```
    /// use cctape::time::Day;
    /// assert_eq!(Day::parse("20260214").unwrap().to_string(), "2026-02-14");
    /// assert_eq!(Day::parse("2026-02-14"), Day::parse("20260214"));
    /// assert_eq!(Day::parse("2026-02-30"), None);
    /// assert_eq!(Day::parse("2026-2-14"), None);
    /// ```
    pub fn parse(s: &str) -> Option<Day> {
        let b = s.as_bytes();
        let digits = |r: std::ops::Range<usize>| -> Option<i16> {
            let part = b.get(r)?;
            part.iter().try_fold(0i16, |n, &c| {
                c.is_ascii_digit().then(|| n * 10 + i16::from(c - b'0'))
            })
        };
        let (y, m, d) = match b.len() {
            8 => (digits(0..4)?, digits(4..6)?, digits(6..8)?),
            10 if b[4] == b'-' && b[7] == b'-' => (digits(0..4)?, digits(5..7)?, digits(8..10)?),
            _ => return None,
        };
        // Month and day have two digits each, so they fit in an i8.
        let date = jiff::civil::Date::new(y, m as i8, d as i8).ok()?;
        Some(Day {
            year: date.year(),
            month: date.month(),
            day: date.day(),
        })
    }
}

/// The days a report keeps (`--since` and `--until`, both inclusive, in the
/// report's time zone): a request or a run whose day is outside, or that
/// has no day while a bound is set, is left out.
///
/// ```
/// use cctape::time::{Day, DayRange};
/// let range = DayRange { since: Day::parse("2026-02-10"), until: Day::parse("2026-02-15") };
/// assert!(range.contains(Day::parse("2026-02-10")));
/// assert!(range.contains(Day::parse("2026-02-15")));
/// assert!(!range.contains(Day::parse("2026-02-16")));
/// assert!(!range.contains(None));
/// assert!(DayRange::default().contains(None));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DayRange {
    /// The first day kept; `None`: no lower bound.
    pub since: Option<Day>,
    /// The last day kept; `None`: no upper bound.
    pub until: Option<Day>,
}

impl DayRange {
    /// True when neither bound is set (every day and no day are kept).
    pub fn is_all(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// Whether `day` is kept.
    pub fn contains(&self, day: Option<Day>) -> bool {
        if self.is_all() {
            return true;
        }
        let Some(day) = day else { return false };
        self.since.is_none_or(|s| s <= day) && self.until.is_none_or(|u| day <= u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_zone_by_name_is_the_zone_jiff_gives() {
        if !std::path::Path::new(ZONEINFO)
            .join("Europe/Paris")
            .is_file()
        {
            println!("skipped: no tz database at {ZONEINFO}");
            return;
        }
        let os = |s: &str| std::ffi::OsString::from(s);
        let no_link = || None;
        // Instants across summer time, old rules and far dates.
        let instants = [
            0i64,
            1_700_000_000_000,
            1_719_792_000_000,
            -2_000_000_000_000,
            4_102_444_800_000,
        ];
        for (tz, name) in [
            ("UTC", "UTC"),
            ("Europe/Paris", "Europe/Paris"),
            (":America/New_York", "America/New_York"),
            ("Asia/Kolkata", "Asia/Kolkata"),
            (
                "America/Argentina/Buenos_Aires",
                "America/Argentina/Buenos_Aires",
            ),
            ("Etc/UTC", "Etc/UTC"),
        ] {
            let fast = system_by_name(Some(&os(tz)), false, no_link).unwrap();
            let jiff = jiff::tz::TimeZone::get(name).unwrap();
            assert_eq!(fast.iana_name(), jiff.iana_name(), "{tz}");
            for ms in instants {
                let ts = jiff::Timestamp::from_millisecond(ms).unwrap();
                assert_eq!(fast.to_offset(ts), jiff.to_offset(ts), "{tz} at {ms}");
            }
        }
        let link = || Some(std::path::PathBuf::from("/usr/share/zoneinfo/Europe/Paris"));
        let fast = system_by_name(None, false, link).unwrap();
        assert_eq!(fast.iana_name(), Some("Europe/Paris"));
        let relative = || Some(std::path::PathBuf::from("../usr/share/zoneinfo/Asia/Tokyo"));
        assert_eq!(
            system_by_name(None, false, relative).unwrap().iana_name(),
            Some("Asia/Tokyo")
        );
        // What jiff reads itself: TZDIR, POSIX rules, names with digits,
        // paths, names not in the database, links elsewhere, no link.
        let elsewhere = || {
            Some(std::path::PathBuf::from(
                "/var/db/timezone/zoneinfo/Europe/Paris",
            ))
        };
        for (tz, tzdir) in [
            (Some("Europe/Paris"), true),
            (Some("EST5EDT,M3.2.0,M11.1.0"), false),
            (Some("Etc/GMT+5"), false),
            (Some("/usr/share/zoneinfo/Europe/Paris"), false),
            (Some("../zoneinfo/Europe/Paris"), false),
            (Some("Europe/../Europe/Paris"), false),
            (Some("europe/paris"), false),
            (Some("Nowhere/Place"), false),
            (Some(""), false),
            (Some("posix/Europe/Paris"), false),
        ] {
            assert!(
                system_by_name(tz.map(os).as_deref(), tzdir, elsewhere).is_none(),
                "{tz:?}"
            );
        }
        assert!(system_by_name(None, false, elsewhere).is_none());
        assert!(system_by_name(None, false, no_link).is_none());
    }

    #[test]
    fn the_fast_path_agrees_with_jiff() {
        // Every day of four years (a leap year, a century that is not one, a
        // 400-year one), invalid days, months, hours, minutes and seconds
        // around the edges, with and without milliseconds.
        let mut n = 0;
        for y in [1000, 1969, 1970, 1999, 2000, 2024, 2100, 2400, 9998] {
            for m in 0..=13 {
                for d in 0..=32 {
                    for (hh, mm, ss) in
                        [(0, 0, 0), (23, 59, 59), (24, 0, 0), (12, 60, 0), (1, 2, 60)]
                    {
                        for tail in [".000Z", ".999Z", "Z", ".5Z", "+00:00", ".123+02:00"] {
                            let t = format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}{tail}");
                            let fast = utc_millis(t.as_bytes());
                            if fast.is_some() {
                                n += 1;
                                assert_eq!(fast, jiff_millis(&t), "{t}");
                            }
                            assert_eq!(parse_millis(&t), jiff_millis(&t), "{t}");
                        }
                    }
                }
            }
        }
        assert!(n > 19_000, "{n}");
        for t in [
            "2026-1x-03T15:29:17.247Z",
            "2026-10-03 15:29:17.247Z",
            "2026-10-03T15:29:17,247Z",
            "0999-01-01T00:00:00Z",
            "9999-12-31T00:00:00Z",
        ] {
            assert_eq!(utc_millis(t.as_bytes()), None, "{t}");
            assert_eq!(parse_millis(t), jiff_millis(t), "{t}");
        }
        assert_eq!(
            utc_millis(b"2026-10-03T15:29:17.247Z"),
            Some(1_791_041_357_247)
        );
    }

    #[test]
    fn parses_rfc3339_as_the_hand_written_parser_did() {
        assert_eq!(parse_millis("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_millis("1970-01-01T00:00:01.5Z"), Some(1500));
        assert_eq!(
            parse_millis("2000-03-01T00:00:00.000Z"),
            Some(951_868_800_000)
        );
        let a = parse_millis("2026-10-03T15:29:17.247Z").unwrap();
        let b = parse_millis("2026-10-03T15:29:18.596Z").unwrap();
        assert_eq!(b - a, 1349);
        assert_eq!(parse_millis("2026-10-03T17:29:17.247+02:00"), Some(a));
        assert_eq!(parse_millis("2026-10-03T15:29:17.2471234Z"), Some(a));
        assert_eq!(parse_millis("2026-10-03T15:29:17.247"), Some(a));
        assert_eq!(parse_millis("yesterday"), None);
        assert_eq!(parse_millis("<TIMESTAMP>"), None);
        assert_eq!(parse_millis("2026-13-03T15:29:17Z"), None);
        assert_eq!(parse_millis("2026-10-03T15:29:17.Z"), None);
        assert_eq!(parse_millis("2026-10-03"), None);
    }

    /// Issue 12 item 13: `stats --by day` took the first ten characters, so
    /// an offset time landed on the day written, not the day it was.
    #[test]
    fn an_offset_time_lands_on_its_real_day() {
        let t = "2026-03-01T23:30:00-05:00";
        assert_eq!(&t[..10], "2026-03-01", "what the old rule took");
        let utc = Zone::utc();
        assert_eq!(
            Day::of_timestamp(t, &utc).unwrap().to_string(),
            "2026-03-02"
        );
        let ny = Zone::named("America/New_York").unwrap();
        assert_eq!(Day::of_timestamp(t, &ny).unwrap().to_string(), "2026-03-01");
        // Summer time: the same UTC hour is another local day in July than
        // a fixed winter offset would say.
        let t = "2026-07-01T03:30:00Z";
        assert_eq!(Day::of_timestamp(t, &ny).unwrap().to_string(), "2026-06-30");
        let t = "2026-01-01T04:30:00Z";
        assert_eq!(Day::of_timestamp(t, &ny).unwrap().to_string(), "2025-12-31");
        let t = "2026-07-01T04:30:00Z";
        assert_eq!(Day::of_timestamp(t, &ny).unwrap().to_string(), "2026-07-01");
    }

    #[test]
    fn not_a_date_is_no_day() {
        let utc = Zone::utc();
        for t in ["not a date", "<TIMESTAMP>", "", "2026-10-0", "2026-10-03 x"] {
            assert_eq!(Day::of_timestamp(t, &utc), None, "{t:?}");
        }
    }

    #[test]
    fn unknown_zones_are_refused_with_a_message() {
        let e = Zone::named("Mars/Olympus").unwrap_err();
        assert!(e.to_string().contains("Mars/Olympus"));
        assert_eq!(
            Zone::named("Asia/Tokyo").unwrap().name(),
            Some("Asia/Tokyo")
        );
        // Nine hours ahead: its day starts at 15:00 UTC.
        let tokyo = Zone::named("Asia/Tokyo").unwrap();
        let at = |ms: i64| (Day::of_millis(ms, &tokyo), Day::of_millis(ms, &Zone::utc()));
        let (t, u) = at(15 * 3_600_000);
        assert_ne!(t, u);
        let (t, u) = at(15 * 3_600_000 - 1);
        assert_eq!(t, u);
    }
}
