//! The window's commands, all through one Tauri command (`window_command`): the commands a team
//! server serves too ([`WindowCommand`]) and the desktop app's own ([`DesktopCommand`]), each
//! a thin adapter to the runtime's service API; a team inbox's questions and sessions are
//! asked of its server with the same command. Errors reach the window as
//! `{kind, message, field?, problems?, winner?}`. Events stream through `subscribe`.

use beckon_core::GivenAnswers;
use beckon_core::{AnsweredVia, Answers, RequestId, SessionId};
use beckon_runtime::api::window::{
    AnswerBatch, AnswerQuestion, CancelSession, DeclineQuestion, ListSessions, NoArgs, OfChannel, OfQuestion,
    OfSession, Window, WindowCommand, WindowReply,
};
use beckon_runtime::api::{ErrorKind, OfPushDevice, PushOffer, PushSubscription, TokenView};
use beckon_runtime::{
    AnswerReceipt, BatchReceipt, Beckon, ChannelPairingCode, Decision, PairedChannel, SessionView, WindowSnapshot,
};
use beckon_store::{Metrics, QuestionRecord, RuleOffer, RuleRecord, SessionFilter, SessionPage, TokenKind};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, State, Webview};

use crate::agents::AgentView;
use crate::desktop_commands::{
    AddTeamInbox, ConnectAgent, CreateRule, DesktopCommand, DesktopReply, DesktopWindow, ExportAudit, ListRules,
    OfChat, OfInbox, OfRule, OfRuleOffer, OfToken, SaveSettings, SendMessage, SetStartAtLogin, StartSession,
};
use crate::dto::{Bootstrap, NewToken, NotificationTest, TelegramPairing, UiEvent};
use crate::settings::{SaveError, SettingsView};
use crate::state::App;
use crate::team::window_call::team_call;
use crate::team::{TeamInboxView, TeamState};

use crate::command_error::{CommandError, Reply};

fn beckon(app: &App) -> Reply<&Beckon> {
    app.beckon.as_ref().map_err(|err| CommandError::new(ErrorKind::Unavailable, err.to_string(), None))
}

fn parse<T: std::str::FromStr<Err = beckon_core::Error>>(text: &str) -> Reply<T> {
    text.parse()
        .map_err(|err: beckon_core::Error| CommandError::new(ErrorKind::InvalidInput, err.to_string(), Some("id")))
}

/// A command's reply, serialised as itself.
#[derive(Debug, serde::Serialize)]
#[serde(untagged)]
pub enum Replied {
    /// To one of the window's commands.
    Window(WindowReply),
    /// To one of the desktop app's own.
    Desktop(DesktopReply),
}

/// Runs window command `command` with `args` (camelCase keys, as the window sends them).
#[tauri::command]
pub async fn window_command(
    handle: AppHandle,
    app: State<'_, App>,
    command: String,
    args: Option<serde_json::Value>,
) -> Reply<Replied> {
    let args = args.unwrap_or_default();
    let desktop = Desktop { app: &app, handle: &handle };
    let unreadable = |err: serde_json::Error| {
        CommandError::new(ErrorKind::BadRequest, format!("the arguments of {command} cannot be read: {err}"), None)
    };
    // The name says which list the command is on, so its arguments are read once.
    if WindowCommand::reads(&command).is_some() {
        if let Some(shared) = WindowCommand::read(&command, args).map_err(unreadable)? {
            return Ok(Replied::Window(shared.dispatch(&desktop).await?));
        }
    } else if let Some(own) = DesktopCommand::read(&command, args).map_err(unreadable)? {
        return Ok(Replied::Desktop(own.dispatch(&desktop).await?));
    }
    Err(CommandError::new(ErrorKind::NotFound, format!("the window has no command {command:?}"), None))
}

