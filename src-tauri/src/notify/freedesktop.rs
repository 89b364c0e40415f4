//! Notifications through the freedesktop Notifications service on the session bus, with
//! buttons. Agent text is escaped when the service renders markup (it says so as the
//! `body-markup` capability; dunst's `markup = strip` and `full` both do), so a command reads
//! exactly as it is: markup would hide tags, and escaping for a service that shows bodies
//! verbatim would show `&amp;` where the command has `&`.
//!
//! Defended against:
//! - Leaking bus connections: one connection serves every notification the app shows, and one
//!   listener on it hears the service's signals, however many notifications are replaced or
//!   withdrawn.
//! - Forged clicks: any program on the session bus can emit `ActionInvoked`, and ids are small
//!   numbers. An action counts only when the signal comes from the connection that owns
//!   `org.freedesktop.Notifications` right now, names a notification the app shows and has
//!   not closed, and is one of the actions that notification offered (an approval's offers no
//!   "Allow always", and no "Allow" when it cannot show the whole call).
//! - A missing service: a failure waits before the next try, longer each time (see
//!   [`Availability`]), and notifications come back by themselves; each change is logged once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use zbus::message::Type;
use zbus::{Connection, MatchRule, Message, MessageStream};

use super::Input;
use super::availability::{Availability, Change};
use super::command::{Key, Show};

/// The app's name as notifications show it.
const APP_NAME: &str = "Beckon";
/// The service's well-known name, object and interface.
const SERVICE: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
/// `expire_timeout` for a notification that stays until acted on or withdrawn.
const NEVER_EXPIRES: i32 = 0;

/// What a notification shown now stands for, and the actions it offered.
#[derive(Debug, Clone)]
struct Offered {
    key: Key,
    actions: Vec<String>,
}

/// Which notification ids the app shows now, and for what: the listener reads it to tell a
/// live notification's action from anything else.
type Showing = Arc<Mutex<HashMap<u32, Offered>>>;

/// The action keys `show` offers, in the order the service gets them with their labels.
fn actions(show: &Show) -> Vec<(&str, &str)> {
    let mut actions = if show.opens { vec![("default", "Open")] } else { Vec::new() };
    actions.extend(show.buttons.iter().map(|(key, label)| (key.as_str(), label.as_str())));
    actions
}

/// The app's one connection to the bus, and the listener on it.
#[derive(Debug)]
struct Bus {
    connection: Connection,
    listener: JoinHandle<()>,
}

impl Drop for Bus {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

/// Shows and withdraws notifications.
pub struct Backend {
    bus: Option<Bus>,
    shown: HashMap<Key, u32>,
    showing: Showing,
    actions: mpsc::UnboundedSender<Input>,
    markup: Option<bool>,
    availability: Availability,
    icon: String,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("shown", &self.shown.len())
            .field("availability", &self.availability)
            .finish_non_exhaustive()
    }
}

/// Escapes the few characters freedesktop body markup interprets.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

impl Backend {
    /// A backend reporting actions to `actions`; `icon` is the app icon's path.
    pub fn new(actions: mpsc::UnboundedSender<Input>, icon: String) -> Backend {
        Backend {
            bus: None,
            shown: HashMap::new(),
            showing: Arc::default(),
            actions,
            markup: None,
            availability: Availability::default(),
            icon,
        }
    }

    /// The app's connection, made (with its listener) on first use or after a failure.
    async fn connection(&mut self) -> zbus::Result<Connection> {
        if let Some(bus) = &self.bus {
            return Ok(bus.connection.clone());
        }
        let connection = Connection::session().await?;
        // Subscribed before anything is shown, so no signal of ours can be missed.
        let rule = MatchRule::builder().msg_type(Type::Signal).interface(SERVICE).path(PATH).build()?;
        let signals = MessageStream::for_match_rule(rule, &connection, None).await?;
        let listener = tokio::spawn(listen(connection.clone(), signals, self.showing.clone(), self.actions.clone()));
        self.bus = Some(Bus { connection: connection.clone(), listener });
        Ok(connection)
    }

    async fn renders_markup(&mut self, connection: &Connection) -> bool {
        if let Some(markup) = self.markup {
            return markup;
        }
        let capabilities = connection.call_method(Some(SERVICE), PATH, Some(SERVICE), "GetCapabilities", &()).await;
        let markup = capabilities
            .and_then(|reply| reply.body().deserialize::<Vec<String>>())
            .is_ok_and(|caps| caps.iter().any(|c| c == "body-markup"));
        self.markup = Some(markup);
        markup
    }

    /// Shows `show`, replacing what is shown under its key.
    pub async fn show(&mut self, show: &Show) {
        // The clock is read here, at the edge; the pacing itself is plain logic.
        let now = Instant::now();
        if !self.availability.may_try(now) {
            return;
        }
        let _ = self.deliver(show, now).await;
    }

    /// Shows `show` at once, even while waiting after a failure (the person asked for it), and
    /// says whether the notification service took it.
    pub async fn show_now(&mut self, show: &Show) -> Result<(), String> {
        self.deliver(show, Instant::now()).await
    }

