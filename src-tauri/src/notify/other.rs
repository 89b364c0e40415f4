//! Notifications on platforms without the freedesktop service: a plain notification; clicking
//! it opens the app (through its `beckon://` link handling).

use tokio::sync::mpsc;

use super::Input;
use super::plan::{Key, Show};

/// Shows notifications.
#[derive(Debug)]
pub struct Backend {
    unavailable: bool,
}

impl Backend {
    /// A backend (actions are not reported on these platforms).
    pub fn new(_actions: mpsc::UnboundedSender<Input>, _icon: String) -> Backend {
        Backend { unavailable: false }
    }

    /// Shows `show`.
    pub async fn show(&mut self, show: &Show) {
        if self.unavailable {
            return;
        }
        if let Err(err) =
            notify_rust::Notification::new().appname("Beckon").summary(&show.summary).body(&show.body).show()
        {
            tracing::warn!(%err, "notifications are unavailable; carrying on without them");
            self.unavailable = true;
        }
    }

    /// Withdrawing is not supported here; the platform expires them.
    pub async fn close(&mut self, _key: Key) {}
}
