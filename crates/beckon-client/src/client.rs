//! A client of the gateway's HTTP API, for programs that reach a running Beckon from another
//! process: the `beckon` CLI and the stdio MCP bridge. It finds the gateway through
//! `gateway.json` in the data folder (or a URL and token given outright, or, on a machine whose
//! agents reach the person's Beckon elsewhere, the connection file) and turns the API's
//! `{"error": {kind, message, field}}` bodies into [`ClientError::Api`].
//!
//! Where `gateway.json` names the private socket and it is there, every request goes over it
//! (see [`crate::local_socket`]): no other local user can reach it, so none can crowd these
//! clients out by holding the TCP port's connections. Otherwise (a Beckon older than the
//! socket, a platform without one, or a URL given outright) requests go over TCP.
//!
//! Every request names version 2 of the read shape ([`crate::VERSION_HEADER`]), and every
//! answer is read as the type the gateway writes it from ([`beckon_api::views`]): a field the
//! two ends spell differently fails to compile, not to match.
//!
//! A wait on a question outlives the process that holds it: see [`reattach`].

pub mod reattach;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use beckon_api::views::{
    Health, NoticeCleared, Proof, QuestionCreated, QuestionList, QuestionView, Refusal, TokenList, TokenRevoked,
};
use beckon_api::{CreatedToken, ErrorBody, ErrorKind, QuestionStatus, TokenKind, TokenView, token_secret};
use beckon_core::{Notice, RequestId};
use reqwest::StatusCode;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::discovery::{Discovery, RemoteConnection};
use crate::local_socket;

/// How long connecting may take: loopback or a local socket, so quick or not at all.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a request may take beyond any long-poll it asks for.
const REQUEST_MARGIN: Duration = Duration::from_secs(30);
/// The most of an answer read: a list of 500 questions at their largest fits well within it.
const RESPONSE_MAX_BYTES: usize = 64 * 1024 * 1024;
/// The most of the proof route's answer read.
const PROOF_MAX_BYTES: usize = 4096;

/// Why a call to the gateway failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Nothing answers: no `gateway.json`, or nothing listens at its address.
    #[error("Beckon is not running (no gateway at {at}); start the app or `beckon serve`")]
    NotRunning {
        /// Where a gateway was looked for: the file or the URL.
        at: String,
    },
    /// A URL was given without a token, and there is no `gateway.json` to take one from.
    #[error("no bearer token for {url}: {} does not exist; give the token (--token or BECKON_TOKEN)", path.display())]
    NoToken {
        /// The URL given.
        url: String,
        /// Where the token was looked for.
        path: PathBuf,
    },
    /// `gateway.json` exists but cannot be read.
    #[error("cannot read {}: {detail}", path.display())]
    Discovery {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// The gateway refused the request.
    #[error("{}", body.message)]
    Api {
        /// The HTTP status.
        status: u16,
        /// The error as the gateway sent it.
        body: Box<ErrorBody>,
    },
    /// A question id that is not one; it is not sent, so it cannot reach another route.
    #[error(transparent)]
    InvalidId(beckon_core::Error),
    /// `gateway.json` names a process that is gone: it was left behind (by a crash), and
    /// whatever listens at its address now is not that Beckon. Nothing was sent.
    #[error(
        "Beckon is not running: {} names process {pid}, which has ended (a crash left the file behind); start the app or `beckon serve`",
        path.display()
    )]
    Stale {
        /// The file.
        path: PathBuf,
        /// The process it names.
        pid: u32,
    },
    /// What answers at the gateway's address cannot prove it knows the token: it is not the
    /// Beckon that wrote `gateway.json`. Neither the token nor anything else was sent to it.
    #[error(
        "the server at {url} is not the Beckon that wrote gateway.json (it cannot prove it knows the token); nothing was sent to it. If Beckon crashed, start it again"
    )]
    Impostor {
        /// The address.
        url: String,
    },
    /// The gateway's answer is not what the route answers with: not JSON, or not its shape.
    #[error("the gateway at {url} answered in a shape this client cannot read: {detail}")]
    Unreadable {
        /// The gateway's URL.
        url: String,
        /// What could not be read.
        detail: String,
    },
    /// The gateway sent more than any answer of its can be.
    #[error("the gateway at {url} sent more than {limit} bytes; the answer was not read")]
    TooLarge {
        /// The gateway's URL.
        url: String,
        /// The most read.
        limit: usize,
    },
    /// The server's TLS certificate was not trusted, or the authorities to trust could not be
    /// read: nothing was sent.
    #[error("cannot trust the TLS certificate of {url}: {detail}")]
    Certificate {
        /// The gateway's URL.
        url: String,
        /// Why, and what to do.
        detail: String,
    },
    /// The request failed on the way.
    #[error("cannot reach Beckon at {url}: {detail}")]
    Transport {
        /// The gateway's URL.
        url: String,
        /// What went wrong.
        detail: String,
    },
    /// The connection broke after a question was sent and before Beckon said it took it: it
    /// may be waiting for the person all the same. It is not asked again, which could ask twice.
    #[error(
        "the connection to Beckon at {url} broke before it confirmed the question ({detail}); it may have been asked all the same, so it was not asked again: look in the inbox (or `beckon pending`) before asking again"
    )]
    AskUnsure {
        /// The gateway's URL.
        url: String,
        /// What went wrong.
        detail: String,
    },
    /// The way to a question waited on was lost, and re-attaching to it did not get through
    /// before the wait's deadline (see [`reattach`]).
    #[error("{last}; re-attaching to question {id} did not get through before the wait's deadline")]
    WaitLost {
        /// The question.
        id: String,
        /// The last attempt's failure.
        last: Box<ClientError>,
    },
}

