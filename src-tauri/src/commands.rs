//! The window's commands: each a thin adapter to the runtime's service API. Errors reach the
//! window as `{kind, message, field?, problems?, winner?}`.

use beckon_core::{Answer, AnsweredVia, Answers, RequestId, SessionId};
use beckon_runtime::api::{ErrorBody, ErrorKind, TokenView};
use beckon_runtime::{AnswerReceipt, Beckon, Decision, SessionView};
use beckon_store::{Metrics, QuestionRecord, SessionCursor, SessionFilter, SessionPage, TokenKind};
use tauri::ipc::Channel;
use tauri::{AppHandle, State, Webview};

use beckon_gateway::client::ClientError;
use beckon_gateway::team_inbox::TeamInbox;

use crate::agents::AgentView;
use crate::dto::{Bootstrap, NewToken, NotificationTest, TelegramPairing, UiEvent};
use crate::settings::{SaveError, SettingsInput, SettingsView};
use crate::state::App;

/// An error as the window receives it: `{kind, message, field?, problems?, winner?}`.
#[derive(Debug, serde::Serialize)]
#[serde(transparent)]
pub struct CommandError(pub(crate) Box<ErrorBody>);

impl CommandError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>, field: Option<&str>) -> Self {
        let mut body = ErrorBody::new(kind, message);
        body.field = field.map(str::to_owned);
        CommandError(Box::new(body))
    }
}

impl From<beckon_runtime::Error> for CommandError {
    fn from(err: beckon_runtime::Error) -> Self {
        CommandError(Box::new(ErrorBody::from(err)))
    }
}

impl From<SaveError> for CommandError {
    fn from(err: SaveError) -> Self {
        let message = err.to_string();
        match err {
            SaveError::Invalid(problems) => CommandError(Box::new(ErrorBody::with_problems(
                ErrorKind::InvalidInput,
                message,
                problems.iter().cloned().collect(),
            ))),
            SaveError::Io(_) => CommandError::new(ErrorKind::Internal, message, None),
        }
    }
}

impl From<beckon_channels::Error> for CommandError {
    fn from(err: beckon_channels::Error) -> Self {
        match err {
            beckon_channels::Error::Runtime(err) => err.into(),
            missing @ beckon_channels::Error::NoPairingRequest => {
                CommandError::new(ErrorKind::NotFound, missing.to_string(), None)
            }
            other => CommandError::new(ErrorKind::Unavailable, other.to_string(), None),
        }
    }
}

impl From<tauri_plugin_autostart::Error> for CommandError {
    fn from(err: tauri_plugin_autostart::Error) -> Self {
        CommandError::new(
            ErrorKind::Unavailable,
            format!("Starting at login could not be read or changed: {err}"),
            None,
        )
    }
}

type Reply<T> = Result<T, CommandError>;

fn beckon(app: &App) -> Reply<&Beckon> {
    app.beckon.as_ref().map_err(|err| CommandError::new(ErrorKind::Unavailable, err.to_string(), None))
}

fn parse<T: std::str::FromStr<Err = beckon_core::Error>>(text: &str) -> Reply<T> {
    text.parse()
        .map_err(|err: beckon_core::Error| CommandError::new(ErrorKind::InvalidInput, err.to_string(), Some("id")))
}

/// Everything the window draws at start, and the seq it is complete up to.
#[tauri::command]
pub async fn bootstrap(app: State<'_, App>) -> Reply<Bootstrap> {
    let beckon = beckon(&app)?;
    let window = beckon.window_snapshot().await?;
    let settings = app.settings().view();
    let default_agent = settings.default_agent.clone().unwrap_or_else(|| beckon.default_agent().to_owned());
    let gateway = app.gateway();
    Ok(Bootstrap {
        window,
        agents: beckon.agents(),
        agent_problems: beckon.agent_problems(),
        default_agent,
        settings,
        data_dir: app.data_dir.display().to_string(),
        navigate: app.take_navigation(),
        gateway_url: gateway.clone().ok(),
        gateway_problem: gateway.err(),
    })
}

/// A page of sessions, newest first.
#[tauri::command]
pub async fn list_sessions(
    app: State<'_, App>,
    after: Option<SessionCursor>,
    limit: Option<usize>,
) -> Reply<SessionPage> {
    let filter = SessionFilter { top_level_only: true, after, limit: limit.unwrap_or(100), ..SessionFilter::default() };
    Ok(beckon(&app)?.sessions(filter).await?)
}

/// A session with its timeline and questions (a team inbox's, from its server).
#[tauri::command]
pub async fn get_session(app: State<'_, App>, session_id: String) -> Reply<SessionView> {
    let id = parse::<SessionId>(&session_id)?;
    if let Some(inbox) = app.teams.owner_of_session(id) {
        return team_call(&inbox, "get_session", serde_json::json!({"sessionId": id})).await;
    }
    Ok(beckon(&app)?.session(id).await?)
}

