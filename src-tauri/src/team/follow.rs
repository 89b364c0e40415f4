//! Following one team inbox: read what waits (the window's `bootstrap`), then its events; each
//! question that begins waiting is notified and counted as a local one is, each that stops is
//! withdrawn, and the window is told. A broken connection is read again after a pause that grows
//! to half a minute; an ended sign-in stops the following until the person signs in again.

use std::time::Duration;

use beckon_core::RequestId;
use beckon_gateway::client::ClientError;
use beckon_gateway::team_inbox::TeamInbox;
use beckon_runtime::api::ErrorKind;
use beckon_runtime::api::window::{NoArgs, OfQuestion, WindowCommand};
use beckon_runtime::{PendingNotice, WindowSnapshot};
use beckon_store::{InboxEntry, PendingQuestion, QuestionRecord};
use tauri::{AppHandle, Manager};

use super::TeamStatus;
use crate::notify::Input;
use crate::state::App;

/// The longest pause between attempts to reach an unreachable inbox.
const BACKOFF_MAX: Duration = Duration::from_secs(30);

/// Follows inbox `id` with `client` until its sign-in ends or the task is stopped.
pub async fn run(app: AppHandle, id: String, client: TeamInbox) {
    let mut backoff = Duration::from_secs(1);
    loop {
        let Some(state) = app.try_state::<App>() else { return };
        state.teams.set_status(&app, &id, TeamStatus::Connecting);
        match follow_once(&app, &id, &client).await {
            // The stream ended (a server restart, a proxy's timeout): read again at once.
            Ok(()) => backoff = Duration::from_secs(1),
            Err(err) if err.kind() == Some(ErrorKind::Unauthorized) => {
                tracing::info!(inbox = %id, %err, "a team inbox's sign-in ended");
                forget_all(&app, &id);
                state.teams.set_status(&app, &id, TeamStatus::SignedOut { problem: Some(err.to_string()) });
                return;
            }
            Err(err) => {
                tracing::info!(inbox = %id, %err, "a team inbox cannot be reached; trying again");
                state.teams.set_status(&app, &id, TeamStatus::Unreachable { problem: err.to_string() });
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF_MAX);
            }
        }
    }
}

/// One connection: what waits, then events until the stream ends.
async fn follow_once(app: &AppHandle, id: &str, client: &TeamInbox) -> Result<(), ClientError> {
    let snapshot: WindowSnapshot = client.call(&WindowCommand::Bootstrap(NoArgs {})).await?;
    let mut events = client.events(snapshot.last_seq).await?;
    let Some(state) = app.try_state::<App>() else { return Ok(()) };
    let known: Vec<RequestId> =
        state.teams.held().get(id).map(|held| held.waiting.keys().copied().collect()).unwrap_or_default();
    for gone in known.iter().filter(|known| !snapshot.pending.iter().any(|entry| entry.id == **known)) {
        resolved(app, id, *gone);
    }
    for entry in snapshot.pending {
        if known.contains(&entry.id) {
            continue;
        }
        // The list carries lines; a notification needs the question whole. One settled since
        // the list was read is gone (its event follows).
        match client
            .call::<QuestionRecord>(&WindowCommand::GetQuestion(OfQuestion { request_id: entry.id.to_string() }))
            .await
        {
            Ok(record) => pending(app, id, client, entry, notice_of_record(record)),
            Err(err) if err.kind() == Some(ErrorKind::NotFound) => {}
            Err(err) => return Err(err),
        }
    }
    state.teams.set_status(app, id, TeamStatus::Live);
    while let Some(event) = events.next().await? {
        if let Some(question) = event.pending() {
            if let Some((entry, notice)) = entry_of(question) {
                pending(app, id, client, entry, notice);
            }
        } else if let Some(gone) = event.resolved() {
            resolved(app, id, gone);
        }
    }
    Ok(())
}

fn pending(app: &AppHandle, id: &str, client: &TeamInbox, entry: InboxEntry, notice: PendingNotice) {
    let Some(state) = app.try_state::<App>() else { return };
    {
        let mut held = state.teams.held();
        let Some(held) = held.get_mut(id) else { return };
        if held.waiting.insert(entry.id, entry).is_some() {
            return;
        }
        held.sessions.insert(notice.session_id);
    }
    let _ = state.attention.send(Input::TeamPending(Box::new(notice), client.clone()));
    state.teams.announce(app);
}

fn resolved(app: &AppHandle, id: &str, question: RequestId) {
    let Some(state) = app.try_state::<App>() else { return };
    let gone = state.teams.held().get_mut(id).and_then(|held| held.waiting.remove(&question)).is_some();
    if gone {
        let _ = state.attention.send(Input::Resolved(question));
        state.teams.announce(app);
    }
}

/// Withdraws every question of inbox `id` (its sign-in ended, or it is being removed).
pub fn forget_all(app: &AppHandle, id: &str) {
    let Some(state) = app.try_state::<App>() else { return };
    let waiting: Vec<RequestId> =
        state.teams.held().get(id).map(|held| held.waiting.keys().copied().collect()).unwrap_or_default();
    for question in waiting {
        resolved(app, id, question);
    }
}

/// The inbox's line and the notification's text for a question now waiting.
fn entry_of(question: PendingQuestion) -> Option<(InboxEntry, PendingNotice)> {
    let notice =
        PendingNotice::try_from(question).map_err(|err| tracing::warn!(%err, "a team question cannot be read")).ok()?;
    let line = serde_json::value::to_raw_value(&notice.request.inbox_line()).ok()?;
    let entry = InboxEntry {
        id: notice.request_id,
        session_id: notice.session_id,
        agent: notice.agent.clone(),
        origin: notice.origin.clone(),
        line_json: line,
        created_at_ms: notice.created_at_ms,
        expires_at_ms: notice.expires_at_ms,
    };
    Some((entry, notice))
}

fn notice_of_record(record: QuestionRecord) -> PendingNotice {
    PendingNotice {
        request_id: record.id,
        session_id: record.session_id,
        agent: record.agent,
        origin: record.origin,
        request: record.request,
        created_at_ms: record.created_at_ms,
        expires_at_ms: record.expires_at_ms,
    }
}