impl ClientError {
    /// The gateway's error kind when it refused the request.
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            ClientError::Api { body, .. } => Some(body.kind),
            _ => None,
        }
    }
}

/// Results of gateway calls.
pub type ClientResult<T> = Result<T, ClientError>;

/// Where to find the gateway: `gateway.json` in a data folder, unless a URL and token are given.
#[derive(Clone)]
pub struct Locator {
    /// The data folder holding `gateway.json`.
    pub data_dir: PathBuf,
    /// A base URL that overrides the file's.
    pub url: Option<String>,
    /// A bearer token that overrides the file's.
    pub token: Option<String>,
    /// Certificate authorities to trust beside the system's (`--ca-file`), over the connection
    /// file's.
    pub ca_file: Option<PathBuf>,
}

/// A gateway's address and token.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The base URL.
    pub url: String,
    /// The bearer token.
    pub token: String,
    /// The process serving it, when read from `gateway.json`.
    pub pid: Option<u32>,
    /// The private socket to send requests over instead of TCP, when there is one.
    pub socket: Option<PathBuf>,
    /// Certificate authorities to trust for an `https://` URL beside the system's.
    pub ca_file: Option<PathBuf>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a secret: never in logs or Debug output.
        f.debug_struct("Endpoint")
            .field("url", &self.url)
            .field("pid", &self.pid)
            .field("socket", &self.socket)
            .field("ca_file", &self.ca_file)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Locator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a secret: never in logs or Debug output.
        f.debug_struct("Locator").field("data_dir", &self.data_dir).field("url", &self.url).finish_non_exhaustive()
    }
}

impl Locator {
    /// Looks in `data_dir` only.
    pub fn new(data_dir: impl Into<PathBuf>) -> Locator {
        Locator { data_dir: data_dir.into(), url: None, token: None, ca_file: None }
    }

    /// The gateway's address and token as of now (the file is read on every call, so a
    /// restarted Beckon on a new port is found). In order: a URL and token given outright;
    /// `gateway.json` (a Beckon on this machine); the connection file (a Beckon on another
    /// machine, reached through a tunnel). What was given outright fills in what a file lacks.
    pub fn locate(&self) -> ClientResult<Endpoint> {
        let (remote, named) = RemoteConnection::path(&self.data_dir);
        self.locate_with(&remote, named)
    }

