//! The string formats a free-form answer may be held to: `email`, `uri`, `date`, `date-time`.

/// A JSON-Schema string `format` Beckon checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StringFormat {
    /// An email address, `name@example.com`.
    Email,
    /// An absolute URI with a scheme, `https://example.com/x`.
    Uri,
    /// A calendar date, `2026-11-22` (RFC 3339 full-date).
    Date,
    /// A date and time with an offset, `2026-11-22T14:30:00Z` (RFC 3339 date-time).
    DateTime,
}

impl StringFormat {
    /// Every format, for messages.
    pub const ALL: [StringFormat; 4] = [Self::Email, Self::Uri, Self::Date, Self::DateTime];

    /// The keyword value, as written in a schema.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Uri => "uri",
            Self::Date => "date",
            Self::DateTime => "date-time",
        }
    }

    /// Reads the keyword value.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == text)
    }

    /// What a valid value looks like, for messages.
    pub fn example(self) -> &'static str {
        match self {
            Self::Email => "an email address such as name@example.com",
            Self::Uri => "an absolute URI such as https://example.com/page",
            Self::Date => "a date such as 2026-11-22",
            Self::DateTime => "a date and time with an offset such as 2026-11-22T14:30:00Z",
        }
    }

    /// Whether `text` is in this format.
    pub fn matches(self, text: &str) -> bool {
        match self {
            Self::Email => is_email(text),
            Self::Uri => is_uri(text),
            Self::Date => is_date(text),
            Self::DateTime => is_date_time(text),
        }
    }
}

fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else { return false };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && local.chars().all(|c| !c.is_whitespace() && !c.is_control() && !"<>()[]\\,;:@\"".contains(c));
    let domain_ok = domain.len() <= 253
        && domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        });
    local_ok && domain_ok
}

fn is_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else { return false };
    let mut scheme_chars = scheme.chars();
    let scheme_ok = scheme_chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme_chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    scheme_ok && !rest.is_empty() && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn digits(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(&text[0..4]), digits(&text[5..7]), digits(&text[8..10])) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days_in_month).contains(&day)
}

fn is_time_of_day(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() < 8 || bytes[2] != b':' || bytes[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) = (digits(&text[0..2]), digits(&text[3..5]), digits(&text[6..8]))
    else {
        return false;
    };
    let fraction_ok = match &text[8..] {
        "" => true,
        fraction => fraction.strip_prefix('.').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())),
    };
    hour <= 23 && minute <= 59 && second <= 60 && fraction_ok
}

fn is_offset(text: &str) -> bool {
    if text.eq_ignore_ascii_case("z") {
        return true;
    }
    let bytes = text.as_bytes();
    bytes.len() == 6
        && matches!(bytes[0], b'+' | b'-')
        && bytes[3] == b':'
        && digits(&text[1..3]).is_some_and(|h| h <= 23)
        && digits(&text[4..6]).is_some_and(|m| m <= 59)
}

fn is_date_time(text: &str) -> bool {
    let Some((date, time)) = text.split_once(['T', 't']) else { return false };
    let offset_at = time.find(['Z', 'z', '+', '-']).unwrap_or(time.len());
    let (clock, offset) = time.split_at(offset_at);
    is_date(date) && is_time_of_day(clock) && is_offset(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        for good in ["name@example.com", "a.b+c@sub.example.co.uk", "ü@bücher.de"] {
            assert!(StringFormat::Email.matches(good), "{good}");
        }
        for bad in ["", "name", "@example.com", "name@", "name@localhost", "a b@example.com", "a@-x.com", "a@x..com"] {
            assert!(!StringFormat::Email.matches(bad), "{bad}");
        }
    }

    #[test]
    fn uris() {
        for good in ["https://example.com", "mailto:a@b.c", "urn:isbn:0451450523", "beckon://inbox"] {
            assert!(StringFormat::Uri.matches(good), "{good}");
        }
        for bad in ["", "example.com", "://x", "1http://x", "https://exa mple.com", "https:"] {
            assert!(!StringFormat::Uri.matches(bad), "{bad}");
        }
    }

    #[test]
    fn dates_follow_the_calendar() {
        for good in ["2026-11-22", "2024-02-29", "2000-02-29", "0001-01-01"] {
            assert!(StringFormat::Date.matches(good), "{good}");
        }
        for bad in [
            "2026-02-29",
            "1900-02-29",
            "2026-13-01",
            "2026-04-31",
            "2026-1-01",
            "26-11-22",
            "2026/11/22",
            "2026-11-22T",
        ] {
            assert!(!StringFormat::Date.matches(bad), "{bad}");
        }
    }

    #[test]
    fn date_times_need_an_offset() {
        for good in ["2026-11-22T14:30:00Z", "2026-11-22t14:30:00.123+01:00", "2026-12-31T23:59:60-05:30"] {
            assert!(StringFormat::DateTime.matches(good), "{good}");
        }
        for bad in [
            "2026-11-22T14:30:00",
            "2026-11-22 14:30:00Z",
            "2026-11-22T24:00:00Z",
            "2026-11-22T14:30Z",
            "2026-11-22T14:30:00.Z",
            "2026-11-22T14:30:00+0100",
        ] {
            assert!(!StringFormat::DateTime.matches(bad), "{bad}");
        }
    }

    #[test]
    fn keyword_round_trip() {
        for format in StringFormat::ALL {
            assert_eq!(StringFormat::parse(format.as_str()), Some(format));
        }
        assert_eq!(StringFormat::parse("hostname"), None);
    }
}