/// Streams every event after `after_seq`, then live ones, and assistant text as it streams,
/// to `on_event` until the window goes away. A window subscribing again (a reload) replaces
/// its previous stream.
#[tauri::command]
pub async fn subscribe(app: State<'_, App>, webview: Webview, after_seq: i64, on_event: Channel<UiEvent>) -> Reply<()> {
    let beckon = beckon(&app)?.clone();
    let events = beckon.events().subscribe(after_seq).await?;
    let deltas = beckon.events().text_deltas();
    let task = tokio::spawn(crate::forward::forward(events, deltas, move |event| on_event.send(event).is_ok()));
    tracing::info!(window = webview.label(), after_seq, "a window subscribed to events");
    crate::window::loaded(webview.app_handle());
    if let Some(previous) = app.forwarders().insert(webview.label().to_owned(), task.abort_handle()) {
        previous.abort();
    }
    Ok(())
}

/// The window's commands as the desktop app serves them.
struct Desktop<'a> {
    app: &'a App,
    handle: &'a AppHandle,
}

/// The desktop app's answer to a browser's push commands: it notifies by itself.
fn browsers_only() -> CommandError {
    CommandError::new(
        ErrorKind::NotFound,
        "a team server pushes to browsers signed in to it; the desktop app notifies by itself",
        None,
    )
}

/// Pairing a person's own account is for people signed in to a team server.
fn team_server_only() -> CommandError {
    CommandError::new(
        ErrorKind::NotFound,
        "people pair their own accounts on a team server, not in the desktop app",
        None,
    )
}

impl Window for Desktop<'_> {
    type Error = CommandError;

    async fn bootstrap(&self, NoArgs {}: NoArgs) -> Reply<WindowSnapshot> {
        Ok(beckon(self.app)?.inbox().snapshot().await?)
    }

    async fn list_sessions(&self, ListSessions { after, limit }: ListSessions) -> Reply<SessionPage> {
        let filter =
            SessionFilter { top_level_only: true, after, limit: limit.unwrap_or(100), ..SessionFilter::default() };
        Ok(beckon(self.app)?.inbox().sessions(filter).await?)
    }

    /// A session with its timeline and questions (a team inbox's, from its server).
    async fn get_session(&self, args: OfSession) -> Reply<SessionView> {
        let id = parse::<SessionId>(&args.session_id)?;
        if let Some(inbox) = self.app.teams.owner_of_session(id) {
            return team_call(&inbox, &WindowCommand::GetSession(args)).await;
        }
        Ok(beckon(self.app)?.inbox().session(id).await?)
    }

    /// A question whole (a team inbox's comes from its server).
    async fn get_question(&self, args: OfQuestion) -> Reply<QuestionRecord> {
        let id = parse::<RequestId>(&args.request_id)?;
        if let Some(inbox) = self.app.teams.owner_of(id) {
            return team_call(&inbox, &WindowCommand::GetQuestion(args)).await;
        }
        Ok(beckon(self.app)?.inbox().question(id).await?)
    }

    /// Answers a question from the window (a team inbox's on its server, as the person).
    async fn answer(&self, args: AnswerQuestion) -> Reply<AnswerReceipt> {
        let id = parse::<RequestId>(&args.request_id)?;
        if let Some(inbox) = self.app.teams.owner_of(id) {
            return team_call(&inbox, &WindowCommand::Answer(args)).await;
        }
        let decision = Decision::Answer(GivenAnswers::Typed(Answers::unchecked(args.answers)));
        Ok(beckon(self.app)?.resolve(id, AnsweredVia::Window, decision).await?)
    }

    /// Declines a question from the window (a team inbox's on its server).
    async fn decline(&self, args: DeclineQuestion) -> Reply<AnswerReceipt> {
        let id = parse::<RequestId>(&args.request_id)?;
        if let Some(inbox) = self.app.teams.owner_of(id) {
            return team_call(&inbox, &WindowCommand::Decline(args)).await;
        }
        Ok(beckon(self.app)?.resolve(id, AnsweredVia::Window, Decision::Decline(args.reason)).await?)
    }

    async fn answer_batch(&self, args: AnswerBatch) -> Reply<BatchReceipt> {
        crate::triage::answer_batch(self.app, args).await
    }

    async fn cancel(&self, CancelSession { session_id, reason }: CancelSession) -> Reply<()> {
        Ok(beckon(self.app)?.cancel(parse(&session_id)?, reason).await?)
    }

    async fn metrics(&self, NoArgs {}: NoArgs) -> Reply<Metrics> {
        Ok(beckon(self.app)?.inbox().metrics().await?)
    }

    async fn paired_channels(&self, NoArgs {}: NoArgs) -> Reply<Vec<PairedChannel>> {
        Err(team_server_only())
    }

    async fn pair_channel(&self, _: OfChannel) -> Reply<ChannelPairingCode> {
        Err(team_server_only())
    }

    async fn unpair_channel(&self, _: OfChannel) -> Reply<Vec<PairedChannel>> {
        Err(team_server_only())
    }

    async fn push_offer(&self, NoArgs {}: NoArgs) -> Reply<PushOffer> {
        Err(browsers_only())
    }

    async fn add_push_device(&self, _: PushSubscription) -> Reply<()> {
        Err(browsers_only())
    }

    async fn remove_push_device(&self, _: OfPushDevice) -> Reply<()> {
        Err(browsers_only())
    }
}

