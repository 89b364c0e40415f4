//! The TypeScript declarations of every type the window receives or sends, generated with
//! ts-rs into `ui/src/bindings/` and committed. This test fails when they are stale; run it
//! with `BECKON_UPDATE_BINDINGS=1` to write them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use beckon_runtime::api::{ErrorBody, LiveEvent};
use beckon_runtime::{AnswerReceipt, SessionView};
use ts_rs::{Config, TS};

use crate::dto::{Bootstrap, NavTarget, NotificationTest, TelegramPairing, UiEvent};
use crate::settings::{SettingsInput, SettingsView};

fn committed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings")
}

/// Every `.ts` file under `dir`, by path relative to it.
fn files(dir: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, files);
            } else if path.extension().is_some_and(|e| e == "ts") {
                let name = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                files.insert(name, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(dir, dir, &mut files);
    files
}

fn export(dir: &Path) {
    let config = Config::new().with_out_dir(dir).with_large_int("number");
    Bootstrap::export_all(&config).unwrap();
    UiEvent::export_all(&config).unwrap();
    NavTarget::export_all(&config).unwrap();
    SessionView::export_all(&config).unwrap();
    AnswerReceipt::export_all(&config).unwrap();
    ErrorBody::export_all(&config).unwrap();
    LiveEvent::export_all(&config).unwrap();
    SettingsInput::export_all(&config).unwrap();
    SettingsView::export_all(&config).unwrap();
    TelegramPairing::export_all(&config).unwrap();
    NotificationTest::export_all(&config).unwrap();
    crate::agents::AgentView::export_all(&config).unwrap();
    crate::dto::NewToken::export_all(&config).unwrap();
    beckon_core::Answer::export_all(&config).unwrap();
    beckon_store::SessionCursor::export_all(&config).unwrap();
    beckon_runtime::BatchDecision::export_all(&config).unwrap();
    beckon_runtime::BatchReceipt::export_all(&config).unwrap();
    beckon_runtime::WindowSnapshot::export_all(&config).unwrap();
    beckon_runtime::ChannelPairingCode::export_all(&config).unwrap();
    beckon_runtime::PairedChannel::export_all(&config).unwrap();
    crate::team::TeamState::export_all(&config).unwrap();
    beckon_store::RuleRecord::export_all(&config).unwrap();
    beckon_store::RuleOffer::export_all(&config).unwrap();
    beckon_store::AuditRow::export_all(&config).unwrap();
}

#[test]
fn typescript_bindings_are_up_to_date() {
    let fresh = tempfile::tempdir().unwrap();
    export(fresh.path());
    let generated = files(fresh.path());
    assert!(generated.len() > 20, "{:?}", generated.keys());
    let committed = committed_dir();
    if std::env::var_os("BECKON_UPDATE_BINDINGS").is_some() {
        let _ = std::fs::remove_dir_all(&committed);
        std::fs::create_dir_all(&committed).unwrap();
        for (name, text) in &generated {
            let path = committed.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        return;
    }
    let on_disk = files(&committed);
    let stale: Vec<&String> = generated.keys().filter(|name| on_disk.get(*name) != generated.get(*name)).collect();
    let extra: Vec<&String> = on_disk.keys().filter(|name| !generated.contains_key(*name)).collect();
    assert!(
        stale.is_empty() && extra.is_empty(),
        "ui/src/bindings is stale (changed or missing: {stale:?}; no longer generated: {extra:?}); regenerate with BECKON_UPDATE_BINDINGS=1 cargo test -p beckon-desktop bindings"
    );
}
