//! The app's log as `BECKON_LOG=info` prints it on standard output: one line an event, each
//! starting with the time it was written (RFC 3339, UTC, as `tracing_subscriber::fmt` writes
//! it), perhaps in terminal colours.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What the app logs when a window's page has loaded and runs.
pub const PAGE_RAN: &str = "a window subscribed to events";
/// What the app logs when it released the hidden window's WebView.
pub const RELEASED: &str = "released the window's WebView";
/// What the app logs once it gave back what drawing the window took.
pub const GAVE_BACK: &str = "gave back what the window took";

/// `line` without its terminal colours (`ESC [ … letter`).
pub fn plain(line: &str) -> String {
    let mut text = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // The sequence runs to its final letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            text.push(c);
        }
    }
    text
}

/// When `line` was written, from its leading timestamp (`2026-11-29T11:09:00.123456Z`).
pub fn written_at(line: &str) -> Option<SystemTime> {
    let line = plain(line);
    let stamp = line.split_whitespace().next()?.strip_suffix('Z')?;
    let (date, time) = stamp.split_once('T')?;
    let mut date = date.splitn(3, '-').map(str::parse::<i64>);
    let (year, month, day) = (date.next()?.ok()?, date.next()?.ok()?, date.next()?.ok()?);
    let mut time = time.splitn(3, ':');
    let hours: u64 = time.next()?.parse().ok()?;
    let minutes: u64 = time.next()?.parse().ok()?;
    let seconds: f64 = time.next()?.parse().ok()?;
    let days = u64::try_from(days_from_civil(year, month, day)).ok()?;
    let whole = days * 86_400 + hours * 3_600 + minutes * 60;
    Some(UNIX_EPOCH + Duration::from_secs(whole) + Duration::try_from_secs_f64(seconds).ok()?)
}

/// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The first line of `lines` holding `text`, after the first `skip` such lines.
pub fn nth_holding(lines: &[String], text: &str, skip: usize) -> Option<String> {
    lines.iter().filter(|line| line.contains(text)).nth(skip).cloned()
}

/// How many of `lines` hold `text`.
pub fn count_holding(lines: &[String], text: &str) -> usize {
    lines.iter().filter(|line| line.contains(text)).count()
}
