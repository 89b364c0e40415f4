//! Beckon's desktop shell: hosts the runtime and the local gateway, registers the window's
//! commands, forwards events, and reaches the person through notifications, the tray and
//! `beckon://` links. Every command is a thin adapter; the rules live in the runtime.

mod agents;
mod attention;
mod autostart;
mod channels;
mod command_error;
mod commands;
pub mod deeplink;
mod desktop_commands;
mod drawing;
pub mod dto;
mod forward;
mod launch;
mod navigate;
mod notify;
pub mod settings;
mod start;
mod state;
mod team;
mod tray;
pub mod tray_model;
mod triage;
mod trim;
mod window;

#[cfg(test)]
mod bindings;
#[cfg(test)]
mod inbox_line_cases;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use beckon_runtime::{StartOptions, default_data_dir};
use tauri::{AppHandle, Manager, WindowEvent};
use tauri_plugin_deep_link::DeepLinkExt;
use tokio::sync::mpsc;

use crate::channels::RunningChannels;
use crate::notify::DesktopNotifier;
use crate::settings::Settings;
use crate::start::{GatewayDown, Started};
use crate::state::App;

/// Handles `beckon://` links, whether they started the app or reached it running.
fn open_links(app: &AppHandle, urls: Vec<String>) {
    let Some(state) = app.try_state::<App>() else { return };
    let Ok(beckon) = &state.beckon else { return };
    let beckon = beckon.clone();
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        for url in urls {
            tracing::info!(%url, "link opened");
            let target = navigate::checked(&beckon, deeplink::parse(&url)).await;
            navigate::go(&app, target);
        }
    });
}

/// The HTTP client team inboxes are called with: beside the system's certificate authorities,
/// it trusts those in `BECKON_CA_FILE` when set (a team server behind a private authority that
/// is not installed system-wide).
fn team_http() -> reqwest::Client {
    let ca_file = std::env::var_os("BECKON_CA_FILE").filter(|file| !file.is_empty()).map(std::path::PathBuf::from);
    beckon_gateway::team_inbox::http(ca_file.as_deref())
        .or_else(|err| {
            tracing::warn!(%err, "team inboxes trust the system's certificate authorities only");
            beckon_gateway::team_inbox::http(None)
        })
        .unwrap_or_default()
}

fn setup(app: &mut tauri::App, hidden: bool) -> Result<(), Box<dyn std::error::Error>> {
    let data_dir = default_data_dir();
    let settings = Settings::load(&data_dir);
    let (inputs, inbox) = mpsc::unbounded_channel();
    let options = StartOptions { notifier: Arc::new(DesktopNotifier::new(inputs.clone())), ..StartOptions::default() };
    // The window's page waits for this (its assets are served on this thread): the log says how long.
    let starting = std::time::Instant::now();
    let started_at_ms = beckon_runtime::now_ms();
    let started = tauri::async_runtime::block_on(start::start(&settings, &data_dir, options));
    tracing::info!(took_ms = starting.elapsed().as_millis(), "the runtime, the gateway and the channels started");
    let (beckon, gateway, channels) = match started {
        Ok(Started { beckon, gateway, channels }) => (Ok(beckon), gateway, channels),
        Err(err) => {
            tracing::error!(%err, "Beckon could not start");
            (Err(err), Err(GatewayDown::NoRuntime), RunningChannels::none())
        }
    };
    let running = beckon.as_ref().ok().cloned();
    let (dnd, reminder) = (settings.do_not_disturb(), settings.reminder_minutes());
    app.manage(App {
        beckon,
        settings: Mutex::new(settings),
        data_dir: data_dir.clone(),
        forwarders: Mutex::new(HashMap::new()),
        attention: inputs.clone(),
        navigation: Mutex::new(None),
        gateway: Mutex::new(gateway),
        channels,
        teams: team::Teams::load(data_dir.clone(), team_http()),
    });
    app.manage(window::WindowLife::from_environment());
    let handle = app.handle().clone();
    if let Some(state) = handle.try_state::<App>() {
        team::commands::follow_all(&handle, &state.teams);
    }
    if let Err(err) = tray::build(&handle, dnd) {
        tracing::warn!(%err, "no tray icon");
    }
    if let Some(beckon) = running.clone() {
        let icon = data_dir.join("icon.png");
        if let Err(err) = std::fs::write(&icon, include_bytes!("../../icons/128x128.png")) {
            tracing::warn!(%err, path = %icon.display(), "cannot write the icon notifications show");
        }
        let handle = handle.clone();
        tauri::async_runtime::spawn(async move {
            let start = attention::Start {
                app: handle,
                beckon,
                inputs: inbox,
                actions: inputs,
                started_at_ms,
                dnd,
                reminder_minutes: reminder,
                icon: icon.display().to_string(),
            };
            attention::run(start).await;
        });
    }
    #[cfg(any(target_os = "linux", all(debug_assertions, windows)))]
    if let Err(err) = app.deep_link().register_all() {
        tracing::warn!(%err, "cannot register the beckon:// scheme");
    }
    let links = handle.clone();
    app.deep_link()
        .on_open_url(move |event| open_links(&links, event.urls().iter().map(ToString::to_string).collect()));
    // Read only now, with the handler above listening: a link a second launch handed over
    // while Beckon was starting replaced the one that started it, and reached no handler.
    if let Ok(Some(urls)) = app.deep_link().get_current()
        && let (Some(url), Some(beckon)) = (urls.last(), running)
    {
        let target = tauri::async_runtime::block_on(navigate::checked(&beckon, deeplink::parse(url.as_str())));
        state::remember_navigation(&handle, target);
        // A link is opened to be seen, however Beckon was started.
        navigate::raise(&handle);
    }
    match window::first(&handle, !hidden) {
        Ok(_) if hidden => window::hidden(&handle),
        Ok(_) => {}
        Err(err) => tracing::error!(%err, "cannot make the window"),
    }
    Ok(())
}

