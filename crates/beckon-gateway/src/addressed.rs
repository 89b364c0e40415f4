//! What a signed-in person may see on a team server: what is addressed to them, to one of their
//! groups, or to everyone (an admin sees everything). Anything else is as if it did not exist:
//! a 404, left out of lists, and no events about it.

use std::collections::HashMap;

use beckon_core::{Addressees, SessionId};

use crate::bodies::parse_id;
use crate::error::{ApiError, ApiResult};
use crate::permissions::Addressed;
use crate::principal::Member;
use crate::state::Shared;

/// Refuses `member` the question or session `target` names unless it is theirs to see.
pub(crate) async fn check(shared: &Shared, member: &Member, target: Addressed<'_>) -> ApiResult<()> {
    if member.admin {
        return Ok(());
    }
    match target {
        Addressed::Question(id) => {
            let id = parse_id(id)?;
            if member.sees(shared.beckon.question_audience(id).await?.as_ref()) {
                return Ok(());
            }
            Err(ApiError::from(beckon_runtime::Error::QuestionNotFound(id)))
        }
        Addressed::Session(id) => {
            // A malformed id is the handler's to refuse, as for everyone.
            let Ok(session) = SessionId::parse(id) else { return Ok(()) };
            if Audiences::default().sees(shared, member, session).await? {
                return Ok(());
            }
            Err(ApiError::from(beckon_runtime::Error::SessionNotFound(session)))
        }
    }
}

/// Remembers whose each session is while a stream or a list goes through many events or
/// questions of the same sessions.
#[derive(Debug, Default)]
pub(crate) struct Audiences {
    known: HashMap<SessionId, Addressees>,
}

impl Audiences {
    /// Whether `member` may see what concerns `session`.
    pub(crate) async fn sees(&mut self, shared: &Shared, member: &Member, session: SessionId) -> ApiResult<bool> {
        if member.admin {
            return Ok(true);
        }
        let addressees = match self.known.get(&session) {
            Some(addressees) => addressees.clone(),
            None => {
                let addressees = shared.beckon.session_addressees(session).await?;
                self.known.insert(session, addressees.clone());
                addressees
            }
        };
        Ok(addressees.include(&member.person.subject, &member.person.groups))
    }
}
