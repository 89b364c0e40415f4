//! `beckon serve`: the runtime and its gateway with no window, for servers and webhook agents.
//! It starts from the settings the window saved on the same data folder (providers, retention,
//! the gateway's port, whether scripts may approve, Slack and Telegram), with the environment
//! over them; it refuses to start from settings the window would refuse to save. The person is
//! reached through the channels, callbacks (and these logs) instead of desktop notifications.
//! It faces a network: callbacks go to public addresses only, unless the operator allows more.
//! Runs until SIGINT or SIGTERM, then stops the gateway (removing `gateway.json`) and the
//! runtime.

use std::sync::Arc;

use beckon_cli::cli::Connection;
use beckon_cli::error::Exit;
use beckon_cli::signals::Signals;
use beckon_gateway::sign_in::OidcSettings;
use beckon_gateway::{GatewayConfig, PublicUrl, SignInConfig, Tls, TlsFiles};
use beckon_runtime::callbacks::CallbackDestinations;
use beckon_runtime::{Beckon, Notifier, PendingNotice, ResolvedNotice, Settings, StartOptions};

use crate::cli::ServeArgs;
use crate::error::{ServerError, ServerResult};
use crate::serve_channels::SharedChannels;

/// Who holds the data folder's lock, as a second Beckon on it is told.
const HOLDER: &str = "beckon serve";

/// Headless notifications: a log line per question and per notice, without their text.
#[derive(Debug)]
struct LoggedNotices;

impl Notifier for LoggedNotices {
    fn question_pending(&self, notice: &PendingNotice) {
        tracing::info!(
            request_id = %notice.request_id,
            session_id = %notice.session_id,
            origin = %notice.origin,
            "question pending"
        );
    }

    fn question_resolved(&self, notice: &ResolvedNotice) {
        tracing::info!(request_id = %notice.request_id, status = %notice.status, "question resolved");
    }

    fn notice_posted(&self, notice: &beckon_core::Notice) {
        tracing::info!(key = %notice.key, agent = %notice.agent, "notice posted");
    }

    fn notice_cleared(&self, key: &str) {
        tracing::info!(%key, "notice cleared");
    }
}

/// The person asked to pair a Telegram chat on a server with no window: a code, printed on
/// standard output for the person at the terminal and never through the log (which may be
/// kept or shipped elsewhere).
async fn pair_telegram(beckon: &Beckon, enabled: bool) {
    if !enabled {
        eprintln!("Telegram is off in the settings: no pairing code was made.");
        return;
    }
    match beckon_channels::new_telegram_pairing_code(beckon).await {
        Ok(beckon_channels::TelegramPairing { code: Some(code), .. }) => {
            println!("Telegram: send /start {code} to the bot from your own chat within ten minutes to pair it.");
            if let Err(err) = std::io::Write::flush(&mut std::io::stdout()) {
                eprintln!("cannot show the Telegram pairing code: {err}");
            }
        }
        Ok(_) => eprintln!("Telegram: no pairing code could be made."),
        Err(err) => eprintln!("Telegram: cannot make a pairing code: {err}"),
    }
}

/// Where the gateway listens and is reached, from `--listen`, `--public-url`, `--tls-cert`,
/// `--tls-key` and `--allow-plain-http`: plain HTTP beyond loopback only when asked for, with a
/// warning.
fn listen_on(config: &mut GatewayConfig, args: &ServeArgs) -> ServerResult<()> {
    if let (Some(certificate), Some(key)) = (&args.tls_cert, &args.tls_key) {
        let files = TlsFiles { certificate: certificate.clone(), key: key.clone() };
        config.tls = Some(Tls::load(&files)?);
    }
    if let Some(listen) = args.listen {
        let plain = config.tls.is_none() && !listen.is_loopback();
        if plain && !args.allow_plain_http {
            return Err(ServerError::Input(format!(
                "--listen {listen} would serve plain HTTP beyond this machine: give --tls-cert and --tls-key, or keep 127.0.0.1 and put a TLS reverse proxy in front (with --public-url https://…), or pass --allow-plain-http on a network you trust"
            )));
        }
        if plain {
            tracing::warn!(%listen, "serving plain HTTP beyond loopback: tokens and answers cross the network unencrypted");
        }
        config.listen = listen;
    }
    if let Some(text) = &args.public_url {
        let public = PublicUrl::parse(text).map_err(ServerError::Input)?;
        if public.is_plain_beyond_loopback() {
            if !args.allow_plain_http {
                return Err(ServerError::Input(format!(
                    "--public-url {} is plain HTTP beyond this machine: use https:// (a TLS reverse proxy, or --tls-cert and --tls-key), or pass --allow-plain-http on a network you trust",
                    public.url
                )));
            }
            tracing::warn!(url = %public.url, "the public URL is plain HTTP: tokens and answers cross the network unencrypted");
        }
        config.public_url = Some(public);
    }
    Ok(())
}

/// Where callbacks may go, from `--allow-private-callbacks` and `--allow-callbacks-to`: public
/// addresses, and what the operator allows.
fn callback_destinations(args: &ServeArgs) -> CallbackDestinations {
    if args.allow_private_callbacks {
        CallbackDestinations::Anywhere
    } else {
        CallbackDestinations::PublicAnd(args.allow_callbacks_to.clone())
    }
}

/// The environment variable a client secret may come in instead of a file.
const CLIENT_SECRET_ENV: &str = "BECKON_OIDC_CLIENT_SECRET";

