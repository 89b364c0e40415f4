//! Beckon's front door for the agents it does not run: an HTTP API (and, in the same server,
//! MCP) on 127.0.0.1 only, behind a bearer token written to `gateway.json` in the data folder.
//! Beckon's own clients come in by a side door with the same routes and token: a private
//! socket in the data folder (see [`local_socket`]). Every handler calls the runtime's service
//! API; no business rule lives here.

mod addressed;
mod app_sign_in;
pub mod audit;
mod auth;
pub mod bodies;
mod body;
mod connection_limits;
mod cookies;
mod error;
mod events;
pub mod fuzzing;
mod guard;
pub mod local_socket;
pub mod mcp;
mod meta;
mod metrics;
mod notices;
mod people;
mod people_claims;
pub mod permissions;
mod places;
pub mod principal;
pub mod proof;
mod public;
mod questions;
mod rate;
mod rejections;
mod serve;
mod sessions;
pub mod sign_in;
mod state;
pub mod strangers;
pub mod team_inbox;
mod tls;
mod tokens;
mod views;
mod window;
mod window_page;

// The client moved to its own crate; these paths stay for the crates that named them here.
pub use beckon_client::{client, discovery, trust};

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post, put};
use beckon_runtime::Beckon;
use tokio_util::sync::CancellationToken;

pub use client::{ClientError, GatewayClient, Locator};
pub use connection_limits::ConnectionLimits;
pub use discovery::Discovery;
pub use error::{ApiError, GatewayError};
pub use mcp::MCP_PATH;
pub use meta::OPENAPI;
pub use metrics::METRICS_PATH;
pub use principal::Principal;
pub use proof::PROOF_PATH;
pub use public::PublicUrl;
pub use serve::{ConnectionId, Transport};
pub use tls::{Tls, TlsFiles};

/// The port the gateway listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = beckon_runtime::settings::DEFAULT_GATEWAY_PORT;

/// Every REST route: (method, path). The OpenAPI document must describe exactly these.
pub const ROUTES: &[(&str, &str)] = &[
    ("post", "/v1/questions"),
    ("get", "/v1/questions"),
    ("get", "/v1/questions/{id}"),
    ("post", "/v1/questions/{id}/answer"),
    ("post", "/v1/questions/{id}/decline"),
    ("post", "/v1/questions/{id}/cancel"),
    ("get", "/v1/sessions/{id}"),
    ("post", "/v1/sessions/{id}/answer"),
    ("post", "/v1/sessions/{id}/cancel"),
    ("post", "/v1/agents/{name}/trigger"),
    ("get", "/v1/notices"),
    ("put", "/v1/notices/{key}"),
    ("delete", "/v1/notices/{key}"),
    ("get", "/v1/events"),
    ("get", "/v1/health"),
    ("get", "/v1/proof"),
    ("get", "/v1/openapi.json"),
    ("post", "/v1/tokens"),
    ("get", "/v1/tokens"),
    ("delete", "/v1/tokens/{name}"),
    ("get", "/v1/people"),
    ("delete", "/v1/people/{subject}/sessions"),
    ("delete", "/v1/people/{subject}/pairings"),
    ("get", "/v1/audit"),
    ("get", "/v1/me"),
    ("get", "/livez"),
    ("get", "/readyz"),
];

/// How the gateway runs.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    /// The port (0 picks a free one).
    pub port: u16,
    /// The address to listen on: 127.0.0.1 unless a team server is told otherwise.
    pub listen: std::net::IpAddr,
    /// The address people and agents reach a team server by, when it is not the listening one
    /// (a TLS reverse proxy in front): links carry it, and requests may name its host.
    pub public_url: Option<PublicUrl>,
    /// TLS on the TCP port (a team server without a reverse proxy); plain HTTP without it.
    pub tls: Option<Tls>,
    /// Where `gateway.json` goes.
    pub data_dir: PathBuf,
    /// Writes per second each client may make, sustained.
    pub writes_per_second: f64,
    /// Writes each client may make at once.
    pub write_burst: f64,
    /// Sign-in requests and failed authentications each network address may make per second,
    /// sustained (its own budget, never the writes' above).
    pub stranger_per_second: f64,
    /// ... and at once.
    pub stranger_burst: f64,
    /// The largest request body, in bytes.
    pub body_limit: usize,
    /// How many connections may be open, and how long a request may take to arrive.
    pub limits: ConnectionLimits,
    /// People sign in through the team's identity provider (a team server).
    pub sign_in: Option<SignInConfig>,
    /// The window's built files (`ui/dist`), served to signed-in people's browsers.
    pub window_dir: Option<PathBuf>,
    /// The channels signed-in people may pair their own accounts on ("slack", "telegram"): those
    /// this server runs.
    pub pairable_channels: Vec<String>,
    /// Where to serve Prometheus metrics (`GET /metrics`, no token), on a listener of their own;
    /// nowhere unless asked for.
    pub metrics_listen: Option<SocketAddr>,
}

