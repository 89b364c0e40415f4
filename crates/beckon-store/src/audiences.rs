//! The `session_audiences` table: whose a session's questions are on a team server (a person
//! or a group), fixed by the first question that names one. A session without a row is
//! everyone's.

use beckon_core::{Addressees, Audience, RequestId, SessionId};

use crate::error::Result;
use crate::sql::{Conn, args};
use crate::store::Tx;
use crate::tokens::audience;

impl Tx<'_> {
    /// Addresses `session` to `audience` unless it is already addressed: the audience it has
    /// afterwards (the earlier one when there was one).
    pub fn address_session(&mut self, session: SessionId, audience: &Audience) -> Result<Audience> {
        self.tx.execute(
            "INSERT INTO session_audiences (session_id, audience) VALUES (?1, ?2) ON CONFLICT (session_id) DO NOTHING",
            &args![session.to_string(), audience.to_string()],
        )?;
        Ok(session_audience(self.tx, session)?.unwrap_or_else(|| audience.clone()))
    }
}

/// Whose `session` is; `None` when it is everyone's.
pub(crate) fn session_audience(conn: Conn<'_>, session: SessionId) -> Result<Option<Audience>> {
    let text = conn.query_opt(
        "SELECT audience FROM session_audiences WHERE session_id = ?1",
        &args![session.to_string()],
        |row| row.get::<String>(0),
    )?;
    text.map(|text| audience("session_audiences", "audience", &text)).transpose()
}

/// Who may see `session`: its audience, everyone when it has none, nobody when there is no
/// such session (a retention pass may have removed it while its events were being read).
pub(crate) fn session_addressees(conn: Conn<'_>, session: SessionId) -> Result<Addressees> {
    let found = conn.query_opt(
        "SELECT a.audience FROM sessions s LEFT JOIN session_audiences a ON a.session_id = s.id WHERE s.id = ?1",
        &args![session.to_string()],
        |row| row.get::<Option<String>>(0),
    )?;
    Ok(match found {
        None => Addressees::Gone,
        Some(None) => Addressees::Everyone,
        Some(Some(text)) => Addressees::Only(audience("session_audiences", "audience", &text)?),
    })
}

/// Whose question `request` is (its session's audience); `None` when it is everyone's or there
/// is no such question.
pub(crate) fn question_audience(conn: Conn<'_>, request: RequestId) -> Result<Option<Audience>> {
    let text = conn.query_opt(
        "SELECT a.audience FROM questions q JOIN session_audiences a ON a.session_id = q.session_id WHERE q.id = ?1",
        &args![request.to_string()],
        |row| row.get::<String>(0),
    )?;
    text.map(|text| audience("session_audiences", "audience", &text)).transpose()
}
