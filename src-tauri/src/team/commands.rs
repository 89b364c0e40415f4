//! Settings › Inboxes: add a team inbox (signing in through the person's browser), sign in to
//! one again, remove one; and following every signed-in inbox from the start.

use std::time::Duration;

use beckon_gateway::team_inbox::AppSignIn;
use beckon_runtime::api::ErrorKind;
use tauri::{AppHandle, Manager};
use tauri_plugin_opener::OpenerExt;

use super::saved::SavedInbox;
use super::{Held, TeamInboxView, TeamStatus, Teams, follow, forget_secret};
use crate::command_error::{CommandError, Reply};
use crate::state::App;

/// How long a sign-in in the browser may take.
const SIGN_IN_PATIENCE: Duration = Duration::from_secs(10 * 60);

fn invalid(message: &str, field: &str) -> CommandError {
    CommandError::new(ErrorKind::InvalidInput, message, Some(field))
}

/// A team server's address as given: `https://…` (or `http://` for one on this machine or a
/// trusted network), without a path.
fn checked_url(url: &str) -> Reply<String> {
    let parsed = url::Url::parse(url.trim()).map_err(|err| invalid(&format!("not a URL: {err}"), "url"))?;
    if !matches!(parsed.scheme(), "https" | "http") || parsed.host_str().is_none() {
        return Err(invalid("must be the team server's https:// address", "url"));
    }
    Ok(parsed.as_str().trim_end_matches('/').to_owned())
}

/// Adds the team inbox at `url`, named `name`: the person's browser opens on its sign-in.
pub(crate) async fn add_team_inbox(handle: &AppHandle, app: &App, name: String, url: String) -> Reply<TeamInboxView> {
    let name = name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 60 {
        return Err(invalid("must be 1 to 60 characters", "name"));
    }
    let url = checked_url(&url)?;
    let id = {
        let mut held = app.teams.held();
        if held.values().any(|held| held.saved.name == name) {
            return Err(invalid("another inbox has this name", "name"));
        }
        let id = format!("team-{}", hex::encode(rand::random::<[u8; 6]>()));
        let saved = SavedInbox { id: id.clone(), name, url, secret: None, person: None };
        let status = TeamStatus::SignedOut { problem: None };
        held.insert(
            id.clone(),
            Held { saved, status, client: None, waiting: Default::default(), sessions: Default::default(), task: None },
        );
        app.teams.persist(&held);
        id
    };
    sign_in(handle, &app.teams, &id).await
}

/// Signs in to inbox `id` again (its sign-in ended): the person's browser opens on it.
pub(crate) async fn sign_in_team_inbox(handle: &AppHandle, app: &App, id: String) -> Reply<TeamInboxView> {
    sign_in(handle, &app.teams, &id).await
}

/// Removes inbox `id`: its questions leave the window, its session ends on the server, and its
/// secret leaves the keyring (and the file).
pub(crate) async fn remove_team_inbox(handle: &AppHandle, app: &App, id: String) -> Reply<Vec<TeamInboxView>> {
    if let Some(task) = app.teams.held().get_mut(&id).and_then(|held| held.task.take()) {
        task.abort();
    }
    follow::forget_all(handle, &id);
    let removed = {
        let mut held = app.teams.held();
        let removed =
            held.remove(&id).ok_or_else(|| CommandError::new(ErrorKind::NotFound, "no such inbox", Some("id")))?;
        app.teams.persist(&held);
        removed
    };
    forget_secret(app.teams.saved.clone(), id).await;
    if let Some(client) = removed.client
        && let Err(err) = client.sign_out().await
    {
        tracing::info!(%err, "the team server did not hear the app sign out");
    }
    app.teams.announce(handle);
    Ok(app.teams.views())
}