/// A question whole (the inbox's list holds only its line until it is opened; a team inbox's
/// comes from its server).
#[tauri::command]
pub async fn get_question(app: State<'_, App>, request_id: String) -> Reply<QuestionRecord> {
    let id = parse::<RequestId>(&request_id)?;
    if let Some(inbox) = app.teams.owner_of(id) {
        return team_call(&inbox, "get_question", serde_json::json!({"requestId": id})).await;
    }
    Ok(beckon(&app)?.question(id).await?)
}

/// Window command `command` sent to the team inbox a question or session waits in: the same
/// reply a local one gives.
pub(crate) async fn team_call<T: serde::de::DeserializeOwned>(
    inbox: &TeamInbox,
    command: &str,
    args: serde_json::Value,
) -> Reply<T> {
    inbox.call(command, &args).await.map_err(|err| match err {
        ClientError::Api { body, .. } => CommandError(body),
        other => CommandError::new(ErrorKind::Unavailable, other.to_string(), None),
    })
}

/// Starts a session of `agent` with a first message; returns its id.
#[tauri::command]
pub async fn start_session(app: State<'_, App>, agent: String, message: String) -> Reply<SessionId> {
    Ok(beckon(&app)?.start_session(&agent, &message).await?)
}

/// Continues a session whose turn has finished.
#[tauri::command]
pub async fn send_message(app: State<'_, App>, session_id: String, text: String) -> Reply<()> {
    Ok(beckon(&app)?.send_message(parse(&session_id)?, &text).await?)
}

/// Answers a question from the window (a team inbox's on its server, as the person).
#[tauri::command]
pub async fn answer(app: State<'_, App>, request_id: String, answers: Vec<Answer>) -> Reply<AnswerReceipt> {
    let id = parse::<RequestId>(&request_id)?;
    if let Some(inbox) = app.teams.owner_of(id) {
        return team_call(&inbox, "answer", serde_json::json!({"requestId": id, "answers": answers})).await;
    }
    let beckon = beckon(&app)?;
    Ok(beckon.resolve(id, AnsweredVia::Window, Decision::Answer(Answers::unchecked(answers))).await?)
}

/// Declines a question from the window (a team inbox's on its server).
#[tauri::command]
pub async fn decline(app: State<'_, App>, request_id: String, reason: Option<String>) -> Reply<AnswerReceipt> {
    let id = parse::<RequestId>(&request_id)?;
    if let Some(inbox) = app.teams.owner_of(id) {
        return team_call(&inbox, "decline", serde_json::json!({"requestId": id, "reason": reason})).await;
    }
    Ok(beckon(&app)?.resolve(id, AnsweredVia::Window, Decision::Decline(reason)).await?)
}

/// Cancels a session.
#[tauri::command]
pub async fn cancel(app: State<'_, App>, session_id: String, reason: Option<String>) -> Reply<()> {
    Ok(beckon(&app)?.cancel(parse(&session_id)?, reason).await?)
}

/// Answering figures.
#[tauri::command]
pub async fn metrics(app: State<'_, App>) -> Reply<Metrics> {
    Ok(beckon(&app)?.metrics().await?)
}

/// The settings.
#[tauri::command]
pub fn get_settings(app: State<'_, App>) -> SettingsView {
    app.settings().view()
}

/// Saves new settings (nothing when one is refused); they apply at once.
#[tauri::command]
pub async fn save_settings(app: State<'_, App>, settings: SettingsInput) -> Reply<SettingsView> {
    Ok(app.save_settings(settings).await?)
}

/// Telegram's pairing: the chat paired so far, the code the person asked for while it is good,
/// and a chat waiting to replace the paired one. Reading makes no code.
#[tauri::command]
pub async fn telegram_pairing(app: State<'_, App>) -> Reply<TelegramPairing> {
    Ok(beckon_channels::telegram_pairing(beckon(&app)?).await?.into())
}

/// The person asks to pair a (new) chat: a new code, good for ten minutes.
#[tauri::command]
pub async fn new_telegram_pairing_code(app: State<'_, App>) -> Reply<TelegramPairing> {
    Ok(beckon_channels::new_telegram_pairing_code(beckon(&app)?).await?.into())
}

/// The person confirms that `chat` replaces the paired chat; both chats are told.
#[tauri::command]
pub async fn confirm_telegram_chat(app: State<'_, App>, chat: String) -> Reply<TelegramPairing> {
    // A copy: the settings' lock is not held while Telegram is called.
    let telegram = app.settings().channels().1.clone();
    Ok(beckon_channels::confirm_telegram_chat(beckon(&app)?, &telegram, &chat).await?.into())
}