    fn locate_with(&self, remote: &Path, named: bool) -> ClientResult<Endpoint> {
        if let (Some(url), Some(token)) = (&self.url, &self.token) {
            return Ok(Endpoint {
                url: trim_url(url),
                token: token.clone(),
                pid: None,
                socket: None,
                ca_file: self.ca_file.clone(),
            });
        }
        let path = Discovery::path(&self.data_dir);
        let found = match Discovery::read(&self.data_dir) {
            Ok(found) => found,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return self.elsewhere(path, remote, named),
            Err(err) => return Err(ClientError::Discovery { path, detail: err.to_string() }),
        };
        if !process_alive(found.pid) {
            return Err(ClientError::Stale { path, pid: found.pid });
        }
        // A URL given outright is where the caller wants to go; otherwise the socket, if its file
        // is there (a missing one leaves TCP, which still works).
        let socket = match &self.url {
            Some(_) => None,
            None => found.socket.filter(|socket| socket.exists()),
        };
        Ok(Endpoint {
            url: trim_url(self.url.as_deref().unwrap_or(&found.url)),
            token: self.token.clone().unwrap_or(found.token),
            pid: Some(found.pid),
            socket,
            ca_file: self.ca_file.clone(),
        })
    }

    /// No Beckon on this machine: the one the connection file at `remote` names, if there is
    /// one (it must be, when `named` outright).
    fn elsewhere(&self, gateway_json: PathBuf, remote: &Path, named: bool) -> ClientResult<Endpoint> {
        match RemoteConnection::read(remote) {
            Ok(found) => Ok(Endpoint {
                url: trim_url(self.url.as_deref().unwrap_or(&found.url)),
                token: self.token.clone().unwrap_or(found.token),
                pid: None,
                socket: None,
                ca_file: self.ca_file.clone().or(found.ca_file),
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && !named => Err(match &self.url {
                Some(url) => ClientError::NoToken { url: url.clone(), path: gateway_json },
                None => ClientError::NotRunning { at: gateway_json.display().to_string() },
            }),
            Err(err) => Err(ClientError::Discovery { path: remote.to_path_buf(), detail: err.to_string() }),
        }
    }

    /// The data folder.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }
}

/// What refused the server's certificate, when that is why `err` failed: the TLS handshake's
/// own words, and what to do.
pub(crate) fn certificate_refused(err: &reqwest::Error) -> Option<String> {
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(err);
    while let Some(cause) = source {
        let text = cause.to_string();
        if text.contains("certificate") {
            return Some(crate::trust::with_hint(text));
        }
        source = cause.source();
    }
    None
}

/// Whether process `pid` is running. Where that cannot be told, it is taken to be: the proof
/// the server must give before anything is sent still stands between a stale file and a
/// stranger.
fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") { Path::new("/proc").join(pid.to_string()).exists() } else { true }
}

fn trim_url(url: &str) -> String {
    url.trim().trim_end_matches('/').to_owned()
}

/// Calls one gateway, once it has proved it knows the token (see [`crate::proof`]).
#[derive(Debug, Clone)]
pub struct GatewayClient {
    /// What requests go through: a client of the socket, or of TCP.
    http: reqwest::Client,
    /// The socket requests go over; none for TCP.
    socket: Option<PathBuf>,
    endpoint: Endpoint,
    name: String,
    proved: Arc<OnceCell<()>>,
}

impl GatewayClient {
    /// A client of `endpoint` that names itself `name`: over the endpoint's socket when it has
    /// one, else over TCP with `http`.
    pub fn new(http: reqwest::Client, endpoint: Endpoint, name: &str) -> GatewayClient {
        let local = endpoint
            .socket
            .as_ref()
            .and_then(|socket| local_socket::client(socket, CONNECT_TIMEOUT).map(|client| (client, socket.clone())));
        let (http, socket) = match local {
            Some((local, socket)) => (local, Some(socket)),
            None => (http, None),
        };
        GatewayClient { http, socket, endpoint, name: name.to_owned(), proved: Arc::new(OnceCell::new()) }
    }

    /// A client of the gateway at `endpoint` over an HTTP client fit for it (see
    /// [`GatewayClient::http_for`]).
    pub fn connect(endpoint: Endpoint, name: &str) -> ClientResult<GatewayClient> {
        let http = GatewayClient::http_for(&endpoint)?;
        Ok(GatewayClient::new(http, endpoint, name))
    }

