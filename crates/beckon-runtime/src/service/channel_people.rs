//! People on a team server pairing their own Slack member or Telegram chat. A signed-in person
//! asks for a code on their page and sends it to the channel's bot; the bot hears it from their
//! account, and from then on a press there is theirs, under the same audience rules as their
//! window. The code is kept only as its SHA-256 (with the sign-ins under way: a code is a
//! sign-in by another road), is good for [`SIGN_IN_LIFETIME_MS`], and is taken at its first use.
//! Wrong codes are counted, and past a limit codes are not read at all (see
//! [`super::pairing_guesses`]).

use beckon_api::{ChannelPairingCode, PairedChannel};
use beckon_store::{ChannelPerson, SignedIn};
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::handle::Beckon;
use super::pairing_guesses::{self, Misses, WrongCodeLimit};
use super::people::{People, SIGN_IN_LIFETIME_MS};
use crate::clock::Clock;
use crate::config::RuntimeConfig;
use crate::error::Result;
use crate::runtime::Records;
use crate::token_secret;

/// Letters and digits no one confuses when copying (no 0/O, 1/I/L, 5/S, 2/Z, 8/B).
const CODE_ALPHABET: &[u8] = b"ACDEFGHJKMNPQRTUVWXY34679";
/// Characters in a code: 25^8 ≈ 1.5·10^11 codes.
const CODE_CHARS: usize = 8;

/// What became of a code sent to a channel's bot to pair the account that sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChannelPairing {
    /// The account is paired with whoever asked for the code.
    Paired(ChannelPerson),
    /// The code is unknown, used or expired: a wrong code, counted against the account and the
    /// channel.
    NoSuchCode,
    /// The code was not looked up: too many wrong codes came lately from the account, or to the
    /// channel.
    NotRead(WrongCodeLimit),
}

/// Who asked for a code, as kept until it is used.
#[derive(Serialize, Deserialize)]
struct Asker {
    subject: String,
    email: Option<String>,
    name: Option<String>,
    groups: Vec<String>,
}

/// A fresh code from [`CODE_ALPHABET`] (the generator is not held across an await).
pub fn pairing_code() -> String {
    let mut rng = rand::rng();
    (0..CODE_CHARS).map(|_| char::from(CODE_ALPHABET[rng.random_range(0..CODE_ALPHABET.len())])).collect()
}

/// Where the code for `channel` is kept: its hash, never the code.
fn filed(channel: &str, code: &str) -> String {
    format!("pair:{channel}:{}", hex::encode(token_secret::hash(&code.trim().to_ascii_uppercase())))
}

/// People on a team server pairing their own accounts on Slack and Telegram.
#[derive(Debug, Clone, Copy)]
pub struct Pairings<'a> {
    records: &'a Records,
    clock: &'a dyn Clock,
    /// How long a pairing answers for its person after they last signed in.
    config: &'a RuntimeConfig,
}

impl Beckon {
    /// People's pairings on the channels.
    pub fn pairings(&self) -> Pairings<'_> {
        Pairings { records: &self.rt.records, clock: &*self.rt.clock, config: &self.rt.config }
    }
}

