//! The `sign_ins` table (sign-ins under way, each taken at most once before it expires) and
//! `person_sessions` (signed-in browser sessions, by the SHA-256 of their cookie).

use crate::codec::{JSON_MAX_BYTES, from_json, to_json};
use crate::error::Result;
use crate::rows::{ListedSession, NewSignIn, PersonSession, SessionKind, SignedIn, TakenSignIn};
use crate::sql::{Conn, Row, args};
use crate::store::Tx;

const SESSION_COLUMNS: &str = "id_hash, subject, email, name, groups, created_at, expires_at";

/// The PostgreSQL advisory lock under which replicas trim the sign-ins, one at a time.
const SIGN_INS_LOCK: i64 = 0x6265_636b_6f6e_0001;

impl Tx<'_> {
    /// Keeps a sign-in under way until the person comes back.
    pub fn begin_sign_in(&mut self, sign_in: &NewSignIn) -> Result<()> {
        self.tx.execute(
            "INSERT INTO sign_ins (state, secret, next, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            &args![sign_in.state, sign_in.secret, sign_in.next, sign_in.at_ms, sign_in.expires_at_ms],
        )?;
        Ok(())
    }

    /// Keeps at most `max` sign-ins begun at the login page, dropping the oldest first: anyone
    /// may begin one, so their number must not grow with a flood. App codes and pairing codes
    /// (their states are `kind:`-prefixed) are a signed-in person's and are not counted.
    pub fn cap_sign_ins(&mut self, max: usize) -> Result<usize> {
        let max = i64::try_from(max).unwrap_or(i64::MAX);
        if self.tx.is_postgres() {
            // Two replicas trimming at once would each count its own new row but not the
            // other's, and keep one too many. Under this lock (held to the commit) the second
            // trim's statement starts after the first committed, and sees its row.
            self.tx.execute("SELECT pg_advisory_xact_lock(?1)", &args![SIGN_INS_LOCK])?;
        }
        self.tx.execute(
            "DELETE FROM sign_ins WHERE state IN (
                 SELECT state FROM sign_ins WHERE state NOT LIKE '%:%'
                 ORDER BY created_at DESC, state LIMIT 1000000000 OFFSET ?1
             )",
            &args![max],
        )
    }

    /// Takes the sign-in under `state` if it has not expired by `now_ms`: at most once (it is
    /// gone afterwards, expired or not).
    pub fn take_sign_in(&mut self, state: &str, now_ms: i64) -> Result<Option<TakenSignIn>> {
        let taken = self.tx.query_opt(
            "DELETE FROM sign_ins WHERE state = ?1 RETURNING secret, next, expires_at",
            &args![state],
            |row| Ok((TakenSignIn { secret: row.get(0)?, next: row.get(1)? }, row.get::<i64>(2)?)),
        )?;
        Ok(taken.and_then(|(taken, expires_at)| (expires_at > now_ms).then_some(taken)))
    }

    /// Records a signed-in browser session.
    pub fn open_person_session(&mut self, session: &PersonSession) -> Result<()> {
        let groups = to_json("a person's groups", &session.person.groups, JSON_MAX_BYTES)?;
        self.tx.execute(
            &format!("INSERT INTO person_sessions ({SESSION_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
            &args![
                session.id_hash,
                session.person.subject,
                session.person.email,
                session.person.name,
                groups,
                session.created_at_ms,
                session.expires_at_ms
            ],
        )?;
        self.refresh_channel_person(&session.person, session.created_at_ms)
    }

    /// Marks the session with this cookie hash as `kind`'s (a browser's unless marked).
    pub fn mark_person_session(&mut self, id_hash: &[u8; 32], kind: &SessionKind) -> Result<()> {
        let label = match kind {
            SessionKind::Browser => None,
            SessionKind::App { label } => Some(label.as_str()),
        };
        self.tx.execute(
            "UPDATE person_sessions SET kind = ?2, label = ?3 WHERE id_hash = ?1",
            &args![id_hash, kind.as_str(), label],
        )?;
        Ok(())
    }

    /// Ends every session of the person with `subject` (signing out everywhere, or an admin's
    /// revocation), browsers' and apps' alike; how many.
    pub fn end_person_sessions(&mut self, subject: &str) -> Result<usize> {
        self.tx.execute("DELETE FROM person_sessions WHERE subject = ?1", &args![subject])
    }

    /// Ends the browser session with this cookie hash (signing out); whether there was one.
    pub fn close_person_session(&mut self, id_hash: &[u8; 32]) -> Result<bool> {
        Ok(self.tx.execute("DELETE FROM person_sessions WHERE id_hash = ?1", &args![id_hash])? > 0)
    }

    /// Forgets sign-ins and browser sessions that expired by `now_ms`; how many.
    pub fn prune_sign_ins(&mut self, now_ms: i64) -> Result<usize> {
        let sign_ins = self.tx.execute("DELETE FROM sign_ins WHERE expires_at <= ?1", &args![now_ms])?;
        let sessions = self.tx.execute("DELETE FROM person_sessions WHERE expires_at <= ?1", &args![now_ms])?;
        Ok(sign_ins + sessions)
    }
}

/// The browser session with this cookie hash, if it is open and has not expired by `now_ms`.
pub(crate) fn person_session(conn: Conn<'_>, id_hash: &[u8; 32], now_ms: i64) -> Result<Option<PersonSession>> {
    conn.query_opt(
        &format!("SELECT {SESSION_COLUMNS} FROM person_sessions WHERE id_hash = ?1 AND expires_at > ?2"),
        &args![id_hash, now_ms],
        read_session,
    )
}

fn read_session(row: &Row<'_>) -> Result<PersonSession> {
    let hash: Vec<u8> = row.get(0)?;
    let mut id_hash = [0u8; 32];
    // The table's CHECK keeps every hash 32 bytes long.
    if hash.len() == 32 {
        id_hash.copy_from_slice(&hash);
    }
    let groups: Vec<String> = from_json("person_sessions", "groups", row.text(4)?)?;
    Ok(PersonSession {
        id_hash,
        person: SignedIn { subject: row.get(1)?, email: row.get(2)?, name: row.get(3)?, groups },
        created_at_ms: row.get(5)?,
        expires_at_ms: row.get(6)?,
    })
}

/// Every open session at `now_ms`, by subject then age, as an admin lists them.
pub(crate) fn open_sessions(conn: Conn<'_>, now_ms: i64) -> Result<Vec<ListedSession>> {
    conn.query(
        &format!(
            "SELECT {SESSION_COLUMNS}, kind, label FROM person_sessions WHERE expires_at > ?1 ORDER BY subject, created_at"
        ),
        &args![now_ms],
        |row| {
            let session = read_session(row)?;
            let kind = match (row.text(7)?, row.get::<Option<String>>(8)?) {
                ("app", label) => SessionKind::App { label: label.unwrap_or_default() },
                _ => SessionKind::Browser,
            };
            Ok(ListedSession {
                person: session.person,
                kind,
                created_at_ms: session.created_at_ms,
                expires_at_ms: session.expires_at_ms,
            })
        },
    )
}
