//! `beckon-server`'s command line: `beckon`'s own (the same name, the same ways to find Beckon),
//! with the commands served here.

use beckon_cli::cli::Connection;
use clap::{Args, Parser, Subcommand};

/// Run Beckon without a window, or serve MCP over stdio.
#[derive(Debug, Parser)]
#[command(name = "beckon", bin_name = "beckon", version, about, propagate_version = true)]
pub struct ServerCli {
    /// Where to find Beckon.
    #[command(flatten)]
    pub connection: Connection,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands served here.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run Beckon without a window: the runtime and its gateway, until SIGINT or SIGTERM.
    Serve(Box<ServeArgs>),
    /// Serve MCP over stdin/stdout, passing questions to the running Beckon.
    Mcp,
    /// Print the secret callbacks are signed with, read from the data folder's database
    /// (`beckon status --secret`).
    #[command(hide = true)]
    CallbackSecret(SecretArgs),
}

/// `callback-secret`.
#[derive(Debug, Args)]
pub struct SecretArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `beckon serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The port on 127.0.0.1 (0 picks a free one); else `BECKON_GATEWAY_PORT`, else the
    /// settings' port, else 7393.
    #[arg(long)]
    pub port: Option<u16>,
    /// Make a Telegram pairing code (good for ten minutes) and print it here, on standard
    /// output only: send `/start <code>` to the bot from your own chat to pair it. The code is
    /// never logged.
    #[arg(long)]
    pub pair_telegram: bool,
    /// Keep everything in this PostgreSQL database (`postgres://user@host:port/name`) instead of
    /// the data folder's `beckon.db`, shared by every replica given the same one. Migrated on
    /// start (once, when replicas start together). TLS as libpq reads it: `?sslmode=verify-full`
    /// (or `require`, `verify-ca`; `prefer` by default) and `sslrootcert=FILE` (else --ca-file,
    /// else the system's authorities).
    #[arg(long, env = "BECKON_DATABASE_URL", value_name = "URL", hide_env_values = true)]
    pub database: Option<String>,
    /// The address to listen on (127.0.0.1 unless a team server needs another; beyond loopback
    /// it needs --tls-cert and --tls-key, or a TLS reverse proxy in front with this kept on
    /// 127.0.0.1, or --allow-plain-http).
    #[arg(long, value_name = "IP")]
    pub listen: Option<std::net::IpAddr>,
    /// Serve HTTPS on the port with this certificate chain (PEM, the server's own certificate
    /// first), read at start; needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The certificate's private key (PEM); needs --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// The URL people and agents reach this server by (`https://beckon.example.com`, the TLS
    /// reverse proxy's): answer links carry it, and requests may name its host.
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
    /// Serve plain HTTP on an address beyond loopback (tokens and answers cross the network
    /// unencrypted: only for a network you trust).
    #[arg(long)]
    pub allow_plain_http: bool,
    /// How long a replica's claim on shared work (callbacks, Slack and Telegram, each in-app
    /// session) lasts unless renewed, in seconds: how long the work of a replica that died waits
    /// before another takes it up (PostgreSQL only; at least 2).
    #[arg(long, value_name = "SECONDS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(2..=3600))]
    pub lease_seconds: u64,
    /// Let people sign in with the team's OpenID Connect provider at this issuer URL (its
    /// discovery document is read at start). Register Beckon there with the redirect URI
    /// `<public URL>/auth/callback`.
    #[arg(long, value_name = "URL", requires = "oidc_client_id")]
    pub oidc_issuer: Option<String>,
    /// Beckon's client id at the provider.
    #[arg(long, value_name = "ID", requires = "oidc_issuer")]
    pub oidc_client_id: Option<String>,
    /// A file holding Beckon's client secret at the provider (else `BECKON_OIDC_CLIENT_SECRET`;
    /// neither for a public client).
    #[arg(long, value_name = "FILE", requires = "oidc_issuer")]
    pub oidc_client_secret_file: Option<std::path::PathBuf>,
    /// The provider's group (its `groups` claim) whose members are admins: they manage tokens
    /// and read the whole audit trail (everyone else reads their share).
    #[arg(long, value_name = "GROUP", default_value = "beckon-admins", requires = "oidc_issuer")]
    pub oidc_admin_group: String,
    /// The claim that holds a person's groups, in the ID token or the userinfo response: its name
    /// (`groups`; `roles` for Entra ID app roles; a namespaced URL), or a dotted path into an
    /// object claim (`realm_access.roles` for Keycloak's realm roles).
    #[arg(long, value_name = "CLAIM", default_value = "groups", requires = "oidc_issuer")]
    pub oidc_groups_claim: String,
    /// Also ask the provider for this scope, beside `openid email profile` (Dex, for one, sends
    /// groups only for the `groups` scope); repeat for several.
    #[arg(long = "oidc-scope", value_name = "SCOPE", requires = "oidc_issuer")]
    pub oidc_scopes: Vec<String>,
    /// The window's built files (`ui/dist` after `npm run build` in `ui/`), served at `/` to
    /// people who sign in: the desktop app's inbox, in their browsers.
    #[arg(long, value_name = "DIR", requires = "oidc_issuer")]
    pub ui_dir: Option<std::path::PathBuf>,
    /// Send callbacks and pushes to any address, loopback and private ones too, as the desktop app does:
    /// for a server of one person's own, on their own machine. Without it, callbacks go to
    /// public addresses only (and those --allow-callbacks-to names), checked when a question is
    /// asked (422) and on the addresses a receiver's name resolves to when it is sent (given
    /// up): whoever may ask could otherwise make the server POST to what only it can reach (a
    /// cloud metadata service, an admin port, the private network). Callbacks checked so are
    /// sent directly, never through HTTP(S)_PROXY, which would connect past the check.
    #[arg(long, conflicts_with = "allow_callbacks_to")]
    pub allow_private_callbacks: bool,
    /// Also send callbacks and pushes to this network (`10.20.0.0/16`, `fd00::/8`) or address
    /// (`10.20.0.7`), whether a callback URL names it or its host name resolves to it; repeat
    /// for several.
    #[arg(long, value_name = "NETWORK")]
    pub allow_callbacks_to: Vec<beckon_runtime::callbacks::Network>,
    /// How long a person's sign-in lasts (a browser's session or a connected app's), in hours,
    /// before they must sign in again; admins end one sooner with `DELETE
    /// /v1/people/<subject>/sessions`.
    #[arg(long, value_name = "HOURS", default_value_t = 168, value_parser = clap::value_parser!(u64).range(1..=8760))]
    pub session_hours: u64,
    /// How many days a person's Slack or Telegram pairing answers for them after they last signed
    /// in: someone who stops signing in (who left the team) stops answering from their phone.
    #[arg(long, value_name = "DAYS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3650))]
    pub pairing_days: u64,
    /// Serve Prometheus metrics at `http://ADDR/metrics` (`127.0.0.1:9464`), on a listener of
    /// their own, never the gateway's port. They need no token and tell counts only (what waits,
    /// connections, responses, sign-ins), but keep the address private: loopback, or a network
    /// only the scraper reaches.
    #[arg(long, value_name = "ADDR")]
    pub metrics_listen: Option<std::net::SocketAddr>,
    #[command(flatten)]
    pub capacity: ServeCapacity,
}

