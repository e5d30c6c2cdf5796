//! Civil dates and timestamps: days from a proleptic Gregorian date and back, RFC 3339
//! timestamps as the Paperless API writes them reduced to microseconds since the Unix epoch (so
//! they compare correctly across time-zone offsets) and written back as UTC, and the lenient
//! parse of document dates that clustering uses to pick a primary.

/// Microseconds since 1970-01-01T00:00:00Z.
pub type Micros = i64;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (inverse of [`days_from_civil`]).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

fn num(s: &[u8]) -> Option<i64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` (a space instead of `T` is accepted).
/// Returns `None` for anything else, including a date without a time.
pub fn parse_rfc3339(s: &str) -> Option<Micros> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d) = (num(&b[0..4])?, num(&b[5..7])?, num(&b[8..10])?);
    let (h, mi, sec) = (num(&b[11..13])?, num(&b[14..16])?, num(&b[17..19])?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut micros = 0i64;
    if b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let frac = &b[start..i];
        if frac.is_empty() {
            return None;
        }
        // Keep microseconds; finer digits are dropped (Paperless writes six).
        for k in 0..6 {
            micros = micros * 10 + frac.get(k).map_or(0, |c| i64::from(c - b'0'));
        }
    }
    let offset_secs = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
            let v = num(&b[i + 1..i + 3])? * 3600 + num(&b[i + 4..i + 6])? * 60;
            if *sign == b'+' {
                v
            } else {
                -v
            }
        }
        _ => return None,
    };
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec - offset_secs;
    Some(secs * 1_000_000 + micros)
}

/// Formats as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, no `+` that a query string could mangle).
pub fn format_utc(t: Micros) -> String {
    let secs = t.div_euclid(1_000_000);
    let micros = t.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Formats seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_utc_secs(secs: i64) -> String {
    let s = format_utc(secs * 1_000_000);
    format!("{}Z", &s[..19])
}

/// Parses an RFC 3339 timestamp (`2026-01-16T08:00:00+01:00`, `...Z`, fractions allowed)
/// or a plain date (`2026-01-15`, taken as midnight UTC) into seconds since the epoch.
pub fn parse_timestamp(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    if b.len() == 10 {
        return Some(days * 86_400);
    }
    if b.len() < 19 || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        rest = &frac[digits..];
    }
    let offset = match rest {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let hm = rest[1..].replace(':', "");
            if hm.len() != 4 || !hm.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            sign * (hm[0..2].parse::<i64>().ok()? * 3600 + hm[2..4].parse::<i64>().ok()? * 60)
        }
    };
    Some(days * 86_400 + h * 3600 + mi * 60 + sec - offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_offsets_to_the_same_instant() {
        let a = parse_rfc3339("2026-02-01T10:22:33.123456+01:00").unwrap();
        let b = parse_rfc3339("2026-02-01T09:22:33.123456Z").unwrap();
        assert_eq!(a, b);
        assert_eq!(format_utc(a), "2026-02-01T09:22:33.123456Z");
    }

    #[test]
    fn round_trips_and_orders() {
        for s in [
            "1970-01-01T00:00:00.000000Z",
            "2000-02-29T23:59:59.999999Z",
            "2026-11-23T03:34:17.000001Z",
            "1969-12-31T23:59:59.500000Z",
        ] {
            assert_eq!(format_utc(parse_rfc3339(s).unwrap()), s);
        }
        assert!(
            parse_rfc3339("2026-01-01T00:00:00-05:00").unwrap()
                > parse_rfc3339("2026-01-01T04:59:59Z").unwrap()
        );
        assert_eq!(
            parse_rfc3339("2026-01-01 00:00:00.5+00:00").unwrap() % 1_000_000,
            500_000
        );
    }

    #[test]
    fn rejects_garbage() {
        for s in [
            "",
            "2026-01-01",
            "2026-01-01T00:00:00",
            "2026-13-01T00:00:00Z",
            "2026-01-01T00:00:00+0100",
            "2026-01-01T00:00:00.Z",
            "x026-01-01T00:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(s), None, "{s}");
        }
        assert_eq!(format_utc_secs(0), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn parses_timestamps() {
        assert_eq!(parse_timestamp("1970-01-02"), Some(86_400));
        assert_eq!(parse_timestamp("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_timestamp("1970-01-01T00:00:10.123456Z"), Some(10));
        assert_eq!(
            parse_timestamp("2026-02-01T10:22:33.123456+01:00"),
            Some(1_769_937_753)
        );
        assert_eq!(parse_timestamp("yesterday"), None);
        assert_eq!(parse_timestamp("2026-13-01"), None);
    }
}
