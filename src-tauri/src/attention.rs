//! Reaching the person where they are: one worker plans notifications (bursts, reminders,
//! do not disturb, withdrawal), shows them, keeps the tray's count and menu current, and acts
//! on notification buttons through the runtime like any other front end.

use beckon_core::GivenAnswers;
use std::collections::HashMap;
use std::time::Duration;

use beckon_core::{AnsweredVia, QuestionItem, RequestId};
use beckon_gateway::team_inbox::TeamInbox;
use beckon_runtime::api::window::{AnswerQuestion, Place, WindowCommand};
use beckon_runtime::{Beckon, Decision, Error, PendingNotice, now_ms};
use tauri::{AppHandle, Emitter};
use tokio::sync::mpsc;

use crate::dto::NavTarget;
use crate::notify::plan::{self, Command, Key, Planner};
use crate::notify::{Backend, Input};
use crate::tray;
use crate::tray_model::TrayQuestion;

/// How often reminders are checked.
const TICK: Duration = Duration::from_secs(30);
/// How long the tray and the catch-up notification wait at start for the window's first frame:
/// a tray update is work on the main thread, which also builds the window, and would hold its
/// first frame back (by about 0.4 s with a thousand questions waiting). Anything that happens
/// meanwhile ends the wait.
const START_GRACE: Duration = Duration::from_millis(1500);
/// The event that tells the window the person pressed the test notification (its action).
pub const TEST_PRESSED_EVENT: &str = "test_notification_pressed";

/// The worker's state.
struct Attention {
    app: AppHandle,
    beckon: Beckon,
    planner: Planner,
    backend: Backend,
    pending: HashMap<RequestId, TrayQuestion>,
    /// The team inboxes that pending questions not asked here wait in.
    teams: HashMap<RequestId, TeamInbox>,
}

fn tray_question(notice: &PendingNotice) -> TrayQuestion {
    TrayQuestion {
        id: notice.request_id,
        origin: notice.origin.to_string(),
        summary: notice.request.summary(),
        asked_at_ms: notice.created_at_ms,
    }
}

/// What the worker starts with.
pub struct Start {
    /// The app.
    pub app: AppHandle,
    /// The runtime.
    pub beckon: Beckon,
    /// The runtime's notices, settings changes and the person's actions.
    pub inputs: mpsc::UnboundedReceiver<Input>,
    /// Where notification actions are reported (feeds `inputs`).
    pub actions: mpsc::UnboundedSender<Input>,
    /// When the runtime started (Unix ms). The questions asked before are read once the start's
    /// grace is over, shown in the tray and announced once for them all; those asked since come
    /// as notices of their own.
    pub started_at_ms: i64,
    /// "Do not disturb" at start.
    pub dnd: bool,
    /// The reminder interval at start (minutes, 0: off).
    pub reminder_minutes: u32,
    /// The app icon's path, for notifications.
    pub icon: String,
}

/// The questions pending that were asked before `started_at_ms`.
async fn waiting_since_before(beckon: &Beckon, started_at_ms: i64) -> Vec<PendingNotice> {
    let Ok(pending) = beckon.inbox().pending().await else { return Vec::new() };
    pending
        .into_iter()
        .filter(|question| question.created_at_ms < started_at_ms)
        .filter_map(|question| PendingNotice::try_from(question).ok())
        .collect()
}

/// Runs until the app goes away.
pub async fn run(start: Start) {
    let Start { app, beckon, mut inputs, actions, started_at_ms, dnd, reminder_minutes, icon } = start;
    let mut attention = Attention {
        app,
        beckon,
        planner: Planner::new(dnd, reminder_minutes),
        backend: Backend::new(actions, icon),
        pending: HashMap::new(),
        teams: HashMap::new(),
    };
    let early = tokio::select! {
        input = inputs.recv() => match input {
            Some(input) => Some(input),
            None => return,
        },
        () = tokio::time::sleep(START_GRACE) => None,
    };
    // Read only now: reading thousands of questions earlier would hold the window's snapshot
    // back, queued behind it on the store's thread.
    let initial = waiting_since_before(&attention.beckon, started_at_ms).await;
    for notice in &initial {
        attention.pending.insert(notice.request_id, tray_question(notice));
    }
    attention.refresh_tray();
    // Questions that waited while Beckon was closed: one notification for them all.
    let commands = attention.planner.caught_up(&initial, now_ms());
    attention.perform(commands).await;
    if let Some(input) = early {
        attention.handle(input).await;
    }
    let mut tick = tokio::time::interval(TICK);
    loop {
        tokio::select! {
            input = inputs.recv() => match input {
                Some(input) => attention.handle(input).await,
                None => return,
            },
            _ = tick.tick() => {
                let commands = attention.planner.tick(now_ms());
                attention.perform(commands).await;
            }
        }
    }
}

