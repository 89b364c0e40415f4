//! Signing the app in to a team inbox through the person's browser, as a native app does
//! (RFC 8252): the app listens on a loopback port of its own, sends the browser to the server's
//! `/auth/app` with a PKCE challenge and a state, and takes the one-time code the browser brings
//! back — only with its state — to trade it, with the verifier, for a session secret.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use axum::Router;
use axum::extract::{Query, State};
use axum::response::Html;
use axum::routing::get;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use beckon_client::client::{ClientError, ClientResult};
use beckon_client::team_inbox::{TeamInbox, checked, transport};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot};

/// The path the browser comes back to.
const CALLBACK: &str = "/callback";

/// Who the team server signed the app in as.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SignedInAs {
    pub subject: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub groups: Vec<String>,
}

/// A finished sign-in: the inbox to call, who it acts as, and until when (Unix ms).
#[derive(Debug)]
pub struct Connected {
    pub inbox: TeamInbox,
    /// The session secret, to keep (privately) for the next start.
    pub secret: String,
    pub person: SignedInAs,
    pub expires_at_ms: i64,
}

/// What the browser brings back to the loopback address.
#[derive(Debug, Deserialize)]
struct Back {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

/// A sign-in under way: the address to open in the person's browser, and the listener waiting
/// for the browser to come back.
pub struct AppSignIn {
    /// Open this in the person's browser.
    pub browser_url: String,
    server: String,
    http: reqwest::Client,
    verifier: String,
    state: String,
    redirect_uri: String,
    back: mpsc::Receiver<Back>,
    stop: Option<oneshot::Sender<()>>,
}

impl std::fmt::Debug for AppSignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppSignIn").field("browser_url", &self.browser_url).finish_non_exhaustive()
    }
}

impl Drop for AppSignIn {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// How the app names itself on the consent page and in an admin's list of the person's
/// sessions: "Beckon on <this computer's name>".
fn client_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| name.trim().chars().filter(|c| !c.is_control()).take(60).collect::<String>())
        .filter(|name| !name.is_empty());
    match host {
        Some(host) => format!("Beckon on {host}"),
        None => "Beckon".to_owned(),
    }
}

impl AppSignIn {
    /// Begins signing in to the team server at `server`: listens on a free loopback port.
    pub async fn begin(http: reqwest::Client, server: &str) -> ClientResult<AppSignIn> {
        let server = server.trim_end_matches('/').to_owned();
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await.map_err(|err| {
                ClientError::Transport { url: "127.0.0.1".into(), detail: format!("cannot listen: {err}") }
            })?;
        let port = listener
            .local_addr()
            .map_err(|err| ClientError::Transport { url: "127.0.0.1".into(), detail: err.to_string() })?
            .port();
        let verifier = URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>());
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        let state = URL_SAFE_NO_PAD.encode(rand::random::<[u8; 16]>());
        let redirect_uri = format!("http://127.0.0.1:{port}{CALLBACK}");
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("redirect_uri", &redirect_uri)
            .append_pair("state", &state)
            .append_pair("code_challenge", &challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("client_name", &client_name())
            .finish();
        let (sender, back) = mpsc::channel(4);
        let (stop, stopped) = oneshot::channel::<()>();
        let app = Router::new().route(CALLBACK, get(came_back)).with_state(sender);
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(AppSignIn {
            browser_url: format!("{server}/auth/app?{query}"),
            server,
            http,
            verifier,
            state,
            redirect_uri,
            back,
            stop: Some(stop),
        })
    }

    /// Waits (up to `patience`) for the browser to come back with this sign-in's code, and trades
    /// it for a session. A visit with another state (not this sign-in's) is passed over.
    pub async fn finish(mut self, patience: Duration) -> ClientResult<Connected> {
        let failed = |detail: String| ClientError::Transport { url: self.server.clone(), detail };
        let code = tokio::time::timeout(patience, async {
            while let Some(back) = self.back.recv().await {
                if back.state.as_deref() != Some(self.state.as_str()) {
                    continue;
                }
                return match (back.code, back.error) {
                    (Some(code), _) => Ok(code),
                    (None, Some(error)) => Err(format!("the sign-in was not finished ({error})")),
                    (None, None) => Err("the browser came back without a code".to_owned()),
                };
            }
            Err("the sign-in's listener stopped".to_owned())
        })
        .await
        .map_err(|_| failed(format!("no sign-in within {} s", patience.as_secs())))?
        .map_err(failed)?;
        let body = json!({"code": code, "code_verifier": self.verifier, "redirect_uri": self.redirect_uri});
        let url = format!("{}/auth/app/token", self.server);
        let response = self.http.post(&url).json(&body).send().await.map_err(|err| transport(&self.server, &err))?;
        let granted: Value = checked(&self.server, response)
            .await?
            .json()
            .await
            .map_err(|err| failed(format!("the session cannot be read: {err}")))?;
        let secret = granted["token"].as_str().ok_or_else(|| failed("no session in the answer".to_owned()))?.to_owned();
        let person: SignedInAs = serde_json::from_value(granted["person"].clone())
            .map_err(|err| failed(format!("who signed in cannot be read: {err}")))?;
        let expires_at_ms = granted["expires_at_ms"].as_i64().unwrap_or_default();
        let inbox = TeamInbox::new(self.http.clone(), &self.server, secret.clone());
        Ok(Connected { inbox, secret, person, expires_at_ms })
    }
}

/// The page the browser shows once the app is connected.
const CONNECTED: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Beckon: connected</title></head>\
    <body><main><h1>Beckon is connected</h1><p>You can close this tab.</p></main></body></html>";

/// The page the browser shows when the app was not connected (refused, or it went wrong).
const NOT_CONNECTED: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Beckon: not connected</title></head>\
    <body><main><h1>Beckon was not connected</h1><p>You can close this tab.</p></main></body></html>";

async fn came_back(State(sender): State<mpsc::Sender<Back>>, Query(back): Query<Back>) -> Html<&'static str> {
    let done = back.code.is_some();
    let _ = sender.send(back).await;
    Html(if done { CONNECTED } else { NOT_CONNECTED })
}