    /// An HTTP client fit for `endpoint`: for an `https://` URL (a team server), one that also
    /// trusts the system's certificate authorities and the endpoint's CA file; else
    /// [`GatewayClient::http`].
    pub fn http_for(endpoint: &Endpoint) -> ClientResult<reqwest::Client> {
        if !endpoint.url.starts_with("https://") || endpoint.socket.is_some() {
            return GatewayClient::http();
        }
        let authorities = crate::trust::authorities(endpoint.ca_file.as_deref())
            .map_err(|detail| ClientError::Certificate { url: endpoint.url.clone(), detail })?;
        let builder = authorities
            .into_iter()
            .fold(reqwest::Client::builder().connect_timeout(CONNECT_TIMEOUT), |builder, authority| {
                builder.add_root_certificate(authority)
            });
        builder.build().map_err(|err| ClientError::Transport {
            url: endpoint.url.clone(),
            detail: format!("cannot set up HTTPS: {err}"),
        })
    }

    /// An HTTP client fit for the gateway over TCP: loopback, so connecting is quick or not at
    /// all.
    pub fn http() -> ClientResult<reqwest::Client> {
        reqwest::Client::builder().connect_timeout(CONNECT_TIMEOUT).build().map_err(|err| ClientError::Transport {
            url: "the gateway".into(),
            detail: format!("cannot set up HTTP: {err}"),
        })
    }

    /// Where it calls.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// The private socket requests go over; none when they go over TCP.
    pub fn socket(&self) -> Option<&Path> {
        self.socket.as_deref()
    }

    /// Where requests go, as errors name it: the socket's path when over the socket.
    fn address(&self) -> String {
        match &self.socket {
            Some(socket) => socket.display().to_string(),
            None => self.endpoint.url.clone(),
        }
    }

    /// Asks the server to prove it knows the token, once: nothing carrying the token, or
    /// anything else, is sent before it has. For an ask-only token or a team server's admin
    /// token the server proves it knows the token's hash (all it keeps), named by its hint.
    async fn check_server(&self) -> ClientResult<()> {
        let challenge = crate::proof::challenge();
        let token = &self.endpoint.token;
        let (key, hint) = if token_secret::is_kept_hashed(token) {
            let hash = token_secret::hash(token);
            (token_secret::proof_key(&hash), Some(token_secret::hint(&hash)))
        } else {
            (token.clone(), None)
        };
        let mut request = self.http.get(self.url(crate::proof::PROOF_PATH)).query(&[("challenge", &challenge)]);
        if let Some(hint) = &hint {
            request = request.query(&[("token", hint)]);
        }
        let response = request.timeout(REQUEST_MARGIN).send().await.map_err(|err| self.transport(err))?;
        let status = response.status();
        let bytes = self.read_bounded(response, PROOF_MAX_BYTES).await?;
        match serde_json::from_slice::<Proof>(&bytes) {
            Ok(Proof { proof }) if crate::proof::verify(&key, &challenge, &proof) => Ok(()),
            // The token is not live there (revoked): nothing was sent, and the caller is told why.
            _ if hint.is_some() && status == StatusCode::UNAUTHORIZED => {
                match serde_json::from_slice::<Refusal>(&bytes) {
                    Ok(refusal) => Err(ClientError::Api { status: status.as_u16(), body: Box::new(refusal.error) }),
                    Err(_) => Err(ClientError::Impostor { url: self.address() }),
                }
            }
            _ => Err(ClientError::Impostor { url: self.address() }),
        }
    }

