//! ISO 8601 timestamps (`2026-10-03T15:29:17.247Z`) to milliseconds since
//! the Unix epoch, without allocating.

/// Milliseconds since 1970-01-01T00:00:00Z for an RFC 3339 timestamp
/// (`YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)`); `None` if it is not one.
pub(crate) fn parse_millis(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let mut v = 0i64;
        for &c in b.get(r)? {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + i64::from(c - b'0');
        }
        Some(v)
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    if second > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            if i - start < 3 {
                millis = millis * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        let digits = i - start;
        if digits == 0 {
            return None;
        }
        for _ in digits..3 {
            millis *= 10;
        }
    }
    let offset_min = match b.get(i) {
        None => 0,
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
            let m = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
            if sign == b'+' { m } else { -m }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_min * 60;
    Some(secs * 1000 + millis)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rfc3339() {
        assert_eq!(parse_millis("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_millis("1970-01-01T00:00:01.5Z"), Some(1500));
        assert_eq!(
            parse_millis("2000-03-01T00:00:00.000Z"),
            Some(951_868_800_000)
        );
        let a = parse_millis("2026-10-03T15:29:17.247Z").unwrap();
        let b = parse_millis("2026-10-03T15:29:18.596Z").unwrap();
        assert_eq!(b - a, 1349);
        assert_eq!(
            parse_millis("2026-10-03T17:29:17.247+02:00"),
            Some(a),
            "offsets are applied"
        );
        assert_eq!(parse_millis("2026-10-03T15:29:17.2471234Z"), Some(a));
        assert_eq!(parse_millis("yesterday"), None);
        assert_eq!(parse_millis("2026-13-03T15:29:17Z"), None);
        assert_eq!(parse_millis("2026-10-03T15:29:17.Z"), None);
    }
}
