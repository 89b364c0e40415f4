//! Embeds the UI and declares the app's own commands, so the capability file can allow
//! exactly those (`allow-<command>`).

const COMMANDS: &[&str] = &[
    "bootstrap",
    "list_sessions",
    "get_session",
    "get_question",
    "start_session",
    "send_message",
    "answer",
    "decline",
    "cancel",
    "metrics",
    "get_settings",
    "save_settings",
    "callback_secret",
    "rotate_callback_secret",
    "telegram_pairing",
    "new_telegram_pairing_code",
    "confirm_telegram_chat",
    "refuse_telegram_chat",
    "agents_status",
    "connect_agent",
    "tokens",
    "create_token",
    "revoke_token",
    "answer_batch",
    "rules",
    "create_rule",
    "revoke_rule",
    "rule_offers",
    "dismiss_rule_offer",
    "export_audit",
    "start_at_login",
    "set_start_at_login",
    "beckon_command",
    "send_test_notification",
    "dismiss_guide",
    "subscribe",
    "team_inboxes",
    "add_team_inbox",
    "sign_in_team_inbox",
    "remove_team_inbox",
];

fn main() {
    let attributes = tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(err) = tauri_build::try_build(attributes) {
        println!("cargo::error={err:#}");
    }
}
