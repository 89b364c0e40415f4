//! Team inboxes: the desktop connected to team servers as the person (Settings › Inboxes). Each
//! inbox is signed in through the person's browser ([`beckon_gateway::team_inbox::AppSignIn`]),
//! then followed ([`follow`]): its questions are shown beside the local ones (marked with the
//! inbox's name), notified and counted in the tray like them, and answered on the team server as
//! the person — from the window (the window's commands send a team question's calls there) or
//! from a notification. A signed-out, expired or unreachable inbox says so; an unreachable one
//! tries again by itself, a signed-out one after the person signs in again.
//!
//! Each inbox's session secret is kept in the OS keyring where there is one ([`saved`]); the
//! keyring is asked on blocking threads, and at start in the background: one that takes its
//! time (a prompt to unlock it) holds up its inboxes, not the app.

pub mod commands;
mod follow;
pub mod saved;
#[cfg(test)]
#[cfg(target_os = "linux")]
mod secret_service_tests;
pub mod secrets;
pub(crate) mod window_call;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use beckon_core::{RequestId, SessionId};
use beckon_gateway::team_inbox::TeamInbox;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Emitter};
use tokio::task::AbortHandle;

use saved::{Saved, SavedInbox};
use secrets::OsKeyring;

/// The window event that carries team inboxes' news.
pub const TEAM_EVENT: &str = "team";

/// Where an inbox stands.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum TeamStatus {
    /// Waiting for the person to finish signing in, in their browser.
    SigningIn,
    /// Reading the inbox.
    Connecting,
    /// Following it.
    Live,
    /// Its sign-in ended (signed out, expired, or never finished): the person signs in again.
    SignedOut {
        /// Why.
        problem: Option<String>,
    },
    /// The server cannot be reached; tried again by itself.
    Unreachable {
        /// What went wrong.
        problem: String,
    },
}

/// An inbox as Settings and the window show it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamInboxView {
    pub id: String,
    pub name: String,
    pub url: String,
    /// Who it is signed in as (their name, else address, else subject).
    pub signed_in_as: Option<String>,
    pub status: TeamStatus,
}

/// What the window knows of team inboxes: each and where it stands, and every question waiting
/// in them (sent whole whenever something changes: a person's share is small).
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct TeamState {
    pub inboxes: Vec<TeamInboxView>,
    pub waiting: Vec<TeamWaiting>,
}

/// A question waiting in a team inbox, as the inbox's list shows it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct TeamWaiting {
    /// The inbox's name.
    pub inbox: String,
    pub entry: beckon_store::InboxEntry,
}

/// One inbox as the app holds it.
struct Held {
    saved: SavedInbox,
    status: TeamStatus,
    client: Option<TeamInbox>,
    /// Its questions waiting now, and the sessions they were asked in.
    waiting: BTreeMap<RequestId, beckon_store::InboxEntry>,
    sessions: HashSet<SessionId>,
    task: Option<AbortHandle>,
}

/// Every team inbox.
pub struct Teams {
    saved: Arc<Saved>,
    http: reqwest::Client,
    held: Mutex<BTreeMap<String, Held>>,
}

impl std::fmt::Debug for Teams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Teams").field("saved", &self.saved).finish_non_exhaustive()
    }
}

fn view(held: &Held) -> TeamInboxView {
    let person = held.saved.person.as_ref();
    TeamInboxView {
        id: held.saved.id.clone(),
        name: held.saved.name.clone(),
        url: held.saved.url.clone(),
        signed_in_as: person.map(|p| p.name.clone().or(p.email.clone()).unwrap_or(p.subject.clone())),
        status: held.status.clone(),
    }
}

impl Teams {
    /// The inboxes saved in `data_dir`, as the file has them: their secrets are read from the
    /// keyring, and they are followed, by [`commands::follow_all`]. Till then each is
    /// connecting.
    pub fn load(data_dir: PathBuf, http: reqwest::Client) -> Teams {
        let saved = Arc::new(Saved::new(&data_dir, Arc::new(OsKeyring)));
        let held = saved
            .read()
            .into_iter()
            .map(|saved| {
                let status = TeamStatus::Connecting;
                let waiting = BTreeMap::new();
                (saved.id.clone(), Held { saved, status, client: None, waiting, sessions: HashSet::new(), task: None })
            })
            .collect();
        Teams { saved, http, held: Mutex::new(held) }
    }

