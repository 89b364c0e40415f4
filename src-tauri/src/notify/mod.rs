//! Notifications: the runtime tells the [`DesktopNotifier`] (on its store thread, right after
//! commit); the attention worker plans what to show and the platform backend shows it.

mod availability;
mod burst;
mod command;
#[cfg(all(unix, not(target_os = "macos")))]
mod freedesktop;
mod notice_board;
#[cfg(not(all(unix, not(target_os = "macos"))))]
mod other;
pub mod plan;

use beckon_core::{Notice, RequestId};
use beckon_runtime::{Notifier, PendingNotice, ResolvedNotice};
use tokio::sync::{mpsc, oneshot};

#[cfg(all(unix, not(target_os = "macos")))]
pub use freedesktop::Backend;
#[cfg(not(all(unix, not(target_os = "macos"))))]
pub use other::Backend;

/// What the attention worker hears.
#[derive(Debug)]
pub enum Input {
    /// A question became pending.
    Pending(Box<PendingNotice>),
    /// A question of a team inbox began waiting: notified as a local one, answered there.
    TeamPending(Box<PendingNotice>, beckon_gateway::team_inbox::TeamInbox),
    /// A question was resolved (or a team inbox's stopped waiting).
    Resolved(RequestId),
    /// An agent outside Beckon waits at its own prompt.
    NoticePosted(Box<Notice>),
    /// That agent went on (the notice's key).
    NoticeCleared(String),
    /// "Do not disturb" was turned on or off.
    DoNotDisturb(bool),
    /// The reminder interval changed (minutes, 0: off).
    Reminder(u32),
    /// The person acted on a notification: its key and the action ("default", "answer:0").
    Action(plan::Key, String),
    /// The person asked for a test notification: shown at once, and whether the notification
    /// service took it (or why not) goes back on the sender.
    Test(oneshot::Sender<Result<(), String>>),
}

/// The runtime's notifier for the desktop: hands every notice to the attention worker.
#[derive(Debug, Clone)]
pub struct DesktopNotifier {
    inputs: mpsc::UnboundedSender<Input>,
}

impl DesktopNotifier {
    /// A notifier feeding `inputs`.
    pub fn new(inputs: mpsc::UnboundedSender<Input>) -> Self {
        DesktopNotifier { inputs }
    }
}

impl Notifier for DesktopNotifier {
    fn question_pending(&self, notice: &PendingNotice) {
        let _ = self.inputs.send(Input::Pending(Box::new(notice.clone())));
    }

    fn question_resolved(&self, notice: &ResolvedNotice) {
        let _ = self.inputs.send(Input::Resolved(notice.request_id));
    }

    fn notice_posted(&self, notice: &Notice) {
        let _ = self.inputs.send(Input::NoticePosted(Box::new(notice.clone())));
    }

    fn notice_cleared(&self, key: &str) {
        let _ = self.inputs.send(Input::NoticeCleared(key.to_owned()));
    }
}