/// How a team server signs people in: Beckon's registration with the team's OpenID provider
/// (whose redirect URI must be `<public URL>/auth/callback`), and the provider's group whose
/// members are admins (they manage tokens and read the whole audit trail).
#[derive(Debug, Clone)]
pub struct SignInConfig {
    pub oidc: sign_in::OidcSettings,
    pub admin_group: String,
}

impl GatewayConfig {
    /// The defaults for a data folder.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        GatewayConfig {
            port: DEFAULT_PORT,
            listen: std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
            public_url: None,
            tls: None,
            data_dir: data_dir.into(),
            writes_per_second: 50.0,
            write_burst: 200.0,
            stranger_per_second: 5.0,
            stranger_burst: 30.0,
            body_limit: 256 * 1024,
            limits: ConnectionLimits::default(),
            sign_in: None,
            window_dir: None,
            pairable_channels: Vec::new(),
            metrics_listen: None,
        }
    }
}

/// A running gateway. Dropping it stops serving but leaves `gateway.json` and the socket file,
/// as a crash would; [`RunningGateway::stop`] removes them too.
pub struct RunningGateway {
    /// Its base URL.
    pub url: String,
    /// Its bearer token.
    pub token: String,
    /// Where it listens.
    pub addr: SocketAddr,
    /// The private socket Beckon's own clients use, when there is one.
    pub socket: Option<PathBuf>,
    /// Where metrics are served, when they are.
    pub metrics: Option<SocketAddr>,
    stop: CancellationToken,
    mcp_stop: CancellationToken,
    data_dir: PathBuf,
    socket_file: Option<local_socket::SocketFile>,
}

impl std::fmt::Debug for RunningGateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a credential: never in logs or panics.
        f.debug_struct("RunningGateway")
            .field("url", &self.url)
            .field("socket", &self.socket)
            .field("token", &"<redacted>")
            .finish_non_exhaustive()
    }
}

