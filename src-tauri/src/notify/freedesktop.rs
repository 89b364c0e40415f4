//! Notifications through the freedesktop Notifications service on the session bus, with
//! buttons. Agent text is escaped when the service renders markup. Without a session bus or
//! a notification service, the first failure is logged once and nothing else changes.

use std::collections::HashMap;
use std::sync::Arc;

use notify_rust::{Notification, NotificationHandle, NotificationResponse, Timeout};
use tokio::sync::mpsc;

use super::Input;
use super::plan::{Key, Show};

/// The app's name as notifications show it.
const APP_NAME: &str = "Beckon";

/// Shows and withdraws notifications.
pub struct Backend {
    shown: HashMap<Key, Arc<NotificationHandle>>,
    actions: mpsc::UnboundedSender<Input>,
    markup: Option<bool>,
    unavailable: bool,
    icon: String,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend").field("shown", &self.shown.len()).field("unavailable", &self.unavailable).finish()
    }
}

/// Escapes the few characters freedesktop body markup interprets.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

impl Backend {
    /// A backend reporting actions to `actions`; `icon` is the app icon's path.
    pub fn new(actions: mpsc::UnboundedSender<Input>, icon: String) -> Backend {
        Backend { shown: HashMap::new(), actions, markup: None, unavailable: false, icon }
    }

    async fn renders_markup(&mut self) -> bool {
        if let Some(markup) = self.markup {
            return markup;
        }
        let markup =
            notify_rust::get_capabilities().map(|caps| caps.iter().any(|c| c == "body-markup")).unwrap_or(false);
        self.markup = Some(markup);
        markup
    }

    /// Shows `show`, replacing what is shown under its key.
    pub async fn show(&mut self, show: &Show) {
        if self.unavailable {
            return;
        }
        let markup = self.renders_markup().await;
        let body = if markup { escape(&show.body) } else { show.body.clone() };
        let mut notification = Notification::new();
        notification.appname(APP_NAME).summary(&show.summary).body(&body).icon(&self.icon).timeout(Timeout::Never);
        notification.action("default", "Open");
        for (key, label) in &show.buttons {
            notification.action(key, label);
        }
        if let Some(previous) = self.shown.get(&show.key) {
            notification.id(previous.id());
        }
        match notification.show_async().await {
            Ok(handle) => {
                tracing::info!(id = handle.id(), key = ?show.key, "notification shown");
                let handle = Arc::new(handle);
                self.shown.insert(show.key, handle.clone());
                let (actions, key) = (self.actions.clone(), show.key);
                tokio::spawn(async move {
                    handle
                        .wait_for_action_async(|response| {
                            let action = match response {
                                NotificationResponse::Default => Some("default".to_owned()),
                                NotificationResponse::Action(action) => Some(action.clone()),
                                _ => None,
                            };
                            if let Some(action) = action {
                                let _ = actions.send(Input::Action(key, action));
                            }
                        })
                        .await;
                });
            }
            Err(err) => {
                tracing::warn!(%err, "notifications are unavailable (no session bus or notification service); carrying on without them");
                self.unavailable = true;
            }
        }
    }

    /// Withdraws what is shown under `key`.
    pub async fn close(&mut self, key: Key) {
        if let Some(handle) = self.shown.remove(&key) {
            tracing::info!(id = handle.id(), ?key, "notification withdrawn");
            handle.close_async().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_is_escaped() {
        assert_eq!(escape("<img src=x onerror=alert(1)> & <b>"), "&lt;img src=x onerror=alert(1)&gt; &amp; &lt;b&gt;");
    }
}
