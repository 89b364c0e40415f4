//! The real desktop app under Xvfb, driven through tauri-driver and WebKitWebDriver, and the
//! packages people install. One test binary; each suite is a module. The suites need a
//! display, a session bus and the built app: without the `e2e` feature this compiles to
//! nothing.

#![cfg(feature = "e2e")]
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod agents_settings;
mod always_there;
mod approvals;
mod first_run;
mod links;
mod markdown;
mod notification_bursts;
mod notifications;
mod package;
mod patterns;
mod settings;
mod start_failure;
mod team_inbox;
mod telegram_pairing;
mod tray;
mod triage;
mod window;
mod window_release;
