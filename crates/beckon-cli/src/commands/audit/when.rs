//! The times `beckon audit --since/--until` take: a date, a UTC time, Unix milliseconds, or a
//! span back from now — read against a `now` passed in.

/// Reads `text` as a moment in Unix milliseconds, spans counted back from `now_ms`.
pub fn parse(text: &str, now_ms: i64) -> Result<i64, String> {
    let text = text.trim();
    let refuse = || {
        format!(
            "{text:?} is not a time: give a date (2026-11-01), a UTC time (2026-11-01T09:30:00Z), Unix milliseconds, or a span back from now (90m, 12h, 7d)"
        )
    };
    if let Some(span) = span_ms(text) {
        return span.map(|span| now_ms.saturating_sub(span)).ok_or_else(refuse);
    }
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().map_err(|_| refuse());
    }
    civil_ms(text).ok_or_else(refuse)
}

/// A span like `90m`, `12h`, `7d`, `2w` in milliseconds: `None` when `text` is not one,
/// `Some(None)` when it is one too large.
fn span_ms(text: &str) -> Option<Option<i64>> {
    let unit = text.chars().last()?;
    let per = match unit {
        's' => 1_000,
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => 86_400_000,
        'w' => 7 * 86_400_000,
        _ => return None,
    };
    let count = &text[..text.len() - 1];
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(count.parse::<i64>().ok().and_then(|count| count.checked_mul(per)))
}

/// `YYYY-MM-DD`, or that with `THH:MM[:SS]` and `Z`, in Unix milliseconds.
fn civil_ms(text: &str) -> Option<i64> {
    let (date, time) = match text.split_once(['T', ' ']) {
        Some((date, time)) => (date, Some(time.strip_suffix('Z').or_else(|| time.strip_suffix('z'))?)),
        None => (text, None),
    };
    let mut parts = date.split('-');
    let (year, month, day) = (number(parts.next()?, 4)?, number(parts.next()?, 2)?, number(parts.next()?, 2)?);
    if parts.next().is_some() || !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let seconds = match time {
        None => 0,
        Some(time) => {
            let mut parts = time.split(':');
            let (hour, minute) = (number(parts.next()?, 2)?, number(parts.next()?, 2)?);
            let second = match parts.next() {
                Some(second) => number(second, 2)?,
                None => 0,
            };
            if parts.next().is_some() || hour > 23 || minute > 59 || second > 59 {
                return None;
            }
            hour * 3_600 + minute * 60 + second
        }
    };
    Some((days_from_civil(year, month, day) * 86_400 + seconds) * 1_000)
}

/// Exactly `digits` ASCII digits as a number.
fn number(text: &str, digits: usize) -> Option<i64> {
    (text.len() == digits && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok())?
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_795_000_000_000;

    #[test]
    fn dates_and_times_are_utc() {
        assert_eq!(parse("1970-01-01", NOW), Ok(0));
        assert_eq!(parse("2000-03-01", NOW), Ok(951_868_800_000));
        assert_eq!(parse("2026-11-01T09:30:00Z", NOW), Ok(1_793_525_400_000));
        assert_eq!(parse("2026-11-01T09:30Z", NOW), Ok(1_793_525_400_000));
        assert_eq!(parse("2024-02-29", NOW), Ok(1_709_164_800_000));
    }

    #[test]
    fn spans_count_back_from_now() {
        assert_eq!(parse("90m", NOW), Ok(NOW - 90 * 60_000));
        assert_eq!(parse("7d", NOW), Ok(NOW - 7 * 86_400_000));
        assert_eq!(parse("1234", NOW), Ok(1234));
    }

    #[test]
    fn anything_else_is_refused_with_the_forms_it_takes() {
        for bad in
            ["", "yesterday", "2026-13-01", "2023-02-29", "2026-11-01T25:00Z", "2026-11-01T09:30", "7y", "d", "-5d"]
        {
            let err = parse(bad, NOW).unwrap_err();
            assert!(err.contains("span back from now"), "{bad}: {err}");
        }
        assert!(parse("99999999999999999999d", NOW).is_err());
    }
}