    /// The response's body, refused past `limit` bytes without reading further.
    async fn read_bounded(&self, mut response: reqwest::Response, limit: usize) -> ClientResult<Vec<u8>> {
        let too_large = || ClientError::TooLarge { url: self.address(), limit };
        if response.content_length().is_some_and(|length| length > limit as u64) {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|err| self.transport(err))? {
            if bytes.len() + chunk.len() > limit {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    }

    /// Sends `request` (see [`GatewayClient::respond`]) and reads its answer as `T`, the type
    /// the route answers with.
    async fn send<T: DeserializeOwned>(&self, request: reqwest::RequestBuilder, timeout: Duration) -> ClientResult<T> {
        let response = self.respond(request.timeout(timeout)).await?;
        let bytes = self.read_bounded(response, RESPONSE_MAX_BYTES).await?;
        serde_json::from_slice(&bytes)
            .map_err(|err| ClientError::Unreadable { url: self.address(), detail: err.to_string() })
    }

    /// Sends `request` with the token, once the server has proved itself, and hands back a
    /// successful response with its body unread; a refusal becomes [`ClientError::Api`].
    async fn respond(&self, request: reqwest::RequestBuilder) -> ClientResult<reqwest::Response> {
        self.proved.get_or_try_init(|| self.check_server()).await?;
        let response = request
            .bearer_auth(&self.endpoint.token)
            .header("x-beckon-client", &self.name)
            .header(crate::VERSION_HEADER, "2")
            .send()
            .await
            .map_err(|err| self.transport(err))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let bytes = self.read_bounded(response, RESPONSE_MAX_BYTES).await?;
        let body =
            serde_json::from_slice::<Refusal>(&bytes).map(|refusal| refusal.error).unwrap_or_else(|_| ErrorBody {
                kind: kind_for(status),
                message: format!("the gateway answered {status}: {}", String::from_utf8_lossy(&bytes).trim()),
                field: None,
                problems: vec![],
                winner: None,
            });
        Err(ClientError::Api { status: status.as_u16(), body: Box::new(body) })
    }

    fn transport(&self, err: reqwest::Error) -> ClientError {
        if let Some(detail) = certificate_refused(&err) {
            ClientError::Certificate { url: self.address(), detail }
        } else if err.is_connect() {
            ClientError::NotRunning { at: self.address() }
        } else {
            ClientError::Transport { url: self.address(), detail: err.to_string() }
        }
    }

    fn url(&self, path: &str) -> String {
        let base = if self.socket.is_some() { local_socket::BASE_URL } else { &self.endpoint.url };
        format!("{base}{path}")
    }

    /// `GET /v1/health`: whether Beckon is up, and how many questions wait.
    pub async fn health(&self) -> ClientResult<Health> {
        self.send(self.http.get(self.url("/v1/health")), REQUEST_MARGIN).await
    }

    /// `POST /v1/questions` with `body` (`agent`, `questions`, `session_key`, `timeout`, …):
    /// the created question's id, session, deadline and links. Sent once: a connection that
    /// breaks after the request may have left the question asked, which is
    /// [`ClientError::AskUnsure`], never a second ask.
    pub async fn ask(&self, body: &Value) -> ClientResult<QuestionCreated> {
        // Proved first, so that a failure below is the ask's own.
        self.proved.get_or_try_init(|| self.check_server()).await?;
        let request = self.http.post(self.url("/v1/questions")).json(body);
        self.send(request, REQUEST_MARGIN).await.map_err(|err| match err {
            // A refused connection sent nothing ([`ClientError::NotRunning`]); this one may have.
            ClientError::Transport { url, detail } => ClientError::AskUnsure { url, detail },
            other => other,
        })
    }

    /// `GET /v1/questions/{id}`, held up to `wait` (at most 120 s) until it resolves.
    pub async fn question(&self, id: &str, wait: Duration) -> ClientResult<QuestionView> {
        let mut request = self.http.get(self.url(&format!("/v1/questions/{}", request_id(id)?)));
        if !wait.is_zero() {
            request = request.query(&[("wait", wait.as_secs_f64())]);
        }
        self.send(request, wait + REQUEST_MARGIN).await
    }

    /// `GET /v1/questions?status=pending`: every pending question, oldest first.
    pub async fn pending(&self) -> ClientResult<Vec<QuestionView>> {
        let request = self
            .http
            .get(self.url("/v1/questions"))
            .query(&[("status", QuestionStatus::Pending.as_str()), ("limit", "500")]);
        let listed: QuestionList = self.send(request, REQUEST_MARGIN).await?;
        Ok(listed.questions)
    }

    /// `POST /v1/questions/{id}/answer` with one text per question (labels select options).
    pub async fn answer(&self, id: &str, texts: &[String]) -> ClientResult<QuestionView> {
        let request = self
            .http
            .post(self.url(&format!("/v1/questions/{}/answer", request_id(id)?)))
            .json(&json!({"answers": texts}));
        self.send(request, REQUEST_MARGIN).await
    }

    /// `POST /v1/questions/{id}/cancel`: withdraws a question this client asked.
    pub async fn cancel(&self, id: &str, reason: &str) -> ClientResult<QuestionView> {
        let request = self
            .http
            .post(self.url(&format!("/v1/questions/{}/cancel", request_id(id)?)))
            .json(&json!({"reason": reason}));
        self.send(request, REQUEST_MARGIN).await
    }

    /// `PUT /v1/notices/{key}` with `body` (`agent`, `message`, `project`): tells the person an
    /// agent waits for them; the notice as shown.
    pub async fn post_notice(&self, key: &str, body: &Value) -> ClientResult<Notice> {
        let request = self.http.put(self.url(&format!("/v1/notices/{}", path_segment(key)))).json(body);
        self.send(request, REQUEST_MARGIN).await
    }

    /// `DELETE /v1/notices/{key}`: the agent went on; whether a notice was shown.
    pub async fn clear_notice(&self, key: &str) -> ClientResult<NoticeCleared> {
        let request = self.http.delete(self.url(&format!("/v1/notices/{}", path_segment(key))));
        self.send(request, REQUEST_MARGIN).await
    }

    /// `POST /v1/tokens`: makes an ask-only token named `name`; the token and its secret, the
    /// secret shown this once. Needs the person's token.
    pub async fn create_token(&self, name: &str, owner: Option<&str>) -> ClientResult<CreatedToken> {
        let mut body = json!({"name": name, "kind": TokenKind::AskOnly});
        if let Some(owner) = owner {
            body["owner"] = json!(owner);
        }
        let request = self.http.post(self.url("/v1/tokens")).json(&body);
        self.send(request, REQUEST_MARGIN).await
    }

    /// `GET /v1/tokens`: the live tokens, newest first.
    pub async fn tokens(&self) -> ClientResult<Vec<TokenView>> {
        let listed: TokenList = self.send(self.http.get(self.url("/v1/tokens")), REQUEST_MARGIN).await?;
        Ok(listed.tokens)
    }

    /// `DELETE /v1/tokens/{name}`: revokes the live token of that name; the token as revoked.
    pub async fn revoke_token(&self, name: &str) -> ClientResult<TokenView> {
        let request = self.http.delete(self.url(&format!("/v1/tokens/{}", path_segment(name))));
        let revoked: TokenRevoked = self.send(request, REQUEST_MARGIN).await?;
        Ok(revoked.token)
    }

    /// `GET /v1/audit` with `query` (`since_ms`, `until_ms`, `agent`, `format`): the audit
    /// trail written to `out` piece by piece as it arrives, never held whole; how many bytes.
    pub async fn audit(&self, query: &[(&str, String)], out: &mut impl std::io::Write) -> ClientResult<u64> {
        let mut response = self.respond(self.http.get(self.url("/v1/audit")).query(query)).await?;
        let mut written = 0;
        while let Some(chunk) = response.chunk().await.map_err(|err| self.transport(err))? {
            out.write_all(&chunk).map_err(|err| ClientError::Transport {
                url: self.address(),
                detail: format!("could not write the export: {err}"),
            })?;
            written += chunk.len() as u64;
        }
        out.flush().map_err(|err| ClientError::Transport {
            url: self.address(),
            detail: format!("could not write the export: {err}"),
        })?;
        Ok(written)
    }

    /// `POST /v1/questions/{id}/decline`.
    pub async fn decline(&self, id: &str, reason: Option<&str>) -> ClientResult<QuestionView> {
        let request = self
            .http
            .post(self.url(&format!("/v1/questions/{}/decline", request_id(id)?)))
            .json(&json!({"reason": reason}));
        self.send(request, REQUEST_MARGIN).await
    }
}

/// A question id, read before it goes into a path, so a typo cannot reach another route; the
/// refusal quotes what was given, as the gateway's would.
fn request_id(id: &str) -> ClientResult<RequestId> {
    RequestId::parse(id).map_err(ClientError::InvalidId)
}

/// `text` as one path segment: anything but letters, digits and `-._:` percent-encoded.
fn path_segment(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._:".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn kind_for(status: StatusCode) -> ErrorKind {
    match status {
        StatusCode::NOT_FOUND => ErrorKind::NotFound,
        StatusCode::UNAUTHORIZED => ErrorKind::Unauthorized,
        StatusCode::CONFLICT => ErrorKind::AlreadyResolved,
        StatusCode::UNPROCESSABLE_ENTITY => ErrorKind::InvalidInput,
        StatusCode::TOO_MANY_REQUESTS => ErrorKind::RateLimited,
        _ => ErrorKind::Internal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_means_not_running_and_says_where_it_looked() {
        let dir = tempfile::tempdir().unwrap();
        let err = Locator::new(dir.path()).locate().unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, ClientError::NotRunning { .. }), "{text}");
        assert!(text.contains("gateway.json") && text.contains("`beckon serve`"), "{text}");
    }

    #[test]
    fn a_url_and_token_override_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let pid = std::process::id();
        Discovery { url: "http://127.0.0.1:1".into(), token: "from-file".into(), pid, socket: None }
            .write(dir.path())
            .unwrap();
        let mut locator = Locator::new(dir.path());
        assert_eq!(locator.locate().unwrap().token, "from-file");
        locator.url = Some("http://127.0.0.1:2/".into());
        let endpoint = locator.locate().unwrap();
        assert_eq!((endpoint.url.as_str(), endpoint.token.as_str()), ("http://127.0.0.1:2", "from-file"));
        locator.token = Some("given".into());
        assert_eq!(locator.locate().unwrap().pid, None);
        assert!(!format!("{:?}", locator.locate().unwrap()).contains("given"), "the token stays out of Debug");
        assert!(!format!("{locator:?}").contains("given"));
        let elsewhere = Locator { token: None, ..Locator::new(dir.path().join("none")) };
        let err = Locator { url: Some("http://127.0.0.1:2".into()), ..elsewhere }.locate().unwrap_err();
        assert!(matches!(err, ClientError::NoToken { .. }), "{err}");
    }

