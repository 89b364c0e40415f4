//! Sizes written by people: `512`, `64KB`, `100MB`, `2GB` (each unit 1024 times the one before;
//! `KiB`, `MiB` and `GiB` are read the same).

/// Reads a size such as `100MB`, `64 KiB` or `4096` (bytes) into bytes.
pub fn parse_size_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let amount: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a size; write a number and a unit such as 64KB or 100MB"))?;
    let unit_bytes: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(format!("{:?} is not a size unit; use B, KB, MB or GB", unit.trim())),
    };
    amount.checked_mul(unit_bytes).ok_or_else(|| format!("{text:?} is too large a size"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_size_bytes("4096"), Ok(4096));
        assert_eq!(parse_size_bytes("10B"), Ok(10));
        assert_eq!(parse_size_bytes("64KB"), Ok(64 * 1024));
        assert_eq!(parse_size_bytes(" 100 MB "), Ok(100 * 1024 * 1024));
        assert_eq!(parse_size_bytes("2gib"), Ok(2 << 30));
    }

    #[test]
    fn refusals_say_what_to_write() {
        assert!(parse_size_bytes("lots").unwrap_err().contains("such as 64KB"));
        assert!(parse_size_bytes("3TB").unwrap_err().contains("use B, KB, MB or GB"));
        assert!(parse_size_bytes("-5MB").is_err());
        assert!(parse_size_bytes("99999999999999999999GB").is_err());
    }
}