impl DesktopWindow for Desktop<'_> {
    type Error = CommandError;

    async fn start(&self, NoArgs {}: NoArgs) -> Reply<Bootstrap> {
        let (app, beckon) = (self.app, beckon(self.app)?);
        let window = beckon.inbox().snapshot().await?;
        let settings = app.settings().view();
        let default_agent = settings.default_agent.clone().unwrap_or_else(|| beckon.agents().default().to_owned());
        let gateway = app.gateway();
        Ok(Bootstrap {
            window,
            agents: beckon.agents().list(),
            agent_problems: beckon.agents().problems(),
            default_agent,
            settings,
            data_dir: app.data_dir.display().to_string(),
            navigate: app.take_navigation(),
            gateway_url: gateway.clone().ok(),
            gateway_problem: gateway.err(),
        })
    }

    async fn start_session(&self, StartSession { agent, message }: StartSession) -> Reply<SessionId> {
        Ok(beckon(self.app)?.start_session(&agent, &message).await?)
    }

    async fn send_message(&self, SendMessage { session_id, text }: SendMessage) -> Reply<()> {
        Ok(beckon(self.app)?.send_message(parse(&session_id)?, &text).await?)
    }

    async fn get_settings(&self, NoArgs {}: NoArgs) -> Reply<SettingsView> {
        Ok(self.app.settings().view())
    }

    async fn save_settings(&self, SaveSettings { settings }: SaveSettings) -> Reply<SettingsView> {
        Ok(self.app.save_settings(settings).await?)
    }

    async fn callback_secret(&self, NoArgs {}: NoArgs) -> Reply<String> {
        Ok(beckon(self.app)?.configuration().callback_secret())
    }

    async fn rotate_callback_secret(&self, NoArgs {}: NoArgs) -> Reply<String> {
        Ok(beckon(self.app)?.configuration().rotate_callback_secret().await?)
    }

    async fn telegram_pairing(&self, NoArgs {}: NoArgs) -> Reply<TelegramPairing> {
        Ok(beckon_channels::telegram_pairing(beckon(self.app)?).await?.into())
    }

    async fn new_telegram_pairing_code(&self, NoArgs {}: NoArgs) -> Reply<TelegramPairing> {
        Ok(beckon_channels::new_telegram_pairing_code(beckon(self.app)?).await?.into())
    }

    async fn confirm_telegram_chat(&self, OfChat { chat }: OfChat) -> Reply<TelegramPairing> {
        // A copy: the settings' lock is not held while Telegram is called.
        let telegram = self.app.settings().channels().1.clone();
        Ok(beckon_channels::confirm_telegram_chat(beckon(self.app)?, &telegram, &chat).await?.into())
    }

    async fn refuse_telegram_chat(&self, OfChat { chat }: OfChat) -> Reply<TelegramPairing> {
        Ok(beckon_channels::refuse_telegram_chat(beckon(self.app)?, &chat).await?.into())
    }

    async fn agents_status(&self, NoArgs {}: NoArgs) -> Reply<Vec<AgentView>> {
        // Reads files: off the main thread.
        Ok(tauri::async_runtime::spawn_blocking(crate::agents::views).await.unwrap_or_else(|err| {
            beckon_agents::Agent::ALL.into_iter().map(|agent| crate::agents::failed(agent, &err)).collect()
        }))
    }

    async fn connect_agent(&self, ConnectAgent { name, remove }: ConnectAgent) -> Reply<AgentView> {
        let agent = beckon_agents::Agent::from_name(&name).ok_or_else(|| {
            CommandError::new(ErrorKind::InvalidInput, format!("Beckon connects no agent named {name}"), None)
        })?;
        Ok(tauri::async_runtime::spawn_blocking(move || crate::agents::connect(agent, remove))
            .await
            .unwrap_or_else(|err| crate::agents::failed(agent, &err)))
    }

    async fn tokens(&self, NoArgs {}: NoArgs) -> Reply<Vec<TokenView>> {
        Ok(beckon(self.app)?.tokens().list().await?)
    }

    async fn create_token(&self, OfToken { name }: OfToken) -> Reply<NewToken> {
        Ok(beckon(self.app)?.tokens().create(name.trim(), TokenKind::AskOnly).await?.into())
    }

    async fn revoke_token(&self, OfToken { name }: OfToken) -> Reply<TokenView> {
        Ok(beckon(self.app)?.tokens().revoke(&name).await?)
    }

    async fn start_at_login(&self, NoArgs {}: NoArgs) -> Reply<bool> {
        Ok(crate::autostart::enabled(self.handle)?)
    }

    async fn set_start_at_login(&self, SetStartAtLogin { on }: SetStartAtLogin) -> Reply<bool> {
        Ok(crate::autostart::set(self.handle, on)?)
    }

    async fn beckon_command(&self, NoArgs {}: NoArgs) -> Reply<Option<String>> {
        Ok(tauri::async_runtime::spawn_blocking(|| crate::agents::program().map(|path| path.display().to_string()))
            .await
            .ok()
            .flatten())
    }

    async fn send_test_notification(&self, NoArgs {}: NoArgs) -> Reply<NotificationTest> {
        Ok(self.app.test_notification().await)
    }

    async fn dismiss_guide(&self, NoArgs {}: NoArgs) -> Reply<SettingsView> {
        let mut settings = self.app.settings();
        settings.dismiss_guide().map_err(SaveError::Io)?;
        Ok(settings.view())
    }

    async fn rules(&self, ListRules { include_revoked }: ListRules) -> Reply<Vec<RuleRecord>> {
        Ok(beckon(self.app)?.rules().list(include_revoked).await?)
    }

    async fn create_rule(&self, CreateRule { spec, source }: CreateRule) -> Reply<RuleRecord> {
        let spec = beckon_core::rules::RuleSpec::parse(&spec, "spec").map_err(beckon_runtime::Error::InvalidInput)?;
        Ok(beckon(self.app)?.rules().create(spec, source).await?)
    }

    async fn revoke_rule(&self, OfRule { id }: OfRule) -> Reply<RuleRecord> {
        Ok(beckon(self.app)?.rules().revoke(id).await?)
    }

    async fn rule_offers(&self, NoArgs {}: NoArgs) -> Reply<Vec<RuleOffer>> {
        Ok(beckon(self.app)?.rules().offers().await?)
    }

    async fn dismiss_rule_offer(&self, OfRuleOffer { key }: OfRuleOffer) -> Reply<()> {
        Ok(beckon(self.app)?.rules().dismiss_offer(key).await?)
    }

    async fn export_audit(&self, ExportAudit { format }: ExportAudit) -> Reply<String> {
        crate::triage::export_audit(self.handle, beckon(self.app)?, &format).await
    }

    async fn team_inboxes(&self, NoArgs {}: NoArgs) -> Reply<TeamState> {
        Ok(self.app.teams.state())
    }

    async fn add_team_inbox(&self, AddTeamInbox { name, url }: AddTeamInbox) -> Reply<TeamInboxView> {
        crate::team::commands::add_team_inbox(self.handle, self.app, name, url).await
    }

    async fn sign_in_team_inbox(&self, OfInbox { id }: OfInbox) -> Reply<TeamInboxView> {
        crate::team::commands::sign_in_team_inbox(self.handle, self.app, id).await
    }

    async fn remove_team_inbox(&self, OfInbox { id }: OfInbox) -> Reply<Vec<TeamInboxView>> {
        crate::team::commands::remove_team_inbox(self.handle, self.app, id).await
    }
}