    /// Takes the inboxes with their secrets as [`Saved::fetch_secrets`] completed them (at
    /// start), `moved` when a secret moved out of the file into the keyring: each inbox untouched
    /// since is signed in or out by it. The ones signed in, to be followed.
    fn secrets_fetched(&self, fetched: Vec<SavedInbox>, moved: bool) -> Vec<String> {
        let mut signed_in = Vec::new();
        let mut removed = Vec::new();
        {
            let mut held = self.held();
            for inbox in fetched {
                let Some(entry) = held.get_mut(&inbox.id) else {
                    removed.push(inbox.id);
                    continue;
                };
                // Signed in (or signing in) again meanwhile: that sign-in is the newer.
                if entry.client.is_some() || entry.status != TeamStatus::Connecting {
                    continue;
                }
                entry.client = inbox
                    .secret
                    .as_ref()
                    .map(|secret| TeamInbox::new(self.http.clone(), &inbox.url, secret.value().into()));
                if entry.client.is_some() {
                    signed_in.push(inbox.id.clone());
                } else {
                    entry.status = TeamStatus::SignedOut { problem: None };
                }
                entry.saved = inbox;
            }
            if moved {
                self.persist(&held);
            }
        }
        // Removed while its secret was being read: a secret just moved into the keyring goes.
        for id in removed {
            let saved = self.saved.clone();
            tauri::async_runtime::spawn(async move { forget_secret(saved, id).await });
        }
        signed_in
    }

    fn held(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Held>> {
        self.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Every inbox, as the window shows it.
    pub fn views(&self) -> Vec<TeamInboxView> {
        self.held().values().map(view).collect()
    }

    /// The inbox that question `id` waits in, if it is a team inbox's.
    pub fn owner_of(&self, id: RequestId) -> Option<TeamInbox> {
        self.held().values().find(|held| held.waiting.contains_key(&id)).and_then(|held| held.client.clone())
    }

    /// The inbox that session `id` belongs to, if it is a team inbox's.
    pub fn owner_of_session(&self, id: SessionId) -> Option<TeamInbox> {
        self.held().values().find(|held| held.sessions.contains(&id)).and_then(|held| held.client.clone())
    }

    fn persist(&self, held: &BTreeMap<String, Held>) {
        let saved: Vec<SavedInbox> = held.values().map(|held| held.saved.clone()).collect();
        if let Err(err) = self.saved.save(&saved) {
            tracing::warn!(%err, "cannot save the team inboxes");
        }
    }

    /// The inboxes and what waits in them.
    pub fn state(&self) -> TeamState {
        let held = self.held();
        let waiting = held
            .values()
            .flat_map(|held| {
                held.waiting.values().map(|entry| TeamWaiting { inbox: held.saved.name.clone(), entry: entry.clone() })
            })
            .collect();
        TeamState { inboxes: held.values().map(view).collect(), waiting }
    }

    /// Tells the window where every inbox stands and what waits in them.
    fn announce(&self, app: &AppHandle) {
        if let Err(err) = app.emit_to(crate::window::LABEL, TEAM_EVENT, self.state()) {
            tracing::warn!(%err, "cannot tell the window about the team inboxes");
        }
    }

    /// Sets inbox `id`'s status, and tells the window.
    fn set_status(&self, app: &AppHandle, id: &str, status: TeamStatus) {
        if let Some(held) = self.held().get_mut(id) {
            held.status = status;
        }
        self.announce(app);
    }
}

/// Deletes inbox `id`'s secret from the keyring (it is removed), on a blocking thread.
async fn forget_secret(saved: Arc<Saved>, id: String) {
    let forgotten = tauri::async_runtime::spawn_blocking(move || saved.forget(&id).map_err(|err| (id, err))).await;
    // Said at info: without a keyring (the secret was in the file) this fails every time.
    match forgotten {
        Ok(Ok(())) => {}
        Ok(Err((id, err))) => {
            tracing::info!(inbox = %id, %err, "the OS keyring did not delete a removed team inbox's secret")
        }
        Err(err) => tracing::info!(%err, "the OS keyring did not delete a removed team inbox's secret"),
    }
}