    async fn deliver(&mut self, show: &Show, now: Instant) -> Result<(), String> {
        match self.notify(show).await {
            Ok(id) => {
                if self.availability.worked() == Change::Back {
                    tracing::info!("notifications work again");
                }
                tracing::info!(id, key = ?show.key, "notification shown");
                if let Some(previous) = self.shown.insert(show.key.clone(), id) {
                    self.showing().remove(&previous);
                }
                let actions = actions(show).into_iter().map(|(key, _)| key.to_owned()).collect();
                self.showing().insert(id, Offered { key: show.key.clone(), actions });
                Ok(())
            }
            Err(err) => {
                // A new connection at the next try: this one may be what failed.
                self.bus = None;
                self.markup = None;
                if self.availability.failed(now) == Change::Lost {
                    tracing::warn!(%err, "notifications are unavailable (no session bus or notification service); trying again later, less often each time");
                }
                Err(err.to_string())
            }
        }
    }

    async fn notify(&mut self, show: &Show) -> zbus::Result<u32> {
        let connection = self.connection().await?;
        let markup = self.renders_markup(&connection).await;
        let body = if markup { escape(&show.body) } else { show.body.clone() };
        let actions: Vec<&str> = actions(show).into_iter().flat_map(|(key, label)| [key, label]).collect();
        let replaces = self.shown.get(&show.key).copied().unwrap_or(0);
        let hints: HashMap<&str, zbus::Variant<'_>> = HashMap::new();
        let reply = connection
            .call_method(
                Some(SERVICE),
                PATH,
                Some(SERVICE),
                "Notify",
                &(APP_NAME, replaces, self.icon.as_str(), show.summary.as_str(), body, actions, hints, NEVER_EXPIRES),
            )
            .await?;
        reply.body().deserialize::<u32>()
    }

    fn showing(&self) -> std::sync::MutexGuard<'_, HashMap<u32, Offered>> {
        self.showing.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Withdraws what is shown under `key`.
    pub async fn close(&mut self, key: Key) {
        let Some(id) = self.shown.remove(&key) else { return };
        self.showing().remove(&id);
        tracing::info!(id, ?key, "notification withdrawn");
        if let Some(bus) = &self.bus {
            let closed =
                bus.connection.call_method(Some(SERVICE), PATH, Some(SERVICE), "CloseNotification", &(id,)).await;
            if let Err(err) = closed {
                tracing::debug!(id, %err, "the notification service did not close a notification");
            }
        }
    }
}

/// Hears the service's signals on the app's connection until it closes: a click or button
/// becomes an [`Input::Action`] when it is genuine; a notification the service closed is
/// forgotten.
async fn listen(
    connection: Connection,
    mut signals: MessageStream,
    showing: Showing,
    actions: mpsc::UnboundedSender<Input>,
) {
    while let Some(message) = signals.next().await {
        let Ok(message) = message else { continue };
        let header = message.header();
        let member = header.member().map(|member| member.as_str().to_owned());
        match member.as_deref() {
            Some("ActionInvoked") => {
                let Ok((id, action)) = message.body().deserialize::<(u32, String)>() else { continue };
                if !from_service(&connection, &message).await {
                    tracing::warn!(id, %action, sender = ?header.sender(), "ignored a notification action that the notification service did not send");
                    continue;
                }
                let offered = showing.lock().unwrap_or_else(PoisonError::into_inner).get(&id).cloned();
                match offered {
                    Some(offered) if offered.actions.contains(&action) => {
                        let _ = actions.send(Input::Action(offered.key, action));
                    }
                    Some(_) => tracing::warn!(id, %action, "ignored an action the notification did not offer"),
                    None => tracing::info!(id, %action, "ignored an action on a notification Beckon does not show"),
                }
            }
            Some("NotificationClosed") => {
                let Ok((id, _reason)) = message.body().deserialize::<(u32, u32)>() else { continue };
                if from_service(&connection, &message).await {
                    showing.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
                }
            }
            _ => {}
        }
    }
}

/// Whether `message` was sent by the connection that owns the service's name now.
async fn from_service(connection: &Connection, message: &Message) -> bool {
    let header = message.header();
    let Some(sender) = header.sender() else { return false };
    let owner = connection
        .call_method(
            Some("org.freedesktop.DBus"),
            "/org/freedesktop/DBus",
            Some("org.freedesktop.DBus"),
            "GetNameOwner",
            &(SERVICE,),
        )
        .await
        .and_then(|reply| reply.body().deserialize::<String>());
    owner.is_ok_and(|owner| owner == sender.as_str())
}

#[cfg(test)]
mod tests {
    use super::{Key, Show, actions, escape};

    #[test]
    fn markup_is_escaped() {
        assert_eq!(escape("<img src=x onerror=alert(1)> & <b>"), "&lt;img src=x onerror=alert(1)&gt; &amp; &lt;b&gt;");
    }

    #[test]
    fn the_actions_offered_are_open_and_the_buttons() {
        let show = Show {
            key: Key::Test,
            summary: String::new(),
            body: String::new(),
            buttons: vec![("answer:2".into(), "Deny".into())],
            opens: true,
        };
        assert_eq!(actions(&show), [("default", "Open"), ("answer:2", "Deny")]);
        assert_eq!(actions(&Show { opens: false, ..show }), [("answer:2", "Deny")]);
    }
}