/// How much one replica holds at once, and each caller's share of it. The defaults suit a team
/// of about 200 people, each with a window or two open and agents waiting.
#[derive(Debug, Clone, Copy, Args)]
pub struct ServeCapacity {
    /// Connections open at once on the port; one more is closed as soon as it is accepted.
    #[arg(long, value_name = "N", default_value_t = 2048, value_parser = clap::value_parser!(u32).range(8..=65536))]
    pub max_connections: u32,
    /// Connections one network address may hold before a request on them shows a token or a
    /// signed-in session (behind a load balancer, the balancer's address).
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub stranger_connections: u32,
    /// Event streams (the window's live updates) open at once.
    #[arg(long, value_name = "N", default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_event_streams: u32,
    /// Event streams one person or token may hold at once (their windows, apps and phones).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub event_streams_per_caller: u32,
    /// Long-polls (agents waiting on `?wait=`) held at once.
    #[arg(long, value_name = "N", default_value_t = 1200, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_long_polls: u32,
    /// Long-polls one person or token may hold at once.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub long_polls_per_caller: u32,
    /// How long a request's body may take to arrive once its head has, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub body_timeout: u64,
}

impl ServeCapacity {
    /// The gateway's connection limits with these numbers.
    pub fn limits(self) -> beckon_gateway::ConnectionLimits {
        let defaults = beckon_gateway::ConnectionLimits::default();
        beckon_gateway::ConnectionLimits {
            max_connections: self.max_connections as usize,
            stranger_connections_per_address: self.stranger_connections as usize,
            max_event_streams: self.max_event_streams as usize,
            event_streams_per_caller: self.event_streams_per_caller as usize,
            max_long_polls: self.max_long_polls as usize,
            long_polls_per_caller: self.long_polls_per_caller as usize,
            body_timeout: std::time::Duration::from_secs(self.body_timeout),
            ..defaults
        }
    }
}
