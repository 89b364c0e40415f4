//! The desktop app's side of a team inbox once the person has signed in (through their browser:
//! the gateway's `team_inbox::AppSignIn`, RFC 8252): reading the inbox's share of questions,
//! following its events and answering ([`TeamInbox`]) with the session secret the sign-in gave —
//! the same window commands a browser on the team server sends. A session the server no longer knows (signed out,
//! expired) is [`ClientError::Api`] with kind `unauthorized`: the app asks the person to sign in
//! again.

mod events;

use std::time::Duration;

use beckon_api::views::Refusal;
use beckon_api::window::WindowCommand;
use beckon_api::{ErrorBody, ErrorKind};
use reqwest::StatusCode;
use serde::de::DeserializeOwned;

pub use events::{Events, RemoteEvent};

use crate::client::{ClientError, ClientResult};

/// How long connecting may take: a team server is across a network.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// The most of an answer read.
const RESPONSE_MAX_BYTES: usize = 64 * 1024 * 1024;

/// A team inbox the app is signed in to.
#[derive(Clone)]
pub struct TeamInbox {
    http: reqwest::Client,
    url: String,
    secret: String,
}

impl std::fmt::Debug for TeamInbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret acts as the person: never in logs.
        f.debug_struct("TeamInbox").field("url", &self.url).finish_non_exhaustive()
    }
}

/// An HTTP client for team servers: it trusts, beside the built-in web authorities, the
/// system's (a team's private authority installed there) and those in `ca_file`.
pub fn http(ca_file: Option<&std::path::Path>) -> ClientResult<reqwest::Client> {
    let authorities = crate::trust::authorities(ca_file)
        .map_err(|detail| ClientError::Certificate { url: "a team server".into(), detail })?;
    authorities
        .into_iter()
        .fold(reqwest::Client::builder(), |builder, authority| builder.add_root_certificate(authority))
        .connect_timeout(CONNECT_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|err| ClientError::Transport {
            url: "a team server".into(),
            detail: format!("cannot set up HTTP: {err}"),
        })
}

impl TeamInbox {
    /// The inbox at `url` (the team server's public URL), signed in with `secret`.
    pub fn new(http: reqwest::Client, url: &str, secret: String) -> TeamInbox {
        TeamInbox { http, url: url.trim_end_matches('/').to_owned(), secret }
    }

    /// The team server's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Window command `command`, as the window sends it, and its reply.
    pub async fn call<T: DeserializeOwned>(&self, command: &WindowCommand) -> ClientResult<T> {
        let name = command.name();
        let args = command.args().map_err(|err| ClientError::Transport {
            url: self.url.clone(),
            detail: format!("the arguments of {name} cannot be written: {err}"),
        })?;
        let request = self
            .http
            .post(format!("{}/v1/window/{name}", self.url))
            .bearer_auth(&self.secret)
            .json(&args)
            .timeout(CALL_TIMEOUT);
        let response = request.send().await.map_err(|err| transport(&self.url, &err))?;
        let response = checked(&self.url, response).await?;
        let bytes = read_bounded(&self.url, response).await?;
        serde_json::from_slice(&bytes).map_err(|err| ClientError::Transport {
            url: self.url.clone(),
            detail: format!("the team server's answer to {name} cannot be read: {err}"),
        })
    }

    /// Follows the inbox's events after `after` (what the person may see).
    pub async fn events(&self, after: i64) -> ClientResult<Events> {
        let response = self
            .http
            .get(format!("{}/v1/events", self.url))
            .query(&[("after", after)])
            .bearer_auth(&self.secret)
            .header("accept", "text/event-stream")
            .send()
            .await
            .map_err(|err| transport(&self.url, &err))?;
        Ok(Events::new(checked(&self.url, response).await?))
    }

    /// Signs the app out of the inbox (the session ends on the server).
    pub async fn sign_out(&self) -> ClientResult<()> {
        let request =
            self.http.post(format!("{}/auth/logout", self.url)).bearer_auth(&self.secret).timeout(CALL_TIMEOUT);
        let response = request.send().await.map_err(|err| transport(&self.url, &err))?;
        checked(&self.url, response).await.map(|_| ())
    }
}

/// A request's failure, with what to do when the server's certificate was refused.
pub fn transport(url: &str, err: &reqwest::Error) -> ClientError {
    match crate::client::certificate_refused(err) {
        Some(detail) => ClientError::Certificate { url: url.to_owned(), detail },
        None => ClientError::Transport { url: url.to_owned(), detail: err.to_string() },
    }
}

/// A successful response, or the server's refusal as [`ClientError::Api`].
pub async fn checked(url: &str, response: reqwest::Response) -> ClientResult<reqwest::Response> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let bytes = read_bounded(url, response).await?;
    let body = serde_json::from_slice::<Refusal>(&bytes).map(|refusal| refusal.error).unwrap_or_else(|_| {
        let kind = if status == StatusCode::UNAUTHORIZED { ErrorKind::Unauthorized } else { ErrorKind::Internal };
        ErrorBody::new(kind, format!("the team server answered {status}"))
    });
    Err(ClientError::Api { status: status.as_u16(), body: Box::new(body) })
}

async fn read_bounded(url: &str, mut response: reqwest::Response) -> ClientResult<Vec<u8>> {
    let too_large = || ClientError::TooLarge { url: url.to_owned(), limit: RESPONSE_MAX_BYTES };
    if response.content_length().is_some_and(|length| length > RESPONSE_MAX_BYTES as u64) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|err| transport(url, &err))? {
        if bytes.len() + chunk.len() > RESPONSE_MAX_BYTES {
            return Err(too_large());
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}