/// How people sign in, from `--oidc-issuer`, `--oidc-client-id`, the client secret (a file, or
/// the environment) and `--oidc-admin-group`.
fn sign_in(args: &ServeArgs, ca_file: Option<&std::path::Path>) -> ServerResult<Option<SignInConfig>> {
    let (Some(issuer), Some(client_id)) = (&args.oidc_issuer, &args.oidc_client_id) else { return Ok(None) };
    let client_secret = match &args.oidc_client_secret_file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|err| {
                ServerError::Input(format!("--oidc-client-secret-file {}: cannot read it: {err}", path.display()))
            })?;
            let secret = text.trim().to_owned();
            if secret.is_empty() {
                return Err(ServerError::Input(format!("--oidc-client-secret-file {} is empty", path.display())));
            }
            Some(secret)
        }
        None => std::env::var(CLIENT_SECRET_ENV).ok().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()),
    };
    Ok(Some(SignInConfig {
        oidc: OidcSettings {
            issuer: issuer.clone(),
            client_id: client_id.clone(),
            client_secret,
            extra_scopes: args.oidc_scopes.clone(),
            groups_claim: args.oidc_groups_claim.clone(),
            ca_file: ca_file.map(std::path::Path::to_path_buf),
        },
        admin_group: args.oidc_admin_group.clone(),
    }))
}

/// Runs `beckon serve`.
pub async fn run(connection: &Connection, args: ServeArgs) -> ServerResult<Exit> {
    let data_dir = connection.data_dir();
    let mut signals = Signals::listen().map_err(|err| ServerError::Io(format!("cannot listen for signals: {err}")))?;
    // The same settings the window saves, with the environment over them.
    let settings = Settings::load(&data_dir);
    if let Some(problem) = settings.problem() {
        tracing::warn!(%problem, "the settings file is not used");
    }
    // What the window would refuse to save is not run because it was written by hand: a
    // channel set wrong must not post questions where the person did not mean them to go.
    settings.file().check().map_err(|problems| ServerError::Settings { file: settings.path().to_owned(), problems })?;
    let mut config = settings.runtime_config(HOLDER);
    config.database_url = match (&args.database, &connection.ca_file) {
        (Some(url), Some(ca_file)) => Some(beckon_store::trusting(url, ca_file)),
        (url, _) => url.clone(),
    };
    config.lease = std::time::Duration::from_secs(args.lease_seconds);
    config.person_session_lifetime = std::time::Duration::from_secs(args.session_hours * 3600);
    config.pairing_window = std::time::Duration::from_secs(args.pairing_days * 86_400);
    config.callback_destinations = callback_destinations(&args);
    // Where and how the gateway listens is checked before anything starts.
    let mut gateway_config = GatewayConfig::new(&data_dir);
    gateway_config.port = args.port.unwrap_or_else(|| settings.gateway_port());
    listen_on(&mut gateway_config, &args)?;
    gateway_config.sign_in = sign_in(&args, connection.ca_file.as_deref())?;
    gateway_config.window_dir = args.ui_dir.clone();
    gateway_config.limits = args.capacity.limits();
    gateway_config.metrics_listen = args.metrics_listen;
    // People who sign in pair their own Slack accounts and Telegram chats, where those are on.
    let file = settings.file();
    gateway_config.pairable_channels = [("slack", file.slack.enabled), ("telegram", file.telegram.enabled)]
        .into_iter()
        .filter(|(_, on)| *on)
        .map(|(channel, _)| channel.to_owned())
        .collect();
    let options = StartOptions { notifier: Arc::new(LoggedNotices), ..StartOptions::default() };
    let beckon = Beckon::start(config, options).await?;
    let shown = match beckon.tokens().take_new_admin() {
        // Standard output only, never the log: this is the one time the token is shown.
        Some(token) => Some(format!(
            "Admin token for this team server (shown once; every replica accepts it): {token}\nKeep it safe: `beckon --url <public URL> --token <it> token create --name <name> --ask-only [--for person:<subject>]` makes tokens for agents."
        )),
        None if args.database.is_some() => Some(
            "This team server's admin token already exists: it was shown once, on the standard output of the replica that first set up this database. Every replica accepts it; without it, people in the admin group manage tokens once signed in.".to_owned(),
        ),
        None => None,
    };
    if let Some(shown) = shown {
        println!("{shown}");
        if let Err(err) = std::io::Write::flush(&mut std::io::stdout()) {
            eprintln!("cannot show the admin token: {err}");
        }
    }
    let gateway = match beckon_gateway::start(beckon.clone(), gateway_config).await {
        Ok(gateway) => gateway,
        Err(err) => {
            beckon.shutdown().await;
            return Err(err.into());
        }
    };
    // Slack and Telegram as the settings have them; do not disturb pauses their posts here too.
    let file = settings.file();
    let channels = SharedChannels::start(&beckon, file);
    if args.pair_telegram {
        pair_telegram(&beckon, file.telegram.enabled).await;
    }
    tracing::info!(
        url = %gateway.url,
        data_dir = %data_dir.display(),
        database = %beckon.configuration().database(),
        "Beckon is serving; SIGINT or SIGTERM stops it"
    );
    let signal = signals.stopped().await;
    tracing::info!(signal, "stopping");
    gateway.stop();
    channels.stop().await;
    beckon.shutdown().await;
    tracing::info!("stopped");
    Ok(Exit::Success)
}