impl Drop for RunningGateway {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl RunningGateway {
    /// Stops serving and removes `gateway.json` and the socket.
    pub fn stop(self) {
        // MCP streams stay open until their sessions end, which would hold the server open.
        self.mcp_stop.cancel();
        self.stop.cancel();
        if let Some(file) = &self.socket_file {
            file.remove_if_ours();
        }
        Discovery::remove_if_ours(&self.data_dir);
    }
}

fn router(shared: Arc<Shared>, mcp_stop: CancellationToken) -> Router {
    let mcp = mcp::routes(shared.beckon.clone(), shared.body_limit, shared.max_mcp_sessions, mcp_stop);
    Router::new()
        .route("/v1/questions", post(questions::create).get(questions::list))
        .route("/v1/questions/{id}", get(questions::get))
        .route("/v1/questions/{id}/answer", post(questions::answer))
        .route("/v1/questions/{id}/decline", post(questions::decline))
        .route("/v1/questions/{id}/cancel", post(questions::cancel))
        .route("/v1/sessions/{id}", get(sessions::get))
        .route("/v1/sessions/{id}/answer", post(sessions::answer))
        .route("/v1/sessions/{id}/cancel", post(sessions::cancel))
        .route("/v1/agents/{name}/trigger", post(sessions::trigger))
        .route("/v1/notices", get(notices::list))
        .route("/v1/notices/{key}", put(notices::put).delete(notices::clear))
        .route("/v1/events", get(events::stream))
        .route("/v1/health", get(meta::health))
        .route(PROOF_PATH, get(meta::prove))
        .route("/v1/openapi.json", get(meta::openapi))
        .route("/v1/tokens", post(tokens::create).get(tokens::list))
        .route("/v1/tokens/{name}", axum::routing::delete(tokens::revoke))
        .route("/v1/people", get(people::list))
        .route("/v1/people/{subject}/sessions", axum::routing::delete(people::end_sessions))
        .route("/v1/people/{subject}/pairings", axum::routing::delete(people::unpair))
        .route("/v1/audit", get(audit::export))
        .route("/v1/me", get(auth::me))
        .route("/livez", get(meta::live))
        .route("/readyz", get(meta::ready))
        .route("/v1/window/{command}", post(window::call))
        .route("/auth/login", get(auth::login))
        .route("/auth/callback", get(auth::callback))
        .route("/auth/logout", post(auth::logout))
        .route(auth::SIGNED_OUT_PATH, get(auth::signed_out))
        .route("/auth/app", get(app_sign_in::ask).post(app_sign_in::consent))
        .route("/auth/app/token", post(app_sign_in::token))
        .layer(axum::middleware::map_response(rejections::as_json))
        .merge(mcp)
        .fallback(window_page::fallback)
        .layer(axum::middleware::from_fn_with_state(shared.clone(), guard::guard))
        .layer(axum::middleware::from_fn_with_state(shared.tally.clone(), metrics::count_responses))
        .with_state(shared)
}

use state::Shared;

/// Starts the gateway for `beckon` (the TCP port, and the private socket where there can be
/// one) and writes `gateway.json`.
pub async fn start(beckon: Beckon, config: GatewayConfig) -> Result<RunningGateway, GatewayError> {
    let listener = tokio::net::TcpListener::bind((config.listen, config.port))
        .await
        .map_err(|err| GatewayError::Bind { port: config.port, detail: err.to_string() })?;
    let addr =
        listener.local_addr().map_err(|err| GatewayError::Bind { port: config.port, detail: err.to_string() })?;
    let metrics_listener = metrics::MetricsListener::bind(config.metrics_listen).await?;
    // This machine's own clients come through loopback unless the server listens on one other
    // address only (over TLS they take the private socket: the certificate names the server's
    // public name, not 127.0.0.1).
    let scheme = if config.tls.is_some() { "https" } else { "http" };
    let url = if config.listen.is_loopback() || config.listen.is_unspecified() {
        format!("{scheme}://127.0.0.1:{}", addr.port())
    } else {
        format!("{scheme}://{}", addr)
    };
    let token = hex::encode(rand::random::<[u8; 32]>());
    let own_host = (!config.listen.is_loopback() && !config.listen.is_unspecified()).then(|| addr.to_string());
    let base = config.public_url.as_ref().map_or_else(|| url.clone(), |public| public.url.clone());
    // The provider is read before anything is written: a server set up to sign people in
    // does not start without being able to.
    if let Some(dir) = &config.window_dir
        && let Err(err) = std::fs::metadata(dir.join("index.html"))
    {
        return Err(GatewayError::Window { path: dir.clone(), detail: format!("no index.html: {err}") });
    }
    let mut undiscovered = None;
    let sign_in = match config.sign_in {
        None => None,
        Some(wanted) => {
            let party = Arc::new(sign_in::RelyingParty::new(
                wanted.oidc,
                format!("{}/auth/callback", base.trim_end_matches('/')),
            )?);
            // Agents need no provider: a replica starts while it is down, and people sign in
            // once it answers.
            if let Err(err) = party.discover().await {
                tracing::warn!(%err, "signing in waits for the identity provider");
                undiscovered = Some(party.clone());
            }
            Some(sign_in::SignIn { party, admin_group: wanted.admin_group })
        }
    };
    let secure = config.tls.is_some() || base.starts_with("https://");
    let strangers = strangers::Strangers::new(strangers::StrangerLimits {
        connections_per_address: config.limits.stranger_connections_per_address,
        per_second: config.stranger_per_second,
        burst: config.stranger_burst,
    });
    beckon.configuration().set_public_url(Some(base.clone()));
    let shared = Arc::new(Shared {
        beckon,
        token: token.clone(),
        port: addr.port(),
        public_url: config.public_url.clone(),
        own_host,
        url: base,
        rate: rate::RateLimiter::new(config.writes_per_second, config.write_burst),
        strangers: strangers.clone(),
        body_limit: config.body_limit,
        body_timeout: config.limits.body_timeout,
        long_polls: places::Places::new(
            "long-polls",
            config.limits.max_long_polls,
            config.limits.long_polls_per_caller,
        ),
        event_streams: places::Places::new(
            "event streams",
            config.limits.max_event_streams,
            config.limits.event_streams_per_caller,
        ),
        max_mcp_sessions: config.limits.max_mcp_sessions,
        // The window is for people who sign in.
        window_dir: sign_in.as_ref().and(config.window_dir.clone()),
        pairable_channels: config.pairable_channels.clone(),
        sign_in,
        cookies: cookies::Cookies { secure },
        tally: Arc::new(metrics::Tally::new(&config.limits)),
    });
    let socket = local_socket::open(&config.data_dir).await;
    let socket_path = socket.as_ref().map(|socket| socket.path().to_path_buf());
    let socket_file = socket.as_ref().map(local_socket::LocalSocket::file);
    let discovery =
        Discovery { url: url.clone(), token: token.clone(), pid: std::process::id(), socket: socket_path.clone() };
    if let Err(err) = discovery.write(&config.data_dir) {
        if let Some(file) = &socket_file {
            file.remove_if_ours();
        }
        return Err(GatewayError::Discovery { path: Discovery::path(&config.data_dir), detail: err.to_string() });
    }
    let stop = CancellationToken::new();
    if let Some(party) = undiscovered {
        tokio::spawn(sign_in::discover_until_reached(party, stop.clone()));
    }
    let mcp_stop = CancellationToken::new();
    let tally = shared.tally.clone();
    let metrics = metrics_listener.map(|listener| listener.serve(shared.clone(), config.limits, stop.clone()));
    let app = router(shared, mcp_stop.clone());
    let (limits, ids) = (config.limits, serve::ConnectionIds::default());
    let port = serve::Door::loopback(&limits, config.tls.clone(), tally.tcp.clone());
    let counted = (ids.clone(), strangers.clone());
    tokio::spawn(serve::serve(listener, port, app.clone(), limits, counted, stop.clone()));
    if let Some(socket) = socket {
        let door = serve::Door::local_socket(&limits, tally.socket.clone());
        tokio::spawn(serve::serve(socket, door, app, limits, (ids, strangers), stop.clone()));
    }
    tracing::info!(%url, socket = ?socket_path, tls = config.tls.is_some(), "gateway listening");
    Ok(RunningGateway {
        url,
        token,
        addr,
        socket: socket_path,
        metrics,
        stop,
        mcp_stop,
        data_dir: config.data_dir,
        socket_file,
    })
}