/// Runs the app until it quits.
pub fn run() {
    drawing::choose_before_threads();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("BECKON_LOG").unwrap_or_else(|_| "info".into()))
        .try_init();
    // Lossy: an argument that is not UTF-8 is no `--hidden`, and must not stop the app.
    let args: Vec<String> = std::env::args_os().map(|arg| arg.to_string_lossy().into_owned()).collect();
    let hidden = launch::starts_hidden(&args);
    if hidden {
        tracing::info!("started at login: the window stays hidden until the tray, a notification or a link opens it");
    }
    let app = tauri::Builder::default()
        // First: a second launch hands its link to this instance (through the deep-link
        // plugin's handler) and exits. A second start at login (its autostart entry, while
        // Beckon already runs) leaves the window as it is; any other brings it up.
        .plugin(tauri_plugin_single_instance::init(|app, argv, _cwd| {
            if !launch::starts_hidden(&argv) {
                navigate::raise(app);
            }
        }))
        .plugin(tauri_plugin_deep_link::init())
        .plugin(autostart::plugin())
        // Links in agents' Markdown open in the system browser, and only on a click (see the capability).
        .plugin(tauri_plugin_opener::init())
        .setup(move |app| setup(app, hidden))
        .on_window_event(|window, event| {
            // Closing the window keeps Beckon running in the tray; agents keep working.
            match event {
                WindowEvent::CloseRequested { api, .. } => {
                    let _ = window.hide();
                    api.prevent_close();
                    window::hidden(window.app_handle());
                }
                // Released: its page's event stream goes with it, and the next page starts where
                // it is sent (the navigation its page would have read is dropped).
                WindowEvent::Destroyed => {
                    if let Some(state) = window.app_handle().try_state::<App>() {
                        if let Some(forwarder) = state.forwarders().remove(window.label()) {
                            forwarder.abort();
                        }
                        state.take_navigation();
                    }
                }
                _ => {}
            }
        })
        .invoke_handler(tauri::generate_handler![commands::window_command, commands::subscribe])
        .build(tauri::generate_context!());
    let app = match app {
        Ok(app) => app,
        Err(err) => {
            tracing::error!(%err, "the app could not start");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| match event {
        // The window was released, not closed: Beckon runs on in the tray until it is told to
        // quit (which comes with an exit code).
        tauri::RunEvent::ExitRequested { code: None, api, .. } => api.prevent_exit(),
        tauri::RunEvent::Exit => {
            if let Some(state) = handle.try_state::<App>() {
                state.stop_gateway();
                tauri::async_runtime::block_on(state.channels.stop());
            }
        }
        _ => {}
    });
}