/// The person refuses `chat`'s request to replace the paired chat.
#[tauri::command]
pub async fn refuse_telegram_chat(app: State<'_, App>, chat: String) -> Reply<TelegramPairing> {
    Ok(beckon_channels::refuse_telegram_chat(beckon(&app)?, &chat).await?.into())
}

/// The secret that signs callbacks (`Beckon-Signature`), for the window to show when the
/// person asks to see it.
#[tauri::command]
pub fn callback_secret(app: State<'_, App>) -> Reply<String> {
    Ok(beckon(&app)?.callback_secret())
}

/// Replaces the callback secret with a new random one and returns it; later callbacks are
/// signed with it.
#[tauri::command]
pub async fn rotate_callback_secret(app: State<'_, App>) -> Reply<String> {
    Ok(beckon(&app)?.rotate_callback_secret().await?)
}

/// Every agent Beckon connects to, and where each stands.
#[tauri::command]
pub async fn agents_status() -> Vec<AgentView> {
    // Reads files: off the main thread.
    tauri::async_runtime::spawn_blocking(crate::agents::views).await.unwrap_or_else(|err| {
        beckon_agents::Agent::ALL.into_iter().map(|agent| crate::agents::failed(agent, &err)).collect()
    })
}

/// Connects the agent named `name` to Beckon (user scope), or disconnects it with `remove`.
#[tauri::command]
pub async fn connect_agent(name: String, remove: bool) -> Reply<AgentView> {
    let agent = beckon_agents::Agent::from_name(&name).ok_or_else(|| {
        CommandError::new(ErrorKind::InvalidInput, format!("Beckon connects no agent named {name}"), None)
    })?;
    Ok(tauri::async_runtime::spawn_blocking(move || crate::agents::connect(agent, remove))
        .await
        .unwrap_or_else(|err| crate::agents::failed(agent, &err)))
}

/// The tokens agents on other machines ask with, newest first.
#[tauri::command]
pub async fn tokens(app: State<'_, App>) -> Reply<Vec<TokenView>> {
    Ok(beckon(&app)?.tokens().await?)
}

/// Makes an ask-only token named `name` and returns it with its secret, shown this once.
#[tauri::command]
pub async fn create_token(app: State<'_, App>, name: String) -> Reply<NewToken> {
    Ok(beckon(&app)?.create_token(name.trim(), TokenKind::AskOnly).await?.into())
}

/// Revokes the token named `name`: requests carrying it are refused from now on.
#[tauri::command]
pub async fn revoke_token(app: State<'_, App>, name: String) -> Reply<TokenView> {
    Ok(beckon(&app)?.revoke_token(&name).await?)
}

/// Whether Beckon starts, hidden in the tray, when the person logs in.
#[tauri::command]
pub async fn start_at_login(app: AppHandle) -> Reply<bool> {
    Ok(crate::autostart::enabled(&app)?)
}

/// Turns starting at login on or off; whether it is on afterwards.
#[tauri::command]
pub async fn set_start_at_login(app: AppHandle, on: bool) -> Reply<bool> {
    Ok(crate::autostart::set(&app, on)?)
}

/// The real path of the `beckon` command (the same one Settings › Agents connects agents with), for the
/// configuration the guide shows; none when it is neither beside Beckon nor on PATH.
#[tauri::command]
pub async fn beckon_command() -> Option<String> {
    tauri::async_runtime::spawn_blocking(|| crate::agents::program().map(|path| path.display().to_string()))
        .await
        .ok()
        .flatten()
}

/// Shows a notification with a button the way questions' are shown, and says whether the
/// notification service took it.
#[tauri::command]
pub async fn send_test_notification(app: State<'_, App>) -> Reply<NotificationTest> {
    Ok(app.test_notification().await)
}

/// Puts the getting-started guide away for good (it stays under Settings).
#[tauri::command]
pub fn dismiss_guide(app: State<'_, App>) -> Reply<SettingsView> {
    let mut settings = app.settings();
    settings.dismiss_guide().map_err(SaveError::Io)?;
    Ok(settings.view())
}

/// Streams every event after `after_seq`, then live ones, and assistant text as it streams,
/// to `on_event` until the window goes away. A window subscribing again (a reload) replaces
/// its previous stream.
#[tauri::command]
pub async fn subscribe(app: State<'_, App>, webview: Webview, after_seq: i64, on_event: Channel<UiEvent>) -> Reply<()> {
    let beckon = beckon(&app)?.clone();
    let events = beckon.subscribe(after_seq).await?;
    let deltas = beckon.text_deltas();
    let task = tokio::spawn(crate::forward::forward(events, deltas, move |event| on_event.send(event).is_ok()));
    if let Some(previous) = app.forwarders().insert(webview.label().to_owned(), task.abort_handle()) {
        previous.abort();
    }
    Ok(())
}
