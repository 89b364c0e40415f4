//! Notifications on platforms without the freedesktop service: a plain notification; clicking
//! it opens the app (through its `beckon://` link handling). A failure waits before the next
//! try (see [`Availability`]), so notifications come back by themselves.

use std::time::Instant;

use tokio::sync::mpsc;

use super::Input;
use super::availability::{Availability, Change};
use super::command::{Key, Show};

/// Shows notifications.
#[derive(Debug)]
pub struct Backend {
    availability: Availability,
}

impl Backend {
    /// A backend (actions are not reported on these platforms).
    pub fn new(_actions: mpsc::UnboundedSender<Input>, _icon: String) -> Backend {
        Backend { availability: Availability::default() }
    }

    /// Shows `show`.
    pub async fn show(&mut self, show: &Show) {
        // The clock is read here, at the edge; the pacing itself is plain logic.
        let now = Instant::now();
        if !self.availability.may_try(now) {
            return;
        }
        let _ = self.deliver(show, now);
    }

    /// Shows `show` at once, even while waiting after a failure (the person asked for it), and
    /// says whether the platform took it.
    pub async fn show_now(&mut self, show: &Show) -> Result<(), String> {
        self.deliver(show, Instant::now())
    }

    fn deliver(&mut self, show: &Show, now: Instant) -> Result<(), String> {
        match notify_rust::Notification::new().appname("Beckon").summary(&show.summary).body(&show.body).show() {
            Ok(_) => {
                if self.availability.worked() == Change::Back {
                    tracing::info!("notifications work again");
                }
                Ok(())
            }
            Err(err) => {
                if self.availability.failed(now) == Change::Lost {
                    tracing::warn!(%err, "notifications are unavailable; trying again later, less often each time");
                }
                Err(err.to_string())
            }
        }
    }

    /// Withdrawing is not supported here; the platform expires them.
    pub async fn close(&mut self, _key: Key) {}
}