impl Pairings<'_> {
    /// A new code for `person` to pair their own account on `channel` with, good for
    /// [`SIGN_IN_LIFETIME_MS`].
    pub async fn new_code(self, channel: &str, person: &SignedIn) -> Result<ChannelPairingCode> {
        let code = pairing_code();
        let asker = Asker {
            subject: person.subject.clone(),
            email: person.email.clone(),
            name: person.name.clone(),
            groups: person.groups.clone(),
        };
        // Plain strings: serialising cannot fail.
        let kept = serde_json::to_string(&asker).unwrap_or_default();
        People { records: self.records, clock: self.clock, config: self.config }
            .begin_sign_in(filed(channel, &code), kept, String::new())
            .await?;
        let expires_at_ms = self.clock.now_ms().saturating_add(SIGN_IN_LIFETIME_MS);
        Ok(ChannelPairingCode { channel: channel.to_owned(), code, expires_at_ms })
    }

    /// Pairs `account` on `channel` with whoever asked for `code`, once. It replaces any account
    /// that person had there, and any person that account was paired with. A code that pairs
    /// nothing is counted against the account and the channel; past their limits the code is
    /// not looked up. The counts, the code and the pairing are read and written in one
    /// transaction.
    pub async fn pair(self, channel: &str, account: &str, code: &str) -> Result<ChannelPairing> {
        let now_ms = self.clock.now_ms();
        let (kept_channel, kept_account, state) = (channel.to_owned(), account.to_owned(), filed(channel, code));
        let outcome = self
            .records
            .write(move |tx| {
                let (channel, account) = (kept_channel.as_str(), kept_account.as_str());
                let (account_since, channel_since) = pairing_guesses::counted_since(now_ms);
                let misses = Misses {
                    account: tx.read().pairing_misses(channel, Some(account), account_since)?,
                    channel: tx.read().pairing_misses(channel, None, channel_since)?,
                };
                if let Some(limit) = pairing_guesses::reached(misses) {
                    return Ok(ChannelPairing::NotRead(limit));
                }
                let asker = tx
                    .take_sign_in(&state, now_ms)?
                    .and_then(|taken| serde_json::from_str::<Asker>(&taken.secret).ok());
                let Some(asker) = asker else {
                    tx.record_pairing_miss(channel, account, now_ms, pairing_guesses::forgotten_before(now_ms))?;
                    return Ok(ChannelPairing::NoSuchCode);
                };
                let paired = ChannelPerson {
                    channel: kept_channel.clone(),
                    account: kept_account.clone(),
                    person: SignedIn {
                        subject: asker.subject,
                        email: asker.email,
                        name: asker.name,
                        groups: asker.groups,
                    },
                    paired_at_ms: now_ms,
                    // Pairing follows a sign-in moments before (the code came from their page).
                    signed_in_at_ms: now_ms,
                };
                tx.pair_channel_person(&paired)?;
                Ok(ChannelPairing::Paired(paired))
            })
            .await?;
        match &outcome {
            ChannelPairing::Paired(paired) => {
                tracing::info!(channel, subject = %paired.person.subject, "a person paired their own account");
            }
            ChannelPairing::NoSuchCode => tracing::info!(channel, "a code that pairs nothing"),
            ChannelPairing::NotRead(limit) => {
                tracing::warn!(channel, ?limit, "a pairing code was not read: too many wrong codes lately");
            }
        }
        Ok(outcome)
    }

    /// Forgets the account `subject` paired on `channel`; whether there was one.
    pub async fn unpair(self, channel: &str, subject: &str) -> Result<bool> {
        let (channel, subject) = (channel.to_owned(), subject.to_owned());
        self.records.write(move |tx| tx.unpair_channel_person(&channel, &subject)).await
    }

    /// The person paired with `account` on `channel`, while the pairing answers for them: they
    /// signed in within the server's pairing window. A pairing past it is kept (signing in again
    /// brings it back) but stands for no one.
    pub async fn person(self, channel: &str, account: &str) -> Result<Option<ChannelPerson>> {
        let (channel, account) = (channel.to_owned(), account.to_owned());
        let paired = self.records.call(move |store| store.read().channel_person(&channel, &account)).await?;
        Ok(paired.filter(|paired| self.pairing_answers(paired)))
    }

    /// Whether `paired`'s person signed in recently enough for the pairing to answer for them.
    fn pairing_answers(self, paired: &ChannelPerson) -> bool {
        let window = i64::try_from(self.config.pairing_window.as_millis()).unwrap_or(i64::MAX);
        paired.signed_in_at_ms >= self.clock.now_ms().saturating_sub(window)
    }

    /// Every pairing on every channel, as an admin lists them, whether it answers now or not.
    pub async fn all(self) -> Result<Vec<(ChannelPerson, bool)>> {
        let all = self.records.call(move |store| store.read().all_channel_people()).await?;
        Ok(all
            .into_iter()
            .map(|paired| {
                let answers = self.pairing_answers(&paired);
                (paired, answers)
            })
            .collect())
    }

    /// Forgets every account the person with `subject` paired, on every channel; how many.
    pub async fn unpair_person(self, subject: &str) -> Result<usize> {
        let subject = subject.to_owned();
        self.records.write(move |tx| tx.unpair_person(&subject)).await
    }

    /// The account `subject` paired on `channel`.
    pub async fn account(self, channel: &str, subject: &str) -> Result<Option<ChannelPerson>> {
        let (channel, subject) = (channel.to_owned(), subject.to_owned());
        self.records.call(move |store| store.read().channel_account(&channel, &subject)).await
    }

    /// Where `subject` stands on each of `channels`.
    pub async fn paired_channels(self, subject: &str, channels: &[String]) -> Result<Vec<PairedChannel>> {
        let mut paired = Vec::with_capacity(channels.len());
        for channel in channels {
            let account = self.account(channel, subject).await?;
            paired.push(PairedChannel {
                channel: channel.clone(),
                paired_at_ms: account.as_ref().map(|account| account.paired_at_ms),
                account: account.map(|account| account.account),
            });
        }
        Ok(paired)
    }

    /// Everyone paired on `channel` whose pairing answers for them now (see
    /// [`Pairings::person`]): their own messages get what is addressed to them.
    pub async fn people(self, channel: &str) -> Result<Vec<ChannelPerson>> {
        let channel = channel.to_owned();
        let all = self.records.call(move |store| store.read().channel_people(&channel)).await?;
        Ok(all.into_iter().filter(|paired| self.pairing_answers(paired)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_eight_unmistakable_characters_and_filed_by_its_hash() {
        let code = pairing_code();
        assert_eq!(code.len(), CODE_CHARS);
        assert!(code.bytes().all(|c| CODE_ALPHABET.contains(&c)), "{code}");
        let kept = filed("slack", &code);
        assert!(!kept.contains(&code), "the code itself is not kept");
        assert_eq!(kept, filed("slack", &format!(" {} ", code.to_ascii_lowercase())), "read as typed");
        assert_ne!(kept, filed("telegram", &code), "a code is good on its own channel only");
    }
}
