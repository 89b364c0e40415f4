//! How many wrong pairing codes a channel's bot takes before it stops reading codes. A code is
//! 8 characters of 25 (about 1.5·10^11 codes), good for ten minutes and taken at its first use,
//! but anyone who can write to the bot can send codes, and unlimited guesses add up. So:
//!
//! - one account (a Slack member, a Telegram chat) may send [`PER_ACCOUNT`] wrong codes within
//!   [`ACCOUNT_WINDOW_MS`]; past that no code from it is even looked up — a right one neither,
//!   so a guess that happens to be right teaches nothing — until its oldest miss leaves the
//!   window;
//! - the channel takes [`PER_CHANNEL`] wrong codes from every account together within
//!   [`CHANNEL_WINDOW_MS`], so many accounts guessing together are held as one: a year of
//!   guessing at that rate tries about 2.6 million of the codes, which would find a code live
//!   all year with a chance of about one in 58,000 (and a code lives ten minutes). The price:
//!   someone who guesses on purpose holds everyone's pairing on that channel back for up to an
//!   hour.
//!
//! The misses are counted in the database (`pairing_misses`), so the limits hold whichever
//! replica runs the channel, before and after its lease moves. The time is the runtime's clock,
//! read by the caller and passed in.

use std::time::Duration;

/// Wrong codes one account may send within [`ACCOUNT_WINDOW_MS`].
pub(crate) const PER_ACCOUNT: i64 = 5;
/// The window an account's wrong codes are counted in: ten minutes.
pub(crate) const ACCOUNT_WINDOW_MS: i64 = 10 * 60 * 1000;
/// Wrong codes a channel takes from every account together within [`CHANNEL_WINDOW_MS`].
pub(crate) const PER_CHANNEL: i64 = 300;
/// The window a channel's wrong codes are counted in: an hour.
pub(crate) const CHANNEL_WINDOW_MS: i64 = 60 * 60 * 1000;

/// The limit that kept a code from being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WrongCodeLimit {
    /// Too many wrong codes from the account that sent it.
    Account,
    /// Too many wrong codes to the channel, from every account together.
    Channel,
}

impl WrongCodeLimit {
    /// The longest a code is not read for once the limit is reached: its window.
    pub fn window(self) -> Duration {
        let window_ms = match self {
            WrongCodeLimit::Account => ACCOUNT_WINDOW_MS,
            WrongCodeLimit::Channel => CHANNEL_WINDOW_MS,
        };
        Duration::from_millis(window_ms.unsigned_abs())
    }
}

/// Wrong codes counted at one moment: from the account within its window, and to the channel
/// within its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Misses {
    pub(crate) account: i64,
    pub(crate) channel: i64,
}

/// From when the account's and the channel's misses count, at `now_ms`.
pub(crate) fn counted_since(now_ms: i64) -> (i64, i64) {
    (now_ms.saturating_sub(ACCOUNT_WINDOW_MS), now_ms.saturating_sub(CHANNEL_WINDOW_MS))
}

/// Before when a channel's misses count in no window, at `now_ms`: they can be forgotten.
pub(crate) fn forgotten_before(now_ms: i64) -> i64 {
    now_ms.saturating_sub(ACCOUNT_WINDOW_MS.max(CHANNEL_WINDOW_MS))
}

/// The limit `misses` have reached, if any: then the code is not read.
pub(crate) fn reached(misses: Misses) -> Option<WrongCodeLimit> {
    if misses.account >= PER_ACCOUNT {
        Some(WrongCodeLimit::Account)
    } else if misses.channel >= PER_CHANNEL {
        Some(WrongCodeLimit::Channel)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_read_until_the_account_or_the_channel_reaches_its_limit() {
        assert_eq!(reached(Misses { account: 0, channel: 0 }), None);
        assert_eq!(reached(Misses { account: PER_ACCOUNT - 1, channel: PER_CHANNEL - 1 }), None);
        assert_eq!(reached(Misses { account: PER_ACCOUNT, channel: 0 }), Some(WrongCodeLimit::Account));
        assert_eq!(reached(Misses { account: 0, channel: PER_CHANNEL }), Some(WrongCodeLimit::Channel));
        assert_eq!(reached(Misses { account: PER_ACCOUNT, channel: PER_CHANNEL }), Some(WrongCodeLimit::Account));
    }

    #[test]
    fn windows_are_ten_minutes_for_an_account_and_an_hour_for_a_channel() {
        assert_eq!(WrongCodeLimit::Account.window(), Duration::from_secs(600));
        assert_eq!(WrongCodeLimit::Channel.window(), Duration::from_secs(3600));
        assert_eq!(counted_since(4_000_000), (3_400_000, 400_000));
        assert_eq!(forgotten_before(4_000_000), 400_000);
    }
}
