//! Sessions left mid-turn: by this runtime's previous run (resumed at start), or, on a team
//! server, by a replica that died (adopted once its lease on them has run out). Every replica
//! looks for them once per lease length; the lease decides which replica's task runs each.

use std::sync::Arc;

use beckon_core::SessionOrigin;
use beckon_core::conversation::SessionStatus;
use beckon_store::SessionRecord;

use super::shared::Executor;
use crate::stop::Stop;

/// The work a session's task holds on a team server.
pub(crate) fn session_work(session: beckon_core::SessionId) -> String {
    format!("{SESSION_PREFIX}{session}")
}

const SESSION_PREFIX: &str = "session:";

/// Sessions Beckon runs that owe something and that no replica holds at `now_ms`.
pub(crate) fn unheld(store: &beckon_store::Store, now_ms: i64) -> beckon_store::Result<Vec<SessionRecord>> {
    let mut sessions = store.read().sessions_with_status(SessionStatus::Running)?;
    sessions.extend(store.read().waiting_parents()?);
    let held: std::collections::HashSet<String> =
        store.read().leases_held(SESSION_PREFIX, now_ms)?.into_iter().map(|lease| lease.work).collect();
    sessions.retain(|session| session.origin != SessionOrigin::External && !held.contains(&session_work(session.id)));
    Ok(sessions)
}

/// Starts a task for each session in `sessions` this runtime does not run yet.
pub(crate) fn resume(ex: &Arc<Executor>, sessions: &[SessionRecord]) {
    for session in sessions {
        super::recover(ex, session.id, &session.state, None);
    }
}

/// On a team server: every lease length, adopts the sessions no replica holds (their replica
/// died) until the runtime stops.
pub(crate) async fn adopt(ex: Arc<Executor>, stop: Stop) {
    let every = ex.leases.lease();
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = stop.stopping() => return,
        }
        let now = ex.clock.now_ms();
        match ex.db.call(move |store| unheld(store, now)).await {
            Ok(sessions) if sessions.is_empty() => {}
            Ok(sessions) => {
                tracing::info!(sessions = sessions.len(), "taking up sessions no replica holds");
                resume(&ex, &sessions);
            }
            Err(err) => tracing::warn!(%err, "cannot look for sessions no replica holds"),
        }
    }
}
