//! Bringing the window forward at a place: from a notification, the tray or a link.

use beckon_runtime::Beckon;
use tauri::{AppHandle, Emitter};

use crate::dto::NavTarget;

/// The event the window listens to.
pub const EVENT: &str = "navigate";

/// Checks that the question or session a target names exists; a target naming nothing
/// becomes a message instead.
pub async fn checked(beckon: &Beckon, target: NavTarget) -> NavTarget {
    match &target {
        NavTarget::Question { id } if beckon.inbox().question(*id).await.is_err() => {
            NavTarget::Problem { message: format!("There is no question {id} (it may have been deleted).") }
        }
        NavTarget::Session { id } if beckon.inbox().session(*id).await.is_err() => {
            NavTarget::Problem { message: format!("There is no session {id} (it may have been deleted).") }
        }
        _ => target,
    }
}

/// Shows, unminimises and focuses the main window, wherever it is. A window that was never
/// shown (Beckon started hidden at login) is shown for the first time here, and one that was
/// released is made again.
pub fn raise(app: &AppHandle) {
    crate::window::show(app);
}

/// Shows, unminimises and focuses the main window, then tells it where to go.
pub fn go(app: &AppHandle, target: NavTarget) {
    tracing::info!(?target, "navigating");
    raise(app);
    crate::state::remember_navigation(app, target.clone());
    if let Err(err) = app.emit_to(crate::window::LABEL, EVENT, target) {
        tracing::warn!(%err, "cannot tell the window where to go");
    }
}