impl Attention {
    fn refresh_tray(&self) {
        let pending: Vec<TrayQuestion> = self.pending.values().cloned().collect();
        tray::update(&self.app, &pending);
    }

    async fn perform(&mut self, commands: Vec<Command>) {
        for command in commands {
            match command {
                Command::Show(show) => self.backend.show(&show).await,
                Command::Close(key) => self.backend.close(key).await,
            }
        }
    }

    async fn handle(&mut self, input: Input) {
        match input {
            Input::Pending(notice) => {
                self.pending.insert(notice.request_id, tray_question(&notice));
                self.refresh_tray();
                let commands = self.planner.pending(&notice, now_ms());
                self.perform(commands).await;
            }
            Input::TeamPending(notice, inbox) => {
                self.teams.insert(notice.request_id, inbox);
                Box::pin(self.handle(Input::Pending(notice))).await;
            }
            Input::Resolved(id) => {
                self.teams.remove(&id);
                self.pending.remove(&id);
                self.refresh_tray();
                let commands = self.planner.resolved(id);
                self.perform(commands).await;
            }
            Input::NoticePosted(notice) => {
                let commands = self.planner.notice(&notice);
                self.perform(commands).await;
            }
            Input::NoticeCleared(key) => {
                let commands = self.planner.notice_cleared(&key);
                self.perform(commands).await;
            }
            Input::DoNotDisturb(on) => {
                let commands = self.planner.set_dnd(on);
                self.perform(commands).await;
                self.refresh_tray();
            }
            Input::Reminder(minutes) => self.planner.set_reminder(minutes),
            Input::Action(key, action) => self.act(key, &action).await,
            Input::Test(reply) => {
                let shown = self.backend.show_now(&plan::test_notification()).await;
                tracing::info!(shown = shown.is_ok(), "test notification");
                let _ = reply.send(shown);
            }
        }
    }

    /// A click opens the window at the question (or the inbox); a button answers in place,
    /// through the runtime, with the same checks as any answer.
    async fn act(&mut self, key: Key, action: &str) {
        let id = match key {
            Key::Question(id) => id,
            Key::Burst(_) => {
                crate::navigate::go(&self.app, NavTarget::Inbox);
                return;
            }
            // The agent waits in its own terminal, which Beckon cannot open.
            Key::Notice(_) => return,
            // The window (the getting-started guide) says that the press reached Beckon.
            Key::Test => {
                self.backend.close(Key::Test).await;
                crate::navigate::raise(&self.app);
                if let Err(err) = self.app.emit_to(crate::window::LABEL, TEST_PRESSED_EVENT, action) {
                    tracing::warn!(%err, "cannot tell the window about the test notification");
                }
                return;
            }
        };
        let Some(index) = action.strip_prefix("answer:").and_then(|i| i.parse::<usize>().ok()) else {
            crate::navigate::go(&self.app, NavTarget::Question { id });
            return;
        };
        let label = match self.planner.question(id).map(|notice| notice.request.items()) {
            Some([QuestionItem::Choice(choice)]) => choice.options.get(index).map(|o| o.label.clone()),
            _ => None,
        };
        let Some(label) = label else {
            // The question is no longer waiting here: show the window, which shows what won.
            crate::navigate::go(&self.app, NavTarget::Question { id });
            return;
        };
        if let Some(inbox) = self.teams.get(&id) {
            // A team inbox's question: answered there, as the person signed in to it.
            let answer = beckon_core::Answer { selected: vec![label.clone()], ..beckon_core::Answer::default() };
            let command = WindowCommand::Answer(AnswerQuestion {
                request_id: id.to_string(),
                answers: vec![answer],
                via: Some(Place::Notification),
            });
            match inbox.call::<serde_json::Value>(&command).await {
                Ok(_) => tracing::info!(%id, %label, "answered a team inbox's question from a notification"),
                Err(err) => {
                    tracing::warn!(%id, %err, "a team inbox refused a notification's answer");
                    crate::navigate::go(&self.app, NavTarget::Question { id });
                }
            }
            return;
        }
        match self
            .beckon
            .resolve(id, AnsweredVia::Notification, Decision::Answer(GivenAnswers::Texts(vec![label.clone()])))
            .await
        {
            Ok(receipt) => tracing::info!(%id, %label, repeat = receipt.repeat, "answered from a notification"),
            Err(Error::AlreadyResolved(_)) => crate::navigate::go(&self.app, NavTarget::Question { id }),
            Err(err) => {
                tracing::warn!(%id, %err, "a notification answer was refused");
                crate::navigate::go(&self.app, NavTarget::Question { id });
            }
        }
    }
}