/// Opens the person's browser on inbox `id`'s sign-in and waits for it in the background.
async fn sign_in(handle: &AppHandle, teams: &Teams, id: &str) -> Reply<TeamInboxView> {
    let url = teams
        .held()
        .get(id)
        .map(|held| held.saved.url.clone())
        .ok_or_else(|| CommandError::new(ErrorKind::NotFound, "no such inbox", Some("id")))?;
    let begun = AppSignIn::begin(teams.http.clone(), &url)
        .await
        .map_err(|err| CommandError::new(ErrorKind::Unavailable, err.to_string(), None))?;
    handle
        .opener()
        .open_url(begun.browser_url.clone(), None::<&str>)
        .map_err(|err| CommandError::new(ErrorKind::Unavailable, format!("cannot open the browser: {err}"), None))?;
    teams.set_status(handle, id, TeamStatus::SigningIn);
    let view = teams.views().into_iter().find(|view| view.id == id);
    let (handle, id) = (handle.clone(), id.to_owned());
    tauri::async_runtime::spawn(async move {
        let finished = begun.finish(SIGN_IN_PATIENCE).await;
        let Some(state) = handle.try_state::<App>() else { return };
        match finished {
            Ok(connected) => {
                let (saved, inbox) = (state.teams.saved.clone(), id.clone());
                let keeping = tauri::async_runtime::spawn_blocking(move || saved.keep(&inbox, connected.secret));
                let secret = match keeping.await {
                    Ok(secret) => secret,
                    Err(err) => {
                        tracing::warn!(inbox = %id, %err, "a team inbox's secret could not be kept");
                        state.teams.set_status(&handle, &id, TeamStatus::SignedOut { problem: Some(err.to_string()) });
                        return;
                    }
                };
                let kept = secret.kept();
                let still_there = {
                    let mut held = state.teams.held();
                    if let Some(entry) = held.get_mut(&id) {
                        entry.saved.secret = Some(secret);
                        entry.saved.person = Some(connected.person.into());
                        entry.client = Some(connected.inbox);
                        state.teams.persist(&held);
                    }
                    held.contains_key(&id)
                };
                if !still_there {
                    // Removed while the person was signing in: its secret does not stay behind.
                    forget_secret(state.teams.saved.clone(), id).await;
                    return;
                }
                tracing::info!(inbox = %id, ?kept, "signed in to a team inbox");
                start(&handle, &state.teams, &id);
            }
            Err(err) => {
                tracing::info!(inbox = %id, %err, "a team inbox's sign-in did not finish");
                state.teams.set_status(&handle, &id, TeamStatus::SignedOut { problem: Some(err.to_string()) });
            }
        }
    });
    view.ok_or_else(|| CommandError::new(ErrorKind::NotFound, "no such inbox", Some("id")))
}

/// Follows inbox `id` (replacing a follower it had).
fn start(handle: &AppHandle, teams: &Teams, id: &str) {
    let mut held = teams.held();
    let Some(entry) = held.get_mut(id) else { return };
    let Some(client) = entry.client.clone() else { return };
    if let Some(task) = entry.task.take() {
        task.abort();
    }
    let task = tauri::async_runtime::spawn(follow::run(handle.clone(), id.to_owned(), client));
    entry.task = Some(task.inner().abort_handle());
}

/// Reads each saved inbox's secret from the keyring (moving one the file still holds into it),
/// then follows every inbox that is signed in (at start). In the background: the local inbox
/// does not wait for a keyring.
pub fn follow_all(handle: &AppHandle, teams: &Teams) {
    let mut inboxes: Vec<SavedInbox> = teams.held().values().map(|held| held.saved.clone()).collect();
    let saved = teams.saved.clone();
    let handle = handle.clone();
    tauri::async_runtime::spawn(async move {
        let fetched = tauri::async_runtime::spawn_blocking(move || {
            let moved = saved.fetch_secrets(&mut inboxes);
            (inboxes, moved)
        })
        .await;
        let (inboxes, moved) = match fetched {
            Ok(fetched) => fetched,
            Err(err) => {
                tracing::warn!(%err, "the team inboxes' secrets could not be read");
                return;
            }
        };
        let Some(state) = handle.try_state::<App>() else { return };
        for id in state.teams.secrets_fetched(inboxes, moved) {
            start(&handle, &state.teams, &id);
        }
        state.teams.announce(&handle);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_team_servers_address_is_an_http_url_with_a_host() {
        assert_eq!(checked_url(" https://beckon.acme.example/ ").unwrap(), "https://beckon.acme.example");
        assert_eq!(checked_url("http://127.0.0.1:7401").unwrap(), "http://127.0.0.1:7401");
        for bad in ["beckon.acme.example", "ftp://x.example", "file:///etc/passwd", ""] {
            assert!(checked_url(bad).is_err(), "{bad}");
        }
    }
}