    #[test]
    fn without_gateway_json_the_connection_file_is_used_and_flags_still_win() {
        let dir = tempfile::tempdir().unwrap();
        let remote = dir.path().join("remote.json");
        RemoteConnection { url: "http://127.0.0.1:7393/".into(), token: "bkn_ask_x".into(), ca_file: None }
            .write(&remote)
            .unwrap();
        let locator = Locator::new(dir.path());
        let endpoint = locator.locate_with(&remote, false).unwrap();
        assert_eq!((endpoint.url.as_str(), endpoint.token.as_str()), ("http://127.0.0.1:7393", "bkn_ask_x"));
        assert_eq!((endpoint.pid, endpoint.socket), (None, None), "over TCP, to the tunnel");

        let given = Locator { url: Some("http://127.0.0.1:9".into()), token: Some("given".into()), ..locator.clone() };
        assert_eq!(given.locate_with(&remote, false).unwrap().token, "given", "URL and token given outright win");

        let pid = std::process::id();
        Discovery { url: "http://127.0.0.1:1".into(), token: "local".into(), pid, socket: None }
            .write(dir.path())
            .unwrap();
        assert_eq!(locator.locate_with(&remote, false).unwrap().token, "local", "a Beckon here comes first");
    }

    #[test]
    fn a_connection_file_named_outright_must_exist_and_be_private() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nowhere.json");
        let locator = Locator::new(dir.path());
        assert!(matches!(locator.locate_with(&missing, false), Err(ClientError::NotRunning { .. })));
        let err = locator.locate_with(&missing, true).unwrap_err();
        assert!(matches!(&err, ClientError::Discovery { path, .. } if path == &missing), "{err}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let open = dir.path().join("open.json");
            std::fs::write(&open, r#"{"url": "http://127.0.0.1:1", "token": "t"}"#).unwrap();
            std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
            let err = locator.locate_with(&open, false).unwrap_err();
            assert!(err.to_string().contains("others may read it"), "{err}");
        }
    }

    #[test]
    fn ids_cannot_escape_their_path_segment() {
        let err = request_id("../v1/health?x").unwrap_err();
        assert!(err.to_string().starts_with(r#"request_id: "../v1/health?x" is not a valid id"#), "{err}");
        let err = request_id("a\u{202E}b\n").unwrap_err();
        assert!(
            err.to_string().contains(r#""a\u{202e}b\n" is not a valid id"#),
            "controls and bidi are escaped: {err}"
        );
        assert!(request_id("").is_err());
        let long = request_id(&"x/".repeat(5_000)).unwrap_err().to_string();
        assert!(long.contains(&"x/".repeat(32)) && !long.contains(&"x/".repeat(33)), "a long id is cut short: {long}");
        let id = "0190f1d2-0000-7000-8000-00000000beef";
        assert_eq!(request_id(id).unwrap().to_string(), id);
    }
}
