//! Settings › Inboxes: add a team inbox (signing in through the person's browser), sign in to
//! one again, remove one; and following every signed-in inbox from the start.

use std::time::Duration;

use beckon_gateway::team_inbox::AppSignIn;
use beckon_runtime::api::ErrorKind;
use tauri::{AppHandle, Manager, State};
use tauri_plugin_opener::OpenerExt;

use super::saved::SavedInbox;
use super::{Held, TeamInboxView, TeamState, TeamStatus, Teams, follow};
use crate::commands::CommandError;
use crate::state::App;

/// How long a sign-in in the browser may take.
const SIGN_IN_PATIENCE: Duration = Duration::from_secs(10 * 60);

type Reply<T> = Result<T, CommandError>;

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

/// The team inboxes, where each stands, and what waits in them.
#[tauri::command]
pub fn team_inboxes(app: State<'_, App>) -> TeamState {
    app.teams.state()
}

/// Adds the team inbox at `url`, named `name`: the person's browser opens on its sign-in.
#[tauri::command]
pub async fn add_team_inbox(handle: AppHandle, app: State<'_, App>, name: String, url: String) -> Reply<TeamInboxView> {
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
    sign_in(&handle, &app.teams, &id).await
}

/// Signs in to inbox `id` again (its sign-in ended): the person's browser opens on it.
#[tauri::command]
pub async fn sign_in_team_inbox(handle: AppHandle, app: State<'_, App>, id: String) -> Reply<TeamInboxView> {
    sign_in(&handle, &app.teams, &id).await
}

/// Removes inbox `id`: its questions leave the window, and its session ends on the server.
#[tauri::command]
pub async fn remove_team_inbox(handle: AppHandle, app: State<'_, App>, id: String) -> Reply<Vec<TeamInboxView>> {
    if let Some(task) = app.teams.held().get_mut(&id).and_then(|held| held.task.take()) {
        task.abort();
    }
    follow::forget_all(&handle, &id);
    let removed = {
        let mut held = app.teams.held();
        let removed =
            held.remove(&id).ok_or_else(|| CommandError::new(ErrorKind::NotFound, "no such inbox", Some("id")))?;
        app.teams.persist(&held);
        removed
    };
    if let Some(client) = removed.client
        && let Err(err) = client.sign_out().await
    {
        tracing::info!(%err, "the team server did not hear the app sign out");
    }
    app.teams.announce(&handle);
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
                {
                    let mut held = state.teams.held();
                    let Some(entry) = held.get_mut(&id) else { return };
                    entry.saved.secret = Some(connected.secret);
                    entry.saved.person = Some(connected.person.into());
                    entry.client = Some(connected.inbox);
                    state.teams.persist(&held);
                }
                tracing::info!(inbox = %id, "signed in to a team inbox");
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

/// Follows every inbox that is signed in (at start).
pub fn follow_all(handle: &AppHandle, teams: &Teams) {
    let ids: Vec<String> =
        teams.held().iter().filter(|(_, held)| held.client.is_some()).map(|(id, _)| id.clone()).collect();
    for id in ids {
        start(handle, teams, &id);
    }
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
