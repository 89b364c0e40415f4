//! The `channel_people` table: people on a team server who paired their own Slack member or
//! Telegram chat. One account per person on each channel and one person per account: pairing
//! again replaces whatever either side was paired with.

use crate::codec::{JSON_MAX_BYTES, from_json, to_json};
use crate::error::Result;
use crate::rows::{ChannelPerson, SignedIn};
use crate::sql::{Conn, Row, args};
use crate::store::Tx;

const COLUMNS: &str = "channel, account, subject, email, name, groups, paired_at, signed_in_at";

fn read_person(row: &Row<'_>) -> Result<ChannelPerson> {
    let groups: Vec<String> = from_json("channel_people", "groups", row.text(5)?)?;
    Ok(ChannelPerson {
        channel: row.get(0)?,
        account: row.get(1)?,
        person: SignedIn { subject: row.get(2)?, email: row.get(3)?, name: row.get(4)?, groups },
        paired_at_ms: row.get(6)?,
        signed_in_at_ms: row.get(7)?,
    })
}

impl Tx<'_> {
    /// Pairs `person` with `account` on `channel`, in place of any account they had there and
    /// any person that account was paired with.
    pub fn pair_channel_person(&mut self, paired: &ChannelPerson) -> Result<()> {
        let groups = to_json("a person's groups", &paired.person.groups, JSON_MAX_BYTES)?;
        self.tx.execute(
            "DELETE FROM channel_people WHERE channel = ?1 AND (account = ?2 OR subject = ?3)",
            &args![paired.channel, paired.account, paired.person.subject],
        )?;
        self.tx.execute(
            &format!("INSERT INTO channel_people ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
            &args![
                paired.channel,
                paired.account,
                paired.person.subject,
                paired.person.email,
                paired.person.name,
                groups,
                paired.paired_at_ms,
                paired.signed_in_at_ms
            ],
        )?;
        Ok(())
    }

    /// Forgets the account `subject` paired on `channel`; whether there was one.
    pub fn unpair_channel_person(&mut self, channel: &str, subject: &str) -> Result<bool> {
        let removed = self
            .tx
            .execute("DELETE FROM channel_people WHERE channel = ?1 AND subject = ?2", &args![channel, subject])?;
        Ok(removed > 0)
    }

    /// What the identity provider says of `person` now (they signed in again at `at_ms`), on
    /// every channel they paired: their name, email and groups, and when they last signed in.
    pub fn refresh_channel_person(&mut self, person: &SignedIn, at_ms: i64) -> Result<()> {
        let groups = to_json("a person's groups", &person.groups, JSON_MAX_BYTES)?;
        self.tx.execute(
            "UPDATE channel_people SET email = ?2, name = ?3, groups = ?4, signed_in_at = ?5 WHERE subject = ?1",
            &args![person.subject, person.email, person.name, groups, at_ms],
        )?;
        Ok(())
    }

    /// Forgets every account `subject` paired, on every channel; how many.
    pub fn unpair_person(&mut self, subject: &str) -> Result<usize> {
        self.tx.execute("DELETE FROM channel_people WHERE subject = ?1", &args![subject])
    }
}

/// The person paired with `account` on `channel`.
pub(crate) fn by_account(conn: Conn<'_>, channel: &str, account: &str) -> Result<Option<ChannelPerson>> {
    conn.query_opt(
        &format!("SELECT {COLUMNS} FROM channel_people WHERE channel = ?1 AND account = ?2"),
        &args![channel, account],
        read_person,
    )
}

/// The account `subject` paired on `channel`.
pub(crate) fn by_subject(conn: Conn<'_>, channel: &str, subject: &str) -> Result<Option<ChannelPerson>> {
    conn.query_opt(
        &format!("SELECT {COLUMNS} FROM channel_people WHERE channel = ?1 AND subject = ?2"),
        &args![channel, subject],
        read_person,
    )
}

/// Everyone paired on any channel, by subject then channel.
pub(crate) fn everyone(conn: Conn<'_>) -> Result<Vec<ChannelPerson>> {
    conn.query(&format!("SELECT {COLUMNS} FROM channel_people ORDER BY subject, channel"), &[], read_person)
}

/// Everyone paired on `channel`, by subject.
pub(crate) fn all(conn: Conn<'_>, channel: &str) -> Result<Vec<ChannelPerson>> {
    conn.query(
        &format!("SELECT {COLUMNS} FROM channel_people WHERE channel = ?1 ORDER BY subject"),
        &args![channel],
        read_person,
    )
}
