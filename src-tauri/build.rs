//! Embeds the UI and declares the app's own commands, so the capability file can allow
//! exactly those (`allow-<command>`): the one command every window command goes through, and
//! the event stream.

const COMMANDS: &[&str] = &[
    // Every window command, by name and arguments (the list is `WindowCommand` and
    // `DesktopCommand`; what the window may run is decided there, not here).
    "window_command",
    // The event stream.
    "subscribe",
];

fn main() {
    let attributes = tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(err) = tauri_build::try_build(attributes) {
        println!("cargo::error={err:#}");
    }
}
