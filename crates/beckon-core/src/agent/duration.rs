//! Durations written by people: `90s`, `15m`, `2h`, `7d`, or a bare number of seconds.

/// Reads a duration such as `90s`, `15m`, `2h`, `1d` or `45` (seconds) into milliseconds.
pub fn parse_duration_ms(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let amount: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a duration; write a number and a unit such as 90s, 15m, 2h or 7d"))?;
    let unit_ms: u64 = match unit.trim() {
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        other => return Err(format!("{other:?} is not a duration unit; use s, m, h or d")),
    };
    amount.checked_mul(unit_ms).ok_or_else(|| format!("{text:?} is too long a duration"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_duration_ms("45"), Ok(45_000));
        assert_eq!(parse_duration_ms("90s"), Ok(90_000));
        assert_eq!(parse_duration_ms("15m"), Ok(900_000));
        assert_eq!(parse_duration_ms(" 2h "), Ok(7_200_000));
        assert_eq!(parse_duration_ms("7d"), Ok(604_800_000));
    }

    #[test]
    fn refusals_say_what_to_write() {
        assert!(parse_duration_ms("soon").unwrap_err().contains("such as 90s"));
        assert!(parse_duration_ms("3w").unwrap_err().contains("use s, m, h or d"));
        assert!(parse_duration_ms("-5m").is_err());
        assert!(parse_duration_ms("99999999999999999999d").is_err());
    }
}
